# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""numa_facts' kubelet source: which one is read and why, the pod-resources answers as facts, and the fallback
to the checkpoint files. The gRPC call itself is replaced by recorded answers here (bytes of the test encoder);
tests/system/test_numa_pod_resources_kubelet.py calls the real kubelet."""
from __future__ import annotations

import os
import pathlib
import shutil
import socket
import tempfile

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import numa
from ansible_collections.numaops.colocation.plugins.module_utils import numa_podresources as npr
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils import podresources_wire as wire

GIB = 1024 ** 3
CPU_NODE = dict((cpu, cpu // 4) for cpu in range(8))   # two NUMA nodes of four CPUs
PODS = [
    {'metadata': {'namespace': 'online', 'name': 'api-0', 'uid': 'uid-api'}, 'status': {'phase': 'Running'}},
    {'metadata': {'namespace': 'kube-system', 'name': 'etcd-node1', 'uid': 'uid-mirror',
                  'annotations': {'kubernetes.io/config.mirror': 'uid-static'}}, 'status': {'phase': 'Running'}},
]
ALLOCATABLE = wire.allocatable_response(cpus=range(1, 8), blocks=[('memory', 3 * GIB, [0]), ('memory', 4 * GIB, [1]),
                                                                  ('hugepages-2Mi', GIB, [1])])
API = wire.container('api', cpus=[5, 4], blocks=[('memory', GIB, [1]), ('hugepages-2Mi', 256 << 20, [1])])
LISTED = wire.list_response([
    wire.pod('api-0', 'online', [API, wire.container('log')]),
    wire.pod('etcd-node1', 'kube-system', [wire.container('etcd', cpus=[2])]),
    wire.pod('batch', 'offline', cpus=[6, 7], blocks=[('memory', 2 * GIB, [0])]),
])


def facts(allocatable=ALLOCATABLE, listed=LISTED, pods=None):
    return npr.to_facts(*npr.decode(allocatable, listed), online_cpus=set(range(8)), cpu_node=CPU_NODE, pods=pods)


def test_exclusive_cpus_per_container_and_pod_named_after_the_api_and_the_uids_of_the_pods():
    cpu, _memory = facts(pods=PODS)
    assert [(i['namespace'], i['pod'], i['container'], i['pod_uid'], i['cpus'], i['numa_nodes'])
            for i in cpu['exclusive']] == [
        ('offline', 'batch', None, None, '6-7', [1]),
        ('online', 'api-0', 'api', 'uid-api', '4-5', [1]),
        ('kube-system', 'etcd-node1', 'etcd', 'uid-static', '2', [0])]
    assert cpu['exclusive'][0]['pod_level'] is True
    assert cpu['policy'] == 'static' and cpu['allocatable_cpus'] == '1-7'
    assert cpu['default_cpus'] == '0-1,3'


def test_memory_blocks_and_the_machine_state_from_allocatable_and_the_listed_blocks():
    _cpu, memory = facts()
    assert memory['policy'] == 'Static'
    assert [(i['pod'], i['container'], i['numa_nodes'], i['blocks']) for i in memory['containers']] == [
        ('batch', None, [0], [{'numa_nodes': [0], 'resource': 'memory', 'bytes': 2 * GIB}]),
        ('api-0', 'api', [1], [{'numa_nodes': [1], 'resource': 'memory', 'bytes': GIB},
                               {'numa_nodes': [1], 'resource': 'hugepages-2Mi', 'bytes': 256 << 20}])]
    assert memory['machine_state'][0]['resources'] == {
        'memory': {'total': None, 'systemReserved': None, 'allocatable': 3 * GIB, 'reserved': 2 * GIB, 'free': GIB}}
    assert memory['machine_state'][1]['resources']['hugepages-2Mi'] == {
        'total': None, 'systemReserved': None, 'allocatable': GIB, 'reserved': 256 << 20, 'free': 768 << 20}


def test_a_block_over_two_numa_nodes_leaves_their_free_memory_unknown():
    listed = wire.list_response([wire.pod('big', 'ns', [wire.container('c', blocks=[('memory', 5 * GIB, [0, 1])])])])
    _cpu, memory = facts(listed=listed)
    for node in (0, 1):
        assert memory['machine_state'][node]['resources']['memory']['reserved'] is None
        assert memory['machine_state'][node]['resources']['memory']['free'] is None
    assert memory['machine_state'][1]['resources']['hugepages-2Mi']['free'] == GIB


def test_without_allocatable_resources_the_policies_are_none():
    cpu, memory = facts(allocatable=b'', listed=b'')
    assert (cpu['policy'], cpu['default_cpus'], cpu['exclusive']) == ('none', '', [])
    assert (memory['policy'], memory['machine_state'], memory['containers']) == ('None', {}, [])


def test_an_answer_that_does_not_decode_names_the_field():
    with pytest.raises(npr.PodResourcesError, match="pod-resources answer does not decode: ListPodResourcesResponse"):
        npr.decode(b'', b'\x0a\x09')


@pytest.fixture
def kubelet_socket():
    top = tempfile.mkdtemp(prefix='npr', dir='/tmp')   # a socket path is at most 107 bytes
    server = socket.socket(socket.AF_UNIX)
    server.bind(os.path.join(top, 'kubelet.sock'))
    yield os.path.join(top, 'kubelet.sock')
    server.close()
    shutil.rmtree(top)


def no_grpc():
    return None, 'grpc does not import (No module named grpc): the node needs ' + npr.NEEDS


def test_choose_says_which_source_and_why(kubelet_socket, tmp_path):
    assert npr.choose('checkpoints', kubelet_socket)[1]['used'] == 'checkpoints'
    grpc, source = npr.choose('auto', kubelet_socket, grpc_loader=lambda: ('grpc', None))
    assert grpc == 'grpc' and source['used'] == 'pod_resources' and 'socket exists' in source['why']
    grpc, source = npr.choose('auto', kubelet_socket, grpc_loader=no_grpc)
    assert grpc is None and source['used'] == 'checkpoints' and "Debian's python3-grpcio" in source['why']
    missing = str(tmp_path / 'none.sock')
    assert 'is not there' in npr.choose('auto', missing)[1]['why']
    (tmp_path / 'file.sock').write_text('')
    assert npr.choose('auto', str(tmp_path / 'file.sock'))[1]['why'].endswith('is not a socket')
    with pytest.raises(npr.PodResourcesError, match='kubelet_source=pod_resources: .*none.sock is not there'):
        npr.choose('pod_resources', missing)
    with pytest.raises(npr.PodResourcesError, match='grpc does not import'):
        npr.choose('pod_resources', kubelet_socket, grpc_loader=no_grpc)


def test_the_uid_of_a_static_pod_is_the_one_its_cgroups_carry():
    assert npr.uid_index(PODS) == {('online', 'api-0'): 'uid-api', ('kube-system', 'etcd-node1'): 'uid-static'}


@pytest.fixture
def sandbox_root(tmp_path):
    """The sandbox node's tree (no pod-resources socket in it)."""
    here = os.path.dirname(os.path.abspath(__file__))
    sandbox = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(here)))),
                           'examples', 'sandbox', 'tree')
    root = tmp_path / 'root'
    os.symlink(sandbox, str(root))
    return str(root)


