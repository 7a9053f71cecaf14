# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The concerns of node_prep: each file-level change the role makes to a node, declared once.

A concern is one option of the node_config task (``kubelet``, ``containerd``, ``kernel``), the module that does
it, the role variable that enables it, the files it edits (what the apply backs up and a rollback puts back), the
service it stops before the write and starts, restarts or reboots for after it, whether the node is drained first,
and the lines that name it: the "done" line of the apply, the fleet plan's groups, the report's section, the
summary line of the node, the fleet summary's and the audit's drift parts.

The decision (plugin_utils/node_prep_decision.py), the fleet plan, the report, the summaries (plugin_utils/fleet.py)
and node_config's action iterate over REGISTRY, or ``concerns`` when given (docs/developer/concerns.md).

Pure functions, standard library only (Python 3.8+).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.numaops.colocation.plugins.module_utils import koordlet_node, kubelet_target
from ansible_collections.numaops.colocation.plugins.module_utils import node_prep_services as services
from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import online_cpus_path
from ansible_collections.numaops.colocation.plugins.module_utils.values import truthy as _truthy, unique as _unique


def _show(value):
    if value in (None, '', {}, []):
        return 'unset'
    if isinstance(value, dict):
        return '{%s}' % ', '.join('%s: %s' % (k, _show(value[k])) for k in sorted(value))
    if isinstance(value, list):
        return '[%s]' % ', '.join(_show(v) for v in value)
    return str(value)


def _no_more(result):
    return {}


# ------------------------------------------------------------------ the role variables the pre-flight reads
# Each option of node_preflight (READ_INPUTS, CHECKS_INPUTS, PROFILE_INPUTS) and of each concern's plan
# (Concern ``inputs``) names its source once: a role variable by name (its value, typed against
# roles/node_prep/meta/argument_specs.yml), ``Fixed(value)``, or ``Derived(function, variable, ...)``, a named
# function of the typed values of those variables. The action plugin of node_preflight reads them from the task's
# variables when the task says ``role_vars: node_prep`` (plugins/action/node_preflight.py).
class Fixed(object):
    """An option that is always ``value``."""

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return 'Fixed(%r)' % (self.value,)


class Derived(object):
    """An option computed by ``function`` from the values of the role variables ``variables`` (in that order);
    a result of ``OMIT`` leaves the option out."""

    def __init__(self, function, *variables):
        self.function = function
        self.variables = tuple(variables)

    def __repr__(self):
        return 'Derived(%s, %s)' % (self.function.__name__, ', '.join(self.variables))


OMIT = object()


def input_variables(inputs):
    """The role variables ``inputs`` ({option: source}) read, in option order, each once."""
    names = []
    for option in sorted(inputs):
        source = inputs[option]
        if isinstance(source, Derived):
            names.extend(source.variables)
        elif not isinstance(source, Fixed):
            names.append(source)
    return _unique(names)


def resolve(inputs, values):
    """{option: value} of ``inputs`` from ``values`` ({role variable: value}); an option Derived to OMIT is left
    out."""
    options = {}
    for option in sorted(inputs):
        source = inputs[option]
        if isinstance(source, Fixed):
            value = source.value
        elif isinstance(source, Derived):
            value = source.function(*[values.get(name) for name in source.variables])
        else:
            value = values.get(source)
        if value is not OMIT:
            options[option] = value
    return options


def topology_root(root):
    """The node's root for the topology under sysfs (node_prep_root, or / when empty)."""
    return root or '/'


def none_if_empty(value):
    """An empty value (a list, a string) as null: the module's own default then applies."""
    return value if value else None


def _containerd_binary(nri_enabled, containerd_version, containerd_binary):
    # containerd --version is run only when NRI is managed and no version was given
    return containerd_binary if nri_enabled is not None and not str(containerd_version or '') else OMIT


def _lock_query(path, stale_after):
    # only read: the lock is taken after the plan (tasks/lock.yml), on a node that has something to change
    return {'path': path, 'state': 'query', 'stale_after': int(stale_after or 0)}


def _output_dirs(textfile_dir):
    # optional output written after the changes: checked in the pre-flight, so that it cannot fail the node after
    return {'node_prep_numa_textfile_dir': textfile_dir} if textfile_dir else {}


