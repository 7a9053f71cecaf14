# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The koordinator flavour against the Koordinator sources.

Every expected value below is worked out by hand from the Koordinator function each vector names (its file in
the repository and the function); the flavour's own functions are never used to compute an expectation. The
sources are Koordinator's main branch after the tag in ``UPSTREAM``; the tag itself differs only where
``BE_SIDECAR`` says.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import cgroup as cg
from ansible_collections.numaops.colocation.plugins.module_utils import memqos as mq
from ansible_collections.numaops.colocation.plugins.module_utils.memqos_flavours import koordinator as kq
from ansible_collections.numaops.colocation.tests.standins.podgen import container, make_pod

UPSTREAM = 'https://github.com/koordinator-sh/koordinator/tree/v1.8.0'
BE_SIDECAR = ('pkg/util/pod_resources_utils.go, GetPodBEMemoryByteRequestIgnoreUnlimited: sidecar init containers '
              'count on main, not in v1.8.0')
MI = 2 ** 20
GI = 2 ** 30
MAX = 'max'

# The Koordinator files and functions the vectors follow.
CONTAINER = 'pkg/koordlet/qosmanager/plugins/cgreconcile/cgroup_reconcile.go, calculateContainerResources'
POD = 'pkg/koordlet/qosmanager/plugins/cgreconcile/cgroup_reconcile.go, calculatePodResources'
QOS_SUM = ('pkg/koordlet/qosmanager/plugins/cgreconcile/cgroup_reconcile.go, updateCgroupSummaryForQoS / '
           'completeCgroupSummaryForQoS')
MERGE_POD = 'pkg/koordlet/qosmanager/plugins/cgreconcile/cgroup_reconcile.go, mergePodResourceQoSForMemoryQoS'
POD_ANNOTATION = 'apis/slo/v1alpha1/pod.go, GetPodMemoryQoSConfig'
MERGE_SLO = 'pkg/koordlet/statesinformer/impl/states_nodeslo.go, mergeSLOSpecResourceQOSStrategy'
DISABLED = 'pkg/koordlet/statesinformer/impl/states_nodeslo.go, mergeNoneMemoryQOSIfDisabled'
DEFAULTS = 'pkg/util/sloconfig/nodeslo_config.go, DefaultResourceQOSStrategy / DefaultMemoryQOS'
CLASS = 'apis/extension/qos_utils.go, GetPodQoSClassWithDefault / GetPodQoSClassWithKubeQoS'
CLASS_NAME = 'apis/extension/qos.go, GetPodQoSClassByName'
STRATEGY = 'pkg/koordlet/qosmanager/helpers/property.go, GetPodResourceQoSByQoSClass'
INACTIVE = 'pkg/util/pod.go, IsPodInactive'
POD_REQUEST = 'pkg/util/pod_resources_utils.go, GetPodRequest (component-helpers resource.PodRequests)'
BE_REQUEST = 'pkg/util/pod_resources_utils.go, GetPodBEMemoryByteRequestIgnoreUnlimited'
BATCH = 'pkg/util/extended_resource.go, GetContainerBatchMemoryByteRequest / GetContainerBatchMemoryByteLimit'
LIMIT = 'pkg/util/container.go, GetContainerMemoryByteLimit'
TYPES = 'apis/slo/v1alpha1/nodeslo_types.go, MemoryQOS (validate: min=0, max=100)'


def slo(**classes):
    """A NodeSLO whose resourceQOSStrategy has ``classes`` ({'lsClass': memoryQOS object, ...})."""
    strategy = dict((name, {'memoryQOS': memory_qos}) for name, memory_qos in classes.items())
    return {'apiVersion': 'slo.koordinator.sh/v1alpha1', 'kind': 'NodeSLO', 'metadata': {'name': 'node-1'},
            'spec': {'resourceQOSStrategy': strategy}}


def on(minimum=None, low=None, throttling=None, enable=True):
    memory_qos = {'enable': enable}
    for key, value in ((kq.MIN, minimum), (kq.LOW, low), (kq.THROTTLING, throttling)):
        if value is not None:
            memory_qos[key] = value
    return memory_qos


# The node of most vectors: every class enabled with its own percentages (min, low, throttling).
NODE = slo(lsrClass=on(50, 80, 90), lsClass=on(20, 60, 80), beClass=on(10, 20, 50), systemClass=on(10, 0, 0))
ALLOCATABLE = '1536Mi'


def flavour(node_slo=None, allocatable=ALLOCATABLE, page_size=4096):
    config = {'node_slo': NODE if node_slo is None else node_slo}
    if allocatable is not None:
        config['allocatable_memory'] = allocatable
    return kq.Koordinator({'flavour_config': config, 'page_size': page_size})


