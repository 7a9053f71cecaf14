# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import colocation as co


def cfg(name, ts='2026-11-01T00:00:00Z', selector=None, memory_qos=None, namespace='team', extra_spec=None):
    spec = {}
    if selector is not None:
        spec['selector'] = selector
    if memory_qos is not None:
        spec['memoryQos'] = memory_qos
    spec.update(extra_spec or {})
    meta = {'name': name, 'namespace': namespace}
    if ts is not None:
        meta['creationTimestamp'] = ts
    return {'apiVersion': 'config.volcano.sh/v1alpha1', 'kind': 'ColocationConfiguration',
            'metadata': meta, 'spec': spec}


def pod(labels=None, annotations=None, namespace='team', name='p'):
    meta = {'name': name, 'namespace': namespace}
    if labels is not None:
        meta['labels'] = labels
    if annotations is not None:
        meta['annotations'] = annotations
    return {'metadata': meta}


def test_constants():
    assert co.GROUP == 'config.volcano.sh'
    assert co.VERSION == 'v1alpha1'
    assert co.KIND == 'ColocationConfiguration'
    assert co.PLURAL == 'colocationconfigurations'
    assert co.ANNOTATION_CONFIG_NAME == 'volcano.sh/colocation-config-name'
    assert co.ANNOTATION_CONFIG == 'volcano.sh/colocation-config'
    assert co.RESET_VALUE == '{}'
    assert issubclass(co.ColocationConfigError, ValueError)


# ---------------------------------------------------------------- selectors
SELECTOR_CASES = [
    # (id, selector, labels, expected)
    ('missing selector matches nothing', None, {'app': 'x'}, False),
    ('missing selector, no labels', None, {}, False),
    ('empty selector matches all', {}, {'app': 'x'}, True),
    ('empty selector matches unlabelled', {}, {}, True),
    ('empty selector, labels None', {}, None, True),
    ('matchLabels hit', {'matchLabels': {'app': 'x'}}, {'app': 'x', 'b': '1'}, True),
    ('matchLabels wrong value', {'matchLabels': {'app': 'x'}}, {'app': 'y'}, False),
    ('matchLabels missing key', {'matchLabels': {'app': 'x'}}, {}, False),
    ('matchLabels all must hold', {'matchLabels': {'app': 'x', 't': 'b'}}, {'app': 'x'}, False),
    ('matchLabels empty value', {'matchLabels': {'app': ''}}, {'app': ''}, True),
    ('empty matchLabels', {'matchLabels': {}}, {}, True),
    ('In hit', {'matchExpressions': [{'key': 'tier', 'operator': 'In', 'values': ['be', 'ls']}]},
     {'tier': 'be'}, True),
    ('In miss value', {'matchExpressions': [{'key': 'tier', 'operator': 'In', 'values': ['be']}]},
     {'tier': 'lc'}, False),
    ('In absent key', {'matchExpressions': [{'key': 'tier', 'operator': 'In', 'values': ['be']}]},
     {}, False),
    ('NotIn other value', {'matchExpressions': [{'key': 'tier', 'operator': 'NotIn', 'values': ['lc']}]},
     {'tier': 'be'}, True),
    ('NotIn listed value', {'matchExpressions': [{'key': 'tier', 'operator': 'NotIn', 'values': ['lc']}]},
     {'tier': 'lc'}, False),
    ('NotIn absent key matches', {'matchExpressions': [{'key': 'tier', 'operator': 'NotIn', 'values': ['lc']}]},
     {}, True),
    ('Exists present', {'matchExpressions': [{'key': 'batch', 'operator': 'Exists'}]}, {'batch': ''}, True),
    ('Exists absent', {'matchExpressions': [{'key': 'batch', 'operator': 'Exists'}]}, {'a': 'b'}, False),
    ('DoesNotExist absent', {'matchExpressions': [{'key': 'batch', 'operator': 'DoesNotExist', 'values': []}]},
     {}, True),
    ('DoesNotExist present', {'matchExpressions': [{'key': 'batch', 'operator': 'DoesNotExist'}]},
     {'batch': 'y'}, False),
    ('labels AND expressions both hold',
     {'matchLabels': {'app': 'x'}, 'matchExpressions': [{'key': 'tier', 'operator': 'In', 'values': ['be']}]},
     {'app': 'x', 'tier': 'be'}, True),
    ('labels hold, expression fails',
     {'matchLabels': {'app': 'x'}, 'matchExpressions': [{'key': 'tier', 'operator': 'In', 'values': ['be']}]},
     {'app': 'x', 'tier': 'lc'}, False),
    ('expression holds, labels fail',
     {'matchLabels': {'app': 'x'}, 'matchExpressions': [{'key': 'tier', 'operator': 'In', 'values': ['be']}]},
     {'app': 'y', 'tier': 'be'}, False),
    ('several expressions all hold',
     {'matchExpressions': [{'key': 'a', 'operator': 'Exists'}, {'key': 'b', 'operator': 'DoesNotExist'}]},
     {'a': '1'}, True),
    ('several expressions one fails',
     {'matchExpressions': [{'key': 'a', 'operator': 'Exists'}, {'key': 'b', 'operator': 'DoesNotExist'}]},
     {'a': '1', 'b': '2'}, False),
]


