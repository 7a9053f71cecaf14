# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""memory_qos module tests on the cgroup v2 STAND-IN tree (tests/standins/cgroup2.py).

This host has no cgroup v2 memory controller (v1/v2 hybrid), so the tree is a stand-in; the real-kernel
run happens in the VM test. The host's own /sys/fs/cgroup is used (read-only) for the hybrid refusal.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy
import json
import os

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import cgroup as cg
from ansible_collections.numaops.colocation.plugins.modules import memory_qos
from ansible_collections.numaops.colocation.tests.standins.cgroup2 import CgroupV2StandIn, build_node, hybrid_tree
from ansible_collections.numaops.colocation.tests.standins.podgen import busy_node, container, make_config, make_pod
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.module_runner import run_module

R = {'highRatio': 80, 'lowRatio': 20, 'minRatio': 10}
GI = 2 ** 30


def run(capsys, check=False, diff=False, **args):
    args.setdefault('cgroup_driver', 'auto')
    args.setdefault('kubelet_config_path', '/nonexistent/kubelet/config.yaml')
    # hermetic: no kubelet files or kubelet process of the machine running the tests
    args.setdefault('kubelet_flags_files', ['/nonexistent/kubelet/kubeadm-flags.env'])
    args.setdefault('proc_root', '/nonexistent/proc')
    return run_module(memory_qos, capsys, check_mode=check, diff=diff, **args)


@pytest.fixture
def node(tmp_path):
    """A systemd node with an offline pod (BE level, batch-memory), an online pod and a Guaranteed pod."""
    pods = [
        make_pod('offline', labels={'tier': 'offline'}, annotations={'volcano.sh/qos-level': 'BE'},
                 containers=[container('a', {'memory': '2Gi', 'kubernetes.io/batch-memory': '1Gi'},
                                       {'memory': '1Gi', 'kubernetes.io/batch-memory': '1Gi'}),
                             container('b', {'memory': '1024Mi'}, {'memory': '1000M'})]),
        make_pod('online', labels={'tier': 'online'}, runtime='cri-o',
                 containers=[container('a', {'memory': '1Gi'}, {'memory': '512Mi'})]),
        make_pod('critical', qos='Guaranteed', labels={'tier': 'online'}, runtime='docker',
                 containers=[container('a', {'memory': '1Gi'}, {'memory': '1Gi'})]),
        make_pod('other', qos='BestEffort', labels={'tier': 'none'}, containers=[container('a')]),
    ]
    configs = [make_config('offline', selector={'matchLabels': {'tier': 'offline'}}, memory_qos=R),
               make_config('online', selector={'matchLabels': {'tier': 'online'}},
                           memory_qos={'lowRatio': 50, 'minRatio': 25})]
    standin = build_node(CgroupV2StandIn(str(tmp_path / 'cg')), pods)
    return standin, pods, configs


def warnings_of(res):
    """Warning texts (ansible-core 2.19 returns structured warning summaries, older ones plain strings)."""
    return [w if isinstance(w, str) else json.dumps(w) for w in res.get('warnings', [])]


def pod_dir(pod, driver='systemd'):
    return cg.pod_path(driver, pod['status']['qosClass'], pod['metadata']['uid'])


def cont_dir(pod, index=0, driver='systemd'):
    return cg.container_path(driver, pod['status']['qosClass'], pod['metadata']['uid'],
                             pod['status']['containerStatuses'][index]['containerID'])


