# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ``koordinator`` memory-QoS flavour: the values koordlet's cgroup reconcile writes on cgroup v2.

Read from the Koordinator sources (github.com/koordinator-sh/koordinator, main after v1.8.0); each rule names
the file and function, and docs/koordinator.md lists them with the differences:

* inputs: the node's NodeSLO, merged over Koordinator's defaults as koordlet merges it
  (pkg/koordlet/statesinformer/impl/states_nodeslo.go, mergeNodeSLOSpec; defaults in
  pkg/util/sloconfig/nodeslo_config.go, DefaultResourceQOSStrategy: every percentage 0, ``enable`` false), a class
  whose ``memoryQOS.enable`` is false getting all percentages 0 (mergeNoneMemoryQOSIfDisabled: LSR, LS and BE,
  not SYSTEM); and the Node's allocatable memory;
* a pod's class: the ``koordinator.sh/qosClass`` label (SYSTEM, LSE, LSR, LS, BE), else from its Kubernetes QoS
  class, Guaranteed LSR, Burstable LS, BestEffort BE (apis/extension/qos_utils.go, GetPodQoSClassWithDefault);
  LSE takes the LSR settings (pkg/koordlet/qosmanager/helpers/property.go, GetPodResourceQoSByQoSClass); the pod's
  ``koordinator.sh/memoryQOS`` annotation overrides them (cgroup_reconcile.go, mergePodResourceQoSForMemoryQoS);
* the values (pkg/koordlet/qosmanager/plugins/cgreconcile/cgroup_reconcile.go): container
  (calculateContainerResources) memory.min = request * minLimitPercent / 100, memory.low = request *
  lowLimitPercent / 100, memory.high = ``max`` for throttlingPercent 0, else
  ``(request + (limit - request) * throttlingPercent / 100) / page * page`` with the node's allocatable memory for
  a missing or zero limit; low raised to min when 0 < low < min, high raised to min when 0 < high < min. A pod
  labelled BE counts ``kubernetes.io/batch-memory`` instead of ``memory``. Pod (calculatePodResources):
  memory.min/low from the pod's request the same way. QoS levels (updateCgroupSummaryForQoS,
  completeCgroupSummaryForQoS): Burstable and BestEffort the sums of their pods' values, kubepods the sum over
  every pod; memory.high is written on containers only;
* which pods: every pod in phase Pending or Running (pkg/util/pod.go, IsPodInactive), Ready or not, being deleted
  or not.

Integer arithmetic truncates toward zero as Go's int64 does.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json

from ansible_collections.numaops.colocation.plugins.module_utils import koordinator, memqos as mq
from ansible_collections.numaops.colocation.plugins.module_utils.colocation import go_fold
from ansible_collections.numaops.colocation.plugins.module_utils.memqos_flavours.kubelet import pod_memory_request

# the classes and a pod's class: module_utils/koordinator.py (one place for the flavour and the NUMA view)
LABEL_QOS = koordinator.LABEL_QOS
CLASSES = koordinator.CLASSES
KUBE_QOS_CLASS = koordinator.KUBE_QOS_CLASS
pod_class = koordinator.pod_class
ANNOTATION_MEMORY_QOS = 'koordinator.sh/memoryQOS'
BATCH_MEMORY = 'kubernetes.io/batch-memory'
# pkg/koordlet/qosmanager/helpers/property.go, GetPodResourceQoSByQoSClass: the strategy each class reads.
STRATEGY_FIELD = {'SYSTEM': 'systemClass', 'LSE': 'lsrClass', 'LSR': 'lsrClass', 'LS': 'lsClass', 'BE': 'beClass'}
# pkg/koordlet/statesinformer/impl/states_nodeslo.go, mergeNoneMemoryQOSIfDisabled: enable=false zeroes these only.
ZEROED_WHEN_DISABLED = ('lsrClass', 'lsClass', 'beClass')
MIN, LOW, THROTTLING = 'minLimitPercent', 'lowLimitPercent', 'throttlingPercent'
PERCENTS = (MIN, LOW, THROTTLING)
# apis/slo/v1alpha1/nodeslo_types.go: the fields of ResourceQOSStrategy, ResourceQOS and MemoryQOS(Cfg).
STRATEGY_KEYS = ('policies', 'lsrClass', 'lsClass', 'beClass', 'systemClass', 'cgroupRoot')
RESOURCE_QOS_KEYS = ('cpuQOS', 'memoryQOS', 'blkioQOS', 'resctrlQOS', 'networkQOS')
MEMORY_QOS_KEYS = ('enable',) + PERCENTS + (
    'wmarkRatio', 'wmarkScalePermill', 'wmarkMinAdj', 'priorityEnable', 'priority', 'oomKillGroup',
    'pageCacheEnable', 'pageCacheLimitPercent', 'pageCacheLimitSize', 'pageCacheReclaimSync')
