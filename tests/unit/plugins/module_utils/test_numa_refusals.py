# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Pods the kubelet refused for NUMA alignment: which pods count, what they ask, why no NUMA node holds them, the
loop of their controller."""
from __future__ import annotations

import copy

from ansible_collections.numaops.colocation.plugins.module_utils import numa_refusals as nr
from ansible_collections.numaops.colocation.plugins.module_utils.quantity import parse_quantity
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_fleet import facts_of

GI = 1 << 30


def refused_pod(name, cpu='70', memory='8Gi', reason='TopologyAffinityError', owner=None, hash_value=None,
                created='2026-12-01T10:00:00Z', init=None, qos='Guaranteed', scope_message=None):
    """A pod as the kubelet leaves it after refusing it (pkg/kubelet/kubelet.go rejectPod)."""
    meta = {'namespace': 'shop', 'name': name, 'uid': 'uid-' + name, 'creationTimestamp': created, 'labels': {}}
    if owner:
        meta['ownerReferences'] = [{'apiVersion': 'apps/v1', 'kind': 'ReplicaSet', 'name': owner, 'uid': 'rs',
                                    'controller': True}]
    if hash_value:
        meta['labels']['pod-template-hash'] = hash_value
    resources = {'requests': {'cpu': cpu, 'memory': memory}, 'limits': {'cpu': cpu, 'memory': memory}}
    spec = {'nodeName': 'xeon-1', 'containers': [{'name': 'app', 'resources': resources}]}
    if init:
        spec['initContainers'] = [{'name': 'init', 'resources': {'requests': init, 'limits': init}}]
    message = {'TopologyAffinityError': 'Resources cannot be allocated with Topology locality',
               'SMTAlignmentError': 'SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2',
               'UnexpectedAdmissionError': 'Allocate failed due to not enough cpus available to satisfy request: '
                                           'requested=70, available=62, which is unexpected'}.get(reason, 'x')
    return {'metadata': meta, 'spec': spec,
            'status': {'phase': 'Failed', 'reason': reason, 'message': scope_message or 'Pod was rejected: ' + message,
                       'qosClass': qos}}


def test_which_pods_are_refusals():
    assert nr.is_refusal(refused_pod('a'))
    assert nr.is_refusal(refused_pod('a', reason='SMTAlignmentError'))
    assert nr.is_refusal(refused_pod('a', reason='UnexpectedAdmissionError'))
    assert not nr.is_refusal(refused_pod('a', reason='OutOfcpu'))      # node capacity, not NUMA alignment
    running = refused_pod('a')
    running['status'] = {'phase': 'Running'}
    assert not nr.is_refusal(running)
    assert not nr.is_refusal({})
    assert nr.refusals(None, facts_of('xeon8358-2s')) is None           # no pods given: not known, not "none"
    assert nr.refusals([], facts_of('xeon8358-2s')) == []


def test_requests_of_the_pod_scope():
    pod = refused_pod('a', cpu='2', memory='1Gi', init={'cpu': '3', 'memory': '512Mi'})
    pod['spec']['containers'].append({'name': 'side', 'resources': {'requests': {'cpu': '500m',
                                                                                 'hugepages-1Gi': '2Gi'}}})
    pod['spec']['overhead'] = {'cpu': '250m'}
    got = nr.pod_requests(pod)
    assert got == {'cpu': 3 + parse_quantity('250m'), 'memory': GI, 'hugepages-1Gi': 2 * GI}
    limits_only = {'spec': {'containers': [{'name': 'x', 'resources': {'limits': {'cpu': '4'}}}]}}
    assert nr.pod_requests(limits_only) == {'cpu': 4}
    bad = {'spec': {'containers': [{'name': 'x', 'resources': {'requests': {'cpu': 'lots'}}}]}}
    assert nr.pod_requests(bad) == {}


def test_owner_and_deployment():
    pod = refused_pod('web-5d4f8b9c7-x2k9q', owner='web-5d4f8b9c7', hash_value='5d4f8b9c7')
    assert nr.owner(pod) == ('ReplicaSet', 'web-5d4f8b9c7', 'Deployment/web')
    pod['metadata']['labels']['pod-template-hash'] = 'other'
    assert nr.owner(pod) == ('ReplicaSet', 'web-5d4f8b9c7', None)       # the name is not <deployment>-<hash>
    assert nr.owner(refused_pod('bare')) == (None, None, None)


def test_why_no_numa_node_holds_it():
    facts = facts_of('xeon8358-2s')          # single-numa-node; free exclusive CPUs 48 and 64; Static memory
    found = nr.refusals([refused_pod('big', cpu='70', memory='8Gi')], facts)
    item = found[0]
    assert (item['policy'], item['scope']) == ('single-numa-node', 'container')
    assert item['units'] == [{'name': 'app', 'aligned': {'cpu': '70', 'memory': '8Gi'}, 'devices': [],
                              'fits_numa_nodes': []}]
    assert [(f['numa_node'], f['free_exclusive_cpus']) for f in item['numa_free']] == [(0, 48), (1, 64)]
    assert item['numa_free'][0]['memory']['memory'] == 121790005248
    assert item['why'].startswith('topology manager single-numa-node, scope container; container app asks cpu 70, '
                                  'memory 8Gi: no single NUMA node holds it now; free now: NUMA 0: 48 free '
                                  'exclusive CPUs, hugepages-1Gi 6Gi free, memory 113.4Gi free; NUMA 1: 64 free')
    assert item['message'] == 'Resources cannot be allocated with Topology locality'
    assert item['requests'] == {'cpu': '70', 'memory': '8Gi'}
    # memory over every NUMA node's free memory, CPUs that fit one
    item = nr.refusals([refused_pod('fat', cpu='4', memory='200Gi')], facts)[0]
    assert item['units'][0]['fits_numa_nodes'] == []
    # capacity freed since the refusal: it would fit NUMA node 1 now, and says so
    item = nr.refusals([refused_pod('now-fits', cpu='60', memory='1Gi')], facts)[0]
    assert item['units'][0]['fits_numa_nodes'] == [1]
    assert 'NUMA node 1 could hold it now' in item['why']


def test_pod_scope_adds_the_containers():
    facts = facts_of('xeon8358-2s')
    facts['kubelet']['config']['topologyManagerScope'] = 'pod'
    pod = refused_pod('two', cpu='40', memory='1Gi')
    pod['spec']['containers'].append(copy.deepcopy(pod['spec']['containers'][0]))
    pod['spec']['containers'][1]['name'] = 'b'
    item = nr.refusals([pod], facts)[0]
    assert item['units'] == [{'name': 'pod', 'aligned': {'cpu': '80', 'memory': '2Gi'}, 'devices': [],
                              'fits_numa_nodes': []}]
    assert 'pod pod asks cpu 80, memory 2Gi' in item['why']
    facts['kubelet']['config']['topologyManagerScope'] = 'container'
    item = nr.refusals([pod], facts)[0]
    assert [u['fits_numa_nodes'] for u in item['units']] == [[0, 1], [0, 1]]   # each alone fits


def test_what_is_not_aligned_is_said():
    facts = facts_of('xeon8358-2s')
    burstable = refused_pod('burst', cpu='1500m', memory='1Gi', qos='Burstable', reason='UnexpectedAdmissionError')
    item = nr.refusals([burstable], facts)[0]
    assert item['units'][0]['aligned'] == {} and item['units'][0]['fits_numa_nodes'] is None
    assert 'asks nothing the kubelet aligns per NUMA node here' in item['why']
    gpu = refused_pod('gpu', cpu='1500m', memory='1Gi')
    gpu['spec']['containers'][0]['resources']['requests']['nvidia.com/gpu'] = '1'
    item = nr.refusals([gpu], facts)[0]
    assert item['units'][0]['devices'] == ['nvidia.com/gpu']
    assert 'devices nvidia.com/gpu (their NUMA nodes are not read here)' in item['why']
    # without the Static memory manager memory is not placed per NUMA node
    facts['kubelet']['memory_manager'] = None
    facts['kubelet']['config']['memoryManagerPolicy'] = 'None'
    item = nr.refusals([refused_pod('cpu-only', cpu='70', memory='8Gi')], facts)[0]
    assert item['units'][0]['aligned'] == {'cpu': '70'}
    assert item['numa_free'][0]['memory'] is None


def test_a_deployment_loop_is_counted():
    facts = facts_of('xeon8358-2s')
    pods = [refused_pod('web-5d4f8b9c7-%d' % i, owner='web-5d4f8b9c7', hash_value='5d4f8b9c7',
                        created='2026-12-01T10:0%d:00Z' % (5 - i)) for i in range(4)]
    pods.append(refused_pod('lonely', reason='SMTAlignmentError'))
    pods.append(refused_pod('full', reason='OutOfcpu'))
    found = nr.refusals(pods, facts)
    assert [i['pod'] for i in found] == ['lonely', 'web-5d4f8b9c7-3', 'web-5d4f8b9c7-2', 'web-5d4f8b9c7-1',
                                         'web-5d4f8b9c7-0']
    assert [i['owner_refusals'] for i in found] == [1, 4, 4, 4, 4]
    assert found[1]['workload'] == 'Deployment/web'
    assert nr.by_owner(found) == [('shop', '', 'lonely', 'SMTAlignmentError', 1),
                                  ('shop', 'ReplicaSet', 'web-5d4f8b9c7', 'TopologyAffinityError', 4)]


def test_numa_facts_carry_the_refusals():
    from ansible_collections.numaops.colocation.plugins.module_utils import numa
    from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_trees import tree
    facts = numa.collect(tree('xeon8358-2s'), pods=[refused_pod('big')])
    assert [i['pod'] for i in facts['refusals']] == ['big']
    assert numa.collect(tree('xeon8358-2s'))['refusals'] is None


def _pod_scope_facts():
    facts = facts_of('xeon8358-2s')          # free exclusive CPUs 48 (NUMA 0) and 64 (NUMA 1); Static memory
    facts['kubelet']['config']['topologyManagerScope'] = 'pod'
    return facts


def _container(name, cpu, memory='1Gi', sidecar=False):
    resources = {'requests': {'cpu': cpu, 'memory': memory}, 'limits': {'cpu': cpu, 'memory': memory}}
    entry = {'name': name, 'resources': resources}
    if sidecar:
        entry['restartPolicy'] = 'Always'
    return entry


def test_pod_scope_counts_a_sidecar_beside_the_containers():
    """A sidecar (init container with restartPolicy Always) runs beside the app containers: the CPU manager's
    podGuaranteedCPUs and the memory manager's getPodRequestedResources add it, 40 + 30 CPUs = 70, which neither
    NUMA node has free."""
    pod = refused_pod('mesh', cpu='40', memory='1Gi')
    pod['spec']['initContainers'] = [_container('proxy', '30', '512Mi', sidecar=True)]
    item = nr.refusals([pod], _pod_scope_facts())[0]
    assert item['units'] == [{'name': 'pod', 'aligned': {'cpu': '70', 'memory': '1.5Gi'}, 'devices': [],
                              'fits_numa_nodes': []}]
    assert 'pod pod asks cpu 70, memory 1.5Gi: no single NUMA node holds it now' in item['why']
    assert item['requests'] == {'cpu': '70', 'memory': '1.5Gi'}


def test_pod_scope_an_init_container_needs_itself_plus_the_sidecars_before_it():
    """An init container runs beside the sidecars started before it: 10 (sidecar) + 56 = 66 CPUs, more than the
    containers' 20 + 10 and than either NUMA node has free; the pod's requests count it the same way
    (component-helpers PodRequests)."""
    pod = refused_pod('warm', cpu='20', memory='1Gi')
    pod['spec']['initContainers'] = [_container('proxy', '10', sidecar=True), _container('warmup', '56')]
    item = nr.refusals([pod], _pod_scope_facts())[0]
    assert item['units'][0]['aligned'] == {'cpu': '66', 'memory': '2Gi'}
    assert item['units'][0]['fits_numa_nodes'] == []
    assert item['requests'] == {'cpu': '66', 'memory': '2Gi'}
    plain = refused_pod('plain', cpu='20', memory='1Gi')
    plain['spec']['initContainers'] = [_container('warmup', '50', '4Gi')]
    assert nr.refusals([plain], _pod_scope_facts())[0]['units'][0]['aligned'] == {'cpu': '50', 'memory': '4Gi'}


def test_pod_scope_asks_what_the_hint_providers_ask():
    """The CPU manager counts each container's integer CPUs (a fractional container counts 0, the others are still
    placed), neither manager counts the pod overhead; the pod's requests do."""
    pod = refused_pod('mixed', cpu='40', memory='1Gi')
    pod['spec']['containers'].append(_container('log', '1500m', '512Mi'))
    pod['spec']['overhead'] = {'cpu': '250m', 'memory': '64Mi'}
    item = nr.refusals([pod], _pod_scope_facts())[0]
    assert item['units'][0]['aligned'] == {'cpu': '40', 'memory': '1.5Gi'}
    assert item['requests'] == {'cpu': '41750m', 'memory': '1.6Gi'}


def test_pod_scope_with_pod_level_resources():
    """Pod-level resources (spec.resources): the CPU and memory managers do not place the pod per NUMA node unless
    the kubelet has the feature gate PodLevelResourceManagers; with it they ask the pod-level requests."""
    pod = refused_pod('level', cpu='4', memory='1Gi')
    pod['spec']['resources'] = {'requests': {'cpu': '70', 'memory': '8Gi'}, 'limits': {'cpu': '70', 'memory': '8Gi'}}
    facts = _pod_scope_facts()
    item = nr.refusals([pod], facts)[0]
    assert item['units'][0]['aligned'] == {} and item['requests'] == {'cpu': '70', 'memory': '8Gi'}
    assert ('pod pod has pod-level resources (spec.resources), which the CPU and memory managers do not place per '
            'NUMA node without the feature gate PodLevelResourceManagers') in item['why']
    facts['kubelet']['config']['featureGates'] = {'PodLevelResourceManagers': True}
    item = nr.refusals([pod], facts)[0]
    assert item['units'][0]['aligned'] == {'cpu': '70', 'memory': '8Gi'}
    assert item['units'][0]['fits_numa_nodes'] == []
