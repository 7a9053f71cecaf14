# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Edit a KubeletConfiguration YAML text so that only the managed keys change.

ruamel.yaml parses the file (values, line numbers, comments); the new text is then made by splicing
lines: the lines of a key that does not change are never touched, so every other key, comment,
blank line, quoting style and indentation stays byte-identical (a plain ruamel.yaml round trip would
re-indent and re-space the whole file). Changed keys are rendered in the file's own indentation
style; inside a changed dictionary (``systemReserved``, ``featureGates``, ...) only the entries that
change are rewritten, and a comment at the end of a changed line is kept.

Controller-side only (needs ruamel.yaml).
"""
from __future__ import annotations

import io

try:
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.nodes import ScalarNode
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString
except ImportError:  # pragma: no cover - reported by require_ruamel()
    YAML = None
    CommentedMap = CommentedSeq = dict
    YAMLError = Exception
    ScalarNode = DoubleQuotedScalarString = None

from ansible.errors import AnsibleActionFail

from ansible_collections.numaops.colocation.plugins.module_utils import kubelet

STR_TAG = 'tag:yaml.org,2002:str'
# Plain scalars that YAML 1.1 (the kubelet's sigs.k8s.io/yaml) reads as booleans; quote them.
_YAML11_BOOLS = frozenset('y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF'.split())
MISSING = object()


class KubeletYamlError(ValueError):
    """The file cannot be edited (not YAML, not a single block mapping)."""


def require_ruamel():
    if YAML is None:
        raise KubeletYamlError('ruamel.yaml is required on the controller: pip install ruamel.yaml')


def _represent_null(representer, _data):
    # a drop-in's null (the module's own drop-in removes what an earlier file sets) is written as the word null
    return representer.represent_scalar('tag:yaml.org,2002:null', 'null')


def _yaml():
    yaml = YAML(typ='rt')
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.representer.add_representer(type(None), _represent_null)
    return yaml


def load(text, path, flow=False):
    """Parse ``text``; return the ruamel document (a CommentedMap, or None for an empty file). ``flow``: a
    flow-style (JSON) mapping is accepted (a file that is only read, never edited)."""
    require_ruamel()
    try:
        documents = list(_yaml().load_all(text))
    except YAMLError as err:
        mark = getattr(err, 'problem_mark', None) or getattr(err, 'context_mark', None)
        where = ' at line %d, column %d' % (mark.line + 1, mark.column + 1) if mark is not None else ''
        problem = ' '.join(str(part) for part in (getattr(err, 'context', None), getattr(err, 'problem', None))
                           if part) or str(err)
        raise KubeletYamlError('%s is not valid YAML%s: %s; nothing was changed' % (path, where, problem))
    documents = [doc for doc in documents if doc is not None]
    if len(documents) > 1:
        raise KubeletYamlError('%s holds %d YAML documents; a kubelet configuration file holds exactly one '
                               'KubeletConfiguration; nothing was changed' % (path, len(documents)))
    if not documents:
        return None
    doc = documents[0]
    if not flow and isinstance(doc, CommentedMap) and doc.fa.flow_style():
        raise KubeletYamlError('%s is written as a single flow-style (JSON) mapping; this module edits '
                               'block-style YAML only; nothing was changed' % path)
    return doc


def to_plain(node):
    """ruamel round-trip objects -> plain dict / list / str / int / float / bool / None."""
    if isinstance(node, dict):
        return dict((str(key), to_plain(value)) for key, value in node.items())
    if isinstance(node, (list, tuple)):
        return [to_plain(item) for item in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, str):
        return str(node)
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    return str(node)


# --------------------------------------------------------------------------------------------------
# Layout detection


def _layout(doc):
    """(mapping indent, sequence indent, sequence dash offset) used by the file; kubeadm's by default."""
    mapping = None
    sequence = None
    stack = [(doc, 0)]
    while stack and (mapping is None or sequence is None):
        node, col = stack.pop(0)
        if not isinstance(node, CommentedMap):
            continue
        for key in node:
            value = node[key]
            key_col = node.lc.key(key)[1]
            if isinstance(value, CommentedMap) and value and not value.fa.flow_style():
                if mapping is None and value.lc.col > key_col:
                    mapping = value.lc.col - key_col
                stack.append((value, value.lc.col))
            elif isinstance(value, CommentedSeq) and value and not value.fa.flow_style() and sequence is None:
                dash = value.lc.col
                item_col = value.lc.item(0)[1]
                if dash >= key_col and item_col > dash:
                    sequence = (item_col - key_col, dash - key_col)
    mapping = mapping or 2
    if sequence is None:
        sequence = (mapping, 0)
    return mapping, sequence[0], sequence[1]


