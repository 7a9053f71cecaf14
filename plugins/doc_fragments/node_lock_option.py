# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type


class ModuleDocFragment(object):
    """The lock option of node_preflight and node_files: the node lock taken or renewed in the same module call."""

    DOCUMENTATION = r'''
options:
  lock:
    description:
      - Take (or renew) the node lock of M(numaops.colocation.node_lock) first, in the same module call - one round
        trip instead of two. Not taken when not given.
      - When another run holds the lock, nothing else is done and the task fails with node_lock's message naming the
        holder (in check mode RV(lock) reports the holder and a warning says it, as node_lock does). A stale lock is
        taken over with a warning, as node_lock does (the action plugin runs the module again, naming the stale
        holder).
      - Give O(lock.run_id) and, as wanted, O(lock.path), O(lock.job_id), O(lock.playbook), O(lock.stale_after); the
        action plugin fills in the rest.
    type: dict
    suboptions:
      path:
        description: The lock file on the node.
        type: path
        default: /var/lib/numaops-colocation/node.lock
      state:
        description:
          - V(present) takes or renews the lock.
          - V(query) only reads it, and only M(numaops.colocation.node_preflight) accepts it. A lock held by another
            run fails the task all the same (in check mode a warning), and then no file of its
            O(numaops.colocation.node_preflight#module:read_files) is read. A stale lock is not a failure there -
            C(outcome) of RV(lock) is V(stale), with a warning, and the lock is left in place (the run takes it over
            when it takes the lock).
          - O(lock.run_id) may be left out with V(query).
        type: str
        choices: [present, absent, query]
        default: present
      run_id:
        description: This run's id (unique per run; the same for every task of the run). Required with V(present).
        type: str
      job_id:
        description: The AWX job id, when the run is an AWX job (C(awx_job_id)).
        type: str
        default: ''
      playbook:
        description: What runs, for the messages (a playbook or role name).
        type: str
        default: ''
      stale_after:
        description:
          - A lock older than this many seconds is stale and taken over with a warning. V(0) never takes a lock
            over for its age.
        type: int
        default: 21600
      controller:
        description: The controller host name recorded in the lock. Filled in by the action plugin; leave it out.
        type: str
      pid:
        description: The controller process recorded in the lock. Filled in by the action plugin; leave it out.
        type: int
      started:
        description: The start time recorded in the lock (UTC, ISO 8601). Filled in by the action plugin; leave it out.
        type: str
      takeover_run_id:
        description: Replace the lock only if the run with this id still holds it (set by the action plugin). Leave it out.
        type: str
'''
