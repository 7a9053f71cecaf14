# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_prep's decision after its plan (roles/node_prep/tasks/inspect.yml keeps it as one fact, node_prep__plan)."""
from __future__ import annotations

import copy

import pytest

from ansible_collections.numaops.colocation.plugins.plugin_utils import node_prep_decision as nd

SETTINGS = {'reboot_allowed': False, 'manage_services': True, 'kubelet_enabled': True, 'kubelet_service': 'kubelet',
            'containerd_service': 'containerd', 'drain': True, 'k8s_enabled': True, 'lock_enabled': True,
            'lock_path': '/var/lib/numaops-colocation/node.lock', 'reservations': 'merge', 'node_name': 'node-1',
            'sysfs_cpu_dir': '/sys/devices/system/cpu', 'proc_meminfo_path': '/proc/meminfo',
            'containerd_config_path': '/etc/containerd/config.toml',
            'backup_dir': '/var/backups/numaops-colocation', 'kubelet_state_dir': '/var/lib/kubelet',
            'containerd_dropin_path': '/etc/containerd/conf.d/99-nri.toml', 'nri_mode': 'inline',
            'grub_defaults_path': '/etc/default/grub', 'nri_enabled': True, 'backup': True,
            'k8s_validate_certs': 'yes', 'irqbalance_service': 'irqbalance',
            'kubelet_configz': 'if_reachable', 'root': ''}
CHECKS = {'kernel_args': [], 'mem_sampling_wanted': False, 'cgroup_v2_memory': None, 'cgroup_v2_args': [],
          'cgroup_v2_after_reboot': False, 'kubelet_config': '/var/lib/kubelet/config.yaml', 'notes': ['a note.'],
          'errors': []}
NODE = {'online_cpus': {'ids': list(range(8))}, 'meminfo': {'text': 'MemTotal:       16384000 kB\n'},
        'lock': {'outcome': 'absent', 'locked_by_other': False}, 'checks': CHECKS}
SAME = {'changed': False, 'read_token': 'tok',
        'kubelet': {'changed': False, 'config': {'cpuManagerPolicy': 'static'}, 'previous': {'cpuManagerPolicy': 'static'},
                    'changed_fields': []},
        'containerd': {'changed': False}, 'kernel': {'changed': False, 'skipped': True}}


def decide(result=None, node=None, checking=False, **settings):
    return nd.decide(copy.deepcopy(SAME if result is None else result), copy.deepcopy(NODE if node is None else node),
                     dict(SETTINGS, **settings), checking, 'n1', '20261205T050000Z', 42)


def changing(**kubelet):
    result = copy.deepcopy(SAME)
    result['changed'] = True
    result['kubelet'].update({'changed': True, 'changed_fields': ['cpuManagerPolicy'],
                              'previous': {'cpuManagerPolicy': 'none'}}, **kubelet)
    return result


def test_a_node_with_nothing_to_change():
    d = decide()
    assert d['work_needed'] is False and d['in_batches'] is False and d['locked'] is False
    assert d['run_id'] == '' and d['lock_run_id'] == '' and d['drain_wanted'] is False
    assert d['plan'] == {'work': False, 'kubelet_changes': {}, 'containerd': False, 'kernel': False, 'reboot': False,
                         'removed': [], 'irqbalance': None, 'hugepages': None}
    assert d['notes'] == ['a note.'] and d['plan_errors'] == []
    assert d['read_token'] == 'tok' and d['lock'] == NODE['lock'] and d['lock_file'] == SETTINGS['lock_path']
    assert d['plan_kernel'] == {'changed': False, 'skipped': True}
    assert d['report_settings'] == {'containerd_config_path': '/etc/containerd/config.toml',
                                    'backup_dir': '/var/backups/numaops-colocation', 'reservations': 'merge',
                                    'reboot_allowed': False}


def test_a_real_run_with_a_kubelet_change_drains_locks_and_names_its_backup():
    d = decide(changing())
    assert d['work_needed'] and d['in_batches'] and d['locked'] and d['drain_wanted'] and d['kubelet_changing']
    assert d['run_id'] == '20261205T050000Z' and d['lock_run_id'] == '20261205T050000Z-42'
    assert d['plan']['kubelet_changes'] == {'cpuManagerPolicy': ['none', 'static']}
    assert d['skipped_restarts'] == []


def test_check_mode_decides_the_same_work_but_applies_nothing():
    d = decide(changing(), checking=True)
    assert d['work_needed'] and d['check_mode'] and not d['in_batches'] and not d['locked']
    assert d['run_id'] == '' and not d['drain_wanted']


@pytest.mark.parametrize('allowed, manage, reboot', [(True, True, True), (False, True, False), (True, False, False)])
def test_a_reboot_needs_both_permissions(allowed, manage, reboot):
    result = copy.deepcopy(SAME)
    result['kernel'] = {'changed': False, 'reboot_required': True}
    d = decide(result, reboot_allowed=allowed, manage_services=manage)
    assert d['reboot'] is reboot and d['work_needed'] is reboot and d['plan']['reboot'] is True