# node_preflight's own options: what it reads on the node (preflight.read_args leaves out what is not asked)
READ_INPUTS = {
    'lock': Derived(_lock_query, 'node_prep_lock_path', 'node_prep_lock_stale_after'),
    'root': 'node_prep_root',
    'cgroup_root': 'node_prep_cgroup_root',
    'proc_cmdline_path': 'node_prep_proc_cmdline_path',
    'containerd_binary': Derived(_containerd_binary, 'node_prep_nri_enabled', 'node_prep_containerd_version',
                                 'node_prep_containerd_binary'),
    'kubelet': 'node_prep_kubelet_enabled',
    'kubelet_config_path': 'node_prep_kubelet_config_path',
    'kubelet_service': 'node_prep_kubelet_service',
    'kubelet_unit_dirs': 'node_prep_kubelet_unit_dirs',
    'kubelet_env_files': 'node_prep_kubelet_env_files',
    'kubelet_config_candidates': 'node_prep_kubelet_config_candidates',
    'sysfs_cpu_dir': 'node_prep_sysfs_cpu_dir',
    'sysfs_node_dir': 'node_prep_sysfs_node_dir',
    'proc_meminfo_path': 'node_prep_proc_meminfo_path',
    'read_kubelet_config': Fixed(True),
    'output_dirs': Derived(_output_dirs, 'node_prep_numa_textfile_dir'),
}

# what is asked of the node, judged on the controller (module_utils/preflight.py checks; the keys it reads that are
# not role variables, the facts, the unknown and invalid variables, are the action's own)
CHECKS_INPUTS = {
    'kernel_args': 'node_prep_kernel_args',
    'mem_sampling': 'node_prep_mem_sampling',
    'mem_sampling_args': 'node_prep_mem_sampling_args',
    'memory_qos_enabled': 'node_prep_memory_qos_enabled',
    'reboot_allowed': 'node_prep_reboot_allowed',
    'manage_services': 'node_prep_manage_services',
    'containerd_version': 'node_prep_containerd_version',
    'containerd_binary': 'node_prep_containerd_binary',
    'nri_enabled': 'node_prep_nri_enabled',
    'kubelet_enabled': 'node_prep_kubelet_enabled',
    'reserved_system_cpus': 'node_prep_reserved_system_cpus',
    'reserved_memory': 'node_prep_reserved_memory',
    'k8s_enabled': 'node_prep_k8s_enabled',
    'node_name': 'node_prep_node_name',
    'lock_enabled': 'node_prep_lock_enabled',
    'kubelet_write_to': 'node_prep_kubelet_write_to',
    'kubelet_config_dir': 'node_prep_kubelet_config_dir',
    'kubelet_enable_config_dir': 'node_prep_kubelet_enable_config_dir',
    'kubelet_drop_in_name': 'node_prep_kubelet_drop_in_name',
    'root': 'node_prep_root',
    'koordlet_features': 'node_prep_koordlet_features',
    'koordlet_nri_socket': 'node_prep_koordlet_nri_socket',
}

# a performance profile (node_preflight's ``profile``: perf_profile in check mode on the node's topology), and the
# options of its two concerns (irqbalance, hugepages) when node_prep_perf_profile is set
PROFILE_INPUTS = {
    'profile': 'node_prep_perf_profile',
    'topology_root': Derived(topology_root, 'node_prep_root'),
    'irqbalance_path': Derived(none_if_empty, 'node_prep_irqbalance_path'),
    'unit_path': 'node_prep_hugepages_unit_path',
}


