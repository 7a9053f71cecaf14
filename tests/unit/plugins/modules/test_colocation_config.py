# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""colocation_config through the real kubernetes client against a real control plane (tests/cluster)."""
from __future__ import annotations

import pytest

kubernetes = pytest.importorskip('kubernetes')

from ansible_collections.numaops.colocation.plugins.module_utils import k8s as k8s_utils  # noqa: E402
from ansible_collections.numaops.colocation.plugins.modules import colocation_config  # noqa: E402
from ansible_collections.numaops.colocation.tests.cluster.fixture import (  # noqa: E402,F401 pylint: disable=unused-import
    k8s_client, k8s_cluster, writes)
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.k8s_module_helpers import install_crd  # noqa: E402
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.module_runner import run_module  # noqa: E402

GVP = ('config.volcano.sh', 'v1alpha1')


def run(capsys, standin, **args):
    args.setdefault('kubeconfig', standin.kubeconfig_path)
    return run_module(colocation_config, capsys, **args)


def live(client, name, namespace='default'):
    return kubernetes.client.CustomObjectsApi(client).get_namespaced_custom_object(
        GVP[0], GVP[1], namespace, 'colocationconfigurations', name)


def test_crd_missing_points_to_the_role(k8s_cluster, capsys):
    result = run(capsys, k8s_cluster, name='a', namespace='default', selector={}, memory_qos={'highRatio': 80})
    assert result['failed']
    assert 'CustomResourceDefinition colocationconfigurations.config.volcano.sh is missing' in result['msg']
    assert 'numaops.colocation.colocation_controller role' in result['msg']
    absent = run(capsys, k8s_cluster, name='a', namespace='default', state='absent')
    assert not absent.get('failed') and not absent['changed']
    assert writes(k8s_cluster) == []


def test_create_idempotent_update_delete(k8s_cluster, k8s_client, capsys):
    install_crd(k8s_cluster, k8s_client)
    args = dict(name='batch', namespace='default', selector={'matchLabels': {'app': 'batch'}},
                memory_qos={'highRatio': 80})
    predicted = run(capsys, k8s_cluster, check_mode=True, diff=True, **args)
    assert predicted['changed'] and predicted['diff']['before'] == {}
    with pytest.raises(kubernetes.client.ApiException):
        live(k8s_client, 'batch')
    created = run(capsys, k8s_cluster, **args)
    assert created['changed']
    assert created['result']['spec'] == predicted['result']['spec'] == {
        'selector': {'matchLabels': {'app': 'batch'}}, 'memoryQos': {'highRatio': 80, 'lowRatio': 0, 'minRatio': 0}}
    assert created['result']['metadata']['uid']
    assert 'diff' not in created  # a diff only with --diff, like every other module

    again = run(capsys, k8s_cluster, **args)
    assert not again['changed']
    assert again['result']['metadata']['resourceVersion'] == created['result']['metadata']['resourceVersion']
    # an explicit default is the same spec
    explicit = dict(args)
    explicit['memory_qos'] = {'highRatio': 80, 'minRatio': 0}
    assert not run(capsys, k8s_cluster, **explicit)['changed']

    update = dict(args)
    update['memory_qos'] = {'highRatio': 70, 'lowRatio': 20}
    predicted = run(capsys, k8s_cluster, check_mode=True, **update)
    assert live(k8s_client, 'batch')['spec']['memoryQos']['highRatio'] == 80
    updated = run(capsys, k8s_cluster, diff=True, **update)
    assert updated['changed'] and updated['result']['metadata']['generation'] == 2
    assert predicted['result']['spec'] == updated['result']['spec']
    assert updated['diff']['before']['spec']['memoryQos']['highRatio'] == 80
    assert updated['diff']['after']['spec']['memoryQos'] == {'highRatio': 70, 'lowRatio': 20, 'minRatio': 0}
    assert not run(capsys, k8s_cluster, **update)['changed']

    # dropping the selector really removes it (the spec is replaced, not merged)
    no_selector = run(capsys, k8s_cluster, name='batch', namespace='default', memory_qos={'highRatio': 70, 'lowRatio': 20})
    assert no_selector['changed'] and 'selector' not in live(k8s_client, 'batch')['spec']

    check_delete = run(capsys, k8s_cluster, check_mode=True, name='batch', namespace='default', state='absent')
    assert check_delete['changed'] and live(k8s_client, 'batch')
    deleted = run(capsys, k8s_cluster, diff=True, name='batch', namespace='default', state='absent')
    assert deleted['changed'] and deleted['result'] == {} and deleted['diff']['after'] == {}
    assert deleted['diff']['before']['metadata']['name'] == 'batch'
    assert not run(capsys, k8s_cluster, name='batch', namespace='default', state='absent')['changed']


