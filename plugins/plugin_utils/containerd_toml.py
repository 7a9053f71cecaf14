# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Round-trip editing of containerd's config.toml (controller side, tomlkit).

Only the NRI table, the ``imports`` array and (on request) misplaced NRI keys are touched; every other
byte of the file is kept. After each edit the new text is parsed again and compared, value by value,
with the old one: anything but the intended change is refused (nothing is written).

The NRI table is found however it is spelled: ``[plugins."io.containerd.nri.v1.nri"]``,
``[plugins.'io.containerd.nri.v1.nri']``, dotted keys (``plugins."io.containerd.nri.v1.nri".disable``),
an inline table, or split across a ``[plugins]`` table. It is never added twice; a file that defines it
twice is invalid TOML and is refused with its line.

One task reads the same texts several times (node_config plans containerd_nri offline, then runs it), and
a tomlkit parse of a real config costs ~10x a tomllib parse: each worker process keeps its last few
successful results (tomllib values, inspections, edits) and hands out copies, never a shared document.
"""
from __future__ import annotations

import collections
import copy
import re

try:
    import tomlkit
    from tomlkit.exceptions import ParseError as _TomlkitParseError
    from tomlkit.items import StringType as _StringType, Table as _Table, InlineTable as _InlineTable
    from tomlkit.items import Whitespace as _Whitespace
except ImportError:  # pragma: no cover - exercised by ansible-test's import sanity test
    tomlkit = None

try:
    import tomllib as _tomllib  # Python 3.11+: a second, strict opinion on validity
except ImportError:  # pragma: no cover
    _tomllib = None

from ansible_collections.numaops.colocation.plugins.module_utils.containerd import (
    NRI_PLUGIN, NRI_KEYS, ContainerdConfigError, values_equal, nri_table_lines, import_covers, toml_string,
    minimal_config,
)

Inspection = collections.namedtuple('Inspection', 'exists empty version nri imports misplaced')
EditResult = collections.namedtuple('EditResult', 'text changed warnings')

_CACHE_SIZE = 8
_VALUES = collections.OrderedDict()  # text -> tomllib's values (read only here, never handed out)
_INSPECTIONS = collections.OrderedDict()  # (text, path) -> Inspection (copies are handed out)
_EDITS = collections.OrderedDict()  # edit()'s arguments -> EditResult (copies are handed out)
_SPARE_DOC = {}  # text -> a tomlkit document inspect() parsed and only read: the next edit() of text owns it


def _remember(cache, key, value):
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)
    return value


def _recall(cache, key):
    value = cache.get(key)
    if value is not None:
        cache.move_to_end(key)
    return value


def _tomllib_values(text):
    """tomllib's values of ``text`` (raises TOMLDecodeError); the result must not be changed."""
    values = _recall(_VALUES, text)
    if values is None:
        values = _remember(_VALUES, text, _tomllib.loads(text))
    return values


def require_tomlkit():
    if tomlkit is None:
        raise ContainerdConfigError('tomlkit is required on the controller: pip install tomlkit')


def _line_of(text, line):
    lines = text.splitlines()
    if 1 <= line <= len(lines):
        return lines[line - 1]
    return ''


def _parse_error(path, text, reason, line, col):
    snippet = _line_of(text, line)
    hint = ''
    if NRI_PLUGIN in reason and 'exists' in reason:
        hint = (' The NRI table is defined more than once (perhaps with different quoting, such as '
                '"..." and \'...\'); keep exactly one.')
    elif 'exists' in reason:
        hint = ' A key or table is defined twice; keep one.'
    return ContainerdConfigError(
        '%s is not valid TOML: %s at line %d, column %d: %r.%s containerd would refuse this file as well. '
        'Fix the file by hand; it was not changed.' % (path, reason, line, col, snippet.strip(), hint))


