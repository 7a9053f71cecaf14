# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fleet-wide bookkeeping of the playbooks: unknown variables, survey answers, batches, the fleet plan and the
fleet summaries of node_prep.yml and audit.yml.

Pure functions, standard library only (Python 3.8+).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import difflib
import json
import re

from ansible_collections.numaops.colocation.plugins.module_utils.node_prep_concerns import REGISTRY
from ansible_collections.numaops.colocation.plugins.module_utils.preflight import truthy

# Variable prefixes of the collection: a host or extra variable with one of them that no role or playbook reads
# is a typo (or a variable of another version).
PREFIXES = ('node_prep_', 'colocation_', 'memory_qos_')

# Names with a collection prefix that are neither role options nor role defaults: playbook-level settings, the
# survey variables, facts the roles and playbooks set, and inventory group names.
PLAYBOOK_VARIABLES = (
    # playbooks/node_prep.yml, audit.yml, memory_qos.yml, site.yml, colocation_sync.yml
    'node_prep_max_unavailable', 'node_prep_max_fail_percentage', 'node_prep_become', 'node_prep_continue_healthy',
    'node_prep_survey_max_unavailable', 'node_prep_survey_max_fail_percentage',
    'colocation_report_dir', 'memory_qos_become', 'colocation_allow_unknown_variables', 'colocation_gather_facts',
    'colocation_audit_fail_on_drift', 'colocation_audit_fail_on_refusals', 'colocation_sync_namespaces', 'colocation_sync_label_selector',
    'colocation_sync_result',
    # collection-wide Kubernetes API settings read by every role
    'colocation_k8s_kubeconfig', 'colocation_k8s_context', 'colocation_k8s_host', 'colocation_k8s_api_key',
    'colocation_k8s_validate_certs', 'colocation_k8s_ca_cert', 'colocation_k8s_client_cert',
    'colocation_k8s_client_key',
    # facts set by the roles and playbooks (results)
    'node_prep_report', 'node_prep_audit_error', 'node_prep_fleet_plan', 'node_prep_fleet_summary',
    'node_prep_plan', 'node_prep_preflight_error',
    'memory_qos_audit_error', 'memory_qos_report', 'memory_qos_result', 'memory_qos_summary',
    'memory_qos_nodes_with_drift', 'memory_qos_play_hosts', 'colocation_audit_summary',
    'colocation_audit_refusals', 'colocation_audit_refusals_error',
    # inventory groups
    'colocation_nodes',
)

# Survey variables: what an AWX survey question sets. A blank answer means "not given"; an answered one is
# set as the role variable of the same name without the survey_ part, over the inventory.
SURVEY_PREFIX = 'node_prep_survey_'
SURVEY_VARIABLES = {
    'node_prep_survey_cpu_manager_policy': ('node_prep_cpu_manager_policy', 'str'),
    'node_prep_survey_topology_manager_policy': ('node_prep_topology_manager_policy', 'str'),
    'node_prep_survey_reserved_system_cpus': ('node_prep_reserved_system_cpus', 'str'),
    'node_prep_survey_nri_enabled': ('node_prep_nri_enabled', 'bool'),
    'node_prep_survey_drain': ('node_prep_drain', 'bool'),
    'node_prep_survey_reboot_allowed': ('node_prep_reboot_allowed', 'bool'),
}


def is_internal(name):
    """A role's private variable (``node_prep__*``: prefix, then a second underscore)."""
    for prefix in PREFIXES:
        if name.startswith(prefix) and name[len(prefix):].startswith('_'):
            return True
    # role names are prefixes too: node_prep_x__y, memory_qos__y, colocation_controller__y
    return '__' in name


def unknown_variables(names, known, prefixes=PREFIXES):
    """[(name, suggestion or '')] for every name of ``names`` with one of ``prefixes`` that is not in ``known``
    and not internal, sorted."""
    known = set(known)
    unknown = []
    for name in sorted(set(n for n in names if isinstance(n, str))):
        if not isinstance(name, str) or not name.startswith(tuple(prefixes)):
            continue
        if name in known or is_internal(name):
            continue
        close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
        unknown.append((name, close[0] if close else ''))
    return unknown


