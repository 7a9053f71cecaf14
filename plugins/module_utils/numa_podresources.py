# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kubelet's exclusive CPUs and memory-manager blocks from its pod-resources API, as numa.py's facts.

Which source numa_kubelet.py reads (:func:`choose`): ``auto`` takes the pod-resources API when the kubelet's socket
(``<kubelet root dir>/pod-resources/kubelet.sock``) exists and the Python gRPC library (``grpc``; Debian's
``python3-grpcio``) imports, the checkpoint files (``cpu_manager_state``, ``memory_manager_state``) otherwise,
and also when the API call fails (the reason is kept); ``pod_resources`` takes the API or fails;
``checkpoints`` never calls the API.

The API is called through ``grpc`` with no generated code: the method paths of ``v1.PodResourcesLister``, an
empty request (both requests have no fields) and the response bytes decoded by podresources_proto.py.
``GetAllocatableResources`` gives the CPUs the static CPU manager may hand out exclusively (empty under the
``none`` policy) and, under the memory manager's ``Static`` policy, the allocatable memory per NUMA node and
resource; ``List`` gives each running pod's containers with their exclusive CPUs and memory blocks.

The facts take the shape of the checkpoint ones (numa_kubelet.py; entries of numa_records.py), with these
differences, each a property of the API:

* the policies are those the running kubelet applies: ``static`` when it has allocatable CPUs, else ``none``;
  ``Static`` when it has allocatable memory, else ``None``;
