# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kernel_cmdline against hostile node files: links, CRLF, Latin-1, NUL, immutable files, stale temporary
files, oversized files, /etc/kernel/cmdline (RHEL 9 / Fedora), and the grubby check mode.

Each test fails when the protection it covers is taken away. The grubcfg backend needs no grub tools, so these run
everywhere; the immutable test needs root and a file system with ``chattr +i`` (ext4, xfs, btrfs)."""
from __future__ import annotations

import glob
import hashlib
import os
import shutil
import subprocess
import sys

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import nodefile
from ansible_collections.numaops.colocation.plugins.modules import kernel_cmdline
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.module_runner import run_module

TESTS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(os.path.dirname(TESTS), 'standins'))
import grub_sandbox  # noqa: E402  pylint: disable=wrong-import-position

WANT = ['mem_sampling_on', 'numa_icon=enable']


def sha(path):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def tree(root):
    """sha256 of every regular file under root (links reported as links), temporary files included."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ('grub.d', 'sbin')]
        for name in files:
            p = os.path.join(dirpath, name)
            out[p] = ('link', os.readlink(p)) if os.path.islink(p) else sha(p)
    return out


def temps(root):
    return sorted(p for p in glob.glob(root + '/**/.*.numaops*', recursive=True))


def run(capsys, check=False, diff=False, **args):
    res = run_module(kernel_cmdline, capsys, check_mode=check, diff=diff, **args)
    print(res.get('msg'), file=sys.stderr)
    return res


def grubcfg(tmp_path, **extra):
    root = grub_sandbox.build('openeuler-efi', str(tmp_path / 'oe'))
    args = dict(args=WANT, backend='grubcfg', grub_cfg_paths=[root + '/etc/grub2-efi.cfg'],
                grub_defaults_path=root + '/etc/default/grub', boot_dir=root + '/boot',
                proc_cmdline_path=root + '/proc/cmdline')
    checker = shutil.which('grub-script-check')
    if checker:
        args['grub_script_check_path'] = checker
    args.update(extra)
    return root, root + '/boot/efi/EFI/openEuler/grub.cfg', args


def test_symlinked_defaults_stays_a_link_and_its_target_is_written(tmp_path, capsys):
    root, _cfg, args = grubcfg(tmp_path)
    defaults = root + '/etc/default/grub'
    os.rename(defaults, root + '/etc/default/grub.real')
    os.symlink('grub.real', defaults)
    res = run(capsys, **args)
    assert res['changed'] is True
    assert os.path.islink(defaults) and os.readlink(defaults) == 'grub.real'
    with open(root + '/etc/default/grub.real') as f:
        assert 'crashkernel=512M rhgb quiet mem_sampling_on numa_icon=enable"' in f.read()
    assert run(capsys, **args)['changed'] is False
    assert temps(root) == []


def test_crlf_line_endings_kept_in_defaults_and_grub_cfg(tmp_path, capsys):
    root, cfg, args = grubcfg(tmp_path)
    defaults = root + '/etc/default/grub'
    for path in (defaults, cfg):
        with open(path, 'rb') as f:
            data = f.read()
        with open(path, 'wb') as f:
            f.write(data.replace(b'\n', b'\r\n'))
    lines_before = {p: open(p, 'rb').read().count(b'\r\n') for p in (defaults, cfg)}
    res = run(capsys, **args)
    assert res['changed'] is True
    for path in (defaults, cfg):
        with open(path, 'rb') as f:
            data = f.read()
        assert data.count(b'\n') == data.count(b'\r\n') == lines_before[path], path  # every line still CRLF
        assert b'mem_sampling_on numa_icon=enable' in data
    with open(cfg, 'rb') as f:
        assert b'numa_icon=enable\r\n' in f.read()
    assert run(capsys, **args)['changed'] is False


def test_crlf_defaults_without_the_variable_gets_a_crlf_line(tmp_path, capsys):
    root, _cfg, args = grubcfg(tmp_path)
    defaults = root + '/etc/default/grub'
    with open(defaults, 'wb') as f:
        f.write(b'GRUB_TIMEOUT=5\r\nGRUB_DEFAULT=saved\r\n')
    run(capsys, **args)
    with open(defaults, 'rb') as f:
        assert f.read() == b'GRUB_TIMEOUT=5\r\nGRUB_DEFAULT=saved\r\nGRUB_CMDLINE_LINUX="mem_sampling_on numa_icon=enable"\r\n'


