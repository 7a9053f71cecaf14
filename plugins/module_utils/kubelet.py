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

# Maturity of each policy option: (first minor, level) steps, for kubelet 1.x.
CPU_OPTIONS = {
    'full-pcpus-only': ((22, 'alpha'), (23, 'beta'), (33, 'stable')),
    'distribute-cpus-across-numa': ((23, 'alpha'), (33, 'beta')),
    'align-by-socket': ((25, 'alpha'),),
    'distribute-cpus-across-cores': ((31, 'alpha'),),
    'strict-cpu-reservation': ((32, 'alpha'), (33, 'beta')),
    'prefer-align-cpus-by-uncorecache': ((32, 'alpha'), (34, 'beta')),
}
TOPOLOGY_OPTIONS = {
    'prefer-closest-numa-nodes': ((26, 'alpha'), (28, 'beta'), (32, 'stable')),
    'max-allowable-numa-nodes': ((31, 'beta'), (35, 'stable')),
}
# Pairs of CPU manager options the kubelet refuses together (both set to true).
CPU_OPTION_CONFLICTS = (
    ('full-pcpus-only', 'distribute-cpus-across-cores'),
    ('distribute-cpus-across-numa', 'distribute-cpus-across-cores'),
    ('prefer-align-cpus-by-uncorecache', 'distribute-cpus-across-cores'),
    ('prefer-align-cpus-by-uncorecache', 'distribute-cpus-across-numa'),
)
MIN_MAX_ALLOWABLE_NUMA_NODES = 8
# Feature gates this module reasons about: (first minor, default) steps, and the minor from which
# the gate is locked to true (setting it to false makes the kubelet refuse to start).
FEATURE_GATES = {
    'CPUManagerPolicyOptions': (((22, False), (23, True)), 33),
    'CPUManagerPolicyAlphaOptions': (((23, False),), None),
    'CPUManagerPolicyBetaOptions': (((23, True),), None),
    'TopologyManagerPolicyOptions': (((26, False), (28, True)), 32),
    'TopologyManagerPolicyAlphaOptions': (((26, False),), None),
    'TopologyManagerPolicyBetaOptions': (((26, False), (28, True)), None),
    'MemoryManager': (((21, False), (22, True)), 32),
}
OLDEST_KNOWN_MINOR = 23
NEWEST_KNOWN_MINOR = 35

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
    level = None
    for since, name in steps:
        if minor >= since:
            level = name
    return level


def gate_default(gate, minor):
    steps, _locked = FEATURE_GATES[gate]
    return bool(_level_at(steps, minor))


def _pretty(value):
    if isinstance(value, str):
        return '"%s"' % value
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else repr(value)


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


def _effective_gates(config, minor, errors):
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
        if minor is not None and name in FEATURE_GATES:
            locked = FEATURE_GATES[name][1]
            if locked is not None and minor >= locked and not state:
                errors.append('featureGates.%s: false is refused by kubelet 1.%d, where the feature is GA and '
                              'locked to true; remove the gate from featureGates' % (name, minor))
    return gates


def _gate_on(gates, name, minor):
    if name in gates:
        return gates[name]
    return gate_default(name, minor)


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
    if value and minor is not None:
        gate = prefix + 'PolicyOptions'
        locked = FEATURE_GATES[gate][1]
        introduced = FEATURE_GATES[gate][0][0][0]
        if (locked is None or minor < locked) and minor >= introduced and not _gate_on(gates, gate, minor):
            errors.append('%s: policy options %s need the %s feature gate, which is off in kubelet 1.%d; '
                          'set feature_gates: {%s: true}' % (key, _pretty(value), gate, minor, gate))
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
                errors.append('%s.%s: %s' % (key, name, err))
                continue
        if minor is None:
            continue
        level = _level_at(table[name], minor)
        if level is None:
            errors.append('%s: option "%s" does not exist in kubelet 1.%d (it appeared in 1.%d)'
                          % (key, name, minor, table[name][0][0]))
            parsed.pop(name, None)
        elif level in ('alpha', 'beta'):
            gate = '%sPolicy%sOptions' % (prefix, level.capitalize())
            if not _gate_on(gates, gate, minor):
                errors.append('%s: option "%s" is %s in kubelet 1.%d and needs the %s feature gate; '
                              'set feature_gates: {%s: true}' % (key, name, level, minor, gate, gate))
    return parsed


def _eviction_memory(config, warnings, errors):
    """Hard-eviction memory.available in bytes as the kubelet computes it, or None if unknowable."""
    eviction = config.get('evictionHard')
    merge = config.get('mergeDefaultEvictionSettings') is True
    if eviction is None:
        return Fraction(DEFAULT_EVICTION_MEMORY)
    if not isinstance(eviction, dict):
        errors.append('evictionHard: %s is not a dictionary of signal to threshold' % _pretty(eviction))
        return None
    if 'memory.available' not in eviction:
        # With evictionHard set, unspecified signals are 0 unless mergeDefaultEvictionSettings is true.
        return Fraction(DEFAULT_EVICTION_MEMORY) if merge else Fraction(0)
    value = eviction['memory.available']
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
    gates = _effective_gates(config, minor, errors)

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
        if minor is not None:
            locked = FEATURE_GATES['MemoryManager'][1]
            if minor < locked and not _gate_on(gates, 'MemoryManager', minor):
                errors.append('memoryManagerPolicy: "Static" needs the MemoryManager feature gate, which is off; '
                              'set feature_gates: {MemoryManager: true}')
        if totals is not None:
            _check_static_memory(config, system, kube, totals, warnings, errors)
    if errors:
        raise KubeletConfigError(errors)
    return warnings