* the default (shared) CPU set under ``static`` is every online CPU not given exclusively to a listed container;
* the API names pods by namespace and name, not UID: the UID is taken from the node's pods when they are given
  (a mirror pod's ``kubernetes.io/config.mirror`` annotation, the UID its cgroups carry), else it is ``None``;
* the memory manager's machine state has ``allocatable`` per NUMA node and resource, and ``reserved`` and
  ``free`` from the blocks of the listed containers on that node alone; a node that a block spanning several
  NUMA nodes touches has ``reserved``/``free`` ``None`` (the kubelet splits such a block between the nodes by
  its own order); ``total`` and ``systemReserved`` are not in the API (``None``).

Runs on managed nodes: Python 3.8+; only the call needs ``grpc``.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import stat

from ansible_collections.numaops.colocation.plugins.module_utils import cgroup as cg
from ansible_collections.numaops.colocation.plugins.module_utils import numa_records
from ansible_collections.numaops.colocation.plugins.module_utils import podresources_proto as proto
from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import format_cpuset

SOURCES = ('auto', 'pod_resources', 'checkpoints')
SOCKET = 'pod-resources/kubelet.sock'
LIST = '/v1.PodResourcesLister/List'
ALLOCATABLE = '/v1.PodResourcesLister/GetAllocatableResources'
TIMEOUT = 10
NEEDS = "the Python gRPC library (Debian's python3-grpcio, or pip's grpcio)"


class PodResourcesError(Exception):
    """The pod-resources API was asked for and cannot be read."""


def import_grpc():
    """(the grpc module, None) or (None, why it does not import)."""
    try:
        import grpc  # pylint: disable=import-outside-toplevel
    except ImportError as err:
        return None, 'grpc does not import (%s): the node needs %s' % (err, NEEDS)
    return grpc, None


def call(grpc, socket_path, timeout=TIMEOUT):
    """The raw (GetAllocatableResources, List) response bytes from the kubelet at ``socket_path``."""
    channel = grpc.insecure_channel('unix://' + socket_path)
    try:
        # no request_serializer/response_deserializer: the request is given as bytes, the response kept as bytes
        allocatable = channel.unary_unary(ALLOCATABLE)(b'', timeout=timeout)
        listed = channel.unary_unary(LIST)(b'', timeout=timeout)
    except grpc.RpcError as err:
        code = err.code() if hasattr(err, 'code') else None
        details = err.details() if hasattr(err, 'details') else str(err)
        raise PodResourcesError('the kubelet\'s pod-resources API at %s answered %s: %s'
                                % (socket_path, getattr(code, 'name', code), details))
    finally:
        channel.close()
    return allocatable, listed


def socket_problem(socket_path):
    """Why ``socket_path`` is not a socket to call, or None."""
    try:
        mode = os.stat(socket_path).st_mode
    except OSError as err:
        return 'the kubelet\'s pod-resources socket %s is not there (%s)' % (socket_path, err.strerror)
    if not stat.S_ISSOCK(mode):
        return '%s is not a socket' % socket_path
    return None


def choose(requested, socket_path, grpc_loader=None):
    """(grpc module or None, source dict): which source to read, and why. Raises PodResourcesError when
    ``pod_resources`` was asked for and cannot be had."""
    source = {'requested': requested, 'used': 'checkpoints', 'socket': socket_path, 'why': None}
    if requested == 'checkpoints':
        source['why'] = 'kubelet_source=checkpoints'
        return None, source
    problem = socket_problem(socket_path)
    grpc = None
    if problem is None:
        grpc, problem = (grpc_loader or import_grpc)()
    if problem is not None:
        if requested == 'pod_resources':
            raise PodResourcesError('kubelet_source=pod_resources: %s' % problem)
        source['why'] = problem
        return None, source
    source['used'] = 'pod_resources'
    source['why'] = 'kubelet_source=%s: the socket exists and the Python gRPC library imports' % requested
    return grpc, source


def decode(allocatable_bytes, list_bytes):
    """(AllocatableResourcesResponse, ListPodResourcesResponse) decoded; raises PodResourcesError naming the
    message and field that does not decode."""
    try:
        return (proto.decode(proto.ALLOCATABLE_RESPONSE, allocatable_bytes),
                proto.decode(proto.LIST_RESPONSE, list_bytes))
    except proto.DecodeError as err:
        raise PodResourcesError('the kubelet\'s pod-resources answer does not decode: %s' % err)


def uid_index(pods):
    """{(namespace, name): the UID the kubelet's cgroups carry} of the node's pods: the static pod's UID (a
    mirror pod's annotation) or the pod's own."""
    index = {}
    for pod in pods or []:
        meta = (pod or {}).get('metadata') or {}
        uid = cg.named_uid(pod)
        if uid and meta.get('name'):
            index[(meta.get('namespace') or 'default', meta['name'])] = uid
    return index


def _blocks(memory):
    return [numa_records.block(proto.numa_ids(block['topology']), block['memory_type'], block['size'])
            for block in memory]


def _owners(listed, uids):
    """(numa_records.entry, resources message) for each pod (its pod-level resources) and container of the List
    answer."""
    for pod in listed['pod_resources']:
        uid = uids.get((pod['namespace'], pod['name']))
        yield numa_records.entry(uid, None, pod['namespace'], pod['name']), pod
        for container in pod['containers']:
            yield numa_records.entry(uid, container['name'], pod['namespace'], pod['name']), container


def _sort_key(item):
    return (item['pod_uid'] or '', item['namespace'], item['pod'], item['container'] is not None,
            item['container'] or '')


def to_facts(allocatable, listed, online_cpus, cpu_node, pods):
    """(cpu_manager, memory_manager) facts of the decoded answers (see the module docstring)."""
    uids = uid_index(pods)
    exclusive, containers = [], []
    for item, resources in _owners(listed, uids):
        if resources['cpu_ids']:
            exclusive.append(numa_records.with_cpus(dict(item), set(resources['cpu_ids']), cpu_node))
        if resources['memory']:
            containers.append(numa_records.with_blocks(dict(item), _blocks(resources['memory'])))
    exclusive.sort(key=_sort_key)
    containers.sort(key=_sort_key)

    allocatable_cpus = set(allocatable['cpu_ids'])
    static = bool(allocatable_cpus)
    taken = set(cpu for item in exclusive for cpu in item['cpu_ids'])
    default = (set(online_cpus or ()) | allocatable_cpus) - taken if static else set()
    cpu_manager = {'policy': 'static' if static else 'none', 'default_cpus': format_cpuset(default),
                   'default_cpu_ids': sorted(default), 'exclusive': exclusive,
                   'allocatable_cpus': format_cpuset(allocatable_cpus)}

    machine = {}
    for block in _blocks(allocatable['memory']):
        for node in block['numa_nodes']:
            entry = machine.setdefault(node, {'cells': [node], 'assignments': None, 'resources': {}})
            entry['resources'][block['resource']] = {'total': None, 'systemReserved': None,
                                                     'allocatable': block['bytes'], 'reserved': 0, 'free': None}
    for item in containers:
        for block in item['blocks']:
            for node in block['numa_nodes']:
                table = machine.get(node, {}).get('resources', {}).get(block['resource'])
                if table is None or table['reserved'] is None:
                    continue
                table['reserved'] = block['bytes'] + table['reserved'] if len(block['numa_nodes']) == 1 else None
    for entry in machine.values():
        for table in entry['resources'].values():
            if table['reserved'] is not None:
                table['free'] = table['allocatable'] - table['reserved']
    memory_manager = {'policy': 'Static' if machine else 'None', 'machine_state': machine, 'containers': containers}
    return cpu_manager, memory_manager


def read(grpc, socket_path, online_cpus, cpu_node, pods):
    """(cpu_manager, memory_manager) facts from the kubelet at ``socket_path``; raises PodResourcesError."""
    allocatable_bytes, list_bytes = call(grpc, socket_path)
    allocatable, listed = decode(allocatable_bytes, list_bytes)
    return to_facts(allocatable, listed, online_cpus, cpu_node, pods)
