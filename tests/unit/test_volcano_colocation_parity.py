# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""colocation_sync against Volcano's own colocation-config-controller, on the same pods and configurations.

The real ``vc-controller-manager --controllers=+colocation-config-controller`` (built from volcano.sh/volcano
by scripts/upstream.sh) runs against the real control plane of tests/cluster. For every pod, in every state
of a sequence of configuration changes, the ``volcano.sh/colocation-config-name`` annotation and the decoded
``volcano.sh/colocation-config`` annotation Volcano leaves must be what colocation_sync writes:

* the first state is compared both ways round: colocation_sync writes first (Volcano stopped), the pods are
  put back, then Volcano starts and must write the same;
* every later change (selector change, ratio change, relabelled pod, deleted config, a newer catch-all
  config and its deletion) is made while Volcano runs; once Volcano has settled, colocation_sync in check
  mode must find nothing to change (any pod it would change is a disagreement, shown with both values).

32 pods in two namespaces (configurations are namespaced: one namespace's configs never touch the other's
pods) x 7 states = 224 pod cases, incl. newest-wins, resets to ``{}``, a config without selector (matches
nothing, as in Volcano), other spacing of the same JSON, a wrong name, invalid JSON, and unrelated
annotations that must survive; pods of every QoS class, with each ``volcano.sh/qos-level`` value and the
batch-memory extended resource (neither changes which configuration a pod gets); pods that never become Ready
(their image cannot be pulled) and pods being deleted (a finalizer keeps them, deletionTimestamp set).
"""
from __future__ import annotations

import json
import time

import pytest

kubernetes = pytest.importorskip('kubernetes')

from ansible_collections.numaops.colocation.plugins.modules import colocation_sync  # noqa: E402
from ansible_collections.numaops.colocation.tests.cluster.fixture import k8s_client, k8s_cluster  # noqa: E402,F401 pylint: disable=unused-import
from ansible_collections.numaops.colocation.tests.cluster.objects import next_second, wait_pod_running  # noqa: E402
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.k8s_module_helpers import install_crd  # noqa: E402
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.module_runner import run_module  # noqa: E402

NAME = 'volcano.sh/colocation-config-name'
CONFIG = 'volcano.sh/colocation-config'
QOS_LEVEL = 'volcano.sh/qos-level'
BATCH_MEMORY = 'kubernetes.io/batch-memory'
GROUP, VERSION, PLURAL = 'config.volcano.sh', 'v1alpha1', 'colocationconfigurations'
NS_A, NS_B = 'parity-a', 'parity-b'
SETTLE_SECONDS = 3.0  # Volcano enqueues a pod one second after an event

# (namespace, name, labels, annotations)
PODS = [
    (NS_A, 'batch-1', {'kind': 'batch'}, {}),                                   # batch
    (NS_A, 'batch-big', {'kind': 'batch', 'size': 'big'}, {}),                  # big-batch (newer than batch)
    (NS_A, 'batch-gpu', {'kind': 'batch', 'gpu': 'a100'}, {}),                  # gpu (newest match wins)
    (NS_A, 'gpu-spaced', {'gpu': 'h100'},                                       # gpu, same JSON other spacing
     {NAME: 'gpu', CONFIG: '{ "memoryQos": { "lowRatio": 10, "highRatio": 90, "minRatio": 0 } }'}),
    (NS_A, 'web', {'tier': 'web'}, {}),                                          # web-api (In)
    (NS_A, 'api-svc', {'tier': 'api', 'kind': 'svc'}, {}),                      # web-api (not-web-api fails)
    (NS_A, 'svc', {'kind': 'svc'}, {'keep': 'me'}),                              # not-web-api (NotIn, no key)
    (NS_A, 'svc-db', {'kind': 'svc', 'tier': 'db'}, {}),                        # not-web-api
    (NS_A, 'wrong-name', {'tier': 'web'},                                        # right config, wrong name
     {NAME: 'other', CONFIG: '{"memoryQos":{"highRatio":100,"lowRatio":0,"minRatio":20}}'}),
    (NS_A, 'bad-json', {'tier': 'web'}, {NAME: 'web-api', CONFIG: 'not json'}),  # rewritten
    (NS_A, 'plain', {'app': 'x'}, {}),                                           # no match, never managed
    (NS_A, 'stale', {'app': 'x'}, {NAME: 'gone', CONFIG: '{"memoryQos":{"highRatio":50}}', 'keep': 'me'}),
    (NS_A, 'stale-name', {'app': 'x'}, {NAME: 'gone'}),                          # reset: CONFIG {} written
    (NS_A, 'reset-done', {'app': 'x'}, {CONFIG: '{}'}),                          # already reset
    (NS_B, 'b-batch', {'kind': 'batch'}, {}),                                    # only NS_B's config applies
    (NS_B, 'b-plain', {}, {}),
    (NS_B, 'b-stale', {'app': 'x'}, {NAME: 'batch', CONFIG: '{"memoryQos":{"highRatio":80}}'}),
    # QoS classes, qos-level values and batch memory (SPECS): the configuration still follows the labels only
    (NS_A, 'lc-guaranteed', {'kind': 'batch'}, {QOS_LEVEL: 'LC'}),               # batch
    (NS_A, 'hls-burstable', {'tier': 'api'}, {QOS_LEVEL: 'HLS'}),               # web-api
    (NS_A, 'ls-besteffort', {'kind': 'svc'}, {QOS_LEVEL: 'LS'}),                # not-web-api
    (NS_A, 'be-batch-memory', {'kind': 'batch', 'size': 'big'}, {QOS_LEVEL: 'BE'}),  # big-batch
    (NS_A, 'unknown-level', {'gpu': 't4'}, {QOS_LEVEL: 'XX'}),                  # gpu
    (NS_A, 'db', {'tier': 'db'}, {}),                                            # nothing (not-web-api needs kind=svc)
    (NS_A, 'svc-web', {'kind': 'svc', 'tier': 'web'}, {}),                      # web-api (not-web-api: NotIn fails)
    # never Ready (SPECS: an image that cannot be pulled)
    (NS_A, 'not-ready-batch', {'kind': 'batch'}, {}),                           # batch
    (NS_A, 'not-ready-web', {'tier': 'web'}, {}),                               # web-api
    (NS_A, 'not-ready-stale', {'app': 'x'}, {NAME: 'gone', CONFIG: '{"memoryQos":{"minRatio":5}}'}),  # reset
    (NS_B, 'b-not-ready', {}, {}),                                               # everything
    # being deleted (DELETING: a finalizer keeps them)
    (NS_A, 'deleting-batch', {'kind': 'batch'}, {}),                            # batch
    (NS_A, 'deleting-stale', {'app': 'x'}, {NAME: 'batch', CONFIG: '{"memoryQos":{"highRatio":80}}'}),  # reset
    (NS_A, 'deleting-plain', {'app': 'y'}, {}),                                 # nothing
    (NS_B, 'b-deleting', {}, {}),                                                # everything
]
GUARANTEED = {'limits': {'cpu': '100m', 'memory': '64Mi'}}
SPECS = {
    'lc-guaranteed': {'resources': GUARANTEED},
    'hls-burstable': {'resources': {'requests': {'memory': '32Mi'}, 'limits': {'memory': '64Mi'}}},
    'be-batch-memory': {'resources': {'requests': {BATCH_MEMORY: '200Mi'}, 'limits': {BATCH_MEMORY: '200Mi'}}},
    'not-ready-batch': {'image': 'registry.invalid/app:1'},
    'not-ready-web': {'image': 'registry.invalid/app:1', 'resources': GUARANTEED},
    'not-ready-stale': {'image': 'registry.invalid/app:1'},
    'b-not-ready': {'image': 'registry.invalid/app:1'},
}
NOT_READY = set(name for name, spec in SPECS.items() if 'image' in spec)
DELETING = {'deleting-batch', 'deleting-plain', 'deleting-stale', 'b-deleting'}
FINALIZER = 'numaops.test/keep'


def config(namespace, name, selector, memory_qos):
    spec = {'memoryQos': memory_qos}
    if selector is not None:
        spec['selector'] = selector
    return {'apiVersion': GROUP + '/' + VERSION, 'kind': 'ColocationConfiguration',
            'metadata': {'name': name, 'namespace': namespace}, 'spec': spec}


# oldest first; one second apart, so creationTimestamps order them (newest wins)
CONFIGS = [
    config(NS_A, 'batch', {'matchLabels': {'kind': 'batch'}}, {'highRatio': 80}),
    config(NS_A, 'gpu', {'matchExpressions': [{'key': 'gpu', 'operator': 'Exists'}]}, {'highRatio': 90, 'lowRatio': 10}),
    config(NS_A, 'no-selector', None, {'highRatio': 10}),
    config(NS_A, 'web-api', {'matchExpressions': [{'key': 'tier', 'operator': 'In', 'values': ['web', 'api']}]},
           {'minRatio': 20}),
    config(NS_A, 'not-web-api', {'matchLabels': {'kind': 'svc'},
                                 'matchExpressions': [{'key': 'tier', 'operator': 'NotIn', 'values': ['web', 'api']}]},
           {'lowRatio': 30}),
    config(NS_A, 'big-batch', {'matchLabels': {'kind': 'batch', 'size': 'big'},
                               'matchExpressions': [{'key': 'gpu', 'operator': 'DoesNotExist'}]}, {'highRatio': 60}),
    config(NS_B, 'everything', {}, {'highRatio': 70, 'minRatio': 5}),
]


def custom(client):
    return kubernetes.client.CustomObjectsApi(client)


def pod_annotations(client):
    """{namespace/name: (name annotation or None, config annotation or None)} of every test pod."""
    core = kubernetes.client.CoreV1Api(client)
    out = {}
    for namespace in (NS_A, NS_B):
        for pod in core.list_namespaced_pod(namespace).items:
            annotations = pod.metadata.annotations or {}
            out['%s/%s' % (namespace, pod.metadata.name)] = (annotations.get(NAME), annotations.get(CONFIG))
    return out


def decoded(value):
    try:
        return json.loads(value) if value is not None else None
    except ValueError:
        return ('undecodable', value)


def comparable(state):
    return {key: (name, decoded(conf)) for key, (name, conf) in state.items()}


def settle(client, timeout=60):
    """The pods' annotations once they stopped changing for SETTLE_SECONDS."""
    deadline = time.monotonic() + timeout
    last = pod_annotations(client)
    since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.25)
        now = pod_annotations(client)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= SETTLE_SECONDS:
            return now
    raise AssertionError('the pod annotations kept changing for %ss: %s' % (timeout, last))


