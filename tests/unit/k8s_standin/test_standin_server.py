# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Kubernetes API stand-in, exercised through the real ``kubernetes`` client (typed and dynamic)."""
from __future__ import annotations

import json
import urllib.request

import pytest

kubernetes = pytest.importorskip('kubernetes')
from kubernetes.client.exceptions import ApiException  # noqa: E402
from kubernetes.dynamic import DynamicClient  # noqa: E402

from ansible_collections.numaops.colocation.tests.k8s_standin.fixture import (  # noqa: E402,F401 pylint: disable=unused-import
    k8s_client, k8s_standin, running_standin)

CRD = {
    'apiVersion': 'apiextensions.k8s.io/v1', 'kind': 'CustomResourceDefinition',
    'metadata': {'name': 'widgets.example.com'},
    'spec': {
        'group': 'example.com', 'scope': 'Namespaced',
        'names': {'kind': 'Widget', 'plural': 'widgets', 'shortNames': ['wd']},
        'versions': [{'name': 'v1', 'served': True, 'storage': True, 'subresources': {'status': {}},
                      'schema': {'openAPIV3Schema': {
                          'type': 'object', 'required': ['spec'],
                          'properties': {
                              'spec': {'type': 'object', 'required': ['size'], 'properties': {
                                  'size': {'type': 'integer', 'minimum': 1, 'maximum': 10},
                                  'color': {'type': 'string', 'enum': ['red', 'blue'], 'default': 'red'},
                                  'opts': {'type': 'object', 'properties': {'fast': {'type': 'boolean', 'default': False}}},
                              }},
                              'status': {'type': 'object', 'x-kubernetes-preserve-unknown-fields': True},
                          }}}}],
    },
}


def status_of(exc):
    return json.loads(exc.body)


def pod(name, node=None, labels=None, namespace='default', **meta):
    spec = {'containers': [{'name': 'c', 'image': 'registry.example/app:1'}]}
    if node:
        spec['nodeName'] = node
    metadata = dict({'name': name, 'namespace': namespace, 'labels': labels or {}}, **meta)
    return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': metadata, 'spec': spec}


def install_crd(client):
    ext = kubernetes.client.ApiextensionsV1Api(client)
    ext.create_custom_resource_definition(CRD)
    kubernetes.client.CoreV1Api(client).list_namespace()  # the next request establishes it
    return kubernetes.client.CustomObjectsApi(client)


def test_discovery_lists_groups_and_resources(k8s_client):
    core = kubernetes.client.CoreApi(k8s_client)
    assert core.get_api_versions().versions == ['v1']
    groups = {g.name: g for g in kubernetes.client.ApisApi(k8s_client).get_api_versions().groups}
    assert {'apps', 'rbac.authorization.k8s.io', 'apiextensions.k8s.io'} <= set(groups)
    resources = {r.name: r for r in kubernetes.client.CoreV1Api(k8s_client).get_api_resources().resources}
    assert resources['pods'].namespaced and 'po' in resources['pods'].short_names
    assert resources['pods/eviction'].kind == 'Eviction'
    assert not resources['nodes'].namespaced
    assert 'patch' in resources['nodes'].verbs


def test_pod_crud_and_errors(k8s_client):
    v1 = kubernetes.client.CoreV1Api(k8s_client)
    created = v1.create_namespaced_pod('default', pod('a', labels={'app': 'x'}))
    assert created.metadata.uid and created.metadata.creation_timestamp and created.metadata.generation == 1
    assert created.status.phase == 'Pending'
    with pytest.raises(ApiException) as exc:
        v1.create_namespaced_pod('default', pod('a'))
    assert exc.value.status == 409 and status_of(exc.value)['reason'] == 'AlreadyExists'
    with pytest.raises(ApiException) as exc:
        v1.read_namespaced_pod('missing', 'default')
    assert exc.value.status == 404 and status_of(exc.value)['message'] == 'pods "missing" not found'
    with pytest.raises(ApiException) as exc:
        v1.create_namespaced_pod('nowhere', pod('b', namespace='nowhere'))
    assert exc.value.status == 404 and status_of(exc.value)['message'] == 'namespaces "nowhere" not found'
    bad = pod('c')
    del bad['spec']['containers'][0]['image']
    with pytest.raises(ApiException) as exc:
        v1.create_namespaced_pod('default', bad)
    assert exc.value.status == 422
    assert status_of(exc.value)['details']['causes'][0]['field'] == 'spec.containers[0].image'
    with pytest.raises(ApiException) as exc:
        v1.create_namespaced_pod('default', pod('Bad_Name'))
    assert exc.value.status == 422