class Concern(object):
    """One concern of node_prep. Every callable is a pure function of plain data.

    - ``name``: the node_config option and result key (``kubelet``); the decision's ``<name>_changing`` and
      ``plan_<name>``, the report's section.
    - ``title``: what the fleet plan and the summaries call it (``containerd NRI``).
    - ``module``: the module that does it; ``enabled_by``: the role variable that enables it.
    - ``service_setting``: the decision setting naming its service (``kubelet_service``), or None;
      ``before``: what happens to that service before the write (``stop`` or None); ``after``: after the write
      (``start``, ``restart`` or ``reboot``); ``verify``: how the apply checks it took effect (documentation);
      ``service``: how the role restarts and verifies it, and puts it back (module_utils/node_prep_services.py).
    - ``drains``: a change of it drains the node first (a reboot always does); ``reboots``: its plan's
      ``reboot_required`` is a reboot of the node.
    - ``module_args``: options node_config always gives its module (over the task's), so that two concerns can
      share one module (perf_profile's ``write``).
    - ``settings``: the role options (without the node_prep_ prefix) its functions read, which the pre-flight
      passes to the decision, each the value of the role variable ``node_prep_<setting>``; ``enabled(settings)``:
      the role asks for it.
    - ``inputs``: its node_config options and the role variable that feeds each ({option: source}, INPUTS below):
      the pre-flight plans it with them; ``planned_if``: a role variable that, when null, leaves it unplanned.
    - ``reads(settings)``: the files the pre-flight reads for its plan (besides the kubelet configuration file);
      ``plan_reads(options)``: the same files from its node_config option, the module's defaults filled in.
    - ``files(settings, plan)``: the files it edits (snapshot, backup, rollback); ``plan`` is its plan result.
    - ``done(settings, result)``: the apply's line once it changed the node (``result``: its apply result).
    - ``plan_entry(result)``: what the fleet plan keeps of its plan result, under ``plan_key``;
      ``plan_more(result)``: more entries of the fleet plan of a host ({} unless given);
      ``plan_labels(plan)``: the fleet plan's groups of a host from that host's plan.
    - ``report(now, changed, get, settings)``: its section of node_prep_report (``now``: the apply's result, else
      the plan's; ``get(name, default)``: a value of the node's plan, node_prep__plan, or of its run record,
      node_prep__run, which overrides the plan's).
    - ``summary_line(report, settings, get)``: the node's summary line (None: none, a concern not asked for).
    - ``fleet_parts(report)``: the fleet summary's parts of a changed host; ``drift_parts(report)``: the audit's.
    - ``check_only``: it changes nothing (``module`` None, no files): its plan is the pre-flight's verdict of the
      same name (node_preflight's ``checks``), never changing; ``judge(plan, changing, settings, host, checking)``
      returns (errors, notes) once the plan of every concern is known (``changing``: {name: bool}; ``checking``: a
      check-mode run), errors stopping the node before its lock; ``settle(plan, result, host)`` completes a
      check-only concern's verdict from node_config's plan ``result`` before anything reads it.
    """

    def __init__(self, name, title, module, enabled_by, enabled, reads, files, done, plan_key, plan_entry,
                 plan_labels, report, summary_line, fleet_parts, drift_parts, settings=(), service_setting=None,
                 before=None, after=None, verify='', drains=False, reboots=False, check_only=False, judge=None,
                 plan_reads=None, module_args=None, plan_more=None, settle=None, service=None, inputs=None,
                 planned_if=None):
        self.name = name
        self.inputs = dict(inputs or {})
        self.planned_if = planned_if
        self.service = service
        self.settle = settle
        self.check_only = check_only
        self.judge = judge
        self.module_args = dict(module_args or {})
        self.settings = tuple(settings) + ((service_setting,) if service_setting else ())
        self.title = title
        self.module = module
        self.enabled_by = enabled_by
        self.enabled = enabled
        self.reads = reads
        self.files = files
        self.done = done
        self.plan_key = plan_key
        self.plan_entry = plan_entry
        self.plan_labels = plan_labels
        self.report = report
        self.summary_line = summary_line
        self.fleet_parts = fleet_parts
        self.drift_parts = drift_parts
        self.service_setting = service_setting
        self.before = before
        self.after = after
        self.verify = verify
        self.drains = drains
        self.reboots = reboots
        self.plan_reads = plan_reads or _nothing
        self.plan_more = plan_more or _no_more

    def __repr__(self):
        return 'Concern(%r)' % self.name


# ------------------------------------------------------------------ kubelet: kubelet_config
def _kubelet_enabled(settings):
    return _truthy(settings['kubelet_enabled'])


def _checkpoints(state_dir):
    # the kubelet's CPU and memory manager checkpoints, which the plan judges (and removes when stale)
    return [state_dir + '/cpu_manager_state', state_dir + '/memory_manager_state']


def _kubelet_reads(settings):
    # and the node's online CPUs below the topology root the kubelet plan is given, which a static CPU manager
    # checkpoint is checked against (read, never written): the very file the plan reads, so it needs no read of its own
    return _checkpoints(settings['kubelet_state_dir']) + [online_cpus_path(topology_root(settings['root']))]


def _kubelet_plan_reads(options):
    # in drop-in mode the role's drop-in too (the unit drop-in is read with the unit files by kubelet_config)
    dropin = ([options['config_dir'].rstrip('/') + '/' + options.get('drop_in_name', kubelet_target.DEFAULT_DROP_IN_NAME)]
              if options.get('write_to') == 'dropin' and options.get('config_dir') else [])
    return (([options['path']] if options.get('path') else []) + dropin + _checkpoints(options['state_dir'])
            + [online_cpus_path(options.get('topology_root'))])


def _dropin(plan):
    """The kubelet plan's drop-in files ({} in main-file mode): drop_in_file, unit_drop_in."""
    plan = plan or {}
    if not plan.get('drop_in_file'):
        return {}
    return {'drop_in_file': plan['drop_in_file'], 'unit_drop_in': plan.get('unit_drop_in') or ''}


def _kubelet_files(settings, plan):
    dropin = _dropin(plan)
    if not dropin:
        return [settings['kubelet_config']] + _checkpoints(settings['kubelet_state_dir'])
    # the main file is only read in drop-in mode; a drop-in that did not exist is removed by a rollback
    return ([dropin['drop_in_file']] + ([dropin['unit_drop_in']] if dropin['unit_drop_in'] else [])
            + _checkpoints(settings['kubelet_state_dir']))


def _kubelet_done(settings, result):
    removed = result.get('state_files_removed') or []
    written = result.get('drop_in_file')
    line = 'kubelet %s %s changed (%s)%s' % (
        'drop-in' if written else 'config', written or settings['kubelet_config'],
        ', '.join(result.get('changed_fields') or []), (', removed ' + ', '.join(removed)) if removed else '')
    if written:
        line += ', main file %s left as it is' % settings['kubelet_config']
    if result.get('daemon_reload_required'):
        line += ', unit drop-in %s written (--config-dir)' % result.get('unit_drop_in')
    return line