def test_unmanaged_services_are_named_and_no_drain_is_a_note():
    result = changing()
    result['containerd'] = {'changed': True}
    d = decide(result, manage_services='false', drain=False, kubelet_service='kubelet.service')
    assert d['skipped_restarts'] == ['kubelet.service', 'containerd']
    assert 'node-1 is NOT drained before the kubelet change: node_prep_drain is false.' in d['notes']
    assert decide(result, drain=False, k8s_enabled=False)['notes'] == ['a note.']


def test_reservations_that_do_not_fit_are_a_plan_error_and_removed_ones_a_note():
    result = changing(config={'cpuManagerPolicy': 'static', 'reservedSystemCPUs': '0-7'},
                      reservations_removed=['systemReserved.memory=1Gi'])
    d = decide(result)
    assert len(d['plan_errors']) == 1 and d['plan_errors'][0].startswith('node_prep: ')
    assert d['plan_errors'][0].endswith('(after merging with /var/lib/kubelet/config.yaml)')
    assert '/sys/devices/system/cpu/online' in d['plan_errors'][0]
    assert 'reservations removed: systemReserved.memory=1Gi (node_prep_reservations=merge)' in d['notes']
    assert d['plan']['removed'] == ['systemReserved.memory=1Gi']
    # without the kubelet concern, nothing is judged
    assert decide(result, kubelet_enabled=False)['plan_errors'] == []


def test_the_lock_is_not_taken_when_disabled_and_missing_concerns_plan_no_change():
    d = decide(changing(), lock_enabled=False)
    assert d['in_batches'] and not d['locked'] and d['lock_run_id'] == ''
    d = decide({'changed': False})
    assert d['plan_kubelet'] == d['plan_containerd'] == d['plan_kernel'] == {'changed': False}


def test_settings_are_checked():
    with pytest.raises(ValueError, match=r"settings \['bogus'\] unknown, \['drain'\] missing"):
        nd.decide(SAME, NODE, dict((k, v) for k, v in dict(SETTINGS, bogus=1).items() if k != 'drain'), False, 'n1',
                  's', 1)


@pytest.mark.parametrize('value, expected', [(True, True), ('True', True), ('yes', True), (1, True), ('1', True),
                                             (False, False), ('false', False), (None, False), ('', False), (0, False)])
def test_flag(value, expected):
    assert nd.truthy(value) is expected


def test_the_snapshot_holds_every_file_of_each_changing_concern():
    assert decide()['snapshot_paths'] == []
    assert decide(changing())['snapshot_paths'] == [
        '/var/lib/kubelet/config.yaml', '/var/lib/kubelet/cpu_manager_state', '/var/lib/kubelet/memory_manager_state']
    result = changing()
    result['containerd'] = {'changed': True}
    result['kernel'] = {'changed': True, 'reboot_required': True, 'grub_cfg_paths': ['/boot/grub/grub.cfg']}
    d = decide(result, nri_mode='dropin')
    assert d['snapshot_paths'] == [
        '/var/lib/kubelet/config.yaml', '/var/lib/kubelet/cpu_manager_state', '/var/lib/kubelet/memory_manager_state',
        '/etc/containerd/config.toml', '/etc/containerd/conf.d/99-nri.toml', '/etc/default/grub',
        '/boot/grub/grub.cfg']
    assert d['containerd_changing'] and d['kernel_changing'] and d['plan']['containerd'] and d['plan']['kernel']


def test_the_done_lines_name_what_the_apply_changed():
    from ansible_collections.numaops.colocation.plugins.module_utils import node_prep_concerns as nc
    node = copy.deepcopy(NODE)
    node['checks']['kernel_args'] = ['numa_icon=enable']
    d = decide(changing(), node=node)
    applied = {'kubelet': {'changed': True, 'changed_fields': ['cpuManagerPolicy'],
                           'state_files_removed': ['/var/lib/kubelet/cpu_manager_state']},
               'containerd': {'changed': True}, 'kernel': {'changed': True}}
    every = dict((name, True) for name in ('kubelet', 'containerd', 'kernel'))
    assert nc.done_lines(applied, every, d['settings']) == [
        'kubelet config /var/lib/kubelet/config.yaml changed (cpuManagerPolicy), removed '
        '/var/lib/kubelet/cpu_manager_state',
        'containerd config /etc/containerd/config.toml changed (NRI)',
        'boot configuration changed (numa_icon=enable)']
    assert nc.done_lines(applied, {'containerd': True}, d['settings']) == [
        'containerd config /etc/containerd/config.toml changed (NRI)']


def test_the_plan_carries_the_settings_typed():
    settings = decide(manage_services='no', k8s_validate_certs='yes', nri_enabled=None)['settings']
    assert settings['manage_services'] is False and settings['k8s_validate_certs'] is True
    assert settings['backup'] is True and settings['nri_enabled'] is None
    assert decide(nri_enabled='false')['settings']['nri_enabled'] is False
    assert settings['kubelet_config'] == '/var/lib/kubelet/config.yaml' and settings['kernel_args'] == []


