# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What node_prep's pre-flight needs to know about a node, gathered in one module call (node_preflight).

Pure functions over what was read (texts, listings, command output); the module does the reading. No Ansible
import, Python 3.8+ standard library only (this runs on the managed node).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import posixpath
import re

from ansible_collections.numaops.colocation.plugins.module_utils import cpuset, koordlet_node, kubelet_target, systemd_unit
from ansible_collections.numaops.colocation.plugins.module_utils.values import truthy, unique  # noqa: F401 (node_prep_decision and fleet import them from here)

_CONTAINERD_VERSION_RE = re.compile(r'\bv?([0-9]+\.[0-9]+(\.[0-9]+)?)')


def cpu_list(text):
    """A Linux CPU or NUMA node list ("0-3,8,10-11") as a sorted list of integers (cpuset.parse_cpuset, which the
    kubelet's reservedSystemCPUs follows too); None when ``text`` is None or not such a list. Blank is []."""
    if text is None:
        return None
    try:
        return sorted(cpuset.parse_cpuset(str(text).strip()))
    except ValueError:
        return None


def containerd_version(output):
    """The version in ``containerd --version`` output ("containerd github.com/containerd/containerd v1.7.24 ..."),
    or '' when there is none."""
    match = _CONTAINERD_VERSION_RE.search(output or '')
    return match.group(1) if match else ''


def os_release(text):
    """The KEY=value pairs of /etc/os-release (quotes removed)."""
    values = {}
    for line in (text or '').splitlines():
        line = line.strip()
        if not line or line.startswith('#') or '=' not in line:
            continue
        key, value = line.split('=', 1)
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in '"\'':
            value = value[1:-1]
        values[key.strip()] = value
    return values


def unit_candidates(unit_dirs, service):
    """The directories to list for the kubelet unit and its drop-ins: each unit directory and its
    ``<service>.service.d``, in priority order."""
    name = systemd_unit.unit_name(service)
    return list(unit_dirs) + [posixpath.join(directory, name + '.d') for directory in unit_dirs]


def unit_files(listing, unit_dirs, service):
    """Of ``listing`` ({directory: [names]}), the files to read: the unit file and the drop-ins systemd uses for
    ``service`` (systemd_unit.unit_sources), sorted."""
    paths = [posixpath.join(directory, entry) for directory in sorted(listing) for entry in listing[directory]]
    unit, drop_ins = systemd_unit.unit_sources(paths, list(unit_dirs), service)
    return sorted(([unit] if unit else []) + drop_ins)


def choose_kubelet_config(given, unit_texts, env_texts, unit_dirs, service, root, existing_candidates):
    """The kubelet configuration file node_prep edits, and why that one.

    ``given``: node_prep_kubelet_config_path ('' when not set); ``unit_texts``/``env_texts``: {path: text} of the
    unit files, drop-ins and environment files read; ``existing_candidates``: the kubeadm/kubespray default
    locations that exist, in order. Returns {path, source, unit, drop_ins, config_dir}: ``config_dir`` is the
    kubelet's drop-in directory, its --config-dir under ``root`` ('' when it has none, or when the unit was not
    read because ``given`` names the file).
    """
    if given:
        return {'path': given, 'source': 'node_prep_kubelet_config_path', 'unit': None, 'drop_ins': [],
                'config_dir': ''}
    texts = dict(unit_texts)
    texts.update(env_texts)
    found = systemd_unit.kubelet_config_path(texts, list(unit_dirs), service, dict(env_texts), root)
    config_dir = found['config_dir']
    # a --config-dir already under ``root`` (written there by kubelet_config's enable_config_dir in a sandbox tree)
    # is taken as it is
    if config_dir and root and not config_dir.startswith(root.rstrip('/') + '/'):
        config_dir = root + config_dir
    if found['config']:
        return {'path': (root or '') + found['config'],
                'source': 'the effective ExecStart of %s (--config)' % ', '.join([found['unit']] + found['drop_ins']),
                'unit': found['unit'], 'drop_ins': found['drop_ins'], 'config_dir': config_dir}
    if existing_candidates:
        return {'path': existing_candidates[0], 'source': 'the kubeadm/kubespray default location',
                'unit': found['unit'], 'drop_ins': found['drop_ins'], 'config_dir': config_dir}
    return {'path': '', 'source': 'nowhere', 'unit': found['unit'], 'drop_ins': found['drop_ins'],
            'config_dir': config_dir}