def test_apply_then_idempotent_and_page_aligned(capsys, node):
    standin, pods, configs = node
    files = standin.files()
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert res['changed'] is True and res['skipped'] == 0, res
    assert res['cgroup_driver'] == 'systemd' and res['cgroup_driver_source'] == 'tree'
    # the kernel would have stored exactly what was written: nothing to round, no file created
    assert standin.settle() == []
    assert standin.files() == files
    offline = pods[0]
    # batch-memory used for the BE pod: 1Gi * 80 %, page-rounded
    assert standin.read(cont_dir(offline, 0), 'memory.high') == str(GI * 80 // 100 // 4096 * 4096)
    assert standin.read(cont_dir(offline, 0), 'memory.min') == str(GI * 10 // 100 // 4096 * 4096)
    assert standin.read(cont_dir(offline, 1), 'memory.low') == str(1000 * 10 ** 6 * 20 // 100 // 4096 * 4096)
    # online: highRatio defaults to 100 -> max
    assert standin.read(cont_dir(pods[1]), 'memory.high') == 'max'
    assert standin.read(cont_dir(pods[1]), 'memory.min') == str(512 * 2 ** 20 // 4)
    # unmanaged pod untouched
    assert standin.read(cont_dir(pods[3]), 'memory.high') == 'max'
    assert [p['name'] for p in res['pods']] == ['offline', 'online', 'critical']
    # hierarchy: pod = sum of children, qos = sum of pods, kubepods = sum of everything
    a_min = int(standin.read(cont_dir(offline, 0), 'memory.min'))
    b_min = int(standin.read(cont_dir(offline, 1), 'memory.min'))
    assert standin.read(pod_dir(offline), 'memory.min') == str(a_min + b_min)
    burst = 'kubepods.slice/kubepods-burstable.slice'
    on_min = int(standin.read(cont_dir(pods[1]), 'memory.min'))
    g_min = int(standin.read(cont_dir(pods[2]), 'memory.min'))
    assert standin.read(burst, 'memory.min') == str(a_min + b_min + on_min)
    assert standin.read('kubepods.slice', 'memory.min') == str(a_min + b_min + on_min + g_min)

    again = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert again['changed'] is False and again['written'] == 0 and again['writes'] == []
    assert again['unchanged'] == res['unchanged'] + res['written']


def test_check_mode_is_a_drift_audit_and_writes_nothing(capsys, node):
    standin, pods, configs = node
    before = dict((f, open(os.path.join(standin.root, f)).read()) for f in standin.files())
    res = run(capsys, check=True, diff=True, pods=pods, configs=configs, cgroup_root=standin.root)
    after = dict((f, open(os.path.join(standin.root, f)).read()) for f in standin.files())
    assert before == after
    assert res['changed'] is True and res['written'] > 0
    c = res['pods'][0]['containers'][0]
    assert c['actual'] == {'memory.high': 'max', 'memory.low': '0', 'memory.min': '0'}
    assert c['expected']['memory.high'] == str(GI * 80 // 100 // 4096 * 4096)
    assert set(c['drift']) == {'memory.high', 'memory.low', 'memory.min'} and c['changed'] is True
    assert 'memory.min: 0' in res['diff']['before']
    # the real run does exactly what check mode announced
    real = run(capsys, diff=True, pods=pods, configs=configs, cgroup_root=standin.root)
    assert real['writes'] == res['writes'] and real['diff'] == res['diff']
    audit = run(capsys, check=True, pods=pods, configs=configs, cgroup_root=standin.root)
    assert audit['changed'] is False
    assert all(not c['drift'] for p in audit['pods'] for c in p['containers'])


def test_drift_made_by_someone_else_is_reported_and_fixed(capsys, node):
    standin, pods, configs = node
    run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    standin.write(cont_dir(pods[0], 0), 'memory.high', 123456789)   # the kernel keeps 123453440
    audit = run(capsys, check=True, pods=pods, configs=configs, cgroup_root=standin.root)
    assert audit['written'] == 1
    c = audit['pods'][0]['containers'][0]
    assert c['drift'] == ['memory.high'] and c['actual']['memory.high'] == '123453440'
    fix = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert fix['written'] == 1
    assert standin.read(cont_dir(pods[0], 0), 'memory.high') == c['expected']['memory.high']


def test_config_change_and_reset_keep_hierarchy_consistent(capsys, node):
    standin, pods, configs = node
    run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    # the offline config is deleted: annotated pods are reset, others keep theirs
    for pod in pods[:3]:
        pod['metadata'].setdefault('annotations', {})['volcano.sh/colocation-config'] = '{}'
    res = run(capsys, pods=pods, configs=configs[1:], cgroup_root=standin.root)
    offline = [p for p in res['pods'] if p['name'] == 'offline'][0]
    assert offline['reset'] is True and offline['config_name'] is None
    assert standin.read(cont_dir(pods[0], 0), 'memory.high') == 'max'
    assert standin.read(cont_dir(pods[0], 0), 'memory.min') == '0'
    assert standin.read(pod_dir(pods[0]), 'memory.min') == '0'
    # decreases come first, children before parents; then increases (memory.high to max), parents first
    down = [w for w in res['writes'] if w['new'] != 'max' and (w['old'] == 'max' or int(w['new']) < int(w['old']))]
    up = [w for w in res['writes'] if w not in down]
    assert res['writes'] == down + up
    assert [w['level'] for w in down] == sorted([w['level'] for w in down], reverse=True)
    assert {w['level'] for w in down} == {0, 1, 2, 3}
    assert [w['level'] for w in up] == sorted(w['level'] for w in up)


def test_annotations_source(capsys, node):
    standin, pods, _configs = node
    pods[0]['metadata']['annotations']['volcano.sh/colocation-config'] = '{"memoryQos":{"highRatio":50}}'
    pods[0]['metadata']['annotations']['volcano.sh/colocation-config-name'] = 'half'
    pods[1]['metadata']['annotations'] = {'volcano.sh/colocation-config': 'not json'}
    res = run(capsys, pods=pods, source='annotations', cgroup_root=standin.root)
    assert [p['name'] for p in res['pods']] == ['offline']
    assert res['pods'][0]['config_name'] == 'half'
    assert standin.read(cont_dir(pods[0], 0), 'memory.high') == str(GI // 2)
    assert standin.read(cont_dir(pods[0], 0), 'memory.low') == '0'   # omitted ratio means 0, like the agent
    assert any('team/online' in w and 'not valid JSON' in w for w in warnings_of(res))


def test_hierarchy_false_writes_only_containers(capsys, node):
    standin, pods, configs = node
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root, hierarchy=False)
    assert res['levels'] == [] and res['written'] > 0
    assert {w['level'] for w in res['writes']} == {3}
    assert standin.read('kubepods.slice', 'memory.min') == '0'
    assert standin.read(pod_dir(pods[0]), 'memory.min') == '0'


def test_vanished_container_and_pod_are_skipped(capsys, node):
    standin, pods, configs = node
    standin.remove(cont_dir(pods[0], 1))
    standin.remove(pod_dir(pods[1]))
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert not res.get('failed'), res
    by_name = dict((p['name'], p) for p in res['pods'])
    assert 'not found' in by_name['online']['skipped']
    assert 'not found' in by_name['offline']['containers'][1]['skipped']
    assert by_name['offline']['containers'][0]['changed'] is True
    assert res['skipped'] == 2
    assert standin.settle() == []


def contents(standin):
    return dict((f, open(os.path.join(standin.root, f)).read()) for f in standin.files())


@pytest.mark.parametrize('check', [False, True])
def test_memory_controller_missing_below_every_pod_fails_and_writes_nothing(capsys, tmp_path, check):
    """No container can be written: the run must not report ok/changed=False as if all were well."""
    pods = [make_pod('p', labels={'a': 'b'}), make_pod('q', labels={'a': 'b'}, runtime='cri-o')]
    standin = build_node(CgroupV2StandIn(str(tmp_path / 'cg')), pods, pod_memory=False)
    before = contents(standin)
    res = run(capsys, check=check, pods=pods, configs=[make_config('c', selector={}, memory_qos=R)],
              cgroup_root=standin.root)
    assert res['failed'] is True, res
    msg = res['msg']
    assert 'no running container to manage can be written (2 found)' in msg and 'memory controller is not enabled' in msg
    assert pod_dir(pods[0]) in msg and pod_dir(pods[1]) in msg
    # names the file to fix, what it lists now and what to write into it
    assert os.path.join(standin.root, pod_dir(pods[0]), 'cgroup.subtree_control') in msg
    assert 'which lists: cpu pids' in msg and '(and in that of 1 more cgroup)' in msg
    assert 'echo +memory >' in msg and 'Nothing was written' in msg
    assert contents(standin) == before


def test_memory_controller_missing_below_one_pod_warns_and_applies_the_others(capsys, tmp_path):
    good = make_pod('good', labels={'a': 'b'})
    bare = make_pod('bare', labels={'a': 'b'}, containers=[container('x', {'memory': '1Gi'}, {'memory': '1Gi'}),
                                                           container('y', {'memory': '1Gi'}, {'memory': '1Gi'})])
    standin = CgroupV2StandIn(str(tmp_path / 'cg'))
    build_node(standin, [bare], pod_memory=False)
    build_node(standin, [good])
    files = standin.files()
    res = run(capsys, pods=[good, bare], configs=[make_config('c', selector={}, memory_qos=R)], cgroup_root=standin.root)
    assert not res.get('failed') and res['changed'] is True, res
    assert res['skipped'] == 2
    assert standin.read(cont_dir(good), 'memory.min') != '0'
    skipped = [c['skipped'] for p in res['pods'] if p['name'] == 'bare' for c in p['containers']]
    assert all('memory controller is not enabled' in r for r in skipped) and len(skipped) == 2
    assert not any(w['cgroup'].startswith(pod_dir(bare) + '/') for w in res['writes'])
    # one warning for the pod's cgroup, naming both containers, the cgroup and the fix
    warned = [w for w in warnings_of(res) if 'memory controller is not enabled' in w]
    assert len(warned) == 1, warnings_of(res)
    assert 'container x of pod team/bare' in warned[0] and 'container y of pod team/bare' in warned[0]
    assert cont_dir(bare, 0) in warned[0] and 'below ' + pod_dir(bare) in warned[0]
    assert 'which lists: cpu pids' in warned[0] and 'echo +memory >' in warned[0]
    assert standin.files() == files and standin.settle() == []


HOSTILE_IDS = ['containerd://../../../etc', 'containerd://' + '../' * 20 + 'etc/passwd', 'containerd://' + 'a' * 64 + '\n',
               'containerd://' + 'A' * 64, 'rkt://' + 'a' * 64, 'containerd:///' + 'a' * 63, 'docker://',
               '/sys/fs/cgroup', 12345]


@pytest.mark.parametrize('cid', HOSTILE_IDS)
def test_hostile_container_id_is_skipped_with_warning_and_nothing_outside_touched(capsys, tmp_path, cid):
    two = [container('evil', {'memory': '1Gi'}, {'memory': '1Gi'}), container('fine', {'memory': '1Gi'}, {'memory': '1Gi'})]
    pods = [make_pod('p', labels={}, containers=two)]
    standin = build_node(CgroupV2StandIn(str(tmp_path / 'cg')), pods)
    # bait outside the kubepods tree, where a path made of the ID could lead
    outside = tmp_path / 'etc'
    outside.mkdir()
    for name in ('memory.high', 'memory.low', 'memory.min', 'passwd'):
        (outside / name).write_text('untouched\n')
    pods[0]['status']['containerStatuses'][0]['containerID'] = cid
    files = standin.files()
    res = run(capsys, pods=pods, configs=[make_config('c', selector={}, memory_qos=R)], cgroup_root=standin.root)
    assert not res.get('failed'), res
    evil, fine = res['pods'][0]['containers']
    assert evil['cgroup'] is None and 'allowed: containerd://, cri-o:// or docker://' in evil['skipped']
    assert fine['changed'] is True and res['skipped'] == 1
    warned = [w for w in warnings_of(res) if 'container evil' in w]
    assert len(warned) == 1 and 'pod team/p container evil skipped' in warned[0]
    assert 'allowed: containerd://, cri-o:// or docker:// followed by 64 lower-case hex digits' in warned[0]
    assert all((outside / name).read_text() == 'untouched\n' for name in os.listdir(str(outside)))
    assert sorted(os.listdir(str(outside))) == ['memory.high', 'memory.low', 'memory.min', 'passwd']
    assert standin.files() == files
    assert {w['cgroup'] for w in res['writes'] if w['level'] == 3} == {cont_dir(pods[0], 1)}


def test_running_container_without_id_and_bad_quantity_are_warned(capsys, node):
    standin, pods, configs = node
    del pods[0]['status']['containerStatuses'][1]['containerID']
    pods[1]['spec']['containers'][0]['resources']['limits']['memory'] = 'lots'
    pods[0]['status']['containerStatuses'][0]['state'] = {'waiting': {'reason': 'CrashLoopBackOff'}}
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert not res.get('failed'), res
    warned = warnings_of(res)
    no_id = [w for w in warned if 'pod team/offline container b skipped' in w]
    assert len(no_id) == 1 and 'containerID is empty' in no_id[0] and 'allowed' in no_id[0]
    bad = [w for w in warned if 'pod team/online container a skipped' in w]
    assert len(bad) == 1 and "invalid quantity 'lots'" in bad[0] and 'spec.containers[0].resources.limits[memory]' in bad[0]
    # a container that is simply not running is routine: reported in pods, not warned
    assert res['pods'][0]['containers'][0]['skipped'] == 'container is not running'
    assert not any('container a' in w and 'team/offline' in w for w in warned)
    assert len(warned) == 2 and res['skipped'] == 3


def test_cgroup_vanishing_between_planning_and_writing_is_skipped_with_warning(capsys, node, monkeypatch):
    """The container ends after the tree was read: its writes fail with ENOENT; the others are made."""
    standin, pods, configs = node
    victim = cont_dir(pods[0], 1)
    victim_abs = os.path.join(standin.root, victim)
    attempts = []
    real_write = memory_qos.write_value

    def write_value(path, text):
        if path.startswith(victim_abs + os.sep):
            attempts.append(path)
            if os.path.isdir(victim_abs):
                standin.remove(victim)  # the container ends right now
        return real_write(path, text)

    monkeypatch.setattr(memory_qos, 'write_value', write_value)
    planned = run(capsys, check=True, pods=pods, configs=configs, cgroup_root=standin.root)
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert not res.get('failed') and res['changed'] is True, res
    assert len(attempts) == 1   # the cgroup is gone: its other files are not tried
    entry = res['pods'][0]['containers'][1]
    assert 'vanished before' in entry['skipped'] and victim in entry['skipped'] and entry['changed'] is False
    assert res['skipped'] == 1
    assert not any(w['cgroup'] == victim for w in res['writes'])
    assert res['written'] == planned['written'] - 3
    warned = [w for w in warnings_of(res) if 'vanished' in w]
    assert len(warned) == 1 and victim in warned[0] and 'container b of pod team/offline skipped' in warned[0]
    # everything else was written as planned
    assert standin.read(cont_dir(pods[0], 0), 'memory.min') == res['pods'][0]['containers'][0]['expected']['memory.min']
    assert standin.read(cont_dir(pods[1]), 'memory.min') == res['pods'][1]['containers'][0]['expected']['memory.min']
    assert standin.settle() == []


def test_write_to_missing_file_fails_like_the_kernel(tmp_path):
    """The module's writer never creates a file: ENOENT, like cgroupfs."""
    with pytest.raises(OSError) as err:
        memory_qos.write_value(str(tmp_path / 'memory.min'), '0')
    assert err.value.errno == 2
    assert not (tmp_path / 'memory.min').exists()


def test_cgroupfs_driver_with_kubelet_config(capsys, tmp_path):
    pods = [make_pod('p', labels={}, runtime='cri-o'), make_pod('g', qos='Guaranteed', labels={})]
    standin = build_node(CgroupV2StandIn(str(tmp_path / 'cg')), pods, driver='cgroupfs')
    kubelet = tmp_path / 'config.yaml'
    kubelet.write_text('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: cgroupfs\n')
    res = run(capsys, pods=pods, configs=[make_config('c', selector={}, memory_qos=R)], cgroup_root=standin.root,
              kubelet_config_path=str(kubelet))
    assert res['cgroup_driver'] == 'cgroupfs' and res['cgroup_driver_source'] == 'kubelet_config'
    crio = cont_dir(pods[0], driver='cgroupfs')
    assert '/crio-' in crio and standin.read(crio, 'memory.min') == str(GI // 2 // 10 // 4096 * 4096)
    assert standin.read('kubepods', 'memory.min') != '0'


def test_driver_mismatch_fails_clearly(capsys, node):
    standin, pods, configs = node
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root, cgroup_driver='cgroupfs')
    assert res['failed'] is True and 'kubepods' in res['msg'] and 'cgroup_driver' in res['msg']


def test_kubelet_root(capsys, tmp_path):
    pods = [make_pod('p', labels={})]
    standin = CgroupV2StandIn(str(tmp_path / 'cg'))
    standin.mkdir('kubelet.slice', 'cpu memory pids')
    # build the tree below kubelet.slice by hand, as the kubelet would with --cgroup-root=/kubelet
    top = cg.kubepods_path('systemd', '/kubelet')
    standin.mkdir(top, 'cpu memory pids')
    standin.mkdir(cg.qos_path('systemd', 'Burstable', '/kubelet'), 'cpu memory pids')
    pdir = cg.pod_path('systemd', 'Burstable', pods[0]['metadata']['uid'], '/kubelet')
    standin.mkdir(pdir, 'cpu memory pids')
    cdir = cg.container_path('systemd', 'Burstable', pods[0]['metadata']['uid'],
                             pods[0]['status']['containerStatuses'][0]['containerID'], '/kubelet')
    standin.mkdir(cdir)
    res = run(capsys, pods=pods, configs=[make_config('c', selector={}, memory_qos=R)], cgroup_root=standin.root,
              kubelet_cgroup_root='/kubelet')
    assert res['written'] > 0 and standin.read(cdir, 'memory.min') != '0'
    assert standin.read(top, 'memory.min') == standin.read(cdir, 'memory.min')


def test_hybrid_stand_in_fails_naming_the_fix(capsys, tmp_path, node):
    _standin, pods, configs = node
    hybrid_tree(str(tmp_path / 'hybrid'))
    res = run(capsys, pods=pods, configs=configs, cgroup_root=str(tmp_path / 'hybrid'))
    assert res['failed'] is True
    assert 'hybrid' in res['msg'] and 'systemd.unified_cgroup_hierarchy=1' in res['msg']
    assert 'kernel_cmdline' in res['msg']


@pytest.mark.skipif(not os.path.exists('/sys/fs/cgroup/unified/cgroup.controllers'),
                    reason='needs a real cgroup v1/v2 hybrid host (like the build host)')
def test_real_hybrid_host_fails_naming_the_fix(capsys, node):
    """Real parts: this build host's own /sys/fs/cgroup (hybrid, memory on v1). Nothing is written."""
    _standin, pods, configs = node
    res = run(capsys, check=True, pods=pods, configs=configs)
    assert res['failed'] is True and 'systemd.unified_cgroup_hierarchy=1' in res['msg']


def test_v1_and_memoryless_unified(capsys, tmp_path, node):
    _standin, pods, configs = node
    v1 = tmp_path / 'v1'
    (v1 / 'memory').mkdir(parents=True)
    res = run(capsys, pods=pods, configs=configs, cgroup_root=str(v1))
    assert res['failed'] is True and 'cgroup v1' in res['msg'] and 'systemd.unified_cgroup_hierarchy=1' in res['msg']
    nomem = CgroupV2StandIn(str(tmp_path / 'nomem'), controllers='cpu io pids')
    res = run(capsys, pods=pods, configs=configs, cgroup_root=nomem.root)
    assert res['failed'] is True and 'cpu io pids' in res['msg'] and 'unified_cgroup_hierarchy' in res['msg']


@pytest.mark.parametrize('configs,field', [
    ([make_config('bad', selector={}, memory_qos={'highRatio': 150})], 'spec.memoryQos.highRatio'),
    ([make_config('bad', selector={'matchExpressions': [{'key': 'a', 'operator': 'Gt', 'values': ['1']}]})],
     'spec.selector.matchExpressions[0].operator'),
    ([{'metadata': {'name': 'x'}, 'spec': {}}], 'metadata.namespace'),
])
def test_invalid_config_fails_before_anything_is_written(capsys, node, configs, field):
    standin, pods, _configs = node
    before = dict((f, open(os.path.join(standin.root, f)).read()) for f in standin.files())
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert res['failed'] is True and field in res['msg'] and 'configs[0]' in res['msg'] and 'allowed' in res['msg']
    assert before == dict((f, open(os.path.join(standin.root, f)).read()) for f in standin.files())


def test_configs_required_for_source_configs(capsys, node):
    standin, pods, _configs = node
    res = run(capsys, pods=pods, cgroup_root=standin.root)
    assert res['failed'] is True and 'configs is required' in res['msg']


def test_pods_file_json_and_yaml(capsys, tmp_path, node):
    standin, pods, configs = node
    pj = tmp_path / 'pods.json'
    pj.write_text(json.dumps({'apiVersion': 'v1', 'kind': 'PodList', 'items': pods}))
    res = run(capsys, pods_file=str(pj), configs=configs, cgroup_root=standin.root, check=True)
    assert len(res['pods']) == 3
    yaml = pytest.importorskip('yaml')
    py = tmp_path / 'pods.yaml'
    py.write_text(yaml.safe_dump({'kind': 'PodList', 'items': pods}))
    res2 = run(capsys, pods_file=str(py), configs=configs, cgroup_root=standin.root, check=True)
    assert res2['pods'] == res['pods']


def test_pods_file_yaml_without_pyyaml(capsys, tmp_path, node, monkeypatch):
    standin, _pods, configs = node
    py = tmp_path / 'pods.yaml'
    py.write_text('kind: PodList\nitems: []\n')
    monkeypatch.setattr(memory_qos, 'HAS_YAML', False)
    res = run(capsys, pods_file=str(py), configs=configs, cgroup_root=standin.root)
    assert res['failed'] is True and 'PyYAML' in res['msg'] and str(py) in res['msg']


@pytest.mark.parametrize('content,fragment', [('{"kind": "Pod"}', 'not a pod object'), ('[1]', 'item 0'),
                                              ('{"a": 1}', 'holds no pods')])
def test_pods_file_bad_content(capsys, tmp_path, node, content, fragment):
    standin, _pods, configs = node
    pj = tmp_path / 'pods.json'
    pj.write_text(content)
    res = run(capsys, pods_file=str(pj), configs=configs, cgroup_root=standin.root)
    assert res['failed'] is True and fragment in res['msg']


def test_node_name_filter_and_terminal_pods(capsys, node):
    standin, pods, configs = node
    pods[1]['spec']['nodeName'] = 'node-2'
    pods[2]['status']['phase'] = 'Succeeded'
    pods[2]['status']['conditions'] = [{'type': 'Ready', 'status': 'False', 'reason': 'PodCompleted'}]
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root, node_name='node-1', check=True)
    assert [p['name'] for p in res['pods']] == ['offline']
    assert res['ignored'] == 1


# Volcano v1.15.0 pkg/agent/events/probes/pods/pods.go enqueuePod: a pod is handled only when a condition
# Ready is True and deletionTimestamp is nil; every other pod's cgroup files stay as they are.
@pytest.mark.parametrize('change', [
    ('not Ready', lambda p: p['status'].__setitem__('conditions', [{'type': 'Ready', 'status': 'False'}])),
    ('no conditions', lambda p: p['status'].pop('conditions')),
    ('only other conditions', lambda p: p['status'].__setitem__('conditions', [
        {'type': 'ContainersReady', 'status': 'True'}, {'type': 'PodScheduled', 'status': 'True'}])),
    ('being deleted', lambda p: p['metadata'].__setitem__('deletionTimestamp', '2026-11-29T09:00:00Z')),
], ids=lambda c: c[0])
def test_only_ready_pods_not_being_deleted_are_handled(capsys, node, change):
    standin, pods, configs = node
    before = standin.read(cont_dir(pods[0]), 'memory.high')
    change[1](pods[0])
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert 'offline' not in [p['name'] for p in res['pods']]
    assert res['ignored'] == 1
    assert standin.read(cont_dir(pods[0]), 'memory.high') == before
    assert not [w for w in res['writes'] if w['cgroup'].startswith(pod_dir(pods[0]))]


def test_batch_memory_resource_name(capsys, tmp_path):
    # cmd/agent/app/options/options.go --extend-resource-memory-name; pkg/agent/apis/types.go
    # GetExtendResourceMemory; memoryqosv2 getMemoryQuantity uses it for LS/BE (level <= 1) pods.
    pods = [make_pod('offline', annotations={'volcano.sh/qos-level': 'BE'},
                     containers=[container('a', {'memory': '4Gi', 'example.com/memory': '2Gi', 'kubernetes.io/batch-memory': '1Gi'},
                                           {'memory': '4Gi'})])]
    standin = build_node(CgroupV2StandIn(str(tmp_path / 'cg')), pods)
    cfgs = [make_config('c', selector={}, memory_qos={'highRatio': 50})]
    res = run(capsys, pods=pods, configs=cfgs, cgroup_root=standin.root, batch_memory_resource='example.com/memory',
              check=True)
    assert res['pods'][0]['containers'][0]['expected']['memory.high'] == str(GI)
    res = run(capsys, pods=pods, configs=cfgs, cgroup_root=standin.root, check=True)
    assert res['pods'][0]['containers'][0]['expected']['memory.high'] == str(GI // 2)


def _kubelet_process(tmp_path, args):
    proc = tmp_path / 'proc' / '4242'
    proc.mkdir(parents=True)
    (proc / 'comm').write_text('kubelet\n')
    (proc / 'cmdline').write_bytes(b'\0'.join(a.encode() for a in args) + b'\0')
    (tmp_path / 'proc' / 'self').mkdir()
    return str(tmp_path / 'proc')


# Volcano v1.15.0 pkg/agent/utils/cgroup/cgroup.go GetCgroupDriver: CGROUP_DRIVER, then
# /var/lib/kubelet/config.yaml, /etc/kubernetes/kubelet.conf, /var/lib/kubelet/kubeadm-flags.env, then the
# kubelet process's --cgroup-driver, else its --config file.
def test_driver_from_kubeadm_flags(capsys, tmp_path):
    pods = [make_pod('p', labels={})]
    standin = build_node(CgroupV2StandIn(str(tmp_path / 'cg')), pods, driver='cgroupfs')
    flags = tmp_path / 'kubeadm-flags.env'
    flags.write_text('KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock '
                     '--cgroup-driver=cgroupfs"\n')
    res = run(capsys, pods=pods, configs=[], cgroup_root=standin.root, kubelet_flags_files=[str(flags)], check=True)
    assert res['cgroup_driver'] == 'cgroupfs' and res['cgroup_driver_source'] == str(flags)


@pytest.mark.parametrize('content, expected', [
    (b'kind: KubeletConfiguration\ncgroupDriver: cgroupfs  # caf\xe9\n', 'line 2, column 30: byte 0xe9 is not UTF-8'),
    (b'kind: KubeletConfiguration\n' + b'#' * (1024 * 1024), 'above the limit of 1 MiB'),
])
def test_a_refused_kubelet_config_fails_naming_it_and_writes_nothing(capsys, node, tmp_path, content, expected):
    standin, pods, configs = node
    config = tmp_path / 'config.yaml'
    config.write_bytes(content)
    before = standin.read(cont_dir(pods[0]), 'memory.min')
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root, kubelet_config_path=str(config))
    assert res['failed'] is True and str(config) in res['msg'] and expected in res['msg']
    assert standin.read(cont_dir(pods[0]), 'memory.min') == before


def test_driver_from_the_kubelet_command_line(capsys, tmp_path):
    pods = [make_pod('p', labels={})]
    standin = build_node(CgroupV2StandIn(str(tmp_path / 'cg')), pods, driver='cgroupfs')
    config = tmp_path / 'kubelet.yaml'
    config.write_text('kind: KubeletConfiguration\ncgroupDriver: cgroupfs\n')
    proc = _kubelet_process(tmp_path, ['/usr/bin/kubelet', '--config', str(config), '--v=2'])
    res = run(capsys, pods=pods, configs=[], cgroup_root=standin.root, proc_root=proc, check=True)
    assert res['cgroup_driver'] == 'cgroupfs'
    assert res['cgroup_driver_source'] == 'kubelet command line (%s)' % config


def test_driver_environment_first_and_disagreement_warned(capsys, tmp_path, monkeypatch):
    pods = [make_pod('p', labels={})]
    standin = build_node(CgroupV2StandIn(str(tmp_path / 'cg')), pods, driver='systemd')
    config = tmp_path / 'config.yaml'
    config.write_text('cgroupDriver: cgroupfs\n')
    monkeypatch.setenv('CGROUP_DRIVER', 'systemd')
    res = run(capsys, pods=pods, configs=[], cgroup_root=standin.root, kubelet_config_path=str(config), check=True)
    assert res['cgroup_driver'] == 'systemd' and res['cgroup_driver_source'] == 'environment CGROUP_DRIVER'
    assert any('disagree' in w and 'kubelet_config says cgroupfs' in w for w in warnings_of(res))
    monkeypatch.setenv('CGROUP_DRIVER', 'bogus')  # the agent ignores a value other than systemd/cgroupfs
    res = run(capsys, pods=pods, configs=[], cgroup_root=standin.root, kubelet_config_path=str(config), check=True)
    # ... so the config file's cgroupfs is taken, which this systemd node's tree refutes, clearly
    assert res['failed'] is True and 'driver cgroupfs (from kubelet_config)' in res['msg']


def test_unsafe_uid_is_skipped_with_warning_and_nothing_outside_written(capsys, node, tmp_path):
    standin, pods, configs = node
    pods[0]['metadata']['uid'] = '../../../../etc'
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert 'not a Kubernetes pod UID' in res['pods'][0]['skipped']
    assert any('team/offline' in w for w in warnings_of(res))
    assert all(w['cgroup'].startswith('kubepods.slice') for w in res['writes'])


def test_wrong_page_size_is_refused(capsys, node):
    standin, pods, configs = node
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root, page_size=5000)
    assert res['failed'] is True and 'power of two' in res['msg']


def test_busy_node_110_pods_4_containers_in_one_call(capsys, tmp_path):
    pods, configs = busy_node(110, 4)
    standin = build_node(CgroupV2StandIn(str(tmp_path / 'cg')), pods)
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert len(res['pods']) == 110 and res['skipped'] == 0
    assert sum(len(p['containers']) for p in res['pods']) == 440
    assert standin.settle() == []
    again = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert again['changed'] is False


def test_symlink_out_of_the_tree_is_refused(capsys, node, tmp_path):
    standin, pods, configs = node
    outside = tmp_path / 'outside'
    outside.mkdir()
    (outside / 'memory.min').write_text('0\n')
    target = os.path.join(standin.root, pod_dir(pods[1]))
    standin.remove(pod_dir(pods[1]))
    os.symlink(str(outside), target)
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert res['failed'] is True and 'outside the kubepods cgroup' in res['msg']
    assert (outside / 'memory.min').read_text() == '0\n'


def test_read_back_failure_is_reported_not_taken_for_success(capsys, node, monkeypatch):
    # the read-back after a write used to count an unreadable file as "stored what was written", so neither
    # warning could fire for it; now a failed read-back is reported, and a different value still is
    standin, pods, configs = node
    written = set()
    real_write, real_read = memory_qos.write_value, memory_qos.read_cgroup_file

    def write_value(path, value):
        real_write(path, value)
        written.add(path)

    def read_cgroup_file(path):
        if path in written and path.endswith('memory.min'):
            raise OSError(5, 'Input/output error', path)
        if path in written and path.endswith('memory.high'):
            return '4096\n'
        return real_read(path)

    monkeypatch.setattr(memory_qos, 'write_value', write_value)
    monkeypatch.setattr(memory_qos, 'read_cgroup_file', read_cgroup_file)
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert res['changed'] is True
    texts = ' '.join(warnings_of(res))
    assert 'could not be read back' in texts and 'memory.min (' in texts and 'Input/output error' in texts
    assert 'the kernel stored other values than written' in texts and 'holds 4096 after writing' in texts


def test_report_changes_lists_only_what_changed_drifted_or_was_skipped(capsys, node):
    standin, pods, configs = node
    first = run(capsys, check=True, pods=pods, configs=configs, cgroup_root=standin.root, report='changes')
    full = run(capsys, check=True, pods=pods, configs=configs, cgroup_root=standin.root)
    # on a fresh node every managed pod drifts, so both list every pod; a level already right (the BestEffort
    # one: no managed pod below it) is left out; the counts do not depend on the report
    assert first['pods'] == full['pods']
    assert first['levels'] == [level for level in full['levels'] if level['drift']]
    assert 'kubepods.slice/kubepods-besteffort.slice' in [level['cgroup'] for level in full['levels']]
    assert 'kubepods.slice/kubepods-besteffort.slice' not in [level['cgroup'] for level in first['levels']]
    for key in ('managed', 'written', 'unchanged', 'skipped', 'ignored', 'writes', 'changed'):
        assert first[key] == full[key], key
    assert full['managed'] == 3 == len(full['pods'])
    run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    # someone else changes one container: only its pod (with all its containers) and the levels above it show
    standin.write(cont_dir(pods[0], 1), 'memory.low', 4096)
    audit = run(capsys, check=True, pods=pods, configs=configs, cgroup_root=standin.root, report='changes')
    assert audit['managed'] == 3 and audit['written'] == 1
    assert [p['name'] for p in audit['pods']] == ['offline']
    assert [c['name'] for c in audit['pods'][0]['containers']] == ['a', 'b']
    assert [c['drift'] for c in audit['pods'][0]['containers']] == [[], ['memory.low']]
    assert audit['levels'] == []   # hierarchy values are still right: only the container drifted
    run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    quiet = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root, report='changes')
    assert quiet['changed'] is False and quiet['pods'] == [] and quiet['levels'] == []
    assert quiet['managed'] == 3 and quiet['unchanged'] == full['unchanged'] + full['written']
    everything = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root, report='all')
    assert len(everything['pods']) == 3 and everything['levels']


def test_report_changes_keeps_skipped_pods(capsys, node):
    standin, pods, configs = node
    gone = pods[1]
    standin.remove(pod_dir(gone))
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root, report='changes')
    listed = dict((p['name'], p) for p in res['pods'])
    assert 'online' in listed and listed['online']['skipped'], res['pods']


