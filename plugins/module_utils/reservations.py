# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""``reserved_system_cpus: auto`` and ``reserved_memory: auto``: reservations derived from a node's NUMA facts.

* CPUs: whole physical cores (a core and every SMT sibling of it), ``reserved_cores`` of them, lowest core
  first (the core whose lowest CPU number is lowest), either all on NUMA node 0 (``numa0``) or one per NUMA
  node in node order, round and round (``spread``) -- the whole-core rule of the kubelet's
  ``full-pcpus-only`` and of OpenShift's PerformanceProfile.
* Memory: the kubelet's Static memory manager requires the ``memory`` limits of ``reservedMemory`` to add
  up, over all NUMA nodes, to exactly kubeReserved + systemReserved + the hard-eviction threshold for
  ``memory.available``. ``numa0`` puts that sum on NUMA node 0; ``even`` splits it over all NUMA nodes
  (in whole MiB when the sum is a whole number of MiB, the remainder on the lowest nodes).

A reservation the node cannot hold (more cores than NUMA node 0 / the node has, all of its cores, more
memory than a NUMA node has) is refused naming both numbers. Pure, standard library only, Python 3.8+.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet
from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import format_cpuset, parse_cpuset
from ansible_collections.numaops.colocation.plugins.module_utils.quantity import (
    QuantityError, format_bytes, parse_quantity)

AUTO = 'auto'
CPU_PLACEMENTS = ('numa0', 'spread')
MEMORY_SPLITS = ('numa0', 'even')
MIB = 1024 * 1024

AUTO_ARGUMENT_SPEC = dict(
    reserved_cores=dict(type='int', default=1),
    reserved_cores_placement=dict(type='str', default='numa0', choices=list(CPU_PLACEMENTS)),
    reserved_memory_split=dict(type='str', default='numa0', choices=list(MEMORY_SPLITS)),
    topology_root=dict(type='path', default='/'),
)


class ReservationError(ValueError):
    def __init__(self, errors):
        self.errors = list(errors)
        super(ReservationError, self).__init__('; '.join(self.errors))


def _node_desc(node):
    return 'NUMA node %d (CPUs %s)' % (node['id'], node['cpus'] if node['cpus'] is not None else 'unknown')


def _usable_nodes(facts, errors):
    nodes = [node for node in facts.get('numa_nodes') or [] if node.get('cpu_ids')]
    if not nodes:
        errors.append('reserved_system_cpus: auto needs the node\'s NUMA nodes and their CPUs, which are unknown '
                      '(%s)' % _unknown_hint(facts, '/sys/devices/system/node'))
    for node in nodes:
        if not node.get('cores_complete'):
            errors.append('reserved_system_cpus: auto needs the SMT siblings of every CPU of %s, which are not all '
                          'known (%s); set reserved_system_cpus to a CPU list instead'
                          % (_node_desc(node), _unknown_hint(facts, '/topology/')))
    return nodes


def _unknown_hint(facts, needle):
    paths = ['%s: %s' % (item['path'], item['reason']) for item in facts.get('unknown') or [] if needle in item['path']]
    return '; '.join(paths[:3]) if paths else 'see the numa_facts unknown list'


def derive_cpus(facts, cores=1, placement='numa0'):
    """Return (CPU list string, [{'numa_node', 'core_id', 'cpus'}...]) for ``reserved_system_cpus: auto``."""
    errors = []
    if isinstance(cores, bool) or not isinstance(cores, int) or cores < 1:
        errors.append('reserved_cores: %r is not a number of whole cores (1, 2, ...)' % (cores,))
    if placement not in CPU_PLACEMENTS:
        errors.append('reserved_cores_placement: %r is not one of %s' % (placement, ', '.join(CPU_PLACEMENTS)))
    if errors:
        raise ReservationError(errors)
    nodes = _usable_nodes(facts, errors)
    if errors:
        raise ReservationError(errors)
    total_cores = sum(len(node['cores']) for node in nodes)
    total_cpus = sum(len(node['cpu_ids']) for node in nodes)
    chosen = []
    if placement == 'numa0':
        node = next((n for n in nodes if n['id'] == 0), nodes[0])
        if cores > len(node['cores']):
            raise ReservationError(['reserved_cores=%d whole cores on NUMA node %d, which has %d cores (%d CPUs: %s); '
                                    'lower reserved_cores or use reserved_cores_placement=spread'
                                    % (cores, node['id'], len(node['cores']), len(node['cpu_ids']), node['cpus'])])
        chosen = [(node['id'], core) for core in node['cores'][:cores]]
    else:
        if cores > total_cores:
            raise ReservationError(['reserved_cores=%d whole cores, but the node has %d cores (%d CPUs) on %d NUMA '
                                    'nodes' % (cores, total_cores, total_cpus, len(nodes))])
        position = 0
        while len(chosen) < cores:
            for node in nodes:
                if position < len(node['cores']) and len(chosen) < cores:
                    chosen.append((node['id'], node['cores'][position]))
            position += 1
    if len(chosen) >= total_cores:
        raise ReservationError(['reserved_cores=%d reserves every core of the node (%d cores, %d CPUs), leaving no '
                                'CPU for pods' % (cores, total_cores, total_cpus)])
    cpus = set()
    detail = []
    for node_id, core in chosen:
        cpus.update(core['cpus'])
        detail.append({'numa_node': node_id, 'core_id': core['core_id'], 'socket': core['socket'],
                       'cpus': format_cpuset(core['cpus'])})
    return format_cpuset(cpus), detail


def _amount(config, key, errors):
    value = (config.get(key) or {}).get('memory') if isinstance(config.get(key), dict) else None
    if value is None:
        return 0
    try:
        return parse_quantity(value, '%s.memory' % key)
    except QuantityError as err:
        errors.append(str(err))
        return 0


def memory_sum(config, facts=None):
    """kubeReserved.memory + systemReserved.memory + evictionHard memory.available, in bytes, with the parts.

    A percentage eviction threshold is taken of the node's memory (the sum of its NUMA nodes' MemTotal), as
    the kubelet takes it of the machine's memory capacity."""
    config = config or {}
    errors = []
    warnings = []
    kube = _amount(config, 'kubeReserved', errors)
    system = _amount(config, 'systemReserved', errors)
    eviction = None
    value = (config.get('evictionHard') or {}).get('memory.available') \
        if isinstance(config.get('evictionHard'), dict) else None
    if isinstance(value, str) and value.strip().endswith('%'):
        total = node_memory(facts)
        try:
            percent = parse_quantity(value.strip()[:-1])
        except QuantityError:
            percent = None
        if total is None or percent is None:
            errors.append('evictionHard.memory.available is %s and the node\'s memory is unknown, so the reservedMemory '
                          'sum cannot be derived; set reserved_memory to a list instead' % value)
        else:
            eviction = percent * total / 100
    else:
        eviction = kubelet.eviction_memory(config, warnings, errors)
        if eviction is None and not errors:
            errors.append('evictionHard.memory.available %r: the hard-eviction memory is unknown' % (value,))
    if errors:
        raise ReservationError(errors)
    parts = {'kubeReserved': int(kube), 'systemReserved': int(system), 'evictionHard': int(-(-eviction // 1))}
    return sum(parts.values()), parts


def node_memory(facts):
    totals = [node.get('memory_total_bytes') for node in (facts or {}).get('numa_nodes') or []]
    if not totals or any(total is None for total in totals):
        return None
    return sum(totals)


def derive_memory(total, facts, split='numa0'):
    """``reservedMemory`` items for a sum of ``total`` bytes, split over the NUMA nodes as ``split`` says."""
    if split not in MEMORY_SPLITS:
        raise ReservationError(['reserved_memory_split: %r is not one of %s' % (split, ', '.join(MEMORY_SPLITS))])
    nodes = list((facts or {}).get('numa_nodes') or [])
    if not nodes:
        raise ReservationError(['reserved_memory: auto needs the node\'s NUMA nodes, which are unknown (%s)'
                                % _unknown_hint(facts or {}, '/sys/devices/system/node')])
    if total <= 0:
        raise ReservationError(['reserved_memory: auto: kubeReserved + systemReserved + evictionHard memory add up '
                                'to 0, and the Static memory manager needs a reservation greater than zero; set '
                                'kube_reserved/system_reserved memory'])
    if split == 'numa0':
        target = next((n for n in nodes if n['id'] == 0), nodes[0])
        shares = [(target, total)]
    else:
        unit = MIB if total % MIB == 0 else 1
        quotient, remainder = divmod(total // unit, len(nodes))
        shares = [(node, (quotient + (1 if index < remainder else 0)) * unit) for index, node in enumerate(nodes)]
    errors = []
    for node, share in shares:
        have = node.get('memory_total_bytes')
        if have is None:
            errors.append('reserved_memory: auto puts %s on NUMA node %d, whose memory is unknown (%s)'
                          % (format_bytes(share), node['id'], _unknown_hint(facts, 'node%d/meminfo' % node['id'])))
        elif share >= have:
            errors.append('reserved_memory: auto puts %s (%d bytes) on NUMA node %d, which has %s (%d bytes, MemTotal '
                          'of /sys/devices/system/node/node%d/meminfo)'
                          % (format_bytes(share), share, node['id'], format_bytes(have), have, node['id']))
    if errors:
        raise ReservationError(errors)
    return [{'numaNode': node['id'], 'limits': {'memory': format_bytes(share)}} for node, share in shares if share]


def check_cpus_on_node(cpus_text, facts):
    """Errors for an explicit reservedSystemCPUs the node cannot hold (CPUs it lacks, or all of them)."""
    online = set(parse_cpuset(facts['online_cpus'])) if facts.get('online_cpus') else None
    wanted = set(parse_cpuset(cpus_text))
    if online is None:
        return []
    errors = []
    if wanted - online:
        errors.append('reservedSystemCPUs %s names CPUs %s that the node does not have online (online: %s, %d CPUs)'
                      % (cpus_text, format_cpuset(wanted - online), facts['online_cpus'], len(online)))
    elif wanted >= online:
        errors.append('reservedSystemCPUs %s reserves all %d CPUs of the node, leaving none for pods'
                      % (cpus_text, len(online)))
    return errors
