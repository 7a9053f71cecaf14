# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_config's apply commits the kubelet and containerd files in one node_files call: each concern's commit is
answered with its part of that call (CommittedBatch), and a call that failed while writing is reported per concern
(_failed_together). The end-to-end comparison with the modules run alone is in test_node_config_action.py."""
from __future__ import annotations

from ansible_collections.numaops.colocation.plugins.action.node_config import ActionModule
from ansible_collections.numaops.colocation.plugins.plugin_utils.node_files import CommittedBatch

KUBELET = ([{'path': '/n/var/lib/kubelet/config.yaml', 'content': 'a: 1\n', 'expected_checksum': 'x', 'backup': True}],
           ['/n/var/lib/kubelet/cpu_manager_state', '/n/var/lib/kubelet/memory_manager_state'])
CONTAINERD = ([{'path': '/n/etc/containerd/config.toml', 'content': 'version = 2\n', 'expected_checksum': 'y'}], [])


def test_each_commit_gets_its_part_once():
    outcome = dict(changed=True, written=['/n/var/lib/kubelet/config.yaml', '/n/etc/containerd/config.toml'],
                   removed=['/n/var/lib/kubelet/cpu_manager_state'],
                   backup_files={'/n/var/lib/kubelet/config.yaml': '/n/var/lib/kubelet/config.yaml.1.~'},
                   removed_temp_files=['/n/etc/containerd/.config.toml.abcdefgh.numaops'])
    batch = CommittedBatch([KUBELET, CONTAINERD], outcome)
    kubelet = batch.take(*KUBELET)
    assert kubelet['written'] == ['/n/var/lib/kubelet/config.yaml']
    assert kubelet['removed'] == ['/n/var/lib/kubelet/cpu_manager_state']
    assert kubelet['backup_files'] == {'/n/var/lib/kubelet/config.yaml': '/n/var/lib/kubelet/config.yaml.1.~'}
    assert kubelet['removed_temp_files'] == [] and kubelet['changed'] is True
    containerd = batch.take(*CONTAINERD)
    assert containerd['written'] == ['/n/etc/containerd/config.toml'] and containerd['removed'] == []
    assert containerd['backup_files'] == {}
    assert containerd['removed_temp_files'] == ['/n/etc/containerd/.config.toml.abcdefgh.numaops']
    # once only, and only for exactly what was committed
    assert batch.take(*CONTAINERD) is None
    other = ([dict(KUBELET[0][0], content='a: 2\n')], KUBELET[1])
    assert CommittedBatch([KUBELET, CONTAINERD], outcome).take(*other) is None


def test_a_failed_write_names_the_concern_and_what_was_written_before():
    asked = {'kubelet': {}, 'containerd': {}, 'kernel': {}}
    outcome = dict(failed=True, msg='cannot write /n/etc/containerd/config.toml: No space left on device',
                   written=['/n/var/lib/kubelet/config.yaml', '/n/etc/containerd/config.toml'],
                   commits=[KUBELET, CONTAINERD], names=['kubelet', 'containerd'])
    results = {}
    failed, not_run = ActionModule._failed_together(asked, outcome, results)
    assert failed == ['containerd']
    assert not_run == ['numaops.colocation.kernel_cmdline']
    assert results['containerd']['failed'] is True and 'No space left' in results['containerd']['msg']
    assert results['kubelet']['changed'] is True
    assert results['kubelet']['written'] == ['/n/var/lib/kubelet/config.yaml']
    assert results['kernel']['skipped'] is True


def test_a_failed_first_write_leaves_the_later_concern_not_run():
    asked = {'kubelet': {}, 'containerd': {}}
    outcome = dict(failed=True, msg='cannot write /n/var/lib/kubelet/config.yaml: Input/output error',
                   written=['/n/var/lib/kubelet/config.yaml'], commits=[KUBELET, CONTAINERD],
                   names=['kubelet', 'containerd'])
    results = {}
    failed, not_run = ActionModule._failed_together(asked, outcome, results)
    assert failed == ['kubelet'] and not_run == ['numaops.colocation.containerd_nri']
    assert results['containerd']['msg'] == 'not run: numaops.colocation.kubelet_config failed before it'


def test_the_options_are_the_concerns_of_node_prep_in_their_order():
    from ansible_collections.numaops.colocation.plugins.action import node_config  # pylint: disable=import-outside-toplevel
    from ansible_collections.numaops.colocation.plugins.module_utils import node_prep_concerns  # pylint: disable=import-outside-toplevel
    # the concerns that change the node: a check-only one (koordlet) is not an option of node_config
    assert [name for name, _module in node_config.CONCERNS] == node_prep_concerns.names(node_prep_concerns.applying())
    assert [module for _name, module in node_config.CONCERNS] == [c.module for c in node_prep_concerns.applying()]


def test_files_written_before_a_failed_one_and_put_back_are_reported_unchanged():
    asked = {'kubelet': {}, 'containerd': {}}
    outcome = dict(failed=True, msg='cannot write /n/etc/containerd/config.toml: No space left on device. The 2 '
                                    'file(s) this call had written or removed before it are put back as they were',
                   written=['/n/var/lib/kubelet/config.yaml', '/n/etc/containerd/config.toml'],
                   put_back=['/n/var/lib/kubelet/config.yaml'], commits=[KUBELET, CONTAINERD],
                   names=['kubelet', 'containerd'])
    results = {}
    failed, not_run = ActionModule._failed_together(asked, outcome, results)
    assert failed == ['containerd'] and not_run == []
    assert results['kubelet'] == {
        'changed': False, 'put_back': ['/n/var/lib/kubelet/config.yaml'],
        'msg': '/n/var/lib/kubelet/config.yaml written, then put back as it was: numaops.colocation.containerd_nri '
               'failed in the same node_files call'}