def cgroup_controllers(text):
    """The controllers listed in cgroup.controllers, or None when the file could not be read (``text`` None)."""
    return None if text is None else text.split()


# ---------------------------------------------------------------------------------------------------------------
# node_prep's pre-flight verdict: what the node has (node_preflight's result), what is asked of it (the role's
# variables), and what does not fit. Computed on the controller by node_preflight's action plugin (its ``checks``
# option), in the same task as the read.

_V2_ARG = re.compile(r'^systemd\.unified_cgroup_hierarchy(=(1|yes|true|on))?$')
_VERSION_RE = re.compile(r'^v?([0-9]+(\.[0-9]+)*)')
# the role's variables the verdict reads, and their values when not given
CHECKS_DEFAULTS = {
    'facts': {}, 'kernel_args': [], 'mem_sampling': 'auto', 'mem_sampling_args': [], 'memory_qos_enabled': False,
    'reboot_allowed': False, 'manage_services': True, 'containerd_version': '', 'containerd_binary': 'containerd',
    'nri_enabled': None, 'kubelet_enabled': True, 'kubelet_config_path': '', 'kubelet_service': 'kubelet',
    'kubelet_unit_dirs': [], 'kubelet_env_files': [], 'kubelet_config_candidates': [],
    'reserved_system_cpus': None, 'reserved_memory': None, 'k8s_enabled': False, 'node_name': '',
    'cgroup_root': '/sys/fs/cgroup', 'proc_cmdline_path': '/proc/cmdline', 'sysfs_cpu_dir': '/sys/devices/system/cpu',
    'sysfs_node_dir': '/sys/devices/system/node', 'unknown': [], 'allow_unknown': False, 'invalid': [],
    'lock_enabled': True, 'koordlet_features': [], 'koordlet_nri_socket': '/var/run/nri/nri.sock',
    'kubelet_write_to': 'auto', 'kubelet_config_dir': '', 'kubelet_enable_config_dir': False,
    'kubelet_drop_in_name': kubelet_target.DEFAULT_DROP_IN_NAME, 'root': '',
}

# The booleans of what is asked, as checks() returns them typed (``settings``): what the role's tasks read after
# the pre-flight instead of casting its variables. nri_enabled is a boolean or None (containerd left alone).
SETTINGS = ('kubelet_enabled', 'memory_qos_enabled', 'lock_enabled', 'k8s_enabled', 'manage_services',
            'reboot_allowed')


def unknown_checks_keys(asked):
    """The message for keys of ``asked`` that checks() does not know (None when there are none): the one wording
    of this refusal, for checks() and for node_preflight's action plugin, which refuses before the read."""
    unknown = sorted(set(asked or {}) - set(CHECKS_DEFAULTS))
    if not unknown:
        return None
    return 'checks has unknown key(s) %s (allowed: %s)' % (', '.join(unknown), ', '.join(sorted(CHECKS_DEFAULTS)))


def settings(asked):
    """The booleans of ``asked`` (CHECKS_DEFAULTS' keys), typed: SETTINGS as true or false, nri_enabled as true,
    false or None. The role's variables were parsed strictly against its argument specification (``invalid``):
    a value that is not a boolean is an error of the pre-flight, whatever it is read as here."""
    asked = dict(CHECKS_DEFAULTS, **(asked or {}))
    typed = dict((name, truthy(asked[name])) for name in SETTINGS)
    typed['nri_enabled'] = None if asked['nri_enabled'] is None else truthy(asked['nri_enabled'])
    return typed


# the options of node_preflight that read what one of the settings asks for, and what the option is without it
_READS = (
    ('memory_qos_enabled', ('cgroup_root', 'proc_cmdline_path'), None),
    ('kubelet_enabled', ('sysfs_cpu_dir', 'sysfs_node_dir', 'proc_meminfo_path'), None),
    ('kubelet_enabled', ('kubelet', 'read_kubelet_config'), False),
    ('lock_enabled', ('lock',), None),
)


