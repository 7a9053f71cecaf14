#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: node_lock
short_description: One run at a time on a node - take, check and release the node lock of numaops.colocation
version_added: 1.0.0
description:
  - Takes a lock on the node (a small JSON file, O(path)) naming its holder - the run id, the controller host and
    process, the AWX job id when the run is an AWX job, the playbook and the start time - so that a second run of
    R(numaops.colocation.node_prep, ansible_collections.numaops.colocation.node_prep_role)-style changes on the
    same node fails before it changes anything, naming the holder.
  - The lock file is created exclusively (O_CREAT|O_EXCL), so of two runs starting together exactly one gets it.
  - A stale lock is taken over with a warning - when its holder's process is gone from the controller host that
    took it (checked on the controller), or when the lock is older than O(stale_after) seconds (the node's clock,
    the file's modification time; a run renews it each time it takes the lock again).
  - V(state=present) by the holder again renews the lock; V(state=absent) removes it only when O(run_id) holds it.
  - V(state=absent) starts no Python on the node - the action plugin runs one POSIX shell command (C(cat), C(rm))
    that removes the file only when it names O(run_id) - so the release at the end of a run costs a round trip
    without a module start.
  - V(state=present) starts no Python on the node either, except to take over a stale lock - the action plugin runs
    one POSIX shell command (the shell's C(set -C), C(mkdir), C(cat), C(stat -c %Y), C(touch), C(sync)) that creates
    the file exclusively with the same JSON the module writes, or renews it when it names O(run_id), or reports the
    holder and the file's age. When that command cannot decide (a file or directory it cannot read or write, a
    C(stat) without C(-c)), this module runs instead. V(state=query) and check mode run this module.
  - In check mode nothing is written; the module reports who holds the lock (RV(holder)) and warns when it is
    held by another run.
author:
  - numaops.colocation developers (@numaops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Reads the lock and reports its holder; never writes.
  diff_mode:
    support: none
    details: The lock is bookkeeping, not configuration; the module never reports C(changed).
  platform:
    platforms: posix
options:
  path:
    description: The lock file on the node.
    type: path
    default: /var/lib/numaops-colocation/node.lock
  state:
    description:
      - V(present) takes (or renews) the lock and fails when another run holds it; V(absent) releases it;
        V(query) only reads it.
    type: str
    choices: [present, absent, query]
    default: present
  run_id:
    description: This run's id (unique per run; the same for every task of the run). Required unless V(state=query).
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
      - A lock older than this many seconds is stale and taken over with a warning. V(0) never takes a lock over
        for its age.
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
    description:
      - Replace the lock only if the run with this id still holds it (the action plugin sets it after deciding that
        the lock is stale). Leave it out.
    type: str
notes:
  - The module runs through an action plugin on the controller, which checks whether the holder's process still
    exists when it was started from the same controller host; the node needs only Python's standard library (and
    a POSIX shell with the commands above for the lock taken and released without it).
'''

EXAMPLES = r'''
- name: Take the node lock for this run
  numaops.colocation.node_lock:
    run_id: "{{ my_run_id }}"
    job_id: "{{ awx_job_id | default('') }}"
    playbook: node_prep

- name: Release it
  numaops.colocation.node_lock:
    run_id: "{{ my_run_id }}"
    state: absent
'''

RETURN = r'''
outcome:
  description:
    - V(acquired), V(refreshed) (already ours), V(taken_over) (a stale lock was replaced), V(held) (another run
      has it), V(released), V(absent) (no lock), V(not_ours) (V(state=absent) left another run's lock),
      V(would_acquire) / V(would_take_over) in check mode.
  returned: success
  type: str
  sample: acquired
holder:
  description: The lock's holder after the task (or in check mode, now); empty when nobody holds it.
  returned: success
  type: dict
  sample: {run_id: 20261201T101500Z-4711, controller: ctl-1, pid: 4242, job_id: '42', started: '2026-12-01T10:15:00Z'}
age:
  description: Seconds since the lock was taken or renewed.
  returned: when a lock exists
  type: int
  sample: 42
locked_by_other:
  description: Whether another run holds the lock (in check mode, or with V(state=query)).
  returned: success
  type: bool
  sample: false
stale:
  description: Why the lock found was stale (it was taken over), or empty.
  returned: success
  type: str
  sample: ''
'''

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.numaops.colocation.plugins.module_utils import nodelock

ARGUMENT_SPEC = nodelock.OPTIONS_SPEC


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True,
                           required_if=[('state', 'present', ['run_id']), ('state', 'absent', ['run_id'])])
    result = {}
    try:
        nodelock.step(module.params, module.check_mode, result)
    except nodelock.LockError as err:
        module.fail_json(msg=str(err), **result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