@pytest.mark.parametrize('selector,labels,expected', [c[1:] for c in SELECTOR_CASES],
                         ids=[c[0] for c in SELECTOR_CASES])
def test_selector_matches(selector, labels, expected):
    assert co.selector_matches(selector, labels) is expected
    # validation accepts every selector of the table and keeps its meaning
    assert co.selector_matches(co.validate_selector(selector), labels) is expected


def test_selector_unknown_operator_raises():
    sel = {'matchExpressions': [{'key': 'a', 'operator': 'Gt', 'values': ['1']}]}
    with pytest.raises(co.ColocationConfigError) as err:
        co.selector_matches(sel, {'a': '2'})
    assert 'matchExpressions[0].operator' in str(err.value)
    assert '"Gt"' in str(err.value)
    assert 'In, NotIn, Exists, DoesNotExist' in str(err.value)


# ---------------------------------------------------------------- validation
VALID_SPECS = [
    ('no memoryQos: no defaults', {'selector': {}}, {'selector': {}}),
    ('empty spec', {}, {}),
    ('None spec', None, {}),
    ('memoryQos empty gets all defaults', {'memoryQos': {}},
     {'memoryQos': {'highRatio': 100, 'lowRatio': 0, 'minRatio': 0}}),
    ('partial memoryQos', {'memoryQos': {'lowRatio': 20}},
     {'memoryQos': {'highRatio': 100, 'lowRatio': 20, 'minRatio': 0}}),
    ('full memoryQos', {'memoryQos': {'highRatio': 80, 'lowRatio': 20, 'minRatio': 10}},
     {'memoryQos': {'highRatio': 80, 'lowRatio': 20, 'minRatio': 10}}),
    ('bounds', {'memoryQos': {'highRatio': 0, 'lowRatio': 100, 'minRatio': 100}},
     {'memoryQos': {'highRatio': 0, 'lowRatio': 100, 'minRatio': 100}}),
    ('memoryQos null dropped', {'memoryQos': None, 'selector': {'matchLabels': {'a': 'b'}}},
     {'selector': {'matchLabels': {'a': 'b'}}}),
    ('selector null dropped', {'selector': None}, {}),
    ('prefixed label key', {'selector': {'matchLabels': {'volcano.sh/qos-level': 'BE'}}},
     {'selector': {'matchLabels': {'volcano.sh/qos-level': 'BE'}}}),
    ('expression values default to []', {'selector': {'matchExpressions': [{'key': 'a', 'operator': 'Exists'}]}},
     {'selector': {'matchExpressions': [{'key': 'a', 'operator': 'Exists', 'values': []}]}}),
]


@pytest.mark.parametrize('spec,expected', [c[1:] for c in VALID_SPECS], ids=[c[0] for c in VALID_SPECS])
def test_validate_spec_valid(spec, expected):
    original = json.dumps(spec)
    assert co.validate_spec(spec) == expected
    assert json.dumps(spec) == original  # input not modified


