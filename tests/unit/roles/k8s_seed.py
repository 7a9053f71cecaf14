# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Put test pods on a Kubernetes API (the test control plane of tests/cluster, or a real cluster) the way a kubelet would.

Each pod (test data from tests/standins/podgen.py) is created through the API without its status and bound
to the given node, then its status (phase, qosClass, containerStatuses with container IDs) is written
through the ``pods/status`` subresource, as the kubelet does. The pods are then read back as the API
returns them (server-assigned UIDs) and written out, so the cgroup v2 stand-in tree can be built for exactly
the pods the memory_qos role will fetch.

    python k8s_seed.py --kubeconfig KUBECONFIG --pods pods.json --node NODE --out api-pods.json

Used by the memory_qos_role molecule scenario and tests/unit/test_awx_runner.py.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import sys

try:
    import kubernetes
    from kubernetes.client.rest import ApiException
except ImportError:  # pragma: no cover - only on machines without the test requirements
    kubernetes = None
    ApiException = Exception

if __package__ in (None, ''):
    # run as a script (molecule): tests/cluster is a package beside tests/unit
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from cluster import kwok_stages, objects  # pylint: disable=import-error
else:
    from ansible_collections.numaops.colocation.tests.cluster import kwok_stages, objects


def _client(kubeconfig):
    """An API client for the kubeconfig."""
    if kubernetes is None:
        raise SystemExit('the kubernetes Python client is required: pip install kubernetes')
    return kubernetes.config.new_client_from_config(config_file=kubeconfig)


def _items(data):
    if isinstance(data, dict):
        return data.get('items') or data.get('resources') or []
    return data


def _ensure_node(core, node):
    """The Node the pods are bound to, as its kubelet would have registered it (without it the pod garbage
    collector deletes the pods as orphans, as in any cluster). Returns True when it was created here: it is
    then handed to kwok only after the pods have their status (see _hand_to_kwok)."""
    try:
        core.read_node(node, _preload_content=False)
        return False
    except ApiException as exc:
        if exc.status != 404:
            raise
    core.create_node(objects.node_body(node, managed=False), _preload_content=False)
    return True


def _hand_to_kwok(core, node):
    """Let kwok play the node's kubelet from now on: it keeps the node Ready and runs the pods created on it
    later (e.g. the Volcano agent's). The seeded pods are Running already, which kwok's stages leave alone;
    handing the node over before their status is written would let kwok race it with a status of its own."""
    core.patch_node(node, {'metadata': {'annotations': {kwok_stages.MANAGED_ANNOTATION: kwok_stages.MANAGED_VALUE}}},
                    _preload_content=False)


def seed_pods(kubeconfig, pods, node):
    """Create ``pods`` on ``node`` and give them their status; return them as the API returns them."""
    api_client = _client(kubeconfig)
    core = kubernetes.client.CoreV1Api(api_client)
    namespaces = sorted({p['metadata'].get('namespace', 'default') for p in pods})
    for namespace in namespaces:
        try:
            core.create_namespace({'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': namespace}},
                                  _preload_content=False)
        except ApiException as exc:
            if exc.status != 409:
                raise
    created = _ensure_node(core, node)
    for pod in pods:
        body = copy.deepcopy(pod)
        status = body.pop('status', None) or {}
        for key in ('uid', 'creationTimestamp', 'resourceVersion'):
            body['metadata'].pop(key, None)
        body['spec']['nodeName'] = node
        namespace = body['metadata'].get('namespace', 'default')
        for container_status in status.get('containerStatuses') or []:
            container_status.setdefault('imageID', '')
        # raw responses: the test data need not satisfy the client's models, only the API
        core.create_namespaced_pod(namespace, body, _preload_content=False)
        core.patch_namespaced_pod_status(body['metadata']['name'], namespace, {'status': status}, _preload_content=False)
    if created:
        _hand_to_kwok(core, node)
    listed = core.list_pod_for_all_namespaces(field_selector='spec.nodeName=%s' % node, _preload_content=False)
    return json.loads(listed.data)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n', maxsplit=1)[0])
    parser.add_argument('--kubeconfig', required=True)
    parser.add_argument('--pods', required=True, help='PodList or list of pods (JSON)')
    parser.add_argument('--node', required=True)
    parser.add_argument('--out', required=True, help='where the PodList as the API returns it is written')
    args = parser.parse_args(argv)
    with open(args.pods) as handle:
        pods = _items(json.load(handle))
    result = seed_pods(args.kubeconfig, pods, args.node)
    with open(args.out, 'w') as handle:
        json.dump(result, handle, indent=1)
    print(json.dumps({'node': args.node, 'pods': len(result.get('items') or [])}))
    return 0


if __name__ == '__main__':
    sys.exit(main())
