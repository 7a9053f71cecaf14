# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import subprocess

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import cmdline as c


def wanted(args, state='present', absent=None):
    return c.parse_wanted(args, state, absent)


# ------------------------------------------------------------------ argument validation

@pytest.mark.parametrize('text, key, value', [
    ('mem_sampling_on', 'mem_sampling_on', None),
    ('numa_icon=enable', 'numa_icon', 'enable'),
    ('numa-icon=enable', 'numa_icon', 'enable'),            # - and _ are the same in names
    ('isolcpus=managed_irq,domain,2-5', 'isolcpus', 'managed_irq,domain,2-5'),
    ('crashkernel=1G-4G:192M,4G-64G:256M', 'crashkernel', '1G-4G:192M,4G-64G:256M'),
    ('systemd.unified_cgroup_hierarchy=1', 'systemd.unified_cgroup_hierarchy', '1'),
    ('video=VGA-1:640x480-32@60me', 'video', 'VGA-1:640x480-32@60me'),
    ('foo=', 'foo', ''),
    ('foo=a=b', 'foo', 'a=b'),
    ('dyndbg="file foo.c +p"', 'dyndbg', 'file foo.c +p'),
    ('  quiet  ', 'quiet', None),
])
def test_parse_arg_accepts(text, key, value):
    arg = c.parse_arg(text)
    assert (arg.key, arg.value) == (key, value)


@pytest.mark.parametrize('text, message', [
    ('', 'empty'),
    ('   ', 'empty'),
    ('--', 'init arguments'),
    ('=x', 'no parameter name'),
    ('-x', 'cannot start with "-"'),
    ('a b', 'double-quoted value'),
    ('foo="a"b', 'double-quoted value'),
    ('foo="a', 'double-quoted value'),
    ('foo=$(reboot)', "contains '$'"),
    ('foo=${x}', "contains '$'"),
    ('foo=`id`', "contains '`'"),
    ("foo='a'", 'contains "\'"'),
    ('foo=a\\b', "contains '\\\\'"),
    ('foo=a;b', "contains ';'"),
    ('foo=a&b', "contains '&'"),
    ('foo=a|b', "contains '|'"),
    ('foo=a>b', "contains '>'"),
    ('foo=#a', "contains '#'"),
    ('foo=(a)', "contains '('"),
    ('foo={a}', "contains '{'"),
    ('foo=a\nb', "contains '\\n'"),
    ('foo=a\tb', "contains '\\t'"),
    (5, 'not a string'),
])
def test_parse_arg_refuses(text, message):
    with pytest.raises(c.CmdlineError) as exc:
        c.parse_arg(text)
    assert message in str(exc.value)


def test_parse_wanted_groups_dedups_and_detects_conflicts():
    present, absent = wanted(['console=tty0', 'quiet', 'console=ttyS0', 'quiet'], absent=['rhgb'])
    got = [(k, [v.raw for v in vs]) for k, vs in present]
    assert got == [('console', ['console=tty0', 'console=ttyS0']), ('quiet', ['quiet'])]
    assert absent == ['rhgb']
    present, absent = wanted(['isolcpus=1', 'quiet'], state='absent')
    assert present == [] and absent == ['isolcpus', 'quiet']
    with pytest.raises(c.CmdlineError, match='conflicting args: isolcpus'):
        wanted(['isolcpus=2-5'], absent=['isolcpus'])
    with pytest.raises(c.CmdlineError, match='conflicting args: numa_icon'):
        wanted(['numa-icon=enable'], absent=['numa_icon'])
    with pytest.raises(c.CmdlineError, match='both as a flag and with a value'):
        wanted(['foo', 'foo=1'])


# ------------------------------------------------------------------ plain command lines

