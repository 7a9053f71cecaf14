# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Waiting in the system tests for what a real program does in its own time (a kubelet admitting a pod, a
controller replacing one, a playbook taking a lock): one loop that asks until the answer comes or the time is up.
Standard library and pytest."""
from __future__ import annotations

import time

import pytest


def wait_for(what, check, timeout=90, interval=0.5, detail=None):
    """The first true value ``check()`` returns, asked every ``interval`` seconds; when it has not come after
    ``timeout`` seconds the test fails naming ``what`` and, when given, ``detail``: where the program's log is, or
    a function that gives it (the output of a process, read only then)."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() >= deadline:
            extra = detail() if callable(detail) else detail
            pytest.fail('%s: not within %d s%s' % (what, timeout, '; ' + extra if extra else ''), pytrace=False)
        time.sleep(interval)
