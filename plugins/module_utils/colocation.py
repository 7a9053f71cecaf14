# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Volcano ColocationConfiguration (config.volcano.sh/v1alpha1) semantics, as plain Python.

Shared by the node-side ``memory_qos`` module and the cluster-side ``colocation_config`` /
``colocation_sync`` modules. Pure and stdlib-only (runs on managed nodes, Python 3.8+).

What this reproduces from Volcano:

* ``spec.selector`` is a standard LabelSelector. A missing selector matches nothing (Volcano converts a
  nil selector to ``labels.Nothing()``); ``{}`` matches every pod of the namespace.
* ``spec.memoryQos`` ratios are integers 0..100; the CRD schema defaults them (highRatio 100,
  lowRatio 0, minRatio 0) only when ``memoryQos`` itself is present.
* The controller considers the configurations of the pod's own namespace newest ``creationTimestamp``
  first and the first whose selector matches wins. Volcano's sort is not stable for equal timestamps;
  here ties are broken by name (ascending) so the result is deterministic.
* The winner's name and configuration (the spec minus the selector, as JSON) go into the pod
  annotations ``volcano.sh/colocation-config-name`` / ``volcano.sh/colocation-config``. A pod that
  carries either annotation but no longer matches anything gets ``{}`` (the reset value) and loses the
  name annotation.
* The agent reads the annotation with Go ``encoding/json`` semantics: Volcano's ``MemoryQos`` fields
  are ``int`` with ``omitempty``, so a ratio missing from the annotation JSON means 0 (Volcano's own
  controller omits zero ratios when it writes the annotation). An absent or empty annotation means
  "not managed"; ``{}`` or a configuration without ``memoryQos`` means "reset".
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import collections
import copy
import datetime
import json
import re

GROUP = 'config.volcano.sh'
VERSION = 'v1alpha1'
KIND = 'ColocationConfiguration'
PLURAL = 'colocationconfigurations'
API_VERSION = GROUP + '/' + VERSION
ANNOTATION_CONFIG_NAME = 'volcano.sh/colocation-config-name'
ANNOTATION_CONFIG = 'volcano.sh/colocation-config'
RESET_VALUE = '{}'

MEMORY_QOS_FIELDS = ('highRatio', 'lowRatio', 'minRatio')
# The CRD schema's defaults (applied by the API server only when memoryQos is present).
MEMORY_QOS_DEFAULTS = {'highRatio': 100, 'lowRatio': 0, 'minRatio': 0}
# What the agent applies when a pod's configuration has no memoryQos: the reset values.
MEMORY_QOS_RESET = {'highRatio': 100, 'lowRatio': 0, 'minRatio': 0}
SPEC_FIELDS = ('selector', 'memoryQos')
SELECTOR_FIELDS = ('matchLabels', 'matchExpressions')
EXPRESSION_FIELDS = ('key', 'operator', 'values')
OPERATORS = ('In', 'NotIn', 'Exists', 'DoesNotExist')

_LABEL_NAME_RE = re.compile(r'^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$')
_DNS_SUBDOMAIN_RE = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')
_TIMESTAMP_RE = re.compile(
    r'^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$')

UTC = datetime.timezone.utc

ColocationConfig = collections.namedtuple(
    'ColocationConfig',
    ['namespace', 'name', 'creation_timestamp', 'selector', 'memory_qos', 'configuration'])
ColocationConfig.__doc__ = """A parsed ColocationConfiguration.

namespace, name, creation_timestamp (str, '' when the object carries none),
selector (dict or None), memory_qos (dict with defaults applied, or None) and
configuration (the normalised spec minus the selector: what goes into the pod annotation).
"""


class ColocationConfigError(ValueError):
    """Invalid ColocationConfiguration or colocation annotation.

    The message names the object (``namespace/name``), the field path, the bad value and what is
    allowed; the parts are also available as attributes.
    """

    def __init__(self, message, owner=None, field=None, value=None, allowed=None):
        self.owner = owner
        self.field = field
        self.value = value
        self.allowed = allowed
        super(ColocationConfigError, self).__init__(message)


