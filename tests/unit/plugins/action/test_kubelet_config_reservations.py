# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kubelet_config reservations: merge keeps what the node has, replace names every entry it drops."""
from __future__ import annotations

from ansible_collections.numaops.colocation.tests.unit.plugins.action import test_kubelet_config as base

HEAD = base.HEAD
node = base.node
run_action = base.run_action  # the fixture

NODE = HEAD + '''cpuManagerPolicy: none
kubeReserved:
  memory: 1Gi
systemReserved:
  cpu: "1"
  ephemeral-storage: 1Gi
  memory: 2Gi
'''


def test_merge_sets_cpu_and_keeps_memory_storage_and_pid(tmp_path, run_action):  # noqa: F811
    path, state_dir = node(tmp_path, NODE)
    result = run_action(path=str(path), state_dir=str(state_dir), reservations='merge',
                        system_reserved={'cpu': '500m'}, kube_reserved={'cpu': '500m'})
    assert not result.get('failed'), result
    assert result['changed'] and result['reservations_removed'] == []
    assert path.read_text() == HEAD + '''cpuManagerPolicy: none
kubeReserved:
  memory: 1Gi
  cpu: 500m
systemReserved:
  cpu: 500m
  ephemeral-storage: 1Gi
  memory: 2Gi
'''
    assert result['previous']['systemReserved'] == {'cpu': '1', 'ephemeral-storage': '1Gi', 'memory': '2Gi'}
    # a second run changes nothing
    again = run_action(path=str(path), state_dir=str(state_dir), reservations='merge',
                       system_reserved={'cpu': '500m'}, kube_reserved={'cpu': '500m'})
    assert not again['changed'] and again['reservations_removed'] == [], again


def test_merge_removes_an_entry_set_to_null_and_names_it(tmp_path, run_action):  # noqa: F811
    path, state_dir = node(tmp_path, NODE)
    result = run_action(path=str(path), state_dir=str(state_dir), reservations='merge',
                        system_reserved={'ephemeral-storage': None})
    assert result['changed'], result
    assert result['reservations_removed'] == ['systemReserved.ephemeral-storage=1Gi']
    assert 'removed reservations systemReserved.ephemeral-storage=1Gi (reservations: merge)' in result['msg']
    assert 'ephemeral-storage' not in path.read_text()


def test_replace_drops_the_other_entries_and_names_each(tmp_path, run_action):  # noqa: F811
    path, state_dir = node(tmp_path, NODE)
    before = path.read_text()
    check = run_action(check_mode=True, path=str(path), state_dir=str(state_dir), reservations='replace',
                       system_reserved={'cpu': '500m'}, kube_reserved={'cpu': '500m'})
    assert check['changed'] and path.read_text() == before
    assert check['reservations_removed'] == ['systemReserved.ephemeral-storage=1Gi', 'systemReserved.memory=2Gi',
                                             'kubeReserved.memory=1Gi'], check
    assert 'would remove reservations systemReserved.ephemeral-storage=1Gi' in check['msg'], check['msg']
    result = run_action(path=str(path), state_dir=str(state_dir), reservations='replace',
                        system_reserved={'cpu': '500m'}, kube_reserved={'cpu': '500m'})
    assert result['reservations_removed'] == check['reservations_removed']
    assert 'memory' not in path.read_text()


def test_empty_dict_removes_the_key_and_names_its_entries(tmp_path, run_action):  # noqa: F811
    path, state_dir = node(tmp_path, NODE)
    result = run_action(path=str(path), state_dir=str(state_dir), reservations='merge', kube_reserved={})
    assert result['changed'] and result['reservations_removed'] == ['kubeReserved.memory=1Gi'], result
    assert 'kubeReserved' not in path.read_text()
