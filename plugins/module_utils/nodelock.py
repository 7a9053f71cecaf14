# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The node lock of numaops.colocation: one run at a time changes a node.

A lock is a small JSON file on the node naming its holder (run id, controller host and process, AWX job id,
start time). It is created with O_CREAT|O_EXCL, so of two runs starting together exactly one gets it; the
other fails before any change, naming the holder. A stale lock (its holder's process is gone from the
controller host that took it, or older than the limit) is taken over with a warning: the stale file is first
renamed away (atomic), then a new lock is created exclusively.

Runs on managed nodes: Python 3.8+, standard library only.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import errno
import json
import os
import shlex
import time

HOLDER_FIELDS = ('run_id', 'controller', 'pid', 'job_id', 'started', 'playbook')


class LockError(Exception):
    """The lock could not be read or written."""


def parse_holder(text):
    """The holder recorded in a lock file's text, or {'unreadable': text} when it is not our JSON."""
    try:
        data = json.loads(text)
    except ValueError:
        return {'unreadable': (text or '')[:200]}
    if not isinstance(data, dict):
        return {'unreadable': (text or '')[:200]}
    return dict((k, data.get(k)) for k in HOLDER_FIELDS if k in data)


def describe_holder(holder, age=None):
    """'run 20261201T101500Z-1234 (AWX job 42) from controller ctl-1 pid 77, started 2026-12-01T10:15:00Z,
    42 s ago' for the messages."""
    if not holder:
        return 'nobody'
    if 'unreadable' in holder:
        return 'an unreadable lock (%r)' % holder['unreadable']
    parts = ['run %s' % holder.get('run_id', '?')]
    if holder.get('job_id'):
        parts.append('(AWX job %s)' % holder['job_id'])
    parts.append('from controller %s pid %s' % (holder.get('controller', '?'), holder.get('pid', '?')))
    if holder.get('playbook'):
        parts.append('running %s' % holder['playbook'])
    text = ' '.join(parts) + ', started %s' % holder.get('started', '?')
    if age is not None:
        text += ' (%d s ago)' % int(age)
    return text


def stale_reason(holder, age, max_age, controller, holder_alive):
    """Why the lock of ``holder`` (``age`` seconds old) is stale, or '' when it is held.

    ``controller``: this controller's host name; ``holder_alive``: whether the holder's process exists on
    this controller (None when it cannot be told: another controller host)."""
    if 'unreadable' in holder:
        return ''
    if holder.get('controller') == controller and holder_alive is False:
        return ('its holder, process %s on this controller (%s), is gone' % (holder.get('pid'), controller))
    if max_age and age is not None and age > max_age:
        return 'it is %d s old, older than the limit of %d s (node_prep_lock_stale_after)' % (int(age), int(max_age))
    return ''


def lock_text(holder):
    """The text of a lock file held by ``holder``: what ``_write_new`` and ``acquire_command`` write."""
    return json.dumps(holder, sort_keys=True) + '\n'


def run_id_text(run_id):
    """The part of ``lock_text`` that names the holder's run, which the shell commands look for."""
    return '"run_id": ' + json.dumps(run_id)


def read_lock(path):
    """(holder or None, age in seconds or None)."""
    try:
        with open(path) as handle:
            text = handle.read()
        mtime = os.stat(path).st_mtime
    except (IOError, OSError) as err:
        if err.errno == errno.ENOENT:
            return None, None
        raise LockError('%s cannot be read: %s' % (path, err))
    return parse_holder(text), max(time.time() - mtime, 0)


def _write_new(path, holder):
    directory = os.path.dirname(path)
    if directory and not os.path.isdir(directory):
        os.makedirs(directory, 0o755)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.write(fd, lock_text(holder).encode('utf-8'))
        os.fsync(fd)
    finally:
        os.close(fd)


