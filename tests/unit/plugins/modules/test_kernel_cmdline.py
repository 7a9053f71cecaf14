# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kernel_cmdline against sandbox trees: the real Debian grub-mkconfig / grub-script-check (run in a
private mount namespace by tests/standins/grub_sandbox.py), the grubby stand-in for BLS layouts."""
from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys

import pytest

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common import warnings as module_warnings

from ansible_collections.numaops.colocation.plugins.module_utils import cmdline_hugepages, nodefile
from ansible_collections.numaops.colocation.plugins.modules import kernel_cmdline
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.module_runner import run_module

TESTS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(os.path.dirname(TESTS), 'standins'))
import grub_sandbox  # noqa: E402  pylint: disable=wrong-import-position

SCRIPT_CHECK = shutil.which('grub-script-check') or '/usr/bin/grub-script-check'
HAVE_GRUB = os.path.exists(grub_sandbox.REAL_MKCONFIG) and os.path.exists(SCRIPT_CHECK)


def can_unshare():
    if not HAVE_GRUB or os.geteuid() != 0 or not shutil.which('unshare'):
        return False
    return subprocess.call(['unshare', '--mount', 'true'], stderr=subprocess.DEVNULL) == 0


needs_grub = pytest.mark.skipif(not can_unshare(), reason='needs root, unshare and the Debian grub tools '
                                                          '(grub-common, grub2-common)')
WANT = ['mem_sampling_on', 'numa_icon=enable']


def run(capsys, check=False, diff=False, **args):
    # each run starts with no warnings, as in its own process on a node (ansible-core keeps them process-wide)
    module_warnings._global_warnings.clear()
    res = run_module(kernel_cmdline, capsys, check_mode=check, diff=diff, **args)
    print(res.get("msg"), file=sys.stderr)
    return res


def warnings_of(res):
    """Warning texts (ansible-core 2.19 returns structured warning summaries, older ones plain strings)."""
    return [w if isinstance(w, str) else json.dumps(w) for w in res.get('warnings', [])]


def sandbox(tmp_path, layout, **kw):
    return grub_sandbox.build(layout, str(tmp_path / layout), **kw)


def common(root, **extra):
    args = dict(grub_defaults_path=root + '/etc/default/grub', boot_dir=root + '/boot',
                proc_cmdline_path=root + '/proc/cmdline', grub_script_check_path=SCRIPT_CHECK,
                grubby_path=None, update_grub_path=None)
    args.update(extra)
    return dict((k, v) for k, v in args.items() if v is not None)


def snapshot(root):
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        if '/etc/grub.d' in dirpath or '/usr/sbin' in dirpath:
            continue
        for f in files:
            p = os.path.join(dirpath, f)
            if os.path.isfile(p):
                with open(p, 'rb') as fh:
                    out[p] = fh.read()
    return out


def linux_lines(path):
    with open(path) as f:
        return [line.split()[2:] for line in f if line.strip().startswith(('linux\t', 'linux ', 'linux16', 'linuxefi'))]


# ------------------------------------------------------------------ Debian / update-grub


@needs_grub
def test_update_grub_generates_checks_and_is_idempotent(tmp_path, capsys):
    root = sandbox(tmp_path, 'debian')
    args = common(root, args=WANT, update_grub_path=root + '/usr/sbin/update-grub',
                  grub_mkconfig_path=root + '/usr/sbin/grub-mkconfig')
    predicted = run(capsys, check=True, diff=True, **args)
    assert predicted['changed'] is True and predicted['backend'] == 'update-grub'
    assert predicted['reboot_required'] is True
    assert not os.path.exists(root + '/boot/grub/grub.cfg')  # check mode wrote nothing
    res = run(capsys, diff=True, **args)
    assert res['changed'] is True
    assert res['grub_cfg_paths'] == [root + '/boot/grub/grub.cfg']
    with open(root + '/etc/default/grub') as f:
        assert 'GRUB_CMDLINE_LINUX="mem_sampling_on numa_icon=enable"\n' in f.read()
    lines = linux_lines(root + '/boot/grub/grub.cfg')
    assert lines and all('mem_sampling_on' in toks and 'numa_icon=enable' in toks for toks in lines)
    assert res['cmdline_next'].endswith('ro mem_sampling_on numa_icon=enable quiet')
    assert predicted['diff'][0]['after'] == res['diff'][0]['after']  # check mode predicted the defaults file
    assert res['reboot_required'] is True  # /proc/cmdline still shows the old boot
    again = run(capsys, **args)
    assert again['changed'] is False and again['grub_cfg_paths'] == []
    assert again['reboot_required'] is True
    # after a "reboot" with the new command line nothing is required any more
    with open(root + '/proc/cmdline', 'w') as f:
        f.write('BOOT_IMAGE=/boot/vmlinuz-6.1.0-28-amd64 root=/dev/vda ro mem_sampling_on numa_icon=enable quiet\n')
    assert run(capsys, **args)['reboot_required'] is False
    # replace a value, then remove it whatever its value
    res = run(capsys, **dict(args, args=['numa_icon=disable']))
    assert res['changed'] is True and 'numa_icon=disable' in linux_lines(root + '/boot/grub/grub.cfg')[0]
    res = run(capsys, **dict(args, args=['numa_icon'], state='absent'))
    assert res['changed'] is True
    assert not any(t.startswith('numa_icon') for t in linux_lines(root + '/boot/grub/grub.cfg')[0])


@needs_grub
def test_broken_grub_d_never_installs_and_restores_defaults(tmp_path, capsys):
    root = sandbox(tmp_path, 'debian', broken_grub_d=True)
    cfg = root + '/boot/grub/grub.cfg'
    with open(cfg, 'w') as f:
        f.write('# the config that boots today\nmenuentry x {\n\tlinux /vmlinuz root=/dev/vda ro quiet\n}\n')
    before = snapshot(root)
    res = run(capsys, **common(root, args=WANT, backend='update-grub', grub_mkconfig_path=root + '/usr/sbin/grub-mkconfig'))
    assert res['failed'] is True
    assert 'nothing was installed' in res['msg']
    assert snapshot(root) == before  # every file byte-identical, no temp file left behind
    assert not glob.glob(root + '/boot/grub/.grub.cfg.*')


@needs_grub
def test_broken_output_caught_by_our_own_script_check(tmp_path, capsys):
    # a generator that does not check its output itself (unlike grub-mkconfig): our grub-script-check must
    root = sandbox(tmp_path, 'openeuler-bios')
    gen = root + '/usr/sbin/sloppy-mkconfig'
    with open(gen, 'w') as f:
        f.write('#!/bin/sh\n[ "$1" = -o ] && printf "menuentry x {\\n linux /v mem_sampling_on numa_icon=enable\\n" > "$2"\n')
    os.chmod(gen, 0o755)
    before = snapshot(root)
    res = run(capsys, **common(root, args=WANT, backend='grub2-mkconfig', grub_mkconfig_path=gen))
    assert res['failed'] is True and 'rejected the generated grub.cfg' in res['msg']
    assert snapshot(root) == before


# ------------------------------------------------------------------ openEuler / grub2-mkconfig


@needs_grub
def test_openeuler_bios_follows_grub2_cfg_link(tmp_path, capsys):
    root = sandbox(tmp_path, 'openeuler-bios')
    args = common(root, args=WANT, grub_mkconfig_path=root + '/usr/sbin/grub2-mkconfig')
    res = run(capsys, **args)
    assert res['backend'] == 'grub2-mkconfig' and res['changed'] is True
    assert res['grub_cfg_paths'] == [root + '/boot/grub2/grub.cfg']
    assert any('grub2-efi.cfg' in n and 'does not exist' in n for n in res['notes'])
    assert all('numa_icon=enable' in toks for toks in linux_lines(root + '/boot/grub2/grub.cfg'))
    assert run(capsys, **args)['changed'] is False


@needs_grub
def test_openeuler_latin1_comment_in_defaults_returns_a_valid_result_in_check_and_real_runs(tmp_path, capsys):
    # a Latin-1 comment in /etc/default/grub: the file keeps its byte, the diff shows it as \\xfc, and the result is
    # valid UTF-8 (the controller refuses one that is not, after the node was changed)
    root = sandbox(tmp_path, 'openeuler-efi')
    defaults = root + '/etc/default/grub'
    with open(defaults, 'rb') as f:
        data = f.read()
    with open(defaults, 'wb') as f:
        f.write(b'# GRUB f\xfcr openEuler\n' + data)
    args = common(root, args=WANT, grub_mkconfig_path=root + '/usr/sbin/grub2-mkconfig')
    for check in (True, False):
        res = run(capsys, check=check, diff=True, **args)
        assert res.get('failed') is not True and res['changed'] is True, res.get('msg')
        json.dumps(res, ensure_ascii=False).encode('utf-8')  # raises on text that is not valid UTF-8
        before = [d['before'] for d in res['diff'] if d['before_header'] == defaults][0]
        assert before.startswith('# GRUB f\\xfcr openEuler\n')
    with open(defaults, 'rb') as f:
        assert f.read().startswith(b'# GRUB f\xfcr openEuler\n')
    assert run(capsys, diff=True, **args)['changed'] is False


@needs_grub
def test_openeuler_efi_regenerates_the_efi_file(tmp_path, capsys):
    root = sandbox(tmp_path, 'openeuler-efi')
    efi = root + '/boot/efi/EFI/openEuler/grub.cfg'
    args = common(root, args=WANT, grub_mkconfig_path=root + '/usr/sbin/grub2-mkconfig')
    predicted = run(capsys, check=True, diff=True, **args)
    assert predicted['grub_cfg_paths'] == [efi]
    # the check-mode grub.cfg diff is the predicted edit of the linuxefi lines
    assert 'linuxefi /vmlinuz-5.10.0-136.12.0.86.oe2203sp1.x86_64 root=/dev/mapper/openeuler-root ro ' \
           'rd.lvm.lv=openeuler/root rd.lvm.lv=openeuler/swap video=VGA-1:640x480-32@60me cgroup_disable=files ' \
           'apparmor=0 crashkernel=512M rhgb quiet mem_sampling_on numa_icon=enable' in predicted['diff'][1]['after']
    res = run(capsys, **args)
    assert res['grub_cfg_paths'] == [efi]
    # exact but for root=: the fixture was generated on openEuler, the sandbox generator probes this host's root
    assert predicted['cmdline_next'].split()[0] == 'root=/dev/mapper/openeuler-root'
    assert res['cmdline_next'].split()[0].startswith('root=')
    assert res['cmdline_next'].split()[1:] == predicted['cmdline_next'].split()[1:]
    assert all('mem_sampling_on' in toks for toks in linux_lines(efi))
    assert not os.path.exists(root + '/boot/grub2/grub.cfg')  # the dangling /etc/grub2.cfg was not "fixed"
    assert run(capsys, **args)['changed'] is False


@needs_grub
def test_openeuler_efi_stub_regenerates_its_target_not_the_stub(tmp_path, capsys):
    root = sandbox(tmp_path, 'openeuler-efi-stub')
    stub = root + '/boot/efi/EFI/openEuler/grub.cfg'
    with open(stub) as f:
        stub_text = f.read()
    res = run(capsys, **common(root, args=WANT, grub_mkconfig_path=root + '/usr/sbin/grub2-mkconfig'))
    assert res['grub_cfg_paths'] == [root + '/boot/grub2/grub.cfg']
    assert any('stub' in n for n in res['notes'])
    with open(stub) as f:
        assert f.read() == stub_text
    assert 'mem_sampling_on' in linux_lines(root + '/boot/grub2/grub.cfg')[0]


@needs_grub
def test_both_links_regenerated_when_both_exist(tmp_path, capsys):
    root = sandbox(tmp_path, 'openeuler-efi')
    shutil.copy(root + '/boot/efi/EFI/openEuler/grub.cfg', root + '/boot/grub2/grub.cfg')
    res = run(capsys, **common(root, args=WANT, backup=True, grub_mkconfig_path=root + '/usr/sbin/grub2-mkconfig'))
    assert sorted(res['grub_cfg_paths']) == sorted([root + '/boot/grub2/grub.cfg', root + '/boot/efi/EFI/openEuler/grub.cfg'])
    for p in res['grub_cfg_paths']:
        assert 'numa_icon=enable' in linux_lines(p)[0]
    assert len(res['backup_files']) == 3  # /etc/default/grub and both grub.cfg


# ------------------------------------------------------------------ grubcfg (openFuyao: edit /etc/grub2-efi.cfg)


def test_grubcfg_edits_linux_lines_through_the_link(tmp_path, capsys):
    root = grub_sandbox.build('openeuler-efi', str(tmp_path / 'oe'))
    efi = root + '/boot/efi/EFI/openEuler/grub.cfg'
    args = common(root, args=WANT + ['crashkernel=1024M'], backend='grubcfg', grub_cfg_paths=[root + '/etc/grub2-efi.cfg'])
    if not os.path.exists(SCRIPT_CHECK):
        del args['grub_script_check_path']
    predicted = run(capsys, check=True, diff=True, **args)
    assert predicted['changed'] is True and predicted['grub_cfg_paths'] == [efi]
    res = run(capsys, **args)
    assert res['cmdline_next'] == predicted['cmdline_next']
    for toks in linux_lines(efi):
        assert toks[-3:] == ['quiet', 'mem_sampling_on', 'numa_icon=enable']
        assert 'crashkernel=1024M' in toks and 'crashkernel=512M' not in toks
    assert os.path.islink(root + '/etc/grub2-efi.cfg')  # the link is kept, its target edited
    with open(root + '/etc/default/grub') as f:
        assert 'crashkernel=1024M' in f.read()  # kept in step for a later regeneration
    assert run(capsys, **args)['changed'] is False


# ------------------------------------------------------------------ grubby (stand-in) with BLS entries


def test_grubby_updates_all_entries_and_defaults(tmp_path, capsys):
    root = grub_sandbox.build('bls', str(tmp_path / 'bls'))
    args = common(root, args=WANT + ['rhgb'], absent_args=['quiet'], grubby_path=root + '/usr/sbin/grubby',
                  bls_dir=root + '/boot/loader/entries')
    args.pop('grub_script_check_path')
    predicted = run(capsys, check=True, **args)
    assert predicted['backend'] == 'grubby' and predicted['changed'] is True
    assert len(predicted['grub_cfg_paths']) == 3
    res = run(capsys, **args)
    assert res['cmdline_next'] == predicted['cmdline_next']
    assert res['cmdline_next'].startswith('root=/dev/mapper/rl-root ro ')
    assert res['cmdline_next'].endswith('rhgb $tuned_params mem_sampling_on numa_icon=enable')
    for f in glob.glob(root + '/boot/loader/entries/*.conf'):
        with open(f) as fh:
            opts = [line for line in fh if line.startswith('options ')][0].split()
        assert 'mem_sampling_on' in opts and 'numa_icon=enable' in opts and 'quiet' not in opts
    with open(root + '/etc/default/grub') as f:
        text = f.read()
    assert 'rd.lvm.lv=rl/swap rhgb mem_sampling_on numa_icon=enable"' in text
    again = run(capsys, **args)
    assert again['changed'] is False and again['reboot_required'] is True


def test_grubby_failure_restores_entries(tmp_path, capsys):
    root = grub_sandbox.build('bls', str(tmp_path / 'bls'))
    # a quoted value with a space: grubby splits --remove-args on blanks and leaves half of it behind
    entry = sorted(glob.glob(root + '/boot/loader/entries/*.conf'))[0]
    with open(entry) as f:
        text = f.read()
    with open(entry, 'w') as f:
        f.write(text.replace(' quiet', ' quiet dyndbg="file foo.c +p"'))
    before = snapshot(root)
    res = run(capsys, **common(root, args=['dyndbg'], state='absent', grubby_path=root + '/usr/sbin/grubby',
                               bls_dir=root + '/boot/loader/entries', grub_script_check_path=None))
    assert res['failed'] is True and 'restored' in res['msg']
    assert snapshot(root) == before


# ------------------------------------------------------------------ errors


def test_no_boot_loader_found(tmp_path, capsys):
    root = str(tmp_path)
    os.makedirs(root + '/etc/default')
    os.makedirs(root + '/boot')
    os.makedirs(root + '/proc')
    with open(root + '/proc/cmdline', 'w') as f:
        f.write('ro quiet\n')
    missing = str(tmp_path / 'not-installed')
    not_executable = root + '/etc/default/grub'
    with open(not_executable, 'w') as f:
        f.write('GRUB_CMDLINE_LINUX=""\n')
    # every tool option points at a file that is absent or not executable: the host's tools are never looked up
    before = snapshot(root)
    res = run(capsys, **common(root, args=WANT, grub_script_check_path=None, grubby_path=missing + '/grubby',
                               grub_mkconfig_path=not_executable, update_grub_path=missing + '/update-grub'))
    assert res['failed'] is True
    assert res['msg'].startswith('no supported boot loader found')
    assert 'tools found: none' in res['msg']
    assert snapshot(root) == before


@pytest.mark.parametrize('bad, expect', [
    (['isolcpus=$(reboot)'], "contains '$'"),
    (['foo=a b'], 'double-quoted value'),
    (["foo='x'"], "contains \"'\""),
    (['foo=`id`'], "contains '`'"),
    (['--'], 'init arguments'),
])
def test_bad_values_refused_and_files_untouched(tmp_path, capsys, bad, expect):
    root = grub_sandbox.build('openeuler-efi', str(tmp_path / 'oe'))
    before = snapshot(root)
    res = run(capsys, **common(root, args=bad, backend='grubcfg', grub_script_check_path=None))
    assert res['failed'] is True and expect in res['msg']
    assert snapshot(root) == before


def test_conflicting_args(tmp_path, capsys):
    root = grub_sandbox.build('openeuler-efi', str(tmp_path / 'oe'))
    res = run(capsys, **common(root, args=['isolcpus=2-5'], absent_args=['isolcpus'], backend='grubcfg',
                               grub_script_check_path=None))
    assert res['failed'] is True and 'conflicting args: isolcpus' in res['msg']


@needs_grub
def test_diff_only_in_diff_mode(tmp_path, capsys):
    root = sandbox(tmp_path, 'debian')
    args = common(root, args=WANT, backend='update-grub', grub_mkconfig_path=root + '/usr/sbin/grub-mkconfig')
    assert 'diff' not in run(capsys, check=True, **args)
    assert run(capsys, check=True, diff=True, **args)['diff']


# ------------------------------------------------------------------ every failure restores every file


def test_missing_grub_dir_fails_before_touching_anything(tmp_path, capsys):
    # update-grub on a node without /boot/grub (grub never installed there): no mkstemp traceback, nothing edited
    root = sandbox(tmp_path, 'debian')
    shutil.rmtree(root + '/boot/grub')
    before = snapshot(root)
    res = run(capsys, **common(root, args=WANT, backend='update-grub', grub_script_check_path=None,
                               grub_mkconfig_path=root + '/usr/sbin/grub-mkconfig'))
    assert res['failed'] is True
    assert 'the directory %s/boot/grub of the grub.cfg to generate' % root in res['msg']
    assert 'does not exist; nothing was changed' in res['msg']
    assert snapshot(root) == before  # /etc/default/grub byte-identical


def test_os_error_after_defaults_written_restores_them(tmp_path, capsys, monkeypatch):
    # an OSError once /etc/default/grub is written (the temporary grub.cfg cannot be created) is not a traceback:
    # the defaults file is put back and the message names the file and the error
    root = sandbox(tmp_path, 'debian')
    cfg = root + '/boot/grub/grub.cfg'
    real_mkstemp = nodefile.tempfile.mkstemp

    def mkstemp(prefix='', suffix='', dir=None):  # noqa: A002  pylint: disable=redefined-builtin
        if dir == os.path.dirname(cfg):
            raise OSError(28, 'No space left on device', dir)
        return real_mkstemp(prefix=prefix, suffix=suffix, dir=dir)

    monkeypatch.setattr(nodefile.tempfile, 'mkstemp', mkstemp)
    before = snapshot(root)
    res = run(capsys, **common(root, args=WANT, backend='update-grub', grub_script_check_path=None,
                               grub_mkconfig_path=root + '/usr/sbin/grub-mkconfig'))
    assert res['failed'] is True
    assert 'cannot create a temporary file in %s for %s' % (os.path.dirname(cfg), cfg) in res['msg']
    assert 'No space left on device' in res['msg']
    assert 'restored byte for byte: %s/etc/default/grub' % root in res['msg']
    assert snapshot(root) == before


@needs_grub
@pytest.mark.parametrize('how', ['fail_json', 'raise'])
def test_failed_second_move_restores_first_cfg_and_defaults(tmp_path, capsys, monkeypatch, how):
    # atomic_move reports through fail_json (ansible-core < 2.19) or raises (2.19+); either way the first
    # grub.cfg, already installed, and /etc/default/grub are put back
    root = sandbox(tmp_path, 'openeuler-efi')
    shutil.copy(root + '/boot/efi/EFI/openEuler/grub.cfg', root + '/boot/grub2/grub.cfg')
    args = common(root, args=WANT, grub_mkconfig_path=root + '/usr/sbin/grub2-mkconfig')
    first, second = run(capsys, check=True, **args)['grub_cfg_paths']
    real_move = AnsibleModule.atomic_move
    moved = []

    def atomic_move(self, src, dest, *a, **kw):
        if dest == second and src.endswith('.numaops') and not moved:
            moved.append(dest)
            if how == 'fail_json':
                self.fail_json(msg='Could not replace file: %s to %s: [Errno 28] No space left on device' % (src, dest))
            raise Exception('Could not replace %r with %r.' % (dest, src)) from OSError(28, 'No space left on device')
        return real_move(self, src, dest, *a, **kw)

    monkeypatch.setattr(AnsibleModule, 'atomic_move', atomic_move)
    before = snapshot(root)
    res = run(capsys, **args)
    assert moved == [second]
    assert res['failed'] is True
    assert res['msg'].startswith('cannot write %s: ' % second)
    assert 'No space left on device' in res['msg']
    assert first in res['msg'].split('restored byte for byte:')[1]
    assert root + '/etc/default/grub' in res['msg'].split('restored byte for byte:')[1]
    after = snapshot(root)
    # the Debian generator standing in for grub2-mkconfig creates <boot>/grub/grubenv on its own, as it does on Debian
    after.pop(root + '/boot/grub/grubenv', None)
    assert after == before  # both grub.cfg and the defaults byte-identical, no temporary file left


# ------------------------------------------------------------------ grub-script-check


@pytest.mark.parametrize('make', ['missing', 'not-executable'])
def test_given_script_check_path_must_be_executable(tmp_path, capsys, make):
    root = grub_sandbox.build('openeuler-efi', str(tmp_path / 'oe'))
    checker = root + '/usr/sbin/grub2-script-check'
    if make == 'not-executable':
        with open(checker, 'w') as f:
            f.write('#!/bin/sh\nexit 0\n')
        os.chmod(checker, 0o644)
    before = snapshot(root)
    res = run(capsys, **common(root, args=WANT, backend='grubcfg', grub_script_check_path=checker))
    assert res['failed'] is True
    assert res['msg'].startswith('grub_script_check_path: %s is not an executable file; nothing was changed' % checker)
    assert snapshot(root) == before


@pytest.mark.parametrize('check', [True, False])
def test_no_script_check_warns(tmp_path, capsys, monkeypatch, check):
    real = AnsibleModule.get_bin_path

    def get_bin_path(self, arg, *a, **kw):
        return None if 'script-check' in arg else real(self, arg, *a, **kw)

    monkeypatch.setattr(AnsibleModule, 'get_bin_path', get_bin_path)
    root = grub_sandbox.build('openeuler-efi', str(tmp_path / 'oe'))
    args = common(root, args=WANT, backend='grubcfg', grub_cfg_paths=[root + '/etc/grub2-efi.cfg'],
                  grub_script_check_path=None)
    res = run(capsys, check=check, **args)
    assert res['changed'] is True and not res.get('failed')
    warning = [w for w in warnings_of(res) if 'grub-script-check' in w]
    assert len(warning) == 1 and 'without a syntax check' in warning[0]
    assert any(n in warning[0] and 'without a syntax check' in n for n in res['notes'])
    if not check:
        # nothing to install, nothing to warn about
        again = run(capsys, **args)
        assert again['changed'] is False and not again.get('warnings')


# ------------------------------------------------------------------ check mode predicts cmdline_next


@needs_grub
@pytest.mark.parametrize('steps', [
    [dict(args=WANT)],
    [dict(args=WANT, grub_defaults_variable='GRUB_CMDLINE_LINUX_DEFAULT')],
    [dict(args=WANT), dict(args=['numa_icon=disable', 'quiet'], absent_args=['mem_sampling_on'])],
    [dict(args=WANT), dict(args=['numa-icon'], state='absent')],
])
def test_check_mode_predicts_the_regenerated_cmdline(tmp_path, capsys, steps):
    # grub.cfg exists and was generated from the current /etc/default/grub: the prediction is exact
    root = sandbox(tmp_path, 'debian')
    cfg = root + '/boot/grub/grub.cfg'
    grub_sandbox.generate_initial(root, cfg)
    for step in steps:
        args = common(root, backend='update-grub', grub_mkconfig_path=root + '/usr/sbin/grub-mkconfig', **step)
        predicted = run(capsys, check=True, diff=True, **args)
        res = run(capsys, diff=True, **args)
        assert predicted['changed'] is res['changed'] is True
        assert predicted['cmdline_next'] == res['cmdline_next']
        assert res['cmdline_next'] == ' '.join(linux_lines(cfg)[0])
        # the predicted grub.cfg diff has the linux lines the generator wrote
        after = dict((d['after_header'], d['after']) for d in predicted['diff'])[cfg]
        predicted_lines = [line.split()[2:] for line in after.splitlines() if line.strip().startswith('linux')]
        assert predicted_lines == linux_lines(cfg)


@needs_grub
def test_check_mode_predicts_a_stale_cfg(tmp_path, capsys):
    # an interrupted run: /etc/default/grub already has the args, grub.cfg does not - the generator's
    # "root=... ro" start is kept and the args are put in the order grub-mkconfig writes them
    root = sandbox(tmp_path, 'debian')
    cfg = root + '/boot/grub/grub.cfg'
    grub_sandbox.generate_initial(root, cfg)
    with open(root + '/etc/default/grub') as f:
        text = f.read()
    with open(root + '/etc/default/grub', 'w') as f:
        f.write(text.replace('GRUB_CMDLINE_LINUX=""', 'GRUB_CMDLINE_LINUX="mem_sampling_on numa_icon=enable"'))
    args = common(root, args=WANT, backend='update-grub', grub_mkconfig_path=root + '/usr/sbin/grub-mkconfig')
    predicted = run(capsys, check=True, **args)
    res = run(capsys, **args)
    assert predicted['changed'] is res['changed'] is True
    assert predicted['cmdline_next'] == res['cmdline_next']
    assert res['cmdline_next'].endswith(' ro mem_sampling_on numa_icon=enable quiet')


@needs_grub
@pytest.mark.parametrize('variable', ['GRUB_CMDLINE_LINUX', 'GRUB_CMDLINE_LINUX_DEFAULT'])
def test_check_mode_without_grub_cfg_lists_the_defaults_args(tmp_path, capsys, variable):
    # first run of update-grub, no grub.cfg yet: as documented, only GRUB_CMDLINE_LINUX followed by
    # GRUB_CMDLINE_LINUX_DEFAULT - the root= and ro the generator adds cannot be known without running it
    root = sandbox(tmp_path, 'debian')
    args = common(root, args=WANT, backend='update-grub', grub_defaults_variable=variable,
                  grub_mkconfig_path=root + '/usr/sbin/grub-mkconfig')
    predicted = run(capsys, check=True, **args)
    assert not os.path.exists(root + '/boot/grub/grub.cfg')
    expect = 'mem_sampling_on numa_icon=enable quiet' if variable == 'GRUB_CMDLINE_LINUX' else 'quiet mem_sampling_on numa_icon=enable'
    assert predicted['cmdline_next'] == expect
    res = run(capsys, **args)
    generated = res['cmdline_next'].split()
    assert generated[0].startswith('root=') and generated[1] == 'ro'
    assert generated[2:] == predicted['cmdline_next'].split()


# ------------------------------------------------------------------ huge page pairs and list keys, every backend

HUGE = ['hugepagesz=2M', 'hugepages=512', 'hugepagesz=1G', 'hugepages=0:4', 'console=ttyS0,115200']
NODE_OWN = 'hugepagesz=1G hugepages=16 console=tty0'


def seed(path, old, new):
    with open(path) as f:
        text = f.read()
    assert old in text
    with open(path, 'w') as f:
        f.write(text.replace(old, new))


def huge_pages_of(tokens):
    return cmdline_hugepages.read(tokens)[0]


def backend_case(tmp_path, backend):
    """A sandbox whose node has a 1G pair and a console of its own, and the module arguments for ``backend``."""
    if backend == 'update-grub':
        root = sandbox(tmp_path, 'debian')
        seed(root + '/etc/default/grub', 'GRUB_CMDLINE_LINUX=""', 'GRUB_CMDLINE_LINUX="%s"' % NODE_OWN)
        args = common(root, update_grub_path=root + '/usr/sbin/update-grub',
                      grub_mkconfig_path=root + '/usr/sbin/grub-mkconfig')
        return root, args, lambda: linux_lines(root + '/boot/grub/grub.cfg')
    if backend in ('grub2-mkconfig', 'grubcfg'):
        root = sandbox(tmp_path, 'openeuler-bios')
        seed(root + '/etc/default/grub', 'rhgb quiet"', 'rhgb quiet %s"' % NODE_OWN)
        cfg = os.path.realpath(root + '/boot/grub2/grub.cfg')
        seed(cfg, 'rhgb quiet', 'rhgb quiet %s' % NODE_OWN)
        args = common(root, grub_mkconfig_path=root + '/usr/sbin/grub2-mkconfig', backend=backend)
        if backend == 'grubcfg':
            args['grub_cfg_paths'] = [cfg]
        return root, args, lambda: linux_lines(cfg)
    root = grub_sandbox.build('bls', str(tmp_path / 'bls'))
    for entry in glob.glob(root + '/boot/loader/entries/*.conf'):
        seed(entry, 'rhgb quiet', 'rhgb quiet %s' % NODE_OWN)
    args = common(root, grubby_path=root + '/usr/sbin/grubby', bls_dir=root + '/boot/loader/entries',
                  grub_script_check_path=None)

    def options():
        out = []
        for entry in sorted(glob.glob(root + '/boot/loader/entries/*.conf')):
            with open(entry) as fh:
                out.append([line for line in fh if line.startswith('options ')][0].split()[1:])
        return out
    return root, args, options


@pytest.mark.parametrize('backend', [
    pytest.param('update-grub', marks=needs_grub), pytest.param('grub2-mkconfig', marks=needs_grub),
    'grubcfg', 'grubby'])
def test_huge_page_pairs_and_consoles_merged_on_every_backend(tmp_path, capsys, backend):
    root, args, lines = backend_case(tmp_path, backend)
    if backend == 'grubcfg' and not os.path.exists(SCRIPT_CHECK):
        del args['grub_script_check_path']
    args['args'] = HUGE
    predicted = run(capsys, check=True, diff=True, **args)
    assert predicted.get('failed') is not True and predicted['changed'] is True, predicted.get('msg')
    res = run(capsys, diff=True, **args)
    assert res['changed'] is True, res.get('msg')
    # every boot entry reads 512 2M pages and 4 1G pages on NUMA node 0, the node's console kept before ours
    for toks in lines():
        assert huge_pages_of(toks) == {2 << 20: '512', 1 << 30: '0:4'}, toks
        assert [t for t in toks if t.startswith('console=')] == ['console=tty0', 'console=ttyS0,115200']
    # check mode predicted the next command line (root= is the sandbox generator's own guess; without a grub.cfg
    # yet, update-grub's prediction is the arguments of /etc/default/grub alone)
    if backend != 'update-grub':
        assert predicted['cmdline_next'].split()[1:] == res['cmdline_next'].split()[1:]
    assert huge_pages_of(predicted['cmdline_next'].split()) == {2 << 20: '512', 1 << 30: '0:4'}
    assert huge_pages_of(res['cmdline_next'].split()) == {2 << 20: '512', 1 << 30: '0:4'}
    again = run(capsys, check=True, **args)
    assert again['changed'] is False
    assert run(capsys, **args)['changed'] is False
    # state=absent removes the whole 1G pair, the 2M pair stays
    gone = run(capsys, **dict(args, args=['hugepagesz=1G'], state='absent'))
    assert gone['changed'] is True, gone.get('msg')
    for toks in lines():
        assert huge_pages_of(toks) == {2 << 20: '512'}, toks
    assert run(capsys, **dict(args, args=['hugepagesz=1G'], state='absent'))['changed'] is False


def test_ambiguous_huge_pages_refused_before_anything(tmp_path, capsys):
    root, args, _lines = backend_case(tmp_path, 'grubby')
    before = snapshot(root)
    res = run(capsys, **dict(args, args=['hugepages=16', 'hugepagesz=1G', 'hugepages=4']))
    assert res['failed'] is True
    assert res['msg'].startswith('args: hugepages=16 has no hugepagesz= before it while the args also give sizes')
    assert snapshot(root) == before


def test_grubby_entries_needing_different_huge_page_arguments_are_refused_before_anything(tmp_path, capsys):
    # grubby sets one set of arguments on every entry: one entry with a 2M pair of its own would lose it
    root, args, options = backend_case(tmp_path, 'grubby')
    entry = sorted(glob.glob(root + '/boot/loader/entries/*.conf'))[0]
    seed(entry, 'hugepages=16', 'hugepages=16 hugepagesz=2M hugepages=64')
    before = snapshot(root)
    for check in (True, False):
        res = run(capsys, check=check, **dict(args, args=['hugepagesz=1G', 'hugepages=4']))
        assert res['failed'] is True
        assert res['msg'].startswith(
            'grubby changes every boot entry with one set of arguments, but the entries need different huge page '
            'arguments (hugepagesz=1G hugepages=4 / hugepagesz=1G hugepages=4 hugepagesz=2M hugepages=64); nothing '
            'was changed'), res['msg']
        assert snapshot(root) == before
