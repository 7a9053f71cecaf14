# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Label selector and field selector strings (``?labelSelector=`` / ``?fieldSelector=``) of the
Kubernetes API stand-in, with the real API's syntax and its 400 errors."""
from __future__ import annotations

import re

_KEY = r'[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?'


class SelectorError(ValueError):
    pass


def _split_top(text):
    parts, depth, cur = [], 0, ''
    for ch in text:
        if ch == '(':
            depth += 1
        elif ch == ')':
            depth -= 1
        if ch == ',' and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def parse_label_selector(text):
    """Returns a list of (key, op, values) with op in =, !=, in, notin, exists, !exists."""
    reqs = []
    if not text:
        return reqs
    for part in _split_top(text):
        m = re.match(r'^(?P<key>%s)\s+(?P<op>in|notin)\s*\((?P<values>[^()]*)\)$' % _KEY, part)
        if m:
            values = [v.strip() for v in m.group('values').split(',') if v.strip()]
            if not values:
                raise SelectorError("unable to parse requirement: for 'in', 'notin' operators, values set can't be empty")
            reqs.append((m.group('key'), m.group('op'), values))
            continue
        m = re.match(r'^(%s)\s*(==|=|!=)\s*([A-Za-z0-9._-]*)$' % _KEY, part)
        if m:
            reqs.append((m.group(1), '!=' if m.group(3) == '!=' else '=', [m.group(4)]))
            continue
        m = re.match(r'^(!?)\s*(%s)$' % _KEY, part)
        if m:
            reqs.append((m.group(2), '!exists' if m.group(1) else 'exists', []))
            continue
        raise SelectorError('unable to parse requirement: found \'%s\', expected: \'=\', \'!=\', \'==\', \'in\', notin\'' % part)
    return reqs


def label_matches(reqs, labels):
    labels = labels or {}
    for key, op, values in reqs:
        if op == '=' and labels.get(key) != values[0]:
            return False
        if op == '!=' and key in labels and labels[key] == values[0]:
            return False
        if op == 'in' and (key not in labels or labels[key] not in values):
            return False
        if op == 'notin' and key in labels and labels[key] in values:
            return False
        if op == 'exists' and key not in labels:
            return False
        if op == '!exists' and key in labels:
            return False
    return True


def parse_field_selector(text, supported):
    """Returns a list of (field, op, value); unsupported fields raise SelectorError like the real API."""
    reqs = []
    if not text:
        return reqs
    for part in [p.strip() for p in text.split(',') if p.strip()]:
        m = re.match(r'^([A-Za-z0-9._\[\]-]+)\s*(==|=|!=)\s*(.*)$', part)
        if not m:
            raise SelectorError('invalid selector: \'%s\'; can\'t understand \'%s\'' % (text, part))
        field, op, value = m.group(1), m.group(2), m.group(3)
        if field not in supported:
            raise SelectorError('field label not supported: %s' % field)
        reqs.append((field, '!=' if op == '!=' else '=', value))
    return reqs


def field_value(obj, field):
    cur = obj
    for part in field.split('.'):
        if not isinstance(cur, dict):
            return ''
        cur = cur.get(part)
    if cur is None:
        return ''
    if isinstance(cur, bool):
        return 'true' if cur else 'false'
    return str(cur)


def field_matches(reqs, obj):
    for field, op, value in reqs:
        actual = field_value(obj, field)
        if op == '=' and actual != value:
            return False
        if op == '!=' and actual == value:
            return False
    return True
