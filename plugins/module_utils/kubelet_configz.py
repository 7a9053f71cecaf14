# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a running kubelet says it runs: its ``/configz`` answer, and the managed keys compared with what was written.

The kubelet serves ``/configz`` (k8s.io/component-base/configz) as one JSON object holding its configuration under
``kubeletconfig``, in the ``kubelet.config.k8s.io/v1beta1`` field names, after the main file, the drop-ins and the
command-line flags were merged and defaulted. Its values are Go's spellings: a duration as ``1m0s``, a quantity in
its canonical form (``1Gi`` for ``1024Mi``), a CPU list as written. The comparison takes each of them by value.

Pure functions, standard library only (Python 3.8+).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json

from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import parse_cpuset
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.common import parse_duration
from ansible_collections.numaops.colocation.plugins.module_utils.quantity import parse_quantity

DURATION_KEYS = ('cpuManagerReconcilePeriod',)
CPU_LIST_KEYS = ('reservedSystemCPUs',)
QUANTITY_MAP_KEYS = ('systemReserved', 'kubeReserved')


class ConfigzError(ValueError):
    """An answer of /configz that is not the kubelet's configuration."""


def parse(text, where='/configz'):
    """The kubelet's configuration from the text of a /configz answer; raises ConfigzError."""
    try:
        data = json.loads(text)
    except ValueError as err:
        raise ConfigzError('%s did not answer JSON (%s): %s' % (where, err, _head(text)))
    if not isinstance(data, dict) or not isinstance(data.get('kubeletconfig'), dict):
        raise ConfigzError('%s answered no "kubeletconfig" object (keys: %s)' % (
            where, ', '.join(sorted(data)) if isinstance(data, dict) else type(data).__name__))
    return data['kubeletconfig']


def _head(text, size=200):
    text = text if isinstance(text, str) else repr(text)
    return text[:size] + ('...' if len(text) > size else '')


def _same_scalar(key, want, have):
    try:
        if key in DURATION_KEYS:
            return parse_duration(str(want)) == parse_duration(str(have))
        if key in CPU_LIST_KEYS:
            return parse_cpuset(str(want)) == parse_cpuset(str(have))
    except ValueError:
        return False
    return want == have


def _same_quantity(want, have):
    try:
        return parse_quantity(want) == parse_quantity(have)
    except ValueError:
        return False


def _same_quantities(want, have):
    """Two ResourceLists (or reservation maps) with the same entries, each by value."""
    want, have = want or {}, have or {}
    if not isinstance(want, dict) or not isinstance(have, dict) or sorted(want) != sorted(have):
        return False
    return all(_same_quantity(want[name], have[name]) for name in want)


def _same_reserved_memory(want, have):
    def by_node(entries):
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            return None
        return dict((e.get('numaNode'), e.get('limits') or {}) for e in entries)
    want, have = by_node(want), by_node(have)
    if want is None or have is None or sorted(want) != sorted(have):
        return False
    return all(_same_quantities(want[node], have[node]) for node in want)


def _same_entries(want, have):
    """Every entry asked is there with that value (the kubelet may hold more: feature gates from its flags)."""
    if not isinstance(want, dict) or not isinstance(have, dict):
        return False
    return all(name in have and have[name] == want[name] for name in want)


def same(key, want, have):
    """Whether the kubelet runs ``have`` for ``key`` when ``want`` was written."""
    if key in QUANTITY_MAP_KEYS:
        return _same_quantities(want, have)
    if key == 'reservedMemory':
        return _same_reserved_memory(want, have)
    if key == 'featureGates':
        return _same_entries(want, have)
    if isinstance(want, dict):
        return isinstance(have, dict) and sorted(want) == sorted(have) and all(
            str(want[name]) == str(have[name]) for name in want)
    return _same_scalar(key, want, have)


def compare(expected, running):
    """The managed keys whose value the kubelet does not run: [{key, expected, running}], in key order.

    ``expected``: the managed keys as written (the effective configuration, main file and drop-ins merged); a key
    that is absent or null there (the kubelet's default) is not compared. ``running``: parse()'s answer."""
    mismatches = []
    for key in sorted(expected or {}):
        want = expected[key]
        if want is None or want == {} or want == []:
            continue
        have = running.get(key)
        if not same(key, want, have):
            mismatches.append({'key': key, 'expected': want, 'running': have})
    return mismatches


def compared_keys(expected):
    """The keys compare() looks at."""
    return [key for key in sorted(expected or {}) if expected[key] not in (None, {}, [])]


def line(mismatches, keys, source):
    """The report's sentence about one comparison."""
    if mismatches:
        return 'the kubelet does NOT run %s (%s)' % (
            '; '.join('%s: written %s, running %s' % (
                m['key'], json.dumps(m['expected'], sort_keys=True), json.dumps(m['running'], sort_keys=True))
                for m in mismatches), source)
    return 'the kubelet runs %s as written (%s)' % (', '.join(keys) or 'no managed key', source)
