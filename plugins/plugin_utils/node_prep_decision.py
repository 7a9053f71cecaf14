# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_prep's decision after its plan: from what the pre-flight read and judged (node_preflight's result) and
what the plan found (node_config's result in check mode), whether this node has work, whether this run applies it,
drains, reboots, takes the lock, and the notes, errors and plan lines of the node.

The concerns (kubelet, containerd NRI, kernel command line) are those of module_utils/node_prep_concerns.py: the
decision iterates over its registry. The role (roles/node_prep/tasks/inspect.yml) keeps the decision as one fact,
``node_prep__plan``, which every later task, the report (plugin_utils/fleet.py) and playbooks/node_prep.yml read
(its ``plan`` also as ``node_prep_plan``, for the fleet plan). In Python rather than in the task's templates: ansible-core
2.19 renders a task variable again at every reference, so a decision built on others in Jinja renders them all
again each time.

Pure functions, standard library only (Python 3.8+).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.numaops.colocation.plugins.module_utils import node_prep_concerns, numa, reservation_merge
from ansible_collections.numaops.colocation.plugins.module_utils import node_prep_services
from ansible_collections.numaops.colocation.plugins.module_utils.preflight import truthy, unique

# The role options the decision reads (the role passes them without the node_prep_ prefix); the concerns'
# own (node_prep_concerns.settings_of) come on top.
OWN_SETTINGS = ('reboot_allowed', 'manage_services', 'kubelet_enabled', 'drain', 'k8s_enabled', 'lock_enabled',
                'lock_path', 'reservations', 'node_name', 'sysfs_cpu_dir', 'proc_meminfo_path',
                'containerd_config_path', 'backup_dir', 'backup', 'k8s_validate_certs', 'kubelet_configz')
# The settings that are booleans: the plan carries them as true or false (the pre-flight refused any other value),
# and the tasks read them from there. node_prep_nri_enabled is a boolean or null (NRI left alone).
BOOLEAN_SETTINGS = ('reboot_allowed', 'manage_services', 'kubelet_enabled', 'drain', 'k8s_enabled', 'lock_enabled',
                    'backup', 'k8s_validate_certs')


def applied(result, plan, run, concerns=node_prep_concerns.REGISTRY, service=None):
    """The run record ``run`` (node_prep__run) after the apply's node_config call: each changing concern's result as
    ``apply_<name>`` (a concern the plan left alone: {}), and the lines of what changed appended to ``done``. With
    ``service`` (a step of the plan's ``services``), after that step: ``result`` is its task's, its line appended."""
    result = result or {}
    if service is not None:
        return dict(run, done=list(run.get('done') or []) + [node_prep_services.done_line(service, result, concerns)])
    changing = dict((c.name, truthy(plan.get(c.name + '_changing'))) for c in concerns)
    run = dict(run or {})
    for concern in node_prep_concerns.applying(concerns):
        run['apply_' + concern.name] = (result.get(concern.name) or {}) if changing[concern.name] else {}
    run['done'] = list(run.get('done') or []) + node_prep_concerns.done_lines(
        result, changing, plan.get('settings') or {}, concerns)
    return run


CONFIGZ_MODES = ('required', 'if_reachable', 'off')


def configz_plan(settings, kubelet_applied, k8s, manage):
    """Whether the apply reads the kubelet's /configz after the restart (node_prep_kubelet_configz):
    {read, required, line} - ``line`` says why it is not read; {} when the kubelet does not change."""
    if not kubelet_applied:
        return {}
    mode = settings['kubelet_configz']
    if mode not in CONFIGZ_MODES:
        raise ValueError('node_prep decision: kubelet_configz %r is not one of %s' % (mode, ', '.join(CONFIGZ_MODES)))
    why = ''
    if mode == 'off':
        why = 'node_prep_kubelet_configz=off'
    elif not k8s:
        why = 'the Kubernetes API is not used (node_prep_k8s_enabled=false), and it is read through its node proxy'
    elif not manage:
        why = 'this run does not restart the kubelet (node_prep_manage_services=false)'
    return {'read': not why, 'required': mode == 'required',
            'line': ('NOT read: ' + why) if why else 'read after the restart'}


def settings_names(concerns=node_prep_concerns.REGISTRY):
    """Every setting the decision takes with ``concerns``."""
    return OWN_SETTINGS + tuple(name for name in node_prep_concerns.settings_of(concerns) if name not in OWN_SETTINGS)


SETTINGS = settings_names()


def decide(result, node, settings, checking, host, stamp, nonce, concerns=node_prep_concerns.REGISTRY):
    """The decision of one node.

    ``result``: node_config's result of the plan ({changed, read_token, <concern>...}, a concern not asked as
    {changed: false, skipped: true}); ``node``: node_preflight's result (online_cpus, meminfo, lock, checks);
    ``settings``: settings_names(concerns); ``checking``: a check-mode run; ``host``: the inventory name; ``stamp``: this run's
    time (UTC, %Y%m%dT%H%M%SZ), the backup directory's name; ``nonce``: a random number for the lock's run id;
    ``concerns``: the concern registry (module_utils/node_prep_concerns.py). Unknown or missing settings raise
    KeyError / ValueError (a bug of the role, not of the node)."""
    names = settings_names(concerns)
    unknown = sorted(set(settings) - set(names))
    missing = sorted(set(names) - set(settings))
    if unknown or missing:
        raise ValueError('node_prep decision: settings %s unknown, %s missing' % (unknown, missing))
    result = result or {}
    checks = node.get('checks') or {}
    # a check-only concern's plan is the pre-flight's verdict of its name; it never changes the node
    plans = dict((c.name, (checks.get(c.name) if c.check_only else result.get(c.name)) or {}) for c in concerns)
    for concern in concerns:
        if concern.check_only and concern.settle is not None:
            plans[concern.name] = concern.settle(plans[concern.name], result, host)
    changing = dict((c.name, not c.check_only and truthy(plans[c.name].get('changed'))) for c in concerns)
    kubelet = plans.get('kubelet') or {}

    # the apply will reboot: a concern that reboots (the kernel command line) asks for it
    reboot_required = any(c.reboots and truthy(plans[c.name].get('reboot_required')) for c in concerns)
    will_reboot = truthy(settings['reboot_allowed']) and truthy(settings['manage_services']) and reboot_required
    # something to do on this node: any concern would change (node_config's own changed is not read: the plan task
    # reports ok in a real run, changed_when)
    work = any(changing.values()) or will_reboot
    # the apply will run: a real run with work to do
    applying = work and not checking
    manage = truthy(settings['manage_services'])
    lock_enabled = truthy(settings['lock_enabled'])
    drain_asked = truthy(settings['drain'])
    k8s = truthy(settings['k8s_enabled'])
    # a change that takes the node's workloads down: a concern that drains, or the reboot
    disruptive = any(c.drains and changing[c.name] for c in concerns) or will_reboot

    if truthy(settings['kubelet_enabled']):
        online = (node.get('online_cpus') or {}).get('ids') or []
        count = len(online) if isinstance(online, (list, tuple)) else online
        meminfo = numa.mem_total((node.get('meminfo') or {}).get('text') or '')
        fit_errors, fit_notes = reservation_merge.check_fit(
            kubelet.get('config') or {}, count or None, meminfo, host, '%s/online' % settings['sysfs_cpu_dir'],
            settings['proc_meminfo_path'])
    else:
        fit_errors, fit_notes = [], []

    removed = list(kubelet.get('reservations_removed') or [])
    notes = list(checks.get('notes') or [])
    configz = configz_plan(settings, changing.get('kubelet') and applying, k8s, manage)
    if configz and not configz['read'] and k8s:
        # (without the API, the pre-flight's note says it)
        notes.append('The kubelet configuration of %s is not confirmed by its /configz after the restart: %s.'
                     % (settings['node_name'], configz['line'][len('NOT read: '):]))
    judged_errors = []
    for concern in concerns:
        if concern.judge is not None:
            errors, more = concern.judge(plans[concern.name], changing, settings, host, bool(checking))
            judged_errors.extend(errors)
            notes.extend(more)
    if fit_notes:
        notes.append(' '.join(fit_notes))
    if removed:
        notes.append('reservations removed: %s (node_prep_reservations=%s)' % (
            ', '.join(removed), settings['reservations']))
    if not drain_asked and k8s and applying and disruptive:
        notes.append('%s is NOT drained before the kubelet change: node_prep_drain is false.' % settings['node_name'])

    skipped_restarts = []
    if not manage and applying:
        skipped_restarts = unique([settings[c.service_setting] for c in concerns
                                   if c.service_setting and changing[c.name]])
    typed = dict(settings, kubelet_config=checks.get('kubelet_config'), kernel_args=checks.get('kernel_args'))
    for name in BOOLEAN_SETTINGS:
        typed[name] = truthy(settings[name])
    if settings.get('nri_enabled') is not None:
        typed['nri_enabled'] = truthy(settings['nri_enabled'])
    decision = {
        'check_mode': bool(checking),
        'run_id': stamp if applying else '',
        'skipped_restarts': skipped_restarts,
        'drain_wanted': drain_asked and k8s and applying and disruptive,
        'read_token': result.get('read_token') or '',
        # the node lock as the pre-flight found it (it only reads it; empty when node_prep_lock_enabled=false)
        'lock': node.get('lock') or {},
        # whether this run takes the lock: a real run with something to change (the lock task takes it, the apply
        # renews it, the end of the run releases it)
        'locked': lock_enabled and applying,
        # the lock's owner, kept across the plays of playbooks/node_prep.yml
        'lock_run_id': '%s-%s' % (stamp, nonce) if lock_enabled and applying else '',
        'lock_file': settings['lock_path'],
        'mem_sampling_wanted': checks.get('mem_sampling_wanted'),
        'kernel_args': checks.get('kernel_args'),
        # None: not checked (node_prep_memory_qos_enabled=false)
        'cgroup_v2_memory': checks.get('cgroup_v2_memory'),
        'cgroup_v2_args': checks.get('cgroup_v2_args'),
        'cgroup_v2_after_reboot': checks.get('cgroup_v2_after_reboot'),
        'kubelet_config': checks.get('kubelet_config'),
        # the kubelet's /configz after the restart: whether it is read, whether a failure to read it fails the
        # host, and the report's line until it is read ({} when the kubelet does not change in a real run)
        'configz': configz,
        'reboot': will_reboot,
        'work_needed': work,
        # playbooks/node_prep.yml: the nodes that go through its batches (a real run with work to do)
        'in_batches': applying,
        'plan_errors': (['node_prep: %s (after merging with %s)' % (' '.join(fit_errors), checks.get('kubelet_config'))]
                        if fit_errors else []) + judged_errors,
        'notes': notes,
        # the role options the report names (fleet.node_report): playbooks/node_prep.yml builds the report of a
        # node with nothing to change from its hostvars, which carry no role defaults
        'report_settings': {'containerd_config_path': settings['containerd_config_path'],
                            'backup_dir': settings['backup_dir'], 'reservations': settings['reservations'],
                            'reboot_allowed': truthy(settings['reboot_allowed'])},
        # the apply's lock renewal and snapshot go into node_config's first call when nothing runs on the node
        # before it (no drain, no service stopped first): one round trip less
        'snapshot_with_config': (any(changing.values()) and not (drain_asked and k8s and applying and disruptive)
                                 and not (manage and any(c.before and changing[c.name] for c in concerns))),
        # every file the changing concerns edit: the apply's snapshot, what a rollback puts back
        'snapshot_paths': node_prep_concerns.snapshot_paths(changing, plans, typed, concerns),
        # the role's settings, the booleans as true or false: what the tasks after the plan and the concerns' done
        # lines (node_prep_concerns.done_lines) read
        'settings': typed,
    }
    # the options the apply writes each changing concern with: those the plan ran with (node_preflight's
    # plan_args), with the backup setting for a module that takes it (the plan ran with backup: false); null for a
    # concern that does not change (node_config leaves it alone)
    plan_args = node.get('plan_args') or {}
    decision['config_changing'] = any(changing.values())
    # the service steps (module_utils/node_prep_services.py): every concern's, in the apply's order (a rollback
    # restarts those this run restarted, and after its reboot those the boot started); and the services the apply
    # restarts and verifies after the write (roles/node_prep/tasks/service.yml), the kubelet's start coming after
    # the reboot
    decision['services'] = node_prep_services.steps(typed, concerns)
    decision['restarts'] = [step for step in decision['services'] if step['after'] == 'restart'
                            and changing[step['concern']] and manage and applying]
    decision['apply_args'] = dict(
        (c.name, dict(plan_args[c.name], **({'backup': typed['backup']} if 'backup' in plan_args[c.name] else {}))
         if changing[c.name] and c.name in plan_args else None)
        for c in node_prep_concerns.applying(concerns))
    plan = {'work': work, 'reboot': reboot_required, 'removed': removed}
    for concern in concerns:
        # plan_<name> and <name>_changing: the plan of each concern and whether it changes the node
        decision['plan_' + concern.name] = (plans[concern.name] if concern.check_only
                                            else result[concern.name] if concern.name in result else {'changed': False})
        decision[concern.name + '_changing'] = changing[concern.name]
        entry = concern.plan_entry(plans[concern.name])
        if entry is not None or not concern.check_only:
            # a check-only concern with nothing to say is not in the host's plan
            plan[concern.plan_key] = entry
        plan.update(concern.plan_more(plans[concern.name]))
    # the plan of this host, for the fleet plan of playbooks/node_prep.yml (node_prep_plan)
    decision['plan'] = plan
    return decision
