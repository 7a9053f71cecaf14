# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""playbooks/node_prep.yml's stop rule, end to end with ansible-playbook on three sandbox nodes in batches of two:
with the default node_prep_max_fail_percentage (0) the rollout stops at the first node that fails, though the other
node of its batch succeeded (Ansible itself stops only when a whole batch fails); the failed node is rolled back and
the node of the later batch is never changed."""
from __future__ import annotations

import os

from ansible_collections.numaops.colocation.tests.system import test_node_prep_fleet as fleet

top = fleet.top_fixture  # noqa: F811  (the same fixture)
CONTAINERD = os.path.join('etc', 'containerd', 'config.toml')
# containerd never answers on a sandbox node: after the failed restart (and after the rollback's restart) the
# node waits node_prep_containerd_health_timeout seconds for it in vain, so one second proves as much as the default
FAILING_RESTART = {'node_prep_manage_services': True, 'node_prep_containerd_restart_command': ['false'],
                   'node_prep_containerd_health_timeout': 1}


def test_the_first_failed_node_stops_the_rollout(top):
    trees = [fleet._sandbox(top, 'node-%d' % n) for n in (1, 2, 3)]
    before = [fleet._files(tree) for tree in trees]
    # containerd NRI only (no kubelet change: no kubelet to stop or wait for here); the first node's containerd
    # restart fails, so its change is rolled back and the host fails; the other nodes would succeed
    common = {'node_prep_kubelet_enabled': False}
    host_vars = {
        fleet.NODE: dict(common, **FAILING_RESTART),
        'sandbox-node-2': common, 'sandbox-node-3': common}
    inventory = fleet._inventory(top, trees, host_vars)
    rc, out = fleet._playbook(inventory, 'node_prep.yml', '-e', 'node_prep_max_unavailable=2',
                              report_dir=str(top / 'r'))
    assert rc != 0, out[-3000:]
    assert 'node_prep plan: 3 node(s): 3 to change' in out, out[-3000:]
    assert 'batch 1/2: %s, sandbox-node-2' % fleet.NODE in out, out[-3000:]
    assert fleet._recap(out)['failed'] >= 1
    assert 'batch 2/2' not in out, out[-4000:]
    # the failed node was put back, the other node of its batch was changed, the last one never
    first, second, third = (fleet._files(tree).get(CONTAINERD) for tree in trees)
    assert first == before[0][CONTAINERD]
    assert second != before[1][CONTAINERD]
    assert third == before[2][CONTAINERD]
    assert fleet._recap(out, 'sandbox-node-3')['changed'] == 0
    # no node is left locked: the failed one and the one never reached are unlocked too
    for tree in trees:
        assert not os.path.exists(str(tree / fleet.LOCK)), tree
    # the fleet summary says where the rollout stopped
    assert 'node_prep summary: 3 node(s): 1 changed, 0 unchanged, 2 failed or not reached' in out, out[-3000:]
    assert ('node_prep stopped the rollout: 1 of the 2 node(s) of a batch failed (%s), more than '
            'node_prep_max_fail_percentage=0 percent allows.' % fleet.NODE) in out, out[-3000:]


def test_a_failed_batch_of_one_stops_the_rollout_and_unlocks_the_nodes_it_does_not_reach(top):
    trees = [fleet._sandbox(top, 'one-%d' % n) for n in (1, 2)]
    before = [fleet._files(tree) for tree in trees]
    common = {'node_prep_kubelet_enabled': False}
    host_vars = {
        fleet.NODE: dict(common, **FAILING_RESTART),
        'sandbox-node-2': common}
    rc, out = fleet._playbook(fleet._inventory(top, trees, host_vars), 'node_prep.yml', report_dir=str(top / 'r'))
    assert rc != 0, out[-3000:]
    assert 'batch 2/2' not in out, out[-4000:]
    for tree, files in zip(trees, before):
        assert fleet._files(tree)[CONTAINERD] == files[CONTAINERD]
        assert not os.path.exists(str(tree / fleet.LOCK)), tree