INVALID_SPECS = [
    # (id, spec, field named in the message, fragment of the "allowed" text)
    ('ratio too high', {'memoryQos': {'highRatio': 101}}, 'spec.memoryQos.highRatio', 'integer from 0 to 100'),
    ('ratio negative', {'memoryQos': {'lowRatio': -1}}, 'spec.memoryQos.lowRatio', 'integer from 0 to 100'),
    ('ratio bool', {'memoryQos': {'minRatio': True}}, 'spec.memoryQos.minRatio', 'integer from 0 to 100'),
    ('ratio string', {'memoryQos': {'highRatio': '80'}}, 'spec.memoryQos.highRatio', 'integer from 0 to 100'),
    ('ratio float', {'memoryQos': {'highRatio': 80.5}}, 'spec.memoryQos.highRatio', 'integer from 0 to 100'),
    ('ratio whole float', {'memoryQos': {'highRatio': 80.0}}, 'spec.memoryQos.highRatio', 'integer from 0 to 100'),
    ('memoryQos not a mapping', {'memoryQos': [80]}, 'spec.memoryQos', 'highRatio, lowRatio and minRatio'),
    ('memoryQos unknown key', {'memoryQos': {'highratio': 80}}, 'spec.memoryQos.highratio',
     'spec.memoryQos.highRatio'),
    ('spec unknown key', {'memoryQoS': {}}, 'spec.memoryQoS', 'spec.selector, spec.memoryQos'),
    ('spec not a mapping', ['a'], 'spec', 'mapping'),
    ('selector not a mapping', {'selector': 'app=x'}, 'spec.selector', 'LabelSelector'),
    ('selector unknown key', {'selector': {'matchLabel': {}}}, 'spec.selector.matchLabel', 'matchLabels'),
    ('matchLabels not a mapping', {'selector': {'matchLabels': ['a']}}, 'spec.selector.matchLabels', 'mapping'),
    ('matchLabels non-string value', {'selector': {'matchLabels': {'a': 1}}}, 'spec.selector.matchLabels.a',
     'label value'),
    ('matchLabels bad value', {'selector': {'matchLabels': {'a': 'b c'}}}, 'spec.selector.matchLabels.a',
     'label value'),
    ('matchLabels bad key', {'selector': {'matchLabels': {'-a': 'b'}}}, 'spec.selector.matchLabels.-a',
     'label key'),
    ('matchLabels value with trailing newline', {'selector': {'matchLabels': {'a': 'b\n'}}},
     'spec.selector.matchLabels.a', 'label value'),
    ('matchLabels value too long', {'selector': {'matchLabels': {'a': 'b' * 64}}},
     'spec.selector.matchLabels.a', 'label value'),
    ('matchLabels bad prefix', {'selector': {'matchLabels': {'Bad_Prefix/a': 'b'}}},
     'spec.selector.matchLabels.Bad_Prefix/a', 'label key'),
    ('matchExpressions not a list', {'selector': {'matchExpressions': {'key': 'a'}}},
     'spec.selector.matchExpressions', 'list'),
    ('expression not a mapping', {'selector': {'matchExpressions': ['a']}},
     'spec.selector.matchExpressions[0]', 'requirement'),
    ('expression unknown operator', {'selector': {'matchExpressions': [{'key': 'a', 'operator': 'Gt',
                                                                       'values': ['1']}]}},
     'spec.selector.matchExpressions[0].operator', 'In, NotIn, Exists, DoesNotExist'),
    ('expression missing operator', {'selector': {'matchExpressions': [{'key': 'a'}]}},
     'spec.selector.matchExpressions[0].operator', 'In, NotIn'),
    ('expression missing key', {'selector': {'matchExpressions': [{'operator': 'Exists'}]}},
     'spec.selector.matchExpressions[0].key', 'label key'),
    ('In without values', {'selector': {'matchExpressions': [{'key': 'a', 'operator': 'In', 'values': []}]}},
     'spec.selector.matchExpressions[0].values', 'non-empty'),
    ('NotIn without values', {'selector': {'matchExpressions': [{'key': 'a', 'operator': 'NotIn'}]}},
     'spec.selector.matchExpressions[0].values', 'non-empty'),
    ('Exists with values', {'selector': {'matchExpressions': [{'key': 'a', 'operator': 'Exists',
                                                              'values': ['x']}]}},
     'spec.selector.matchExpressions[0].values', 'no values'),
    ('DoesNotExist with values', {'selector': {'matchExpressions': [{'key': 'a', 'operator': 'DoesNotExist',
                                                                    'values': ['x']}]}},
     'spec.selector.matchExpressions[0].values', 'no values'),
    ('values not a list', {'selector': {'matchExpressions': [{'key': 'a', 'operator': 'In', 'values': 'x'}]}},
     'spec.selector.matchExpressions[0].values', 'list'),
    ('second expression bad', {'selector': {'matchExpressions': [{'key': 'a', 'operator': 'Exists'},
                                                                 {'key': 'b', 'operator': 'in',
                                                                  'values': ['x']}]}},
     'spec.selector.matchExpressions[1].operator', 'In, NotIn'),
    ('expression unknown field', {'selector': {'matchExpressions': [{'key': 'a', 'operator': 'Exists',
                                                                    'value': 'x'}]}},
     'spec.selector.matchExpressions[0].value', 'values'),
]


