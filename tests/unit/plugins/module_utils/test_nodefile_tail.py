# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""nodefile.tail_lines: the last lines of a service's log file (containerd_nri_verify, kubelet_health)."""
from __future__ import annotations

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import nodefile


def test_tail_lines_reads_only_the_last_bytes_and_replaces_what_does_not_decode(tmp_path):
    log = tmp_path / 'service.log'
    log.write_bytes(b'first line\nsecond line\nlast \xff line\n')
    assert nodefile.tail_lines(str(log), 1024) == ['first line', 'second line', u'last \ufffd line']
    # the cut falls inside the second line: only its end and the lines after it are read
    assert nodefile.tail_lines(str(log), len(b'line\nlast \xff line\n')) == ['line', u'last \ufffd line']
    with pytest.raises(OSError):
        nodefile.tail_lines(str(tmp_path / 'missing.log'), 1024)