POLICIES = ('default', 'none', 'auto')
CONFIG_KEYS = ('node_slo', 'allocatable_memory')
ACTIVE_PHASES = ('Pending', 'Running')
INT64_MAX = 2 ** 63 - 1


def go_div(a, b):
    """Go's integer division: truncates toward zero (Python's // floors)."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b > 0) else -quotient


def _percent(value, field, owner):
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
        raise mq.MemQosError('%s: %s is %r; allowed: an integer from 0 to 100 (null or absent: the default)'
                             % (owner, field, value))
    return value


def _mapping(value, field, owner, keys=None):
    """``value`` as a dict (None -> {}); refuses another type and, with ``keys``, a key it does not know."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise mq.MemQosError('%s: %s is %r; allowed: an object' % (owner, field, value))
    if keys is not None:
        unknown = sorted(k for k in value if k not in keys)
        if unknown:
            raise mq.MemQosError('%s: %s.%s is not a field of it; allowed: %s'
                                 % (owner, field, unknown[0], ', '.join(keys)))
    return value


def strategy_percents(node_slo):
    """``{class: {minLimitPercent, lowLimitPercent, throttlingPercent}}`` of a NodeSLO, merged as koordlet merges it.

    pkg/koordlet/statesinformer/impl/states_nodeslo.go, mergeSLOSpecResourceQOSStrategy (the NodeSLO's fields over
    pkg/util/sloconfig/nodeslo_config.go, DefaultResourceQOSStrategy: every percentage 0, enable false) and
    mergeNoneMemoryQOSIfDisabled (enable false: NoneMemoryQOS, every percentage 0; for lsrClass, lsClass and beClass,
    not systemClass). Raises MemQosError naming the NodeSLO, the field, the value and what is allowed.
    """
    if not isinstance(node_slo, dict):
        raise mq.MemQosError('flavour_config.node_slo is %r; allowed: the node\'s NodeSLO object '
                             '(slo.koordinator.sh/v1alpha1) as the API returns it' % (node_slo,))
    meta = node_slo.get('metadata') if isinstance(node_slo.get('metadata'), dict) else {}
    owner = 'flavour_config.node_slo (NodeSLO %s)' % (meta.get('name') or '?')
    if node_slo.get('kind') not in (None, 'NodeSLO'):
        raise mq.MemQosError('%s: kind is %r; allowed: NodeSLO' % (owner, node_slo.get('kind')))
    spec = _mapping(node_slo.get('spec'), 'spec', owner)
    strategy = _mapping(spec.get('resourceQOSStrategy'), 'spec.resourceQOSStrategy', owner, STRATEGY_KEYS)
    result = {}
    for name in ('lsrClass', 'lsClass', 'beClass', 'systemClass'):
        where = 'spec.resourceQOSStrategy.%s' % name
        resource_qos = _mapping(strategy.get(name), where, owner, RESOURCE_QOS_KEYS)
        memory_qos = _mapping(resource_qos.get('memoryQOS'), where + '.memoryQOS', owner, MEMORY_QOS_KEYS)
        enable = memory_qos.get('enable')
        if enable is not None and not isinstance(enable, bool):
            raise mq.MemQosError('%s: %s.memoryQOS.enable is %r; allowed: true or false (null or absent: false)'
                                 % (owner, where, enable))
        values = dict((key, 0) for key in PERCENTS)
        for key in PERCENTS:
            if memory_qos.get(key) is not None:
                values[key] = _percent(memory_qos[key], '%s.memoryQOS.%s' % (where, key), owner)
        if name in ZEROED_WHEN_DISABLED and not enable:
            values = dict((key, 0) for key in PERCENTS)
        result[name] = values
    return result


