# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Kernel command line arguments: validation, parsing and editing.

Pure functions, Python 3.8 compatible, standard library only. Four places carry kernel arguments
and are edited here:

* a plain command line (``/proc/cmdline``, BLS ``options`` lines, grubby ``args=``),
* the ``GRUB_CMDLINE_LINUX`` / ``GRUB_CMDLINE_LINUX_DEFAULT`` shell assignments of
  ``/etc/default/grub`` (quoting kept valid, ``$VAR`` references kept),
* the ``linux`` / ``linux16`` / ``linuxefi`` lines of a generated ``grub.cfg``,
* BLS entry files (``options`` line).

An argument is a flag (``mem_sampling_on``) or ``key=value`` (``numa_icon=enable``); a value may
contain spaces when it is double quoted (``dyndbg="file foo.c +p"``). As in the kernel, ``-`` and
``_`` are the same character in a parameter name. Arguments after a lone ``--`` belong to init and
are never touched.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import re

from ansible_collections.numaops.colocation.plugins.module_utils import cmdline_hugepages as hugepages
from ansible_collections.numaops.colocation.plugins.module_utils import cmdline_lists
from ansible_collections.numaops.colocation.plugins.module_utils.cmdline_error import CmdlineError
from ansible_collections.numaops.colocation.plugins.module_utils.cmdline_lists import LIST_KEYS

# Characters that would break a shell-quoted /etc/default/grub line, a grub.cfg linux line or a BLS
# options line (command substitution, variable expansion, comments, command separators, quoting).
FORBIDDEN_CHARS = "'`$\\;&|<>(){}#"
GRUB_CMDLINE_VARS = ('GRUB_CMDLINE_LINUX', 'GRUB_CMDLINE_LINUX_DEFAULT')
LINUX_COMMANDS = ('linux', 'linux16', 'linuxefi')
ALLOWED_TEXT = ("letters, digits and . , : / = + - _ @ % ~ ^ ! * ? [ ] and, inside a double-quoted "
                "value (key=\"a b\"), spaces")


class Arg(object):
    """One kernel argument as given by the user: raw text, normalised key, unquoted value."""

    __slots__ = ('raw', 'key', 'value')

    def __init__(self, raw, key, value):
        self.raw = raw
        self.key = key
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Arg) and (self.key, self.value) == (other.key, other.value)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self.key, self.value))

    def __repr__(self):
        return 'Arg(%r)' % self.raw


def normalize_key(key):
    """The kernel treats ``-`` and ``_`` alike in parameter names."""
    return key.replace('-', '_')


def split_token(token):
    """(normalised key, unquoted value or None) of one command line token, kernel-style.

    ``foo`` -> ('foo', None); ``foo=bar`` -> ('foo', 'bar'); ``foo="a b"`` and ``"foo=a b"`` ->
    ('foo', 'a b'). Tokens starting with ``$`` (grub/shell variable references) have no key: None.
    """
    if token.startswith('$'):
        return None
    text = token.replace('"', '')
    if '=' in text:
        key, value = text.split('=', 1)
    else:
        key, value = text, None
    return normalize_key(key), value


def token_key(token):
    kv = split_token(token)
    return None if kv is None else kv[0]


def parse_arg(text, field='args'):
    """Validate one user-given argument and return an Arg; raise CmdlineError naming what is wrong."""
    if not isinstance(text, str):
        raise CmdlineError('%s: %r is not a string; give kernel arguments as strings like '
                           '"mem_sampling_on" or "numa_icon=enable"' % (field, text))
    raw = text.strip()
    if not raw:
        raise CmdlineError('%s: an empty string is not a kernel argument' % field)
    if raw == '--':
        raise CmdlineError('%s: "--" separates init arguments and cannot be managed as a kernel argument'
                           % field)
    for ch in raw:
        if ch in FORBIDDEN_CHARS or ord(ch) < 32 or ord(ch) == 127:
            raise CmdlineError(
                '%s: %r contains %r, which would break the quoting of /etc/default/grub or of a grub.cfg '
                'linux line; allowed are %s' % (field, raw, ch, ALLOWED_TEXT))
    if ' ' in raw or '"' in raw:
        m = re.match(r'^([^\s="]+)="([^"]*)"$', raw)
        if not m:
            raise CmdlineError(
                '%s: %r: spaces and double quotes are only allowed as a whole double-quoted value, '
                'like key="a b"' % (field, raw))
        return Arg(raw, normalize_key(m.group(1)), m.group(2))
    key, sep, value = raw.partition('=')
    if not key:
        raise CmdlineError('%s: %r has no parameter name before "="' % (field, raw))
    if key.startswith('-'):
        raise CmdlineError('%s: %r: a kernel parameter name cannot start with "-"' % (field, raw))
    return Arg(raw, normalize_key(key), value if sep else None)


