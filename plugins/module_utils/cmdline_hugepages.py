# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kernel's huge page arguments, merged as the kernel reads them (used by cmdline.py's merge).

``hugepages=<count>`` belongs to the ``hugepagesz=<size>`` (or ``default_hugepagesz=<size>``) before it on the
command line; a ``hugepages=`` before any of them counts pages of the default size (mm/hugetlb.c:
hugepages_setup, hugepagesz_setup, default_hugepagesz_setup). So these arguments are not independent keys: they
are entries keyed by page size -

* a pair: ``hugepagesz=<size>`` and the ``hugepages=`` after it (none: the size without pages);
* the default entry: ``default_hugepagesz=<size>`` with the ``hugepages=`` after it, and a ``hugepages=`` before
  every size argument (the kernel gives it to the default size).

A wanted pair replaces the count of the node's entry of the same size where it is, a pair of another size the node
has stays untouched, a new pair is appended as a pair. Every edit is checked by reading the result as the kernel
does: a count that would land on another size than wanted, or a count of the node's that would change its size, is
refused (CmdlineError) and nothing is written.

Pure functions, Python 3.8 compatible, standard library only.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

from ansible_collections.numaops.colocation.plugins.module_utils.cmdline_error import CmdlineError

SIZE = 'hugepagesz'
COUNT = 'hugepages'
DEFAULT = 'default_hugepagesz'
KEYS = (SIZE, COUNT, DEFAULT)
# the key of the one ``present`` entry (cmdline.parse_wanted) carrying every wanted huge page argument in the order
# given; a space, so that no command line token has it
BUNDLE = ' huge pages'
# what the kernel's huge page arguments allow, for the refusals
ALLOWED = ('hugepagesz=<size> hugepages=<count> pairs (size like 2M or 1G; count like 512 or per NUMA node 0:4,1:2), '
           'at most one default_hugepagesz=<size> optionally followed by hugepages=<count>, or hugepages=<count> alone '
           'for the default size when no hugepagesz= is given')
_SIZE_RE = re.compile(r'^(\d+)([kKmMgGtTpPeE]?)$')
_SHIFT = {'': 0, 'k': 10, 'm': 20, 'g': 30, 't': 40, 'p': 50, 'e': 60}
_IGNORED = object()


def _kv(token):
    """(key, value) of a command line token, kernel-style (quotes dropped, ``-`` is ``_`` in names), None for
    ``$variables``."""
    if token.startswith('$'):
        return None
    key, sep, value = token.replace('"', '').partition('=')
    return key.replace('-', '_'), (value if sep else None)


def is_hugepage_token(token):
    kv = _kv(token)
    return kv is not None and kv[0] in KEYS


def size_id(text):
    """The size in bytes (the kernel's memparse: 2M, 2048K, 2097152 are one size); the text itself when it is no
    size."""
    m = _SIZE_RE.match(text or '')
    if not m:
        return text
    return int(m.group(1)) << _SHIFT[m.group(2).lower()]


class Wanted(object):
    """The wanted huge page arguments: ``pairs`` [(size id, size raw, count raw or None)], ``default`` (raw of
    default_hugepagesz= or None), ``default_count`` (raw of its hugepages= or None) and ``order`` (the entries in
    the order given: ('pair', index) or ('default', None))."""

    def __init__(self):
        self.pairs = []
        self.default = None
        self.default_count = None
        self.order = []

    def default_size(self):
        return None if self.default is None else size_id(_kv(self.default)[1])


