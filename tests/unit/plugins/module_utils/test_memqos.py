# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy
import itertools
import json
import random

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import colocation as co
from ansible_collections.numaops.colocation.plugins.module_utils import memqos as mq
from ansible_collections.numaops.colocation.plugins.module_utils.memqos_flavours import volcano as vq
from ansible_collections.numaops.colocation.tests.standins.podgen import container, make_config, make_pod

GI = 2 ** 30
MI = 2 ** 20
R = {'highRatio': 80, 'lowRatio': 20, 'minRatio': 10}


# ---------------------------------------------------------------- quantities inside the formulas
QUANTITY_CASES = [
    # (limit, request, ratios, expected high, low, min) - exact integer arithmetic, truncating
    ('1Gi', '1Gi', R, GI * 80 // 100, GI * 20 // 100, GI * 10 // 100),
    ('1024Mi', '1048576Ki', R, 858993459, 214748364, 107374182),
    ('1G', '1G', R, 800000000, 200000000, 100000000),
    ('1000M', '1000000k', R, 800000000, 200000000, 100000000),
    ('1e9', '1e9', R, 800000000, 200000000, 100000000),
    ('1E9', '0.001e12', R, 800000000, 200000000, 100000000),
    ('1.5Gi', '0.5Gi', R, 1288490188, 107374182, 53687091),
    ('100m', '100m', R, 0, 0, 0),                     # 0.1 byte -> Value() rounds up to 1 -> 1*80//100 = 0
    ('1500m', '2500m', {'highRatio': 99, 'lowRatio': 100, 'minRatio': 100}, 1, 3, 3),
    ('7', '7', {'highRatio': 50, 'lowRatio': 50, 'minRatio': 99}, 3, 3, 6),
    (123456789, 98765432, R, 98765431, 19753086, 9876543),   # ints as YAML gives them
    ('129M', '129M', {'highRatio': 33, 'lowRatio': 33, 'minRatio': 33}, 42570000, 42570000, 42570000),
    ('3Ti', '1Ti', R, 3 * 2 ** 40 * 80 // 100, 2 ** 40 * 20 // 100, 2 ** 40 * 10 // 100),
    ('1Ei', '1Ei', R, 2 ** 60 * 80 // 100, 2 ** 60 * 20 // 100, 2 ** 60 * 10 // 100),
]


@pytest.mark.parametrize('limit,req,ratios,high,low,minimum', QUANTITY_CASES,
                         ids=['%s/%s' % (c[0], c[1]) for c in QUANTITY_CASES])
def test_quantities_in_formulas(limit, req, ratios, high, low, minimum):
    values = vq.container_values(container('c', {'memory': limit}, {'memory': req}), ratios, 0)
    assert values == {'memory.high': high, 'memory.low': low, 'memory.min': minimum}


FORMULA_CASES = [
    # (id, limits, requests, ratios, level, expected)
    ('no limit -> max', None, {'memory': '1Gi'}, R, 0, ('max', GI // 5, GI // 10)),
    ('zero limit -> max', {'memory': '0'}, {'memory': '1Gi'}, R, 0, ('max', GI // 5, GI // 10)),
    ('highRatio 100 -> max', {'memory': '1Gi'}, {'memory': '1Gi'}, dict(R, highRatio=100), 0, ('max', GI // 5, GI // 10)),
    ('highRatio 0 -> 0', {'memory': '1Gi'}, None, dict(R, highRatio=0), 0, (0, 0, 0)),
    ('no request -> 0', {'memory': '1Gi'}, None, R, 0, (GI * 8 // 10, 0, 0)),
    ('no resources at all', None, None, R, 0, ('max', 0, 0)),
    ('reset values', {'memory': '1Gi'}, {'memory': '1Gi'}, co.MEMORY_QOS_RESET, 0, ('max', 0, 0)),
    ('cpu only', {'cpu': '2'}, {'cpu': '1'}, R, 0, ('max', 0, 0)),
    # batch-memory: levels <= 1 (absent 0, LS 1, BE -1) use it
    ('batch used when level absent', {'memory': '2Gi', 'kubernetes.io/batch-memory': '1Gi'},
     {'memory': '2Gi', 'kubernetes.io/batch-memory': '1Gi'}, R, 0, (GI * 8 // 10, GI // 5, GI // 10)),
    ('batch used for BE', {'memory': '2Gi', 'kubernetes.io/batch-memory': '1Gi'},
     {'memory': '2Gi', 'kubernetes.io/batch-memory': '1Gi'}, R, -1, (GI * 8 // 10, GI // 5, GI // 10)),
    ('batch used for LS', {'memory': '2Gi', 'kubernetes.io/batch-memory': '1Gi'},
     {'memory': '2Gi', 'kubernetes.io/batch-memory': '1Gi'}, R, 1, (GI * 8 // 10, GI // 5, GI // 10)),
    ('batch ignored for LC/HLS', {'memory': '2Gi', 'kubernetes.io/batch-memory': '1Gi'},
     {'memory': '2Gi', 'kubernetes.io/batch-memory': '1Gi'}, R, 2, (2 * GI * 8 // 10, 2 * GI // 5, 2 * GI // 10)),
    ('batch only in limits', {'memory': '2Gi', 'kubernetes.io/batch-memory': '1Gi'}, {'memory': '2Gi'}, R, -1,
     (GI * 8 // 10, 2 * GI // 5, 2 * GI // 10)),
    ('batch only in requests', {'memory': '2Gi'}, {'kubernetes.io/batch-memory': '1Gi'}, R, -1,
     (2 * GI * 8 // 10, GI // 5, GI // 10)),
    ('batch zero limit -> max', {'memory': '2Gi', 'kubernetes.io/batch-memory': '0'}, None, R, -1, ('max', 0, 0)),
    ('batch without memory', {'kubernetes.io/batch-memory': '1000'}, {'kubernetes.io/batch-memory': '1000'}, R, 0,
     (800, 200, 100)),
]


@pytest.mark.parametrize('limits,requests,ratios,level,expected', [c[1:] for c in FORMULA_CASES],
                         ids=[c[0] for c in FORMULA_CASES])
def test_formulas(limits, requests, ratios, level, expected):
    values = vq.container_values(container('c', limits, requests), ratios, level)
    assert (values['memory.high'], values['memory.low'], values['memory.min']) == expected


@pytest.mark.parametrize('annotation,level', [
    (None, 0), ('LC', 2), ('HLS', 2), ('LS', 1), ('BE', -1), ('be', 0), ('unknown', 0), ('', 0),
])
def test_qos_levels(annotation, level):
    annotations = {} if annotation is None else {'volcano.sh/qos-level': annotation}
    assert vq.qos_level(make_pod('p', annotations=annotations)) == level
    assert vq.allows_batch_memory(level) is (level <= 1)


@pytest.mark.parametrize('bad', ['1Gb', 'lots', '-1Gi', '1e999', True])
def test_bad_quantity_names_pod_and_field(bad):
    with pytest.raises(mq.MemQosError) as err:
        vq.container_values(container('c', {'memory': bad}), R, 0, 'pod team/p spec.containers[0]')
    assert 'pod team/p spec.containers[0].resources.limits[memory]' in str(err.value)


# ---------------------------------------------------------------- page rounding
PAGE_CASES = [
    (858993459, 4096, 858992640),   # the example
    (4096, 4096, 4096),
    (4095, 4096, 0),
    (0, 4096, 0),
    (1, 4096, 0),
    (8191, 4096, 4096),
    (858993459, 65536, 858980352),
    (858993459, 16384, 858980352),
    ('max', 4096, 'max'),
    (2 ** 63 - 1, 4096, 'max'),       # above PAGE_COUNTER_MAX pages: the kernel reads back "max"
    ((2 ** 63 - 1) // 4096 * 4096 - 4096, 4096, (2 ** 63 - 1) // 4096 * 4096 - 4096),
    (2 ** 64, 4096, 'max'),
]


@pytest.mark.parametrize('value,page,expected', PAGE_CASES, ids=[str(c) for c in PAGE_CASES])
def test_page_round(value, page, expected):
    assert mq.page_round(value, page) == expected


@pytest.mark.parametrize('text,expected', [('max\n', 'max'), ('0\n', 0), ('858992640', 858992640), (' 4096 \n', 4096)])
def test_parse_value(text, expected):
    assert mq.parse_value(text) == expected


@pytest.mark.parametrize('text', ['', '-1', 'Max', '1.5', '1G', 'max max'])
def test_parse_value_invalid(text):
    with pytest.raises(ValueError):
        mq.parse_value(text)


# ---------------------------------------------------------------- decisions
OFFLINE = make_config('offline', selector={'matchLabels': {'tier': 'offline'}}, memory_qos=R)
NOQOS = make_config('noqos', selector={'matchLabels': {'tier': 'plain'}})

DECISION_CASES = [
    # (id, pod, source, configs, managed, config_name, ratios, reset)
    ('config selects', make_pod('p', labels={'tier': 'offline'}), 'configs', [OFFLINE], True, 'offline', R, False),
    ('config without memoryQos resets', make_pod('p', labels={'tier': 'plain'}), 'configs', [NOQOS],
     True, 'noqos', co.MEMORY_QOS_RESET, True),
    ('no match, annotated -> reset', make_pod('p', labels={}, annotations={co.ANNOTATION_CONFIG: '{"memoryQos":{}}'}),
     'configs', [OFFLINE], True, None, co.MEMORY_QOS_RESET, True),
    ('no match, name annotation only -> reset', make_pod('p', annotations={co.ANNOTATION_CONFIG_NAME: 'x'}),
     'configs', [], True, None, co.MEMORY_QOS_RESET, True),
    ('no match, never managed', make_pod('p', labels={'tier': 'x'}), 'configs', [OFFLINE], False, None, None, False),
    ('annotation values', make_pod('p', annotations={co.ANNOTATION_CONFIG_NAME: 'c',
                                                     co.ANNOTATION_CONFIG: '{"memoryQos":{"highRatio":80,"lowRatio":20,"minRatio":10}}'}),
     'annotations', None, True, 'c', R, False),
    ('annotation zero-omitted', make_pod('p', annotations={co.ANNOTATION_CONFIG: '{"memoryQos":{"highRatio":80}}'}),
     'annotations', None, True, None, {'highRatio': 80, 'lowRatio': 0, 'minRatio': 0}, False),
    ('annotation reset', make_pod('p', annotations={co.ANNOTATION_CONFIG: '{}'}), 'annotations', None,
     True, None, co.MEMORY_QOS_RESET, True),
    ('annotation empty -> skip', make_pod('p', annotations={co.ANNOTATION_CONFIG: ''}), 'annotations', None,
     False, None, None, False),
    ('annotation absent -> skip', make_pod('p'), 'annotations', None, False, None, None, False),
    ('annotation invalid -> skip', make_pod('p', annotations={co.ANNOTATION_CONFIG: '{"memoryQos":{"highRatio":101}}'}),
     'annotations', None, False, None, None, False),
]


@pytest.mark.parametrize('pod,source,configs,managed,name,ratios,reset', [c[1:] for c in DECISION_CASES],
                         ids=[c[0] for c in DECISION_CASES])
def test_pod_decision(pod, source, configs, managed, name, ratios, reset):
    decision = vq.pod_decision(pod, source, configs)
    assert decision['managed'] is managed
    assert decision['config_name'] == name
    assert decision['ratios'] == ratios
    assert decision['reset'] is reset
    if not managed:
        assert decision['reason']


def test_invalid_annotation_reason_names_pod_and_field():
    pod = make_pod('p', annotations={co.ANNOTATION_CONFIG: 'not json'})
    decision = vq.pod_decision(pod, 'annotations')
    assert decision['invalid'] and 'team/p' in decision['reason'] and 'volcano.sh/colocation-config' in decision['reason']


# ---------------------------------------------------------------- pod plan
def test_pod_plan_paths_expected_and_skips():
    pod = make_pod('p', containers=[container('a', {'memory': '1Gi'}, {'memory': '1Gi'}),
                                    container('b', {'memory': '1Gi'}, {'memory': '1Gi'})])
    pod['status']['containerStatuses'][1] = {'name': 'b', 'state': {'waiting': {}}}
    plan = vq.pod_plan(pod, {'ratios': R, 'config_name': 'c'}, 'systemd', '', 4096)
    assert plan['cgroup'].startswith('kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod')
    a, b = plan['containers']
    assert a['cgroup'].startswith(plan['cgroup'] + '/cri-containerd-') and a['cgroup'].endswith('.scope')
    assert a['expected'] == {'memory.high': str(858992640), 'memory.low': str(214745088), 'memory.min': str(107372544)}
    assert b['skipped'] == 'container is not running'


@pytest.mark.parametrize('mutate,reason', [
    (lambda p: p['metadata'].__setitem__('uid', '../../etc'), 'not a Kubernetes pod UID'),
    (lambda p: p['status'].__setitem__('qosClass', None), 'not a Kubernetes QoS class'),
])
def test_pod_plan_refuses_unsafe_pod(mutate, reason):
    pod = make_pod('p')
    mutate(pod)
    plan = vq.pod_plan(pod, {'ratios': R}, 'systemd', '', 4096)
    assert reason in plan['skipped'] and 'team/p' in plan['skipped']


def test_pod_plan_refuses_unsafe_container_id():
    pod = make_pod('p', cids={'app': 'containerd://../../../../etc/x'})
    plan = vq.pod_plan(pod, {'ratios': R}, 'systemd', '', 4096)
    assert 'not one a supported runtime produces' in plan['containers'][0]['skipped']
    assert plan['containers'][0]['cgroup'] is None and plan['containers'][0]['invalid'] is True


def test_pod_plan_marks_invalid_data_but_not_routine_skips():
    pod = make_pod('p', containers=[container('q', {'memory': 'lots'}), container('idle'), container('noid')])
    pod['status']['containerStatuses'][1]['state'] = {'waiting': {}}
    del pod['status']['containerStatuses'][2]['containerID']
    plan = vq.pod_plan(pod, {'ratios': R}, 'systemd', '', 4096)
    bad, idle, noid = plan['containers']
    assert bad['invalid'] is True and "invalid quantity 'lots' for spec.containers[0].resources.limits[memory]" in bad['skipped']
    assert idle['invalid'] is False and idle['skipped'] == 'container is not running'
    assert noid['invalid'] is True and 'containerID is empty' in noid['skipped'] and 'allowed' in noid['skipped']
    assert plan['invalid'] is False
    pod['metadata']['uid'] = '../x'
    assert vq.pod_plan(pod, {'ratios': R}, 'systemd', '', 4096)['invalid'] is True


# ---------------------------------------------------------------- leveled write order
def _w(cgroup, level, old, new, name='memory.min'):
    return {'cgroup': cgroup, 'file': name, 'old': None if old is None else str(old), 'new': str(new), 'level': level}


ORDER_CASES = [
    # (id, writes, expected order of (cgroup, file))
    ('all up: parents first',
     [_w('k/q/p/c', 3, 0, 10), _w('k/q/p', 2, 0, 10), _w('k/q', 1, 0, 10), _w('k', 0, 0, 10)],
     ['k', 'k/q', 'k/q/p', 'k/q/p/c']),
    ('all down: children first',
     [_w('k', 0, 10, 0), _w('k/q', 1, 10, 0), _w('k/q/p', 2, 10, 0), _w('k/q/p/c', 3, 10, 0)],
     ['k/q/p/c', 'k/q/p', 'k/q', 'k']),
    ('mixed: all decreases before any increase',
     [_w('k', 0, 10, 12), _w('k/a', 3, 8, 2), _w('k/b', 3, 2, 10)],
     ['k/a', 'k', 'k/b']),
    ('unknown old counts as increase', [_w('k/a', 3, None, 5), _w('k', 0, 10, 5)], ['k', 'k/a']),
    ('max is infinity', [_w('k/a', 3, 'max', 5, 'memory.high'), _w('k/b', 3, 5, 'max', 'memory.high')],
     ['k/a', 'k/b']),
    ('same level sorted by path', [_w('k/b', 3, 0, 1), _w('k/a', 3, 0, 1)], ['k/a', 'k/b']),
]


@pytest.mark.parametrize('writes,expected', [c[1:] for c in ORDER_CASES], ids=[c[0] for c in ORDER_CASES])
def test_order_writes(writes, expected):
    assert [w['cgroup'] for w in mq.order_writes(writes)] == expected


def test_naive_order_would_break_the_invariant():
    """The case that needs the decreases-first rule: a parent rises a little while one child falls and
    the other rises a lot. Parents-first-for-everything would leave k below k/a + k/b."""
    initial = {'k': {'memory.min': 10}, 'k/a': {'memory.min': 8}, 'k/b': {'memory.min': 2}}
    parents = {'k/a': 'k', 'k/b': 'k'}
    writes = [_w('k', 0, 10, 12), _w('k/a', 3, 8, 2), _w('k/b', 3, 2, 10)]
    naive = [writes[0], writes[2], writes[1]]  # top-down, siblings in any order
    assert mq.check_order(naive, initial, parents)['parent'] == 'k'
    assert mq.check_order(mq.order_writes(writes), initial, parents) is None


def _random_tree(rng):
    """kubepods -> 2 qos -> pods -> containers, with consistent (parent = sum) old and new states."""
    parents, leaves = {}, []
    for q in range(2):
        qpath = 'k/q%d' % q
        parents[qpath] = 'k'
        for p in range(rng.randint(0, 3)):
            ppath = '%s/p%d' % (qpath, p)
            parents[ppath] = qpath
            for c in range(rng.randint(0, 3)):
                cpath = '%s/c%d' % (ppath, c)
                parents[cpath] = ppath
                leaves.append(cpath)

    def state():
        values = dict((leaf, {'memory.min': rng.choice([0, 4096, 8192, 40960, 409600])}) for leaf in leaves)
        for path in sorted(set(parents.values()) | set(parents), key=lambda p: -p.count('/')):
            if path not in values:
                kids = [c for c, parent in parents.items() if parent == path]
                values[path] = {'memory.min': sum(values[k]['memory.min'] for k in kids)}
        if 'k' not in values:
            values['k'] = {'memory.min': sum(values[c]['memory.min'] for c, parent in parents.items() if parent == 'k')}
        return values
    return parents, state(), state()


def _min_writes(old, new):
    """The memory.min writes from state ``old`` to state ``new`` of :func:`_random_tree`, unordered."""
    return [_w(path, path.count('/'), old[path]['memory.min'], new[path]['memory.min'])
            for path in new if old[path]['memory.min'] != new[path]['memory.min']]


@pytest.mark.parametrize('seed', range(200))
def test_order_writes_never_leaves_parent_below_children(seed):
    rng = random.Random(seed)
    parents, old, new = _random_tree(rng)
    writes = _min_writes(old, new)
    rng.shuffle(writes)
    ordered = mq.order_writes(writes)
    assert mq.check_order(ordered, old, parents) is None
    # and the replay ends in the new state
    state = dict((p, dict(v)) for p, v in old.items())
    for w in ordered:
        state[w['cgroup']]['memory.min'] = int(w['new'])
    assert state == new


# ---------------------------------------------------------------- node plan (pure, on a snapshot)
def _snapshot_for(plans, kubepods='kubepods.slice', qos=('kubepods.slice/kubepods-burstable.slice',
                                                         'kubepods.slice/kubepods-besteffort.slice'),
                  container_values=None, extra=None):
    snap = {kubepods: {'memory.min': 0, 'memory.low': 0, 'memory.high': 'max'}}
    children = {kubepods: list(qos)}
    for path in qos:
        snap[path] = {'memory.min': 0, 'memory.low': 0}
        children[path] = []
    for plan in plans:
        parent = plan['cgroup'].rsplit('/', 1)[0]
        children.setdefault(parent, []).append(plan['cgroup'])
        if parent == kubepods:
            pass
        snap[plan['cgroup']] = {'memory.min': 0, 'memory.low': 0}
        children[plan['cgroup']] = []
        for entry in plan['containers']:
            if entry['cgroup']:
                snap[entry['cgroup']] = dict(container_values or {'memory.high': 'max', 'memory.low': 0, 'memory.min': 0})
                children[plan['cgroup']].append(entry['cgroup'])
    for path, values in (extra or {}).items():
        snap[path] = values
    return snap, children


def test_plan_node_sums_levels_and_is_idempotent():
    pods = [make_pod('a', qos='Burstable', containers=[container('x', {'memory': '1Gi'}, {'memory': '1Gi'}),
                                                       container('y', {'memory': '1Gi'}, {'memory': '512Mi'})]),
            make_pod('g', qos='Guaranteed', containers=[container('x', {'memory': '2Gi'}, {'memory': '2Gi'})])]
    plans = [vq.pod_plan(p, {'ratios': R}, 'systemd', '', 4096) for p in pods]
    snap, children = _snapshot_for(plans)
    top = {'kubepods': 'kubepods.slice', 'qos': ['kubepods.slice/kubepods-burstable.slice',
                                                 'kubepods.slice/kubepods-besteffort.slice']}
    result = mq.plan_node(plans, snap, children, top, True, 4096)
    levels = dict((lv['cgroup'], lv) for lv in result['levels'])
    pod_a = levels[plans[0]['cgroup']]
    c_min = [mq.page_round(GI * 10 // 100, 4096), mq.page_round(512 * MI * 10 // 100, 4096)]
    assert pod_a['expected']['memory.min'] == str(sum(c_min))
    assert levels['kubepods.slice/kubepods-burstable.slice']['expected']['memory.min'] == str(sum(c_min))
    g_min = mq.page_round(2 * GI * 10 // 100, 4096)
    assert levels['kubepods.slice']['expected']['memory.min'] == str(sum(c_min) + g_min)
    assert all(int(w['new']) % 4096 == 0 for w in result['writes'] if w['new'] != 'max')
    assert mq.check_order(result['writes'], snap, _parents(children)) is None

    # apply the writes to the snapshot: the second plan has nothing to do
    for w in result['writes']:
        snap[w['cgroup']][w['file']] = mq.parse_value(w['new'])
    again = mq.plan_node(plans, snap, children, top, True, 4096)
    assert again['writes'] == [] and again['written'] == 0
    assert again['unchanged'] == result['unchanged'] + result['written']


def _parents(children):
    return dict((kid, parent) for parent, kids in children.items() for kid in kids)


def test_plan_node_counts_foreign_children_at_actual_value():
    """A sandbox scope or an unmanaged pod keeps its value and still counts in its parent's sum."""
    pod = make_pod('a', containers=[container('x', {'memory': '1Gi'}, {'memory': '1Gi'})])
    plan = vq.pod_plan(pod, {'ratios': R}, 'systemd', '', 4096)
    snap, children = _snapshot_for([plan])
    sandbox = plan['cgroup'] + '/cri-containerd-' + 'f' * 64 + '.scope'
    snap[sandbox] = {'memory.min': 8192, 'memory.low': 0, 'memory.high': 'max'}
    children[plan['cgroup']].append(sandbox)
    other = 'kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podother.slice'
    snap[other] = {'memory.min': 4096 * 100, 'memory.low': 4096}
    children['kubepods.slice/kubepods-burstable.slice'].append(other)
    result = mq.plan_node([plan], snap, children, {'kubepods': 'kubepods.slice',
                                                   'qos': ['kubepods.slice/kubepods-burstable.slice']}, True, 4096)
    levels = dict((lv['cgroup'], lv) for lv in result['levels'])
    cmin = mq.page_round(GI // 10, 4096)
    assert levels[plan['cgroup']]['expected']['memory.min'] == str(cmin + 8192)
    assert levels['kubepods.slice/kubepods-burstable.slice']['expected']['memory.min'] == str(cmin + 8192 + 409600)
    assert levels['kubepods.slice/kubepods-burstable.slice']['expected']['memory.low'] == str(
        mq.page_round(GI // 5, 4096) + 4096)
    assert not any(w['cgroup'] in (sandbox, other) for w in result['writes'])


def test_plan_node_without_hierarchy_writes_only_containers():
    pod = make_pod('a', containers=[container('x', {'memory': '1Gi'}, {'memory': '1Gi'})])
    plan = vq.pod_plan(pod, {'ratios': R}, 'systemd', '', 4096)
    snap, children = _snapshot_for([plan])
    result = mq.plan_node([plan], snap, children, {'kubepods': 'kubepods.slice', 'qos': []}, False, 4096)
    assert result['levels'] == []
    assert set(w['level'] for w in result['writes']) == {mq.LEVEL_CONTAINER}
    assert len(result['writes']) == 3


def test_plan_node_skips_vanished_and_memoryless_cgroups():
    pods = [make_pod('gone'), make_pod('nomem'), make_pod('ok')]
    plans = [vq.pod_plan(p, {'ratios': R}, 'systemd', '', 4096) for p in pods]
    snap, children = _snapshot_for(plans)
    del snap[plans[0]['cgroup']]
    snap[plans[1]['containers'][0]['cgroup']] = {}
    result = mq.plan_node(plans, snap, children, {'kubepods': 'kubepods.slice', 'qos': []}, True, 4096)
    by_name = dict((p['name'], p) for p in result['pods'])
    assert 'not found' in by_name['gone']['skipped']
    assert 'memory controller is not enabled' in by_name['nomem']['containers'][0]['skipped']
    assert by_name['ok']['containers'][0]['changed'] is True
    assert result['skipped'] == 2
    # only the memoryless container is a problem (a vanished pod is routine); 2 containers were found
    assert result['containers_found'] == 2
    assert [(p['kind'], p['pod'], p['container'], p['cgroup']) for p in result['problems']] == [
        ('no_memory_controller', 'team/nomem', 'app', plans[1]['containers'][0]['cgroup'])]


def test_plan_node_reports_invalid_pods_containers_and_memoryless_levels():
    pods = [make_pod('baduid'), make_pod('badcid', cids={'app': 'docker://../../x'}), make_pod('ok')]
    pods[0]['metadata']['uid'] = 'NOT-A-UID'
    plans = [vq.pod_plan(p, {'ratios': R}, 'systemd', '', 4096) for p in pods]
    snap, children = _snapshot_for(plans[2:])
    snap[plans[1]['cgroup']] = {'memory.min': 0, 'memory.low': 0}
    snap[plans[2]['cgroup']] = {}   # the pod itself has no memory.min/low
    result = mq.plan_node(plans, snap, children, {'kubepods': 'kubepods.slice', 'qos': []}, True, 4096)
    problems = [(p['kind'], p['pod'], p['container'], p['level']) for p in result['problems']]
    assert problems == [('invalid', 'team/baduid', None, None), ('invalid', 'team/badcid', 'app', None),
                        ('no_memory_controller', 'team/ok', None, 'pod')]
    assert 'allowed' in result['problems'][1]['reason'] and result['containers_found'] == 1


def test_plan_node_reset_lowers_levels_children_first():
    pod = make_pod('a', containers=[container('x', {'memory': '1Gi'}, {'memory': '1Gi'})])
    plan = vq.pod_plan(pod, {'ratios': co.MEMORY_QOS_RESET}, 'systemd', '', 4096)
    snap, children = _snapshot_for([plan], container_values={'memory.high': 858992640, 'memory.low': 4096 * 10,
                                                             'memory.min': 4096 * 5})
    for path in (plan['cgroup'], 'kubepods.slice/kubepods-burstable.slice', 'kubepods.slice'):
        snap[path].update({'memory.min': 4096 * 5, 'memory.low': 4096 * 10})
    result = mq.plan_node([plan], snap, children, {'kubepods': 'kubepods.slice',
                                                   'qos': ['kubepods.slice/kubepods-burstable.slice']}, True, 4096)
    order = [(w['level'], w['file']) for w in result['writes'] if w['file'] != 'memory.high']
    assert [o[0] for o in order] == sorted([o[0] for o in order], reverse=True)
    assert {w['new'] for w in result['writes']} == {'0', 'max'}
    assert mq.check_order(result['writes'], snap, _parents(children)) is None


@pytest.mark.parametrize('ratios_before,ratios_after', list(itertools.permutations(
    [{'highRatio': 100, 'lowRatio': 0, 'minRatio': 0}, {'highRatio': 80, 'lowRatio': 50, 'minRatio': 30},
     {'highRatio': 50, 'lowRatio': 100, 'minRatio': 100}], 2)))
def test_plan_node_transitions_keep_invariant(ratios_before, ratios_after):
    """Go from one configuration to another on a mixed node; every intermediate state is consistent."""
    pods = [make_pod('p%d' % i, qos=q, containers=[container('c%d' % j, {'memory': '%dMi' % (100 * (j + 1))},
                                                             {'memory': '%dMi' % (50 * (j + i + 1))}) for j in range(3)])
            for i, q in enumerate(['Burstable', 'Guaranteed', 'BestEffort', 'Burstable'])]
    top = {'kubepods': 'kubepods.slice', 'qos': ['kubepods.slice/kubepods-burstable.slice',
                                                 'kubepods.slice/kubepods-besteffort.slice']}
    before = [vq.pod_plan(p, {'ratios': ratios_before}, 'systemd', '', 4096) for p in pods]
    snap, children = _snapshot_for(before)
    for w in mq.plan_node(before, snap, children, top, True, 4096)['writes']:
        snap[w['cgroup']][w['file']] = mq.parse_value(w['new'])
    after = [vq.pod_plan(p, {'ratios': ratios_after}, 'systemd', '', 4096) for p in pods]
    result = mq.plan_node(after, snap, children, top, True, 4096)
    assert mq.check_order(result['writes'], snap, _parents(children)) is None


# ---------------------------------------------------------------- Volcano parity
READY = {'type': 'Ready', 'status': 'True'}


# Volcano v1.15.0 pkg/agent/events/probes/pods/pods.go enqueuePod: Ready=True and no deletionTimestamp.
@pytest.mark.parametrize('pod,handled', [
    ({'status': {'conditions': [READY]}}, True),
    ({'status': {'phase': 'Pending', 'conditions': [{'type': 'PodScheduled', 'status': 'True'}, READY]}}, True),
    ({'status': {'conditions': [{'type': 'Ready', 'status': 'False'}]}}, False),
    ({'status': {'conditions': [{'type': 'Ready', 'status': 'Unknown'}]}}, False),
    ({'status': {'phase': 'Running'}}, False),
    ({'metadata': {'deletionTimestamp': '2026-11-29T09:00:00Z'}, 'status': {'conditions': [READY]}}, False),
    ({}, False),
])
def test_pod_handled_like_the_agents_pod_probe(pod, handled):
    assert (vq.pod_handled(pod) is None) is handled


def test_batch_memory_name_is_configurable():
    # cmd/agent/app/options/options.go --extend-resource-memory-name; memoryqosv2 getMemoryQuantity
    resources = {'memory': '4Gi', 'example.com/memory': '2Gi', 'kubernetes.io/batch-memory': '1Gi'}
    assert vq.memory_bytes(resources, -1) == 2 ** 30
    assert vq.memory_bytes(resources, -1, batch_memory='example.com/memory') == 2 * 2 ** 30
    assert vq.memory_bytes(resources, 2, batch_memory='example.com/memory') == 4 * 2 ** 30   # LC: memory


def _volcano_int64(quantity, ratio):
    """What Volcano's memoryqosv2 handler computes: quantity.Value() * int64(ratio) / 100 in Go int64
    (two's complement wrap on the product, division truncating toward zero)."""
    product = (quantity * ratio) & (2 ** 64 - 1)
    if product >= 2 ** 63:
        product -= 2 ** 64
    return int(product / 100) if product < 0 else product // 100


def test_huge_quantities_exact_where_volcano_wraps():
    # Deliberate deviation (docs/memory_qos.md): 1Ei x highRatio 80 wraps to 0 in Volcano (memory.high 0
    # would throttle the container to nothing); we compute exactly.
    ei = 2 ** 60
    assert _volcano_int64(ei, 80) == 0
    values = vq.container_values({'resources': {'limits': {'memory': '1Ei'}, 'requests': {'memory': '1Ei'}}},
                                 {'highRatio': 80, 'lowRatio': 50, 'minRatio': 10}, 0)
    assert values[mq.MEMORY_HIGH] == ei * 80 // 100
    assert values[mq.MEMORY_LOW] == ei // 2 != _volcano_int64(ei, 50)    # Volcano: 1Ei x 50 wraps as well
    # below the wrap (quantity x ratio < 2**63, about 92 PB / ratio) both agree exactly
    assert _volcano_int64(3 * 2 ** 30 + 7, 33) == (3 * 2 ** 30 + 7) * 33 // 100


def _entry(changed=False, drift=(), skipped=None):
    return {'changed': changed, 'drift': list(drift), 'skipped': skipped}


@pytest.mark.parametrize('containers,pod_skipped,listed', [
    ([_entry(), _entry()], None, False),
    ([_entry(), _entry(changed=True)], None, True),
    ([_entry(drift=['memory.low'])], None, True),
    ([_entry(skipped='container not running')], None, True),
    ([], 'cgroup vanished', True),
    ([], None, False),
])
def test_report_entries_changes(containers, pod_skipped, listed):
    pod = {'name': 'p', 'skipped': pod_skipped, 'containers': containers}
    levels = [dict(_entry(), cgroup='kubepods.slice'), dict(_entry(drift=['memory.min']), cgroup='kubepods.slice/x'),
              dict(_entry(skipped='gone'), cgroup='kubepods.slice/y')]
    pods, shown = mq.report_entries([pod], levels, 'changes')
    assert pods == ([pod] if listed else [])
    assert [level['cgroup'] for level in shown] == ['kubepods.slice/x', 'kubepods.slice/y']
    every, all_levels = mq.report_entries([pod], levels, 'all')
    assert every == [pod] and all_levels == levels
    assert every[0] is pod   # entries are passed on as they are


def test_report_entries_unknown_mode():
    with pytest.raises(mq.MemQosError, match="allowed: all, changes"):
        mq.report_entries([], [], 'some')


def _with_api_noise(pod):
    """The pod as kube-apiserver returns it: fields memory_qos never reads added everywhere."""
    pod = copy.deepcopy(pod)
    pod['metadata'].update(managedFields=[{'manager': 'kubelet', 'operation': 'Update', 'fieldsV1': {'f:status': {}}}],
                           resourceVersion='4711', generation=1, ownerReferences=[{'kind': 'ReplicaSet', 'name': 'x'}])
    pod['spec'].update(volumes=[{'name': 'data', 'emptyDir': {}}], restartPolicy='Always', schedulerName='volcano',
                       initContainers=[{'name': 'init', 'image': 'busybox', 'resources': {'limits': {'memory': '1Gi'}}}])
    for container_spec in pod['spec']['containers']:
        container_spec.update(image='registry.example/app:1', env=[{'name': 'A', 'value': 'b' * 200}],
                              volumeMounts=[{'name': 'data', 'mountPath': '/data'}], livenessProbe={'tcpSocket': {'port': 80}})
    pod['status'].update(hostIP='10.0.0.1', podIP='10.1.0.7', startTime='2026-01-01T00:00:00Z')
    for status in pod['status'].get('containerStatuses') or []:
        status.update(image='registry.example/app:1', imageID='sha256:' + 'a' * 64, restartCount=0, ready=True)
    return pod


def test_slim_pods_keeps_exactly_the_fields_read():
    pod = make_pod('p', labels={'tier': 'offline'}, annotations={'volcano.sh/qos-level': 'BE'},
                   containers=[container('a', {'memory': '2Gi'}, {'memory': '1Gi'})])
    noisy = _with_api_noise(pod)
    slim = mq.slim_pods([noisy])[0]
    assert 'managedFields' not in slim['metadata'] and 'volumes' not in slim['spec'] and 'initContainers' not in slim['spec']
    assert slim['spec']['containers'] == [{'name': 'a', 'resources': pod['spec']['containers'][0]['resources']}]
    assert set(slim['status']['containerStatuses'][0]) <= {'name', 'containerID', 'state'}
    assert slim['metadata']['labels'] == pod['metadata']['labels']
    assert slim['metadata']['annotations'] == pod['metadata']['annotations']
    assert slim['status']['conditions'] == pod['status']['conditions']
    # nothing is added: a field absent before is absent after
    bare = {'metadata': {'name': 'x'}, 'spec': {}}
    assert mq.slim_pods([bare]) == [bare]
    assert len(json.dumps(slim)) < len(json.dumps(noisy)) / 2


@pytest.mark.parametrize('document', [
    'text', 7, None, {'kind': 'Service'}, [1, 'x', None, {'metadata': 'not a mapping'}],
    [{'metadata': {'name': 'p'}, 'spec': 'not a mapping', 'status': ['x']}],
    [{'metadata': {'name': 'p'}, 'spec': {'containers': 'no list'}, 'status': {'containerStatuses': [3]}}],
    [{'metadata': {'name': 'p'}, 'spec': {'containers': [5, {'name': 'a', 'image': 'i'}]}}],
])
def test_slim_pods_keeps_what_it_cannot_read(document):
    """Bad input reaches the module as it was given, so its error message does not depend on the slimming."""
    slim = mq.slim_pods(copy.deepcopy(document))
    if isinstance(document, list) and len(document) == 1 and isinstance(document[0].get('spec'), dict) \
            and isinstance(document[0]['spec'].get('containers'), list):
        assert slim[0]['spec']['containers'][0] == 5 and slim[0]['spec']['containers'][1] == {'name': 'a'}
    else:
        assert slim == document


def test_slim_pods_document_shapes():
    pod = _with_api_noise(make_pod('p', containers=[container('a', {'memory': '1Gi'})]))
    one = mq.slim_pods([pod])[0]
    assert mq.slim_pods({'kind': 'PodList', 'apiVersion': 'v1', 'items': [pod]}) == {'kind': 'PodList', 'apiVersion': 'v1', 'items': [one]}
    assert mq.slim_pods({'resources': [pod], 'changed': False}) == {'resources': [one], 'changed': False}
    assert mq.slim_pods(dict(pod, kind='Pod')) == dict(one, kind='Pod')


# ---------------------------------------------------------------- systemd units (held values, calls)
@pytest.mark.parametrize('cgroup, unit', [
    ('kubepods.slice', 'kubepods.slice'),
    ('kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1_2.slice', 'kubepods-burstable-pod1_2.slice'),
    ('kubepods.slice/kubepods-pod1.slice/cri-containerd-abc.scope', 'cri-containerd-abc.scope'),
    ('kubepods.slice/kubepods-pod1.slice/crio-abc.scope/', 'crio-abc.scope'),
    ('kubepods/burstable/pod1/abc', None),
    ('kubepods', None),
    ('kubepods/.slice', None),
    ('', None),
])
def test_systemd_unit(cgroup, unit):
    assert mq.systemd_unit(cgroup) == unit


def test_set_property_argv_says_infinity_for_max_and_ends_options():
    assert mq.set_property_argv('cri-containerd-a.scope', {'memory.high': 'max', 'memory.low': '8192',
                                                           'memory.min': '4096'}) == [
        'systemctl', 'set-property', '--runtime', '--', 'cri-containerd-a.scope',
        'MemoryHigh=infinity', 'MemoryLow=8192', 'MemoryMin=4096']


def test_show_argv():
    assert mq.show_argv(['a.slice', 'b.scope']) == [
        'systemctl', 'show', '--property=Id,LoadState,MemoryHigh,MemoryLow,MemoryMin', '--', 'a.slice', 'b.scope']


def test_parse_unit_properties():
    text = ('Id=a.slice\nLoadState=loaded\nMemoryHigh=infinity\nMemoryLow=0\nMemoryMin=0\n\n'
            'Id=b.scope\nLoadState=loaded\nMemoryHigh=107372544\nMemoryLow=33554432\nMemoryMin=16777216\n\n'
            'Id=gone.scope\nLoadState=not-found\nMemoryHigh=infinity\nMemoryLow=0\nMemoryMin=0\n\n'
            'Id=odd.scope\r\nLoadState=loaded\r\nMemoryHigh=12%\r\nMemoryLow=\r\nMemoryMin=4096\r\n')
    assert mq.parse_unit_properties(text) == {
        'a.slice': {'memory.high': 'max', 'memory.low': 0, 'memory.min': 0},
        'b.scope': {'memory.high': 107372544, 'memory.low': 33554432, 'memory.min': 16777216},
        # a value neither infinity nor bytes is left out: the write then goes through with held None
        'odd.scope': {'memory.min': 4096},
    }
    assert mq.parse_unit_properties('') == {}


def _sw(cgroup, name, old, new, level, via='systemd'):
    return dict(_w(cgroup, level, old, new, name), via=via)


def test_write_batches_group_a_units_consecutive_writes_and_its_high():
    writes = [
        _sw('k/q/p/c1.scope', 'memory.high', 'max', 8192, 3),   # a decrease: first
        _sw('k/q/p/c2.scope', 'memory.low', 8192, 0, 3),
        _sw('k/q/p/c2.scope', 'memory.min', 8192, 0, 3),
        _sw('k/q/p.slice', 'memory.low', 0, 4096, 2),
        _sw('k/q/p/c1.scope', 'memory.low', 0, 4096, 3),
        _sw('k/q/p/c1.scope', 'memory.min', 0, 4096, 3),
        _sw('k/q/p/c3', 'memory.low', 0, 4096, 3, via='file'),
        _sw('k/q/p/c3', 'memory.min', 0, 4096, 3, via='file'),
        _sw('k/q/p/c4.scope', 'memory.high', 'max', 8192, 3),   # a high alone: a call of its own
    ]
    batches = mq.write_batches(writes)
    assert [[(w['cgroup'].rsplit('/', 1)[-1], w['file']) for w in b] for b in batches] == [
        [('c2.scope', 'memory.low'), ('c2.scope', 'memory.min')],
        [('p.slice', 'memory.low')],
        [('c1.scope', 'memory.high'), ('c1.scope', 'memory.low'), ('c1.scope', 'memory.min')],
        [('c3', 'memory.low')],
        [('c3', 'memory.min')],
        [('c4.scope', 'memory.high')],
    ]
    assert sorted(id(w) for b in batches for w in b) == sorted(id(w) for w in writes)


@pytest.mark.parametrize('seed', range(100))
def test_write_batches_keep_the_order_invariant(seed):
    rng = random.Random(seed)
    parents, old, new = _random_tree(rng)
    writes = [dict(w, via=rng.choice(['systemd', 'file'])) for w in _min_writes(old, new)]
    for leaf in [p for p in parents if p.count('/') == 3]:
        if rng.random() < 0.5:
            writes.append(dict(_w(leaf, 3, 'max', 4096, 'memory.high'), via='systemd'))
    rng.shuffle(writes)
    flat = [w for b in mq.write_batches(mq.order_writes(writes)) for w in b]
    assert sorted(id(w) for w in flat) == sorted(id(w) for w in writes)
    assert mq.check_order(flat, old, parents) is None


def test_plan_node_counts_what_systemd_holds():
    pods = [make_pod('a', qos='Burstable', containers=[container('x', {'memory': '1Gi'}, {'memory': '1Gi'})])]
    plans = [vq.pod_plan(p, {'ratios': R}, 'systemd', '', 4096) for p in pods]
    snap, children = _snapshot_for(plans)
    top = {'kubepods': 'kubepods.slice', 'qos': ['kubepods.slice/kubepods-burstable.slice',
                                                 'kubepods.slice/kubepods-besteffort.slice']}
    first = mq.plan_node(plans, snap, children, top, True, 4096)
    for w in first['writes']:
        snap[w['cgroup']][w['file']] = mq.parse_value(w['new'])
    # the files are right; systemd holds its defaults for every unit: each value is written again
    defaults = dict((path, {'memory.min': 0, 'memory.low': 0, 'memory.high': 'max'}) for path in snap)
    held = mq.plan_node(plans, snap, children, top, True, 4096, held=defaults)
    assert sorted((w['cgroup'], w['file']) for w in held['writes']) == sorted(
        (w['cgroup'], w['file']) for w in first['writes'])
    for w in held['writes']:
        assert w['old'] == w['new'] and w['held'] == ('max' if w['file'] == 'memory.high' else '0'), w
    container_entry = held['pods'][0]['containers'][0]
    assert container_entry['drift'] and container_entry['actual'] == container_entry['expected']
    assert container_entry['held'] == {'memory.high': 'max', 'memory.low': '0', 'memory.min': '0'}
    assert {lv['cgroup']: lv['held'] for lv in held['levels'] if lv['held']}['kubepods.slice'] == {
        'memory.low': '0', 'memory.min': '0'}
    assert all(c['held'] == {} for p in first['pods'] for c in p['containers'])
    # systemd holds the values: nothing to do; a unit systemd holds nothing readable for: written (held None)
    right = dict((path, dict(values)) for path, values in snap.items())
    assert mq.plan_node(plans, snap, children, top, True, 4096, held=right)['writes'] == []
    right['kubepods.slice'] = {}
    again = mq.plan_node(plans, snap, children, top, True, 4096, held=right)
    assert [(w['cgroup'], w['held']) for w in again['writes']] == [('kubepods.slice', None)] * 2
    # cgroups that are not units (absent from held) count by their files only
    assert mq.plan_node(plans, snap, children, top, True, 4096, held={})['writes'] == []


@pytest.mark.parametrize('value', ['-0.5', '-1m', '-1Mi'])
def test_a_negative_memory_quantity_is_refused_before_rounding(value):
    # Quantity.Value() would round -0.5 up to 0; the sign is judged on the exact quantity first
    with pytest.raises(mq.MemQosError) as err:
        mq.quantity_bytes({'memory': value}, 'memory', 'spec.containers[0].resources.requests')
    assert str(err.value) == ("spec.containers[0].resources.requests[memory] is %r; allowed: a non-negative memory "
                              "quantity" % value)


@pytest.mark.parametrize('value, expected', [('0', 0), ('0.5', 1), ('1m', 1), ('1Ki', 1024), (None, 0)])
def test_memory_quantities_are_whole_bytes_rounded_up(value, expected):
    assert mq.quantity_bytes({'memory': value}, 'memory') == expected