def acquire(path, holder, takeover_run_id=None):
    """Take the lock for ``holder``. Returns (outcome, current holder, age): outcome ``acquired`` (new lock),
    ``refreshed`` (already ours: its time is renewed), ``taken_over`` (the stale lock of ``takeover_run_id``
    was replaced) or ``held`` (somebody else has it; nothing was written)."""
    for _attempt in range(3):
        try:
            _write_new(path, holder)
            return 'acquired', holder, 0
        except OSError as err:
            if err.errno != errno.EEXIST:
                raise LockError('%s cannot be created: %s' % (path, err))
        current, age = read_lock(path)
        if current is None:
            continue  # released meanwhile: try again
        if current.get('run_id') == holder.get('run_id'):
            os.utime(path, None)
            return 'refreshed', current, age
        if takeover_run_id is None or current.get('run_id') != takeover_run_id:
            return 'held', current, age
        aside = '%s.stale-%s' % (path, holder.get('run_id'))
        try:
            os.rename(path, aside)
        except OSError as err:
            if err.errno == errno.ENOENT:
                continue
            raise LockError('%s cannot be moved aside: %s' % (path, err))
        moved, _age = read_lock(aside)
        if (moved or {}).get('run_id') != takeover_run_id:
            # another run took the stale lock over between our read and the rename: give its lock back
            try:
                os.link(aside, path)
            except OSError:
                pass
            os.unlink(aside)
            current, age = read_lock(path)
            return 'held', current or moved, age
        os.unlink(aside)
        try:
            _write_new(path, holder)
        except OSError as err:
            if err.errno != errno.EEXIST:
                raise LockError('%s cannot be created: %s' % (path, err))
            current, age = read_lock(path)
            return 'held', current, age
        return 'taken_over', holder, 0
    current, age = read_lock(path)
    return 'held', current, age


def release(path, run_id):
    """Remove the lock when ``run_id`` holds it. Returns (outcome, holder): ``released``, ``absent``
    or ``not_ours`` (left in place)."""
    current, _age = read_lock(path)
    if current is None:
        return 'absent', None
    if current.get('run_id') != run_id:
        return 'not_ours', current
    try:
        os.unlink(path)
    except OSError as err:
        if err.errno == errno.ENOENT:
            return 'absent', None
        raise LockError('%s cannot be removed: %s' % (path, err))
    return 'released', current


def holder_of(params):
    """The holder a lock file records, from node_lock's options (their controller, pid and started filled in)."""
    return dict(run_id=params.get('run_id'), controller=params.get('controller') or '', pid=params.get('pid'),
                job_id=params.get('job_id') or '', started=params.get('started') or '',
                playbook=params.get('playbook') or '')


def acquire_command(path, holder):
    """The POSIX shell command that does what ``acquire`` does without a takeover, for a lock taken with no Python
    started on the node (numaops.colocation.node_lock's action plugin runs it): create the lock file at ``path``
    holding ``holder`` only if it does not exist (the shell's noclobber: O_EXCL, as ``_write_new``), its directory
    made first; an existing one is renewed when it is ours (the same ``run_id``), else left alone. It prints the
    outcome on its first line: ``acquired``; or ``refreshed AGE`` / ``held AGE`` (the file's age in seconds before
    this command) followed by the file's text. Any other exit status than 0 (the directory, the file or its time
    could not be read or written, the file went away meanwhile) is for the caller to run the module instead."""
    directory = os.path.dirname(path) or '.'
    return ('umask 022; f=%s; d=%s; [ -d "$d" ] || mkdir -p -- "$d" || exit 5; now=$(date +%%s) || exit 7; '
            'if (set -C; printf "%%s" %s > "$f") 2>/dev/null; then sync -- "$f" 2>/dev/null || sync; '
            'echo acquired; exit 0; fi; '
            'c=$(cat -- "$f") || exit 3; m=$(stat -c %%Y -- "$f") || exit 7; '
            'case "$c" in *%s*) touch -c -- "$f" || exit 4; echo "refreshed $((now - m))";; '
            '*) echo "held $((now - m))";; esac; printf "%%s" "$c"'
            % (shlex.quote(path), shlex.quote(directory), shlex.quote(lock_text(holder)),
               shlex.quote(run_id_text(holder.get('run_id')))))


def parse_acquire(holder, rc, stdout):
    """(outcome, current holder, age) of ``acquire_command``'s run, as ``acquire`` returns them, or None when the
    command did not decide (the caller runs the module instead)."""
    first, _sep, rest = (stdout or '').lstrip('\n').partition('\n')
    words = first.split()
    if rc != 0 or not words:
        return None
    if words == ['acquired']:
        return 'acquired', dict(holder), 0
    if len(words) == 2 and words[0] in ('refreshed', 'held') and words[1].lstrip('-').isdigit():
        return words[0], parse_holder(rest), max(int(words[1]), 0)
    return None


