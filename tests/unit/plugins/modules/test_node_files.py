# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import base64
import hashlib
import os
import stat

import pytest

from ansible_collections.numaops.colocation.plugins.modules import node_files
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.module_runner import run_module


def sha1(data):
    return hashlib.sha1(data).hexdigest()


def test_read_reports_content_checksum_and_missing(tmp_path, capsys):
    f = tmp_path / 'a.toml'
    f.write_bytes(b'version = 2\n')
    os.chmod(f, 0o640)
    res = run_module(node_files, capsys, read=[str(f), str(tmp_path / 'missing')])
    assert res['changed'] is False
    info = res['files'][str(f)]
    assert base64.b64decode(info['content']) == b'version = 2\n'
    assert info['checksum'] == sha1(b'version = 2\n')
    assert info['mode'] == '0640'
    assert info['write_error'] is None and info['remove_error'] is None
    assert res['files'][str(tmp_path / 'missing')] == {'exists': False, 'link_target': None, 'dangling_link': None,
                                                       'write_error': None, 'remove_error': None}


def test_write_keeps_mode_and_backs_up(tmp_path, capsys):
    f = tmp_path / 'config.yaml'
    f.write_bytes(b'old\n')
    os.chmod(f, 0o600)
    res = run_module(node_files, capsys,
                     write=[dict(path=str(f), content='new\n', expected_checksum=sha1(b'old\n'), backup=True)])
    assert res['changed'] is True and res['written'] == [str(f)]
    assert f.read_bytes() == b'new\n'
    assert stat.S_IMODE(f.stat().st_mode) == 0o600
    backup = res['backup_files'][str(f)]
    assert open(backup, 'rb').read() == b'old\n'
    again = run_module(node_files, capsys, write=[dict(path=str(f), content='new\n', expected_checksum=sha1(b'new\n'))])
    assert again['changed'] is False and again['written'] == []


def test_stale_checksum_refuses_everything(tmp_path, capsys):
    a, b, gone = tmp_path / 'a', tmp_path / 'b', tmp_path / 'state'
    a.write_bytes(b'a\n')
    b.write_bytes(b'b\n')
    gone.write_bytes(b'{}')
    res = run_module(node_files, capsys,
                     write=[dict(path=str(a), content='A\n', expected_checksum=sha1(b'a\n')),
                            dict(path=str(b), content='B\n', expected_checksum=sha1(b'other'))],
                     remove=[str(gone)])
    assert res['failed'] is True
    assert str(b) in res['msg'] and 'nothing was written' in res['msg']
    assert a.read_bytes() == b'a\n' and b.read_bytes() == b'b\n' and gone.exists()


def test_expected_absent_but_file_appeared(tmp_path, capsys):
    f = tmp_path / 'new.toml'
    f.write_bytes(b'x')
    res = run_module(node_files, capsys, write=[dict(path=str(f), content='y', expected_checksum='absent')])
    assert res['failed'] is True and 'expected no file' in res['msg']
    assert f.read_bytes() == b'x'


def test_create_with_mode_and_parents(tmp_path, capsys):
    f = tmp_path / 'conf.d' / '99-nri.toml'
    res = run_module(node_files, capsys,
                     write=[dict(path=str(f), content='x = 1\n', expected_checksum='absent', mode='0640',
                                 create_parents=True)])
    assert res['changed'] is True
    assert stat.S_IMODE(f.stat().st_mode) == 0o640
    missing_parent = tmp_path / 'nope' / 'f'
    res = run_module(node_files, capsys, write=[dict(path=str(missing_parent), content='x')])
    assert res['failed'] is True and 'does not exist' in res['msg']


def test_symlink_target_replaced_link_kept(tmp_path, capsys):
    target = tmp_path / 'real.toml'
    target.write_bytes(b'a')
    link = tmp_path / 'link.toml'
    link.symlink_to(target)
    run_module(node_files, capsys, write=[dict(path=str(link), content='b')])
    assert link.is_symlink() and target.read_bytes() == b'b'


def test_check_mode_predicts_and_writes_nothing(tmp_path, capsys):
    f, state = tmp_path / 'f', tmp_path / 'cpu_manager_state'
    f.write_bytes(b'a')
    state.write_bytes(b'{}')
    args = dict(write=[dict(path=str(f), content='b')], remove=[str(state), str(tmp_path / 'absent')])
    predicted = run_module(node_files, capsys, check_mode=True, **args)
    assert predicted['changed'] is True
    assert f.read_bytes() == b'a' and state.exists()
    real = run_module(node_files, capsys, **args)
    assert (predicted['written'], predicted['removed']) == (real['written'], real['removed'])
    assert f.read_bytes() == b'b' and not state.exists()
    assert run_module(node_files, capsys, **args)['changed'] is False


def test_remove_refuses_directory(tmp_path, capsys):
    res = run_module(node_files, capsys, remove=[str(tmp_path)])
    assert res['failed'] is True and 'directory' in res['msg']


