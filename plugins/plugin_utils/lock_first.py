# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The controller's half of the node lock (numaops.colocation.node_lock), and the base of the action plugins whose
module takes or renews the lock in its own call (the ``lock`` option of node_preflight and node_files): one round
trip instead of two.

The node's half (module_utils/nodelock.py ``step``) takes the lock or says who holds it. ``settle`` is what the
controller adds: the controller host and process recorded in the lock, whether a holder from this controller host
is gone, the takeover of a stale lock with a warning (the module is run again, naming the stale holder), and the
message naming the holder when another run has the lock (a failure; in check mode a warning)."""
from __future__ import annotations

import datetime
import os
import socket

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.numaops.colocation.plugins.module_utils import nodelock

# the options of node_lock the lock option of node_preflight/node_files may carry (its state is present there)
LOCK_OPTIONS = frozenset(('path', 'run_id', 'job_id', 'playbook', 'stale_after'))


def process_alive(pid):
    """Whether process ``pid`` of this machine runs (True also when it is another user's); None when ``pid`` is not a
    process id."""
    try:
        os.kill(int(pid), 0)
    except (TypeError, ValueError):
        return None
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def holder_args(args):
    """``args`` (node_lock's options) with the holder's controller host, process and start time filled in."""
    args = dict(args)
    args.setdefault('controller', socket.gethostname())
    # the worker process is forked from ansible-playbook: its parent lives as long as the run
    args.setdefault('pid', os.getppid())
    args.setdefault('started', datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'))
    return args


def lock_option(lock_args, module, query=False):
    """The ``lock`` option of ``module`` checked and completed for the node (``holder_args``; state present, or
    ``query`` when the module allows it: only read, no run_id needed); raises AnsibleActionFail naming what is
    allowed."""
    state = lock_args.get('state') or 'present' if isinstance(lock_args, dict) else None
    allowed = LOCK_OPTIONS | {'state'} if query else LOCK_OPTIONS
    if (not isinstance(lock_args, dict) or set(lock_args) - allowed
            or state not in (('present', 'query') if query else ('present',))
            or (state == 'present' and not lock_args.get('run_id'))):
        raise AnsibleActionFail(
            '%s: lock must be a dictionary with run_id and optionally %s (the options of '
            'numaops.colocation.node_lock%s), not %r. Nothing was changed.'
            % (module, ', '.join(sorted(allowed - {'run_id'})),
               '; state=query only reads the lock and needs no run_id' if query else '', lock_args))
    return holder_args(dict(lock_args, state=state))


def settle(result, lock_of, args, check_mode, host, rerun, query_fails=False):
    """Decide on the lock the module found. ``result`` is the module's result, ``lock_of(result)`` its lock part
    (node_lock's own result, or ``result['lock']``), ``args`` the lock options (``holder_args``), ``rerun(run_id)``
    runs the module again taking over the stale lock of ``run_id`` and returns its result.

    Returns (result, warnings). Raises AnsibleActionFail naming the holder when another run holds the lock (not in
    check mode; for ``state=query`` only with ``query_fails``: the pre-flight of a run that will take the lock if
    the node has something to change). With ``query_fails``, a stale lock found by ``state=query`` is not a
    failure: its outcome is ``stale`` (left in place; taken over when the run takes the lock)."""
    state = args.get('state') or 'present'
    path = args.get('path') or nodelock.DEFAULT_PATH
    stale_after = int(args.get('stale_after', 21600) or 0)
    controller = args.get('controller')
    warnings = []
    lock = lock_of(result)
    if result.get('failed') or lock is None or state == 'absent':
        return result, warnings
    holder = lock.get('holder') or {}
    if lock.get('outcome') == 'held':
        alive = process_alive(holder.get('pid')) if holder.get('controller') == controller else None
        reason = nodelock.stale_reason(holder, lock.get('age'), stale_after, controller, alive)
        what = nodelock.describe_holder(holder, lock.get('age'))
        if reason and state == 'query' and query_fails:
            lock.update(outcome='stale', stale=reason, locked_by_other=False)
            warnings.append('%s: the lock %s of %s is stale: %s. It is taken over if this run changes the node.'
                            % (host, path, what, reason))
            return result, warnings
        if reason and state == 'present':
            warning = '%s: taking over the stale lock %s of %s: %s.' % (host, path, what, reason)
            if check_mode:
                lock.update(outcome='would_take_over', stale=reason)
                warnings.append(warning)
            else:
                result = rerun(holder.get('run_id'))
                lock = lock_of(result)
                if result.get('failed') or lock is None:
                    return result, warnings
                if lock.get('outcome') == 'taken_over':
                    lock['stale'] = reason
                    warnings.append(warning)
                holder = lock.get('holder') or {}
                what = nodelock.describe_holder(holder, lock.get('age'))
        if lock.get('outcome') == 'held':
            message = ('%s is locked by another run: %s (lock file %s on the node). Only one run may change a '
                       'node at a time: wait for it to finish. If that run is gone, its lock is taken over once '
                       'it is older than %d s (node_prep_lock_stale_after), or remove the file. Nothing was '
                       'changed.' % (host, what, path, stale_after))
            if check_mode or (state == 'query' and not query_fails):
                warnings.append(message)
                lock['msg'] = message
            else:
                raise AnsibleActionFail(message, result=result)
    elif check_mode and lock.get('outcome') == 'absent' and state == 'present':
        lock['outcome'] = 'would_acquire'
    return result, warnings


class LockFirstAction(ActionBase):
    """Runs ``MODULE``, whose own call takes or renews the node lock first when the task has a ``lock`` option
    (node_lock's options; state present). A lock held by another run fails the task, the module having done
    nothing else. ``RELEASE_ON_FAILURE``: a module that fails after taking the lock released it itself; if it could
    not say so (a crash), the lock is released here (only a lock of this run id is ever removed). ``LOCK_QUERY``:
    the ``lock`` option may also be ``state=query`` (only read; a lock held by another run fails the task all the
    same, a stale one is reported and left)."""

    TRANSFERS_FILES = False
    MODULE = None
    RELEASE_ON_FAILURE = False
    LOCK_QUERY = False

    def _run(self, args, task_vars):
        res = dict(self._execute_module(module_name=self.MODULE, module_args=args, task_vars=task_vars))
        res.pop('invocation', None)
        return res

    def run(self, tmp=None, task_vars=None):
        self._supports_check_mode = True
        self._supports_async = False
        task_vars = task_vars or {}
        result = super(LockFirstAction, self).run(tmp, task_vars)
        del tmp
        args = dict(self._task.args)
        lock_args = args.get('lock')
        check_mode = bool(self._play_context.check_mode)
        warnings = []
        try:
            if lock_args is None:
                res = self._run(args, task_vars)
            else:
                lock_args = lock_option(lock_args, self.MODULE, query=self.LOCK_QUERY)
                args['lock'] = lock_args
                res = self._run(args, task_vars)
                res, warnings = settle(
                    res, lambda r: r.get('lock'), lock_args, check_mode, task_vars.get('inventory_hostname'),
                    lambda run_id: self._run(dict(args, lock=dict(lock_args, takeover_run_id=run_id)), task_vars),
                    query_fails=True)
                if (res.get('failed') and self.RELEASE_ON_FAILURE and not check_mode
                        and lock_args['state'] != 'query'
                        and 'released_after_failure' not in (res.get('lock') or {})):
                    released = self._execute_module(
                        module_name='numaops.colocation.node_lock', task_vars=task_vars,
                        module_args=dict(path=lock_args.get('path'), run_id=lock_args['run_id'], state='absent'))
                    res.setdefault('lock', {})['released_after_failure'] = (
                        released.get('outcome') or released.get('msg') or '')
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        warnings = list(res.pop('warnings', None) or []) + warnings
        result.update(res)
        if warnings:
            result['warnings'] = warnings
        return result
