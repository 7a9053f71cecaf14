# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type


class ModuleDocFragment(object):
    """The snapshot option of node_files and node_config: copies of the files about to change, taken in the same
    call to the node, for node_prep's rollback."""

    DOCUMENTATION = r'''
options:
  snapshot:
    description:
      - Copy files into a backup directory before anything else is done (after the node lock of O(lock)), in the
        same call to the node, for a rollback that puts back exactly what was there (C(numaops.colocation.node_prep)
        snapshots every file its plan is about to change this way, without a round trip of its own).
      - Each existing file of O(snapshot.paths) is copied (links followed) to O(snapshot.dest) plus its path with
        O(snapshot.strip_prefix) removed, with its mode; the directories made are mode 0700. A missing file is
        recorded with C(existed=false). See RV(snapshots).
      - The copies are bookkeeping, not a change of the node; they do not make the task changed. Check mode
        reports what would be copied and copies nothing.
    type: dict
    suboptions:
      paths:
        description: Absolute paths of the files to copy.
        type: list
        elements: path
        required: true
      dest:
        description: The backup directory (created when missing).
        type: path
        required: true
      strip_prefix:
        description: A prefix to drop from each path below O(snapshot.dest) (a copied node tree's root).
        type: str
        default: ''
'''
