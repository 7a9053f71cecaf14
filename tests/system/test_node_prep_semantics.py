# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Ansible semantics of playbooks/node_prep.yml on a sandbox node, end to end with ansible-playbook: the task that
writes the node reports changed and shows its diff under --diff in a real run as in check mode; the plan, which
changes nothing, reports ok in a real run; check mode and the real run report the same changed count; the read of
the node's files that a killed run left on the controller is removed at the next run."""
from __future__ import annotations

import re
import subprocess

from ansible_collections.numaops.colocation.tests.system import test_node_prep_fleet as fleet

NODE = fleet.NODE
top = fleet.top_fixture  # noqa: F811  (the same fixture)
PLAN = 'Pre-flight and plan | Read and check the node, plan the kubelet configuration'
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


def test_the_read_a_killed_run_left_on_the_controller_is_removed_at_the_next_run(top, monkeypatch):
    local = top / 'local-tmp'
    local.mkdir(mode=0o700)
    # a run that was killed: its process is gone, its local temporary directory and the read it kept are not
    dead = subprocess.Popen(['true'])
    dead.wait()
    left = local / ('ansible-local-%dq1w2e3r4' % dead.pid)
    left.mkdir(mode=0o700)
    read = left / ('numaops-node-read-%s.json' % ('0' * 32))
    read.write_text('{"host": "%s", "files": {"/etc/containerd/config.toml": "token = \\"secret\\""}}' % NODE)
    monkeypatch.setenv('ANSIBLE_LOCAL_TEMP', str(local))
    tree = fleet._sandbox(top, 'killed')
    rc, out = fleet._playbook(fleet._inventory(top, [tree]), 'node_prep.yml', '--check', report_dir=str(top / 'r'))
    assert rc == 0, out[-3000:]
    assert not read.exists(), 'the read of the killed run is removed'
    assert 'removed 1 read(s) of node files that a run which did not end normally left' in out
    # and this run's own reads are gone with its temporary directory
    assert not list(local.rglob('numaops-node-read-*'))