def describe_unknown(unknown, where):
    """One sentence per unknown variable of ``where`` (e.g. 'host node-1')."""
    return ['%s%s is not a variable of numaops.colocation%s' % (
        ('%s: ' % where) if where else '', name, (' (did you mean %s?)' % suggestion) if suggestion else '')
        for name, suggestion in unknown]


def _blank(value):
    return value is None or (isinstance(value, str) and value.strip() == '')


def _as_bool(value):
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ('true', 'yes', 'on', '1'):
        return True
    if text in ('false', 'no', 'off', '0'):
        return False
    raise ValueError(text)


_GENERIC_SURVEY = re.compile(r'^(node_prep|memory_qos|colocation_controller|colocation)_survey_([a-z0-9_]+)$')


def survey_answers(extra):
    """({role variable: value} of the survey answers given in ``extra`` (the job's variables), [errors]).
    A blank answer ("" or only spaces, as some AWX versions send an unanswered question) is not an answer.
    Besides SURVEY_VARIABLES (typed), any ``<prefix>_survey_<name>`` maps to ``<prefix>_<name>`` as given."""
    answers = {}
    errors = []
    for name in sorted(n for n in extra if isinstance(n, str)):
        match = _GENERIC_SURVEY.match(name)
        if not match or name in SURVEY_VARIABLES or name in PLAYBOOK_VARIABLES or _blank(extra[name]):
            continue
        answers['%s_%s' % match.groups()] = extra[name]
    for survey, (target, kind) in sorted(SURVEY_VARIABLES.items()):
        if survey not in extra or _blank(extra[survey]):
            continue
        value = extra[survey]
        if kind == 'bool':
            try:
                value = _as_bool(value)
            except ValueError:
                errors.append('%s=%r is not true or false' % (survey, value))
                continue
        else:
            value = str(value).strip()
        answers[target] = value
    return answers, errors


def batch_size(serial, hosts):
    """The batch size Ansible uses for ``serial`` (a number or a percentage) over ``hosts`` hosts."""
    text = str(serial).strip() if serial is not None else ''
    if text in ('', '0'):
        return max(hosts, 1)
    if text.endswith('%'):
        size = int(hosts * float(text[:-1]) / 100)
        return max(size, 1)
    return max(int(text), 1)


