# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kubelet's /configz answer compared with the managed keys written.

The fixture has the shape the kubelet serves: k8s.io/component-base/configz marshals its registered configurations
as one JSON object, the kubelet registering its KubeletConfiguration, converted to kubelet.config.k8s.io/v1beta1, as
``kubeletconfig`` (cmd/kubelet/app/server.go, initConfigz/setConfigz): v1beta1 JSON field names, durations as Go
prints them (``10s``, ``1m0s``), quantities canonical, every field defaulted."""
from __future__ import annotations

import json
import os

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet_configz as kz

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, '..', 'fixtures', 'configz', 'configz-v1beta1.json')) as handle:
    ANSWER = handle.read()
RUNNING = kz.parse(ANSWER)

WRITTEN = {
    'cpuManagerPolicy': 'static',
    'cpuManagerPolicyOptions': {'full-pcpus-only': 'true'},
    'cpuManagerReconcilePeriod': '0m10s',
    'reservedSystemCPUs': '0,1',
    'systemReserved': {'cpu': '0.5', 'memory': '1024Mi'},
    'kubeReserved': {'cpu': '500m'},
    'topologyManagerPolicy': 'single-numa-node',
    'topologyManagerScope': 'container',
    'topologyManagerPolicyOptions': {'prefer-closest-numa-nodes': 'true'},
    'memoryManagerPolicy': 'Static',
    'reservedMemory': [{'numaNode': 1, 'limits': {'memory': '1073741824'}},
                       {'numaNode': 0, 'limits': {'memory': '1124Mi'}}],
    'featureGates': {'CPUManagerPolicyAlphaOptions': True},
}


def test_the_answer_is_the_kubeletconfig_object():
    assert RUNNING['cpuManagerPolicy'] == 'static'
    assert RUNNING['healthzPort'] == 10248


def test_values_written_in_other_spellings_are_what_the_kubelet_runs():
    assert kz.compare(WRITTEN, RUNNING) == []
    assert kz.line([], kz.compared_keys(WRITTEN), '/configz').startswith(
        'the kubelet runs cpuManagerPolicy, cpuManagerPolicyOptions, cpuManagerReconcilePeriod, featureGates, ')


@pytest.mark.parametrize('key, written, running', [
    ('cpuManagerPolicy', 'static', 'none'),
    ('reservedSystemCPUs', '0-1', '0-3'),
    ('cpuManagerReconcilePeriod', '10s', '1m0s'),
    ('systemReserved', {'cpu': '500m'}, {'cpu': '500m', 'memory': '1Gi'}),
    ('kubeReserved', {'cpu': '1'}, {'cpu': '500m'}),
    ('reservedMemory', [{'numaNode': 0, 'limits': {'memory': '1Gi'}}],
     [{'numaNode': 0, 'limits': {'memory': '1124Mi'}}]),
    ('reservedMemory', [{'numaNode': 0, 'limits': {'memory': '1Gi'}}], None),
    ('featureGates', {'CPUManagerPolicyAlphaOptions': True}, {'CPUManagerPolicyAlphaOptions': False}),
    ('featureGates', {'MemoryQoS': True}, {}),
    ('topologyManagerPolicyOptions', {'prefer-closest-numa-nodes': 'true'}, None),
])
def test_a_value_the_kubelet_does_not_run_is_named(key, written, running):
    config = json.loads(ANSWER)['kubeletconfig']
    if running is None:
        config.pop(key, None)
    else:
        config[key] = running
    mismatches = kz.compare({key: written}, config)
    assert mismatches == [{'key': key, 'expected': written, 'running': config.get(key)}]
    text = kz.line(mismatches, [key], '/api/v1/nodes/n1/proxy/configz')
    assert text.startswith('the kubelet does NOT run %s: written %s, running ' % (key, json.dumps(written, sort_keys=True)))
    assert text.endswith('(/api/v1/nodes/n1/proxy/configz)')


def test_feature_gates_from_the_kubelet_flags_are_not_a_difference():
    assert kz.compare({'featureGates': {'CPUManagerPolicyAlphaOptions': True}}, RUNNING) == []


def test_keys_removed_by_the_write_are_not_compared():
    written = {'cpuManagerPolicy': None, 'systemReserved': {}, 'reservedMemory': []}
    assert kz.compare(written, {'cpuManagerPolicy': 'none'}) == []
    assert kz.compared_keys(written) == []
    assert kz.line([], [], '/configz') == 'the kubelet runs no managed key as written (/configz)'


@pytest.mark.parametrize('text, fragment', [
    ('not json', '/configz did not answer JSON'),
    ('{"componentconfig": {}}', '/configz answered no "kubeletconfig" object (keys: componentconfig)'),
    ('[1]', '/configz answered no "kubeletconfig" object (keys: list)'),
    ('{"kubeletconfig": "x"}', '/configz answered no "kubeletconfig" object (keys: kubeletconfig)'),
])
def test_an_answer_that_is_not_the_kubelet_configuration_is_refused(text, fragment):
    with pytest.raises(kz.ConfigzError, match=fragment.replace('(', r'\(').replace(')', r'\)')):
        kz.parse(text)