def parse(args, field='args'):
    """The Wanted of ``args`` (cmdline.Arg objects of the huge page keys, in the order given); refuses an ambiguous
    list before anything is changed."""
    wanted = Wanted()
    current = None          # ('pair', index) / ('default', None) / None: no size given yet
    counted = set()
    bare = None
    sizes = {}
    gives_sizes = any(a.key == SIZE for a in args)
    for arg in args:
        if arg.key in (SIZE, DEFAULT):
            if arg.value is None or not isinstance(size_id(arg.value), int):
                raise CmdlineError('%s: %s is not a huge page size; allowed: %s' % (field, arg.raw, ALLOWED))
            sid = size_id(arg.value)
        if arg.key == SIZE:
            if sid in sizes:
                raise CmdlineError('%s: %s and %s name one page size twice; allowed: %s'
                                   % (field, sizes[sid], arg.raw, ALLOWED))
            sizes[sid] = arg.raw
            wanted.pairs.append([sid, arg.raw, None])
            current = ('pair', len(wanted.pairs) - 1)
            wanted.order.append(current)
        elif arg.key == DEFAULT:
            if wanted.default is not None:
                raise CmdlineError('%s: %s and %s: the kernel takes default_hugepagesz= once; allowed: %s'
                                   % (field, wanted.default, arg.raw, ALLOWED))
            wanted.default = arg.raw
            current = ('default', None)
            if bare is not None:
                counted.add(current)
            wanted.order.append(current)
        else:
            if arg.value is None or arg.value == '':
                raise CmdlineError('%s: %s has no count; allowed: %s' % (field, arg.raw, ALLOWED))
            if current is None:
                if gives_sizes:
                    raise CmdlineError(
                        '%s: %s has no hugepagesz= before it while the args also give sizes (%s), so its size would '
                        'depend on where it lands on the command line; put hugepagesz=<size> right before it, or '
                        'default_hugepagesz=<size> for the default size. Allowed: %s'
                        % (field, arg.raw, ', '.join(a.raw for a in args if a.key == SIZE), ALLOWED))
                if bare is not None:
                    raise CmdlineError('%s: two counts for the default page size (%s, %s); give one count per '
                                       'size' % (field, bare, arg.raw))
                bare = arg.raw
                wanted.default_count = arg.raw
                wanted.order.append(('default', None))
                continue
            if current in counted:
                first = wanted.default_count if current[0] == 'default' else wanted.pairs[current[1]][2]
                raise CmdlineError('%s: two counts for one page size (%s, %s); give one count per size'
                                   % (field, first, arg.raw))
            counted.add(current)
            if current[0] == 'default':
                wanted.default_count = arg.raw
            else:
                wanted.pairs[current[1]][2] = arg.raw
    dsize = wanted.default_size()
    for sid, raw, count in wanted.pairs:
        if sid == dsize and count is not None and wanted.default_count is not None:
            raise CmdlineError('%s: two counts for one page size (%s %s and %s %s); give one count per size'
                               % (field, wanted.default, wanted.default_count, raw, count))
    # the default entry once in the order, where it first appeared
    order = []
    for entry in wanted.order:
        if entry not in order:
            order.append(entry)
    wanted.order = order
    return wanted


def parse_absent(args):
    """The huge page entries to remove: a list of ('pair', size id or None (every pair)) and ('default', None).
    ``args``: cmdline.Arg objects, or the texts cmdline.parse_wanted keeps in its absent list."""
    out = []
    for arg in args:
        key, value = (arg.key, arg.value) if not isinstance(arg, str) else _kv(arg)
        if key == SIZE and value:
            item = ('pair', size_id(value))
        elif key == DEFAULT:
            item = ('default', None)
        else:
            item = ('pair', None)
        if item not in out:
            out.append(item)
    return out


def absent_names(absent):
    """The huge page entries of cmdline.parse_wanted's ``absent`` list (``hugepagesz=1G``, ``hugepages``, ...)."""
    return [k for k in absent if k.split('=', 1)[0] in KEYS]


def split_absent(absent):
    """(the other absent keys, the huge page entries to remove (parse_absent)) of cmdline.parse_wanted's ``absent``."""
    huge = absent_names(absent)
    return [k for k in absent if k not in huge], parse_absent(huge)


def conflicts(wanted, absent):
    """A text naming what is both wanted and removed, or None."""
    for kind, sid in absent:
        if kind == 'default' and (wanted.default or wanted.default_count):
            return 'default_hugepagesz (the default size and its count)'
        if kind == 'pair' and sid is None and (wanted.pairs or wanted.default_count):
            return 'hugepagesz/hugepages (every huge page pair)'
        if kind == 'pair' and any(p[0] == sid for p in wanted.pairs):
            return 'hugepagesz=%s' % next(p[1].split('=', 1)[1] for p in wanted.pairs if p[0] == sid)
    return None


# --------------------------------------------------------------------------------------------
# The node's command line
# --------------------------------------------------------------------------------------------

def groups(tokens):
    """The huge page entries of ``tokens`` (kernel arguments only), in order: dicts with ``kind`` ('pair',
    'default' or 'bare': counts before any size), ``size`` (size id or None), ``setter`` (token index or None) and
    ``counts`` (token indexes of the hugepages= that follow it)."""
    out = []
    current = None
    for i, token in enumerate(tokens):
        kv = _kv(token)
        if kv is None or kv[0] not in KEYS:
            continue
        key, value = kv
        if key in (SIZE, DEFAULT):
            current = {'kind': 'pair' if key == SIZE else 'default', 'size': size_id(value), 'setter': i, 'counts': []}
            out.append(current)
        elif current is None:
            current = {'kind': 'bare', 'size': None, 'setter': None, 'counts': [i]}
            out.append(current)
        else:
            current['counts'].append(i)
    return out


