# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""values: the one rule of what counts as true and of a list without repeats, and the modules that use it."""
from __future__ import annotations

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import (
    kubelet_target, node_prep_concerns, preflight, values)


@pytest.mark.parametrize('value, truth', [
    (True, True), (False, False), (None, False), ('yes', True), ('No', False), (1, True), (0, False), ('t', True),
    ('y', True), ('', False), (' on ', True), ('2', False), ('TRUE', True), ('off', False),
])
def test_truthy(value, truth):
    assert values.truthy(value) is truth


def test_spellings_are_ansibles():
    from ansible.module_utils.parsing.convert_bool import BOOLEANS_FALSE, BOOLEANS_TRUE
    assert set(values.TRUE_STRINGS) == {b for b in BOOLEANS_TRUE if isinstance(b, str) and b == b.lower()}
    assert set(values.FALSE_STRINGS) == {b for b in BOOLEANS_FALSE if isinstance(b, str) and b == b.lower()}


@pytest.mark.parametrize('items, expected', [
    ([], []), ([1, 1, 2], [1, 2]), (['b', 'a', 'b'], ['b', 'a']), ([{'a': 1}, {'a': 1}, {'b': 2}], [{'a': 1}, {'b': 2}]),
])
def test_unique(items, expected):
    assert values.unique(items) == expected


def test_one_rule_everywhere():
    # the pre-flight, the registry and the kubelet target read the same function, not copies that could drift
    assert preflight.truthy is values.truthy and preflight.unique is values.unique
    assert node_prep_concerns._truthy is values.truthy and node_prep_concerns._unique is values.unique
    assert kubelet_target._truthy is values.truthy