@pytest.mark.parametrize('spec,field,allowed', [c[1:] for c in INVALID_SPECS], ids=[c[0] for c in INVALID_SPECS])
def test_validate_spec_invalid(spec, field, allowed):
    with pytest.raises(co.ColocationConfigError) as err:
        co.validate_spec(spec, owner='team/offline')
    message = str(err.value)
    assert 'ColocationConfiguration team/offline' in message
    assert field in message
    assert 'allowed' in message and allowed in message
    assert err.value.field == field
    assert err.value.owner == 'team/offline'


def test_validate_spec_message_shows_bad_value():
    with pytest.raises(co.ColocationConfigError) as err:
        co.validate_spec({'memoryQos': {'highRatio': 150}}, owner='ns/c')
    assert str(err.value) == ('ColocationConfiguration ns/c: spec.memoryQos.highRatio is 150; '
                              'allowed: an integer from 0 to 100')
    assert err.value.value == 150


# ---------------------------------------------------------------- parse_config
def test_parse_config_fields():
    c = co.parse_config(cfg('offline', selector={'matchLabels': {'app': 'x'}}, memory_qos={'highRatio': 80}))
    assert c.namespace == 'team'
    assert c.name == 'offline'
    assert c.creation_timestamp == '2026-11-01T00:00:00Z'
    assert c.selector == {'matchLabels': {'app': 'x'}}
    assert c.memory_qos == {'highRatio': 80, 'lowRatio': 0, 'minRatio': 0}
    assert c.configuration == {'memoryQos': {'highRatio': 80, 'lowRatio': 0, 'minRatio': 0}}
    assert co.parse_config(c) is c


def test_parse_config_without_selector_or_memory_qos():
    c = co.parse_config(cfg('empty', selector=None))
    assert c.selector is None and c.memory_qos is None and c.configuration == {}
    assert co.parse_config(cfg('nots', ts=None)).creation_timestamp == ''


PARSE_ERRORS = [
    ('missing namespace', {'metadata': {'name': 'a'}, 'spec': {}}, 'metadata.namespace'),
    ('missing name', {'metadata': {'namespace': 'a'}, 'spec': {}}, 'metadata.name'),
    ('bad name', {'metadata': {'name': 'A_b', 'namespace': 'a'}, 'spec': {}}, 'metadata.name'),
    ('wrong apiVersion', dict(cfg('a'), apiVersion='config.volcano.sh/v1'), 'apiVersion'),
    ('wrong kind', dict(cfg('a'), kind='ConfigMap'), 'kind'),
    ('bad timestamp', cfg('a', ts='yesterday'), 'metadata.creationTimestamp'),
    ('bad ratio names object', cfg('a', memory_qos={'minRatio': 200}), 'spec.memoryQos.minRatio'),
    ('not a mapping', ['x'], 'object'),
]


@pytest.mark.parametrize('obj,field', [c[1:] for c in PARSE_ERRORS], ids=[c[0] for c in PARSE_ERRORS])
def test_parse_config_errors(obj, field):
    with pytest.raises(co.ColocationConfigError) as err:
        co.parse_config(obj)
    assert field in str(err.value)
    assert 'allowed' in str(err.value)


def test_parse_config_names_object_in_error():
    with pytest.raises(co.ColocationConfigError, match=r'ColocationConfiguration team/bad: spec.memoryQos.minRatio'):
        co.parse_config(cfg('bad', memory_qos={'minRatio': 200}))


def test_parse_config_default_namespace():
    obj = {'metadata': {'name': 'a'}, 'spec': {}}
    assert co.parse_config(obj, default_namespace='dflt').namespace == 'dflt'


