# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Facts and helpers for files this collection replaces on a node (Python 3.8+, standard library only).

Used by ``node_files`` (kubelet and containerd configuration) and ``kernel_cmdline`` (grub files):

* size limits: files above them are refused before they are read (real files are kilobytes);
* the name of our temporary files, ``.<name>.<8 random characters>.numaops`` next to the file (plus
  ``.new`` for the file grub-mkconfig writes first), and the removal of the ones an interrupted run left;
  a temporary file in use is locked (``flock``), so a run never removes one that another run still writes;
* links: the file replaced is the link's target, so the link stays a link;
* error texts for write failures that say what to do (immutable file, read-only file system).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import base64
import errno
import fcntl
import grp
import hashlib
import os
import pwd
import re
import stat
import struct
import tempfile

# Configuration files (kubelet, containerd, /etc/default/grub, /etc/kernel/cmdline, BLS entries).
MAX_CONFIG_BYTES = 1024 * 1024
# grub.cfg: generated, one menu entry per kernel; a few hundred kilobytes at most on real nodes.
MAX_GRUB_CFG_BYTES = 8 * 1024 * 1024

# The snapshot option of node_files and node_config (doc fragment snapshot_option): the files about to change,
# copied before anything else is done in the same call to the node
SNAPSHOT_SPEC = dict(
    paths=dict(type='list', elements='path', required=True),
    dest=dict(type='path', required=True),
    strip_prefix=dict(type='str', default=''),
)

# The restore option of node_files: entries of its snapshots result (node_prep's rollback passes them back)
RESTORE_SPEC = dict(
    path=dict(type='path', required=True),
    existed=dict(type='bool', required=True),
    backup=dict(type='path'),
    checksum=dict(type='str', default=''),
    owner=dict(type='str', default=''),
    group=dict(type='str', default=''),
    mode=dict(type='str', default=''),
    link=dict(type='str'),
    target=dict(type='path'),
)

TEMP_SUFFIX = '.numaops'
_TEMP_RANDOM = r'[a-z0-9_]{8}'  # tempfile's random part: 8 of [a-z0-9_]

# linux/fs.h: FS_IOC_GETFLAGS (_IOR('f', 1, long)) and the flags that forbid replacing a file
_FS_IOC_GETFLAGS = 0x80086601
_FS_IMMUTABLE_FL = 0x00000010
_FS_APPEND_FL = 0x00000020


class NodeFileError(Exception):
    """A file cannot be read or written; the message names the file and the reason."""


