# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""One validation run (``Check``) and the facts of the configuration several rules read (``check.memo(fact)``):
the gates that are on, the policies in use, the reservations, the policy options the kubelet takes, the
reservedMemory totals, the hard-eviction memory. Facts report nothing; the rules in rules.py do."""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re
from fractions import Fraction

from ansible_collections.numaops.colocation.plugins.module_utils.kubelet import releases
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.common import (
    CPU_POLICIES, DEFAULT_EVICTION_MEMORY, DEFAULTS, IGNORED_EVICTION_PERCENTAGES, MEMORY_POLICIES,
    MIN_MAX_ALLOWABLE_NUMA_NODES, RESERVABLE, TOPOLOGY_POLICIES, TOPOLOGY_SCOPES, parse_go_bool, pretty)
from ansible_collections.numaops.colocation.plugins.module_utils.quantity import QuantityError, parse_quantity

# The policy options maps: key, the generated table of its options, the prefix of its per-release gate facts.
POLICY_OPTIONS = (('cpuManagerPolicyOptions', releases.CPU_MANAGER_OPTIONS, 'cpu'),
                  ('topologyManagerPolicyOptions', releases.TOPOLOGY_MANAGER_OPTIONS, 'topology'))
ALLOWED = {'cpuManagerPolicy': CPU_POLICIES, 'topologyManagerPolicy': TOPOLOGY_POLICIES,
           'topologyManagerScope': TOPOLOGY_SCOPES, 'memoryManagerPolicy': MEMORY_POLICIES}
_HUGEPAGES_RE = re.compile(r'^hugepages-(.+)$')
_DIGITS_RE = re.compile(r'^[0-9]+$')


class Check(object):
    """One validation run: the configuration, the kubelet minor (None when unknown), the problems found so far."""

    def __init__(self, config, kubelet_version=None):
        self.config = config
        self.kubelet_version = kubelet_version
        self.minor = None
        self.errors = []
        self.rules = []
        self.warnings = []
        self.current = None
        self._memo = {}

    @property
    def checked(self):
        """The release of the data table this kubelet is checked as (None when the release is unknown)."""
        return None if self.minor is None else releases.table_minor(self.minor)

    def refuse(self, message):
        self.errors.append(message)
        self.rules.append(self.current)

    def warn(self, message):
        self.warnings.append(message)

    def refused(self, *prefixes):
        """Whether a message so far starts with one of ``prefixes`` (a later rule keeps quiet about it then)."""
        return any(error.startswith(prefixes) for error in self.errors)

    def memo(self, function, *args):
        """``function(self, *args)`` computed once per run (the facts several rules read)."""
        key = (function,) + args
        if key not in self._memo:
            self._memo[key] = function(self, *args)
        return self._memo[key]


# --------------------------------------------------------------------------------------------------
# Facts several rules read (computed once, no messages of their own)


def gates(check):
    """The featureGates of the file that are true or false."""
    value = check.config.get('featureGates')
    if not isinstance(value, dict):
        return {}
    return dict((name, state) for name, state in value.items() if isinstance(state, bool))


def gate_on(check, name):
    return releases.gate_on(check.memo(gates), name, check.checked)


def policy(check, key):
    """The policy the kubelet uses for ``key`` (an empty value is the default), or None when it is not allowed."""
    allowed = ALLOWED[key]
    value = check.config.get(key)
    if value in (None, ''):
        # SetDefaults_KubeletConfiguration: an empty (or null) string gets the default, like a missing key.
        return DEFAULTS[key]
    return value if value in allowed else None


def reserved(check, key):
    """systemReserved / kubeReserved read like the kubelet's parseResourceList: ({name: amount}, problems)."""
    amounts = {}
    problems = []
    value = check.config.get(key)
    if value is None:
        return amounts, problems
    if not isinstance(value, dict):
        return amounts, ['%s: %s is not a dictionary (resource name to quantity)' % (key, pretty(value))]
    for name, text in value.items():
        if name not in RESERVABLE:
            problems.append('%s.%s: the kubelet cannot reserve resource "%s" (allowed: %s)'
                            % (key, name, name, ', '.join(RESERVABLE)))
            continue
        if not isinstance(text, str):
            problems.append('%s.%s: %s must be a quoted string (the kubelet reads these values as strings)'
                            % (key, name, pretty(text)))
            continue
        try:
            amount = parse_quantity(text)
        except QuantityError as err:
            problems.append('%s.%s: %s' % (key, name, err))
            continue
        if amount < 0:
            problems.append('%s.%s: %s is negative' % (key, name, pretty(text)))
            continue
        amounts[name] = amount
    return amounts, problems