# ---------------------------------------------------------------- choice
CHOICE_CASES = [
    # (id, pod, configs, expected winner name or None)
    ('newest wins',
     pod({'app': 'x'}),
     [cfg('old', '2026-01-01T00:00:00Z', {}), cfg('new', '2026-06-01T00:00:00Z', {})], 'new'),
    ('newest wins regardless of list order',
     pod({'app': 'x'}),
     [cfg('new', '2026-06-01T00:00:00Z', {}), cfg('old', '2026-01-01T00:00:00Z', {})], 'new'),
    ('newest that does not match is skipped',
     pod({'app': 'x'}),
     [cfg('old', '2026-01-01T00:00:00Z', {}), cfg('new', '2026-06-01T00:00:00Z', {'matchLabels': {'app': 'y'}})],
     'old'),
    ('tie broken by name ascending',
     pod({'app': 'x'}),
     [cfg('zeta', '2026-06-01T00:00:00Z', {}), cfg('alpha', '2026-06-01T00:00:00Z', {})], 'alpha'),
    ('tie across time zones',
     pod({'app': 'x'}),
     [cfg('zeta', '2026-06-01T02:00:00+02:00', {}), cfg('alpha', '2026-06-01T00:00:00Z', {})], 'alpha'),
    ('fractional seconds order',
     pod({'app': 'x'}),
     [cfg('b', '2026-06-01T00:00:00.5Z', {}), cfg('a', '2026-06-01T00:00:00Z', {})], 'b'),
    ('other namespace ignored',
     pod({'app': 'x'}, namespace='team'),
     [cfg('other', '2026-06-01T00:00:00Z', {}, namespace='else'), cfg('mine', '2026-01-01T00:00:00Z', {})], 'mine'),
    ('only other namespace: none',
     pod({'app': 'x'}),
     [cfg('other', selector={}, namespace='else')], None),
    ('missing selector never wins',
     pod({'app': 'x'}),
     [cfg('noselector', '2026-06-01T00:00:00Z'), cfg('all', '2026-01-01T00:00:00Z', {})], 'all'),
    ('no configs', pod({'app': 'x'}), [], None),
    ('no match', pod({'app': 'x'}), [cfg('a', selector={'matchLabels': {'app': 'y'}})], None),
    ('without timestamp counts as newest',
     pod({'app': 'x'}),
     [cfg('existing', '2026-06-01T00:00:00Z', {}), cfg('planned', None, {})], 'planned'),
    ('pod without namespace is in default',
     {'metadata': {'name': 'p', 'labels': {}}},
     [cfg('d', selector={}, namespace='default')], 'd'),
]


@pytest.mark.parametrize('the_pod,configs,expected', [c[1:] for c in CHOICE_CASES], ids=[c[0] for c in CHOICE_CASES])
def test_choose_config(the_pod, configs, expected):
    winner = co.choose_config(the_pod, configs)
    assert (winner.name if winner else None) == expected
    # parsed configs give the same answer as raw objects
    parsed = [co.parse_config(c) for c in configs]
    winner2 = co.choose_config(the_pod, list(reversed(parsed)))
    assert (winner2.name if winner2 else None) == expected


def test_sort_configs_order():
    names = [c.name for c in co.sort_configs([
        cfg('b', '2026-01-01T00:00:00Z'), cfg('a', '2026-01-01T00:00:00Z'),
        cfg('c', '2026-03-01T00:00:00Z'), cfg('n', None)])]
    assert names == ['n', 'c', 'a', 'b']


# ---------------------------------------------------------------- annotations
def test_annotation_json_compact_sorted():
    c = co.parse_config(cfg('a', selector={}, memory_qos={'highRatio': 80, 'lowRatio': 20, 'minRatio': 10}))
    assert co.annotation_json(c) == '{"memoryQos":{"highRatio":80,"lowRatio":20,"minRatio":10}}'
    assert co.annotation_json(co.parse_config(cfg('b', selector={}))) == '{}'


PARSE_ANNOTATION_CASES = [
    ('absent', None, None),
    ('empty string: agent skips', '', None),
    ('reset', '{}', {}),
    ('memoryQos null is reset', '{"memoryQos":null}', {}),
    ('full', '{"memoryQos":{"highRatio":80,"lowRatio":20,"minRatio":10}}',
     {'memoryQos': {'highRatio': 80, 'lowRatio': 20, 'minRatio': 10}}),
    ('Volcano omits zero ratios', '{"memoryQos":{"highRatio":80}}',
     {'memoryQos': {'highRatio': 80, 'lowRatio': 0, 'minRatio': 0}}),
    ('missing highRatio means 0 like Go', '{"memoryQos":{"lowRatio":5}}',
     {'memoryQos': {'highRatio': 0, 'lowRatio': 5, 'minRatio': 0}}),
    ('spacing and unknown keys ignored', ' { "cpuQos": {}, "memoryQos" : { "minRatio" : 3 } } ',
     {'memoryQos': {'highRatio': 0, 'lowRatio': 0, 'minRatio': 3}}),
]


