# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Table-driven tests for the kubelet resource-manager rules and checkpoint decisions."""
from __future__ import annotations

from fractions import Fraction

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet as k

BASE = {'apiVersion': k.API_VERSION, 'kind': k.KIND}


def cfg(**keys):
    config = dict(BASE)
    config.update(keys)
    return config


STATIC = dict(cpuManagerPolicy='static', reservedSystemCPUs='0-1')
# Alpha CPU manager options allowed: a vector about an option combination then fails for that combination only.
ALPHA = dict(featureGates={'CPUManagerPolicyAlphaOptions': True})
MEM_OK = dict(memoryManagerPolicy='Static', kubeReserved={'memory': '512Mi'}, systemReserved={'memory': '512Mi'},
              reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1124Mi'}}])


# ----------------------------------------------------------------------------------------------
# Small parsers


@pytest.mark.parametrize('text,cpus', [
    ('', set()), ('0', {0}), ('0-3', {0, 1, 2, 3}), ('0-1,8', {0, 1, 8}), ('3,1,2', {1, 2, 3}), ('5-5', {5}),
])
def test_parse_cpuset(text, cpus):
    assert k.parse_cpuset(text) == frozenset(cpus)


@pytest.mark.parametrize('text,fragment', [
    ('3-1', 'invalid range "3-1" (3 > 1)'), ('0-', 'bad element "0-"'), ('a', 'bad element "a"'),
    ('0, 1', 'bad element " 1"'), ('-1', 'bad element "-1"'), ('0,,1', 'bad element ""'), ('1-2-3', 'bad element'),
    (3, 'is not a CPU list string'),
])
def test_parse_cpuset_errors(text, fragment):
    with pytest.raises(ValueError, match=None) as err:
        k.parse_cpuset(text)
    assert fragment in str(err.value)


@pytest.mark.parametrize('cpus,text', [(set(), ''), ({0}, '0'), ({0, 1, 2, 3, 8, 10, 11}, '0-3,8,10-11')])
def test_format_cpuset(cpus, text):
    assert k.format_cpuset(cpus) == text


@pytest.mark.parametrize('text,nanoseconds', [
    ('0', 0), ('10s', 10 ** 10), ('1m30s', 90 * 10 ** 9), ('1.5h', 5400 * 10 ** 9), ('500ms', 5 * 10 ** 8),
    ('1h0m0s', 3600 * 10 ** 9), ('-1s', -10 ** 9), ('2us', 2000), (u'2\u00b5s', 2000), ('.5s', 5 * 10 ** 8),
])
def test_parse_duration(text, nanoseconds):
    assert k.parse_duration(text) == nanoseconds


@pytest.mark.parametrize('text', ['', '10', 's', '10 s', '1d', '1.s5', 10, None])
def test_parse_duration_errors(text):
    with pytest.raises(ValueError):
        k.parse_duration(text)


@pytest.mark.parametrize('text,value', [
    ('true', True), ('True', True), ('TRUE', True), ('t', True), ('1', True),
    ('false', False), ('False', False), ('F', False), ('0', False),
])
def test_parse_go_bool(text, value):
    assert k.parse_go_bool(text) is value


@pytest.mark.parametrize('text', ['yes', 'on', 'tRuE', '', True, 1])
def test_parse_go_bool_errors(text):
    with pytest.raises(ValueError):
        k.parse_go_bool(text)


@pytest.mark.parametrize('text,minor', [('1.31', 31), ('v1.31.2', 31), ('1.33.0-eks-1234', 33), (' 1.40 ', 40)])
def test_parse_kubelet_version(text, minor):
    assert k.parse_kubelet_version(text) == minor


@pytest.mark.parametrize('text,fragment', [
    ('2.1', 'not a Kubernetes 1.x version'), ('1.30', 'older than the oldest'), ('1.3', 'quote it'),
    ('latest', 'not a Kubernetes 1.x version'),
])
def test_parse_kubelet_version_errors(text, fragment):
    with pytest.raises(ValueError) as err:
        k.parse_kubelet_version(text)
    assert fragment in str(err.value)


# ----------------------------------------------------------------------------------------------
# Validation: accepted configurations

VALID = [
    ('empty', cfg(), None),
    ('kubelet defaults spelled out', cfg(cpuManagerPolicy='none', topologyManagerPolicy='none',
                                         topologyManagerScope='container', memoryManagerPolicy='None'), '1.31'),
    ('static with reservedSystemCPUs', cfg(**STATIC), None),
    ('static with kubeReserved cpu', cfg(cpuManagerPolicy='static', kubeReserved={'cpu': '100m'}), None),
    ('static with systemReserved cpu', cfg(cpuManagerPolicy='static', systemReserved={'cpu': '1'}), None),
    ('static with both cpu reservations', cfg(cpuManagerPolicy='static', systemReserved={'cpu': '0'},
                                              kubeReserved={'cpu': '0.5'}), None),
    ('every topology policy and scope', cfg(topologyManagerPolicy='restricted', topologyManagerScope='pod'), None),
    ('best-effort', cfg(topologyManagerPolicy='best-effort'), None),
    ('single-numa-node', cfg(topologyManagerPolicy='single-numa-node'), None),
    ('GA option in 1.33 needs no gate', cfg(cpuManagerPolicyOptions={'full-pcpus-only': 'true'},
                                            featureGates={'CPUManagerPolicyBetaOptions': False}, **STATIC), '1.33'),
    ('beta option in 1.31 (beta gate on by default)',
     cfg(cpuManagerPolicyOptions={'full-pcpus-only': 'true'}, **STATIC), '1.31'),
    ('alpha option with its gate', cfg(cpuManagerPolicyOptions={'distribute-cpus-across-cores': 'true'},
                                       featureGates={'CPUManagerPolicyAlphaOptions': True}, **STATIC), '1.31'),
    ('strict-cpu-reservation beta in 1.33', cfg(cpuManagerPolicyOptions={'strict-cpu-reservation': 'true'},
                                                **STATIC), '1.33'),
    ('conflicting options both false', cfg(cpuManagerPolicyOptions={'full-pcpus-only': 'false',
                                                                    'distribute-cpus-across-cores': 'false'},
                                           **STATIC), None),
    ('one of a conflicting pair true', cfg(cpuManagerPolicyOptions={'full-pcpus-only': 'true',
                                                                    'distribute-cpus-across-cores': 'False'},
                                           **STATIC), None),
    ('Go boolean spellings', cfg(cpuManagerPolicyOptions={'full-pcpus-only': 'T', 'align-by-socket': '0'},
                                 **STATIC), None),
    ('align-by-socket with restricted', cfg(cpuManagerPolicyOptions={'align-by-socket': 'true'},
                                            topologyManagerPolicy='restricted', **STATIC), None),
    ('topology options', cfg(topologyManagerPolicyOptions={'prefer-closest-numa-nodes': 'true',
                                                           'max-allowable-numa-nodes': '16'}), '1.35'),
    ('topology options on none policy', cfg(topologyManagerPolicyOptions={'prefer-closest-numa-nodes': 'true'}),
     '1.32'),
    ('memory Static, default eviction 100Mi', cfg(**MEM_OK), '1.31'),
    ('memory Static split over two NUMA nodes',
     cfg(memoryManagerPolicy='Static', systemReserved={'memory': '1Gi'},
         reservedMemory=[{'numaNode': 0, 'limits': {'memory': '562Mi'}},
                         {'numaNode': 1, 'limits': {'memory': '562Mi'}}]), None),
    ('memory Static with explicit eviction',
     cfg(memoryManagerPolicy='Static', kubeReserved={'memory': '1Gi'}, evictionHard={'memory.available': '500Mi'},
         reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1524Mi'}}]), None),
    ('memory Static, evictionHard without memory: 0',
     cfg(memoryManagerPolicy='Static', kubeReserved={'memory': '1Gi'}, evictionHard={'nodefs.available': '10%'},
         reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1Gi'}}]), None),
    ('memory Static, evictionHard without memory, merged defaults',
     cfg(memoryManagerPolicy='Static', kubeReserved={'memory': '1Gi'}, evictionHard={'nodefs.available': '10%'},
         mergeDefaultEvictionSettings=True, reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1124Mi'}}]), None),
    ('memory Static, same amount spelled differently',
     cfg(memoryManagerPolicy='Static', kubeReserved={'memory': '924Mi'},
         reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1073741824'}}]), None),
    ('reservedMemory ignored by None policy', cfg(reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1Gi'}}]),
     None),
    ('reservedSystemCPUs with static and unrelated cgroup keys', cfg(kubeletCgroups='/kube.slice', **STATIC), None),
    ('empty cgroup strings', cfg(systemReservedCgroup='', kubeReservedCgroup='', **STATIC), None),
    ('reconcile period', cfg(cpuManagerReconcilePeriod='5s'), None),
    ('kubeadm 0s reconcile period', cfg(cpuManagerReconcilePeriod='0s'), None),
    ('reservations of every kind', cfg(systemReserved={'cpu': '500m', 'memory': '1Gi', 'ephemeral-storage': '1Gi',
                                                       'pid': '1000'}), None),
    ('CPUManagerPolicyOptions gate on by default in 1.31', cfg(cpuManagerPolicyOptions={'full-pcpus-only': 'true'},
                                                               **STATIC), '1.31'),
    # SetDefaults_KubeletConfiguration gives an empty policy/scope its default, as for a missing key.
    ('empty policies and scope mean the defaults', cfg(cpuManagerPolicy='', topologyManagerPolicy='',
                                                       topologyManagerScope='', memoryManagerPolicy=''), '1.31'),
    ('empty cpuManagerPolicy', cfg(cpuManagerPolicy=''), None),
    ('empty topologyManagerPolicy', cfg(topologyManagerPolicy=''), None),
    ('empty topologyManagerScope', cfg(topologyManagerScope=''), None),
    ('empty memoryManagerPolicy with reservedMemory', cfg(memoryManagerPolicy='',
                                                          reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1Gi'}}]),
     None),
    ('null policies (a YAML key without a value)', cfg(cpuManagerPolicy=None, topologyManagerPolicy=None,
                                                       topologyManagerScope=None, memoryManagerPolicy=None), None),
    ('empty topology policy and scope with an option',
     cfg(topologyManagerPolicy='', topologyManagerScope='',
         topologyManagerPolicyOptions={'prefer-closest-numa-nodes': 'true'}), '1.32'),
]


@pytest.mark.parametrize('name,config,version', VALID, ids=[case[0] for case in VALID])
def test_valid(name, config, version):
    assert k.validate(config, version) == []


def test_percentage_eviction_only_warns():
    config = cfg(memoryManagerPolicy='Static', kubeReserved={'memory': '1Gi'},
                 evictionHard={'memory.available': '5%'}, reservedMemory=[{'numaNode': 0, 'limits': {'memory': '2Gi'}}])
    warnings = k.validate(config)
    assert len(warnings) == 1 and 'percentage' in warnings[0]


# ----------------------------------------------------------------------------------------------
# Validation: refused configurations (each names the field, the value and what is allowed)

INVALID = [
    ('cpu policy case', cfg(cpuManagerPolicy='Static', reservedSystemCPUs='0'), None,
     ['cpuManagerPolicy: "Static" is not allowed (allowed: none, static)', 'did you mean "static"']),
    ('cpu policy unknown', cfg(cpuManagerPolicy='dynamic'), None, ['cpuManagerPolicy: "dynamic" is not allowed']),
    ('topology policy', cfg(topologyManagerPolicy='single-numa'), None,
     ['topologyManagerPolicy: "single-numa" is not allowed (allowed: none, best-effort, restricted, single-numa-node)']),
    ('topology scope', cfg(topologyManagerScope='node'), None,
     ['topologyManagerScope: "node" is not allowed (allowed: container, pod)']),
    ('memory policy case', cfg(memoryManagerPolicy='static'), None,
     ['memoryManagerPolicy: "static" is not allowed (allowed: None, Static)', 'did you mean "Static"']),
    ('memory policy none lowercase', cfg(memoryManagerPolicy='none'), None, ['did you mean "None"']),
    ('memory BestEffort', cfg(memoryManagerPolicy='BestEffort'), None, ['only on Windows']),
    ('unknown cpu option', cfg(cpuManagerPolicyOptions={'full-cpus-only': 'true'}, **STATIC), None,
     ['cpuManagerPolicyOptions: unknown option "full-cpus-only" (allowed: align-by-socket, distribute-cpus-across-cores']),
    ('cpu option not boolean', cfg(cpuManagerPolicyOptions={'full-pcpus-only': 'yes'}, **STATIC), None,
     ['cpuManagerPolicyOptions.full-pcpus-only: "yes" is not a boolean string']),
    ('cpu option unquoted in file', cfg(cpuManagerPolicyOptions={'full-pcpus-only': True}, **STATIC), None,
     ['cpuManagerPolicyOptions.full-pcpus-only: True must be a quoted string']),
    ('options with none policy', cfg(cpuManagerPolicy='none', cpuManagerPolicyOptions={'full-pcpus-only': 'true'}),
     None, ['cpuManagerPolicyOptions: {"full-pcpus-only": "true"} set while cpuManagerPolicy is "none";']),
    ('options with default policy', cfg(cpuManagerPolicyOptions={'full-pcpus-only': 'true'}), None,
     ['set while cpuManagerPolicy is not set (the default, "none")', 'None policy: received unsupported options']),
    ('options with empty policy', cfg(cpuManagerPolicy='', cpuManagerPolicyOptions={'full-pcpus-only': 'true'}),
     None, ['set while cpuManagerPolicy is "" (the default, "none")']),
    ('full-pcpus-only + distribute-cpus-across-cores',
     cfg(cpuManagerPolicyOptions={'full-pcpus-only': 'true', 'distribute-cpus-across-cores': 'true'}, **ALPHA, **STATIC),
     None,
     ['"full-pcpus-only" and "distribute-cpus-across-cores" cannot both be true']),
    ('distribute numa + cores',
     cfg(cpuManagerPolicyOptions={'distribute-cpus-across-numa': 'true', 'distribute-cpus-across-cores': '1'},
         **ALPHA, **STATIC), None, ['"distribute-cpus-across-numa" and "distribute-cpus-across-cores" cannot both be true']),
    ('uncorecache + cores',
     cfg(cpuManagerPolicyOptions={'prefer-align-cpus-by-uncorecache': 'true', 'distribute-cpus-across-cores': 'true'},
         **ALPHA, **STATIC), None, ['"prefer-align-cpus-by-uncorecache" and "distribute-cpus-across-cores"']),
    ('uncorecache + numa',
     cfg(cpuManagerPolicyOptions={'prefer-align-cpus-by-uncorecache': 'true', 'distribute-cpus-across-numa': 'true'},
         **ALPHA, **STATIC), None, ['"prefer-align-cpus-by-uncorecache" and "distribute-cpus-across-numa"']),
    ('align-by-socket + single-numa-node',
     cfg(cpuManagerPolicyOptions={'align-by-socket': 'true'}, topologyManagerPolicy='single-numa-node', **ALPHA,
         **STATIC), None, ['"align-by-socket" cannot be used with topologyManagerPolicy "single-numa-node"']),
    ('static without reservation', cfg(cpuManagerPolicy='static'), None,
     ['cpuManagerPolicy: "static" needs a CPU reservation greater than zero']),
    ('static with zero cpu reservation', cfg(cpuManagerPolicy='static', kubeReserved={'cpu': '0', 'memory': '1Gi'},
                                             systemReserved={'cpu': '0m'}), None,
     ['needs a CPU reservation greater than zero']),
    ('static with empty reservedSystemCPUs', cfg(cpuManagerPolicy='static', reservedSystemCPUs=''), None,
     ['needs a CPU reservation greater than zero']),
    ('reservedSystemCPUs + systemReservedCgroup', cfg(systemReservedCgroup='/system.slice', **STATIC), None,
     ['reservedSystemCPUs: "0-1" cannot be combined with systemReservedCgroup "/system.slice" (',
      'remove systemReservedCgroup from the file, or set reserved_system_cpus: ""']),
    ('reservedSystemCPUs + kubeReservedCgroup', cfg(kubeReservedCgroup='/kube.slice', cpuManagerPolicy='static',
                                                    reservedSystemCPUs='0,32'), None,
     ['reservedSystemCPUs: "0,32" cannot be combined with kubeReservedCgroup "/kube.slice" (']),
    ('reservedSystemCPUs + both cgroups', cfg(systemReservedCgroup='/system.slice', kubeReservedCgroup='/kube.slice',
                                              **STATIC), None,
     ['reservedSystemCPUs: "0-1" cannot be combined with systemReservedCgroup "/system.slice" and kubeReservedCgroup '
      '"/kube.slice" (', 'remove systemReservedCgroup and kubeReservedCgroup from the file']),
    ('reservedSystemCPUs syntax', cfg(cpuManagerPolicy='static', reservedSystemCPUs='0-1;4'), None,
     ['reservedSystemCPUs: "0-1;4" is not a CPU list']),
    ('reservedSystemCPUs unquoted number', cfg(cpuManagerPolicy='static', reservedSystemCPUs=2), None,
     ['reservedSystemCPUs: 2 is not a CPU list string']),
    ('unknown reserved resource', cfg(systemReserved={'gpu': '1'}), None,
     ['systemReserved.gpu: the kubelet cannot reserve resource "gpu" (allowed: cpu, memory, ephemeral-storage, pid)']),
    ('negative reservation', cfg(kubeReserved={'memory': '-1Gi'}), None, ['kubeReserved.memory: "-1Gi" is negative']),
    ('bad quantity', cfg(kubeReserved={'cpu': '1 core'}), None, ['kubeReserved.cpu: invalid quantity']),
    ('reservation not a string', cfg(systemReserved={'pid': 1000}), None,
     ['systemReserved.pid: 1000 must be a quoted string']),
    ('reserved map not a dict', cfg(systemReserved='cpu=1'), None, ['systemReserved: "cpu=1" is not a dictionary']),
    ('reconcile period', cfg(cpuManagerReconcilePeriod='10'), None,
     ['cpuManagerReconcilePeriod: "10" is not a duration']),
    ('negative reconcile period', cfg(cpuManagerReconcilePeriod='-5s'), None,
     ['cpuManagerReconcilePeriod: "-5s" is negative']),
    ('Static memory sum wrong', cfg(memoryManagerPolicy='Static', kubeReserved={'memory': '512Mi'},
                                    systemReserved={'memory': '512Mi'},
                                    reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1Gi'}}]), None,
     ['reservedMemory: the "memory" reservations add up to 1Gi across NUMA nodes, but the Static memory manager '
      'requires exactly 1124Mi = kubeReserved.memory 512Mi + systemReserved.memory 512Mi + hard eviction 100Mi '
      '(the kubelet default, evictionHard is not set)']),
    ('Static memory without reservedMemory', cfg(memoryManagerPolicy='Static'), None,
     ['the "memory" reservations add up to 0 across NUMA nodes, but the Static memory manager requires exactly '
      '100Mi']),
    ('Static memory with nothing reserved at all', cfg(memoryManagerPolicy='Static', evictionHard={}), None,
     ['needs memory reserved for the system']),
    ('Static memory ignores merged default only when set',
     cfg(memoryManagerPolicy='Static', kubeReserved={'memory': '1Gi'}, evictionHard={'nodefs.available': '10%'},
         reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1124Mi'}}]), None,
     ['requires exactly 1Gi']),
    ('hugepages cannot be matched', cfg(memoryManagerPolicy='Static', systemReserved={'memory': '924Mi'},
                                        reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1Gi',
                                                                                   'hugepages-1Gi': '1Gi'}}]), None,
     ['the "hugepages-1Gi" reservations add up to 1Gi', 'systemReserved and kubeReserved cannot reserve huge pages']),
    ('reservedMemory zero', cfg(reservedMemory=[{'numaNode': 0, 'limits': {'memory': '0'}}]), None,
     ['reservedMemory[0].limits.memory: reserved memory may not be zero for NUMA node 0']),
    ('reservedMemory type', cfg(reservedMemory=[{'numaNode': 1, 'limits': {'cpu': '1'}}]), None,
     ['the limit type "cpu" for NUMA node 1 is not supported (allowed: memory, hugepages-<size>)']),
    ('reservedMemory hugepages size', cfg(reservedMemory=[{'numaNode': 1, 'limits': {'hugepages-huge': '1'}}]), None,
     ['"hugepages-huge" does not name a huge page size']),
    ('reservedMemory duplicate', cfg(reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1Gi'}},
                                                     {'numaNode': 0, 'limits': {'memory': '1Gi'}}]), None,
     ['reservedMemory[1]: duplicate reservation for NUMA node 0 and "memory"']),
    ('reservedMemory numa node', cfg(reservedMemory=[{'numaNode': -1, 'limits': {'memory': '1Gi'}}]), None,
     ['reservedMemory[0].numaNode: -1 is not a NUMA node number']),
    ('eviction not a quantity', cfg(memoryManagerPolicy='Static', evictionHard={'memory.available': 'lots'},
                                    reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1Gi'}}]), None,
     ['evictionHard.memory.available: invalid quantity']),
    ('feature gate value', cfg(featureGates={'CPUManagerPolicyAlphaOptions': 'true'}), None,
     ['featureGates.CPUManagerPolicyAlphaOptions: "true" is not true or false']),
    ('alpha option without gate', cfg(cpuManagerPolicyOptions={'align-by-socket': 'true'}, **STATIC), '1.31',
     ['option "align-by-socket" is alpha in kubelet 1.31 and needs the CPUManagerPolicyAlphaOptions feature gate',
      'set feature_gates: {CPUManagerPolicyAlphaOptions: true}']),
    ('beta option with beta gate off', cfg(cpuManagerPolicyOptions={'full-pcpus-only': 'true'},
                                           featureGates={'CPUManagerPolicyBetaOptions': False}, **STATIC), '1.32',
     ['option "full-pcpus-only" is beta in kubelet 1.32 and needs the CPUManagerPolicyBetaOptions feature gate']),
    ('alpha then beta: strict in 1.32', cfg(cpuManagerPolicyOptions={'strict-cpu-reservation': 'true'}, **STATIC),
     '1.32', ['option "strict-cpu-reservation" is alpha in kubelet 1.32']),
    ('option too new', cfg(cpuManagerPolicyOptions={'strict-cpu-reservation': 'true'}, **STATIC), '1.31',
     ['option "strict-cpu-reservation" does not exist in kubelet 1.31 (it appeared in 1.32)']),
    ('options gate off', cfg(cpuManagerPolicyOptions={'full-pcpus-only': 'true'},
                             featureGates={'CPUManagerPolicyOptions': False}, **STATIC), '1.32',
     ['cpuManagerPolicyOptions: policy options {"full-pcpus-only": "true"} need the CPUManagerPolicyOptions feature '
      'gate, which is off in kubelet 1.32']),
    ('locked gate set false', cfg(featureGates={'CPUManagerPolicyOptions': False}), '1.33',
     ['featureGates.CPUManagerPolicyOptions: false is refused by kubelet 1.33']),
    ('cpu option too new', cfg(cpuManagerPolicyOptions={'prefer-align-cpus-by-uncorecache': 'true'}, **STATIC),
     '1.31', ['option "prefer-align-cpus-by-uncorecache" does not exist in kubelet 1.31 (it appeared in 1.32)']),
    ('topology options gate off in 1.31', cfg(topologyManagerPolicyOptions={'prefer-closest-numa-nodes': 'true'},
                                              featureGates={'TopologyManagerPolicyOptions': False}),
     '1.31', ['topologyManagerPolicyOptions: policy options {"prefer-closest-numa-nodes": "true"} need the '
              'TopologyManagerPolicyOptions feature gate, which is off in kubelet 1.31']),
    ('topology beta option with beta gate off', cfg(topologyManagerPolicyOptions={'max-allowable-numa-nodes': '16'},
                                                    featureGates={'TopologyManagerPolicyBetaOptions': False}),
     '1.34', ['option "max-allowable-numa-nodes" is beta in kubelet 1.34 and needs the '
              'TopologyManagerPolicyBetaOptions feature gate']),
    ('max-allowable-numa-nodes minimum', cfg(topologyManagerPolicyOptions={'max-allowable-numa-nodes': '4'}), None,
     ['max-allowable-numa-nodes: "4" is below the minimum the kubelet accepts (8)']),
    ('max-allowable-numa-nodes integer', cfg(topologyManagerPolicyOptions={'max-allowable-numa-nodes': 'many'}), None,
     ['max-allowable-numa-nodes: "many" is not a whole number']),
    ('unknown topology option', cfg(topologyManagerPolicyOptions={'prefer-closest': 'true'}), None,
     ['topologyManagerPolicyOptions: unknown option "prefer-closest" (allowed: max-allowable-numa-nodes, '
      'prefer-closest-numa-nodes)']),
    ('MemoryManager gate off', cfg(featureGates={'MemoryManager': False}, **MEM_OK), '1.31',
     ['"Static" needs the MemoryManager feature gate']),
    ('merged default evictions before 1.33',
     cfg(memoryManagerPolicy='Static', kubeReserved={'memory': '1Gi'}, evictionHard={'nodefs.available': '10%'},
         mergeDefaultEvictionSettings=True, reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1124Mi'}}]), '1.32',
     ['hard eviction 0']),
    ('MemoryManager locked', cfg(featureGates={'MemoryManager': False}, **MEM_OK), '1.32',
     ['featureGates.MemoryManager: false is refused by kubelet 1.32']),
    ('bad kubelet version', cfg(), 'v2', ['kubelet_version "v2" is not a Kubernetes 1.x version']),
    ('kubelet older than the data', cfg(), '1.30', ['kubelet_version "1.30" is older than the oldest']),
    ('unknown gate, near name', cfg(featureGates={'CPUManagerPolicyAlphaOption': True}), '1.33',
     ['featureGates.CPUManagerPolicyAlphaOption: kubelet 1.33 does not know this feature gate',
      'did you mean "CPUManagerPolicyAlphaOptions"?']),
    ('removed gate', cfg(featureGates={'MemoryManager': True}), '1.36',
     ['featureGates.MemoryManager: kubelet 1.36 does not know this feature gate',
      'the gate was removed in kubelet 1.36']),
    ('empty cpu options map with its gate off',
     cfg(cpuManagerPolicyOptions={}, featureGates={'CPUManagerPolicyOptions': False}, **STATIC), '1.32',
     ['the kubelet refuses any cpuManagerPolicyOptions map without it, even an empty one',
      'or remove the key (cpu_manager_policy_options: {})']),
]


@pytest.mark.parametrize('name,config,version,fragments', INVALID, ids=[case[0] for case in INVALID])
def test_invalid(name, config, version, fragments):
    with pytest.raises(k.KubeletConfigError) as err:
        k.validate(config, version)
    text = '\n'.join(err.value.errors)
    for fragment in fragments:
        assert fragment in text


def test_an_option_too_new_is_one_error():
    with pytest.raises(k.KubeletConfigError) as err:
        k.validate(cfg(cpuManagerPolicyOptions={'strict-cpu-reservation': 'true'}, **STATIC), '1.31')
    assert len(err.value.errors) == 1


def test_empty_choices_add_no_error_of_their_own():
    with pytest.raises(k.KubeletConfigError) as err:
        k.validate(cfg(cpuManagerPolicy='static', topologyManagerPolicy='', topologyManagerScope='',
                       memoryManagerPolicy=''))
    assert len(err.value.errors) == 1 and 'needs a CPU reservation' in err.value.errors[0]


def test_every_problem_is_reported_at_once():
    with pytest.raises(k.KubeletConfigError) as err:
        k.validate(cfg(cpuManagerPolicy='Static', topologyManagerScope='node', memoryManagerPolicy='static'))
    assert len(err.value.errors) == 3


# ----------------------------------------------------------------------------------------------
# Requested values

def test_requested_values_normalises():
    wanted = k.requested_values(dict(
        cpu_manager_policy='static', cpu_manager_policy_options={'full-pcpus-only': True, 'align-by-socket': 'false'},
        topology_manager_policy_options={'max-allowable-numa-nodes': 16}, system_reserved={'pid': 1000, 'cpu': '1'},
        reserved_memory=[{'numaNode': '0', 'limits': {'memory': 1073741824}}],
        feature_gates={'A': 'True', 'B': False, 'C': None}, reserved_system_cpus='', kube_reserved={},
        memory_manager_policy=None))
    assert wanted == {
        'cpuManagerPolicy': 'static',
        'cpuManagerPolicyOptions': {'full-pcpus-only': 'true', 'align-by-socket': 'false'},
        'topologyManagerPolicyOptions': {'max-allowable-numa-nodes': '16'},
        'systemReserved': {'pid': '1000', 'cpu': '1'},
        'reservedMemory': [{'numaNode': 0, 'limits': {'memory': '1073741824'}}],
        'featureGates': {'A': True, 'B': False, 'C': None},
        'reservedSystemCPUs': k.REMOVE,
        'kubeReserved': k.REMOVE,
    }


@pytest.mark.parametrize('params,fragment', [
    (dict(cpu_manager_policy_options=['full-pcpus-only']), 'cpu_manager_policy_options: ["full-pcpus-only"] is not a dictionary'),
    (dict(cpu_manager_policy_options={'full-pcpus-only': [1]}), 'cpu_manager_policy_options.full-pcpus-only: [1]'),
    (dict(system_reserved={'cpu': True}), 'system_reserved.cpu: True is not a quantity'),
    (dict(reserved_memory=[{'numaNode': 0}]), 'reserved_memory[0].limits: None is not a non-empty dictionary'),
    (dict(reserved_memory=[{'numaNode': 'x', 'limits': {'memory': '1Gi'}}]), 'reserved_memory[0].numaNode: "x"'),
    (dict(reserved_memory=[{'node': 0, 'limits': {'memory': '1Gi'}}]), 'unknown field(s) node'),
    (dict(reserved_memory={'numaNode': 0}), 'reserved_memory: {"numaNode": 0} is not a list'),
    (dict(feature_gates={'X': 'yes'}), 'feature_gates.X: "yes" is not true or false'),
    (dict(cpu_manager_policy=1), 'cpu_manager_policy: 1 is not a string'),
    # "" removes string keys only; the action plugin refuses it for these options before (empty_string_errors).
    (dict(system_reserved=''), 'system_reserved: "" is not a dictionary'),
    (dict(reserved_memory=''), 'reserved_memory: "" is not a list'),
])
def test_requested_values_errors(params, fragment):
    with pytest.raises(k.KubeletConfigError) as err:
        k.requested_values(params)
    assert fragment in str(err.value)


def test_empty_string_errors_for_dict_and_list_options():
    args = dict(path='/etc/kubernetes/kubelet-config.yaml', cpu_manager_policy='', reserved_system_cpus='',
                system_reserved='', kube_reserved={}, feature_gates='', reserved_memory='',
                cpu_manager_policy_options='', topology_manager_policy_options='')
    errors = k.empty_string_errors(args)
    assert errors == [
        'cpu_manager_policy_options: "" is not a dictionary; to remove cpuManagerPolicyOptions from the file use '
        'cpu_manager_policy_options: {} ("" removes only the string-valued keys, such as cpu_manager_policy)',
        'system_reserved: "" is not a dictionary; to remove systemReserved from the file use system_reserved: {} '
        '("" removes only the string-valued keys, such as cpu_manager_policy)',
        'topology_manager_policy_options: "" is not a dictionary; to remove topologyManagerPolicyOptions from the '
        'file use topology_manager_policy_options: {} ("" removes only the string-valued keys, such as '
        'cpu_manager_policy)',
        'reserved_memory: "" is not a list; to remove reservedMemory from the file use reserved_memory: [] '
        '("" removes only the string-valued keys, such as cpu_manager_policy)',
        'feature_gates: "" is not a dictionary; to remove featureGates from the file use feature_gates: {} '
        '("" removes only the string-valued keys, such as cpu_manager_policy)',
    ]
    assert k.empty_string_errors(dict(cpu_manager_policy='', system_reserved={}, reserved_memory=[])) == []


def test_empty_values_remove_keys_of_every_type():
    current = cfg(cpuManagerPolicy='static', reservedSystemCPUs='0-1', cpuManagerReconcilePeriod='5s',
                  topologyManagerPolicy='restricted', topologyManagerScope='pod', memoryManagerPolicy='Static',
                  cpuManagerPolicyOptions={'full-pcpus-only': 'true'},
                  topologyManagerPolicyOptions={'prefer-closest-numa-nodes': 'true'},
                  systemReserved={'memory': '1Gi'}, kubeReserved={'cpu': '1'}, featureGates={'A': True},
                  reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1Gi'}}], maxPods=110)
    params = dict((option, '') for option in ('cpu_manager_policy', 'reserved_system_cpus',
                                              'cpu_manager_reconcile_period', 'topology_manager_policy',
                                              'topology_manager_scope', 'memory_manager_policy'))
    params.update(cpu_manager_policy_options={}, topology_manager_policy_options={}, system_reserved={},
                  kube_reserved={}, feature_gates={}, reserved_memory=[])
    new, fields = k.plan_values(current, k.requested_values(params))
    assert new == cfg(maxPods=110)
    assert fields == list(k.MANAGED_KEYS)


def test_plain_value_strips_subclasses():
    class Tagged(str):
        pass

    value = k.plain_value({Tagged('a'): [Tagged('b'), True, 1]})
    assert value == {'a': ['b', True, 1]}
    assert list(value)[0].__class__ is str and value['a'][0].__class__ is str


# ----------------------------------------------------------------------------------------------
# Planning: only real changes count

PLANS = [
    ('same value', cfg(cpuManagerPolicy='static'), dict(cpu_manager_policy='static'), []),
    ('new value', cfg(cpuManagerPolicy='none'), dict(cpu_manager_policy='static'), ['cpuManagerPolicy']),
    ('added', cfg(), dict(topology_manager_scope='pod'), ['topologyManagerScope']),
    ('removed', cfg(topologyManagerScope='pod'), dict(topology_manager_scope=''), ['topologyManagerScope']),
    ('removing an absent key', cfg(), dict(topology_manager_scope='', kube_reserved={}), []),
    ('same cpuset spelled differently', cfg(reservedSystemCPUs='0,1,2,3'), dict(reserved_system_cpus='0-3'), []),
    ('same duration', cfg(cpuManagerReconcilePeriod='10s'), dict(cpu_manager_reconcile_period='0m10s'), []),
    ('same quantities', cfg(systemReserved={'memory': '1Gi', 'cpu': '500m'}),
     dict(system_reserved={'cpu': '0.5', 'memory': '1024Mi'}), []),
    ('extra entry removed', cfg(systemReserved={'memory': '1Gi', 'cpu': '500m'}),
     dict(system_reserved={'cpu': '500m'}), ['systemReserved']),
    ('same option booleans', cfg(cpuManagerPolicyOptions={'full-pcpus-only': 'True'}),
     dict(cpu_manager_policy_options={'full-pcpus-only': True}), []),
    ('option flipped', cfg(cpuManagerPolicyOptions={'full-pcpus-only': 'true'}),
     dict(cpu_manager_policy_options={'full-pcpus-only': False}), ['cpuManagerPolicyOptions']),
    ('unquoted option in file is rewritten', cfg(cpuManagerPolicyOptions={'full-pcpus-only': True}),
     dict(cpu_manager_policy_options={'full-pcpus-only': True}), ['cpuManagerPolicyOptions']),
    ('same reservedMemory reordered', cfg(reservedMemory=[{'numaNode': 1, 'limits': {'memory': '1Gi'}},
                                                          {'numaNode': 0, 'limits': {'memory': '512Mi'}}]),
     dict(reserved_memory=[{'numaNode': 0, 'limits': {'memory': '536870912'}},
                           {'numaNode': 1, 'limits': {'memory': '1Gi'}}]), []),
    ('gate merged', cfg(featureGates={'Other': True}), dict(feature_gates={'CPUManagerPolicyAlphaOptions': True}),
     ['featureGates']),
    ('gate already set', cfg(featureGates={'Other': True, 'X': False}), dict(feature_gates={'X': False}), []),
    ('last gate dropped removes the key', cfg(featureGates={'X': True}), dict(feature_gates={'X': None}),
     ['featureGates']),
    ('dropping an absent gate', cfg(), dict(feature_gates={'X': None}), []),
    ('order of changed fields', cfg(), dict(feature_gates={'X': True}, cpu_manager_policy='static',
                                            reserved_system_cpus='1'),
     ['cpuManagerPolicy', 'reservedSystemCPUs', 'featureGates']),
]


@pytest.mark.parametrize('name,current,params,changed', PLANS, ids=[case[0] for case in PLANS])
def test_plan_values(name, current, params, changed):
    new, fields = k.plan_values(current, k.requested_values(params))
    assert fields == changed
    if not changed:
        assert new == current


def test_plan_keeps_file_spelling_of_equal_entries():
    new, fields = k.plan_values(cfg(systemReserved={'memory': '1Gi', 'cpu': '1'}),
                                k.requested_values(dict(system_reserved={'memory': '1024Mi', 'cpu': '2'})))
    assert fields == ['systemReserved'] and new['systemReserved'] == {'memory': '1Gi', 'cpu': '2'}


def test_plan_feature_gates():
    new, _fields = k.plan_values(cfg(featureGates={'A': True, 'B': True}),
                                 k.requested_values(dict(feature_gates={'B': None, 'C': False})))
    assert new['featureGates'] == {'A': True, 'C': False}
    new, _fields = k.plan_values(cfg(featureGates={'A': True}), k.requested_values(dict(feature_gates={'A': None})))
    assert 'featureGates' not in new


# ----------------------------------------------------------------------------------------------
# Checkpoint files

CPU_NONE = '{"policyName":"none","defaultCpuSet":"","checksum":1353318690}'
# as the kubelet writes it with reservedSystemCPUs 0-1 (STATIC): the reserved CPUs are in the shared pool
CPU_STATIC = k.checkpoint_text('cpu', {'policyName': 'static', 'defaultCpuSet': '0-31', 'entries': {}})
MEM_NONE = '{"policyName":"None","machineState":{},"checksum":4236770233}'
MEM_STATIC = k.checkpoint_text('memory', {'policyName': 'Static', 'machineState': {}, 'entries': {}})
STRICT = {'strict-cpu-reservation': 'true'}

STATE = [
    # (name, before, after, cpu state, memory state, removed files (cpu/memory), reason fragment)
    ('no checkpoint files', cfg(), cfg(**STATIC), None, None, [], None),
    ('none -> static', cfg(), cfg(**STATIC), CPU_NONE, MEM_NONE, ['cpu'],
     'configured policy "static" differs from state checkpoint policy "none"'),
    ('static -> none', cfg(**STATIC), cfg(), CPU_STATIC, None, ['cpu'], 'records CPU manager policy "static"'),
    ('static unchanged', cfg(**STATIC), cfg(**STATIC), CPU_STATIC, MEM_NONE, [], None),
    ('topology only', cfg(**STATIC), cfg(topologyManagerPolicy='single-numa-node', **STATIC), CPU_STATIC, MEM_NONE,
     [], None),
    ('reconcile period and options other than strict', cfg(**STATIC),
     cfg(cpuManagerReconcilePeriod='5s', cpuManagerPolicyOptions={'full-pcpus-only': 'true'}, **STATIC),
     CPU_STATIC, None, [], None),
    ('reserved set grows', cfg(**STATIC), cfg(cpuManagerPolicy='static', reservedSystemCPUs='0-3'), CPU_STATIC, None,
     ['cpu'], 'the reserved CPU set changes (CPUs 0-1 -> CPUs 0-3)'),
    ('reserved set moves', cfg(**STATIC), cfg(cpuManagerPolicy='static', reservedSystemCPUs='0,32'), CPU_STATIC, None,
     ['cpu'], 'CPUs 0-1 -> CPUs 0,32'),
    ('same reserved set respelled', cfg(**STATIC), cfg(cpuManagerPolicy='static', reservedSystemCPUs='1,0'),
     CPU_STATIC, None, [], None),
    ('reserved count unchanged', cfg(cpuManagerPolicy='static', kubeReserved={'cpu': '200m'}),
     cfg(cpuManagerPolicy='static', kubeReserved={'cpu': '1'}), CPU_STATIC, None, [], None),
    ('reserved count grows', cfg(cpuManagerPolicy='static', kubeReserved={'cpu': '200m'}),
     cfg(cpuManagerPolicy='static', kubeReserved={'cpu': '200m'}, systemReserved={'cpu': '1'}), CPU_STATIC, None,
     ['cpu'], '1 CPU(s) chosen by the kubelet from systemReserved/kubeReserved cpu -> 2 CPU(s)'),
    ('count -> explicit set', cfg(cpuManagerPolicy='static', kubeReserved={'cpu': '2'}), cfg(**STATIC), CPU_STATIC,
     None, ['cpu'], 'the reserved CPU set changes'),
    ('reservation change under none policy', cfg(reservedSystemCPUs='0-1'), cfg(reservedSystemCPUs='0-3'), CPU_NONE,
     None, [], None),
    ('strict on', cfg(**STATIC), cfg(cpuManagerPolicyOptions=STRICT, **STATIC), CPU_STATIC, None, ['cpu'],
     'strict-cpu-reservation is turned on'),
    ('strict off', cfg(cpuManagerPolicyOptions=STRICT, **STATIC), cfg(**STATIC), CPU_STATIC, None, ['cpu'],
     'strict-cpu-reservation is turned off'),
    ('strict false -> absent', cfg(cpuManagerPolicyOptions={'strict-cpu-reservation': 'false'}, **STATIC),
     cfg(**STATIC), CPU_STATIC, None, [], None),
    ('stale checkpoint, config unchanged', cfg(**STATIC), cfg(**STATIC), CPU_NONE, None, ['cpu'],
     'records CPU manager policy "none" but the configuration now says "static"'),
    ('config none -> static, checkpoint already static', cfg(reservedSystemCPUs='0-1'), cfg(**STATIC), CPU_STATIC,
     None, ['cpu'], 'changes from "none" to "static"'),
    ('config static -> none, checkpoint already none', cfg(**STATIC), cfg(reservedSystemCPUs='0-1'), CPU_NONE, None,
     [], None),
    ('unreadable checkpoint, policy changes', cfg(), cfg(**STATIC), 'garbage', None, ['cpu'],
     'the CPU manager checkpoint is corrupt: it is not JSON'),
    ('empty policy in the file is none', cfg(cpuManagerPolicy='', memoryManagerPolicy=''),
     cfg(cpuManagerPolicy='none', memoryManagerPolicy='None'), CPU_NONE, MEM_NONE, [], None),
    ('empty policy -> static', cfg(cpuManagerPolicy=''), cfg(**STATIC), CPU_NONE, None, ['cpu'],
     'configured policy "static" differs from state checkpoint policy "none"'),
    ('unreadable checkpoint, nothing changes', cfg(), cfg(), 'garbage', None, ['cpu'], 'whatever the configuration'),
    ('memory None -> Static', cfg(), cfg(**MEM_OK), CPU_NONE, MEM_NONE, ['memory'],
     'configured policy "Static" differs from state checkpoint policy "None"'),
    ('memory Static -> None', cfg(**MEM_OK), cfg(), None, MEM_STATIC, ['memory'], 'records memory manager policy'),
    ('memory Static unchanged', cfg(**MEM_OK), cfg(**MEM_OK), None, MEM_STATIC, [], None),
    ('memory reservedMemory changes', cfg(**MEM_OK),
     cfg(memoryManagerPolicy='Static', kubeReserved={'memory': '512Mi'}, systemReserved={'memory': '512Mi'},
         reservedMemory=[{'numaNode': 0, 'limits': {'memory': '562Mi'}}, {'numaNode': 1, 'limits': {'memory': '562Mi'}}]),
     None, MEM_STATIC, ['memory'], 'reservedMemory changes'),
    ('memory reservedMemory respelled', cfg(**MEM_OK),
     cfg(memoryManagerPolicy='Static', kubeReserved={'memory': '512Mi'}, systemReserved={'memory': '512Mi'},
         reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1178599424'}}]), None, MEM_STATIC, [], None),
    ('memory reservedMemory changes under None', cfg(reservedMemory=[{'numaNode': 0, 'limits': {'memory': '1Gi'}}]),
     cfg(), None, MEM_NONE, [], None),
    ('memory stale checkpoint', cfg(**MEM_OK), cfg(**MEM_OK), None, MEM_NONE, ['memory'], 'records memory manager'),
    ('both change', cfg(), cfg(**dict(STATIC, **MEM_OK)), CPU_NONE, MEM_NONE, ['cpu', 'memory'], None),
    ('memory unreadable, reservedMemory changes', cfg(**MEM_OK), cfg(), None, '{}', ['memory'],
     'the memory manager checkpoint is corrupt: it records no policyName'),
]


@pytest.mark.parametrize('name,before,after,cpu,memory,removed,reason', STATE, ids=[case[0] for case in STATE])
def test_state_files(name, before, after, cpu, memory, removed, reason):
    removals, _warnings = k.state_files_to_remove(before, after, cpu, memory, '/var/lib/kubelet')
    paths = {'cpu': '/var/lib/kubelet/cpu_manager_state', 'memory': '/var/lib/kubelet/memory_manager_state'}
    assert [item['path'] for item in removals] == [paths[kind] for kind in removed]
    if reason:
        assert any(reason in item['reason'] for item in removals)


def test_corrupt_checkpoints_are_removed_when_nothing_changes():
    removals, warnings = k.state_files_to_remove(cfg(), cfg(), 'garbage', '[]', '/var/lib/kubelet/')
    assert [item['path'] for item in removals] == ['/var/lib/kubelet/cpu_manager_state',
                                                   '/var/lib/kubelet/memory_manager_state']
    assert 'it is not a JSON object' in removals[1]['reason'] and warnings == []


def test_recorded_policy():
    assert k.recorded_policy(CPU_NONE) == 'none'
    assert k.recorded_policy(MEM_STATIC) == 'Static'
    assert k.recorded_policy('{"defaultCpuSet": ""}') is None
    assert k.recorded_policy('') is None


# ----------------------------------------------------------------------------------------------
# Documents

@pytest.mark.parametrize('doc,fragment', [
    (None, 'an empty document'),
    (['a'], 'does not hold a YAML mapping (found list)'),
    ({'apiVersion': k.API_VERSION, 'kind': 'KubeProxyConfiguration'}, 'kind is "KubeProxyConfiguration"'),
    ({'apiVersion': 'kubelet.config.k8s.io/v1', 'kind': k.KIND}, 'apiVersion is "kubelet.config.k8s.io/v1"'),
    ({}, 'kind is None, expected "KubeletConfiguration"'),
])
def test_check_document(doc, fragment):
    with pytest.raises(k.KubeletConfigError) as err:
        k.check_document(doc, '/var/lib/kubelet/config.yaml')
    assert fragment in str(err.value) and '/var/lib/kubelet/config.yaml' in str(err.value)


def test_managed_view():
    assert k.managed_view(cfg(cpuManagerPolicy='static', maxPods=110)) == {'cpuManagerPolicy': 'static'}


def test_gate_defaults():
    assert k.gate_default('CPUManagerPolicyBetaOptions', 31) is True
    assert k.gate_default('CPUManagerPolicyAlphaOptions', 35) is False
    assert k.gate_default('TopologyManagerPolicyOptions', 31) is True
    assert k.gate_default('MemoryManager', 37) is False  # removed in 1.36
    assert k.gate_default('NoSuchGate', 33) is False


def test_eviction_default_constant():
    assert Fraction(k.DEFAULT_EVICTION_MEMORY) == 100 * 1024 * 1024
