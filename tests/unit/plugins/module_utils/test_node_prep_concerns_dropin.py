# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kubelet concern writing into the kubelet's drop-in directory: the files the apply backs up and a rollback puts
back, the done line, the fleet plan, the report and the summaries name the role's drop-in (and the unit drop-in that
adds --config-dir), and the decision says whether the kubelet's /configz is read after the restart."""
from __future__ import annotations

import copy

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import node_prep_concerns as nc
from ansible_collections.numaops.colocation.plugins.plugin_utils import fleet, node_prep_decision as nd

from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.test_node_prep_concerns import (
    NODE, SETTINGS,
)

DROPIN = '/etc/kubernetes/kubelet.conf.d/90-numaops-colocation.conf'
UNIT = '/etc/systemd/system/kubelet.service.d/90-numaops-config-dir.conf'
# kubelet_config's plan result with write_to: dropin and enable_config_dir (node_config in check mode)
KUBELET_PLAN = {'changed': True, 'changed_fields': ['cpuManagerPolicy'], 'previous': {},
                'config': {'cpuManagerPolicy': 'static'}, 'effective_config': {'cpuManagerPolicy': 'static'},
                'drop_in_file': DROPIN, 'unit_drop_in': UNIT, 'daemon_reload_required': True,
                'config_dir': '/etc/kubernetes/kubelet.conf.d', 'state_files_removed': ['/var/lib/kubelet/cpu_manager_state'],
                'drop_in_overrides': [], 'drop_in_removed': []}
PLAN = {'changed': True, 'read_token': '', 'kubelet': KUBELET_PLAN, 'containerd': {'changed': False},
        'kernel': {'changed': False, 'skipped': True}}


def _decide(checking=False, **settings):
    return nd.decide(copy.deepcopy(PLAN), NODE, dict(SETTINGS, **settings), checking, 'n1', '20260101T000000Z', 7)


def test_the_snapshot_is_the_drop_in_the_unit_drop_in_and_the_checkpoints_not_the_main_file():
    d = _decide()
    assert d['snapshot_paths'] == [DROPIN, UNIT, '/var/lib/kubelet/cpu_manager_state',
                                   '/var/lib/kubelet/memory_manager_state']
    # main-file mode: the main file as before
    plan = dict(KUBELET_PLAN)
    for key in ('drop_in_file', 'unit_drop_in'):
        plan.pop(key)
    assert nc.snapshot_paths({'kubelet': True}, {'kubelet': plan}, dict(d['settings']))[0] == '/var/lib/kubelet/config.yaml'


def test_the_done_line_names_the_drop_in_the_main_file_left_alone_and_the_unit_drop_in():
    d = _decide()
    assert nc.done_lines({'kubelet': KUBELET_PLAN}, {'kubelet': True}, d['settings']) == [
        'kubelet drop-in %s changed (cpuManagerPolicy), removed /var/lib/kubelet/cpu_manager_state, main file '
        '/var/lib/kubelet/config.yaml left as it is, unit drop-in %s written (--config-dir)' % (DROPIN, UNIT)]


def test_the_fleet_plan_names_the_drop_in():
    d = _decide()
    assert d['plan']['kubelet_drop_in'] == {'drop_in_file': DROPIN, 'unit_drop_in': UNIT}
    assert fleet.fleet_plan({'n1': d['plan']}) == [
        'node_prep plan: 1 node(s): 1 to change, 0 already as wanted, 0 failed the pre-flight',
        '1 node(s) kubelet drop-in 90-numaops-colocation.conf cpuManagerPolicy unset->static: n1',
        '1 node(s) kubelet unit drop-in (--config-dir): n1']


def test_the_report_the_summary_and_the_audit_name_the_drop_in():
    d = _decide()
    run = {'apply_kubelet': KUBELET_PLAN, 'done': [], 'configz': {
        'read': True, 'line': 'the kubelet runs cpuManagerPolicy as written (/api/v1/nodes/n1/proxy/configz)'}}
    report = fleet.node_report({'node_prep__plan': d, 'node_prep__run': run})
    kubelet = report['kubelet']
    assert (kubelet['config_path'], kubelet['drop_in_file'], kubelet['unit_drop_in']) == (
        '/var/lib/kubelet/config.yaml', DROPIN, UNIT)
    assert kubelet['configz']['read'] is True
    line = nc.KUBELET.summary_line(report, d['settings'], lambda name, default=None: d.get(name, default))
    assert line == ('kubelet %s (drop-in over /var/lib/kubelet/config.yaml): changed cpuManagerPolicy, --config-dir '
                    'through %s' % (DROPIN, UNIT))
    assert nc.KUBELET.drift_parts(report) == ['kubelet drop-in 90-numaops-colocation.conf cpuManagerPolicy']


