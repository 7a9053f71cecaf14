# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""irqbalance's banned CPUs in its environment file (``/etc/default/irqbalance`` on Debian,
``/etc/sysconfig/irqbalance`` on openEuler and RHEL), read by the service as ``EnvironmentFile=``.

irqbalance (cputree.c ``setup_banned_cpus``) takes ``IRQBALANCE_BANNED_CPUS`` (a hex mask, deprecated) first when it
is set and not empty, else ``IRQBALANCE_BANNED_CPULIST`` (a CPU list), else the CPUs of
``/sys/devices/system/cpu/isolated`` and ``nohz_full``. ``set_banned_cpus`` writes the CPU list: the last active
``IRQBALANCE_BANNED_CPULIST=`` line gets the new value (a value naming the same CPUs in another spelling is left
alone); without one, a line is added after the commented template line (``#IRQBALANCE_BANNED_CPULIST=``) or at the
end. Every other line, comment and line ending stays byte for byte. A file with an active, non-empty
``IRQBALANCE_BANNED_CPUS`` is refused: that mask would win over the list.

Pure functions of the file's text, standard library only, Python 3.8+.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import format_cpuset, parse_cpuset

DEFAULT_PATHS = ('/etc/default/irqbalance', '/etc/sysconfig/irqbalance')
VARIABLE = 'IRQBALANCE_BANNED_CPULIST'
MASK_VARIABLE = 'IRQBALANCE_BANNED_CPUS'
_ASSIGN_RE = re.compile(r'^(\s*(?:export\s+)?)([A-Za-z_][A-Za-z0-9_]*)=(.*?)(\r?\n|\r)?$')
_TEMPLATE_RE = re.compile(r'^\s*#\s*' + VARIABLE + r'=')


class IrqbalanceError(ValueError):
    pass


def _unquote(value):
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in '"\'':
        return value[1:-1].strip()
    return value


def _assignments(lines, name):
    found = []
    for index, line in enumerate(lines):
        match = _ASSIGN_RE.match(line)
        if match and match.group(2) == name:
            found.append((index, match))
    return found


def banned_cpus(text, path=DEFAULT_PATHS[0]):
    """The CPU list of the last active IRQBALANCE_BANNED_CPULIST line (a set), or None when there is none."""
    lines = (text or '').splitlines(True)
    found = _assignments(lines, VARIABLE)
    if not found:
        return None
    index, match = found[-1]
    value = _unquote(match.group(3))
    try:
        return set(parse_cpuset(value))
    except ValueError as err:
        raise IrqbalanceError('%s line %d: %s=%s: %s' % (path, index + 1, VARIABLE, match.group(3), err))


def set_banned_cpus(text, cpus, path=DEFAULT_PATHS[0]):
    """The file's new text with IRQBALANCE_BANNED_CPULIST naming ``cpus`` (a set); ``text`` None: a new file."""
    text = text or ''
    lines = text.splitlines(True)
    for index, match in _assignments(lines, MASK_VARIABLE):
        if _unquote(match.group(3)):
            raise IrqbalanceError(
                '%s line %d: %s=%s is set, and irqbalance takes that mask before %s, so the banned CPUs would not '
                'change; remove or empty that line (the hex mask is deprecated in irqbalance). Nothing was changed.'
                % (path, index + 1, MASK_VARIABLE, match.group(3).strip(), VARIABLE))
    current = banned_cpus(text, path)
    if current == set(cpus):
        return text
    value = format_cpuset(cpus)
    found = _assignments(lines, VARIABLE)
    ending = '\r\n' if lines and lines[0].endswith('\r\n') else '\n'
    if found:
        index, match = found[-1]
        lines[index] = '%s%s=%s%s' % (match.group(1), VARIABLE, value, match.group(4) or '')
        return ''.join(lines)
    new_line = '%s=%s%s' % (VARIABLE, value, ending)
    template = [index for index, line in enumerate(lines) if _TEMPLATE_RE.match(line)]
    if lines and not lines[-1].endswith(('\n', '\r')):
        lines[-1] += ending
    if template:
        lines.insert(template[-1] + 1, new_line)
    else:
        lines.append(new_line)
    return ''.join(lines)
