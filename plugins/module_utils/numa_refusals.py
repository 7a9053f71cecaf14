# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Pods the kubelet refused at admission for NUMA alignment, from the node's pods as the API server has them, and
why: what each pod (or container, under the topology manager's ``container`` scope) asks of the resources the
kubelet aligns per NUMA node, against what each NUMA node of the node has free for them.

How the kubelet leaves such a pod (pkg/kubelet/kubelet.go ``rejectPod``): phase ``Failed``, ``status.reason`` the
admission error's type and ``status.message`` ``"Pod was rejected: "`` + its text, and a Warning event with the
same reason. The reasons of the resource managers' admission (pkg/kubelet/cm/admission/errors.go
``GetPodAdmitResult``) are the topology manager's ``TopologyAffinityError`` ("Resources cannot be allocated with
Topology locality", pkg/kubelet/cm/topologymanager/topology_manager.go), the CPU manager's ``SMTAlignmentError``
(pkg/kubelet/cm/cpumanager/policy_static.go) and ``UnexpectedAdmissionError`` for any other allocation failure of
the CPU, memory or device manager ("Allocate failed due to ..., which is unexpected").

Runs on managed nodes: Python 3.8+, standard library only.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.numaops.colocation.plugins.module_utils import pod_resources as pr

REASONS = {
    'TopologyAffinityError': 'the topology manager found no NUMA placement its policy allows',
    'SMTAlignmentError': 'the CPU manager could not give whole physical cores (full-pcpus-only)',
    'UnexpectedAdmissionError': 'a resource manager (CPU, memory, devices) could not allocate',
}
MESSAGE_PREFIX = 'Pod was rejected: '
POD_TEMPLATE_HASH = 'pod-template-hash'
# resources the kubelet's CPU and memory managers place per NUMA node; others with a NUMA hint are devices
_NOT_DEVICES = ('cpu', 'memory', 'ephemeral-storage', 'pods')


def is_refusal(pod):
    status = (pod or {}).get('status') or {}
    return status.get('phase') == 'Failed' and status.get('reason') in REASONS


def _marker(invalid):
    """The refusal report's policy for a bad quantity: left out, and its message kept in ``invalid``."""
    def bad(field, value, error):
        text = pr.describe(field, value, error)
        if text not in invalid:
            invalid.append(text)
    return bad


def _requests(container, where, bad=pr.skip):
    """{resource: Fraction} one container asks (its limits stand for missing requests, as the API defaults them)."""
    return pr.requirements((container or {}).get('resources'), where + '.resources', bad=bad, limits_default=True)


def pod_requests(pod, bad=pr.skip):
    """{resource: Fraction} the pod asks for as the kubelet's admission and the scheduler count it
    (component-helpers PodRequests, see module_utils/pod_resources.py): the app containers and sidecars summed,
    at least each other init container beside the sidecars before it, pod-level requests in their place, plus
    the pod overhead."""
    return pr.pod_requests(pod, bad=bad, limits_default=True)


def owner(pod):
    """(kind, name) of the pod's controller, and the Deployment a ReplicaSet was made for (the deployment
    controller names it <deployment>-<pod-template-hash>, the hash also on the pod's label), or None."""
    meta = (pod or {}).get('metadata') or {}
    ref = None
    for item in meta.get('ownerReferences') or []:
        if item.get('controller'):
            ref = item
    if ref is None:
        return None, None, None
    kind, name = ref.get('kind'), ref.get('name')
    workload = None
    hash_value = (meta.get('labels') or {}).get(POD_TEMPLATE_HASH)
    if kind == 'ReplicaSet' and hash_value and str(name).endswith('-' + hash_value):
        workload = 'Deployment/' + str(name)[:-len(hash_value) - 1]
    return kind, name, workload


def numa_free(facts):
    """Per NUMA node what the kubelet can still place there: free exclusive CPUs (static CPU manager policy) and,
    under the Static memory manager, free memory and huge pages of its machine state (bytes); None: not known."""
    kubelet = facts.get('kubelet') or {}
    machine = (kubelet.get('memory_manager') or {}).get('machine_state') or {}
    static_memory = (kubelet.get('memory_manager') or {}).get('policy') == 'Static'
    out = []
    for node in facts.get('numa_nodes') or []:
        resources = (machine.get(node['id']) or machine.get(str(node['id'])) or {}).get('resources') or {}
        out.append({
            'numa_node': node['id'],
            'free_exclusive_cpus': (None if node.get('free_exclusive_cpus') is None
                                    else node.get('free_exclusive_cpu_count')),
            'memory': dict((name, table.get('free')) for name, table in sorted(resources.items()))
            if static_memory else None,
        })
    return out


def _devices(requests):
    """Resources the device manager places (extended resources with a NUMA hint): named, not placed here."""
    return sorted(name for name in requests if name not in _NOT_DEVICES and not pr.is_hugepages(name)
                  and '/' in name)