def _check_static_memory(config, system, kube, totals, warnings, errors):
    eviction = _eviction_memory(config, warnings, errors)
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


def recorded_policy(text):
    """The policyName recorded in a checkpoint file's JSON, or None when it cannot be read."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, dict) and isinstance(data.get('policyName'), str):
        return data['policyName']
    return None


def state_files_to_remove(before, after, cpu_state, memory_state, state_dir=DEFAULT_STATE_DIR):
    """Decide which checkpoint files must go for the kubelet to start with ``after``.

    ``cpu_state`` / ``memory_state`` are the files' text (None when absent). Returns
    ``(removals, warnings)`` where removals is a list of ``{'path', 'reason'}``.
    """
    removals = []
    warnings = []
    base = state_dir.rstrip('/') or '/'

    if cpu_state is not None:
        path = '%s/%s' % (base, CPU_STATE_FILE) if base != '/' else '/' + CPU_STATE_FILE
        old_policy = _effective(before, 'cpuManagerPolicy')
        new_policy = _effective(after, 'cpuManagerPolicy')
        recorded = recorded_policy(cpu_state)
        reason = None
        if recorded is None:
            if (old_policy != new_policy or _cpu_reservation(before) != _cpu_reservation(after)
                    or _strict(before) != _strict(after)):
                reason = ('the file cannot be read as a CPU manager checkpoint and the CPU manager '
                          'configuration changes')
            else:
                warnings.append('%s cannot be read as a CPU manager checkpoint (no policyName); the kubelet may '
                                'refuse to start until it is removed' % path)
        elif recorded != new_policy:
            reason = ('it records CPU manager policy "%s" but the configuration now says "%s"; the kubelet '
                      'would refuse to start with: configured policy "%s" differs from state checkpoint policy '
                      '"%s"' % (recorded, new_policy, new_policy, recorded))
        elif new_policy == 'static':
            if old_policy != 'static':
                reason = ('the CPU manager policy changes from "%s" to "static" and the checkpoint holds an '
                          'older static CPU assignment made with an unknown reservation' % old_policy)
            elif _cpu_reservation(before) != _cpu_reservation(after):
                reason = ('the reserved CPU set changes (%s -> %s); the kubelet would refuse to start with '
                          '"not all reserved cpus ... are present in defaultCpuSet"'
                          % (_describe_reservation(_cpu_reservation(before)),
                             _describe_reservation(_cpu_reservation(after))))
            elif _strict(before) != _strict(after):
                reason = ('strict-cpu-reservation is turned %s; the checkpoint\'s default CPU set %s the '
                          'reserved CPUs, which the kubelet refuses'
                          % ('on' if _strict(after) else 'off',
                             'includes' if _strict(after) else 'excludes'))
        if reason:
            removals.append({'path': path, 'reason': reason})

    if memory_state is not None:
        path = '%s/%s' % (base, MEMORY_STATE_FILE) if base != '/' else '/' + MEMORY_STATE_FILE
        old_policy = _effective(before, 'memoryManagerPolicy')
        new_policy = _effective(after, 'memoryManagerPolicy')
        recorded = recorded_policy(memory_state)
        old_reserved = _normal_reserved_memory(before.get('reservedMemory') or [])
        new_reserved = _normal_reserved_memory(after.get('reservedMemory') or [])
        reason = None
        if recorded is None:
            if old_policy != new_policy or old_reserved != new_reserved:
                reason = ('the file cannot be read as a memory manager checkpoint and the memory manager '
                          'configuration changes')
            else:
                warnings.append('%s cannot be read as a memory manager checkpoint (no policyName); the kubelet '
                                'may refuse to start until it is removed' % path)
        elif recorded != new_policy:
            reason = ('it records memory manager policy "%s" but the configuration now says "%s"; the kubelet '
                      'would refuse to start with: configured policy "%s" differs from state checkpoint policy '
                      '"%s"' % (recorded, new_policy, new_policy, recorded))
        elif new_policy == 'Static':
            if old_policy != 'Static':
                reason = ('the memory manager policy changes from "%s" to "Static" and the checkpoint holds an '
                          'older Static machine state made with an unknown reservation' % old_policy)
            elif old_reserved != new_reserved:
                reason = ('reservedMemory changes; the kubelet would refuse to start with "the expected machine '
                          'state is different from the real one"')
        if reason:
            removals.append({'path': path, 'reason': reason})
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
