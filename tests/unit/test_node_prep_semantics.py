# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Ansible semantics of playbooks/node_prep.yml on a sandbox node, end to end with ansible-playbook: the task that
writes the node reports changed and shows its diff under --diff in a real run as in check mode; the plan, which
changes nothing, reports ok in a real run; check mode and the real run report the same changed count."""
from __future__ import annotations

import os
import re

import pytest

if os.environ.get('ANSIBLE_CONTROLLER_MIN_PYTHON_VERSION'):
    pytest.skip('the playbook tests run in the plain pytest stage only', allow_module_level=True)
pytest.importorskip('yaml')

# pylint: disable=wrong-import-position
from ansible_collections.numaops.colocation.tests.unit import test_node_prep_fleet as fleet  # noqa: E402

NODE = fleet.NODE
top = fleet.top_fixture  # noqa: F811  (the same fixture)
PLAN = 'Kubelet resource managers, containerd NRI, kernel command line | plan (check mode)'
APPLY = 'Kubelet resource managers, containerd NRI, kernel command line | apply'


def _task(output, name):
    """The status line and the text up to the next task of the task named ``name`` (the last one of that name)."""
    parts = re.split(r'\n(?=TASK \[|RUNNING HANDLER \[|PLAY RECAP)', output)
    found = [part for part in parts if part.startswith('TASK [') and name in part.split('\n', 1)[0]]
    assert found, 'no task %r in:\n%s' % (name, output[-3000:])
    return found[-1]


def test_the_write_is_the_change_with_its_diff_in_check_mode_and_in_the_real_run(top):
    tree = fleet._sandbox(top, 'semantics')
    inventory = fleet._inventory(top, [tree])
    rc, check = fleet._playbook(inventory, 'node_prep.yml', '--check', '--diff', report_dir=str(top / 'r'))
    assert rc == 0, check[-3000:]
    rc, real = fleet._playbook(inventory, 'node_prep.yml', '--diff', report_dir=str(top / 'r'))
    assert rc == 0, real[-3000:]

    plan = _task(check, PLAN)
    assert 'changed: [%s]' % NODE in plan and '+cpuManagerPolicy: static' in plan and 'enable = true' in plan.replace(
        'disable = false', 'enable = true'), plan
    assert APPLY not in check

    plan, apply = _task(real, PLAN), _task(real, APPLY)
    assert 'ok: [%s]' % NODE in plan and '+cpuManagerPolicy: static' not in plan, plan
    assert 'changed: [%s]' % NODE in apply, apply
    assert '+cpuManagerPolicy: static' in apply and 'config.toml' in apply, apply
    assert fleet._recap(check)['changed'] == fleet._recap(real)['changed'] == 1

    rc, again = fleet._playbook(inventory, 'node_prep.yml', '--diff', report_dir=str(top / 'r'))
    assert rc == 0 and fleet._recap(again)['changed'] == 0, again[-3000:]
    rc, check_again = fleet._playbook(inventory, 'node_prep.yml', '--check', '--diff', report_dir=str(top / 'r'))
    assert rc == 0 and fleet._recap(check_again)['changed'] == 0, check_again[-3000:]