def koordlet_asked(asked):
    """What module_utils/koordlet_node.py is asked, from ``asked`` (CHECKS_DEFAULTS' keys): the features, the
    cgroup root, /proc and /sys as the role's paths place them (the directory of proc_cmdline_path; sysfs_cpu_dir
    without /devices/system/cpu), the NRI socket, whether this run enables NRI and whether the kubelet is managed."""
    asked = dict(CHECKS_DEFAULTS, **(asked or {}))
    cpu_dir = str(asked['sysfs_cpu_dir'] or '/sys/devices/system/cpu').rstrip('/')
    suffix = '/devices/system/cpu'
    return {'features': list(asked['koordlet_features'] or []), 'cgroup_root': asked['cgroup_root'] or '/sys/fs/cgroup',
            'proc_root': posixpath.dirname(str(asked['proc_cmdline_path'] or '/proc/cmdline')) or '/proc',
            'sys_root': cpu_dir[:-len(suffix)] if cpu_dir.endswith(suffix) else '/sys',
            'nri_socket': asked['koordlet_nri_socket'] or koordlet_node.ASKED_DEFAULTS['nri_socket'],
            'nri_enabled': None if asked['nri_enabled'] is None else truthy(asked['nri_enabled']),
            'kubelet_enabled': truthy(asked['kubelet_enabled'])}


def read_args(args, asked):
    """node_preflight's options ``args`` with what ``asked`` does not want left out: no cgroup v2 or command-line
    read without memory QoS, no kubelet, CPU or memory read without the kubelet concern, no lock without
    lock_enabled; the files koordlet's features asked need, and the kubepods QoS cgroups' cpu.idle with the kubelet
    concern (probe_files, probe_core_sched). The role passes every path and its settings; this decides what is
    read."""
    typed = settings(asked)
    args = dict(args)
    koordlet = koordlet_asked(asked)
    args['probe_files'] = koordlet_node.probe_paths(koordlet)
    args['probe_core_sched'] = 'core_sched' in koordlet['features']
    for setting, names, off in _READS:
        for name in names:
            if typed[setting]:
                if off is False and name in args:
                    args[name] = truthy(args[name])
            elif off is None:
                args.pop(name, None)
            elif name in args:
                args[name] = off
    return args


def version_at_least(text, minimum):
    """Whether the dotted version at the start of ``text`` (a leading v allowed) is at least ``minimum`` (a tuple);
    False when ``text`` has none."""
    match = _VERSION_RE.match(str(text or '').strip())
    if not match:
        return False
    parts = tuple(int(part) for part in match.group(1).split('.'))
    return parts + (0,) * (len(minimum) - len(parts)) >= tuple(minimum)


def _missing(wanted, have):
    return unique([item for item in wanted if item not in have])


def _platform(node, facts):
    """(distribution, version, release, architecture, whether it is openEuler 22.03 SP4 aarch64): the gathered
    facts when there are any, else /etc/os-release and uname as node_preflight read them."""
    release = (node.get('os') or {}).get('release') or {}
    distribution = facts.get('distribution') or release.get('NAME') or 'unknown'
    version = facts.get('distribution_version') if facts.get('distribution_version') is not None \
        else release.get('VERSION_ID', '')
    codename = facts.get('distribution_release') if facts.get('distribution_release') is not None \
        else release.get('VERSION', '')
    machine = facts.get('architecture') if facts.get('architecture') is not None \
        else (node.get('os') or {}).get('machine', '')
    sp4 = distribution == 'openEuler' and version == '22.03' and 'SP4' in (codename or '') and machine == 'aarch64'
    return distribution, version or '', codename or '', machine or '', sp4


