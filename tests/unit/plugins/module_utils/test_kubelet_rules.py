# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The rule list of module_utils/kubelet/rules.py: each refused vector is refused by the one rule it is about, the
rules apply to the releases they say, a new rule is one function and one line, and the developer guide shows the
real code."""
from __future__ import annotations

import os
import re

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet as k
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet import rules
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.test_kubelet import INVALID, STATIC, cfg

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))

# The rule each refused vector of test_kubelet.py is about (the real-kubelet agreement test matches the kubelet's
# own reason to the same names).
RULE_OF = {
    'cpu policy case': 'cpu-manager-policy', 'cpu policy unknown': 'cpu-manager-policy',
    'topology policy': 'topology-manager-policy', 'topology scope': 'topology-manager-scope',
    'memory policy case': 'memory-manager-policy', 'memory policy none lowercase': 'memory-manager-policy',
    'memory BestEffort': 'memory-manager-policy',
    'unknown cpu option': 'cpu-option-known', 'cpu option not boolean': 'cpu-option-value',
    'cpu option unquoted in file': 'cpu-option-value',
    'options with none policy': 'none-policy-options', 'options with default policy': 'none-policy-options',
    'options with empty policy': 'none-policy-options',
    'full-pcpus-only + distribute-cpus-across-cores': 'cpu-options-exclusive',
    'distribute numa + cores': 'cpu-options-exclusive', 'uncorecache + cores': 'cpu-options-exclusive',
    'uncorecache + numa': 'cpu-options-exclusive',
    'align-by-socket + single-numa-node': 'align-by-socket-single-numa-node',
    'static without reservation': 'static-cpu-reservation', 'static with zero cpu reservation': 'static-cpu-reservation',
    'static with empty reservedSystemCPUs': 'static-cpu-reservation',
    'reservedSystemCPUs + systemReservedCgroup': 'reserved-system-cpus-cgroups',
    'reservedSystemCPUs + kubeReservedCgroup': 'reserved-system-cpus-cgroups',
    'reservedSystemCPUs + both cgroups': 'reserved-system-cpus-cgroups',
    'reservedSystemCPUs syntax': 'reserved-system-cpus', 'reservedSystemCPUs unquoted number': 'reserved-system-cpus',
    'unknown reserved resource': 'reserved-resources', 'negative reservation': 'reserved-resources',
    'bad quantity': 'reserved-resources', 'reservation not a string': 'reserved-resources',
    'reserved map not a dict': 'reserved-resources',
    'reconcile period': 'cpu-manager-reconcile-period', 'negative reconcile period': 'cpu-manager-reconcile-period',
    'Static memory sum wrong': 'static-memory-sum', 'Static memory without reservedMemory': 'static-memory-sum',
    'Static memory with nothing reserved at all': 'static-memory-sum',
    'Static memory ignores merged default only when set': 'static-memory-sum',
    'hugepages cannot be matched': 'static-memory-sum', 'eviction not a quantity': 'eviction-hard-memory',
    'merged default evictions before 1.33': 'static-memory-sum',
    'reservedMemory zero': 'reserved-memory', 'reservedMemory type': 'reserved-memory',
    'reservedMemory hugepages size': 'reserved-memory', 'reservedMemory duplicate': 'reserved-memory',
    'reservedMemory numa node': 'reserved-memory',
    'feature gate value': 'feature-gate-value', 'locked gate set false': 'feature-gate-locked',
    'MemoryManager locked': 'feature-gate-locked',
    'unknown gate, near name': 'feature-gate-known', 'removed gate': 'feature-gate-known',
    'alpha option without gate': 'cpu-option-maturity-gate', 'beta option with beta gate off': 'cpu-option-maturity-gate',
    'alpha then beta: strict in 1.32': 'cpu-option-maturity-gate',
    'option too new': 'cpu-option-in-release', 'cpu option too new': 'cpu-option-in-release',
    'options gate off': 'cpu-options-map-gate', 'empty cpu options map with its gate off': 'cpu-options-map-gate',
    'topology options gate off in 1.31': 'topology-options-map-gate',
    'topology beta option with beta gate off': 'topology-option-maturity-gate',
    'max-allowable-numa-nodes minimum': 'topology-option-value', 'max-allowable-numa-nodes integer': 'topology-option-value',
    'unknown topology option': 'topology-option-known',
    'MemoryManager gate off': 'memory-manager-gate',
    'bad kubelet version': 'kubelet-version', 'kubelet older than the data': 'kubelet-version',
}


def test_every_refused_vector_names_its_rule():
    assert sorted(RULE_OF) == sorted(case[0] for case in INVALID)
    assert set(RULE_OF.values()) <= set(rules.RULE_NAMES)


@pytest.mark.parametrize('name,config,version', [case[:3] for case in INVALID], ids=[case[0] for case in INVALID])
def test_a_refused_vector_is_refused_by_its_rule_alone(name, config, version):
    with pytest.raises(k.KubeletConfigError) as err:
        k.validate(config, version)
    assert len(err.value.rules) == len(err.value.errors)
    assert set(err.value.rules) == {RULE_OF[name]}


# Rules no release of the table can trigger yet, each tested below on a changed table instead.
NO_VECTOR = {'topology-option-in-release': 'every topology manager option of the table exists from its first release'}


def test_rule_names_are_unique_and_every_rule_is_refused_by_a_vector():
    assert len(set(rules.RULE_NAMES)) == len(rules.RULES)
    untested = set(rules.RULE_NAMES) - set(RULE_OF.values()) - set(NO_VECTOR)
    assert not untested, 'rules no refused vector of test_kubelet.py exercises: %s' % sorted(untested)


@pytest.mark.parametrize('since,until,versioned,minor,applies', [
    (None, None, False, None, True), (None, None, False, 31, True), (None, None, True, None, False),
    (None, None, True, 37, True), (38, None, False, 37, False), (38, None, False, 38, True),
    (38, None, False, 41, True), (None, 32, False, 33, False), (None, 32, False, 32, True),
    (38, None, False, None, True), (38, None, True, None, False),
])
def test_rule_releases(since, until, versioned, minor, applies):
    assert rules.rule('x', None, since=since, until=until, versioned=versioned).applies(minor) is applies


def test_a_new_rule_is_one_function_and_one_line(monkeypatch):
    def pod_scope_example(check):
        if check.memo(rules.policy, 'topologyManagerScope') == 'pod':
            check.refuse('topologyManagerScope: an example refusal')
    monkeypatch.setattr(rules, 'RULES', rules.RULES + (rules.rule('example', pod_scope_example, since=36),))
    with pytest.raises(k.KubeletConfigError) as err:
        k.validate(cfg(topologyManagerScope='pod', cpuManagerPolicy='Static', reservedSystemCPUs='0'), '1.37')
    assert err.value.rules == ['cpu-manager-policy', 'example']
    with pytest.raises(k.KubeletConfigError) as err:
        k.validate(cfg(topologyManagerScope='pod', cpuManagerPolicy='Static', reservedSystemCPUs='0'), '1.35')
    assert err.value.rules == ['cpu-manager-policy']
    assert k.validate(cfg(topologyManagerScope='container', **STATIC), '1.37') == []


def test_a_topology_option_too_new(monkeypatch):
    monkeypatch.setitem(k.TOPOLOGY_OPTIONS, 'prefer-closest-numa-nodes', ((31, None), (36, 'GA')))
    config = cfg(topologyManagerPolicyOptions={'prefer-closest-numa-nodes': 'true'})
    with pytest.raises(k.KubeletConfigError) as err:
        k.validate(config, '1.35')
    assert err.value.rules == ['topology-option-in-release']
    assert err.value.errors == ['topologyManagerPolicyOptions: option "prefer-closest-numa-nodes" does not exist in '
                                'kubelet 1.35 (it appeared in 1.36)']
    assert k.validate(config, '1.36') == []


@pytest.mark.parametrize('version,rules_named', [
    ('1.35', ['topology-options-map-gate']), ('1.36', ['feature-gate-locked']), ('1.38', ['feature-gate-locked'])])
def test_a_locked_gate_set_off_is_one_reason(version, rules_named):
    # TopologyManagerPolicyOptions can be off up to 1.35; from 1.36 it is locked on, the kubelet refuses the gate
    # itself and never gets to the options map
    config = cfg(topologyManagerPolicyOptions={'prefer-closest-numa-nodes': 'true'},
                 featureGates={'TopologyManagerPolicyOptions': False})
    with pytest.raises(k.KubeletConfigError) as err:
        k.validate(config, version)
    assert err.value.rules == rules_named


def test_errors_outside_the_rules_name_no_rule():
    with pytest.raises(k.KubeletConfigError) as err:
        k.requested_values({'cpu_manager_policy': 3})
    assert err.value.rules == [None]


def test_the_developer_guide_shows_the_real_code():
    with open(os.path.join(ROOT, 'docs', 'developer', 'kubelet_rules.md'), encoding='utf-8') as handle:
        page = handle.read()
    with open(os.path.join(ROOT, 'plugins', 'module_utils', 'kubelet', 'rules.py'), encoding='utf-8') as handle:
        code = handle.read()
    blocks = re.findall(r'```python\n(.*?)```', page, re.S)
    assert blocks
    for block in blocks:
        assert block in code, block
