# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ``kubelet`` memory-QoS flavour: the values the kubelet's own memory QoS (feature gate MemoryQoS) gives.

Read from the kubelet 1.37 sources (k8s.io/kubernetes v1.37.2); each rule names the file and function, and
docs/memory_qos.md lists them with the differences:

* inputs: the KubeletConfiguration's ``memoryReservationPolicy`` (``None``, the default, or
  ``TieredReservation``) and ``memoryThrottlingFactor`` (unset by default: no memory.high), and the Node's
  allocatable memory with the kubelet's hard eviction threshold for memory (``evictionHard`` ``memory.available``,
  100Mi by default) and the node's pre-allocated huge pages added back: the memory.high of a container without a
  memory limit is taken of the kubelet's GetNodeAllocatableAbsolute (capacity minus systemReserved and
  kubeReserved, pkg/kubelet/cm/node_container_manager_linux.go), while the Node's status.allocatable also
  subtracts the threshold (GetNodeAllocatableReservation) and every ``hugepages-<size>`` of its capacity
  (pkg/kubelet/nodestatus/setters.go, MachineInfo); a percentage threshold is taken of the memory capacity
  (pkg/kubelet/eviction/api/types.go, GetThresholdQuantity; the percentage a float32);
* container (pkg/kubelet/kuberuntime/kuberuntime_container_linux.go, generateLinuxContainerResources): with
  ``TieredReservation`` and a memory request, memory.min = request in a Guaranteed pod, memory.low = request
  otherwise; else both 0. memory.high, only with a throttling factor and when request != limit or there is no
  request: ``floor(floor(request + (limit or allocatable - request) * factor) / page) * page`` in float64,
  kept only when above the request (else ``max``);
* pod (pkg/kubelet/cm/helpers_linux.go, ResourceConfigForPod): with ``TieredReservation`` and a pod memory
  request (component-helpers resource.PodRequests: the containers' sum, at least each init container's need,
  sidecars added, plus the overhead), memory.min = it for a Guaranteed pod, memory.low = it for a Burstable one;
* QoS levels (pkg/kubelet/cm/qos_container_manager_linux.go, setMemoryQoS and getQoSMemoryRequests): with
  ``TieredReservation``, G and B the memory requests of the active Guaranteed and Burstable pods:
  kubepods memory.min = G + B, memory.low = B, the Burstable cgroup memory.low = B; with ``None`` the kubelet
  resets the Burstable memory.low and kubepods' memory.min/low to 0 when it starts (Start).

A file the kubelet does not set holds what the cgroup was created with: memory.high ``max``, memory.min and
memory.low 0.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import math
import struct

from ansible_collections.numaops.colocation.plugins.module_utils import memqos as mq
from ansible_collections.numaops.colocation.plugins.module_utils import pod_resources as pr
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.common import (
    DEFAULT_EVICTION_MEMORY, IGNORED_EVICTION_PERCENTAGES)

NONE = 'None'
TIERED = 'TieredReservation'
POLICIES = (NONE, TIERED)
CONFIG_KEYS = ('memory_reservation_policy', 'memory_throttling_factor', 'allocatable_memory',
               'eviction_hard_memory_available', 'capacity_memory', 'hugepages_capacity')
TERMINAL_PHASES = ('Succeeded', 'Failed')


_quantity = mq.exact_quantity


_value = mq.whole_bytes


def _refuse(field, value, error):
    """The flavour's policy for a bad quantity in a pod: refuse the pod, naming the field (a negative value in the
    words of memqos.exact_quantity)."""
    raise mq.MemQosError(pr.describe(field, value, error, mq.NON_NEGATIVE_MEMORY))


def pod_memory_request(pod):
    """Bytes of the pod's memory request as the kubelet counts it.

    component-helpers resource/helpers.go, PodRequests (module_utils/pod_resources.py): the sum of
    spec.containers; a restartable init container (restartPolicy Always, a sidecar) adds to that sum; each
    other init container needs itself plus the sidecars before it; the pod needs the largest of these; pod-level
    spec.resources.requests replace the containers' sum; spec.overhead is added. Summed exactly, then rounded up.
    """
    return _value(pr.pod_requests(pod, names=('memory',), bad=_refuse).get('memory', 0))


def _float32(value):
    return struct.unpack('f', struct.pack('f', value))[0]


