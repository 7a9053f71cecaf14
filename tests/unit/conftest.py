# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Make ``ansible_collections.numaops.colocation`` importable for a plain ``pytest tests/unit``.

ansible-test units runs from an ``ansible_collections/numaops/colocation`` tree and sets the path up
itself; a plain pytest run from the repository gets a symlinked tree in a temporary directory
(the repository itself is never moved).
"""
from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _ensure_collection_path():
    parts = ROOT.split(os.sep)
    if parts[-3:-1] == ['ansible_collections', 'numaops']:
        top = os.sep.join(parts[:-3])
        if top not in sys.path:
            sys.path.insert(0, top)
        return
    try:
        import ansible_collections.numaops.colocation  # noqa: F401  pylint: disable=unused-import
        return
    except ImportError:
        pass
    top = tempfile.mkdtemp(prefix='numaops-pytest-')
    atexit.register(shutil.rmtree, top, True)
    os.makedirs(os.path.join(top, 'ansible_collections', 'numaops'))
    os.symlink(ROOT, os.path.join(top, 'ansible_collections', 'numaops', 'colocation'))
    sys.path.insert(0, top)
    for name in [m for m in sys.modules if m == 'ansible_collections' or m.startswith('ansible_collections.')]:
        del sys.modules[name]


_ensure_collection_path()


# pylint: disable=wrong-import-position
import pytest  # noqa: E402

from ansible_collections.numaops.colocation.tests.unit import unit_stage  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line('markers', unit_stage.MARK_HELP)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    # before pytest's own -m selection: the unit stage runs `-m unit_stage`
    unit_stage.mark_items(items)
