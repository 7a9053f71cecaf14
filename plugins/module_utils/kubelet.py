# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kubelet's CPU, topology and memory manager settings, as plain Python.

Used by the ``numaops.colocation.kubelet_config`` action plugin (the YAML text itself is edited in
``plugins/plugin_utils/kubelet_yaml.py``). Everything here works on plain values (dicts, lists,
strings) and is standard library only, Python 3.8+.

What this reproduces from the kubelet (k8s.io/kubernetes, pkg/kubelet):

* configuration validation (``apis/config/validation``): topology manager policy and scope,
  ``reservedSystemCPUs`` syntax and its conflict with ``systemReservedCgroup`` / ``kubeReservedCgroup``,
  ``reservedMemory`` limit types, zero and duplicate entries;
* what the kubelet refuses at start-up (``cm/cpumanager``, ``cm/memorymanager``,
  ``cm/topologymanager``): unknown policies, policy options and their values, forbidden option
  combinations, options with the ``none`` CPU policy, a static CPU policy without a CPU reservation,
  a Static memory manager whose ``reservedMemory`` does not add up to the node-allocatable
  reservation (kube-reserved + system-reserved + hard-eviction memory);
* the feature gates and maturity of each policy option per kubelet minor version (only when the
  caller says which kubelet version runs on the node);
* when the CPU and memory manager checkpoint files (``cpu_manager_state``, ``memory_manager_state``)
  would make the kubelet refuse to start after the change, so that they must be removed.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy
import json
import re
from fractions import Fraction

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet_releases as releases
# CPU lists live in cpuset.py (the node's pre-flight needs them without the kubelet rules); named here as well
from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import format_cpuset, parse_cpuset
from ansible_collections.numaops.colocation.plugins.module_utils.show import show as _pretty
from ansible_collections.numaops.colocation.plugins.module_utils.quantity import (
    QuantityError, format_bytes, parse_quantity)

API_VERSION = 'kubelet.config.k8s.io/v1beta1'
KIND = 'KubeletConfiguration'
DEFAULT_PATH = '/var/lib/kubelet/config.yaml'
DEFAULT_STATE_DIR = '/var/lib/kubelet'
CPU_STATE_FILE = 'cpu_manager_state'
MEMORY_STATE_FILE = 'memory_manager_state'

# Module option -> KubeletConfiguration key, in the order keys are appended to a file.
OPTION_KEYS = (
    ('cpu_manager_policy', 'cpuManagerPolicy'),
    ('cpu_manager_policy_options', 'cpuManagerPolicyOptions'),
    ('cpu_manager_reconcile_period', 'cpuManagerReconcilePeriod'),
    ('reserved_system_cpus', 'reservedSystemCPUs'),
    ('system_reserved', 'systemReserved'),
    ('kube_reserved', 'kubeReserved'),
    ('topology_manager_policy', 'topologyManagerPolicy'),
    ('topology_manager_scope', 'topologyManagerScope'),
    ('topology_manager_policy_options', 'topologyManagerPolicyOptions'),
    ('memory_manager_policy', 'memoryManagerPolicy'),
    ('reserved_memory', 'reservedMemory'),
    ('feature_gates', 'featureGates'),
)
OPTION_FOR_KEY = dict((key, option) for option, key in OPTION_KEYS)
MANAGED_KEYS = tuple(key for _option, key in OPTION_KEYS)

ARGUMENT_SPEC = dict(
    path=dict(type='path', default=DEFAULT_PATH),
    state_dir=dict(type='path', default=DEFAULT_STATE_DIR),
    create=dict(type='bool', default=False),
    backup=dict(type='bool', default=False),
    cpu_manager_policy=dict(type='str'),
    cpu_manager_policy_options=dict(type='dict'),
    cpu_manager_reconcile_period=dict(type='str'),
    topology_manager_policy=dict(type='str'),
    topology_manager_scope=dict(type='str'),
    topology_manager_policy_options=dict(type='dict'),
    memory_manager_policy=dict(type='str'),
    reserved_memory=dict(type='list', elements='dict'),
    reserved_system_cpus=dict(type='str'),
    system_reserved=dict(type='dict'),
    kube_reserved=dict(type='dict'),
    reservations=dict(type='str', choices=['merge', 'replace'], default='replace'),
    feature_gates=dict(type='dict'),
    kubelet_version=dict(type='str'),
)

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

# Everything that differs between kubelet releases (feature gates with their stage, default and lock; the policy
# options and their maturity; the gates they need) is generated from the Kubernetes sources into kubelet_releases.py
# by scripts/gen_kubelet_releases.py.
RELEASES = releases.RELEASES
OLDEST_KNOWN_MINOR = int(RELEASES[0].split('.')[1])
NEWEST_KNOWN_MINOR = int(RELEASES[-1].split('.')[1])
CPU_OPTIONS = releases.CPU_MANAGER_OPTIONS
TOPOLOGY_OPTIONS = releases.TOPOLOGY_MANAGER_OPTIONS
FEATURE_GATES = releases.FEATURE_GATES
# Pairs of CPU manager options the kubelet refuses together (both set to true).
CPU_OPTION_CONFLICTS = (
    ('full-pcpus-only', 'distribute-cpus-across-cores'),
    ('distribute-cpus-across-numa', 'distribute-cpus-across-cores'),
    ('prefer-align-cpus-by-uncorecache', 'distribute-cpus-across-cores'),
    ('prefer-align-cpus-by-uncorecache', 'distribute-cpus-across-numa'),
)
MIN_MAX_ALLOWABLE_NUMA_NODES = 8
# evictionHard percentages the kubelet ignores (pkg/kubelet/eviction/helpers.go parseThresholdStatement).
IGNORED_EVICTION_PERCENTAGES = ('0%', '100%')

_GO_TRUE = ('1', 't', 'T', 'TRUE', 'true', 'True')
_GO_FALSE = ('0', 'f', 'F', 'FALSE', 'false', 'False')
_DURATION_RE = re.compile(r'^[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+$')
_DURATION_PART_RE = re.compile(r'([0-9]*\.?[0-9]*)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)')
_DURATION_UNITS = {'ns': 1, 'us': 10 ** 3, u'\u00b5s': 10 ** 3, u'\u03bcs': 10 ** 3, 'ms': 10 ** 6,
                   's': 10 ** 9, 'm': 60 * 10 ** 9, 'h': 3600 * 10 ** 9}
