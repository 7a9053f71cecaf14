# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The effective command line of a systemd service, read from its unit file and drop-ins as systemd reads them,
and the ``--config`` and ``--config-dir`` the kubelet is started with.

systemd's rules that matter here (systemd.unit(5), systemd.service(5), systemd.exec(5)):

- the unit file comes from the first unit directory (in priority order) that has it;
- drop-ins are ``<dir>/<name>.service.d/*.conf`` of every unit directory; a drop-in of a higher-priority
  directory hides the one with the same file name below it; all drop-ins are applied after the unit file in
  lexicographic order of their file names, so a later one wins;
- lines starting with ``#`` or ``;`` are comments; a line ending in a backslash continues on the next line;
- ``ExecStart=`` with an empty value empties the list; each other ``ExecStart=`` appends a command;
- ``Environment=`` assigns (later assignments win); ``EnvironmentFile=`` lists files (``-`` prefix: may be
  missing; an empty value empties the list) whose variables override ``Environment=``;
- in a command, ``$NAME`` expands to the value split at whitespace, ``${NAME}`` to the value as one word;
  an undefined variable expands to nothing.

Pure functions, standard library only (Python 3.8+).
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import posixpath
import re
import shlex

_VAR_RE = re.compile(r'\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)')
_EXEC_PREFIXES = '-@:+!|'


def logical_lines(text):
    """(line number, line) of ``text`` with comments dropped and backslash continuations joined."""
    lines = []
    pending = None
    start = 0
    for number, raw in enumerate((text or '').splitlines(), 1):
        line = raw.strip()
        if pending is None:
            if not line or line[0] in '#;':
                continue
            start = number
            pending = ''
        elif line and line[0] in '#;':
            # a comment line inside a continuation is skipped (systemd does the same)
            continue
        if line.endswith('\\'):
            pending += line[:-1] + ' '
            continue
        lines.append((start, pending + line))
        pending = None
    if pending is not None:
        lines.append((start, pending))
    return lines


def parse_unit(text):
    """[(section, key, value, line number)] of a unit file or drop-in, in order."""
    entries = []
    section = None
    for number, line in logical_lines(text):
        if line.startswith('[') and line.endswith(']'):
            section = line[1:-1].strip()
            continue
        key, sep, value = line.partition('=')
        if not sep:
            continue
        entries.append((section, key.strip(), value.strip(), number))
    return entries


def _split_words(value):
    try:
        return shlex.split(value, posix=True)
    except ValueError:
        return value.split()


def parse_environment_assignments(value):
    """{name: value} of one ``Environment=`` value (space-separated, optionally quoted assignments)."""
    result = {}
    for word in _split_words(value):
        name, sep, val = word.partition('=')
        if sep and name:
            result[name] = val
    return result


def parse_environment_file(text):
    """{name: value} of an ``EnvironmentFile=`` (``KEY=VALUE`` lines, quotes removed, comments skipped)."""
    result = {}
    for _number, line in logical_lines(text):
        if line.startswith('export '):
            line = line[len('export '):].strip()
        name, sep, value = line.partition('=')
        name = name.strip()
        if not sep or not re.match(r'^[A-Za-z_][A-Za-z0-9_]*$', name):
            continue
        value = value.strip()
        words = _split_words(value) if value[:1] in ('"', "'") else None
        result[name] = words[0] if words and len(words) == 1 else value
    return result


def expand_command(command, environment):
    """argv of one ``ExecStart=`` value with the variables of ``environment`` expanded as systemd does."""
    command = command.strip()
    while command and command[0] in _EXEC_PREFIXES:
        command = command[1:]
    argv = []
    for word in _split_words(command):
        whole = re.match(r'^\$([A-Za-z_][A-Za-z0-9_]*)$', word)
        if whole:
            argv.extend(environment.get(whole.group(1), '').split())
            continue
        argv.append(_VAR_RE.sub(lambda m: environment.get(m.group(1) or m.group(2), ''), word))
    return argv


def unit_name(service):
    """``kubelet`` -> ``kubelet.service`` (a name that has the suffix is kept)."""
    return service if service.endswith('.service') else service + '.service'


def unit_sources(paths, unit_dirs, service):
    """The unit file and the drop-ins systemd uses, in the order it applies them, from the candidate ``paths``
    (files that exist). Returns (unit file or None, [drop-in paths])."""
    name = unit_name(service)
    present = set(paths)
    unit = None
    for directory in unit_dirs:
        candidate = posixpath.join(directory, name)
        if candidate in present:
            unit = candidate
            break
    chosen = {}
    for directory in reversed(list(unit_dirs)):  # lowest priority first: higher ones overwrite
        prefix = posixpath.join(directory, name + '.d') + '/'
        for path in paths:
            if path.startswith(prefix) and path.endswith('.conf') and '/' not in path[len(prefix):]:
                chosen[posixpath.basename(path)] = path
    return unit, [chosen[base] for base in sorted(chosen)]


def effective_service(texts, unit_dirs, service, env_texts=None, root=''):
    """What systemd would run for ``service``.

    ``texts``: {path: text} of the unit files and drop-ins found (paths as read, under ``root``);
    ``unit_dirs``: the unit directories in priority order (same path form); ``env_texts``: {path: text} of the
    environment files that could be read (same path form); ``root``: prefix to put before an
    ``EnvironmentFile=`` path of the unit to find it in ``env_texts``.

    Returns a dict: ``unit`` (path or None), ``drop_ins`` (applied, in order), ``exec_start`` (the effective
    command as written, or None), ``argv`` (expanded), ``environment`` and ``environment_files``.
    """
    env_texts = env_texts or {}
    unit, drop_ins = unit_sources(list(texts), unit_dirs, service)
    exec_start = []
    environment = {}
    env_files = []
    for path in ([unit] if unit else []) + drop_ins:
        for section, key, value, _number in parse_unit(texts.get(path, '')):
            if section != 'Service':
                continue
            if key == 'ExecStart':
                if value == '':
                    exec_start = []
                else:
                    exec_start.append(value)
            elif key == 'Environment':
                if value == '':
                    environment = {}
                else:
                    environment.update(parse_environment_assignments(value))
            elif key == 'EnvironmentFile':
                if value == '':
                    env_files = []
                else:
                    env_files.append(value)
    for entry in env_files:
        optional = entry.startswith('-')
        path = entry[1:] if optional else entry
        full = (root.rstrip('/') + path) if root else path
        if full in env_texts:
            environment.update(parse_environment_file(env_texts[full]))
    command = exec_start[-1] if exec_start else None
    return {
        'unit': unit,
        'drop_ins': drop_ins,
        'exec_start': command,
        'argv': expand_command(command, environment) if command is not None else [],
        'environment': environment,
        'environment_files': env_files,
    }


def flag_value(argv, flag):
    """The value of ``--flag=value`` or ``--flag value`` in ``argv`` (the last one wins, as with Go's flag
    package), or None."""
    found = None
    long_flag = flag if flag.startswith('-') else '--' + flag
    names = (long_flag, long_flag[1:]) if long_flag.startswith('--') else (long_flag,)
    index = 0
    while index < len(argv):
        word = argv[index]
        for name in names:
            if word == name and index + 1 < len(argv):
                found = argv[index + 1]
                index += 1
                break
            if word.startswith(name + '='):
                found = word[len(name) + 1:]
                break
        index += 1
    return found


def kubelet_config_path(texts, unit_dirs, service='kubelet', env_texts=None, root=''):
    """The ``--config`` and ``--config-dir`` (the kubelet's drop-in directory) of the kubelet's effective
    ``ExecStart`` (see effective_service), with where they came from. Returns {'config': path or '',
    'config_dir': path or '', 'unit': ..., 'drop_ins': [...], 'exec_start': ...}."""
    service_info = effective_service(texts, unit_dirs, service, env_texts, root)
    config = flag_value(service_info['argv'], 'config') or ''
    if '$' in config:
        config = ''
    config_dir = flag_value(service_info['argv'], 'config-dir') or ''
    if '$' in config_dir:
        config_dir = ''
    return {
        'config': config,
        'config_dir': config_dir,
        'unit': service_info['unit'],
        'drop_ins': service_info['drop_ins'],
        'exec_start': service_info['exec_start'],
    }


# ---------------------------------------------------------------------------------------------------------------
# The kubelet's drop-in directory switched on by a unit drop-in of ours

DEFAULT_CONFIG_DIR_UNIT_DROPIN = '90-numaops-config-dir.conf'
# what a --config-dir value may hold in a unit written by this module: no quoting, no variable, no specifier
_PLAIN_PATH_RE = re.compile(r'^/[A-Za-z0-9._/+@,:=-]*$')
DROPIN_HEADER = ('# Written by numaops.colocation.kubelet_config: the kubelet command of the unit and its other '
                 'drop-ins,\n# with --config-dir added. Regenerated by the module when that command changes.\n')


def config_dir_errors(config_dir):
    """Refusals for a --config-dir this module would write into a unit drop-in."""
    if not _PLAIN_PATH_RE.match(config_dir or ''):
        return ['config_dir %r cannot be written into a systemd unit as it is: give an absolute path of letters, '
                'digits and . _ / + @ , : = - only (no spaces, quotes, $ or %%)' % (config_dir,)]
    return []


def config_dir_dropin(texts, unit_dirs, service, ours, config_dir, env_texts=None, root=''):
    """What the unit drop-in ``ours`` (a path among the drop-in directories of ``service``) must hold for the
    kubelet to run with ``--config-dir=<config_dir>``.

    ``texts``: {path: text} of the unit file and the drop-ins found (``ours`` among them or not); ``env_texts``:
    the environment files the unit names that could be read (see effective_service).

    Returns a dict: ``content`` (the drop-in's text, or None when the kubelet has that ``--config-dir`` already
    without ours), ``before`` (the effective service without ours: effective_service), ``after`` (with the new
    content), ``errors`` (refusals: no unit, no command, another --config-dir, a later drop-in that takes the
    command back)."""
    others = dict((path, text) for path, text in texts.items() if path != ours)
    before = effective_service(others, unit_dirs, service, env_texts, root)
    result = {'content': None, 'before': before, 'after': before, 'errors': []}
    name = unit_name(service)
    if before['unit'] is None or before['exec_start'] is None:
        result['errors'].append(
            'no %s with an ExecStart= was found in %s; the --config-dir flag cannot be added to it. Point '
            'kubelet_unit_dirs at the unit directories of the node, or add --config-dir=%s to the kubelet command '
            'yourself' % (name, ', '.join(unit_dirs), config_dir))
        return result
    sources = ', '.join([before['unit']] + before['drop_ins'])
    have = flag_value(before['argv'], 'config-dir')
    if have is not None:
        if have.rstrip('/') != config_dir.rstrip('/'):
            result['errors'].append(
                'the kubelet is started with --config-dir=%s (%s), not %s; the module does not replace it. Set '
                'config_dir to %s, or change the unit yourself' % (have, sources, config_dir, have))
        return result
    content = '%s[Service]\nExecStart=\nExecStart=%s --config-dir=%s\n' % (
        DROPIN_HEADER, before['exec_start'], config_dir)
    after = effective_service(dict(others, **{ours: content}), unit_dirs, service, env_texts, root)
    result.update(content=content, after=after)
    if flag_value(after['argv'], 'config-dir') != config_dir or after['argv'][:len(before['argv'])] != before['argv']:
        later = [path for path in after['drop_ins'] if posixpath.basename(path) > posixpath.basename(ours)]
        result['errors'].append(
            'the unit drop-in %s would not take effect: %s, applied after it, set%s the command again. Give '
            'config_dir_unit_drop_in a name that sorts after %s' % (
                ours, ', '.join(later) or 'another drop-in', '' if len(later) == 1 else 's',
                posixpath.basename(later[-1]) if later else 'them'))
    return result