def test_slimmed_pods_give_the_same_result(capsys, tmp_path):
    """What the action plugin sends (memqos.slim_pods) decides exactly as the pods the API returns would."""
    from ansible_collections.numaops.colocation.plugins.module_utils import memqos as mq
    from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.test_memqos import _with_api_noise
    pods, configs = busy_node(12, 3)
    pods[1]['metadata']['deletionTimestamp'] = '2026-01-01T00:00:00Z'
    pods[2]['status']['conditions'] = [{'type': 'Ready', 'status': 'False'}]
    pods[3]['metadata']['annotations'] = {'kubernetes.io/config.mirror': pods[3]['metadata']['uid']}
    pods[4]['status']['containerStatuses'][0]['state'] = {'waiting': {'reason': 'CrashLoopBackOff'}}
    pods[5]['spec']['containers'][0]['resources'] = {'limits': {'memory': 'lots'}}
    noisy = [_with_api_noise(pod) for pod in pods]
    results = []
    for name, given in (('noisy', noisy), ('slim', mq.slim_pods(copy.deepcopy(noisy)))):
        standin = build_node(CgroupV2StandIn(str(tmp_path / name)), pods)
        res = run(capsys, check=True, pods=given, configs=configs, cgroup_root=standin.root, node_name=None)
        res.pop('invocation', None)
        results.append(json.loads(json.dumps(res).replace(str(tmp_path / name), 'ROOT')))
    assert results[0] == results[1]
    assert results[0]['ignored'] == 2 and results[0]['skipped'] >= 2


