# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fleet bookkeeping: unknown variables, survey answers, batches, plan and summaries."""
from __future__ import annotations

import json

import pytest

from ansible_collections.numaops.colocation.plugins.plugin_utils import fleet

KNOWN = ['node_prep_cpu_manager_policy', 'node_prep_topology_manager_policy', 'memory_qos_enabled']


def test_unknown_variables_with_did_you_mean():
    names = ['node_prep_cpu_manager_polcy', 'node_prep__check_mode', 'node_prep_cpu_manager_policy',
             'ansible_host', 'colocation_whatever', 'memory_qos_role__x', 42]
    assert fleet.unknown_variables(names, KNOWN) == [('colocation_whatever', ''),
                                                     ('node_prep_cpu_manager_polcy', 'node_prep_cpu_manager_policy')]
    assert fleet.describe_unknown([('node_prep_x', 'node_prep_y')], 'host n1') == [
        'host n1: node_prep_x is not a variable of numaops.colocation (did you mean node_prep_y?)']


def test_internal_names():
    assert fleet.is_internal('node_prep__plan') and fleet.is_internal('colocation_controller__x')
    assert not fleet.is_internal('node_prep_plan')


def test_blank_survey_answers_are_not_answers():
    answers, errors = fleet.survey_answers({
        'node_prep_survey_reserved_system_cpus': '', 'node_prep_survey_cpu_manager_policy': '  ',
        'node_prep_survey_topology_manager_policy': 'single-numa-node', 'node_prep_survey_drain': 'false',
        'node_prep_survey_nri_enabled': None, 'node_prep_survey_reboot_allowed': True})
    assert errors == []
    assert answers == {'node_prep_topology_manager_policy': 'single-numa-node', 'node_prep_drain': False,
                       'node_prep_reboot_allowed': True}
    assert fleet.survey_answers({'memory_qos_survey_source': 'annotations', 'memory_qos_survey_hierarchy': '',
                                 'node_prep_survey_max_unavailable': '3'}) == (
        {'memory_qos_source': 'annotations'}, [])
    assert fleet.survey_answers({'node_prep_survey_drain': 'maybe'})[1] == [
        "node_prep_survey_drain='maybe' is not true or false"]


@pytest.mark.parametrize('serial, hosts, size', [(1, 10, 1), ('3', 10, 3), ('10%', 40, 4), ('10%', 5, 1),
                                                 ('', 7, 7), (None, 7, 7), ('0', 3, 3)])
def test_batch_size(serial, hosts, size):
    assert fleet.batch_size(serial, hosts) == size


def test_batch_hosts_are_the_whole_batch_also_after_some_failed():
    hosts = ['n%d' % i for i in range(10)]
    assert fleet.batch_hosts(hosts, ['n4'], 3) == ['n3', 'n4', 'n5']
    assert fleet.batch_hosts(hosts, ['n5', 'n4'], 3) == ['n3', 'n4', 'n5']
    assert fleet.batch_hosts(hosts, ['n9'], 3) == ['n9']
    assert fleet.batch_hosts(hosts, ['n7'], '20%') == ['n6', 'n7']
    assert fleet.batch_hosts(hosts, ['n0'], 1) == ['n0']


def test_batch_position():
    hosts = ['n%d' % i for i in range(10)]
    assert fleet.batch_position(hosts, ['n0', 'n1', 'n2'], 3) == (1, 4)
    assert fleet.batch_position(hosts, ['n9'], 3) == (4, 4)
    assert fleet.batch_position(hosts, ['n4'], 1) == (5, 10)


def test_fleet_plan_groups_nodes():
    plans = {
        'a': {'work': True, 'kubelet_changes': {'cpuManagerPolicy': ['none', 'static']}, 'reboot': True},
        'b': {'work': True, 'kubelet_changes': {'cpuManagerPolicy': [None, 'static']}, 'containerd': True,
              'removed': ['systemReserved.memory=2Gi']},
        'c': {'work': False},
        'd': {'failed': 'cannot reserve'},
    }
    assert fleet.fleet_plan(plans) == [
        'node_prep plan: 4 node(s): 2 to change, 1 already as wanted, 1 failed the pre-flight',
        '1 node(s) REMOVES systemReserved.memory=2Gi: b',
        '1 node(s) containerd NRI: b',
        '1 node(s) kubelet cpuManagerPolicy none->static: a',
        '1 node(s) kubelet cpuManagerPolicy unset->static: b',
        '1 node(s) need a reboot: a',
        'd: PRE-FLIGHT FAILED - cannot reserve',
    ]


