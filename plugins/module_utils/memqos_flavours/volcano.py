# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The ``volcano`` memory-QoS flavour: Volcano's ColocationConfiguration, as the Volcano agent applies it.

Per container (the agent's MemoryQoSV2 handler, see docs/memory_qos.md):

* ``memory.high`` = ``max`` when the limit is absent/zero or highRatio >= 100, else
  ``limit * highRatio // 100``;
* ``memory.low`` = ``request * lowRatio // 100``; ``memory.min`` = ``request * minRatio // 100``;
* when the pod's ``volcano.sh/qos-level`` is absent, unknown, LS or BE (level <= 1) and the container
  declares the batch memory resource (``kubernetes.io/batch-memory`` unless the agent's
  ``--extend-resource-memory-name`` says otherwise; in limits or requests, looked up separately), that
  quantity is used instead of ``memory``;
* only pods with the condition Ready=True and no deletionTimestamp are handled (the agent's pod probe).

Which ratios a pod gets: the winning ColocationConfiguration (``source='configs'``, Volcano's controller's
choice) or the ``volcano.sh/colocation-config`` annotation (``source='annotations'``, the agent's reading).
The levels above the containers are not the agent's business: they hold the sums of their children.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.numaops.colocation.plugins.module_utils import colocation as co
from ansible_collections.numaops.colocation.plugins.module_utils import memqos as mq

BATCH_MEMORY = 'kubernetes.io/batch-memory'
QOS_LEVEL_ANNOTATION = 'volcano.sh/qos-level'
# Volcano agent: LC and HLS are 2, LS is 1, BE is -1; absent or unknown is 0.
QOS_LEVELS = {'LC': 2, 'HLS': 2, 'LS': 1, 'BE': -1}
SOURCES = ('configs', 'annotations')


# ---------------------------------------------------------------- values
def qos_level(pod):
    """The Volcano QoS level of a pod from its ``volcano.sh/qos-level`` annotation (0 when absent/unknown)."""
    return QOS_LEVELS.get(co.pod_annotations(pod).get(QOS_LEVEL_ANNOTATION), 0)


def allows_batch_memory(level):
    """Volcano: only levels <= 1 (LS, BE, absent, unknown) may use the batch extended resources."""
    return level <= 1


def memory_bytes(resources, level, where='', batch_memory=BATCH_MEMORY):
    """Bytes of the memory quantity the agent uses from a ResourceList (0 when absent)."""
    key = 'memory'
    if allows_batch_memory(level) and batch_memory in (resources or {}):
        key = batch_memory
    return mq.quantity_bytes(resources, key, where)


def container_values(container, ratios, level, where='', batch_memory=BATCH_MEMORY):
    """The raw values (before page rounding) the agent computes for one container.

    Exact integers. Volcano computes ``quantity.Value() * int64(ratio) / 100`` in int64, which wraps for
    quantities above about 92 PB / ratio (``1Ei`` x 80 gives memory.high 0); see docs/memory_qos.md.
    """
    resources = container.get('resources') or {}
    limit = memory_bytes(resources.get('limits'), level, where + '.resources.limits', batch_memory)
    request = memory_bytes(resources.get('requests'), level, where + '.resources.requests', batch_memory)
    high = mq.MAX if (limit == 0 or ratios['highRatio'] >= 100) else limit * ratios['highRatio'] // 100
    return {
        mq.MEMORY_HIGH: high,
        mq.MEMORY_LOW: request * ratios['lowRatio'] // 100,
        mq.MEMORY_MIN: request * ratios['minRatio'] // 100,
    }


# ---------------------------------------------------------------- pods
def pod_handled(pod):
    """None when the Volcano agent handles this pod, else why not.

    The agent's pod probe (pkg/agent/events/probes/pods) queues a pod only when it has the condition
    Ready=True and no deletionTimestamp; every other pod is left as it is (its cgroup files untouched).
    """
    if ((pod or {}).get('metadata') or {}).get('deletionTimestamp'):
        return 'the pod is being deleted (metadata.deletionTimestamp is set)'
    for condition in (((pod or {}).get('status') or {}).get('conditions') or []):
        if isinstance(condition, dict) and condition.get('type') == 'Ready' and condition.get('status') == 'True':
            return None
    return 'the pod is not Ready (no status.conditions Ready=True)'


def pod_decision(pod, source, configs=None):
    """Which ratios apply to a pod: ``{'managed', 'config_name', 'ratios', 'reset', 'reason'}``.

    source 'configs': the winning ColocationConfiguration (its memoryQos, or the reset values when it has
    none); no winner but the pod carries a colocation annotation: reset (the controller would reset it);
    otherwise unmanaged. source 'annotations': the agent's reading of ``volcano.sh/colocation-config``:
    absent or empty -> unmanaged, ``{}`` -> reset; an invalid annotation -> unmanaged with a reason.
    """
    result = {'managed': False, 'config_name': None, 'ratios': None, 'reset': False, 'reason': None}
    annotations = co.pod_annotations(pod)
    if source == 'configs':
        winner = co.choose_config(pod, configs or [])
        if winner is not None:
            result.update(managed=True, config_name=winner.name,
                          ratios=co.effective_memory_qos(winner.configuration),
                          reset=winner.memory_qos is None)
        elif co.ANNOTATION_CONFIG in annotations or co.ANNOTATION_CONFIG_NAME in annotations:
            result.update(managed=True, ratios=co.effective_memory_qos({}), reset=True)
        else:
            result['reason'] = 'no ColocationConfiguration of namespace %s selects this pod' % co.pod_namespace(pod)
        return result
    try:
        configuration = co.parse_annotation(annotations.get(co.ANNOTATION_CONFIG), owner=mq.pod_ref(pod))
    except co.ColocationConfigError as exc:
        result['reason'] = str(exc)
        result['invalid'] = True
        return result
    if configuration is None:
        result['reason'] = 'the pod has no %s annotation (or it is empty)' % co.ANNOTATION_CONFIG
        return result
    result.update(managed=True, config_name=annotations.get(co.ANNOTATION_CONFIG_NAME),
                  ratios=co.effective_memory_qos(configuration), reset='memoryQos' not in configuration)
    return result


def pod_plan(pod, decision, driver, kubelet_cgroup_root, page_size, batch_memory=BATCH_MEMORY):
    """:func:`memqos.pod_plan` with this flavour's container values for ``decision['ratios']``."""
    def values(pod, decision, container, index):
        return container_values(container, decision['ratios'], qos_level(pod), 'spec.containers[%d]' % index,
                                batch_memory)
    return mq.pod_plan(pod, decision, driver, kubelet_cgroup_root, page_size, values)


# ---------------------------------------------------------------- the flavour
class Volcano(mq.Flavour):
    """Inputs: the module options ``source``, ``configs`` and ``batch_memory_resource``."""

    name = 'volcano'
    pod_fields = {}

    def __init__(self, params):
        super(Volcano, self).__init__(params)
        self.source = params.get('source') or 'configs'
        self.batch_memory = params.get('batch_memory_resource') or BATCH_MEMORY
        self.configs = []
        if self.source == 'configs':
            if params.get('configs') is None:
                raise mq.MemQosError('configs is required with source=configs (the ColocationConfiguration objects; '
                                     'give [] to reset every pod that carries a colocation annotation), or use '
                                     'source=annotations')
            for index, obj in enumerate(params['configs']):
                try:
                    self.configs.append(co.parse_config(obj))
                except co.ColocationConfigError as exc:
                    raise mq.MemQosError('configs[%d]: %s' % (index, exc))

    def ignored(self, pod):
        return pod_handled(pod)

    def decide(self, pod):
        try:
            return pod_decision(pod, self.source, self.configs)
        except co.ColocationConfigError as exc:
            raise mq.MemQosError(str(exc))

    def container_values(self, pod, decision, container, index):
        return container_values(container, decision['ratios'], qos_level(pod), 'spec.containers[%d]' % index,
                                self.batch_memory)