# ---------------------------------------------------------------- units through systemd (systemd_units)
# The real kubelet makes systemd re-apply its units all the time: the QoS-class slices about once a minute, every
# container's scope when it starts and after each kubelet restart (its CPU manager sends the container's
# resources to containerd, and runc sets them as unit properties). systemd then writes the unit's own
# MemoryMin=/MemoryLow=/MemoryHigh= (0/0/infinity unless set) into the cgroup again. Both were seen on the real
# kubelet 1.31 in the VM test (extensions/molecule/vm), which is where the real systemd is exercised. This host
# runs no systemd for the test's cgroups, so FakeSystemd below is a STAND-IN: it answers `systemctl show` and
# `systemctl set-property --runtime` for the .slice/.scope directories of the cgroup v2 stand-in tree and can
# re-apply its units' properties to the files the way systemd does.

class FakeSystemd(object):
    """STAND-IN for systemd (see above). Every .slice/.scope directory of the tree is a loaded unit."""

    DEFAULTS = {'MemoryMin': '0', 'MemoryLow': '0', 'MemoryHigh': 'infinity'}
    FILES = {'MemoryMin': 'memory.min', 'MemoryLow': 'memory.low', 'MemoryHigh': 'memory.high'}

    def __init__(self, standin):
        self.standin = standin
        self.props = {}
        self.calls = []
        self.rcs = {}

    def units(self):
        """{unit: cgroup path relative to the tree} of every .slice/.scope directory."""
        out = {}
        for dirpath, _dirs, _names in os.walk(self.standin.root):
            name = os.path.basename(dirpath)
            if name.endswith(('.slice', '.scope')):
                out[name] = os.path.relpath(dirpath, self.standin.root)
        return out

    def show(self, argv):
        assert argv[:2] == ['systemctl', 'show'] and argv[3] == '--', argv
        assert argv[2] == '--property=Id,LoadState,MemoryHigh,MemoryLow,MemoryMin', argv
        loaded = self.units()
        blocks = []
        for unit in argv[4:]:
            values = dict(self.DEFAULTS, **self.props.get(unit, {}))
            state = 'loaded' if unit in loaded else 'not-found'
            blocks.append('Id=%s\nLoadState=%s\n%s\n' % (unit, state, '\n'.join(
                '%s=%s' % (key, values[key]) for key in sorted(values))))
        return 0, '\n'.join(blocks), ''

    def set_property(self, argv):
        assert argv[:4] == ['systemctl', 'set-property', '--runtime', '--'], argv
        unit = argv[4]
        if self.rcs.get(unit):
            return self.rcs[unit], '', 'Failed to set unit properties on %s: Unit %s not loaded.' % (unit, unit)
        for assignment in argv[5:]:
            key, _sep, value = assignment.partition('=')
            assert key in self.DEFAULTS, assignment
            self.props.setdefault(unit, {})[key] = value
        return 0, '', ''

    def reapply(self):
        """What systemd does when it re-applies every unit: its own values into the files."""
        for unit, rel in self.units().items():
            values = dict(self.DEFAULTS, **self.props.get(unit, {}))
            for key, name in self.FILES.items():
                if self.standin.read(rel, name) is not None:
                    self.standin.write(rel, name, 'max' if values[key] == 'infinity' else values[key])

    def run_command(self, argv):
        self.calls.append(list(argv))
        if argv[1] == 'show':
            return self.show(argv)
        return self.set_property(argv)

    def set_calls(self):
        return [c for c in self.calls if c[1] == 'set-property']


