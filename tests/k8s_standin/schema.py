# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""OpenAPI v3 (structural schema) handling of the Kubernetes API stand-in for custom objects:
pruning of unknown fields, defaulting and validation, in that order, like kube-apiserver.

Validation returns field causes ``{'reason', 'message', 'field'}`` worded like the real API.
"""
from __future__ import annotations

import copy
import json
import re

ROOT_KEEP = ('apiVersion', 'kind', 'metadata')


def _show(value):
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def _join(path, key):
    return '%s.%s' % (path, key) if path else key


def prune(obj, schema, path='', root=True):
    """Drop fields the schema does not know; returns (new value, list of dropped field paths)."""
    dropped = []
    if not isinstance(schema, dict):
        return obj, dropped
    if isinstance(obj, dict):
        props = schema.get('properties')
        additional = schema.get('additionalProperties')
        preserve = schema.get('x-kubernetes-preserve-unknown-fields')
        result = {}
        for key, value in obj.items():
            if root and key in ROOT_KEEP:
                result[key] = value
                continue
            if props is not None and key in props:
                result[key], sub = prune(value, props[key], _join(path, key), False)
                dropped.extend(sub)
            elif isinstance(additional, dict):
                result[key], sub = prune(value, additional, _join(path, key), False)
                dropped.extend(sub)
            elif additional is True or preserve:
                result[key] = value
            elif props is None and schema.get('type') != 'object':
                result[key] = value
            else:
                dropped.append(_join(path, key))
        return result, dropped
    if isinstance(obj, list) and isinstance(schema.get('items'), dict):
        result = []
        for index, item in enumerate(obj):
            value, sub = prune(item, schema['items'], '%s[%d]' % (path, index), False)
            result.append(value)
            dropped.extend(sub)
        return result, dropped
    return obj, dropped


def apply_defaults(obj, schema):
    """Apply ``default`` of properties missing from objects that exist (recursively); returns a new value."""
    if not isinstance(schema, dict):
        return obj
    if isinstance(obj, dict):
        result = dict(obj)
        props = schema.get('properties') or {}
        for key, sub in props.items():
            if key not in result and isinstance(sub, dict) and 'default' in sub:
                result[key] = copy.deepcopy(sub['default'])
            if key in result:
                result[key] = apply_defaults(result[key], sub)
        additional = schema.get('additionalProperties')
        if isinstance(additional, dict):
            for key in result:
                if key not in props:
                    result[key] = apply_defaults(result[key], additional)
        return result
    if isinstance(obj, list) and isinstance(schema.get('items'), dict):
        return [apply_defaults(item, schema['items']) for item in obj]
    return obj


_TYPES = {
    'object': lambda v: isinstance(v, dict),
    'array': lambda v: isinstance(v, list),
    'string': lambda v: isinstance(v, str),
    'boolean': lambda v: isinstance(v, bool),
    'integer': lambda v: isinstance(v, int) and not isinstance(v, bool),
    'number': lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}


def json_type(value):
    """The JSON type name of a value, as the API names it in type errors."""
    if isinstance(value, bool):
        return 'boolean'
    if isinstance(value, int):
        return 'integer'
    return {'str': 'string', 'dict': 'object', 'list': 'array', 'float': 'number'}.get(type(value).__name__, 'null')


def _cause(reason, field, message):
    return {'reason': reason, 'field': field, 'message': message}


def validate(obj, schema, path=''):
    """Validate ``obj`` against a structural schema; returns a list of causes (empty when valid)."""
    causes = []
    if not isinstance(schema, dict):
        return causes
    if obj is None:
        if schema.get('nullable'):
            return causes
        if schema.get('type'):
            causes.append(_cause('FieldValueTypeInvalid', path, 'Invalid value: "null": %s in body must be of type %s: "null"'
                                 % (path, schema['type'])))
        return causes
    if schema.get('x-kubernetes-int-or-string'):
        if not (_TYPES['integer'](obj) or _TYPES['string'](obj)):
            causes.append(_cause('FieldValueTypeInvalid', path, 'Invalid value: %s: %s in body must be of type integer or string'
                                 % (_show(obj), path)))
            return causes
    elif schema.get('type'):
        check = _TYPES.get(schema['type'])
        if check is not None and not check(obj):
            kind = json_type(obj)
            causes.append(_cause('FieldValueTypeInvalid', path, 'Invalid value: "%s": %s in body must be of type %s: "%s"'
                                 % (kind, path, schema['type'], kind)))
            return causes
    if 'enum' in schema and obj not in schema['enum']:
        causes.append(_cause('FieldValueNotSupported', path, 'Unsupported value: %s: supported values: %s'
                             % (_show(obj), ', '.join(_show(v) for v in schema['enum']))))
    if _TYPES['number'](obj):
        if 'maximum' in schema:
            if schema.get('exclusiveMaximum') and obj >= schema['maximum']:
                causes.append(_cause('FieldValueInvalid', path, 'Invalid value: %s: %s in body should be less than %s'
                                     % (_show(obj), path, schema['maximum'])))
            elif obj > schema['maximum']:
                causes.append(_cause('FieldValueInvalid', path, 'Invalid value: %s: %s in body should be less than or equal to %s'
                                     % (_show(obj), path, schema['maximum'])))
        if 'minimum' in schema:
            if schema.get('exclusiveMinimum') and obj <= schema['minimum']:
                causes.append(_cause('FieldValueInvalid', path, 'Invalid value: %s: %s in body should be greater than %s'
                                     % (_show(obj), path, schema['minimum'])))
            elif obj < schema['minimum']:
                causes.append(_cause('FieldValueInvalid', path, 'Invalid value: %s: %s in body should be greater than or equal to %s'
                                     % (_show(obj), path, schema['minimum'])))
    if isinstance(obj, str):
        if 'maxLength' in schema and len(obj) > schema['maxLength']:
            causes.append(_cause('FieldValueTooLong', path, 'Too long: may not be more than %d bytes' % schema['maxLength']))
        if 'minLength' in schema and len(obj) < schema['minLength']:
            causes.append(_cause('FieldValueInvalid', path, 'Invalid value: %s: %s in body should be at least %d chars long'
                                 % (_show(obj), path, schema['minLength'])))
        if 'pattern' in schema and not re.search(schema['pattern'], obj):
            causes.append(_cause('FieldValueInvalid', path, "Invalid value: %s: %s in body should match '%s'"
                                 % (_show(obj), path, schema['pattern'])))
    if isinstance(obj, list):
        if 'maxItems' in schema and len(obj) > schema['maxItems']:
            causes.append(_cause('FieldValueTooMany', path, 'Too many: %d: must have at most %d items' % (len(obj), schema['maxItems'])))
        if 'minItems' in schema and len(obj) < schema['minItems']:
            causes.append(_cause('FieldValueInvalid', path, 'Invalid value: %d: %s in body should have at least %d items'
                                 % (len(obj), path, schema['minItems'])))
        if isinstance(schema.get('items'), dict):
            for index, item in enumerate(obj):
                causes.extend(validate(item, schema['items'], '%s[%d]' % (path, index)))
    if isinstance(obj, dict):
        props = schema.get('properties') or {}
        for key in schema.get('required') or []:
            if key not in obj:
                causes.append(_cause('FieldValueRequired', _join(path, key), 'Required value'))
        for key, value in obj.items():
            if path == '' and key in ROOT_KEEP:
                continue
            if key in props:
                causes.extend(validate(value, props[key], _join(path, key)))
            elif isinstance(schema.get('additionalProperties'), dict):
                causes.extend(validate(value, schema['additionalProperties'], _join(path, key)))
    return causes


def check_structural(schema, path):
    """The minimal structural-schema rules the real API enforces on a CRD version schema; returns causes."""
    causes = []
    if not isinstance(schema, dict):
        return [_cause('FieldValueRequired', path, 'Required value: schemas are required')]
    if schema.get('type') != 'object':
        causes.append(_cause('FieldValueInvalid', path + '.type', 'Invalid value: %s: must be object at the root'
                             % _show(schema.get('type'))))

    def walk(node, where):
        if not isinstance(node, dict):
            return
        if 'properties' in node and node.get('type') not in ('object', None):
            causes.append(_cause('FieldValueInvalid', where + '.type', 'Invalid value: %s: must be object when properties are given'
                                 % _show(node.get('type'))))
        if 'type' not in node and not node.get('x-kubernetes-int-or-string') \
                and not node.get('x-kubernetes-preserve-unknown-fields') and where != path:
            causes.append(_cause('FieldValueRequired', where + '.type', 'Required value: must not be empty for specified object fields'))
        for key, sub in (node.get('properties') or {}).items():
            walk(sub, '%s.properties[%s]' % (where, key))
        if isinstance(node.get('items'), dict):
            walk(node['items'], where + '.items')
        if isinstance(node.get('additionalProperties'), dict):
            walk(node['additionalProperties'], where + '.additionalProperties')
        if 'default' in node:
            bad = validate(node['default'], {k: v for k, v in node.items() if k != 'default'}, where + '.default')
            causes.extend(bad)

    walk(schema, path)
    return causes
