# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The reads of node files that a run keeps on the controller for a later task (plugin_utils/node_files.py ``keep``:
the pre-flight's read, used by the plan and the apply) live in ansible-playbook's own local temporary directory
(mode 0700, each file 0600), which Ansible removes when the run ends. A run that is killed (SIGKILL, a lost
AWX container) cannot remove it, and a read can hold credentials (containerd's config.toml). ``sweep`` removes
them at the next run: every kept read in the local temporary directory of an ansible-playbook process that is
gone. A run that is still going (its process is there) is left alone."""
from __future__ import annotations

import os

from ansible_collections.numaops.colocation.plugins.plugin_utils.lock_first import process_alive
from ansible_collections.numaops.colocation.plugins.plugin_utils.node_files import _KEPT_PREFIX

# ansible's local temporary directory: tempfile.mkdtemp(prefix='ansible-local-<pid>'), 8 random characters after
_RUN_PREFIX = 'ansible-local-'
_RANDOM = 8


def run_pid(name):
    """The process id of the run whose local temporary directory is named ``name``, or None."""
    if not name.startswith(_RUN_PREFIX) or len(name) <= len(_RUN_PREFIX) + _RANDOM:
        return None
    digits = name[len(_RUN_PREFIX):-_RANDOM]
    return int(digits) if digits.isdigit() else None


def sweep(local_tmp, alive=process_alive):
    """Removes the kept reads of the runs that are gone, beside this run's ``local_tmp``; returns their paths."""
    parent, mine = os.path.split(os.path.normpath(local_tmp))
    removed = []
    try:
        names = os.listdir(parent)
    except OSError:
        return removed
    for name in sorted(names):
        pid = run_pid(name)
        if pid is None or name == mine or alive(pid):
            continue
        directory = os.path.join(parent, name)
        try:
            entries = os.listdir(directory)
        except OSError:
            continue
        for entry in sorted(entries):
            if entry.startswith(_KEPT_PREFIX) and entry.endswith('.json'):
                path = os.path.join(directory, entry)
                try:
                    os.unlink(path)
                    removed.append(path)
                except OSError:
                    pass
    return removed
