# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Controller-side base for action plugins of node-side modules that take an optional ``lock`` option: the node
lock is taken (or renewed) first with the numaops.colocation.node_lock action, unchanged (the same checks, stale
takeover, check-mode reporting and messages), and then the module runs - one task instead of two.

A lock held by another run fails the task before the module runs. ``RELEASE_ON_FAILURE``: when the module fails
after the lock was taken, release it again (for a task that takes the lock, so that its failure leaves no lock
behind; a task that renews a lock taken earlier leaves it to whoever took it)."""
from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

LOCK = 'numaops.colocation.node_lock'
# the options of node_lock the lock option may carry (its state is always present here)
LOCK_OPTIONS = frozenset(('path', 'run_id', 'job_id', 'playbook', 'stale_after'))
TAKEN = ('acquired', 'refreshed', 'taken_over')


def sub_action(action, module, args):
    """The action plugin of ``module`` for a copy of ``action``'s task with ``args``."""
    task = action._task.copy()
    task.args = args
    task.action = module
    task._resolved_action = module
    return action._shared_loader_obj.action_loader.get(
        module, task=task, connection=action._connection, play_context=action._play_context, loader=action._loader,
        templar=action._templar, shared_loader_obj=action._shared_loader_obj)


def run_lock(action, args, task_vars):
    """Run the node_lock action with ``args``; its result (a failure as a result with ``failed``)."""
    try:
        res = sub_action(action, LOCK, args).run(task_vars=task_vars)
    except AnsibleActionFail as err:
        res = dict(getattr(err, 'result', None) or {})
        res.update(failed=True, changed=False, msg=err.message)
    res = dict(res)
    res.pop('invocation', None)
    return res


class LockFirstAction(ActionBase):
    """Run ``MODULE`` on the node, after taking the node lock when the task has a ``lock`` option."""

    TRANSFERS_FILES = False
    MODULE = None
    RELEASE_ON_FAILURE = False

    def run(self, tmp=None, task_vars=None):
        self._supports_check_mode = True
        self._supports_async = False
        task_vars = task_vars or {}
        result = super(LockFirstAction, self).run(tmp, task_vars)
        del tmp
        args = dict(self._task.args)
        lock_args = args.pop('lock', None)
        warnings = []
        lock = None
        try:
            if lock_args is not None:
                if not isinstance(lock_args, dict) or not lock_args.get('run_id') or set(lock_args) - LOCK_OPTIONS:
                    raise AnsibleActionFail(
                        '%s: lock must be a dictionary with run_id and optionally %s (the options of %s), not %r. '
                        'Nothing was changed.' % (self.MODULE, ', '.join(sorted(LOCK_OPTIONS - {'run_id'})), LOCK,
                                                  lock_args))
                lock = run_lock(self, dict(lock_args, state='present'), task_vars)
                warnings.extend(lock.pop('warnings', None) or [])
                if lock.get('failed'):
                    # held by another run (or unreadable): the module does not run
                    result.update(failed=True, changed=False, msg=lock.get('msg'), lock=lock)
                    if warnings:
                        result['warnings'] = warnings
                    return result
            res = dict(self._execute_module(module_name=self.MODULE, module_args=args, task_vars=task_vars))
            res.pop('invocation', None)
            warnings.extend(res.pop('warnings', None) or [])
            if (res.get('failed') and self.RELEASE_ON_FAILURE and lock is not None
                    and lock.get('outcome') in TAKEN and not self._play_context.check_mode):
                released = run_lock(self, dict(path=lock_args.get('path'), run_id=lock_args['run_id'], state='absent'),
                                    task_vars)
                lock = dict(lock, released_after_failure=released.get('outcome') or released.get('msg') or '')
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        result.update(res)
        if lock is not None:
            result['lock'] = lock
        if warnings:
            result['warnings'] = warnings
        return result
