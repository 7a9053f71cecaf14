# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""numaops.colocation.numa_facts as a module: one call, facts under numaops_numa, the same in check mode."""
from __future__ import annotations

import json
import os

from ansible_collections.numaops.colocation.plugins.modules import numa_facts
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_trees import tree
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.module_runner import run_module

XEON = tree('xeon8358-2s')


def test_facts_and_check_mode(capsys):
    with open(os.path.join(XEON, 'pods.json')) as handle:
        pods = json.load(handle)
    result = run_module(numa_facts, capsys, root=XEON, pods=pods)
    checked = run_module(numa_facts, capsys, check_mode=True, root=XEON, pods=pods)
    assert result['changed'] is False and checked['changed'] is False
    assert result['ansible_facts'] == checked['ansible_facts']
    facts = result['ansible_facts']['numaops_numa']
    assert facts['cpu_count'] == 128
    assert facts['kubelet']['cpu_manager']['exclusive'][0]['pod'] == 'dpdk-fwd-0'


def test_kubespray_paths(capsys, tmp_path):
    result = run_module(numa_facts, capsys, root=XEON, kubelet_config='/etc/kubernetes/kubelet-config.yaml')
    unknown = result['ansible_facts']['numaops_numa']['unknown']
    assert {'path': '/etc/kubernetes/kubelet-config.yaml',
            'reason': 'missing: kubelet policies and reservedSystemCPUs unknown'} in unknown


def test_relative_path_refused(capsys):
    result = run_module(numa_facts, capsys, root=XEON, state_dir='var/lib/kubelet')
    assert result['failed']
    assert result['msg'] == ('numa_facts: state_dir=var/lib/kubelet must be an absolute path (it is read below '
                             'root=%s)' % XEON)