def _kubelet_plan_entry(result):
    previous = result.get('previous') or {}
    config = result.get('config') or {}
    return dict((key, [previous.get(key), config.get(key)]) for key in (result.get('changed_fields') or []))


def _kubelet_plan_more(result):
    dropin = _dropin(result)
    return {'kubelet_drop_in': dropin} if dropin else {}


def _kubelet_plan_labels(plan):
    changes = plan.get('kubelet_changes') or {}
    dropin = plan.get('kubelet_drop_in') or {}
    name = ('kubelet drop-in ' + dropin['drop_in_file'].rsplit('/', 1)[-1]) if dropin else 'kubelet'
    labels = ['%s %s %s->%s' % (name, key, _show(changes[key][0]), _show(changes[key][1])) for key in sorted(changes)]
    if dropin.get('unit_drop_in') and changes:
        labels.append('kubelet unit drop-in (--config-dir)')
    return labels + ['REMOVES %s' % entry for entry in plan.get('removed') or []]


def _kubelet_report(now, changed, get, settings):
    report = {'config_path': get('kubelet_config', ''),
              'changed': changed,
              'changed_fields': list(now.get('changed_fields') or []),
              'state_files_removed': list(now.get('state_files_removed') or []),
              'reservations_removed': list(now.get('reservations_removed') or [])}
    if now.get('drop_in_file'):
        # drop-in mode: the keys are in the role's drop-in, the main file (config_path) is left as it is
        report.update(drop_in_file=now['drop_in_file'], unit_drop_in=now.get('unit_drop_in') or '',
                      drop_in_removed=list(now.get('drop_in_removed') or []))
    if now.get('drop_in_overrides'):
        report['drop_in_overrides'] = list(now['drop_in_overrides'])
    configz = get('configz', None)
    if configz:
        report['configz'] = configz
    return report


def _kubelet_summary_line(report, settings, get):
    kubelet = report['kubelet']
    where = kubelet['config_path']
    if kubelet.get('drop_in_file'):
        where = '%s (drop-in over %s)' % (kubelet['drop_in_file'], kubelet['config_path'])
    line = 'kubelet %s: %s' % (where, ('changed ' + ', '.join(kubelet['changed_fields']))
                               if kubelet['changed'] else 'ok')
    if kubelet.get('unit_drop_in') and kubelet['changed']:
        line += ', --config-dir through %s' % kubelet['unit_drop_in']
    if kubelet['reservations_removed']:
        line += ' - REMOVED reservations %s (node_prep_reservations=%s)' % (
            ', '.join(kubelet['reservations_removed']), settings.get('reservations', ''))
    for item in kubelet.get('drop_in_removed') or []:
        line += ' - REMOVED %s from %s (the kubelet runs %s)' % (
            item.get('key'), kubelet['drop_in_file'], 'its default' if item.get('effective') is None
            else '%s from %s' % (_show(item['effective']), item.get('from')))
    return line


def _kubelet_parts(report):
    kubelet = report.get('kubelet') or {}
    fields = kubelet.get('changed_fields') or []
    if not fields:
        return []
    name = ('kubelet drop-in ' + kubelet['drop_in_file'].rsplit('/', 1)[-1]) if kubelet.get('drop_in_file') \
        else 'kubelet'
    return ['%s %s' % (name, ', '.join(fields))]


KUBELET = Concern(
    name='kubelet', title='kubelet configuration', module='numaops.colocation.kubelet_config',
    enabled_by='node_prep_kubelet_enabled', enabled=_kubelet_enabled, reads=_kubelet_reads, files=_kubelet_files, done=_kubelet_done,
    plan_key='kubelet_changes', plan_entry=_kubelet_plan_entry, plan_labels=_kubelet_plan_labels,
    report=_kubelet_report, summary_line=_kubelet_summary_line, fleet_parts=_kubelet_parts,
    drift_parts=_kubelet_parts, settings=('kubelet_enabled', 'kubelet_state_dir', 'root'),
    service_setting='kubelet_service', before='stop', after='start',
    verify='the kubelet /healthz answers, and its /configz (through the API server) runs the keys written',
    service=services.KUBELET, drains=True, plan_reads=_kubelet_plan_reads, plan_more=_kubelet_plan_more,
    # path, write_to, config_dir, drop_in_name and enable_config_dir: what the pre-flight's checks settled
    inputs={'state_dir': 'node_prep_kubelet_state_dir', 'backup': Fixed(False),
            'cpu_manager_policy': 'node_prep_cpu_manager_policy',
            'cpu_manager_policy_options': 'node_prep_cpu_manager_policy_options',
            'cpu_manager_reconcile_period': 'node_prep_cpu_manager_reconcile_period',
            'topology_manager_policy': 'node_prep_topology_manager_policy',
            'topology_manager_scope': 'node_prep_topology_manager_scope',
            'topology_manager_policy_options': 'node_prep_topology_manager_policy_options',
            'memory_manager_policy': 'node_prep_memory_manager_policy',
            'reserved_memory': 'node_prep_reserved_memory', 'reserved_system_cpus': 'node_prep_reserved_system_cpus',
            'system_reserved': 'node_prep_system_reserved', 'kube_reserved': 'node_prep_kube_reserved',
            'reservations': 'node_prep_reservations', 'feature_gates': 'node_prep_feature_gates',
            'kubelet_version': 'node_prep_kubelet_version', 'reserved_cores': 'node_prep_reserved_cores',
            'reserved_cores_placement': 'node_prep_reserved_cores_placement',
            'reserved_memory_split': 'node_prep_reserved_memory_split',
            'topology_root': Derived(topology_root, 'node_prep_root'),
            'kubelet_service': 'node_prep_kubelet_service', 'kubelet_unit_dirs': 'node_prep_kubelet_unit_dirs'})