_VERSION_RE = re.compile(r'^v?([0-9]+)\.([0-9]+)(?:\.([0-9]+))?(?:[-+].*)?$')
_HUGEPAGES_RE = re.compile(r'^hugepages-(.+)$')
_DIGITS_RE = re.compile(r'^[0-9]+$')


class KubeletConfigError(ValueError):
    """The requested or resulting kubelet configuration is invalid; ``errors`` lists every problem."""

    def __init__(self, errors):
        self.errors = list(errors)
        super(KubeletConfigError, self).__init__('; '.join(self.errors))


class _Remove(object):
    """Marker: the key is to be removed from the file."""

    def __repr__(self):
        return 'REMOVE'


REMOVE = _Remove()


# --------------------------------------------------------------------------------------------------
# Small parsers with kubelet (Go) semantics


def parse_go_bool(value):
    """strconv.ParseBool; returns True/False or raises ValueError."""
    if isinstance(value, str):
        if value in _GO_TRUE:
            return True
        if value in _GO_FALSE:
            return False
    raise ValueError('%s is not a boolean string (allowed: "true" or "false"; kubelet also accepts '
                     '1, t, T, TRUE, True, 0, f, F, FALSE, False)' % _pretty(value))


def parse_duration(value):
    """time.ParseDuration; returns nanoseconds as a Fraction or raises ValueError."""
    if not isinstance(value, str):
        raise ValueError('%s is not a duration string like "10s", "1m30s" or "500ms"' % _pretty(value))
    if value in ('0', '+0', '-0'):
        return Fraction(0)
    if not _DURATION_RE.match(value):
        raise ValueError('%s is not a duration like "10s", "1m30s" or "500ms" (units: ns, us, ms, s, m, h)'
                         % _pretty(value))
    sign = -1 if value.startswith('-') else 1
    total = Fraction(0)
    for number, unit in _DURATION_PART_RE.findall(value.lstrip('+-')):
        total += Fraction(number) * _DURATION_UNITS[unit]
    return sign * total


def parse_kubelet_version(value):
    """'1.31', 'v1.31.2', '1.31.2-eks-1234' -> 31 (the minor of kubelet 1.x); raises ValueError."""
    match = _VERSION_RE.match(str(value).strip())
    if not match or match.group(1) != '1':
        raise ValueError('kubelet_version %s is not a Kubernetes 1.x version like "1.31" or "v1.31.2"' % _pretty(value))
    minor = int(match.group(2))
    if minor < OLDEST_KNOWN_MINOR:
        hint = ''
        if len(match.group(2)) == 1 and not str(value).startswith('v'):
            hint = ' (if you meant 1.%s0, quote it: YAML reads 1.%s0 as the number 1.%s)' % ((match.group(2),) * 3)
        raise ValueError('kubelet_version %s is older than the oldest kubelet this module knows (1.%d)%s; '
                         'omit kubelet_version to skip the maturity checks' % (_pretty(value), OLDEST_KNOWN_MINOR, hint))
    return minor


def _level_at(steps, minor):
    """The value of ((first minor, value), ...) change steps at ``minor`` (None before the first step)."""
    level = None
    for since, name in steps:
        if minor >= since:
            level = name
    return level


def table_minor(minor):
    """The release of the data table a kubelet minor is checked as (a newer one: the newest known)."""
    return min(minor, NEWEST_KNOWN_MINOR)


def gate_spec(gate, minor):
    """(stage, default, locked to default) of a feature gate in kubelet 1.minor, or None when it does not know it."""
    steps = FEATURE_GATES.get(gate)
    return _level_at(steps, table_minor(minor)) if steps else None


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


# --------------------------------------------------------------------------------------------------
# Requested values


