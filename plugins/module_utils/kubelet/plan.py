# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan: the new configuration and the keys whose meaning changes (a value spelled differently but meaning the
same is not a change), and the checks of the document itself."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import copy

from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import parse_cpuset
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.common import (
    API_VERSION, KIND, REMOVE, KubeletConfigError, parse_duration, parse_go_bool, pretty)
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.options import MANAGED_KEYS
from ansible_collections.numaops.colocation.plugins.module_utils.quantity import QuantityError, parse_quantity


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


def normal_reserved_memory(value):
    """reservedMemory as a set of (NUMA node, type, amount) (spelling and order do not matter), or its raw repr."""
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
        return normal_reserved_memory(old) == normal_reserved_memory(new)
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
        problems.append('kind is %s, expected "%s"' % (pretty(config.get('kind')), KIND))
    if config.get('apiVersion') != API_VERSION:
        problems.append('apiVersion is %s, expected "%s"' % (pretty(config.get('apiVersion')), API_VERSION))
    if problems:
        raise KubeletConfigError(['%s is not a KubeletConfiguration (%s); check the path option'
                                  % (path, ', '.join(problems))])
