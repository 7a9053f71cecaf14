# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_prep's performance profile in its pre-flight and its decision: the kubelet settings and kernel arguments it
feeds, the conflicts refused naming host and variable, and the irqbalance and huge pages concerns carried through
the decision, the snapshot, the done lines, the fleet plan, the report and the summaries."""
from __future__ import annotations

import copy

from ansible_collections.numaops.colocation.plugins.module_utils import node_prep_concerns as nc
from ansible_collections.numaops.colocation.plugins.plugin_utils import fleet, node_prep_decision as nd
from ansible_collections.numaops.colocation.plugins.plugin_utils import node_prep_profile as npp
from ansible_collections.numaops.colocation.tests.unit.plugins.plugin_utils.test_node_prep_decision import (
    NODE, SAME, SETTINGS)

# perf_profile's result in check mode (write: []) on a node with 8 CPUs on two NUMA nodes
PERF = {'changed': False, 'reserved_cpus': '0,4', 'isolated_cpus': '1-3,5-7',
        'kubelet': {'cpu_manager_policy': 'static', 'reserved_system_cpus': '0,4',
                    'topology_manager_policy': 'single-numa-node', 'memory_manager_policy': 'Static',
                    'reserved_memory': 'auto', 'cpu_manager_policy_options': {'full-pcpus-only': 'true'}},
        'kernel_args': ['nohz=on', 'nohz_full=1-3,5-7', 'rcu_nocbs=1-3,5-7', 'isolcpus=managed_irq,1-3,5-7',
                        'irqaffinity=0,4', 'systemd.cpu_affinity=0,4', 'skew_tick=1'],
        'kernel_args_replacing': ['isolcpus=2-7'], 'irqbalance': {'path': None, 'banned_cpus': '1-3,5-7'},
        'hugepages': [{'size': '2M', 'kib': 2048, 'count': 64, 'node': 1}], 'hugepages_unit': {'path': None},
        'hugepages_drift': [{'node': 1, 'size': '2M', 'wanted': 64, 'allocated': 0}], 'notes': []}
NULLS = dict((name, None) for name in npp.KUBELET_OPTIONS)


def _fold(perf=None, variables=None, kernel_args=None):
    node = copy.deepcopy(NODE)
    node['checks']['kernel_args'] = list(kernel_args or [])
    return npp.fold(node, copy.deepcopy(PERF if perf is None else perf), dict(NULLS, **(variables or {})), 'n1')


def test_the_profile_feeds_the_kubelet_and_kernel_concerns():
    checks = _fold(kernel_args=['numa_icon=enable'])['checks']
    assert checks['errors'] == []
    assert checks['kernel_args'] == ['numa_icon=enable'] + PERF['kernel_args']
    assert checks['profile']['kubelet'] == PERF['kubelet']
    assert checks['profile']['irqbalance'] is True and checks['profile']['hugepages_unit'] is True
    # what the profile replaces on the node's command line is said
    assert checks['notes'] == ['a note.', "node_prep_perf_profile replaces isolcpus=2-7 of the node's kernel command "
                                          'line.']


def test_an_argument_given_twice_with_two_values_is_refused_naming_both():
    checks = _fold(kernel_args=['skew_tick=0', 'nohz=on'])['checks']
    assert checks['errors'] == ['node_prep: n1: node_prep_kernel_args has skew_tick=0 and node_prep_perf_profile '
                                'gives skew_tick=1: give skew_tick in one of them. Nothing was changed.']
    merged, errors = npp.merge_kernel_args(['hugepages=4'], ['default_hugepagesz=1G', 'hugepagesz=1G', 'hugepages=4'])
    assert errors == ['node_prep_kernel_args has hugepages=4 and node_prep_perf_profile sets huge pages '
                      '(default_hugepagesz=1G): give the huge pages in one of them']


def test_a_kubelet_variable_the_profile_sets_must_be_null_or_the_same():
    checks = _fold(variables={'reserved_system_cpus': '0-1', 'memory_manager_policy': 'Static'})['checks']
    assert checks['errors'] == ['node_prep: n1: node_prep_reserved_system_cpus=0-1 and node_prep_perf_profile gives '
                                '0,4: leave node_prep_reserved_system_cpus null with a profile. Nothing was changed.']
    # the role's defaulted policies are replaced by the profile's
    assert _fold(variables={'topology_manager_policy': 'best-effort', 'cpu_manager_policy': 'none'})['checks'][
        'errors'] == []


def test_a_profile_the_node_cannot_take_is_one_error_naming_host_and_variable():
    failed = {'failed': True, 'msg': 'perf_profile: profile.cpu.reserved: 0-9: CPUs 8,9 are not online (online: '
                                     '0-7). Nothing was changed.'}
    checks = _fold(perf=failed)['checks']
    assert checks['errors'] == ['node_prep: n1: node_prep_perf_profile does not fit this node: profile.cpu.reserved: '
                                '0-9: CPUs 8,9 are not online (online: 0-7). Nothing was changed.']
    assert 'profile' not in checks


def test_the_module_s_fields_are_named_as_the_role_s_variable():
    failed = {'failed': True, 'msg': 'perf_profile: (joined). Nothing was changed.',
              'errors': ['profile.cpu: SMT siblings split between reserved and isolated: core 1 of NUMA node 0 '
                         '(CPUs 1,5: reserved 1, isolated 5); put every sibling of a core on the same side',
                         'profile: sets nothing']}
    assert _fold(perf=failed)['checks']['errors'] == [
        'node_prep: n1: node_prep_perf_profile does not fit this node: node_prep_perf_profile.cpu: SMT siblings split '
        'between reserved and isolated: core 1 of NUMA node 0 (CPUs 1,5: reserved 1, isolated 5); put every sibling '
        'of a core on the same side; node_prep_perf_profile: sets nothing. Nothing was changed.']


# ------------------------------------------------------------------ the decision and the report with a profile
IRQ_PLAN = {'changed': True, 'irqbalance': {'path': '/etc/default/irqbalance', 'banned_cpus': '1-3,5-7',
                                            'changed': True},
            'hugepages': PERF['hugepages'], 'hugepages_unit': {'path': None, 'link': None, 'changed': False},
            'reboot_required': False, 'notes': []}
UNIT = '/etc/systemd/system/numaops-hugepages.service'
LINK = '/etc/systemd/system/multi-user.target.wants/numaops-hugepages.service'
UNIT_PLAN = {'changed': True, 'irqbalance': {'path': None, 'banned_cpus': '1-3,5-7', 'changed': False},
             'hugepages': PERF['hugepages'], 'hugepages_unit': {'path': UNIT, 'link': LINK, 'changed': True},
             'reboot_required': True, 'hugepages_drift': PERF['hugepages_drift'], 'notes': []}


def _decide(checking=False, **settings):
    result = copy.deepcopy(SAME)
    result.update(changed=True, irqbalance=copy.deepcopy(IRQ_PLAN), hugepages=copy.deepcopy(UNIT_PLAN))
    node = _fold(kernel_args=[])
    return nd.decide(result, node, dict(SETTINGS, **settings), checking, 'n1', '20261205T050000Z', 42)


def test_the_decision_with_a_profile():
    d = _decide()
    assert d['irqbalance_changing'] and d['hugepages_changing'] and not d['kubelet_changing']
    assert d['kernel_args'] == PERF['kernel_args']
    # the unit is set at the next boot: a reboot, which needs node_prep_reboot_allowed
    assert d['plan']['reboot'] is True and d['reboot'] is False
    assert _decide(reboot_allowed=True)['reboot'] is True and _decide(reboot_allowed=True)['drain_wanted'] is True
    # irqbalance alone does not drain
    assert d['drain_wanted'] is False
    # the snapshot: irqbalance's file, the unit and its link (a rollback removes what did not exist)
    assert d['snapshot_paths'] == ['/etc/default/irqbalance', UNIT, LINK]
    assert d['plan']['irqbalance'] == '1-3,5-7' and d['plan']['hugepages'] == 'node1 64x2M'
    assert _decide(manage_services=False)['skipped_restarts'] == ['irqbalance']
    assert nc.done_lines({'irqbalance': IRQ_PLAN, 'hugepages': UNIT_PLAN}, {'irqbalance': True, 'hugepages': True},
                         d['settings']) == [
        'irqbalance /etc/default/irqbalance changed (banned CPUs 1-3,5-7)',
        'huge pages unit %s written, enabled by %s (node1 64x2M, at the next boot)' % (UNIT, LINK)]


def test_the_profile_concerns_in_the_fleet_plan_the_report_and_the_summaries():
    d = _decide()
    assert fleet.fleet_plan({'n1': d['plan']}) == [
        'node_prep plan: 1 node(s): 1 to change, 0 already as wanted, 0 failed the pre-flight',
        '1 node(s) huge pages per NUMA node ->node1 64x2M: n1', '1 node(s) irqbalance banned CPUs ->1-3,5-7: n1',
        '1 node(s) need a reboot: n1']
    variables = {'node_prep__plan': d, 'node_prep__run': {'apply_irqbalance': IRQ_PLAN, 'apply_hugepages': UNIT_PLAN}}
    report = fleet.node_report(variables)
    assert report['irqbalance'] == {'asked': True, 'config_path': '/etc/default/irqbalance', 'changed': True,
                                    'banned_cpus': '1-3,5-7', 'notes': []}
    assert report['hugepages'] == {'asked': True, 'unit_path': UNIT, 'changed': True, 'pages': 'node1 64x2M',
                                   'reboot_required': True, 'drift': PERF['hugepages_drift']}
    summary = fleet.node_summary('n1', report, variables)
    assert summary[4:6] == [
        'irqbalance /etc/default/irqbalance: banned CPUs changed to 1-3,5-7',
        'huge pages %s: changed (node1 64x2M), allocated now differs: node1 2M 64 wanted, 0 allocated, set at the '
        'next boot' % UNIT]
    assert fleet.fleet_summary({'n1': report}, ['n1'])['lines'] == [
        'node_prep summary: 1 node(s): 1 changed, 0 unchanged, 0 failed or not reached',
        'n1: changed irqbalance banned CPUs; huge pages per NUMA node', '1 node(s) need a reboot: n1']
    audit = fleet.audit_summary({'n1': {'node_prep': report}}, {}, ['n1'])
    assert audit['lines'][1] == 'n1: DRIFT - irqbalance banned CPUs; huge pages per NUMA node'


def test_without_a_profile_the_concerns_have_no_line():
    variables = {'node_prep__plan': nd.decide(copy.deepcopy(SAME), copy.deepcopy(NODE), SETTINGS, False, 'n1', 's', 1)}
    report = fleet.node_report(variables)
    assert not report['irqbalance']['asked'] and not report['hugepages']['asked']
    lines = fleet.node_summary('n1', report, variables)
    assert not any(line.startswith(('irqbalance', 'huge pages')) for line in lines)


def test_irqbalance_not_installed_is_said():
    plan = dict(IRQ_PLAN, changed=False, irqbalance={'path': None, 'banned_cpus': '1-3', 'changed': False},
                notes=['irqbalance left alone: neither /etc/default/irqbalance nor /etc/sysconfig/irqbalance exists '
                       '(irqbalance not installed)'])
    section = nc.IRQBALANCE.report(plan, False, lambda name, default=None: default, {})
    assert nc.IRQBALANCE.summary_line({'irqbalance': section}, {}, None) == (
        'irqbalance: left alone (irqbalance left alone: neither /etc/default/irqbalance nor /etc/sysconfig/irqbalance '
        'exists (irqbalance not installed))')
