# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""memory_qos module tests on the cgroup v2 STAND-IN tree (tests/standins/cgroup2.py).

This host has no cgroup v2 memory controller (v1/v2 hybrid), so the tree is a stand-in; the real-kernel
run happens in the VM test. The host's own /sys/fs/cgroup is used (read-only) for the hybrid refusal.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

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


def test_container_without_memory_controller_is_skipped_not_created(capsys, tmp_path):
    pods = [make_pod('p', labels={'a': 'b'})]
    standin = build_node(CgroupV2StandIn(str(tmp_path / 'cg')), pods, pod_memory=False)
    files = standin.files()
    res = run(capsys, pods=pods, configs=[make_config('c', selector={}, memory_qos=R)], cgroup_root=standin.root)
    assert 'memory controller is not enabled' in res['pods'][0]['containers'][0]['skipped']
    assert standin.files() == files


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
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root, node_name='node-1', check=True)
    assert [p['name'] for p in res['pods']] == ['offline']


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
