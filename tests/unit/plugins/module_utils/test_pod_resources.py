# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a pod requests, every resource, as component-helpers resource.PodRequests adds it up: sidecars, init
containers, pod-level resources, overhead, and a bad quantity under each caller's policy."""
from __future__ import annotations

from fractions import Fraction

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import memqos as mq
from ansible_collections.numaops.colocation.plugins.module_utils import numa_refusals as nr
from ansible_collections.numaops.colocation.plugins.module_utils import pod_resources as pr
from ansible_collections.numaops.colocation.plugins.module_utils.memqos_flavours import kubelet as kq
from ansible_collections.numaops.colocation.plugins.module_utils.quantity import ALLOWED

MI = 1 << 20
GI = 1 << 30


def c(name, requests=None, limits=None, sidecar=False):
    entry = {'name': name, 'resources': {}}
    if requests is not None:
        entry['resources']['requests'] = requests
    if limits is not None:
        entry['resources']['limits'] = limits
    if sidecar:
        entry['restartPolicy'] = 'Always'
    return entry


def pod(containers, init=None, overhead=None, resources=None):
    spec = {'containers': containers}
    if init is not None:
        spec['initContainers'] = init
    if overhead is not None:
        spec['overhead'] = overhead
    if resources is not None:
        spec['resources'] = resources
    return {'metadata': {'namespace': 'shop', 'name': 'p'}, 'spec': spec}


APP = [c('a', {'cpu': '2', 'memory': '1Gi'}), c('b', {'cpu': '500m', 'memory': '512Mi', 'nvidia.com/gpu': '1'})]

VECTORS = [
    # (id, pod, expected PodRequests)
    ('app containers summed, every resource',
     pod(APP), {'cpu': Fraction(5, 2), 'memory': GI + 512 * MI, 'nvidia.com/gpu': 1}),
    ('a plain init container larger than the sum sets the pod request',
     pod(APP, init=[c('migrate', {'cpu': '4', 'memory': '256Mi'})]),
     {'cpu': 4, 'memory': GI + 512 * MI, 'nvidia.com/gpu': 1}),
    ('a sidecar adds to the sum',
     pod(APP, init=[c('proxy', {'cpu': '1', 'memory': '128Mi'}, sidecar=True)]),
     {'cpu': Fraction(7, 2), 'memory': GI + 640 * MI, 'nvidia.com/gpu': 1}),
    ('an init container after a sidecar needs itself plus the sidecar',
     pod([c('a', {'cpu': '1'})], init=[c('proxy', {'cpu': '2'}, sidecar=True), c('migrate', {'cpu': '4'})]),
     {'cpu': 6}),
    ('an init container before the sidecar needs only itself',
     pod([c('a', {'cpu': '1'})], init=[c('migrate', {'cpu': '4'}), c('proxy', {'cpu': '2'}, sidecar=True)]),
     {'cpu': 4}),
    ('sidecars before an init container add up',
     pod([c('a', {'cpu': '1'})],
         init=[c('s1', {'cpu': '1'}, sidecar=True), c('s2', {'cpu': '1'}, sidecar=True), c('migrate', {'cpu': '3'})]),
     {'cpu': 5}),
    ('a resource only an init container asks is the pod\'s too',
     pod([c('a', {'cpu': '1'})], init=[c('fetch', {'ephemeral-storage': '1Gi'})]),
     {'cpu': 1, 'ephemeral-storage': GI}),
    ('overhead added',
     pod([c('a', {'cpu': '1', 'memory': '1Gi'})], overhead={'cpu': '250m', 'memory': '64Mi'}),
     {'cpu': Fraction(5, 4), 'memory': GI + 64 * MI}),
    ('pod-level requests replace the containers\' sum for what they set, overhead still added',
     pod(APP, resources={'requests': {'cpu': '8', 'hugepages-2Mi': '4Mi'}}, overhead={'cpu': '1'}),
     {'cpu': 9, 'memory': GI + 512 * MI, 'nvidia.com/gpu': 1, 'hugepages-2Mi': 4 * MI}),
    ('a pod-level resource not supported there is not taken',
     pod([c('a', {'cpu': '1'})], resources={'requests': {'cpu': '2', 'ephemeral-storage': '5Gi'}}),
     {'cpu': 2}),
    ('pod-level limits alone replace nothing (the API defaults requests from them)',
     pod([c('a', {'cpu': '1'})], resources={'limits': {'cpu': '2'}}), {'cpu': 1}),
    ('limits are not requests unless asked', pod([c('a', None, {'cpu': '4'})]), {}),
    ('no containers', pod([]), {}),
]


@pytest.mark.parametrize('the_pod,expected', [v[1:] for v in VECTORS], ids=[v[0] for v in VECTORS])
def test_pod_requests(the_pod, expected):
    assert pr.pod_requests(the_pod) == expected


