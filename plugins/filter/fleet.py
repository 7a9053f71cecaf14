# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Filters the roles and playbooks use for fleet bookkeeping; the logic is in plugins/module_utils (pure functions,
unit-tested there). Controller side only."""
from __future__ import annotations

import glob
import json
import os
import tempfile

import yaml

from ansible_collections.numaops.colocation.plugins.module_utils import node_prep_concerns, numa, preflight, reservation_merge
from ansible_collections.numaops.colocation.plugins.plugin_utils import fleet, node_prep_decision, node_prep_inputs, node_prep_profile

_COLLECTION = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_KNOWN = []
# libyaml's loader when PyYAML was built with it (same documents, ~9x less CPU in every worker), else pure Python
_SAFE_LOADER = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)


def _known_sources():
    """The files the known variables come from, each with its size and modification time (what the cache keeps)."""
    paths = sorted(glob.glob(os.path.join(_COLLECTION, 'roles', '*', 'meta', 'argument_specs.yml'))
                   + glob.glob(os.path.join(_COLLECTION, 'roles', '*', 'defaults', 'main.yml')))
    sources = []
    for path in paths:
        info = os.stat(path)
        sources.append([path, info.st_size, info.st_mtime_ns])
    return sources


def _validation_spec(options):
    """An entry point's options as node_prep_inputs.parse reads them, for the values given only: without what only
    documents them, and without their defaults (the role's defaults/main.yml has the values; a default in the spec
    may be a template, which the validator would judge as the string it is)."""
    spec = {}
    for name, option in (options or {}).items():
        option = dict((key, value) for key, value in (option or {}).items()
                      if key not in ('description', 'version_added', 'default'))
        if 'options' in option:
            option['options'] = _validation_spec(option['options'])
        spec[name] = option
    return spec


def _load_known(sources):
    """(names, specs): every known variable name, and {role: {entry point: options}} of every role."""
    names = set(fleet.PLAYBOOK_VARIABLES) | set(fleet.SURVEY_VARIABLES)
    specs = {}
    for path, _size, _mtime in sources:
        with open(path) as handle:
            data = yaml.load(handle, Loader=_SAFE_LOADER) or {}
        if path.endswith('argument_specs.yml'):
            role = os.path.basename(os.path.dirname(os.path.dirname(path)))
            for entry_point, entry in (data.get('argument_specs') or {}).items():
                options = (entry or {}).get('options') or {}
                names.update(options)
                specs.setdefault(role, {})[entry_point] = _validation_spec(options)
        else:
            names.update(data)
    return sorted(names), specs


def _cache_file():
    """Where the workers of one ansible-playbook run share the names: its own local temporary directory (0700,
    removed at the end of the run); None outside a run."""
    try:
        from ansible import constants as C  # pylint: disable=import-outside-toplevel
        return os.path.join(C.DEFAULT_LOCAL_TMP, 'numaops-colocation-known-variables.json')
    except Exception:  # pylint: disable=broad-except
        return None


def _known(cache_file):
    """{'names': [...], 'specs': {...}} (_load_known), loaded once per process.

    Each worker process of a run would otherwise load every role's YAML again (~70 ms, per host and task): the
    first one keeps them in the run's local temporary directory, the others read them from there while the role
    files are unchanged (same paths, sizes and modification times)."""
    if not _KNOWN:
        sources = _known_sources()
        path = cache_file()
        known = None
        if path:
            try:
                with open(path) as handle:
                    kept = json.load(handle)
                if kept.get('sources') == sources:
                    known = {'names': kept['names'], 'specs': kept['specs']}
            except (IOError, OSError, ValueError, KeyError, AttributeError):
                known = None
        if known is None:
            names, specs = _load_known(sources)
            known = {'names': names, 'specs': specs}
            if path:
                try:
                    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix='.known-')
                    with os.fdopen(fd, 'w') as handle:
                        json.dump(dict(known, sources=sources), handle)
                    os.replace(tmp, path)
                except (IOError, OSError):
                    pass
        _KNOWN.append(known)
    return _KNOWN[0]


def known_variables(cache_file=_cache_file):
    """Every variable the collection reads or sets: the options of every role entry point, every role default,
    and fleet.PLAYBOOK_VARIABLES / SURVEY_VARIABLES."""
    return list(_known(cache_file)['names'])


def role_spec(role, entry_point, cache_file=_cache_file):
    """The options of the role's entry point (meta/argument_specs.yml) as node_prep_inputs.parse reads them."""
    return _known(cache_file)['specs'][role][entry_point]


def role_variable_errors(host_vars, role, entry_point, where='', cache_file=_cache_file):
    """The role options among ``host_vars`` (``hostvars[host]``: inventory, extra variables, survey answers; the
    role's defaults are not there, and a unit test parses them) parsed strictly against the role's argument
    specification (meta/argument_specs.yml, entry point ``entry_point``; plugin_utils/node_prep_inputs.py): each
    error as a sentence starting with ``where``. Stricter than ansible's own validator, which converts ``maybe``
    of a raw option and a bare string of a list instead of refusing them."""
    spec = role_spec(role, entry_point, cache_file)
    provided = dict((name, host_vars[name]) for name in spec if name in host_vars)
    return node_prep_inputs.parse(spec, provided, where)[1]


