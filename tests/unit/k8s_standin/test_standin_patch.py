# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Patch, schema and selector semantics of the Kubernetes API stand-in."""
from __future__ import annotations

import pytest

from ansible_collections.numaops.colocation.tests.k8s_standin import k8s_selectors as sel
from ansible_collections.numaops.colocation.tests.k8s_standin.patch import (
    PatchError, json_patch, merge_patch, strategic_merge_patch)
from ansible_collections.numaops.colocation.tests.k8s_standin.schema import apply_defaults, prune, validate


@pytest.mark.parametrize('target, patch, expected', [
    ({'a': 1, 'b': {'c': 2}}, {'b': {'c': None, 'd': 3}}, {'a': 1, 'b': {'d': 3}}),
    ({'a': [1, 2]}, {'a': [3]}, {'a': [3]}),
    ({'a': 1}, {'a': None}, {}),
])
def test_merge_patch(target, patch, expected):
    assert merge_patch(target, patch) == expected


@pytest.mark.parametrize('target, patch, expected', [
    ({'spec': {'containers': [{'name': 'a', 'image': '1'}, {'name': 'b', 'image': '1'}]}},
     {'spec': {'containers': [{'name': 'b', 'image': '2'}, {'name': 'c', 'image': '1'}]}},
     {'spec': {'containers': [{'name': 'a', 'image': '1'}, {'name': 'b', 'image': '2'}, {'name': 'c', 'image': '1'}]}}),
    ({'spec': {'containers': [{'name': 'a'}, {'name': 'b'}]}},
     {'spec': {'containers': [{'name': 'a', '$patch': 'delete'}]}},
     {'spec': {'containers': [{'name': 'b'}]}}),
    ({'spec': {'tolerations': [{'key': 'a'}]}}, {'spec': {'tolerations': [{'key': 'b'}]}},
     {'spec': {'tolerations': [{'key': 'b'}]}}),
    ({'metadata': {'finalizers': ['a']}}, {'metadata': {'finalizers': ['b', 'a']}}, {'metadata': {'finalizers': ['a', 'b']}}),
    ({'spec': {'unschedulable': True, 'taints': []}}, {'spec': {'unschedulable': False}},
     {'spec': {'unschedulable': False, 'taints': []}}),
    ({'data': {'a': '1', 'b': '2'}}, {'data': {'$patch': 'replace', 'c': '3'}}, {'data': {'c': '3'}}),
    ({'spec': {'ports': [{'port': 80, 'name': 'http'}]}}, {'spec': {'ports': [{'port': 80, 'targetPort': 8080}]}},
     {'spec': {'ports': [{'port': 80, 'name': 'http', 'targetPort': 8080}]}}),
])
def test_strategic_merge_patch(target, patch, expected):
    assert strategic_merge_patch(target, patch) == expected


def test_json_patch_operations_and_errors():
    doc = {'a': {'b': [1, 2]}}
    assert json_patch(doc, [{'op': 'add', 'path': '/a/b/-', 'value': 3},
                            {'op': 'replace', 'path': '/a/b/0', 'value': 0},
                            {'op': 'copy', 'from': '/a/b', 'path': '/c'},
                            {'op': 'remove', 'path': '/a/b/1'},
                            {'op': 'test', 'path': '/c/2', 'value': 3}]) == {'a': {'b': [0, 3]}, 'c': [0, 2, 3]}
    with pytest.raises(PatchError):
        json_patch(doc, [{'op': 'remove', 'path': '/missing'}])
    with pytest.raises(PatchError):
        json_patch(doc, {'not': 'a list'})


SCHEMA = {'type': 'object', 'properties': {'spec': {'type': 'object', 'properties': {
    'n': {'type': 'integer', 'minimum': 0, 'maximum': 100, 'default': 100},
    'free': {'type': 'object', 'x-kubernetes-preserve-unknown-fields': True},
    'm': {'type': 'object', 'additionalProperties': {'type': 'string'}},
}}}}


def test_schema_prune_default_validate():
    obj, dropped = prune({'apiVersion': 'x', 'metadata': {}, 'spec': {'zz': 1, 'free': {'a': 1}, 'm': {'k': 'v'}}, 'top': 1}, SCHEMA)
    assert dropped == ['spec.zz', 'top']
    obj = apply_defaults(obj, SCHEMA)
    assert obj['spec'] == {'free': {'a': 1}, 'm': {'k': 'v'}, 'n': 100}
    assert validate(obj, SCHEMA) == []
    causes = validate({'spec': {'n': True, 'm': {'k': 1}}}, SCHEMA)
    assert [c['field'] for c in causes] == ['spec.n', 'spec.m.k']
    assert causes[0]['message'] == 'Invalid value: "boolean": spec.n in body must be of type integer: "boolean"'


@pytest.mark.parametrize('text', ['a b c', 'x in ()', '=v'])
def test_bad_label_selectors(text):
    with pytest.raises(sel.SelectorError):
        sel.parse_label_selector(text)
