# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin for numaops.colocation.node_files: with ``lock``, renews (or takes) the node lock first
(node_lock) and then runs the module, in one task (node_prep renews its lock and snapshots the files about to
change in one task). Without ``lock`` it runs the module as it is."""
from __future__ import annotations

from ansible_collections.numaops.colocation.plugins.plugin_utils.lock_first import LockFirstAction


class ActionModule(LockFirstAction):

    MODULE = 'numaops.colocation.node_files'