def test_fleet_summary():
    reports = {'a': {'drift': True, 'kubelet': {'changed_fields': ['cpuManagerPolicy'],
                                                'reservations_removed': ['kubeReserved.memory=1Gi']},
                     'kernel': {'reboot_required': True}},
               'b': {'drift': False}}
    summary = fleet.fleet_summary(reports, ['a', 'b', 'c'])
    assert summary['lines'] == [
        'node_prep summary: 3 node(s): 1 changed, 1 unchanged, 1 failed or not reached',
        'a: changed kubelet cpuManagerPolicy; REMOVED kubeReserved.memory=1Gi',
        '1 node(s) need a reboot: a',
        'failed or not reached: c']
    assert summary['data']['failed'] == ['c'] and summary['data']['changed'] == ['a']
    assert fleet.markdown_summary(summary).startswith('# node_prep\n\n- node_prep summary: 3 node(s)')


def test_audit_summary_fails_on_drift_in_any_area_or_unaudited_node():
    nodes = {'a': {'node_prep': {'kubelet': {'changed_fields': ['cpuManagerPolicy']}}},
             'b': {'node_prep': {'kubelet': {}}},
             'c': {'node_prep': None, 'node_prep_error': 'no cgroup v2'},
             'd': {'node_prep': {'containerd': {'changed': True}}}}
    qos = {'drift': {'b': [{'pod': 'x'}]}, 'not_reported': ['c']}
    result = fleet.audit_summary(nodes, qos, ['a', 'b', 'c', 'd', 'e'])
    assert result['failing']
    assert result['lines'] == [
        'audit: 5 node(s): 0 in sync, 3 with drift, 2 not (fully) audited',
        'a: DRIFT - kubelet cpuManagerPolicy',
        'b: DRIFT - memory QoS 1 cgroup(s)',
        'c: NOT AUDITED - node_prep: no cgroup v2',
        'c: NOT AUDITED - memory_qos: not reported',
        'd: DRIFT - containerd NRI',
        'e: NOT AUDITED - node_prep: no report (failed or unreachable)']
    clean = fleet.audit_summary({'a': {'node_prep': {'kubelet': {}}}}, {'drift': {}, 'not_reported': []}, ['a'])
    assert not clean['failing'] and clean['lines'] == ['audit: 1 node(s): 1 in sync, 0 with drift, 0 not (fully) audited']


def test_audit_summary_lists_refused_pods_per_controller():
    def refused(pod, owner=None, workload=None, reason='TopologyAffinityError'):
        return {'namespace': 'shop', 'pod': pod, 'owner_kind': 'ReplicaSet' if owner else None, 'owner': owner,
                'workload': workload, 'reason': reason, 'why': 'no single NUMA node holds it now',
                'message': 'Resources cannot be allocated with Topology locality'}
    web = [refused('web-h-1', 'web-h', 'Deployment/web'), refused('web-h-2', 'web-h', 'Deployment/web')]
    nodes = {'a': {'node_prep': {'kubelet': {}}, 'refusals': web + [refused('smt', reason='SMTAlignmentError')]},
             'b': {'node_prep': {'kubelet': {}}, 'refusals': []},
             'c': {'node_prep': {'kubelet': {}}, 'refusals': None, 'refusals_error': 'API unreachable'}}
    result = fleet.audit_summary(nodes, {'drift': {}, 'not_reported': []}, ['a', 'b', 'c'])
    assert result['refusal_lines'] == [
        'a: REFUSED - shop/pod smt: 1 pod(s) SMTAlignmentError, e.g. smt: no single NUMA node holds it now',
        'a: REFUSED - shop/ReplicaSet/web-h (Deployment/web): 2 pod(s) TopologyAffinityError, e.g. web-h-2: no '
        'single NUMA node holds it now']
    assert result['lines'][0] == 'audit: 3 node(s): 2 in sync, 0 with drift, 1 not (fully) audited'
    assert 'c: NOT AUDITED - refused pods: API unreachable' in result['lines']
    assert result['lines'][-2:] == result['refusal_lines']
    assert result['failing']                       # c could not be audited; refused pods alone are not drift
    assert result['data']['refused_pods'] == 3
    alone = fleet.audit_summary({'a': nodes['a']}, {'drift': {}, 'not_reported': []}, ['a'])
    assert not alone['failing'] and len(alone['refusal_lines']) == 2