def test_latin1_comment_and_menu_title_bytes_are_kept(tmp_path, capsys):
    root, cfg, args = grubcfg(tmp_path)
    defaults = root + '/etc/default/grub'
    with open(defaults, 'rb') as f:
        data = f.read()
    with open(defaults, 'wb') as f:
        f.write(b'# Konfiguration f\xfcr GRUB\n' + data)
    with open(cfg, 'rb') as f:
        data = f.read()
    with open(cfg, 'wb') as f:
        f.write(data.replace(b"menuentry 'openEuler", b"menuentry 'openEuler \xe9dition", 1))
    res = run(capsys, **args)
    assert res['changed'] is True, res.get('msg')
    with open(defaults, 'rb') as f:
        assert f.read().startswith(b'# Konfiguration f\xfcr GRUB\n')
    with open(cfg, 'rb') as f:
        data = f.read()
    assert b"menuentry 'openEuler \xe9dition" in data and b'numa_icon=enable' in data
    assert run(capsys, **args)['changed'] is False


def test_nul_byte_refused_naming_file_and_line(tmp_path, capsys):
    root, _cfg, args = grubcfg(tmp_path)
    defaults = root + '/etc/default/grub'
    with open(defaults, 'ab') as f:
        f.write(b'GRUB_X=1\x00\n')
    before = tree(root)
    res = run(capsys, **args)
    assert res['failed'] is True
    assert '%s line 8: contains a NUL byte' % defaults in res['msg']
    assert tree(root) == before


def test_oversized_grub_cfg_refused_naming_the_limit(tmp_path, capsys):
    root, cfg, args = grubcfg(tmp_path)
    with open(cfg, 'ab') as f:
        f.write(b"#" * (nodefile.MAX_GRUB_CFG_BYTES + 1) + b'\n')
    before = tree(root)
    res = run(capsys, **args)
    assert res['failed'] is True
    assert 'refusing %s' % cfg in res['msg'] and 'above the limit of 8 MiB (8388608 bytes)' in res['msg']
    assert tree(root) == before


def test_directory_in_place_of_grub_cfg_refused(tmp_path, capsys):
    root, _cfg, args = grubcfg(tmp_path)
    os.makedirs(root + '/boot/grub/grub.cfg')
    args['grub_cfg_paths'] = [root + '/boot/grub/grub.cfg']
    before = tree(root)
    res = run(capsys, **args)
    assert res['failed'] is True and root + '/boot/grub/grub.cfg' in res['msg']
    assert tree(root) == before


def chattr(flag, path):
    return subprocess.call(['chattr', flag, path], stderr=subprocess.DEVNULL) == 0


def can_chattr(tmp_path):
    probe = tmp_path / 'probe'
    probe.write_text('x')
    if os.geteuid() != 0 or not shutil.which('chattr') or not chattr('+i', str(probe)):
        return False
    chattr('-i', str(probe))
    return True


@pytest.mark.parametrize('which', ['defaults', 'cfg'])
def test_immutable_file_refused_before_anything_is_written(tmp_path, capsys, which):
    if not can_chattr(tmp_path):
        pytest.skip('needs root and a file system that supports chattr +i (a real immutable file)')
    root, cfg, args = grubcfg(tmp_path)
    target = root + '/etc/default/grub' if which == 'defaults' else cfg
    before = tree(root)
    assert chattr('+i', target)
    try:
        res = run(capsys, **args)
        checked = run(capsys, check=True, **args)
    finally:
        chattr('-i', target)
    assert res['failed'] is True
    assert 'cannot write %s: Operation not permitted (immutable' % target in res['msg']
    assert 'chattr -i %s' % target in res['msg']
    assert checked['failed'] is True  # check mode predicts the failure
    assert tree(root) == before


