# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""colocation_sync through the real kubernetes client against a real control plane (tests/cluster)."""
from __future__ import annotations

import json

import pytest

kubernetes = pytest.importorskip('kubernetes')

from ansible_collections.numaops.colocation.plugins.modules import colocation_sync  # noqa: E402
from ansible_collections.numaops.colocation.tests.cluster.fixture import (  # noqa: E402,F401 pylint: disable=unused-import
    client_requests, k8s_client, k8s_cluster, writes)
from ansible_collections.numaops.colocation.tests.cluster.objects import next_second, wait_pod_running  # noqa: E402
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.k8s_module_helpers import install_crd  # noqa: E402
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.module_runner import run_module  # noqa: E402

NAME = 'volcano.sh/colocation-config-name'
CONFIG = 'volcano.sh/colocation-config'


def run(capsys, standin, **args):
    args.setdefault('kubeconfig', standin.kubeconfig_path)
    return run_module(colocation_sync, capsys, **args)


def make_config(client, name, selector, memory_qos, namespace='team'):
    spec = {'memoryQos': memory_qos}
    if selector is not None:
        spec['selector'] = selector
    kubernetes.client.CustomObjectsApi(client).create_namespaced_custom_object(
        'config.volcano.sh', 'v1alpha1', namespace, 'colocationconfigurations',
        {'apiVersion': 'config.volcano.sh/v1alpha1', 'kind': 'ColocationConfiguration',
         'metadata': {'name': name, 'namespace': namespace}, 'spec': spec})


def make_pod(client, name, labels, annotations=None, namespace='team'):
    kubernetes.client.CoreV1Api(client).create_namespaced_pod(namespace, {
        'metadata': {'name': name, 'labels': labels, 'annotations': annotations or {}},
        'spec': {'nodeName': 'node-1', 'containers': [{'name': 'c', 'image': 'registry.example/app:1'}]}})
    wait_pod_running(client, name, namespace)


def annotations(client, name, namespace='team'):
    meta = kubernetes.client.CoreV1Api(client).read_namespaced_pod(name, namespace).metadata
    return dict((k, v) for k, v in (meta.annotations or {}).items() if k in (NAME, CONFIG))


@pytest.fixture
def cluster(k8s_cluster, k8s_client):
    """Namespaces team and other; configs (older 'batch', newer 'gpu') and a mix of pods in team."""
    install_crd(k8s_cluster, k8s_client)
    for ns in ('team', 'other'):
        k8s_cluster.namespace(ns)
    make_config(k8s_client, 'batch', {'matchLabels': {'kind': 'batch'}}, {'highRatio': 80})
    next_second()
    make_config(k8s_client, 'gpu', {'matchExpressions': [{'key': 'gpu', 'operator': 'Exists'}]}, {'highRatio': 90, 'lowRatio': 10})
    make_config(k8s_client, 'nothing', None, {'highRatio': 10})  # no selector: matches no pod (Volcano)
    make_pod(k8s_client, 'batch-1', {'kind': 'batch'})                       # -> batch
    make_pod(k8s_client, 'both-1', {'kind': 'batch', 'gpu': 'a100'})         # -> gpu (newest wins)
    make_pod(k8s_client, 'web-1', {'kind': 'web'})                           # nothing, no annotations: untouched
    make_pod(k8s_client, 'stale-1', {'kind': 'web'},                         # had a config, matches nothing: reset
             {NAME: 'gone', CONFIG: '{"memoryQos":{"highRatio":50}}', 'keep': 'me'})
    make_pod(k8s_client, 'spaced-1', {'kind': 'batch'},                      # up to date, other spacing: untouched
             {NAME: 'batch', CONFIG: '{ "memoryQos": {"minRatio": 0, "highRatio": 80} }'})
    make_pod(k8s_client, 'reset-1', {'kind': 'web'}, {CONFIG: '{}'})          # already reset: untouched
    make_pod(k8s_client, 'batch-other', {'kind': 'batch'}, namespace='other')  # no config in its namespace
    k8s_cluster.requests[:] = []
    return k8s_cluster