def fleet_settings(variables):
    """The run's batch size, stop rule and playbook booleans (plugin_utils/node_prep_inputs.py fleet_settings)
    from the job's variables (``hostvars`` of one host), with the errors of the values given."""
    names = [name for name in variables if isinstance(name, str) and (
        name.startswith(('node_prep_max_', 'node_prep_survey_max_')) or name in node_prep_inputs.PLAYBOOK_BOOLEANS)]
    chosen = dict((name, variables[name]) for name in names)
    # a survey answer for one of the playbook's booleans (node_prep_survey_continue_healthy) stands for it: the
    # settings are read in the same run_once tasks that set the answers as facts, not after them
    answers, _errors = fleet.survey_answers(dict((name, variables[name]) for name in variables
                                                 if isinstance(name, str) and '_survey_' in name))
    chosen.update((name, value) for name, value in answers.items() if name in node_prep_inputs.PLAYBOOK_BOOLEANS)
    return node_prep_inputs.fleet_settings(chosen)


def playbook_booleans(variables):
    """{values, errors} of the playbooks' booleans (colocation_audit_fail_on_drift, ...) among ``variables``."""
    given = dict((name, variables[name]) for name in node_prep_inputs.PLAYBOOK_BOOLEANS if name in variables)
    values, errors = node_prep_inputs.playbook_booleans(given)
    return {'values': values, 'errors': errors}


def unknown_variables(names, where='', extra_known=None):
    """Sentences naming each unknown collection variable among ``names``, with a did-you-mean."""
    known = known_variables() + list(extra_known or [])
    return fleet.describe_unknown(fleet.unknown_variables(list(names), known), where)


def cpu_list(text):
    """A CPU or NUMA node list ("0-3,8") as a sorted list of integers; None when it is not one."""
    return preflight.cpu_list(text)


def reservation_fit(config, online_cpus, meminfo_text, host='', cpu_source='', mem_source=''):
    """{errors, notes} of the kubelet reservations of ``config`` on a node with ``online_cpus`` (a list of CPU
    numbers, or a count) and /proc/meminfo text ``meminfo_text``."""
    count = len(online_cpus) if isinstance(online_cpus, (list, tuple)) else online_cpus
    meminfo = numa.mem_total(meminfo_text)
    errors, notes = reservation_merge.check_fit(config or {}, count or None, meminfo, host, cpu_source, mem_source)
    return {'errors': errors, 'notes': notes}


def survey_answers(variables):
    """{answers, errors}: the survey answers given (blank ones dropped), as role variables."""
    # only the survey variables are read (templated): the host's other variables are not needed
    answers, errors = fleet.survey_answers(dict((name, variables[name]) for name in variables
                                                if isinstance(name, str) and '_survey_' in name))
    # an answer that sets no variable of the collection (a survey question of another version, a typo in its
    # variable name) is named here, once for the run, rather than by every node's pre-flight. (This also leaves the
    # known names in the run's temporary directory before the nodes' workers start: they read them from there.)
    errors += ['survey answer ' + sentence for sentence in unknown_variables(sorted(answers))]
    return {'answers': answers, 'errors': errors}


def kubelet_changes(previous, config, fields):
    """{key: [old, new]} for the changed kubelet keys."""
    previous = previous or {}
    config = config or {}
    return dict((key, [previous.get(key), config.get(key)]) for key in (fields or []))


def batch_size(serial, hosts):
    """The batch size of ``serial`` (a number from 1 or a percentage such as "10%") over ``hosts`` hosts, as
    Ansible's serial; 0 and what is not a batch size are refused (an error naming what is allowed)."""
    return fleet.batch_size(node_prep_inputs.batch_setting(serial), int(hosts))


def batch_position(all_hosts, batch_hosts, serial):
    return list(fleet.batch_position(list(all_hosts), list(batch_hosts), serial))


def batch_hosts(all_hosts, some_hosts, serial):
    return fleet.batch_hosts(list(all_hosts), list(some_hosts), serial)


def _host_vars(hosts_vars):
    for host_vars in hosts_vars:
        yield host_vars['inventory_hostname'], host_vars


def node_prep_decision_filter(result, node, settings, checking, host, stamp, nonce):
    """node_prep's decision after its plan (plugin_utils/node_prep_decision.py)."""
    return node_prep_decision.decide(result, node, settings, preflight.truthy(checking), host, stamp, nonce)


def node_prep_profile_filter(node, perf, variables, host):
    """node_preflight's result with node_prep's performance profile folded in (plugin_utils/node_prep_profile.py)."""
    return node_prep_profile.fold(node, perf, variables, host)


def node_prep_read_files(settings):
    """The files node_prep's pre-flight reads for the plans of the enabled concerns (module_utils/
    node_prep_concerns.py read_paths), from the role options the concerns read (node_prep_concerns.settings_of)."""
    return node_prep_concerns.read_paths(settings)