def test_options_of_pod_requests():
    the_pod = pod(APP, init=[c('proxy', {'cpu': '1'}, sidecar=True)], overhead={'cpu': '1', 'memory': '1Mi'},
                  resources={'requests': {'memory': '4Gi'}})
    assert pr.pod_requests(the_pod, names=('memory',)) == {'memory': 4 * GI + MI}
    assert pr.pod_requests(the_pod, names=('memory',), overhead=False) == {'memory': 4 * GI}      # ExcludeOverhead
    assert pr.pod_requests(the_pod, names=('memory',), pod_level=False) == {'memory': GI + 513 * MI}
    assert pr.pod_requests(the_pod, names=('cpu',)) == {'cpu': Fraction(9, 2)}
    limits_only = pod([c('a', {'memory': '1Gi'}, {'cpu': '4', 'memory': '2Gi'})])
    assert pr.pod_requests(limits_only, limits_default=True) == {'cpu': 4, 'memory': GI}


def test_pod_level_set():
    assert not pr.pod_level_set(pod(APP))
    assert not pr.pod_level_set(pod(APP, resources={}))
    assert not pr.pod_level_set(pod(APP, resources={'requests': {'ephemeral-storage': '1Gi'}}))
    assert pr.pod_level_set(pod(APP, resources={'limits': {'memory': '1Gi'}}))
    assert pr.pod_level_set(pod(APP, resources={'requests': {'hugepages-1Gi': '1Gi'}}))


def test_aggregate_any_view():
    """The rule for any view of a container: the CPU manager's integer CPUs, the memory manager's resources of the
    app containers only."""
    the_pod = pod([c('a', {'cpu': '1500m'}), c('b', {'cpu': '2'})],
                  init=[c('proxy', {'cpu': '1'}, sidecar=True), c('fetch', {'hugepages-2Mi': '2Mi'})])

    def whole_cpus(container, where):
        cpu = pr.requirements(container.get('resources'), where + '.resources').get('cpu')
        return {} if cpu is None else {'cpu': int(cpu) if cpu == int(cpu) else 0}
    assert pr.aggregate(the_pod, whole_cpus) == {'cpu': 3}

    def requests(container, where):
        return pr.requirements(container.get('resources'), where)
    assert pr.aggregate(the_pod, requests) == {'cpu': Fraction(9, 2), 'hugepages-2Mi': 2 * MI}
    assert pr.aggregate(the_pod, requests, app_resources_only=True) == {'cpu': Fraction(9, 2)}


BAD = pod([c('a', {'cpu': 'lots', 'memory': '1Gi'}), c('b', {'cpu': '1', 'memory': '-1Gi'})],
          init=[c('i', {'memory': True})], overhead='64Mi')


def test_bad_quantities_left_out_and_named():
    seen = []
    got = pr.pod_requests(BAD, bad=lambda field, value, error: seen.append(pr.describe(field, value, error)))
    assert got == {'cpu': 1, 'memory': GI}
    assert seen == [
        "invalid quantity 'lots' for spec.containers[0].resources.requests[cpu]: expected " + ALLOWED,
        "spec.containers[1].resources.requests[memory] is '-1Gi'; allowed: a non-negative quantity",
        "invalid quantity True for spec.initContainers[0].resources.requests[memory]: expected "
        + ALLOWED,
        "spec.overhead is '64Mi'; allowed: a mapping of resource names to quantities"]
    assert pr.pod_requests(BAD) == {'cpu': 1, 'memory': GI}         # the default policy: skip


def test_bad_quantity_refused_by_the_memory_qos_flavour():
    """The kubelet memory-QoS flavour refuses the pod naming the field; only memory is read, so a bad cpu is not
    its concern."""
    with pytest.raises(mq.MemQosError, match=r"spec.containers\[1\].resources.requests\[memory\] is '-1Gi'; "
                                             r"allowed: a non-negative memory quantity"):
        kq.pod_memory_request(BAD)
    only_cpu_bad = pod([c('a', {'cpu': 'lots', 'memory': '1Gi'})])
    assert kq.pod_memory_request(only_cpu_bad) == GI
    with pytest.raises(mq.MemQosError, match=r"invalid quantity 'x' for spec.resources.requests\[memory\]"):
        kq.pod_memory_request(pod([c('a', {'memory': '1Gi'})], resources={'requests': {'memory': 'x'}}))


def test_bad_quantity_marked_by_the_refusal_report():
    refused = pod([c('a', {'cpu': 'lots', 'memory': '1Gi'}, {'cpu': '4', 'memory': '1Gi'})])
    refused['status'] = {'phase': 'Failed', 'reason': 'TopologyAffinityError', 'qosClass': 'Guaranteed',
                         'message': 'Pod was rejected: Resources cannot be allocated with Topology locality'}
    item = nr.refusals([refused], {'numa_nodes': [], 'kubelet': {}})[0]
    assert item['requests'] == {'memory': '1Gi'}                     # the bad request is not replaced by the limit
    assert item['invalid'] == ["invalid quantity 'lots' for spec.containers[0].resources.requests[cpu]: expected "
                               + ALLOWED]
    assert item['why'].endswith("left out, not quantities: invalid quantity 'lots' for "
                                "spec.containers[0].resources.requests[cpu]: expected " + ALLOWED)


def test_one_aggregation_for_every_user(monkeypatch):
    """The memory-QoS flavours and the refusal report add a pod's containers up through the same function."""
    calls = []
    real = pr.aggregate

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(pr, 'aggregate', counted)
    kq.pod_memory_request(pod(APP))
    assert len(calls) == 1
    nr.pod_requests(pod(APP))
    assert len(calls) == 2