def test_sync_mixed_namespace_check_mode_predicts_real_run(cluster, k8s_client, capsys, client_requests):
    predicted = run(capsys, cluster, check_mode=True, diff=True, namespaces=['team'])
    assert writes(cluster) == []
    # without --diff no diff is returned (as with every other module)
    plain = run(capsys, cluster, check_mode=True, namespaces=['team'])
    assert 'diff' not in plain and plain['changed'] == predicted['changed']
    real = run(capsys, cluster, diff=True, namespaces=['team'])
    for key in ('changed', 'annotated', 'reset', 'unchanged', 'skipped', 'pods', 'diff'):
        assert predicted[key] == real[key], key
    assert (real['annotated'], real['reset'], real['unchanged'], real['skipped']) == (2, 1, 3, 0)
    assert [p['name'] for p in real['pods']] == ['batch-1', 'both-1', 'stale-1']
    assert annotations(k8s_client, 'batch-1') == {
        NAME: 'batch', CONFIG: '{"memoryQos":{"highRatio":80}}'}  # as Volcano writes it
    assert annotations(k8s_client, 'both-1')[NAME] == 'gpu'
    assert annotations(k8s_client, 'stale-1') == {CONFIG: '{}'}
    meta = kubernetes.client.CoreV1Api(k8s_client).read_namespaced_pod('stale-1', 'team').metadata
    assert meta.annotations['keep'] == 'me' and meta.labels == {'kind': 'web'}
    assert annotations(k8s_client, 'spaced-1')[CONFIG] == '{ "memoryQos": {"minRatio": 0, "highRatio": 80} }'
    assert annotations(k8s_client, 'web-1') == {}
    assert real['diff']['before']['team/stale-1'][NAME] == 'gone'
    assert real['diff']['after']['team/stale-1'] == {CONFIG: '{}'}
    # only annotation merge patches were sent, never a replace (the server's audit log: what was done;
    # the client's requests: with which content type)
    sent = writes(cluster)
    assert len(sent) == 3 and all(r['method'] == 'PATCH' and r['status'] == 200 for r in sent), sent
    patches = [r for r in client_requests if r['method'] not in ('GET', 'HEAD')]
    assert [r['content_type'] for r in patches] == ['application/merge-patch+json'] * 3, patches

    second = run(capsys, cluster, namespaces=['team'])
    assert not second['changed'] and second['pods'] == [] and second['unchanged'] == 6


def test_sync_all_namespaces_and_label_selector(cluster, k8s_client, capsys):
    limited = run(capsys, cluster, label_selector='gpu')
    assert [p['name'] for p in limited['pods']] == ['both-1'] and limited['unchanged'] == 0
    everything = run(capsys, cluster)
    assert [(p['namespace'], p['name']) for p in everything['pods']] == [('team', 'batch-1'), ('team', 'stale-1')]
    assert annotations(k8s_client, 'batch-other', 'other') == {}
    assert not run(capsys, cluster)['changed']


def test_config_changes_are_followed(cluster, k8s_client, capsys):
    run(capsys, cluster, namespaces=['team'])
    custom = kubernetes.client.CustomObjectsApi(k8s_client)
    custom.patch_namespaced_custom_object('config.volcano.sh', 'v1alpha1', 'team', 'colocationconfigurations', 'batch',
                                          {'spec': {'memoryQos': {'highRatio': 60}}},
                                          _content_type='application/merge-patch+json')
    result = run(capsys, cluster, namespaces=['team'])
    assert [p['name'] for p in result['pods']] == ['batch-1', 'spaced-1']
    assert json.loads(annotations(k8s_client, 'spaced-1')[CONFIG])['memoryQos']['highRatio'] == 60
    custom.delete_namespaced_custom_object('config.volcano.sh', 'v1alpha1', 'team', 'colocationconfigurations', 'gpu')
    result = run(capsys, cluster, namespaces=['team'])
    assert [(p['name'], p['after'][NAME]) for p in result['pods']] == [('both-1', 'batch')]