def node_prep_applied(result, plan, run, service=None):
    """node_prep's run record after its apply wrote the node (plugin_utils/node_prep_decision.py applied): the
    concerns' results and the lines of what changed; with ``service``, after that service step."""
    return node_prep_decision.applied(result, plan, run, service=service)


def _report_variables(host_vars):
    return dict((name, host_vars[name]) for name in fleet.REPORT_VARIABLES if name in host_vars)


def node_prep_report(host_vars):
    """``node_prep_report`` of one host from its host variables (``hostvars[host]``: the facts the role set)."""
    return fleet.node_report(_report_variables(host_vars))


def node_prep_summary(host_vars, report=None):
    """The summary lines of one host from its host variables (its ``node_prep_report`` unless given)."""
    variables = _report_variables(host_vars)
    if report is None:
        report = host_vars['node_prep_report']
    return fleet.node_summary(host_vars['inventory_hostname'], report, variables)


def node_prep_summaries(hosts_vars):
    """{host: summary lines} of several hosts (their ``node_prep_report``), for one message about all of them."""
    return dict((host, node_prep_summary(host_vars)) for host, host_vars in _host_vars(hosts_vars))


def fleet_plan(hosts_vars):
    """The fleet plan lines from the host variables of every targeted host (``node_prep_plan``, and
    ``node_prep_preflight_error`` for a host that failed the pre-flight)."""
    plans = {}
    for host, host_vars in _host_vars(hosts_vars):
        if 'node_prep_preflight_error' in host_vars:
            plans[host] = {'failed': host_vars['node_prep_preflight_error']}
        else:
            plans[host] = dict(host_vars.get('node_prep_plan') or {})
    return fleet.fleet_plan(plans)


def fleet_summary(hosts_vars, check_mode=False):
    """The fleet summary from the host variables of every targeted host (``node_prep_report`` of the hosts that
    got to the end)."""
    reports = {}
    targeted = []
    for host, host_vars in _host_vars(hosts_vars):
        targeted.append(host)
        if 'node_prep_report' in host_vars and 'node_prep_preflight_error' not in host_vars:
            reports[host] = host_vars['node_prep_report']
    return fleet.fleet_summary(reports, targeted, check_mode)


def audit_summary(hosts_vars, qos_summary):
    """One fleet summary of an audit from the host variables of every audited host (``node_prep_report``,
    ``node_prep_audit_error``, ``memory_qos_audit_error``, ``colocation_audit_refusals``,
    ``colocation_audit_refusals_error``) and the memory_qos role's summary."""
    nodes = {}
    for host, host_vars in _host_vars(hosts_vars):
        nodes[host] = {'node_prep': host_vars.get('node_prep_report') if 'node_prep_audit_error' not in host_vars else None,
                       'node_prep_error': host_vars.get('node_prep_audit_error'),
                       'memory_qos_error': host_vars.get('memory_qos_audit_error'),
                       'refusals': host_vars.get('colocation_audit_refusals'),
                       'refusals_error': host_vars.get('colocation_audit_refusals_error')}
    return fleet.audit_summary(nodes, dict(qos_summary or {}), sorted(nodes))


def node_prep_drift_report(hosts_vars):
    """node_prep's drift report from the host variables of every host to report (``node_prep_report``, or
    ``node_prep_audit_error`` for a host that failed)."""
    reports, errors, hosts = {}, {}, []
    for host, host_vars in _host_vars(hosts_vars):
        hosts.append(host)
        if host_vars.get('node_prep_report') is not None:
            reports[host] = host_vars['node_prep_report']
        if host_vars.get('node_prep_audit_error'):
            errors[host] = host_vars['node_prep_audit_error']
    return fleet.drift_report(reports, errors, hosts)


def markdown_summary(summary, title='node_prep'):
    return fleet.markdown_summary(summary, title)


def report_file_name(kind, stamp, extension):
    return fleet.report_file_name(kind, stamp, extension)


class FilterModule(object):

    def filters(self):
        return {
            'unknown_variables': unknown_variables,
            'role_variable_errors': role_variable_errors,
            'fleet_settings': fleet_settings,
            'playbook_booleans': playbook_booleans,
            'cpu_list': cpu_list,
            'reservation_fit': reservation_fit,
            'survey_answers': survey_answers,
            'kubelet_changes': kubelet_changes,
            'batch_size': batch_size,
            'batch_position': batch_position,
            'batch_hosts': batch_hosts,
            'fleet_plan': fleet_plan,
            'node_prep_decision': node_prep_decision_filter,
            'node_prep_profile': node_prep_profile_filter,
            'node_prep_read_files': node_prep_read_files,
            'node_prep_applied': node_prep_applied,
            'node_prep_report': node_prep_report,
            'node_prep_summary': node_prep_summary,
            'node_prep_summaries': node_prep_summaries,
            'fleet_summary': fleet_summary,
            'audit_summary': audit_summary,
            'node_prep_drift_report': node_prep_drift_report,
            'markdown_summary': markdown_summary,
            'report_file_name': report_file_name,
        }
