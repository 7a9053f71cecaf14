# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every container's placement from its cgroup (numa_cgroups, and numa.collect's use of it): the recorded trees of
both cgroup drivers (tests/unit/plugins/module_utils/numa_trees.py), stale checkpoint entries, and odd or hostile
cgroup content reported with its path, never guessed."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import numa, numa_cgroups
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils import numa_trees
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_trees import (
    GIB, MIB, UID_A, UID_C, UID_GONE, UID_LOG, UID_WEB, cid, tree)


def load(root):
    with open(os.path.join(root, 'pods.json')) as handle:
        return numa.collect(root, pods=json.load(handle))


def copy(tmp_path, name):
    dest = str(tmp_path / name)
    shutil.copytree(tree(name), dest, symlinks=True)
    return dest


def by_id(facts):
    return dict((item['container_id'], item) for item in facts['placement']['containers'])


def test_parse_numa_stat():
    text = 'anon N0=4096 N1=8192\nfile N0=0 N1=12288\nkernel_stack N0=16384 N1=0\n\n'
    stats = numa_cgroups.parse_numa_stat(text)
    assert stats == {'anon': {0: 4096, 1: 8192}, 'file': {0: 0, 1: 12288}, 'kernel_stack': {0: 16384, 1: 0}}
    assert numa_cgroups.numa_memory(stats) == {
        0: {'anon_bytes': 4096, 'file_bytes': 0, 'kernel_bytes': 16384},
        1: {'anon_bytes': 8192, 'file_bytes': 12288, 'kernel_bytes': 0}}


@pytest.mark.parametrize('text, message', [
    ('anon N0=4096 N1=x\n', "line 1 (anon): 'N1=x' is not N<node>=<bytes>"),
    ('anon 4096\n', "line 1 (anon): '4096' is not N<node>=<bytes>"),
    ('total=5 N0=5\n', 'line 1 is not "<key> N<node>=<bytes> ...": \'total=5 N0=5\''),   # the cgroup v1 format
    ('anon\n', 'line 1 is not "<key> N<node>=<bytes> ...": \'anon\''),
    ('anon N0=1\nfile N0=-1\n', "line 2 (file): 'N0=-1' is not N<node>=<bytes>"),
])
def test_parse_numa_stat_refuses(text, message):
    with pytest.raises(ValueError) as err:
        numa_cgroups.parse_numa_stat(text)
    assert str(err.value) == message


@pytest.mark.parametrize('driver, name, uid', [
    ('systemd', 'kubepods-burstable-pod3f2a9c1d_7b4e_4d8a_a6c5_0e1f2a3b4c05.slice', UID_WEB),
    ('systemd', 'kubepods-pod3f2a9c1d_7b4e_4d8a_a6c5_0e1f2a3b4c05.slice', UID_WEB),
    ('systemd', 'kubepods-besteffort.slice', None),
    ('systemd', 'kubepods-pod..slice', None),
    ('cgroupfs', 'pod' + UID_WEB, UID_WEB),
    ('cgroupfs', 'pod0123456789abcdef0123456789abcdef', '0123456789abcdef0123456789abcdef'),   # static pod hash
    ('cgroupfs', 'burstable', None),
    ('cgroupfs', 'pod../../etc', None),
])
def test_pod_dirs(driver, name, uid):
    assert numa_cgroups.pod_uid_of_dir(driver, name) == uid


@pytest.mark.parametrize('driver, name, found', [
    ('systemd', 'cri-containerd-%s.scope' % ('a' * 64), ('containerd', 'a' * 64)),
    ('systemd', 'crio-%s.scope' % ('b' * 64), ('crio', 'b' * 64)),
    ('systemd', 'crio-conmon-%s.scope' % ('b' * 64), None),
    ('systemd', 'docker-%s.scope' % ('c' * 64), ('docker', 'c' * 64)),
    ('cgroupfs', 'd' * 64, (None, 'd' * 64)),      # containerd's or docker's: the name does not say
    ('cgroupfs', 'crio-' + 'e' * 64, ('crio', 'e' * 64)),
    ('cgroupfs', 'cri-containerd-%s.scope' % ('a' * 64), None),
    ('cgroupfs', 'A' * 64, None),
])
def test_container_dirs(driver, name, found):
    assert numa_cgroups.container_of_dir(driver, name) == found