def _is_memory(name):
    return name == 'memory' or pr.is_hugepages(name)


def _aligned(requests, guaranteed, static_cpu, static_memory):
    """The part of one container's request the kubelet places per NUMA node: integer CPUs of a Guaranteed pod
    (static CPU manager), memory and huge pages of a Guaranteed pod (Static memory manager)."""
    aligned = {}
    if guaranteed and static_cpu and requests.get('cpu') and requests['cpu'] == int(requests['cpu']):
        aligned['cpu'] = int(requests['cpu'])
    if guaranteed and static_memory:
        for name, value in requests.items():
            if _is_memory(name):
                aligned[name] = int(value)
    return aligned


def _pod_aligned(pod, guaranteed, static_cpu, static_memory, pod_level_managers, bad):
    """What the hint providers ask for the whole pod (topology manager scope ``pod``, GetPodTopologyHints), and a
    note when they ask nothing because of pod-level resources.

    The CPU manager (policy_static.go podGuaranteedCPUs): each container's integer CPUs (a container with a
    fractional request counts 0) added up as component-helpers adds requests - app containers and sidecars
    summed, at least each other init container beside the sidecars before it; no overhead. The memory manager
    (policy_static.go getPodRequestedResources): memory and huge pages added up the same way, for the resources an
    app container asks; no overhead. A pod with pod-level resources (spec.resources) is not aligned by either
    (1.34 and 1.35; later releases without the feature gate PodLevelResourceManagers); with that gate they ask
    the pod-level requests. The managers of 1.32 and 1.33 (PodLevelResources alpha, off by default) ignore
    pod-level resources; the kubelet's release is not known here, so this says what 1.34 and later do."""
    aligned = {}
    if not guaranteed or not (static_cpu or static_memory):
        return aligned, None
    spec = (pod or {}).get('spec') or {}
    if pr.pod_level_set(pod):
        if not pod_level_managers:
            return aligned, ('has pod-level resources (spec.resources), which the CPU and memory managers do not '
                             'place per NUMA node without the feature gate PodLevelResourceManagers')
        level = pr.requirements(spec.get('resources'), 'spec.resources', bad=bad, limits_default=True)
        if static_cpu and level.get('cpu') and level['cpu'] == int(level['cpu']):
            aligned['cpu'] = int(level['cpu'])
        if static_memory:
            aligned.update((name, int(value)) for name, value in level.items() if _is_memory(name) and value > 0)
        return aligned, None
    if static_cpu:
        def cpus(container, where):
            requests = _requests(container, where, bad)
            if 'cpu' not in requests:
                return {}
            return {'cpu': int(requests['cpu']) if requests['cpu'] == int(requests['cpu']) else 0}
        cpu = pr.aggregate(pod, cpus).get('cpu', 0)
        if cpu:
            aligned['cpu'] = cpu
    if static_memory:
        def memory(container, where):
            return dict((name, int(value)) for name, value in _requests(container, where, bad).items()
                        if _is_memory(name))
        aligned.update(pr.aggregate(pod, memory, app_resources_only=True))
    return aligned, None


def _units(pod, scope, guaranteed, static_cpu, static_memory, pod_level_managers, bad):
    """What the topology manager aligns at once, each as (name, aligned, devices, note): the pod (scope
    ``pod``) or each container, init containers first (scope ``container``)."""
    spec = (pod or {}).get('spec') or {}
    if scope == 'pod':
        aligned, note = _pod_aligned(pod, guaranteed, static_cpu, static_memory, pod_level_managers, bad)
        return [('pod', aligned, _devices(pod_requests(pod, bad)), note)]
    units = []
    for kind in ('initContainers', 'containers'):
        for index, container in enumerate(spec.get(kind) or []):
            requests = _requests(container, 'spec.%s[%d]' % (kind, index), bad)
            units.append((container.get('name'), _aligned(requests, guaranteed, static_cpu, static_memory),
                          _devices(requests), None))
    return units


def _fits(aligned, free):
    for name, value in aligned.items():
        if name == 'cpu':
            have = free['free_exclusive_cpus']
        else:
            have = (free['memory'] or {}).get(name)
        if have is None or have < value:
            return False
    return True


def show(name, value):
    if name == 'cpu':
        return ('%d' % value) if value == int(value) else ('%sm' % int(value * 1000))
    value = int(value)
    for unit, factor in (('Gi', 1 << 30), ('Mi', 1 << 20), ('Ki', 1 << 10)):
        if value >= factor:
            return ('%.1f%s' % (value / float(factor), unit)).replace('.0' + unit, unit)
    return str(value)


def _free_text(free):
    parts = ['%s free exclusive CPUs' % ('?' if free['free_exclusive_cpus'] is None else free['free_exclusive_cpus'])]
    for name, value in sorted((free['memory'] or {}).items()):
        parts.append('%s %s free' % (name, '?' if value is None else show(name, value)))
    return 'NUMA %d: %s' % (free['numa_node'], ', '.join(parts))