def sync(capsys, cluster, **args):
    return run_module(colocation_sync, capsys, kubeconfig=cluster.kubeconfig_path, namespaces=[NS_A, NS_B], **args)


def assert_sync_agrees(capsys, cluster, state):
    """colocation_sync (check mode) finds nothing to change on what Volcano left."""
    result = sync(capsys, cluster, check_mode=True, diff=True)
    assert not result.get('failed'), result
    disagreements = {p['namespace'] + '/' + p['name']: {'volcano': p['before'], 'colocation_sync': p['after']}
                     for p in result['pods']}
    assert not disagreements, 'in state %s Volcano and colocation_sync disagree on: %s' % (
        state, json.dumps(disagreements, indent=1, sort_keys=True))
    assert (result['unchanged'], result['skipped']) == (len(PODS), 0), result
    return result


def test_volcano_controller_and_colocation_sync_write_the_same_annotations(k8s_cluster, k8s_client, capsys):
    install_crd(k8s_cluster, k8s_client)
    for namespace in (NS_A, NS_B):
        k8s_cluster.namespace(namespace)
    for body in CONFIGS:
        custom(k8s_client).create_namespaced_custom_object(GROUP, VERSION, body['metadata']['namespace'], PLURAL, body)
        next_second()
    core = kubernetes.client.CoreV1Api(k8s_client)
    for namespace, name, labels, annotations in PODS:
        spec = SPECS.get(name, {})
        core.create_namespaced_pod(namespace, {
            'metadata': {'name': name, 'labels': labels, 'annotations': annotations,
                         'finalizers': [FINALIZER] if name in DELETING else []},
            'spec': {'nodeName': 'node-1', 'containers': [{'name': 'c', 'image': spec.get('image', 'registry.example/app:1'),
                                                           'resources': spec.get('resources', {})}]}})
    for namespace, name, _labels, _annotations in PODS:
        if name not in NOT_READY:
            wait_pod_running(k8s_client, name, namespace)
    for namespace, name, _labels, _annotations in PODS:
        if name in DELETING:
            core.delete_namespaced_pod(name, namespace)
    try:
        check_both_controllers(k8s_cluster, k8s_client, capsys, core)
    finally:
        for namespace, name, _labels, _annotations in PODS:
            if name in DELETING:
                core.patch_namespaced_pod(name, namespace, {'metadata': {'finalizers': None}},
                                          _content_type='application/merge-patch+json')


