# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The huge pages unit perf_profile writes, checked by the real systemd (``systemd-analyze verify``): it loads, its
ExecStart lines parse, and its job can be queued before kubelet.service."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import perfprofile
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.perf_trees import facts


def systemd_analyze():
    path = shutil.which('systemd-analyze') or '/usr/bin/systemd-analyze'
    if not os.path.exists(path):
        path = None
    if not path:
        pytest.fail('systemd-analyze is not installed (Debian package systemd, listed in tests/apt-packages.txt; '
                    'scripts/lib.sh ensure_apt)')
    return path


@pytest.mark.parametrize('tree, pages', [
    ('xeon8358-2s', [{'size': '1G', 'count': 4, 'node': 0}, {'size': '2M', 'count': 256, 'node': 1}]),
    ('one-node', [{'size': '2M', 'count': 1024, 'node': 0}]),
])
def test_systemd_accepts_the_unit(tmp_path, tree, pages):
    derived = perfprofile.derive({'hugepages': {'pages': pages}}, facts(tree))
    unit = tmp_path / perfprofile.UNIT_NAME
    unit.write_text(perfprofile.huge_pages_unit(derived['node_hugepages']))
    proc = subprocess.run([systemd_analyze(), 'verify', '--man=no', str(unit)], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=60, check=False, cwd=str(tmp_path))
    assert proc.returncode == 0 and proc.stdout == b'', proc.stdout.decode()