def test_systemd_tree_every_qos_class():
    facts = load(tree('xeon8358-2s'))
    placement = facts['placement']
    assert placement['driver'] == 'systemd' and placement['kubepods'] == '/sys/fs/cgroup/kubepods.slice'
    named = dict(((c['namespace'], c['pod'], c['container']), c) for c in placement['containers'] if c['container'])
    assert sorted(named) == [('batch', 'logger-0', 'log'), ('data', 'postgres-0', 'db'),
                             ('telco', 'dpdk-fwd-0', 'dpdk'), ('web', 'nginx-7d9c', 'nginx')]
    dpdk = named[('telco', 'dpdk-fwd-0', 'dpdk')]
    assert (dpdk['qos'], dpdk['cpus'], dpdk['cpu_count'], dpdk['mems'], dpdk['exclusive']) == \
        ('Guaranteed', '1-4,65-68', 8, '0', True)
    assert dpdk['numa'][0] == {'numa_node': 0, 'cpus': '1-4,65-68', 'cpu_count': 8, 'anon_bytes': 3 * GIB,
                               'file_bytes': 8 * MIB, 'kernel_bytes': 64 * 1024 + 4096}
    assert dpdk['cgroup'] == ('/sys/fs/cgroup/kubepods.slice/kubepods-pod6c4b8a42_1d7e_4f0a_9a55_2f1e9d3c7b01.slice/'
                              'cri-containerd-%s.scope' % cid('dpdk'))
    nginx = named[('web', 'nginx-7d9c', 'nginx')]
    assert (nginx['qos'], nginx['cpus'], nginx['cpu_numa_nodes'], nginx['exclusive']) == \
        ('Burstable', '0,8-64,72-127', [0, 1], False)
    assert [(n['numa_node'], n['cpu_count'], n['anon_bytes'], n['file_bytes']) for n in nginx['numa']] == \
        [(0, 50, 300 * MIB, 20 * MIB), (1, 64, 200 * MIB, 500 * MIB)]
    log = named[('batch', 'logger-0', 'log')]
    assert log['qos'] == 'BestEffort' and log['numa'][1]['file_bytes'] == 2 * GIB
    # the sandboxes (pause) have a cgroup but no container status: no name
    assert sorted(c['container_id'] for c in placement['containers'] if not c['container']) == \
        sorted([cid('pause-a'), cid('pause-b'), cid('pause-w')])
    assert [e['stale'] for e in facts['kubelet']['cpu_manager']['exclusive']] == [False, False]


def test_cgroupfs_tree_and_stale_entry():
    facts = load(tree('thunderx2-2s'))
    placement = facts['placement']
    assert placement['driver'] == 'cgroupfs' and placement['kubepods'] == '/sys/fs/cgroup/kubepods'
    assert placement['pod_uids'] == sorted([UID_C, UID_LOG])
    items = by_id(facts)
    assert items[cid('worker')]['pod'] == 'spark-exec-7' and items[cid('worker')]['cgroup'] == \
        '/sys/fs/cgroup/kubepods/pod%s/%s' % (UID_C, cid('worker'))
    log = items[cid('log')]      # a pod not among the pods given: placement known, names not
    assert (log['qos'], log['pod'], log['container'], log['cpus']) == ('BestEffort', None, None, '0-1,6-29,34-55')
    exclusive = dict((e['pod_uid'], e) for e in facts['kubelet']['cpu_manager']['exclusive'])
    assert exclusive[UID_GONE]['stale'] is True and exclusive[UID_C]['stale'] is False
    # the stale entry's CPUs 30-33 are not counted as exclusive on NUMA node 1
    assert facts['numa_nodes'][1]['exclusive_cpus'] == ''
    assert facts['kubelet']['memory_manager']['containers'][0]['stale'] is False


def test_no_kubepods_cgroup_and_no_pods_means_unknown_not_stale(tmp_path):
    root = copy(tmp_path, 'thunderx2-2s')
    shutil.rmtree(os.path.join(root, 'sys/fs/cgroup/kubepods'))
    facts = numa.collect(root)
    assert facts['placement'] is None
    assert {'path': '/sys/fs/cgroup/kubepods', 'reason': 'missing: no kubepods cgroup of the cgroupfs driver, so the '
            'placement of containers is unknown (no kubelet, another cgroup driver or cgroupRoot)'} in facts['unknown']
    assert [e['stale'] for e in facts['kubelet']['cpu_manager']['exclusive']] == [None, None]
    assert facts['numa_nodes'][1]['exclusive_cpus'] == '30-33'