def annotation_percents(pod, percents):
    """The percentages after the pod's ``koordinator.sh/memoryQOS`` annotation, and a warning or None.

    pkg/koordlet/qosmanager/plugins/cgreconcile/cgroup_reconcile.go, mergePodResourceQoSForMemoryQoS (and
    apis/slo/v1alpha1/pod.go, GetPodMemoryQoSConfig): policy ``none`` gives every percentage 0; ``auto`` starts from
    Koordinator's defaults for the class (every percentage 0); any other policy from the node's; the annotation's
    own percentages then override. JSON Go refuses (not an object, a percentage that is not an integer) makes
    koordlet ignore the annotation, which is what the warning says. A percentage outside 0-100 raises MemQosError
    (koordlet would protect more than the request or fail the write; the pod is left alone).
    """
    annotations = ((pod or {}).get('metadata') or {}).get('annotations') or {}
    if ANNOTATION_MEMORY_QOS not in annotations:
        return percents, None
    field = 'metadata.annotations["%s"]' % ANNOTATION_MEMORY_QOS
    raw = annotations[ANNOTATION_MEMORY_QOS]
    ignored = ('%s is %r, which koordlet cannot decode and ignores (the NodeSLO\'s values apply); allowed: a JSON '
               'object like {"policy":"default","minLimitPercent":50}' % (field, raw))
    try:
        data = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        data = None
    if data is None:
        return percents, (ignored if raw != 'null' else None)
    if not isinstance(data, dict):
        return percents, ignored
    policy, given = 'default', {}
    for key, value in data.items():
        folded = go_fold(key)
        if folded == go_fold('policy') and value is not None:
            if not isinstance(value, str):
                return percents, ignored
            policy = value
        for name in PERCENTS:
            if folded == go_fold(name) and value is not None:
                if isinstance(value, bool) or not isinstance(value, int) or not -2 ** 63 <= value < 2 ** 63:
                    return percents, ignored
                given[name] = value
    for name, value in given.items():
        if not 0 <= value <= 100:
            raise mq.MemQosError('%s.%s is %r; allowed: an integer from 0 to 100' % (field, name, value))
    warning = None
    if policy not in POLICIES + ('',):
        warning = ('%s.policy is %r, which koordlet treats as "default"; allowed: %s'
                   % (field, policy, ', '.join(POLICIES)))
    if policy == 'none':
        return dict((key, 0) for key in PERCENTS), warning
    merged = dict((key, 0) for key in PERCENTS) if policy == 'auto' else dict(percents)
    merged.update(given)
    return merged, warning


def _batch_bytes(resources, where):
    """pkg/util/extended_resource.go, GetBatchMemoryFromResourceList: the batch memory, -1 when absent."""
    if BATCH_MEMORY not in (resources or {}) or resources[BATCH_MEMORY] is None:
        return -1
    return mq.quantity_bytes(resources, BATCH_MEMORY, where)


def container_request_limit(container, batch, where):
    """``(request, limit)`` of a container, limit -1 when there is none.

    cgroup_reconcile.go, calculateContainerResources: ``requests.memory`` (0 when absent) and pkg/util/container.go,
    GetContainerMemoryByteLimit (-1 when absent); for a pod labelled BE the ``kubernetes.io/batch-memory`` quantities
    (pkg/util/extended_resource.go, GetContainerBatchMemoryByteRequest/Limit), a missing request counting 0."""
    resources = container.get('resources') or {}
    if batch:
        request = max(_batch_bytes(resources.get('requests'), where + '.requests'), 0)
        return request, _batch_bytes(resources.get('limits'), where + '.limits')
    request = mq.quantity_bytes(resources.get('requests'), 'memory', where + '.requests')
    limits = resources.get('limits') or {}
    if limits.get('memory') is None:
        return request, -1
    return request, mq.quantity_bytes(limits, 'memory', where + '.limits')


