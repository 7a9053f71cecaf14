# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""memory_qos with a flavour other than volcano, and the flavour registry, on the cgroup v2 stand-in."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import inspect
import os
import re

import yaml

from ansible_collections.numaops.colocation.plugins.module_utils import memqos as mq
from ansible_collections.numaops.colocation.plugins.module_utils.memqos_flavours import DEFAULT, FLAVOURS
from ansible_collections.numaops.colocation.plugins.modules import memory_qos
from ansible_collections.numaops.colocation.tests.standins.cgroup2 import CgroupV2StandIn, build_node
from ansible_collections.numaops.colocation.tests.standins.podgen import container, make_pod
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.test_memory_qos import cont_dir, pod_dir, run

MI = 2 ** 20
GI = 2 ** 30
# the Node's status.allocatable 1436Mi plus the kubelet's default eviction threshold (100Mi): 1536Mi before eviction
TIERED = {'memory_reservation_policy': 'TieredReservation', 'memory_throttling_factor': 0.9,
          'allocatable_memory': '1436Mi'}


def kubelet_node(tmp_path):
    pods = [
        make_pod('guaranteed', qos='Guaranteed', containers=[container('a', {'memory': '1Gi'}, {'memory': '1Gi'})]),
        make_pod('burstable', containers=[container('a', {'memory': '1Gi'}, {'memory': '512Mi'}),
                                          container('b', None, {'memory': '256Mi'})]),
        make_pod('besteffort', qos='BestEffort', containers=[container('a')]),
        make_pod('done', phase='Succeeded', running=False, containers=[container('a', None, {'memory': '4Gi'})]),
    ]
    return build_node(CgroupV2StandIn(str(tmp_path / 'cg')), pods), pods


def test_kubelet_flavour_writes_the_kubelets_values_and_a_second_run_changes_nothing(capsys, tmp_path):
    standin, pods = kubelet_node(tmp_path)
    guaranteed, burstable, besteffort = pods[:3]
    audit = run(capsys, check=True, pods=pods, flavour='kubelet', flavour_config=TIERED, cgroup_root=standin.root)
    res = run(capsys, pods=pods, flavour='kubelet', flavour_config=TIERED, cgroup_root=standin.root)
    assert res['changed'] is True and res['skipped'] == 0 and res['ignored'] == 1 and res['managed'] == 3, res
    assert audit['writes'] == res['writes'] and audit['written'] == res['written']
    assert standin.settle() == []
    # containers (kuberuntime_container_linux.go): see test_memqos_kubelet.py for each value
    assert [mq.parse_value(standin.read(cont_dir(guaranteed), f)) for f in ('memory.min', 'memory.low', 'memory.high')] == [GI, 0, 'max']
    assert [mq.parse_value(standin.read(cont_dir(burstable, 0), f)) for f in ('memory.min', 'memory.low', 'memory.high')] == [
        0, 512 * MI, 1020051456]
    assert [mq.parse_value(standin.read(cont_dir(burstable, 1), f)) for f in ('memory.min', 'memory.low', 'memory.high')] == [
        0, 256 * MI, 1476395008]
    # best effort: 0 + 1536Mi * 0.9 = 1449551462.4 -> 353894 pages = 1449549824
    assert standin.read(cont_dir(besteffort), 'memory.high') == '1449549824'
    # pods (helpers_linux.go, ResourceConfigForPod): min for Guaranteed, low for Burstable, not a sum of children
    assert [mq.parse_value(standin.read(pod_dir(guaranteed), f)) for f in ('memory.min', 'memory.low')] == [GI, 0]
    assert [mq.parse_value(standin.read(pod_dir(burstable), f)) for f in ('memory.min', 'memory.low')] == [0, 768 * MI]
    # QoS levels (qos_container_manager_linux.go, setMemoryQoS): G = 1Gi, B = 768Mi; the finished pod not counted
    assert [mq.parse_value(standin.read('kubepods.slice', f)) for f in ('memory.min', 'memory.low')] == [GI + 768 * MI, 768 * MI]
    assert [mq.parse_value(standin.read('kubepods.slice/kubepods-burstable.slice', f)) for f in ('memory.min', 'memory.low')] == [
        0, 768 * MI]
    # the writes keep the order invariant: no parent below the sum of its children at any moment
    initial = {}
    parents = {}
    for w in res['writes']:
        initial.setdefault(w['cgroup'], {})[w['file']] = mq.parse_value(w['old'])
        if '/' in w['cgroup']:
            parents[w['cgroup']] = w['cgroup'].rsplit('/', 1)[0]
    assert mq.check_order(res['writes'], initial, parents) is None
    again = run(capsys, pods=pods, flavour='kubelet', flavour_config=TIERED, cgroup_root=standin.root)
    assert again['changed'] is False and again['writes'] == [], again


