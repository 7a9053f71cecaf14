# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Validation of the resulting KubeletConfiguration: a list of small named rules, each one thing the kubelet refuses.

Each rule is a function of a ``Check`` (check.py: the configuration, the kubelet minor when known, the facts several
rules read, the problems so far) that calls ``check.refuse(message)`` for every problem it finds; ``RULES`` lists
them in the order their messages are reported, each with the releases it applies to. ``validate()`` runs every rule
that applies and raises ``KubeletConfigError`` whose ``rules`` names, for each message, the rule that refused. A new
rule is a function here and one line in ``RULES`` (docs/developer/kubelet_rules.md). Standard library only.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

from collections import namedtuple
from fractions import Fraction

from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import parse_cpuset
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet import releases
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.check import (
    ALLOWED, POLICY_OPTIONS, Check, eviction, gate_on, gates, option_level, option_map, option_value, options, policy,
    reserved, reserved_memory)
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.common import (
    KubeletConfigError, near_names, parse_duration, pretty)
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet.options import OPTION_FOR_KEY
from ansible_collections.numaops.colocation.plugins.module_utils.quantity import format_bytes

# Pairs of CPU manager options the kubelet refuses together (both set to true).
CPU_OPTION_CONFLICTS = (
    ('full-pcpus-only', 'distribute-cpus-across-cores'),
    ('distribute-cpus-across-numa', 'distribute-cpus-across-cores'),
    ('prefer-align-cpus-by-uncorecache', 'distribute-cpus-across-cores'),
    ('prefer-align-cpus-by-uncorecache', 'distribute-cpus-across-numa'),
)


class Rule(namedtuple('Rule', 'name check since until versioned')):
    """A named check. ``since`` / ``until``: the first / last kubelet minor it applies to (None: no bound);
    ``versioned``: it needs the node's kubelet release (kubelet_version) and is skipped without it. Without
    kubelet_version every other rule runs: the module cannot tell which release the node has."""

    def applies(self, minor):
        if minor is None:
            return not self.versioned
        return (self.since is None or minor >= self.since) and (self.until is None or minor <= self.until)


def rule(name, check, since=None, until=None, versioned=False):
    return Rule(name, check, since, until, versioned)


# --------------------------------------------------------------------------------------------------
# The rules


def kubelet_version(check):
    if check.kubelet_version in (None, ''):
        return
    try:
        check.minor = releases.parse_kubelet_version(check.kubelet_version)
    except ValueError as err:
        check.refuse(str(err))
        return
    if check.minor > releases.NEWEST_KNOWN_MINOR:
        check.warn('kubelet_version %s is newer than the newest release this module has data for (%s); it is '
                   'checked as kubelet 1.%d (regenerate the data with scripts/gen_kubelet_releases.py for exact '
                   'checks)' % (pretty(check.kubelet_version), releases.RELEASES[-1], releases.NEWEST_KNOWN_MINOR))


def feature_gate_value(check):
    value = check.config.get('featureGates')
    if value is not None and not isinstance(value, dict):
        check.refuse('featureGates: %s is not a dictionary of gate names to true/false' % pretty(value))
        return
    for name, state in (value or {}).items():
        if not isinstance(state, bool):
            check.refuse('featureGates.%s: %s is not true or false (unquoted)' % (name, pretty(state)))


def feature_gate_known(check):
    for name in check.memo(gates):
        if check.minor is not None:
            problem = releases.unknown_gate_problem(name, check.minor)
            if problem:
                check.refuse(problem)
        elif name not in releases.FEATURE_GATES:
            near = near_names(name, releases.FEATURE_GATES)
            check.warn('featureGates.%s: no kubelet from %s to %s knows this feature gate%s; a kubelet that does '
                       'not know a gate refuses to start (set kubelet_version to have it checked)'
                       % (name, releases.RELEASES[0], releases.RELEASES[-1],
                          ' (did you mean %s?)' % ' or '.join('"%s"' % n for n in near) if near else ''))


def feature_gate_locked(check):
    for name, state in check.memo(gates).items():
        problem = releases.locked_gate_problem(name, state, check.minor)
        if problem:
            check.refuse(problem)


