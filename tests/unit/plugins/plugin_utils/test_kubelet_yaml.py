# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The KubeletConfiguration text edit: exact resulting text, everything else byte-identical."""
from __future__ import annotations

import os

import pytest
import yaml as pyyaml

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet as k
from ansible_collections.numaops.colocation.plugins.plugin_utils import kubelet_yaml as ky

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), 'fixtures', 'kubelet')
with open(os.path.join(FIXTURES, 'scenarios.yml')) as _handle:
    SCENARIOS = pyyaml.safe_load(_handle)['scenarios']
HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'


def read(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def edit(text, **params):
    """What the action plugin does with the text: plan, validate, render, re-read."""
    doc = ky.load(text, '/var/lib/kubelet/config.yaml')
    current = ky.to_plain(doc)
    k.check_document(current, '/var/lib/kubelet/config.yaml')
    new, changed = k.plan_values(current, k.requested_values(params))
    k.validate(new, params.get('kubelet_version'))
    out = ky.render(text, doc, new, changed)
    assert ky.to_plain(ky.load(out, 'out')) == new
    return out, changed


@pytest.mark.parametrize('scenario', SCENARIOS, ids=[s['name'] for s in SCENARIOS])
def test_scenario_exact_text(scenario):
    out, changed = edit(read(scenario['fixture']), **scenario['params'])
    assert out == read(scenario['expected'])
    assert changed == scenario['changed_fields']
    again, changed_again = edit(out, **scenario['params'])
    assert again == out and changed_again == []


@pytest.mark.parametrize('scenario', SCENARIOS, ids=[s['name'] for s in SCENARIOS])
def test_scenario_untouched_lines(scenario):
    """Every line of the original that is not about a changed key survives, in order."""
    before = read(scenario['fixture']).splitlines()
    after = read(scenario['expected']).splitlines()
    changed = set(scenario['changed_fields'])
    kept = []
    inside_changed = False
    for line in before:
        if line and not line[0].isspace() and not line.startswith('#'):
            inside_changed = line.split(':', 1)[0] in changed
        if not inside_changed:
            kept.append(line)
    position = 0
    for line in kept:
        assert line in after[position:], line
        position = after.index(line, position) + 1


@pytest.mark.parametrize('name', ['kubeadm-1.28.yaml', 'kubeadm-1.31.yaml', 'kubespray.yaml', 'commented.yaml'])
def test_no_change_is_byte_identical(name):
    text = read(name)
    doc = ky.load(text, name)
    current = ky.to_plain(doc)
    assert ky.render(text, doc, current, []) is text
    out, changed = edit(text, cpu_manager_policy=current.get('cpuManagerPolicy', ''))
    assert out == text and changed == []


def test_scalar_change_keeps_end_of_line_comment():
    text = HEAD + 'cpuManagerPolicy: none   # keep me\nmaxPods: 110\n'
    out, _changed = edit(text, cpu_manager_policy='static', reserved_system_cpus='0')
    assert out == HEAD + 'cpuManagerPolicy: static # keep me\nmaxPods: 110\nreservedSystemCPUs: "0"\n'


def test_removal_keeps_surrounding_comments():
    text = HEAD + '# the policy\ntopologyManagerPolicy: restricted  # why\n\n# pods\nmaxPods: 110\n'
    out, changed = edit(text, topology_manager_policy='')
    assert changed == ['topologyManagerPolicy']
    assert out == HEAD + '# the policy\n\n# pods\nmaxPods: 110\n'


def test_nested_entries_change_in_place():
    text = HEAD + 'systemReserved:  # system\n  cpu: 500m   # daemons\n  memory: 1Gi\n  pid: "1000"\n# next\nmaxPods: 1\n'
    out, _changed = edit(text, system_reserved={'cpu': '1', 'memory': '1024Mi', 'ephemeral-storage': '2Gi'})
    assert out == (HEAD + 'systemReserved:  # system\n  cpu: "1"    # daemons\n  memory: 1Gi\n'
                   '  ephemeral-storage: 2Gi\n# next\nmaxPods: 1\n')


def test_dictionary_replaced_by_scalar_layout():
    text = HEAD + 'featureGates: {A: true}\nmaxPods: 1\n'
    out, _changed = edit(text, feature_gates={'B': False})
    assert out == HEAD + 'featureGates:\n  A: true\n  B: false\nmaxPods: 1\n'


def test_new_keys_in_sorted_file_go_to_their_place():
    text = HEAD.replace('kind', 'cgroupDriver: systemd\nkind') + 'maxPods: 110\n'
    out, _changed = edit(text, cpu_manager_policy='static', reserved_system_cpus='0-1', feature_gates={'X': True},
                         topology_manager_scope='pod')
    assert out == ('apiVersion: kubelet.config.k8s.io/v1beta1\ncgroupDriver: systemd\ncpuManagerPolicy: static\n'
                   'featureGates:\n  X: true\nkind: KubeletConfiguration\nmaxPods: 110\n'
                   'reservedSystemCPUs: 0-1\ntopologyManagerScope: pod\n')


def test_new_keys_in_unsorted_file_go_to_the_end_in_module_order():
    text = 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\nmaxPods: 110\n# trailer\n'
    out, _changed = edit(text, topology_manager_policy='restricted', cpu_manager_policy='static',
                         kube_reserved={'cpu': '1'})
    assert out == ('kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\nmaxPods: 110\n'
                   'cpuManagerPolicy: static\nkubeReserved:\n  cpu: "1"\ntopologyManagerPolicy: restricted\n'
                   '# trailer\n')


def test_sequence_layout_follows_the_file():
    text = HEAD + 'clusterDNS:\n    - 10.96.0.10\nevictionHard:\n    memory.available: 100Mi\n'
    out, _changed = edit(text, memory_manager_policy='Static',
                         reserved_memory=[{'numaNode': 0, 'limits': {'memory': '100Mi'}}])
    assert out.endswith('reservedMemory:\n    - numaNode: 0\n      limits:\n          memory: 100Mi\n')
    text = HEAD + 'clusterDNS:\n  - 10.96.0.10\n'
    out, _changed = edit(text, reserved_memory=[{'numaNode': 1, 'limits': {'memory': '1Gi'}}])
    assert out.endswith('reservedMemory:\n  - numaNode: 1\n    limits:\n      memory: 1Gi\n')


@pytest.mark.parametrize('value,written', [
    ('0', '"0"'), ('0-1', '0-1'), ('1,3', '1,3'), ('yes', '"yes"'), ('on', '"on"'), ('true', '"true"'),
    ('1.5', '"1.5"'), ('1e3', '"1e3"'), ('null', '"null"'), ('static', 'static'),
])
def test_strings_that_would_read_as_other_types_are_double_quoted(value, written):
    layout = (2, 2, 0)
    assert ky._render_key('reservedSystemCPUs', value, 0, layout, '\n') == ['reservedSystemCPUs: %s\n' % written]


def test_crlf_and_missing_final_newline():
    text = HEAD.replace('\n', '\r\n') + 'maxPods: 110'
    out, _changed = edit(text, cpu_manager_policy='none')
    assert out == ('apiVersion: kubelet.config.k8s.io/v1beta1\r\ncpuManagerPolicy: none\r\n'
                   'kind: KubeletConfiguration\r\nmaxPods: 110\r\n')


def test_document_markers_and_leading_comments_stay():
    text = '# head\n---\n' + HEAD + 'maxPods: 1\nclusterDomain: x\n...\n'
    out, _changed = edit(text, cpu_manager_policy='none')
    assert out == '# head\n---\n' + HEAD + 'maxPods: 1\nclusterDomain: x\ncpuManagerPolicy: none\n...\n'


def test_skeleton_for_a_new_file():
    out, _changed = edit(HEAD, cpu_manager_policy='static', kube_reserved={'cpu': '1'})
    assert out == HEAD + 'cpuManagerPolicy: static\nkubeReserved:\n  cpu: "1"\n'


@pytest.mark.parametrize('text,fragment', [
    ('apiVersion: [v1\nkind: x\n', 'is not valid YAML at line 2, column'),
    ('a: 1\na: 2\n', 'at line 2, column 1: while constructing a mapping found duplicate key "a"'),
    ('a: 1\n  b: 2\n', 'is not valid YAML at line 2, column 4'),
    ('a: "unterminated\n', 'is not valid YAML at line 2'),
    ('a: 1\n---\nb: 2\n', 'holds 2 YAML documents'),
    ('{"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"}\n', 'flow-style (JSON)'),
    ('a:\tb\n\tc: d\n', 'is not valid YAML'),
])
def test_load_errors(text, fragment):
    with pytest.raises(ky.KubeletYamlError) as err:
        ky.load(text, '/etc/kubernetes/kubelet-config.yaml')
    assert fragment in str(err.value)
    assert str(err.value).startswith('/etc/kubernetes/kubelet-config.yaml')
    assert 'nothing was changed' in str(err.value)


def test_empty_file_loads_as_none():
    assert ky.load('# only a comment\n', 'x') is None
    assert ky.load('', 'x') is None


def test_to_plain_types():
    doc = ky.load(HEAD + 'a: "1"\nb: 1\nc: 1.5\nd: true\ne: null\nf: [1, x]\ng: {h: 0x10}\n', 'x')
    plain = ky.to_plain(doc)
    assert plain['a'] == '1' and plain['b'] == 1 and plain['c'] == 1.5 and plain['d'] is True
    assert plain['e'] is None and plain['f'] == [1, 'x'] and plain['g'] == {'h': 16}
    assert plain.__class__ is dict and plain['a'].__class__ is str and plain['f'].__class__ is list


def test_render_exact_returns_the_text_that_reads_back_as_planned():
    text = 'kind: KubeletConfiguration\ncpuManagerPolicy: none\n'
    doc = ky.load(text, '/k.yaml')
    new = {'kind': 'KubeletConfiguration', 'cpuManagerPolicy': 'static'}
    assert ky.render_exact(text, doc, new, ['cpuManagerPolicy'], '/k.yaml', 'configuration') == \
        'kind: KubeletConfiguration\ncpuManagerPolicy: static\n'
    # unchanged text: the value already read stands for the read-back
    current = ky.to_plain(doc)
    assert ky.render_exact(text, doc, current, [], '/k.yaml', 'configuration', unchanged=current) == text


@pytest.mark.parametrize('what', ['configuration', 'drop-in'])
def test_render_exact_refuses_text_that_does_not_read_back_as_planned(what):
    from ansible.errors import AnsibleActionFail
    text = 'kind: KubeletConfiguration\ncpuManagerPolicy: none\n'
    doc = ky.load(text, '/k.yaml')
    planned = {'kind': 'KubeletConfiguration', 'cpuManagerPolicy': 'static'}
    # no field to change: the text stays as it is and reads back as the old value, not the planned one
    with pytest.raises(AnsibleActionFail, match=r'^/k\.yaml: the edited text does not read back as the planned %s \(does '
                       r'the file use YAML anchors or aliases on the keys this module manages\?\); nothing was changed\. '
                       r'Please report this with the file\.$' % what):
        ky.render_exact(text, doc, planned, [], '/k.yaml', what)
