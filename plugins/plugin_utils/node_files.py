# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller-side base for action plugins that edit text files on a node.

The pattern: read the files through the node-side module ``numaops.colocation.node_files`` (standard
library only on the node), compute the new text here on the controller (where ruamel.yaml / tomlkit are
installed), then hand the new text back to ``node_files``, which refuses to write when a file changed in
between and replaces files atomically, keeping owner and mode.
"""
from __future__ import annotations

import base64
import collections
import json
import os
import posixpath
import re
import uuid

from ansible import constants as C
from ansible.errors import AnsibleActionFail
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.common.text.converters import to_bytes
from ansible.plugins.action import ActionBase

from ansible_collections.numaops.colocation.plugins.module_utils import nodefile
from ansible_collections.numaops.colocation.plugins.module_utils.nodefile import (
    MAX_CONFIG_BYTES, changed_meanwhile_message, oversize_message, temp_pattern,
)
from ansible_collections.numaops.colocation.plugins.plugin_utils.lock_first import settle

NODE_FILES = 'numaops.colocation.node_files'

FileState = collections.namedtuple('FileState', 'path exists text checksum mode owner group link_target dangling_link')


# node_config keep_read / reuse_read, node_preflight read_files: what a task read, kept for a later task of the same
# run in ansible-playbook's own local temporary directory (mode 0700, removed when the run ends), one file per read,
# mode 0600, removed when used
_KEPT_PREFIX = 'numaops-node-read-'
_TOKEN_RE = re.compile(r'^[0-9a-f]{32}$')


def _kept_path(token):
    return os.path.join(C.DEFAULT_LOCAL_TMP, _KEPT_PREFIX + token + '.json')


def keep(files, host):
    """Keep ``files`` (node_files' ``files`` of a read) for a later task of this run on ``host``; returns the token."""
    token = uuid.uuid4().hex
    fd = os.open(_kept_path(token), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, 'w') as handle:
        json.dump({'host': host, 'files': files}, handle)
    return token


def load_read(token, host):
    """The files kept under ``token`` for ``host`` (and forgotten), or None when there are none (another run, another
    host, or used already): the task then reads the node itself."""
    if not isinstance(token, str) or not _TOKEN_RE.match(token):
        return None
    path = _kept_path(token)
    try:
        with open(path) as handle:
            kept = json.load(handle)
        os.unlink(path)
    except (IOError, OSError, ValueError):
        return None
    if kept.get('host') != host or not isinstance(kept.get('files'), dict):
        return None
    return kept['files']


def temp_files_warning(names):
    """The warning for stale temporary files a read removed (an earlier run was interrupted), or None."""
    if not names:
        return None
    return ('removed %d temporary file(s) left by an interrupted earlier run: %s' % (len(names), ', '.join(names)))


class NodeFilesAction(ActionBase):
    """Base class: argument validation, reading and committing files through node_files."""

    TRANSFERS_FILES = False
    _requires_connection = True

    def validate_args(self, argument_spec, **kwargs):
        """Validate the task's arguments against a module argument_spec; return the validated dict."""
        validator = ArgumentSpecValidator(argument_spec, **kwargs)
        result = validator.validate(self._task.args)
        if result.error_messages:
            raise AnsibleActionFail('Invalid arguments for %s: %s'
                                    % (self._task.action, '; '.join(result.error_messages)))
        return result.validated_parameters

    def _node_files(self, module_args, task_vars):
        result = self.call_node_files(module_args, task_vars)
        if result.get('failed'):
            raise AnsibleActionFail(failure_text(result))
        self.removed_temp_files = list(result.get('removed_temp_files') or [])
        return result

    def read_files(self, paths, task_vars, opaque=()):
        """Read ``paths`` on the node; return ``{path: FileState}``. Text is decoded as UTF-8. Paths that
        ``prefetch`` read already (``file_cache``) are taken from there.

        Paths in ``opaque`` are files that are only judged, never edited (the kubelet's checkpoints): their bytes
        are decoded leniently (U+FFFD for what is not UTF-8, NUL kept), so that a file a crash filled with zeros is
        seen as corrupt and can be removed instead of stopping the task."""
        cache = getattr(self, 'file_cache', None)
        infos = dict((path, cache[path]) for path in paths if cache is not None and path in cache)
        missing = [path for path in paths if path not in infos]
        if missing:
            infos.update(self._node_files({'read': missing}, task_vars)['files'])
        states = {}
        for path in paths:
            info = infos[path]
            if not info.get('exists'):
                states[path] = FileState(path, False, None, 'absent', None, None, None, info.get('link_target'),
                                         info.get('dangling_link'))
                continue
            data = base64.b64decode(info['content'])
            text = data.decode('utf-8', 'replace') if path in opaque else decode_text(path, data)
            states[path] = FileState(path, True, text, info['checksum'], info['mode'],
                                     info['owner'], info['group'], info.get('link_target'), None)
        return states

    def temp_file_warnings(self):
        """A warning for stale temporary files node_files removed (an earlier run was interrupted)."""
        warning = temp_files_warning(getattr(self, 'removed_temp_files', None))
        return [warning] if warning else []

    def commit(self, writes, task_vars, remove=None):
        """Write and remove files on the node (in check mode: report only).

        ``writes`` is a list of dicts: ``path``, ``content``, ``expected_checksum`` (from
        ``FileState.checksum``; ``absent`` for a file that did not exist), optional ``mode``,
        ``backup`` and ``create_parents``.
        """
        if not writes and not remove:
            return dict(changed=False, written=[], removed=[], backup_files={})
        cache = getattr(self, 'file_cache', None)
        paths = [item['path'] for item in writes] + list(remove or [])
        recorder = getattr(self, 'commit_recorder', None)
        if recorder is not None:
            recorder.append((list(writes), list(remove or [])))
        batch = getattr(self, 'committed_batch', None)
        done = batch.take(writes, remove or []) if batch is not None and not self._play_context.check_mode else None
        if done is not None:
            # committed already, together with the other concerns of this task (node_config), in one call
            if cache is not None:
                for path in paths:
                    cache.pop(path, None)
            self.removed_temp_files = list(done.get('removed_temp_files') or [])
            return done
        # in check mode, when this task's own read (prefetch) saw every file: decided here, as node_files would
        planned = simulated_commit(writes, remove or [], cache) if self._play_context.check_mode else None
        if cache is not None:
            # what is written or removed now is no longer what was read
            for path in paths:
                cache.pop(path, None)
        if planned is not None:
            return planned
        return self._node_files({'write': list(writes), 'remove': list(remove or [])}, task_vars)

    def prefetch(self, paths, task_vars, lock=None, snapshot=None):
        """Read ``paths`` on the node in one node_files call and keep what it returned, so that the reads of
        later plans in the same task (``read_files``) need no round trip of their own. Returns the warnings of
        that call; a failed read leaves the cache empty (each plan then reads, and fails, on its own).

        ``lock`` (node_lock's options, ``holder_args`` filled in) and ``snapshot`` (node_files' option) go into the
        same call: the node lock is renewed and the files about to change are copied before they are read (see
        ``_bookkeeping_call``)."""
        self.file_cache = {}
        self.bookkeeping = {}
        if lock is not None or snapshot is not None:
            result, warnings = self._bookkeeping_call(paths, lock, snapshot, task_vars)
        elif not paths:
            return []
        else:
            try:
                result = self._node_files({'read': list(paths)}, task_vars)
            except AnsibleActionFail:
                return []
            warnings = []
        self.file_cache.update(result.get('files') or {})
        warnings.extend(self.temp_file_warnings())
        self.removed_temp_files = []
        return warnings

    def _bookkeeping_call(self, paths, lock, snapshot, task_vars):
        """One node_files call that renews the node lock (``lock``), copies the files of ``snapshot`` and reads
        ``paths``, in that order. When a file cannot be read, the call is made again without the read, so that the
        plans read that file themselves and each names its own problem, as without ``lock`` and ``snapshot``.
        Raises AnsibleActionFail when the lock or the snapshot failed: then nothing was written. Keeps the lock and
        the copies in ``bookkeeping``; returns (result, warnings)."""
        extra = {}
        if lock is not None:
            extra['lock'] = lock
        if snapshot is not None:
            extra['snapshot'] = snapshot
        warnings = []
        result = self.settled_call(dict(extra, read=list(paths)), task_vars, warnings)
        if result.get('failed') and paths:
            result = self.settled_call(dict(extra, read=[]), task_vars, warnings)
        self.bookkeeping = dict((name, result[name]) for name in ('lock', 'snapshots') if name in result)
        if result.get('failed'):
            raise AnsibleActionFail(failure_text(result), result=dict(self.bookkeeping))
        self.removed_temp_files = list(result.get('removed_temp_files') or [])
        return result, warnings

    def settled_call(self, module_args, task_vars, warnings):
        """node_files with ``module_args``; its ``lock`` (node_lock's options, ``holder_args`` filled in), if any,
        settled as node_files' own action plugin does: another run holding it fails the task naming the holder
        (AnsibleActionFail), a stale one is taken over with a warning (appended to ``warnings``)."""
        def call(args):
            res = dict(self._execute_module(module_name=NODE_FILES, module_args=args, task_vars=task_vars))
            res.pop('invocation', None)
            return res

        lock = module_args.get('lock')
        res = call(module_args)
        if lock is not None:
            res, found = settle(res, lambda r: r.get('lock'), lock, bool(self._play_context.check_mode),
                                task_vars.get('inventory_hostname'),
                                lambda run_id: call(dict(module_args, lock=dict(lock, takeover_run_id=run_id))))
            warnings.extend(found)
        return res

    def call_node_files(self, module_args, task_vars):
        """node_files with ``module_args``. The first such call of a task that reuses an earlier read (``deferred``,
        shared with the concerns' plugins) also renews the lock, checks that the files read earlier are unchanged
        (``expect``) and takes the snapshot, before it does anything else; when one of those files changed, it did
        nothing at all and StaleRead is raised."""
        deferred = getattr(self, 'deferred', None)
        if not deferred or deferred.get('sent'):
            return self._execute_module(module_name=NODE_FILES, module_args=module_args, task_vars=task_vars)
        deferred['sent'] = True
        res = self.settled_call(dict(module_args, **deferred['extra']), task_vars, deferred['warnings'])
        deferred['bookkeeping'] = dict((name, res[name]) for name in ('lock', 'snapshots') if name in res)
        if res.get('stale'):
            raise StaleRead(res['stale'])
        return res


class StaleRead(Exception):
    """A file read in an earlier task changed since: the call that was to use that read did nothing."""


def commit_key(writes, remove):
    """What identifies one commit (every write with all its options, and the removals), to recognise it again."""
    return (tuple(tuple(sorted((name, repr(value)) for name, value in item.items())) for item in writes),
            tuple(remove))


class CommittedBatch(object):
    """The commits of several concerns done in one node_files call (node_config's apply): each concern's commit
    is then answered with its part of that call's result instead of a call of its own, provided it asks for exactly
    what was committed for it."""

    def __init__(self, commits, outcome):
        self._parts = {}
        for writes, remove in commits:
            paths = [item['path'] for item in writes]
            patterns = [temp_pattern(path) for path in paths]
            part = dict(
                written=[path for path in outcome.get('written') or [] if path in paths],
                removed=[path for path in outcome.get('removed') or [] if path in remove],
                backup_files=dict((path, backup) for path, backup in (outcome.get('backup_files') or {}).items()
                                  if path in paths),
                removed_temp_files=[name for name in outcome.get('removed_temp_files') or []
                                    if any(pattern.match(posixpath.basename(name)) for pattern in patterns)],
                files={}, snapshots=[])
            part['changed'] = bool(part['written'] or part['removed'])
            self._parts[commit_key(writes, remove)] = part

    def take(self, writes, remove):
        """The part of the batch for this commit (once), or None when it was not in the batch."""
        return self._parts.pop(commit_key(writes, remove), None)


def simulated_commit(writes, remove, cache, limit=MAX_CONFIG_BYTES):
    """What node_files in check mode would answer to ``writes`` and ``remove``, decided from the read of the same
    task (``cache``: node_files' ``files`` of the prefetch, with ``write_error`` and ``remove_error``) instead of a
    second call: the same checks in the same order (size, the checksum the change was based on, immutable or
    append-only files and directories) and the same messages. None when a path was not in that read (then
    node_files is asked). Raises AnsibleActionFail where node_files would fail."""
    if cache is None:
        return None
    infos = {}
    for path in [item['path'] for item in writes] + list(remove):
        info = cache.get(path)
        if info is None or 'write_error' not in info or 'remove_error' not in info:
            return None
        infos[path] = info
    written = []
    for item in writes:
        path = item['path']
        info = infos[path]
        data = to_bytes(item['content'], errors='surrogate_or_strict')
        if len(data) > limit:
            raise AnsibleActionFail(oversize_message(path, len(data), limit))
        current = base64.b64decode(info['content']) if info.get('exists') else None
        expected = item.get('expected_checksum')
        if expected is not None:
            actual = info['checksum'] if current is not None else 'absent'
            if actual != expected:
                raise AnsibleActionFail(changed_meanwhile_message(path, expected, actual))
        if current != data:
            if info['write_error']:
                raise AnsibleActionFail(info['write_error'])
            written.append(path)
    removed = []
    for path in remove:
        info = infos[path]
        # node_files removes what exists as a name, a link whose target is gone included
        if info.get('exists') or info.get('link_target') is not None:
            if info['remove_error']:
                raise AnsibleActionFail(info['remove_error'])
            removed.append(path)
    return dict(changed=bool(written or removed), files={}, written=written, removed=removed, backup_files={},
                removed_temp_files=[], snapshots=[])


def failure_text(result):
    """The message of a failed node_files run: its ``msg``, else the text of its exception, never a repr."""
    msg = result.get('msg')
    if msg:
        return msg
    exc = result.get('exception')
    text = None
    if isinstance(exc, str):
        text = exc.strip().splitlines()[-1] if exc.strip() else None
    elif exc is not None:
        text = getattr(exc, 'msg', None) or getattr(getattr(exc, 'event', None), 'msg', None)
    return 'numaops.colocation.node_files failed on the node: %s' % (text or 'no message (run with -vvv for the module output)')


def decode_text(path, data):
    """File bytes as text (nodefile.decode_text: UTF-8, no NUL byte), a refusal as the action's failure."""
    try:
        return nodefile.decode_text(path, data, 'TOML or YAML file')
    except nodefile.NodeFileError as exc:
        raise AnsibleActionFail(str(exc))


def make_diff(path, before, after):
    """An Ansible diff dict for one file (``None`` text means the file does not exist)."""
    return dict(before=before or '', after=after or '',
                before_header='%s%s' % (path, '' if before is not None else ' (absent)'),
                after_header='%s%s' % (path, '' if after is not None else ' (absent)'))