def release_command(path, run_id):
    """The POSIX shell command that does what ``release`` does, for a release that needs no Python on the node
    (numaops.colocation.node_lock's action plugin runs it): remove the lock file at ``path`` when ``run_id`` holds
    it. It prints the outcome on its first line (``released``, ``absent`` or ``not_ours``, then the file's text);
    exit status 3: the file could not be read, 4: it could not be removed (stderr says why). The holder is
    recognised by the text ``_write_new`` writes (``json.dumps`` with sorted keys: ``"run_id": "<id>"``)."""
    needle = run_id_text(run_id)
    return ('f=%s; if [ ! -e "$f" ]; then echo absent; exit 0; fi; '
            'c=$(cat -- "$f") || { [ -e "$f" ] || { echo absent; exit 0; }; exit 3; }; '
            'case "$c" in *%s*) rm -f -- "$f" || exit 4; echo released;; '
            '*) echo not_ours; printf "%%s" "$c";; esac' % (shlex.quote(path), shlex.quote(needle)))


def parse_release(path, rc, stdout, stderr):
    """(outcome, holder) of ``release_command``'s run, as ``release`` returns them; raises LockError."""
    first, _sep, rest = (stdout or '').lstrip('\n').partition('\n')
    first = first.strip()
    if rc == 0 and first in ('released', 'absent'):
        return first, None
    if rc == 0 and first == 'not_ours':
        return first, parse_holder(rest)
    what = {3: 'cannot be read', 4: 'cannot be removed'}.get(rc, 'cannot be released (exit status %s)' % rc)
    raise LockError('%s %s: %s' % (path, what, (stderr or stdout or 'no output').strip()))


# The options of the node_lock module, also the suboptions of the ``lock`` option of node_preflight and node_files
# (which take or renew the lock in their own module call, before their work).
DEFAULT_PATH = '/var/lib/numaops-colocation/node.lock'
OPTIONS_SPEC = dict(
    path=dict(type='path', default=DEFAULT_PATH),
    state=dict(type='str', choices=['present', 'absent', 'query'], default='present'),
    run_id=dict(type='str'),
    job_id=dict(type='str', default=''),
    playbook=dict(type='str', default=''),
    stale_after=dict(type='int', default=21600),
    controller=dict(type='str'),
    pid=dict(type='int'),
    started=dict(type='str'),
    takeover_run_id=dict(type='str'),
)
TAKEN = ('acquired', 'refreshed', 'taken_over')


def step(params, check_mode, result):
    """What the node_lock module does on the node, for ``params`` (its options): fills ``result`` (outcome, holder,
    locked_by_other, stale, age) and returns it; raises LockError (``result`` then holds what was known).

    ``query`` and check mode only read the lock; ``absent`` removes it when ``run_id`` holds it; ``present`` takes
    it (``held`` when another run has it: nothing is written, the caller decides whether it is stale)."""
    path = params.get('path') or DEFAULT_PATH
    result.update(changed=False, holder={}, locked_by_other=False, stale='')
    state = params.get('state') or 'present'
    if state == 'query' or check_mode:
        holder, age = read_lock(path)
        result['holder'] = holder or {}
        if age is not None:
            result['age'] = int(age)
        other = bool(holder) and holder.get('run_id') != params.get('run_id')
        result['locked_by_other'] = other
        if state == 'absent':
            result['outcome'] = 'absent' if not holder else ('not_ours' if other else 'released')
        else:
            result['outcome'] = 'held' if other else ('absent' if not holder else 'refreshed')
        return result
    if state == 'absent':
        outcome, holder = release(path, params.get('run_id'))
        result.update(outcome=outcome, holder=holder if outcome == 'not_ours' else {})
        return result
    outcome, current, age = acquire(path, holder_of(params), params.get('takeover_run_id'))
    result.update(outcome=outcome, holder=current or {}, locked_by_other=outcome == 'held')
    if age is not None:
        result['age'] = int(age)
    return result