def parse_wanted(args, state='present', absent_args=None):
    """Turn the module's ``args``/``state``/``absent_args`` into (present, absent).

    ``present`` is an ordered list of (key, [Arg, ...]) - several values of one key are kept in the
    order given (``console=tty0 console=ttyS0``); the huge page arguments (``hugepagesz``, ``hugepages``,
    ``default_hugepagesz``: order-dependent, see cmdline_hugepages.py) are one entry, key
    ``cmdline_hugepages.BUNDLE``, in the order given. ``absent`` is an ordered list of keys removed whatever
    their value, a huge page size as ``hugepagesz=<size>`` (that pair). A key both wanted and unwanted is
    an error, as is an ambiguous list of huge page arguments.
    """
    present = []
    present_index = {}
    absent = []
    wanted_args = [parse_arg(a, 'args') for a in (args or [])]
    unwanted = [parse_arg(a, 'absent_args') for a in (absent_args or [])]
    if state == 'absent':
        unwanted = wanted_args + unwanted
        wanted_args = []
    for arg in wanted_args:
        key = hugepages.BUNDLE if arg.key in hugepages.KEYS else arg.key
        if key not in present_index:
            present_index[key] = len(present)
            present.append((key, []))
        values = present[present_index[key]][1]
        if arg not in values or key == hugepages.BUNDLE:
            values.append(arg)
    for key, values in present:
        flags = [v for v in values if v.value is None]
        if key != hugepages.BUNDLE and flags and len(values) > 1:
            raise CmdlineError(
                'args: %s is given both as a flag and with a value (%s); give it one way'
                % (key, ', '.join(v.raw for v in values)))
    wanted_huge = None
    if hugepages.BUNDLE in present_index:
        wanted_huge = hugepages.parse(present[present_index[hugepages.BUNDLE]][1], 'args')
    sized = False
    for arg in unwanted:
        if arg.key in hugepages.KEYS:
            # a count right after a size (or default_hugepagesz) in the list is that pair's: the pair goes whole
            if arg.key == hugepages.COUNT and sized:
                continue
            sized = arg.key == hugepages.DEFAULT or (arg.key == hugepages.SIZE and bool(arg.value))
            name = '%s=%s' % (arg.key, arg.value) if arg.key == hugepages.SIZE and arg.value else arg.key
            if name not in absent:
                absent.append(name)
            continue
        if arg.key in present_index:
            raise CmdlineError(
                'conflicting args: %s is wanted present (%s) and absent (%s); a key can only be one of both'
                % (arg.key, ', '.join(v.raw for v in present[present_index[arg.key]][1]), arg.raw))
        if arg.key not in absent:
            absent.append(arg.key)
    both = wanted_huge and hugepages.conflicts(wanted_huge, hugepages.parse_absent(hugepages.absent_names(absent)))
    if both:
        raise CmdlineError('conflicting args: %s is wanted present (%s) and absent (%s); a key can only be one of both'
                           % (both, ' '.join(v.raw for v in present[present_index[hugepages.BUNDLE]][1]),
                              ' '.join(hugepages.absent_names(absent))))
    return present, absent


# --------------------------------------------------------------------------------------------
# Plain command lines
# --------------------------------------------------------------------------------------------