def parse(text, path):
    """Parse with tomlkit (and check with tomllib where available); errors name line and column."""
    require_tomlkit()
    try:
        doc = tomlkit.parse(text)
    except _TomlkitParseError as err:
        reason = re.sub(r'\s+at line \d+ col \d+$', '', str(err))
        raise _parse_error(path, text, reason, err.line, err.col + 1)
    if _tomllib is not None:
        try:
            _tomllib_values(text)
        except _tomllib.TOMLDecodeError as err:
            match = re.search(r'\(at line (\d+), column (\d+)\)', str(err))
            reason = re.sub(r'\s*\(at line \d+, column \d+\)', '', str(err)) or 'invalid TOML'
            if match:
                raise _parse_error(path, text, reason, int(match.group(1)), int(match.group(2)))
            raise ContainerdConfigError('%s is not valid TOML: %s. Fix the file by hand; it was not changed.'
                                        % (path, err))
    return doc


def plain(value):
    """tomlkit items → plain Python values (dict, list, str, bool, int, float, datetime)."""
    if hasattr(value, 'unwrap'):
        return value.unwrap()
    if isinstance(value, collections.abc.Mapping):
        return dict((k, plain(v)) for k, v in value.items())
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def _is_table(value):
    return isinstance(value, collections.abc.Mapping)


def find_nri(doc, path):
    """The NRI table container (Table, InlineTable or out-of-order proxy), or None."""
    plugins = doc.get('plugins')
    if plugins is None:
        return None
    if not _is_table(plugins):
        raise ContainerdConfigError('%s: `plugins` is a %s, not a table; containerd would refuse this file. '
                                    'Fix the file by hand; it was not changed.' % (path, type(plain(plugins)).__name__))
    nri = plugins.get(NRI_PLUGIN)
    if nri is not None and not _is_table(nri):
        raise ContainerdConfigError('%s: plugins."%s" is a %s, not a table. Fix the file by hand; it was not changed.'
                                    % (path, NRI_PLUGIN, type(plain(nri)).__name__))
    return nri


def config_version(doc, path):
    """The root ``version`` (0 when absent, like containerd), refusing non-integers."""
    version = plain(doc.get('version', 0))
    if isinstance(version, bool) or not isinstance(version, int):
        raise ContainerdConfigError('%s: `version = %r` must be an integer (2 for containerd 1.7, 3 for 2.0-2.2, '
                                    '4 for 2.3 and later). The file was not changed.' % (path, version))
    return version


def misplaced_keys(doc):
    """NRI option keys written where containerd ignores them: the TOML root, or directly under [plugins]."""
    found = []
    for key in NRI_KEYS:
        if key in doc and not _is_table(doc[key]):
            found.append(key)
    plugins = doc.get('plugins')
    if _is_table(plugins):
        for key in NRI_KEYS:
            if key in plugins and not _is_table(plugins[key]):
                found.append('plugins.' + key)
    return found


def _imports(doc, path):
    imports = doc.get('imports')
    if imports is None:
        return None
    value = plain(imports)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ContainerdConfigError('%s: `imports` must be an array of file paths (strings), found %r. '
                                    'The file was not changed.' % (path, value))
    return value


def inspect(text, path):
    """What the file holds: exists, empty, version, NRI values (dict or None), imports, misplaced keys."""
    if text is None:
        return Inspection(False, True, None, None, None, [])
    known = _recall(_INSPECTIONS, (text, path))
    if known is None:
        doc = parse(text, path)
        if len(doc) == 0:
            known = Inspection(True, True, None, None, None, [])
        else:
            nri = find_nri(doc, path)
            known = Inspection(True, False, config_version(doc, path), plain(nri) if nri is not None else None,
                               _imports(doc, path), misplaced_keys(doc))
        _remember(_INSPECTIONS, (text, path), known)
        _SPARE_DOC.clear()
        _SPARE_DOC[text] = doc
    return copy.deepcopy(known)


def _parse_for_edit(text, path):
    """A tomlkit document of ``text`` the caller owns: the one inspect() just parsed, else a new parse."""
    doc = _SPARE_DOC.pop(text, None)
    return doc if doc is not None else parse(text, path)


