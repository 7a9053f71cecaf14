# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Corrupt CPU / memory manager checkpoints: the kubelet's format and checksum, and their removal."""
from __future__ import annotations

import json

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet as k

BASE = {'apiVersion': k.API_VERSION, 'kind': k.KIND}
STATIC = dict(BASE, cpuManagerPolicy='static', reservedSystemCPUs='0-1')
# Written by real kubelets (1.31-1.35) on a fresh node: the checksums are the kubelet's own.
KUBELET_CPU_NONE = '{"policyName":"none","defaultCpuSet":"","checksum":1353318690}'
KUBELET_MEMORY_NONE = '{"policyName":"None","machineState":{},"checksum":4236770233}'

MACHINE = {'0': {'numberOfAssignments': 1, 'memoryMap': {
    'memory': {'total': 8 << 30, 'systemReserved': 1 << 30, 'allocatable': 7 << 30, 'reserved': 1 << 30,
               'free': 6 << 30},
    'hugepages-2Mi': {'total': 0, 'systemReserved': 0, 'allocatable': 0, 'reserved': 0, 'free': 0}},
    'cells': [0]}, '1': {'numberOfAssignments': 0, 'memoryMap': {}, 'cells': [1]}}
ENTRIES = {'pod-uid': {'app': [{'numaAffinity': [0], 'type': 'memory', 'size': 1 << 30}]}}


def test_fnv32a():
    assert k.fnv32a('') == 0x811c9dc5
    assert k.fnv32a('a') == 0xe40c292c


def test_real_kubelet_checksums_verify():
    assert k.checkpoint_problem('cpu', KUBELET_CPU_NONE) is None
    assert k.checkpoint_problem('memory', KUBELET_MEMORY_NONE) is None


def test_checkpoint_text_reproduces_the_kubelet():
    assert k.checkpoint_text('cpu', {'policyName': 'none', 'defaultCpuSet': ''}) == KUBELET_CPU_NONE
    assert k.checkpoint_text('memory', {'policyName': 'None', 'machineState': {}}) == KUBELET_MEMORY_NONE


@pytest.mark.parametrize('kind,doc', [
    ('cpu', {'policyName': 'static', 'defaultCpuSet': '0-1,6-31', 'entries': {'pod': {'c1': '2-3', 'c2': '4-5'}}}),
    ('cpu', {'policyName': 'static', 'defaultCpuSet': '0-31', 'entries': {'pod': None}}),
    ('cpu', {'policyName': 'static', 'defaultCpuSet': '0-31', 'entries': {'c1': '2'}}),  # v1: container -> CPUs
    ('memory', {'policyName': 'Static', 'machineState': MACHINE, 'entries': ENTRIES}),
    ('memory', {'policyName': 'Static', 'machineState': {'0': None}, 'entries': {'p': {'c': None}}}),
])
def test_valid_checkpoints(kind, doc):
    assert k.checkpoint_problem(kind, k.checkpoint_text(kind, doc)) is None


def _tamper(text, **changes):
    doc = json.loads(text)
    doc.update(changes)
    return json.dumps(doc)