def test_stale_temp_files_of_an_interrupted_run_are_removed_only_ours(tmp_path, capsys):
    root, cfg, args = grubcfg(tmp_path)
    directory = os.path.dirname(cfg)
    ours = [directory + '/.grub.cfg.ab12cd_9.numaops', directory + '/.grub.cfg.zz99xx00.numaops.new',
            root + '/etc/default/.grub.k3j4h5g6.numaops']
    not_ours = [directory + '/.grub.cfg.ab12cd.numaops', directory + '/grub.cfg.ab12cd_9.numaops',
                directory + '/.grub.cfg.ab12cd_9.numaops.bak', directory + '/.grub.cfg.ansible_tmp',
                root + '/etc/default/.grubx.k3j4h5g6.numaops']
    for p in ours + not_ours:
        with open(p, 'wb') as f:
            f.write(b'x' * 100)
    checked = run(capsys, check=True, **args)
    assert all(os.path.exists(p) for p in ours)  # check mode removes nothing, but says so
    assert sum('would remove temporary file' in n for n in checked['notes']) == 3
    res = run(capsys, **args)
    assert res['changed'] is True
    assert not any(os.path.exists(p) for p in ours)
    assert all(os.path.exists(p) for p in not_ours)
    assert sum('removed temporary file' in n for n in res['notes']) == 3


def test_etc_kernel_cmdline_kept_in_step_where_it_exists(tmp_path, capsys):
    root = grub_sandbox.build('bls', str(tmp_path / 'bls'))
    os.makedirs(root + '/etc/kernel', exist_ok=True)
    kfile = root + '/etc/kernel/cmdline'
    with open(kfile, 'w') as f:
        f.write('root=/dev/mapper/rl-root ro crashkernel=auto quiet\n')
    args = dict(args=WANT, absent_args=['quiet'], grubby_path=root + '/usr/sbin/grubby',
                bls_dir=root + '/boot/loader/entries', grub_defaults_path=root + '/etc/default/grub',
                boot_dir=root + '/boot', proc_cmdline_path=root + '/proc/cmdline')
    predicted = run(capsys, check=True, diff=True, **args)
    assert predicted['changed'] is True
    assert any(d['before_header'] == kfile for d in predicted['diff'])
    res = run(capsys, **args)
    assert res['changed'] is True
    with open(kfile) as f:
        assert f.read() == 'root=/dev/mapper/rl-root ro crashkernel=auto mem_sampling_on numa_icon=enable\n'
    assert run(capsys, **args)['changed'] is False


def test_etc_kernel_cmdline_alone_out_of_step_is_changed(tmp_path, capsys):
    root, _cfg, args = grubcfg(tmp_path)
    assert run(capsys, **args)['changed'] is True
    os.makedirs(root + '/etc/kernel', exist_ok=True)
    with open(root + '/etc/kernel/cmdline', 'w') as f:
        f.write('root=UUID=1 ro\n')
    res = run(capsys, **args)
    assert res['changed'] is True
    with open(root + '/etc/kernel/cmdline') as f:
        assert f.read() == 'root=UUID=1 ro mem_sampling_on numa_icon=enable\n'


def test_grubby_check_mode_leaves_every_bls_entry_byte_identical(tmp_path, capsys):
    root = grub_sandbox.build('bls', str(tmp_path / 'bls'))
    args = dict(args=WANT + ['rhgb'], absent_args=['quiet'], grubby_path=root + '/usr/sbin/grubby',
                bls_dir=root + '/boot/loader/entries', grub_defaults_path=root + '/etc/default/grub',
                boot_dir=root + '/boot', proc_cmdline_path=root + '/proc/cmdline')
    entries = glob.glob(root + '/boot/loader/entries/*.conf')
    assert len(entries) == 3
    before = tree(root)
    predicted = run(capsys, check=True, diff=True, **args)
    assert predicted['changed'] is True and sorted(predicted['grub_cfg_paths']) == sorted(entries)
    assert tree(root) == before  # check mode: BLS entries and /etc/default/grub untouched
    res = run(capsys, **args)
    assert res['changed'] is True
    after = tree(root)
    assert all(after[e] != before[e] for e in entries)  # the real run does change them


def strict_utf8(value):
    """Whether every string of a module result is valid UTF-8 (what the controller accepts from a module)."""
    if isinstance(value, str):
        try:
            value.encode('utf-8')
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(strict_utf8(k) and strict_utf8(v) for k, v in value.items())
    if isinstance(value, list):
        return all(strict_utf8(v) for v in value)
    return True