def pod(qos='Burstable', label=None, containers=None, annotations=None, phase='Running', **extra):
    labels = {} if label is None else {kq.LABEL_QOS: label}
    result = make_pod('p', qos=qos, labels=labels, annotations=annotations, phase=phase,
                      containers=containers or [container('c', {'memory': '1Gi'}, {'memory': '512Mi'})])
    result['spec'].update(extra)
    return result


def values(flav, the_pod, index=0):
    decision = flav.decide(the_pod)
    return flav.container_values(the_pod, decision, the_pod['spec']['containers'][index], index)


# ---------------------------------------------------------------- the NodeSLO and its defaults
STRATEGY_VECTORS = [
    # (id, source, NodeSLO, class field, expected (min, low, throttling))
    ('an empty spec: the defaults, every percentage 0', DEFAULTS, {'kind': 'NodeSLO', 'spec': {}}, 'lsClass', (0, 0, 0)),
    ('no resourceQOSStrategy: the defaults', MERGE_SLO, {'spec': {'cpuBurstStrategy': {}}}, 'beClass', (0, 0, 0)),
    ('an enabled class keeps its percentages', MERGE_SLO, slo(lsClass=on(50, 60, 70)), 'lsClass', (50, 60, 70)),
    ('enable false: every percentage 0 (NoneMemoryQOS)', DISABLED, slo(lsClass=on(50, 60, 70, enable=False)),
     'lsClass', (0, 0, 0)),
    ('enable absent is the default false: 0', DISABLED, slo(lsrClass={kq.MIN: 50}), 'lsrClass', (0, 0, 0)),
    ('systemClass is not zeroed when disabled', DISABLED, slo(systemClass=on(40, 30, 20, enable=False)),
     'systemClass', (40, 30, 20)),
    ('a missing percentage keeps the default 0', MERGE_SLO, slo(beClass=on(low=30)), 'beClass', (0, 30, 0)),
    ('null is a missing field (omitempty)', MERGE_SLO, slo(lsClass={'enable': True, kq.MIN: None, kq.LOW: 10}),
     'lsClass', (0, 10, 0)),
    ('100 everywhere', TYPES, slo(lsrClass=on(100, 100, 100)), 'lsrClass', (100, 100, 100)),
    ('the other classes keep the defaults', MERGE_SLO, slo(lsClass=on(50, 60, 70)), 'lsrClass', (0, 0, 0)),
    ('memoryQOS null: the defaults', MERGE_SLO, slo(lsClass=None), 'lsClass', (0, 0, 0)),
]


@pytest.mark.parametrize('source,node_slo,name,expected', [v[1:] for v in STRATEGY_VECTORS],
                         ids=[v[0] for v in STRATEGY_VECTORS])
def test_strategy_percents(source, node_slo, name, expected):
    got = kq.strategy_percents(node_slo)[name]
    assert (got[kq.MIN], got[kq.LOW], got[kq.THROTTLING]) == expected, source


# ---------------------------------------------------------------- the class of a pod
CLASS_VECTORS = [
    # (id, source, label, Kubernetes QoS class, expected class, batch memory, strategy field)
    ('SYSTEM label', CLASS_NAME, 'SYSTEM', 'Burstable', 'SYSTEM', False, 'systemClass'),
    ('LSE label reads the LSR settings', STRATEGY, 'LSE', 'Guaranteed', 'LSE', False, 'lsrClass'),
    ('LSR label', CLASS_NAME, 'LSR', 'Guaranteed', 'LSR', False, 'lsrClass'),
    ('LS label', CLASS_NAME, 'LS', 'Guaranteed', 'LS', False, 'lsClass'),
    ('BE label: batch memory', CLASS_NAME, 'BE', 'BestEffort', 'BE', True, 'beClass'),
    ('BE label on a Burstable pod: batch memory', CLASS, 'BE', 'Burstable', 'BE', True, 'beClass'),
    ('no label, Guaranteed: LSR', CLASS, None, 'Guaranteed', 'LSR', False, 'lsrClass'),
    ('no label, Burstable: LS', CLASS, None, 'Burstable', 'LS', False, 'lsClass'),
    ('no label, BestEffort: BE without batch memory', CLASS, None, 'BestEffort', 'BE', False, 'beClass'),
    ('an unknown label is no class: from the QoS class', CLASS_NAME, 'ls', 'Burstable', 'LS', False, 'lsClass'),
    ('an empty label is no class', CLASS_NAME, '', 'Guaranteed', 'LSR', False, 'lsrClass'),
]


@pytest.mark.parametrize('source,label,qos,expected,batch,field', [v[1:] for v in CLASS_VECTORS],
                         ids=[v[0] for v in CLASS_VECTORS])