def test_a_key_that_leaves_the_drop_in_is_named_with_what_the_kubelet_runs_then():
    removed = [{'key': 'topologyManagerScope', 'value': 'pod', 'effective': None, 'from': 'the kubelet default'}]
    report = {'kubelet': nc.KUBELET.report(dict(KUBELET_PLAN, drop_in_removed=removed), True,
                                           lambda name, default=None: {'kubelet_config': '/m.yaml'}.get(name, default),
                                           {})}
    line = nc.KUBELET.summary_line(report, {}, None)
    assert line.endswith(' - REMOVED topologyManagerScope from %s (the kubelet runs its default)' % DROPIN)
    removed[0].update(effective='container', **{'from': '/etc/kubernetes/kubelet.conf.d/10-site.conf'})
    report['kubelet']['drop_in_removed'] = removed
    assert nc.KUBELET.summary_line(report, {}, None).endswith(
        ' - REMOVED topologyManagerScope from %s (the kubelet runs container from '
        '/etc/kubernetes/kubelet.conf.d/10-site.conf)' % DROPIN)


@pytest.mark.parametrize('settings, checking, expected', [
    ({}, False, {'read': True, 'required': False, 'line': 'read after the restart'}),
    ({'kubelet_configz': 'required'}, False, {'read': True, 'required': True, 'line': 'read after the restart'}),
    ({'kubelet_configz': 'off'}, False, {'read': False, 'required': False,
                                         'line': 'NOT read: node_prep_kubelet_configz=off'}),
    ({'k8s_enabled': False}, False, {
        'read': False, 'required': False,
        'line': 'NOT read: the Kubernetes API is not used (node_prep_k8s_enabled=false), and it is read through its '
                'node proxy'}),
    ({'manage_services': False}, False, {
        'read': False, 'required': False,
        'line': 'NOT read: this run does not restart the kubelet (node_prep_manage_services=false)'}),
    ({}, True, {}),
])
def test_whether_configz_is_read_after_the_restart(settings, checking, expected):
    d = _decide(checking, **settings)
    assert d['configz'] == expected
    # a real run that does not read it says so, and why
    unread = [note for note in d['notes'] if '/configz' in note]
    if expected and not expected['read'] and settings.get('k8s_enabled', True):
        assert unread == ['The kubelet configuration of node-1 is not confirmed by its /configz after the restart: %s.'
                          % expected['line'][len('NOT read: '):]]
    else:
        assert unread == []


def test_an_unknown_configz_mode_is_a_bug_of_the_role():
    with pytest.raises(ValueError, match="kubelet_configz 'sometimes' is not one of required, if_reachable, off"):
        _decide(kubelet_configz='sometimes')


def test_a_kubelet_that_does_not_change_reads_no_configz():
    plan = copy.deepcopy(PLAN)
    plan['kubelet'] = {'changed': False}
    assert nd.decide(plan, NODE, SETTINGS, False, 'n1', 's', 1)['configz'] == {}


def test_the_plan_reads_the_roles_drop_in_with_the_main_file_and_the_checkpoints():
    options = {'path': '/var/lib/kubelet/config.yaml', 'state_dir': '/var/lib/kubelet', 'write_to': 'dropin',
               'config_dir': '/etc/kubernetes/kubelet.conf.d/'}
    # and the node's online CPUs, which the CPU manager checkpoint is checked against (below the topology root)
    assert nc.KUBELET.plan_reads(options) == [
        '/var/lib/kubelet/config.yaml', DROPIN, '/var/lib/kubelet/cpu_manager_state',
        '/var/lib/kubelet/memory_manager_state', '/sys/devices/system/cpu/online']
    assert nc.KUBELET.plan_reads(dict(options, topology_root='/tmp/tree'))[-1] == '/tmp/tree/sys/devices/system/cpu/online'
    assert '/sys/devices/system/cpu/online' not in nc.KUBELET.files(
        {'kubelet_config': '/var/lib/kubelet/config.yaml', 'kubelet_state_dir': '/var/lib/kubelet'}, {})
    assert nc.KUBELET.plan_reads(dict(options, drop_in_name='99-x.conf'))[1] == '/etc/kubernetes/kubelet.conf.d/99-x.conf'
    assert DROPIN not in nc.KUBELET.plan_reads(dict(options, write_to='main'))
