# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""CPU lists as the kubelet and Linux write them ("0-3,8"): parsed and formatted.

A module of its own so that the node's pre-flight (module_utils/preflight.py, on every node and run) reads
/sys CPU and NUMA node lists without loading the kubelet rules (kubelet.py, which names these functions too).
Standard library only, Python 3.8+.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

from ansible_collections.numaops.colocation.plugins.module_utils.show import show as _pretty

_DIGITS_RE = re.compile(r'^[0-9]+$')


def parse_cpuset(value):
    """k8s.io/utils/cpuset.Parse ("0-3,8" -> {0, 1, 2, 3, 8}); raises ValueError."""
    if not isinstance(value, str):
        raise ValueError('%s is not a CPU list string like "0-1" or "0,2,4-7"' % _pretty(value))
    cpus = set()
    if value == '':
        return frozenset()
    for part in value.split(','):
        bounds = part.split('-', 1)
        if not all(_DIGITS_RE.match(b) for b in bounds):
            raise ValueError('%s is not a CPU list like "0-1" or "0,2,4-7": bad element "%s"' % (_pretty(value), part))
        if len(bounds) == 1:
            cpus.add(int(bounds[0]))
            continue
        start, end = int(bounds[0]), int(bounds[1])
        if start > end:
            raise ValueError('%s is not a CPU list: invalid range "%s" (%d > %d)' % (_pretty(value), part, start, end))
        cpus.update(range(start, end + 1))
    return frozenset(cpus)


def parse_read_cpuset(text, note):
    """The CPU set in ``text`` read from a node file (surrounding blanks dropped); None when ``text`` is None, or
    when it is not a CPU list: then ``note('not a CPU list: <why>')`` is called."""
    if text is None:
        return None
    try:
        return parse_cpuset(text.strip())
    except ValueError as err:
        note('not a CPU list: %s' % err)
        return None


def format_cpuset(cpus):
    """The canonical kubelet spelling of a CPU set ("0-3,8")."""
    ordered = sorted(cpus)
    parts = []
    index = 0
    while index < len(ordered):
        start = end = ordered[index]
        while index + 1 < len(ordered) and ordered[index + 1] == end + 1:
            index += 1
            end = ordered[index]
        parts.append(str(start) if start == end else '%d-%d' % (start, end))
        index += 1
    return ','.join(parts)


# the node's online CPUs, below a root (numa_facts' root; / on a node): the CPUs the kubelet's CPU manager counts
ONLINE_CPUS_FILE = 'sys/devices/system/cpu/online'


def online_cpus_path(root):
    """The file listing the node's online CPUs, below ``root`` (/ on a node)."""
    return (root or '/').rstrip('/') + '/' + ONLINE_CPUS_FILE


def parse_online_cpus(text):
    """The CPU set of an online CPUs file's text, or None when it is absent (``text`` None) or not a CPU list."""
    if text is None:
        return None
    try:
        return parse_cpuset(text.strip())
    except ValueError:
        return None
