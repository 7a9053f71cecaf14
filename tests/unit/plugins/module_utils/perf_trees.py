# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The sysfs trees of the performance profile tests: the recorded two-socket trees of numa_trees (SMT: the Xeon
8358, no SMT: the ThunderX2) and a constructed single-NUMA-node tree (4 cores with 2 threads each, 2M pages only,
8 GiB), built with numa_trees.build."""
from __future__ import annotations

import json
import os
import tempfile

from ansible_collections.numaops.colocation.plugins.module_utils import numa
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils import numa_trees

GIB = 1024 ** 3
_BUILT = {}


def one_node():
    # constructed: cores 0-3 with siblings 4-7, one NUMA node, no 1G pages offered
    topology = dict((cpu, (0, cpu % 4, [cpu % 4, cpu % 4 + 4])) for cpu in range(8))
    return {
        'nodes': [{'cpus': list(range(8)), 'mem_total': 8 * GIB, 'mem_free': 6 * GIB, 'huge': {2048: (0, 0)}}],
        'topology': topology, 'distances': [[10]], 'isolated': '', 'nohz_full': '',
        'cmdline': 'BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro quiet', 'pci': [],
        'kubelet_config': 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n',
        'cpu_state': json.dumps({'policyName': 'none', 'defaultCpuSet': '', 'checksum': 0}),
        'memory_state': json.dumps({'policyName': 'None', 'machineState': {}, 'checksum': 0}),
        'pods': [],
    }


def root(name):
    """The directory of tree ``name``: xeon8358-2s, thunderx2-2s or one-node."""
    if name != 'one-node':
        return numa_trees.tree(name)
    if 'one-node' not in _BUILT:
        dest = os.path.join(numa_trees.trees(), 'perf')
        os.makedirs(dest, exist_ok=True)
        numa_trees.build(dest, 'one-node', one_node())
        _BUILT['one-node'] = os.path.join(dest, 'one-node')
    return _BUILT['one-node']


def facts(name):
    return numa.collect(root(name))


def scratch():
    return tempfile.mkdtemp(prefix='numaops-perf.')