def test_audit_summary_names_the_kernel_arguments_and_a_pending_reboot():
    nodes = {'k': {'node_prep': {'kernel': {'changed': True, 'args': ['nosmt', 'numa_icon=enable']}}},
             'r': {'node_prep': {'kernel': {'reboot_required': True, 'args': ['nosmt']}}}}
    result = fleet.audit_summary(nodes, {'drift': {}, 'not_reported': []}, ['k', 'r'])
    assert result['lines'][1:] == ['k: DRIFT - kernel arguments nosmt numa_icon=enable',
                                   'r: DRIFT - reboot pending for nosmt']


def test_drift_report_counts_and_names_each_node():
    reports = {
        'a': {'drift': True, 'kubelet': {'changed_fields': ['cpuManagerPolicy', 'topologyManagerPolicy']},
              'containerd': {'changed': True}, 'kernel': {'changed': False, 'args': []}},
        'b': {'drift': False, 'kubelet': {'changed_fields': []}, 'kernel': {'args': []}},
        # in sync, with the reboot that puts its arguments in effect still to come
        'c': {'drift': False, 'kernel': {'changed': False, 'reboot_required': True, 'args': ['nosmt']}},
        'd': {'drift': True, 'kernel': {'changed': True, 'reboot_required': True, 'args': ['nosmt', 'quiet']}},
    }
    lines = fleet.drift_report(reports, {'e': 'host unreachable'}, ['a', 'b', 'c', 'd', 'e', 'f'])
    assert lines == [
        'node_prep: 6 node(s): 2 in sync, 2 with drift, 2 not audited',
        'a: DRIFT - kubelet cpuManagerPolicy, topologyManagerPolicy; containerd NRI',
        'c: reboot pending for nosmt',
        'd: DRIFT - kernel arguments nosmt quiet; reboot pending for nosmt quiet',
        'e: NOT AUDITED - host unreachable',
        'f: NOT AUDITED - failed or unreachable (see its error above)',
    ]
    assert fleet.drift_report({}, {}, []) == ['node_prep: 0 node(s): 0 in sync, 0 with drift, 0 not audited']


def test_report_file_name():
    assert fleet.report_file_name('node_prep', '2026-12-01T10:00:00Z', 'json') == 'node_prep-2026-12-01T10_00_00Z.json'


# ------------------------------------------------------------------ node_report / node_summary (the role's report)
SETTINGS = {'containerd_config_path': '/etc/containerd/config.toml', 'backup_dir': '/var/backups/numaops-colocation',
            'reservations': 'merge', 'reboot_allowed': False}


def _plan_vars(**overrides):
    """The facts the role's plan sets on a node with nothing to change (lock enabled, not taken)."""
    variables = {
        'node_prep__check_mode': False, 'node_prep__work_needed': False,
        'node_prep__kubelet_config': '/var/lib/kubelet/config.yaml', 'node_prep__kernel_args': [],
        'node_prep__mem_sampling_wanted': False, 'node_prep__cgroup_v2_memory': True,
        'node_prep__cgroup_v2_after_reboot': False,
        'node_prep__plan_kubelet': {'changed': False, 'changed_fields': []},
        'node_prep__plan_containerd': {'changed': False, 'nri': {'disable': False}},
        'node_prep__plan_kernel': {'changed': False, 'reboot_required': False},
        'node_prep__apply_kubelet': {}, 'node_prep__apply_containerd': {}, 'node_prep__apply_kernel': {},
        'node_prep__rebooted': False, 'node_prep__reboot': False, 'node_prep__drain_wanted': False,
        'node_prep__skipped_restarts': [], 'node_prep__run_id': '', 'node_prep__notes': [], 'node_prep__done': [],
        'node_prep__locked': False, 'node_prep__lock_taken': {'skipped': True, 'changed': False},
        'node_prep__lock': {'outcome': 'absent', 'locked_by_other': False},
        'node_prep__report_settings': dict(SETTINGS),
    }
    variables.update(overrides)
    return variables


RUN_KEYS = ('done', 'rebooted', 'cordoned', 'restarted')


def _shape(flat):
    """The role's variables from the flat names of a test (node_prep__<key>): the plan's keys in node_prep__plan,
    the run record's (the apply's results, done, rebooted) in node_prep__run."""
    plan, run, variables = {}, {}, {}
    for name, value in flat.items():
        key = name[len('node_prep__'):]
        if key == 'lock_taken':
            variables[name] = value
        elif key in RUN_KEYS or key.startswith('apply_'):
            run[key] = value
        else:
            plan[key] = value
    variables.update({'node_prep__plan': plan, 'node_prep__run': run})
    return variables