def choice(key, hints=None):
    """A rule: ``key`` is one of the policies the kubelet knows (``hints``: {value: what to add to the message})."""
    def check_choice(check):
        value = check.config.get(key)
        if check.memo(policy, key) is not None:
            return
        allowed = ALLOWED[key]
        message = '%s: %s is not allowed (allowed: %s)' % (key, pretty(value), ', '.join(allowed))
        if isinstance(value, str):
            for name in allowed:
                if name.lower() == value.lower():
                    message += '; the names are case-sensitive, did you mean "%s"?' % name
        check.refuse(message + (hints or {}).get(value, '') if isinstance(value, str) else message)
    return check_choice


def reconcile_period(check):
    if 'cpuManagerReconcilePeriod' not in check.config:
        return
    value = check.config['cpuManagerReconcilePeriod']
    try:
        if parse_duration(value) < 0:
            check.refuse('cpuManagerReconcilePeriod: %s is negative' % pretty(value))
    except ValueError as err:
        check.refuse('cpuManagerReconcilePeriod: %s' % err)


def reserved_cpus_list(check):
    if check.config.get('reservedSystemCPUs') not in (None, ''):
        try:
            parse_cpuset(check.config['reservedSystemCPUs'])
        except ValueError as err:
            check.refuse('reservedSystemCPUs: %s' % err)


def reserved_cpus_cgroups(check):
    config = check.config
    cgroups = [key for key in ('systemReservedCgroup', 'kubeReservedCgroup') if config.get(key) not in (None, '')]
    if config.get('reservedSystemCPUs') not in (None, '') and cgroups:
        check.refuse('reservedSystemCPUs: %s cannot be combined with %s (the kubelet refuses reservedSystemCPUs '
                     'together with systemReservedCgroup or kubeReservedCgroup); remove %s from the file, or set '
                     'reserved_system_cpus: "" and reserve CPUs with a cpu amount in system_reserved/kube_reserved '
                     'instead' % (pretty(config['reservedSystemCPUs']),
                                  ' and '.join('%s %s' % (key, pretty(config[key])) for key in cgroups),
                                  ' and '.join(cgroups)))


def reserved_resources(check):
    for key in ('systemReserved', 'kubeReserved'):
        for problem in check.memo(reserved, key)[1]:
            check.refuse(problem)


def _options_rule(key, check_options):
    """A rule over the options map ``key`` (cpuManagerPolicyOptions or topologyManagerPolicyOptions)."""
    table, prefix = dict((k, (t, p)) for k, t, p in POLICY_OPTIONS)[key]
    return lambda check: check_options(check, key, table, prefix)


def options_map_gate(check, key, _table, _prefix):
    value = check.config.get(key)
    gate = releases.release_rules(check.minor).get('options_map_gates', {}).get(key)
    # a gate locked to true and set to false is refused for that (feature-gate-locked), and the kubelet stops there
    if isinstance(value, dict) and gate and not gate_on(check, gate) and not check.refused('featureGates.%s:' % gate):
        check.refuse('%s: policy options %s need the %s feature gate, which is off in kubelet 1.%d; the kubelet '
                     'refuses any %s map without it, even an empty one; set feature_gates: {%s: true}%s'
                     % (key, pretty(value), gate, check.checked, key, gate,
                        ' or remove the key (%s: {})' % OPTION_FOR_KEY[key] if not value else ''))


def option_known(check, key, table, _prefix):
    value = check.config.get(key)
    if value is not None and not isinstance(value, dict):
        check.refuse('%s: %s is not a dictionary of option names to string values' % (key, pretty(value)))
    for name in option_map(check, key):
        if name not in table:
            check.refuse('%s: unknown option "%s" (allowed: %s)' % (key, name, ', '.join(sorted(table))))


def option_value_rule(check, key, table, _prefix):
    for name, raw in option_map(check, key).items():
        if name in table:
            try:
                option_value(key, name, raw)
            except ValueError as err:
                check.refuse(str(err))


def option_in_release(check, key, table, _prefix):
    for name, raw in option_map(check, key).items():
        if name not in table or option_level(check, table, name) is not None:
            continue
        try:
            option_value(key, name, raw)
        except ValueError:
            continue
        known = [since for since, stage in table[name] if stage is not None]
        when = ('it appeared in 1.%d' % known[0] if known and known[0] > check.checked
                else 'it was removed before' if known else 'it is not known')
        check.refuse('%s: option "%s" does not exist in kubelet 1.%d (%s)' % (key, name, check.checked, when))