def test_kubelet_flavour_policy_none_puts_back_what_the_kubelet_leaves(capsys, tmp_path):
    standin, pods = kubelet_node(tmp_path)
    run(capsys, pods=pods, flavour='kubelet', flavour_config=TIERED, cgroup_root=standin.root)
    res = run(capsys, pods=pods, flavour='kubelet', flavour_config={}, cgroup_root=standin.root, diff=True)
    assert res['changed'] is True
    # shrinking: children before parents
    levels = [w['level'] for w in res['writes'] if w['file'] != 'memory.high']
    assert levels == sorted(levels, reverse=True)
    for rel in ('kubepods.slice', 'kubepods.slice/kubepods-burstable.slice', pod_dir(pods[0]), cont_dir(pods[1], 0)):
        assert [mq.parse_value(standin.read(rel, f)) for f in ('memory.min', 'memory.low')] == [0, 0], rel
    assert standin.read(cont_dir(pods[1], 0), 'memory.high') == 'max'
    assert 'kubepods.slice/memory.min: 1879048192' in res['diff']['before']


def test_a_bad_flavour_input_fails_before_anything_is_read_or_written(capsys, tmp_path):
    standin, pods = kubelet_node(tmp_path)
    files = dict((path, standin.read(*path.rsplit('/', 1))) for path in standin.files() if '/memory.' in path)
    res = run(capsys, pods=pods, flavour='kubelet', flavour_config={'memory_throttling_factor': 2},
              cgroup_root=standin.root)
    assert res['failed'] is True and 'flavour_config.memory_throttling_factor is 2' in res['msg']
    res = run(capsys, pods=pods, flavour='kubelet', configs=[], cgroup_root=standin.root)
    assert res['failed'] is True and 'configs is an input of the volcano flavour' in res['msg']
    res = run(capsys, pods=pods, flavour='nri', cgroup_root=standin.root)
    assert res['failed'] is True and 'flavour' in res['msg'] and 'koordinator, kubelet, volcano' in res['msg']
    assert dict((path, standin.read(*path.rsplit('/', 1))) for path in files) == files


def test_the_registry_the_module_and_its_documentation_agree():
    doc = yaml.safe_load(memory_qos.DOCUMENTATION)['options']
    assert doc['flavour']['choices'] == sorted(FLAVOURS) and doc['flavour']['default'] == DEFAULT == 'volcano'
    for name, flavour in FLAVOURS.items():
        assert issubclass(flavour, mq.Flavour) and flavour.name == name
        assert inspect.getdoc(flavour) and 'V(%s)' % name in ' '.join(doc['flavour']['description'])
        for method in ('decide', 'container_values'):
            assert getattr(flavour, method) is not getattr(mq.Flavour, method), (name, method)


def test_each_flavour_gets_the_pod_fields_it_reads():
    pod = make_pod('p', containers=[container('a', None, {'memory': '1Gi'})])
    pod['spec']['initContainers'] = [{'name': 'i', 'image': 'x', 'resources': {'requests': {'memory': '2Gi'}}}]
    pod['spec']['overhead'] = {'memory': '64Mi'}
    pod['spec']['volumes'] = [{'name': 'v'}]
    volcano = mq.slim_pods([pod], FLAVOURS['volcano'].pod_fields)[0]
    kubelet = mq.slim_pods([pod], FLAVOURS['kubelet'].pod_fields)[0]
    assert 'initContainers' not in volcano['spec'] and volcano == mq.slim_pods([pod])[0]
    assert kubelet['spec']['initContainers'] == [{'name': 'i', 'resources': {'requests': {'memory': '2Gi'}}}]
    assert kubelet['spec']['overhead'] == {'memory': '64Mi'} and 'volumes' not in kubelet['spec']
    assert kubelet['spec']['containers'] == volcano['spec']['containers']


def test_the_developer_guide_shows_the_real_code():
    """docs/developer/memory_qos_flavours.md shows the kubelet flavour and the registry as they are: every line of
    its code blocks (but the elisions, "# ...") is a line of the real files."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
    with open(os.path.join(root, 'docs', 'developer', 'memory_qos_flavours.md')) as handle:
        page = handle.read()
    blocks = re.findall(r'```python\n(.*?)```', page, re.S)
    source = ''
    for name in ('kubelet.py', '__init__.py'):
        with open(os.path.join(root, 'plugins', 'module_utils', 'memqos_flavours', name)) as handle:
            source += handle.read()
    lines = set(line.rstrip() for line in source.splitlines())
    shown = [line.rstrip() for block in blocks for line in block.splitlines()
             if line.strip() and not line.strip().startswith('# ...')]
    assert len(blocks) == 2 and len(shown) > 40
    assert [line for line in shown if line not in lines] == []
