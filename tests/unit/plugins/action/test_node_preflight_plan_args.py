# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_preflight's plan: node_config's options of each concern the checks enable, completed with what the checks
settled (plugins/action/node_preflight.py plan_args)."""
from __future__ import annotations

from ansible_collections.numaops.colocation.plugins.action.node_preflight import plan_args
from ansible_collections.numaops.colocation.tests.unit.unit_stage import this_test

PLAN = {'kubelet': {'state_dir': '/var/lib/kubelet', 'cpu_manager_policy': 'static'},
        'containerd': {'path': '/etc/containerd/config.toml', 'mode': 'inline'},
        'kernel': {'state': 'present', 'grub_defaults_path': '/etc/default/grub'}}


def checks(**settings):
    typed = dict({'kubelet_enabled': True, 'nri_enabled': True}, **settings)
    return {'settings': typed, 'kubelet_config': '/var/lib/kubelet/config.yaml', 'containerd_version': '1.7.24',
            'kernel_args': ['nosmt']}


def test_every_enabled_concern_is_completed_with_what_the_checks_settled():
    assert plan_args(PLAN, checks()) == {
        'kubelet': {'state_dir': '/var/lib/kubelet', 'cpu_manager_policy': 'static',
                    'path': '/var/lib/kubelet/config.yaml'},
        'containerd': {'path': '/etc/containerd/config.toml', 'mode': 'inline', 'state': 'enabled',
                       'containerd_version': '1.7.24'},
        'kernel': {'state': 'present', 'grub_defaults_path': '/etc/default/grub', 'args': ['nosmt']}}


def test_a_concern_the_checks_do_not_enable_is_left_out():
    asked = plan_args(PLAN, dict(checks(kubelet_enabled=False, nri_enabled=None), kernel_args=[]))
    assert asked == {}
    disabled = plan_args(PLAN, dict(checks(nri_enabled=False), containerd_version=''))
    assert disabled['containerd']['state'] == 'disabled' and disabled['containerd']['containerd_version'] is None
    assert 'kernel' not in plan_args(dict(PLAN, kernel=None), checks())


def test_a_performance_profile_gives_the_kubelet_settings_and_its_own_concerns():
    options = {'profile': {'cpu': {'reserved': 'auto'}}, 'topology_root': '/', 'unit_path': '/u.service'}
    plan = dict(PLAN, irqbalance=options, hugepages=options)
    settled = dict(checks(), profile={'kubelet': {'cpu_manager_policy': 'static', 'reserved_system_cpus': '0,4',
                                                  'topology_manager_policy': 'single-numa-node'},
                                      'irqbalance': True, 'hugepages_unit': False})
    asked = plan_args(plan, settled)
    assert asked['kubelet'] == {'state_dir': '/var/lib/kubelet', 'cpu_manager_policy': 'static',
                                'path': '/var/lib/kubelet/config.yaml', 'reserved_system_cpus': '0,4',
                                'topology_manager_policy': 'single-numa-node'}
    # irqbalance planned (isolated CPUs), the unit not (no huge pages on a NUMA node)
    assert asked['irqbalance'] == options and 'hugepages' not in asked
    # no profile: neither
    assert set(plan_args(plan, checks())) == {'kubelet', 'containerd', 'kernel'}


@this_test('runs ansible-playbook with the node of test_node_config_action, which runs in the unit stage')
def test_the_plan_of_a_real_run_writes_nothing_and_keeps_its_read(tmp_path):
    """The plan runs in check mode also where a module of a concern runs on the node (kernel_cmdline): a real run's
    pre-flight task changes no file, reports ok, and keeps its read for the apply."""
    from ansible_collections.numaops.colocation.tests.unit import playbooks
    from ansible_collections.numaops.colocation.tests.unit.plugins.action import test_node_config_action as ncfg
    root = ncfg.node(tmp_path, 'node')
    opts = ncfg.options(root)
    before = ncfg.files(root)
    checks = {'kubelet_enabled': True, 'kubelet_config_path': opts['kubelet']['path'], 'nri_enabled': True,
              'containerd_version': '1.7.24', 'kernel_args': opts['kernel']['args'], 'mem_sampling': 'disabled',
              'lock_enabled': False, 'sysfs_cpu_dir': str(root / 'sys/devices/system/cpu'),
              'sysfs_node_dir': str(root / 'sys/devices/system/node')}
    plan = dict((name, dict((k, v) for k, v in value.items() if k not in ('path', 'args', 'state', 'containerd_version')
                            or name == 'containerd' and k == 'path'))
                for name, value in opts.items())
    read = {'root': str(root), 'kubelet_config_path': opts['kubelet']['path'], 'read_kubelet_config': True,
            'sysfs_cpu_dir': checks['sysfs_cpu_dir'], 'sysfs_node_dir': checks['sysfs_node_dir'],
            'read_files': [str(root / 'var/lib/kubelet/cpu_manager_state'),
                           str(root / 'var/lib/kubelet/memory_manager_state'), opts['containerd']['path']]}
    work = tmp_path / 'work'
    work.mkdir()
    result, = playbooks.run_tasks(work, [{'name': 'pre-flight and plan', 'numaops.colocation.node_preflight': dict(
        read, checks=checks, plan=plan)}])
    assert not result.get('failed'), result
    assert result['checks']['errors'] == []
    assert sorted(result['plan_args']) == ['containerd', 'kernel', 'kubelet']
    assert all(result['plan'][name]['changed'] for name in ('kubelet', 'containerd', 'kernel')), result['plan']
    assert result['changed'] is False and result['plan']['read_token']
    assert ncfg.files(root) == before


def test_the_decision_takes_the_settings_the_task_has_already_from_where_it_has_them():
    from ansible_collections.numaops.colocation.plugins.action.node_preflight import decision_settings
    wanted = {'kubelet_enabled': True, 'nri_enabled': None, 'k8s_enabled': 'yes', 'lock_enabled': True,
              'reboot_allowed': False, 'manage_services': True, 'kubelet_service': 'kubelet', 'node_name': 'n1',
              'sysfs_cpu_dir': '/sys/devices/system/cpu', 'kernel_args': []}
    plan = {'kubelet': {'state_dir': '/var/lib/kubelet'},
            'containerd': {'path': '/etc/containerd/config.toml', 'dropin_path': '/d.toml', 'mode': 'inline'},
            'kernel': {'grub_defaults_path': '/etc/default/grub'}}
    args = {'proc_meminfo_path': '/proc/meminfo', 'lock': {'path': '/l.lock', 'state': 'query'}}
    settings = decision_settings({'drain': True, 'node_name': 'given'}, wanted, plan, args)
    assert settings == {
        'kubelet_enabled': True, 'nri_enabled': None, 'k8s_enabled': 'yes', 'lock_enabled': True,
        'reboot_allowed': False, 'manage_services': True, 'kubelet_service': 'kubelet', 'node_name': 'given',
        'sysfs_cpu_dir': '/sys/devices/system/cpu', 'kubelet_state_dir': '/var/lib/kubelet',
        'containerd_config_path': '/etc/containerd/config.toml', 'containerd_dropin_path': '/d.toml',
        'nri_mode': 'inline', 'grub_defaults_path': '/etc/default/grub', 'proc_meminfo_path': '/proc/meminfo',
        'lock_path': '/l.lock', 'drain': True}


def test_the_kubelet_writes_where_the_checks_settled_main_file_or_the_roles_drop_in():
    target = {'write_to': 'dropin', 'config_dir': '/etc/kubernetes/kubelet.conf.d',
              'drop_in_file': '/etc/kubernetes/kubelet.conf.d/50-site-numa.conf',
              'unit_drop_in': '/etc/systemd/system/kubelet.service.d/90-numaops-config-dir.conf', 'why': ''}
    kubelet = plan_args(PLAN, dict(checks(), kubelet_target=target))['kubelet']
    assert kubelet == {'state_dir': '/var/lib/kubelet', 'cpu_manager_policy': 'static',
                       'path': '/var/lib/kubelet/config.yaml', 'write_to': 'dropin',
                       'config_dir': '/etc/kubernetes/kubelet.conf.d', 'drop_in_name': '50-site-numa.conf',
                       'enable_config_dir': True}
    # the main file, with the kubelet's drop-ins merged over it (no drop-in directory: none)
    target = dict(target, write_to='main', drop_in_file='', unit_drop_in='')
    kubelet = plan_args(PLAN, dict(checks(), kubelet_target=target))['kubelet']
    assert (kubelet['write_to'], kubelet['config_dir']) == ('main', '/etc/kubernetes/kubelet.conf.d')
    assert 'drop_in_name' not in kubelet and 'enable_config_dir' not in kubelet
    assert 'write_to' not in plan_args(PLAN, dict(checks(), kubelet_target={}))['kubelet']