def read(tokens):
    """The counts the kernel reads from ``tokens``: ({size id or 'default' (size not given): count text},
    default size id or None, set of the sizes named). A repeated size or count is ignored, as the kernel does."""
    counts = {}
    named = set()
    default = None
    bare = None
    current = None
    for g in groups(tokens):
        values = [_kv(tokens[i])[1] for i in g['counts']]
        if g['kind'] == 'bare':
            bare = values[0]
            continue
        sid = g['size']
        if g['kind'] == 'default':
            if default is not None:
                continue
            default = sid
            if bare is not None:
                counts[sid] = bare
        elif sid in named and not (sid == default and counts.get(sid) is None):
            continue
        named.add(sid)
        current = sid
        if values and counts.get(current) is None:
            counts[current] = values[0]
    if bare is not None and default is None:
        counts['default'] = bare
    return counts, default, named


def describe(tokens):
    counts, _default, named = read(tokens)
    parts = ['%s pages of %s' % (v, _size_text(k)) for k, v in sorted(counts.items(), key=lambda kv: str(kv[0]))]
    parts += ['size %s without pages' % _size_text(s) for s in sorted(named, key=str) if s not in counts]
    return '; '.join(parts) or 'no huge pages'


def _size_text(sid):
    if sid == 'default':
        return 'the default size'
    if isinstance(sid, int):
        for unit, shift in (('G', 30), ('M', 20), ('K', 10)):
            if sid >= 1 << shift and sid % (1 << shift) == 0:
                return '%d%s' % (sid >> shift, unit)
        return str(sid)
    return str(sid)


def missing(tokens, wanted, absent):
    """The wanted texts ``tokens`` do not carry (empty: all there), as the kernel reads them."""
    counts, default, named = read(tokens)
    gs = groups(tokens)
    missing = []
    if wanted is not None:
        if wanted.default is not None and default != wanted.default_size():
            missing.append(wanted.default)
        if wanted.default_count is not None and counts.get(default if default is not None else 'default') \
                != _kv(wanted.default_count)[1]:
            missing.append(wanted.default_count)
        for sid, raw, count in wanted.pairs:
            if sid not in named and not (count is None and sid == default):
                missing.append(raw)
                if count is not None:
                    missing.append(count)
            elif count is not None and counts.get(sid) != _kv(count)[1]:
                missing.append(count)
    for kind, sid in absent or []:
        if kind == 'default' and any(g['kind'] in ('default', 'bare') for g in gs):
            missing.append('no ' + DEFAULT)
        elif kind == 'pair' and sid is None and any(g['kind'] != 'default' or g['counts'] for g in gs):
            missing.append('no hugepagesz/hugepages')
        elif kind == 'pair' and sid is not None and any(g['kind'] == 'pair' and g['size'] == sid for g in gs):
            missing.append('no hugepagesz=%s' % _size_text(sid))
    return missing


def _remove_absent(tokens, absent):
    drop = set()
    for g in groups(tokens):
        for kind, sid in absent:
            if kind == 'default' and g['kind'] in ('default', 'bare'):
                drop.update([g['setter']] + g['counts'])
            elif kind == 'pair' and sid is None:
                drop.update(g['counts'] + ([g['setter']] if g['kind'] == 'pair' else []))
            elif kind == 'pair' and g['kind'] == 'pair' and g['size'] == sid:
                drop.update([g['setter']] + g['counts'])
    return [t for i, t in enumerate(tokens) if i not in drop]


def _set_count(tokens, group, count):
    """Give ``group`` the one count ``count`` (raw): its first count replaced where it is, the others (ignored by
    the kernel) dropped, or the count put right after its size."""
    if group['counts']:
        first = group['counts'][0]
        out = list(tokens)
        out[first] = count
        return [t for i, t in enumerate(out) if i not in group['counts'][1:]]
    return tokens[:group['setter'] + 1] + [count] + tokens[group['setter'] + 1:]


def _first_hugepage_index(tokens):
    return next((i for i, t in enumerate(tokens) if is_hugepage_token(t)), len(tokens))


def _apply_default(tokens, wanted):
    dgroup = next((g for g in groups(tokens) if g['kind'] == 'default'), None)
    if wanted.default is not None:
        if dgroup is None:
            tokens = tokens + [wanted.default]
        elif dgroup['size'] != wanted.default_size():
            tokens = list(tokens)
            tokens[dgroup['setter']] = wanted.default
    if wanted.default_count is None:
        return tokens
    value = _kv(wanted.default_count)[1]
    gs = groups(tokens)
    dgroup = next((g for g in gs if g['kind'] == 'default'), None)
    bgroup = next((g for g in gs if g['kind'] == 'bare'), None)
    # the node's pair of the default size is the default size's entry too (the kernel takes one count per size)
    pgroup = next((g for g in gs if g['kind'] == 'pair' and g['size'] == read(tokens)[1]), None)
    if dgroup is not None and dgroup['counts']:
        target = dgroup
    elif bgroup is not None:
        target = bgroup
    elif pgroup is not None:
        target = pgroup
    elif dgroup is not None:
        target = dgroup
    else:
        i = _first_hugepage_index(tokens)
        return tokens[:i] + [wanted.default_count] + tokens[i:]
    if [_kv(tokens[i])[1] for i in target['counts']] == [value]:
        return tokens
    return _set_count(tokens, target, wanted.default_count)