@pytest.mark.parametrize('value,expected', [c[1:] for c in PARSE_ANNOTATION_CASES],
                         ids=[c[0] for c in PARSE_ANNOTATION_CASES])
def test_parse_annotation(value, expected):
    assert co.parse_annotation(value) == expected


# Go's encoding/json (as Volcano's agent reads the annotation, pkg/agent/events/handlers/memoryqosv2
# parseColocationConfig, json.Unmarshal into volcano.sh/apis config/v1alpha1 Configuration):
GO_JSON_CASES = [
    ('JSON null: Unmarshal leaves the struct empty, a reset', 'null', {}),
    ('keys match case-insensitively', '{"MemoryQos":{"HighRatio":50}}',
     {'memoryQos': {'highRatio': 50, 'lowRatio': 0, 'minRatio': 0}}),
    ('upper-case keys', '{"MEMORYQOS":{"LOWRATIO":7,"minratio":3}}',
     {'memoryQos': {'highRatio': 0, 'lowRatio': 7, 'minRatio': 3}}),
    ('Unicode simple folding: U+017F is s', u'{"memoryQo\u017f":{"highRatio":60}}',
     {'memoryQos': {'highRatio': 60, 'lowRatio': 0, 'minRatio': 0}}),
    ('not a fold: U+0130 is not i', u'{"memoryQos":{"h\u0130ghRatio":60}}',
     {'memoryQos': {'highRatio': 0, 'lowRatio': 0, 'minRatio': 0}}),
    ('duplicate key: the later wins', '{"memoryQos":{"highRatio":10,"highRatio":20}}',
     {'memoryQos': {'highRatio': 20, 'lowRatio': 0, 'minRatio': 0}}),
    ('second memoryQos decodes into the first', '{"memoryQos":{"highRatio":10,"lowRatio":5},"MemoryQos":{"highRatio":30}}',
     {'memoryQos': {'highRatio': 30, 'lowRatio': 5, 'minRatio': 0}}),
    ('a later memoryQos null drops the earlier one', '{"memoryQos":{"highRatio":10},"memoryqos":null}', {}),
    ('a ratio null keeps its value', '{"memoryQos":{"highRatio":10,"highRatio":null}}',
     {'memoryQos': {'highRatio': 10, 'lowRatio': 0, 'minRatio': 0}}),
    ('unknown keys of any type are ignored', '{"x":[1,{"y":null}],"memoryQos":{"z":"w","minRatio":1}}',
     {'memoryQos': {'highRatio': 0, 'lowRatio': 0, 'minRatio': 1}}),
]


@pytest.mark.parametrize('value,expected', [c[1:] for c in GO_JSON_CASES], ids=[c[0] for c in GO_JSON_CASES])
def test_parse_annotation_like_go_encoding_json(value, expected):
    assert co.parse_annotation(value) == expected


def test_go_fold():
    assert co.go_fold('memoryQos') == co.go_fold('MEMORYQOS') == co.go_fold(u'memoryQo\u017f') == 'MEMORYQOS'
    assert co.go_fold(u'\u212aey') == co.go_fold('key')


# What Go refuses (json.Unmarshal returns an error, the agent emits ColocationConfigParseFailed and skips
# the pod), and, deliberately beyond the agent, ratios outside the CRD's 0-100.
@pytest.mark.parametrize('value', ['{', '[]', '"x"', '5', '{"memoryQos":[]}', '{"memoryQos":5}', '{"memoryQos":"x"}',
                                   '{"memoryQos":{"highRatio":150}}', '{"memoryQos":{"lowRatio":-1}}',
                                   '{"memoryQos":{"highRatio":"80"}}', '{"memoryQos":{"lowRatio":1.5}}',
                                   '{"memoryQos":{"lowRatio":1e1}}', '{"memoryQos":{"lowRatio":true}}',
                                   '{"memoryQos":{"lowRatio":9223372036854775808}}', '{"memoryQos":{"lowRatio":NaN}}'])
