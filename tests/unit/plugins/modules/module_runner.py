# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Run a module's main() in-process, the way Ansible would, and return its JSON result."""
from __future__ import annotations

import json

import pytest

from ansible.module_utils import _internal as module_internal
from ansible.module_utils.common import warnings as module_warnings
from ansible.module_utils.testing import patch_module_args


def run_module(module, capsys, check_mode=False, diff=False, **args):
    """Run ``module.main()`` with these arguments; return its result (failed or not).

    ``check_mode`` and ``diff`` set what ``--check`` and ``--diff`` would.
    """
    # each run starts with no warnings, as in its own process on a node: ansible-core keeps module warnings
    # in a process-wide collection that exit_json does not empty, so in-process runs would also return
    # the warnings of earlier runs
    module_warnings._global_warnings.clear()
    if check_mode:
        args['_ansible_check_mode'] = True
    if diff:
        args['_ansible_diff'] = True
    # and runs as on a node: once a test has imported Ansible's controller code, module warnings would go to
    # the controller's Display instead of into the result
    was_controller = module_internal.is_controller
    module_internal.is_controller = False
    try:
        with patch_module_args(args):
            with pytest.raises(SystemExit):
                module.main()
    finally:
        module_internal.is_controller = was_controller
    return json.loads(capsys.readouterr().out)