def _uses_literal_strings(text):
    literal = len(re.findall(r"=\s*'", text)) + len(re.findall(r"^\s*\[[^\n]*'", text, re.M))
    basic = len(re.findall(r'=\s*"', text)) + len(re.findall(r'^\s*\[[^\n]*"', text, re.M))
    return literal > basic


def _string_item(value, literal):
    rendered = toml_string(value, literal=literal)
    return tomlkit.string(value, literal=rendered.startswith("'"))


def _new_item(key, value, literal):
    if isinstance(value, bool):
        return tomlkit.item(value)
    return _string_item(value, literal)


def _item_of(table, key):
    if isinstance(table, (_Table, _InlineTable)):
        try:
            return table.value.item(key)
        except KeyError:
            return None
    return None


def _set_values(table, wanted, literal_default):
    """Write ``wanted`` into an existing NRI table, touching only keys whose meaning differs."""
    changed = []
    key_indent = None
    for key in table.keys():
        item = _item_of(table, key)
        if item is None or _is_table(item):
            continue
        if key_indent is None and isinstance(table, _Table):
            key_indent = item.trivia.indent
        if getattr(item, 'type', None) in (_StringType.SLL, _StringType.MLL):
            literal_default = True
        elif getattr(item, 'type', None) in (_StringType.SLB, _StringType.MLB):
            literal_default = False
    for key, value in wanted.items():
        if key in table:
            current = plain(table[key])
            if values_equal(key, current, value):
                continue
            literal = literal_default
            item = _item_of(table, key)
            if item is not None and getattr(item, 'type', None) in (_StringType.SLL, _StringType.MLL):
                literal = True
            elif item is not None and getattr(item, 'type', None) in (_StringType.SLB, _StringType.MLB):
                literal = False
            table[key] = _new_item(key, value, literal)
        else:
            trailing = None
            if isinstance(table, _InlineTable):
                # keep `{ a = 1, b = 2 }` tidy: the new pair goes before the closing blank
                body = table.value.body
                if body and body[-1][0] is None and isinstance(body[-1][1], _Whitespace):
                    trailing = body.pop()
            table[key] = _new_item(key, value, literal_default)
            if trailing is not None:
                table.value.body.append(trailing)
                item = _item_of(table, key)
                if item is not None:
                    item.trivia.indent = ''
            item = _item_of(table, key)
            if item is not None and key_indent is not None and isinstance(table, _Table):
                item.trivia.indent = key_indent
        changed.append(key)
    return changed


_HEADER_RE = re.compile(r'^([ \t]*)\[(?!\[)([^\n#]*?)\]\s*(?:#.*)?$')
_KEY_PART_RE = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([A-Za-z0-9_-]+))\s*(\.|$)')


def _header_path(inner):
    parts = []
    pos = 0
    while pos < len(inner):
        match = _KEY_PART_RE.match(inner, pos)
        if not match or match.end() == pos:
            return None
        part = match.group(1) if match.group(1) is not None else (
            match.group(2) if match.group(2) is not None else match.group(3))
        parts.append(part)
        pos = match.end()
    return parts


