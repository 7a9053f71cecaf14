# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""memory_qos with flavour koordinator on the cgroup v2 stand-in, with the cgroupfs and the systemd driver.

The expected values are worked out in tests/unit/plugins/module_utils/test_memqos_koordinator.py (each vector names
the Koordinator file and function); here they are checked in the files, after the kernel's page rounding.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import memqos as mq
from ansible_collections.numaops.colocation.tests.standins.cgroup2 import CgroupV2StandIn, build_node
from ansible_collections.numaops.colocation.tests.standins.podgen import container, make_pod
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.test_memory_qos import (
    cont_dir, pod_dir, run, warnings_of)

MI = 2 ** 20
GI = 2 ** 30
LABEL = 'koordinator.sh/qosClass'
BATCH = 'kubernetes.io/batch-memory'
KUBEPODS = {'systemd': 'kubepods.slice', 'cgroupfs': 'kubepods'}
BURSTABLE = {'systemd': 'kubepods.slice/kubepods-burstable.slice', 'cgroupfs': 'kubepods/burstable'}
BESTEFFORT = {'systemd': 'kubepods.slice/kubepods-besteffort.slice', 'cgroupfs': 'kubepods/besteffort'}


def node_slo(lsr=(50, 80, 90), ls=(20, 60, 80), be=(10, 20, 50)):
    def cls(values):
        return {'memoryQOS': {'enable': True, 'minLimitPercent': values[0], 'lowLimitPercent': values[1],
                              'throttlingPercent': values[2]}}
    return {'apiVersion': 'slo.koordinator.sh/v1alpha1', 'kind': 'NodeSLO', 'metadata': {'name': 'node-1'},
            'spec': {'resourceQOSStrategy': {'lsrClass': cls(lsr), 'lsClass': cls(ls), 'beClass': cls(be)}}}


def pods():
    return [
        make_pod('lsr', qos='Guaranteed', containers=[container('a', {'memory': '1Gi'}, {'memory': '1Gi'})]),
        make_pod('ls', labels={LABEL: 'LS'}, containers=[container('a', {'memory': '1Gi'}, {'memory': '512Mi'}),
                                                         container('b', None, {'memory': '256Mi'})]),
        make_pod('be', qos='BestEffort', labels={LABEL: 'BE'},
                 containers=[container('a', {BATCH: '1Gi'}, {BATCH: '512Mi'})]),
        make_pod('not-ready', ready=False, containers=[container('a', None, {'memory': '1Gi'})]),
        make_pod('done', phase='Succeeded', running=False, containers=[container('a', None, {'memory': '4Gi'})]),
    ]


def config(slo=None):
    return {'node_slo': slo or node_slo(), 'allocatable_memory': '1536Mi'}


def read(standin, rel, names=('memory.min', 'memory.low', 'memory.high')):
    return [mq.parse_value(standin.read(rel, name)) for name in names]