def test_the_backup_goes_into_the_write_when_nothing_runs_on_the_node_before_it():
    # a kubelet change: drained and the kubelet stopped first, so the backup is a task of its own
    assert decide(changing())['snapshot_with_config'] is False
    assert decide(changing(), drain=False)['snapshot_with_config'] is False
    # nothing stopped (services not managed) and no drain: node_config's own call takes the backup
    assert decide(changing(), drain=False, manage_services=False)['snapshot_with_config'] is True
    result = copy.deepcopy(SAME)
    result['containerd'] = {'changed': True}
    assert decide(result)['snapshot_with_config'] is True
    assert decide()['snapshot_with_config'] is False


def test_the_run_record_after_the_apply():
    d = decide(changing())
    result = {'kubelet': {'changed': True, 'changed_fields': ['cpuManagerPolicy']}, 'containerd': {'changed': False}}
    run = nd.applied(result, d, {'done': ['node node-1 cordoned and drained'], 'rebooted': False})
    assert run == {'apply_kubelet': {'changed': True, 'changed_fields': ['cpuManagerPolicy']}, 'apply_containerd': {},
                   'apply_kernel': {}, 'apply_irqbalance': {}, 'apply_hugepages': {}, 'rebooted': False,
                   'done': ['node node-1 cordoned and drained',
                            'kubelet config /var/lib/kubelet/config.yaml changed (cpuManagerPolicy)']}


def test_the_apply_writes_each_changing_concern_with_the_options_the_plan_ran_with():
    node = dict(copy.deepcopy(NODE), plan_args={'kubelet': {'path': '/var/lib/kubelet/config.yaml', 'backup': False},
                                                'containerd': {'path': '/etc/containerd/config.toml'}})
    d = decide(changing(), node=node)
    assert d['config_changing'] is True
    assert d['apply_args'] == {'kubelet': {'path': '/var/lib/kubelet/config.yaml', 'backup': True},
                               'containerd': None, 'kernel': None, 'irqbalance': None, 'hugepages': None}
    assert decide(changing(), node=node, backup='no')['apply_args']['kubelet']['backup'] is False
    nothing = decide(node=node)
    assert nothing['config_changing'] is False
    assert nothing['apply_args'] == {'kubelet': None, 'containerd': None, 'kernel': None, 'irqbalance': None,
                                     'hugepages': None}
    # a module without a backup option (perf_profile) gets none
    node['plan_args']['irqbalance'] = {'profile': {'cpu': {'reserved': 'auto'}}}
    result = changing()
    result['irqbalance'] = {'changed': True, 'irqbalance': {'path': '/etc/default/irqbalance', 'changed': True}}
    assert decide(result, node=node)['apply_args']['irqbalance'] == {'profile': {'cpu': {'reserved': 'auto'}}}


def test_the_service_steps_in_the_order_the_apply_takes_them():
    result = copy.deepcopy(SAME)
    result['changed'] = True
    result['containerd'] = {'changed': True}
    d = decide(result, irqbalance_service='irqbalance.service')
    assert [(s['concern'], s['unit'], s['runs'], s['after']) for s in d['services']] == [
        ('containerd', 'containerd', 'containerd_nri_verify', 'restart'),
        ('irqbalance', 'irqbalance.service', 'systemd', 'restart'),
        ('kubelet', 'kubelet', 'kubelet', 'start')]
    # the apply restarts the services of the concerns that change (the kubelet's start comes after the reboot)
    assert [s['concern'] for s in d['restarts']] == ['containerd']
    assert d['restarts'][0]['task'] == 'Containerd | Restart and verify NRI'
    # none without node_prep_manage_services, none in check mode
    assert decide(result, manage_services=False)['restarts'] == []
    assert decide(result, checking=True)['restarts'] == []
    irqbalance = d['services'][1]
    assert irqbalance['put_back'] == 'irqbalance.service restarted'
    assert irqbalance['put_back_failed'] == (
        'irqbalance.service could NOT be restarted after the rollback: {msg} - check journalctl -u irqbalance.service')
    assert d['services'][0]['put_back'] == 'containerd restarted and answering'
    assert d['services'][2]['put_back_failed'] == (
        'the kubelet is NOT healthy after the rollback: {msg} — check journalctl -u kubelet')


@pytest.mark.parametrize('concern, result, line', [
    ('containerd', {'nri_ready': True, 'nri_socket': '/var/run/nri/nri.sock'},
     'containerd restarted, NRI socket /var/run/nri/nri.sock up'),
    ('containerd', {'nri_ready': False}, 'containerd restarted'),
    ('irqbalance', {'status': {'ActiveState': 'inactive'}}, 'irqbalance restarted (inactive)'),
    ('irqbalance', {}, 'irqbalance restarted (state unknown)'),
])
def test_the_run_record_after_a_service_step(concern, result, line):
    d = decide()
    step = [s for s in d['services'] if s['concern'] == concern][0]
    run = nd.applied(result, d, {'done': ['before'], 'restarted': [concern]}, service=step)
    assert run == {'done': ['before', line], 'restarted': [concern]}
