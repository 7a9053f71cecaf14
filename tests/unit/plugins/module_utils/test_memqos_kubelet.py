# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kubelet flavour against the kubelet 1.37 sources (k8s.io/kubernetes v1.37.2).

Every expected value below is worked out by hand from the function each vector names; the flavour's own
functions are never used to compute an expectation.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import memqos as mq
from ansible_collections.numaops.colocation.plugins.module_utils.memqos_flavours import kubelet as kq
from ansible_collections.numaops.colocation.tests.standins.podgen import container, make_pod

MI = 2 ** 20
GI = 2 ** 30
# allocatable_memory as the kubelet's node allocatable before eviction: no eviction threshold to add back
TIERED = {'memory_reservation_policy': 'TieredReservation', 'memory_throttling_factor': 0.9,
          'allocatable_memory': '1536Mi', 'eviction_hard_memory_available': '0'}
NONE_09 = {'memory_reservation_policy': 'None', 'memory_throttling_factor': 0.9, 'allocatable_memory': '1Gi',
           'eviction_hard_memory_available': '0'}

CONTAINER = 'pkg/kubelet/kuberuntime/kuberuntime_container_linux.go, generateLinuxContainerResources'
POD = 'pkg/kubelet/cm/helpers_linux.go, ResourceConfigForPod'
REQUESTS = 'staging/src/k8s.io/component-helpers/resource/helpers.go, PodRequests / aggregateContainerResourcesByFn'
QOS = 'pkg/kubelet/cm/qos_container_manager_linux.go, setMemoryQoS / getQoSMemoryRequests'
START = 'pkg/kubelet/cm/qos_container_manager_linux.go, Start (reset when the policy is None)'
DEFAULTS = 'pkg/kubelet/apis/config/v1beta1/defaults.go (policy None) and apis/config/types.go (factor nil: no memory.high)'


def flavour(config, page_size=4096):
    return kq.Kubelet({'flavour_config': config, 'page_size': page_size})


