# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Pod status fields the stand-in sets like kube-apiserver and a kubelet do: qosClass and container IDs."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

kubernetes = pytest.importorskip('kubernetes')

from ansible_collections.numaops.colocation.tests.k8s_standin.fixture import (  # noqa: E402,F401 pylint: disable=unused-import
    k8s_client, k8s_standin, running_standin)


def container(name='c', requests=None, limits=None):
    result = {'name': name, 'image': 'registry.example/app:1'}
    resources = {}
    if requests is not None:
        resources['requests'] = requests
    if limits is not None:
        resources['limits'] = limits
    if resources:
        result['resources'] = resources
    return result


def pod(name, containers, init_containers=None, node=None):
    spec = {'containers': containers}
    if init_containers:
        spec['initContainers'] = init_containers
    if node:
        spec['nodeName'] = node
    return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': name, 'namespace': 'default'}, 'spec': spec}


FULL = {'cpu': '1', 'memory': '1Gi'}

QOS_CASES = [
    ('no-resources', [container()], None, 'BestEffort'),
    ('other-resources-only', [container(limits={'ephemeral-storage': '1Gi'}, requests={'ephemeral-storage': '1Gi'})],
     None, 'BestEffort'),
    ('zero-requests', [container(requests={'cpu': '0', 'memory': '0'})], None, 'BestEffort'),
    ('limits-only', [container(limits=FULL)], None, 'Guaranteed'),
    ('equal', [container(requests=FULL, limits=FULL)], None, 'Guaranteed'),
    ('equal-in-other-units', [container(requests={'cpu': '1000m', 'memory': '1024Mi'}, limits=FULL)], None,
     'Guaranteed'),
    ('equal-exponent-vs-suffix', [container(requests={'cpu': '500m', 'memory': '1e9'},
                                            limits={'cpu': '0.5', 'memory': '1G'})], None, 'Guaranteed'),
    ('request-below-limit', [container(requests={'cpu': '500m', 'memory': '1Gi'}, limits=FULL)], None, 'Burstable'),
    ('memory-limit-missing', [container(requests={'cpu': '1'}, limits={'cpu': '1'})], None, 'Burstable'),
    ('request-only', [container(requests={'memory': '64Mi'})], None, 'Burstable'),
    ('one-container-without', [container('a', limits=FULL), container('b')], None, 'Burstable'),
    ('two-guaranteed', [container('a', limits=FULL), container('b', requests=FULL, limits=FULL)], None, 'Guaranteed'),
    ('init-container-without', [container(limits=FULL)], [container('init')], 'Burstable'),
    ('init-container-only', [container()], [container('init', requests={'cpu': '100m'})], 'Burstable'),
    ('init-container-guaranteed', [container(limits=FULL)], [container('init', limits={'cpu': '2', 'memory': '2Gi'})],
     'Guaranteed'),
]


@pytest.mark.parametrize('name,containers,init_containers,expected', QOS_CASES, ids=[c[0] for c in QOS_CASES])
def test_qos_class_computed_on_create(k8s_client, name, containers, init_containers, expected):
    v1 = kubernetes.client.CoreV1Api(k8s_client)
    created = v1.create_namespaced_pod('default', pod(name, containers, init_containers))
    assert created.status.qos_class == expected
    assert v1.read_namespaced_pod(name, 'default').status.qos_class == expected


def test_qos_class_kept_when_the_kubelet_runs_the_pod(k8s_client):
    v1 = kubernetes.client.CoreV1Api(k8s_client)
    v1.create_namespaced_pod('default', pod('g', [container(limits=FULL)], node='node-1'))
    v1.create_namespaced_pod('default', pod('b', [container(requests={'cpu': '100m'})], node='node-1'))
    got = {p.metadata.name: (p.status.phase, p.status.qos_class)
           for p in v1.list_namespaced_pod('default').items}
    assert got == {'g': ('Running', 'Guaranteed'), 'b': ('Running', 'Burstable')}


def test_container_ids_look_like_containerd_ones(k8s_client):
    v1 = kubernetes.client.CoreV1Api(k8s_client)
    v1.create_namespaced_pod('default', pod('web', [container('a'), container('b')], node='node-1'))
    first = v1.read_namespaced_pod('web', 'default').status.container_statuses
    ids = [s.container_id for s in first]
    assert all(re.fullmatch(r'containerd://[0-9a-f]{64}', i) for i in ids), ids
    assert len(set(ids)) == 2
    v1.patch_namespaced_pod('web', 'default', {'metadata': {'labels': {'touched': 'yes'}}})
    again = v1.read_namespaced_pod('web', 'default').status.container_statuses
    assert [s.container_id for s in again] == ids


def test_quantity_parser_loads_when_run_as_a_script(tmp_path):
    """`python tests/k8s_standin` (molecule) has no ansible_collections.numaops on its path."""
    here = os.path.dirname(os.path.abspath(__file__))
    standin = os.path.join(os.path.dirname(os.path.dirname(here)), 'k8s_standin')
    code = ('import sys; sys.path.insert(0, %r); from k8s_standin.server import _pod_qos_class; '
            'print(_pod_qos_class({"containers": [{"resources": {"limits": {"cpu": "1", "memory": "1Gi"}, '
            '"requests": {"cpu": "1000m"}}}]}))' % os.path.dirname(standin))
    out = subprocess.run([sys.executable, '-c', code], cwd=str(tmp_path), capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=''))
    assert out.stdout.strip() == 'Guaranteed'
