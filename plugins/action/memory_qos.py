# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin for numaops.colocation.memory_qos (the documentation is in plugins/modules/).

The pods as the API returns them carry much the module never reads (managedFields, env, volumes, probes): on a
full node that is megabytes sent to the node, parsed and validated there, and echoed back in the module's
invocation. Here, on the controller, each pod is cut down to what the module reads (memqos.POD_FIELDS and the
flavour's pod_fields); the module then runs as it would have."""
from __future__ import annotations

from ansible.plugins.action import ActionBase
from ansible.utils.vars import merge_hash

from ansible_collections.numaops.colocation.plugins.module_utils import memqos
from ansible_collections.numaops.colocation.plugins.module_utils.memqos_flavours import DEFAULT, FLAVOURS

MODULE = 'numaops.colocation.memory_qos'


class ActionModule(ActionBase):

    TRANSFERS_FILES = False
    _supports_check_mode = True
    _supports_async = True

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp
        args = dict(self._task.args)
        if args.get('pods') is not None:
            # the fields the flavour reads too (an unknown flavour: all of them, the module then refuses it)
            flavour = FLAVOURS.get(args.get('flavour') or DEFAULT)
            if flavour is not None:
                args['pods'] = memqos.slim_pods(args['pods'], flavour.pod_fields)
        wrap_async = self._task.async_val and not self._connection.has_native_async
        result = merge_hash(result, self._execute_module(module_name=MODULE, module_args=args, task_vars=task_vars,
                                                         wrap_async=wrap_async))
        if not wrap_async:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        return result
