# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin for numaops.colocation.node_preflight: with ``lock``, takes the node lock first (node_lock) and
then reads the node, in one task; a read that fails after the lock was taken releases the lock again. With
``lock`` ``state: query`` the lock is only read (another run's lock fails the task all the same). With
``checks``, judges what was read against what node_prep asks (module_utils/preflight.checks), on the controller,
in the same task: the role needs no task of its own for it; what is asked also decides what is read
(module_utils/preflight.read_args). With ``read_files``, what was read is kept on the
controller for the plan that follows (node_config ``reuse_read``) and only its token is returned; the reads that a run
which was killed left on this controller are removed first (plugin_utils/kept_reads.py). With ``plan`` (node_config's
options of each concern) and ``checks``, that plan runs in the same task once the checks passed: node_config in check
mode over every concern the checks enable, from this task's read (no call to the node of its own), its result as
``plan``; the task reports changed (and shows the plan's diff) only in check mode, where the plan is all that runs.
With ``role_vars: node_prep``, the options come from the role's variables in this task's variables, as the concern
registry declares them (module_utils/node_prep_concerns.py: READ_INPUTS, CHECKS_INPUTS, PROFILE_INPUTS, each
concern's ``inputs``, the decision's settings), templated here and typed against the role's argument specification
(plugin_utils/node_prep_inputs.py); an option also given in the task takes the task's value."""
from __future__ import annotations

import copy
import datetime
import random

from ansible import constants as C
from ansible.errors import AnsibleActionFail

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet_target, node_prep_concerns, preflight
from ansible_collections.numaops.colocation.plugins.plugin_utils import kept_reads, node_prep_decision, node_prep_inputs, node_prep_profile
# The plan's action plugin (and through it ruamel.yaml and tomlkit), imported here: ansible-playbook resolves this
# task's action plugin in its main process before it forks the workers, so they are imported once per run instead
# of in every worker of the pre-flight.
from ansible_collections.numaops.colocation.plugins.action import node_config  # noqa: F401 pylint: disable=unused-import
# Likewise the collection's filter plugins (a worker that looks up one of its filters loads every file of
# plugins/filter), which the pre-flight's arguments and the playbook's fleet tasks after it use.
from ansible_collections.numaops.colocation.plugins.filter import fleet as _fleet_filters  # noqa: F401 pylint: disable=unused-import
from ansible_collections.numaops.colocation.plugins.filter import numa_report as _numa_filters  # noqa: F401 pylint: disable=unused-import
from ansible_collections.numaops.colocation.plugins.plugin_utils.lock_first import LockFirstAction
from ansible_collections.numaops.colocation.plugins.plugin_utils.node_files import keep, temp_files_warning


PLANNER = 'numaops.colocation.node_config'
PROFILER = 'numaops.colocation.perf_profile'


def plan_args(plan, checks):
    """node_config's options for the plan from ``plan`` (the role's options of each concern of the registry,
    module_utils/node_prep_concerns.py) and the pre-flight's verdict ``checks``: only the concerns the checks enable
    (the kubelet concern, containerd NRI unless it is left alone, the kernel command line when there are arguments
    to manage, irqbalance and the huge pages unit when the performance profile has them; a concern the role passes
    as null is not planned), each completed with what the pre-flight settled (the kubelet file found and where its keys go, the
    containerd version and NRI's state, the kernel arguments, the profile's kubelet settings)."""
    typed = checks.get('settings') or {}
    # a performance profile's kubelet settings replace the role's (plugin_utils/node_prep_profile.py)
    profile = checks.get('profile') or {}
    asked = {}
    for concern in node_prep_concerns.applying():
        options = plan.get(concern.name)
        if options is None:
            continue
        if concern.name == 'kubelet':
            if typed.get('kubelet_enabled'):
                # the main file or the role's drop-in, as the checks settled (module_utils/kubelet_target.py)
                asked['kubelet'] = dict(options, path=checks.get('kubelet_config'), **dict(
                    kubelet_target.target_options(checks.get('kubelet_target')),
                    **(profile.get('kubelet') or {})))
        elif concern.name == 'containerd':
            if typed.get('nri_enabled') is not None:
                asked['containerd'] = dict(options, state='enabled' if typed['nri_enabled'] else 'disabled',
                                           containerd_version=checks.get('containerd_version') or None)
        elif concern.name == 'kernel':
            if checks.get('kernel_args'):
                asked['kernel'] = dict(options, args=list(checks['kernel_args']))
        elif concern.name in ('irqbalance', 'hugepages'):
            # the performance profile's own files: when the profile has isolated CPUs (irqbalance) or huge pages on
            # a NUMA node (the unit), as the pre-flight's perf_profile found
            if profile.get({'irqbalance': 'irqbalance', 'hugepages': 'hugepages_unit'}[concern.name]):
                asked[concern.name] = dict(options)
        else:
            asked[concern.name] = dict(options)
    return asked


# checks keys that are options of this task too: taken from the option when checks leaves them out
SHARED_CHECKS = ('kubelet_config_path', 'kubelet_service', 'kubelet_unit_dirs', 'kubelet_env_files',
                 'kubelet_config_candidates', 'cgroup_root', 'proc_cmdline_path', 'sysfs_cpu_dir', 'sysfs_node_dir')
# decision settings that checks carries under the same name
CHECKS_SETTINGS = ('kubelet_enabled', 'nri_enabled', 'k8s_enabled', 'lock_enabled', 'reboot_allowed',
                   'manage_services', 'kubelet_service', 'node_name', 'sysfs_cpu_dir', 'root')
# decision settings that an option of a concern of plan carries: (setting, concern, option)
PLAN_SETTINGS = (('kubelet_state_dir', 'kubelet', 'state_dir'), ('containerd_config_path', 'containerd', 'path'),
                 ('containerd_dropin_path', 'containerd', 'dropin_path'), ('nri_mode', 'containerd', 'mode'),
                 ('grub_defaults_path', 'kernel', 'grub_defaults_path'))


ROLES = ('node_prep',)
# the entry point of the role's argument specification the variables are typed against
ENTRY_POINT = 'inspect'


def role_options(values, facts, unknown, allow_unknown, invalid):
    """node_preflight's options from the role variables ``values`` ({name: typed value}, as
    node_prep_concerns.role_variables names them): the read, ``read_files``, ``checks`` (with the host's
    ``facts``, the ``unknown`` and ``invalid`` variables found and ``allow_unknown``), ``plan``, ``profile`` and
    ``decide``, each as the concern registry declares it."""
    options = node_prep_concerns.resolve(node_prep_concerns.READ_INPUTS, values)
    options['read_files'] = node_prep_concerns.read_paths(dict(
        (name, values.get('node_prep_' + name)) for name in node_prep_concerns.settings_of()))
    options['checks'] = dict(
        node_prep_concerns.resolve(node_prep_concerns.CHECKS_INPUTS, values),
        facts=dict((name, (facts or {}).get(name)) for name in
                   ('distribution', 'distribution_version', 'distribution_release', 'architecture')),
        unknown=list(unknown), allow_unknown=allow_unknown, invalid=list(invalid))
    options['plan'] = node_prep_concerns.plan_options(values)
    if values.get('node_prep_perf_profile') is not None:
        options['profile'] = node_prep_concerns.resolve(node_prep_concerns.PROFILE_INPUTS, values)
    options['decide'] = {'settings': dict((name, values.get('node_prep_' + name))
                                          for name in node_prep_decision.SETTINGS)}
    return options


def decision_settings(given, wanted, plan, args):
    """The decision's settings: ``given`` (decide's settings), and the ones it leaves out taken from where this task
    has them already - checks (``wanted``), the concerns' options (``plan``) and this task's options (``args``)."""
    settings = {}
    for name in CHECKS_SETTINGS:
        if name in wanted:
            settings[name] = wanted[name]
    for name, concern, option in PLAN_SETTINGS:
        if option in (plan.get(concern) or {}):
            settings[name] = plan[concern][option]
    if 'proc_meminfo_path' in args:
        settings['proc_meminfo_path'] = args['proc_meminfo_path']
    if isinstance(args.get('lock'), dict) and 'path' in args['lock']:
        settings['lock_path'] = args['lock']['path']
    settings.update(given)
    return settings


class ActionModule(LockFirstAction):

    MODULE = 'numaops.colocation.node_preflight'
    RELEASE_ON_FAILURE = True
    # node_prep only reads the lock here and takes it after its plan, on a node that has something to change
    LOCK_QUERY = True

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars or {}
        args = dict(self._task.args)
        role = args.pop('role_vars', None)
        if role is not None:
            args = dict(self._role_options(role, task_vars), **args)
        wanted = args.pop('checks', None)
        if wanted is not None and not isinstance(wanted, dict):
            raise AnsibleActionFail('node_preflight: checks must be a dictionary (what node_prep asks of the node), '
                                    'not %r. Nothing was read.' % (wanted,))
        plan = args.pop('plan', None)
        concerns = node_prep_concerns.names(node_prep_concerns.applying())
        if plan is not None and (wanted is None or not isinstance(plan, dict) or set(plan) - set(concerns)
                                 or any(v is not None and not isinstance(v, dict) for v in plan.values())):
            raise AnsibleActionFail('node_preflight: plan must be a dictionary of %s (the options of '
                                    'numaops.colocation.node_config for each concern, each a dictionary or null), '
                                    'given with checks, not %r. Nothing was read.' % (', '.join(concerns), plan))
        profile = args.pop('profile', None)
        if profile is not None and (plan is None or not isinstance(profile, dict)):
            raise AnsibleActionFail('node_preflight: profile must be a dictionary of the options of '
                                    'numaops.colocation.perf_profile, given with plan, not %r. Nothing was read.'
                                    % (profile,))
        decide = args.pop('decide', None)
        if decide is not None and (plan is None or not isinstance(decide, dict) or set(decide) - {'settings'}
                                   or not isinstance(decide.get('settings'), dict)):
            raise AnsibleActionFail('node_preflight: decide must be a dictionary with settings (the role settings the '
                                    'decision takes), given with plan, not %r. Nothing was read.' % (decide,))
        problem = preflight.unknown_checks_keys(wanted)
        if problem:
            raise AnsibleActionFail('node_preflight: %s. Nothing was read.' % problem)
        if wanted is not None:
            wanted = dict(wanted)
            for name in SHARED_CHECKS:
                if name not in wanted and name in args:
                    wanted[name] = args[name]
            if decide is not None:
                decide = dict(decide, settings=decision_settings(decide['settings'], wanted, plan, args))
            # what is asked decides what is read (no kubelet read when the kubelet concern is off, ...)
            args = preflight.read_args(args, wanted)
        self._task.args = args  # the module on the node never sees checks
        # what a killed run left on this controller: removed before this run keeps a read of its own
        swept = kept_reads.sweep(C.DEFAULT_LOCAL_TMP)
        result = super(ActionModule, self).run(tmp, task_vars)
        if swept:
            result.setdefault('warnings', []).append(
                'removed %d read(s) of node files that a run which did not end normally left on this controller: %s'
                % (len(swept), ', '.join(swept)))
        # read_files: kept on the controller for the plan that follows (node_config reuse_read), never in the result
        files = result.pop('files', None)
        removed = result.pop('removed_temp_files', None)
        unreadable = result.pop('files_error', None)
        warning = temp_files_warning(removed)
        if warning:
            result.setdefault('warnings', []).append(warning)
        if files is not None and not unreadable and not result.get('failed'):
            result['read_token'] = keep(files, task_vars.get('inventory_hostname'))
        if wanted is not None and not result.get('failed'):
            result['checks'] = preflight.checks(result, wanted, task_vars.get('inventory_hostname', ''))
            # what koordlet cannot do on this node: shown as warnings now, and kept in the notes of the report
            result.setdefault('warnings', []).extend(result['checks']['koordlet']['warnings'])
            if profile is not None and not result['checks']['errors']:
                self._profile(profile, plan, result, task_vars)
            if plan is not None and not result['checks']['errors']:
                self._plan(plan_args(plan, result['checks']), result, task_vars)
                if decide is not None and not result.get('failed'):
                    self._decide(decide, result, task_vars)
        return result

    def _role_options(self, role, task_vars):
        """The options ``role_options`` gives from the role's variables in ``task_vars``: each templated, and typed
        against the role's argument specification; the errors of the values given (inventory, extra variables,
        survey answers, and the play's variables read here) become the checks' ``invalid``."""
        if role not in ROLES:
            raise AnsibleActionFail('node_preflight: role_vars must be one of %s (the role whose variables give '
                                    'the options), not %r. Nothing was read.' % (', '.join(ROLES), role))
        host = task_vars.get('inventory_hostname', '')
        where = 'host %s' % host
        names = node_prep_concerns.role_variables(settings=node_prep_decision.SETTINGS)
        missing = [name for name in names if name not in task_vars]
        if missing:
            raise AnsibleActionFail('node_preflight: %s: role_vars: %s needs the variables %s, which are not '
                                    'defined: run it as a task of the role (its defaults define them). Nothing '
                                    'was read.' % (host, role, ', '.join(missing)))
        templar = self._templar.copy_with_new_env(available_variables=task_vars)
        given = dict((name, templar.template(task_vars[name])) for name in names)
        spec = _fleet_filters.role_spec(role, ENTRY_POINT)
        typed, errors = node_prep_inputs.parse(dict((name, spec[name]) for name in names if name in spec), given,
                                               where)
        host_vars = (task_vars.get('hostvars') or {}).get(host) or {}
        invalid = _fleet_filters.role_variable_errors(host_vars, role, ENTRY_POINT, where)
        allow_unknown = templar.template(task_vars.get('colocation_allow_unknown_variables', False))
        return role_options(dict(given, **typed), templar.template(task_vars.get('ansible_facts') or {}),
                            _fleet_filters.unknown_variables(list(host_vars), where),
                            allow_unknown, invalid + [error for error in errors if error not in invalid])

    def _profile(self, profile, plan, result, task_vars):
        """The performance profile judged on the node: perf_profile in check mode, writing nothing (``write: []``),
        folded into ``checks`` (plugin_utils/node_prep_profile.py): the kernel arguments merged, the kubelet
        settings it gives, its notes, and an error for its refusal or a conflict with the role's variables."""
        task = self._task.copy()
        task.check_mode = True
        saved = self._task
        self._task = task
        try:
            perf = self._execute_module(module_name=PROFILER, module_args=dict(profile, write=[]),
                                        task_vars=task_vars)
        finally:
            self._task = saved
        for key in ('warnings', 'deprecations'):
            if perf.get(key):
                result.setdefault(key, []).extend(perf[key])
        result['checks'] = node_prep_profile.fold({'checks': result['checks']}, perf,
                                                  (plan or {}).get('kubelet') or {},
                                                  task_vars.get('inventory_hostname', ''))['checks']

    def _decide(self, decide, result, task_vars):
        """The decision after the plan (plugin_utils/node_prep_decision.py) as ``decision``: whether this is a
        check-mode run, this run's time stamp and a random number for the lock's run id are taken here."""
        settings = dict(decide['settings'])
        node_name = task_vars.get('node_prep_node_name')
        if node_name is not None:
            # node_prep_node_name's default names the node as this task read it (node_prep__node.os.nodename): the
            # settings were rendered before the read, so it is rendered again with it
            templar = self._templar.copy_with_new_env(available_variables=dict(task_vars, node_prep__node=result))
            settings['node_name'] = templar.template(node_name)
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime('%Y%m%dT%H%M%SZ')
        # a check-mode run: --check, or check_mode on the task, its block, role or play (audit.yml), which this
        # task's play context carries (the variable ansible_check_mode says only --check)
        result['decision'] = node_prep_decision.decide(
            result['plan'], result, settings, bool(self._play_context.check_mode),
            task_vars.get('inventory_hostname', ''), stamp, random.randrange(2147483647))
        # what koordlet cannot do, judged on the kubelet configuration the plan leaves (its CPU manager policy)
        result.setdefault('warnings', []).extend(result['decision']['plan_koordlet'].get('settled_warnings') or [])

    def _plan(self, asked, result, task_vars):
        """node_config in check mode over ``asked``, from this task's read; its result as ``plan``. A real run keeps
        the plan's read for the apply (``read_token`` of the plan); a check-mode run reports the plan's changes."""
        checking = bool(self._play_context.check_mode)
        # the options the plan runs with: the apply writes with the same (node_prep_decision apply_args)
        result['plan_args'] = asked
        if not asked:
            result['plan'] = {'changed': False, 'skipped': True}
            return
        args = dict(asked)
        if result.get('read_token'):
            args['reuse_read'] = result['read_token']
        if not checking:
            args['keep_read'] = True
        task = self._task.copy()
        task.args = args
        task.action = PLANNER
        task._resolved_action = PLANNER
        # check mode for the modules the plan runs on the node (kernel_cmdline: Ansible passes the task's check mode
        # to a module) as for the plan's own decisions (the play context's)
        task.check_mode = True
        play_context = copy.copy(self._play_context)
        play_context.check_mode = True
        play_context.diff = bool(self._play_context.diff) and checking
        action = self._shared_loader_obj.action_loader.get(
            PLANNER, task=task, connection=self._connection, play_context=play_context, loader=self._loader,
            templar=self._templar, shared_loader_obj=self._shared_loader_obj)
        planned = dict(action.run(task_vars=task_vars))
        for key in ('warnings', 'deprecations'):
            if planned.get(key):
                result.setdefault(key, []).extend(planned[key])
            planned.pop(key, None)
        diff = planned.pop('diff', None)
        result['plan'] = planned
        if planned.get('failed'):
            result['failed'] = True
            result['msg'] = planned.get('msg') or 'the plan (numaops.colocation.node_config in check mode) failed'
            return
        # the plan changes nothing: changed (with its diff) only in check mode, where a real run's apply does not run
        result['changed'] = bool(planned.get('changed')) and checking
        if diff and result['changed']:
            result['diff'] = diff
