# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kubelet_config with the kubelet's drop-in directory (config_dir), end to end: the directory is listed by
ansible.builtin.find and the files read and written by the real node_files module, both run in-process."""
from __future__ import annotations

import copy
import os
import types

import pytest

from ansible.errors import AnsibleActionFail
from ansible.modules import find, stat as stat_module
from ansible.playbook.play_context import PlayContext
from ansible.playbook.task import Task

from ansible_collections.numaops.colocation.plugins.action.kubelet_config import ActionModule
from ansible_collections.numaops.colocation.plugins.modules import node_files
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.module_runner import run_module

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), 'fixtures', 'kubelet')
HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'
CPU_NONE = os.path.join(FIXTURES, 'cpu_manager_state.none')
MODULES = {'numaops.colocation.node_files': node_files, 'ansible.builtin.find': find,
           'ansible.builtin.stat': stat_module}


@pytest.fixture
def run_action(capsys, monkeypatch):
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
            return run_module(MODULES[module_name], capsys, check_mode=check_mode, **copy.deepcopy(module_args))

        monkeypatch.setattr(action, '_execute_module', execute_module)
        try:
            return action.run(task_vars={})
        except AnsibleActionFail as err:
            return dict(failed=True, changed=False, msg=err.message)

    return run


def node(tmp_path, main, dropins):
    """The main file, a CPU manager checkpoint of policy none and the drop-in directory with ``dropins``."""
    path = tmp_path / 'config.yaml'
    path.write_text(HEAD + main)
    state_dir = tmp_path / 'lib'
    state_dir.mkdir()
    with open(CPU_NONE) as handle:
        (state_dir / 'cpu_manager_state').write_text(handle.read())
    config_dir = tmp_path / 'kubelet.conf.d'
    config_dir.mkdir()
    for name, text in dropins.items():
        (config_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (config_dir / name).write_text(text)
    return path, state_dir, config_dir


def snapshot(tmp_path):
    return dict((str(p), p.read_bytes()) for p in sorted(tmp_path.rglob('*')) if p.is_file())


def test_an_overriding_drop_in_is_refused_before_anything_changes(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {
        '10-site.conf': HEAD + 'reservedSystemCPUs: "0-1"\n',
        '90-vendor.conf': HEAD + 'cpuManagerPolicy: none\n'})
    before = snapshot(tmp_path)
    for check_mode in (True, False):
        result = run_action(check_mode=check_mode, path=str(path), state_dir=str(state_dir),
                            config_dir=str(config_dir), cpu_manager_policy='static')
        assert result['failed'], result
        for fragment in (str(config_dir / '90-vendor.conf') + ' sets cpuManagerPolicy to "none"',
                         'instead of cpuManagerPolicy set to "static"', 'option cpu_manager_policy',
                         'Remove cpuManagerPolicy from ' + str(config_dir / '90-vendor.conf'), 'nothing was changed'):
            assert fragment in result['msg'], result['msg']
    assert snapshot(tmp_path) == before


def test_validation_and_checkpoints_are_judged_on_the_merged_configuration(tmp_path, run_action):
    # the main file alone would be refused (static without a CPU reservation): the drop-in has the reservation
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {
        '10-site.conf': HEAD + 'reservedSystemCPUs: "0-1"\nsystemReserved:\n  memory: 1Gi\n',
        'notes.txt': 'not read by the kubelet\n',
        'sub/20-more.conf': '{"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration", '
                            '"maxPods": 50}\n'})
    args = dict(path=str(path), state_dir=str(state_dir), config_dir=str(config_dir), cpu_manager_policy='static')
    checked = run_action(check_mode=True, diff=True, **args)
    assert not checked.get('failed'), checked
    assert checked['changed'] and checked['restart_required']
    assert checked['state_files_removed'] == [str(state_dir / 'cpu_manager_state')]
    assert (state_dir / 'cpu_manager_state').exists() and 'static' not in path.read_text()
    result = run_action(**args)
    assert {k: result[k] for k in ('changed', 'restart_required', 'state_files_removed', 'changed_fields')} == {
        k: checked[k] for k in ('changed', 'restart_required', 'state_files_removed', 'changed_fields')}
    assert not (state_dir / 'cpu_manager_state').exists()
    assert result['drop_in_files'] == [str(config_dir / '10-site.conf'), str(config_dir / 'sub/20-more.conf')]
    assert result['drop_in_files_skipped'] == [str(config_dir / 'notes.txt')]
    assert result['drop_in_overrides'] == [
        {'file': str(config_dir / '10-site.conf'), 'key': 'reservedSystemCPUs', 'value': '0-1'},
        {'file': str(config_dir / '10-site.conf'), 'key': 'systemReserved.memory', 'value': '1Gi'}]
    assert result['effective_config'] == {'cpuManagerPolicy': 'static', 'reservedSystemCPUs': '0-1',
                                          'systemReserved': {'memory': '1Gi'}}
    assert result['config'] == {'cpuManagerPolicy': 'static'}
    assert str(config_dir / '10-site.conf') + ' reservedSystemCPUs=0-1' in result['msg']
    again = run_action(**args)
    assert not again['changed'] and not again['restart_required'] and 'already as requested' in again['msg']


def test_a_change_the_drop_ins_already_make_needs_no_restart(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'topologyManagerPolicy: none\n', {
        '50-numa.conf': HEAD + 'topologyManagerPolicy: single-numa-node\n'})
    result = run_action(path=str(path), state_dir=str(state_dir), config_dir=str(config_dir),
                        topology_manager_policy='single-numa-node')
    assert result['changed'] and result['changed_fields'] == ['topologyManagerPolicy']
    assert result['restart_required'] is False


@pytest.mark.parametrize('name, text, fragments', [
    ('10-bad.conf', HEAD + 'cpuManagerPolicy: [\n', ['10-bad.conf is not valid YAML']),
    ('10-empty.conf', '', ['10-empty.conf is empty']),
    ('10-nokind.conf', 'cpuManagerPolicy: static\n', ['10-nokind.conf: kind is null']),
])
def test_malformed_drop_ins_fail_naming_the_file(tmp_path, run_action, name, text, fragments):
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {name: text})
    before = snapshot(tmp_path)
    result = run_action(path=str(path), state_dir=str(state_dir), config_dir=str(config_dir),
                        topology_manager_policy='best-effort', kubelet_version='1.37')
    assert result['failed'] and all(fragment in result['msg'] for fragment in fragments), result['msg']
    assert snapshot(tmp_path) == before


def test_a_missing_drop_in_directory_is_refused(tmp_path, run_action):
    path, state_dir, _config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {})
    result = run_action(path=str(path), state_dir=str(state_dir), config_dir=str(tmp_path / 'nope'),
                        topology_manager_policy='best-effort')
    assert result['failed'] and 'config_dir %s does not exist' % (tmp_path / 'nope') in result['msg']
    assert 'refuses to start' in result['msg']
    result = run_action(path=str(path), state_dir=str(state_dir), config_dir=str(path),
                        topology_manager_policy='best-effort')
    assert result['failed'] and 'config_dir %s is not a directory' % path in result['msg']


def test_an_empty_drop_in_directory_changes_nothing_but_the_return_values(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {})
    without = run_action(path=str(path), state_dir=str(state_dir), topology_manager_policy='best-effort',
                         check_mode=True)
    result = run_action(path=str(path), state_dir=str(state_dir), config_dir=str(config_dir),
                        topology_manager_policy='best-effort', check_mode=True)
    extra = {'config_dir', 'drop_in_files', 'drop_in_files_skipped', 'drop_in_overrides', 'effective_config'}
    assert set(result) - set(without) == extra
    assert dict((k, v) for k, v in result.items() if k not in extra) == without
    assert 'config_dir' not in without


def test_a_linked_drop_in_directory_is_not_read_as_the_kubelet_does_not_follow_it(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {
        '90-vendor.conf': HEAD + 'cpuManagerPolicy: none\n'})
    link = tmp_path / 'link.d'
    link.symlink_to(config_dir)
    result = run_action(path=str(path), state_dir=str(state_dir), config_dir=str(link), cpu_manager_policy='static',
                        reserved_system_cpus='0', check_mode=True)
    assert not result.get('failed'), result
    assert result['drop_in_files'] == [] and result['drop_in_overrides'] == []
    assert any('config_dir %s is a symbolic link' % link in warning for warning in result['warnings'])


def test_a_refusal_of_the_merged_configuration_names_the_drop_ins(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {
        '10-site.conf': HEAD + 'topologyManagerPolicy: sometimes\n'})
    before = snapshot(tmp_path)
    result = run_action(path=str(path), state_dir=str(state_dir), config_dir=str(config_dir),
                        cpu_manager_policy='static', reserved_system_cpus='0')
    assert result['failed'] and 'topologyManagerPolicy' in result['msg'] and '"sometimes"' in result['msg']
    assert 'with the drop-ins %s merged over it' % (config_dir / '10-site.conf') in result['msg'], result['msg']
    assert snapshot(tmp_path) == before
