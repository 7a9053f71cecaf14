# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""memory_qos reads what systemd holds with one ``systemctl show`` per 400 units (docs/memory_qos.md): on a full
node (more than 400 units) the calls are ceil(units / 400), none above 400 units, every unit in exactly one,
all before the first write. systemd is the stand-in FakeSystemd of test_memory_qos.py (this host runs no
systemd for the test's cgroups; the VM scenario runs the real one)."""
from __future__ import annotations

import math
import os

import pytest

from ansible_collections.numaops.colocation.plugins.modules import memory_qos
from ansible_collections.numaops.colocation.tests.standins.cgroup2 import CgroupV2StandIn, build_node
from ansible_collections.numaops.colocation.tests.standins.podgen import busy_node
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.test_memory_qos import FakeSystemd, run

UNITS_PER_SHOW = 400


@pytest.fixture
def full_node(tmp_path, monkeypatch):
    pods, configs = busy_node(pods=110, containers=4)
    standin = build_node(CgroupV2StandIn(str(tmp_path / 'cg')), pods)
    fake = FakeSystemd(standin)
    monkeypatch.setattr(memory_qos, 'use_systemd', lambda params, driver, root: params['systemd_units'] != 'never')
    monkeypatch.setattr(memory_qos.AnsibleModule, 'run_command', lambda self, argv, **kwargs: fake.run_command(argv))
    return standin, pods, configs, fake


def test_one_systemctl_show_per_400_units(capsys, full_node):
    standin, pods, configs, fake = full_node
    res = run(capsys, pods=pods, configs=configs, cgroup_root=standin.root)
    assert not res.get('failed'), res
    shows = [call for call in fake.calls if call[1] == 'show']
    shown = [unit for call in shows for unit in call[4:]]
    # the node is big enough for the promise to matter
    assert len(shown) > UNITS_PER_SHOW, len(shown)
    assert len(shown) == len(set(shown)), 'a unit was asked for twice'
    assert len(shows) == math.ceil(len(shown) / UNITS_PER_SHOW), [len(call) - 4 for call in shows]
    assert all(len(call) - 4 <= UNITS_PER_SHOW for call in shows), [len(call) - 4 for call in shows]
    # every unit the run writes (or would write) was read first, and all reads come before the first write
    assert {os.path.basename(w['cgroup']) for w in res['writes']} <= set(shown)
    assert fake.calls[:len(shows)] == shows