# (id, source, config, qos class, limits, requests, expected high, low, min)
CONTAINER_VECTORS = [
    ('tiered guaranteed: min = request, no high (request == limit)', CONTAINER, TIERED, 'Guaranteed',
     {'memory': '1Gi'}, {'memory': '1Gi'}, 'max', 0, GI),
    # floor(512Mi + (1Gi - 512Mi) * 0.9) = 1020054732; / 4096 -> 249036 pages = 1020051456
    ('tiered burstable: low = request, high = request + (limit - request) * factor, page-floored', CONTAINER, TIERED,
     'Burstable', {'memory': '1Gi'}, {'memory': '512Mi'}, 1020051456, 512 * MI, 0),
    ('policy None: min and low 0, high still set', CONTAINER, NONE_09, 'Burstable',
     {'memory': '1Gi'}, {'memory': '512Mi'}, 1020051456, 0, 0),
    ('no throttling factor: no memory.high', DEFAULTS, {'memory_reservation_policy': 'TieredReservation'},
     'Burstable', {'memory': '1Gi'}, {'memory': '512Mi'}, 'max', 512 * MI, 0),
    ('the kubelet defaults: nothing set', DEFAULTS, {}, 'Burstable', {'memory': '1Gi'}, {'memory': '512Mi'},
     'max', 0, 0),
    # no limit: allocatable 1536Mi; 256Mi + (1536Mi - 256Mi) * 0.9 = 1476395008, already whole pages
    ('no limit: node allocatable instead', CONTAINER, TIERED, 'Burstable', None, {'memory': '256Mi'},
     1476395008, 256 * MI, 0),
    # a zero limit counts as none (memoryLimitSpec == 0)
    ('zero limit: node allocatable instead', CONTAINER, TIERED, 'Burstable', {'memory': '0'}, {'memory': '256Mi'},
     1476395008, 256 * MI, 0),
    # best effort: 0 + 1Gi * 0.9 = 966367641.6 -> floor 966367641 -> 235929 pages = 966365184
    ('best effort: factor of allocatable', CONTAINER, NONE_09, 'BestEffort', None, None, 966365184, 0, 0),
    ('tiered, limit but no request: min/low 0 (request 0), high from the limit', CONTAINER, TIERED, 'Burstable',
     {'memory': '1Gi'}, None, 966365184, 0, 0),
    ('factor 1.0: high = limit', CONTAINER, dict(TIERED, memory_throttling_factor=1.0), 'Burstable',
     {'memory': '1Gi'}, {'memory': '512Mi'}, GI, 512 * MI, 0),
    # 1000 + (1001 - 1000) * 0.9 = 1000.9 -> 1000 -> 0 pages -> 0: not above the request, not set
    ('high not above the request: not set', CONTAINER, TIERED, 'Burstable', {'memory': '1001'}, {'memory': '1000'},
     'max', 1000, 0),
    # request == allocatable, no limit: high = request, not above it
    ('no limit, request = allocatable: not set', CONTAINER, dict(TIERED, allocatable_memory='1Gi'), 'Burstable',
     None, {'memory': '1Gi'}, 'max', GI, 0),
    # 1e9 + 1e9 * 0.5 = 1.5e9 -> 366210 pages = 1499996160
    ('decimal quantities', CONTAINER, dict(TIERED, memory_throttling_factor=0.5), 'Burstable', {'memory': '2G'},
     {'memory': '1G'}, 1499996160, 10 ** 9, 0),
    # the Node's status.allocatable is the kubelet's GetNodeAllocatableAbsolute minus the hard eviction threshold
    # (GetNodeAllocatableReservation); the threshold is added back, 100Mi by default (eviction DefaultEvictionHard):
    # (1Gi + 100Mi) * 0.9 = 1060739481.6 -> 258969 pages = 1060737024
    ('no limit: status.allocatable plus the default eviction threshold',
     'pkg/kubelet/cm/node_container_manager_linux.go, GetNodeAllocatableAbsolute / GetNodeAllocatableReservation',
     {'memory_throttling_factor': 0.9, 'allocatable_memory': '1Gi'}, 'BestEffort', None, None, 1060737024, 0, 0),
    # 5% of 2Gi: float32(5) / 100 = 0.0500000007...; 2147483648 x it = 107374184 (not 107374182: the float32);
    # (1Gi + 107374184) * 0.9 = 1063004407.2 -> 259522 pages = 1063002112
    ('no limit: a percentage threshold of the capacity, as a float32',
     'pkg/kubelet/eviction/helpers.go, parsePercentage; eviction/api/types.go, GetThresholdQuantity',
     {'memory_throttling_factor': 0.9, 'allocatable_memory': '1Gi', 'eviction_hard_memory_available': '5%',
      'capacity_memory': '2Gi'}, 'BestEffort', None, None, 1063002112, 0, 0),
    # 100% (and 0%) are ignored by the kubelet (parseThresholdStatement): nothing reserved, nothing added back;
    # 1Gi * 0.9 = 966367641.6 -> 235929 pages = 966365184
    ('no limit: a 100% threshold is ignored', 'pkg/kubelet/eviction/helpers.go, parseThresholdStatement',
     {'memory_throttling_factor': 0.9, 'allocatable_memory': '1Gi', 'eviction_hard_memory_available': '100%'},
     'BestEffort', None, None, 966365184, 0, 0),
    # the Node's status.allocatable has its pre-allocated huge pages taken off too (pkg/kubelet/nodestatus/setters.go,
    # MachineInfo), the kubelet's GetNodeAllocatableAbsolute does not: 24Mi of 2Mi pages added back, the entries of
    # status.capacity that are not huge pages ignored; (1Gi + 100Mi + 24Mi) * 0.8 = 963012198.4 -> 235110 pages
    # = 963010560
    ('no limit: status.allocatable plus the eviction threshold and the huge pages',
     'pkg/kubelet/nodestatus/setters.go, MachineInfo; pkg/kubelet/cm/node_container_manager_linux.go',
     {'memory_throttling_factor': 0.8, 'allocatable_memory': '1Gi',
      'hugepages_capacity': {'hugepages-2Mi': '24Mi', 'hugepages-1Gi': '0', 'cpu': '2', 'memory': '2Gi'}},
     'BestEffort', None, None, 963010560, 0, 0),
    # Quantity.Value() rounds 100m up to 1 byte
    ('milli quantity rounds up', CONTAINER, {'memory_reservation_policy': 'TieredReservation'}, 'Burstable',
     None, {'memory': '100m'}, 'max', 1, 0),
]