def _apply_pair(tokens, sid, raw, count):
    gs = groups(tokens)
    group = next((g for g in gs if g['kind'] == 'pair' and g['size'] == sid), None)
    _counts, default, _named = read(tokens)
    if group is None and default == sid:
        # the default entry is the node's entry of this size
        group = next((g for g in gs if g['kind'] == 'default' and g['counts']), None) or \
            next((g for g in gs if g['kind'] == 'bare'), None) or next(g for g in gs if g['kind'] == 'default')
    if group is None:
        return tokens + [raw] + ([count] if count is not None else [])
    if count is None or [_kv(tokens[i])[1] for i in group['counts']] == [_kv(count)[1]]:
        return tokens
    return _set_count(tokens, group, count)


def edit(tokens, wanted, absent, style='in_place'):
    """The kernel arguments ``tokens`` with the huge page entries of ``wanted`` (a Wanted or None) set and those of
    ``absent`` removed. ``style`` ``append`` (grubby): when anything changes, every huge page argument moves to the
    end, in the order the in-place edit gives (the kernel reads the same). Raises CmdlineError when the result
    would not read as wanted."""
    if wanted is None and not absent:
        return list(tokens)
    if not missing(tokens, wanted, absent):
        return list(tokens)
    new = _remove_absent(list(tokens), absent or [])
    if wanted is not None:
        for kind, index in wanted.order:
            if kind == 'default':
                new = _apply_default(new, wanted)
            else:
                sid, raw, count = wanted.pairs[index]
                new = _apply_pair(new, sid, raw, count)
    check(tokens, new, wanted, absent or [])
    if style == 'append' and new != list(tokens):
        new = [t for t in new if not is_hugepage_token(t)] + [t for t in new if is_hugepage_token(t)]
    return new


def check(before, after, wanted, absent):
    """Raise CmdlineError unless ``after`` reads as ``before`` with only the wanted changes: the wanted counts on
    their sizes, and every other count of the node on the size it had."""
    counts_before, default_before, _named = read(before)
    counts_after, default_after, _named = read(after)
    expected = dict(counts_before)
    for kind, sid in absent:
        if kind == 'default':
            expected.pop('default', None)
            expected.pop(default_before, None)
        elif sid is None:
            expected = {}
        else:
            expected.pop(sid, None)
    if wanted is not None:
        if wanted.default is not None and default_before is None and 'default' in expected \
                and wanted.default_count is None:
            # the node's count of the unnamed default size would count pages of the wanted default size
            raise CmdlineError(_moved(before, after, 'a hugepages= of the default size', wanted.default))
        if wanted.default is not None and default_before not in (None, wanted.default_size()) \
                and default_before in expected and wanted.default_count is None:
            raise CmdlineError(_moved(before, after, 'the count of the default size %s' % _size_text(default_before),
                               wanted.default))
        if wanted.default_count is not None:
            expected.pop('default', None)
            expected.pop(default_before, None)
            key = default_after if default_after is not None else 'default'
            expected[key] = _kv(wanted.default_count)[1]
        for sid, _raw, count in wanted.pairs:
            if count is not None:
                expected[sid] = _kv(count)[1]
    if counts_after != expected:
        raise CmdlineError(
            'the huge page arguments cannot be merged safely: the node has %r (%s); with the args it would read %r '
            '(%s) where %s is wanted. Nothing was changed; remove the node\'s huge page arguments first '
            '(state=absent with hugepagesz, hugepages and default_hugepagesz), or give them in full. Allowed: %s'
            % (' '.join(t for t in before if is_hugepage_token(t)), describe(before),
               ' '.join(t for t in after if is_hugepage_token(t)), describe(after),
               '; '.join('%s pages of %s' % (v, _size_text(k)) for k, v in sorted(expected.items(), key=str))
               or 'no huge pages', ALLOWED))


def _moved(before, after, what, default):
    node = ' '.join(t for t in before if is_hugepage_token(t))
    merged = ' '.join(t for t in after if is_hugepage_token(t))
    return ('the node has %r: %s; with %s its pages would become pages of another size (%r). Nothing was changed; '
            'give the count for the new default size too (%s hugepages=<count>), or remove the node\'s count '
            '(absent_args: hugepages)' % (node, what, default, merged, default))
