# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The entries of the kubelet's record, as the checkpoint files and the pod-resources API both give them."""
from __future__ import annotations

from ansible_collections.numaops.colocation.plugins.module_utils import numa_records as records

CPU_NODE = dict((cpu, cpu // 4) for cpu in range(8))   # two NUMA nodes of four CPUs


def test_nodes_of_leaves_out_cpus_of_no_known_node():
    assert records.nodes_of({5, 1, 4, 12}, CPU_NODE) == [0, 1]
    assert records.nodes_of(set(), CPU_NODE) == []


def test_a_container_entry_with_its_exclusive_cpus():
    item = records.with_cpus(records.entry('uid-a', 'app', 'web', 'api-0'), {7, 4, 5}, CPU_NODE)
    assert item == {'pod_uid': 'uid-a', 'container': 'app', 'namespace': 'web', 'pod': 'api-0',
                    'cpus': '4-5,7', 'cpu_ids': [4, 5, 7], 'cpu_count': 3, 'numa_nodes': [1]}


def test_the_pod_level_entry_has_no_container():
    item = records.with_cpus(records.entry('uid-b', None, None, None), {3, 4}, CPU_NODE)
    assert item['pod_level'] is True and item['container'] is None
    assert item['numa_nodes'] == [0, 1]
    assert 'pod_level' not in records.entry('uid-b', 'app', None, None)


def test_a_container_entry_with_its_memory_blocks():
    blocks = [records.block([1], 'memory', 1 << 30), records.block([1, 0], 'hugepages-2Mi', 2 << 20)]
    item = records.with_blocks(records.entry(None, 'app', 'web', 'api-0'), blocks)
    assert item['blocks'] == [{'numa_nodes': [1], 'resource': 'memory', 'bytes': 1 << 30},
                              {'numa_nodes': [0, 1], 'resource': 'hugepages-2Mi', 'bytes': 2 << 20}]
    assert item['numa_nodes'] == [0, 1]