def _insert_nri_table_text(text, wanted, literal):
    """Insert a new NRI table after the last ``[plugins...]`` table (or at the end), in the file's style."""
    lines = text.splitlines(True)
    headers = []
    for index, line in enumerate(lines):
        match = _HEADER_RE.match(line.rstrip('\r\n'))
        if match:
            headers.append((index, match.group(1), _header_path(match.group(2)), match.group(2)))
        elif line.lstrip().startswith('[['):
            headers.append((index, '', None, None))
    plugin_headers = [h for h in headers if h[2] and h[2][0] == 'plugins']
    header_indent, key_indent = '', '  '
    if plugin_headers:
        start, header_indent, unused_path, inner = plugin_headers[-1]
        literal = "'" in inner if ("'" in inner or '"' in inner) else literal
        following = [h[0] for h in headers if h[0] > start]
        end = following[0] if following else len(lines)
        insert_at = start + 1
        for index in range(start + 1, end):
            stripped = lines[index].strip()
            if stripped and not stripped.startswith('#'):
                insert_at = index + 1
                key_indent = re.match(r'[ \t]*', lines[index]).group(0)
        if insert_at == start + 1:
            key_indent = header_indent + '  '
    else:
        insert_at = len(lines)
    block = nri_table_lines(wanted, literal=literal, header_indent=header_indent, key_indent=key_indent)
    newline = '\r\n' if text.endswith('\r\n') else '\n'
    before = ''.join(lines[:insert_at])
    if before and not before.endswith('\n'):
        before += newline
    prefix = newline if before.strip() else ''
    return before + prefix + newline.join(block) + newline + ''.join(lines[insert_at:])


def _expected(old_plain, wanted=None, import_path=None, removed=None, version=None):
    expected = copy.deepcopy(old_plain)
    if version is not None and 'version' not in expected:
        expected['version'] = version
    for key in removed or ():
        if key.startswith('plugins.'):
            expected['plugins'].pop(key[len('plugins.'):], None)
        else:
            expected.pop(key, None)
    if wanted:
        nri = expected.setdefault('plugins', {}).setdefault(NRI_PLUGIN, {})
        for key, value in wanted.items():
            if not values_equal(key, nri.get(key), value):
                nri[key] = value
    if import_path is not None:
        expected.setdefault('imports', [])
        if import_path not in expected['imports']:
            expected['imports'].append(import_path)
    return expected


def _verify(path, old_text, new_text, expected):
    if _tomllib is not None:
        # the values are all that is compared: tomllib reads them ~8x faster than tomlkit. Anything but a match
        # (invalid text, other values) takes the tomlkit path below, which decides and words the error as before.
        try:
            if _tomllib_values(new_text) == expected:
                return
        except _tomllib.TOMLDecodeError:
            pass
    try:
        got = plain(parse(new_text, path))
    except ContainerdConfigError as err:
        raise ContainerdConfigError('internal error: the edited %s would not be valid TOML (%s). Nothing was '
                                    'changed; please report this with the file.' % (path, err))
    if got != expected:
        raise ContainerdConfigError('internal error: editing %s would change more than the NRI settings. Nothing '
                                    'was changed; please report this with the file.' % path)


def edit(text, path, wanted=None, import_path=None, misplaced='warn', new_version=None, new_file_header=True):
    """Apply the NRI settings ``wanted`` (dict) and/or make ``imports`` cover ``import_path``.

    ``text`` None means the file does not exist. ``new_version`` is the config version used when the
    file is missing or empty. Returns EditResult(text, changed keys/notes, warnings).
    """
    key = _edit_key(text, path, wanted, import_path, misplaced, new_version, new_file_header)
    known = _recall(_EDITS, key) if key is not None else None
    if known is None:
        known = _edit(text, path, wanted, import_path, misplaced, new_version, new_file_header)
        if key is not None:
            _remember(_EDITS, key, known)
    return EditResult(known.text, list(known.changed), list(known.warnings))


def _edit_key(*args):
    """edit()'s arguments as a cache key (types included: True and 1 are written differently), or None."""
    def freeze(value):
        if isinstance(value, dict):
            return (dict, tuple((k, freeze(v)) for k, v in value.items()))
        if isinstance(value, (list, tuple)):
            return (type(value), tuple(freeze(v) for v in value))
        return (type(value), value)
    try:
        key = freeze(args)
        hash(key)
    except TypeError:
        return None
    return key


