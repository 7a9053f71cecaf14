# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Action plugin for numaops.colocation.node_preflight: with ``lock``, takes the node lock first (node_lock) and
then reads the node, in one task; a read that fails after the lock was taken releases the lock again."""
from __future__ import annotations

from ansible_collections.numaops.colocation.plugins.plugin_utils.lock_first import LockFirstAction


class ActionModule(LockFirstAction):

    MODULE = 'numaops.colocation.node_preflight'
    RELEASE_ON_FAILURE = True