def test_parse_annotation_invalid(value):
    with pytest.raises(co.ColocationConfigError) as err:
        co.parse_annotation(value, owner='team/p')
    assert 'volcano.sh/colocation-config' in str(err.value)
    assert 'team/p' in str(err.value)


@pytest.mark.parametrize('configuration,expected', [
    ({}, {'highRatio': 100, 'lowRatio': 0, 'minRatio': 0}),
    (None, {'highRatio': 100, 'lowRatio': 0, 'minRatio': 0}),
    ({'memoryQos': {'highRatio': 50, 'lowRatio': 1, 'minRatio': 2}}, {'highRatio': 50, 'lowRatio': 1, 'minRatio': 2}),
])
def test_effective_memory_qos(configuration, expected):
    assert co.effective_memory_qos(configuration) == expected


CONF80 = '{"memoryQos":{"highRatio":80,"lowRatio":20,"minRatio":10}}'
ANN_CASES = [
    # (id, pod, configs, desired, patch annotations or None)
    ('winner on fresh pod', pod({'app': 'x'}),
     [cfg('c', selector={}, memory_qos={'highRatio': 80, 'lowRatio': 20, 'minRatio': 10})],
     {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: CONF80},
     {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: CONF80}),
    ('already up to date', pod({'app': 'x'}, {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: CONF80}),
     [cfg('c', selector={}, memory_qos={'highRatio': 80, 'lowRatio': 20, 'minRatio': 10})],
     {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: CONF80}, None),
    ('other spacing is equal', pod({}, {co.ANNOTATION_CONFIG_NAME: 'c',
                                        co.ANNOTATION_CONFIG: '{"memoryQos": {"minRatio": 10, "lowRatio": 20, '
                                                              '"highRatio": 80}}'}),
     [cfg('c', selector={}, memory_qos={'highRatio': 80, 'lowRatio': 20, 'minRatio': 10})],
     {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: CONF80}, None),
    ('Volcano form with zeros omitted is equal',
     pod({}, {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: '{"memoryQos":{"highRatio":80}}'}),
     [cfg('c', selector={}, memory_qos={'highRatio': 80})],
     {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: '{"memoryQos":{"highRatio":80}}'},
     None),
    ('value changed', pod({}, {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: '{"memoryQos":{"highRatio":90}}'}),
     [cfg('c', selector={}, memory_qos={'highRatio': 80, 'lowRatio': 20, 'minRatio': 10})],
     {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: CONF80}, {co.ANNOTATION_CONFIG: CONF80}),
    ('name changed only', pod({}, {co.ANNOTATION_CONFIG_NAME: 'old', co.ANNOTATION_CONFIG: CONF80}),
     [cfg('c', selector={}, memory_qos={'highRatio': 80, 'lowRatio': 20, 'minRatio': 10})],
     {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: CONF80}, {co.ANNOTATION_CONFIG_NAME: 'c'}),
    ('garbage annotation rewritten', pod({}, {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: 'garbage'}),
     [cfg('c', selector={}, memory_qos={'highRatio': 80, 'lowRatio': 20, 'minRatio': 10})],
     {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: CONF80}, {co.ANNOTATION_CONFIG: CONF80}),
    ('winner without memoryQos writes reset json', pod({}), [cfg('c', selector={})],
     {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: '{}'},
     {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: '{}'}),
    ('lost match: reset and drop name', pod({}, {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: CONF80}), [],
     {co.ANNOTATION_CONFIG_NAME: None, co.ANNOTATION_CONFIG: '{}'},
     {co.ANNOTATION_CONFIG_NAME: None, co.ANNOTATION_CONFIG: '{}'}),
    ('only name left: reset', pod({}, {co.ANNOTATION_CONFIG_NAME: 'c'}), [],
     {co.ANNOTATION_CONFIG_NAME: None, co.ANNOTATION_CONFIG: '{}'},
     {co.ANNOTATION_CONFIG_NAME: None, co.ANNOTATION_CONFIG: '{}'}),
    ('only config left: reset', pod({}, {co.ANNOTATION_CONFIG: CONF80}), [],
     {co.ANNOTATION_CONFIG_NAME: None, co.ANNOTATION_CONFIG: '{}'}, {co.ANNOTATION_CONFIG: '{}'}),
    ('already reset', pod({}, {co.ANNOTATION_CONFIG: '{}'}), [],
     {co.ANNOTATION_CONFIG_NAME: None, co.ANNOTATION_CONFIG: '{}'}, None),
    # Volcano v1.15.0 pkg/controllers/colocationconfig/colocation_config_controller_handler.go
    # resetColocationConfigForPod compares the annotation maps exactly: anything but "{}" is rewritten.
    ('reset with memoryQos null is rewritten to {}', pod({}, {co.ANNOTATION_CONFIG: '{"memoryQos":null}'}), [],
     {co.ANNOTATION_CONFIG_NAME: None, co.ANNOTATION_CONFIG: '{}'}, {co.ANNOTATION_CONFIG: '{}'}),
    ('reset with JSON null is rewritten to {}', pod({}, {co.ANNOTATION_CONFIG: 'null'}), [],
     {co.ANNOTATION_CONFIG_NAME: None, co.ANNOTATION_CONFIG: '{}'}, {co.ANNOTATION_CONFIG: '{}'}),
    ('reset with spaces is rewritten to {}', pod({}, {co.ANNOTATION_CONFIG: '{ }'}), [],
     {co.ANNOTATION_CONFIG_NAME: None, co.ANNOTATION_CONFIG: '{}'}, {co.ANNOTATION_CONFIG: '{}'}),
    # getModifiedPod: json.Unmarshal (case-insensitive keys, null is an empty Configuration) then DeepEqual
    ('winner: other key case is equal (Go encoding/json)',
     pod({}, {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: '{"MemoryQos":{"HIGHRATIO":80,"lowratio":20,"minRatio":10}}'}),
     [cfg('c', selector={}, memory_qos={'highRatio': 80, 'lowRatio': 20, 'minRatio': 10})],
     {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: CONF80}, None),
    ('winner without memoryQos: JSON null is equal', pod({}, {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: 'null'}),
     [cfg('c', selector={})], {co.ANNOTATION_CONFIG_NAME: 'c', co.ANNOTATION_CONFIG: '{}'}, None),
    ('empty value is not a reset', pod({}, {co.ANNOTATION_CONFIG: ''}), [],
     {co.ANNOTATION_CONFIG_NAME: None, co.ANNOTATION_CONFIG: '{}'}, {co.ANNOTATION_CONFIG: '{}'}),
    ('never managed, no match: nothing', pod({'a': 'b'}, {'other': 'x'}), [cfg('c', selector={'matchLabels': {'a': 'c'}})],
     {}, None),
    ('never managed, no annotations at all', pod({}), [], {}, None),
]