def test_pod_class(source, label, qos, expected, batch, field):
    the_pod = pod(qos=qos, label=label)
    assert kq.pod_class(the_pod) == (expected, label == expected), source
    assert kq.STRATEGY_FIELD[expected] == field
    decision = flavour().decide(the_pod)
    assert decision['managed'] and decision['config_name'] == expected and decision['batch'] is batch
    assert bool(decision.get('invalid')) is (label not in (None,) + kq.CLASSES)


# ---------------------------------------------------------------- containers
def c(limits=None, requests=None):
    return container('c', limits, requests)


CONTAINER_VECTORS = [
    # (id, source, label, QoS class, container, NodeSLO (None: NODE), expected high, low, min before page rounding)
    ('LSR label, request = limit: min 50 %, low 80 %, high the limit', CONTAINER, 'LSR', 'Guaranteed',
     c({'memory': '1Gi'}, {'memory': '1Gi'}), None, GI, 858993459, 536870912),
    # 512Mi * 20 / 100 = 107374182; * 60 / 100 = 322122547; 512Mi + 512Mi * 80 / 100 = 966367641 -> 235929 pages
    ('LS from Burstable: high between request and limit, page-floored', CONTAINER, None, 'Burstable',
     c({'memory': '1Gi'}, {'memory': '512Mi'}), None, 966365184, 322122547, 107374182),
    # 256Mi + (1536Mi - 256Mi) * 80 / 100 = 1342177280 (whole pages)
    ('no limit: the node allocatable instead', CONTAINER, None, 'Burstable', c(None, {'memory': '256Mi'}), None,
     1342177280, 161061273, 53687091),
    ('a zero limit counts as none', LIMIT, None, 'Burstable', c({'memory': '0'}, {'memory': '256Mi'}), None,
     1342177280, 161061273, 53687091),
    ('the defaults: 0, 0, max', DEFAULTS, None, 'Burstable', c({'memory': '1Gi'}, {'memory': '512Mi'}),
     {'spec': {}}, MAX, 0, 0),
    ('throttlingPercent 0 is max (MaxInt64)', CONTAINER, 'SYSTEM', 'Burstable', c({'memory': '1Gi'}, {'memory': '1Gi'}),
     None, MAX, 0, 107374182),
    ('throttlingPercent 100: high = limit', CONTAINER, None, 'Burstable', c({'memory': '1Gi'}, {'memory': '512Mi'}),
     slo(lsClass=on(0, 0, 100)), GI, 0, 0),
    ('min and low 100: the request', CONTAINER, None, 'Burstable', c({'memory': '1Gi'}, {'memory': '512Mi'}),
     slo(lsClass=on(100, 100, 0)), MAX, 512 * MI, 512 * MI),
    # 1Gi * 50 / 100 = 536870912 > 1Gi * 20 / 100 = 214748364
    ('low raised to min when 0 < low < min', CONTAINER, None, 'Burstable', c({'memory': '2Gi'}, {'memory': '1Gi'}),
     slo(lsClass=on(50, 20, 0)), MAX, 536870912, 536870912),
    ('low 0 stays 0 below min', CONTAINER, None, 'Burstable', c({'memory': '2Gi'}, {'memory': '1Gi'}),
     slo(lsClass=on(50, 0, 0)), MAX, 0, 536870912),
    # (1000000 + 0) / 4096 * 4096 = 999424 < min 1000000
    ('high raised to min when 0 < high < min', CONTAINER, None, 'Guaranteed',
     c({'memory': '1000000'}, {'memory': '1000000'}), slo(lsrClass=on(100, 0, 50)), 1000000, 0, 1000000),
    # 0 + 1Gi * 80 / 100 = 858993459 -> 209715 pages
    ('a limit and no request: min and low 0', CONTAINER, None, 'Burstable', c({'memory': '1Gi'}), None,
     858992640, 0, 0),
    # 0 + 1536Mi * 50 / 100 = 805306368
    ('BestEffort without label: BE settings, allocatable', CONTAINER, None, 'BestEffort', c(), None, 805306368, 0, 0),
    # batch: 512Mi * 10 / 100 = 53687091, * 20 / 100 = 107374182, 512Mi + 512Mi * 50 / 100 = 805306368
    ('BE label: the batch memory, not memory', BATCH, 'BE', 'Burstable',
     c({'memory': '4Gi', kq.BATCH_MEMORY: '1Gi'}, {'memory': '2Gi', kq.BATCH_MEMORY: '512Mi'}), None,
     805306368, 107374182, 53687091),
    ('BE label, batch limit only: request 0', BATCH, 'BE', 'BestEffort', c({kq.BATCH_MEMORY: '1Gi'}), None,
     536870912, 0, 0),
    ('BE label, memory limit but no batch limit: allocatable', BATCH, 'BE', 'Burstable',
     c({'memory': '1Gi'}, {'memory': '512Mi'}), None, 805306368, 0, 0),
    ('LS label ignores batch memory', CONTAINER, 'LS', 'Burstable',
     c({'memory': '1Gi', kq.BATCH_MEMORY: '8Gi'}, {'memory': '512Mi', kq.BATCH_MEMORY: '4Gi'}), None,
     966365184, 322122547, 107374182),
    ('SYSTEM: systemClass applies though disabled', DISABLED, 'SYSTEM', 'Guaranteed',
     c({'memory': '1Gi'}, {'memory': '1Gi'}), slo(systemClass=on(10, 0, 0, enable=False)), MAX, 0, 107374182),
    ('LSE: the LSR settings', STRATEGY, 'LSE', 'Guaranteed', c({'memory': '1Gi'}, {'memory': '1Gi'}), None,
     GI, 858993459, 536870912),
    # 1e9 * 20 / 100, * 60 / 100; 1e9 + 1e9 * 80 / 100 = 1.8e9 -> 439453 pages = 1799999488
    ('decimal quantities', CONTAINER, None, 'Burstable', c({'memory': '2G'}, {'memory': '1G'}), None,
     1799999488, 600000000, 200000000),
    # Quantity.Value() rounds 100m up to 1 byte: min 1 * 20 / 100 = 0; 1 + 1610612735 * 80 / 100 = 1288490189
    ('milli quantity rounds up to a byte', CONTAINER, None, 'Burstable', c(None, {'memory': '100m'}), None,
     1288486912, 0, 0),
    # 2Gi + (1536Mi - 2Gi) * 80 / 100 = 2147483648 - 429496729 (truncated toward zero) -> 419430 pages
    ('allocatable below the request: negative headroom', CONTAINER, None, 'Burstable', c(None, {'memory': '2Gi'}),
     None, 1717985280, 1288490188, 429496729),
    ('extended resources other than batch memory are not read', CONTAINER, None, 'Burstable',
     c({'memory': '1Gi', 'example.com/gpu': '1', 'hugepages-2Mi': '1Gi'}, {'memory': '512Mi', 'example.com/gpu': '1'}),
     None, 966365184, 322122547, 107374182),
]