@pytest.mark.parametrize('before, args, state, absent, after', [
    # add flags and key=value at the end, order of the others kept
    ('ro quiet', ['mem_sampling_on', 'numa_icon=enable'], 'present', [], 'ro quiet mem_sampling_on numa_icon=enable'),
    # already there: unchanged
    ('ro mem_sampling_on quiet numa_icon=enable', ['mem_sampling_on', 'numa_icon=enable'], 'present', [],
     'ro mem_sampling_on quiet numa_icon=enable'),
    # new value replaces the old one in place
    ('ro numa_icon=disable quiet', ['numa_icon=enable'], 'present', [], 'ro numa_icon=enable quiet'),
    # duplicates of a key collapse to the wanted value at the first place
    ('isolcpus=1 ro isolcpus=2 quiet', ['isolcpus=3'], 'present', [], 'isolcpus=3 ro quiet'),
    # - and _ are the same in names
    ('ro numa-icon=disable', ['numa_icon=enable'], 'present', [], 'ro numa_icon=enable'),
    # a flag replaces key=value and the other way round
    ('ro foo=1', ['foo'], 'present', [], 'ro foo'),
    ('ro foo', ['foo=1'], 'present', [], 'ro foo=1'),
    # absent removes whatever the value
    ('ro isolcpus=2-5 quiet isolcpus', ['isolcpus'], 'absent', [], 'ro quiet'),
    ('ro isolcpus=2-5 quiet', ['isolcpus=7'], 'absent', [], 'ro quiet'),
    ('ro quiet', ['isolcpus'], 'absent', [], 'ro quiet'),
    # present and absent_args together
    ('ro cgroup_no_v1=all quiet', ['systemd.unified_cgroup_hierarchy=1'], 'present', ['cgroup_no_v1'],
     'ro quiet systemd.unified_cgroup_hierarchy=1'),
    # several values of one key, in order
    ('console=ttyS0 ro', ['console=tty0', 'console=ttyS0'], 'present', [], 'console=tty0 console=ttyS0 ro'),
    # quoted values
    ('ro dyndbg="file a.c +p" quiet', ['dyndbg="file b.c +p"'], 'present', [], 'ro dyndbg="file b.c +p" quiet'),
    ('ro "dyndbg=file a.c +p" quiet', ['dyndbg="file a.c +p"'], 'present', [], 'ro "dyndbg=file a.c +p" quiet'),
    ('ro dyndbg="file a.c +p" quiet', ['dyndbg'], 'absent', [], 'ro quiet'),
    # init arguments after -- are never touched; new args go before --
    ('ro quiet -- single foo=1', ['foo=2'], 'present', [], 'ro quiet foo=2 -- single foo=1'),
    ('ro quiet -- single', ['single'], 'absent', [], 'ro quiet -- single'),
    # variable references are kept and never matched
    ('ro $tuned_params quiet', ['tuned_params'], 'absent', [], 'ro $tuned_params quiet'),
    ('', ['quiet'], 'present', [], 'quiet'),
])
def test_edit_cmdline(before, args, state, absent, after):
    present, absent_keys = wanted(args, state, absent)
    assert c.edit_cmdline(before, present, absent_keys) == after
    # and the result satisfies what was asked, and editing again changes nothing
    assert c.unsatisfied(c.tokenize(after), present, absent_keys) == []
    assert c.edit_cmdline(after, present, absent_keys) == after


@pytest.mark.parametrize('before, args, after', [
    ('ro numa_icon=disable quiet', ['numa_icon=enable'], 'ro quiet numa_icon=enable'),
    ('ro numa_icon=enable quiet', ['numa_icon=enable'], 'ro numa_icon=enable quiet'),
    ('ro quiet $tuned_params', ['mem_sampling_on'], 'ro quiet $tuned_params mem_sampling_on'),
])
def test_edit_cmdline_grubby_style_appends(before, args, after):
    present, absent = wanted(args)
    assert c.edit_cmdline(before, present, absent, style='append') == after


@pytest.mark.parametrize('proc, args, state, missing', [
    ('BOOT_IMAGE=/vmlinuz root=/dev/sda ro quiet\n', ['mem_sampling_on'], 'present', ['mem_sampling_on']),
    ('BOOT_IMAGE=/vmlinuz ro mem_sampling_on numa_icon=enable\n', ['mem_sampling_on', 'numa_icon=enable'],
     'present', []),
    ('ro numa_icon=disable\n', ['numa_icon=enable'], 'present', ['numa_icon=enable']),
    ('ro isolcpus=2\n', ['isolcpus'], 'absent', ['no isolcpus']),
    ('ro "dyndbg=file a.c +p"\x00', ['dyndbg="file a.c +p"'], 'present', []),
    ('ro -- mem_sampling_on\n', ['mem_sampling_on'], 'present', ['mem_sampling_on']),  # init's, not the kernel's
])
def test_unsatisfied_against_proc_cmdline(proc, args, state, missing):
    present, absent = wanted(args, state)
    assert c.unsatisfied(c.proc_cmdline_tokens(proc), present, absent) == missing