@pytest.mark.parametrize('driver', ['systemd', 'cgroupfs'])
def test_koordinator_flavour_writes_koordlets_values_and_a_second_run_changes_nothing(capsys, tmp_path, driver):
    the_pods = pods()
    standin = build_node(CgroupV2StandIn(str(tmp_path / 'cg')), the_pods, driver=driver)
    files = standin.files()
    args = dict(pods=the_pods, flavour='koordinator', flavour_config=config(), cgroup_root=standin.root,
                cgroup_driver=driver)
    audit = run(capsys, check=True, **args)
    res = run(capsys, **args)
    assert res['changed'] is True and res['skipped'] == 0 and res['ignored'] == 1 and res['managed'] == 4, res
    assert audit['writes'] == res['writes'] and audit['written'] == res['written']
    assert standin.settle() == [] and standin.files() == files
    lsr, ls, be, not_ready = the_pods[:4]
    # containers: 1Gi LSR 50/80/90; the kernel keeps whole pages (858993459 -> 858992640)
    assert read(standin, cont_dir(lsr, driver=driver)) == [536870912, 858992640, GI]
    # LS 20/60/80: 107374182 -> 107372544, 322122547 -> 322121728, high 966365184
    assert read(standin, cont_dir(ls, 0, driver)) == [107372544, 322121728, 966365184]
    # no limit: the allocatable memory, 256Mi + 1280Mi * 80 % = 1342177280; 53687091 -> 53686272; 161061273 -> 161058816
    assert read(standin, cont_dir(ls, 1, driver)) == [53686272, 161058816, 1342177280]
    # BE label: batch memory, 512Mi * 10 % = 53687091 -> 53686272, * 20 % = 107374182 -> 107372544, high 805306368
    assert read(standin, cont_dir(be, driver=driver)) == [53686272, 107372544, 805306368]
    # a pod that is not Ready is still handled (IsPodInactive looks at the phase): 1Gi * 20 % -> 214745088
    assert read(standin, cont_dir(not_ready, driver=driver))[:2] == [214745088, 644243456]
    # pods: the pod's request times the percentages (768Mi LS: 161061273 -> 161058816, 483183820 -> 483180544)
    assert read(standin, pod_dir(ls, driver), ('memory.min', 'memory.low')) == [161058816, 483180544]
    assert read(standin, pod_dir(lsr, driver), ('memory.min', 'memory.low')) == [536870912, 858992640]
    # QoS levels: Burstable = LS pod + the not-Ready pod; BestEffort = the BE pod; kubepods = every pod
    burstable = (161061273 + 214748364, 483183820 + 644245094)
    assert read(standin, BURSTABLE[driver], ('memory.min', 'memory.low')) == [
        burstable[0] // 4096 * 4096, burstable[1] // 4096 * 4096]
    assert read(standin, BESTEFFORT[driver], ('memory.min', 'memory.low')) == [53686272, 107372544]
    total = (536870912 + burstable[0] + 53687091, 858993459 + burstable[1] + 107374182)
    assert read(standin, KUBEPODS[driver], ('memory.min', 'memory.low')) == [
        total[0] // 4096 * 4096, total[1] // 4096 * 4096]
    # memory.high is written on containers only
    assert not [w for w in res['writes'] if w['file'] == 'memory.high' and w['level'] != mq.LEVEL_CONTAINER]
    initial, parents = {}, {}
    for w in res['writes']:
        initial.setdefault(w['cgroup'], {})[w['file']] = mq.parse_value(w['old'])
        if '/' in w['cgroup']:
            parents[w['cgroup']] = w['cgroup'].rsplit('/', 1)[0]
    assert mq.check_order(res['writes'], initial, parents) is None
    # growing: parents first
    levels = [w['level'] for w in res['writes'] if w['file'] != 'memory.high']
    assert levels == sorted(levels)
    again = run(capsys, **args)
    assert again['changed'] is False and again['writes'] == [], again


def test_koordinator_flavour_shrinking_writes_children_first(capsys, tmp_path):
    the_pods = pods()
    standin = build_node(CgroupV2StandIn(str(tmp_path / 'cg')), the_pods)
    args = dict(pods=the_pods, flavour='koordinator', cgroup_root=standin.root)
    run(capsys, flavour_config=config(), **args)
    res = run(capsys, flavour_config=config({'kind': 'NodeSLO', 'spec': {}}), diff=True, **args)
    assert res['changed'] is True
    levels = [w['level'] for w in res['writes'] if w['file'] != 'memory.high']
    assert levels == sorted(levels, reverse=True)
    for rel in (KUBEPODS['systemd'], BURSTABLE['systemd'], pod_dir(the_pods[0]), cont_dir(the_pods[1], 0)):
        assert read(standin, rel, ('memory.min', 'memory.low')) == [0, 0], rel
    assert standin.read(cont_dir(the_pods[1], 0), 'memory.high') == 'max'
    assert 'kubepods.slice/memory.min: 0' in res['diff']['after']


def test_a_hostile_node_slo_fails_before_anything_is_read_or_written(capsys, tmp_path):
    the_pods = pods()
    standin = build_node(CgroupV2StandIn(str(tmp_path / 'cg')), the_pods)
    files = dict((path, standin.read(*path.rsplit('/', 1))) for path in standin.files() if '/memory.' in path)
    res = run(capsys, pods=the_pods, flavour='koordinator', cgroup_root=standin.root,
              flavour_config=config(node_slo(ls=(20, 160, 80))))
    assert res['failed'] is True
    assert res['msg'] == ('flavour_config.node_slo (NodeSLO node-1): spec.resourceQOSStrategy.lsClass.memoryQOS.'
                          'lowLimitPercent is 160; allowed: an integer from 0 to 100 (null or absent: the default)')
    assert dict((path, standin.read(*path.rsplit('/', 1))) for path in files) == files


def test_an_unknown_class_label_is_applied_as_koordlet_does_with_a_warning(capsys, tmp_path):
    the_pods = [make_pod('typo', labels={LABEL: 'ls'}, containers=[container('a', {'memory': '1Gi'}, {'memory': '512Mi'})])]
    standin = build_node(CgroupV2StandIn(str(tmp_path / 'cg')), the_pods)
    res = run(capsys, pods=the_pods, flavour='koordinator', cgroup_root=standin.root, flavour_config=config())
    assert res['changed'] is True and res['pods'][0]['config_name'] == 'LS'
    assert any('team/typo applied' in w and 'SYSTEM, LSE, LSR, LS, BE' in w for w in warnings_of(res)), res
