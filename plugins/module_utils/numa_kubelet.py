# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kubelet in a node's NUMA facts (numa.py): its configuration, its record of exclusive CPUs and memory blocks,
which of the record's entries are stale, and what that leaves of each NUMA node's CPUs.

* the kubelet configuration file: top-level plain scalars only (the policies, ``reservedSystemCPUs``,
  ``cgroupDriver``, ``cgroupRoot``): a node has no YAML library;
* the record: ``cpu_manager_state`` and ``memory_manager_state`` (checkpoint formats v1 to v3: when a ``data``
  string is present it is the authoritative payload, as in kubelet 1.37), or in their place the kubelet's
  pod-resources API (numa_podresources.py), chosen by :func:`records`; the entries of either source are built by
  numa_records.py;
* stale entries (:func:`mark_stale`): a checkpoint entry whose pod has no cgroup, or, without the cgroup tree, is
  not among the node's running pods.

Files are read through numa.py's reader (``tree``: ``read``, ``note``, ``path``), which lists what it cannot
read in the facts' ``unknown``. Pure functions of file contents, standard library only, Python 3.8+.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json

from ansible_collections.numaops.colocation.plugins.module_utils import cgroup as cg
from ansible_collections.numaops.colocation.plugins.module_utils import numa_podresources, numa_records
from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import format_cpuset, parse_cpuset
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet_scalars import top_level_scalars

KUBELET_KEYS = ('cpuManagerPolicy', 'memoryManagerPolicy', 'topologyManagerPolicy', 'topologyManagerScope',
                'reservedSystemCPUs', 'cgroupDriver', 'cgroupRoot')


def parse_kubelet_scalars(text):
    """Top-level plain scalars of a KubeletConfiguration file, for KUBELET_KEYS only (kubelet_scalars.py: a line scan,
    no YAML library). A key whose value is not a plain scalar on its line is left out (reported unknown by the caller);
    a JSON file that does not parse gives none."""
    try:
        return top_level_scalars(text, KUBELET_KEYS)
    except ValueError:
        return {}


def parse_checkpoint(text):
    """Decode a kubelet checkpoint; a v3 ``data`` string wins over the inline v1/v2 fields."""
    doc = json.loads(text)
    if not isinstance(doc, dict):
        raise ValueError('not a JSON object')
    data = doc.get('data')
    if isinstance(data, str) and data:
        inner = json.loads(data)
        if not isinstance(inner, dict):
            raise ValueError('the data field is not a JSON object')
        return inner
    return doc


def pod_index(pods):
    """{kubelet pod UID: (namespace, name)} from API pod objects; a mirror pod is indexed under the static
    pod's UID (its kubernetes.io/config.mirror annotation) as well as its own."""
    index = {}
    for pod in pods or []:
        meta = (pod or {}).get('metadata') or {}
        ident = (meta.get('namespace') or 'default', meta.get('name'))
        if meta.get('uid'):
            index[meta['uid']] = ident
        mirror = (meta.get('annotations') or {}).get(cg.MIRROR_POD_ANNOTATION)
        if mirror:
            index[mirror] = ident
    return index


def _entry(index, uid, container):
    """numa_records.entry of the pod ``uid``, named after the node's pods (``index``, see :func:`pod_index`)."""
    namespace, pod = index.get(uid, (None, None))
    return numa_records.entry(uid, container, namespace, pod)


def _checkpoint(tree, state_dir, name, manager, decode):
    """``decode`` of the kubelet checkpoint ``name`` below ``state_dir`` (parse_checkpoint), or None when it cannot
    be read or does not decode as the ``manager``'s (listed in unknown)."""
    rel = state_dir + '/' + name
    text = tree.read(rel, 'the kubelet %s placement unknown' % manager)
    if text is None:
        return None
    try:
        return decode(parse_checkpoint(text))
    except (ValueError, TypeError, AttributeError) as err:
        tree.note(rel, 'does not decode as a kubelet %s checkpoint: %s' % (manager, err))
        return None


def _cpu_manager(doc, cpu_node, index):
    """The cpu_manager facts of a decoded ``cpu_manager_state``."""
    default = parse_cpuset(doc.get('defaultCpuSet') or '')
    exclusive = []
    for uid, containers in sorted((doc.get('entries') or {}).items()):
        for name, cpus_text in sorted((containers or {}).items()):
            exclusive.append(numa_records.with_cpus(_entry(index, uid, name), parse_cpuset(cpus_text), cpu_node))
    for uid, entry in sorted((doc.get('podEntries') or {}).items()):
        cpus = parse_cpuset((entry or {}).get('cpuSet') or '')
        exclusive.append(numa_records.with_cpus(_entry(index, uid, None), cpus, cpu_node))
    return {'policy': doc.get('policyName'), 'default_cpus': format_cpuset(default),
            'default_cpu_ids': sorted(default), 'exclusive': exclusive}


def _memory_manager(doc, index):
    """The memory_manager facts of a decoded ``memory_manager_state``."""
    machine = {}
    for node, state in sorted((doc.get('machineState') or {}).items(), key=lambda kv: int(kv[0])):
        machine[int(node)] = {
            'cells': list(state.get('cells') or []),
            'assignments': state.get('numberOfAssignments', 0),
            'resources': dict((res, dict((k, table.get(k)) for k in
                                         ('total', 'systemReserved', 'allocatable', 'reserved', 'free')))
                              for res, table in sorted((state.get('memoryMap') or {}).items()))}
    containers = []
    for uid, conts in sorted((doc.get('entries') or {}).items()):
        for name, listed in sorted((conts or {}).items()):
            blocks = [numa_records.block(b.get('numaAffinity') or [], b.get('type'), b.get('size'))
                      for b in listed or []]
            containers.append(numa_records.with_blocks(_entry(index, uid, name), blocks))
    return {'policy': doc.get('policyName'), 'machine_state': machine, 'containers': containers}


def running_pod_uids(pods):
    """UIDs of the pods given that have not finished (a mirror pod under the static pod's UID too); None: no pods
    were given."""
    if pods is None:
        return None
    live = set()
    for pod in pods:
        if ((pod or {}).get('status') or {}).get('phase') in ('Succeeded', 'Failed'):
            continue
        live.update(uid for uid in pod_index([pod]))
    return live


def mark_stale(placement, cpu_manager, memory_manager, pods=None):
    """Entries of the kubelet's record whose pod has no cgroup are stale (True). Without the cgroup tree, an entry
    whose pod is not among the node's pods given, or has finished, is stale; unknown (None) when no pods were given
    either. Each container of ``placement`` is marked ``exclusive`` when the record gives it exclusive CPUs."""
    live = running_pod_uids(pods) if placement is None else set(placement['pod_uids'])
    exclusive = {}
    for item in ((cpu_manager or {}).get('exclusive') or []) + ((memory_manager or {}).get('containers') or []):
        item['stale'] = None if live is None or item['pod_uid'] is None else item['pod_uid'] not in live
    for item in (cpu_manager or {}).get('exclusive') or []:
        exclusive[(item['pod_uid'], item['container'])] = item['cpus']
    for item in (placement or {}).get('containers') or []:
        item['exclusive'] = (item['pod_uid'], item['container']) in exclusive if item['container'] else None


def records(tree, state_dir, requested, all_cpus, cpu_node, index, pods):
    """(source, cpu_manager, memory_manager): the kubelet's record from the pod-resources API or the checkpoint files
    below ``state_dir`` (numa_podresources.choose; ``tree`` reads and notes files as numa.py's does)."""
    grpc, source = numa_podresources.choose(requested, tree.path(state_dir + '/' + numa_podresources.SOCKET))
    if grpc is not None:
        try:
            return (source,) + numa_podresources.read(grpc, source['socket'], all_cpus, cpu_node, pods)
        except numa_podresources.PodResourcesError as err:
            if requested == 'pod_resources':
                raise
            source.update(used='checkpoints', why=str(err))
    cpu_manager = _checkpoint(tree, state_dir, 'cpu_manager_state', 'CPU manager',
                              lambda doc: _cpu_manager(doc, cpu_node, index))
    memory_manager = _checkpoint(tree, state_dir, 'memory_manager_state', 'memory manager',
                                 lambda doc: _memory_manager(doc, index))
    return source, cpu_manager, memory_manager


def place_on_nodes(nodes, cpu_manager, reserved):
    """Each NUMA node entry of ``nodes`` with its ``reserved_cpus`` (of ``reserved``, the kubelet's
    reservedSystemCPUs, None when unknown), its ``exclusive_cpus`` (the record's entries that are not stale) and,
    under the static CPU manager policy, its ``free_exclusive_cpus`` and their count."""
    for entry in nodes:
        node_cpus = set(entry['cpu_ids'] or ())
        entry['reserved_cpus'] = None if reserved is None else format_cpuset(node_cpus & reserved)
        if cpu_manager is None:
            entry['exclusive_cpus'] = entry['free_exclusive_cpus'] = None
            continue
        taken = set()
        for item in cpu_manager['exclusive']:
            if not item['stale']:
                taken.update(item['cpu_ids'])
        entry['exclusive_cpus'] = format_cpuset(node_cpus & taken)
        if cpu_manager['policy'] == 'static':
            free = (node_cpus & set(cpu_manager['default_cpu_ids'])) - (reserved or set())
            entry['free_exclusive_cpus'] = format_cpuset(free)
            entry['free_exclusive_cpu_count'] = len(free)
        else:
            entry['free_exclusive_cpus'] = None   # no exclusive CPUs without the static policy
            entry['free_exclusive_cpu_count'] = 0