# ------------------------------------------------------------------ containerd: containerd_nri
def _containerd_enabled(settings):
    # null leaves NRI as it is: nothing to read or plan
    return settings['nri_enabled'] is not None


def _containerd_plan_reads(options):
    return [options['path']] + ([options['dropin_path']] if options.get('mode') == 'dropin' else [])


def _containerd_files(settings, plan=None):
    return _containerd_plan_reads({'path': settings['containerd_config_path'], 'mode': settings['nri_mode'],
                                   'dropin_path': settings['containerd_dropin_path']})


def _containerd_done(settings, result):
    return 'containerd config %s changed (NRI)' % settings['containerd_config_path']


def _changed_entry(result):
    return _truthy(result.get('changed'))


def _containerd_plan_labels(plan):
    return ['containerd NRI'] if plan.get('containerd') else []


def _containerd_report(now, changed, get, settings):
    return {'config_path': settings.get('containerd_config_path', ''), 'changed': changed,
            'nri': now.get('nri') or {}}


def _containerd_summary_line(report, settings, get):
    containerd = report['containerd']
    return 'containerd %s: %s' % (containerd['config_path'], 'NRI changed' if containerd['changed'] else 'ok')


def _containerd_parts(report):
    return ['containerd NRI'] if (report.get('containerd') or {}).get('changed') else []


CONTAINERD = Concern(
    name='containerd', title='containerd NRI', module='numaops.colocation.containerd_nri',
    enabled_by='node_prep_nri_enabled', enabled=_containerd_enabled, reads=_containerd_files, files=_containerd_files, done=_containerd_done,
    plan_key='containerd', plan_entry=_changed_entry, plan_labels=_containerd_plan_labels,
    report=_containerd_report, summary_line=_containerd_summary_line, fleet_parts=_containerd_parts,
    drift_parts=_containerd_parts,
    settings=('nri_enabled', 'containerd_config_path', 'containerd_dropin_path', 'nri_mode'), service_setting='containerd_service', after='restart',
    verify='containerd_nri_verify: the NRI socket answers after the restart', plan_reads=_containerd_plan_reads,
    service=services.CONTAINERD,
    # state and containerd_version: what the pre-flight's checks settled
    inputs={'path': 'node_prep_containerd_config_path', 'mode': 'node_prep_nri_mode',
            'dropin_path': 'node_prep_containerd_dropin_path', 'socket_path': 'node_prep_nri_socket_path',
            'plugin_path': 'node_prep_nri_plugin_path', 'plugin_config_path': 'node_prep_nri_plugin_config_path',
            'plugin_registration_timeout': 'node_prep_nri_plugin_registration_timeout',
            'plugin_request_timeout': 'node_prep_nri_plugin_request_timeout',
            'disable_connections': 'node_prep_nri_disable_connections', 'backup': Fixed(False)})


# ------------------------------------------------------------------ kernel: kernel_cmdline
def _kernel_enabled(settings):
    # the arguments the pre-flight settled (node_prep_kernel_args with the memory-sampling flags)
    return len(settings.get('kernel_args') or []) > 0


def _nothing(value):
    return []


def _kernel_files(settings, plan):
    return [settings['grub_defaults_path']] + list(plan.get('grub_cfg_paths') or [])


def _kernel_done(settings, result):
    return 'boot configuration changed (%s)' % ' '.join(settings['kernel_args'] or [])


def _kernel_plan_labels(plan):
    return (['kernel command line'] if plan.get('kernel') else []) + (['need a reboot'] if plan.get('reboot') else [])


def _kernel_report(now, changed, get, settings):
    rebooted = _truthy(get('rebooted'))
    return {'args': list(get('kernel_args', [])),
            'mem_sampling': _truthy(get('mem_sampling_wanted')),
            'changed': changed,
            'reboot_required': _truthy(now.get('reboot_required')) and not rebooted,
            'rebooted': rebooted}


