# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from ansible_collections.numaops.colocation.plugins.module_utils import cpuset


def test_a_cpu_list_read_from_a_node_file_is_parsed_or_noted():
    notes = []
    assert cpuset.parse_read_cpuset(' 0-2,5\n', notes.append) == frozenset([0, 1, 2, 5])
    assert cpuset.parse_read_cpuset(None, notes.append) is None
    assert notes == []
    assert cpuset.parse_read_cpuset('0-x\n', notes.append) is None
    assert len(notes) == 1 and notes[0].startswith('not a CPU list: ') and '"0-x"' in notes[0]
