# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Give the sandbox node tree (examples/sandbox/tree: CPUs 0-15 on NUMA nodes 0 and 1) what the performance
profile reads of a node: its cores (SMT siblings n and n+4 within each NUMA node), each NUMA node's memory (16 GiB)
and huge pages (2M and 1G, none allocated yet), and the isolated CPUs (none). Usage: numa_topology.py <tree>."""
import os
import sys


def write(root, path, text):
    path = os.path.join(root, path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as handle:
        handle.write(text)


def main(root):
    write(root, 'sys/devices/system/cpu/isolated', '\n')
    for node in (0, 1):
        first = node * 8
        for cpu in range(first, first + 8):
            core = (cpu - first) % 4
            siblings = '%d,%d' % (first + core, first + core + 4)
            base = 'sys/devices/system/cpu/cpu%d/topology/' % cpu
            write(root, base + 'physical_package_id', '%d\n' % node)
            write(root, base + 'core_id', '%d\n' % core)
            write(root, base + 'thread_siblings_list', siblings + '\n')
            write(root, base + 'core_cpus_list', siblings + '\n')
        base = 'sys/devices/system/node/node%d/' % node
        write(root, base + 'distance', '10 21\n' if node == 0 else '21 10\n')
        write(root, base + 'meminfo', ''.join('Node %d %-15s %8d kB\n' % (node, key + ':', value) for key, value in
                                              (('MemTotal', 16777216), ('MemFree', 12582912), ('MemUsed', 4194304))))
        for size in (2048, 1048576):
            for name in ('nr_hugepages', 'free_hugepages', 'surplus_hugepages'):
                write(root, base + 'hugepages/hugepages-%dkB/%s' % (size, name), '0\n')


if __name__ == '__main__':
    main(sys.argv[1])