@pytest.fixture
def systemd(monkeypatch, node):
    """systemd_units in effect on the stand-in tree, answered by FakeSystemd."""
    fake = FakeSystemd(node[0])
    monkeypatch.setattr(memory_qos, 'use_systemd', lambda params, driver, root: params['systemd_units'] != 'never')
    monkeypatch.setattr(memory_qos.AnsibleModule, 'run_command', lambda self, argv, **kwargs: fake.run_command(argv))
    return fake


def test_every_unit_goes_through_systemd_one_call_per_unit_and_step(capsys, node, systemd):
    standin, pods, configs = node
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert res['changed'] is True and res['skipped'] == 0, res
    # with the systemd driver every cgroup written is a unit: containers' scopes and the slices above them
    assert {w['via'] for w in res['writes']} == {'systemd'}
    assert {w['cgroup'].rsplit('.', 1)[-1] for w in res['writes']} == {'slice', 'scope'}
    # the calls follow the writes: consecutive writes of a unit are one call with all their values
    calls = systemd.set_calls()
    expected = []
    for w in res['writes']:
        unit = os.path.basename(w['cgroup'])
        name = {'memory.min': 'MemoryMin', 'memory.low': 'MemoryLow', 'memory.high': 'MemoryHigh'}[w['file']]
        value = 'infinity' if w['new'] == 'max' else w['new']
        if expected and expected[-1][0] == unit:
            expected[-1][1].append('%s=%s' % (name, value))
        else:
            expected.append((unit, ['%s=%s' % (name, value)]))
    assert [(c[4], c[5:]) for c in calls] == [(u, sorted(a)) for u, a in expected]
    assert len(calls) < len(res['writes'])
    # one systemctl show for every unit the run may write, before anything is written
    shows = [c for c in systemd.calls if c[1] == 'show']
    assert len(shows) == 1 and systemd.calls[0] == shows[0]
    # the files hold the values as well, and so does systemd
    assert standin.settle() == []
    systemd.reapply()
    assert standin.settle() == []
    again = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert again['changed'] is False and again['writes'] == [], again
    assert len(systemd.set_calls()) == len(calls)