def option_value(key, name, raw):
    """A policy option's value as the kubelet parses it; raises ValueError with the message to show."""
    if not isinstance(raw, str):
        raise ValueError('%s.%s: %s must be a quoted string such as "true" (the kubelet reads option values '
                         'as strings)' % (key, name, pretty(raw)))
    if name == 'max-allowable-numa-nodes':
        if not _DIGITS_RE.match(raw):
            raise ValueError('%s.%s: %s is not a whole number' % (key, name, pretty(raw)))
        if int(raw) < MIN_MAX_ALLOWABLE_NUMA_NODES:
            raise ValueError('%s.%s: %s is below the minimum the kubelet accepts (%d)'
                             % (key, name, pretty(raw), MIN_MAX_ALLOWABLE_NUMA_NODES))
        return int(raw)
    try:
        return parse_go_bool(raw)
    except ValueError as err:
        raise ValueError('%s.%s: %s' % (key, name, err))


def option_map(check, key):
    """The options map ``key`` when it is a dictionary, else {}."""
    value = check.config.get(key)
    return value if isinstance(value, dict) else {}


def option_level(check, table, name):
    """The maturity of a known option in the kubelet checked (None: that release does not have it)."""
    return releases.level_at(table[name], check.checked)


def options(check, key):
    """{option: value} of the options of ``key`` the kubelet takes: known, well-formed, in its release."""
    table = dict((k, t) for k, t, _p in POLICY_OPTIONS)[key]
    parsed = {}
    for name, raw in option_map(check, key).items():
        if name not in table or (check.minor is not None and option_level(check, table, name) is None):
            continue
        try:
            parsed[name] = option_value(key, name, raw)
        except ValueError:
            continue
    return parsed


def reserved_memory(check):
    """reservedMemory read like validateReservedMemoryConfiguration: ({type: total} or None, problems)."""
    value = check.config.get('reservedMemory')
    if value is None:
        return {}, []
    if not isinstance(value, list):
        return None, ['reservedMemory: %s is not a list of {numaNode, limits}' % pretty(value)]
    totals = {}
    seen = set()
    problems = []
    for index, item in enumerate(value):
        where = 'reservedMemory[%d]' % index
        if not isinstance(item, dict):
            problems.append('%s: %s is not a dictionary with numaNode and limits' % (where, pretty(item)))
            continue
        node = item.get('numaNode', 0)
        if isinstance(node, bool) or not isinstance(node, int) or node < 0:
            problems.append('%s.numaNode: %s is not a NUMA node number' % (where, pretty(node)))
            continue
        limits = item.get('limits')
        if not isinstance(limits, dict):
            problems.append('%s.limits: %s is not a dictionary like {memory: 1Gi}' % (where, pretty(limits)))
            continue
        for name, qty in limits.items():
            amount, problem = _limit(where, node, name, qty)
            if amount is None:
                problems.append(problem)
                continue
            if problem:
                problems.append(problem)
            if (node, name) in seen:
                problems.append('%s: duplicate reservation for NUMA node %d and "%s"' % (where, node, name))
            seen.add((node, name))
            totals[name] = totals.get(name, Fraction(0)) + amount
    return (None if problems else totals), problems


def _limit(where, node, name, qty):
    """(amount or None when it cannot be read, problem or None) of one reservedMemory limit."""
    hugepages = _HUGEPAGES_RE.match(str(name))
    if name != 'memory' and not hugepages:
        return None, ('%s.limits: the limit type "%s" for NUMA node %d is not supported (allowed: memory, '
                      'hugepages-<size>)' % (where, name, node))
    if hugepages:
        try:
            parse_quantity(hugepages.group(1))
        except QuantityError:
            return None, '%s.limits: "%s" does not name a huge page size like hugepages-2Mi' % (where, name)
    try:
        amount = parse_quantity(qty)
    except QuantityError as err:
        return None, '%s.limits.%s: %s' % (where, name, err)
    if amount == 0:
        return amount, '%s.limits.%s: reserved memory may not be zero for NUMA node %d' % (where, name, node)
    if amount < 0:
        return amount, '%s.limits.%s: %s is negative' % (where, name, pretty(qty))
    return amount, None


def eviction_memory(config, warnings, errors, minor=None):
    """Hard-eviction memory.available in bytes as the kubelet 1.``minor`` (None: the newest known) computes it, or
    None if unknowable."""
    eviction = config.get('evictionHard')
    # mergeDefaultEvictionSettings exists from 1.33 on; an older kubelet ignores the key
    merge = (config.get('mergeDefaultEvictionSettings') is True
             and releases.release_rules(releases.NEWEST_KNOWN_MINOR if minor is None else minor)
             ['merge_default_eviction_settings'])
    if eviction is None:
        return Fraction(DEFAULT_EVICTION_MEMORY)
    if not isinstance(eviction, dict):
        errors.append('evictionHard: %s is not a dictionary of signal to threshold' % pretty(eviction))
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


def eviction(check):
    """The hard-eviction memory.available in bytes (None when unknowable), the warnings and the errors reading it."""
    warnings, errors = [], []
    return eviction_memory(check.config, warnings, errors, check.minor), warnings, errors