@pytest.mark.parametrize('source,config,qos,limits,requests,high,low,minimum', [v[1:] for v in CONTAINER_VECTORS],
                         ids=[v[0] for v in CONTAINER_VECTORS])
def test_container_values(source, config, qos, limits, requests, high, low, minimum):
    pod = make_pod('p', qos=qos, containers=[container('c', limits, requests)])
    flav = flavour(config)
    values = flav.container_values(pod, flav.decide(pod), pod['spec']['containers'][0], 0)
    assert values == {'memory.high': high, 'memory.low': low, 'memory.min': minimum}, source


def test_memory_high_is_floored_to_the_node_page_size():
    """kuberuntime_container_linux.go: defaultPageSize is os.Getpagesize(); 64 KiB pages:
    1020054732 / 65536 -> 15564 pages = 1020002304."""
    pod = make_pod('p', containers=[container('c', {'memory': '1Gi'}, {'memory': '512Mi'})])
    flav = flavour(TIERED, page_size=65536)
    assert flav.container_values(pod, {}, pod['spec']['containers'][0], 0)['memory.high'] == 1020002304


def _pod(qos='Burstable', containers=None, init=None, overhead=None, phase='Running'):
    pod = make_pod('p', qos=qos, containers=containers or [container('c', None, {'memory': '256Mi'})], phase=phase)
    if init is not None:
        pod['spec']['initContainers'] = init
    if overhead is not None:
        pod['spec']['overhead'] = overhead
    return pod


def _init(name, request, sidecar=False):
    entry = {'name': name, 'resources': {'requests': {'memory': request}}}
    if sidecar:
        entry['restartPolicy'] = 'Always'
    return entry


POD_VECTORS = [
    # (id, source, pod, expected memory request)
    ('two containers summed', REQUESTS,
     _pod(containers=[container('a', None, {'memory': '256Mi'}), container('b', None, {'memory': '512Mi'})]), 768 * MI),
    ('an init container needing more than the containers', REQUESTS, _pod(init=[_init('i', '1Gi')]), GI),
    ('a sidecar adds, a later init container needs itself plus the sidecar', REQUESTS,
     _pod(init=[_init('s', '128Mi', sidecar=True), _init('i', '512Mi')]), 640 * MI),
    ('an init container before the sidecar needs only itself', REQUESTS,
     _pod(init=[_init('i', '512Mi'), _init('s', '128Mi', sidecar=True)]), 512 * MI),
    ('overhead added', REQUESTS, _pod(overhead={'memory': '64Mi'}), 320 * MI),
    ('summed exactly, rounded up once', REQUESTS,
     _pod(containers=[container('a', None, {'memory': '100m'}), container('b', None, {'memory': '100m'})]), 1),
    ('no requests', REQUESTS, _pod(qos='BestEffort', containers=[container('a')]), 0),
]


@pytest.mark.parametrize('source,pod,expected', [v[1:] for v in POD_VECTORS], ids=[v[0] for v in POD_VECTORS])
def test_pod_memory_request(source, pod, expected):
    assert kq.pod_memory_request(pod) == expected, source