@pytest.mark.parametrize('kind,text,fragment', [
    ('cpu', '', 'it is not JSON'),
    ('cpu', '{"policyName":"none","defaultCpuSet":""', 'it is not JSON'),
    ('cpu', '\x00\x00\x00', 'it is not JSON'),
    ('memory', '[]', 'it is not a JSON object'),
    ('memory', '{}', 'it records no policyName'),
    ('cpu', '{"policyName":1,"defaultCpuSet":"","checksum":0}', 'it records no policyName'),
    ('cpu', _tamper(KUBELET_CPU_NONE, checksum=1), 'its checksum 1 does not match its content'),
    ('cpu', _tamper(KUBELET_CPU_NONE, defaultCpuSet='0-3'), 'its checksum 1353318690 does not match'),
    ('cpu', _tamper(KUBELET_CPU_NONE, checksum=-1), 'is not an unsigned integer'),
    ('cpu', _tamper(KUBELET_CPU_NONE, checksum='1353318690'), 'is not an unsigned integer'),
    ('memory', _tamper(KUBELET_MEMORY_NONE, checksum=0), 'its checksum 0 does not match'),
    ('memory', _tamper(KUBELET_MEMORY_NONE, policyName='Static'), 'does not match'),
    ('memory', k.checkpoint_text('memory', {'policyName': 'Static', 'machineState': MACHINE})[:-30] + '}',
     'it is not JSON'),
    ('memory', '{"policyName":"Static","machineState":{"x":{}},"checksum":1}', 'is not a NUMA node number'),
    ('memory', '{"policyName":"Static","machineState":{"0":{"cells":"0"}},"checksum":1}', 'cannot be read'),
    ('cpu', '{"policyName":"static","defaultCpuSet":"0-","checksum":0}', 'its default CPU set "0-" cannot be parsed'),
    ('cpu', '{"policyName":"static","defaultCpuSet":"0","entries":{"p":{"c":"x"}},"checksum":0}',
     'the CPU set "x" of container "c" in pod "p" cannot be parsed'),
    ('cpu', '{"policyName":"static","defaultCpuSet":"0","entries":{"p":3},"checksum":5}', 'neither of the v1'),
])
def test_corrupt_checkpoints(kind, text, fragment):
    problem = k.checkpoint_problem(kind, text)
    assert problem is not None and fragment in problem


def test_cpu_checksum_zero_is_accepted():
    # The kubelet accepts an empty CPU manager checksum (compatibility with its old file backend).
    assert k.checkpoint_problem('cpu', '{"policyName":"static","defaultCpuSet":"0-7","checksum":0}') is None


def _v4(policy, data_doc, data_checksum=None):
    data = json.dumps(data_doc, separators=(',', ':'))
    return json.dumps({'policyName': policy, 'defaultCpuSet': data_doc.get('defaultCpuSet', ''), 'checksum': 0,
                       'data': data, 'dataChecksum': k.fnv32a('(string)' + data) if data_checksum is None
                       else data_checksum})


def test_data_format_of_kubelet_1_37():
    good = _v4('static', {'policyName': 'static', 'defaultCpuSet': '0-7'})
    assert k.checkpoint_problem('cpu', good) is None
    assert 'the checksum of its data does not match' in k.checkpoint_problem(
        'cpu', _v4('static', {'policyName': 'static', 'defaultCpuSet': '0-7'}, data_checksum=7))
    assert 'its data records policy "none" but the file "static"' in k.checkpoint_problem(
        'cpu', _v4('static', {'policyName': 'none', 'defaultCpuSet': ''}))
    assert 'its data records no policyName' in k.checkpoint_problem('memory', _v4('Static', {}))


def test_pod_entries_format_is_not_checksummed():
    text = '{"policyName":"static","defaultCpuSet":"0-7","podEntries":{},"checksum":12345}'
    assert k.checkpoint_problem('cpu', text) is None


@pytest.mark.parametrize('before,after', [(STATIC, STATIC), (BASE, STATIC), (STATIC, BASE), (BASE, BASE)])
def test_corrupt_checkpoints_go_whatever_the_change(before, after):
    bad_cpu = _tamper(KUBELET_CPU_NONE, checksum=99)
    bad_memory = 'not json'
    removals, warnings = k.state_files_to_remove(before, after, bad_cpu, bad_memory, '/var/lib/kubelet')
    assert [item['path'] for item in removals] == ['/var/lib/kubelet/cpu_manager_state',
                                                   '/var/lib/kubelet/memory_manager_state']
    assert removals[0]['reason'].startswith('the CPU manager checkpoint is corrupt: its checksum 99 does not match')
    assert removals[1]['reason'].startswith('the memory manager checkpoint is corrupt: it is not JSON')
    assert 'whatever the configuration' in removals[0]['reason'] and warnings == []