# ------------------------------------------------------------------ /etc/default/grub

DEBIAN = '''GRUB_DEFAULT=0
GRUB_TIMEOUT=5
GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`
GRUB_CMDLINE_LINUX_DEFAULT="quiet"
GRUB_CMDLINE_LINUX=""
'''


@pytest.mark.parametrize('before, args, state, absent, after', [
    # new keys go to GRUB_CMDLINE_LINUX, other lines byte-identical
    (DEBIAN, ['mem_sampling_on', 'numa_icon=enable'], 'present', [],
     DEBIAN.replace('GRUB_CMDLINE_LINUX=""', 'GRUB_CMDLINE_LINUX="mem_sampling_on numa_icon=enable"')),
    # a key in _DEFAULT is changed where it is
    (DEBIAN, ['quiet'], 'absent', [], DEBIAN.replace('GRUB_CMDLINE_LINUX_DEFAULT="quiet"', 'GRUB_CMDLINE_LINUX_DEFAULT=""')),
    # single quotes kept
    ("GRUB_CMDLINE_LINUX='ro quiet'\n", ['numa_icon=enable'], 'present', [],
     "GRUB_CMDLINE_LINUX='ro quiet numa_icon=enable'\n"),
    # unquoted kept when still one word, else double quoted
    ('GRUB_CMDLINE_LINUX=quiet\n', ['quiet'], 'present', [], 'GRUB_CMDLINE_LINUX=quiet\n'),
    ('GRUB_CMDLINE_LINUX=quiet\n', ['numa_icon=enable'], 'present', [],
     'GRUB_CMDLINE_LINUX="quiet numa_icon=enable"\n'),
    ('GRUB_CMDLINE_LINUX=\n', ['numa_icon=enable'], 'present', [], 'GRUB_CMDLINE_LINUX=numa_icon=enable\n'),
    # quoted values escaped for the shell
    ('GRUB_CMDLINE_LINUX="ro"\n', ['dyndbg="file a.c +p"'], 'present', [],
     'GRUB_CMDLINE_LINUX="ro dyndbg=\\"file a.c +p\\""\n'),
    ('GRUB_CMDLINE_LINUX="ro dyndbg=\\"file a.c +p\\""\n', ['dyndbg'], 'absent', [], 'GRUB_CMDLINE_LINUX="ro"\n'),
    ("GRUB_CMDLINE_LINUX='ro'\n", ['dyndbg="file a.c +p"'], 'present', [],
     "GRUB_CMDLINE_LINUX='ro dyndbg=\"file a.c +p\"'\n"),
    # continuation lines: read across lines, written back on one line
    ('GRUB_CMDLINE_LINUX="ro \\\n  quiet"\nGRUB_X=1\n', ['numa_icon=enable'], 'present', [],
     'GRUB_CMDLINE_LINUX="ro quiet numa_icon=enable"\nGRUB_X=1\n'),
    ('GRUB_CMDLINE_LINUX="ro \\\n  quiet"\nGRUB_X=1\n', ['quiet'], 'present', [],
     'GRUB_CMDLINE_LINUX="ro \\\n  quiet"\nGRUB_X=1\n'),
    # variable references kept, self-appending assignment is live
    ('GRUB_CMDLINE_LINUX="ro"\nGRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX_XEN ${GRUB_CMDLINE_LINUX} quiet"\n',
     ['numa_icon=enable'], 'present', [],
     'GRUB_CMDLINE_LINUX="ro"\nGRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX_XEN ${GRUB_CMDLINE_LINUX} quiet numa_icon=enable"\n'),
    # a key already in the first of two live assignments is changed there
    ('GRUB_CMDLINE_LINUX="isolcpus=1"\nGRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX quiet"\n', ['isolcpus=2'], 'present', [],
     'GRUB_CMDLINE_LINUX="isolcpus=2"\nGRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX quiet"\n'),
    # an overridden (dead) assignment is not where a key is looked for, and is left alone
    ('GRUB_CMDLINE_LINUX="isolcpus=1"\nGRUB_CMDLINE_LINUX="quiet"\n', ['isolcpus=2'], 'present', [],
     'GRUB_CMDLINE_LINUX="isolcpus=1"\nGRUB_CMDLINE_LINUX="quiet isolcpus=2"\n'),
    # the same key in both variables: one place left
    ('GRUB_CMDLINE_LINUX="isolcpus=1"\nGRUB_CMDLINE_LINUX_DEFAULT="quiet isolcpus=1"\n', ['isolcpus=1'], 'present', [],
     'GRUB_CMDLINE_LINUX="isolcpus=1"\nGRUB_CMDLINE_LINUX_DEFAULT="quiet"\n'),
    # export, indentation and trailing comment kept
    ('  export GRUB_CMDLINE_LINUX="ro"  # mine\n', ['quiet'], 'present', [],
     '  export GRUB_CMDLINE_LINUX="ro quiet"  # mine\n'),
    # no assignment at all: one is added
    ('GRUB_TIMEOUT=5', ['quiet'], 'present', [], 'GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX="quiet"\n'),
    ('', ['quiet'], 'absent', [], ''),
])
def test_edit_grub_defaults(before, args, state, absent, after):
    present, absent_keys = wanted(args, state, absent)
    assert c.edit_grub_defaults(before, present, absent_keys) == after
    assert c.edit_grub_defaults(after, present, absent_keys) == after