# --------------------------------------------------------------------------------------------------
# Rendering new lines


_RESOLVER = []


def _needs_quotes(text):
    if text in _YAML11_BOOLS:
        return True
    if not _RESOLVER:
        _RESOLVER.append(YAML(typ='rt').resolver)
    return _RESOLVER[0].resolve(ScalarNode, text, (True, False)) != STR_TAG


def _to_yaml_value(value):
    if isinstance(value, dict):
        result = CommentedMap()
        for key, item in value.items():
            result[key] = _to_yaml_value(item)
        return result
    if isinstance(value, list):
        result = CommentedSeq()
        for item in value:
            result.append(_to_yaml_value(item))
        return result
    if isinstance(value, str) and (_needs_quotes(value) or value == ''):
        return DoubleQuotedScalarString(value)
    return value


def _render_key(key, value, col, layout, newline, comment=None):
    """Lines for ``key: value`` at column ``col`` in the file's layout, with an end-of-line comment."""
    mapping, sequence, offset = layout
    yaml = _yaml()
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    yaml.default_flow_style = False
    out = io.StringIO()
    data = CommentedMap()
    data[key] = _to_yaml_value(value)
    yaml.dump(data, out)
    lines = [' ' * col + line + newline for line in out.getvalue().splitlines()]
    if comment:
        text, comment_col = comment
        first = lines[0][:-len(newline)]
        lines[0] = first + ' ' * max(1, comment_col - len(first)) + text + newline
    return lines


def _eol_comment(cmap, key, line):
    """The comment at the end of the key's own line (text, column), if any."""
    items = getattr(cmap, 'ca', None)
    entry = items.items.get(key) if items is not None else None
    if not entry:
        return None
    for token in entry:
        tokens = token if isinstance(token, list) else [token]
        for tok in tokens:
            if tok is None or not hasattr(tok, 'value'):
                continue
            mark = getattr(tok, 'start_mark', None)
            if mark is None or mark.line != line:
                continue
            text = tok.value.split('\n')[0].strip()
            if text.startswith('#'):
                return text, mark.column
    return None


# --------------------------------------------------------------------------------------------------
# Spans: which lines belong to which key


def _is_gap_line(line):
    stripped = line.strip()
    return stripped == '' or stripped.startswith('#') or stripped in ('---', '...')


def _spans(cmap, lines, region_end):
    """{key: (first line, end line)}: a key's lines, without trailing blank/comment lines."""
    keys = list(cmap)
    starts = [cmap.lc.key(key)[0] for key in keys]
    spans = {}
    for index, key in enumerate(keys):
        end = starts[index + 1] if index + 1 < len(keys) else region_end
        while end - 1 > starts[index] and _is_gap_line(lines[end - 1]):
            end -= 1
        spans[key] = (starts[index], end)
    return spans


def _is_block_map(value):
    return isinstance(value, CommentedMap) and len(value) > 0 and not value.fa.flow_style()


