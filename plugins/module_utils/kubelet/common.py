# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What every part of the kubelet package shares: the names of the file, the kubelet's defaults, the error the
package raises, and small parsers with the kubelet's (Go) semantics. Standard library only, Python 3.8+."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re
from fractions import Fraction

# one quoting helper for every message of the collection (show.py); named pretty here
from ansible_collections.numaops.colocation.plugins.module_utils.show import show as pretty

API_VERSION = 'kubelet.config.k8s.io/v1beta1'
KIND = 'KubeletConfiguration'
DEFAULT_PATH = '/var/lib/kubelet/config.yaml'
DEFAULT_STATE_DIR = '/var/lib/kubelet'
CPU_STATE_FILE = 'cpu_manager_state'
MEMORY_STATE_FILE = 'memory_manager_state'

CPU_POLICIES = ('none', 'static')
TOPOLOGY_POLICIES = ('none', 'best-effort', 'restricted', 'single-numa-node')
TOPOLOGY_SCOPES = ('container', 'pod')
MEMORY_POLICIES = ('None', 'Static')
RESERVABLE = ('cpu', 'memory', 'ephemeral-storage', 'pid')

# Defaults the kubelet applies to an unset key (pkg/kubelet/apis/config/v1beta1/defaults.go).
DEFAULTS = {
    'cpuManagerPolicy': 'none',
    'topologyManagerPolicy': 'none',
    'topologyManagerScope': 'container',
    'memoryManagerPolicy': 'None',
}
# kubelet's default evictionHard memory.available (applies when evictionHard is not set at all).
DEFAULT_EVICTION_MEMORY = 100 * 2 ** 20
MIN_MAX_ALLOWABLE_NUMA_NODES = 8
# evictionHard percentages the kubelet ignores (pkg/kubelet/eviction/helpers.go parseThresholdStatement).
IGNORED_EVICTION_PERCENTAGES = ('0%', '100%')

_GO_TRUE = ('1', 't', 'T', 'TRUE', 'true', 'True')
_GO_FALSE = ('0', 'f', 'F', 'FALSE', 'false', 'False')
_DURATION_RE = re.compile(r'^[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+$')
_DURATION_PART_RE = re.compile(r'([0-9]*\.?[0-9]*)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)')
_DURATION_UNITS = {'ns': 1, 'us': 10 ** 3, u'\u00b5s': 10 ** 3, u'\u03bcs': 10 ** 3, 'ms': 10 ** 6,
                   's': 10 ** 9, 'm': 60 * 10 ** 9, 'h': 3600 * 10 ** 9}


class KubeletConfigError(ValueError):
    """The requested or resulting kubelet configuration is invalid; ``errors`` lists every problem.

    ``rules`` names, for each entry of ``errors``, the validation rule that found it (``rules.RULES``), or None
    for problems found outside the rules (the shape of the requested values, the document itself).
    """

    def __init__(self, errors, rules=None):
        self.errors = list(errors)
        self.rules = list(rules) if rules is not None else [None] * len(self.errors)
        super(KubeletConfigError, self).__init__('; '.join(self.errors))


class _Remove(object):
    """Marker: the key is to be removed from the file."""

    def __repr__(self):
        return 'REMOVE'


REMOVE = _Remove()


def effective(config, key):
    """The value of a policy key as the kubelet uses it (an unset or empty value is the default)."""
    value = config.get(key)
    return DEFAULTS[key] if value in (None, '') else value


def parse_go_bool(value):
    """strconv.ParseBool; returns True/False or raises ValueError."""
    if isinstance(value, str):
        if value in _GO_TRUE:
            return True
        if value in _GO_FALSE:
            return False
    raise ValueError('%s is not a boolean string (allowed: "true" or "false"; kubelet also accepts '
                     '1, t, T, TRUE, True, 0, f, F, FALSE, False)' % pretty(value))


def parse_duration(value):
    """time.ParseDuration; returns nanoseconds as a Fraction or raises ValueError."""
    if not isinstance(value, str):
        raise ValueError('%s is not a duration string like "10s", "1m30s" or "500ms"' % pretty(value))
    if value in ('0', '+0', '-0'):
        return Fraction(0)
    if not _DURATION_RE.match(value):
        raise ValueError('%s is not a duration like "10s", "1m30s" or "500ms" (units: ns, us, ms, s, m, h)'
                         % pretty(value))
    sign = -1 if value.startswith('-') else 1
    total = Fraction(0)
    for number, unit in _DURATION_PART_RE.findall(value.lstrip('+-')):
        total += Fraction(number) * _DURATION_UNITS[unit]
    return sign * total


def near_names(name, names, limit=3):
    """Names that look like a misspelling of ``name`` (case, one or two edits away), closest first."""
    folded = name.lower()
    scored = []
    for candidate in names:
        if candidate == name:
            continue
        if candidate.lower() == folded:
            scored.append((0, candidate))
            continue
        distance = _edit_distance(folded, candidate.lower(), 2 if len(name) < 12 else 3)
        if distance is not None:
            scored.append((distance, candidate))
    return [candidate for _d, candidate in sorted(scored)[:limit]]


def _edit_distance(a, b, limit):
    """Levenshtein distance of a and b, or None when it is above ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return None
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return None
        previous = current
    return previous[-1] if previous[-1] <= limit else None