def tokenize(text, quotes='"'):
    """Split a command line into raw tokens like the kernel does (whitespace, double quotes group).

    With ``quotes='"\\''`` single quotes group too (grub script words).
    """
    tokens = []
    cur = []
    quote = None
    started = False
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in quotes:
            quote = ch
            cur.append(ch)
            started = True
        elif ch.isspace():
            if started:
                tokens.append(''.join(cur))
                cur = []
                started = False
        else:
            cur.append(ch)
            started = True
    if started:
        tokens.append(''.join(cur))
    return tokens


def _split_init(tokens):
    if '--' in tokens:
        i = tokens.index('--')
        return tokens[:i], tokens[i:]
    return tokens, []


def edit_tokens(tokens, present, absent, style='in_place'):
    """Return new tokens with ``present`` args set and ``absent`` keys removed.

    style ``in_place``: a key already there gets the wanted value(s) where it first appeared, its
    other occurrences are dropped; new keys are appended (before a ``--``).
    style ``append``: every occurrence of a changed key is removed and the wanted args appended, as
    grubby does. A key that already has exactly the wanted values is left alone in both styles.
    A key of LIST_KEYS keeps the node's other values: the wanted ones come after them, in order.
    The huge page arguments are merged as entries keyed by page size (cmdline_hugepages.edit): a count
    never lands on another size; what cannot be merged safely raises CmdlineError.
    """
    kernel, init = _split_init(list(tokens))
    plain_absent, huge_absent = hugepages.split_absent(absent)
    absent_set = set(plain_absent)
    kernel = [t for t in kernel if token_key(t) not in absent_set]
    bundle = [values for key, values in present if key == hugepages.BUNDLE]
    if huge_absent and not bundle:
        kernel = hugepages.edit(kernel, None, huge_absent, style)
    for key, values in present:
        if key == hugepages.BUNDLE:
            kernel = hugepages.edit(kernel, hugepages.parse(values), huge_absent, style)
            continue
        have = [t for t in kernel if token_key(t) == key]
        if key in LIST_KEYS:
            wanted = [(v.key, v.value) for v in values]
            if not cmdline_lists.satisfied([split_token(t) for t in have], wanted):
                kernel = cmdline_lists.edit(kernel, key, [v.raw for v in values], wanted, token_key, split_token, style)
            continue
        if [split_token(t) for t in have] == [(v.key, v.value) for v in values]:
            continue
        wanted_raw = [v.raw for v in values]
        if have and style == 'in_place':
            first = next(i for i, t in enumerate(kernel) if token_key(t) == key)
            rest = [t for t in kernel[first + 1:] if token_key(t) != key]
            kernel = kernel[:first] + wanted_raw + rest
        else:
            kernel = [t for t in kernel if token_key(t) != key] + wanted_raw
    return kernel + init


def unsatisfied(tokens, present, absent):
    """The wanted args ``tokens`` do not carry, as a list of short texts (empty: all satisfied)."""
    kernel, _init = _split_init(list(tokens))
    plain_absent, huge_absent = hugepages.split_absent(absent)
    missing = []
    bundle = None
    for key, values in present:
        if key == hugepages.BUNDLE:
            bundle = hugepages.parse(values)
            missing.extend(hugepages.missing(kernel, bundle, huge_absent))
            continue
        have = [split_token(t) for t in kernel if token_key(t) == key]
        if key in LIST_KEYS:
            if not cmdline_lists.satisfied(have, [(v.key, v.value) for v in values]):
                missing.extend(v.raw for v in values)
        elif have != [(v.key, v.value) for v in values]:
            missing.extend(v.raw for v in values)
    if bundle is None and huge_absent:
        missing.extend(hugepages.missing(kernel, None, huge_absent))
    keys = set(token_key(t) for t in kernel)
    for key in plain_absent:
        if key in keys:
            missing.append('no ' + key)
    return missing


def edit_cmdline(text, present, absent, style='in_place'):
    """Edit a one-line command line (BLS options, /proc/cmdline-like text); tokens re-joined by spaces."""
    return ' '.join(edit_tokens(tokenize(text), present, absent, style))


# --------------------------------------------------------------------------------------------
# /etc/default/grub
# --------------------------------------------------------------------------------------------