def _edit(text, path, wanted, import_path, misplaced, new_version, new_file_header):
    warnings = []
    doc = None
    if text is not None and text.strip():
        doc = _parse_for_edit(text, path)
    if doc is None or len(doc) == 0:
        if new_version is None:
            raise ContainerdConfigError(
                '%s is %s and the containerd version is unknown (containerd_version is not set and '
                '`containerd --version` did not run on the node), so '
                'the config version to write (2 for containerd 1.7, 3 for 2.0-2.2, 4 for 2.3 and later) cannot be '
                'chosen. Set containerd_version (for example "1.7.24" or "2.1.0"). Nothing was changed.'
                % (path, 'missing' if text is None else 'empty'))
        body = ''
        if wanted:
            body = minimal_config(new_version, wanted, header=new_file_header if not (text or '').strip() else False)
        else:
            body = 'version = %d\n' % new_version
        if import_path is not None:
            body = body.replace('version = %d\n' % new_version, 'version = %d\nimports = [%s]\n'
                                % (new_version, toml_string(import_path, literal=new_version >= 3)), 1)
        if text and text.strip():  # comments only: keep them, append the config after them
            new_text = text + ('' if text.endswith('\n') else '\n') + '\n' + body
        else:
            new_text = body
        expected = {'version': new_version}
        if wanted:
            expected['plugins'] = {NRI_PLUGIN: dict(wanted)}
        if import_path is not None:
            expected['imports'] = [import_path]
        _verify(path, text, new_text, expected)
        notes = ['created' if text is None else 'filled empty file']
        return EditResult(new_text, notes, warnings)

    old_plain = plain(doc)
    changed = []
    literal = _uses_literal_strings(text)

    removed = []
    found = misplaced_keys(doc)
    if found:
        if misplaced == 'remove':
            for key in found:
                if key.startswith('plugins.'):
                    del doc['plugins'][key[len('plugins.'):]]
                else:
                    del doc[key]
            removed = found
            changed.extend('removed misplaced ' + key for key in found)
        else:
            warnings.append(
                '%s has NRI option(s) %s outside the NRI table, where containerd ignores them silently. They are '
                'left as they are; set misplaced_keys=remove to delete them (the NRI settings belong under '
                '[plugins."%s"]).' % (path, ', '.join(found), NRI_PLUGIN))

    if import_path is not None:
        imports = _imports(doc, path)
        if imports is None:
            doc['imports'] = tomlkit.array()
            doc['imports'].append(_string_item(import_path, literal))
            changed.append('imports')
        elif not any(import_covers(entry, path, import_path) for entry in imports):
            array = doc['imports']
            item_literal = literal
            for item in array:
                item_literal = getattr(item, 'type', None) in (_StringType.SLL, _StringType.MLL)
            array.append(_string_item(import_path, item_literal))
            changed.append('imports')

    new_text = None
    if wanted:
        nri = find_nri(doc, path)
        if nri is not None:
            # new strings follow the table's own strings, else the quoting of its name, else the file's
            nri_literal = literal
            if "'%s'" % NRI_PLUGIN in text:
                nri_literal = True
            elif '"%s"' % NRI_PLUGIN in text:
                nri_literal = False
            changed.extend(_set_values(nri, wanted, nri_literal))
        else:
            new_text = _insert_nri_table_text(doc.as_string(), wanted, literal)
            changed.append('added NRI table')
    if new_text is None:
        new_text = doc.as_string()
    expected = _expected(old_plain, wanted, import_path if 'imports' in changed else None, removed)
    try:
        _verify(path, text, new_text, expected)
    except ContainerdConfigError:
        if not wanted or find_nri(doc, path) is not None:
            raise
        # the text insertion did not fit this file's layout: let tomlkit place the table instead
        doc = parse(doc.as_string(), path)
        doc.setdefault('plugins', tomlkit.table(is_super_table=True))
        table = tomlkit.table()
        for key, value in wanted.items():
            table.add(key, _new_item(key, value, literal))
        doc['plugins'][NRI_PLUGIN] = table
        new_text = doc.as_string()
        _verify(path, text, new_text, expected)
    if new_text == text:
        changed = []
    return EditResult(new_text, changed, warnings)
