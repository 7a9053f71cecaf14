# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import base64
import hashlib
import os
import stat

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
    assert res['files'][str(tmp_path / 'missing')] == {'exists': False, 'link_target': None, 'dangling_link': None}


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