def batch_position(all_hosts, batch_hosts, serial):
    """(batch number from 1, number of batches) of ``batch_hosts`` in the play over ``all_hosts``."""
    all_hosts = list(all_hosts)
    size = batch_size(serial, len(all_hosts))
    total = max((len(all_hosts) + size - 1) // size, 1)
    first = [all_hosts.index(h) for h in batch_hosts if h in all_hosts]
    number = (min(first) // size + 1) if first else 1
    return number, total


def batch_hosts(all_hosts, some_hosts, serial):
    """Every host of the batch that ``some_hosts`` (hosts of one batch: the current batch's hosts that are left, or
    the host running a task) are in, in the play over ``all_hosts`` run with ``serial``: Ansible slices the play's
    hosts into its batches when the play starts, so a batch's hosts are known after some of them failed."""
    all_hosts = list(all_hosts)
    size = batch_size(serial, len(all_hosts))
    number, _total = batch_position(all_hosts, some_hosts, serial)
    return all_hosts[(number - 1) * size:number * size]


def fleet_plan(plans, concerns=REGISTRY):
    """Lines of the fleet plan from {host: plan} where a plan has ``work`` (bool), ``reboot`` (bool), ``removed``
    (list of reservation entries dropped), ``failed`` (a message when the pre-flight failed) and each concern's
    entry under its ``plan_key`` (``kubelet_changes``: {key: [old, new]}, ``containerd``, ``kernel``: bool); the
    groups are the concerns' ``plan_labels``."""
    hosts = sorted(plans)
    failed = [h for h in hosts if plans[h].get('failed')]
    work = [h for h in hosts if not plans[h].get('failed') and plans[h].get('work')]
    same = [h for h in hosts if not plans[h].get('failed') and not plans[h].get('work')]
    lines = ['node_prep plan: %d node(s): %d to change, %d already as wanted, %d failed the pre-flight'
             % (len(hosts), len(work), len(same), len(failed))]
    groups = {}
    for host in sorted(work + same):
        for concern in concerns:
            # a check-only concern (koordlet) speaks of every host that passed, with work or not
            if host in work or concern.check_only:
                for label in concern.plan_labels(plans[host]):
                    groups.setdefault(label, []).append(host)
    for label in sorted(groups):
        members = groups[label]
        lines.append('%d node(s) %s: %s' % (len(members), label, _hosts(members)))
    for host in failed:
        lines.append('%s: PRE-FLIGHT FAILED - %s' % (host, plans[host]['failed']))
    return lines


def _hosts(hosts, limit=10):
    shown = ', '.join(hosts[:limit])
    return shown + (' and %d more' % (len(hosts) - limit) if len(hosts) > limit else '')


# The variables node_report and node_summary read: the node's plan (the decision, plugin_utils/node_prep_decision.py,
# kept by roles/node_prep/tasks/plan.yml as one fact), its run record (what the apply did: the concerns' results
# apply_<concern>, done, rebooted, cordoned, restarted; a value there overrides the plan's) and the node lock as the
# role's lock task took it.
REPORT_VARIABLES = ('node_prep__plan', 'node_prep__run', 'node_prep__lock_taken')


def facts(variables):
    """One mapping of the node's plan, overridden by its run record, with ``lock_taken``."""
    view = dict(variables.get('node_prep__plan') or {})
    view.update(variables.get('node_prep__run') or {})
    view['lock_taken'] = variables.get('node_prep__lock_taken')
    return view


def node_report(variables, concerns=REGISTRY):
    """``node_prep_report`` of one host from its variables (a mapping of REPORT_VARIABLES; missing ones count as
    not set): what the run did or, in check mode, would do. The apply's results when there are any, else the
    plan's. The node lock as this run took it (a node with something to change), else as the pre-flight found it."""
    view = facts(variables)

    def get(name, default=None):
        value = view.get(name)
        return default if value is None else value

    settings = get('report_settings', {})
    check_mode = truthy(get('check_mode'))
    work = truthy(get('work_needed'))
    taken = get('lock_taken', {})
    lock = taken if truthy(get('locked')) and 'outcome' in taken else get('lock', {})
    if 'outcome' not in lock:
        outcome = 'disabled'
    elif lock['outcome'] == 'absent':
        outcome = 'would_acquire' if check_mode and work else 'not_taken'
    else:
        outcome = lock['outcome']
    held = truthy(lock.get('locked_by_other'))
    run_id = get('run_id', '')
    report = {'check_mode': check_mode, 'drift': work}
    for concern in concerns:
        # each concern's section: the apply's result when there is one, else the plan's
        plan = get('plan_' + concern.name, {})
        applied = get('apply_' + concern.name, {})
        changed = truthy(plan.get('changed')) and (check_mode or len(applied) > 0)
        report[concern.name] = concern.report(applied or plan, changed, get, settings)
    report.update({
        # cgroup_v2_memory null: not checked (node_prep_memory_qos_enabled=false)
        'memory_qos': {'cgroup_v2_memory': view.get('cgroup_v2_memory'),
                       'after_reboot': truthy(get('cgroup_v2_after_reboot'))},
        'drained': truthy(get('drain_wanted')),
        'restarts_skipped': list(get('skipped_restarts', [])),
        'backup_dir': '%s/%s' % (settings.get('backup_dir', ''), run_id) if run_id else '',
        'notes': list(get('notes', [])),
        # acquired / refreshed / taken_over when this run took it (a node with something to change); not_taken
        # (nothing to change), would_acquire (check mode, something to change), held (check mode: another run
        # holds it, see holder), stale (another run's stale lock, left: nothing to change), disabled
        'lock': {'outcome': outcome,
                 'held_by_other': held,
                 'holder': (lock.get('holder') or {}) if held or outcome == 'stale' else {},
                 # the message naming the holder, when another run holds it (check mode)
                 'msg': lock.get('msg') or ''},
    })
    return report


def node_summary(host, report, variables, concerns=REGISTRY):
    """The lines of one host's summary (the role's "Report | Summary") from its node_prep_report and variables
    (REPORT_VARIABLES: the plan's report_settings and reboot, the run's done): its state, one line per concern,
    the restarts, the notes and the lock."""
    view = facts(variables)
    settings = view.get('report_settings') or {}
    lock = report['lock']

    def get(name, default=None):
        value = view.get(name)
        return default if value is None else value
    if report['check_mode'] and report['drift']:
        state = 'WOULD CHANGE (check mode)'
    else:
        state = 'changed' if report['drift'] else 'no change'
    if report['restarts_skipped']:
        restarts = ('restarts SKIPPED (node_prep_manage_services=false): %s - restart them for the changes to take '
                    'effect' % ', '.join(report['restarts_skipped']))
    else:
        restarts = 'restarts: ' + ('; '.join(view.get('done') or []) or 'none')
    if lock['held_by_other']:
        lock_line = 'lock: HELD BY ANOTHER RUN: ' + (lock['msg'] or json.dumps(lock['holder']))
    else:
        lock_line = 'lock: ' + lock['outcome']
    lines = [concern.summary_line(report, settings, get) for concern in concerns]
    # a concern with nothing to say (koordlet with no feature asked and no hazard, the profile's concerns without a
    # profile) has no line
    return (['%s: %s' % (host, state)] + [line for line in lines if line is not None]
            + [restarts, 'notes: ' + (' '.join(report['notes']) or 'none'), lock_line])


def fleet_summary(reports, targeted, check_mode=False, concerns=REGISTRY):
    """The fleet summary after node_prep: {'lines': [...], 'data': {...}} from {host: node_prep_report} of the
    hosts that got to the end and ``targeted`` (every host of the run)."""
    changed = sorted(h for h, r in reports.items() if r.get('drift'))
    unchanged = sorted(h for h, r in reports.items() if not r.get('drift'))
    missing = sorted(h for h in targeted if h not in reports)
    reboot = sorted(h for h, r in reports.items()
                    if any((r.get(c.name) or {}).get('reboot_required') for c in concerns if c.reboots))
    removed = dict((h, r.get('kubelet', {}).get('reservations_removed') or []) for h, r in reports.items()
                   if (r.get('kubelet') or {}).get('reservations_removed'))
    verb = 'would change' if check_mode else 'changed'
    lines = ['node_prep summary%s: %d node(s): %d %s, %d unchanged, %d failed or not reached'
             % (' (check mode)' if check_mode else '', len(targeted), len(changed), verb, len(unchanged),
                len(missing))]
    for host in changed:
        report = reports[host]
        parts = [part for concern in concerns for part in concern.fleet_parts(report)]
        if removed.get(host):
            parts.append('REMOVED ' + ', '.join(removed[host]))
        lines.append('%s: %s %s' % (host, verb, '; '.join(parts) or 'reboot'))
    if reboot:
        lines.append('%d node(s) need a reboot: %s' % (len(reboot), _hosts(reboot)))
    if missing:
        lines.append('failed or not reached: %s' % _hosts(missing, 50))
    data = {'targeted': len(targeted), 'changed': changed, 'unchanged': unchanged, 'failed': missing,
            'reboot_required': reboot, 'reservations_removed': removed, 'check_mode': bool(check_mode),
            'hosts': dict((h, reports[h]) for h in sorted(reports))}
    return {'lines': lines, 'data': data}


def markdown_summary(summary, title='node_prep'):
    """A Markdown rendering of fleet_summary()/audit_summary() output."""
    lines = ['# %s' % title, '']
    lines.extend('- %s' % line for line in summary['lines'])
    return '\n'.join(lines) + '\n'


def refusal_lines(host, refused):
    """One line per controller (or pod without one) of the pods the kubelet refused for NUMA alignment on
    ``host`` (numa_facts ``refusals``): how many, the reason and why, from its newest refused pod."""
    groups = {}
    for item in refused or []:
        key = (item.get('namespace'), item.get('owner_kind'), item.get('owner') or item.get('pod'), item.get('reason'))
        groups.setdefault(key, []).append(item)
    lines = []
    for (namespace, kind, name, reason), items in sorted(groups.items(), key=lambda kv: tuple(str(k) for k in kv[0])):
        last = items[-1]
        what = '%s/%s%s' % (namespace, ('%s/' % kind) if kind else 'pod ', name)
        if last.get('workload'):
            what += ' (%s)' % last['workload']
        lines.append('%s: REFUSED - %s: %d pod(s) %s, e.g. %s: %s' % (
            host, what, len(items), reason, last.get('pod'), last.get('why') or last.get('message')))
    return lines


def audit_summary(node_reports, qos_summary, targeted, concerns=REGISTRY):
    """One fleet summary of an audit: {'lines', 'data', 'failing', 'refusal_lines'} from {host: {'node_prep':
    report or None, 'node_prep_error': msg or None, 'memory_qos_error': msg or None, 'refusals': numa_facts
    refusals or None (not read), 'refusals_error': msg or None}}, the memory_qos role's summary (its ``drift``
    per host, ``not_reported``) and the targeted hosts. Refused pods are not drift: ``failing`` is drift or a
    node not audited, ``refusal_lines`` the refused pods."""
    qos_drift = (qos_summary or {}).get('drift') or {}
    qos_missing = set((qos_summary or {}).get('not_reported') or [])
    per_host = {}
    for host in sorted(targeted):
        entry = node_reports.get(host) or {}
        report = entry.get('node_prep') or {}
        areas = []
        not_audited = []
        if entry.get('node_prep_error') or not report:
            not_audited.append('node_prep: %s' % (entry.get('node_prep_error') or 'no report (failed or unreachable)'))
        else:
            areas.extend(part for concern in concerns for part in concern.drift_parts(report))
        if entry.get('memory_qos_error') or host in qos_missing:
            not_audited.append('memory_qos: %s' % (entry.get('memory_qos_error') or 'not reported'))
        elif qos_drift.get(host):
            areas.append('memory QoS %d cgroup(s)' % len(qos_drift[host]))
        if entry.get('refusals_error'):
            not_audited.append('refused pods: %s' % entry['refusals_error'])
        per_host[host] = {'drift': areas, 'not_audited': not_audited, 'refused_pods': entry.get('refusals')}
    in_sync = [h for h in sorted(per_host) if not per_host[h]['drift'] and not per_host[h]['not_audited']]
    drifted = [h for h in sorted(per_host) if per_host[h]['drift']]
    broken = [h for h in sorted(per_host) if per_host[h]['not_audited']]
    lines = ['audit: %d node(s): %d in sync, %d with drift, %d not (fully) audited'
             % (len(per_host), len(in_sync), len(drifted), len(broken))]
    for host in sorted(per_host):
        if per_host[host]['drift']:
            lines.append('%s: DRIFT - %s' % (host, '; '.join(per_host[host]['drift'])))
        for reason in per_host[host]['not_audited']:
            lines.append('%s: NOT AUDITED - %s' % (host, reason))
    refused = []
    for host in sorted(per_host):
        refused.extend(refusal_lines(host, per_host[host]['refused_pods']))
    lines.extend(refused)
    data = {'targeted': len(per_host), 'in_sync': in_sync, 'drift': drifted, 'not_audited': broken,
            'hosts': per_host, 'memory_qos_drift': qos_drift,
            'refused_pods': sum(len(per_host[h]['refused_pods'] or []) for h in per_host)}
    return {'lines': lines, 'data': data, 'failing': bool(drifted or broken), 'refusal_lines': refused}


def drift_report(reports, errors, hosts, concerns=REGISTRY):
    """The drift report of node_prep (its ``drift_report`` entry point, after an audit in check mode): a header and
    one line per host that drifted, has a reboot pending or was not audited, from {host: node_prep_report} of the
    hosts that have one and {host: error} of those that failed; ``hosts`` in the order to report them. The parts
    of a line are the concerns' ``drift_parts``."""
    lines = []
    in_sync = drifted = missing = 0
    for host in hosts:
        report = reports.get(host)
        if report is None:
            missing += 1
            lines.append('%s: NOT AUDITED - %s' % (host, errors.get(host) or 'failed or unreachable (see its error above)'))
            continue
        parts = [part for concern in concerns for part in concern.drift_parts(report)]
        if report.get('drift'):
            drifted += 1
            lines.append('%s: DRIFT - %s' % (host, '; '.join(parts)))
        else:
            in_sync += 1
            if parts:  # in sync, with something pending (a reboot)
                lines.append('%s: %s' % (host, '; '.join(parts)))
    return ['node_prep: %d node(s): %d in sync, %d with drift, %d not audited'
            % (len(hosts), in_sync, drifted, missing)] + lines


_SAFE_NAME = re.compile(r'[^A-Za-z0-9_.-]+')


def report_file_name(kind, stamp, extension):
    """``<kind>-<stamp>.<extension>`` with anything unsafe in a file name replaced."""
    return '%s-%s.%s' % (_SAFE_NAME.sub('_', kind), _SAFE_NAME.sub('_', stamp), extension)