def _show(value):
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def _fail(owner, field, value, allowed, problem=None):
    who = '%s %s' % (KIND, owner) if owner else KIND
    what = problem or ('%s is %s' % (field, _show(value)))
    raise ColocationConfigError('%s: %s; allowed: %s' % (who, what, allowed),
                                owner=owner, field=field, value=value, allowed=allowed)


def _unknown_keys(mapping, allowed_keys, where, owner):
    extra = sorted(k for k in mapping if k not in allowed_keys)
    if extra:
        _fail(owner, '%s.%s' % (where, extra[0]), mapping[extra[0]],
              'only %s' % ', '.join('%s.%s' % (where, k) for k in allowed_keys),
              problem='unknown field %s.%s' % (where, extra[0]))


def _check_label_key(key, field, owner):
    allowed = ('a label key: an optional DNS subdomain prefix and "/", then 1-63 characters '
               '[A-Za-z0-9-_.] starting and ending with an alphanumeric character')
    if not isinstance(key, str) or not key:
        _fail(owner, field, key, allowed)
    prefix, sep, name = key.rpartition('/')
    if sep and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN_RE.fullmatch(prefix)):
        _fail(owner, field, key, allowed)
    if len(name) > 63 or not _LABEL_NAME_RE.fullmatch(name):
        _fail(owner, field, key, allowed)


def _check_label_value(value, field, owner):
    allowed = ('a label value: a string of at most 63 characters [A-Za-z0-9-_.], empty or starting '
               'and ending with an alphanumeric character')
    if not isinstance(value, str) or len(value) > 63 or (value and not _LABEL_NAME_RE.fullmatch(value)):
        _fail(owner, field, value, allowed)


def validate_selector(selector, where='spec.selector', owner=None):
    """Validate a LabelSelector; return a normalised copy (None stays None: matches nothing)."""
    if selector is None:
        return None
    if not isinstance(selector, dict):
        _fail(owner, where, selector, 'a LabelSelector mapping with matchLabels and/or matchExpressions')
    _unknown_keys(selector, SELECTOR_FIELDS, where, owner)
    result = {}
    labels = selector.get('matchLabels')
    if labels is not None:
        field = where + '.matchLabels'
        if not isinstance(labels, dict):
            _fail(owner, field, labels, 'a mapping of label keys to label values')
        for key in sorted(labels):
            _check_label_key(key, '%s.%s' % (field, key), owner)
            _check_label_value(labels[key], '%s.%s' % (field, key), owner)
        result['matchLabels'] = dict(labels)
    expressions = selector.get('matchExpressions')
    if expressions is not None:
        field = where + '.matchExpressions'
        if not isinstance(expressions, list):
            _fail(owner, field, expressions, 'a list of {key, operator, values} requirements')
        result['matchExpressions'] = [
            _validate_expression(expr, '%s[%d]' % (field, index), owner)
            for index, expr in enumerate(expressions)]
    return result


def _validate_expression(expr, where, owner):
    if not isinstance(expr, dict):
        _fail(owner, where, expr, 'a requirement mapping with key, operator and values')
    _unknown_keys(expr, EXPRESSION_FIELDS, where, owner)
    if 'key' not in expr:
        _fail(owner, where + '.key', None, 'a label key', problem='%s.key is missing' % where)
    _check_label_key(expr['key'], where + '.key', owner)
    operator = expr.get('operator')
    if operator not in OPERATORS:
        _fail(owner, where + '.operator', operator, ', '.join(OPERATORS))
    values = expr.get('values')
    if values is None:
        values = []
    if not isinstance(values, list):
        _fail(owner, where + '.values', values, 'a list of label values')
    for index, value in enumerate(values):
        _check_label_value(value, '%s.values[%d]' % (where, index), owner)
    if operator in ('In', 'NotIn') and not values:
        _fail(owner, where + '.values', values, 'a non-empty list of label values for operator %s' % operator)
    if operator in ('Exists', 'DoesNotExist') and values:
        _fail(owner, where + '.values', values, 'no values (an empty list) for operator %s' % operator)
    return {'key': expr['key'], 'operator': operator, 'values': list(values)}