def test_no_kubepods_cgroup_stale_from_the_pods_given(tmp_path):
    # without cgroups, a checkpoint entry whose pod is not among the node's pods (deleted) or has finished is stale
    root = copy(tmp_path, 'thunderx2-2s')
    shutil.rmtree(os.path.join(root, 'sys/fs/cgroup/kubepods'))
    facts = load(root)
    assert [e['stale'] for e in facts['kubelet']['cpu_manager']['exclusive']] == [True, False]
    assert facts['numa_nodes'][1]['exclusive_cpus'] == ''
    with open(os.path.join(root, 'pods.json')) as handle:
        pods = json.load(handle)
    live_uid = facts['kubelet']['cpu_manager']['exclusive'][1]['pod_uid']
    for pod in pods:
        if pod['metadata']['uid'] == live_uid:
            pod.setdefault('status', {})['phase'] = 'Succeeded'
    facts = numa.collect(root, pods=pods)
    assert [e['stale'] for e in facts['kubelet']['cpu_manager']['exclusive']] == [True, True]


def test_cgroup_v1_not_read(tmp_path):
    root = copy(tmp_path, 'thunderx2-2s')
    shutil.rmtree(os.path.join(root, 'sys/fs/cgroup'))
    os.makedirs(os.path.join(root, 'sys/fs/cgroup/cpuset/kubepods'))
    facts = load(root)
    assert facts['placement'] is None and facts['cgroup']['version'] == 1
    assert {'path': '/sys/fs/cgroup', 'reason': 'not cgroup v2: the placement of containers is read from cgroup v2 '
            'only'} in facts['unknown']


def test_cgroup_root_of_the_kubelet(tmp_path):
    root = copy(tmp_path, 'thunderx2-2s')
    cgroups = os.path.join(root, 'sys/fs/cgroup')
    os.makedirs(os.path.join(cgroups, 'k8s'))
    os.rename(os.path.join(cgroups, 'kubepods'), os.path.join(cgroups, 'k8s', 'kubepods'))
    with open(os.path.join(root, 'var/lib/kubelet/config.yaml'), 'a') as handle:
        handle.write('cgroupRoot: /k8s\n')
    facts = load(root)
    assert facts['placement']['kubepods'] == '/sys/fs/cgroup/k8s/kubepods'
    assert len(facts['placement']['containers']) == 2


def test_hostile_cgroup_content(tmp_path):
    root = copy(tmp_path, 'thunderx2-2s')
    pod = os.path.join(root, 'sys/fs/cgroup/kubepods/pod' + UID_C, cid('worker'))
    log = os.path.join(root, 'sys/fs/cgroup/kubepods/besteffort/pod' + UID_LOG, cid('log'))
    with open(os.path.join(pod, 'memory.numa_stat'), 'w') as handle:
        handle.write('anon N0=12 N1=lots\n')
    os.remove(os.path.join(pod, 'cpuset.mems.effective'))
    with open(os.path.join(log, 'memory.numa_stat'), 'w') as handle:
        handle.write('anon N0=1 N1=2\n' * 80000)       # 1.2 MiB
    with open(os.path.join(log, 'cpuset.cpus.effective'), 'wb') as handle:
        handle.write(b'0-1\xff\n')
    os.remove(os.path.join(log, 'cpuset.mems.effective'))
    os.symlink('/etc/hostname', os.path.join(log, 'cpuset.mems.effective'))
    web = os.path.join(root, 'sys/fs/cgroup/kubepods/burstable/pod' + UID_A, cid('web'))
    os.makedirs(web)
    with open(os.path.join(web, 'cpuset.cpus.effective'), 'w') as handle:
        handle.write('0-1\n')
    with open(os.path.join(web, 'cpuset.mems.effective'), 'w') as handle:
        handle.write('0\n')
    with open(os.path.join(web, 'memory.numa_stat'), 'w') as handle:
        handle.write('anon N0=1 N1=2 N999999=3\n')      # a node the machine does not have
    # directories that are neither pods nor containers, and a link to a directory elsewhere, are left out
    os.makedirs(os.path.join(root, 'sys/fs/cgroup/kubepods/besteffort/not-a-pod'))
    os.symlink('/etc', os.path.join(root, 'sys/fs/cgroup/kubepods/besteffort/pod' + UID_WEB))
    facts = load(root)
    reasons = dict((u['path'], u['reason']) for u in facts['unknown'])
    base = '/sys/fs/cgroup/kubepods/pod%s/%s/' % (UID_C, cid('worker'))
    assert reasons[base + 'memory.numa_stat'] == "does not parse: line 1 (anon): 'N1=lots' is not N<node>=<bytes>"
    assert reasons[base + 'cpuset.mems.effective'] == 'missing'
    lbase = '/sys/fs/cgroup/kubepods/besteffort/pod%s/%s/' % (UID_LOG, cid('log'))
    assert reasons[lbase + 'memory.numa_stat'].startswith('refused: more than 1 MiB')
    assert 'byte 0xff is not UTF-8' in reasons[lbase + 'cpuset.cpus.effective']
    assert reasons[lbase + 'cpuset.mems.effective'] == 'a symbolic link, not a cgroup file: not followed'
    wbase = '/sys/fs/cgroup/kubepods/burstable/pod%s/%s/' % (UID_A, cid('web'))
    assert reasons[wbase + 'memory.numa_stat'] == 'does not parse: NUMA node 999999 is not online (online: 0-1)'
    items = by_id(facts)
    assert items[cid('web')]['memory_known'] is False and [n['numa_node'] for n in items[cid('web')]['numa']] == [0]
    worker, log_item = items[cid('worker')], items[cid('log')]
    assert worker['cpus'] == '2-5' and worker['mems'] is None and worker['memory_known'] is False
    assert worker['numa'] == [{'numa_node': 0, 'cpus': '2-5', 'cpu_count': 4, 'anon_bytes': None,
                               'file_bytes': None, 'kernel_bytes': None}]
    assert log_item['cpus'] is None and log_item['numa'] == []
    assert facts['placement']['pod_uids'] == sorted([UID_A, UID_C, UID_LOG])


