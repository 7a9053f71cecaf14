# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one write-and-restore path of module_utils/nodewrite.py: replace_file, saved_state/put_back (Changes) and the
snapshot entries restore_entry reads, on every kind of file reached through a link."""
from __future__ import annotations

import os
import stat

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import nodefile, nodewrite

OLD = b'# old\nkey = 1\n'
NEW = b'# new\nkey = 2\n'


def layout(tmp_path, kind):
    """A file named ``path`` reached as ``kind``; returns (path, the file that holds the bytes)."""
    etc = tmp_path / 'etc'
    other = tmp_path / 'srv' / 'configs'
    etc.mkdir()
    other.mkdir(parents=True)
    path = etc / 'config.toml'
    if kind == 'regular':
        real = path
    elif kind == 'relative-link':
        real = etc / 'config.real.toml'
        os.symlink('config.real.toml', str(path))
    elif kind == 'absolute-link':
        real = etc / 'config.real.toml'
        os.symlink(str(real), str(path))
    elif kind == 'chain':
        real = other / 'final.toml'
        os.symlink('middle.toml', str(path))
        os.symlink('../srv/configs/final.toml', str(etc / 'middle.toml'))
    elif kind == 'other-directory':
        real = other / 'config.toml'
        os.symlink('../srv/configs/config.toml', str(path))
    else:
        raise AssertionError(kind)
    real.write_bytes(OLD)
    os.chmod(str(real), 0o640)
    return str(path), str(real)


KINDS = ['regular', 'relative-link', 'absolute-link', 'chain', 'other-directory']


def state_of(path, real):
    st = os.stat(real)
    with open(real, 'rb') as handle:
        return (nodewrite.link_text(path), handle.read(), stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid)


@pytest.mark.parametrize('kind', KINDS)
def test_write_replaces_the_end_of_the_link_and_keeps_the_link(tmp_path, kind):
    path, real = layout(tmp_path, kind)
    link = nodewrite.link_text(path)
    changes = nodewrite.Changes()
    changes.write(path, NEW)
    assert nodewrite.link_text(path) == link
    with open(real, 'rb') as handle:
        assert handle.read() == NEW
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o640
    assert not [n for n in os.listdir(os.path.dirname(real)) if n.endswith(nodefile.TEMP_SUFFIX)]


@pytest.mark.parametrize('kind', KINDS)
def test_rollback_puts_back_bytes_mode_and_the_link(tmp_path, kind):
    path, real = layout(tmp_path, kind)
    before = state_of(path, real)
    changes = nodewrite.Changes()
    changes.write(path, NEW)
    os.chmod(real, 0o600)
    restored, failed = changes.rollback()
    assert failed == [] and restored == [real]
    assert state_of(path, real) == before
    assert changes.rollback() == ([], [])


@pytest.mark.parametrize('kind', KINDS[1:])
def test_put_back_recreates_a_link_that_was_replaced_by_a_regular_file(tmp_path, kind):
    path, real = layout(tmp_path, kind)
    before = state_of(path, real)
    saved = nodewrite.saved_state(path)
    # what a rollback through a copy that does not follow links leaves: a regular file where the link was, and the
    # new content in the link's target
    with open(real, 'wb') as handle:
        handle.write(NEW)
    os.unlink(path)
    with open(path, 'wb') as handle:
        handle.write(OLD)
    assert nodewrite.put_back(saved) is True
    assert state_of(path, real) == before
    assert nodewrite.put_back(saved) is False


def test_put_back_removes_a_file_that_did_not_exist_and_keeps_a_dangling_link(tmp_path):
    plain = str(tmp_path / 'new.yaml')
    saved = nodewrite.saved_state(plain)
    nodewrite.Changes().write(plain, NEW)
    assert nodewrite.put_back(saved) is True and not os.path.lexists(plain)
    link = str(tmp_path / 'link.yaml')
    os.symlink('missing.yaml', link)
    saved = nodewrite.saved_state(link)
    nodewrite.replace_file(nodefile.write_target(link), NEW)
    assert os.path.exists(str(tmp_path / 'missing.yaml'))
    assert nodewrite.put_back(saved) is True
    assert os.readlink(link) == 'missing.yaml' and not os.path.exists(str(tmp_path / 'missing.yaml'))


@pytest.mark.parametrize('kind', KINDS)
def test_snapshot_entry_and_restore_state_round_trip(tmp_path, kind):
    path, real = layout(tmp_path, kind)
    before = state_of(path, real)
    backup = str(tmp_path / 'copy')
    entry, data = nodewrite.snapshot_entry(path, backup, nodefile.MAX_CONFIG_BYTES)
    assert entry['existed'] and entry['mode'] == '0640' and entry['target'] == os.path.realpath(real)
    assert entry['link'] == nodewrite.link_text(path)
    with open(backup, 'wb') as handle:
        handle.write(data)
    os.chmod(backup, 0o600)  # the copy's own mode does not matter: the entry's does
    nodewrite.Changes().write(path, NEW)
    assert nodewrite.put_back(nodewrite.restore_state(entry, nodefile.MAX_CONFIG_BYTES)) is True
    assert state_of(path, real) == before


def test_restore_state_refuses_a_copy_that_differs(tmp_path):
    path, _real = layout(tmp_path, 'regular')
    backup = str(tmp_path / 'copy')
    entry, _data = nodewrite.snapshot_entry(path, backup, nodefile.MAX_CONFIG_BYTES)
    with open(backup, 'wb') as handle:
        handle.write(b'something else\n')
    with pytest.raises(nodefile.NodeFileError, match='does not hold what was copied'):
        nodewrite.restore_state(entry, nodefile.MAX_CONFIG_BYTES)
    os.unlink(backup)
    with pytest.raises(nodefile.NodeFileError, match='is missing'):
        nodewrite.restore_state(entry, nodefile.MAX_CONFIG_BYTES)


def test_replace_file_sets_mode_owner_group_when_given(tmp_path):
    target = str(tmp_path / 'f')
    nodewrite.replace_file(target, OLD, mode=0o600)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    nodewrite.replace_file(target, NEW, mode=0o644, uid=os.getuid(), gid=os.getgid())
    st = os.stat(target)
    assert stat.S_IMODE(st.st_mode) == 0o644 and (st.st_uid, st.st_gid) == (os.getuid(), os.getgid())


def test_result_text_shows_bytes_that_are_not_utf8_as_escapes():
    text = b'# f\xfcr GRUB\n'.decode('utf-8', 'surrogateescape')
    shown = nodewrite.result_text({'diff': [{'before': text, 'n': 1}], 'ok': 'plain \u00e9'})
    assert shown == {'diff': [{'before': '# f\\xfcr GRUB\n', 'n': 1}], 'ok': 'plain \u00e9'}
    assert nodewrite.result_text('\ud800') == '\\ud800'