def option_maturity_gate(check, key, table, prefix):
    for name in check.memo(options, key):
        level = option_level(check, table, name)
        if level in ('Alpha', 'Beta'):
            gate = releases.release_rules(check.minor)['%s_option_gates' % prefix][level]
            if not gate_on(check, gate):
                check.refuse('%s: option "%s" is %s in kubelet 1.%d and needs the %s feature gate; set '
                             'feature_gates: {%s: true}' % (key, name, level.lower(), check.checked, gate, gate))


def none_policy_options(check):
    config = check.config
    if check.memo(policy, 'cpuManagerPolicy') == 'none' and config.get('cpuManagerPolicyOptions'):
        check.refuse('cpuManagerPolicyOptions: %s set while cpuManagerPolicy is %s; the none policy refuses '
                     'every option (kubelet fails with "None policy: received unsupported options"); set '
                     'cpu_manager_policy: static or cpu_manager_policy_options: {}'
                     % (pretty(config['cpuManagerPolicyOptions']),
                        '"none"' if config.get('cpuManagerPolicy') == 'none' else '%s (the default, "none")'
                        % ('not set' if 'cpuManagerPolicy' not in config else pretty(config['cpuManagerPolicy']))))


def cpu_options_exclusive(check):
    chosen = check.memo(options, 'cpuManagerPolicyOptions')
    for first, second in CPU_OPTION_CONFLICTS:
        if chosen.get(first) is True and chosen.get(second) is True:
            check.refuse('cpuManagerPolicyOptions: "%s" and "%s" cannot both be true (the kubelet refuses '
                         'this combination)' % (first, second))


def align_by_socket_single_numa(check):
    if (check.memo(options, 'cpuManagerPolicyOptions').get('align-by-socket') is True
            and check.memo(policy, 'topologyManagerPolicy') == 'single-numa-node'):
        check.refuse('cpuManagerPolicyOptions: "align-by-socket" cannot be used with topologyManagerPolicy '
                     '"single-numa-node" (the kubelet refuses this combination)')


def static_cpu_reservation(check):
    if check.memo(policy, 'cpuManagerPolicy') != 'static' or check.config.get('reservedSystemCPUs') not in (None, ''):
        return
    total = sum((check.memo(reserved, key)[0].get('cpu', Fraction(0)) for key in ('systemReserved', 'kubeReserved')),
                Fraction(0))
    if total <= 0 and not check.refused('systemReserved.cpu', 'kubeReserved.cpu'):
        check.refuse('cpuManagerPolicy: "static" needs a CPU reservation greater than zero: set '
                     'reserved_system_cpus (for example "0-1"), or a cpu amount in system_reserved '
                     'and/or kube_reserved (the kubelet refuses to start with "the static policy '
                     'requires systemreserved.cpu + kubereserved.cpu to be greater than zero")')


def reserved_memory_entries(check):
    for problem in check.memo(reserved_memory)[1]:
        check.refuse(problem)


def memory_manager_gate(check):
    # Deliberately stricter than the kubelet, which ignores the policy while the gate is off.
    spec = releases.gate_spec('MemoryManager', check.minor)
    if (check.memo(policy, 'memoryManagerPolicy') == 'Static' and spec is not None and not spec[2]
            and not gate_on(check, 'MemoryManager')):
        check.refuse('memoryManagerPolicy: "Static" needs the MemoryManager feature gate, which is off; '
                     'set feature_gates: {MemoryManager: true}')


def _static_memory(check):
    """Whether the Static memory manager's sum is checked: the policy is Static and reservedMemory reads well."""
    return check.memo(policy, 'memoryManagerPolicy') == 'Static' and check.memo(reserved_memory)[0] is not None


def eviction_hard_memory(check):
    if _static_memory(check):
        _value, warnings, errors = check.memo(eviction)
        for warning in warnings:
            check.warn(warning)
        for error in errors:
            check.refuse(error)


