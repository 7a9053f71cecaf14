# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Top-level plain scalars of a KubeletConfiguration file, read on a node that has no YAML library.

A block-style YAML file is read line by line: ``key: value`` at column 0 (the value plain, or in single or double
quotes, a trailing comment dropped), nothing nested. A file whose text starts with ``{`` is read as JSON, its
top-level scalars written as YAML would show them (``10248``, ``true``, ``null``). Values come back as text; a key
without a scalar value on its line (a nested map follows) comes back as ``''``.

Pure functions, standard library only (Python 3.8+).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import re

_TOP_SCALAR_RE = re.compile(r'''^([A-Za-z][A-Za-z0-9]*)\s*:\s*(?:"([^"]*)"|'([^']*)'|([^\s#"'{}\[\]][^#]*?))?\s*(?:#.*)?$''')
# the YAML spellings of null
NULLS = ('', '~', 'null', 'Null', 'NULL')


def _json_text(value):
    if value is None:
        return 'null'
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return value if isinstance(value, str) else json.dumps(value)


def top_level_scalars(text, keys):
    """``{key: value text}`` for each of ``keys`` set at the top level of ``text`` (YAML or JSON, see above).

    Raises ValueError for a text that starts with ``{`` and is not a JSON object."""
    found = {}
    if (text or '').lstrip().startswith('{'):
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError('not a JSON object')
        for key in keys:
            if key in data and not isinstance(data[key], (dict, list)):
                found[key] = _json_text(data[key])
        return found
    for line in (text or '').splitlines():
        match = _TOP_SCALAR_RE.match(line)
        if not match or match.group(1) not in keys:
            continue
        found[match.group(1)] = next((group for group in match.groups()[1:] if group is not None), '')
    return found
