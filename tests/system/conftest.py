# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Make ``ansible_collections.numaops.colocation`` importable for a plain ``pytest tests/system`` (the same
set-up as tests/unit/conftest.py, which it runs), and mark every system test for the unit stage of scripts/test.sh
(``-m unit_stage``, tests/unit/unit_stage.py)."""
from __future__ import annotations

import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'unit', 'conftest.py'))

# pylint: disable=wrong-import-position
import pytest  # noqa: E402

from ansible_collections.numaops.colocation.tests.unit import unit_stage  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def pytest_configure(config):
    config.addinivalue_line('markers', unit_stage.MARK_HELP)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    # every system test belongs to the unit stage (which runs `-m unit_stage`)
    for item in items:
        if str(item.fspath).startswith(HERE + os.sep):
            item.add_marker(getattr(pytest.mark, unit_stage.MARK))
