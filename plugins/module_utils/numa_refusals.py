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

from ansible_collections.numaops.colocation.plugins.module_utils.quantity import QuantityError, parse_quantity

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


def _quantity(value):
    try:
        return parse_quantity(str(value))
    except (QuantityError, ValueError, TypeError):
        return None


def _requests(container):
    res = (container or {}).get('resources') or {}
    merged = dict((k, v) for k, v in (res.get('limits') or {}).items())   # the API defaults requests to limits
    merged.update(res.get('requests') or {})
    out = {}
    for name, value in merged.items():
        number = _quantity(value)
        if number is not None:
            out[str(name)] = number
    return out


def _add(total, more):
    for name, value in more.items():
        total[name] = total.get(name, 0) + value
    return total


def pod_requests(pod):
    """{resource: Fraction} the pod asks for as the kubelet's pod scope counts it: the larger of its containers'
    sum and its largest init container, plus the pod overhead."""
    spec = (pod or {}).get('spec') or {}
    total = {}
    for container in spec.get('containers') or []:
        _add(total, _requests(container))
    for container in spec.get('initContainers') or []:
        for name, value in _requests(container).items():
            total[name] = max(total.get(name, 0), value)
    for name, value in (spec.get('overhead') or {}).items():
        number = _quantity(value)
        if number is not None:
            total[str(name)] = total.get(str(name), 0) + number
    return total


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


def _units(pod, scope):
    """What the topology manager aligns at once: the pod (scope pod) or each container, init containers first."""
    spec = (pod or {}).get('spec') or {}
    if scope == 'pod':
        return [('pod', pod_requests(pod))]
    return [(c.get('name'), _requests(c)) for c in (spec.get('initContainers') or []) + (spec.get('containers') or [])]


def _aligned(requests, guaranteed, static_cpu, static_memory):
    """The part of a request the kubelet places per NUMA node: integer CPUs of a Guaranteed pod (static CPU
    manager), memory and huge pages of a Guaranteed pod (Static memory manager); devices are named apart."""
    aligned = {}
    if guaranteed and static_cpu and requests.get('cpu') and requests['cpu'] == int(requests['cpu']):
        aligned['cpu'] = int(requests['cpu'])
    if guaranteed and static_memory:
        for name, value in requests.items():
            if name == 'memory' or name.startswith('hugepages-'):
                aligned[name] = int(value)
    devices = sorted(name for name in requests if name not in _NOT_DEVICES and not name.startswith('hugepages-')
                     and '/' in name)
    return aligned, devices


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


def explain(pod, facts):
    """Why the pod could not be placed on one NUMA node, from the node's policies and what is free now."""
    config = ((facts.get('kubelet') or {}).get('config')) or {}
    policy = config.get('topologyManagerPolicy') or 'none'
    scope = config.get('topologyManagerScope') or 'container'
    kubelet = facts.get('kubelet') or {}
    static_cpu = ((kubelet.get('cpu_manager') or {}).get('policy') or config.get('cpuManagerPolicy')) == 'static'
    static_memory = ((kubelet.get('memory_manager') or {}).get('policy')
                     or config.get('memoryManagerPolicy')) == 'Static'
    qos = ((pod.get('status') or {}).get('qosClass'))
    free = numa_free(facts)
    units = []
    for name, requests in _units(pod, scope):
        aligned, devices = _aligned(requests, qos == 'Guaranteed', static_cpu, static_memory)
        fits = [f['numa_node'] for f in free if _fits(aligned, f)] if aligned else None
        units.append({'name': name, 'aligned': dict((k, show(k, v)) for k, v in sorted(aligned.items())),
                      'devices': devices, 'fits_numa_nodes': fits})
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
        message = status.get('message') or ''
        item = {'namespace': meta.get('namespace') or 'default', 'pod': meta.get('name'), 'uid': meta.get('uid'),
                'created': meta.get('creationTimestamp'), 'reason': status.get('reason'),
                'reason_text': REASONS[status.get('reason')],
                'message': message[len(MESSAGE_PREFIX):] if message.startswith(MESSAGE_PREFIX) else message,
                'qos': status.get('qosClass'), 'owner_kind': kind, 'owner': name, 'workload': workload,
                'requests': dict((k, show(k, v)) for k, v in sorted(pod_requests(pod).items()))}
        item.update(explain(pod, facts))
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