@pytest.mark.parametrize('the_pod,configs,desired,patch', [c[1:] for c in ANN_CASES], ids=[c[0] for c in ANN_CASES])
def test_desired_annotations_and_patch(the_pod, configs, desired, patch):
    assert co.desired_annotations(the_pod, configs) == desired
    expected = None if patch is None else {'metadata': {'annotations': patch}}
    assert co.annotations_patch(the_pod, configs) == expected


def test_patch_then_converged():
    """Applying the patch (merge-patch semantics) yields a pod that needs no further patch."""
    configs = [cfg('c', selector={}, memory_qos={'highRatio': 70})]
    the_pod = pod({}, {co.ANNOTATION_CONFIG_NAME: 'old', 'keep': 'me'})
    patch = co.annotations_patch(the_pod, configs)
    ann = dict(the_pod['metadata']['annotations'])
    for k, v in patch['metadata']['annotations'].items():
        if v is None:
            ann.pop(k, None)
        else:
            ann[k] = v
    the_pod['metadata']['annotations'] = ann
    assert ann['keep'] == 'me'
    assert co.annotations_patch(the_pod, configs) is None


@pytest.mark.parametrize('value,expected', [
    ('2026-11-29T10:00:00Z', '2026-11-29T10:00:00+00:00'),
    ('2026-11-29T12:00:00+02:00', '2026-11-29T10:00:00+00:00'),
    ('2026-11-29T10:00:00.123456Z', '2026-11-29T10:00:00.123456+00:00'),
])
def test_parse_timestamp(value, expected):
    assert co.parse_timestamp(value).astimezone(co.UTC).isoformat() == expected


def test_parse_timestamp_empty_and_bad():
    assert co.parse_timestamp('') is None
    assert co.parse_timestamp(None) is None
    with pytest.raises(ValueError):
        co.parse_timestamp('2026-11-29')