@pytest.mark.parametrize('check', [True, False])
def test_latin1_comment_under_diff_returns_a_valid_result_and_keeps_the_bytes(tmp_path, capsys, check):
    root, cfg, args = grubcfg(tmp_path)
    defaults = root + '/etc/default/grub'
    with open(defaults, 'rb') as f:
        data = f.read()
    with open(defaults, 'wb') as f:
        f.write(b'# Konfiguration f\xfcr GRUB\n' + data)
    res = run(capsys, check=check, diff=True, **args)
    assert res.get('failed') is not True and res['changed'] is True, res.get('msg')
    assert strict_utf8(res), 'a result the controller refuses (not UTF-8) after the node was changed'
    shown = [d for d in res['diff'] if d['before_header'] == defaults][0]
    assert shown['before'].startswith('# Konfiguration f\\xfcr GRUB\n')
    assert 'numa_icon=enable' in shown['after'] and shown['after'].startswith('# Konfiguration f\\xfcr GRUB\n')
    with open(defaults, 'rb') as f:
        written = f.read()
    assert written.startswith(b'# Konfiguration f\xfcr GRUB\n')
    assert (b'numa_icon=enable' in written) is (not check)
    assert run(capsys, diff=True, **args)['changed'] is check


def test_a_result_that_cannot_be_returned_puts_the_files_back(tmp_path, capsys, monkeypatch):
    root, _cfg, args = grubcfg(tmp_path)
    before = tree(root)

    original = kernel_cmdline.result_text

    def broken(value):
        if 'changed' in value:
            raise ValueError('cannot serialise')
        return original(value)

    monkeypatch.setattr(kernel_cmdline, 'result_text', broken)
    res = run(capsys, **args)
    assert res['failed'] is True and 'cannot return the result: cannot serialise' in res['msg']
    assert 'restored byte for byte' in res['msg']
    assert tree(root) == before


def link_into(path, kind, store):
    """Make ``path`` a link of ``kind`` to a file in ``store`` holding its bytes and mode 0640."""
    os.makedirs(store, exist_ok=True)
    name = os.path.basename(path)
    final = os.path.join(store, name + '.real')
    shutil.move(path, final)
    os.chmod(final, 0o640)
    here = os.path.dirname(path)
    if kind == 'relative-link':
        os.rename(final, os.path.join(here, name + '.real'))
        os.symlink(name + '.real', path)
    elif kind == 'absolute-link':
        os.symlink(final, path)
    elif kind == 'chain':
        os.symlink(name + '.middle', path)
        os.symlink(os.path.relpath(final, here), os.path.join(here, name + '.middle'))
    else:  # another directory
        os.symlink(os.path.relpath(final, here), path)


def node_state(root):
    """Every name under root: links as their text, files as (bytes, mode)."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ('grub.d', 'sbin')]
        for name in files:
            p = os.path.join(dirpath, name)
            if os.path.islink(p):
                out[p] = ('link', os.readlink(p))
            else:
                with open(p, 'rb') as f:
                    out[p] = (f.read(), os.stat(p).st_mode & 0o7777)
    return out


@pytest.mark.parametrize('kind', ['relative-link', 'absolute-link', 'chain', 'other-directory'])
def test_failure_after_writes_puts_back_every_file_reached_through_a_link(tmp_path, capsys, monkeypatch, kind):
    root, cfg, args = grubcfg(tmp_path)
    kernel_cmdline_file = root + '/etc/kernel/cmdline'
    os.makedirs(os.path.dirname(kernel_cmdline_file))
    with open(kernel_cmdline_file, 'w') as f:
        f.write('root=/dev/mapper/openeuler-root ro quiet\n')
    store = root + '/srv/config'
    for path in (root + '/etc/default/grub', kernel_cmdline_file, cfg):
        link_into(path, kind, store)
    before = node_state(root)
    real_move = kernel_cmdline.AnsibleModule.atomic_move
    moved = []

    def atomic_move(self, src, dest, *a, **kw):
        moved.append(dest)
        if os.path.basename(dest) == 'cmdline.real':  # /etc/kernel/cmdline: the last file written
            raise OSError(28, 'No space left on device')
        return real_move(self, src, dest, *a, **kw)

    monkeypatch.setattr(kernel_cmdline.AnsibleModule, 'atomic_move', atomic_move)
    res = run(capsys, **args)
    assert res['failed'] is True and 'No space left on device' in res['msg'], res
    assert len(moved) >= 3, 'the defaults file and grub.cfg were written before the failure'
    assert 'restored byte for byte' in res['msg']
    assert node_state(root) == before