def eviction_reservation(threshold, capacity, where='flavour_config'):
    """Bytes the kubelet reserves for its hard eviction threshold of memory: a quantity, or a percentage of the
    memory ``capacity`` (bytes; None: not given); None is the kubelet's default (100Mi), 0% and 100% are ignored
    as the kubelet ignores them. pkg/kubelet/eviction/helpers.go parseThresholdStatement and parsePercentage
    (float32(value) / 100), eviction/api/types.go GetThresholdQuantity (int64(float64(capacity) * percentage))."""
    field = where + '.eviction_hard_memory_available'
    if threshold is None:
        return DEFAULT_EVICTION_MEMORY
    text = str(threshold).strip()
    if text in IGNORED_EVICTION_PERCENTAGES:
        return 0
    if text.endswith('%'):
        try:
            percent = float(text[:-1])
        except ValueError:
            percent = -1.0
        if not 0 <= percent <= 100 or text[:-1].strip() != text[:-1]:
            raise mq.MemQosError('%s is %r; allowed: a memory quantity (the kubelet\'s evictionHard memory.available, '
                                 'default 100Mi) or a percentage from 0%% to 100%%' % (field, threshold))
        if capacity is None:
            raise mq.MemQosError('%s is the percentage %r: flavour_config.capacity_memory (the Node\'s '
                                 'status.capacity.memory) is required to know how much it is' % (field, threshold))
        return int(float(capacity) * float(_float32(_float32(percent) / 100.0)))
    return _value(_quantity(threshold, field, 'a non-negative memory quantity or a percentage'))


def hugepages_reservation(capacity, where='flavour_config'):
    """Bytes of the node's pre-allocated huge pages: the sum of the ``hugepages-<size>`` entries of ``capacity``
    (the Node's status.capacity, or only those entries; other entries are not huge pages and do not count), which
    the kubelet takes off the Node's allocatable memory (pkg/kubelet/nodestatus/setters.go, MachineInfo) but not
    off the allocatable it throttles a container without a memory limit against."""
    field = where + '.hugepages_capacity'
    if capacity is None:
        return 0
    if not isinstance(capacity, dict):
        raise mq.MemQosError('%s is %r; allowed: the Node\'s status.capacity (a dictionary; its hugepages-<size> '
                             'entries count)' % (field, capacity))
    total = 0
    for name in sorted(capacity):
        if pr.is_hugepages(name):
            total += _value(_quantity(capacity[name], '%s.%s' % (field, name)))
    return total


def memory_high(request, limit, allocatable, factor, page_size):
    """kuberuntime_container_linux.go, generateLinuxContainerResources: the container's memory.high in bytes,
    or ``'max'`` when the kubelet does not set it. ``limit`` is the container's memory limit (0: none), then the
    Node's ``allocatable`` memory counts instead (0: unknown). float64 arithmetic, as the kubelet computes it."""
    if factor is None or (request == limit and request != 0):
        return mq.MAX
    ceiling = limit or allocatable
    if ceiling <= 0:
        return mq.MAX
    high = int(math.floor(float(request) + (float(ceiling) - float(request)) * factor) / float(page_size)) * page_size
    if high != 0 and high > request:
        return high
    return mq.MAX