@pytest.mark.parametrize('source,label,qos,cont,node_slo,high,low,minimum', [v[1:] for v in CONTAINER_VECTORS],
                         ids=[v[0] for v in CONTAINER_VECTORS])
def test_container_values(source, label, qos, cont, node_slo, high, low, minimum):
    the_pod = pod(qos=qos, label=label, containers=[cont])
    assert values(flavour(node_slo), the_pod) == {'memory.high': high, 'memory.low': low, 'memory.min': minimum}, source


def test_memory_high_is_floored_to_the_node_page_size():
    """cgroup_reconcile.go, calculateContainerResources: system.PageSize is the node's page size (64 KiB pages:
    966367641 / 65536 -> 14745 pages = 966328320)."""
    the_pod = pod(containers=[c({'memory': '1Gi'}, {'memory': '512Mi'})])
    assert values(flavour(page_size=65536), the_pod)['memory.high'] == 966328320


def test_go_division_truncates_toward_zero():
    assert (kq.go_div(-7, 2), kq.go_div(7, 2), kq.go_div(-8, 2), kq.go_div(0, 5)) == (-3, 3, -4, 0)


# ---------------------------------------------------------------- the pod annotation
ANNOTATION_VECTORS = [
    # (id, source, annotation, expected (min, low, throttling) for an LS pod of NODE (20, 60, 80), warned)
    ('policy none: every percentage 0', MERGE_POD, '{"policy":"none","minLimitPercent":90}', (0, 0, 0), False),
    ('policy auto: the defaults (0), then the annotation', MERGE_POD, '{"policy":"auto","minLimitPercent":30}',
     (30, 0, 0), False),
    ('default: the node, then the annotation', MERGE_POD, '{"minLimitPercent":30}', (30, 60, 80), False),
    ('policy default spelled out', MERGE_POD, '{"policy":"default","throttlingPercent":0}', (20, 60, 0), False),
    ('keys match case-insensitively (Go)', POD_ANNOTATION, '{"MINLIMITPERCENT":30,"LowLimitPercent":10}',
     (30, 10, 80), False),
    ('invalid JSON is ignored (the node applies)', POD_ANNOTATION, '{minLimitPercent: 30}', (20, 60, 80), True),
    ('a percentage as a string is ignored whole', POD_ANNOTATION, '{"minLimitPercent":"30","lowLimitPercent":0}',
     (20, 60, 80), True),
    ('a fractional percentage is ignored whole', POD_ANNOTATION, '{"minLimitPercent":30.5}', (20, 60, 80), True),
    ('null: no pod config', POD_ANNOTATION, 'null', (20, 60, 80), False),
    ('an unknown policy is the default', MERGE_POD, '{"policy":"None","lowLimitPercent":5}', (20, 5, 80), True),
    ('a JSON array is ignored', POD_ANNOTATION, '[1,2]', (20, 60, 80), True),
]


