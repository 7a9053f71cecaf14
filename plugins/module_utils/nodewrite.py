# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The one write-and-restore path for files this collection changes on a node (Python 3.8+, standard library only).

Every file node_files and kernel_cmdline write is written with replace_file() (atomic, mode/owner/group kept or
set, through the end of a link: the link stays), kept with saved_state() before it changes, and put back with
put_back() - within a module run through Changes, in a later task from the copy node_files' snapshot made
(snapshot_entry / restore_state). See docs/developer/node_files.md."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import grp
import os
import pwd
import stat

from ansible_collections.numaops.colocation.plugins.module_utils.nodefile import (
    MAX_CONFIG_BYTES,
    TEMP_SUFFIX,
    NodeFileError,
    TempFile,
    os_error_text,
    read_limited,
    sha1,
    write_error,
    write_target,
)


def link_text(path):
    """What the symbolic link ``path`` points to (its own text, relative or absolute), or None for a non-link."""
    return os.readlink(path) if os.path.islink(path) else None


def _owner_name(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def _group_name(gid):
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def uid_of(owner):
    """The uid of a user name (or of a number given as text); None for None or ''."""
    if owner in (None, ''):
        return None
    try:
        return pwd.getpwnam(owner).pw_uid
    except KeyError:
        if str(owner).isdigit():
            return int(owner)
        raise NodeFileError('unknown user %s' % owner)


def gid_of(group):
    """The gid of a group name (or of a number given as text); None for None or ''."""
    if group in (None, ''):
        return None
    try:
        return grp.getgrnam(group).gr_gid
    except KeyError:
        if str(group).isdigit():
            return int(group)
        raise NodeFileError('unknown group %s' % group)


def parse_mode(mode):
    """A mode given as '0644', '644', 0o644 or None, as an int (None stays None)."""
    if mode in (None, ''):
        return None
    if isinstance(mode, int):
        return mode
    try:
        return int(str(mode), 8)
    except ValueError:
        raise NodeFileError('mode %r is not an octal number like 0644' % (mode,))


def _fsync_directory(directory):
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def replace_file(target, data, mode=None, uid=None, gid=None, mover=None, path=None):
    """Replace the regular file ``target`` (already the end of any link: see write_target) by ``data``, atomically:
    a locked temporary file next to it, written and synced, then renamed over it. The file keeps the mode, owner and
    group it has; ``mode``, ``uid`` and ``gid`` (when given) set them instead, and a new file gets ``mode`` (0644
    when None). ``mover(tmp, target)`` does the rename (a module passes AnsibleModule.atomic_move, which also keeps
    the SELinux context); os.rename by default. ``path`` (the name the caller knows, a link maybe) only names the
    file in messages. Raises NodeFileError naming the file."""
    name = path or target
    directory = os.path.dirname(target) or '.'
    try:
        st = os.stat(target)
    except OSError:
        st = None
    try:
        tmp = TempFile(target)
    except OSError as err:
        raise NodeFileError('%s (cannot create a temporary file in %s)' % (write_error(name, err), directory))
    try:
        try:
            with open(tmp.name, 'wb') as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            want_mode = mode if mode is not None else (stat.S_IMODE(st.st_mode) if st is not None else 0o644)
            os.chmod(tmp.name, want_mode)
            want_uid = uid if uid is not None else (st.st_uid if st is not None else -1)
            want_gid = gid if gid is not None else (st.st_gid if st is not None else -1)
            if (want_uid, want_gid) != (-1, -1):
                try:
                    os.chown(tmp.name, want_uid, want_gid)
                except OSError:
                    if uid is not None or gid is not None:
                        raise
            (mover or os.rename)(tmp.name, target)
            # a mover that copies the attributes of the file it replaces (atomic_move) may have reset them
            current = os.stat(target)
            if stat.S_IMODE(current.st_mode) != want_mode:
                os.chmod(target, want_mode)
            if (uid is not None and current.st_uid != uid) or (gid is not None and current.st_gid != gid):
                os.chown(target, -1 if uid is None else uid, -1 if gid is None else gid)
        except NodeFileError:
            raise
        except Exception as err:  # pylint: disable=broad-except
            raise NodeFileError(write_error(name, err))
    finally:
        tmp.close()
    _fsync_directory(directory)


def replace_link(path, text):
    """Make ``path`` the symbolic link ``text`` again (atomically: a new link renamed over what is there)."""
    directory = os.path.dirname(path) or '.'
    tmp = os.path.join(directory, '.%s.%s%s' % (os.path.basename(path), os.urandom(4).hex()[:8], TEMP_SUFFIX))
    try:
        os.symlink(text, tmp)
        os.rename(tmp, path)
    except OSError as err:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise NodeFileError(write_error(path, err))
    _fsync_directory(directory)


def saved_state(path, target=None, limit=MAX_CONFIG_BYTES):
    """What put_back() needs to bring ``path`` back exactly: its link text (None for a regular file), the file a
    write replaces (``target``: the end of the link; given by a caller that resolves links itself), and that file's
    bytes (None: missing), mode, uid and gid."""
    target = target or write_target(path)
    data = read_limited(target, limit, 'configuration file')
    state = dict(path=path, link=link_text(path), target=target, data=data, mode=None, uid=None, gid=None)
    if data is not None:
        st = os.stat(target)
        state.update(mode=stat.S_IMODE(st.st_mode), uid=st.st_uid, gid=st.st_gid)
    return state


def is_state(state):
    """Whether the node holds exactly ``state`` (saved_state) for its path: same link, bytes, mode, owner."""
    path, target = state['path'], state['target']
    if link_text(path) != state['link']:
        return False
    if state['data'] is None:
        return not os.path.lexists(target)
    try:
        with open(target, 'rb') as handle:
            data = handle.read()
        st = os.stat(target)
    except OSError:
        return False
    if os.path.islink(target) and state['link'] is None:
        return False
    return (data == state['data'] and stat.S_IMODE(st.st_mode) == state['mode']
            and st.st_uid == state['uid'] and st.st_gid == state['gid'])


def put_back(state, mover=None):
    """Bring the node back to ``state`` (saved_state): the link is a link to the same text again, its target (or
    the file itself) holds the same bytes, mode, owner and group, or is removed when it did not exist. Returns
    whether anything had to change. Raises NodeFileError naming the file."""
    if is_state(state):
        return False
    path, target, link = state['path'], state['target'], state['link']
    if link is not None:
        if os.path.isdir(path) and not os.path.islink(path):
            raise NodeFileError('cannot restore the link %s: a directory is there now' % path)
        if link_text(path) != link:
            replace_link(path, link)
    if state['data'] is None:
        if os.path.lexists(target) and not (os.path.isdir(target) and not os.path.islink(target)):
            try:
                os.unlink(target)
            except OSError as err:
                raise NodeFileError('cannot remove %s: %s' % (target, os_error_text(err)))
        return True
    directory = os.path.dirname(target) or '.'
    if not os.path.isdir(directory):
        try:
            os.makedirs(directory, 0o755)
        except OSError as err:
            raise NodeFileError('cannot create directory %s for %s: %s' % (directory, target, os_error_text(err)))
    # rename over a link that is not ours to keep replaces the link itself: the file was a regular file
    replace_file(target, state['data'], state['mode'], state['uid'], state['gid'], mover, path)
    return True


class Changes(object):
    """The files one module run changes, kept before the first change of each, to be put back when a later step
    fails: ``remember`` then ``write`` (or a tool that writes the file), ``rollback`` on failure."""

    def __init__(self, mover=None, limit=MAX_CONFIG_BYTES):
        self.mover = mover
        self.limit = limit
        self._saved = []

    def remember(self, path, target=None, limit=None):
        """Keep the state of ``path`` (once) before it changes."""
        target = target or write_target(path)
        if any(saved['target'] == target for saved in self._saved):
            return
        try:
            self._saved.append(saved_state(path, target, limit or self.limit))
        except OSError as err:
            raise NodeFileError('cannot read %s before changing it: %s' % (path, os_error_text(err)))

    def write(self, path, data, target=None, mode=None, limit=None):
        """Remember ``path`` and replace its target (``target`` or the end of the link) by ``data``."""
        target = target or write_target(path)
        self.remember(path, target, limit)
        replace_file(target, data, mode=None if os.path.exists(target) else mode, mover=self.mover, path=path)

    def rollback(self):
        """Put every remembered file back, last changed first. Returns (paths put back, texts of failures)."""
        restored, failed = [], []
        while self._saved:
            state = self._saved.pop()
            try:
                if put_back(state, self.mover):
                    restored.append(state['target'])
            except (NodeFileError, OSError) as err:
                failed.append('%s: %s' % (state['target'], err))
        return restored, failed

    def forget(self):
        """The run succeeded: nothing to put back."""
        self._saved = []

    @property
    def paths(self):
        return [saved['target'] for saved in self._saved]


def snapshot_entry(path, backup, limit):
    """The snapshot of ``path`` (node_files' ``snapshot``; the copy of its bytes goes to ``backup``, made by the
    caller): what restore_entry needs to put it back. Returns (entry, bytes or None)."""
    target = write_target(path)
    data = read_limited(target, limit, 'configuration file')
    entry = dict(path=path, existed=data is not None, backup=backup, checksum='', owner='', group='', mode='',
                 link=link_text(path), target=target)
    if data is not None:
        st = os.stat(target)
        entry.update(checksum=sha1(data), owner=_owner_name(st.st_uid), group=_group_name(st.st_gid),
                     mode='%04o' % stat.S_IMODE(st.st_mode))
    return entry, data


def restore_state(entry, limit):
    """The saved_state of a snapshot ``entry`` (node_files' ``restore``): the copy's bytes checked against the
    entry's checksum, its mode, owner and group. Raises NodeFileError when the copy is missing or differs."""
    path = entry['path']
    link = entry.get('link')
    target = entry.get('target') or (write_target(path) if link else path)
    state = dict(path=path, link=link, target=target, data=None, mode=None, uid=None, gid=None)
    if not entry['existed']:
        return state
    backup = entry.get('backup')
    data = read_limited(backup, limit, 'copy') if backup else None
    if data is None:
        raise NodeFileError('cannot restore %s: its copy %s is missing. Nothing was restored.' % (path, backup))
    if entry.get('checksum') and sha1(data) != entry['checksum']:
        raise NodeFileError('cannot restore %s: its copy %s does not hold what was copied (checksum %s, expected %s). '
                            'Nothing was restored.' % (path, backup, sha1(data), entry['checksum']))
    mode = parse_mode(entry.get('mode'))
    if mode is None:
        mode = stat.S_IMODE(os.stat(backup).st_mode)
    state.update(data=data, mode=mode, uid=uid_of(entry.get('owner')), gid=gid_of(entry.get('group')))
    if state['uid'] is None or state['gid'] is None:
        current = os.stat(target) if os.path.exists(target) else None
        state['uid'] = state['uid'] if state['uid'] is not None else (current.st_uid if current else os.getuid())
        state['gid'] = state['gid'] if state['gid'] is not None else (current.st_gid if current else os.getgid())
    return state


def result_text(value):
    """``value`` (a module result: dicts, lists, strings) with every string valid UTF-8: text decoded from file bytes
    that are not UTF-8 (surrogate escapes) shows those bytes as ``\\xNN``. The files themselves keep their bytes; a
    result that is not valid UTF-8 is refused by the controller after the node was changed."""
    if isinstance(value, str):
        try:
            value.encode('utf-8')
            return value
        except UnicodeEncodeError:
            pass
        try:
            return value.encode('utf-8', 'surrogateescape').decode('utf-8', 'backslashreplace')
        except UnicodeEncodeError:
            return value.encode('utf-8', 'backslashreplace').decode('utf-8')
    if isinstance(value, dict):
        return dict((result_text(key), result_text(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [result_text(item) for item in value]
    return value
