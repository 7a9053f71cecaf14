# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Two small rules about values that the pre-flight, the concern registry, the kubelet target and koordlet's
checks all apply: what counts as true, and a list without repeats. A file of their own so that every one of
them imports the same rule (the pre-flight imports the others, so it cannot be the home).

Pure functions, standard library only (Python 3.8+).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

# Ansible's own boolean spellings (ansible.module_utils.parsing.convert_bool), compared in lower case
TRUE_STRINGS = ('y', 'yes', 'on', '1', 'true', 't')
FALSE_STRINGS = ('n', 'no', 'off', '0', 'false', 'f')


def truthy(value):
    """What Ansible's ``bool`` filter makes of a value: true for true, 1 and the strings yes/on/true/t/y/1."""
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    return str(value).strip().lower() in TRUE_STRINGS


def unique(items):
    """``items`` without repeats, in their first order (items need not be hashable)."""
    seen = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen
