# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Node Feature Discovery's topology updater as the oracle of numa_facts: its NodeResourceTopology zones, value by
value, against numa_facts and the textfile rendered from the same facts, taken on the same node at the same time.

stdin: JSON {"nrt": the NodeResourceTopology object as the API returns it, "facts": numaops_numa, "textfile": the
numaops_numa.prom text}. stdout: JSON {"compared": [[zone, resource, field, nfd, ours, where ours comes from]],
"differences": [...], "explained": [[zone, resource, why]]}; exit status 1 when a value differs.

How NFD counts (sigs.k8s.io/node-feature-discovery v0.19.0, pkg/resourcemonitor/noderesourcesaggregator.go):
- ``cpu``: allocatable is the number of the zone's CPUs in the kubelet's GetAllocatableResources answer (every CPU
  but reservedSystemCPUs under the static policy), capacity adds the zone's CPUs missing from it (reserved), available
  subtracts the CPUs the kubelet's List gives containers of Guaranteed pods (exclusive CPUs). Ours: the CPUs of the
  NUMA node, its reserved CPUs and its free exclusive CPUs (numaops_numa_node_cpus, _reserved_cpus,
  _free_exclusive_cpus).
- ``memory`` and ``hugepages-<size>``: a zone has them when the kubelet's GetAllocatableResources has a memory block of
  that type on the NUMA node (none when nothing is allocatable); allocatable is the sum of GetAllocatableResources' memory blocks of the zone
  (the memory manager's allocatable under the Static policy), available subtracts the blocks List gives Guaranteed
  containers, capacity is the zone's MemTotal of node<N>/meminfo, or its huge pages (nr_hugepages times the page
  size, pkg/utils/memory_resources.go). Ours: the memory manager's machine state (allocatable, free), the NUMA node's
  MemTotal and huge pages (numaops_numa_node_memory_total_bytes, numaops_numa_node_hugepages_pages).
"""
from __future__ import annotations

import json
import re
import sys

UNITS = {'': 1, 'k': 1000, 'M': 1000 ** 2, 'G': 1000 ** 3, 'T': 1000 ** 4,
         'Ki': 1024, 'Mi': 1024 ** 2, 'Gi': 1024 ** 3, 'Ti': 1024 ** 4}


def quantity(text):
    """A Kubernetes quantity as NFD publishes them (integers with an optional suffix) as an int."""
    match = re.match(r'^(\d+)([kMGT]i?|)$', str(text))
    if not match:
        raise ValueError('not an integer quantity: %r' % (text,))
    return int(match.group(1)) * UNITS[match.group(2)]


def textfile_values(text):
    """{(metric, numa_node, size or None): value} of the node-level series of the textfile."""
    out = {}
    for line in text.splitlines():
        match = re.match(r'^(numaops_numa_node_[a-z_]+)\{([^}]*)\} (\S+)$', line)
        if not match:
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', match.group(2)))
        out[(match.group(1), labels.get('numa_node'), labels.get('size'))] = float(match.group(3))
    return out


def expected(facts, text):
    """{zone name: {resource: {'capacity'|'allocatable'|'available': (value, where)}}} from our side."""
    series = textfile_values(text)
    kubelet = facts.get('kubelet') or {}
    memory_manager = kubelet.get('memory_manager') or {}
    machine = memory_manager.get('machine_state') or {}
    zones = {}
    for node in facts['numa_nodes']:
        numa = str(node['id'])
        cpus = int(series[('numaops_numa_node_cpus', numa, None)])
        reserved = int(series.get(('numaops_numa_node_reserved_cpus', numa, None), 0))
        free = int(series[('numaops_numa_node_free_exclusive_cpus', numa, None)])
        exclusive = int(series[('numaops_numa_node_exclusive_cpus', numa, None)])
        zone = zones['node-%s' % numa] = {}
        zone['cpu'] = {'capacity': (cpus, 'textfile numaops_numa_node_cpus'),
                       'allocatable': (cpus - reserved, 'textfile numaops_numa_node_cpus - numaops_numa_node_reserved_cpus'),
                       'available': (free, 'textfile numaops_numa_node_free_exclusive_cpus'),
                       # the Guaranteed containers' exclusive CPUs: what NFD takes off allocatable
                       'allocatable-available': (exclusive, 'textfile numaops_numa_node_exclusive_cpus')}
        resources = (machine.get(node['id']) or machine.get(numa) or {}).get('resources') or {}
        for name, table in sorted(resources.items()):
            if name == 'memory':
                capacity = (int(series[('numaops_numa_node_memory_total_bytes', numa, None)]),
                            'textfile numaops_numa_node_memory_total_bytes')
            else:
                size = name.split('-', 1)[1]
                pages = int(series[('numaops_numa_node_hugepages_pages', numa, size)])
                capacity = (pages * (node['hugepages'] or {})[size]['page_bytes'],
                            'textfile numaops_numa_node_hugepages_pages times the page size')
            zone[name] = {'capacity': capacity,
                          'allocatable': (table['allocatable'], 'memory_manager_state machineState allocatable'),
                          'available': (table['free'], 'memory_manager_state machineState free')}
    return zones


def compare(nrt, facts, text):
    ours = expected(facts, text)
    compared, differences, explained = [], [], []
    nfd = dict((zone['name'], dict((res['name'], res) for res in zone.get('resources') or []))
               for zone in nrt.get('zones') or [] if zone.get('type') == 'Node')
    if sorted(nfd) != sorted(ours):
        differences.append(['zones', None, 'names', sorted(nfd), sorted(ours), 'numa_facts numa_nodes'])
    for zone, resources in sorted(ours.items()):
        theirs = nfd.get(zone, {})
        for name, fields in sorted(resources.items()):
            if name not in theirs:
                if name == 'cpu' and fields['allocatable'][0] == 0 and len(theirs) > 0:
                    # NFD makes a zone's cpu entry from its CPUs in GetAllocatableResources; a NUMA node whose CPUs
                    # are all reserved but which has allocatable memory gets no cpu entry (Aggregate makes one with
                    # capacity = reserved CPUs only for a NUMA node with no allocatable resource at all).
                    explained.append([zone, name, 'every CPU of the NUMA node is reserved (%d) and it has allocatable '
                                      'memory: NFD publishes no cpu for it' % fields['capacity'][0]])
                    continue
                if name != 'cpu' and fields['allocatable'][0] == 0:
                    # the kubelet's GetAllocatableResources has no block of a memory type with nothing allocatable
                    # (k8s.io/kubernetes pkg/kubelet/cm/memorymanager/policy_static.go, GetAllocatableMemory), and
                    # NFD makes a zone's memory entries from those blocks
                    explained.append([zone, name, 'nothing allocatable (capacity %d): the kubelet offers no block of '
                                      'it, so NFD publishes none' % fields['capacity'][0]])
                    continue
                differences.append([zone, name, 'present', None, fields, 'numa_facts'])
                continue
            for field, (value, where) in sorted(fields.items()):
                if field == 'allocatable-available':
                    got = quantity(theirs[name]['allocatable']) - quantity(theirs[name]['available'])
                else:
                    got = quantity(theirs[name][field])
                row = [zone, name, field, got, value, where]
                compared.append(row)
                if got != value:
                    differences.append(row)
        for name in sorted(set(theirs) - set(resources)):
            differences.append([zone, name, 'present', theirs[name], None, 'numa_facts has no such resource'])
    return {'compared': compared, 'differences': differences, 'explained': explained}


def main():
    doc = json.load(sys.stdin)
    result = compare(doc['nrt'], doc['facts'], doc['textfile'])
    print(json.dumps(result))
    return 1 if result['differences'] or not result['compared'] else 0


if __name__ == '__main__':
    sys.exit(main())
