# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The module's options: one table (``OPTIONS``) drives the argument spec, the order of keys in the file and the
reading of each option into the value the KubeletConfiguration gets (``requested_values``)."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from collections import namedtuple

from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.common import (
    DEFAULT_PATH, DEFAULT_STATE_DIR, REMOVE, KubeletConfigError, pretty)


def _string(option, value, errors):
    if not isinstance(value, str):
        errors.append('%s: %s is not a string' % (option, pretty(value)))
        return None
    return REMOVE if value == '' else value


def _option_string(option, name, value, errors):
    """A policy option value as the string the kubelet reads (bools become "true"/"false")."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    errors.append('%s.%s: %s is not a string, boolean or integer' % (option, name, pretty(value)))
    return None


def _quantity_string(where, value, errors):
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        errors.append('%s: %s is not a quantity (use a string like "500m", "1Gi" or "1000")'
                      % (where, pretty(value)))
        return None
    return str(value)


def _string_map(what, convert):
    """A reader for a dictionary option whose entries ``convert(where, name, value, errors)`` turns into strings."""
    def read(option, value, errors):
        if not isinstance(value, dict):
            errors.append('%s: %s is not %s' % (option, pretty(value), what))
            return None
        if not value:
            return REMOVE
        result = {}
        for name in value:
            text = convert(option, name, value[name], errors)
            if text is not None:
                result[str(name)] = text
        return result
    return read


_policy_options = _string_map('a dictionary of option names to values', _option_string)
_reservations = _string_map('a dictionary like {cpu: 500m, memory: 1Gi}',
                            lambda option, name, value, errors: _quantity_string('%s.%s' % (option, name), value, errors))


def _feature_gates(option, value, errors):
    if not isinstance(value, dict):
        errors.append('%s: %s is not a dictionary of feature gate names to true/false' % (option, pretty(value)))
        return None
    if not value:
        return REMOVE
    gates = {}
    for name in value:
        gate = value[name]
        if gate is None or isinstance(gate, bool):
            gates[str(name)] = gate
        elif isinstance(gate, str) and gate.lower() in ('true', 'false'):
            gates[str(name)] = gate.lower() == 'true'
        else:
            errors.append('%s.%s: %s is not true or false (use null to drop the gate from the file)'
                          % (option, name, pretty(gate)))
    return gates


def _reserved_memory(option, value, errors):
    if not isinstance(value, list):
        errors.append('%s: %s is not a list of {numaNode, limits}' % (option, pretty(value)))
        return None
    if not value:
        return REMOVE
    result = []
    for index, item in enumerate(value):
        where = '%s[%d]' % (option, index)
        if not isinstance(item, dict):
            errors.append('%s: %s is not a dictionary with numaNode and limits' % (where, pretty(item)))
            continue
        unknown = sorted(set(item) - set(('numaNode', 'limits')))
        if unknown:
            errors.append('%s: unknown field(s) %s (allowed: numaNode, limits)' % (where, ', '.join(unknown)))
        node = item.get('numaNode')
        if isinstance(node, str) and node.isdigit():
            node = int(node)
        if isinstance(node, bool) or not isinstance(node, int) or node < 0:
            errors.append('%s.numaNode: %s is not a NUMA node number (0, 1, ...)' % (where, pretty(node)))
            continue
        limits = item.get('limits')
        if not isinstance(limits, dict) or not limits:
            errors.append('%s.limits: %s is not a non-empty dictionary like {memory: 1Gi}' % (where, pretty(limits)))
            continue
        clean = {}
        for name in limits:
            text = _quantity_string('%s.limits.%s' % (where, name), limits[name], errors)
            if text is not None:
                clean[str(name)] = text
        result.append({'numaNode': node, 'limits': clean})
    return result


# One row per managed key: module option, KubeletConfiguration key, Ansible type (elements), reader. The order is
# the order in which keys are appended to a file.
Option = namedtuple('Option', 'option key type elements read')
OPTIONS = (
    Option('cpu_manager_policy', 'cpuManagerPolicy', 'str', None, _string),
    Option('cpu_manager_policy_options', 'cpuManagerPolicyOptions', 'dict', None, _policy_options),
    Option('cpu_manager_reconcile_period', 'cpuManagerReconcilePeriod', 'str', None, _string),
    Option('reserved_system_cpus', 'reservedSystemCPUs', 'str', None, _string),
    Option('system_reserved', 'systemReserved', 'dict', None, _reservations),
    Option('kube_reserved', 'kubeReserved', 'dict', None, _reservations),
    Option('topology_manager_policy', 'topologyManagerPolicy', 'str', None, _string),
    Option('topology_manager_scope', 'topologyManagerScope', 'str', None, _string),
    Option('topology_manager_policy_options', 'topologyManagerPolicyOptions', 'dict', None, _policy_options),
    Option('memory_manager_policy', 'memoryManagerPolicy', 'str', None, _string),
    Option('reserved_memory', 'reservedMemory', 'list', 'dict', _reserved_memory),
    Option('feature_gates', 'featureGates', 'dict', None, _feature_gates),
)
OPTION_KEYS = tuple((row.option, row.key) for row in OPTIONS)
OPTION_FOR_KEY = dict((key, option) for option, key in OPTION_KEYS)
MANAGED_KEYS = tuple(key for _option, key in OPTION_KEYS)


def _spec(row):
    spec = dict(type=row.type)
    if row.elements:
        spec['elements'] = row.elements
    return spec


ARGUMENT_SPEC = dict(
    path=dict(type='path', default=DEFAULT_PATH),
    state_dir=dict(type='path', default=DEFAULT_STATE_DIR),
    create=dict(type='bool', default=False),
    backup=dict(type='bool', default=False),
    reservations=dict(type='str', choices=['merge', 'replace'], default='replace'),
    kubelet_version=dict(type='str'),
    config_dir=dict(type='path'),
    write_to=dict(type='str', choices=['main', 'dropin'], default='main'),
    drop_in_name=dict(type='str', default='90-numaops-colocation.conf'),
    enable_config_dir=dict(type='bool', default=False),
    kubelet_service=dict(type='str', default='kubelet'),
    kubelet_unit_dirs=dict(type='list', elements='path',
                           default=['/etc/systemd/system', '/usr/lib/systemd/system', '/lib/systemd/system']),
    config_dir_unit_drop_in=dict(type='str', default='90-numaops-config-dir.conf'),
    **dict((row.option, _spec(row)) for row in OPTIONS)
)


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
    for row in OPTIONS:
        if row.type in ('dict', 'list') and isinstance(args.get(row.option), str) and args[row.option] == '':
            empty = '{}' if row.type == 'dict' else '[]'
            errors.append('%s: "" is not a %s; to remove %s from the file use %s: %s ("" removes only the '
                          'string-valued keys, such as cpu_manager_policy)'
                          % (row.option, 'dictionary' if row.type == 'dict' else 'list', row.key, row.option, empty))
    return errors


def requested_values(params):
    """Turn module parameters into ``{key: new value or REMOVE}`` for the keys the task sets.

    ``featureGates`` is returned as ``{gate: bool or None}`` (None: drop that gate), merged into the
    file's gates later; every other key replaces the file's value as a whole.
    Raises KubeletConfigError for values of the wrong shape.
    """
    errors = []
    wanted = {}
    for row in OPTIONS:
        value = plain_value(params.get(row.option))
        if value is None:
            continue
        result = row.read(row.option, value, errors)
        if result is not None:
            wanted[row.key] = result
    if errors:
        raise KubeletConfigError(errors)
    return wanted