def pod_request(pod, batch):
    """The pod's memory request as koordlet counts it.

    Not labelled BE: pkg/util/pod_resources_utils.go, GetPodRequest (component-helpers resource.PodRequests: the
    containers' sum, init containers and sidecars, pod-level requests, overhead). Labelled BE:
    GetPodBEMemoryByteRequestIgnoreUnlimited, the batch memory requests of the containers and sidecar init
    containers (restartPolicy Always), a container without one counting nothing."""
    if not batch:
        return pod_memory_request(pod)
    spec = (pod or {}).get('spec') or {}
    total = 0
    for kind, items in (('containers', spec.get('containers') or []), ('initContainers', spec.get('initContainers') or [])):
        for index, container in enumerate(items):
            if kind == 'initContainers' and container.get('restartPolicy') != 'Always':
                continue
            value = _batch_bytes((container.get('resources') or {}).get('requests'),
                                 'spec.%s[%d].resources.requests' % (kind, index))
            if value >= 0:
                total += value
    return total


def protection(percents, request):
    """memory.min and memory.low of a request: cgroup_reconcile.go, calculatePodResources and
    calculateContainerResources (``request * percent / 100``; low raised to min when 0 < low < min)."""
    minimum = go_div(request * percents[MIN], 100)
    low = go_div(request * percents[LOW], 100)
    if 0 < low < minimum:
        low = minimum
    return minimum, low


def memory_high(percents, request, limit, allocatable, page_size, minimum):
    """cgroup_reconcile.go, calculateContainerResources: ``max`` (MaxInt64) for throttlingPercent 0; else
    ``(request + (ceiling - request) * percent / 100) / page * page``, the ceiling the limit when above 0, else the
    node's allocatable memory; raised to memory.min when 0 < high < min."""
    percent = percents[THROTTLING]
    if percent == 0:
        return mq.MAX
    ceiling = limit if limit > 0 else allocatable
    high = go_div(request + go_div((ceiling - request) * percent, 100), page_size) * page_size
    if 0 < high < minimum:
        high = minimum
    return high