@pytest.mark.parametrize('config,qos,expected', [
    (TIERED, 'Guaranteed', {'memory.min': 256 * MI, 'memory.low': 0}),
    (TIERED, 'Burstable', {'memory.min': 0, 'memory.low': 256 * MI}),
    (TIERED, 'BestEffort', {'memory.min': 0, 'memory.low': 0}),
    (NONE_09, 'Guaranteed', {'memory.min': 0, 'memory.low': 0}),
], ids=['tiered guaranteed: min', 'tiered burstable: low', 'tiered best effort (no request)', 'policy None'])
def test_pod_values(config, qos, expected):
    """helpers_linux.go, ResourceConfigForPod: Unified memory.min (Guaranteed) or memory.low (Burstable) = the pod's
    memory request, only with TieredReservation and a request."""
    pod = _pod(qos=qos, containers=[container('c', None, {'memory': '256Mi'} if qos != 'BestEffort' else None)])
    assert flavour(config).decide(pod)['pod_values'] == expected, POD


def test_qos_levels_tiered():
    """qos_container_manager_linux.go, setMemoryQoS: kubepods min = G + B, low = B; Burstable low = B; the requests
    of the active pods (getQoSMemoryRequests), best effort pods not counted."""
    pods = [_pod('Guaranteed', [container('g', {'memory': '1Gi'}, {'memory': '1Gi'})]),
            _pod('Burstable', [container('b', {'memory': '1Gi'}, {'memory': '512Mi'})]),
            _pod('Burstable', [container('b', None, {'memory': '256Mi'})], init=[_init('i', '300Mi')]),
            _pod('BestEffort', [container('e')])]
    levels = flavour(TIERED).level_values(pods)
    assert levels == {'kubepods': {'memory.min': GI + 812 * MI, 'memory.low': 812 * MI},
                      'Burstable': {'memory.min': 0, 'memory.low': 812 * MI},
                      'BestEffort': {'memory.min': 0, 'memory.low': 0}}, QOS


def test_qos_levels_policy_none_are_reset():
    levels = flavour(NONE_09).level_values([_pod('Guaranteed', [container('g', {'memory': '1Gi'}, {'memory': '1Gi'})])])
    assert all(v == {'memory.min': 0, 'memory.low': 0} for v in levels.values()) and len(levels) == 3, START


def test_which_pods():
    """The kubelet sets the values when it creates a container, whether the pod is Ready or being deleted; the QoS
    sums count the active pods (not finished)."""
    flav = flavour(TIERED)
    assert flav.ignored(_pod(phase='Succeeded')) and flav.ignored(_pod(phase='Failed'))
    pending = _pod(phase='Running')
    pending['status']['conditions'] = [{'type': 'Ready', 'status': 'False'}]
    pending['metadata']['deletionTimestamp'] = '2026-01-01T00:00:00Z'
    assert flav.ignored(pending) is None and flav.decide(pending)['managed'] is True
    pod_level = _pod()
    pod_level['spec']['resources'] = {'limits': {'memory': '1Gi'}}
    decision = flav.decide(pod_level)
    assert decision['managed'] is False and decision['invalid'] and 'spec.resources' in decision['reason']


