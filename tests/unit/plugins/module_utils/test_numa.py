# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""numa_facts parsing on recorded sysfs trees; the numbers are those of the cited dumps (tests/unit/plugins/fixtures/numa/README.md)."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import numa, numa_kubelet
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_trees import tree

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(HERE))))
SANDBOX = os.path.join(REPO, 'examples', 'sandbox', 'tree')
GIB = 1024 ** 3


def load(name):
    root = tree(name)
    with open(os.path.join(root, 'pods.json')) as handle:
        pods = json.load(handle)
    return numa.collect(root, pods=pods)


@pytest.fixture(scope='module')
def xeon():
    return load('xeon8358-2s')


@pytest.fixture(scope='module')
def tx2():
    return load('thunderx2-2s')


def test_xeon_lscpu_numbers(xeon):
    # lscpu: CPU(s) 128, Thread(s) per core 2, Core(s) per socket 32, Socket(s) 2, NUMA node(s) 2
    assert xeon['cpu_count'] == 128
    assert xeon['online_cpus'] == '0-127'
    assert xeon['threads_per_core'] == 2
    assert xeon['core_count'] == 64
    assert [s['id'] for s in xeon['sockets']] == [0, 1]
    assert [s['numa_nodes'] for s in xeon['sockets']] == [[0], [1]]
    assert xeon['numa_node_ids'] == [0, 1]
    assert [n['cpus'] for n in xeon['numa_nodes']] == ['0-31,64-95', '32-63,96-127']
    assert all(len(n['cores']) == 32 and n['cores_complete'] for n in xeon['numa_nodes'])
    assert xeon['numa_nodes'][0]['cores'][0] == {'core_id': 0, 'socket': 0, 'cpus': [0, 64]}
    assert xeon['numa_nodes'][1]['cores'][-1] == {'core_id': 31, 'socket': 1, 'cpus': [63, 127]}


def test_xeon_memory_hugepages_distances(xeon):
    node0, node1 = xeon['numa_nodes']
    assert node0['memory_total_bytes'] == 128 * GIB - 1536 * 1024 ** 2
    assert node1['memory_free_bytes'] == 101 * GIB
    assert node0['hugepages']['1Gi'] == {'page_bytes': GIB, 'total': 8, 'free': 6,
                                         'total_bytes': 8 * GIB, 'free_bytes': 6 * GIB}
    assert node0['hugepages']['2Mi']['total'] == 1024 and node0['hugepages']['2Mi']['free'] == 512
    assert xeon['distances'] == [[10, 20], [20, 10]]


def test_xeon_pci_devices(xeon):
    devices = dict((d['address'], d) for d in xeon['pci_devices'])
    assert sorted(devices) == ['0000:17:00.0', '0000:17:00.1', '0000:b1:00.0', '0000:ca:00.0']  # SMBus left out
    assert devices['0000:17:00.0']['kind'] == 'network' and devices['0000:17:00.0']['names'] == ['ens1f0']
    assert devices['0000:b1:00.0']['kind'] == 'nvme' and devices['0000:b1:00.0']['numa_node'] == 1
    assert devices['0000:ca:00.0']['kind'] == 'gpu' and devices['0000:ca:00.0']['names'] == ['card0', 'renderD128']


def test_xeon_kubelet_placement(xeon):
    kubelet = xeon['kubelet']
    assert kubelet['config']['cpuManagerPolicy'] == 'static'
    assert kubelet['config']['topologyManagerPolicy'] == 'single-numa-node'
    assert kubelet['reserved_cpus'] == '0,64'
    cpu = kubelet['cpu_manager']
    assert cpu['policy'] == 'static' and cpu['default_cpus'] == '0,8-64,72-127'
    by_name = dict((item['container'], item) for item in cpu['exclusive'])
    assert by_name['dpdk']['namespace'] == 'telco' and by_name['dpdk']['pod'] == 'dpdk-fwd-0'
    assert by_name['dpdk']['cpus'] == '1-4,65-68' and by_name['dpdk']['numa_nodes'] == [0]
    assert by_name['db']['cpu_count'] == 6
    node0, node1 = xeon['numa_nodes']
    assert node0['reserved_cpus'] == '0,64' and node0['exclusive_cpus'] == '1-7,65-71'
    assert node0['free_exclusive_cpus'] == '8-31,72-95' and node0['free_exclusive_cpu_count'] == 48
    assert node1['free_exclusive_cpu_count'] == 64
    mem = kubelet['memory_manager']
    assert mem['policy'] == 'Static'
    assert mem['machine_state'][0]['resources']['hugepages-1Gi']['reserved'] == 2 * GIB
    dpdk = next(item for item in mem['containers'] if item['container'] == 'dpdk')
    assert dpdk['pod'] == 'dpdk-fwd-0' and dpdk['numa_nodes'] == [0]
    assert dpdk['blocks'] == [{'numa_nodes': [0], 'resource': 'memory', 'bytes': 4 * GIB},
                              {'numa_nodes': [0], 'resource': 'hugepages-1Gi', 'bytes': 2 * GIB}]
    assert xeon['cgroup'] == {'version': 2, 'driver': 'systemd', 'driver_source': 'kubelet configuration (cgroupDriver)'}
    # the only thing this tree lacks: nohz_full (not every kernel has it) -- reported, not guessed
    assert xeon['nohz_full_cpus'] is None
    assert [u['path'] for u in xeon['unknown']] == ['/sys/devices/system/cpu/nohz_full']