def _validate_ratio(value, field, owner):
    # bool is a subclass of int: refuse it explicitly (true is not 1 percent).
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value > 100:
        _fail(owner, field, value, 'an integer from 0 to 100')
    return value


def validate_memory_qos(memory_qos, where='spec.memoryQos', owner=None):
    """Validate spec.memoryQos; return a copy with the CRD defaults applied (None stays None)."""
    if memory_qos is None:
        return None
    if not isinstance(memory_qos, dict):
        _fail(owner, where, memory_qos, 'a mapping with highRatio, lowRatio and minRatio (integers 0-100)')
    _unknown_keys(memory_qos, MEMORY_QOS_FIELDS, where, owner)
    result = dict(MEMORY_QOS_DEFAULTS)
    for key in MEMORY_QOS_FIELDS:
        if key in memory_qos and memory_qos[key] is not None:
            result[key] = _validate_ratio(memory_qos[key], '%s.%s' % (where, key), owner)
    return result


def validate_spec(spec, where='spec', owner=None):
    """Validate a ColocationConfiguration spec; return a normalised copy.

    The selector is validated (LabelSelector shape, label syntax, operators); memoryQos ratios must be
    integers 0-100 (booleans and strings refused). Defaults (highRatio 100, lowRatio 0, minRatio 0) are
    applied only when memoryQos is present, exactly like the CRD schema. ``owner`` (``namespace/name``)
    is used in error messages.
    """
    if spec is None:
        spec = {}
    if not isinstance(spec, dict):
        _fail(owner, where, spec, 'a mapping with selector and memoryQos')
    _unknown_keys(spec, SPEC_FIELDS, where, owner)
    result = {}
    if 'selector' in spec and spec['selector'] is not None:
        result['selector'] = validate_selector(spec['selector'], where + '.selector', owner)
    memory_qos = validate_memory_qos(spec.get('memoryQos'), where + '.memoryQos', owner)
    if memory_qos is not None:
        result['memoryQos'] = memory_qos
    return result


