# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin for numaops.colocation.node_lock: records the controller host and process in the lock, tells
whether a holder from this controller host is gone, and takes a stale lock over with a warning."""
from __future__ import annotations

import datetime
import os
import socket

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.numaops.colocation.plugins.module_utils import nodelock

MODULE = 'numaops.colocation.node_lock'


def _alive(pid):
    try:
        os.kill(int(pid), 0)
    except (TypeError, ValueError):
        return None
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ActionModule(ActionBase):

    TRANSFERS_FILES = False

    def _run_module(self, args, task_vars):
        return self._execute_module(module_name=MODULE, module_args=args, task_vars=task_vars)

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars or {}
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp
        args = dict(self._task.args)
        controller = socket.gethostname()
        args.setdefault('controller', controller)
        # the worker process is forked from ansible-playbook: its parent lives as long as the run
        args.setdefault('pid', os.getppid())
        args.setdefault('started', datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'))
        state = args.get('state', 'present')
        path = args.get('path') or '/var/lib/numaops-colocation/node.lock'
        stale_after = int(args.get('stale_after', 21600) or 0)
        outcome = self._run_module(args, task_vars)
        if outcome.get('failed') or state == 'absent':
            result.update(outcome)
            return result
        holder = outcome.get('holder') or {}
        if outcome.get('outcome') == 'held':
            alive = _alive(holder.get('pid')) if holder.get('controller') == controller else None
            reason = nodelock.stale_reason(holder, outcome.get('age'), stale_after, controller, alive)
            what = nodelock.describe_holder(holder, outcome.get('age'))
            if reason and state == 'present':
                warning = '%s: taking over the stale lock %s of %s: %s.' % (
                    task_vars.get('inventory_hostname'), path, what, reason)
                if self._play_context.check_mode:
                    outcome.update(outcome='would_take_over', stale=reason)
                    outcome.setdefault('warnings', []).append(warning)
                else:
                    outcome = self._run_module(dict(args, takeover_run_id=holder.get('run_id')), task_vars)
                    if outcome.get('outcome') == 'taken_over':
                        outcome['stale'] = reason
                        outcome.setdefault('warnings', []).append(warning)
                    holder = outcome.get('holder') or {}
                    what = nodelock.describe_holder(holder, outcome.get('age'))
            if outcome.get('outcome') == 'held':
                message = ('%s is locked by another run: %s (lock file %s on the node). Only one run may change a '
                           'node at a time: wait for it to finish. If that run is gone, its lock is taken over once '
                           'it is older than %d s (node_prep_lock_stale_after), or remove the file. Nothing was '
                           'changed.' % (task_vars.get('inventory_hostname'), what, path, stale_after))
                if self._play_context.check_mode or state == 'query':
                    outcome.setdefault('warnings', []).append(message)
                    outcome['msg'] = message
                else:
                    raise AnsibleActionFail(message, result=outcome)
        elif self._play_context.check_mode and outcome.get('outcome') == 'absent' and state == 'present':
            outcome['outcome'] = 'would_acquire'
        outcome['changed'] = False
        result.update(outcome)
        return result