def test_snapshot_copies_existing_files_with_their_mode_and_records_missing_ones(tmp_path, capsys):
    root = tmp_path / 'node'
    (root / 'etc').mkdir(parents=True)
    config = root / 'etc' / 'config.toml'
    config.write_bytes(b'version = 2\n')
    os.chmod(config, 0o640)
    target = root / 'etc' / 'real.yaml'
    target.write_bytes(b'real\n')
    link = root / 'etc' / 'link.yaml'
    os.symlink('real.yaml', str(link))
    dest = tmp_path / 'backups' / 'run-1'
    paths = [str(config), str(link), str(root / 'var' / 'state')]
    res = run_module(node_files, capsys, snapshot=dict(paths=paths, dest=str(dest), strip_prefix=str(root)))
    assert res['changed'] is False, 'a backup copy is bookkeeping, not a change of the node'
    first, linked, missing = res['snapshots']
    assert first['existed'] and first['backup'] == str(dest / 'etc' / 'config.toml')
    assert first['checksum'] == sha1(b'version = 2\n') and first['owner'] and first['group']
    assert (dest / 'etc' / 'config.toml').read_bytes() == b'version = 2\n'
    assert stat.S_IMODE((dest / 'etc' / 'config.toml').stat().st_mode) == 0o640
    assert linked['existed'] and (dest / 'etc' / 'link.yaml').read_bytes() == b'real\n'
    assert not os.path.islink(str(dest / 'etc' / 'link.yaml')), 'the copy is of the content, not of the link'
    assert stat.S_IMODE((dest / 'etc').stat().st_mode) == 0o700
    assert missing == dict(path=str(root / 'var' / 'state'), existed=False, backup=str(dest / 'var' / 'state'),
                           checksum='', owner='', group='', mode='', link=None, target=str(root / 'var' / 'state'))
    assert first['mode'] == '0640' and first['link'] is None and first['target'] == str(config)
    assert linked['link'] == 'real.yaml' and linked['target'] == str(target)
    assert not (dest / 'var').exists()
    assert not list(dest.rglob('*.partial'))


def test_snapshot_in_check_mode_copies_nothing(tmp_path, capsys):
    f = tmp_path / 'a'
    f.write_bytes(b'a\n')
    res = run_module(node_files, capsys, check_mode=True, snapshot=dict(paths=[str(f)], dest=str(tmp_path / 'b')))
    assert res['snapshots'][0]['existed'] and res['snapshots'][0]['backup'] == str(tmp_path / 'b') + str(f)
    assert not (tmp_path / 'b').exists()


def test_snapshot_refuses_a_directory_and_a_relative_path_before_copying(tmp_path, capsys):
    f = tmp_path / 'a'
    f.write_bytes(b'a\n')
    res = run_module(node_files, capsys, snapshot=dict(paths=[str(f), str(tmp_path)], dest=str(tmp_path / 'b')))
    assert res['failed'] and 'is a directory' in res['msg']
    res = run_module(node_files, capsys, snapshot=dict(paths=['etc/x'], dest=str(tmp_path / 'c')))
    assert res['failed'] and 'not an absolute path' in res['msg']


# ------------------------------------------------------------------ restore: every file kind reached through a link

RESTORE_KINDS = ['regular', 'relative-link', 'absolute-link', 'chain', 'other-directory', 'dangling-link', 'missing']


def restore_layout(root, kind):
    """``root``/etc/kubelet.yaml reached as ``kind``; returns (path, the file that holds the bytes)."""
    etc, other = root / 'etc', root / 'srv' / 'cfg'
    etc.mkdir(parents=True)
    other.mkdir(parents=True)
    path = etc / 'kubelet.yaml'
    real = {'regular': path, 'missing': path, 'relative-link': etc / 'kubelet.real.yaml',
            'absolute-link': etc / 'kubelet.real.yaml', 'chain': other / 'final.yaml',
            'other-directory': other / 'kubelet.yaml', 'dangling-link': etc / 'not-yet.yaml'}[kind]
    if kind == 'relative-link':
        os.symlink('kubelet.real.yaml', str(path))
    elif kind == 'absolute-link':
        os.symlink(str(real), str(path))
    elif kind == 'chain':
        os.symlink('middle.yaml', str(path))
        os.symlink('../srv/cfg/final.yaml', str(etc / 'middle.yaml'))
    elif kind == 'other-directory':
        os.symlink('../srv/cfg/kubelet.yaml', str(path))
    elif kind == 'dangling-link':
        os.symlink('not-yet.yaml', str(path))
    if kind not in ('missing', 'dangling-link'):
        real.write_bytes(b'old: 1\n')
        os.chmod(str(real), 0o640)
    return str(path), str(real)


def node_state(root):
    """Every name under root: links as their text, files as (bytes, mode, uid, gid)."""
    out = {}
    for dirpath, _dirs, names in os.walk(str(root)):
        for name in names:
            full = os.path.join(dirpath, name)
            if os.path.islink(full):
                out[full] = ('link', os.readlink(full))
            else:
                st = os.stat(full)
                with open(full, 'rb') as handle:
                    out[full] = (handle.read(), stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid)
    return out