_ASSIGN_RE = re.compile(r'^(?P<lead>[ \t]*(?:export[ \t]+)?)(?P<name>GRUB_CMDLINE_LINUX(?:_DEFAULT)?)=')


class Assignment(object):
    """One ``GRUB_CMDLINE_LINUX[_DEFAULT]=value`` in /etc/default/grub (possibly several lines)."""

    def __init__(self, name, start, end, lead, value, quoting, tail, refs_self):
        self.name = name            # variable name
        self.start = start          # first line index
        self.end = end              # last line index (inclusive)
        self.lead = lead            # text before the name (indentation, "export ")
        self.value = value          # decoded value, $VAR references kept as text
        self.quoting = quoting      # '"', "'" or '' (unquoted)
        self.tail = tail            # text after the value on the last line (comment)
        self.refs_self = refs_self  # value references $NAME / ${NAME} (appends to itself)
        self.live = True            # not overridden by a later plain assignment


def _grub_file_error(path, lineno, name, what):
    return CmdlineError('%s line %d: %s %s; fix that line by hand (or give the args in another way) '
                        'and run again' % (path, lineno, name, what))


def _parse_shell_value(text, pos, path, lineno, name):
    """Decode a shell word starting at text[pos]; return (value, quoting, end_pos).

    Handles double quotes (with \\ escapes and backslash-newline continuations), single quotes and
    unquoted text; $VAR and ${VAR} are kept literally; command substitution is refused.
    """
    out = []
    quoting = None
    i = pos
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            quoting = quoting or '"'
            i += 1
            while True:
                if i >= n:
                    raise _grub_file_error(path, lineno, name, 'has an unterminated double quote')
                c = text[i]
                if c == '"':
                    i += 1
                    break
                if c == '\\' and i + 1 < n:
                    nxt = text[i + 1]
                    if nxt == '\n':
                        i += 2
                        continue
                    if nxt in '$`"\\':
                        if nxt in '`$':
                            raise _grub_file_error(path, lineno, name,
                                                   'contains an escaped %r, which this module cannot keep' % nxt)
                        out.append(nxt)
                        i += 2
                        continue
                if c == '`' or (c == '$' and text[i + 1:i + 2] == '('):
                    raise _grub_file_error(path, lineno, name, 'uses command substitution')
                out.append(c)
                i += 1
        elif ch == "'":
            quoting = quoting or "'"
            end = text.find("'", i + 1)
            if end < 0:
                raise _grub_file_error(path, lineno, name, 'has an unterminated single quote')
            chunk = text[i + 1:end]
            if '$' in chunk:
                raise _grub_file_error(path, lineno, name, 'has a "$" inside single quotes')
            out.append(chunk)
            i = end + 1
        elif ch == '\\' and i + 1 < n and text[i + 1] == '\n':
            i += 2
        elif ch.isspace() or ch in ';&|':
            break
        elif ch == '`' or (ch == '$' and text[i + 1:i + 2] == '('):
            raise _grub_file_error(path, lineno, name, 'uses command substitution')
        elif ch == '\\':
            raise _grub_file_error(path, lineno, name, 'uses backslash escapes outside quotes')
        else:
            quoting = quoting or ''
            out.append(ch)
            i += 1
    return ''.join(out), quoting or '', i


def parse_grub_defaults(text, path='/etc/default/grub'):
    """Find the GRUB_CMDLINE_LINUX[_DEFAULT] assignments of /etc/default/grub text."""
    lines = text.splitlines(True)
    assignments = []
    i = 0
    while i < len(lines):
        m = _ASSIGN_RE.match(lines[i])
        if not m:
            i += 1
            continue
        name = m.group('name')
        # join continuation lines until the value is complete
        j = i
        chunk = lines[i]
        while True:
            try:
                value, quoting, end = _parse_shell_value(chunk, m.end(), path, i + 1, name)
                break
            except CmdlineError as exc:
                if 'unterminated' in str(exc) and j + 1 < len(lines):
                    j += 1
                    chunk += lines[j]
                    continue
                raise
        while chunk.endswith('\\\n') and end >= len(chunk) - 2 and j + 1 < len(lines):
            j += 1
            chunk += lines[j]
            value, quoting, end = _parse_shell_value(chunk, m.end(), path, i + 1, name)
        if '\n' in value:
            raise _grub_file_error(path, i + 1, name, 'has a line break inside its quotes')
        # what follows a value on the last line must be blank or a comment
        tail = chunk[end:]
        tail_text = tail.rstrip('\r\n')
        if tail_text.strip() and not tail_text.strip().startswith('#'):
            raise _grub_file_error(path, i + 1, name, 'is followed by %r on the same line' % tail_text.strip())
        refs_self = bool(re.search(r'\$(\{%s\}|%s(?![A-Za-z0-9_]))' % (name, name), value))
        assignments.append(Assignment(name, i, j, m.group('lead'), value, quoting, tail, refs_self))
        i = j + 1
    for idx, a in enumerate(assignments):
        for later in assignments[idx + 1:]:
            if later.name == a.name and not later.refs_self:
                a.live = False
                break
    return assignments