def test_merge_patch_bumps_resource_version_only_on_change_and_detects_conflicts(k8s_client):
    v1 = kubernetes.client.CoreV1Api(k8s_client)
    first = v1.create_namespaced_pod('default', pod('a', annotations={'keep': 'me'}))
    rv = first.metadata.resource_version
    merge = {'_content_type': 'application/merge-patch+json'}
    patched = v1.patch_namespaced_pod('a', 'default', {'metadata': {'annotations': {'x': '1'}}}, **merge)
    assert patched.metadata.annotations == {'keep': 'me', 'x': '1'}
    assert int(patched.metadata.resource_version) > int(rv)
    same = v1.patch_namespaced_pod('a', 'default', {'metadata': {'annotations': {'x': '1'}}}, **merge)
    assert same.metadata.resource_version == patched.metadata.resource_version
    removed = v1.patch_namespaced_pod('a', 'default', {'metadata': {'annotations': {'x': None}}}, **merge)
    assert removed.metadata.annotations == {'keep': 'me'}
    with pytest.raises(ApiException) as exc:
        v1.patch_namespaced_pod('a', 'default', {'metadata': {'resourceVersion': rv, 'annotations': {'y': '2'}}}, **merge)
    assert exc.value.status == 409 and status_of(exc.value)['reason'] == 'Conflict'
    assert 'y' not in v1.read_namespaced_pod('a', 'default').metadata.annotations


def test_unknown_patch_type_is_415(k8s_standin, k8s_client):
    kubernetes.client.CoreV1Api(k8s_client).create_namespaced_pod('default', pod('a'))
    request = urllib.request.Request(k8s_standin.url + '/api/v1/namespaces/default/pods/a', method='PATCH',
                                     data=b'{"metadata": {"labels": {"a": "b"}}}',
                                     headers={'Content-Type': 'application/xml', 'Authorization': 'Bearer ' + k8s_standin.token})
    with pytest.raises(urllib.request.HTTPError) as exc:
        urllib.request.urlopen(request, timeout=10)
    assert exc.value.code == 415 and json.load(exc.value)['reason'] == 'UnsupportedMediaType'


def test_strategic_merge_and_json_patch(k8s_client):
    apps = kubernetes.client.AppsV1Api(k8s_client)
    dep = {'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': {'name': 'd', 'namespace': 'default'},
           'spec': {'selector': {'matchLabels': {'app': 'd'}}, 'template': {
               'metadata': {'labels': {'app': 'd'}},
               'spec': {'containers': [{'name': 'a', 'image': 'a:1', 'env': [{'name': 'X', 'value': '1'}]},
                                       {'name': 'b', 'image': 'b:1'}]}}}}
    created = apps.create_namespaced_deployment('default', dep)
    assert created.spec.replicas == 1 and created.metadata.generation == 1
    patch = {'spec': {'template': {'spec': {'containers': [{'name': 'b', 'image': 'b:2'}]}}}}
    patched = apps.patch_namespaced_deployment('d', 'default', patch)  # strategic merge by default
    containers = {c.name: c for c in patched.spec.template.spec.containers}
    assert containers['a'].image == 'a:1' and containers['b'].image == 'b:2'
    assert containers['a'].env[0].name == 'X'
    assert patched.metadata.generation == 2
    ops = [{'op': 'replace', 'path': '/spec/replicas', 'value': 3}]
    patched = apps.patch_namespaced_deployment('d', 'default', ops)
    assert patched.spec.replicas == 3 and patched.metadata.generation == 3
    with pytest.raises(ApiException) as exc:
        apps.patch_namespaced_deployment('d', 'default', {'spec': {'selector': {'matchLabels': {'app': 'other'}}}})
    assert exc.value.status == 422