def test_definition_form_and_labels(k8s_cluster, k8s_client, capsys):
    install_crd(k8s_cluster, k8s_client)
    definition = {'apiVersion': 'config.volcano.sh/v1alpha1', 'kind': 'ColocationConfiguration',
                  'metadata': {'name': 'd', 'namespace': 'default', 'labels': {'team': 'data'}},
                  'spec': {'selector': {'matchExpressions': [{'key': 'tier', 'operator': 'Exists'}]},
                           'memoryQos': {'lowRatio': 5}}}
    first = run(capsys, k8s_cluster, definition=definition)
    assert first['changed'] and first['result']['metadata']['labels'] == {'team': 'data'}
    assert first['result']['spec']['memoryQos'] == {'highRatio': 100, 'lowRatio': 5, 'minRatio': 0}
    assert not run(capsys, k8s_cluster, definition=definition)['changed']
    # options given the options way describe the same object
    assert not run(capsys, k8s_cluster, name='d', namespace='default',
                   selector={'matchExpressions': [{'key': 'tier', 'operator': 'Exists', 'values': []}]},
                   memory_qos={'lowRatio': 5})['changed']
    relabel = dict(definition, metadata=dict(definition['metadata'], labels={'owner': 'ops'}))
    result = run(capsys, k8s_cluster, definition=relabel)
    assert result['changed'] and result['result']['metadata']['labels'] == {'team': 'data', 'owner': 'ops'}


@pytest.mark.parametrize('args, text', [
    (dict(memory_qos={'highRatio': 101}), 'spec.memoryQos.highRatio is 101; allowed: an integer from 0 to 100'),
    (dict(memory_qos={'lowRatio': True}), 'spec.memoryQos.lowRatio is true'),
    (dict(memory_qos={'minRatio': '10'}), 'spec.memoryQos.minRatio is "10"'),
    (dict(selector={'matchExpressions': [{'key': 'a', 'operator': 'Has'}]}), 'spec.selector.matchExpressions[0].operator'),
    (dict(selector={'matchExpressions': [{'key': 'a', 'operator': 'In'}]}), 'a non-empty list of label values'),
    (dict(selector={'matchLabels': {'bad key!': 'x'}}), 'spec.selector.matchLabels.bad key!'),
    (dict(definition={'kind': 'Pod', 'metadata': {'name': 'a', 'namespace': 'default'}}), 'definition must be a'),
    (dict(definition={'metadata': {'name': 'a'}, 'spec': {}}, name=None), 'namespace is required'),
    (dict(definition={'metadata': {'name': 'b', 'namespace': 'default'}, 'spec': {}}), "name is 'a' but definition.metadata.name is 'b'"),
])
def test_invalid_input_is_refused_before_anything_is_sent(k8s_cluster, k8s_client, capsys, args, text):
    install_crd(k8s_cluster, k8s_client)
    before = len(k8s_cluster.requests)
    params = dict(name='a', namespace='default')
    if 'definition' in args:
        params.pop('namespace')
    params.update(args)
    params = dict((k, v) for k, v in params.items() if v is not None)
    result = run(capsys, k8s_cluster, **params)
    assert result['failed'] and text in result['msg'], result['msg']
    assert len(k8s_cluster.requests) == before


def test_connection_by_host_and_api_key(k8s_cluster, k8s_client, capsys):
    install_crd(k8s_cluster, k8s_client)
    args = dict(name='t', namespace='default', selector={}, host=k8s_cluster.url, ca_cert=k8s_cluster.ca_path)
    ok = run_module(colocation_config, capsys, api_key=k8s_cluster.token, **args)
    assert ok['changed']
    denied = run_module(colocation_config, capsys, api_key='wrong', **args)
    assert denied['failed'] and 'HTTP 401' in denied['msg'] and 'credentials' in denied['msg']
    k8s_cluster.requests[:] = []


def test_unreachable_server_and_bad_kubeconfig(tmp_path, capsys):
    result = run_module(colocation_config, capsys, name='t', namespace='default', host='http://127.0.0.1:9', api_key='x')
    assert result['failed'] and 'cannot reach the Kubernetes API server' in result['msg']
    result = run_module(colocation_config, capsys, name='t', namespace='default', kubeconfig=str(tmp_path / 'nope'))
    assert result['failed'] and 'Could not load the Kubernetes client configuration from the file named by the kubeconfig option' in result['msg']


def test_missing_library_message(monkeypatch, capsys):
    monkeypatch.setattr(k8s_utils, 'HAS_KUBERNETES', False)
    result = run_module(colocation_config, capsys, name='t', namespace='default')
    assert result['failed'] and 'pip install kubernetes' in result['msg'] and 'delegate_to: localhost' in result['msg']


def test_env_fallbacks_like_kubernetes_core(k8s_cluster, k8s_client, capsys, monkeypatch):
    install_crd(k8s_cluster, k8s_client)
    monkeypatch.setenv('K8S_AUTH_KUBECONFIG', k8s_cluster.kubeconfig_path)
    result = run_module(colocation_config, capsys, name='e', namespace='default', selector={})
    assert result['changed']


