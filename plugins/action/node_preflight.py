# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin for numaops.colocation.node_preflight: with ``lock``, takes the node lock first (node_lock) and
then reads the node, in one task; a read that fails after the lock was taken releases the lock again. With
``lock`` ``state: query`` the lock is only read (another run's lock fails the task all the same). With
``checks``, judges what was read against what node_prep asks (module_utils/preflight.checks), on the controller,
in the same task: the role needs no task of its own for it; what is asked also decides what is read
(module_utils/preflight.read_args). With ``read_files``, what was read is kept on the
controller for the plan that follows (node_config ``reuse_read``) and only its token is returned; the reads that a run
which was killed left on this controller are removed first (plugin_utils/kept_reads.py)."""
from __future__ import annotations

from ansible import constants as C
from ansible.errors import AnsibleActionFail

from ansible_collections.numaops.colocation.plugins.module_utils import preflight
from ansible_collections.numaops.colocation.plugins.plugin_utils import kept_reads
from ansible_collections.numaops.colocation.plugins.plugin_utils.lock_first import LockFirstAction
from ansible_collections.numaops.colocation.plugins.plugin_utils.node_files import keep, temp_files_warning


class ActionModule(LockFirstAction):

    MODULE = 'numaops.colocation.node_preflight'
    RELEASE_ON_FAILURE = True
    # node_prep only reads the lock here and takes it after its plan, on a node that has something to change
    LOCK_QUERY = True

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars or {}
        args = dict(self._task.args)
        wanted = args.pop('checks', None)
        if wanted is not None and not isinstance(wanted, dict):
            raise AnsibleActionFail('node_preflight: checks must be a dictionary (what node_prep asks of the node), '
                                    'not %r. Nothing was read.' % (wanted,))
        problem = preflight.unknown_checks_keys(wanted)
        if problem:
            raise AnsibleActionFail('node_preflight: %s. Nothing was read.' % problem)
        if wanted is not None:
            # what is asked decides what is read (no kubelet read when the kubelet concern is off, ...)
            args = preflight.read_args(args, wanted)
        self._task.args = args  # the module on the node never sees checks
        # what a killed run left on this controller: removed before this run keeps a read of its own
        swept = kept_reads.sweep(C.DEFAULT_LOCAL_TMP)
        result = super(ActionModule, self).run(tmp, task_vars)
        if swept:
            result.setdefault('warnings', []).append(
                'removed %d read(s) of node files that a run which did not end normally left on this controller: %s'
                % (len(swept), ', '.join(swept)))
        # read_files: kept on the controller for the plan that follows (node_config reuse_read), never in the result
        files = result.pop('files', None)
        removed = result.pop('removed_temp_files', None)
        unreadable = result.pop('files_error', None)
        warning = temp_files_warning(removed)
        if warning:
            result.setdefault('warnings', []).append(warning)
        if files is not None and not unreadable and not result.get('failed'):
            result['read_token'] = keep(files, task_vars.get('inventory_hostname'))
        if wanted is not None and not result.get('failed'):
            result['checks'] = preflight.checks(result, wanted, task_vars.get('inventory_hostname', ''))
            # what koordlet cannot do on this node: shown as warnings now, and kept in the notes of the report
            result.setdefault('warnings', []).extend(result['checks']['koordlet']['warnings'])
        return result