@pytest.mark.parametrize('source,annotation,expected,warned', [v[1:] for v in ANNOTATION_VECTORS],
                         ids=[v[0] for v in ANNOTATION_VECTORS])
def test_pod_annotation(source, annotation, expected, warned):
    the_pod = pod(annotations={kq.ANNOTATION_MEMORY_QOS: annotation})
    decision = flavour().decide(the_pod)
    percents = decision['percents']
    assert (percents[kq.MIN], percents[kq.LOW], percents[kq.THROTTLING]) == expected, source
    assert decision['managed'] and bool(decision.get('invalid')) is warned
    if warned:
        assert kq.ANNOTATION_MEMORY_QOS in decision['reason'] and 'allowed' in decision['reason']


def test_the_annotation_overrides_a_disabled_class():
    """cgroup_reconcile.go, mergePodResourceQoSForMemoryQoS merges the pod's values after the NodeSLO's enable=false
    has zeroed the class (states_nodeslo.go, mergeNoneMemoryQOSIfDisabled)."""
    the_pod = pod(annotations={kq.ANNOTATION_MEMORY_QOS: '{"lowLimitPercent":40}'})
    flav = flavour(slo(lsClass=on(50, 50, 50, enable=False)))
    assert values(flav, the_pod) == {'memory.high': MAX, 'memory.low': 214748364, 'memory.min': 0}


@pytest.mark.parametrize('annotation', ['{"minLimitPercent":150}', '{"lowLimitPercent":-1}'])
def test_an_annotation_percentage_out_of_range_leaves_the_pod_alone(annotation):
    """Koordlet would apply it (150 % protects more than the request, a negative value fails the write); the
    flavour leaves the pod alone with a warning naming the field and what is allowed."""
    decision = flavour().decide(pod(annotations={kq.ANNOTATION_MEMORY_QOS: annotation}))
    assert decision['managed'] is False and decision['invalid'] is True
    assert 'allowed: an integer from 0 to 100' in decision['reason'] and 'koordinator.sh/memoryQOS' in decision['reason']


# ---------------------------------------------------------------- pods
def _init(name, requests, sidecar=False):
    entry = {'name': name, 'resources': {'requests': dict(requests)}}
    if sidecar:
        entry['restartPolicy'] = 'Always'
    return entry


POD_VECTORS = [
    # (id, source, pod, expected pod memory.min, memory.low before page rounding)
    # LS 20/60 of 768Mi: 805306368 * 20 / 100 = 161061273, * 60 / 100 = 483183820
    ('containers summed', POD_REQUEST, pod(containers=[container('a', None, {'memory': '256Mi'}),
                                                       container('b', None, {'memory': '512Mi'})]),
     161061273, 483183820),
    # 1Gi: 214748364, 644245094
    ('an init container needing more', POD_REQUEST, pod(initContainers=[_init('i', {'memory': '1Gi'})]),
     214748364, 644245094),
    # 512Mi + a 128Mi sidecar = 640Mi = 671088640: 134217728, 402653184
    ('a sidecar adds', POD_REQUEST, pod(initContainers=[_init('s', {'memory': '128Mi'}, sidecar=True)]),
     134217728, 402653184),
    # 512Mi + 64Mi = 603979776: 120795955, 362387865
    ('overhead added', POD_REQUEST, pod(overhead={'memory': '64Mi'}), 120795955, 362387865),
    # pod-level requests replace the containers' sum: 2Gi: 429496729, 1288490188
    ('pod-level requests', POD_REQUEST, pod(resources={'requests': {'memory': '2Gi'}}), 429496729, 1288490188),
    # BE 10/20 of 512Mi + 256Mi (a sidecar's batch memory) = 805306368: 80530636, 161061273
    ('BE: batch memory of containers and sidecars', BE_REQUEST + '; ' + BE_SIDECAR,
     pod(label='BE', containers=[container('a', None, {kq.BATCH_MEMORY: '512Mi', 'memory': '4Gi'}),
                                 container('b', None, {'memory': '1Gi'})],
         initContainers=[_init('s', {kq.BATCH_MEMORY: '256Mi'}, sidecar=True), _init('i', {kq.BATCH_MEMORY: '8Gi'})],
         overhead={kq.BATCH_MEMORY: '1Gi', 'memory': '1Gi'}),
     80530636, 161061273),
    ('BE: no batch memory, nothing', BE_REQUEST, pod(label='BE', containers=[c(None, {'memory': '1Gi'})]), 0, 0),
    # LSR 50/80 of a Guaranteed 1Gi pod
    ('Guaranteed without label: LSR', POD, pod(qos='Guaranteed', containers=[c({'memory': '1Gi'}, {'memory': '1Gi'})]),
     536870912, 858993459),
]


