# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kubelet rules per release (1.31-1.37), against facts read from each release's source by hand.

The expectations here are written out per release on purpose (not derived from the generated table), so a wrong
table or a wrong rule fails.
"""
from __future__ import annotations

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet as k
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet import releases as data

BASE = {'apiVersion': k.API_VERSION, 'kind': k.KIND}
STATIC = dict(cpuManagerPolicy='static', reservedSystemCPUs='0-1')
MINORS = [31, 32, 33, 34, 35, 36, 37, 38]


def cfg(**keys):
    config = dict(BASE)
    config.update(keys)
    return config


def errors_of(config, version):
    try:
        k.validate(config, version)
    except k.KubeletConfigError as err:
        return err.errors
    return []


def test_table_covers_1_31_to_1_38():
    assert data.RELEASES == ('1.31.14', '1.32.13', '1.33.13', '1.34.4', '1.35.4', '1.36.3', '1.37.2', '1.38.0-beta.0')
    assert (k.OLDEST_KNOWN_MINOR, k.NEWEST_KNOWN_MINOR) == (31, 38)
    assert sorted(data.RELEASE_RULES) == MINORS


# strict-cpu-reservation: alpha 1.32, beta 1.33-1.34, GA from 1.35 (no gate needed, even with the beta gate off).
STRICT = {31: 'missing', 32: 'alpha', 33: 'beta', 34: 'beta', 35: 'ga', 36: 'ga', 37: 'ga', 38: 'ga'}


@pytest.mark.parametrize('minor', MINORS)
def test_strict_cpu_reservation(minor):
    config = cfg(cpuManagerPolicyOptions={'strict-cpu-reservation': 'true'},
                 featureGates={'CPUManagerPolicyBetaOptions': False}, **STATIC)
    text = '\n'.join(errors_of(config, '1.%d' % minor))
    expected = STRICT[minor]
    if expected == 'missing':
        assert 'does not exist in kubelet 1.31 (it appeared in 1.32)' in text
    elif expected == 'alpha':
        assert 'is alpha in kubelet 1.32 and needs the CPUManagerPolicyAlphaOptions feature gate' in text
    elif expected == 'beta':
        assert 'is beta in kubelet 1.%d and needs the CPUManagerPolicyBetaOptions feature gate' % minor in text
    else:
        assert text == ''


# TopologyManagerPolicyOptions: beta in 1.31, GA but not locked 1.32-1.35 (false accepted), locked from 1.36.
TOPOLOGY_GATE_FALSE_OK = {31: True, 32: True, 33: True, 34: True, 35: True, 36: False, 37: False, 38: False}


@pytest.mark.parametrize('minor', MINORS)
def test_topology_options_gate_false(minor):
    text = '\n'.join(errors_of(cfg(featureGates={'TopologyManagerPolicyOptions': False}), '1.%d' % minor))
    if TOPOLOGY_GATE_FALSE_OK[minor]:
        assert text == ''
    else:
        assert 'featureGates.TopologyManagerPolicyOptions: false is refused by kubelet 1.%d, where the feature is GA ' \
               'and locked to true' % minor in text


# CPUManagerPolicyOptions: beta 1.31-1.32, GA and locked from 1.33 (server.go checks it only while it can be off).
@pytest.mark.parametrize('minor', MINORS)
def test_cpu_options_gate_false(minor):
    text = '\n'.join(errors_of(cfg(featureGates={'CPUManagerPolicyOptions': False}), '1.%d' % minor))
    if minor <= 32:
        assert text == ''
    else:
        assert 'false is refused by kubelet 1.%d, where the feature is GA and locked to true' % minor in text


@pytest.mark.parametrize('minor', MINORS)
@pytest.mark.parametrize('key,gate', [('cpuManagerPolicyOptions', 'CPUManagerPolicyOptions'),
                                      ('topologyManagerPolicyOptions', 'TopologyManagerPolicyOptions')])
def test_empty_options_map_with_its_gate_off(minor, key, gate):
    extra = STATIC if key == 'cpuManagerPolicyOptions' else {}
    text = '\n'.join(errors_of(cfg(featureGates={gate: False}, **dict(extra, **{key: {}})), '1.%d' % minor))
    locked_from = 33 if gate == 'CPUManagerPolicyOptions' else 36
    if minor < locked_from:
        assert 'the kubelet refuses any %s map without it, even an empty one' % key in text
    else:
        assert 'locked to true' in text


@pytest.mark.parametrize('minor', MINORS)
def test_empty_options_map_with_gate_on_is_fine(minor):
    assert errors_of(cfg(cpuManagerPolicyOptions={}, topologyManagerPolicyOptions={}, **STATIC), '1.%d' % minor) == []


@pytest.mark.parametrize('minor', MINORS)
def test_unknown_gate_did_you_mean(minor):
    text = '\n'.join(errors_of(cfg(featureGates={'TopologyManagerPolicyBetaOption': True}), '1.%d' % minor))
    assert 'kubelet 1.%d does not know this feature gate and refuses to start ("unrecognized feature gate: ' \
           'TopologyManagerPolicyBetaOption")' % minor in text
    assert 'did you mean "TopologyManagerPolicyBetaOptions"?' in text


@pytest.mark.parametrize('minor', MINORS)
def test_wrong_case_gate(minor):
    text = '\n'.join(errors_of(cfg(featureGates={'memoryqos': True}), '1.%d' % minor))
    assert 'did you mean "MemoryQoS"?' in text


@pytest.mark.parametrize('minor', MINORS)
def test_unknown_gate_without_near_name(minor):
    text = '\n'.join(errors_of(cfg(featureGates={'Zzzzzzzzzzzzzz': True}), '1.%d' % minor))
    assert 'check the spelling' in text and 'did you mean' not in text


# MemoryManager: beta 1.31, GA locked 1.32-1.35, removed in 1.36. CPUManager: GA locked 1.31-1.32, removed in 1.33.
REMOVED = [('MemoryManager', 36), ('CPUManager', 33)]


@pytest.mark.parametrize('minor', MINORS)
@pytest.mark.parametrize('gate,removed', REMOVED)
def test_removed_gate_names_the_release(minor, gate, removed):
    text = '\n'.join(errors_of(cfg(featureGates={gate: True}), '1.%d' % minor))
    if minor < removed:
        assert text == ''
    else:
        assert 'the gate was removed in kubelet 1.%d' % removed in text


def test_gate_not_yet_known():
    text = '\n'.join(errors_of(cfg(featureGates={'CRIListStreaming': True}), '1.35'))
    assert 'the gate exists only from kubelet 1.36' in text
    assert errors_of(cfg(featureGates={'CRIListStreaming': True}), '1.36') == []


def test_staging_gates_are_known():
    # client-go, component-base logs/metrics, apiserver and AllAlpha/AllBeta are registered by the kubelet too.
    gates = {'WatchListClient': True, 'LoggingBetaOptions': True, 'ContextualLogging': True, 'AllAlpha': False,
             'AllBeta': True, 'APIResponseCompression': True}
    for minor in MINORS:
        assert errors_of(cfg(featureGates=gates), '1.%d' % minor) == [], minor


@pytest.mark.parametrize('minor', MINORS)
def test_all_alpha_enables_alpha_options(minor):
    config = cfg(cpuManagerPolicyOptions={'distribute-cpus-across-cores': 'true'}, **STATIC)
    assert errors_of(config, '1.%d' % minor)
    config['featureGates'] = {'AllAlpha': True}
    assert errors_of(config, '1.%d' % minor) == []


def test_memory_manager_gate_check_only_where_the_gate_can_be_off():
    mem = dict(memoryManagerPolicy='Static', kubeReserved={'memory': '1Gi'},
               reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1124Mi'}}])
    assert '"Static" needs the MemoryManager feature gate' in '\n'.join(
        errors_of(cfg(featureGates={'MemoryManager': False}, **mem), '1.31'))
    for minor in MINORS:
        assert errors_of(cfg(**mem), '1.%d' % minor) == []


def test_newer_release_is_checked_as_the_newest_with_a_warning():
    warnings = k.validate(cfg(featureGates={'TopologyManagerPolicyOptions': True}), '1.40')
    assert warnings == ['kubelet_version "1.40" is newer than the newest release this module has data for '
                        '(1.38.0-beta.0); it is checked as kubelet 1.38 (regenerate the data with '
                        'scripts/gen_kubelet_releases.py for exact checks)']
    text = '\n'.join(errors_of(cfg(featureGates={'MemoryManager': True}), 'v1.39.0'))
    assert 'kubelet 1.38 does not know this feature gate' in text


def test_unknown_gate_without_version_only_warns():
    warnings = k.validate(cfg(featureGates={'CPUManagerPolicyAlphaOption': True}))
    assert len(warnings) == 1
    assert 'no kubelet from 1.31.14 to 1.38.0-beta.0 knows this feature gate (did you mean ' \
           '"CPUManagerPolicyAlphaOptions"?)' in warnings[0]
    assert k.validate(cfg(featureGates={'MemoryManager': True})) == []


# uncorecache: alpha 1.32-1.33, beta 1.34-1.35, GA from 1.36. distribute-cpus-across-numa: alpha 1.31-1.32, beta 1.33+.
@pytest.mark.parametrize('option,stages', [
    ('prefer-align-cpus-by-uncorecache', {31: None, 32: 'alpha', 33: 'alpha', 34: 'beta', 35: 'beta', 36: 'GA',
                                          37: 'GA', 38: 'GA'}),
    ('distribute-cpus-across-numa', {31: 'alpha', 32: 'alpha', 33: 'beta', 34: 'beta', 35: 'beta', 36: 'beta',
                                     37: 'beta', 38: 'beta'}),
    ('full-pcpus-only', {31: 'beta', 32: 'beta', 33: 'GA', 34: 'GA', 35: 'GA', 36: 'GA', 37: 'GA', 38: 'GA'}),
    ('align-by-socket', dict((m, 'alpha') for m in MINORS)),
])
def test_cpu_option_maturity(option, stages):
    for minor in MINORS:
        config = cfg(cpuManagerPolicyOptions={option: 'true'},
                     featureGates={'CPUManagerPolicyBetaOptions': False}, **STATIC)
        text = '\n'.join(errors_of(config, '1.%d' % minor))
        stage = stages[minor]
        if stage is None:
            assert 'does not exist in kubelet 1.%d' % minor in text
        elif stage == 'GA':
            assert text == '', (minor, text)
        else:
            assert 'is %s in kubelet 1.%d' % (stage, minor) in text, (minor, text)


@pytest.mark.parametrize('option,beta_until', [('max-allowable-numa-nodes', 34), ('prefer-closest-numa-nodes', 31)])
def test_topology_option_maturity(option, beta_until):
    for minor in MINORS:
        value = '16' if option == 'max-allowable-numa-nodes' else 'true'
        config = cfg(topologyManagerPolicyOptions={option: value},
                     featureGates={'TopologyManagerPolicyBetaOptions': False})
        text = '\n'.join(errors_of(config, '1.%d' % minor))
        if minor <= beta_until:
            assert 'is beta in kubelet 1.%d and needs the TopologyManagerPolicyBetaOptions' % minor in text
        else:
            assert text == '', (minor, text)


@pytest.mark.parametrize('value,reserved', [('0%', '1Gi'), ('100%', '1Gi'), ('5%', None)])
def test_ignored_eviction_percentages_count_as_zero(value, reserved):
    config = cfg(memoryManagerPolicy='Static', kubeReserved={'memory': '1Gi'}, evictionHard={'memory.available': value},
                 reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1Gi'}}])
    if reserved:
        assert k.validate(config, '1.33') == []
        config['reservedMemory'][0]['limits']['memory'] = '1124Mi'
        assert 'requires exactly 1Gi' in '\n'.join(errors_of(config, '1.33'))
    else:
        assert 'percentage' in k.validate(config)[0]


@pytest.mark.parametrize('name,near', [
    ('CPUManagerPolicyAlphaOption', ['CPUManagerPolicyAlphaOptions']),
    ('cpumanagerpolicyalphaoptions', ['CPUManagerPolicyAlphaOptions']),
    ('Nothing', []),
])
def test_near_names(name, near):
    assert k.near_names(name, data.FEATURE_GATES)[:1] == near


def test_what_1_38_changed():
    # gates the 1.38 beta removes (GA and locked since earlier releases), adds and promotes; the CPU and topology
    # manager options and the gates they need are the same as in 1.37 (docs/kubelet_config.md)
    assert k.gate_history('NodeSwap') == (31, 38)
    assert k.gate_history('InPlacePodVerticalScaling') == (31, 38)
    assert k.gate_spec('DynamicNodeLocalEphemeralVolumes', 38) == ('Alpha', False, False)
    assert k.gate_spec('DynamicNodeLocalEphemeralVolumes', 37) is None
    assert k.gate_spec('AtomicWriteVolumeUserFields', 38) == ('Beta', True, False)
    assert 'the gate was removed in kubelet 1.38' in '\n'.join(errors_of(cfg(featureGates={'NodeSwap': True}), '1.38'))
    assert errors_of(cfg(featureGates={'NodeSwap': True}), '1.37') == []
    for table in (k.CPU_OPTIONS, k.TOPOLOGY_OPTIONS):
        assert all(k.releases.level_at(steps, 38) == k.releases.level_at(steps, 37) for steps in table.values())
    assert data.RELEASE_RULES[38] == data.RELEASE_RULES[37]


def test_gate_history():
    assert k.gate_history('MemoryManager') == (31, 36)
    assert k.gate_history('CRIListStreaming') == (36, None)
    assert k.gate_history('NoSuchGate') == (None, None)