def test_crd_makes_custom_objects_servable_with_schema(k8s_client):
    custom = kubernetes.client.CustomObjectsApi(k8s_client)
    with pytest.raises(ApiException) as exc:
        custom.list_namespaced_custom_object('example.com', 'v1', 'default', 'widgets')
    assert exc.value.status == 404
    custom = install_crd(k8s_client)
    crd = kubernetes.client.ApiextensionsV1Api(k8s_client).read_custom_resource_definition('widgets.example.com')
    assert {c.type: c.status for c in crd.status.conditions}['Established'] == 'True'
    obj = custom.create_namespaced_custom_object('example.com', 'v1', 'default', 'widgets', {
        'apiVersion': 'example.com/v1', 'kind': 'Widget', 'metadata': {'name': 'w'},
        'spec': {'size': 3, 'opts': {}, 'unknown': 1}})
    assert obj['spec'] == {'size': 3, 'color': 'red', 'opts': {'fast': False}}  # defaults applied, unknown pruned
    for spec, field in (({'size': 11}, 'spec.size'), ({'size': 'big'}, 'spec.size'), ({}, 'spec.size'),
                        ({'size': 1, 'color': 'green'}, 'spec.color')):
        with pytest.raises(ApiException) as exc:
            custom.create_namespaced_custom_object('example.com', 'v1', 'default', 'widgets', {
                'apiVersion': 'example.com/v1', 'kind': 'Widget', 'metadata': {'name': 'bad'}, 'spec': spec})
        assert exc.value.status == 422, spec
        assert [c['field'] for c in status_of(exc.value)['details']['causes']] == [field]
    with pytest.raises(ApiException) as exc:  # a custom object accepts no strategic merge patch
        custom.patch_namespaced_custom_object('example.com', 'v1', 'default', 'widgets', 'w', {'spec': {'size': 4}},
                                              _content_type='application/strategic-merge-patch+json')
    assert exc.value.status == 415
    patched = custom.patch_namespaced_custom_object('example.com', 'v1', 'default', 'widgets', 'w', {'spec': {'size': 4}},
                                                    _content_type='application/merge-patch+json')
    assert patched['spec']['size'] == 4 and patched['metadata']['generation'] == 2
    stale = dict(obj, spec={'size': 5})
    with pytest.raises(ApiException) as exc:
        custom.replace_namespaced_custom_object('example.com', 'v1', 'default', 'widgets', 'w', stale)
    assert exc.value.status == 409
    # status subresource: main resource writes ignore status, /status writes only status
    patched = custom.patch_namespaced_custom_object_status('example.com', 'v1', 'default', 'widgets', 'w',
                                                           {'status': {'ok': True}, 'spec': {'size': 9}},
                                                           _content_type='application/merge-patch+json')
    assert patched['status'] == {'ok': True} and patched['spec']['size'] == 4
    kubernetes.client.ApiextensionsV1Api(k8s_client).delete_custom_resource_definition('widgets.example.com')
    kubernetes.client.CoreV1Api(k8s_client).list_namespace()
    with pytest.raises(ApiException) as exc:
        custom.get_namespaced_custom_object('example.com', 'v1', 'default', 'widgets', 'w')
    assert exc.value.status == 404


def test_crd_validation(k8s_client):
    ext = kubernetes.client.ApiextensionsV1Api(k8s_client)
    bad = json.loads(json.dumps(CRD))
    bad['metadata']['name'] = 'wrong.example.com'
    bad['spec']['versions'][0]['storage'] = False
    with pytest.raises(ApiException) as exc:
        ext.create_custom_resource_definition(bad)
    fields = [c['field'] for c in status_of(exc.value)['details']['causes']]
    assert fields == ['metadata.name', 'spec.versions']


