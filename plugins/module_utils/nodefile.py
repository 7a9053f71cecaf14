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
* error texts for write failures that say what to do (immutable file, read-only file system);
* the last lines of a service's log file, for the messages of a service that did not come up (:func:`tail_lines`).
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


def tail_lines(path, max_bytes):
    """The lines of the last ``max_bytes`` of the file at ``path`` (a log that may be large), undecodable bytes
    replaced; raises OSError when it cannot be read."""
    with open(path, 'rb') as handle:
        handle.seek(0, os.SEEK_END)
        handle.seek(max(0, handle.tell() - max_bytes))
        return handle.read().decode('utf-8', 'replace').splitlines()


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


def decode_text(path, data, what='file'):
    """File bytes as text: UTF-8, refusing other encodings and NUL bytes with file, line and column."""
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError as err:
        line = data.count(b'\n', 0, err.start) + 1
        column = err.start - (data.rfind(b'\n', 0, err.start) + 1) + 1
        raise NodeFileError('%s line %d, column %d: byte 0x%02x is not UTF-8; a %s this collection reads must be '
                            'UTF-8 text, so it is refused (convert it, for example with `iconv -f latin1 -t utf-8`). '
                            'Nothing was changed.' % (path, line, column, bytearray(data)[err.start], what))
    if '\x00' in text:
        offset = text.index('\x00')
        raise NodeFileError('%s line %d: contains a NUL byte; it is not a text file, so it is refused. '
                            'Nothing was changed.' % (path, text.count('\n', 0, offset) + 1))
    return text


def read_text(path, limit=MAX_CONFIG_BYTES, what='file'):
    """The text of the node file ``path`` (None when missing): read_limited (regular files only, at most ``limit``
    bytes), then decode_text (UTF-8, no NUL byte)."""
    data = read_limited(path, limit, what)
    if data is None:
        return None
    return decode_text(path, data, what)


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