def check_both_controllers(k8s_cluster, k8s_client, capsys, core):
    plane = k8s_cluster.plane
    qos = {key: pod.status.qos_class for namespace in (NS_A, NS_B)
           for key, pod in (('%s/%s' % (namespace, p.metadata.name), p) for p in core.list_namespaced_pod(namespace).items)}
    assert set(qos.values()) == {'Guaranteed', 'Burstable', 'BestEffort'}
    deleting = [p.metadata.name for namespace in (NS_A, NS_B) for p in core.list_namespaced_pod(namespace).items
                if p.metadata.deletion_timestamp]
    assert sorted(deleting) == sorted(DELETING)
    initial = pod_annotations(k8s_client)

    # --- state 0, both ways round: colocation_sync first, the pods put back, then Volcano from its start
    written = sync(capsys, k8s_cluster)
    assert written['changed'] and not written.get('failed'), written
    by_sync = pod_annotations(k8s_client)
    for key, (name, conf) in initial.items():
        namespace, pod = key.split('/')
        core.patch_namespaced_pod(pod, namespace, {'metadata': {'annotations': {NAME: name, CONFIG: conf}}},
                                  _content_type='application/merge-patch+json')
    assert pod_annotations(k8s_client) == initial
    plane.start_volcano()
    try:
        by_volcano = settle(k8s_client)
        assert comparable(by_volcano) == comparable(by_sync)
        expected = {'batch-1': 'batch', 'batch-big': 'big-batch', 'batch-gpu': 'gpu', 'gpu-spaced': 'gpu',
                    'web': 'web-api', 'api-svc': 'web-api', 'svc': 'not-web-api', 'svc-db': 'not-web-api',
                    'wrong-name': 'web-api', 'bad-json': 'web-api', 'plain': None, 'stale': None,
                    'stale-name': None, 'reset-done': None, 'b-batch': 'everything', 'b-plain': 'everything',
                    'b-stale': 'everything', 'lc-guaranteed': 'batch', 'hls-burstable': 'web-api',
                    'ls-besteffort': 'not-web-api', 'be-batch-memory': 'big-batch', 'unknown-level': 'gpu',
                    'db': None, 'svc-web': 'web-api', 'not-ready-batch': 'batch', 'not-ready-web': 'web-api',
                    'not-ready-stale': None, 'b-not-ready': 'everything', 'deleting-batch': 'batch',
                    'deleting-stale': None, 'deleting-plain': None, 'b-deleting': 'everything'}
        assert {k.split('/')[1]: v[0] for k, v in by_volcano.items()} == expected
        assert by_volcano[NS_A + '/plain'] == (None, None)
        for reset in ('stale', 'stale-name', 'reset-done', 'not-ready-stale', 'deleting-stale'):
            assert by_volcano[NS_A + '/' + reset] == (None, '{}')
        # the same JSON with other spacing is left alone by both; unrelated annotations survive
        assert by_volcano[NS_A + '/gpu-spaced'] == initial[NS_A + '/gpu-spaced']
        assert core.read_namespaced_pod('stale', NS_A).metadata.annotations['keep'] == 'me'
        assert decoded(by_volcano[NS_B + '/b-batch'][1]) == {'memoryQos': {'highRatio': 70, 'minRatio': 5}}  # lowRatio 0 left out
        assert_sync_agrees(capsys, k8s_cluster, 'initial')

        # --- live changes while Volcano runs
        steps = [
            ('selector of batch changed to kind=batch2', lambda: custom(k8s_client).patch_namespaced_custom_object(
                GROUP, VERSION, NS_A, PLURAL, 'batch', {'spec': {'selector': {'matchLabels': {'kind': 'batch2'}}}},
                _content_type='application/merge-patch+json')),
            ('gpu ratios changed', lambda: custom(k8s_client).patch_namespaced_custom_object(
                GROUP, VERSION, NS_A, PLURAL, 'gpu', {'spec': {'memoryQos': {'highRatio': 95, 'lowRatio': 5}}},
                _content_type='application/merge-patch+json')),
            ('svc relabelled to kind=batch2', lambda: core.patch_namespaced_pod(
                'svc', NS_A, {'metadata': {'labels': {'kind': 'batch2'}}}, _content_type='application/merge-patch+json')),
            ('web-api deleted', lambda: custom(k8s_client).delete_namespaced_custom_object(
                GROUP, VERSION, NS_A, PLURAL, 'web-api')),
            ('a newer catch-all in ' + NS_A, lambda: custom(k8s_client).create_namespaced_custom_object(
                GROUP, VERSION, NS_A, PLURAL, config(NS_A, 'catch-all', {}, {'highRatio': 50}))),
            ('the catch-all deleted', lambda: custom(k8s_client).delete_namespaced_custom_object(
                GROUP, VERSION, NS_A, PLURAL, 'catch-all')),
        ]
        states = {'initial': by_volcano}
        for description, change in steps:
            next_second()
            change()
            states[description] = settle(k8s_client)
            assert_sync_agrees(capsys, k8s_cluster, description)
    finally:
        plane.stop_volcano()

    names = {state: {k.split('/')[1]: v[0] for k, v in annotations.items()} for state, annotations in states.items()}
    # what the sequence exercised, as both controllers agreed on it
    assert names['selector of batch changed to kind=batch2']['batch-1'] is None
    assert states['selector of batch changed to kind=batch2'][NS_A + '/batch-1'][1] == '{}'
    assert decoded(states['gpu ratios changed'][NS_A + '/gpu-spaced'][1])['memoryQos']['highRatio'] == 95
    assert names['svc relabelled to kind=batch2']['svc'] == 'batch'
    assert names['web-api deleted']['web'] is None and names['web-api deleted']['api-svc'] is None
    assert set(names['a newer catch-all in ' + NS_A][k] for k in names['initial'] if not k.startswith('b-')) == {'catch-all'}
    assert names['a newer catch-all in ' + NS_A]['b-plain'] == 'everything'
    assert names['the catch-all deleted']['plain'] is None
    assert states['the catch-all deleted'][NS_A + '/plain'][1] == '{}'
    assert len(PODS) >= 30 and len(PODS) * len(states) >= 200