def static_memory_sum(check):
    if not _static_memory(check):
        return
    totals = check.memo(reserved_memory)[0]
    config = check.config
    system = check.memo(reserved, 'systemReserved')[0]
    kube = check.memo(reserved, 'kubeReserved')[0]
    hard = check.memo(eviction)[0]
    expected = {}
    if hard is not None:
        expected['memory'] = system.get('memory', Fraction(0)) + kube.get('memory', Fraction(0)) + hard
    for name in sorted(set(totals) | set(expected)):
        if name == 'memory' and hard is None:
            continue
        want = expected.get(name, Fraction(0))
        have = totals.get(name, Fraction(0))
        if want == have:
            continue
        if name == 'memory':
            detail = ('kubeReserved.memory %s + systemReserved.memory %s + hard eviction %s'
                      % (format_bytes(kube.get('memory', 0)), format_bytes(system.get('memory', 0)),
                         format_bytes(hard)))
            if config.get('evictionHard') is None:
                detail += ' (the kubelet default, evictionHard is not set)'
        else:
            detail = 'nothing: systemReserved and kubeReserved cannot reserve huge pages'
        check.refuse('reservedMemory: the "%s" reservations add up to %s across NUMA nodes, but the Static memory '
                     'manager requires exactly %s = %s; make the reserved_memory limits add up to %s'
                     % (name, format_bytes(have), format_bytes(want), detail, format_bytes(want)))
    if totals.get('memory', Fraction(0)) <= 0 and not check.refused('reservedMemory'):
        check.refuse('reservedMemory: the Static memory manager needs memory reserved for the system on at '
                     'least one NUMA node (reserved_memory: [{numaNode: 0, limits: {memory: ...}}])')


# Every rule, in the order its messages are reported. The name is what KubeletConfigError.rules and the
# real-kubelet agreement test (test_kubelet_upstream.py, which maps the kubelet's error text to these names) say.
RULES = (
    rule('kubelet-version', kubelet_version),
    rule('feature-gate-value', feature_gate_value),
    rule('feature-gate-known', feature_gate_known),
    rule('feature-gate-locked', feature_gate_locked, versioned=True),
    rule('cpu-manager-policy', choice('cpuManagerPolicy')),
    rule('topology-manager-policy', choice('topologyManagerPolicy')),
    rule('topology-manager-scope', choice('topologyManagerScope')),
    rule('memory-manager-policy', choice('memoryManagerPolicy',
                                         {'BestEffort': ' (BestEffort exists only on Windows nodes)'})),
    rule('cpu-manager-reconcile-period', reconcile_period),
    rule('reserved-system-cpus', reserved_cpus_list),
    rule('reserved-system-cpus-cgroups', reserved_cpus_cgroups),
    rule('reserved-resources', reserved_resources),
    rule('cpu-options-map-gate', _options_rule('cpuManagerPolicyOptions', options_map_gate), versioned=True),
    rule('cpu-option-known', _options_rule('cpuManagerPolicyOptions', option_known)),
    rule('cpu-option-value', _options_rule('cpuManagerPolicyOptions', option_value_rule)),
    rule('cpu-option-in-release', _options_rule('cpuManagerPolicyOptions', option_in_release), versioned=True),
    rule('cpu-option-maturity-gate', _options_rule('cpuManagerPolicyOptions', option_maturity_gate), versioned=True),
    rule('topology-options-map-gate', _options_rule('topologyManagerPolicyOptions', options_map_gate), versioned=True),
    rule('topology-option-known', _options_rule('topologyManagerPolicyOptions', option_known)),
    rule('topology-option-value', _options_rule('topologyManagerPolicyOptions', option_value_rule)),
    rule('topology-option-in-release', _options_rule('topologyManagerPolicyOptions', option_in_release), versioned=True),
    rule('topology-option-maturity-gate', _options_rule('topologyManagerPolicyOptions', option_maturity_gate), versioned=True),
    rule('none-policy-options', none_policy_options),
    rule('cpu-options-exclusive', cpu_options_exclusive),
    rule('align-by-socket-single-numa-node', align_by_socket_single_numa),
    rule('static-cpu-reservation', static_cpu_reservation),
    rule('reserved-memory', reserved_memory_entries),
    rule('memory-manager-gate', memory_manager_gate, versioned=True),
    rule('eviction-hard-memory', eviction_hard_memory),
    rule('static-memory-sum', static_memory_sum),
)
RULE_NAMES = tuple(r.name for r in RULES)


def validate(config, kubelet_version=None):
    """Validate a KubeletConfiguration (plain dict) the way the kubelet would before and at start-up.

    Returns a list of warnings; raises KubeletConfigError listing every problem found and the rule that found it.
    """
    check = Check(config, kubelet_version)
    for item in RULES:
        if item.applies(check.minor):
            check.current = item.name
            item.check(check)
    if check.errors:
        raise KubeletConfigError(check.errors, check.rules)
    return check.warnings