def render_shell_value(value, quoting):
    """Quote ``value`` for a shell assignment, keeping the original quoting style where possible."""
    if quoting == "'" and "'" not in value and '$' not in value:
        return "'" + value + "'"
    if quoting == '' and value and re.match(r'^[A-Za-z0-9_.,:/=+@%~^!-]+$', value):
        return value
    out = []
    for ch in value:
        if ch in '"\\`':
            out.append('\\')
        out.append(ch)
    return '"' + ''.join(out) + '"'


def grub_defaults_cmdline(text, path='/etc/default/grub'):
    """{'GRUB_CMDLINE_LINUX': tokens, 'GRUB_CMDLINE_LINUX_DEFAULT': tokens} of the live values."""
    result = dict((n, []) for n in GRUB_CMDLINE_VARS)
    for a in parse_grub_defaults(text, path):
        if not a.live:
            continue
        toks = []
        for t in tokenize(a.value):
            if a.refs_self and t in ('$' + a.name, '${%s}' % a.name):
                toks.extend(result[a.name])
            else:
                toks.append(t)
        result[a.name] = toks
    return result


def edit_grub_defaults(text, present, absent, path='/etc/default/grub', variable='GRUB_CMDLINE_LINUX'):
    """Return the new /etc/default/grub text with the args set in the GRUB_CMDLINE_LINUX* lines.

    A key already in a live GRUB_CMDLINE_LINUX or GRUB_CMDLINE_LINUX_DEFAULT assignment is changed
    where it is (its other occurrences removed, so the generated command line has no duplicate);
    a new key goes to the last live assignment of ``variable`` (a new line is added at the end when
    there is none). Absent keys are removed from every assignment. Unchanged assignments keep their
    exact text; changed ones are written on one line with their quoting kept valid.
    """
    lines = text.splitlines(True)
    assignments = parse_grub_defaults(text, path)
    toks = {}
    for idx, a in enumerate(assignments):
        toks[idx] = tokenize(a.value)
    plain_absent, huge_absent = hugepages.split_absent(absent)
    absent_set = set(plain_absent)
    for idx in toks:
        toks[idx] = [t for t in toks[idx] if token_key(t) not in absent_set]
    order = [idx for idx, a in enumerate(assignments) if a.live]
    # search GRUB_CMDLINE_LINUX first, then _DEFAULT: the order grub-mkconfig puts them on the line
    order.sort(key=lambda k: (GRUB_CMDLINE_VARS.index(assignments[k].name), k))
    new_line_tokens = None
    huge = [(key, values) for key, values in present if key == hugepages.BUNDLE]
    if huge or huge_absent:
        # the huge page arguments are edited where they are, all in one assignment (their order matters)
        holders = [idx for idx in order if any(hugepages.is_hugepage_token(t) for t in toks[idx])]
        line = [t for idx in order for t in toks[idx]]
        if unsatisfied(line, huge, hugepages.absent_names(absent)):
            if len(holders) > 1:
                raise CmdlineError(
                    '%s: the huge page arguments are split over %s (%s); their order matters, so they are only '
                    'edited when one assignment holds them all. Move them into one by hand and run again'
                    % (path, ' and '.join(assignments[idx].name for idx in holders),
                       ' '.join(t for t in line if hugepages.is_hugepage_token(t))))
            targets = holders or [idx for idx in order if assignments[idx].name == variable][-1:]
            if targets:
                toks[targets[0]] = edit_tokens(toks[targets[0]], huge, hugepages.absent_names(absent), 'in_place')
            elif huge:
                new_line_tokens = edit_tokens([], huge, [], 'in_place')
    for key, values in present:
        if key == hugepages.BUNDLE:
            continue
        wanted = [(v.key, v.value) for v in values]
        holders = [idx for idx in order if any(token_key(t) == key for t in toks[idx])]
        have = [split_token(t) for idx in holders for t in toks[idx] if token_key(t) == key]
        if have == wanted and len(holders) <= 1:
            continue
        if holders:
            first = holders[0]
            toks[first] = edit_tokens(toks[first], [(key, values)], [], 'in_place')
            for idx in holders[1:]:
                toks[idx] = [t for t in toks[idx] if token_key(t) != key]
            for idx in toks:
                if idx not in order:
                    toks[idx] = [t for t in toks[idx] if token_key(t) != key]
            continue
        targets = [idx for idx in order if assignments[idx].name == variable]
        if targets:
            target = targets[-1]
            toks[target] = edit_tokens(toks[target], [(key, values)], [], 'in_place')
        else:
            new_line_tokens = edit_tokens(new_line_tokens or [], [(key, values)], [], 'in_place')
    # write back, bottom-up so line indexes stay valid
    for idx in sorted(toks, reverse=True):
        a = assignments[idx]
        if toks[idx] == tokenize(a.value):
            continue
        new_value = ' '.join(toks[idx])
        line = '%s%s=%s%s' % (a.lead, a.name, render_shell_value(new_value, a.quoting), a.tail)
        lines[a.start:a.end + 1] = [line]
    out = ''.join(lines)
    if new_line_tokens:
        newline = line_ending(text)
        if out and not out.endswith('\n'):
            out += newline
        out += '%s=%s%s' % (variable, render_shell_value(' '.join(new_line_tokens), '"'), newline)
    return out