@pytest.mark.parametrize('source,the_pod,minimum,low', [v[1:] for v in POD_VECTORS], ids=[v[0] for v in POD_VECTORS])
def test_pod_values(source, the_pod, minimum, low):
    assert flavour().decide(the_pod)['pod_values'] == {'memory.min': minimum, 'memory.low': low}, source


def test_pod_low_raised_to_min():
    """cgroup_reconcile.go, calculatePodResources: 1Gi * 50 / 100 = 536870912 > 1Gi * 20 / 100 (0 < low < min)."""
    the_pod = pod(containers=[c({'memory': '2Gi'}, {'memory': '1Gi'})])
    assert flavour(slo(lsClass=on(50, 20, 0))).decide(the_pod)['pod_values'] == {
        'memory.min': 536870912, 'memory.low': 536870912}


PHASE_VECTORS = [
    # (id, source, pod, ignored)
    ('Running', INACTIVE, pod(), False),
    ('Pending', INACTIVE, pod(phase='Pending'), False),
    ('Succeeded', INACTIVE, pod(phase='Succeeded'), True),
    ('Failed', INACTIVE, pod(phase='Failed'), True),
    ('Unknown', INACTIVE, pod(phase='Unknown'), True),
    ('no phase', INACTIVE, pod(phase=None), True),
    ('not Ready: still handled', INACTIVE, make_pod('p', ready=False), False),
]


@pytest.mark.parametrize('source,the_pod,is_ignored', [v[1:] for v in PHASE_VECTORS], ids=[v[0] for v in PHASE_VECTORS])
def test_which_pods(source, the_pod, is_ignored):
    assert (flavour().ignored(the_pod) is not None) is is_ignored, source


def test_a_pod_being_deleted_is_still_handled():
    """pkg/util/pod.go, IsPodInactive looks at the phase only: a pod with a deletionTimestamp is still Running."""
    the_pod = pod()
    the_pod['metadata']['deletionTimestamp'] = '2026-11-29T09:00:00Z'
    assert flavour().ignored(the_pod) is None and flavour().decide(the_pod)['managed'] is True


# ---------------------------------------------------------------- the QoS levels
def test_level_values_are_per_class_sums_without_the_low_correction():
    """cgroup_reconcile.go, updateCgroupSummaryForQoS sums each pod's request * percent / 100 per Kubernetes QoS
    class (the low >= min correction is not applied to the sums), completeCgroupSummaryForQoS gives the
    Guaranteed level (the kubepods cgroup) the sum of all three."""
    node_slo = slo(lsrClass=on(50, 80, 0), lsClass=on(50, 20, 0), beClass=on(10, 20, 0))
    pods = [
        pod(qos='Guaranteed', containers=[c({'memory': '1Gi'}, {'memory': '1Gi'})]),          # LSR: 536870912, 858993459
        pod(containers=[c({'memory': '2Gi'}, {'memory': '1Gi'})]),                            # LS: 536870912, 214748364
        pod(label='LSR', containers=[c({'memory': '2Gi'}, {'memory': '512Mi'})]),             # LSR: 268435456, 429496729
        pod(qos='BestEffort', label='BE', containers=[c(None, {kq.BATCH_MEMORY: '1Gi'})]),    # BE: 107374182, 214748364
        pod(qos='BestEffort', containers=[c()]),                                              # BE: 0, 0
    ]
    levels = flavour(node_slo, allocatable=None).level_values(pods)
    assert levels['Burstable'] == {'memory.min': 536870912 + 268435456, 'memory.low': 214748364 + 429496729}
    assert levels['BestEffort'] == {'memory.min': 107374182, 'memory.low': 214748364}
    assert levels['kubepods'] == {'memory.min': 536870912 * 2 + 268435456 + 107374182,
                                  'memory.low': 858993459 + 214748364 + 429496729 + 214748364}
    # the LS pod's own cgroup gets the corrected low (calculatePodResources), the sum the uncorrected one
    assert flavour(node_slo, allocatable=None).decide(pods[1])['pod_values']['memory.low'] == 536870912