def test_collect_falls_back_to_the_checkpoints_when_the_socket_is_missing(sandbox_root):
    auto = numa.collect(sandbox_root, kubelet_source='auto')
    plain = numa.collect(sandbox_root)
    assert auto['kubelet']['source']['used'] == plain['kubelet']['source']['used'] == 'checkpoints'
    assert 'pod-resources socket' in auto['kubelet']['source']['why']
    assert auto['kubelet']['cpu_manager'] == plain['kubelet']['cpu_manager']
    with pytest.raises(npr.PodResourcesError):
        numa.collect(sandbox_root, kubelet_source='pod_resources')


def test_collect_reads_the_api_and_falls_back_when_the_call_fails(monkeypatch):
    root = pathlib.Path(tempfile.mkdtemp(prefix='npr', dir='/tmp'))   # a socket path is at most 107 bytes
    (root / 'var/lib/kubelet/pod-resources').mkdir(parents=True)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / 'var/lib/kubelet/pod-resources/kubelet.sock'))
    monkeypatch.setattr(npr, 'import_grpc', lambda: ('grpc', None))
    answers = {'value': (ALLOCATABLE, LISTED), 'errors': []}

    def fake_call(_grpc, _path, timeout=npr.TIMEOUT):
        for error in answers['errors']:
            raise error
        return answers['value']
    monkeypatch.setattr(npr, 'call', fake_call)
    try:
        found = numa.collect(str(root), pods=PODS, kubelet_source='auto')['kubelet']
        assert found['source']['used'] == 'pod_resources'
        assert [i['cpus'] for i in found['cpu_manager']['exclusive']] == ['6-7', '4-5', '2']
        # no cgroup tree here: staleness from the pods given, unknown for a pod they do not name
        assert [i['stale'] for i in found['cpu_manager']['exclusive']] == [None, False, False]
        answers['errors'] = [npr.PodResourcesError('the kubelet\'s pod-resources API at x answered UNAVAILABLE: down')]
        found = numa.collect(str(root), pods=PODS, kubelet_source='auto')['kubelet']
        assert found['source']['used'] == 'checkpoints' and found['source']['why'].endswith('UNAVAILABLE: down')
        with pytest.raises(npr.PodResourcesError, match='UNAVAILABLE'):
            numa.collect(str(root), pods=PODS, kubelet_source='pod_resources')
    finally:
        server.close()
        shutil.rmtree(str(root))
