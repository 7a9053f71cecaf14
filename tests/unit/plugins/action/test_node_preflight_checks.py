# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_preflight's checks option through Ansible itself: judged on the controller in the read's own task (the
module never sees it), wrong checks refused before anything is read, and no verdict without the option; no plan
and no decision after a check that failed, and a wrong plan or decide refused before anything is read."""
from __future__ import annotations

import pytest

from ansible_collections.numaops.colocation.tests.unit import playbooks
from ansible_collections.numaops.colocation.tests.unit.unit_stage import SHARED_PLAYBOOK_RUN, only_here

pytestmark = only_here(SHARED_PLAYBOOK_RUN)


@pytest.fixture(scope='module', name='results')
def results_fixture(tmp_path_factory):
    base = tmp_path_factory.mktemp('preflight_checks')
    cpu = base / 'cpu'
    cpu.mkdir()
    (cpu / 'online').write_text('0-3\n')
    config = base / 'config.yaml'
    config.write_text('kind: KubeletConfiguration\n')
    read = {'kubelet_config_path': str(config), 'sysfs_cpu_dir': str(cpu)}
    asked = {'kubelet_config_path': str(config), 'sysfs_cpu_dir': str(cpu), 'nri_enabled': None,
             'reserved_system_cpus': '2-5', 'kernel_args': ['a', 'b', 'a'], 'k8s_enabled': True,
             'mem_sampling': 'disabled'}
    tasks = [
        {'name': 'judged', 'numaops.colocation.node_preflight': dict(read, checks=asked)},
        {'name': 'judged in check mode', 'numaops.colocation.node_preflight': dict(read, checks=asked),
         'check_mode': True},
        {'name': 'not asked', 'numaops.colocation.node_preflight': read},
        {'name': 'unknown key', 'numaops.colocation.node_preflight': dict(read, checks={'kernel_arg': []})},
        {'name': 'not a dict', 'numaops.colocation.node_preflight': dict(read, checks='yes')},
        {'name': 'planned after failed checks',
         'numaops.colocation.node_preflight': dict(read, checks=asked, plan={'kubelet': {}}, decide={'settings': {}})},
        {'name': 'plan without checks', 'numaops.colocation.node_preflight': dict(read, plan={'kubelet': {}})},
        {'name': 'plan of an unknown concern',
         'numaops.colocation.node_preflight': dict(read, checks=asked, plan={'kubelets': {}})},
        {'name': 'decide without plan', 'numaops.colocation.node_preflight': dict(read, checks=asked, decide={})},
    ]
    return dict(zip([task['name'] for task in tasks], playbooks.run_tasks(base, tasks))), str(cpu)


def test_the_verdict_comes_with_the_read(results):
    results, cpu = results
    for name in ('judged', 'judged in check mode'):
        checks = results[name]['checks']
        assert checks['kernel_args'] == ['a', 'b']
        assert checks['errors'] == [
            'node_prep: localhost: node_prep_reserved_system_cpus="2-5" names CPUs this node does not have online: '
            '4,5 (online: 0-3, from %s/online). Nothing was changed.' % cpu]
        assert results[name]['online_cpus']['ids'] == [0, 1, 2, 3]
        assert 'checks' not in results[name].get('invocation', {}).get('module_args', {})


def test_no_verdict_without_the_option(results):
    assert 'checks' not in results[0]['not asked'] and results[0]['not asked']['online_cpus']['ids'] == [0, 1, 2, 3]


def test_wrong_checks_are_refused_naming_what_is_allowed(results):
    unknown = results[0]['unknown key']
    assert unknown['failed'] and unknown['msg'].startswith(
        'node_preflight: checks has unknown key(s) kernel_arg (allowed: allow_unknown, cgroup_root, ')
    assert 'online_cpus' not in unknown
    bad = results[0]['not a dict']
    assert bad['failed'] and "checks must be a dictionary (what node_prep asks of the node), not 'yes'" in bad['msg']


def test_no_plan_and_no_decision_after_a_check_that_failed(results):
    planned = results[0]['planned after failed checks']
    assert not planned.get('failed') and planned['checks']['errors']
    assert 'plan' not in planned and 'decision' not in planned


def test_a_wrong_plan_or_decide_is_refused_before_anything_is_read(results):
    for name in ('plan without checks', 'plan of an unknown concern'):
        refused = results[0][name]
        assert refused['failed'] and refused['msg'].startswith(
            'node_preflight: plan must be a dictionary of kubelet, containerd, kernel'), refused
        assert 'online_cpus' not in refused
    refused = results[0]['decide without plan']
    assert refused['failed'] and refused['msg'].startswith('node_preflight: decide must be a dictionary with settings')
    assert 'online_cpus' not in refused
