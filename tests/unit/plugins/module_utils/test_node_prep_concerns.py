# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_prep's concern registry: what each concern declares, and a new concern (the worked example of
docs/developer/concerns.md) carried through the decision, the snapshot, the done lines, the fleet plan, the report,
the summaries and the audit by adding it to a copy of the registry."""
from __future__ import annotations

import copy
import os
import re

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import node_prep_concerns as nc
from ansible_collections.numaops.colocation.plugins.plugin_utils import fleet, node_prep_decision as nd

from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils import node_prep_concern_example as example

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..', '..', '..'))

SETTINGS = {'reboot_allowed': False, 'manage_services': True, 'kubelet_enabled': True, 'kubelet_service': 'kubelet',
            'containerd_service': 'containerd', 'drain': True, 'k8s_enabled': True, 'lock_enabled': True,
            'lock_path': '/var/lib/numaops-colocation/node.lock', 'reservations': 'merge', 'node_name': 'node-1',
            'sysfs_cpu_dir': '/sys/devices/system/cpu', 'proc_meminfo_path': '/proc/meminfo',
            'containerd_config_path': '/etc/containerd/config.toml', 'backup_dir': '/var/backups/numaops-colocation',
            'kubelet_state_dir': '/var/lib/kubelet', 'containerd_dropin_path': '/etc/containerd/conf.d/99-nri.toml',
            'nri_mode': 'inline', 'grub_defaults_path': '/etc/default/grub', 'nri_enabled': True, 'backup': True,
            'k8s_validate_certs': True, 'irqbalance_service': 'irqbalance',
            'kubelet_configz': 'if_reachable', 'root': ''}
NODE = {'online_cpus': {'ids': list(range(8))}, 'meminfo': {'text': 'MemTotal:       16384000 kB\n'},
        'lock': {'outcome': 'absent', 'locked_by_other': False},
        'checks': {'kernel_args': [], 'mem_sampling_wanted': False, 'cgroup_v2_memory': None, 'cgroup_v2_args': [],
                   'cgroup_v2_after_reboot': False, 'kubelet_config': '/var/lib/kubelet/config.yaml', 'notes': [],
                   'errors': []}}
# node_config's plan: only the new concern changes
PLAN = {'changed': True, 'read_token': '',
        'kubelet': {'changed': False, 'config': {}, 'previous': {}, 'changed_fields': []},
        'containerd': {'changed': False}, 'kernel': {'changed': False, 'skipped': True},
        'numa_balancing': {'changed': True, 'value': '0'}}


def test_the_registry_in_the_order_node_config_applies_it():
    assert nc.names() == ['kubelet', 'containerd', 'kernel', 'koordlet', 'irqbalance', 'hugepages']
    assert [c.module for c in nc.REGISTRY] == ['numaops.colocation.kubelet_config', 'numaops.colocation.containerd_nri',
                                               'numaops.colocation.kernel_cmdline', None,
                                               'numaops.colocation.perf_profile', 'numaops.colocation.perf_profile']
    # koordlet's concern is a check: no module, no file, never in node_config's options
    assert nc.names(nc.applying()) == ['kubelet', 'containerd', 'kernel', 'irqbalance', 'hugepages']
    kubelet, containerd, kernel, koordlet, irqbalance, hugepages = nc.REGISTRY
    assert koordlet.check_only and koordlet.files({}, {}) == [] and koordlet.reads({}) == []
    assert (kubelet.before, kubelet.after, kubelet.drains, kubelet.reboots) == ('stop', 'start', True, False)
    assert (containerd.before, containerd.after, containerd.drains) == (None, 'restart', False)
    assert (kernel.after, kernel.reboots, kernel.service_setting) == ('reboot', True, None)
    # the performance profile's own files: one perf_profile call each
    assert (irqbalance.after, irqbalance.drains, irqbalance.service_setting) == ('restart', False, 'irqbalance_service')
    assert (hugepages.after, hugepages.reboots, hugepages.service_setting) == ('reboot', True, None)
    assert (irqbalance.module_args, hugepages.module_args) == ({'write': ['irqbalance']}, {'write': ['hugepages_unit']})
    # every concern's settings are the decision's (node_config's options: test_node_config_action.py)
    assert set(nc.settings_of()) <= set(nd.SETTINGS)


def test_the_pre_flight_reads_the_files_of_the_enabled_concerns():
    settings = dict(SETTINGS, nri_mode='dropin')
    # the kubelet's checkpoints and the node's online CPUs, which its plan checks them against
    assert nc.read_paths(settings) == [
        '/var/lib/kubelet/cpu_manager_state', '/var/lib/kubelet/memory_manager_state', '/sys/devices/system/cpu/online',
        '/etc/containerd/config.toml', '/etc/containerd/conf.d/99-nri.toml']
    assert nc.read_paths(dict(settings, kubelet_enabled=False, nri_enabled=None)) == []


def test_the_files_read_follow_the_options_of_the_concerns():
    # node_config's action reads the same list (tests/unit/plugins/action/test_node_config_action.py)
    options = {'kubelet': {'path': '/k/config.yaml', 'state_dir': '/var/lib/kubelet'},
               'containerd': {'path': '/etc/containerd/config.toml', 'mode': 'dropin',
                              'dropin_path': '/etc/containerd/conf.d/99-nri.toml'},
               'kernel': {'args': ['nosmt']}}
    assert nc.read_paths_of(options) == ['/k/config.yaml'] + nc.read_paths(dict(SETTINGS, nri_mode='dropin'))
    assert nc.read_paths_of({'containerd': dict(options['containerd'], mode='inline')}) == [
        '/etc/containerd/config.toml']


def test_every_concern_declares_every_line():
    for concern in nc.REGISTRY:
        assert concern.title and concern.enabled_by.startswith('node_prep_') and concern.verify
        for function in ('enabled', 'reads', 'files', 'done', 'plan_entry', 'plan_labels', 'report', 'summary_line',
                         'fleet_parts', 'drift_parts'):
            assert callable(getattr(concern, function)), (concern, function)


# ------------------------------------------------------------------ the worked example (docs/developer/concerns.md)
def _decide(registry=example.REGISTRY, **settings):
    return nd.decide(copy.deepcopy(PLAN), copy.deepcopy(NODE),
                     dict(SETTINGS, sysctl_service='systemd-sysctl', **settings), False, 'n1', '20261205T050000Z', 7,
                     concerns=registry)


def test_a_new_concern_needs_its_settings_in_the_decision():
    with pytest.raises(ValueError, match=r"\['sysctl_service'\] missing"):
        nd.decide(PLAN, NODE, SETTINGS, False, 'n1', 's', 1,
                  concerns=example.REGISTRY)
    with pytest.raises(ValueError, match=r"\['sysctl_service'\] unknown"):
        _decide(registry=nc.REGISTRY)


def test_a_new_concern_is_planned_with_the_options_its_variables_give():
    values = {'node_prep_numa_balancing': 0, 'node_prep_sysctl_path': '/etc/sysctl.d/90-numaops.conf'}
    assert nc.plan_options(values, example.REGISTRY)['numa_balancing'] == {
        'value': 0, 'path': '/etc/sysctl.d/90-numaops.conf', 'backup': False}
    assert sorted(nc.role_variables(example.REGISTRY)[-2:]) == ['node_prep_numa_balancing', 'node_prep_sysctl_path']


def test_a_new_concern_goes_through_the_decision_and_the_snapshot():
    d = _decide()
    assert d['numa_balancing_changing'] and d['plan_numa_balancing'] == {'changed': True, 'value': '0'}
    assert d['work_needed'] and d['in_batches'] and d['locked']
    # it does not drain: only the kubelet and a reboot do
    assert not d['drain_wanted']
    assert d['snapshot_paths'] == ['/etc/sysctl.d/90-numaops.conf']
    assert d['plan'] == {'work': True, 'reboot': False, 'removed': [], 'kubelet_changes': {}, 'containerd': False,
                         'kernel': False, 'irqbalance': None, 'hugepages': None, 'numa_balancing': '0'}
    # with node_prep_manage_services=false its service is named as a restart skipped
    assert _decide(manage_services=False)['skipped_restarts'] == ['systemd-sysctl']
    changing = {'numa_balancing': True}
    assert nc.done_lines({'numa_balancing': {'value': '0'}}, changing, d['settings'], example.REGISTRY) == [
        'sysctl /etc/sysctl.d/90-numaops.conf changed (kernel.numa_balancing = 0)']
    # its service step: restarted after the write (before the kubelet's start), and again by a rollback
    assert [(s['concern'], s['unit'], s['runs'], s['task']) for s in d['restarts']] == [
        ('numa_balancing', 'systemd-sysctl', 'systemd', 'Sysctl | Restart')]
    assert [s['concern'] for s in d['services']] == ['containerd', 'irqbalance', 'numa_balancing', 'kubelet']
    step = d['restarts'][0]
    assert nd.applied({'status': {'ActiveState': 'active'}}, d, {'done': []}, example.REGISTRY, service=step) == {
        'done': ['systemd-sysctl restarted (active)']}
    assert step['put_back'] == 'systemd-sysctl restarted'
    assert step['put_back_failed'].replace('{msg}', 'failed') == (
        'systemd-sysctl could NOT be restarted after the rollback: failed - check journalctl -u systemd-sysctl')


def test_a_new_concern_is_in_the_fleet_plan_the_report_and_the_summaries():
    d = _decide()
    assert fleet.fleet_plan({'n1': d['plan'], 'n2': {'work': False}}, example.REGISTRY) == [
        'node_prep plan: 2 node(s): 1 to change, 1 already as wanted, 0 failed the pre-flight',
        '1 node(s) kernel.numa_balancing ->0: n1']
    # the role keeps the decision as one fact, and what the apply did in its run record
    variables = {'node_prep__plan': d, 'node_prep__run': {'apply_numa_balancing': {'changed': True, 'value': '0'}}}
    report = fleet.node_report(variables, example.REGISTRY)
    assert report['numa_balancing'] == {'changed': True, 'value': '0'}
    assert not report['kubelet']['changed'] and not report['containerd']['changed']
    summary = fleet.node_summary('n1', report, variables, example.REGISTRY)
    assert summary[:5] == ['n1: changed', 'kubelet /var/lib/kubelet/config.yaml: ok',
                           'containerd /etc/containerd/config.toml: ok', 'kernel args: none wanted',
                           'numa_balancing: kernel.numa_balancing changed to 0']
    assert fleet.fleet_summary({'n1': report}, ['n1'], concerns=example.REGISTRY)['lines'] == [
        'node_prep summary: 1 node(s): 1 changed, 0 unchanged, 0 failed or not reached', 'n1: changed numa_balancing']
    audit = fleet.audit_summary({'n1': {'node_prep': report}}, {}, ['n1'], example.REGISTRY)
    assert audit['failing'] and audit['lines'][1] == 'n1: DRIFT - numa_balancing'


def test_the_developer_guide_shows_the_example_as_it_is_tested():
    with open(os.path.join(ROOT, 'docs', 'developer', 'concerns.md')) as handle:
        guide = handle.read()
    with open(os.path.join(HERE, 'node_prep_concern_example.py')) as handle:
        code = handle.read()
    assert code in re.findall(r'```python\n(.*?)```', guide, re.S)


def _role_tasks(name):
    import yaml
    with open(os.path.join(ROOT, 'roles', 'node_prep', 'tasks', name)) as handle:
        tasks = list(yaml.safe_load(handle))
    flat = []
    while tasks:
        task = tasks.pop(0)
        flat.append(task)
        tasks[:0] = task.get('block', []) + task.get('rescue', []) + task.get('always', [])
    return flat


def test_one_task_file_runs_every_kind_of_service_step_and_no_other_names_a_service():
    # a new concern with a service needs no task of its own: service.yml runs each way a step can run (RUNS)
    from ansible_collections.numaops.colocation.plugins.module_utils import node_prep_services
    conditions = [str(task.get('when', '')) for task in _role_tasks('service.yml')]
    for runs in node_prep_services.RUNS:
        assert [c for c in conditions if "node_prep__step.runs == '%s'" % runs in c], runs
    # the apply and the rollback restart no service by name: they include service.yml for the plan's steps
    modules = ('numaops.colocation.containerd_nri_verify', 'ansible.builtin.systemd_service')
    for name in ('after_write.yml', 'rollback.yml', 'service_put_back.yml'):
        assert not [task['name'] for task in _role_tasks(name) if any(m in task for m in modules)], name
        assert not re.search(r'irqbalance|containerd', ''.join(
            str(task.get('when', '')) + str(task.get('loop', '')) for task in _role_tasks(name))), name