def test_workloads_become_ready_and_never_ready_switch(k8s_standin, k8s_client):
    apps = kubernetes.client.AppsV1Api(k8s_client)
    v1 = kubernetes.client.CoreV1Api(k8s_client)

    def workload(kind, name):
        body = {'apiVersion': 'apps/v1', 'kind': kind, 'metadata': {'name': name, 'namespace': 'default'},
                'spec': {'selector': {'matchLabels': {'app': name}},
                         'template': {'metadata': {'labels': {'app': name}},
                                      'spec': {'containers': [{'name': 'c', 'image': 'x:1'}]}}}}
        return body

    k8s_standin.set_never_ready('default/stuck')
    created = apps.create_namespaced_deployment('default', workload('Deployment', 'ok'))
    assert created.status is None or created.status.available_replicas is None
    ready = apps.read_namespaced_deployment('ok', 'default')
    assert ready.status.available_replicas == 1 and ready.status.observed_generation == 1
    apps.create_namespaced_deployment('default', workload('Deployment', 'stuck'))
    stuck = apps.read_namespaced_deployment('stuck', 'default')
    assert stuck.status.unavailable_replicas == 1
    assert {c.type: c.status for c in stuck.status.conditions}['Available'] == 'False'

    apps.create_namespaced_daemon_set('default', workload('DaemonSet', 'agent'))
    ds = apps.read_namespaced_daemon_set('agent', 'default')
    assert ds.status.desired_number_scheduled == 2 and ds.status.number_ready == 2
    pods = v1.list_namespaced_pod('default', label_selector='app=agent', field_selector='spec.nodeName=node-1').items
    assert len(pods) == 1 and pods[0].status.phase == 'Running'
    assert pods[0].metadata.owner_references[0].kind == 'DaemonSet'
    k8s_standin.add_node('node-3')
    assert apps.read_namespaced_daemon_set('agent', 'default').status.number_ready == 3
    apps.delete_namespaced_daemon_set('agent', 'default')
    v1.list_namespace()
    assert v1.list_namespaced_pod('default', label_selector='app=agent').items == []


def test_cordon_evict_and_pods_disappear(k8s_client):
    v1 = kubernetes.client.CoreV1Api(k8s_client)
    v1.patch_node('node-1', {'spec': {'unschedulable': True}})
    assert v1.read_node('node-1').spec.unschedulable is True
    v1.create_namespaced_pod('default', pod('web', node='node-1'))
    assert v1.read_namespaced_pod('web', 'default').status.phase == 'Running'
    assert len(v1.list_pod_for_all_namespaces(field_selector='spec.nodeName=node-1').items) == 1
    eviction = kubernetes.client.V1Eviction(metadata=kubernetes.client.V1ObjectMeta(name='web', namespace='default'))
    v1.create_namespaced_pod_eviction('web', 'default', eviction)
    with pytest.raises(ApiException) as exc:
        v1.read_namespaced_pod('web', 'default')
    assert exc.value.status == 404 and exc.value.reason == 'Not Found'
    v1.patch_node('node-1', {'spec': {'unschedulable': False}})
    assert not v1.read_node('node-1').spec.unschedulable
    ready = [c for c in v1.read_node('node-2').status.conditions if c.type == 'Ready']
    assert ready[0].status == 'True'


