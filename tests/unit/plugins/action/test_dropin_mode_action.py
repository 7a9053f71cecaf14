# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kubelet_config with write_to: dropin (its own drop-in file in the kubelet's --config-dir) and enable_config_dir
(--config-dir added through a kubelet unit drop-in), end to end: the directories are listed by ansible.builtin.find
and the files read and written by the real node_files module, both run in-process."""
from __future__ import annotations

import os

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet
from ansible_collections.numaops.colocation.plugins.modules import numa_facts
from ansible_collections.numaops.colocation.tests.unit.plugins.action import test_dropin_action
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_trees import tree
from ansible_collections.numaops.colocation.tests.unit.plugins.action.test_dropin_action import (  # noqa: F401 pylint: disable=unused-import
    HEAD, node, run_action, snapshot)

OURS = '90-numaops-colocation.conf'
KUBEADM_UNIT = '[Unit]\nDescription=kubelet\n[Service]\nExecStart=/usr/bin/kubelet\nRestart=always\n'
KUBEADM_DROPIN = (
    '[Service]\n'
    'Environment="KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf '
    '--kubeconfig=/etc/kubernetes/kubelet.conf"\n'
    'Environment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"\n'
    'EnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env\n'
    'EnvironmentFile=-/etc/default/kubelet\n'
    'ExecStart=\n'
    'ExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS '
    '$KUBELET_EXTRA_ARGS\n')
STATIC = dict(cpu_manager_policy='static', reserved_system_cpus='0-1', topology_manager_policy='single-numa-node')


def args_for(path, state_dir, config_dir, **extra):
    return dict(dict(path=str(path), state_dir=str(state_dir), config_dir=str(config_dir), write_to='dropin'),
                **extra)


def keys_of(result):
    return dict((k, result[k]) for k in ('changed', 'restart_required', 'changed_fields', 'state_files_removed',
                                         'effective_config', 'drop_in_removed'))


def test_a_new_drop_in_holds_the_managed_keys_and_the_main_file_stays(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\nsystemReserved:\n  cpu: 500m\n', {
        '10-site.conf': HEAD + 'maxPods: 50\n'})
    main_before = path.read_bytes()
    args = args_for(path, state_dir, config_dir, system_reserved={'memory': '1Gi'}, **STATIC)
    checked = run_action(check_mode=True, diff=True, **args)
    assert not checked.get('failed'), checked
    assert not (config_dir / OURS).exists() and (state_dir / 'cpu_manager_state').exists()
    assert [d['after_header'] for d in checked['diff']] == [str(config_dir / OURS),
                                                            str(state_dir / 'cpu_manager_state') + ' (removed: '
                                                            + checked['state_files_removed_reasons'][
                                                                str(state_dir / 'cpu_manager_state')] + ')']
    assert checked['diff'][0]['before_header'] == str(config_dir / OURS) + ' (absent)'
    assert 'would create' in checked['msg']
    result = run_action(**args)
    assert keys_of(result) == keys_of(checked)
    assert result['changed'] and result['restart_required']
    assert path.read_bytes() == main_before
    assert (config_dir / OURS).read_text() == checked['diff'][0]['after'] == (
        HEAD + 'cpuManagerPolicy: static\nreservedSystemCPUs: 0-1\nsystemReserved:\n  memory: 1Gi\n  cpu: null\n'
        'topologyManagerPolicy: single-numa-node\n')
    assert oct((config_dir / OURS).stat().st_mode & 0o777) == '0o644'
    assert result['effective_config'] == {'cpuManagerPolicy': 'static', 'reservedSystemCPUs': '0-1',
                                          'systemReserved': {'memory': '1Gi'},
                                          'topologyManagerPolicy': 'single-numa-node'}
    assert result['reservations_removed'] == ['systemReserved.cpu=500m']
    assert result['drop_in_file'] == str(config_dir / OURS)
    assert result['drop_in_files'] == [str(config_dir / '10-site.conf'), str(config_dir / OURS)]
    assert not (state_dir / 'cpu_manager_state').exists()
    again = run_action(check_mode=True, **args)
    assert not again['changed'] and not again['restart_required'] and 'already as requested' in again['msg']
    again = run_action(**args)
    assert not again['changed'] and not again['restart_required']


def test_drop_in_mode_gives_the_effective_configuration_of_main_file_mode(tmp_path, run_action):
    main = 'cpuManagerPolicy: none\nfeatureGates:\n  Foo: true\nkubeReserved:\n  cpu: 500m\n  memory: 1Gi\n'
    ask = dict(STATIC, feature_gates={'CPUManagerPolicyAlphaOptions': True, 'Foo': None},
               kube_reserved={'cpu': '1'}, reservations='merge')
    one = tmp_path / 'main'
    two = tmp_path / 'dropin'
    one.mkdir()
    two.mkdir()
    path1, state1, dir1 = node(one, main, {'10-site.conf': HEAD + 'systemReserved:\n  memory: 1Gi\n'})
    path2, state2, dir2 = node(two, main, {'10-site.conf': HEAD + 'systemReserved:\n  memory: 1Gi\n'})
    in_main = run_action(path=str(path1), state_dir=str(state1), config_dir=str(dir1), **ask)
    in_dropin = run_action(**args_for(path2, state2, dir2, **ask))
    assert not in_main.get('failed') and not in_dropin.get('failed'), (in_main, in_dropin)
    assert in_main['effective_config'] == in_dropin['effective_config']
    assert in_main['state_files_removed'] == [str(state1 / 'cpu_manager_state')]
    assert in_dropin['state_files_removed'] == [str(state2 / 'cpu_manager_state')]
    # a new drop-in gets the keys in the order of the module's table
    assert (dir2 / OURS).read_text() == HEAD + (
        'cpuManagerPolicy: static\nreservedSystemCPUs: 0-1\nkubeReserved:\n  cpu: "1"\n'
        'topologyManagerPolicy: single-numa-node\nfeatureGates:\n  CPUManagerPolicyAlphaOptions: true\n  Foo: null\n')
    assert in_dropin['effective_config']['kubeReserved'] == {'cpu': '1', 'memory': '1Gi'}
    assert in_dropin['effective_config']['featureGates'] == {'CPUManagerPolicyAlphaOptions': True}


def test_an_update_rewrites_only_the_changed_keys_of_the_drop_in(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {
        OURS: HEAD + '# ours\ncpuManagerPolicy: static   # pinned\nreservedSystemCPUs: "0-1"\nmaxPods: 90\n'})
    result = run_action(diff=True, **args_for(path, state_dir, config_dir, topology_manager_policy='best-effort',
                                              cpu_manager_policy='static'))
    assert result['changed'] and result['changed_fields'] == ['topologyManagerPolicy']
    assert (config_dir / OURS).read_text() == HEAD + (
        '# ours\ncpuManagerPolicy: static   # pinned\nreservedSystemCPUs: "0-1"\nmaxPods: 90\n'
        'topologyManagerPolicy: best-effort\n')
    # the drop-in had the static policy already and the checkpoint records none: stale before this run, it goes
    assert result['state_files_removed'] == [str(state_dir / 'cpu_manager_state')]
    assert 'changed topologyManagerPolicy' in result['msg']


def test_a_key_removed_from_the_drop_in_is_reported_with_what_the_kubelet_runs_then(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'topologyManagerPolicy: best-effort\n', {
        OURS: HEAD + 'topologyManagerPolicy: single-numa-node\ntopologyManagerScope: pod\n'})
    args = args_for(path, state_dir, config_dir, topology_manager_policy='', topology_manager_scope='')
    checked = run_action(check_mode=True, **args)
    result = run_action(**args)
    assert keys_of(checked) == keys_of(result)
    # the main file sets the policy: null removes it (the kubelet default); the scope is set nowhere else: it goes
    assert (config_dir / OURS).read_text() == HEAD + 'topologyManagerPolicy: null\n'
    assert result['effective_config'] == {}
    assert result['drop_in_removed'] == [
        {'key': 'topologyManagerPolicy', 'value': 'single-numa-node', 'effective': None,
         'from': str(config_dir / OURS)},
        {'key': 'topologyManagerScope', 'value': 'pod', 'effective': None, 'from': 'the kubelet default'}]
    assert 'would remove topologyManagerScope=pod from %s: the kubelet would then run with its default' % (
        config_dir / OURS) in checked['msg']
    assert 'removed topologyManagerScope=pod' in result['msg']
    again = run_action(**args)
    assert not again['changed']


def test_a_later_drop_in_that_overrides_ours_is_refused_naming_it(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {
        '95-vendor.conf': HEAD + 'cpuManagerPolicy: none\n', '05-early.conf': HEAD + 'cpuManagerPolicy: none\n'})
    before = snapshot(tmp_path)
    for check_mode in (True, False):
        result = run_action(check_mode=check_mode, **args_for(path, state_dir, config_dir, **STATIC))
        assert result['failed'], result
        assert str(config_dir / '95-vendor.conf') + ' sets cpuManagerPolicy to "none"' in result['msg']
        assert '05-early' not in result['msg'] and 'nothing was changed' in result['msg']
    assert snapshot(tmp_path) == before
    # a name that sorts after it wins
    result = run_action(**args_for(path, state_dir, config_dir, drop_in_name='99-numaops.conf', **STATIC))
    assert not result.get('failed') and result['effective_config']['cpuManagerPolicy'] == 'static', result


def test_kubelet_131_cannot_remove_from_a_drop_in_what_the_main_file_sets(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'systemReserved:\n  cpu: 500m\n', {})
    before = snapshot(tmp_path)
    result = run_action(**args_for(path, state_dir, config_dir, system_reserved={'memory': '1Gi'},
                                   kubelet_version='1.31'))
    assert result['failed'] and 'systemReserved.cpu to "500m", and kubelet 1.31 does not let a drop-in remove' in (
        result['msg']), result['msg']
    assert snapshot(tmp_path) == before
    result = run_action(**args_for(path, state_dir, config_dir, system_reserved={'memory': '1Gi'},
                                   kubelet_version='1.32'))
    assert not result.get('failed') and result['effective_config'] == {'systemReserved': {'memory': '1Gi'}}


def test_our_drop_in_as_a_link_is_written_through_and_stays_a_link(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {})
    elsewhere = tmp_path / 'managed' / 'kubelet-dropin.conf'
    elsewhere.parent.mkdir()
    elsewhere.write_text(HEAD + 'topologyManagerScope: pod\n')
    elsewhere.chmod(0o600)
    (config_dir / OURS).symlink_to(elsewhere)
    result = run_action(**args_for(path, state_dir, config_dir, topology_manager_policy='best-effort'))
    assert result['changed'], result
    assert os.path.islink(str(config_dir / OURS)) and os.readlink(str(config_dir / OURS)) == str(elsewhere)
    assert elsewhere.read_text() == HEAD + 'topologyManagerPolicy: best-effort\ntopologyManagerScope: pod\n'
    assert oct(elsewhere.stat().st_mode & 0o777) == '0o600'


def test_a_drop_in_in_another_encoding_is_refused_naming_it(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {})
    (config_dir / '10-site.conf').write_bytes(HEAD.encode() + b'# r\xe9serv\xe9\nmaxPods: 50\n')
    before = snapshot(tmp_path)
    for check_mode in (True, False):
        result = run_action(check_mode=check_mode, **args_for(path, state_dir, config_dir, **STATIC))
        assert result['failed'] and str(config_dir / '10-site.conf') + ' line 3, column 4: byte 0xe9 is not UTF-8' in (
            result['msg']), result['msg']
    assert snapshot(tmp_path) == before


def test_bad_requests_are_refused_before_anything_is_read(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {})
    for extra, fragment in (
            (dict(config_dir=None), 'write_to: dropin needs config_dir'),
            (dict(drop_in_name='site.yaml'), 'drop_in_name "site.yaml" does not end in .conf'),
            (dict(drop_in_name='../x.conf'), 'is not a file name'),
            (dict(create=True), 'create: true cannot be combined with write_to: dropin'),
            (dict(enable_config_dir=True), 'enable_config_dir needs kubelet_version'),
            (dict(enable_config_dir=True, kubelet_version='1.29'), 'kubelet 1.29 has no drop-in directory'),
            (dict(enable_config_dir=True, write_to='main', kubelet_version='1.31'),
             'enable_config_dir needs write_to: dropin')):
        args = dict(args_for(path, state_dir, config_dir, **STATIC), **extra)
        args = dict((k, v) for k, v in args.items() if v is not None)
        result = run_action(**args)
        assert result['failed'] and fragment in result['msg'], (extra, result['msg'])


def unit_tree(tmp_path, dropin_text=KUBEADM_DROPIN, env=''):
    etc = tmp_path / 'etc-systemd'
    lib = tmp_path / 'lib-systemd'
    (lib / 'kubelet.service.d').mkdir(parents=True)
    etc.mkdir()
    (lib / 'kubelet.service').write_text(KUBEADM_UNIT)
    (lib / 'kubelet.service.d' / '10-kubeadm.conf').write_text(dropin_text)
    return etc, lib


def test_enable_config_dir_adds_the_flag_through_a_unit_drop_in(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {})
    config_dir.rmdir()
    etc, lib = unit_tree(tmp_path)
    kubeadm_before = (lib / 'kubelet.service.d' / '10-kubeadm.conf').read_bytes()
    args = args_for(path, state_dir, config_dir, enable_config_dir=True, kubelet_version='1.31',
                    kubelet_unit_dirs=[str(etc), str(lib)], **STATIC)
    checked = run_action(check_mode=True, diff=True, **args)
    assert not checked.get('failed'), checked
    ours_unit = etc / 'kubelet.service.d' / '90-numaops-config-dir.conf'
    assert [d['before_header'] for d in checked['diff']][:2] == [str(config_dir / OURS) + ' (absent)',
                                                                 str(ours_unit) + ' (absent)']
    assert not config_dir.exists() and not ours_unit.exists()
    result = run_action(**args)
    assert result['changed'] and result['restart_required'] and result['daemon_reload_required']
    assert result['unit_drop_in'] == str(ours_unit)
    text = ours_unit.read_text()
    assert text.endswith('[Service]\nExecStart=\nExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS '
                         '$KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS --config-dir=%s\n' % config_dir)
    assert (lib / 'kubelet.service.d' / '10-kubeadm.conf').read_bytes() == kubeadm_before
    assert (config_dir / OURS).exists()
    assert 'run systemctl daemon-reload and restart the kubelet' in result['msg']
    again = run_action(**args)
    assert not again['changed'] and not again['daemon_reload_required'] and not again['restart_required'], again


def test_enable_config_dir_follows_a_changed_kubelet_command(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {})
    etc, lib = unit_tree(tmp_path)
    args = args_for(path, state_dir, config_dir, enable_config_dir=True, kubelet_version='1.37',
                    kubelet_unit_dirs=[str(etc), str(lib)], **STATIC)
    assert run_action(**args)['changed']
    (lib / 'kubelet.service.d' / '10-kubeadm.conf').write_text(KUBEADM_DROPIN.replace('/usr/bin/kubelet ',
                                                                                      '/usr/local/bin/kubelet '))
    result = run_action(**args)
    assert result['changed'] and result['daemon_reload_required']
    assert 'ExecStart=/usr/local/bin/kubelet $KUBELET_KUBECONFIG_ARGS' in (
        etc / 'kubelet.service.d' / '90-numaops-config-dir.conf').read_text()
    # the drop-in itself did not change and the kubelet runs with it already: the restart is for the unit
    assert result['changed_fields'] == []


def test_enable_config_dir_keeps_a_flag_the_kubelet_has_and_refuses_another_one(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {})
    etc, lib = unit_tree(tmp_path)
    (tmp_path / 'kubeadm-flags.env').write_text('KUBELET_KUBEADM_ARGS="--config-dir=%s"\n' % config_dir)
    text = KUBEADM_DROPIN.replace('/var/lib/kubelet/kubeadm-flags.env', str(tmp_path / 'kubeadm-flags.env'))
    (lib / 'kubelet.service.d' / '10-kubeadm.conf').write_text(text)
    args = args_for(path, state_dir, config_dir, enable_config_dir=True, kubelet_version='1.31',
                    kubelet_unit_dirs=[str(etc), str(lib)], **STATIC)
    result = run_action(**args)
    assert result['changed'] and not result['daemon_reload_required'], result
    assert not (etc / 'kubelet.service.d').exists()
    (tmp_path / 'kubeadm-flags.env').write_text('KUBELET_KUBEADM_ARGS="--config-dir=/etc/other.d"\n')
    before = snapshot(tmp_path)
    result = run_action(**args)
    assert result['failed'] and 'the kubelet is started with --config-dir=/etc/other.d' in result['msg'], result
    assert snapshot(tmp_path) == before


def test_enable_config_dir_refuses_when_a_later_unit_drop_in_takes_the_command_back(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {})
    etc, lib = unit_tree(tmp_path)
    (lib / 'kubelet.service.d' / '95-local.conf').write_text('[Service]\nExecStart=\nExecStart=/usr/bin/kubelet\n')
    before = snapshot(tmp_path)
    result = run_action(**args_for(path, state_dir, config_dir, enable_config_dir=True, kubelet_version='1.31',
                                   kubelet_unit_dirs=[str(etc), str(lib)], **STATIC))
    assert result['failed'] and str(lib / 'kubelet.service.d' / '95-local.conf') in result['msg'], result
    assert 'config_dir_unit_drop_in a name that sorts after 95-local.conf' in result['msg']
    assert snapshot(tmp_path) == before
    result = run_action(**args_for(path, state_dir, config_dir, enable_config_dir=True, kubelet_version='1.31',
                                   kubelet_unit_dirs=[str(tmp_path / 'none')], **STATIC))
    assert result['failed'] and 'no kubelet.service with an ExecStart= was found' in result['msg'], result


def test_a_linked_drop_in_directory_is_refused_as_the_kubelet_would_not_read_our_drop_in(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {})
    link = tmp_path / 'link.d'
    link.symlink_to(config_dir)
    before = snapshot(tmp_path)
    result = run_action(**args_for(path, state_dir, link, **STATIC))
    assert result['failed'] and 'config_dir %s is a symbolic link' % link in result['msg'], result
    assert 'a drop-in written there would have no effect' in result['msg']
    assert snapshot(tmp_path) == before


def test_a_json_main_file_is_read_and_left_as_it_is(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, '', {})
    path.write_text('{"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration", '
                    '"cpuManagerPolicy": "none"}\n')
    before = path.read_bytes()
    result = run_action(**args_for(path, state_dir, config_dir, **STATIC))
    assert result['changed'] and result['effective_config']['cpuManagerPolicy'] == 'static', result
    assert path.read_bytes() == before


def test_auto_reserved_memory_is_derived_from_the_merged_configuration(tmp_path, run_action, monkeypatch):
    monkeypatch.setitem(test_dropin_action.MODULES, 'numaops.colocation.numa_facts', numa_facts)
    path, state_dir, config_dir = node(tmp_path, 'evictionHard:\n  memory.available: 200Mi\n', {
        '10-site.conf': HEAD + 'systemReserved:\n  memory: 1Gi\n'})
    args = args_for(path, state_dir, config_dir, memory_manager_policy='Static', kube_reserved={'memory': '512Mi'},
                    reserved_memory='auto', topology_root=tree('xeon8358-2s'))
    result = run_action(**args)
    assert not result.get('failed'), result
    # 512Mi kubeReserved (ours) + 1Gi systemReserved (the site's drop-in) + 200Mi hard eviction (the main file)
    assert result['derived']['reserved_memory']['value'] == [{'numaNode': 0, 'limits': {'memory': '1736Mi'}}]
    assert result['effective_config']['reservedMemory'] == [{'numaNode': 0, 'limits': {'memory': '1736Mi'}}]
    assert 'reservedMemory:\n- numaNode: 0\n  limits:\n    memory: 1736Mi\n' in (config_dir / OURS).read_text()
    assert not run_action(**args)['changed']


def test_a_node_moved_from_main_file_mode_needs_no_restart(tmp_path, run_action):
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: none\n', {})
    assert run_action(path=str(path), state_dir=str(state_dir), **STATIC)['changed']
    main_before = path.read_bytes()
    result = run_action(**args_for(path, state_dir, config_dir, **STATIC))
    assert result['changed'] and not result['restart_required'] and result['state_files_removed'] == [], result
    assert path.read_bytes() == main_before and (config_dir / OURS).exists()
    # back to main-file mode with config_dir: the module's drop-in now decides, and says so
    back = run_action(path=str(path), state_dir=str(state_dir), config_dir=str(config_dir),
                      cpu_manager_policy='none', reserved_system_cpus='')
    assert back['failed'] and str(config_dir / OURS) + ' sets cpuManagerPolicy to "static"' in back['msg'], back


def test_a_static_checkpoint_the_kubelet_would_refuse_is_removed_in_drop_in_mode(tmp_path, run_action):
    # CPU 1 is in no set of the checkpoint (a kubelet stopped between the two writes of a container's removal)
    path, state_dir, config_dir = node(tmp_path, 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n', {})
    state = state_dir / 'cpu_manager_state'
    state.write_text(kubelet.checkpoint_text('cpu', {'policyName': 'static', 'defaultCpuSet': '0', 'entries': {}}))
    online = tmp_path / 'node/sys/devices/system/cpu/online'
    online.parent.mkdir(parents=True)
    online.write_text('0-1\n')
    args = args_for(path, state_dir, config_dir, topology_manager_policy='single-numa-node',
                    topology_root=str(tmp_path / 'node'))
    checked = run_action(check_mode=True, **args)
    assert not checked.get('failed'), checked
    assert checked['state_files_removed'] == [str(state)] and state.exists()
    assert checked['state_files_removed_reasons'][str(state)].startswith(
        'it records CPUs 0 (default set 0) but the node has CPUs 0-1')
    result = run_action(**args)
    assert keys_of(result) == keys_of(checked) and not state.exists()
    assert run_action(**args)['changed'] is False