def test_valid_checkpoints_stay_when_nothing_changes():
    removals, _warnings = k.state_files_to_remove(BASE, BASE, KUBELET_CPU_NONE, KUBELET_MEMORY_NONE)
    assert removals == []


FIXTURES = __file__.rsplit('/module_utils/', 1)[0] + '/fixtures/kubelet/'


@pytest.mark.parametrize('kind,name', [('cpu', 'cpu_manager_state.static-1.37'),
                                       ('memory', 'memory_manager_state.static-1.37')])
def test_files_written_by_kubelet_1_37(kind, name):
    # Written by the real kubelet 1.37.2 (static CPU policy, Static memory policy with a full machine state): both
    # the data checksum and the checksum of the older format kept for rollback are the kubelet's.
    with open(FIXTURES + name) as handle:
        text = handle.read()
    assert k.checkpoint_problem(kind, text) is None
    doc = json.loads(text)
    del doc['data'], doc['dataChecksum']
    assert k.checkpoint_problem(kind, json.dumps(doc)) is None
    doc['checksum'] += 1
    assert 'does not match' in k.checkpoint_problem(kind, json.dumps(doc))


# The static policy's checks of a checkpoint it can read (policy_static.go validateState), against the node's CPUs.
STATIC_1 = dict(BASE, cpuManagerPolicy='static', reservedSystemCPUs='0')
STRICT_1 = dict(STATIC_1, cpuManagerPolicyOptions={'strict-cpu-reservation': 'true'})
COUNTED = dict(BASE, cpuManagerPolicy='static', kubeReserved={'cpu': '1'})


def _static_cpu(default, entries=None, data=False):
    doc = {'policyName': 'static', 'defaultCpuSet': default}
    if entries is not None:
        doc['entries'] = entries
    return _v4('static', doc) if data else k.checkpoint_text('cpu', doc)


def test_a_removal_cut_short_by_a_kubelet_stop_is_removed():
    # kubelet 1.37 removes a container's CPUs in two writes (its entry, then the default set): stopped between them,
    # it leaves CPU 1 nowhere, and refuses to start with its own file
    text = _static_cpu('0', data=True)
    assert k.checkpoint_problem('cpu', text) is None
    removals, warnings = k.state_files_to_remove(STATIC_1, STATIC_1, text, None, '/var/lib/kubelet', frozenset([0, 1]))
    assert [item['path'] for item in removals] == ['/var/lib/kubelet/cpu_manager_state'] and warnings == []
    reason = removals[0]['reason']
    assert reason.startswith('it records CPUs 0 (default set 0) but the node has CPUs 0-1; ')
    assert "current set of available CPUs ... doesn't match with CPUs in state" in reason
    assert 'asks for the file to be removed' in reason


@pytest.mark.parametrize('config,text,online', [
    (STATIC_1, _static_cpu('0-1'), [0, 1]),
    (STATIC_1, _static_cpu('0', {'pod': {'app': '1'}}), [0, 1]),
    (STATIC_1, _static_cpu('0,3', {'pod': {'a': '1', 'b': '2'}}, data=True), [0, 1, 2, 3]),
    (STATIC_1, _static_cpu('0', {'c1': '1'}), [0, 1]),  # v1: container -> CPUs
    (STRICT_1, _static_cpu('1'), [0, 1]),  # strictly reserved CPUs are in no set
    (STATIC_1, _static_cpu(''), [0, 1]),  # empty: the kubelet initialises it
    (STATIC_1, _static_cpu('0'), None),  # the node's CPUs unknown: not judged on them
    (dict(STRICT_1, reservedSystemCPUs=None, kubeReserved={'cpu': '1'},), _static_cpu('1'), [0, 1, 2]),  # counted
    (STATIC_1, '{"policyName":"static","defaultCpuSet":"0","podEntries":{"p":{"cpuSet":"1"}},"checksum":1}', [0, 1]),
])
def test_checkpoints_the_kubelet_starts_with_stay(config, text, online):
    online = None if online is None else frozenset(online)
    assert k.cpu_state_refusal(text, config, online) is None
    assert k.state_files_to_remove(config, config, text, None, online_cpus=online) == ([], [])


