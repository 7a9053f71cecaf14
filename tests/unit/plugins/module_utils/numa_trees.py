# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The sysfs trees the numa_facts tests read, written from the numbers of cited public dumps (where each number
comes from, and what is constructed: tests/unit/plugins/fixtures/numa/README.md).

The trees are built at test time (``trees()``), not committed: sysfs names PCI devices by their address
(``0000:17:00.0``), and a collection may not hold file names with ``:``.

    python3 tests/unit/plugins/module_utils/numa_trees.py DIR     # write the trees into DIR to look at them
"""
from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import sys
import tempfile

GIB = 1024 ** 3
_BUILT = {}


def cpulist(cpus):
    cpus = sorted(cpus)
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else '%d-%d' % (cpus[i], cpus[j]))
        i = j + 1
    return ','.join(out)


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as handle:
        handle.write(text)


def build(dest, name, spec):
    root = os.path.join(dest, name)
    shutil.rmtree(root, ignore_errors=True)
    nodes = spec['nodes']
    all_cpus = sorted(c for n in nodes for c in n['cpus'])
    write(root, 'sys/devices/system/cpu/online', cpulist(all_cpus) + '\n')
    write(root, 'sys/devices/system/cpu/possible', cpulist(all_cpus) + '\n')
    write(root, 'sys/devices/system/cpu/isolated', spec.get('isolated', '') + '\n')
    if 'nohz_full' in spec:
        write(root, 'sys/devices/system/cpu/nohz_full', spec['nohz_full'] + '\n')
    for cpu, (socket, core, siblings) in spec['topology'].items():
        base = 'sys/devices/system/cpu/cpu%d/topology/' % cpu
        write(root, base + 'physical_package_id', '%d\n' % socket)
        write(root, base + 'core_id', '%d\n' % core)
        write(root, base + 'thread_siblings_list', cpulist(siblings) + '\n')
        write(root, base + 'core_cpus_list', cpulist(siblings) + '\n')
    write(root, 'sys/devices/system/node/online', cpulist(range(len(nodes))) + '\n')
    write(root, 'sys/devices/system/node/possible', cpulist(range(len(nodes))) + '\n')
    for index, node in enumerate(nodes):
        base = 'sys/devices/system/node/node%d/' % index
        write(root, base + 'cpulist', cpulist(node['cpus']) + '\n')
        write(root, base + 'distance', ' '.join(str(d) for d in spec['distances'][index]) + '\n')
        total_kb, free_kb = node['mem_total'] // 1024, node['mem_free'] // 1024
        # constructed: a quarter of the used memory is page cache, a twentieth reclaimable slab
        write(root, base + 'meminfo', ''.join(
            'Node %d %-15s %8d kB\n' % (index, key + ':', value) for key, value in
            (('MemTotal', total_kb), ('MemFree', free_kb), ('MemUsed', total_kb - free_kb),
             ('FilePages', (total_kb - free_kb) // 4), ('SReclaimable', (total_kb - free_kb) // 20))))
        for size_kb, (total, free) in sorted(node['huge'].items()):
            hbase = base + 'hugepages/hugepages-%dkB/' % size_kb
            write(root, hbase + 'nr_hugepages', '%d\n' % total)
            write(root, hbase + 'free_hugepages', '%d\n' % free)
            write(root, hbase + 'surplus_hugepages', '0\n')
    for dev in spec['pci']:
        base = 'sys/bus/pci/devices/%s/' % dev['address']
        write(root, base + 'class', dev['class'] + '\n')
        write(root, base + 'vendor', dev['vendor'] + '\n')
        write(root, base + 'device', dev['device'] + '\n')
        write(root, base + 'numa_node', '%d\n' % dev['numa_node'])
        for child, names in dev.get('children', {}).items():
            for child_name in names:
                write(root, base + '%s/%s/uevent' % (child, child_name), 'DEVNAME=%s\n' % child_name)
    write(root, 'sys/fs/cgroup/cgroup.controllers', 'cpuset cpu io memory hugetlb pids rdma misc\n')
    if 'cgroups' in spec:
        build_cgroups(root, spec['cgroups'])
    write(root, 'proc/cmdline', spec['cmdline'] + '\n')
    write(root, 'var/lib/kubelet/config.yaml', spec['kubelet_config'])
    write(root, 'var/lib/kubelet/cpu_manager_state', spec['cpu_state'])
    write(root, 'var/lib/kubelet/memory_manager_state', spec['memory_state'])
    write(root, 'pods.json', json.dumps(spec['pods'], indent=1, sort_keys=True) + '\n')


def pod(namespace, name, uid, containers, mirror=None, ids=None, labels=None, annotations=None, qos=None):
    """An API pod object; ``ids`` {container name: 64-hex ID} gives its status.containerStatuses, ``qos`` its
    status.qosClass; ``labels`` and ``annotations`` its own."""
    meta = {'namespace': namespace, 'name': name, 'uid': uid}
    if mirror or annotations:
        meta['annotations'] = dict(annotations or {}, **({'kubernetes.io/config.mirror': mirror} if mirror else {}))
    if labels:
        meta['labels'] = dict(labels)
    obj = {'metadata': meta, 'spec': {'containers': [{'name': c} for c in containers]}}
    if ids:
        obj['status'] = {'containerStatuses': [{'name': c, 'containerID': 'containerd://' + ids[c]}
                                               for c in containers]}
    if qos:
        obj.setdefault('status', {})['qosClass'] = qos
    return obj


def cid(tag):
    """A 64-hex container ID made from a short tag (the form containerd gives: its SHA-256)."""
    return hashlib.sha256(tag.encode()).hexdigest()


# memory.numa_stat keys of a Linux 6.1 cgroup v2 (bytes; the workingset_* counters are events)
NUMA_STAT_KEYS = ('anon', 'file', 'kernel_stack', 'pagetables', 'sec_pagetables', 'shmem', 'file_mapped',
                  'file_dirty', 'file_writeback', 'swapcached', 'anon_thp', 'file_thp', 'shmem_thp',
                  'inactive_anon', 'active_anon', 'inactive_file', 'active_file', 'unevictable',
                  'slab_reclaimable', 'slab_unreclaimable', 'workingset_refault_anon', 'workingset_refault_file',
                  'workingset_activate_anon', 'workingset_activate_file', 'workingset_restore_anon',
                  'workingset_restore_file', 'workingset_nodereclaim')


def numa_stat(per_node):
    """memory.numa_stat text from [(anon, file, kernel_stack), ...] per NUMA node (other keys 0, slab 4 KiB)."""
    lines = []
    for key in NUMA_STAT_KEYS:
        values = []
        for node, (anon, file_, stack) in enumerate(per_node):
            value = {'anon': anon, 'file': file_, 'kernel_stack': stack, 'active_anon': anon, 'inactive_file': file_,
                     'slab_unreclaimable': 4096 if anon else 0}.get(key, 0)
            values.append('N%d=%d' % (node, value))
        lines.append('%s %s' % (key, ' '.join(values)))
    return '\n'.join(lines) + '\n'


QOS_DIRS = {
    'systemd': {'Guaranteed': 'kubepods.slice', 'Burstable': 'kubepods.slice/kubepods-burstable.slice',
                'BestEffort': 'kubepods.slice/kubepods-besteffort.slice'},
    'cgroupfs': {'Guaranteed': 'kubepods', 'Burstable': 'kubepods/burstable', 'BestEffort': 'kubepods/besteffort'},
}


def build_cgroups(root, spec):
    """The kubepods cgroup tree as the kubelet and containerd lay it out for ``spec['driver']``: per pod its
    QoS, UID and containers (name, ID, cpuset.cpus.effective, cpuset.mems.effective, memory.numa_stat)."""
    driver = spec['driver']
    base = 'sys/fs/cgroup/'
    for qos_dir in QOS_DIRS[driver].values():
        write(root, base + qos_dir + '/cgroup.controllers', 'cpuset cpu io memory hugetlb pids\n')
    for item in spec['pods']:
        qos_dir = QOS_DIRS[driver][item['qos']]
        if driver == 'systemd':
            prefix = qos_dir.split('/')[-1][:-len('.slice')]
            pod_dir = '%s/%s-pod%s.slice' % (qos_dir, prefix, item['uid'].replace('-', '_'))
        else:
            pod_dir = '%s/pod%s' % (qos_dir, item['uid'])
        write(root, base + pod_dir + '/cgroup.controllers', 'cpuset cpu io memory hugetlb pids\n')
        for name, ident, cpus, mems, memory in item['containers']:
            cont = ('cri-containerd-%s.scope' % ident) if driver == 'systemd' else ident
            write(root, base + '%s/%s/cpuset.cpus.effective' % (pod_dir, cont), cpus + '\n')
            write(root, base + '%s/%s/cpuset.mems.effective' % (pod_dir, cont), mems + '\n')
            write(root, base + '%s/%s/memory.numa_stat' % (pod_dir, cont), numa_stat(memory))


UID_A = '6c4b8a42-1d7e-4f0a-9a55-2f1e9d3c7b01'
UID_B = '9e0f3b7d-58a2-4c61-8d2e-71b6a4c5f302'
UID_C = 'a1d2c3b4-0e9f-4a8b-b7c6-d5e4f3a2b103'
UID_GONE = '00000000-0000-4000-8000-00000000dead'
UID_WEB = '3f2a9c1d-7b4e-4d8a-a6c5-0e1f2a3b4c05'
UID_LOG = '5d6e7f80-91a2-4b3c-8d4e-5f6a7b8c9d06'
MIB = 1024 ** 2


def xeon_8358():
    # FDio/csit docs/content/infrastructure/testbed_configuration/sm_icx_hw_bios_cfg.md: 2 x Xeon Platinum
    # 8358, 32 cores per socket, 2 threads per core, NUMA node0 CPU(s) 0-31,64-95, node1 32-63,96-127.
    topology = {}
    for socket in range(2):
        for core in range(32):
            first = socket * 32 + core
            topology[first] = (socket, core, [first, first + 64])
            topology[first + 64] = (socket, core, [first, first + 64])
    nodes = [
        {'cpus': list(range(0, 32)) + list(range(64, 96)), 'mem_total': 128 * GIB - 1536 * 1024 ** 2,
         'mem_free': 97 * GIB, 'huge': {2048: (1024, 512), 1048576: (8, 6)}},
        {'cpus': list(range(32, 64)) + list(range(96, 128)), 'mem_total': 128 * GIB,
         'mem_free': 101 * GIB, 'huge': {2048: (1024, 1024), 1048576: (8, 8)}},
    ]
    cpu_state = {'policyName': 'static', 'defaultCpuSet': '0,8-63,65,72-127',
                 'entries': {UID_A: {'dpdk': '1-4,65-68'}, UID_B: {'db': '5-7,69-71'}},
                 'checksum': 0}
    # cpu 65-68 are the siblings of 1-4: whole cores, as full-pcpus-only gives them
    cpu_state['defaultCpuSet'] = '0,8-63,64,72-127'
    memory_state = {
        'policyName': 'Static',
        'machineState': {
            '0': {'numberOfAssignments': 2, 'cells': [0], 'memoryMap': {
                'memory': {'total': 128 * GIB - 1536 * 1024 ** 2, 'systemReserved': 1100 * 1024 ** 2,
                           'allocatable': 128 * GIB - 2636 * 1024 ** 2, 'reserved': 12 * GIB,
                           'free': 116 * GIB - 2636 * 1024 ** 2},
                'hugepages-1Gi': {'total': 8 * GIB, 'systemReserved': 0, 'allocatable': 8 * GIB,
                                  'reserved': 2 * GIB, 'free': 6 * GIB}}},
            '1': {'numberOfAssignments': 0, 'cells': [1], 'memoryMap': {
                'memory': {'total': 128 * GIB, 'systemReserved': 0, 'allocatable': 128 * GIB, 'reserved': 0,
                           'free': 128 * GIB}}}},
        'entries': {UID_A: {'dpdk': [{'numaAffinity': [0], 'type': 'memory', 'size': 4 * GIB},
                                     {'numaAffinity': [0], 'type': 'hugepages-1Gi', 'size': 2 * GIB}]},
                    UID_B: {'db': [{'numaAffinity': [0], 'type': 'memory', 'size': 8 * GIB}]}},
        'checksum': 0}
    return {
        'nodes': nodes, 'topology': topology, 'distances': [[10, 20], [20, 10]],
        'isolated': '', 'cmdline': 'BOOT_IMAGE=/boot/vmlinuz-5.15.0-46-generic root=/dev/sda2 ro '
                                   'default_hugepagesz=2M hugepagesz=1G hugepages=16 quiet',
        'pci': [
            {'address': '0000:17:00.0', 'class': '0x020000', 'vendor': '0x8086', 'device': '0x1592', 'numa_node': 0,
             'children': {'net': ['ens1f0']}},
            {'address': '0000:17:00.1', 'class': '0x020000', 'vendor': '0x8086', 'device': '0x1592', 'numa_node': 0,
             'children': {'net': ['ens1f1']}},
            {'address': '0000:b1:00.0', 'class': '0x010802', 'vendor': '0x144d', 'device': '0xa80a', 'numa_node': 1,
             'children': {'nvme': ['nvme0']}},
            {'address': '0000:ca:00.0', 'class': '0x030200', 'vendor': '0x10de', 'device': '0x20b5', 'numa_node': 1,
             'children': {'drm': ['card0', 'renderD128']}},
            {'address': '0000:00:1f.4', 'class': '0x0c0500', 'vendor': '0x8086', 'device': '0x1bc9', 'numa_node': 0},
        ],
        'kubelet_config': ('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'
                           'cgroupDriver: systemd\ncpuManagerPolicy: static\ncpuManagerPolicyOptions:\n'
                           '  full-pcpus-only: "true"\nmemoryManagerPolicy: Static\n'
                           'topologyManagerPolicy: single-numa-node\nreservedSystemCPUs: "0,64"\n'
                           'kubeReserved:\n  memory: 500Mi\nsystemReserved:\n  memory: 500Mi\n'
                           'evictionHard:\n  memory.available: 100Mi\n'
                           'reservedMemory:\n- numaNode: 0\n  limits:\n    memory: 1100Mi\n'),
        'cpu_state': json.dumps(cpu_state, separators=(',', ':')),
        'memory_state': json.dumps(memory_state, separators=(',', ':')),
        'pods': [pod('telco', 'dpdk-fwd-0', UID_A, ['dpdk'], ids={'dpdk': cid('dpdk')}),
                 # no koordinator.sh/qosClass label: Koordinator's class of a Guaranteed pod (LSR)
                 pod('data', 'postgres-0', UID_B, ['db'], ids={'db': cid('db')}, qos='Guaranteed'),
                 # Koordinator's label and Volcano's annotation
                 pod('web', 'nginx-7d9c', UID_WEB, ['nginx'], ids={'nginx': cid('nginx')}, qos='Burstable',
                     labels={'koordinator.sh/qosClass': 'LS'}, annotations={'volcano.sh/qos-level': 'LS'}),
                 pod('batch', 'logger-0', UID_LOG, ['log'], ids={'log': cid('log')})],
        # systemd driver (kubelet cgroupDriver: systemd), containerd; every pod with its sandbox (pause)
        'cgroups': {'driver': 'systemd', 'pods': [
            {'qos': 'Guaranteed', 'uid': UID_A, 'containers': [
                ('pause', cid('pause-a'), '0,8-63,64,72-127', '0-1', [(40 * 1024, 0, 0), (0, 0, 0)]),
                ('dpdk', cid('dpdk'), '1-4,65-68', '0', [(3 * GIB, 8 * MIB, 64 * 1024), (0, 0, 0)])]},
            {'qos': 'Guaranteed', 'uid': UID_B, 'containers': [
                ('pause', cid('pause-b'), '0,8-63,64,72-127', '0-1', [(40 * 1024, 0, 0), (0, 0, 0)]),
                ('db', cid('db'), '5-7,69-71', '0', [(6 * GIB, 1 * GIB, 128 * 1024), (0, 0, 0)])]},
            {'qos': 'Burstable', 'uid': UID_WEB, 'containers': [
                ('pause', cid('pause-w'), '0,8-63,64,72-127', '0-1', [(40 * 1024, 0, 0), (0, 0, 0)]),
                ('nginx', cid('nginx'), '0,8-63,64,72-127', '0-1',
                 [(300 * MIB, 20 * MIB, 32 * 1024), (200 * MIB, 500 * MIB, 16 * 1024)])]},
            {'qos': 'BestEffort', 'uid': UID_LOG, 'containers': [
                ('log', cid('log'), '0,8-63,64,72-127', '0-1', [(0, 0, 0), (50 * MIB, 2 * GIB, 8 * 1024)])]},
        ]},
    }


def thunderx2():
    # FDio/csit docs/content/infrastructure/testbed_configuration/gigabyte_tx2_hw_bios_cfg.md: 2 x ThunderX2
    # 99xx (CN9975), 28 cores per socket, 1 thread per core, NUMA node0 CPU(s) 0-27, node1 28-55, and the
    # kernel command line isolcpus=1-27,29-55 nohz_full=1-27,29-55 rcu_nocbs=1-27,29-55.
    topology = {}
    for cpu in range(56):
        topology[cpu] = (cpu // 28, cpu % 28, [cpu])
    nodes = [
        {'cpus': list(range(0, 28)), 'mem_total': 64 * GIB - 700 * 1024 ** 2, 'mem_free': 51 * GIB,
         'huge': {2048: (0, 0), 524288: (0, 0), 1048576: (4, 3)}},
        {'cpus': list(range(28, 56)), 'mem_total': 64 * GIB, 'mem_free': 60 * GIB,
         'huge': {2048: (0, 0), 524288: (0, 0), 1048576: (4, 4)}},
    ]
    data = {'policyName': 'static', 'defaultCpuSet': '0-1,6-29,34-55',
            'entries': {UID_C: {'worker': '2-5'}, UID_GONE: {'old': '30-33'}}}
    cpu_state = {'policyName': 'static', 'defaultCpuSet': '0-1,6-29,34-55', 'entries': data['entries'],
                 'checksum': 0, 'data': json.dumps(data, separators=(',', ':')), 'dataChecksum': 0}
    mem_data = {'policyName': 'Static', 'machineState': {
        '0': {'numberOfAssignments': 1, 'cells': [0], 'memoryMap': {
            'memory': {'total': 64 * GIB - 700 * 1024 ** 2, 'systemReserved': 1 * GIB,
                       'allocatable': 63 * GIB - 700 * 1024 ** 2, 'reserved': 2 * GIB,
                       'free': 61 * GIB - 700 * 1024 ** 2}}},
        '1': {'numberOfAssignments': 0, 'cells': [1], 'memoryMap': {
            'memory': {'total': 64 * GIB, 'systemReserved': 0, 'allocatable': 64 * GIB, 'reserved': 0,
                       'free': 64 * GIB}}}},
        'entries': {UID_C: {'worker': [{'numaAffinity': [0], 'type': 'memory', 'size': 2 * GIB}]}}}
    memory_state = dict(mem_data, checksum=0, data=json.dumps(mem_data, separators=(',', ':')), dataChecksum=0)
    return {
        'nodes': nodes, 'topology': topology, 'distances': [[10, 20], [20, 10]],
        'isolated': '1-27,29-55', 'nohz_full': '1-27,29-55',
        'cmdline': ('BOOT_IMAGE=/boot/vmlinuz-5.4.0-65-generic root=UUID=7d1d0e77-4df0-43df-9619-a99db29ffb83 ro '
                    'audit=0 intel_iommu=on isolcpus=1-27,29-55 nmi_watchdog=0 nohz_full=1-27,29-55 '
                    'nosoftlockup processor.max_cstate=1 rcu_nocbs=1-27,29-55 console=ttyAMA0,115200n8 quiet'),
        'pci': [
            {'address': '0000:05:00.0', 'class': '0x020000', 'vendor': '0x8086', 'device': '0x1583', 'numa_node': 0,
             'children': {'net': ['enp5s0f0']}},
            {'address': '0000:91:00.0', 'class': '0x020000', 'vendor': '0x15b3', 'device': '0x1017', 'numa_node': 1,
             'children': {'net': ['enp145s0f0']}},
            {'address': '0000:0b:00.0', 'class': '0x010802', 'vendor': '0x8086', 'device': '0x0a54',
             'numa_node': -1, 'children': {'nvme': ['nvme0']}},
        ],
        'kubelet_config': ('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'
                           'cpuManagerPolicy: static\nmemoryManagerPolicy: Static\n'
                           "topologyManagerPolicy: 'best-effort'\nreservedSystemCPUs: 0,28  # housekeeping\n"
                           'systemReserved:\n  memory: 1Gi\nkubeReserved: {memory: 924Mi}\n'),
        'cpu_state': json.dumps(cpu_state, separators=(',', ':')),
        'memory_state': json.dumps(memory_state, separators=(',', ':')),
        'pods': [pod('batch', 'spark-exec-7', UID_C, ['worker'], ids={'worker': cid('worker')})],
        # cgroupfs driver (no cgroupDriver in the configuration: the kubelet's default); the pod ...dead of
        # cpu_manager_state has no cgroup: its entry is stale
        'cgroups': {'driver': 'cgroupfs', 'pods': [
            {'qos': 'Guaranteed', 'uid': UID_C, 'containers': [
                ('worker', cid('worker'), '2-5', '0', [(1536 * MIB, 100 * MIB, 48 * 1024), (0, 0, 0)])]},
            {'qos': 'BestEffort', 'uid': UID_LOG, 'containers': [
                ('log', cid('log'), '0-1,6-29,34-55', '0-1', [(10 * MIB, 0, 8 * 1024), (30 * MIB, 64 * MIB, 0)])]},
        ]},
    }


def synthetic_8numa():
    # Constructed, not from a dump: the shape of a 2-socket part with 4 NUMA nodes per socket (NPS4), 12 cores
    # per NUMA node, 2 threads per core (192 CPUs); used to check that the report stays readable with 8 nodes.
    topology, nodes = {}, []
    for index in range(8):
        first = [index * 12 + k for k in range(12)]
        cpus = first + [c + 96 for c in first]
        for k, cpu in enumerate(first):
            topology[cpu] = (index // 4, (index % 4) * 12 + k, [cpu, cpu + 96])
            topology[cpu + 96] = (index // 4, (index % 4) * 12 + k, [cpu, cpu + 96])
        nodes.append({'cpus': cpus, 'mem_total': 48 * GIB, 'mem_free': (20 + index * 3) * GIB,
                      'huge': {2048: (512, 100 * index), 1048576: (4, index % 5)}})
    distances = [[10 if a == b else 12 if a // 4 == b // 4 else 32 for b in range(8)] for a in range(8)]
    entries = {}
    pods = []
    for index in range(6):
        uid = '%08d-0000-4000-8000-%012d' % (index, index)
        base = index * 12 + 2
        entries[uid] = {'app': '%d-%d,%d-%d' % (base, base + 3, base + 96, base + 99)}
        pods.append(pod('tenant-%d' % (index % 3), 'worker-%d' % index, uid, ['app']))
    taken = set()
    for spec in entries.values():
        for part in spec['app'].split(','):
            lo, hi = part.split('-')
            taken.update(range(int(lo), int(hi) + 1))
    default = [c for c in range(192) if c not in taken]
    return {
        'nodes': nodes, 'topology': topology, 'distances': distances, 'isolated': '',
        'nohz_full': '', 'cmdline': 'BOOT_IMAGE=/vmlinuz root=/dev/nvme0n1p2 ro quiet',
        'pci': [{'address': '0000:%02x:00.0' % (0x20 * i + 1), 'class': '0x020000', 'vendor': '0x15b3',
                 'device': '0x101d', 'numa_node': i, 'children': {'net': ['ens%df0' % i]}} for i in range(8)],
        'kubelet_config': ('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'
                           'cgroupDriver: systemd\ncpuManagerPolicy: static\nmemoryManagerPolicy: None\n'
                           'topologyManagerPolicy: restricted\nreservedSystemCPUs: 0-1,96-97\n'),
        'cpu_state': json.dumps({'policyName': 'static', 'defaultCpuSet': cpulist(default), 'entries': entries,
                                 'checksum': 0}, separators=(',', ':')),
        'memory_state': json.dumps({'policyName': 'None', 'machineState': {}, 'checksum': 0}),
        'pods': pods,
    }


SPECS = {'xeon8358-2s': xeon_8358, 'thunderx2-2s': thunderx2, 'synthetic-8numa': synthetic_8numa}


def build_all(dest):
    for name, spec in SPECS.items():
        build(dest, name, spec())
    return dest


def trees():
    """The directory holding every tree, built once per test process (removed at exit)."""
    if 'dir' not in _BUILT:
        dest = tempfile.mkdtemp(prefix='numaops-numa-trees.')
        atexit.register(shutil.rmtree, dest, True)
        _BUILT['dir'] = build_all(dest)
    return _BUILT['dir']


def tree(name):
    return os.path.join(trees(), name)


if __name__ == '__main__':
    build_all(sys.argv[1])