def _kernel_summary_line(report, settings, get):
    kernel = report['kernel']
    if kernel['args']:
        line = 'kernel args: ' + ('changed' if kernel['changed'] else 'ok')
    else:
        line = 'kernel args: none wanted'
    if kernel['reboot_required']:
        if _truthy(get('reboot')):
            why = 'a real run reboots the node: node_prep_reboot_allowed=true'
        elif not _truthy(settings.get('reboot_allowed')):
            why = 'node_prep_reboot_allowed=false'
        else:
            why = 'node_prep_manage_services=false'
        line += ', REBOOT REQUIRED (%s)' % why
    return line


def _kernel_fleet_parts(report):
    return ['kernel command line'] if (report.get('kernel') or {}).get('changed') else []


def _kernel_drift_parts(report):
    kernel = report.get('kernel') or {}
    args = ' '.join(kernel.get('args') or [])
    return ((['kernel arguments ' + args] if kernel.get('changed') else [])
            + (['reboot pending for ' + args] if kernel.get('reboot_required') else []))


KERNEL = Concern(
    name='kernel', title='kernel command line', module='numaops.colocation.kernel_cmdline',
    enabled_by='node_prep_kernel_args', enabled=_kernel_enabled, reads=_nothing, files=_kernel_files, done=_kernel_done,
    plan_key='kernel', plan_entry=_changed_entry, plan_labels=_kernel_plan_labels,
    report=_kernel_report, summary_line=_kernel_summary_line, fleet_parts=_kernel_fleet_parts,
    drift_parts=_kernel_drift_parts, settings=('grub_defaults_path',), after='reboot',
    verify='/proc/cmdline carries the arguments after the reboot', reboots=True,
    # args: what the pre-flight's checks settled (node_prep_kernel_args, the memory-sampling flags, the profile's)
    inputs={'state': Fixed('present'), 'backend': 'node_prep_kernel_backend',
            'grub_defaults_path': 'node_prep_grub_defaults_path',
            'grub_cfg_paths': Derived(none_if_empty, 'node_prep_grub_cfg_paths'),
            'proc_cmdline_path': 'node_prep_proc_cmdline_path', 'boot_dir': 'node_prep_boot_dir',
            'grubby_path': 'node_prep_grubby_path', 'grub_mkconfig_path': 'node_prep_grub_mkconfig_path',
            'update_grub_path': 'node_prep_update_grub_path', 'backup': Fixed(False)})


# ------------------------------------------------------------------ koordlet: a check, no change
# (module_utils/koordlet_node.py: what koordlet needs of the node, and the kubelet-restart hazard of cpu.idle)
def _koordlet_enabled(settings):
    return True


def _koordlet_judge(plan, changing, settings, host, checking):
    # what settle() judged on the plan's kubelet configuration, and the cpu.idle hazard
    settled = list(plan.get('settled_warnings') or [])
    hazard = list(plan.get('hazard') or [])
    if not hazard:
        return [], settled
    # the apply stops and starts the kubelet when its configuration changes and the role manages the services
    restarting = bool(changing.get('kubelet')) and _truthy(settings.get('manage_services'))
    message = koordlet_node.hazard_message(host, hazard, restarting, checking)
    return ([message], settled) if restarting else ([], settled + ['WARNING: ' + message])


def _koordlet_plan_entry(result):
    return sorted(item['feature'] for item in result.get('features') or [] if not item.get('ok')) or None


def _koordlet_plan_labels(plan):
    return ['koordlet cannot do %s' % ', '.join(plan['koordlet'])] if plan.get('koordlet') else []


def _koordlet_report(now, changed, get, settings):
    return {'features': list(now.get('features') or []), 'hazard': list(now.get('hazard') or [])}


def _koordlet_summary_line(report, settings, get):
    section = report.get('koordlet') or {}
    if not section.get('features') and not section.get('hazard'):
        return None
    line = 'koordlet: ' + (koordlet_node.summary(section) or 'no feature asked')
    if section.get('hazard'):
        line += ', cpu.idle=1 on %s (the kubelet cannot start)' % ', '.join(section['hazard'])
    return line


def _koordlet_drift_parts(report):
    section = report.get('koordlet') or {}
    cannot = [item['feature'] for item in section.get('features') or [] if not item.get('ok')]
    return ((['koordlet cannot do ' + ', '.join(cannot)] if cannot else [])
            + (['cpu.idle=1 on ' + ', '.join(section['hazard'])] if section.get('hazard') else []))