def test_report_of_a_node_with_nothing_to_change():
    report = fleet.node_report(_shape(_plan_vars()))
    assert report == {
        'check_mode': False, 'drift': False,
        'kubelet': {'config_path': '/var/lib/kubelet/config.yaml', 'changed': False, 'changed_fields': [],
                    'state_files_removed': [], 'reservations_removed': []},
        'containerd': {'config_path': '/etc/containerd/config.toml', 'changed': False, 'nri': {'disable': False}},
        'kernel': {'args': [], 'mem_sampling': False, 'changed': False, 'reboot_required': False, 'rebooted': False},
        'koordlet': {'features': [], 'hazard': []},
        # the performance profile's concerns, not asked (no node_prep_perf_profile): no summary line
        'irqbalance': {'asked': False, 'config_path': '', 'changed': False, 'banned_cpus': '', 'notes': []},
        'hugepages': {'asked': False, 'unit_path': '', 'changed': False, 'pages': '', 'reboot_required': False,
                      'drift': []},
        'memory_qos': {'cgroup_v2_memory': True, 'after_reboot': False},
        'drained': False, 'restarts_skipped': [], 'backup_dir': '', 'notes': [],
        'lock': {'outcome': 'not_taken', 'held_by_other': False, 'holder': {}, 'msg': ''}}
    assert fleet.node_summary('n1', report, _shape(_plan_vars())) == [
        'n1: no change', 'kubelet /var/lib/kubelet/config.yaml: ok', 'containerd /etc/containerd/config.toml: ok',
        'kernel args: none wanted', 'restarts: none', 'notes: none', 'lock: not_taken']


def test_report_in_check_mode_names_what_would_change():
    variables = _plan_vars(
        node_prep__check_mode=True, node_prep__work_needed=True, node_prep__kernel_args=['numa_icon=enable'],
        node_prep__plan_kubelet={'changed': True, 'changed_fields': ['cpuManagerPolicy'],
                                 'state_files_removed': ['/var/lib/kubelet/cpu_manager_state'],
                                 'reservations_removed': ['systemReserved.cpu']},
        node_prep__plan_kernel={'changed': True, 'reboot_required': True},
        node_prep__notes=['one.', 'two.'])
    report = fleet.node_report(_shape(variables))
    assert report['kubelet']['changed'] and report['kubelet']['changed_fields'] == ['cpuManagerPolicy']
    assert report['kubelet']['state_files_removed'] == ['/var/lib/kubelet/cpu_manager_state']
    assert report['kernel']['changed'] and report['kernel']['reboot_required']
    assert report['lock']['outcome'] == 'would_acquire'
    assert fleet.node_summary('n1', report, _shape(variables)) == [
        'n1: WOULD CHANGE (check mode)',
        'kubelet /var/lib/kubelet/config.yaml: changed cpuManagerPolicy - REMOVED reservations systemReserved.cpu '
        '(node_prep_reservations=merge)',
        'containerd /etc/containerd/config.toml: ok',
        'kernel args: changed, REBOOT REQUIRED (node_prep_reboot_allowed=false)',
        'restarts: none', 'notes: one. two.', 'lock: would_acquire']


def test_report_of_a_real_run_reads_the_apply_and_the_lock_it_took():
    variables = _plan_vars(
        node_prep__work_needed=True, node_prep__run_id='20261205T050000Z', node_prep__locked=True,
        node_prep__lock_taken={'outcome': 'acquired', 'locked_by_other': False, 'holder': {'run_id': 'r1'}},
        node_prep__plan_kubelet={'changed': True, 'changed_fields': ['planned']},
        node_prep__apply_kubelet={'changed': True, 'changed_fields': ['applied']},
        node_prep__plan_containerd={'changed': True, 'nri': {'disable': True}},
        node_prep__apply_containerd={'changed': True, 'nri': {'disable': False}},
        node_prep__plan_kernel={'changed': True, 'reboot_required': True},
        node_prep__apply_kernel={'changed': True, 'reboot_required': True},
        node_prep__rebooted=True, node_prep__reboot=True, node_prep__drain_wanted='True',
        node_prep__done=['kubelet restarted', 'containerd restarted'])
    report = fleet.node_report(_shape(variables))
    assert report['kubelet']['changed_fields'] == ['applied']
    assert report['containerd'] == {'config_path': '/etc/containerd/config.toml', 'changed': True,
                                    'nri': {'disable': False}}
    assert report['kernel']['rebooted'] and not report['kernel']['reboot_required']
    assert report['drained'] is True
    assert report['backup_dir'] == '/var/backups/numaops-colocation/20261205T050000Z'
    assert report['lock'] == {'outcome': 'acquired', 'held_by_other': False, 'holder': {}, 'msg': ''}
    lines = fleet.node_summary('n1', report, _shape(variables))
    assert lines[0] == 'n1: changed' and lines[2] == 'containerd /etc/containerd/config.toml: NRI changed'
    assert lines[4] == 'restarts: kubelet restarted; containerd restarted'