@pytest.mark.parametrize('config,message', [
    ({'memory_reservation_policy': 'Tiered'}, "flavour_config.memory_reservation_policy is 'Tiered'; allowed: None or TieredReservation"),
    ({'memory_throttling_factor': 0, 'allocatable_memory': '1Gi'}, 'memory_throttling_factor is 0; allowed: a number greater than 0 and at most 1.0'),
    ({'memory_throttling_factor': 1.5, 'allocatable_memory': '1Gi'}, 'memory_throttling_factor is 1.5'),
    ({'memory_throttling_factor': 'lots', 'allocatable_memory': '1Gi'}, "memory_throttling_factor is 'lots'"),
    ({'memory_throttling_factor': True, 'allocatable_memory': '1Gi'}, 'memory_throttling_factor is True'),
    ({'memory_throttling_factor': 0.9}, 'flavour_config.allocatable_memory is required with memory_throttling_factor'),
    ({'allocatable_memory': 'much'}, "invalid quantity 'much' for flavour_config.allocatable_memory"),
    ({'allocatable_memory': '1Gi', 'eviction_hard_memory_available': '5%'},
     "flavour_config.eviction_hard_memory_available is the percentage '5%': flavour_config.capacity_memory"),
    ({'allocatable_memory': '1Gi', 'eviction_hard_memory_available': '150%', 'capacity_memory': '2Gi'},
     "flavour_config.eviction_hard_memory_available is '150%'; allowed: a memory quantity"),
    ({'allocatable_memory': '1Gi', 'eviction_hard_memory_available': 'lots'},
     "invalid quantity 'lots' for flavour_config.eviction_hard_memory_available"),
    ({'allocatable_memory': '1Gi', 'eviction_hard_memory_available': '-100Mi'},
     "flavour_config.eviction_hard_memory_available is '-100Mi'; allowed: a non-negative memory quantity or a percentage"),
    ({'allocatable_memory': '1Gi', 'capacity_memory': 'all'}, "invalid quantity 'all' for flavour_config.capacity_memory"),
    ({'allocatable_memory': '-1Gi'}, "flavour_config.allocatable_memory is '-1Gi'; allowed: a non-negative memory quantity"),
    ({'allocatable_memory': '1Gi', 'capacity_memory': '-0.5'},
     "flavour_config.capacity_memory is '-0.5'; allowed: a non-negative memory quantity"),
    ({'allocatable_memory': '1Gi', 'hugepages_capacity': '24Mi'},
     "flavour_config.hugepages_capacity is '24Mi'; allowed: the Node's status.capacity (a dictionary"),
    ({'allocatable_memory': '1Gi', 'hugepages_capacity': {'hugepages-2Mi': '-2Mi'}},
     "flavour_config.hugepages_capacity.hugepages-2Mi is '-2Mi'; allowed: a non-negative memory quantity"),
    ({'allocatable_memory': '1Gi', 'hugepages_capacity': {'hugepages-2Mi': 'many'}},
     "invalid quantity 'many' for flavour_config.hugepages_capacity.hugepages-2Mi"),
    ({'memoryThrottlingFactor': 0.9}, 'flavour_config.memoryThrottlingFactor is not an input of the kubelet flavour; '
                                      'allowed: memory_reservation_policy, memory_throttling_factor, allocatable_memory'),
])
def test_bad_inputs_name_the_key_and_what_is_allowed(config, message):
    with pytest.raises(mq.MemQosError) as err:
        flavour(config)
    assert message in str(err.value)


def test_configs_belong_to_the_volcano_flavour():
    with pytest.raises(mq.MemQosError) as err:
        kq.Kubelet({'flavour_config': {}, 'configs': []})
    assert 'configs is an input of the volcano flavour' in str(err.value)


def test_a_bad_request_skips_the_container_or_pod_with_the_field():
    flav = flavour(TIERED)
    pod = _pod(containers=[container('c', None, {'memory': 'lots'})])
    with pytest.raises(mq.MemQosError) as err:
        flav.container_values(pod, {}, pod['spec']['containers'][0], 0)
    assert "invalid quantity 'lots' for spec.containers[0].resources.requests[memory]" in str(err.value)
    negative = _pod(containers=[container('c', None, {'memory': '-1Mi'})])
    with pytest.raises(mq.MemQosError) as err:
        flav.container_values(negative, {}, negative['spec']['containers'][0], 0)
    assert ("spec.containers[0].resources.requests[memory] is '-1Mi'; allowed: a non-negative memory quantity"
            in str(err.value))
    decision = flav.decide(pod)
    assert decision['managed'] is False and decision['invalid'] and 'team/p' in decision['reason']
