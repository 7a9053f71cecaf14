# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""irqbalance's IRQBALANCE_BANNED_CPULIST set in its environment file, every other byte kept."""
from __future__ import annotations

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import irqbalance

# the layout of irqbalance's misc/irqbalance.env (installed as /etc/default/irqbalance or /etc/sysconfig/irqbalance)
UPSTREAM = ('# irqbalance is a daemon process that distributes interrupts across\n'
            '# CPUs on SMP systems.\n'
            '#\n'
            '# IRQBALANCE_BANNED_CPUS\n'
            '#    64 bit bitmask ...\n'
            '#\n'
            '#IRQBALANCE_BANNED_CPUS=\n'
            '\n'
            '#\n'
            '# IRQBALANCE_BANNED_CPULIST\n'
            '#    The CPUs list ...\n'
            '#\n'
            '#IRQBALANCE_BANNED_CPULIST=\n'
            '\n'
            '#\n'
            '# IRQBALANCE_ARGS\n'
            '#\n'
            'IRQBALANCE_ARGS=""\n')


def test_added_after_the_commented_template():
    text = irqbalance.set_banned_cpus(UPSTREAM, {2, 3, 4, 5, 9})
    assert text == UPSTREAM.replace('#IRQBALANCE_BANNED_CPULIST=\n',
                                    '#IRQBALANCE_BANNED_CPULIST=\nIRQBALANCE_BANNED_CPULIST=2-5,9\n')
    assert irqbalance.banned_cpus(text) == {2, 3, 4, 5, 9}
    assert irqbalance.set_banned_cpus(text, {2, 3, 4, 5, 9}) == text


def test_the_last_active_line_gets_the_value_comments_kept():
    text = ('# mine: keep IRQs off the DPDK cores\nIRQBALANCE_BANNED_CPULIST=1\nENABLED="1"\n'
            'export IRQBALANCE_BANNED_CPULIST="7"   \nONESHOT="0"\n')
    assert irqbalance.banned_cpus(text) == {7}
    assert irqbalance.set_banned_cpus(text, {2, 3}) == (
        '# mine: keep IRQs off the DPDK cores\nIRQBALANCE_BANNED_CPULIST=1\nENABLED="1"\n'
        'export IRQBALANCE_BANNED_CPULIST=2-3\nONESHOT="0"\n')


def test_same_cpus_in_another_spelling_are_left_alone():
    text = "IRQBALANCE_BANNED_CPULIST='1,2,3,8'\n"
    assert irqbalance.set_banned_cpus(text, {1, 2, 3, 8}) == text


def test_crlf_and_missing_final_newline_kept():
    text = 'ENABLED="1"\r\nONESHOT="0"'
    assert irqbalance.set_banned_cpus(text, {4}) == 'ENABLED="1"\r\nONESHOT="0"\r\nIRQBALANCE_BANNED_CPULIST=4\r\n'
    crlf = 'IRQBALANCE_BANNED_CPULIST=1\r\nX=1\r\n'
    assert irqbalance.set_banned_cpus(crlf, {4}) == 'IRQBALANCE_BANNED_CPULIST=4\r\nX=1\r\n'


def test_new_file():
    assert irqbalance.set_banned_cpus(None, {1, 2}) == 'IRQBALANCE_BANNED_CPULIST=1-2\n'
    assert irqbalance.banned_cpus(None) is None


def test_empty_hex_mask_is_no_obstacle():
    text = 'IRQBALANCE_BANNED_CPUS=\n'
    assert irqbalance.set_banned_cpus(text, {1}) == text + 'IRQBALANCE_BANNED_CPULIST=1\n'


def test_active_hex_mask_is_refused_naming_the_line():
    with pytest.raises(irqbalance.IrqbalanceError) as err:
        irqbalance.set_banned_cpus('ENABLED=1\nIRQBALANCE_BANNED_CPUS="00000f00"\n', {1}, '/etc/sysconfig/irqbalance')
    assert str(err.value) == (
        '/etc/sysconfig/irqbalance line 2: IRQBALANCE_BANNED_CPUS="00000f00" is set, and irqbalance takes that mask '
        'before IRQBALANCE_BANNED_CPULIST, so the banned CPUs would not change; remove or empty that line (the hex '
        'mask is deprecated in irqbalance). Nothing was changed.')


def test_bad_existing_value_is_refused_naming_the_line():
    with pytest.raises(irqbalance.IrqbalanceError) as err:
        irqbalance.set_banned_cpus('#\nIRQBALANCE_BANNED_CPULIST=3-1\n', {1})
    assert str(err.value).startswith('/etc/default/irqbalance line 2: IRQBALANCE_BANNED_CPULIST=3-1: ')