def test_a_planned_change_the_apply_did_not_make_is_not_reported_as_made():
    # a real run whose apply did not get to the kubelet (its result empty): not "changed"
    report = fleet.node_report(_shape(_plan_vars(node_prep__work_needed=True,
                                                 node_prep__plan_kubelet={'changed': True, 'changed_fields': ['x']})))
    assert report['kubelet']['changed'] is False and report['kubelet']['changed_fields'] == ['x']


@pytest.mark.parametrize('reboot, allowed, why', [
    (True, True, 'a real run reboots the node: node_prep_reboot_allowed=true'),
    (False, False, 'node_prep_reboot_allowed=false'),
    (False, True, 'node_prep_manage_services=false'),
])
def test_reboot_required_says_why(reboot, allowed, why):
    variables = _plan_vars(node_prep__check_mode=True, node_prep__work_needed=True, node_prep__kernel_args=['a'],
                           node_prep__plan_kernel={'changed': True, 'reboot_required': True}, node_prep__reboot=reboot,
                           node_prep__report_settings=dict(SETTINGS, reboot_allowed=allowed))
    report = fleet.node_report(_shape(variables))
    assert fleet.node_summary('n1', report, _shape(variables))[3] == 'kernel args: changed, REBOOT REQUIRED (%s)' % why


def test_skipped_restarts_are_named():
    variables = _plan_vars(node_prep__skipped_restarts=['kubelet', 'containerd'])
    report = fleet.node_report(_shape(variables))
    assert fleet.node_summary('n1', report, _shape(variables))[4] == (
        'restarts SKIPPED (node_prep_manage_services=false): kubelet, containerd - restart them for the changes to '
        'take effect')


def test_lock_held_by_another_run_names_it():
    holder = {'run_id': 'other-7', 'controller': 'ctl', 'pid': 1}
    variables = _plan_vars(node_prep__check_mode=True, node_prep__lock={
        'outcome': 'held', 'locked_by_other': True, 'holder': holder, 'msg': 'n1 is locked by another run: run other-7'})
    report = fleet.node_report(_shape(variables))
    assert report['lock'] == {'outcome': 'held', 'held_by_other': True, 'holder': holder,
                              'msg': 'n1 is locked by another run: run other-7'}
    assert fleet.node_summary('n1', report, _shape(variables))[-1] == \
        'lock: HELD BY ANOTHER RUN: n1 is locked by another run: run other-7'
    # without a message, the holder as JSON
    variables['node_prep__lock'] = {'outcome': 'held', 'locked_by_other': True, 'holder': holder}
    report = fleet.node_report(_shape(variables))
    assert fleet.node_summary('n1', report, _shape(variables))[-1] == 'lock: HELD BY ANOTHER RUN: ' + json.dumps(holder)


def test_a_stale_lock_keeps_its_holder_and_no_lock_is_disabled():
    holder = {'run_id': 'gone-2'}
    report = fleet.node_report(_shape(_plan_vars(node_prep__lock={'outcome': 'stale', 'locked_by_other': False,
                                                                  'holder': holder})))
    assert report['lock'] == {'outcome': 'stale', 'held_by_other': False, 'holder': holder, 'msg': ''}
    # a held lock the run took over is reported as it was taken, not as the pre-flight found it
    report = fleet.node_report(_shape(_plan_vars(
        node_prep__locked=True, node_prep__lock=report['lock'],
        node_prep__lock_taken={'outcome': 'taken_over', 'holder': {'run_id': 'me'}})))
    assert report['lock']['outcome'] == 'taken_over' and report['lock']['holder'] == {}
    assert fleet.node_report(_shape(_plan_vars(node_prep__lock={})))['lock']['outcome'] == 'disabled'


def test_report_of_missing_variables_is_empty_not_an_error():
    report = fleet.node_report({})
    assert report['drift'] is False and report['lock']['outcome'] == 'disabled'
    assert report['containerd']['config_path'] == '' and report['memory_qos']['cgroup_v2_memory'] is None
    assert fleet.node_summary('n1', report, {})[0] == 'n1: no change'


def test_every_report_variable_is_a_private_name_of_the_role():
    assert all(fleet.is_internal(name) for name in fleet.REPORT_VARIABLES)
