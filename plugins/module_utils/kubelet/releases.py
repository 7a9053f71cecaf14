# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What differs between kubelet releases: feature gates, policy options and their maturity, per release rules.

The facts are generated from the Kubernetes sources into ``release_data.py`` (``scripts/gen_kubelet_releases.py``)
in a compact text form; this module reads them into tables and answers questions about one release:

* ``FEATURE_GATES``: {gate: ((first minor, (stage, default, locked to default) or None when the kubelet of that
  minor does not know the gate), ...)};
* ``CPU_MANAGER_OPTIONS`` / ``TOPOLOGY_MANAGER_OPTIONS``: {option: ((first minor, stage or None), ...)};
* ``RELEASE_RULES``: {minor: {cpu_option_gates / topology_option_gates, options_map_gates,
  merge_default_eviction_settings}}.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

from ansible_collections.numaops.colocation.plugins.module_utils.kubelet import release_data as data
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.common import near_names, pretty

_STAGES = {'A': 'Alpha', 'B': 'Beta', 'G': 'GA', 'D': 'Deprecated', 'P': 'PreAlpha', 'S': 'Special'}
_VERSION_RE = re.compile(r'^v?([0-9]+)\.([0-9]+)(?:\.([0-9]+))?(?:[-+].*)?$')


def decode_gate(code):
    """'GtL' -> ('GA', True, True) (stage letter, default t/f, L when locked to the default); 'x' -> None."""
    if code == 'x':
        return None
    return (_STAGES[code[0]], code[1] == 't', code.endswith('L'))


def decode_stage(code):
    return None if code == 'x' else code


def decode_steps(text, decode):
    """'31:Bt 34:GtL 37:x' -> ((31, ('Beta', True, False)), (34, ('GA', True, True)), (37, None))."""
    return tuple((int(minor), decode(code)) for minor, code in (step.split(':') for step in text.split()))


RELEASES = data.RELEASES
FEATURE_GATES = dict((gate, decode_steps(text, decode_gate)) for gate, text in data.GATES.items())
CPU_MANAGER_OPTIONS = dict((name, decode_steps(text, decode_stage)) for name, text in data.CPU_MANAGER_OPTIONS.items())
TOPOLOGY_MANAGER_OPTIONS = dict((name, decode_steps(text, decode_stage))
                                for name, text in data.TOPOLOGY_MANAGER_OPTIONS.items())
RELEASE_RULES = data.RELEASE_RULES
OLDEST_KNOWN_MINOR = int(RELEASES[0].split('.')[1])
NEWEST_KNOWN_MINOR = int(RELEASES[-1].split('.')[1])


def parse_kubelet_version(value):
    """'1.31', 'v1.31.2', '1.31.2-eks-1234' -> 31 (the minor of kubelet 1.x); raises ValueError."""
    match = _VERSION_RE.match(str(value).strip())
    if not match or match.group(1) != '1':
        raise ValueError('kubelet_version %s is not a Kubernetes 1.x version like "1.31" or "v1.31.2"' % pretty(value))
    minor = int(match.group(2))
    if minor < OLDEST_KNOWN_MINOR:
        hint = ''
        if len(match.group(2)) == 1 and not str(value).startswith('v'):
            hint = ' (if you meant 1.%s0, quote it: YAML reads 1.%s0 as the number 1.%s)' % ((match.group(2),) * 3)
        raise ValueError('kubelet_version %s is older than the oldest kubelet this module knows (1.%d)%s; '
                         'omit kubelet_version to skip the maturity checks' % (pretty(value), OLDEST_KNOWN_MINOR, hint))
    return minor


def level_at(steps, minor):
    """The value of ((first minor, value), ...) change steps at ``minor`` (None before the first step)."""
    level = None
    for since, name in steps:
        if minor >= since:
            level = name
    return level


def table_minor(minor):
    """The release of the data table a kubelet minor is checked as (a newer one: the newest known)."""
    return min(minor, NEWEST_KNOWN_MINOR)


def release_rules(minor):
    """The generated per-release facts (RELEASE_RULES) kubelet 1.minor is checked with."""
    return RELEASE_RULES[table_minor(minor)]


def gate_spec(gate, minor):
    """(stage, default, locked to default) of a feature gate in kubelet 1.minor, or None when it does not know it."""
    steps = FEATURE_GATES.get(gate)
    return level_at(steps, table_minor(minor)) if steps else None


def gate_default(gate, minor):
    spec = gate_spec(gate, minor)
    return bool(spec and spec[1])


def gate_history(gate):
    """(first minor the gate is known, first minor it is gone after being known) within the table; None when never."""
    steps = FEATURE_GATES.get(gate, ())
    known = [since for since, spec in steps if spec is not None]
    if not known:
        return None, None
    gone = [since for since, spec in steps if spec is None and since > known[0]]
    return known[0], (gone[-1] if gone and gone[-1] > known[-1] else None)


def gate_on(gates, name, minor):
    """Whether a gate is on in kubelet 1.minor with the featureGates ``gates`` (AllAlpha / AllBeta included)."""
    if name in gates:
        return gates[name]
    spec = gate_spec(name, minor)
    if spec is None:
        return False
    stage, default, locked = spec
    if not locked:
        if stage == 'Alpha' and 'AllAlpha' in gates:
            return gates['AllAlpha']
        if stage == 'Beta' and 'AllBeta' in gates:
            return gates['AllBeta']
    return default


def unknown_gate_problem(name, minor):
    """Why kubelet 1.minor does not know the gate ``name`` (refusing to start), or None when it knows it."""
    checked = table_minor(minor)
    if gate_spec(name, checked) is not None:
        return None
    first, gone = gate_history(name)
    if gone is not None and checked >= gone:
        why = 'the gate was removed in kubelet 1.%d (its feature is now always on or gone)' % gone
    elif first is not None and checked < first:
        why = 'the gate exists only from kubelet 1.%d' % first
    else:
        near = near_names(name, [gate for gate in FEATURE_GATES if gate_spec(gate, checked) is not None])
        why = ('did you mean %s?' % ' or '.join('"%s"' % n for n in near) if near
               else 'check the spelling (gate names are case-sensitive)')
    return ('featureGates.%s: kubelet 1.%d does not know this feature gate and refuses to start '
            '("unrecognized feature gate: %s"); %s; remove it from featureGates (feature_gates: {%s: null})'
            % (name, checked, name, why, name))


def locked_gate_problem(name, state, minor):
    """Why kubelet 1.minor refuses to set a gate it knows to ``state`` (declared for later, locked), or None."""
    checked = table_minor(minor)
    spec = gate_spec(name, checked)
    if spec is None:
        return None
    stage, default, locked = spec
    if stage == 'PreAlpha':
        return ('featureGates.%s: the gate is declared for a later release only and kubelet 1.%d refuses to set it; '
                'remove it from featureGates' % (name, checked))
    if locked and state != default:
        return ('featureGates.%s: %s is refused by kubelet 1.%d, where the feature is %s and locked to %s; remove the '
                'gate from featureGates (feature_gates: {%s: null})'
                % (name, 'true' if state else 'false', checked, stage, 'true' if default else 'false', name))
    return None