def line_ending(text):
    """The file's own line ending: CRLF when most of its lines end so, else LF."""
    crlf = text.count('\r\n')
    return '\r\n' if crlf and crlf * 2 >= text.count('\n') else '\n'


# --------------------------------------------------------------------------------------------
# BLS entries (grub.cfg linux lines: bootloader/grub_cfg.py)
# --------------------------------------------------------------------------------------------


def bls_options(text):
    """The ``options`` value of a BLS entry file, or None."""
    for line in text.splitlines():
        m = re.match(r'^options(?:[ \t]+(.*))?$', line)
        if m:
            return (m.group(1) or '').strip()
    return None


def edit_bls_entry(text, present, absent, style='in_place'):
    """Set the args on a BLS entry's ``options`` line (added when missing)."""
    lines = text.splitlines(True)
    for i, line in enumerate(lines):
        m = re.match(r'^options(?:[ \t]+(.*?))?(\r?\n?)$', line)
        if m:
            new = edit_cmdline(m.group(1) or '', present, absent, style)
            lines[i] = 'options %s%s' % (new, m.group(2))
            return ''.join(lines)
    new = edit_cmdline('', present, absent, style)
    newline = line_ending(text)
    if text and not text.endswith('\n'):
        text += newline
    return text + 'options %s%s' % (new, newline)


def edit_kernel_cmdline_file(text, present, absent):
    """New text of /etc/kernel/cmdline (one line of arguments, read by kernel-install for new kernels):
    the arguments set, the line ending and everything after the first line kept."""
    first, sep, rest = text.partition('\n')
    cr = '\r' if first.endswith('\r') else ''
    body = first[:-1] if cr else first
    new = edit_cmdline(body, present, absent, 'append')
    if tokenize(new) == tokenize(body):
        return text
    return new + cr + (sep or '\n') + rest


def proc_cmdline_tokens(text):
    """Tokens of /proc/cmdline text (trailing newline and NUL padding removed)."""
    return tokenize(text.replace('\0', ' ').strip())
