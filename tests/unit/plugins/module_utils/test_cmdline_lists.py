# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kernel arguments the kernel takes several times (cmdline_lists.py through cmdline.py)."""
from __future__ import annotations

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import cmdline as c


def edit(before, args, style='in_place'):
    present, absent = c.parse_wanted(args)
    return c.edit_cmdline(before, present, absent, style)


@pytest.mark.parametrize('before, args, state, after', [
    # a console of the node's is never dropped: ours come after it (the last console is /dev/console)
    ('ro console=tty0 quiet', ['console=ttyS0,115200'], 'present', 'ro console=tty0 console=ttyS0,115200 quiet'),
    ('ro console=ttyS0,115200 console=tty0 quiet', ['console=tty0', 'console=ttyS0,115200'], 'present',
     'ro console=tty0 console=ttyS0,115200 quiet'),
    ('ro console=tty1 console=tty0', ['console=tty0'], 'present', 'ro console=tty1 console=tty0'),
    ('ro memmap=1G$4G quiet'.replace('$', '!'), ['memmap=2G!8G'], 'present', 'ro memmap=1G!4G memmap=2G!8G quiet'),
    # removing is asked for: every value goes
    ('ro console=tty0 console=ttyS0', ['console'], 'absent', 'ro'),
])
def test_list_keys_keep_the_nodes_values(before, args, state, after):
    present, absent = c.parse_wanted(args, state)
    assert c.edit_cmdline(before, present, absent) == after
    assert c.unsatisfied(c.tokenize(after), present, absent) == []
    assert c.edit_cmdline(after, present, absent) == after


def test_list_keys_in_grubby_style_keep_the_nodes_values_first():
    assert edit('ro console=tty0 quiet', ['console=ttyS0,115200'], style='append') == \
        'ro quiet console=tty0 console=ttyS0,115200'
