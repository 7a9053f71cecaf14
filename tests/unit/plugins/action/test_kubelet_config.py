# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kubelet_config action plugin end to end: the task's arguments go through Ansible's own argument
validation, the file is read and written by the real node_files module (run in-process on this machine)."""
from __future__ import annotations

import copy
import os
import stat
import types

import pytest

from ansible.errors import AnsibleActionFail
from ansible.playbook.play_context import PlayContext
from ansible.playbook.task import Task

from ansible_collections.numaops.colocation.plugins.action.kubelet_config import ActionModule
from ansible_collections.numaops.colocation.plugins.module_utils import kubelet as k
from ansible_collections.numaops.colocation.plugins.modules import node_files
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.module_runner import run_module

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), 'fixtures', 'kubelet')
HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'
CPU_NONE = os.path.join(FIXTURES, 'cpu_manager_state.none')


@pytest.fixture
def run_action(capsys, monkeypatch):
    """Run the action plugin with these task arguments; return its result (``failed``/``msg`` on a refusal)."""

    def run(check_mode=False, diff=False, **args):
        task = Task()
        task.action = 'numaops.colocation.kubelet_config'
        task.args = args
        play_context = PlayContext()
        play_context.check_mode = check_mode
        play_context.diff = diff
        connection = types.SimpleNamespace(_shell=types.SimpleNamespace(tmpdir=None))
        action = ActionModule(task, connection, play_context, None, None)

        def execute_module(module_name=None, module_args=None, task_vars=None, **_kwargs):
            assert module_name == 'numaops.colocation.node_files'
            return run_module(node_files, capsys, check_mode=check_mode, **copy.deepcopy(module_args))

        monkeypatch.setattr(action, '_execute_module', execute_module)
        try:
            return action.run(task_vars={})
        except AnsibleActionFail as err:
            return dict(failed=True, changed=False, msg=err.message)

    return run


def node(tmp_path, text, cpu_state=True):
    """A kubelet configuration file (and a CPU manager checkpoint) in tmp_path; returns (path, state_dir)."""
    path = tmp_path / 'config.yaml'
    path.write_text(text)
    state_dir = tmp_path / 'lib'
    state_dir.mkdir()
    if cpu_state:
        with open(CPU_NONE) as handle:
            (state_dir / 'cpu_manager_state').write_text(handle.read())
    return path, state_dir


# ----------------------------------------------------------------------------------------------
# Removing keys: "" for a string option, {} for a dictionary option, [] for a list option

FULL = HEAD + '''cpuManagerPolicy: static
cpuManagerPolicyOptions:
  full-pcpus-only: "true"
featureGates:
  CPUManagerPolicyAlphaOptions: true
kubeReserved:
  cpu: "1"
  memory: 512Mi
maxPods: 110
memoryManagerPolicy: Static
reservedMemory:
- limits:
    memory: 1124Mi
  numaNode: 0
reservedSystemCPUs: 0-1
systemReserved:
  memory: 512Mi
topologyManagerPolicy: single-numa-node
topologyManagerScope: pod
'''


def test_empty_values_of_each_type_remove_the_keys(tmp_path, run_action):
    path, state_dir = node(tmp_path, FULL, cpu_state=False)
    result = run_action(path=str(path), state_dir=str(state_dir), cpu_manager_policy='', reserved_system_cpus='',
                        topology_manager_policy='', topology_manager_scope='', memory_manager_policy='',
                        cpu_manager_policy_options={}, system_reserved={}, kube_reserved={}, feature_gates={},
                        reserved_memory=[])
    assert not result.get('failed'), result.get('msg')
    assert result['changed'] is True
    assert result['changed_fields'] == ['cpuManagerPolicy', 'cpuManagerPolicyOptions', 'reservedSystemCPUs',
                                        'systemReserved', 'kubeReserved', 'topologyManagerPolicy',
                                        'topologyManagerScope', 'memoryManagerPolicy', 'reservedMemory',
                                        'featureGates']
    assert path.read_text() == HEAD + 'maxPods: 110\n'
    assert result['config'] == {}
    again = run_action(path=str(path), state_dir=str(state_dir), system_reserved={}, reserved_memory=[],
                       cpu_manager_policy='')
    assert again['changed'] is False and again['changed_fields'] == []


@pytest.mark.parametrize('option,key,empty', [
    ('system_reserved', 'systemReserved', '{}'),
    ('kube_reserved', 'kubeReserved', '{}'),
    ('cpu_manager_policy_options', 'cpuManagerPolicyOptions', '{}'),
    ('topology_manager_policy_options', 'topologyManagerPolicyOptions', '{}'),
    ('feature_gates', 'featureGates', '{}'),
    ('reserved_memory', 'reservedMemory', '[]'),
])
def test_empty_string_for_a_dict_or_list_option_is_refused_with_advice(tmp_path, run_action, option, key, empty):
    path, state_dir = node(tmp_path, FULL)
    before = path.read_bytes()
    result = run_action(path=str(path), state_dir=str(state_dir), **{option: ''})
    assert result['failed'] is True and result['changed'] is False
    assert result['msg'].startswith('%s: refusing to change the kubelet configuration; nothing was changed' % path)
    assert '%s: "" is not a' % option in result['msg']
    assert 'to remove %s from the file use %s: %s' % (key, option, empty) in result['msg']
    assert path.read_bytes() == before and (state_dir / 'cpu_manager_state').exists()


# ----------------------------------------------------------------------------------------------
# A file that already holds empty policies (the kubelet's defaults)

def test_file_with_empty_policies_is_accepted(tmp_path, run_action):
    text = HEAD + ('cpuManagerPolicy: ""\nmemoryManagerPolicy: ""\ntopologyManagerPolicy: ""\n'
                   'topologyManagerScope: ""\n')
    path, state_dir = node(tmp_path, text)
    result = run_action(path=str(path), state_dir=str(state_dir), kube_reserved={'memory': '512Mi'})
    assert not result.get('failed'), result.get('msg')
    assert result['changed_fields'] == ['kubeReserved']
    assert result['state_files_removed'] == []
    assert path.read_text() == text + 'kubeReserved:\n  memory: 512Mi\n'


def test_empty_cpu_policy_to_static_removes_the_none_checkpoint(tmp_path, run_action):
    path, state_dir = node(tmp_path, HEAD + 'cpuManagerPolicy: ""\n')
    result = run_action(path=str(path), state_dir=str(state_dir), cpu_manager_policy='static',
                        reserved_system_cpus='0-1')
    assert not result.get('failed'), result.get('msg')
    assert result['state_files_removed'] == [str(state_dir / 'cpu_manager_state')]
    assert not (state_dir / 'cpu_manager_state').exists()


# ----------------------------------------------------------------------------------------------
# Refusals name the values

def test_reserved_cpus_with_reserved_cgroups_names_the_values(tmp_path, run_action):
    with open(os.path.join(FIXTURES, 'kubespray.yaml')) as handle:
        path, state_dir = node(tmp_path, handle.read())
    before = path.read_bytes()
    result = run_action(path=str(path), state_dir=str(state_dir), cpu_manager_policy='static',
                        reserved_system_cpus='0-1')
    assert result['failed'] is True
    assert ('reservedSystemCPUs: "0-1" cannot be combined with systemReservedCgroup "/system.slice" and '
            'kubeReservedCgroup "/kube.slice"') in result['msg']
    assert path.read_bytes() == before


# ----------------------------------------------------------------------------------------------
# The rewritten file keeps its owner, group and mode

@pytest.mark.skipif(os.geteuid() != 0, reason='changing a file to another owner needs root')
def test_rewrite_keeps_owner_group_and_mode(tmp_path, run_action):
    path, state_dir = node(tmp_path, HEAD + 'cpuManagerPolicy: none\nmaxPods: 110\n')
    os.chown(str(path), 65534, 65534)
    os.chmod(str(path), 0o640)
    result = run_action(path=str(path), state_dir=str(state_dir), cpu_manager_policy='static',
                        reserved_system_cpus='0-1', backup=True)
    assert not result.get('failed'), result.get('msg')
    assert result['changed'] is True and result['state_files_removed'] == [str(state_dir / 'cpu_manager_state')]
    assert path.read_text() == HEAD + 'cpuManagerPolicy: static\nmaxPods: 110\nreservedSystemCPUs: 0-1\n'
    after = os.stat(str(path))
    assert (after.st_uid, after.st_gid, stat.S_IMODE(after.st_mode)) == (65534, 65534, 0o640)
    # Only the file and its backup are next to each other: no temporary file was left behind.
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == sorted(
        ['config.yaml', os.path.basename(result['backup_file'])])


# ----------------------------------------------------------------------------------------------
# A corrupt checkpoint goes whatever the change (check mode predicts it; the diff says why)

@pytest.mark.parametrize('params', [{}, dict(topology_manager_scope='pod')])
def test_corrupt_checkpoint_is_removed_whatever_the_change(tmp_path, run_action, params):
    path, state_dir = node(tmp_path, HEAD + 'cpuManagerPolicy: none\n')
    state = state_dir / 'cpu_manager_state'
    state.write_text('{"policyName":"none","defaultCpuSet":"","checksum":12}')
    memory = state_dir / 'memory_manager_state'
    memory.write_text('\x00' * 16)
    before = path.read_bytes()
    predicted = run_action(check_mode=True, diff=True, path=str(path), state_dir=str(state_dir), **params)
    assert not predicted.get('failed'), predicted.get('msg')
    assert predicted['changed'] is True and state.exists() and memory.exists() and path.read_bytes() == before
    assert predicted['state_files_removed'] == [str(state), str(memory)]
    reasons = predicted['state_files_removed_reasons']
    assert reasons[str(state)].startswith('the CPU manager checkpoint is corrupt: its checksum 12 does not match')
    assert reasons[str(memory)].startswith('the memory manager checkpoint is corrupt: it is not JSON')
    headers = [d['after_header'] for d in predicted['diff']]
    assert '%s (removed: %s)' % (state, reasons[str(state)]) in headers
    assert 'would remove %s: the CPU manager checkpoint is corrupt' % state in predicted['msg']
    real = run_action(path=str(path), state_dir=str(state_dir), **params)
    assert real['changed'] is True and real['state_files_removed'] == predicted['state_files_removed']
    assert real['restart_required'] is True and not state.exists() and not memory.exists()
    again = run_action(path=str(path), state_dir=str(state_dir), **params)
    assert again['changed'] is False and again['state_files_removed'] == []


# ----------------------------------------------------------------------------------------------
# A static CPU manager checkpoint the kubelet would refuse against the node's online CPUs goes; one it starts with stays

def _online(tmp_path, cpus):
    top = tmp_path / 'node'
    (top / 'sys/devices/system/cpu').mkdir(parents=True)
    (top / 'sys/devices/system/cpu/online').write_text(cpus + '\n')
    return str(top)


def test_a_removal_cut_short_by_a_kubelet_stop_is_removed(tmp_path, run_action):
    # a kubelet 1.37 stopped between the two writes of a container's removal: CPU 1 is in no set
    path, state_dir = node(tmp_path, HEAD + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n', cpu_state=False)
    state = state_dir / 'cpu_manager_state'
    state.write_text(k.checkpoint_text('cpu', {'policyName': 'static', 'defaultCpuSet': '0', 'entries': {}}))
    args = dict(path=str(path), state_dir=str(state_dir), topology_root=_online(tmp_path, '0-1'),
                topology_manager_policy='single-numa-node')
    predicted = run_action(check_mode=True, **args)
    assert not predicted.get('failed'), predicted.get('msg')
    assert predicted['state_files_removed'] == [str(state)] and state.exists()
    reason = predicted['state_files_removed_reasons'][str(state)]
    assert reason.startswith('it records CPUs 0 (default set 0) but the node has CPUs 0-1; the kubelet would refuse')
    real = run_action(**args)
    assert real['state_files_removed'] == [str(state)] and not state.exists() and real['restart_required'] is True
    assert run_action(**args)['changed'] is False


def test_a_static_checkpoint_that_adds_up_stays(tmp_path, run_action):
    path, state_dir = node(tmp_path, HEAD + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n', cpu_state=False)
    state = state_dir / 'cpu_manager_state'
    state.write_text(k.checkpoint_text('cpu', {'policyName': 'static', 'defaultCpuSet': '0',
                                               'entries': {'pod': {'app': '1'}}}))
    for root in (_online(tmp_path, '0-1'), str(tmp_path / 'no-such-root')):
        result = run_action(path=str(path), state_dir=str(state_dir), topology_root=root)
        assert result['changed'] is False and result['state_files_removed'] == [] and state.exists()


def test_valid_checkpoint_with_kubelet_checksum_stays(tmp_path, run_action):
    path, state_dir = node(tmp_path, HEAD + 'cpuManagerPolicy: none\n')
    result = run_action(path=str(path), state_dir=str(state_dir))
    assert result['changed'] is False and result['state_files_removed'] == []
    assert result['state_files_removed_reasons'] == {}