def test_module_returns_placement(capsys):
    from ansible_collections.numaops.colocation.plugins.modules import numa_facts
    from ansible_collections.numaops.colocation.tests.unit.plugins.modules.module_runner import run_module
    root = numa_trees.tree('xeon8358-2s')
    result = run_module(numa_facts, capsys, root=root)
    placement = result['ansible_facts']['numaops_numa']['placement']
    assert len(placement['containers']) == 7 and placement['driver'] == 'systemd'


def test_container_index_mirror_pod_and_odd_statuses():
    static_hash = '0123456789abcdef0123456789abcdef'
    pods = [
        {'metadata': {'uid': '11111111-2222-4333-8444-555555555555', 'namespace': 'kube-system', 'name': 'etcd-n1',
                      'annotations': {'kubernetes.io/config.mirror': static_hash}},
         'status': {'containerStatuses': [{'name': 'etcd', 'containerID': 'containerd://' + cid('etcd')}]}},
        {'metadata': {'uid': UID_WEB},
         'status': {'initContainerStatuses': [{'name': 'init', 'containerID': 'cri-o://' + cid('init')}],
                    'containerStatuses': [{'name': 'waiting'}, {'name': 'bad', 'containerID': 'containerd://../x'},
                                          None]}},
    ]
    # the static pod's cgroup is named after its config hash: so is its container
    assert numa_cgroups.container_index(pods) == {cid('etcd'): (static_hash, 'etcd'), cid('init'): (UID_WEB, 'init')}


def test_a_file_missing_everywhere_is_one_entry(tmp_path, monkeypatch):
    root = copy(tmp_path, 'xeon8358-2s')
    for top, _dirs, files in os.walk(os.path.join(root, 'sys/fs/cgroup/kubepods.slice')):
        if 'memory.numa_stat' in files:
            os.remove(os.path.join(top, 'memory.numa_stat'))
    monkeypatch.setattr(numa_cgroups, 'MAX_CONTAINERS', 5)
    facts = load(root)
    entries = [u for u in facts['unknown'] if 'numa_stat' in u['path'] or 'container cgroups' in u['reason']]
    assert [u['path'] for u in entries] == ['/sys/fs/cgroup/kubepods.slice',
                                            '/sys/fs/cgroup/kubepods.slice/.../memory.numa_stat']
    assert entries[0]['reason'] == 'more than 5 container cgroups: the rest are not read'
    assert entries[1]['reason'].startswith('missing in 5 container cgroups (the first: /sys/fs/cgroup/kubepods.slice/')
    assert len(facts['placement']['containers']) == 5
    assert not any(c['memory_known'] for c in facts['placement']['containers'])


@pytest.mark.parametrize('driver', ['systemd', 'cgroupfs'])
@pytest.mark.parametrize('qos', ['Guaranteed', 'Burstable', 'BestEffort'])
@pytest.mark.parametrize('runtime', ['containerd', 'cri-o', 'docker'])
def test_reads_back_the_paths_cgroup_py_names(driver, qos, runtime):
    from ansible_collections.numaops.colocation.plugins.module_utils import cgroup as cg
    path = cg.container_path(driver, qos, UID_WEB, '%s://%s' % (runtime, 'f' * 64))
    pod_dir, container_dir = path.split('/')[-2:]
    assert numa_cgroups.pod_uid_of_dir(driver, pod_dir) == UID_WEB
    # cgroupfs names containerd's and docker's containers alike: the bare ID
    named = None if driver == 'cgroupfs' and runtime != 'cri-o' else cg.RUNTIMES[runtime]
    assert numa_cgroups.container_of_dir(driver, container_dir) == (named, 'f' * 64)
    assert path.rsplit('/', 2)[0] == cg.qos_path(driver, qos)