def explain(pod, facts, bad=pr.skip):
    """Why the pod could not be placed on one NUMA node, from the node's policies and what is free now; a bad
    quantity goes to ``bad`` (see module_utils/pod_resources.py)."""
    config = ((facts.get('kubelet') or {}).get('config')) or {}
    policy = config.get('topologyManagerPolicy') or 'none'
    scope = config.get('topologyManagerScope') or 'container'
    kubelet = facts.get('kubelet') or {}
    static_cpu = ((kubelet.get('cpu_manager') or {}).get('policy') or config.get('cpuManagerPolicy')) == 'static'
    static_memory = ((kubelet.get('memory_manager') or {}).get('policy')
                     or config.get('memoryManagerPolicy')) == 'Static'
    pod_level_managers = str((config.get('featureGates') or {}).get('PodLevelResourceManagers')).lower() == 'true'
    qos = ((pod.get('status') or {}).get('qosClass'))
    free = numa_free(facts)
    units = []
    notes = []
    for name, aligned, devices, note in _units(pod, scope, qos == 'Guaranteed', static_cpu, static_memory,
                                               pod_level_managers, bad):
        fits = [f['numa_node'] for f in free if _fits(aligned, f)] if aligned else None
        units.append({'name': name, 'aligned': dict((k, show(k, v)) for k, v in sorted(aligned.items())),
                      'devices': devices, 'fits_numa_nodes': fits})
        if note:
            notes.append('%s %s %s' % ('pod' if scope == 'pod' else 'container', name, note))
    texts = []
    for unit in units:
        if not unit['aligned'] and not unit['devices']:
            continue
        asks = ', '.join('%s %s' % kv for kv in sorted(unit['aligned'].items()))
        if unit['devices']:
            asks += (', ' if asks else '') + 'devices %s (their NUMA nodes are not read here)' % ', '.join(unit['devices'])
        if unit['fits_numa_nodes'] is None:
            verdict = ''
        elif unit['fits_numa_nodes']:
            verdict = ': NUMA node %s could hold it now (more is free than when it was refused)' % ','.join(
                str(n) for n in unit['fits_numa_nodes'])
        else:
            verdict = ': no single NUMA node holds it now'
        texts.append('%s %s asks %s%s' % ('pod' if scope == 'pod' else 'container', unit['name'], asks, verdict))
    texts.extend(notes)
    if not texts:
        texts.append('asks nothing the kubelet aligns per NUMA node here (not Guaranteed with integer CPUs under '
                     'the static CPU manager, nor Guaranteed memory under the Static memory manager)')
    why = 'topology manager %s, scope %s; %s; free now: %s' % (
        policy, scope, '; '.join(texts), '; '.join(_free_text(f) for f in free) or 'unknown')
    return {'policy': policy, 'scope': scope, 'units': units, 'numa_free': free, 'why': why}


def refusals(pods, facts):
    """The node's refused pods (see the module docstring), oldest first, each with the number of refused pods of
    its controller (a Deployment recreating a pod the kubelet refuses, again and again); None: no pods given."""
    if pods is None:
        return None
    found = []
    for pod in pods:
        if not is_refusal(pod):
            continue
        meta = pod.get('metadata') or {}
        status = pod.get('status') or {}
        kind, name, workload = owner(pod)
        invalid = []
        bad = _marker(invalid)
        message = status.get('message') or ''
        item = {'namespace': meta.get('namespace') or 'default', 'pod': meta.get('name'), 'uid': meta.get('uid'),
                'created': meta.get('creationTimestamp'), 'reason': status.get('reason'),
                'reason_text': REASONS[status.get('reason')],
                'message': message[len(MESSAGE_PREFIX):] if message.startswith(MESSAGE_PREFIX) else message,
                'qos': status.get('qosClass'), 'owner_kind': kind, 'owner': name, 'workload': workload,
                'requests': dict((k, show(k, v)) for k, v in sorted(pod_requests(pod, bad).items()))}
        item.update(explain(pod, facts, bad))
        item['invalid'] = invalid
        if invalid:
            item['why'] += '; left out, not quantities: %s' % '; '.join(invalid)
        found.append(item)
    counts = {}
    for item in found:
        key = (item['namespace'], item['owner_kind'], item['owner'])
        counts[key] = counts.get(key, 0) + 1
    for item in found:
        item['owner_refusals'] = counts[(item['namespace'], item['owner_kind'], item['owner'])] \
            if item['owner'] else 1
    return sorted(found, key=lambda i: (str(i['created']), str(i['namespace']), str(i['pod'])))


def by_owner(found):
    """[(namespace, owner kind, owner name, reason, count)] of refused pods, a controller's loop as one row."""
    counts = {}
    for item in found or []:
        key = (item['namespace'], item['owner_kind'] or '', item['owner'] or item['pod'], item['reason'])
        counts[key] = counts.get(key, 0) + 1
    return [key + (count,) for key, count in sorted(counts.items())]