def test_check_mode_fails_like_the_real_run_for_a_missing_namespace(k8s_cluster, k8s_client, capsys):
    install_crd(k8s_cluster, k8s_client)
    args = dict(name='batch', namespace='nowhere', selector={}, memory_qos={'highRatio': 80})
    predicted = run(capsys, k8s_cluster, check_mode=True, **args)
    real = run(capsys, k8s_cluster, **args)
    assert predicted['failed'] and real['failed'], (predicted, real)
    assert predicted['status'] == real['status'] == 404
    assert 'nowhere' in predicted['msg'] and predicted['msg'] == real['msg']


def grant(client, namespace, account, resources, verbs, api_group='config.volcano.sh'):
    """A Role and RoleBinding giving ServiceAccount ``namespace/account`` ``verbs`` on ``resources`` in
    ``namespace`` (real RBAC)."""
    rbac = kubernetes.client.RbacAuthorizationV1Api(client)
    rbac.create_namespaced_role(namespace, {'metadata': {'name': 'test-' + account}, 'rules': [
        {'apiGroups': [api_group], 'resources': resources, 'verbs': verbs}]})
    rbac.create_namespaced_role_binding(namespace, {
        'metadata': {'name': 'test-' + account},
        'roleRef': {'apiGroup': 'rbac.authorization.k8s.io', 'kind': 'Role', 'name': 'test-' + account},
        'subjects': [{'kind': 'ServiceAccount', 'name': account, 'namespace': namespace}]})


def test_rbac_refusal_names_the_permission_and_changes_nothing(k8s_cluster, k8s_client, capsys):
    # a restricted ServiceAccount's token (TokenRequest API), as an AWX job running in a pod would hold
    install_crd(k8s_cluster, k8s_client)
    k8s_cluster.namespace('rbac')
    args = dict(kubeconfig=k8s_cluster.service_account_kubeconfig('rbac', 'numaops-restricted'), name='r',
                namespace='rbac', selector={})
    refused = run_module(colocation_config, capsys, **args)
    assert refused['failed'] and 'HTTP 403 Forbidden' in refused['msg'] and 'RBAC permission' in refused['msg'], refused['msg']
    assert 'system:serviceaccount:rbac:numaops-restricted' in refused['msg'], refused['msg']
    assert 'colocationconfigurations' in refused['msg'], refused['msg']
    # reading allowed, writing not: the module gets as far as the write and is refused there
    grant(k8s_client, 'rbac', 'numaops-restricted', ['colocationconfigurations'], ['get', 'list'])
    kubernetes.client.CustomObjectsApi(k8s_client).list_namespaced_custom_object(GVP[0], GVP[1], 'rbac', 'colocationconfigurations')
    refused = run_module(colocation_config, capsys, **args)
    assert refused['failed'] and 'HTTP 403' in refused['msg'] and 'cannot create resource' in refused['msg'], refused['msg']
    assert kubernetes.client.CustomObjectsApi(k8s_client).list_namespaced_custom_object(
        GVP[0], GVP[1], 'rbac', 'colocationconfigurations')['items'] == []
    # with the write verbs granted it works, and only in that namespace
    kubernetes.client.RbacAuthorizationV1Api(k8s_client).patch_namespaced_role('test-numaops-restricted', 'rbac', {
        'rules': [{'apiGroups': ['config.volcano.sh'], 'resources': ['colocationconfigurations'],
                   'verbs': ['get', 'list', 'create', 'update', 'patch']}]})
    assert run_module(colocation_config, capsys, **args)['changed']
    assert not run_module(colocation_config, capsys, **args)['changed']


def test_check_mode_prediction_is_what_the_server_makes_of_it(k8s_cluster, k8s_client, capsys):
    # the prediction (with the CRD's defaults applied by the module) against kube-apiserver's own result of a
    # server-side dry run of the same object: schema defaulting and pruning included
    install_crd(k8s_cluster, k8s_client)
    args = dict(name='dry', namespace='default', selector={'matchExpressions': [{'key': 'tier', 'operator': 'Exists'}]},
                memory_qos={'lowRatio': 30})
    predicted = run(capsys, k8s_cluster, check_mode=True, **args)
    # the module writes every requirement with its values list (empty for Exists), as the API's own
    # LabelSelectorRequirement serialises it; the server keeps what it is sent
    selector = {'matchExpressions': [dict(args['selector']['matchExpressions'][0], values=[])]}
    body = {'apiVersion': '%s/%s' % GVP, 'kind': 'ColocationConfiguration',
            'metadata': {'name': 'dry', 'namespace': 'default'},
            'spec': {'selector': selector, 'memoryQos': args['memory_qos']}}
    server = kubernetes.client.CustomObjectsApi(k8s_client).create_namespaced_custom_object(
        GVP[0], GVP[1], 'default', 'colocationconfigurations', body, dry_run='All')
    assert predicted['result']['spec'] == server['spec']
    with pytest.raises(kubernetes.client.ApiException):
        live(k8s_client, 'dry')