def test_missing_namespace_fails_before_any_change(cluster, capsys):
    result = run(capsys, cluster, namespaces=['team', 'tema'])
    assert result['failed'] and 'tema' in result['msg'] and 'nothing was changed' in result['msg']
    assert writes(cluster) == []


def test_crd_missing(k8s_cluster, capsys):
    result = run(capsys, k8s_cluster)
    assert result['failed'] and 'colocation_controller role' in result['msg']


def test_pod_deleted_meanwhile_is_skipped(cluster, k8s_client, capsys, monkeypatch):
    original = colocation_sync.Reconciler.list_pods

    def list_then_delete(self, namespaces, label_selector):
        pods = original(self, namespaces, label_selector)
        # gone at once, as after the kubelet confirmed termination
        kubernetes.client.CoreV1Api(k8s_client).delete_namespaced_pod('batch-1', 'team', grace_period_seconds=0)
        return pods
    monkeypatch.setattr(colocation_sync.Reconciler, 'list_pods', list_then_delete)
    result = run(capsys, cluster, namespaces=['team'])
    assert result['skipped'] == 1 and [p['name'] for p in result['pods']] == ['both-1', 'stale-1']


def test_pod_changed_meanwhile_is_re_evaluated(cluster, k8s_client, capsys, monkeypatch):
    original = colocation_sync.Reconciler.list_pods

    def list_then_relabel(self, namespaces, label_selector):
        pods = original(self, namespaces, label_selector)
        kubernetes.client.CoreV1Api(k8s_client).patch_namespaced_pod(
            'web-1', 'team', {'metadata': {'labels': {'gpu': 'h100'}}}, _content_type='application/merge-patch+json')
        kubernetes.client.CoreV1Api(k8s_client).patch_namespaced_pod(
            'batch-1', 'team', {'metadata': {'labels': {'gpu': 'h100'}}}, _content_type='application/merge-patch+json')
        return pods
    monkeypatch.setattr(colocation_sync.Reconciler, 'list_pods', list_then_relabel)
    result = run(capsys, cluster, namespaces=['team'])
    # batch-1 was evaluated as "batch", got 409 on its stale resourceVersion, and was re-read: now "gpu"
    assert annotations(k8s_client, 'batch-1')[NAME] == 'gpu'
    assert [p['after'][NAME] for p in result['pods'] if p['name'] == 'batch-1'] == ['gpu']
    # web-1 was listed without configuration and stays for the next pass (as Volcano's next event would)
    assert annotations(k8s_client, 'web-1') == {}
    assert run(capsys, cluster, namespaces=['team'])['annotated'] == 1


def test_invalid_config_in_cluster_is_skipped_with_warning(cluster, k8s_client, capsys):
    make_config(k8s_client, 'broken', {'matchExpressions': [{'key': 'kind', 'operator': 'Has'}]}, {'highRatio': 5})
    result = run(capsys, cluster, namespaces=['team'])
    warnings = json.dumps(result['warnings'])  # ansible-core 2.19 returns structured warnings
    assert 'team/broken' in warnings and 'allowed: In, NotIn, Exists, DoesNotExist' in warnings, warnings
    assert result['annotated'] == 2


def test_old_client_without_content_type_choice_still_patches_annotations(cluster, k8s_client, capsys, monkeypatch,
                                                                          client_requests):
    original = kubernetes.client.CoreV1Api.patch_namespaced_pod

    def old_client_patch(self, name, namespace, body, **kwargs):
        if '_content_type' in kwargs:
            raise TypeError("patch_namespaced_pod() got an unexpected keyword argument '_content_type'")
        return original(self, name, namespace, body, **kwargs)
    monkeypatch.setattr(kubernetes.client.CoreV1Api, 'patch_namespaced_pod', old_client_patch)
    result = run(capsys, cluster, namespaces=['team'])
    assert (result['annotated'], result['reset']) == (2, 1)
    assert annotations(k8s_client, 'stale-1') == {CONFIG: '{}'}
    assert {r['content_type'] for r in client_requests if r['method'] == 'PATCH'} == {'application/strategic-merge-patch+json'}
    assert {r['status'] for r in writes(cluster)} == {200}