class Koordinator(mq.Flavour):
    """Inputs: ``flavour_config`` (``node_slo``, ``allocatable_memory``) and the module's ``page_size``."""

    name = 'koordinator'
    pod_fields = {'spec': {'initContainers': [{'name': None, 'resources': None, 'restartPolicy': None}],
                           'overhead': None, 'resources': None}}

    def __init__(self, params):
        super(Koordinator, self).__init__(params)
        if params.get('configs') is not None:
            raise mq.MemQosError('configs is an input of the volcano flavour; the koordinator flavour takes '
                                 'flavour_config (node_slo, allocatable_memory)')
        config = params.get('flavour_config') or {}
        unknown = sorted(set(config) - set(CONFIG_KEYS))
        if unknown:
            raise mq.MemQosError('flavour_config.%s is not an input of the koordinator flavour; allowed: %s'
                                 % (unknown[0], ', '.join(CONFIG_KEYS)))
        if config.get('node_slo') is None:
            raise mq.MemQosError('flavour_config.node_slo is required: the node\'s NodeSLO (slo.koordinator.sh/v1alpha1, '
                                 'named after the node); koordlet sets nothing on a node without one')
        self.strategy = strategy_percents(config['node_slo'])
        self.allocatable = None
        if config.get('allocatable_memory') is not None:
            self.allocatable = mq.whole_bytes(
                mq.exact_quantity(config['allocatable_memory'], 'flavour_config.allocatable_memory'))
        elif any(values[THROTTLING] for values in self.strategy.values()):
            raise mq.MemQosError('flavour_config.allocatable_memory is required when a class has a throttlingPercent: '
                                 'the Node\'s status.allocatable.memory, which koordlet uses for a container without a '
                                 'memory limit')
        self.page_size = params.get('page_size') or 4096
        self._decisions = {}

    def ignored(self, pod):
        phase = ((pod or {}).get('status') or {}).get('phase')
        if phase not in ACTIVE_PHASES:
            return 'koordlet handles only pods in phase Pending or Running (status.phase is %r)' % (phase,)
        return None

    def decide(self, pod):
        # One decision per pod object (level_values asks again); the pod is kept with it, so its id is not reused.
        entry = self._decisions.get(id(pod))
        if entry is None or entry[0] is not pod:
            entry = self._decisions[id(pod)] = (pod, self._decide(pod))
        return entry[1]

    def _decide(self, pod):
        result = {'managed': True, 'config_name': None, 'reset': False, 'reason': None}
        notes = []
        labels = ((pod.get('metadata') or {}).get('labels') or {})
        label = labels.get(LABEL_QOS)
        if label is not None and not isinstance(label, str):
            return dict(result, managed=False, invalid=True,
                        reason='metadata.labels["%s"] is %r; allowed: one of %s' % (LABEL_QOS, label, ', '.join(CLASSES)))
        qos_class, from_label = pod_class(pod)
        if qos_class is None:
            return dict(result, managed=False, invalid=True,
                        reason='status.qosClass is %r; allowed: Guaranteed, Burstable or BestEffort'
                               % ((pod.get('status') or {}).get('qosClass'),))
        if label is not None and not from_label:
            notes.append('metadata.labels["%s"] is %r, which koordlet does not know and treats as no class (%s from '
                         'status.qosClass); allowed: %s' % (LABEL_QOS, label, qos_class, ', '.join(CLASSES)))
        try:
            percents, warning = annotation_percents(pod, self.strategy[STRATEGY_FIELD[qos_class]])
            if warning:
                notes.append(warning)
            batch = qos_class == 'BE' and from_label
            request = pod_request(pod, batch)
        except mq.MemQosError as exc:
            return dict(result, managed=False, invalid=True, reason=str(exc))
        minimum, low = protection(percents, request)
        result.update(config_name=qos_class, percents=percents, batch=batch, request=request,
                      pod_values={mq.MEMORY_MIN: minimum, mq.MEMORY_LOW: low})
        if notes:
            result.update(invalid=True, reason='; '.join(notes))
        return result

    def container_values(self, pod, decision, container, index):
        request, limit = container_request_limit(container, decision['batch'], 'spec.containers[%d].resources' % index)
        minimum, low = protection(decision['percents'], request)
        if decision['percents'][THROTTLING] and limit <= 0 and self.allocatable is None:
            raise mq.MemQosError('container %s has no memory limit and a throttlingPercent (from the pod\'s %s '
                                 'annotation); give flavour_config.allocatable_memory, the Node\'s '
                                 'status.allocatable.memory' % (container.get('name'), ANNOTATION_MEMORY_QOS))
        high = memory_high(decision['percents'], request, limit, self.allocatable or 0, self.page_size, minimum)
        return {mq.MEMORY_HIGH: high, mq.MEMORY_LOW: low, mq.MEMORY_MIN: minimum}

    def level_values(self, pods):
        """cgroup_reconcile.go, updateCgroupSummaryForQoS (each pod's request times the percentages, summed per
        Kubernetes QoS class without the low >= min correction) and completeCgroupSummaryForQoS (the Guaranteed
        level, the kubepods cgroup, holds the sum of all three)."""
        sums = dict((qos, {mq.MEMORY_MIN: 0, mq.MEMORY_LOW: 0}) for qos in KUBE_QOS_CLASS)
        for pod in pods:
            decision = self.decide(pod)
            qos = (pod.get('status') or {}).get('qosClass')
            if not decision.get('managed') or qos not in sums:
                continue
            sums[qos][mq.MEMORY_MIN] += go_div(decision['request'] * decision['percents'][MIN], 100)
            sums[qos][mq.MEMORY_LOW] += go_div(decision['request'] * decision['percents'][LOW], 100)
        total = dict((name, sum(sums[qos][name] for qos in sums)) for name in mq.PROTECTION_FILES)
        return {'kubepods': total, 'Burstable': sums['Burstable'], 'BestEffort': sums['BestEffort']}