def test_selectors(k8s_client):
    v1 = kubernetes.client.CoreV1Api(k8s_client)
    v1.create_namespace({'metadata': {'name': 'team'}})
    for name, labels in (('a', {'tier': 'web'}), ('b', {'tier': 'batch', 'gpu': 'yes'}), ('c', {})):
        v1.create_namespaced_pod('team', pod(name, labels=labels, namespace='team'))

    def names(**kw):
        return [p.metadata.name for p in v1.list_namespaced_pod('team', **kw).items]
    assert names() == ['a', 'b', 'c']
    assert names(label_selector='tier in (web,batch),!gpu') == ['a']
    assert names(label_selector='tier!=web') == ['b', 'c']
    assert names(label_selector='gpu') == ['b']
    assert names(field_selector='metadata.name!=a') == ['b', 'c']
    with pytest.raises(ApiException) as exc:
        v1.list_namespaced_pod('team', field_selector='spec.bogus=1')
    assert exc.value.status == 400
    page = v1.list_namespaced_pod('team', limit=2)
    assert len(page.items) == 2 and page.metadata._continue
    rest = v1.list_namespaced_pod('team', limit=2, _continue=page.metadata._continue)
    assert [p.metadata.name for p in rest.items] == ['c']


def test_namespace_deletion_removes_contents(k8s_client):
    v1 = kubernetes.client.CoreV1Api(k8s_client)
    v1.create_namespace({'metadata': {'name': 'gone'}})
    assert v1.read_namespace('gone').metadata.labels == {'kubernetes.io/metadata.name': 'gone'}
    v1.create_namespaced_config_map('gone', {'metadata': {'name': 'cm'}, 'data': {'a': 'b'}})
    deleted = json.loads(v1.delete_namespace('gone', _preload_content=False).data)
    assert deleted['kind'] == 'Namespace' and deleted['status']['phase'] == 'Terminating'
    with pytest.raises(ApiException) as exc:
        v1.read_namespace('gone')
    assert exc.value.status == 404
    assert v1.list_config_map_for_all_namespaces(field_selector='metadata.namespace=gone').items == []


def test_dynamic_client_discovers_new_crd(k8s_client, tmp_path):
    dyn = DynamicClient(k8s_client, cache_file=str(tmp_path / 'cache.json'))
    crds = dyn.resources.get(api_version='apiextensions.k8s.io/v1', kind='CustomResourceDefinition')
    crds.create(body=CRD)
    widgets = dyn.resources.get(api_version='example.com/v1', kind='Widget')
    assert widgets.namespaced and widgets.short_names == ['wd']
    widgets.create(body={'apiVersion': 'example.com/v1', 'kind': 'Widget', 'metadata': {'name': 'w', 'namespace': 'default'},
                         'spec': {'size': 1}})
    assert widgets.get(namespace='default').items[0].spec.color == 'red'


def test_unimplemented_requests_are_recorded_not_answered(k8s_standin, k8s_client):
    batch = kubernetes.client.BatchV1Api(k8s_client)
    with pytest.raises(ApiException) as exc:
        batch.list_namespaced_job('default')
    assert exc.value.status == 501
    with pytest.raises(ApiException) as exc:
        kubernetes.client.CoreV1Api(k8s_client).list_namespaced_pod('default', watch=True, _preload_content=False)
    assert exc.value.status == 501
    assert len(k8s_standin.unhandled) == 2
    k8s_standin.unhandled[:] = []  # expected here; the fixture asserts the list is empty


def test_token_is_required(tmp_path):
    with running_standin(tmp_path) as standin:
        request = urllib.request.Request(standin.url + '/api/v1/namespaces')
        with pytest.raises(urllib.request.HTTPError) as exc:
            urllib.request.urlopen(request, timeout=10)
        assert exc.value.code == 401
        request.add_header('Authorization', 'Bearer ' + standin.token)
        with urllib.request.urlopen(request, timeout=10) as response:
            assert json.load(response)['kind'] == 'NamespaceList'


def test_creation_timestamps_follow_the_clock(k8s_standin, k8s_client):
    v1 = kubernetes.client.CoreV1Api(k8s_client)
    first = v1.create_namespaced_config_map('default', {'metadata': {'name': 'one'}})
    k8s_standin.advance_clock(120)
    second = v1.create_namespaced_config_map('default', {'metadata': {'name': 'two'}})
    assert (second.metadata.creation_timestamp - first.metadata.creation_timestamp).total_seconds() >= 120