@pytest.mark.parametrize('config,text,online,fragment,kubelet_says', [
    (STATIC_1, _static_cpu('0'), [0, 1, 2], 'it records CPUs 0 (default set 0) but the node has CPUs 0-2',
     "doesn't match with CPUs in state"),
    (STATIC_1, _static_cpu('0-3'), [0, 1], 'it records CPUs 0-3 (default set 0-3) but the node has CPUs 0-1',
     "doesn't match with CPUs in state"),
    (STATIC_1, _static_cpu('0', {'pod': {'app': '1-2'}}), [0, 1],
     'it records CPUs 0-2 (default set 0, app: 1-2) but the node has CPUs 0-1', "doesn't match"),
    (COUNTED, _static_cpu('0', {'pod': {'app': '1'}}), [0, 1, 2], 'but the node has CPUs 0-2', "doesn't match"),
    (STRICT_1, _static_cpu('1'), [0, 1, 2], 'but the node has CPUs 1-2 besides the strictly reserved ones',
     "doesn't match"),
    (STATIC_1, _static_cpu('', {'pod': {'app': '1'}}), [0, 1], 'its default CPU set is empty while it records CPU',
     'default cpuset cannot be empty'),
    (STATIC_1, _static_cpu('1'), [0, 1], 'the reserved CPUs 0 are not all in its default CPU set 1',
     'not all reserved cpus'),
    (STRICT_1, _static_cpu('0-1'), [0, 1], 'the strictly reserved CPUs 0 are in its default CPU set 0-1',
     'some of strictly reserved cpus'),
    (STATIC_1, _static_cpu('0-1', {'pod': {'app': '1'}}), [0, 1],
     'the CPUs 1 of container "app" in pod "pod" overlap its default CPU set 0-1', 'overlaps with default cpuset'),
])
def test_checkpoints_the_kubelet_refuses_go(config, text, online, fragment, kubelet_says):
    reason = k.cpu_state_refusal(text, config, frozenset(online))
    assert fragment in reason and kubelet_says in reason
    removals, _warnings = k.state_files_to_remove(config, config, text, None, online_cpus=frozenset(online))
    assert removals == [{'path': '/var/lib/kubelet/cpu_manager_state', 'reason': reason}]


def test_only_the_static_policy_checks_its_sets():
    none = dict(BASE, cpuManagerPolicy='none')
    text = k.checkpoint_text('cpu', {'policyName': 'none', 'defaultCpuSet': ''})
    assert k.state_files_to_remove(none, none, text, None, online_cpus=frozenset([0, 1])) == ([], [])


def test_a_reservation_change_keeps_its_own_reason():
    before = dict(STATIC_1, reservedSystemCPUs='0')
    after = dict(STATIC_1, reservedSystemCPUs='0-1')
    removals, _warnings = k.state_files_to_remove(before, after, _static_cpu('0'), None, online_cpus=frozenset([0, 1]))
    assert removals[0]['reason'].startswith('the reserved CPU set changes (CPUs 0 -> CPUs 0-1)')


@pytest.mark.parametrize('text,expected', [('0-1\n', frozenset([0, 1])), ('0,2-3\n', frozenset([0, 2, 3])),
                                           ('\n', frozenset()), (None, None), ('zero\n', None)])
def test_the_online_cpus_file(text, expected):
    assert k.parse_online_cpus(text) == expected
    assert k.online_cpus_path('/') == '/sys/devices/system/cpu/online'
    assert k.online_cpus_path('/tmp/tree/') == '/tmp/tree/sys/devices/system/cpu/online'
