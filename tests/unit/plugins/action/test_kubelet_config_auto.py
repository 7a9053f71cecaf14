# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kubelet_config with reserved_system_cpus/reserved_memory: auto, end to end through the action plugin: the real
node_files and numa_facts modules run in-process, numa_facts on a recorded sysfs tree."""
from __future__ import annotations

import copy
import types

import pytest

from ansible.errors import AnsibleActionFail
from ansible.playbook.play_context import PlayContext
from ansible.playbook.task import Task

from ansible_collections.numaops.colocation.plugins.action.kubelet_config import ActionModule
from ansible_collections.numaops.colocation.plugins.modules import node_files, numa_facts
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_trees import tree
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.module_runner import run_module

HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'


@pytest.fixture
def run_action(capsys, monkeypatch):
    def run(tree, check_mode=False, diff=False, **args):
        task = Task()
        task.action = 'numaops.colocation.kubelet_config'
        task.args = dict(args, topology_root=tree)
        play_context = PlayContext()
        play_context.check_mode = check_mode
        play_context.diff = diff
        connection = types.SimpleNamespace(_shell=types.SimpleNamespace(tmpdir=None))
        action = ActionModule(task, connection, play_context, None, None)
        calls = []

        def execute_module(module_name=None, module_args=None, task_vars=None, **_kwargs):
            calls.append(module_name)
            if module_name == 'numaops.colocation.numa_facts':
                assert module_args == {'root': tree}
                return run_module(numa_facts, capsys, check_mode=check_mode, **copy.deepcopy(module_args))
            assert module_name == 'numaops.colocation.node_files'
            return run_module(node_files, capsys, check_mode=check_mode, **copy.deepcopy(module_args))

        monkeypatch.setattr(action, '_execute_module', execute_module)
        try:
            result = action.run(task_vars={})
        except AnsibleActionFail as err:
            result = dict(failed=True, changed=False, msg=err.message)
        result['_calls'] = calls
        return result

    return run


def config(tmp_path, text=''):
    path = tmp_path / 'config.yaml'
    path.write_text(HEAD + text)
    state = tmp_path / 'lib'
    state.mkdir()
    return str(path), str(state)


XEON = tree('xeon8358-2s')
TX2 = tree('thunderx2-2s')


def test_auto_cpus_whole_cores_check_mode_predicts(run_action, tmp_path):
    path, state = config(tmp_path)
    before = open(path).read()
    checked = run_action(XEON, check_mode=True, diff=True, path=path, state_dir=state, cpu_manager_policy='static',
                         reserved_system_cpus='auto', reserved_cores=2)
    assert checked['changed'] and open(path).read() == before
    assert checked['derived']['reserved_system_cpus']['value'] == '0-1,64-65'
    assert [c['cpus'] for c in checked['derived']['reserved_system_cpus']['cores']] == ['0,64', '1,65']
    assert 'reservedSystemCPUs: 0-1,64-65' in checked['diff'][0]['after']
    assert 'derived from the NUMA topology: reserved_system_cpus=0-1,64-65' in checked['msg']
    real = run_action(XEON, path=path, state_dir=state, cpu_manager_policy='static',
                      reserved_system_cpus='auto', reserved_cores=2)
    assert real['changed'] and real['changed_fields'] == checked['changed_fields']
    assert 'reservedSystemCPUs: 0-1,64-65' in open(path).read()
    again = run_action(XEON, path=path, state_dir=state, cpu_manager_policy='static',
                       reserved_system_cpus='auto', reserved_cores=2)
    assert not again['changed']


def test_auto_cpus_spread_one_core_per_numa_node(run_action, tmp_path):
    path, state = config(tmp_path)
    result = run_action(XEON, check_mode=True, path=path, state_dir=state, reserved_system_cpus='auto',
                        reserved_cores=2, reserved_cores_placement='spread')
    assert result['derived']['reserved_system_cpus']['value'] == '0,32,64,96'
    assert [c['numa_node'] for c in result['derived']['reserved_system_cpus']['cores']] == [0, 1]


def test_auto_cpus_refused_when_larger_than_numa_node(run_action, tmp_path):
    path, state = config(tmp_path)
    before = open(path).read()
    result = run_action(TX2, path=path, state_dir=state, reserved_system_cpus='auto', reserved_cores=29)
    assert result['failed']
    assert 'reserved_cores=29 whole cores on NUMA node 0, which has 28 cores (28 CPUs: 0-27)' in result['msg']
    assert 'nothing was changed' in result['msg']
    assert open(path).read() == before


def test_auto_memory_sum_rule(run_action, tmp_path):
    path, state = config(tmp_path, 'evictionHard:\n  memory.available: 200Mi\n')
    result = run_action(XEON, check_mode=True, path=path, state_dir=state, memory_manager_policy='Static',
                        kube_reserved={'memory': '512Mi'}, system_reserved={'memory': '1Gi'},
                        reserved_memory='auto', reserved_memory_split='even')
    assert not result.get('failed'), result['msg']
    derived = result['derived']['reserved_memory']
    assert derived['sum_bytes'] == (512 + 1024 + 200) * 1024 ** 2
    assert derived['value'] == [{'numaNode': 0, 'limits': {'memory': '868Mi'}},
                                {'numaNode': 1, 'limits': {'memory': '868Mi'}}]
    assert result['config']['reservedMemory'] == derived['value']


def test_auto_memory_refused_when_larger_than_numa_node(run_action, tmp_path):
    path, state = config(tmp_path)
    result = run_action(TX2, path=path, state_dir=state, memory_manager_policy='Static',
                        kube_reserved={'memory': '40Gi'}, system_reserved={'memory': '30Gi'}, reserved_memory='auto')
    assert result['failed']
    assert 'puts 71780Mi (75266785280 bytes) on NUMA node 0, which has 64836Mi (67985473536 bytes' in result['msg']


def test_bad_auto_options(run_action, tmp_path):
    path, state = config(tmp_path)
    result = run_action(XEON, path=path, state_dir=state, reserved_system_cpus='auto', reserved_cores=0,
                        reserved_cores_placement='everywhere')
    assert result['failed']
    assert 'reserved_cores: 0 is not a number of whole cores' in result['msg']
    assert "reserved_cores_placement: 'everywhere' is not one of numa0, spread" in result['msg']