def human_size(size):
    if size >= 1024 * 1024 and size % (1024 * 1024) == 0:
        return '%d MiB' % (size // (1024 * 1024))
    if size >= 1024 * 1024:
        return '%.1f MiB' % (size / (1024.0 * 1024))
    if size >= 1024:
        return '%.1f KiB' % (size / 1024.0)
    return '%d bytes' % size


def check_size(path, limit, what='file'):
    """Refuse ``path`` when it is larger than ``limit`` bytes (stat only, nothing is read)."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return
    if size > limit:
        raise NodeFileError(
            'refusing %s: it is %s (%d bytes), above the limit of %s (%d bytes) for a %s this collection edits; '
            'real ones are kilobytes, so this one is damaged or not what it seems. Nothing was changed.'
            % (path, human_size(size), size, human_size(limit), limit, what))


def read_limited(path, limit, what='file'):
    """The bytes of ``path`` (None when missing), refusing directories, non-regular files and oversized files."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise NodeFileError('cannot read %s: %s' % (path, os_error_text(exc)))
    if stat.S_ISDIR(st.st_mode):
        raise NodeFileError('cannot use %s: it is a directory, not a file. Nothing was changed.' % path)
    if not stat.S_ISREG(st.st_mode):
        raise NodeFileError('cannot use %s: it is not a regular file (a device, socket or pipe). Nothing was changed.'
                            % path)
    check_size(path, limit, what)
    try:
        with open(path, 'rb') as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise NodeFileError('cannot read %s: %s' % (path, os_error_text(exc)))
    if len(data) > limit:
        check_size(path, limit, what)
    return data


def dangling_link(path):
    """The final target of ``path`` when it is a symbolic link to something that does not exist, else None."""
    if os.path.islink(path) and not os.path.exists(path):
        return os.path.realpath(path)
    return None


def write_target(path):
    """The file a write to ``path`` replaces: the final target of a link (the link itself is kept)."""
    if os.path.islink(path):
        return os.path.realpath(path)
    return path


def _first_os_error(exc, field):
    """The first OSError with a ``field`` (strerror or errno) in ``exc`` and its cause chain (8 links at most)."""
    cur = exc
    for _link in range(8):
        if cur is None:
            break
        if isinstance(cur, OSError) and getattr(cur, field):
            return cur
        cur = cur.__cause__ or cur.__context__
    return None


def os_error_text(exc):
    """``strerror`` of an OSError (or of the first OSError in its cause chain), else the text of ``exc``."""
    found = _first_os_error(exc, 'strerror')
    return found.strerror if found is not None else str(exc)


def _errno_of(exc):
    found = _first_os_error(exc, 'errno')
    return found.errno if found is not None else None


def file_flags(path):
    """'immutable', 'append-only' or None (chattr flags; None also where they cannot be read)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, 'O_NOFOLLOW', 0))
    except OSError:
        return None
    try:
        buf = fcntl.ioctl(fd, _FS_IOC_GETFLAGS, struct.pack('l', 0))
        flags = struct.unpack('l', buf)[0]
    except (OSError, IOError, struct.error):
        return None
    finally:
        os.close(fd)
    if flags & _FS_IMMUTABLE_FL:
        return 'immutable'
    if flags & _FS_APPEND_FL:
        return 'append-only'
    return None


def write_error(path, exc):
    """The text for a failed write of ``path``: ``cannot write PATH: <reason> (<what to do>)``."""
    code = _errno_of(exc)
    reason = os_error_text(exc)
    hint = ''
    if code in (errno.EPERM, errno.EACCES):
        flag = file_flags(path) or file_flags(os.path.dirname(path) or '.')
        if flag:
            hint = (' (%s: `lsattr %s` shows it; `chattr -%s` lifts it)'
                    % (flag, path, 'i' if flag == 'immutable' else 'a'))
        else:
            hint = ' (immutable? check `lsattr %s`; or a security policy forbids it)' % path
    elif code == errno.EROFS:
        hint = ' (the file system is mounted read-only)'
    elif code == errno.ENOSPC:
        hint = ' (the file system is full)'
    return 'cannot write %s: %s%s' % (path, reason, hint)


def oversize_message(path, size, limit):
    """node_files' refusal of new content above its max_size (the module's and the controller's plan alike)."""
    return ('refusing to write %s: the new content is %d bytes, above the limit of %d bytes (max_size). '
            'Nothing was changed.' % (path, size, limit))


def changed_meanwhile_message(path, expected, actual):
    """node_files' refusal when the file is no longer what the change was based on (``expected`` and ``actual``:
    checksums, or 'absent')."""
    def describe(checksum):
        return 'no file' if checksum == 'absent' else 'checksum ' + checksum
    return ('%s changed on the node while this task was running (expected %s, found %s); nothing was written. '
            'Run the task again.' % (path, describe(expected), describe(actual)))


def check_writable(path):
    """Refuse before anything is written when ``path`` (or its directory) is immutable or append-only."""
    for target in (path, os.path.dirname(path) or '.'):
        if not os.path.exists(target):
            continue
        flag = file_flags(target)
        if flag:
            raise NodeFileError(
                'cannot write %s: Operation not permitted (%s%s: `lsattr %s` shows it; `chattr -%s %s` lifts it). '
                'Nothing was changed.' % (path, flag, '' if target == path else ' directory', target,
                                          'i' if flag == 'immutable' else 'a', target))


def temp_pattern(path):
    """The regular expression of our temporary files for ``path`` (its basename)."""
    name = re.escape(os.path.basename(path))
    return re.compile(r'^\.%s\.%s%s(?:\.new)?$' % (name, _TEMP_RANDOM, re.escape(TEMP_SUFFIX)))


class TempFile(object):
    """A locked temporary file next to ``path`` (same file system, so the final rename is atomic)."""

    def __init__(self, path):
        directory = os.path.dirname(path) or '.'
        fd, self.name = tempfile.mkstemp(prefix='.%s.' % os.path.basename(path), suffix=TEMP_SUFFIX, dir=directory)
        self.fd = fd
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            pass

    def close(self):
        """Remove the file if it is still there (not moved into place) and release the lock."""
        try:
            for leftover in (self.name, self.name + '.new'):
                if os.path.lexists(leftover):
                    os.unlink(leftover)
        finally:
            if self.fd is not None:
                os.close(self.fd)
                self.fd = None


def stale_temp_files(path):
    """Our temporary files for ``path`` that no running process holds (left by an interrupted run)."""
    directory = os.path.dirname(path) or '.'
    pattern = temp_pattern(path)
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    found = []
    for name in sorted(names):
        if not pattern.match(name):
            continue
        full = os.path.join(directory, name)
        try:
            st = os.lstat(full)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        base = full[:-len('.new')] if full.endswith('.new') else full
        if _in_use(base):
            continue
        found.append(full)
    return found


def _in_use(name):
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, 'O_NOFOLLOW', 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def remove_stale_temp_files(path, check_mode=False):
    """Remove (in check mode: list) our stale temporary files for ``path``; returns their names."""
    found = stale_temp_files(path)
    if not check_mode:
        for name in found:
            try:
                os.unlink(name)
            except OSError:
                pass
    return found


def sha1(data):
    """The checksum node_files compares (SHA-1 of the bytes)."""
    return hashlib.sha1(data).hexdigest()


def describe_file(path, limit):
    """What node_files' read returns of ``path``: content (base64), checksum, size, mode, owner, group and link
    target, or exists=false (with dangling_link)."""
    data = read_limited(path, limit, 'configuration file')
    link_target = os.path.realpath(path) if os.path.islink(path) else None
    if data is None:
        return dict(exists=False, link_target=link_target, dangling_link=dangling_link(path))
    st = os.stat(path)
    try:
        owner = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        owner = str(st.st_uid)
    try:
        group = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        group = str(st.st_gid)
    return dict(exists=True, content=base64.b64encode(data).decode('ascii'), checksum=sha1(data),
                size=len(data), mode='%04o' % stat.S_IMODE(st.st_mode), owner=owner, group=group,
                link_target=link_target, dangling_link=None)


def refusal(path, verb=None):
    """The message check_writable refuses ``path`` with, or None."""
    try:
        check_writable(path)
    except NodeFileError as err:
        return str(err).replace('cannot write', verb) if verb else str(err)
    return None


def read_for_plan(paths, limit, check_mode, files, removed_temp_files):
    """node_files' read of ``paths`` into ``files`` (path -> describe_file, with write_error and remove_error: what a
    write or a removal of the path would be refused with, so that a caller that only plans needs no second call to
    know it); our stale temporary files next to them are removed (in check mode: listed) into
    ``removed_temp_files``. Raises NodeFileError naming the file that cannot be read."""
    for path in paths:
        for name in remove_stale_temp_files(write_target(path), check_mode):
            if name not in removed_temp_files:
                removed_temp_files.append(name)
    for path in paths:
        try:
            files[path] = describe_file(path, limit)
        except (IOError, OSError) as err:
            raise NodeFileError('cannot read %s: %s' % (path, err))
        files[path].update(write_error=refusal(write_target(path)), remove_error=refusal(path, 'cannot remove'))


# ---------------------------------------------------------------------------------------------------------------
# The one write-and-restore path: every file this collection writes on a node (node_files, kernel_cmdline) is
# written with replace_file(), kept with saved_state() before it changes, and put back with put_back() (within a
# module run: Changes) or restore_entry() (a later task, from the copy node_files' snapshot made).


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