def test_the_write_order_holds_for_the_calls(capsys, node, systemd):
    standin, pods, configs = node
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    initial = {}
    parents = {}
    for w in res['writes']:
        initial.setdefault(w['cgroup'], {})[w['file']] = memory_qos.mq.parse_value(w['old'])
        if '/' in w['cgroup']:
            parents[w['cgroup']] = w['cgroup'].rsplit('/', 1)[0]
    assert memory_qos.mq.check_order(res['writes'], initial, parents) is None


def test_a_value_only_in_the_file_is_drift_through_systemd(capsys, node, systemd):
    """Values a plain writer put into the files (the Volcano agent, a previous version of this module) are right
    until systemd re-applies the unit; through systemd they are drift, written with what systemd held."""
    standin, pods, configs = node
    run(capsys, pods=pods, configs=configs, cgroup_root=standin.root, systemd_units='never')
    assert systemd.calls == []
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert res['changed'] is True
    for w in res['writes']:
        assert w['old'] == w['new'] and w['via'] == 'systemd', w
        assert w['held'] == ('max' if w['file'] == 'memory.high' else '0'), w
    drifted = [c for p in res['pods'] for c in p['containers'] if c['drift']]
    assert drifted and all(c['actual'] == c['expected'] for c in drifted)
    # and now systemd's re-apply keeps them
    files = {rel: dict((n, standin.read(rel, n)) for n in ('memory.low', 'memory.min', 'memory.high'))
             for rel in systemd.units().values()}
    systemd.reapply()
    assert files == {rel: dict((n, standin.read(rel, n)) for n in ('memory.low', 'memory.min', 'memory.high'))
                     for rel in systemd.units().values()}


