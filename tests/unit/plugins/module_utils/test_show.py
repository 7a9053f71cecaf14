# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""How a value is quoted in the kubelet rules' and the CPU-list parser's messages (one helper for both)."""
from __future__ import annotations

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import cpuset, kubelet, show


@pytest.mark.parametrize('value, shown', [
    ('0-3', '"0-3"'),
    ({'b': 1, 'a': [True, None]}, '{"a": [true, null], "b": 1}'),
    ([1, 'x'], '[1, "x"]'),
    (True, 'True'),
    (None, 'None'),
    (3, '3'),
    (1.5, '1.5'),
])
def test_show(value, shown):
    assert show.show(value) == shown


def test_the_kubelet_rules_and_the_cpu_list_parser_quote_alike():
    with pytest.raises(ValueError) as raised:
        cpuset.parse_cpuset(['0'])
    assert str(raised.value).startswith('["0"] is not a CPU list string')
    assert kubelet.parse_cpuset is cpuset.parse_cpuset
