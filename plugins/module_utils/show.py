# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A value as the kubelet rules and the CPU-list parser quote it in a message: strings in double quotes,
dictionaries and lists as sorted JSON, anything else as Python writes it. Standard library only, Python 3.8+."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json


def show(value):
    """'"0-3"' for the string 0-3, '{"a": 1}' for a dictionary, 'True' / '3' / 'None' for other values."""
    if isinstance(value, str):
        return '"%s"' % value
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else repr(value)