def test_without_systemd_a_reapply_undoes_the_files(capsys, node, systemd):
    """Why the values go through systemd: with systemd_units=never, systemd's re-apply puts 0/0/max back."""
    standin, pods, configs = node
    first = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root, systemd_units='never')
    assert first['changed'] is True and {w['via'] for w in first['writes']} == {'file'}
    systemd.reapply()
    again = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root, systemd_units='never')
    assert again['changed'] is True and again['written'] == first['written']
    assert systemd.calls == []


def test_the_old_option_name_still_works(capsys, node, systemd):
    standin, pods, configs = node
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root, systemd_slices='never')
    assert res['changed'] is True and systemd.calls == []


def test_held_values_are_read_only_for_loaded_units(capsys, node, systemd, monkeypatch):
    """A cgroup that is not a loaded unit (systemctl show: LoadState=not-found) is written as a file."""
    standin, pods, configs = node
    real_show = systemd.show

    def show(argv):
        rc, out, err = real_show(argv)
        return rc, out.replace('LoadState=loaded', 'LoadState=not-found'), err
    monkeypatch.setattr(systemd, 'show', show)
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert res['changed'] is True and {w['via'] for w in res['writes']} == {'file'}
    assert systemd.set_calls() == []


@pytest.mark.parametrize('mode, driver, root, runs_systemd, expected', [
    ('never', 'systemd', '/sys/fs/cgroup', True, False),
    ('auto', 'systemd', '/sys/fs/cgroup', True, True),
    ('auto', 'cgroupfs', '/sys/fs/cgroup', True, False),
    ('auto', 'systemd', '/tmp/tree', True, False),
    ('auto', 'systemd', '/sys/fs/cgroup', False, False),
    ('always', 'systemd', '/sys/fs/cgroup', True, True),
    ('always', 'cgroupfs', '/sys/fs/cgroup', True, 'the cgroup driver is cgroupfs'),
    ('always', 'systemd', '/tmp/tree', True, 'cgroup_root is /tmp/tree, not /sys/fs/cgroup'),
    ('always', 'systemd', '/sys/fs/cgroup', False, 'the node does not run systemd'),
])
def test_use_systemd(monkeypatch, mode, driver, root, runs_systemd, expected):
    real_isdir = os.path.isdir
    monkeypatch.setattr(memory_qos.os.path, 'isdir',
                        lambda p: runs_systemd if p == '/run/systemd/system' else real_isdir(p))
    if isinstance(expected, bool):
        assert memory_qos.use_systemd({'systemd_units': mode}, driver, root) is expected
    else:
        with pytest.raises(memory_qos.NodeError) as err:
            memory_qos.use_systemd({'systemd_units': mode}, driver, root)
        assert 'systemd_units=always, but ' + expected in str(err.value)
        assert 'allowed there: auto or never' in str(err.value)


def tree_contents(root):
    out = {}
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            with open(os.path.join(dirpath, name)) as handle:
                out[os.path.relpath(os.path.join(dirpath, name), root)] = handle.read()
    return out


def test_check_mode_says_which_writes_go_through_systemd(capsys, node, systemd):
    standin, pods, configs = node
    files = tree_contents(standin.root)
    res = run(capsys, check=True, pods=pods, configs=configs, cgroup_root=standin.root)
    assert res['changed'] is True
    assert {w['via'] for w in res['writes']} == {'systemd'}
    # check mode reads what systemd holds, and sets nothing
    assert systemd.set_calls() == [] and tree_contents(standin.root) == files
    real = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert real['writes'] == res['writes']


def test_systemd_units_never_writes_files_only(capsys, node, systemd):
    standin, pods, configs = node
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root, systemd_units='never')
    assert res['changed'] is True and systemd.calls == []
    assert {w['via'] for w in res['writes']} == {'file'}


def test_a_failing_systemctl_fails_naming_the_command_and_what_was_written(capsys, node, systemd):
    standin, pods, configs = node
    systemd.rcs['kubepods-burstable.slice'] = 1
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert res.get('failed') is True
    assert 'systemctl set-property --runtime -- kubepods-burstable.slice MemoryLow=' in res['msg']
    assert ('failed (exit 1): Failed to set unit properties on kubepods-burstable.slice: Unit '
            'kubepods-burstable.slice not loaded.') in res['msg']
    assert 'earlier writes were made' in res['msg']


def test_a_failing_systemctl_show_fails_before_anything_is_written(capsys, node, systemd, monkeypatch):
    standin, pods, configs = node
    files = tree_contents(standin.root)
    monkeypatch.setattr(systemd, 'show', lambda argv: (1, '', 'Failed to connect to bus: No such file or directory'))
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert res.get('failed') is True
    assert res['msg'].startswith('systemctl show --property=Id,LoadState,MemoryHigh,MemoryLow,MemoryMin -- <')
    assert 'failed (exit 1): Failed to connect to bus: No such file or directory. Nothing was written' in res['msg']
    assert 'systemd_units=never' in res['msg']
    assert tree_contents(standin.root) == files and systemd.set_calls() == []


def test_a_unit_that_goes_away_while_being_set_is_skipped(capsys, node, systemd, monkeypatch):
    """set-property fails because the container stopped meanwhile: skipped as vanished, not a failure."""
    standin, pods, configs = node
    gone = cont_dir(pods[0])
    real_set = systemd.set_property

    def set_property(argv):
        if argv[4] == os.path.basename(gone):
            standin.remove(gone)
            return 1, '', 'Failed to set unit properties on %s: Unit %s not found.' % (argv[4], argv[4])
        return real_set(argv)
    monkeypatch.setattr(systemd, 'set_property', set_property)
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert not res.get('failed'), res
    assert res['skipped'] == 1
    assert any('vanished before' in w and gone in w for w in warnings_of(res)), warnings_of(res)