def test_thunderx2_lscpu_numbers(tx2):
    # lscpu: aarch64, CPU(s) 56, Thread(s) per core 1, Core(s) per socket 28, Socket(s) 2, NUMA 0-27 / 28-55
    assert tx2['cpu_count'] == 56 and tx2['core_count'] == 56 and tx2['threads_per_core'] == 1
    assert [n['cpus'] for n in tx2['numa_nodes']] == ['0-27', '28-55']
    assert [s['cpus'] for s in tx2['sockets']] == ['0-27', '28-55']
    # the dump's kernel command line: isolcpus=1-27,29-55 nohz_full=1-27,29-55
    assert tx2['cmdline'] == {'isolcpus': '1-27,29-55', 'nohz_full': '1-27,29-55'}
    assert tx2['isolated_cpus'] == '1-27,29-55' and tx2['nohz_full_cpus'] == '1-27,29-55'
    assert sorted(tx2['numa_nodes'][0]['hugepages']) == ['1Gi', '2Mi', '512Mi']
    assert tx2['unknown'] == []


def test_thunderx2_v3_checkpoint_and_unknown_pod(tx2):
    cpu = tx2['kubelet']['cpu_manager']
    assert cpu['default_cpus'] == '0-1,6-29,34-55'
    gone = next(item for item in cpu['exclusive'] if item['container'] == 'old')
    assert gone['namespace'] is None and gone['pod'] is None and gone['numa_nodes'] == [1]
    worker = next(item for item in cpu['exclusive'] if item['container'] == 'worker')
    assert (worker['namespace'], worker['pod'], worker['cpus']) == ('batch', 'spark-exec-7', '2-5')
    assert tx2['numa_nodes'][0]['free_exclusive_cpus'] == '1,6-27'
    assert tx2['numa_nodes'][1]['free_exclusive_cpus'] == '29,34-55'
    nvme = next(d for d in tx2['pci_devices'] if d['kind'] == 'nvme')
    assert nvme['numa_node'] is None      # numa_node -1: no locality from the firmware
    assert tx2['cgroup']['driver'] == 'cgroupfs'   # no cgroupDriver in the file: the kubelet's default
    assert tx2['kubelet']['config']['topologyManagerPolicy'] == 'best-effort'
    assert tx2['kubelet']['config']['reservedSystemCPUs'] == '0,28'


def test_sandbox_tree_reports_what_is_missing():
    facts = numa.collect(SANDBOX)
    assert [n['cpus'] for n in facts['numa_nodes']] == ['0-7', '8-15']
    assert facts['cpu_count'] == 16
    assert all(n['memory_total_bytes'] is None and n['hugepages'] is None and n['distances'] is None
               for n in facts['numa_nodes'])
    assert facts['core_count'] == 0 and not any(n['cores_complete'] for n in facts['numa_nodes'])
    paths = [u['path'] for u in facts['unknown']]
    assert '/sys/devices/system/node/node0/meminfo' in paths
    assert '/sys/devices/system/cpu/cpu{0-15}/topology/thread_siblings_list' in paths
    assert '/sys/bus/pci/devices' in paths
    assert facts['kubelet']['cpu_manager']['policy'] == 'none'
    assert facts['numa_nodes'][0]['free_exclusive_cpus'] is None


def test_missing_and_broken_files_are_reported(tmp_path):
    root = str(tmp_path / 'tree')
    shutil.copytree(tree('thunderx2-2s'), root)
    os.remove(os.path.join(root, 'sys/devices/system/node/node1/meminfo'))
    with open(os.path.join(root, 'sys/devices/system/cpu/cpu5/topology/core_id'), 'w') as handle:
        handle.write('five\n')
    with open(os.path.join(root, 'var/lib/kubelet/cpu_manager_state'), 'w') as handle:
        handle.write('{"policyName":')
    with open(os.path.join(root, 'var/lib/kubelet/memory_manager_state'), 'w') as handle:
        handle.write('{"policyName": "Static", "machineState": {"zero": {}}}')   # a NUMA node that is no number
    facts = numa.collect(root)
    reasons = dict((u['path'], u['reason']) for u in facts['unknown'])
    assert reasons['/sys/devices/system/node/node1/meminfo'].startswith('missing')
    assert 'does not parse' in reasons['/sys/devices/system/cpu/cpu5/topology/core_id']
    assert 'CPU manager checkpoint' in reasons['/var/lib/kubelet/cpu_manager_state']
    assert facts['numa_nodes'][1]['memory_total_bytes'] is None
    assert facts['numa_nodes'][0]['cores_complete'] is False and len(facts['numa_nodes'][0]['cores']) == 27
    assert facts['kubelet']['cpu_manager'] is None
    assert 'memory manager checkpoint' in reasons['/var/lib/kubelet/memory_manager_state']
    assert facts['kubelet']['memory_manager'] is None
    assert facts['numa_nodes'][0]['free_exclusive_cpus'] is None