def _edit_key(cmap, key, span, new_value, lines, layout, newline, equal):
    """Operations turning the lines of ``key`` (inside ``cmap``) into ``new_value``."""
    start, end = span
    old = cmap[key]
    key_col = cmap.lc.key(key)[1]
    if (_is_block_map(old) and isinstance(new_value, dict) and new_value
            and cmap.lc.value(key)[0] > start):
        ops = []
        nested = _spans(old, lines, end)
        names = list(old)
        for name in names:
            first, last = nested[name]
            if name not in new_value:
                ops.append((first, last, []))
            elif not equal(key, name, to_plain(old[name]), new_value[name]):
                col = old.lc.key(name)[1]
                ops.append((first, last, _render_key(name, new_value[name], col, layout, newline,
                                                     _eol_comment(old, name, first))))
        added = [name for name in new_value if name not in old]
        if added:
            col = old.lc.key(names[0])[1]
            at = nested[names[-1]][1]
            fresh = []
            for name in added:
                fresh.extend(_render_key(name, new_value[name], col, layout, newline))
            ops.append((at, at, fresh))
        return ops
    comment = _eol_comment(cmap, key, start)
    return [(start, end, _render_key(key, new_value, key_col, layout, newline, comment))]


def render(text, doc, new_config, changed_fields, equal=kubelet.nested_value_equal):
    """Return ``text`` with the ``changed_fields`` of ``doc`` set to their value in ``new_config``.

    ``new_config`` is the complete resulting configuration as plain values (a key missing from it is
    removed from the file). Lines of every other key are copied unchanged.
    """
    if not changed_fields:
        return text
    lines = text.splitlines(True)
    newline = '\r\n' if lines and lines[0].endswith('\r\n') else '\n'
    if lines and not lines[-1].endswith(('\n', '\r')):
        lines[-1] += newline
    layout = _layout(doc)
    spans = _spans(doc, lines, len(lines))
    keys = list(doc)
    ops = []
    added = []
    for key in changed_fields:
        value = new_config.get(key, MISSING)
        if key in doc:
            if value is MISSING:
                ops.append(spans[key] + ([],))
            else:
                ops.extend(_edit_key(doc, key, spans[key], value, lines, layout, newline, equal))
        elif value is not MISSING:
            added.append(key)
    if added:
        ops.extend(_insertions(doc, keys, spans, added, new_config, lines, layout, newline))
    # Bottom-up, so earlier line numbers stay valid; insertions at one point keep their order.
    ordered = sorted(((op[0], op[1], seq, op[2]) for seq, op in enumerate(ops)), reverse=True)
    for start, end, _seq, replacement in ordered:
        lines[start:end] = replacement
    return ''.join(lines)


def render_exact(text, doc, new_config, changed_fields, path, what, equal=kubelet.nested_value_equal, unchanged=MISSING):
    """``render``, refused (AnsibleActionFail naming ``path``, nothing written) unless the rendered text reads back
    as exactly ``new_config``; ``what`` names the planned document in the message. ``unchanged``: the value of
    ``text`` as already read, taken as the read-back when the text is not changed."""
    new_text = render(text, doc, new_config, changed_fields, equal=equal)
    try:
        reread = unchanged if unchanged is not MISSING and new_text == text else to_plain(load(new_text, path))
    except KubeletYamlError:
        reread = None
    if reread != new_config:
        raise AnsibleActionFail('%s: the edited text does not read back as the planned %s (does the file use YAML '
                                'anchors or aliases on the keys this module manages?); nothing was changed. Please '
                                'report this with the file.' % (path, what))
    return new_text


def _insertions(doc, keys, spans, added, new_config, lines, layout, newline):
    """New top-level keys: at their sorted place in a sorted file (kubeadm's), else at the end."""
    ops = []
    is_sorted = len(keys) >= 3 and keys == sorted(keys)
    if is_sorted:
        for key in sorted(added):
            following = [k for k in keys if k > key]
            if following:
                index = keys.index(following[0])
                at = spans[keys[index - 1]][1] if index > 0 else spans[following[0]][0]
            else:
                at = spans[keys[-1]][1] if keys else len(lines)
            ops.append((at, at, _render_key(key, new_config[key], 0, layout, newline)))
    else:
        at = spans[keys[-1]][1] if keys else len(lines)
        fresh = []
        for key in kubelet.MANAGED_KEYS:
            if key in added:
                fresh.extend(_render_key(key, new_config[key], 0, layout, newline))
        ops.append((at, at, fresh))
    return ops
