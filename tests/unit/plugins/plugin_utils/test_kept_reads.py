# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The reads a killed run left on the controller are removed at the next run (plugin_utils/kept_reads.py)."""
from __future__ import annotations

from ansible_collections.numaops.colocation.plugins.plugin_utils import kept_reads

READ = 'numaops-node-read-' + 'a' * 32 + '.json'


def _run_dir(top, pid, random='abcd_123'):
    path = top / ('ansible-local-%d%s' % (pid, random))
    path.mkdir()
    (path / READ).write_text('{"host": "n1", "files": {}}')
    (path / 'other').write_text('ansible')
    return path


def test_run_pid():
    assert kept_reads.run_pid('ansible-local-12345abcd_123') == 12345
    assert kept_reads.run_pid('ansible-local-1234512345678') == 12345
    assert kept_reads.run_pid('ansible-local-abcd_123') is None
    assert kept_reads.run_pid('numaops-coll.x') is None


def test_only_the_reads_of_runs_that_are_gone_are_removed(tmp_path):
    mine = _run_dir(tmp_path, 100)
    gone = _run_dir(tmp_path, 200)
    going = _run_dir(tmp_path, 300)
    removed = kept_reads.sweep(str(mine), alive=lambda pid: pid == 300)
    assert removed == [str(gone / READ)]
    assert not (gone / READ).exists() and (gone / 'other').exists()
    assert (mine / READ).exists() and (going / READ).exists()
    assert kept_reads.sweep(str(mine), alive=lambda pid: pid == 300) == []
    assert kept_reads.sweep(str(tmp_path / 'nowhere' / 'x')) == []
