# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin for numaops.colocation.node_lock: records the controller host and process in the lock, tells
whether a holder from this controller host is gone, and takes a stale lock over with a warning
(plugin_utils/lock_first.py, shared with the lock option of node_preflight and node_files). Taking the lock
(state=present) and releasing it (state=absent), not in check mode, are one shell command on the node each, with no
Python started there; the module runs to take over a stale lock, and whenever the command cannot decide."""
from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.numaops.colocation.plugins.module_utils import nodelock
from ansible_collections.numaops.colocation.plugins.plugin_utils.lock_first import holder_args, settle

MODULE = 'numaops.colocation.node_lock'


class ActionModule(ActionBase):

    TRANSFERS_FILES = False

    def _run_module(self, args, task_vars):
        return self._execute_module(module_name=MODULE, module_args=args, task_vars=task_vars)

    def _release(self, task_vars):
        """state=absent: one POSIX shell command on the node instead of the module (no Python started there; the
        same outcome as nodelock.release, whose file format it reads: module_utils/nodelock.release_command)."""
        validation, new_args = self.validate_argument_spec(
            argument_spec=nodelock.OPTIONS_SPEC, required_if=[('state', 'absent', ['run_id'])])
        del validation
        path = new_args['path'] or nodelock.DEFAULT_PATH
        try:
            res = self._low_level_execute_command(nodelock.release_command(path, new_args['run_id']))
            outcome, holder = nodelock.parse_release(path, res.get('rc'), res.get('stdout'), res.get('stderr'))
        except nodelock.LockError as err:
            return dict(failed=True, changed=False, msg=str(err), outcome='', holder={}, locked_by_other=False,
                        stale='')
        return dict(changed=False, outcome=outcome, holder=holder if outcome == 'not_ours' else {},
                    locked_by_other=False, stale='')

    def _acquire(self, args):
        """state=present, ``args`` the options with the holder filled in (``holder_args``): one POSIX shell command
        on the node instead of the module (module_utils/nodelock acquire_command: the same file, mode and outcomes
        as nodelock.acquire without a takeover). None when it cannot decide (the module runs instead)."""
        if not args.get('run_id') or args.get('takeover_run_id'):
            return None
        holder = nodelock.holder_of(args)
        res = self._low_level_execute_command(nodelock.acquire_command(args.get('path') or nodelock.DEFAULT_PATH,
                                                                       holder))
        found = nodelock.parse_acquire(holder, res.get('rc'), res.get('stdout'))
        if found is None:
            return None
        outcome, current, age = found
        return dict(changed=False, outcome=outcome, holder=current or {}, locked_by_other=outcome == 'held', stale='',
                    age=int(age))

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars or {}
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp
        if self._task.args.get('state') == 'absent' and not self._play_context.check_mode:
            result.update(self._release(task_vars))
            return result
        args = holder_args(self._task.args)
        outcome = None
        if (args.get('state') or 'present') == 'present' and not self._play_context.check_mode:
            # the options typed as the module would take them (the holder's fields are written as they are)
            validation, typed = self.validate_argument_spec(argument_spec=nodelock.OPTIONS_SPEC)
            del validation
            args = holder_args(dict((name, value) for name, value in typed.items() if value is not None))
            outcome = self._acquire(args)
        if outcome is None:
            outcome = self._run_module(args, task_vars)
        outcome, warnings = settle(
            outcome, lambda r: r, args, bool(self._play_context.check_mode), task_vars.get('inventory_hostname'),
            lambda run_id: self._run_module(dict(args, takeover_run_id=run_id), task_vars))
        if warnings:
            outcome['warnings'] = list(outcome.get('warnings') or []) + warnings
        if not outcome.get('failed'):
            outcome['changed'] = False
        result.update(outcome)
        return result