def test_level_values_default_node_is_zero():
    """nodeslo_config.go, DefaultMemoryQOS: every percentage 0, so every level 0."""
    levels = flavour({'spec': {}}, allocatable=None).level_values([pod(), pod(qos='Guaranteed')])
    zero = {'memory.min': 0, 'memory.low': 0}
    assert levels == {'kubepods': zero, 'Burstable': zero, 'BestEffort': zero}


# ---------------------------------------------------------------- hostile input
NODE_SLO_REFUSALS = [
    # (id, source, node_slo, allocatable, words in the message)
    ('percentage above 100', TYPES, slo(lsClass=on(150)), ALLOCATABLE,
     ['NodeSLO node-1', 'spec.resourceQOSStrategy.lsClass.memoryQOS.minLimitPercent is 150', 'from 0 to 100']),
    ('negative percentage', TYPES, slo(beClass=on(low=-1)), ALLOCATABLE,
     ['beClass.memoryQOS.lowLimitPercent is -1', 'from 0 to 100']),
    ('percentage as a string', TYPES, slo(lsrClass=on(throttling='80')), ALLOCATABLE,
     ["throttlingPercent is '80'", 'an integer']),
    ('percentage as a boolean', TYPES, slo(lsClass=on(True)), ALLOCATABLE, ['minLimitPercent is True']),
    ('fractional percentage', TYPES, slo(lsClass=on(50.5)), ALLOCATABLE, ['minLimitPercent is 50.5']),
    ('enable not a boolean', TYPES, slo(lsClass={'enable': 'yes'}), ALLOCATABLE,
     ["memoryQOS.enable is 'yes'", 'true or false']),
    ('a misspelt percentage', TYPES, slo(lsClass={'enable': True, 'minLimitPrecent': 50}), ALLOCATABLE,
     ['lsClass.memoryQOS.minLimitPrecent is not a field', 'minLimitPercent']),
    ('an unknown class', TYPES, {'spec': {'resourceQOSStrategy': {'lseClass': {}}}}, ALLOCATABLE,
     ['spec.resourceQOSStrategy.lseClass is not a field', 'lsrClass']),
    ('a class that is not an object', TYPES, {'spec': {'resourceQOSStrategy': {'lsClass': 'on'}}}, ALLOCATABLE,
     ["spec.resourceQOSStrategy.lsClass is 'on'", 'an object']),
    ('another kind', TYPES, {'kind': 'ConfigMap', 'spec': {}}, ALLOCATABLE, ["kind is 'ConfigMap'", 'NodeSLO']),
    ('not an object', TYPES, ['NodeSLO'], ALLOCATABLE, ['flavour_config.node_slo is', 'NodeSLO object']),
    ('throttling without allocatable memory', CONTAINER, NODE, None,
     ['flavour_config.allocatable_memory is required', 'status.allocatable.memory']),
    ('a bad allocatable quantity', CONTAINER, NODE, '1.5 Gi', ['flavour_config.allocatable_memory']),
    ('a negative allocatable quantity, even one that rounds up to 0', CONTAINER, NODE, '-0.5',
     ["flavour_config.allocatable_memory is '-0.5'; allowed: a non-negative memory quantity"]),
]


@pytest.mark.parametrize('source,node_slo,allocatable,words', [v[1:] for v in NODE_SLO_REFUSALS],
                         ids=[v[0] for v in NODE_SLO_REFUSALS])
def test_hostile_node_slo_is_refused(source, node_slo, allocatable, words):
    with pytest.raises(mq.MemQosError) as exc:
        flavour(node_slo, allocatable=allocatable)
    for word in words:
        assert word in str(exc.value), (source, str(exc.value))


@pytest.mark.parametrize('config,words', [
    ({}, ['flavour_config.node_slo is required', 'NodeSLO']),
    ({'node_slo': NODE, 'memory_throttling_factor': 0.9}, ['flavour_config.memory_throttling_factor is not an input',
                                                           'node_slo, allocatable_memory']),
])
def test_flavour_config_is_checked(config, words):
    with pytest.raises(mq.MemQosError) as exc:
        kq.Koordinator({'flavour_config': config})
    for word in words:
        assert word in str(exc.value)
    with pytest.raises(mq.MemQosError, match='configs is an input of the volcano flavour'):
        kq.Koordinator({'flavour_config': {'node_slo': NODE}, 'configs': []})


