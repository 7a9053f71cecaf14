# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Objects on the test control plane: nodes kwok manages, seeding, and putting the cluster back after a test."""
from __future__ import annotations

import copy
import time

import kubernetes
from kubernetes.client.rest import ApiException

from . import controlplane, kwok_stages

# namespaced kinds a test may leave in a namespace that outlives it (default, kube-system, ...)
NAMESPACED_KINDS = (
    ('v1', 'pods'), ('v1', 'configmaps'), ('v1', 'secrets'), ('v1', 'serviceaccounts'), ('v1', 'services'),
    ('apps/v1', 'deployments'), ('apps/v1', 'daemonsets'), ('apps/v1', 'replicasets'),
    ('rbac.authorization.k8s.io/v1', 'roles'), ('rbac.authorization.k8s.io/v1', 'rolebindings'),
    ('policy/v1', 'poddisruptionbudgets'),
)
CLUSTER_KINDS = (
    ('rbac.authorization.k8s.io/v1', 'clusterroles'), ('rbac.authorization.k8s.io/v1', 'clusterrolebindings'),
    ('apiextensions.k8s.io/v1', 'customresourcedefinitions'),
)


_DYNAMIC = {}


def dynamic_client(client, refresh=False):
    """One kubernetes.dynamic.DynamicClient per ApiClient (its discovery is costly); ``refresh`` re-discovers
    (after a CRD was added)."""
    key = id(client)
    if key not in _DYNAMIC or _DYNAMIC[key][0] is not client:
        _DYNAMIC[key] = (client, kubernetes.dynamic.DynamicClient(client))
    elif refresh:
        _DYNAMIC[key][1].resources.invalidate_cache()
    return _DYNAMIC[key][1]


def wait_for(check, what, timeout=60, interval=0.1):
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError('timed out after %ss waiting for %s' % (timeout, what))
        time.sleep(interval)


def next_second():
    """Sleep into the next wall-clock second: creationTimestamps have one-second resolution, so an object
    created after this is newer than any created before (what newest-wins tests need)."""
    time.sleep(1.05 - (time.time() % 1.0))


def wait_pod_running(client, name, namespace):
    """Wait until kwok (the stand-in kubelet of a fake node) reports the pod Running, so no status write of
    its own races with what the test does next."""
    core = kubernetes.client.CoreV1Api(client)
    wait_for(lambda: core.read_namespaced_pod(name, namespace).status.phase == 'Running',
             'pod %s/%s Running' % (namespace, name))


def node_body(name, labels=None, unschedulable=False, taints=None, managed=True, capacity=None):
    metadata = {'name': name, 'labels': dict({'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux',
                                              'kubernetes.io/arch': 'amd64', 'type': 'kwok'}, **(labels or {}))}
    if managed:
        metadata['annotations'] = {kwok_stages.MANAGED_ANNOTATION: kwok_stages.MANAGED_VALUE}
    spec = {}
    if unschedulable:
        spec['unschedulable'] = True
    if taints:
        spec['taints'] = taints
    body = {'apiVersion': 'v1', 'kind': 'Node', 'metadata': metadata, 'spec': spec}
    if capacity:
        body['status'] = {'capacity': capacity, 'allocatable': capacity}
    return body


def add_node(client, name, ready=True, labels=None, unschedulable=False, taints=None, wait=True):
    """A Node kwok keeps Ready (``ready=False``: a Node nobody manages, which never becomes Ready)."""
    core = kubernetes.client.CoreV1Api(client)
    node = core.create_node(node_body(name, labels, unschedulable, taints, managed=ready))
    if ready and wait:
        wait_for(lambda: _ready(core, name), 'node %s Ready' % name)
        node = core.read_node(name)
    return node


def _ready(core, name):
    return controlplane.node_ready(core, name)


def create_namespace(client, name, labels=None):
    """Create a namespace (409 tolerated) and wait for its default ServiceAccount, which pods need."""
    core = kubernetes.client.CoreV1Api(client)
    try:
        core.create_namespace({'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': name, 'labels': labels or {}}})
    except ApiException as exc:
        if exc.status != 409:
            raise

    def has_sa():
        try:
            core.read_namespaced_service_account('default', name)
        except ApiException as exc:
            if exc.status == 404:
                return False
            raise
        return True
    wait_for(has_sa, 'the default ServiceAccount of namespace %s' % name, timeout=180)


def seed(client, obj, keep_status=True):
    """Create ``obj`` (a dict of any kind) through the API; its ``status`` is then written through the status
    subresource, as the controller or kubelet owning it would. Missing namespaces are created. Returns the
    object as the API returns it."""
    body = copy.deepcopy(obj)
    status = body.pop('status', None) if keep_status else None
    body.pop('status', None)
    namespace = body.get('metadata', {}).get('namespace')
    dynamic = dynamic_client(client)
    try:
        resource = dynamic.resources.get(api_version=body['apiVersion'], kind=body['kind'])
    except kubernetes.dynamic.exceptions.ResourceNotFoundError:
        dynamic = dynamic_client(client, refresh=True)
        resource = dynamic.resources.get(api_version=body['apiVersion'], kind=body['kind'])
    if resource.namespaced:
        namespace = namespace or 'default'
        create_namespace(client, namespace)
        created = resource.create(body=body, namespace=namespace)
    else:
        created = resource.create(body=body)
    if status:
        updated = created.to_dict()
        updated['status'] = status
        subresource = resource.subresources.get('status')
        created = dynamic.replace(subresource or resource, body=updated, name=updated['metadata']['name'],
                                  namespace=namespace if resource.namespaced else None)
    return created.to_dict()


