# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Patch semantics of the Kubernetes API stand-in: JSON merge patch (RFC 7386), JSON patch (RFC 6902)
and strategic merge patch (the subset of list merge keys the collection's consumers touch).

Errors raise PatchError with an HTTP status and a message worded like kube-apiserver's.
"""
from __future__ import annotations

import copy


class PatchError(Exception):
    def __init__(self, code, message, reason=None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason or ('Invalid' if code == 422 else 'BadRequest')


def merge_patch(target, patch):
    """RFC 7386 JSON merge patch; returns a new value."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


# --- JSON patch ------------------------------------------------------------------------------------

def _pointer(path):
    if path == '':
        return []
    if not path.startswith('/'):
        raise PatchError(422, 'the server rejected our request due to an error in our request: '
                              'JSON pointer %r must start with "/"' % path)
    return [p.replace('~1', '/').replace('~0', '~') for p in path[1:].split('/')]


def _resolve(doc, parts, path):
    cur = doc
    for part in parts:
        if isinstance(cur, dict):
            if part not in cur:
                raise PatchError(422, 'the server rejected our request due to an error in our request: '
                                      'doc is missing path: "%s"' % path)
            cur = cur[part]
        elif isinstance(cur, list):
            try:
                cur = cur[int(part)]
            except (ValueError, IndexError):
                raise PatchError(422, 'the server rejected our request due to an error in our request: '
                                      'doc is missing path: "%s"' % path)
        else:
            raise PatchError(422, 'the server rejected our request due to an error in our request: '
                                  'doc is missing path: "%s"' % path)
    return cur


def _add(doc, parts, value, path, replace=False):
    if not parts:
        return copy.deepcopy(value)
    parent = _resolve(doc, parts[:-1], path)
    last = parts[-1]
    if isinstance(parent, dict):
        if replace and last not in parent:
            raise PatchError(422, 'the server rejected our request due to an error in our request: '
                                  'replace operation does not apply: doc is missing key: %s' % path)
        parent[last] = copy.deepcopy(value)
    elif isinstance(parent, list):
        if last == '-' and not replace:
            parent.append(copy.deepcopy(value))
        else:
            try:
                index = int(last)
            except ValueError:
                raise PatchError(422, 'the server rejected our request due to an error in our request: '
                                      'invalid array index %r in %s' % (last, path))
            if index < 0 or index > len(parent) or (replace and index == len(parent)):
                raise PatchError(422, 'the server rejected our request due to an error in our request: '
                                      'array index %d out of bounds in %s' % (index, path))
            if replace:
                parent[index] = copy.deepcopy(value)
            else:
                parent.insert(index, copy.deepcopy(value))
    else:
        raise PatchError(422, 'the server rejected our request due to an error in our request: '
                              'doc is missing path: "%s"' % path)
    return doc


def _remove(doc, parts, path):
    if not parts:
        raise PatchError(422, 'the server rejected our request due to an error in our request: cannot remove the root')
    parent = _resolve(doc, parts[:-1], path)
    last = parts[-1]
    try:
        if isinstance(parent, dict):
            del parent[last]
        elif isinstance(parent, list):
            del parent[int(last)]
        else:
            raise KeyError(last)
    except (KeyError, ValueError, IndexError):
        raise PatchError(422, 'the server rejected our request due to an error in our request: '
                              'remove operation does not apply: doc is missing path: "%s"' % path)
    return doc


def json_patch(target, operations):
    """RFC 6902 JSON patch; returns a new document."""
    if not isinstance(operations, list):
        raise PatchError(400, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch')
    doc = copy.deepcopy(target)
    for op in operations:
        if not isinstance(op, dict) or 'op' not in op or 'path' not in op:
            raise PatchError(422, 'the server rejected our request due to an error in our request: '
                                  'an operation needs "op" and "path": %r' % (op,))
        kind, path = op['op'], op['path']
        parts = _pointer(path)
        if kind in ('add', 'replace', 'test') and 'value' not in op:
            raise PatchError(422, 'the server rejected our request due to an error in our request: '
                                  '%s operation on %s has no value' % (kind, path))
        if kind == 'add':
            doc = _add(doc, parts, op['value'], path)
        elif kind == 'replace':
            doc = _add(doc, parts, op['value'], path, replace=True)
        elif kind == 'remove':
            doc = _remove(doc, parts, path)
        elif kind == 'test':
            if _resolve(doc, parts, path) != op['value']:
                raise PatchError(422, 'the server rejected our request due to an error in our request: '
                                      'testing value %s failed' % path)
        elif kind in ('move', 'copy'):
            source = op.get('from')
            if source is None:
                raise PatchError(422, 'the server rejected our request due to an error in our request: '
                                      '%s operation on %s has no "from"' % (kind, path))
            src_parts = _pointer(source)
            value = copy.deepcopy(_resolve(doc, src_parts, source))
            if kind == 'move':
                doc = _remove(doc, src_parts, source)
            doc = _add(doc, parts, value, path)
        else:
            raise PatchError(422, 'the server rejected our request due to an error in our request: '
                                  'unknown operation %r' % kind)
    return doc


# --- strategic merge patch -------------------------------------------------------------------------

# List fields with patchStrategy "merge", by field name, with their patchMergeKey (None: a list of
# primitives merged as a set). Field names are unambiguous across the kinds the stand-in serves.
# Every other list is replaced, as the real API does for lists without a patch strategy.
MERGE_KEYS = {
    'containers': 'name',
    'initContainers': 'name',
    'ephemeralContainers': 'name',
    'volumes': 'name',
    'volumeMounts': 'mountPath',
    'volumeDevices': 'devicePath',
    'env': 'name',
    'imagePullSecrets': 'name',
    'hostAliases': 'ip',
    'conditions': 'type',
    'ownerReferences': 'uid',
    'finalizers': None,
    'topologySpreadConstraints': 'topologyKey',
    'resourceClaims': 'name',
    'addresses': 'type',
}
# "ports" merges by containerPort in containers and by port in services.
PORTS_KEYS = ('containerPort', 'port')


def _merge_key(field, items):
    if field == 'ports':
        for key in PORTS_KEYS:
            if all(isinstance(i, dict) and key in i for i in items):
                return key
        return 'name'
    return MERGE_KEYS[field]


def strategic_merge_patch(target, patch, field=None):
    """Strategic merge patch for maps and the lists in MERGE_KEYS; returns a new value."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    directive = patch.get('$patch')
    if directive == 'replace':
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != '$patch'}
    if directive == 'delete':
        return None
    if directive is not None:
        raise PatchError(400, 'unknown patch type: %s in map: %r' % (directive, patch))
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    retain = patch.get('$retainKeys')
    for key, value in patch.items():
        if key == '$retainKeys' or key.startswith('$setElementOrder/'):
            continue
        if key.startswith('$deleteFromPrimitiveList/'):
            name = key.split('/', 1)[1]
            if isinstance(result.get(name), list):
                result[name] = [v for v in result[name] if v not in (value or [])]
            continue
        if value is None:
            result.pop(key, None)
        elif isinstance(value, list) and (key in MERGE_KEYS or key == 'ports'):
            result[key] = _merge_list(result.get(key), value, key)
        elif isinstance(value, dict):
            merged = strategic_merge_patch(result.get(key), value, key)
            if merged is None:
                result.pop(key, None)
            else:
                result[key] = merged
        else:
            result[key] = copy.deepcopy(value)
    if isinstance(retain, list):
        for key in list(result):
            if key not in retain:
                del result[key]
    return result


def _merge_list(current, patch, field):
    current = copy.deepcopy(current) if isinstance(current, list) else []
    if any(isinstance(i, dict) and i.get('$patch') == 'replace' for i in patch):
        return [copy.deepcopy(i) for i in patch if not (isinstance(i, dict) and '$patch' in i)]
    key = _merge_key(field, [i for i in patch if isinstance(i, dict)] or current)
    if key is None or not all(isinstance(i, dict) for i in patch):
        for item in patch:
            if item not in current:
                current.append(copy.deepcopy(item))
        return current
    for item in patch:
        if key not in item:
            raise PatchError(400, 'map: %r does not contain declared merge key: %s' % (item, key))
        index = next((n for n, c in enumerate(current) if isinstance(c, dict) and c.get(key) == item[key]), None)
        if item.get('$patch') == 'delete':
            if index is not None:
                del current[index]
            continue
        if index is None:
            current.append(strategic_merge_patch({}, item, field))
        else:
            current[index] = strategic_merge_patch(current[index], item, field)
    return current
