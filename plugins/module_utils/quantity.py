# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Exact Kubernetes resource quantities (``resource.Quantity``), without floats.

Grammar (k8s.io/apimachinery/pkg/api/resource)::

    quantity        ::= signedNumber suffix
    suffix          ::= binarySI | decimalExponent | decimalSI
    binarySI        ::= Ki | Mi | Gi | Ti | Pi | Ei
    decimalSI       ::= m | "" | k | M | G | T | P | E
    decimalExponent ::= "e" signedNumber | "E" signedNumber
    signedNumber    ::= ("+" | "-")? number
    number          ::= digits | digits "." digits? | "." digits

Values are :class:`fractions.Fraction`; ``quantity_value`` and ``quantity_milli_value`` round up
like ``Quantity.Value()`` and ``Quantity.MilliValue()``.
Runs on managed nodes: Python 3.8+, standard library only.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import math
import re
from fractions import Fraction

_BINARY = {'Ki': 2 ** 10, 'Mi': 2 ** 20, 'Gi': 2 ** 30, 'Ti': 2 ** 40, 'Pi': 2 ** 50, 'Ei': 2 ** 60}
_DECIMAL = {'m': Fraction(1, 1000), '': 1, 'k': 10 ** 3, 'M': 10 ** 6, 'G': 10 ** 9,
            'T': 10 ** 12, 'P': 10 ** 15, 'E': 10 ** 18}
_QUANTITY_RE = re.compile(
    r'^(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))'
    r'(?:(?P<binary>Ki|Mi|Gi|Ti|Pi|Ei)|[eE](?P<exp>[+-]?[0-9]+)|(?P<decimal>m|k|M|G|T|P|E)?)$')
# Kubernetes refuses exponents this large; so do we, so a hostile "1e999999999" cannot exhaust memory.
_MAX_EXPONENT = 64

ALLOWED = ('a number with an optional suffix: Ki Mi Gi Ti Pi Ei (powers of 1024), '
           'm k M G T P E (powers of 1000), or an exponent like 1e3')


class QuantityError(ValueError):
    """A value is not a valid Kubernetes quantity."""


def parse_quantity(value, field=None):
    """Return the exact value of a Kubernetes quantity as a Fraction.

    ``value`` is a string (``"1.5Gi"``, ``"500m"``, ``"1e3"``) or an int/float as YAML gives them.
    ``field`` names the setting in error messages.
    """
    where = ' for %s' % field if field else ''
    if isinstance(value, bool) or value is None:
        raise QuantityError('invalid quantity %r%s: expected %s' % (value, where, ALLOWED))
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise QuantityError('invalid quantity %r%s: expected %s' % (value, where, ALLOWED))
        return Fraction(repr(value))
    if not isinstance(value, str):
        raise QuantityError('invalid quantity %r%s: expected %s' % (value, where, ALLOWED))
    text = value.strip()
    match = _QUANTITY_RE.match(text)
    if not match:
        raise QuantityError('invalid quantity %r%s: expected %s' % (value, where, ALLOWED))
    number = Fraction(match.group('number'))
    if match.group('binary'):
        return number * _BINARY[match.group('binary')]
    if match.group('exp') is not None:
        exponent = int(match.group('exp'))
        if abs(exponent) > _MAX_EXPONENT:
            raise QuantityError('invalid quantity %r%s: exponent out of range (|e| <= %d)'
                                % (value, where, _MAX_EXPONENT))
        return number * Fraction(10) ** exponent
    return number * _DECIMAL[match.group('decimal') or '']


def quantity_value(value, field=None):
    """Integer value rounded up, like ``Quantity.Value()`` (bytes for memory)."""
    return int(math.ceil(parse_quantity(value, field)))


def quantity_milli_value(value, field=None):
    """Value in thousandths rounded up, like ``Quantity.MilliValue()`` (millicores for CPU)."""
    return int(math.ceil(parse_quantity(value, field) * 1000))


def format_bytes(number):
    """Render a byte count the shortest exact way Kubernetes would accept (``1Gi``, ``1536Mi``, ``100``)."""
    number = int(number)
    if number == 0:
        return '0'
    for suffix in ('Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki'):
        if number % _BINARY[suffix] == 0:
            return '%d%s' % (number // _BINARY[suffix], suffix)
    return str(number)