def _cgroup_message(host, asked, node, v2_args, v2_booted):
    controllers = (node.get('cgroup') or {}).get('controllers')
    path = asked['cgroup_root'] + '/cgroup.controllers'
    if controllers is not None:
        found = 'lists ' + (' '.join(controllers) or 'nothing')
        advice = ('The memory controller is not enabled (cgroup_disable=memory on the kernel command line?): enable '
                  'it, or set node_prep_memory_qos_enabled=false.')
    else:
        found = 'cannot be read (%s)' % ((node.get('cgroup') or {}).get('error') or 'missing')
        if v2_booted:
            advice = ('The running kernel was already booted with %s (%s), so a reboot would not help: check the '
                      'systemd version and the cgroup_no_v1/cgroup_disable kernel arguments, or set '
                      'node_prep_memory_qos_enabled=false.' % (' '.join(v2_args), asked['proc_cmdline_path']))
        elif v2_args:
            why = ('node_prep_reboot_allowed=false): allow the role to reboot with node_prep_reboot_allowed=true'
                   if not truthy(asked['reboot_allowed'])
                   else 'node_prep_manage_services=false): let the role manage the services and reboot with '
                        'node_prep_manage_services=true')
            advice = ('node_prep_kernel_args carries %s, but this run will not reboot (%s, or run once with '
                      'node_prep_memory_qos_enabled=false and reboot the node yourself.' % (' '.join(v2_args), why))
        else:
            advice = ('Boot with systemd.unified_cgroup_hierarchy=1: add it to node_prep_kernel_args and allow the '
                      'reboot with node_prep_reboot_allowed=true (node_prep then reboots and checks cgroup v2 '
                      'again), or set node_prep_memory_qos_enabled=false.')
    return ('node_prep: %s is not on the unified cgroup v2 hierarchy with the memory controller, which memory QoS '
            '(node_prep_memory_qos_enabled=true) needs: %s %s. %s Nothing was changed.' % (host, path, found, advice))


def _containerd_message(host, asked, node, version):
    if version:
        what = ('containerd %s has no NRI v0.3+; NRI (node_prep_nri_enabled=true) needs containerd 1.7 or later. '
                'Upgrade containerd first' % version)
    else:
        read = node.get('containerd') or {}
        what = ('the containerd version could not be determined (`%s --version`: %s). Set '
                'node_prep_containerd_version' % (asked['containerd_binary'],
                                                  read.get('error') or read.get('output') or 'no output'))
    return 'node_prep: %s: %s, or set node_prep_nri_enabled=false. Nothing was changed.' % (host, what)


def _kubelet_message(host, asked, node):
    given = asked['kubelet_config_path'] or ''
    if given:
        where = 'node_prep_kubelet_config_path=%s does not exist.' % given
    else:
        found = (node.get('kubelet') or {}).get('config_path') or ''
        where = (('%s (named by --config in the kubelet unit) does not exist. ' % found) if found else '') + (
            'Looked for --config in %s.service and its drop-ins under %s and in %s, then at %s.' % (
                asked['kubelet_service'], ', '.join(asked['kubelet_unit_dirs']), ', '.join(asked['kubelet_env_files']),
                ', '.join(asked['kubelet_config_candidates'])))
    return ('node_prep: %s: no kubelet configuration file found. %s Set node_prep_kubelet_config_path to the file '
            'the kubelet reads (its --config), or node_prep_kubelet_enabled=false to leave the kubelet alone. '
            'Nothing was changed.' % (host, where))


def _cpus_message(host, asked, node, wanted, online):
    text = (node.get('online_cpus') or {}).get('text')
    source = asked['sysfs_cpu_dir'] + '/online'
    if wanted is None:
        what = 'is not a CPU list (allowed: comma-separated CPU numbers and ranges, e.g. "0-1" or "0,32")'
    elif online is None or text is None:
        what = 'cannot be checked: %s is unreadable' % source
    else:
        what = 'names CPUs this node does not have online: %s (online: %s, from %s)' % (
            ','.join(str(cpu) for cpu in _missing(wanted, online)), text.strip(), source)
    return 'node_prep: %s: node_prep_reserved_system_cpus=%s %s. Nothing was changed.' % (
        host, json.dumps(asked['reserved_system_cpus']), what)


def _nodes_message(host, asked, node, wanted_nodes, online_nodes):
    text = ((node.get('online_numa_nodes') or {}).get('text') or '').strip()
    return ('node_prep: %s: node_prep_reserved_memory names NUMA node(s) %s that this node does not have (online '
            'NUMA nodes: %s, from %s/online). Use only numaNode values of this node. Nothing was changed.' % (
                host, ', '.join(str(item) for item in _missing(wanted_nodes, online_nodes or [])),
                text or 'unreadable', asked['sysfs_node_dir']))