def parse_timestamp(value):
    """Parse an RFC 3339 timestamp (metadata.creationTimestamp) into an aware datetime; None if empty."""
    if value is None or value == '':
        return None
    if isinstance(value, datetime.datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    match = _TIMESTAMP_RE.fullmatch(value) if isinstance(value, str) else None
    if not match:
        raise ValueError('not an RFC 3339 timestamp like 2026-11-29T10:00:00Z: %s' % _show(value))
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    fraction, zone = match.group(7), match.group(8)
    micro = int((fraction[1:] + '000000')[:6]) if fraction else 0
    if zone in ('Z', 'z'):
        tz = UTC
    else:
        digits = zone[1:].replace(':', '')
        offset = datetime.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        tz = datetime.timezone(-offset if zone[0] == '-' else offset)
    return datetime.datetime(year, month, day, hour, minute, second, micro, tzinfo=tz)


def parse_config(obj, default_namespace=None):
    """Parse a ColocationConfiguration API object (a dict) into a ColocationConfig.

    ``metadata.namespace`` is required (the resource is namespaced) unless ``default_namespace`` is
    given. A missing creationTimestamp (a manifest not yet created) is kept as ``''``.
    """
    if isinstance(obj, ColocationConfig):
        return obj
    if not isinstance(obj, dict):
        _fail(None, 'object', obj, 'a %s object (a mapping with metadata and spec)' % KIND)
    metadata = obj.get('metadata') or {}
    if not isinstance(metadata, dict):
        _fail(None, 'metadata', metadata, 'a mapping with name and namespace')
    name = metadata.get('name')
    namespace = metadata.get('namespace') or default_namespace
    owner = '%s/%s' % (namespace or '?', name or '?')
    if not isinstance(name, str) or not name or len(name) > 253 or not _DNS_SUBDOMAIN_RE.fullmatch(name):
        _fail(owner, 'metadata.name', name,
              'a DNS subdomain name (lower-case alphanumerics, "-" and ".", at most 253 characters)')
    if not isinstance(namespace, str) or not namespace or len(namespace) > 63 \
            or not re.fullmatch(r'[a-z0-9]([-a-z0-9]*[a-z0-9])?', namespace):
        _fail(owner, 'metadata.namespace', namespace,
              'a namespace name (%s is namespaced; set metadata.namespace)' % KIND)
    api_version = obj.get('apiVersion')
    if api_version is not None and api_version != API_VERSION:
        _fail(owner, 'apiVersion', api_version, API_VERSION)
    kind = obj.get('kind')
    if kind is not None and kind != KIND:
        _fail(owner, 'kind', kind, KIND)
    timestamp = metadata.get('creationTimestamp')
    if timestamp is None:
        timestamp = ''
    try:
        parse_timestamp(timestamp)
    except ValueError:
        _fail(owner, 'metadata.creationTimestamp', timestamp, 'an RFC 3339 timestamp like 2026-11-29T10:00:00Z')
    if isinstance(timestamp, datetime.datetime):
        timestamp = timestamp.isoformat()
    spec = validate_spec(obj.get('spec'), 'spec', owner)
    configuration = dict((k, copy.deepcopy(v)) for k, v in spec.items() if k != 'selector')
    return ColocationConfig(namespace=namespace, name=name, creation_timestamp=timestamp,
                            selector=spec.get('selector'), memory_qos=spec.get('memoryQos'),
                            configuration=configuration)


def selector_matches(selector, labels):
    """LabelSelector semantics: None matches nothing, {} matches everything.

    matchLabels AND every matchExpressions requirement must hold. NotIn and DoesNotExist match a pod
    without the label, as in Kubernetes. An unknown operator raises ColocationConfigError.
    """
    if selector is None:
        return False
    labels = labels or {}
    for key, value in (selector.get('matchLabels') or {}).items():
        if key not in labels or labels[key] != value:
            return False
    for index, expr in enumerate(selector.get('matchExpressions') or []):
        key = expr.get('key')
        operator = expr.get('operator')
        values = expr.get('values') or []
        if operator == 'In':
            ok = key in labels and labels[key] in values
        elif operator == 'NotIn':
            ok = key not in labels or labels[key] not in values
        elif operator == 'Exists':
            ok = key in labels
        elif operator == 'DoesNotExist':
            ok = key not in labels
        else:
            _fail(None, 'selector.matchExpressions[%d].operator' % index, operator, ', '.join(OPERATORS))
        if not ok:
            return False
    return True


def _sort_key(config):
    stamp = parse_timestamp(config.creation_timestamp)
    if stamp is None:
        # Not created yet: the API server would stamp it "now", newer than anything that exists.
        return (0, 0.0, config.name)
    return (1, -stamp.timestamp(), config.name)


def sort_configs(configs):
    """Newest creationTimestamp first, ties by name ascending; configs without a timestamp first."""
    return sorted((parse_config(c) for c in configs), key=_sort_key)


def pod_namespace(pod):
    return ((pod or {}).get('metadata') or {}).get('namespace') or 'default'


def pod_labels(pod):
    return ((pod or {}).get('metadata') or {}).get('labels') or {}


def pod_annotations(pod):
    return ((pod or {}).get('metadata') or {}).get('annotations') or {}


def choose_config(pod, configs):
    """The configuration the Volcano controller would give this pod, or None.

    Only configs of the pod's own namespace are considered, newest creationTimestamp first, ties broken
    by name (ascending); the first whose selector matches the pod's labels wins.
    """
    namespace = pod_namespace(pod)
    labels = pod_labels(pod)
    for config in sort_configs(configs):
        if config.namespace == namespace and selector_matches(config.selector, labels):
            return config
    return None


def annotation_json(config):
    """The pod annotation's value byte for byte as Volcano's controller writes it: Go's ``json.Marshal`` of
    the spec's configuration, compact, whose fields are all ``omitempty``. A ratio of 0 is left out
    (``{"memoryQos":{"highRatio":80}}``: the agent reads a missing ratio as 0), no memoryQos is ``{}``;
    the keys come in the struct's field order, which is also their sorted order."""
    configuration = config.configuration if isinstance(config, ColocationConfig) else config
    qos = (configuration or {}).get('memoryQos')
    if qos is None:
        return '{}'
    return json.dumps({'memoryQos': dict((k, v) for k, v in qos.items() if v)}, sort_keys=True, separators=(',', ':'))


# Go's encoding/json folds ASCII letters and, through unicode.SimpleFold, two non-ASCII runes onto ASCII
# ones: U+017F (long s) is "s", U+212A (Kelvin sign) is "k". Only ASCII field names matter here.
_GO_FOLD = {u'\u017f': 'S', u'\u212a': 'K'}


def go_fold(name):
    """The key Go's encoding/json compares a JSON object key by (case-insensitive, Unicode simple folding)."""
    return ''.join(_GO_FOLD.get(c, c.upper() if c < u'\x80' else c) for c in name)


_FOLDED_MEMORY_QOS = go_fold('memoryQos')
_FOLDED_RATIOS = dict((go_fold(k), k) for k in MEMORY_QOS_FIELDS)


class _Object(list):
    """A JSON object as its (key, value) pairs in document order (JSON arrays stay plain lists)."""


def _no_constant(name):
    raise ValueError('%s is not JSON' % name)


def _plain(value):
    """A parsed value with its objects turned back into dicts (for messages)."""
    if isinstance(value, _Object):
        return dict((k, _plain(v)) for k, v in value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _go_int(raw, field, owner):
    """A JSON number decoded into a Go int field: an integer literal within int64, else Go refuses it."""
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < -2 ** 63 or raw >= 2 ** 63:
        _fail(owner, field, _plain(raw), 'an integer from 0 to 100')
    return raw


def parse_annotation(value, owner=None):
    """Read a ``volcano.sh/colocation-config`` value the way the Volcano agent does (Go encoding/json).

    Returns None for an absent or empty annotation (the agent skips such a pod), ``{}`` for a reset
    (``{}``, ``null``, ``{"memoryQos": null}``), or ``{'memoryQos': {...}}`` with all three ratios, a ratio
    missing from the JSON meaning 0 (Go zero value; Volcano's controller omits zero ratios).

    Go's semantics: keys match case-insensitively (``{"MemoryQos":{"HighRatio":80}}`` is highRatio 80);
    when a key occurs twice the later one wins, and a second ``memoryQos`` object is decoded into the first
    (ratios it does not name keep their value); ``null`` leaves a ratio unchanged and sets memoryQos to
    none; unknown keys are ignored. Raises ColocationConfigError for what Go refuses (JSON that is not an
    object or null, a memoryQos that is not an object, a ratio that is not an integer literal) and,
    deliberately beyond the agent, for a ratio outside 0-100 (the CRD schema's bounds).
    """
    field = 'metadata.annotations["%s"]' % ANNOTATION_CONFIG
    if value is None or value == '':
        return None
    if not isinstance(value, str):
        _fail(owner, field, value, 'a JSON object string like {"memoryQos":{"highRatio":80}}')
    try:
        data = json.loads(value, object_pairs_hook=_Object, parse_constant=_no_constant)
    except ValueError as exc:
        _fail(owner, field, value, 'a JSON object like {"memoryQos":{"highRatio":80}} or {}',
              problem='%s is not valid JSON (%s): %s' % (field, exc, _show(value)))
    if data is None:
        return {}
    if not isinstance(data, _Object):
        _fail(owner, field, value, 'a JSON object like {"memoryQos":{"highRatio":80}} or {}')
    memory_qos = None
    for key, raw in data:
        if go_fold(key) != _FOLDED_MEMORY_QOS:
            continue
        if raw is None:
            memory_qos = None
            continue
        if not isinstance(raw, _Object):
            _fail(owner, field + '.memoryQos', _plain(raw), 'an object with highRatio, lowRatio, minRatio')
        if memory_qos is None:
            memory_qos = dict((k, 0) for k in MEMORY_QOS_FIELDS)
        for ratio_key, ratio in raw:
            name = _FOLDED_RATIOS.get(go_fold(ratio_key))
            if name is None or ratio is None:
                continue
            memory_qos[name] = _go_int(ratio, '%s.memoryQos.%s' % (field, name), owner)
    if memory_qos is None:
        return {}
    for name in MEMORY_QOS_FIELDS:
        _validate_ratio(memory_qos[name], '%s.memoryQos.%s' % (field, name), owner)
    return {'memoryQos': memory_qos}


def effective_memory_qos(configuration):
    """The ratios the agent applies for a configuration: its memoryQos, or the reset values."""
    memory_qos = (configuration or {}).get('memoryQos')
    if memory_qos is None:
        return dict(MEMORY_QOS_RESET)
    result = dict(MEMORY_QOS_DEFAULTS)
    result.update(memory_qos)
    return result


def desired_annotations(pod, configs):
    """The pod's annotation pair after a reconcile (merge-patch semantics, None = remove).

    Winner: ``{NAME: name, CONFIG: json}``. No winner but the pod carries either annotation:
    ``{NAME: None, CONFIG: '{}'}``. No winner and no annotations: ``{}``.
    """
    winner = choose_config(pod, configs)
    if winner is not None:
        return {ANNOTATION_CONFIG_NAME: winner.name, ANNOTATION_CONFIG: annotation_json(winner)}
    current = pod_annotations(pod)
    if ANNOTATION_CONFIG_NAME in current or ANNOTATION_CONFIG in current:
        return {ANNOTATION_CONFIG_NAME: None, ANNOTATION_CONFIG: RESET_VALUE}
    return {}


def _same_config(current, desired):
    try:
        return parse_annotation(current) == parse_annotation(desired)
    except ColocationConfigError:
        return False


def annotations_patch(pod, configs):
    """The merge patch ``{'metadata': {'annotations': {...}}}`` that brings the pod up to date, or None.

    As Volcano's controller does (pkg/controllers/colocationconfig, getModifiedPod): for a pod a
    configuration selects, the configuration annotation is compared semantically (decoded with Go's
    encoding/json rules, then compared), so an equal configuration written with other spacing, key order
    or key case, or with zero ratios omitted, is not rewritten. For a reset (resetColocationConfigForPod)
    the annotations are compared as strings: only exactly ``{}`` is a done reset; ``null`` or ``{ }`` is
    rewritten to ``{}``. When a selected pod needs an update at all (another configuration name, or a
    configuration that differs), both annotations are written as Volcano writes them, so an equal
    configuration in other bytes is replaced together with the name.
    """
    current = pod_annotations(pod)
    changes = {}
    reset = choose_config(pod, configs) is None
    desired = desired_annotations(pod, configs)
    for key, value in desired.items():
        if value is None:
            if key in current:
                changes[key] = None
        elif key not in current:
            changes[key] = value
        elif key == ANNOTATION_CONFIG and not reset:
            if not _same_config(current[key], value):
                changes[key] = value
        elif current[key] != value:
            changes[key] = value
    if not changes:
        return None
    if not reset:
        changes = dict((key, value) for key, value in desired.items() if current.get(key) != value)
    return {'metadata': {'annotations': changes}}