@pytest.mark.parametrize('text, expected', [
    ('cpuManagerPolicy: static\n', {'cpuManagerPolicy': 'static'}),
    ('reservedSystemCPUs: "0,64"  # x\n', {'reservedSystemCPUs': '0,64'}),
    ("topologyManagerPolicy: 'restricted'\n", {'topologyManagerPolicy': 'restricted'}),
    ('  cpuManagerPolicy: static\n', {}),                 # nested: not a top-level key
    ('cpuManagerPolicy:\n  nested: x\n', {'cpuManagerPolicy': ''}),
    ('other: 1\ncgroupDriver: systemd\n', {'cgroupDriver': 'systemd'}),
])
def test_parse_kubelet_scalars(text, expected):
    assert numa_kubelet.parse_kubelet_scalars(text) == expected


def test_cmdline_isolcpus_flags():
    assert numa.parse_cmdline_cpus('a isolcpus=managed_irq,domain,2-5,9 b', 'isolcpus') == '2-5,9'
    assert numa.parse_cmdline_cpus('quiet', 'nohz_full') is None


def test_huge_size_names():
    assert [numa.huge_size_name(k) for k in (64, 2048, 32768, 524288, 1048576, 16777216)] == \
        ['64Ki', '2Mi', '32Mi', '512Mi', '1Gi', '16Gi']


def test_mirror_pod_index():
    pods = [{'metadata': {'namespace': 'kube-system', 'name': 'etcd-n1', 'uid': 'u1',
                          'annotations': {'kubernetes.io/config.mirror': 'abc'}}}]
    assert numa_kubelet.pod_index(pods) == {'u1': ('kube-system', 'etcd-n1'), 'abc': ('kube-system', 'etcd-n1')}


# One meminfo parser for /proc/meminfo (the fleet's memory fit) and node<N>/meminfo (the NUMA facts). Two
# parsers used to disagree on the cases below; the kept behaviour is each case's assertion.
PROC_MEMINFO = 'MemTotal:       16384000 kB\nMemFree:         1024 kB\nHugePages_Total:       4\nHugepagesize:    2048 kB\n'
NODE_MEMINFO = 'Node 1 MemTotal:       8192000 kB\nNode 1 MemFree:  512 kB\nNode 1 HugePages_Total:     2\n'


def test_meminfo_of_proc_and_of_a_numa_node_parse_alike():
    # /proc/meminfo used to give {} here (only "Node N" lines were read)
    assert numa.parse_meminfo(PROC_MEMINFO) == {'MemTotal': 16384000 * 1024, 'MemFree': 1024 * 1024,
                                                'HugePages_Total': 4, 'Hugepagesize': 2048 * 1024}
    assert numa.parse_meminfo(NODE_MEMINFO) == {'MemTotal': 8192000 * 1024, 'MemFree': 512 * 1024,
                                                'HugePages_Total': 2}


def test_mem_total_is_memtotal_in_bytes_from_either_form():
    assert numa.mem_total(PROC_MEMINFO) == 16384000 * 1024
    # a NUMA node's file used to give None (only an unprefixed MemTotal line was read)
    assert numa.mem_total(NODE_MEMINFO) == 8192000 * 1024
    # "16kB" without the space: the /proc reader took it, the node reader did not; both forms are taken
    assert numa.mem_total('MemTotal: 16kB\n') == 16 * 1024
    assert numa.parse_meminfo('MemTotal: 16kB\n') == {'MemTotal': 16 * 1024}


def test_mem_total_refuses_what_is_not_a_kernel_memtotal():
    # a MemTotal without the kernel's kB unit is not a number of bytes: None (parse_meminfo keeps the count)
    assert numa.mem_total('MemTotal: 16384\n') is None
    assert numa.parse_meminfo('MemTotal: 16384\n') == {'MemTotal': 16384}
    assert numa.mem_total('garbage') is None
    assert numa.mem_total('') is None
    assert numa.mem_total(None) is None
    # None used to raise AttributeError in the node reader
    assert numa.parse_meminfo(None) == {}
    assert numa.mem_total('MemFree: 1 kB\n') is None


def test_memory_used_without_page_cache_per_numa_node():
    from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_fleet import SANDBOX, facts_of
    node = facts_of('xeon8358-2s')['numa_nodes'][0]
    used_kib = (node['memory_total_bytes'] - node['memory_free_bytes']) // 1024
    # the fixture's page cache is a quarter of the used memory, its reclaimable slab a twentieth
    assert node['memory_used_without_cache_bytes'] == (used_kib - used_kib // 4 - used_kib // 20) * 1024
    assert numa._used_without_cache({'MemTotal': 10, 'MemFree': 2, 'FilePages': 7, 'SReclaimable': 3}) == 0
    # a meminfo without FilePages/SReclaimable: unknown, not MemTotal - MemFree
    assert numa.collect(SANDBOX)['numa_nodes'][0]['memory_used_without_cache_bytes'] is None