class Kubelet(mq.Flavour):
    """Inputs: ``flavour_config`` (``memory_reservation_policy``, ``memory_throttling_factor``,
    ``allocatable_memory``, ``eviction_hard_memory_available``, ``capacity_memory``, ``hugepages_capacity``) and
    the module's ``page_size``."""

    name = 'kubelet'
    pod_fields = {'spec': {'initContainers': [{'name': None, 'resources': None, 'restartPolicy': None}],
                           'overhead': None, 'resources': None}}

    def __init__(self, params):
        super(Kubelet, self).__init__(params)
        if params.get('configs') is not None:
            raise mq.MemQosError('configs is an input of the volcano flavour; the kubelet flavour takes '
                                 'flavour_config (%s)' % ', '.join(CONFIG_KEYS))
        config = params.get('flavour_config') or {}
        unknown = sorted(set(config) - set(CONFIG_KEYS))
        if unknown:
            raise mq.MemQosError('flavour_config.%s is not an input of the kubelet flavour; allowed: %s'
                                 % (unknown[0], ', '.join(CONFIG_KEYS)))
        self.policy = config.get('memory_reservation_policy')
        if self.policy is None:
            self.policy = NONE
        if self.policy not in POLICIES:
            raise mq.MemQosError('flavour_config.memory_reservation_policy is %r; allowed: %s (the kubelet\'s '
                                 'memoryReservationPolicy)' % (self.policy, ' or '.join(POLICIES)))
        factor = config.get('memory_throttling_factor')
        if factor is not None:
            if isinstance(factor, bool) or not isinstance(factor, (int, float, str)):
                factor = repr(factor)
            try:
                factor = float(factor)
            except ValueError:
                factor = None
            if factor is None or not (0 < factor <= 1.0):
                raise mq.MemQosError('flavour_config.memory_throttling_factor is %r; allowed: a number greater than '
                                     '0 and at most 1.0 (the kubelet\'s memoryThrottlingFactor), or null for none'
                                     % (config.get('memory_throttling_factor'),))
        self.factor = factor
        self.allocatable = 0
        if config.get('allocatable_memory') is not None:
            self.allocatable = _value(_quantity(config['allocatable_memory'], 'flavour_config.allocatable_memory'))
            capacity = None
            if config.get('capacity_memory') is not None:
                capacity = _value(_quantity(config['capacity_memory'], 'flavour_config.capacity_memory'))
            # the kubelet's node allocatable before eviction and huge pages (GetNodeAllocatableAbsolute)
            self.allocatable += eviction_reservation(config.get('eviction_hard_memory_available'), capacity)
            self.allocatable += hugepages_reservation(config.get('hugepages_capacity'))
        elif factor is not None:
            raise mq.MemQosError('flavour_config.allocatable_memory is required with memory_throttling_factor: the '
                                 'Node\'s status.allocatable.memory, which the kubelet uses for a container '
                                 'without a memory limit')
        self.page_size = params.get('page_size') or 4096

    def ignored(self, pod):
        phase = ((pod or {}).get('status') or {}).get('phase')
        if phase in TERMINAL_PHASES:
            return 'the pod has finished (status.phase %s)' % phase
        return None

    def decide(self, pod):
        result = {'managed': True, 'config_name': None, 'reset': False, 'reason': None}
        resources = ((pod.get('spec') or {}).get('resources') or {})
        if resources.get('requests') or resources.get('limits'):
            return dict(result, managed=False, invalid=True,
                        reason='the pod has pod-level resources (spec.resources), which the kubelet flavour does not '
                               'cover; its cgroups are left as they are')
        qos = (pod.get('status') or {}).get('qosClass')
        try:
            request = pod_memory_request(pod)
        except mq.MemQosError as exc:
            return dict(result, managed=False, invalid=True, reason='pod %s: %s' % (mq.pod_ref(pod), exc))
        values = {mq.MEMORY_MIN: 0, mq.MEMORY_LOW: 0}
        if self.policy == TIERED and request > 0:
            values[mq.MEMORY_MIN if qos == 'Guaranteed' else mq.MEMORY_LOW] = request
        result['pod_values'] = values
        return result

    def container_values(self, pod, decision, container, index):
        resources = container.get('resources') or {}
        where = 'spec.containers[%d].resources' % index
        request = mq.quantity_bytes(resources.get('requests'), 'memory', where + '.requests')
        limit = mq.quantity_bytes(resources.get('limits'), 'memory', where + '.limits')
        values = {mq.MEMORY_HIGH: mq.MAX, mq.MEMORY_LOW: 0, mq.MEMORY_MIN: 0}
        if request != 0 and self.policy == TIERED:
            guaranteed = (pod.get('status') or {}).get('qosClass') == 'Guaranteed'
            values[mq.MEMORY_MIN if guaranteed else mq.MEMORY_LOW] = request
        values[mq.MEMORY_HIGH] = memory_high(request, limit, self.allocatable, self.factor, self.page_size)
        return values

    def level_values(self, pods):
        if self.policy != TIERED:
            zero = {mq.MEMORY_MIN: 0, mq.MEMORY_LOW: 0}
            return {'kubepods': dict(zero), 'Burstable': dict(zero), 'BestEffort': dict(zero)}
        sums = {'Guaranteed': 0, 'Burstable': 0}
        for pod in pods:
            qos = (pod.get('status') or {}).get('qosClass')
            if qos in sums:
                try:
                    sums[qos] += pod_memory_request(pod)
                except mq.MemQosError:
                    continue
        guaranteed, burstable = sums['Guaranteed'], sums['Burstable']
        return {'kubepods': {mq.MEMORY_MIN: guaranteed + burstable, mq.MEMORY_LOW: burstable},
                'Burstable': {mq.MEMORY_MIN: 0, mq.MEMORY_LOW: burstable},
                'BestEffort': {mq.MEMORY_MIN: 0, mq.MEMORY_LOW: 0}}
