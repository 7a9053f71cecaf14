# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fleet bookkeeping: unknown variables, survey answers, batches, plan and summaries."""
from __future__ import annotations

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import fleet

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


def test_report_file_name():
    assert fleet.report_file_name('node_prep', '2026-12-01T10:00:00Z', 'json') == 'node_prep-2026-12-01T10_00_00Z.json'