def _option_string(option, name, value, errors):
    """A policy option value as the string the kubelet reads (bools become "true"/"false")."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    errors.append('%s.%s: %s is not a string, boolean or integer' % (option, name, _pretty(value)))
    return None


def _quantity_string(where, value, errors):
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        errors.append('%s: %s is not a quantity (use a string like "500m", "1Gi" or "1000")'
                      % (where, _pretty(value)))
        return None
    return str(value)


def plain_value(value):
    """A deep copy made of exact built-in types (Ansible hands over tagged str/dict/list subclasses)."""
    if isinstance(value, dict):
        return dict((plain_value(key), plain_value(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [plain_value(item) for item in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return value


def empty_string_errors(args):
    """Refusals for dictionary/list options given as ``""`` (the raw task arguments, before Ansible's type check).

    ``""`` removes a string-valued key only; ``{}`` / ``[]`` removes a dictionary/list-valued one. Ansible's own
    type check would refuse ``""`` for these options with a message that does not say so.
    """
    errors = []
    for option, key in OPTION_KEYS:
        kind = ARGUMENT_SPEC[option]['type']
        if kind in ('dict', 'list') and isinstance(args.get(option), str) and args[option] == '':
            empty = '{}' if kind == 'dict' else '[]'
            errors.append('%s: "" is not a %s; to remove %s from the file use %s: %s ("" removes only the '
                          'string-valued keys, such as cpu_manager_policy)'
                          % (option, 'dictionary' if kind == 'dict' else 'list', key, option, empty))
    return errors


def requested_values(params):
    """Turn module parameters into ``{key: new value or REMOVE}`` for the keys the task sets.

    ``featureGates`` is returned as ``{gate: bool or None}`` (None: drop that gate), merged into the
    file's gates later; every other key replaces the file's value as a whole.
    Raises KubeletConfigError for values of the wrong shape.
    """
    errors = []
    wanted = {}
    for option, key in OPTION_KEYS:
        value = plain_value(params.get(option))
        if value is None:
            continue
        if key in ('cpuManagerPolicy', 'cpuManagerReconcilePeriod', 'topologyManagerPolicy',
                   'topologyManagerScope', 'memoryManagerPolicy', 'reservedSystemCPUs'):
            if not isinstance(value, str):
                errors.append('%s: %s is not a string' % (option, _pretty(value)))
                continue
            wanted[key] = REMOVE if value == '' else value
        elif key in ('cpuManagerPolicyOptions', 'topologyManagerPolicyOptions'):
            if not isinstance(value, dict):
                errors.append('%s: %s is not a dictionary of option names to values' % (option, _pretty(value)))
                continue
            if not value:
                wanted[key] = REMOVE
                continue
            result = {}
            for name in value:
                text = _option_string(option, name, value[name], errors)
                if text is not None:
                    result[str(name)] = text
            wanted[key] = result
        elif key in ('systemReserved', 'kubeReserved'):
            if not isinstance(value, dict):
                errors.append('%s: %s is not a dictionary like {cpu: 500m, memory: 1Gi}' % (option, _pretty(value)))
                continue
            if not value:
                wanted[key] = REMOVE
                continue
            result = {}
            for name in value:
                text = _quantity_string('%s.%s' % (option, name), value[name], errors)
                if text is not None:
                    result[str(name)] = text
            wanted[key] = result
        elif key == 'reservedMemory':
            wanted[key] = _requested_reserved_memory(option, value, errors)
        elif key == 'featureGates':
            if not isinstance(value, dict):
                errors.append('%s: %s is not a dictionary of feature gate names to true/false'
                              % (option, _pretty(value)))
                continue
            if not value:
                wanted[key] = REMOVE
                continue
            gates = {}
            for name in value:
                gate = value[name]
                if gate is None or isinstance(gate, bool):
                    gates[str(name)] = gate
                elif isinstance(gate, str) and gate.lower() in ('true', 'false'):
                    gates[str(name)] = gate.lower() == 'true'
                else:
                    errors.append('%s.%s: %s is not true or false (use null to drop the gate from the file)'
                                  % (option, name, _pretty(gate)))
            wanted[key] = gates
    if errors:
        raise KubeletConfigError(errors)
    return wanted


def _requested_reserved_memory(option, value, errors):
    if not isinstance(value, list):
        errors.append('%s: %s is not a list of {numaNode, limits}' % (option, _pretty(value)))
        return None
    if not value:
        return REMOVE
    result = []
    for index, item in enumerate(value):
        where = '%s[%d]' % (option, index)
        if not isinstance(item, dict):
            errors.append('%s: %s is not a dictionary with numaNode and limits' % (where, _pretty(item)))
            continue
        unknown = sorted(set(item) - set(('numaNode', 'limits')))
        if unknown:
            errors.append('%s: unknown field(s) %s (allowed: numaNode, limits)' % (where, ', '.join(unknown)))
        node = item.get('numaNode')
        if isinstance(node, str) and node.isdigit():
            node = int(node)
        if isinstance(node, bool) or not isinstance(node, int) or node < 0:
            errors.append('%s.numaNode: %s is not a NUMA node number (0, 1, ...)' % (where, _pretty(node)))
            continue
        limits = item.get('limits')
        if not isinstance(limits, dict) or not limits:
            errors.append('%s.limits: %s is not a non-empty dictionary like {memory: 1Gi}' % (where, _pretty(limits)))
            continue
        clean = {}
        for name in limits:
            text = _quantity_string('%s.limits.%s' % (where, name), limits[name], errors)
            if text is not None:
                clean[str(name)] = text
        result.append({'numaNode': node, 'limits': clean})
    return result


# --------------------------------------------------------------------------------------------------
# Semantic comparison (a value spelled differently but meaning the same is not a change)


def _same_quantity(a, b):
    try:
        return parse_quantity(a) == parse_quantity(b)
    except QuantityError:
        return a == b


def _option_semantic(key, name, value):
    try:
        if key == 'topologyManagerPolicyOptions' and name == 'max-allowable-numa-nodes':
            return ('int', int(value)) if isinstance(value, str) and value.strip().isdigit() else ('raw', value)
        return ('bool', parse_go_bool(value))
    except ValueError:
        return ('raw', value)


def nested_value_equal(key, name, old, new):
    """Whether an entry ``name`` inside the dictionary-valued key ``key`` means the same thing."""
    if type(old) is not type(new) and not (isinstance(old, str) and isinstance(new, str)):
        if key in ('systemReserved', 'kubeReserved') and isinstance(old, (int, str)) and not isinstance(old, bool):
            return _same_quantity(old, new)
        return False
    if key in ('systemReserved', 'kubeReserved'):
        return _same_quantity(old, new)
    if key in ('cpuManagerPolicyOptions', 'topologyManagerPolicyOptions'):
        if not isinstance(old, str):
            return False
        return _option_semantic(key, name, old) == _option_semantic(key, name, new)
    return old == new


def _normal_reserved_memory(value):
    if not isinstance(value, list):
        return ('raw', repr(value))
    entries = set()
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get('limits'), dict):
            return ('raw', repr(value))
        for name, qty in item['limits'].items():
            try:
                amount = parse_quantity(qty)
            except QuantityError:
                return ('raw', repr(value))
            entries.add((item.get('numaNode'), name, amount))
    return ('set', frozenset(entries))


def value_equal(key, old, new):
    """Whether the file's value ``old`` and the wanted ``new`` mean the same for the kubelet."""
    if old is None or new is None:
        return old is None and new is None
    if key == 'cpuManagerReconcilePeriod':
        try:
            return parse_duration(old) == parse_duration(new)
        except ValueError:
            return old == new
    if key == 'reservedSystemCPUs':
        try:
            return parse_cpuset(old) == parse_cpuset(new)
        except ValueError:
            return old == new
    if key == 'reservedMemory':
        return _normal_reserved_memory(old) == _normal_reserved_memory(new)
    if isinstance(new, dict):
        if not isinstance(old, dict) or set(old) != set(new):
            return False
        return all(nested_value_equal(key, name, old[name], new[name]) for name in new)
    return type(old) is type(new) and old == new


def plan_values(current, wanted):
    """Compute ``(new_config, changed_fields)`` from the file's config and ``requested_values()``.

    ``new_config`` is a deep copy of ``current`` with the changes applied; ``changed_fields`` lists
    the KubeletConfiguration keys whose meaning changes, in ``MANAGED_KEYS`` order.
    """
    new = copy.deepcopy(current)
    changed = []
    for key in MANAGED_KEYS:
        if key not in wanted:
            continue
        target = wanted[key]
        old = current.get(key)
        if key == 'featureGates' and target is not REMOVE:
            merged = dict(old) if isinstance(old, dict) else {}
            for gate, state in target.items():
                if state is None:
                    merged.pop(gate, None)
                else:
                    merged[gate] = state
            target = merged if merged else REMOVE
        if target is REMOVE:
            if key in current:
                del new[key]
                changed.append(key)
            continue
        if key in current and value_equal(key, old, target):
            continue
        if isinstance(target, dict) and isinstance(old, dict):
            # Entries that mean the same keep the file's spelling (the text keeps them untouched too).
            target = dict((name, old[name] if name in old and nested_value_equal(key, name, old[name], value)
                           else value) for name, value in target.items())
        new[key] = target
        changed.append(key)
    return new, changed


# --------------------------------------------------------------------------------------------------
# Validation of the resulting configuration


def _string_map(config, key, errors, what):
    value = config.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        errors.append('%s: %s is not a dictionary (%s)' % (key, _pretty(value), what))
        return {}
    return value


def _reserved_amounts(config, key, errors):
    """Parse systemReserved / kubeReserved like the kubelet's parseResourceList."""
    amounts = {}
    for name, value in _string_map(config, key, errors, 'resource name to quantity').items():
        if name not in RESERVABLE:
            errors.append('%s.%s: the kubelet cannot reserve resource "%s" (allowed: %s)'
                          % (key, name, name, ', '.join(RESERVABLE)))
            continue
        if not isinstance(value, str):
            errors.append('%s.%s: %s must be a quoted string (the kubelet reads these values as strings)'
                          % (key, name, _pretty(value)))
            continue
        try:
            amount = parse_quantity(value)
        except QuantityError as err:
            errors.append('%s.%s: %s' % (key, name, err))
            continue
        if amount < 0:
            errors.append('%s.%s: %s is negative' % (key, name, _pretty(value)))
            continue
        amounts[name] = amount
    return amounts


def _check_choice(config, key, allowed, errors, hint=None):
    value = config.get(key)
    if value in (None, ''):
        # SetDefaults_KubeletConfiguration: an empty (or null) string gets the default, like a missing key.
        return DEFAULTS[key]
    if value not in allowed:
        message = '%s: %s is not allowed (allowed: %s)' % (key, _pretty(value), ', '.join(allowed))
        if isinstance(value, str):
            for choice in allowed:
                if choice.lower() == value.lower():
                    message += '; the names are case-sensitive, did you mean "%s"?' % choice
        if hint:
            message += hint
        errors.append(message)
        return None
    return value


def _effective_gates(config, minor, errors, warnings):
    gates = {}
    value = config.get('featureGates')
    if value is None:
        return gates
    if not isinstance(value, dict):
        errors.append('featureGates: %s is not a dictionary of gate names to true/false' % _pretty(value))
        return gates
    for name, state in value.items():
        if not isinstance(state, bool):
            errors.append('featureGates.%s: %s is not true or false (unquoted)' % (name, _pretty(state)))
            continue
        gates[name] = state
        if minor is not None:
            problem = _gate_problem(name, state, minor)
            if problem:
                errors.append(problem)
        elif name not in FEATURE_GATES:
            near = near_names(name, FEATURE_GATES)
            warnings.append('featureGates.%s: no kubelet from %s to %s knows this feature gate%s; a kubelet that does '
                            'not know a gate refuses to start (set kubelet_version to have it checked)'
                            % (name, RELEASES[0], RELEASES[-1],
                               ' (did you mean %s?)' % ' or '.join('"%s"' % n for n in near) if near else ''))
    return gates


def _gate_problem(name, state, minor):
    """Why kubelet 1.minor refuses ``name: state`` in featureGates, or None."""
    checked = table_minor(minor)
    spec = gate_spec(name, checked)
    if spec is None:
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
    stage, default, locked = spec
    if stage == 'PreAlpha':
        return ('featureGates.%s: the gate is declared for a later release only and kubelet 1.%d refuses to set it; '
                'remove it from featureGates' % (name, checked))
    if locked and state != default:
        return ('featureGates.%s: %s is refused by kubelet 1.%d, where the feature is %s and locked to %s; remove the '
                'gate from featureGates (feature_gates: {%s: null})'
                % (name, 'true' if state else 'false', checked, stage, 'true' if default else 'false', name))
    return None


def _gate_on(gates, name, minor):
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


def _check_policy_options(key, config, table, minor, gates, errors, prefix):
    """Check names, maturity and feature gates of cpuManagerPolicyOptions / topologyManagerPolicyOptions.

    Returns {name: parsed value} for the options that are valid.
    """
    parsed = {}
    value = config.get(key)
    if value is None:
        return parsed
    if not isinstance(value, dict):
        errors.append('%s: %s is not a dictionary of option names to string values' % (key, _pretty(value)))
        return parsed
    checked = None if minor is None else table_minor(minor)
    rules = {} if checked is None else releases.RELEASE_RULES[checked]
    gate = rules.get('options_map_gates', {}).get(key)
    if gate and not _gate_on(gates, gate, checked):
        errors.append('%s: policy options %s need the %s feature gate, which is off in kubelet 1.%d; the kubelet '
                      'refuses any %s map without it, even an empty one; set feature_gates: {%s: true}%s'
                      % (key, _pretty(value), gate, checked, key, gate,
                         ' or remove the key (%s: {})' % OPTION_FOR_KEY[key] if not value else ''))
    for name, raw in value.items():
        if name not in table:
            errors.append('%s: unknown option "%s" (allowed: %s)' % (key, name, ', '.join(sorted(table))))
            continue
        if not isinstance(raw, str):
            errors.append('%s.%s: %s must be a quoted string such as "true" (the kubelet reads option values '
                          'as strings)' % (key, name, _pretty(raw)))
            continue
        if name == 'max-allowable-numa-nodes':
            if not _DIGITS_RE.match(raw):
                errors.append('%s.%s: %s is not a whole number' % (key, name, _pretty(raw)))
                continue
            if int(raw) < MIN_MAX_ALLOWABLE_NUMA_NODES:
                errors.append('%s.%s: %s is below the minimum the kubelet accepts (%d)'
                              % (key, name, _pretty(raw), MIN_MAX_ALLOWABLE_NUMA_NODES))
                continue
            parsed[name] = int(raw)
        else:
            try:
                parsed[name] = parse_go_bool(raw)
            except ValueError as err:
                errors.append('%s: %s' % ('%s.%s' % (key, name), err))
                continue
        if checked is None:
            continue
        level = _level_at(table[name], checked)
        if level is None:
            known = [since for since, stage in table[name] if stage is not None]
            when = ('it appeared in 1.%d' % known[0] if known and known[0] > checked
                    else 'it was removed before' if known else 'it is not known')
            errors.append('%s: option "%s" does not exist in kubelet 1.%d (%s)' % (key, name, checked, when))
            parsed.pop(name, None)
        elif level in ('Alpha', 'Beta'):
            gate = rules['%s_option_gates' % ('cpu' if prefix == 'CPUManager' else 'topology')][level]
            if not _gate_on(gates, gate, checked):
                errors.append('%s: option "%s" is %s in kubelet 1.%d and needs the %s feature gate; '
                              'set feature_gates: {%s: true}' % (key, name, level.lower(), checked, gate, gate))
    return parsed


def _eviction_memory(config, warnings, errors, minor=None):
    """Hard-eviction memory.available in bytes as the kubelet 1.``minor`` (None: the newest known) computes it, or
    None if unknowable."""
    eviction = config.get('evictionHard')
    # mergeDefaultEvictionSettings exists from 1.33 on; an older kubelet ignores the key
    merge = (config.get('mergeDefaultEvictionSettings') is True
             and releases.RELEASE_RULES[table_minor(minor) if minor is not None else NEWEST_KNOWN_MINOR]
             ['merge_default_eviction_settings'])
    if eviction is None:
        return Fraction(DEFAULT_EVICTION_MEMORY)
    if not isinstance(eviction, dict):
        errors.append('evictionHard: %s is not a dictionary of signal to threshold' % _pretty(eviction))
        return None
    if 'memory.available' not in eviction:
        # With evictionHard set, unspecified signals are 0 unless mergeDefaultEvictionSettings is true.
        return Fraction(DEFAULT_EVICTION_MEMORY) if merge else Fraction(0)
    value = eviction['memory.available']
    if value in IGNORED_EVICTION_PERCENTAGES:
        # The kubelet ignores a 0% or 100% threshold: no hard-eviction memory is reserved.
        return Fraction(0)
    if isinstance(value, str) and value.strip().endswith('%'):
        warnings.append('evictionHard.memory.available is a percentage (%s): the node-allocatable memory '
                        'reservation depends on the node\'s memory size, so the reservedMemory total could '
                        'not be checked against it' % value)
        return None
    try:
        return parse_quantity(value)
    except QuantityError as err:
        errors.append('evictionHard.memory.available: %s' % err)
        return None


def _check_reserved_memory(config, errors):
    """Shape checks from validateReservedMemoryConfiguration; returns {type: total} or None."""
    value = config.get('reservedMemory')
    if value is None:
        return {}
    if not isinstance(value, list):
        errors.append('reservedMemory: %s is not a list of {numaNode, limits}' % _pretty(value))
        return None
    totals = {}
    seen = set()
    ok = True
    for index, item in enumerate(value):
        where = 'reservedMemory[%d]' % index
        if not isinstance(item, dict):
            errors.append('%s: %s is not a dictionary with numaNode and limits' % (where, _pretty(item)))
            ok = False
            continue
        node = item.get('numaNode', 0)
        if isinstance(node, bool) or not isinstance(node, int) or node < 0:
            errors.append('%s.numaNode: %s is not a NUMA node number' % (where, _pretty(node)))
            ok = False
            continue
        limits = item.get('limits')
        if not isinstance(limits, dict):
            errors.append('%s.limits: %s is not a dictionary like {memory: 1Gi}' % (where, _pretty(limits)))
            ok = False
            continue
        for name, qty in limits.items():
            hugepages = _HUGEPAGES_RE.match(str(name))
            if name != 'memory' and not hugepages:
                errors.append('%s.limits: the limit type "%s" for NUMA node %d is not supported '
                              '(allowed: memory, hugepages-<size>)' % (where, name, node))
                ok = False
                continue
            if hugepages:
                try:
                    parse_quantity(hugepages.group(1))
                except QuantityError:
                    errors.append('%s.limits: "%s" does not name a huge page size like hugepages-2Mi'
                                  % (where, name))
                    ok = False
                    continue
            try:
                amount = parse_quantity(qty)
            except QuantityError as err:
                errors.append('%s.limits.%s: %s' % (where, name, err))
                ok = False
                continue
            if amount == 0:
                errors.append('%s.limits.%s: reserved memory may not be zero for NUMA node %d' % (where, name, node))
                ok = False
            elif amount < 0:
                errors.append('%s.limits.%s: %s is negative' % (where, name, _pretty(qty)))
                ok = False
            if (node, name) in seen:
                errors.append('%s: duplicate reservation for NUMA node %d and "%s"' % (where, node, name))
                ok = False
            seen.add((node, name))
            totals[name] = totals.get(name, Fraction(0)) + amount
    return totals if ok else None


def validate(config, kubelet_version=None):
    """Validate a KubeletConfiguration (plain dict) the way the kubelet would before and at start-up.

    Returns a list of warnings; raises KubeletConfigError listing every problem found.
    """
    errors = []
    warnings = []
    minor = None
    if kubelet_version not in (None, ''):
        try:
            minor = parse_kubelet_version(kubelet_version)
        except ValueError as err:
            errors.append(str(err))
    if minor is not None and minor > NEWEST_KNOWN_MINOR:
        warnings.append('kubelet_version %s is newer than the newest release this module has data for (%s); it is '
                        'checked as kubelet 1.%d (regenerate the data with scripts/gen_kubelet_releases.py for exact '
                        'checks)' % (_pretty(kubelet_version), RELEASES[-1], NEWEST_KNOWN_MINOR))
    gates = _effective_gates(config, minor, errors, warnings)

    cpu_policy = _check_choice(config, 'cpuManagerPolicy', CPU_POLICIES, errors)
    topology_policy = _check_choice(config, 'topologyManagerPolicy', TOPOLOGY_POLICIES, errors)
    _check_choice(config, 'topologyManagerScope', TOPOLOGY_SCOPES, errors)
    memory_policy = _check_choice(
        config, 'memoryManagerPolicy', MEMORY_POLICIES, errors,
        hint=' (BestEffort exists only on Windows nodes)' if config.get('memoryManagerPolicy') == 'BestEffort' else None)

    if 'cpuManagerReconcilePeriod' in config:
        try:
            if parse_duration(config['cpuManagerReconcilePeriod']) < 0:
                errors.append('cpuManagerReconcilePeriod: %s is negative' % _pretty(config['cpuManagerReconcilePeriod']))
        except ValueError as err:
            errors.append('cpuManagerReconcilePeriod: %s' % err)

    if config.get('reservedSystemCPUs') not in (None, ''):
        try:
            parse_cpuset(config['reservedSystemCPUs'])
        except ValueError as err:
            errors.append('reservedSystemCPUs: %s' % err)
        cgroups = [k for k in ('systemReservedCgroup', 'kubeReservedCgroup') if config.get(k) not in (None, '')]
        if cgroups:
            errors.append('reservedSystemCPUs: %s cannot be combined with %s (the kubelet refuses '
                          'reservedSystemCPUs together with systemReservedCgroup or kubeReservedCgroup); remove '
                          '%s from the file, or set reserved_system_cpus: "" and reserve CPUs with a cpu amount in '
                          'system_reserved/kube_reserved instead'
                          % (_pretty(config['reservedSystemCPUs']),
                             ' and '.join('%s %s' % (k, _pretty(config[k])) for k in cgroups), ' and '.join(cgroups)))
    system = _reserved_amounts(config, 'systemReserved', errors)
    kube = _reserved_amounts(config, 'kubeReserved', errors)

    cpu_options = _check_policy_options('cpuManagerPolicyOptions', config, CPU_OPTIONS, minor, gates, errors,
                                        'CPUManager')
    _check_policy_options('topologyManagerPolicyOptions', config, TOPOLOGY_OPTIONS, minor, gates, errors,
                          'TopologyManager')

    if cpu_policy == 'none' and config.get('cpuManagerPolicyOptions'):
        errors.append('cpuManagerPolicyOptions: %s set while cpuManagerPolicy is %s; the none policy refuses '
                      'every option (kubelet fails with "None policy: received unsupported options"); set '
                      'cpu_manager_policy: static or cpu_manager_policy_options: {}'
                      % (_pretty(config['cpuManagerPolicyOptions']),
                         '"none"' if config.get('cpuManagerPolicy') == 'none' else '%s (the default, "none")'
                         % ('not set' if 'cpuManagerPolicy' not in config else _pretty(config['cpuManagerPolicy']))))
    for first, second in CPU_OPTION_CONFLICTS:
        if cpu_options.get(first) is True and cpu_options.get(second) is True:
            errors.append('cpuManagerPolicyOptions: "%s" and "%s" cannot both be true (the kubelet refuses '
                          'this combination)' % (first, second))
    if cpu_options.get('align-by-socket') is True and topology_policy == 'single-numa-node':
        errors.append('cpuManagerPolicyOptions: "align-by-socket" cannot be used with topologyManagerPolicy '
                      '"single-numa-node" (the kubelet refuses this combination)')

    if cpu_policy == 'static' and config.get('reservedSystemCPUs') in (None, ''):
        total = system.get('cpu', Fraction(0)) + kube.get('cpu', Fraction(0))
        if total <= 0 and not any(e.startswith(('systemReserved.cpu', 'kubeReserved.cpu')) for e in errors):
            errors.append('cpuManagerPolicy: "static" needs a CPU reservation greater than zero: set '
                          'reserved_system_cpus (for example "0-1"), or a cpu amount in system_reserved '
                          'and/or kube_reserved (the kubelet refuses to start with "the static policy '
                          'requires systemreserved.cpu + kubereserved.cpu to be greater than zero")')

    totals = _check_reserved_memory(config, errors)
    if memory_policy == 'Static':
        # Deliberately stricter than the kubelet, which ignores the policy while the gate is off.
        spec = gate_spec('MemoryManager', minor) if minor is not None else None
        if spec is not None and not spec[2]:
            if not _gate_on(gates, 'MemoryManager', minor):
                errors.append('memoryManagerPolicy: "Static" needs the MemoryManager feature gate, which is off; '
                              'set feature_gates: {MemoryManager: true}')
        if totals is not None:
            _check_static_memory(config, system, kube, totals, warnings, errors, minor)
    if errors:
        raise KubeletConfigError(errors)
    return warnings


def _check_static_memory(config, system, kube, totals, warnings, errors, minor=None):
    eviction = _eviction_memory(config, warnings, errors, minor)
    expected = {}
    memory = system.get('memory', Fraction(0)) + kube.get('memory', Fraction(0))
    if eviction is not None:
        expected['memory'] = memory + eviction
    for name in sorted(set(totals) | set(expected)):
        if name == 'memory' and eviction is None:
            continue
        want = expected.get(name, Fraction(0))
        have = totals.get(name, Fraction(0))
        if want != have:
            if name == 'memory':
                detail = ('kubeReserved.memory %s + systemReserved.memory %s + hard eviction %s'
                          % (format_bytes(kube.get('memory', 0)), format_bytes(system.get('memory', 0)),
                             format_bytes(eviction)))
                if config.get('evictionHard') is None:
                    detail += ' (the kubelet default, evictionHard is not set)'
            else:
                detail = 'nothing: systemReserved and kubeReserved cannot reserve huge pages'
            errors.append('reservedMemory: the "%s" reservations add up to %s across NUMA nodes, but the Static '
                          'memory manager requires exactly %s = %s; make the reserved_memory limits add up to %s'
                          % (name, format_bytes(have), format_bytes(want), detail, format_bytes(want)))
    if totals.get('memory', Fraction(0)) <= 0 and not any(e.startswith('reservedMemory') for e in errors):
        errors.append('reservedMemory: the Static memory manager needs memory reserved for the system on at '
                      'least one NUMA node (reserved_memory: [{numaNode: 0, limits: {memory: ...}}])')


# --------------------------------------------------------------------------------------------------
# Checkpoint (state file) decisions


def _effective(config, key):
    value = config.get(key)
    return DEFAULTS[key] if value in (None, '') else value


def _cpu_reservation(config):
    """What determines the reserved CPU set: an explicit set, or the count the kubelet derives."""
    explicit = config.get('reservedSystemCPUs')
    if explicit not in (None, ''):
        try:
            return ('cpus', parse_cpuset(explicit))
        except ValueError:
            return ('raw', explicit)
    total = Fraction(0)
    for key in ('systemReserved', 'kubeReserved'):
        section = config.get(key)
        if isinstance(section, dict) and section.get('cpu') is not None:
            try:
                total += parse_quantity(section['cpu'])
            except QuantityError:
                return ('raw', repr(section))
    count = -(-total.numerator // total.denominator)  # ceil, like math.Ceil(MilliValue()/1000)
    return ('count', int(count))


def _strict(config):
    options = config.get('cpuManagerPolicyOptions')
    if not isinstance(options, dict):
        return False
    try:
        return parse_go_bool(options.get('strict-cpu-reservation', 'false'))
    except ValueError:
        return False


def _describe_reservation(reservation):
    kind, value = reservation
    if kind == 'cpus':
        return 'CPUs %s' % (format_cpuset(value) or '(none)')
    if kind == 'count':
        return '%d CPU(s) chosen by the kubelet from systemReserved/kubeReserved cpu' % value
    return repr(value)


# The kubelet's checkpoint files (pkg/kubelet/checkpointmanager, cm/cpumanager/state, cm/memorymanager/state) are
# JSON with a checksum: the 32-bit FNV-1a hash of the go-spew dump (k8s.io/utils/dump.ForHash, "%#v") of the
# checkpoint struct with its checksum field set to 0, printed under the legacy struct name. Kubelets from 1.37 add a
# "data" string (the authoritative copy) with "dataChecksum", the hash of the dump of that string. A file that does
# not parse, or whose checksum does not match, makes the kubelet refuse to start ("could not restore state from
# checkpoint"), whatever the configuration.
_CPU_V2_DUMP = ('(*state.CPUManagerCheckpoint){PolicyName:(string)%s DefaultCPUSet:(string)%s '
                'Entries:(%s)%s Checksum:(checksum.Checksum)0}')
_MEMORY_V1_DUMP = ('(*state.MemoryManagerCheckpoint){PolicyName:(string)%s MachineState:(state.NUMANodeMap)%s '
                   'Entries:(state.ContainerMemoryAssignments)%s Checksum:(checksum.Checksum)0}')
_MEMORY_TABLE_FIELDS = (('TotalMemSize', 'total'), ('SystemReserved', 'systemReserved'),
                        ('Allocatable', 'allocatable'), ('Reserved', 'reserved'), ('Free', 'free'))


def fnv32a(text):
    """hash/fnv New32a over the UTF-8 bytes of ``text``."""
    value = 0x811c9dc5
    for byte in bytearray(text.encode('utf-8')):
        value = ((value ^ byte) * 0x01000193) & 0xffffffff
    return value


class _BadCheckpoint(ValueError):
    pass


def _want(value, kind, where):
    if kind == 'uint':
        if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value >= 2 ** 64:
            raise _BadCheckpoint('%s is not an unsigned integer' % where)
    elif kind == 'int':
        if isinstance(value, bool) or not isinstance(value, int):
            raise _BadCheckpoint('%s is not an integer' % where)
    elif not isinstance(value, kind):
        raise _BadCheckpoint('%s has the wrong type' % where)
    return value


def _spew_map(value, item, keys=None):
    """go-spew's %#v of a map inside a struct: map[k:v k:v] (keys sorted), <nil> for null."""
    if value is None:
        return '<nil>'
    _want(value, dict, 'a map')
    ordered = sorted(value, key=keys) if keys else sorted(value)
    return 'map[%s]' % ' '.join('%s:%s' % (key, item(value[key])) for key in ordered)


def _spew_ints(value):
    if value is None:
        return '<nil>'
    _want(value, list, 'a list')
    return '[%s]' % ' '.join(str(_want(v, 'int', 'a list item')) for v in value)


def _cpu_dump(doc, nested):
    entries = doc.get('entries', {})
    if nested:
        dump = _spew_map(entries, lambda pod: _spew_map(pod, lambda cpus: _want(cpus, str, 'a CPU set')))
        kind = 'map[string]map[string]string'
    else:
        dump = _spew_map(entries, lambda cpus: _want(cpus, str, 'a CPU set'))
        kind = 'map[string]string'
    return _CPU_V2_DUMP % (doc.get('policyName', ''), _want(doc.get('defaultCpuSet', ''), str, 'defaultCpuSet'),
                           kind, dump)


def _memory_table(table):
    if table is None:
        return '<nil>'
    _want(table, dict, 'a memory table')
    return '<*>{%s}' % ' '.join('%s:(uint64)%d' % (field, _want(table.get(key, 0), 'uint', key))
                                for field, key in _MEMORY_TABLE_FIELDS)


def _numa_state(state):
    if state is None:
        return '<nil>'
    _want(state, dict, 'a NUMA node state')
    return ('<*>{NumberOfAssignments:(int)%d MemoryMap:(map[v1.ResourceName]*state.MemoryTable)%s Cells:([]int)%s}'
            % (_want(state.get('numberOfAssignments', 0), 'int', 'numberOfAssignments'),
               _spew_map(state.get('memoryMap'), _memory_table), _spew_ints(state.get('cells'))))


def _block(block):
    _want(block, dict, 'a memory block')
    return '{NUMAAffinity:([]int)%s Type:(v1.ResourceName)%s Size:(uint64)%d}' % (
        _spew_ints(block.get('numaAffinity')), _want(block.get('type', ''), str, 'type'),
        _want(block.get('size', 0), 'uint', 'size'))


def _memory_dump(doc):
    machine = doc.get('machineState', {})
    if isinstance(machine, dict):
        for key in machine:
            if not re.match(r'^-?[0-9]+$', key):
                raise _BadCheckpoint('machineState key "%s" is not a NUMA node number' % key)
    machine_dump = _spew_map(machine, _numa_state, keys=int)
    entries = _spew_map(doc.get('entries', {}), lambda pod: _spew_map(
        pod, lambda blocks: '<nil>' if blocks is None else '[%s]' % ' '.join(_block(b) for b in _want(blocks, list, 'blocks'))))
    return _MEMORY_V1_DUMP % (doc.get('policyName', ''), machine_dump, entries)


def checkpoint_problem(kind, text):
    """Why the kubelet cannot restore the checkpoint ``text`` (kind 'cpu' or 'memory'), or None when it can."""
    try:
        doc = json.loads(text)
    except ValueError as err:
        return 'it is not JSON (%s)' % err
    if not isinstance(doc, dict):
        return 'it is not a JSON object'
    if not isinstance(doc.get('policyName'), str):
        return 'it records no policyName'
    try:
        if not isinstance(doc.get('checksum', 0), int) or isinstance(doc.get('checksum'), bool) or doc.get('checksum', 0) < 0:
            return 'its checksum %s is not an unsigned integer' % _pretty(doc.get('checksum'))
        if 'data' in doc or 'dataChecksum' in doc:
            data = doc.get('data', '')
            if not isinstance(data, str):
                return 'its data is not a string'
            if fnv32a('(string)' + data) != doc.get('dataChecksum'):
                return 'the checksum of its data does not match (dataChecksum %s)' % _pretty(doc.get('dataChecksum'))
            try:
                inner = json.loads(data)
            except ValueError as err:
                return 'its data is not JSON (%s)' % err
            if not isinstance(inner, dict) or not isinstance(inner.get('policyName'), str):
                return 'its data records no policyName'
            if inner['policyName'] != doc['policyName']:
                return 'its data records policy "%s" but the file "%s"' % (inner['policyName'], doc['policyName'])
            doc = dict(inner, checksum=doc.get('checksum', 0))
        elif 'podEntries' in doc:
            # Written by kubelet 1.36 (a pod-level assignment format whose checksum this module does not reproduce).
            return None
        else:
            checksum = doc.get('checksum', 0)
            if kind == 'cpu':
                if checksum != 0:
                    dumps = []
                    entries = doc.get('entries', {})
                    if isinstance(entries, dict) and all(isinstance(v, str) for v in entries.values()):
                        dumps.append(_cpu_dump(doc, False))
                    if not isinstance(entries, dict) or all(isinstance(v, dict) or v is None for v in entries.values()):
                        dumps.append(_cpu_dump(doc, True))
                    if not dumps:
                        return 'its entries are neither of the v1 nor of the v2 checkpoint format'
                    if checksum not in [fnv32a(dump) for dump in dumps]:
                        return 'its checksum %d does not match its content' % checksum
            elif fnv32a(_memory_dump(doc)) != checksum:
                return 'its checksum %d does not match its content' % checksum
        if kind == 'cpu':
            try:
                parse_cpuset(doc.get('defaultCpuSet', ''))
            except ValueError:
                return 'its default CPU set %s cannot be parsed' % _pretty(doc.get('defaultCpuSet'))
            for pod, containers in (doc.get('entries') or {}).items():
                for container, cpus in (containers or {}).items() if isinstance(containers, dict) else ():
                    try:
                        parse_cpuset(cpus)
                    except ValueError:
                        return 'the CPU set %s of container "%s" in pod "%s" cannot be parsed' % (_pretty(cpus), container, pod)
    except _BadCheckpoint as err:
        return 'it cannot be read as a checkpoint (%s)' % err
    return None


def checkpoint_text(kind, doc):
    """A checkpoint file's text for ``doc`` with the checksum the kubelet expects (v1/v2 format; tests use it)."""
    body = dict(doc, checksum=0)
    dump = _cpu_dump(body, not any(isinstance(v, str) for v in (body.get('entries') or {}).values())) \
        if kind == 'cpu' else _memory_dump(body)
    body['checksum'] = fnv32a(dump)
    return json.dumps(body, separators=(',', ':'))


def recorded_policy(text):
    """The policyName recorded in a checkpoint file's JSON, or None when it cannot be read."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, dict) and isinstance(data.get('policyName'), str):
        return data['policyName']
    return None


_CORRUPT = ('the %s manager checkpoint is corrupt: %s; the kubelet refuses to start with it ("could not restore '
            'state from checkpoint"), whatever the configuration')


def _state_path(base, name):
    return '%s/%s' % (base, name) if base != '/' else '/' + name


def _checkpoint_reason(kind, state, before, after, key, static, holds, static_changes):
    """Why the ``kind`` ('cpu' or 'memory') checkpoint ``state`` must go, or None: corrupt, recording another
    policy than the new configuration's, or (under the ``static`` policy) made before it or with a reservation
    that ``static_changes`` (reasons, first one wins) says has changed."""
    label = 'CPU' if kind == 'cpu' else 'memory'
    old_policy = _effective(before, key)
    new_policy = _effective(after, key)
    recorded = recorded_policy(state)
    problem = checkpoint_problem(kind, state)
    if problem:
        return _CORRUPT % (label, problem)
    if recorded != new_policy:
        return ('it records %s manager policy "%s" but the configuration now says "%s"; the kubelet '
                'would refuse to start with: configured policy "%s" differs from state checkpoint policy '
                '"%s"' % (label, recorded, new_policy, new_policy, recorded))
    if new_policy != static:
        return None
    if old_policy != static:
        return ('the %s manager policy changes from "%s" to "%s" and the checkpoint holds an older %s %s made '
                'with an unknown reservation' % (label, old_policy, static, static, holds))
    return next(static_changes, None)


def state_files_to_remove(before, after, cpu_state, memory_state, state_dir=DEFAULT_STATE_DIR):
    """Decide which checkpoint files must go for the kubelet to start with ``after``.

    ``cpu_state`` / ``memory_state`` are the files' text (None when absent). Returns
    ``(removals, warnings)`` where removals is a list of ``{'path', 'reason'}``.
    """
    removals = []
    warnings = []
    base = state_dir.rstrip('/') or '/'

    if cpu_state is not None:
        def cpu_static_changes():
            if _cpu_reservation(before) != _cpu_reservation(after):
                yield ('the reserved CPU set changes (%s -> %s); the kubelet would refuse to start with '
                       '"not all reserved cpus ... are present in defaultCpuSet"'
                       % (_describe_reservation(_cpu_reservation(before)),
                          _describe_reservation(_cpu_reservation(after))))
            if _strict(before) != _strict(after):
                yield ('strict-cpu-reservation is turned %s; the checkpoint\'s default CPU set %s the '
                       'reserved CPUs, which the kubelet refuses'
                       % ('on' if _strict(after) else 'off', 'includes' if _strict(after) else 'excludes'))
        reason = _checkpoint_reason('cpu', cpu_state, before, after, 'cpuManagerPolicy', 'static',
                                    'CPU assignment', cpu_static_changes())
        if reason:
            removals.append({'path': _state_path(base, CPU_STATE_FILE), 'reason': reason})

    if memory_state is not None:
        def memory_static_changes():
            if (_normal_reserved_memory(before.get('reservedMemory') or [])
                    != _normal_reserved_memory(after.get('reservedMemory') or [])):
                yield ('reservedMemory changes; the kubelet would refuse to start with "the expected machine '
                       'state is different from the real one"')
        reason = _checkpoint_reason('memory', memory_state, before, after, 'memoryManagerPolicy', 'Static',
                                    'machine state', memory_static_changes())
        if reason:
            removals.append({'path': _state_path(base, MEMORY_STATE_FILE), 'reason': reason})
    return removals, warnings


def managed_view(config):
    """The managed keys present in ``config`` (the module's ``config`` return value)."""
    return dict((key, copy.deepcopy(config[key])) for key in MANAGED_KEYS if key in config)


def check_document(config, path):
    """Refuse a document that is not a KubeletConfiguration; raises KubeletConfigError."""
    if not isinstance(config, dict):
        raise KubeletConfigError(['%s does not hold a YAML mapping (found %s); it is not a KubeletConfiguration'
                                  % (path, type(config).__name__ if config is not None else 'an empty document')])
    problems = []
    if config.get('kind') != KIND:
        problems.append('kind is %s, expected "%s"' % (_pretty(config.get('kind')), KIND))
    if config.get('apiVersion') != API_VERSION:
        problems.append('apiVersion is %s, expected "%s"' % (_pretty(config.get('apiVersion')), API_VERSION))
    if problems:
        raise KubeletConfigError(['%s is not a KubeletConfiguration (%s); check the path option'
                                  % (path, ', '.join(problems))])