KOORDLET = Concern(
    name='koordlet', title="koordlet's node features", module=None, enabled_by='node_prep_koordlet_features',
    enabled=_koordlet_enabled, reads=_nothing, files=lambda settings, plan: [], done=lambda settings, result: '',
    plan_key='koordlet', plan_entry=_koordlet_plan_entry, plan_labels=_koordlet_plan_labels,
    report=_koordlet_report, summary_line=_koordlet_summary_line, fleet_parts=_nothing,
    drift_parts=_koordlet_drift_parts, verify='the pre-flight reads the files koordlet checks', check_only=True,
    judge=_koordlet_judge,
    settle=lambda plan, result, host: koordlet_node.settle(plan, result.get('kubelet'), host))


# ------------------------------------------------------------------ the performance profile: perf_profile
# node_prep_perf_profile (docs/performance_profiles.md) feeds the kubelet concern (its CPU, topology and memory
# manager settings) and the kernel concern (the isolation and boot-time huge page arguments, merged with
# node_prep_kernel_args: plugin_utils/node_prep_profile.py); the two files of its own are the concerns below, each
# one perf_profile call (its ``write`` option) in node_config.
def _profile_enabled(settings):
    return bool(settings.get('perf_profile'))


def _asked(now, key):
    # perf_profile's result (a concern node_config was not asked for: {changed: false, skipped: true})
    return key in now


def _irqbalance_files(settings, plan):
    path = (plan.get('irqbalance') or {}).get('path')
    return [path] if path else []


def _irqbalance_done(settings, result):
    irq = result.get('irqbalance') or {}
    return 'irqbalance %s changed (banned CPUs %s)' % (irq.get('path'), irq.get('banned_cpus'))


def _irqbalance_plan_entry(result):
    irq = result.get('irqbalance') or {}
    return irq.get('banned_cpus') if irq.get('changed') else None


def _irqbalance_plan_labels(plan):
    return ['irqbalance banned CPUs ->%s' % plan['irqbalance']] if plan.get('irqbalance') else []


def _irqbalance_report(now, changed, get, settings):
    irq = now.get('irqbalance') or {}
    notes = [note for note in now.get('notes') or [] if note.startswith('irqbalance')]
    return {'asked': _asked(now, 'irqbalance'), 'config_path': irq.get('path') or '', 'changed': changed,
            'banned_cpus': irq.get('banned_cpus') or '', 'notes': notes}


def _irqbalance_summary_line(report, settings, get):
    section = report['irqbalance']
    if not section['asked']:
        return None
    if not section['config_path']:
        return 'irqbalance: left alone (%s)' % ('; '.join(section['notes']) or 'no isolated CPUs')
    return 'irqbalance %s: %s' % (section['config_path'], ('banned CPUs changed to %s' % section['banned_cpus'])
                                  if section['changed'] else 'ok')


def _irqbalance_parts(report):
    return ['irqbalance banned CPUs'] if (report.get('irqbalance') or {}).get('changed') else []


IRQBALANCE = Concern(
    name='irqbalance', title='irqbalance banned CPUs', module='numaops.colocation.perf_profile',
    enabled_by='node_prep_perf_profile', enabled=_profile_enabled, reads=_nothing, files=_irqbalance_files,
    done=_irqbalance_done, plan_key='irqbalance', plan_entry=_irqbalance_plan_entry,
    plan_labels=_irqbalance_plan_labels, report=_irqbalance_report, summary_line=_irqbalance_summary_line,
    fleet_parts=_irqbalance_parts, drift_parts=_irqbalance_parts, service_setting='irqbalance_service',
    module_args={'write': ['irqbalance']},
    after='restart', verify='irqbalance is active after its restart (when its configuration file exists)',
    service=services.systemd('Irqbalance | Restart'), inputs=PROFILE_INPUTS, planned_if='node_prep_perf_profile')


def _pages(result):
    return ', '.join('node%s %sx%s' % (page.get('node'), page.get('count'), page.get('size'))
                     for page in result.get('hugepages') or [] if page.get('node') is not None)


def _hugepages_files(settings, plan):
    unit = plan.get('hugepages_unit') or {}
    return [path for path in (unit.get('path'), unit.get('link')) if path]


def _hugepages_done(settings, result):
    unit = result.get('hugepages_unit') or {}
    return 'huge pages unit %s written, enabled by %s (%s, at the next boot)' % (
        unit.get('path'), unit.get('link'), _pages(result))


def _hugepages_plan_entry(result):
    return _pages(result) if (result.get('hugepages_unit') or {}).get('changed') else None


def _hugepages_plan_labels(plan):
    return ['huge pages per NUMA node ->%s' % plan['hugepages']] if plan.get('hugepages') else []


def _hugepages_report(now, changed, get, settings):
    unit = now.get('hugepages_unit') or {}
    return {'asked': _asked(now, 'hugepages_unit'), 'unit_path': unit.get('path') or '', 'changed': changed,
            'pages': _pages(now), 'reboot_required': _truthy(now.get('reboot_required')) and not _truthy(
                get('rebooted')), 'drift': list(now.get('hugepages_drift') or [])}