def test_edit_grub_defaults_variable_choice():
    present, absent = wanted(['numa_icon=enable'])
    out = c.edit_grub_defaults(DEBIAN, present, absent, variable='GRUB_CMDLINE_LINUX_DEFAULT')
    assert 'GRUB_CMDLINE_LINUX_DEFAULT="quiet numa_icon=enable"' in out


def test_edited_defaults_are_valid_shell():
    text = DEBIAN + "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX rd.lvm.lv=x/root\"\n"
    present, absent = wanted(['dyndbg="file a.c +p"', 'numa_icon=enable', 'mem_sampling_on'])
    out = c.edit_grub_defaults(text, present, absent)
    shell = subprocess.run(['sh', '-c', out.replace('`lsb_release -i -s 2> /dev/null || echo Debian`', 'Debian')
                            + '\nprintf "%s" "$GRUB_CMDLINE_LINUX"'], capture_output=True, text=True, check=True)
    assert shell.stdout == ' rd.lvm.lv=x/root dyndbg="file a.c +p" numa_icon=enable mem_sampling_on'
    assert c.grub_defaults_cmdline(out)['GRUB_CMDLINE_LINUX'] == c.tokenize(shell.stdout)


@pytest.mark.parametrize('text, message', [
    ('GRUB_CMDLINE_LINUX="$(cat /x)"\n', 'command substitution'),
    ('GRUB_CMDLINE_LINUX=`cat /x`\n', 'command substitution'),
    ('GRUB_CMDLINE_LINUX="ro\n', 'unterminated double quote'),
    ('GRUB_CMDLINE_LINUX="ro" quiet\n', 'is followed by'),
    ("GRUB_CMDLINE_LINUX='$x'\n", '"$" inside single quotes'),
])
def test_grub_defaults_refused(text, message):
    present, absent = wanted(['quiet'])
    with pytest.raises(c.CmdlineError) as exc:
        c.edit_grub_defaults(text, present, absent, path='/etc/default/grub')
    assert message in str(exc.value) and '/etc/default/grub line 1' in str(exc.value)


# ------------------------------------------------------------------ BLS entries (grub.cfg: test_grub.py)


def test_bls_entry_options():
    entry = 'title X\nlinux /vmlinuz\noptions root=/dev/sda ro quiet $tuned_params\ngrub_class x\n'
    present, absent = wanted(['mem_sampling_on'], absent=['quiet'])
    out = c.edit_bls_entry(entry, present, absent)
    assert c.bls_options(out) == 'root=/dev/sda ro $tuned_params mem_sampling_on'
    assert out.endswith('grub_class x\n')
    assert c.bls_options(c.edit_bls_entry('title X\n', present, absent)) == 'mem_sampling_on'
