# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The vm scenario's comparison of Node Feature Discovery's NodeResourceTopology zones with numa_facts and the textfile
(extensions/molecule/vm/files/nfd_oracle.py), on the zones nfd-topology-updater v0.19.0 published for the test VM's
node (static CPU manager with CPU 0 reserved and CPU 1 exclusive, Static memory manager, 2 MiB huge pages on both NUMA
nodes, no 1 GiB pages) and facts of the same shape: every value compared, what NFD leaves out by design explained,
and a value that differs reported."""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys

from ansible_collections.numaops.colocation.plugins.plugin_utils import numa_textfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORACLE = os.path.join(ROOT, 'extensions', 'molecule', 'vm', 'files', 'nfd_oracle.py')
MI = 1024 * 1024

# the zones as the API returned them (values of the test VM's node)
NRT = {'zones': [
    {'name': 'node-0', 'type': 'Node', 'resources': [
        {'name': 'memory', 'capacity': '1055453184', 'allocatable': '933818368', 'available': '933818368'},
        {'name': 'hugepages-2Mi', 'capacity': '16777216', 'allocatable': '16777216', 'available': '16777216'}]},
    {'name': 'node-1', 'type': 'Node', 'resources': [
        {'name': 'memory', 'capacity': '1014902784', 'allocatable': '1006514176', 'available': '872296448'},
        {'name': 'cpu', 'capacity': '1', 'allocatable': '1', 'available': '0'},
        {'name': 'hugepages-2Mi', 'capacity': '8Mi', 'allocatable': '8388608', 'available': '4194304'}]}]}


def pages(total, free, size_kib):
    return {'page_bytes': size_kib * 1024, 'total': total, 'free': free, 'total_bytes': total * size_kib * 1024,
            'free_bytes': free * size_kib * 1024}


def table(total, allocatable, free):
    return {'total': total, 'systemReserved': total - allocatable, 'allocatable': allocatable,
            'reserved': allocatable - free, 'free': free}


def node(numa, total, hugepages, reserved, exclusive):
    return {'id': numa, 'cpu_ids': [numa], 'cpus': str(numa), 'memory_total_bytes': total,
            'memory_free_bytes': total // 2, 'cores': [{'core_id': 0, 'socket': numa, 'cpus': [numa]}],
            'hugepages': hugepages, 'reserved_cpus': reserved, 'exclusive_cpus': exclusive,
            'free_exclusive_cpus': '', 'free_exclusive_cpu_count': 0}


FACTS = {
    'numa_nodes': [
        node(0, 1055453184, {'2Mi': pages(8, 8, 2048), '1Gi': pages(0, 0, 1048576)}, '0', ''),
        node(1, 1014902784, {'2Mi': pages(4, 2, 2048), '1Gi': pages(0, 0, 1048576)}, '', '1')],
    # as it comes through Ansible: the machine state's NUMA node ids as strings
    'kubelet': {'memory_manager': {'policy': 'Static', 'machine_state': {
        '0': {'resources': {'memory': table(1055453184, 933818368, 933818368),
                            'hugepages-2Mi': table(16 * MI, 16 * MI, 16 * MI), 'hugepages-1Gi': table(0, 0, 0)}},
        '1': {'resources': {'memory': table(1014902784, 1006514176, 872296448),
                            'hugepages-2Mi': table(8 * MI, 8 * MI, 4 * MI), 'hugepages-1Gi': table(0, 0, 0)}}}}},
}


def oracle(nrt, facts):
    doc = {'nrt': nrt, 'facts': facts, 'textfile': numa_textfile.render_textfile(facts)}
    proc = subprocess.run([sys.executable, ORACLE], input=json.dumps(doc).encode(), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=60, check=False)
    assert not proc.stderr, proc.stderr.decode()
    return proc.returncode, json.loads(proc.stdout.decode())


def test_every_value_of_the_vm_zones_agrees():
    code, result = oracle(NRT, FACTS)
    assert code == 0 and result['differences'] == [], result
    assert len(result['compared']) == 16
    assert ['node-1', 'cpu', 'allocatable-available', 1, 1, 'textfile numaops_numa_node_exclusive_cpus'] \
        in result['compared']
    assert sorted((zone, name) for zone, name, _why in result['explained']) == [
        ('node-0', 'cpu'), ('node-0', 'hugepages-1Gi'), ('node-1', 'hugepages-1Gi')]


def test_a_value_that_differs_is_reported():
    nrt = copy.deepcopy(NRT)
    nrt['zones'][1]['resources'][0]['available'] = '1006514176'     # NFD would not see the pinned memory
    code, result = oracle(nrt, FACTS)
    assert code == 1
    assert result['differences'] == [['node-1', 'memory', 'available', 1006514176, 872296448,
                                      'memory_manager_state machineState free']]


def test_a_resource_only_one_side_has_is_reported():
    nrt = copy.deepcopy(NRT)
    del nrt['zones'][1]['resources'][2]                             # no hugepages-2Mi on NUMA node 1
    code, result = oracle(nrt, FACTS)
    assert code == 1
    assert [row[:3] for row in result['differences']] == [['node-1', 'hugepages-2Mi', 'present']]