def _hugepages_summary_line(report, settings, get):
    section = report['hugepages']
    if not section['asked'] or not section['unit_path']:
        return None
    line = 'huge pages %s: %s' % (section['unit_path'], ('changed (%s)' % section['pages'])
                                  if section['changed'] else 'ok')
    drift = ['node%s %s %s wanted, %s allocated' % (d.get('node'), d.get('size'), d.get('wanted'),
                                                    'unknown' if d.get('allocated') is None else d['allocated'])
             for d in section['drift'] if d.get('node') is not None]
    if drift:
        line += ', allocated now differs: ' + '; '.join(drift)
    if section['reboot_required']:
        line += ', set at the next boot'
    return line


def _hugepages_fleet_parts(report):
    return ['huge pages per NUMA node'] if (report.get('hugepages') or {}).get('changed') else []


HUGEPAGES = Concern(
    name='hugepages', title='huge pages per NUMA node', module='numaops.colocation.perf_profile',
    enabled_by='node_prep_perf_profile', enabled=_profile_enabled, reads=_nothing, files=_hugepages_files,
    done=_hugepages_done, plan_key='hugepages', plan_entry=_hugepages_plan_entry,
    plan_labels=_hugepages_plan_labels, report=_hugepages_report, summary_line=_hugepages_summary_line,
    fleet_parts=_hugepages_fleet_parts, drift_parts=_hugepages_fleet_parts, after='reboot',
    module_args={'write': ['hugepages_unit']},
    verify='after the reboot, each NUMA node has the huge pages of the profile (perf_profile: hugepages_drift)',
    reboots=True, inputs=PROFILE_INPUTS, planned_if='node_prep_perf_profile')


# In the order a real run applies them (node_config writes them in this order; the first failure stops it); a
# check-only concern writes nothing.
REGISTRY = (KUBELET, CONTAINERD, KERNEL, KOORDLET, IRQBALANCE, HUGEPAGES)


def applying(concerns=REGISTRY):
    """The concerns that change the node (node_config's options), in order."""
    return tuple(concern for concern in concerns if not concern.check_only)


def settings_of(concerns=REGISTRY):
    """The role options the concerns read (each once, in concern order)."""
    return tuple(_unique([name for concern in concerns for name in concern.settings]))


def names(concerns=REGISTRY):
    return [concern.name for concern in concerns]


def plan_options(values, concerns=REGISTRY):
    """node_preflight's ``plan`` from the role variables ``values`` ({name: typed value}): each applying concern's
    ``inputs`` resolved, None for a concern whose ``planned_if`` variable is null."""
    plan = {}
    for concern in applying(concerns):
        if concern.planned_if and values.get(concern.planned_if) is None:
            plan[concern.name] = None
        else:
            plan[concern.name] = resolve(concern.inputs, values)
    return plan


def role_variables(concerns=REGISTRY, settings=()):
    """Every role variable the pre-flight reads: READ_INPUTS, CHECKS_INPUTS, PROFILE_INPUTS, the concerns'
    ``inputs`` and ``planned_if``, and ``node_prep_<setting>`` of each of ``settings`` (the decision's)."""
    names = input_variables(READ_INPUTS) + input_variables(CHECKS_INPUTS) + input_variables(PROFILE_INPUTS)
    for concern in applying(concerns):
        names.extend(input_variables(concern.inputs) + ([concern.planned_if] if concern.planned_if else []))
    names.extend('node_prep_' + name for name in settings)
    return tuple(_unique(names))


def read_paths(settings, concerns=REGISTRY):
    """The files the pre-flight reads for the plans of the enabled concerns (in concern order, each once), from
    the concerns' settings (settings_of)."""
    paths = []
    for concern in concerns:
        if concern.enabled(settings):
            paths.extend(concern.reads(settings))
    return _unique(paths)


def read_paths_of(asked, concerns=REGISTRY):
    """The files node_config reads first for the plans of ``asked`` ({name: node_config options of that concern,
    the module's defaults filled in}), in concern order, each once."""
    paths = []
    for concern in concerns:
        if concern.name in asked:
            paths.extend(concern.plan_reads(asked[concern.name]))
    return _unique(paths)


def snapshot_paths(changing, plans, settings, concerns=REGISTRY):
    """Every file the changing concerns edit (in concern order, each once): what the apply backs up first and a
    rollback puts back. ``changing``: {name: bool}; ``plans``: {name: plan result}."""
    paths = []
    for concern in applying(concerns):
        if changing.get(concern.name):
            paths.extend(concern.files(settings, plans.get(concern.name) or {}))
    return _unique(paths)


def done_lines(result, changing, settings, concerns=REGISTRY):
    """The apply's lines of what it changed, from node_config's result of the apply."""
    result = result or {}
    return [concern.done(settings, result.get(concern.name) or {}) for concern in applying(concerns)
            if changing.get(concern.name)]
