# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Kernel arguments the kernel takes several times, each value adding to a list (used by cmdline.py's merge).

``console=``: every one is a console, the last one is /dev/console; ``memmap=``: one memory region each; systemd's
``systemd.setenv=``: one variable each. A wanted value is added after the node's values of the key, never in place
of them. Pure functions, Python 3.8 compatible, standard library only.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

LIST_KEYS = ('console', 'memmap', 'systemd.setenv')


def satisfied(have, wanted):
    """``have`` (the (key, value) of the key's tokens, in order) carries ``wanted`` ((key, value) list): the wanted
    ones are among them in that order, and the last wanted one is the key's last value."""
    ours = [kv for kv in have if kv in wanted]
    return ours == wanted and bool(have) and have[-1] == wanted[-1]


def edit(kernel, key, wanted_raw, wanted, key_of, kv_of, style='in_place'):
    """``kernel`` tokens with the ``wanted`` values of ``key`` (raw texts ``wanted_raw``) after the node's other
    values of it: right after the last of them (``in_place``), or every value of the key at the end, the node's
    first (``append``, as grubby does). ``key_of``/``kv_of``: a token's key, (key, value)."""
    kept = [i for i, t in enumerate(kernel) if key_of(t) == key and kv_of(t) not in wanted]
    removed = [i for i, t in enumerate(kernel) if key_of(t) == key and kv_of(t) in wanted]
    if style != 'in_place':
        return [t for t in kernel if key_of(t) != key] + [kernel[i] for i in kept] + list(wanted_raw)
    at = kept[-1] + 1 if kept else (removed[0] if removed else len(kernel))
    head = [t for i, t in enumerate(kernel[:at]) if i not in removed]
    return head + list(wanted_raw) + [t for i, t in enumerate(kernel[at:], at) if i not in removed]
