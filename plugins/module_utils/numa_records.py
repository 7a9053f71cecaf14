# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The entries of the kubelet's record in the NUMA facts, built one way whichever source they are read from.

``kubelet.cpu_manager.exclusive`` (a container's or pod's exclusive CPUs) and ``kubelet.memory_manager.containers``
(a container's memory-manager blocks) come from the checkpoint files (numa_kubelet.py) or from the pod-resources API
(numa_podresources.py); both build their entries with these functions, so that an entry means the same from
either source.

Standard library only, Python 3.8+.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import format_cpuset


def nodes_of(cpus, cpu_node):
    """The NUMA nodes of ``cpus`` (sorted), by ``cpu_node`` ({cpu: NUMA node}); a CPU of no known node is left
    out."""
    return sorted(set(cpu_node[cpu] for cpu in cpus if cpu in cpu_node))


def entry(pod_uid, container, namespace, pod):
    """The names of an entry: ``container`` None for the pod-level resources (then ``pod_level`` is True)."""
    item = {'pod_uid': pod_uid, 'container': container, 'namespace': namespace, 'pod': pod}
    if container is None:
        item['pod_level'] = True
    return item


def with_cpus(item, cpus, cpu_node):
    """``item`` (see :func:`entry`) with its exclusive CPU set ``cpus``: the list, the IDs, the count and their
    NUMA nodes."""
    item.update(cpus=format_cpuset(cpus), cpu_ids=sorted(cpus), cpu_count=len(cpus),
                numa_nodes=nodes_of(cpus, cpu_node))
    return item


def block(numa_nodes, resource, size):
    """One memory-manager block: its NUMA nodes (sorted), its resource (``memory``, ``hugepages-2Mi``, ...) and
    its size in bytes."""
    return {'numa_nodes': sorted(numa_nodes), 'resource': resource, 'bytes': size}


def with_blocks(item, blocks):
    """``item`` (see :func:`entry`) with its memory-manager blocks (see :func:`block`) and the NUMA nodes they
    are on."""
    item['blocks'] = blocks
    item['numa_nodes'] = sorted(set(node for one in blocks for node in one['numa_nodes']))
    return item