def test_hostile_pods_are_left_alone_with_the_reason():
    """A label that is not a string, or no Kubernetes QoS class: the pod is not managed, the reason names the
    field and what is allowed; a quantity that is not one: the same."""
    flav = flavour()
    bad_label = pod()
    bad_label['metadata']['labels'][kq.LABEL_QOS] = 3
    no_qos = pod(qos=None)
    bad_quantity = pod(containers=[c(None, {'memory': '1 Gi'})])
    for the_pod, words in ((bad_label, ['koordinator.sh/qosClass', 'SYSTEM, LSE, LSR, LS, BE']),
                           (no_qos, ['status.qosClass is None', 'Guaranteed, Burstable or BestEffort']),
                           (bad_quantity, ['spec.containers[0].resources.requests[memory]'])):
        decision = flav.decide(the_pod)
        assert decision['managed'] is False and decision['invalid'] is True
        for word in words:
            assert word in decision['reason'], decision['reason']


# ---------------------------------------------------------------- where koordlet writes: both cgroup drivers
PATHS = ('pkg/koordlet/util/system/cgroup_driver.go, cgroupPathFormatterInSystemd / cgroupPathFormatterInCgroupfs; '
         'pkg/koordlet/util/cgroup_parent_utils.go, GetPodCgroupParentDir / GetPodQoSRelativePath')
UID = '7712555c-ce62-454a-9e18-9ff0217b8941'
CID = 'a' * 64
PATH_VECTORS = [
    # (id, source, driver, QoS class, container ID, the QoS cgroup, the pod cgroup, the container cgroup)
    ('systemd Guaranteed: the kubepods cgroup is its QoS level', PATHS, 'systemd', 'Guaranteed', 'containerd://' + CID,
     'kubepods.slice', 'kubepods.slice/kubepods-pod7712555c_ce62_454a_9e18_9ff0217b8941.slice',
     'cri-containerd-%s.scope' % CID),
    ('systemd Burstable', PATHS, 'systemd', 'Burstable', 'docker://' + CID, 'kubepods.slice/kubepods-burstable.slice',
     'kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod7712555c_ce62_454a_9e18_9ff0217b8941.slice',
     'docker-%s.scope' % CID),
    ('systemd BestEffort', PATHS, 'systemd', 'BestEffort', 'cri-o://' + CID, 'kubepods.slice/kubepods-besteffort.slice',
     'kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod7712555c_ce62_454a_9e18_9ff0217b8941.slice',
     'crio-%s.scope' % CID),
    ('cgroupfs Guaranteed', PATHS, 'cgroupfs', 'Guaranteed', 'containerd://' + CID, 'kubepods',
     'kubepods/pod' + UID, CID),
    ('cgroupfs Burstable', PATHS, 'cgroupfs', 'Burstable', 'docker://' + CID, 'kubepods/burstable',
     'kubepods/burstable/pod' + UID, CID),
    ('cgroupfs BestEffort', PATHS, 'cgroupfs', 'BestEffort', 'containerd://' + CID, 'kubepods/besteffort',
     'kubepods/besteffort/pod' + UID, CID),
]


@pytest.mark.parametrize('source,driver,qos,cid,qos_dir,pod_dir,container_dir', [v[1:] for v in PATH_VECTORS],
                         ids=[v[0] for v in PATH_VECTORS])
def test_koordlet_writes_the_cgroups_the_engine_names(source, driver, qos, cid, qos_dir, pod_dir, container_dir):
    """The paths koordlet formats are the ones the engine writes (the kubelet's). One difference: koordlet names a
    CRI-O container under cgroupfs by its bare ID, CRI-O's cgroupfs manager (and the engine) crio-<id>."""
    expected_qos = cg.kubepods_path(driver) if qos == 'Guaranteed' else cg.qos_path(driver, qos)
    assert (expected_qos, cg.pod_path(driver, qos, UID)) == (qos_dir, pod_dir), source
    runtime, ident = cg.parse_container_id(cid)
    assert cg.container_dir_name(driver, runtime, ident) == container_dir


def test_an_annotation_throttling_without_allocatable_memory_skips_the_container():
    """cgroup_reconcile.go, calculateContainerResources needs the Node's allocatable memory for a container without
    a limit; when only the pod's annotation asks for throttling and none was given, the container is skipped with
    the reason (the NodeSLO case is refused up front)."""
    flav = flavour({'spec': {}}, allocatable=None)
    the_pod = pod(containers=[c(None, {'memory': '1Gi'})], annotations={kq.ANNOTATION_MEMORY_QOS: '{"throttlingPercent":50}'})
    with pytest.raises(mq.MemQosError, match='give flavour_config.allocatable_memory'):
        values(flav, the_pod)
    limited = pod(containers=[c({'memory': '2Gi'}, {'memory': '1Gi'})],
                  annotations={kq.ANNOTATION_MEMORY_QOS: '{"throttlingPercent":50}'})
    # 1Gi + 1Gi * 50 / 100 = 1610612736 (whole pages)
    assert values(flav, limited)['memory.high'] == 1610612736
