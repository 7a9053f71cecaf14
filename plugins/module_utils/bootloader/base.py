# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The interface of a boot-loader backend (one file per backend in this package, registered in __init__.py)."""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type


class Plan(object):
    """What a backend found and will do: ``changed``, ``paths`` (the files it changes or would change, in the result
    as grub_cfg_paths), ``next_tokens`` (the arguments the default entry boots with next) and the backend's own
    ``details`` (whatever its write needs)."""

    def __init__(self, changed, paths, next_tokens, **details):
        self.changed = changed
        self.paths = paths
        self.next_tokens = next_tokens
        self.details = details


class Backend(object):
    """One boot loader: how kernel_cmdline finds it and changes the arguments every kernel boots with.

    The run (run() below) is ``read`` -> ``plan`` -> (only when something changes and not in check mode) ``write``
    -> ``verify``. Every file goes through ``self.node`` (bootloader/node.py): ``node.write_atomic`` and
    ``node.remember`` (before a tool changes a file) keep it first, so that any failure, until the result is
    returned, puts every file back exactly. A step raises CmdlineError or StepFailed with a message naming the
    file and the problem."""

    # the value of kernel_cmdline's backend option
    NAME = None
    # the executables it needs: ((tool name, (path option, names looked up on PATH and the sbin directories)), ...)
    TOOLS = ()

    def __init__(self, node):
        self.node = node

    @staticmethod
    def detect(tools, boot_dir, etc_dir, bls_dir):
        """A rank when backend=auto may pick this backend on this layout (``tools``: tool name -> path or None);
        the lowest rank of all backends wins. None: never picked here."""
        return None

    def read(self):
        """Read what the plan needs from the node (files, boot entries); returns it (any value)."""
        raise NotImplementedError

    def plan(self, state):
        """The Plan for ``state`` (what read returned). Also in check mode: the diffs go to ``node.add_diff``."""
        raise NotImplementedError

    def write(self, plan):
        """Change the node as ``plan`` says (never called in check mode or when nothing changes)."""
        raise NotImplementedError

    def verify(self, plan):
        """Read back what was written; update ``plan.paths`` / ``plan.next_tokens`` from it; raise when the node
        does not carry the arguments (every file is then put back)."""
        raise NotImplementedError


def run(backend):
    """Run ``backend`` on its node: (changed, paths, next_tokens)."""
    plan = backend.plan(backend.read())
    if plan.changed and not backend.node.check_mode:
        backend.write(plan)
        backend.verify(plan)
    return plan.changed, plan.paths, plan.next_tokens
