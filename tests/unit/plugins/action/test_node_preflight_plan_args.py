# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_preflight's plan: node_config's options of each concern the checks enable, completed with what the checks
settled (plugins/action/node_preflight.py plan_args)."""
from __future__ import annotations

from ansible_collections.numaops.colocation.plugins.action.node_preflight import plan_args

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
