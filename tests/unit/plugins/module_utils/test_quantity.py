# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from fractions import Fraction

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils.quantity import (
    QuantityError, format_bytes, parse_quantity, quantity_milli_value, quantity_value)


@pytest.mark.parametrize('text, expected', [
    ('0', 0), ('1', 1), ('+1', 1), ('-1', -1), ('1Ki', 1024), ('1Mi', 2 ** 20), ('1Gi', 2 ** 30),
    ('1Ti', 2 ** 40), ('1Pi', 2 ** 50), ('1Ei', 2 ** 60), ('1.5Gi', 3 * 2 ** 29), ('1k', 1000),
    ('1M', 10 ** 6), ('1G', 10 ** 9), ('1T', 10 ** 12), ('1P', 10 ** 15), ('1E', 10 ** 18),
    ('500m', Fraction(1, 2)), ('100m', Fraction(1, 10)), ('1e3', 1000), ('1E3', 1000),
    ('1e-3', Fraction(1, 1000)), ('12e+2', 1200), ('.5', Fraction(1, 2)), ('5.', 5),
    ('0.1Gi', Fraction(2 ** 30, 10)), ('100Mi', 100 * 2 ** 20), (' 2Gi ', 2 * 2 ** 30),
    (3, 3), (0.5, Fraction(1, 2)), (1.1, Fraction(11, 10)),
])
def test_parse_quantity(text, expected):
    assert parse_quantity(text) == expected


@pytest.mark.parametrize('bad', [
    '', 'abc', '1Gb', '1gi', '1 Gi', '1..5', 'Gi', '--1', '1e', '1e999', 'e3', '1.5.5', None, True,
    [], {}, float('nan'), float('inf'), '1Ki1',
])
def test_parse_quantity_rejects(bad):
    with pytest.raises(QuantityError) as err:
        parse_quantity(bad, field='systemReserved.memory')
    assert 'systemReserved.memory' in str(err.value)
    assert 'Ki Mi Gi' in str(err.value) or 'exponent' in str(err.value)


@pytest.mark.parametrize('text, value, milli', [
    ('1', 1, 1000), ('500m', 1, 500), ('1500m', 2, 1500), ('0.5', 1, 500), ('1Ki', 1024, 1024000),
    ('0.1', 1, 100), ('1.0001m', 1, 2), ('0', 0, 0), ('1.5Gi', 1610612736, 1610612736000),
])
def test_rounding_up_like_kubernetes(text, value, milli):
    assert quantity_value(text) == value
    assert quantity_milli_value(text) == milli


@pytest.mark.parametrize('number, text', [
    (0, '0'), (1, '1'), (1023, '1023'), (1024, '1Ki'), (1536 * 2 ** 20, '1536Mi'),
    (2 ** 30, '1Gi'), (100 * 2 ** 20, '100Mi'), (1025, '1025'),
])
def test_format_bytes(number, text):
    assert format_bytes(number) == text
    assert parse_quantity(text) == number