@pytest.mark.parametrize('kind', RESTORE_KINDS)
def test_restore_puts_back_every_file_kind_reached_through_a_link(tmp_path, capsys, kind):
    root = tmp_path / 'node'
    path, real = restore_layout(root, kind)
    before = node_state(root)
    snap = run_module(node_files, capsys, snapshot=dict(paths=[path], dest=str(tmp_path / 'backup')))
    entries = snap['snapshots']
    wrote = run_module(node_files, capsys, write=[dict(path=path, content='new: 2\n', mode='0600')])
    assert wrote['written'] == [path] and node_state(root) != before
    if os.path.exists(real):
        os.chmod(real, 0o666)
    predicted = run_module(node_files, capsys, check_mode=True, restore=entries)
    assert predicted['changed'] is True and predicted['restored'] == [path]
    res = run_module(node_files, capsys, restore=entries)
    assert res['changed'] is True and res['restored'] == [path], res.get('msg')
    assert node_state(root) == before
    again = run_module(node_files, capsys, restore=entries)
    assert again['changed'] is False and again['restored'] == []


@pytest.mark.parametrize('kind', ['relative-link', 'absolute-link', 'chain', 'other-directory'])
def test_restore_makes_a_link_that_a_copy_replaced_a_link_again(tmp_path, capsys, kind):
    root = tmp_path / 'node'
    path, real = restore_layout(root, kind)
    before = node_state(root)
    entries = run_module(node_files, capsys, snapshot=dict(paths=[path], dest=str(tmp_path / 'backup')))['snapshots']
    run_module(node_files, capsys, write=[dict(path=path, content='new: 2\n')])
    # what a copy of the old content onto the path leaves: a regular file instead of the link
    os.unlink(path)
    with open(path, 'wb') as handle:
        handle.write(b'old: 1\n')
    res = run_module(node_files, capsys, restore=entries)
    assert res['restored'] == [path]
    assert node_state(root) == before


def test_restore_checks_every_copy_before_restoring_anything(tmp_path, capsys):
    root = tmp_path / 'node'
    first, _real = restore_layout(root, 'relative-link')
    second = str(root / 'etc' / 'other.toml')
    with open(second, 'wb') as handle:
        handle.write(b'a = 1\n')
    entries = run_module(node_files, capsys, snapshot=dict(paths=[first, second], dest=str(tmp_path / 'b')))['snapshots']
    run_module(node_files, capsys, write=[dict(path=first, content='new\n'), dict(path=second, content='b = 2\n')])
    changed = node_state(root)
    with open(entries[1]['backup'], 'wb') as handle:
        handle.write(b'tampered\n')
    res = run_module(node_files, capsys, restore=entries)
    assert res['failed'] and entries[1]['backup'] in res['msg'] and 'Nothing was restored' in res['msg']
    assert res['restored'] == [] and node_state(root) == changed


def test_a_write_that_fails_puts_back_what_the_same_call_changed_before(tmp_path, capsys):
    first, link, target = tmp_path / 'first.conf', tmp_path / 'second.conf', tmp_path / 'real' / 'second.conf'
    first.write_bytes(b'old\n')
    os.chmod(first, 0o640)
    target.parent.mkdir()
    target.write_bytes(b'two\n')
    link.symlink_to(target)
    res = run_module(node_files, capsys, write=[
        dict(path=str(first), content='new\n', expected_checksum=sha1(b'old\n')),
        dict(path=str(link), content='TWO\n', expected_checksum=sha1(b'two\n')),
        dict(path=str(tmp_path / 'missing' / 'third.conf'), content='x\n', expected_checksum='absent')])
    assert res['failed'] and 'directory %s does not exist' % (tmp_path / 'missing') in res['msg'], res
    assert 'The 2 file(s) this call had written or removed before it are put back as they were' in res['msg']
    assert res['put_back'] == [str(first), str(link)]
    assert res['written'] == [str(first), str(link), str(tmp_path / 'missing' / 'third.conf')]
    assert first.read_bytes() == b'old\n' and stat.S_IMODE(first.stat().st_mode) == 0o640
    assert os.path.islink(str(link)) and target.read_bytes() == b'two\n'


def test_a_removal_that_fails_puts_back_the_writes_and_removals_before_it(tmp_path, capsys, monkeypatch):
    config, state, other = tmp_path / 'config.yaml', tmp_path / 'cpu_manager_state', tmp_path / 'memory_manager_state'
    config.write_bytes(b'a\n')
    state.write_bytes(b'{"policyName":"none"}')
    other.write_bytes(b'{}')
    real_unlink = os.unlink

    def unlink(path, *args, **kwargs):
        if str(path) == str(other):
            raise OSError(13, 'Permission denied')
        return real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(node_files.os, 'unlink', unlink)
    res = run_module(node_files, capsys, write=[dict(path=str(config), content='b\n', expected_checksum=sha1(b'a\n'))],
                     remove=[str(state), str(other)])
    assert res['failed'] and 'cannot remove %s' % other in res['msg'], res
    assert config.read_bytes() == b'a\n' and state.read_bytes() == b'{"policyName":"none"}' and other.exists()
    assert res['put_back'] == [str(config), str(state)]
