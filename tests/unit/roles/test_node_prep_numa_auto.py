# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_prep with reserved_system_cpus/reserved_memory: auto, through ansible-playbook, on a copy of the sandbox
node whose sys/ is the recorded 2-socket Xeon tree: check mode predicts the derived values and touches nothing,
the real run writes exactly them, a second run changes nothing, and a reservation larger than the node is
refused before anything changes. Services are not managed (node_prep_manage_services=false) and the API is
not used: this test is about the derivation, the node_prep molecule scenario covers the rest."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys

import pytest

from ansible_collections.numaops.colocation.tests.unit.unit_stage import only_here

pytestmark = only_here('runs node_prep through ansible-playbook')

# pylint: disable=wrong-import-position
import ansible_collections  # noqa: E402
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_trees import tree as numa_tree  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def collections_path():
    for entry in ansible_collections.__path__:
        if os.path.isdir(os.path.join(entry, 'numaops', 'colocation')):
            return os.path.dirname(entry)
    raise AssertionError('numaops.colocation is not importable')


def digest(tree):
    out = {}
    for base, _dirs, files in os.walk(os.path.join(tree, 'var')):
        for name in files:
            with open(os.path.join(base, name), 'rb') as handle:
                out[os.path.relpath(os.path.join(base, name), tree)] = hashlib.sha256(handle.read()).hexdigest()
    return out


@pytest.fixture
def node(tmp_path):
    tree = tmp_path / 'tree'
    shutil.copytree(os.path.join(ROOT, 'examples', 'sandbox', 'tree'), str(tree), symlinks=True)
    shutil.rmtree(str(tree / 'sys'))
    shutil.copytree(os.path.join(numa_tree('xeon8358-2s'), 'sys'), str(tree / 'sys'))
    (tmp_path / 'textfile').mkdir()
    return tmp_path


def play(workdir, check=False, **extra):
    host = {
        'ansible_connection': 'local', 'ansible_python_interpreter': sys.executable,
        'node_prep_become': False, 'node_prep_root': str(workdir / 'tree'), 'node_prep_k8s_enabled': False,
        'node_prep_containerd_version': '1.7.24', 'node_prep_nri_enabled': None,
        'node_prep_manage_services': False, 'node_prep_numa_textfile_dir': str(workdir / 'textfile'),
        'node_prep_reserved_system_cpus': 'auto', 'node_prep_reserved_cores': 2,
        'node_prep_reserved_cores_placement': 'spread', 'node_prep_memory_manager_policy': 'Static',
        'node_prep_kube_reserved': {'cpu': '500m', 'memory': '512Mi'}, 'node_prep_system_reserved': {'memory': '512Mi'},
        'node_prep_reserved_memory': 'auto', 'node_prep_reserved_memory_split': 'even',
    }
    host.update(extra)
    (workdir / 'inventory.json').write_text(json.dumps({'colocation_nodes': {'hosts': {'node-1': host}}}))
    (workdir / 'play.yml').write_text('- hosts: colocation_nodes\n  gather_facts: false\n'
                                      '  roles: [numaops.colocation.node_prep]\n')
    command = ['ansible-playbook', '-i', str(workdir / 'inventory.json'), str(workdir / 'play.yml'), '--diff']
    if check:
        command.append('--check')
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections_path(), ANSIBLE_NOCOLOR='1',
               ANSIBLE_STDOUT_CALLBACK='default', ANSIBLE_FORCE_COLOR='0')
    proc = subprocess.run(command, cwd=str(workdir), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=600, check=False)
    return proc.returncode, proc.stdout.decode()


def kubelet_summary(output):
    """The kubelet line of the role's summary, without the check-mode wording."""
    line = [item.strip().strip('",') for item in output.splitlines() if '"kubelet ' in item][-1]
    return line


def recap_changed(output):
    line = [item for item in output.splitlines() if item.startswith('node-1') and 'changed=' in item][-1]
    return int(line.split('changed=')[1].split()[0])


def test_auto_reservations_predicted_applied_idempotent(node):
    before = digest(str(node / 'tree'))
    rc, out = play(node, check=True)
    assert rc == 0, out
    assert '+reservedSystemCPUs: 0,32,64,96' in out           # one whole core per NUMA node, siblings included
    assert out.count('memory: 562Mi') == 2                     # (512Mi + 512Mi + 100Mi eviction) / 2 NUMA nodes
    assert digest(str(node / 'tree')) == before
    predicted = kubelet_summary(out)
    assert 'reservedSystemCPUs' in predicted and 'reservedMemory' in predicted
    rc, out = play(node)
    assert rc == 0, out
    assert kubelet_summary(out) == predicted
    config = (node / 'tree' / 'var' / 'lib' / 'kubelet' / 'config.yaml').read_text()
    assert 'reservedSystemCPUs: 0,32,64,96\n' in config
    assert config.count('    memory: 562Mi\n') == 2
    textfile = (node / 'textfile' / 'numaops_numa.prom').read_text()
    assert 'numaops_numa_node_cpus{numa_node="1"} 64' in textfile
    assert 'numaops_node_prep_last_run_timestamp_seconds ' in textfile
    rc, out = play(node)
    assert rc == 0, out
    assert recap_changed(out) == 0
    # a reservation larger than the node: refused by the plan, before anything changes
    before = digest(str(node / 'tree'))
    rc, out = play(node, node_prep_reserved_cores=33, node_prep_reserved_cores_placement='numa0')
    assert rc != 0
    assert 'reserved_cores=33 whole cores on NUMA node 0, which has 32 cores (64 CPUs: 0-31,64-95)' in out
    assert digest(str(node / 'tree')) == before