def checks(node, asked, host):
    """node_prep's pre-flight: what ``node`` (node_preflight's result) has, what ``asked`` (the role's variables,
    CHECKS_DEFAULTS' keys) wants of it, and every check that fails, each as one message naming the host, the file
    or variable, the value and what is allowed.

    Returns {kernel_args, mem_sampling_wanted, cgroup_v2_memory (None: not checked), cgroup_v2_args,
    cgroup_v2_after_reboot, containerd_version, kubelet_config, kubelet_target (where the kubelet keys are written),
    settings (the booleans asked, typed), notes,
    errors}."""
    problem = unknown_checks_keys(asked)
    if problem:
        raise ValueError(problem)
    asked = dict(CHECKS_DEFAULTS, **(asked or {}))
    facts = asked['facts'] or {}
    memory_qos = truthy(asked['memory_qos_enabled'])
    kubelet_on = truthy(asked['kubelet_enabled'])
    reboot = truthy(asked['reboot_allowed']) and truthy(asked['manage_services'])

    distribution, version, codename, machine, sp4 = _platform(node, facts)
    sampling = asked['mem_sampling'] == 'enabled' or (asked['mem_sampling'] == 'auto' and sp4)
    args = unique(list(asked['kernel_args'] or []) + (list(asked['mem_sampling_args'] or []) if sampling else []))
    v2_args = [arg for arg in args if _V2_ARG.match(str(arg))] if memory_qos else []
    booted = ((node.get('cmdline') or {}).get('text') or '').split()
    controllers = (node.get('cgroup') or {}).get('controllers')
    v2_memory = ('memory' in (controllers or [])) if memory_qos else None
    v2_booted = bool(v2_args) and not _missing(v2_args, booted)
    v2_after_reboot = bool(memory_qos and controllers is None and v2_args and _missing(v2_args, booted) and reboot)

    given_version = '' if asked['containerd_version'] is None else str(asked['containerd_version'])
    containerd_found = given_version or (node.get('containerd') or {}).get('version') or ''
    online = (node.get('online_cpus') or {}).get('ids')
    online_nodes = (node.get('online_numa_nodes') or {}).get('ids')
    cpus = asked['reserved_system_cpus']
    wanted = cpu_list(cpus or '')
    memory = asked['reserved_memory']
    wanted_nodes = [] if memory == 'auto' else [entry.get('numaNode') if isinstance(entry, dict) else None
                                                for entry in (memory or [])]
    unknown = list(asked['unknown'] or [])
    allow_unknown = truthy(asked['allow_unknown'])
    kubelet_read = node.get('kubelet') or {}

    notes = []
    if unknown and allow_unknown:
        notes.append('WARNING (colocation_allow_unknown_variables=true): ' + '; '.join(unknown))
    # auto on another distribution is simply not for it: no note. On another openEuler release or architecture the
    # flags are skipped with a note: that user may well have expected them.
    if asked['mem_sampling'] == 'auto' and not sp4 and distribution == 'openEuler':
        release = (node.get('os') or {}).get('release') or {}
        this = (('%s %s %s' % (facts['distribution'], version, codename)) if facts.get('distribution') is not None
                else release.get('PRETTY_NAME') or '%s %s' % (distribution, version))
        notes.append('%s skipped: these kernel flags are for openEuler 22.03 SP4 aarch64 only, and this host is %s '
                     '%s. Set node_prep_mem_sampling=enabled to add them anyway.'
                     % (' '.join(asked['mem_sampling_args'] or []), this, machine))
    if v2_after_reboot:
        notes.append('%s is not on the unified cgroup v2 hierarchy yet (%s/cgroup.controllers cannot be read), which '
                     'memory QoS (node_prep_memory_qos_enabled=true) needs. node_prep_kernel_args carries %s and '
                     'node_prep_reboot_allowed is true: memory QoS becomes possible after this run\'s reboot. cgroup '
                     'v2 with the memory controller is checked again after the reboot; if it is still missing, the '
                     'run fails and is rolled back.' % (host, asked['cgroup_root'], ' '.join(v2_args)))
    if not truthy(asked['k8s_enabled']):
        notes.append('The Kubernetes API is not used (node_prep_k8s_enabled is false; it is true by default when '
                     'node_prep_k8s_kubeconfig/node_prep_k8s_host or K8S_AUTH_KUBECONFIG/K8S_AUTH_HOST on the '
                     'controller is set): %s will NOT be cordoned/drained before a kubelet change, and neither Node '
                     'Ready nor the kubelet\'s /configz is checked (only /healthz).' % asked['node_name'])

    errors = []
    if unknown and not allow_unknown:
        errors.append('node_prep: %s. These are host/group variables or extra vars (-e, AWX survey or extra '
                      'variables) that no role or playbook of numaops.colocation reads, so they would be ignored. Fix '
                      'the name, or set colocation_allow_unknown_variables=true to allow them. Nothing was changed.'
                      % '; '.join(unknown))
    invalid = list(asked['invalid'] or [])
    if invalid:
        errors.append('node_prep: %s (the types and values roles/node_prep/meta/argument_specs.yml allows). '
                      'Nothing was changed.' % '; '.join(invalid))
    for name, entry in sorted((node.get('output_dirs') or {}).items()):
        if entry.get('error'):
            errors.append('node_prep: %s: %s=%s cannot take the output written there after the changes (%s). Create '
                          'the directory, or leave %s empty. Nothing was changed.'
                          % (host, name, entry.get('path'), entry['error'], name))
    if memory_qos and not v2_after_reboot and not v2_memory:
        errors.append(_cgroup_message(host, asked, node, v2_args, v2_booted))
    if truthy(asked['nri_enabled']) and not version_at_least(containerd_found, (1, 7)):
        errors.append(_containerd_message(host, asked, node, containerd_found))
    if kubelet_on and not (kubelet_read.get('config_path') and kubelet_read.get('exists')):
        errors.append(_kubelet_message(host, asked, node))
    target = kubelet_target.target(
        asked['kubelet_write_to'], asked['kubelet_config_dir'] or '', kubelet_read.get('config_dir') or '',
        asked['kubelet_enable_config_dir'], asked['kubelet_drop_in_name'], list(asked['kubelet_unit_dirs'] or []),
        asked['kubelet_service'], asked['root'] or '', host) if kubelet_on else {}
    errors.extend(target.get('errors') or [])
    if (kubelet_on and str(cpus or '') and cpus != 'auto'
            and not (online is not None and wanted is not None and not _missing(wanted, online))):
        errors.append(_cpus_message(host, asked, node, wanted, online))
    if (kubelet_on and memory and memory != 'auto'
            and not (online_nodes is not None and (node.get('online_numa_nodes') or {}).get('text') is not None
                     and not _missing(wanted_nodes, online_nodes))):
        errors.append(_nodes_message(host, asked, node, wanted_nodes, online_nodes))

    koordlet_wanted = koordlet_asked(asked)
    koordlet = koordlet_node.verdict(node.get('probes') or {}, koordlet_wanted, host,
                                     (node.get('os') or {}).get('kernel') or '', node.get('core_sched_probe'))
    unknown_features = koordlet_node.unknown_features(koordlet_wanted['features'])
    if unknown_features:
        errors.append('node_prep: %s: node_prep_koordlet_features names %s (allowed: %s). Nothing was changed.'
                      % (host, ', '.join(unknown_features), ', '.join(koordlet_node.FEATURES)))
    notes.extend(koordlet['warnings'] + koordlet['notes'])

    return {
        'koordlet': koordlet,
        'kernel_args': args,
        'mem_sampling_wanted': sampling,
        'cgroup_v2_memory': v2_memory,
        'cgroup_v2_args': v2_args,
        'cgroup_v2_after_reboot': v2_after_reboot,
        'containerd_version': containerd_found if asked['nri_enabled'] is not None else '',
        'kubelet_config': kubelet_read.get('config_path') or '',
        # where the kubelet concern writes (module_utils/kubelet_target.py; {} without the kubelet concern)
        'kubelet_target': dict((k, v) for k, v in target.items() if k != 'errors'),
        'settings': settings(asked),
        'notes': notes,
        'errors': errors,
    }