def snapshot(client):
    """The uids of every object a test may touch, to put the cluster back after it."""
    dynamic = dynamic_client(client)
    uids = set()
    for api_version, plural in NAMESPACED_KINDS + CLUSTER_KINDS + (('v1', 'namespaces'), ('v1', 'nodes')):
        resource = dynamic.resources.get(api_version=api_version, name=plural)
        for item in resource.get().items:
            uids.add(item.metadata.uid)
    return uids


def restore(client, baseline_uids, nodes):
    """Delete what a test created (namespaces, CRDs, cluster roles, nodes, objects in lasting namespaces);
    recreate ``nodes`` as fresh Ready nodes when a test changed them; wait until all of it is gone."""
    dynamic = dynamic_client(client)
    core = kubernetes.client.CoreV1Api(client)
    namespaces = dynamic.resources.get(api_version='v1', name='namespaces')
    # the namespaces a test may use without creating them; kube-system & co. hold the control plane's own objects
    lasting = [ns.metadata.name for ns in namespaces.get().items
               if ns.metadata.uid in baseline_uids and not ns.metadata.name.startswith('kube-')]
    doomed = [ns.metadata.name for ns in namespaces.get().items if ns.metadata.uid not in baseline_uids]
    for name in doomed:
        # the pods at once (grace period 0), as a test's leftovers: else the namespace controller waits out
        # their termination grace period before it looks again
        _delete(lambda name=name: core.delete_collection_namespaced_pod(name, grace_period_seconds=0))
        _delete(lambda name=name: core.delete_namespace(name))
    for api_version, plural in CLUSTER_KINDS:
        resource = dynamic.resources.get(api_version=api_version, name=plural)
        for item in resource.get().items:
            if item.metadata.uid not in baseline_uids:
                _delete(lambda item=item, resource=resource: resource.delete(name=item.metadata.name))
    pods = set()  # every pod a test left in a lasting namespace, owned ones too (their owner's deletion takes them)
    for namespace in lasting:
        for api_version, plural in NAMESPACED_KINDS:
            resource = dynamic.resources.get(api_version=api_version, name=plural)
            for item in resource.get(namespace=namespace).items:
                if item.metadata.uid in baseline_uids:
                    continue
                if plural == 'pods':
                    pods.add(item.metadata.uid)
                if not _owned(item):
                    _delete(lambda item=item, resource=resource: resource.delete(
                        name=item.metadata.name, namespace=namespace, body={'propagationPolicy': 'Background'}))
    # the namespaces go first, while their pods' nodes are still there: kwok, the nodes' stand-in kubelet,
    # confirms a pod's deletion only for a node it manages
    wait_for(lambda: not any(ns.metadata.name in doomed for ns in core.list_namespace().items),
             'the namespaces %s to be deleted' % doomed, timeout=120)
    wait_for(lambda: not {p.metadata.uid for p in core.list_pod_for_all_namespaces().items} & pods,
             'the pods the test left in %s to be deleted' % lasting, timeout=120)
    # nodes: any change (cordon, labels, taints, deletion, additions) is undone by recreating them
    wanted = set(nodes)
    for node in core.list_node().items:
        if node.metadata.uid not in baseline_uids or _changed_node(node) or node.metadata.name not in wanted:
            _delete(lambda node=node: core.delete_node(node.metadata.name))
    crds = dynamic.resources.get(api_version='apiextensions.k8s.io/v1', name='customresourcedefinitions')
    # a definition goes once the API server's finalizer has deleted every object of its kind: on a machine loaded by
    # the VM job beside this one that has taken more than two minutes
    wait_for(lambda: all(i.metadata.uid in baseline_uids for i in crds.get().items),
             'custom resource definitions to go (%s)' % ', '.join(
                 sorted(i.metadata.name for i in crds.get().items if i.metadata.uid not in baseline_uids)), timeout=300)
    present = {n.metadata.name for n in core.list_node().items if not n.metadata.deletion_timestamp}
    wait_for(lambda: {n.metadata.name for n in core.list_node().items} <= present, 'nodes to go')
    for name in sorted(wanted - present):
        add_node(client, name, wait=False)
    for name in sorted(wanted):
        wait_for(lambda name=name: _ready(core, name), 'node %s Ready' % name)
    baseline_uids.clear()
    baseline_uids.update(snapshot(client))


def _owned(item):
    return bool(getattr(item.metadata, 'ownerReferences', None))


def _changed_node(node):
    labels = node.metadata.labels or {}
    return bool(node.spec.unschedulable or node.spec.taints or labels.get('type') != 'kwok'
                or set(labels) - {'kubernetes.io/hostname', 'kubernetes.io/os', 'kubernetes.io/arch', 'type'}
                or (node.metadata.annotations or {}).get(kwok_stages.MANAGED_ANNOTATION) != kwok_stages.MANAGED_VALUE)


def _delete(call):
    try:
        call()
    except ApiException as exc:
        if exc.status not in (404, 409):
            raise
