# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A performance profile (the shape of OpenShift's PerformanceProfile) derived on one node's topology.

From one profile mapping and the node's NUMA facts (module_utils/numa.py ``collect``) ``derive`` returns:

* the reserved and isolated CPU sets (``auto``: reserved on whole cores spread over the NUMA nodes, as
  reservations.derive_cpus with ``spread`` does; isolated: every other online CPU);
* the kubelet settings, named as the kubelet_config module's options: cpuManagerPolicy ``static`` with
  ``reservedSystemCPUs``, the topology manager policy (``best-effort`` unless the profile says), the memory
  manager ``Static`` with ``reserved_memory: auto`` (the kubelet's sum rule) for ``restricted`` and
  ``single-numa-node``, ``full-pcpus-only`` for ``single-numa-node``;
* the isolation kernel arguments: ``nohz=on``, ``nohz_full``, ``rcu_nocbs``, ``isolcpus=managed_irq,`` (with
  ``domain,`` when ``balance_isolated`` is false), ``systemd.cpu_affinity`` and ``irqaffinity`` on the
  housekeeping CPUs (every online CPU not isolated), ``skew_tick=1``;
* the huge pages: per NUMA node (``node`` given) allocated at boot by a systemd unit (huge_pages_unit), and the
  kernel arguments for pages reserved at boot: ``default_hugepagesz``, 1G pages per node in the kernel's node
  format (``hugepagesz=1G hugepages=0:4,1:4``) and pages without a node (``hugepagesz=2M hugepages=512``);
* irqbalance's banned CPUs (the isolated set).

Every refusal is collected before anything is returned (ProfileError), each naming the field, the value and what is
allowed. Pure functions, standard library only, Python 3.8+.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.numaops.colocation.plugins.module_utils import cmdline_hugepages as hugepages
from ansible_collections.numaops.colocation.plugins.module_utils.cmdline import CmdlineError, edit_cmdline, parse_wanted
from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import format_cpuset, parse_cpuset
from ansible_collections.numaops.colocation.plugins.module_utils.reservations import ReservationError, derive_cpus

AUTO = 'auto'
TOPOLOGY_POLICIES = ('none', 'best-effort', 'restricted', 'single-numa-node')
# the sizes a PerformanceProfile takes, in KiB (the kernel's hugepages-<size>kB directories)
PAGE_SIZES = {'2M': 2048, '1G': 1048576}
BOOT_ONLY_SIZES = ('1G',)
PROFILE_KEYS = ('cpu', 'hugepages', 'numa', 'isolation', 'realtime')
CPU_KEYS = ('reserved', 'isolated', 'reserved_cores', 'balance_isolated')
HUGEPAGES_KEYS = ('default_size', 'pages')
PAGE_KEYS = ('size', 'count', 'node')
NUMA_KEYS = ('topology_policy',)
UNIT_NAME = 'numaops-hugepages.service'
NODE_SYSFS = '/sys/devices/system/node'


class ProfileError(ValueError):
    def __init__(self, errors):
        self.errors = list(errors)
        super(ProfileError, self).__init__('; '.join(self.errors))


def _unknown_keys(value, allowed, field, errors):
    for key in sorted(set(value) - set(allowed), key=str):
        errors.append('%s.%s: unknown field; allowed: %s' % (field, key, ', '.join(allowed)))


def _mapping(profile, key, errors):
    value = profile.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        errors.append('profile.%s: %r is not a mapping' % (key, value))
        return None
    return value


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _online(facts):
    text = facts.get('online_cpus')
    return set(parse_cpuset(text)) if text else None


def _cpu_set(cpu, key, online, errors):
    value = cpu.get(key, AUTO if key == 'isolated' else None)
    if value is None or value == AUTO:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    try:
        cpus = set(parse_cpuset(value.strip() if isinstance(value, str) else value))
    except ValueError as err:
        errors.append('profile.cpu.%s: %s; allowed: a CPU list or auto' % (key, err))
        return None
    if not cpus:
        errors.append('profile.cpu.%s: the CPU list is empty; give at least one CPU or auto' % key)
        return None
    if online is not None and cpus - online:
        errors.append('profile.cpu.%s: %s names CPUs %s that are not online on this node (online: %s)'
                      % (key, value, format_cpuset(cpus - online), format_cpuset(online)))
        return None
    return cpus


def _split_cores(facts, reserved, isolated):
    """(split, whole): the cores whose SMT siblings are split between the reserved and the isolated set, and the
    reserved set grown to whole cores (every sibling of a core with a reserved CPU)."""
    split = []
    whole = set()
    for node in facts.get('numa_nodes') or []:
        for core in node.get('cores') or []:
            siblings = set(core['cpus'])
            if siblings & reserved:
                whole.update(siblings)
                if siblings & isolated:
                    split.append('core %d of NUMA node %d (CPUs %s: reserved %s, isolated %s)' % (
                        core['core_id'], node['id'], format_cpuset(siblings), format_cpuset(siblings & reserved),
                        format_cpuset(siblings & isolated)))
    return split, whole


def derive_cpus_of(cpu, facts, errors):
    """(reserved, isolated, detail) of the profile's ``cpu`` mapping; errors appended."""
    _unknown_keys(cpu, CPU_KEYS, 'profile.cpu', errors)
    online = _online(facts)
    if online is None:
        errors.append('profile.cpu: the node\'s online CPUs are unknown (/sys/devices/system/cpu/online)')
        return None, None, []
    reserved = _cpu_set(cpu, 'reserved', online, errors)
    isolated = _cpu_set(cpu, 'isolated', online, errors)
    if 'reserved' not in cpu or cpu.get('reserved') is None:
        errors.append('profile.cpu.reserved: missing; allowed: a CPU list such as 0-1 or auto')
        return None, None, []
    cores = cpu.get('reserved_cores')
    if cores is not None and reserved != AUTO:
        errors.append('profile.cpu.reserved_cores: %r is only used with reserved: auto' % (cores,))
    if 'balance_isolated' in cpu and not isinstance(cpu['balance_isolated'], bool):
        errors.append('profile.cpu.balance_isolated: %r is not a boolean (true or false)' % (cpu['balance_isolated'],))
    detail = []
    if reserved == AUTO:
        nodes = len([n for n in facts.get('numa_nodes') or [] if n.get('cpu_ids')]) or 1
        if cores is None:
            cores = nodes
        if not _is_int(cores) or cores < 1:
            errors.append('profile.cpu.reserved_cores: %r is not a number of whole cores (1, 2, ...)' % (cores,))
            return None, None, []
        try:
            text, detail = derive_cpus(facts, cores, 'spread')
        except ReservationError as err:
            errors.extend('profile.cpu.reserved: auto: %s' % e for e in err.errors)
            return None, None, []
        reserved = set(parse_cpuset(text))
    if reserved is None or isolated is None:
        return None, None, []
    if isolated == AUTO:
        isolated = online - reserved
        if not isolated:
            errors.append('profile.cpu.isolated: auto leaves no CPU: the reserved CPUs %s are every online CPU'
                          % format_cpuset(reserved))
            return None, None, []
    both = reserved & isolated
    if both:
        errors.append('profile.cpu: reserved %s and isolated %s overlap on %s; a CPU is either reserved or isolated'
                      % (format_cpuset(reserved), format_cpuset(isolated), format_cpuset(both)))
        return None, None, []
    split, whole = _split_cores(facts, reserved, isolated)
    if split:
        more = ' (and %d more)' % (len(split) - 4) if len(split) > 4 else ''
        errors.append('profile.cpu: SMT siblings split between reserved and isolated: %s%s; put every sibling of a '
                      'core on the same side (reserved %s as whole cores: %s)'
                      % ('; '.join(split[:4]), more, format_cpuset(reserved), format_cpuset(whole)))
    return reserved, isolated, detail


def _node_of(facts, node_id):
    return next((n for n in facts.get('numa_nodes') or [] if n.get('id') == node_id), None)


def derive_pages(hugepages, facts, errors):
    """(default size or None, [{'size', 'kib', 'count', 'node'}]) of the profile's ``hugepages``; errors appended."""
    _unknown_keys(hugepages, HUGEPAGES_KEYS, 'profile.hugepages', errors)
    default = hugepages.get('default_size')
    if default is not None and default not in PAGE_SIZES:
        errors.append('profile.hugepages.default_size: %r is not a huge page size; allowed: %s'
                      % (default, ', '.join(PAGE_SIZES)))
    pages = hugepages.get('pages') or []
    if not isinstance(pages, list):
        errors.append('profile.hugepages.pages: %r is not a list of {size, count, node}' % (pages,))
        return default, []
    result, seen, wanted_bytes = [], {}, {}
    for index, page in enumerate(pages):
        field = 'profile.hugepages.pages[%d]' % index
        if not isinstance(page, dict):
            errors.append('%s: %r is not a mapping {size, count, node}' % (field, page))
            continue
        _unknown_keys(page, PAGE_KEYS, field, errors)
        size, count, node = page.get('size'), page.get('count'), page.get('node')
        ok = True
        if size not in PAGE_SIZES:
            errors.append('%s.size: %r is not a huge page size; allowed: %s' % (field, size, ', '.join(PAGE_SIZES)))
            ok = False
        if not _is_int(count) or count < 0:
            errors.append('%s.count: %r is not a number of pages (0, 1, ...)' % (field, count))
            ok = False
        if node is not None:
            ids = facts.get('numa_node_ids') or []
            if not _is_int(node) or node not in ids:
                errors.append('%s.node: %r is not a NUMA node of this node; allowed: %s'
                              % (field, node, ', '.join(str(i) for i in ids) or 'none known'))
                ok = False
        if not ok:
            continue
        key = (size, node)
        if key in seen:
            errors.append('%s: size %s on %s is given twice (also pages[%d]); give one count per size and node'
                          % (field, size, 'NUMA node %d' % node if node is not None else 'no node', seen[key]))
            continue
        seen[key] = index
        kib = PAGE_SIZES[size]
        if node is not None:
            entry = _node_of(facts, node)
            sizes = entry.get('hugepages') if entry else None
            if sizes is not None and _size_name(kib) not in sizes:
                errors.append('%s.size: NUMA node %d offers no %s pages (%s/node%d/hugepages/hugepages-%dkB is '
                              'missing); sizes it offers: %s' % (field, node, size, NODE_SYSFS, node, kib,
                                                                 ', '.join(sorted(sizes)) or 'none'))
                continue
            wanted_bytes[node] = wanted_bytes.get(node, 0) + count * kib * 1024
        result.append({'size': size, 'kib': kib, 'count': count, 'node': node})
    for size in PAGE_SIZES:
        if (size, None) in seen and any(key[0] == size and key[1] is not None for key in seen):
            errors.append('profile.hugepages.pages[%d]: %s pages without a node and %s pages on named NUMA nodes; '
                          'give every %s entry a node, or one entry without a node'
                          % (seen[(size, None)], size, size, size))
    for node in sorted(wanted_bytes):
        total = (_node_of(facts, node) or {}).get('memory_total_bytes')
        if total is not None and wanted_bytes[node] >= total:
            errors.append('profile.hugepages.pages: %d bytes of huge pages on NUMA node %d, which has %d bytes '
                          '(MemTotal of %s/node%d/meminfo); lower the counts of NUMA node %d below its memory (at most %s)'
                          % (wanted_bytes[node], node, total, NODE_SYSFS, node, node, ' or '.join(
                              '%d %s pages' % ((total - 1) // (kib * 1024), size)
                              for size, kib in PAGE_SIZES.items())))
    return default, result


def _size_name(kib):
    return '%dGi' % (kib // 1048576) if kib % 1048576 == 0 else '%dMi' % (kib // 1024)


def isolation_args(reserved, isolated, online, balance_isolated=True):
    """The kernel arguments that keep the kernel's own work off the isolated CPUs (NTO's cpu-partitioning
    arguments, with the default IRQ affinity as a boot argument)."""
    cpus = format_cpuset(isolated)
    housekeeping = format_cpuset(set(online) - set(isolated))
    return ['nohz=on', 'nohz_full=' + cpus, 'rcu_nocbs=' + cpus,
            'isolcpus=%smanaged_irq,%s' % ('' if balance_isolated else 'domain,', cpus),
            'irqaffinity=' + housekeeping, 'systemd.cpu_affinity=' + housekeeping, 'skew_tick=1']


def hugepages_args(default, pages):
    """Kernel arguments for the pages reserved at boot: the default size, pages without a node, and the sizes that
    cannot be allocated reliably once the node runs (1G) per node in the kernel's ``<node>:<count>`` format."""
    args = ['default_hugepagesz=' + default] if default else []
    for size in PAGE_SIZES:
        global_pages = [p for p in pages if p['size'] == size and p['node'] is None]
        node_pages = [p for p in pages if p['size'] == size and p['node'] is not None and size in BOOT_ONLY_SIZES]
        if node_pages:
            args += ['hugepagesz=' + size,
                     'hugepages=' + ','.join('%d:%d' % (p['node'], p['count'])
                                             for p in sorted(node_pages, key=lambda p: p['node']))]
        elif global_pages:
            args += ['hugepagesz=' + size, 'hugepages=%d' % global_pages[0]['count']]
    return args


def boot_pairs(words):
    """The huge page words of a command line (``default_hugepagesz=``, ``hugepagesz=``, ``hugepages=``), in order (the
    kernel reads each ``hugepages=`` after the ``hugepagesz=`` before it)."""
    return [word for word in words if word.split('=', 1)[0] in ('default_hugepagesz', 'hugepagesz', 'hugepages')]


def running_pairs_error(kernel_args, running_words, path='/proc/cmdline'):
    """The refusal when kernel_cmdline would refuse the profile's huge page arguments on the command line the node
    booted with: merging them would give a count of the node's another size (a ``hugepages=`` of the default size
    when the profile sets ``default_hugepagesz``), or the node's huge page arguments are ones kernel_cmdline does not
    merge. None when kernel_cmdline merges them (it replaces the count of a size in place and keeps the pairs of
    other sizes)."""
    ours, theirs = boot_pairs(kernel_args), boot_pairs(running_words)
    if not ours or not theirs:
        return None
    try:
        present, absent = parse_wanted(ours)
        edit_cmdline(' '.join(running_words), present, absent)
    except CmdlineError as err:
        return ('%s: the node booted with %s, and kernel_cmdline would refuse the profile\'s %s: %s' % (
            path, ' '.join(theirs), ' '.join(ours), err))
    return None


def replaced_pairs(running_words, kernel_args):
    """The words of the running command line's huge page pairs whose count the profile's kernel arguments change (the
    same page size, another count): kernel_cmdline replaces that count where it is."""
    ours = hugepages.read(boot_pairs(kernel_args))[0]
    words = boot_pairs(running_words)
    out = []
    for group in hugepages.groups(words):
        counts = [words[i].split('=', 1)[1] for i in group['counts']]
        if group['kind'] == 'pair' and group['size'] in ours and counts[:1] != [ours[group['size']]]:
            out += [words[i] for i in [group['setter']] + group['counts']]
    return out


def kubelet_settings(reserved, numa):
    """The kubelet_config options of the profile (empty without a cpu section and a topology policy)."""
    policy = (numa or {}).get('topology_policy')
    settings = {}
    if reserved is not None:
        settings.update(cpu_manager_policy='static', reserved_system_cpus=format_cpuset(reserved),
                        topology_manager_policy=policy or 'best-effort')
    elif policy:
        settings['topology_manager_policy'] = policy
    if reserved is not None and policy in ('restricted', 'single-numa-node'):
        settings.update(memory_manager_policy='Static', reserved_memory='auto')
    if reserved is not None and policy == 'single-numa-node':
        settings['cpu_manager_policy_options'] = {'full-pcpus-only': 'true'}
    return settings


def derive(profile, facts):
    """Everything the profile sets on this node (see the module docstring). Raises ProfileError."""
    errors = []
    if not isinstance(profile, dict):
        raise ProfileError(['profile: %r is not a mapping' % (profile,)])
    _unknown_keys(profile, PROFILE_KEYS, 'profile', errors)
    if profile.get('realtime') not in (None, False):
        errors.append('profile.realtime: %r; only false is allowed: the real-time kernel and its hints are not '
                      'set by this collection' % (profile.get('realtime'),))
    isolation = profile.get('isolation', True)
    if not isinstance(isolation, bool):
        errors.append('profile.isolation: %r is not a boolean (true or false)' % (isolation,))
    cpu = _mapping(profile, 'cpu', errors)
    hugepages = _mapping(profile, 'hugepages', errors)
    numa = _mapping(profile, 'numa', errors)
    if numa is not None:
        _unknown_keys(numa, NUMA_KEYS, 'profile.numa', errors)
        if numa.get('topology_policy') is not None and numa.get('topology_policy') not in TOPOLOGY_POLICIES:
            errors.append('profile.numa.topology_policy: %r; allowed: %s'
                          % (numa.get('topology_policy'), ', '.join(TOPOLOGY_POLICIES)))
    if cpu is None and hugepages is None and numa is None:
        errors.append('profile: sets nothing; give cpu, hugepages or numa')
    reserved = isolated = None
    detail = []
    if cpu is not None:
        reserved, isolated, detail = derive_cpus_of(cpu, facts, errors)
    default, pages = (None, [])
    if hugepages is not None:
        default, pages = derive_pages(hugepages, facts, errors)
    if numa and numa.get('topology_policy') in ('restricted', 'single-numa-node') and cpu is None:
        errors.append('profile.numa.topology_policy: %s needs profile.cpu (the memory manager Static and the '
                      'static CPU manager need reserved CPUs)' % numa['topology_policy'])
    if errors:
        raise ProfileError(errors)
    online = _online(facts) or set()
    isolate = isolation is True and isolated is not None
    kernel_args = []
    if isolate:
        kernel_args += isolation_args(reserved, isolated, online, (cpu or {}).get('balance_isolated', True))
    kernel_args += hugepages_args(default, pages)
    return {
        'reserved_cpus': format_cpuset(reserved) if reserved is not None else None,
        'isolated_cpus': format_cpuset(isolated) if isolated is not None else None,
        'reserved_detail': detail,
        'kubelet': kubelet_settings(reserved, numa),
        'kernel_args': kernel_args,
        'irqbalance_banned_cpus': format_cpuset(isolated) if isolate else None,
        'hugepages': [dict(p) for p in pages],
        'node_hugepages': [dict(p) for p in pages if p['node'] is not None],
    }


def huge_pages_unit(node_pages):
    """The text of the systemd unit that sets the per-node huge pages at boot, before the kubelet starts; each
    count is written, then read back (the unit fails when the kernel could not allocate them all)."""
    lines = ['# Written by numaops.colocation (perf_profile): huge pages per NUMA node, before the kubelet starts.',
             '[Unit]', 'Description=Huge pages per NUMA node (numaops.colocation performance profile)',
             'DefaultDependencies=no', 'After=local-fs.target', 'Before=kubelet.service',
             '', '[Service]', 'Type=oneshot', 'RemainAfterExit=yes']
    for page in sorted(node_pages, key=lambda p: (p['node'], p['kib'])):
        path = '%s/node%d/hugepages/hugepages-%dkB/nr_hugepages' % (NODE_SYSFS, page['node'], page['kib'])
        lines.append("ExecStart=/bin/sh -c 'echo %d > %s && test \"$$(cat %s)\" -eq %d'"
                     % (page['count'], path, path, page['count']))
    lines += ['', '[Install]', 'WantedBy=multi-user.target', '']
    return '\n'.join(lines)


def _allocated(facts, node, kib):
    entry = (_node_of(facts, node) or {}).get('hugepages') or {}
    return (entry.get(_size_name(kib)) or {}).get('total')


def hugepages_drift(pages, facts):
    """[{'node', 'size', 'wanted', 'allocated'}] of the pages whose count in sysfs differs: per NUMA node, or for
    pages without a node (``node`` None) the sum over the NUMA nodes (allocated None: a count is unknown)."""
    drift = []
    for page in pages:
        if page['node'] is None:
            counts = [_allocated(facts, node, page['kib']) for node in facts.get('numa_node_ids') or []]
            allocated = None if not counts or None in counts else sum(counts)
        else:
            allocated = _allocated(facts, page['node'], page['kib'])
        if allocated != page['count']:
            drift.append({'node': page['node'], 'size': page['size'], 'wanted': page['count'],
                          'allocated': allocated})
    return drift
