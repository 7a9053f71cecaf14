# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""containerd NRI (Node Resource Interface) configuration rules, as plain Python.

Shared by the ``containerd_nri`` action plugin (controller) and module (documentation and argument
spec). Pure and stdlib-only (Python 3.8+). The TOML round-trip editing lives in
``plugins/plugin_utils/containerd_toml.py``; everything here works on plain values.

Facts this encodes (checked against Debian's containerd 1.6.20, 1.7.24 and 2.1.9 binaries):

* The NRI plugin is ``[plugins."io.containerd.nri.v1.nri"]`` in config ``version = 2`` (containerd
  1.7), ``version = 3`` (containerd 2.0-2.2) and ``version = 4`` (containerd 2.3 and later; read from
  ``version.ConfigVersion`` and the ``migrations`` list of ``cmd/containerd/server/config`` in the Go
  module github.com/containerd/containerd/v2 v2.2.1, v2.3.0 and v2.4.2: version 4 only moves the server's
  own grpc/ttrpc/debug/metrics sections into plugins, the NRI table stays where it is). Each containerd
  reads its own version and every lower one (migrating them in memory) and refuses a higher one.
  containerd 1.6 has no NRI v0.3+ plugin.
* The NRI table's types are containerd's ``internal/nri/config.go`` ``Config`` struct (v2.2.1 to v2.4.2):
  bools ``disable`` and ``disable_connections``, strings for the paths, Go duration strings for the
  timeouts (an integer is accepted as nanoseconds), and (containerd 2.2+) the ``default_validator`` table of
  NRI's ``DefaultValidatorConfig`` (github.com/containerd/nri v0.12.3 ``plugins/default-validator``; 2.1 logs
  it as an unknown key). Checked against the Debian 1.7.24 and 2.1.9 and a 2.4.2 binary: a value of another
  type makes containerd exit at start.
* Its defaults are the same in 1.7 and 2.x except ``disable``: 1.7 ships NRI disabled, 2.x enabled.
  So the module always writes ``disable`` explicitly.
* containerd 1.7 refuses ``version = 3``; a file without ``version`` is a version 1 file (1.7 then
  ignores fully-qualified plugin tables such as the NRI one).
* Imports (drop-ins): relative paths are resolved against the directory of the importing file, a path
  containing ``*`` is a Go ``filepath.Glob`` pattern. containerd 1.7 replaces a plugin's whole table
  with the drop-in's; containerd 2.x merges a drop-in's plugin table key by key. containerd 2.x refuses a
  drop-in whose ``version`` is higher than the main file's.
"""
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import fnmatch
import posixpath
import re
from fractions import Fraction

NRI_PLUGIN = 'io.containerd.nri.v1.nri'
DEFAULT_PATH = '/etc/containerd/config.toml'
DEFAULT_DROPIN_PATH = '/etc/containerd/conf.d/99-nri.toml'

# The NRI table's keys, in containerd's own order (``containerd config default`` of 2.x).
NRI_KEYS = ('disable', 'socket_path', 'plugin_path', 'plugin_config_path',
            'plugin_registration_timeout', 'plugin_request_timeout', 'disable_connections')
PATH_KEYS = ('socket_path', 'plugin_path', 'plugin_config_path')
DURATION_KEYS = ('plugin_registration_timeout', 'plugin_request_timeout')
BOOL_KEYS = ('disable', 'disable_connections')

# containerd's defaults for the NRI plugin (identical in 1.7 and 2.x apart from ``disable``).
NRI_DEFAULTS = {
    'socket_path': '/var/run/nri/nri.sock',
    'plugin_path': '/opt/nri/plugins',
    'plugin_config_path': '/etc/nri/conf.d',
    'plugin_registration_timeout': '5s',
    'plugin_request_timeout': '2s',
    'disable_connections': False,
}
# The highest config file version each containerd release line reads (and the one it writes):
# (major, minor) from which on -> version. 1.7: 2; 2.0-2.2: 3; 2.3+: 4.
CONFIG_VERSIONS = ((1, 7, 2), (2, 0, 3), (2, 3, 4))
SUPPORTED_CONFIG_VERSIONS = (2, 3, 4)
MAX_CONFIG_VERSION = 4

# The NRI table's keys and their TOML types (see the module docstring for where they come from).
NRI_TYPES = {
    'disable': 'bool', 'socket_path': 'string', 'plugin_path': 'string', 'plugin_config_path': 'string',
    'plugin_registration_timeout': 'duration', 'plugin_request_timeout': 'duration',
    'disable_connections': 'bool', 'default_validator': 'table',
}
DEFAULT_VALIDATOR_TYPES = {
    'enable': 'bool', 'reject_oci_hook_adjustment': 'bool', 'reject_runtime_default_seccomp_adjustment': 'bool',
    'reject_unconfined_seccomp_adjustment': 'bool', 'reject_custom_seccomp_adjustment': 'bool',
    'reject_namespace_adjustment': 'bool', 'reject_sysctl_adjustment': 'bool', 'required_plugins': 'string list',
    'tolerate_missing_plugins_annotation': 'string',
}
MIN_VERSION = (1, 7)
# Linux sockaddr_un.sun_path holds 108 bytes including the terminating NUL.
MAX_SOCKET_PATH = 107

ARGUMENT_SPEC = dict(
    path=dict(type='path', default=DEFAULT_PATH),
    state=dict(type='str', default='enabled', choices=['enabled', 'disabled']),
    socket_path=dict(type='path'),
    plugin_path=dict(type='path'),
    plugin_config_path=dict(type='path'),
    plugin_registration_timeout=dict(type='str'),
    plugin_request_timeout=dict(type='str'),
    disable_connections=dict(type='bool'),
    mode=dict(type='str', default='inline', choices=['inline', 'dropin']),
    dropin_path=dict(type='path', default=DEFAULT_DROPIN_PATH),
    containerd_version=dict(type='str'),
    containerd_binary=dict(type='str', default='containerd'),
    misplaced_keys=dict(type='str', default='warn', choices=['warn', 'remove']),
    backup=dict(type='bool', default=False),
    create=dict(type='bool', default=False),
    template=dict(type='str', default='refuse', choices=['refuse', 'manage']),
)


class ContainerdConfigError(ValueError):
    """Bad input or an unsupported setup; the message says what, where, what is allowed and what to do."""


class ContainerdVersion(tuple):
    """``(major, minor, patch)`` plus the text it was read from."""

    def __new__(cls, major, minor, patch=0, text=None):
        self = tuple.__new__(cls, (major, minor, patch))
        self.text = text or '%d.%d.%d' % (major, minor, patch)
        return self

    @property
    def major(self):
        return self[0]

    @property
    def minor(self):
        return self[1]

    def __str__(self):
        return self.text


# What says why containerd stopped, among the lines of its journal (or log file): containerd's own errors (logrus
# levels error, fatal, panic; `level=info ... error="skip plugin"` is not one), the error its command line prints
# when it exits before logging starts (`containerd: failed to load TOML ...: unsupported config version`), and
# systemd's account of the unit
_JOURNAL_ERROR_RE = re.compile(r'\blevel=(?:fatal|panic|error)\b|(?:^|\]: )containerd: |: Main process exited, '
                               r"|: Failed with result |Start request repeated too quickly|Failed to start ")
# a journal line's own prefix (short-iso: time, host, unit[pid]:) and logrus' time="..." field
_JOURNAL_PREFIX_RE = re.compile(r'^\S+ \S+ [^:\s]+: ')
_LOGRUS_TIME_RE = re.compile(r'\btime="[^"]*" ?')


def journal_errors(lines, limit=10):
    """The lines of containerd's journal that say why it stopped: its error, fatal and panic lines, the error its
    command line exits with, and systemd's lines about the unit failing, each told once (a unit that systemd restarts again and again repeats them; the
    last occurrence is kept), in the order they last occurred, at most ``limit`` of them (the last ones)."""
    last = {}
    for index, line in enumerate(lines):
        if not _JOURNAL_ERROR_RE.search(line):
            continue
        key = _LOGRUS_TIME_RE.sub('', _JOURNAL_PREFIX_RE.sub('', line)).strip()
        last[key] = (index, line)
    found = [line for _index, line in sorted(last.values())]
    return found[-limit:] if limit > 0 else []


_VERSION_TOKEN_RE = re.compile(r'^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-~+.][0-9A-Za-z.~+-]*)?$')


def parse_version_string(text):
    """``1.7``, ``1.7.24``, ``v2.0.0``, ``1.6.20~ds1``, ``v1.7.23-k3s2`` → ContainerdVersion, else None."""
    match = _VERSION_TOKEN_RE.match((text or '').strip())
    if not match:
        return None
    return ContainerdVersion(int(match.group(1)), int(match.group(2)), int(match.group(3) or 0),
                             text=text.strip().lstrip('v'))


def parse_containerd_version(output):
    """Read the version from ``containerd --version`` output.

    Handles upstream (``containerd github.com/containerd/containerd/v2 v2.0.0 <commit>``), Debian
    (``containerd github.com/containerd/containerd 1.6.20~ds1 1.6.20~ds1-1+deb12u3``), Docker's
    containerd.io (``containerd containerd.io 1.7.22 <commit>``) and k3s (``v1.7.23-k3s2``).
    Raises ContainerdConfigError when no version can be found.
    """
    for line in (output or '').splitlines():
        tokens = line.split()
        for token in tokens[1:]:
            version = parse_version_string(token)
            if version is not None:
                return version
    raise ContainerdConfigError(
        'could not read a version from `containerd --version` output %r; set containerd_version '
        '(for example containerd_version: "1.7.24") to say which containerd the node runs.'
        % (output or '').strip()[:200])


_DURATION_UNITS = {
    'ns': Fraction(1, 10 ** 9), 'us': Fraction(1, 10 ** 6), u'\u00b5s': Fraction(1, 10 ** 6),
    u'\u03bcs': Fraction(1, 10 ** 6), 'ms': Fraction(1, 1000), 's': Fraction(1), 'm': Fraction(60),
    'h': Fraction(3600),
}
_DURATION_PART_RE = re.compile(u'(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)')


def parse_duration(text):
    """Parse a Go ``time.ParseDuration`` string (``5s``, ``1m30s``, ``500ms``) into seconds (Fraction).

    Raises ValueError for anything Go would refuse (including a missing unit, except for ``0``).
    """
    value = text
    if not isinstance(value, str) or not value:
        raise ValueError('empty duration')
    sign = 1
    if value[0] in '+-':
        sign = -1 if value[0] == '-' else 1
        value = value[1:]
    if value == '0':
        return Fraction(0)
    pos = 0
    total = Fraction(0)
    while pos < len(value):
        match = _DURATION_PART_RE.match(value, pos)
        if not match:
            raise ValueError('invalid duration %r' % text)
        total += Fraction(match.group(1)) * _DURATION_UNITS[match.group(2)]
        pos = match.end()
    if pos == 0:
        raise ValueError('invalid duration %r' % text)
    return sign * total


def validate_options(params):
    """Check the NRI options the user gave; raise ContainerdConfigError naming every bad one."""
    errors = []
    for key in PATH_KEYS + ('path', 'dropin_path'):
        value = params.get(key)
        if value is None:
            continue
        if not value or not posixpath.isabs(value):
            errors.append('%s=%r must be an absolute path (it starts with "/")' % (key, value))
        elif '\n' in value or '\x00' in value:
            errors.append('%s=%r must not contain a newline or NUL character' % (key, value))
    socket_path = params.get('socket_path')
    if socket_path and len(socket_path.encode('utf-8')) > MAX_SOCKET_PATH:
        errors.append('socket_path=%r is %d bytes long; a Unix socket path can be at most %d bytes on Linux '
                      '(containerd could not create the NRI socket)'
                      % (socket_path, len(socket_path.encode('utf-8')), MAX_SOCKET_PATH))
    for key in DURATION_KEYS:
        value = params.get(key)
        if value is None:
            continue
        try:
            seconds = parse_duration(value)
        except ValueError:
            errors.append('%s=%r is not a duration; use Go duration syntax such as "5s", "500ms" or "1m30s" '
                          '(units ns, us, ms, s, m, h)' % (key, value))
            continue
        if seconds <= 0:
            errors.append('%s=%r must be longer than zero (for example "5s")' % (key, value))
    if params.get('mode') == 'dropin' and params.get('path') and params.get('dropin_path') \
            and posixpath.normpath(params['path']) == posixpath.normpath(params['dropin_path']):
        errors.append('dropin_path=%r is the main config file itself; choose a separate file such as %s'
                      % (params['dropin_path'], DEFAULT_DROPIN_PATH))
    if params.get('containerd_version') is not None and parse_version_string(params['containerd_version']) is None:
        errors.append('containerd_version=%r is not a version; use e.g. "1.7", "1.7.24" or "2.1.0"'
                      % (params['containerd_version'],))
    if errors:
        raise ContainerdConfigError('containerd_nri: invalid options: ' + '; '.join(errors) + '. Nothing was changed.')


def wanted_values(params):
    """The NRI keys to write, in containerd's order: ``disable`` always, the rest only when given."""
    wanted = {'disable': params.get('state', 'enabled') == 'disabled'}
    for key in NRI_KEYS[1:]:
        if params.get(key) is not None:
            wanted[key] = params[key]
    return dict((key, wanted[key]) for key in NRI_KEYS if key in wanted)


def values_equal(key, current, wanted):
    """Whether a value already in the file means the same as the wanted one (no rewrite needed)."""
    if key in BOOL_KEYS:
        return isinstance(current, bool) and current == wanted
    if not isinstance(current, str):
        return False
    if key in DURATION_KEYS:
        try:
            return parse_duration(current) == parse_duration(wanted)
        except ValueError:
            return False
    if key in PATH_KEYS:
        return current == wanted or (current != '' and posixpath.normpath(current) == posixpath.normpath(wanted))
    return current == wanted


def check_supported(path, containerd_version=None, config_version=None, version_source=None):
    """Refuse setups where NRI cannot work; raise ContainerdConfigError with the way out."""
    if containerd_version is not None and tuple(containerd_version)[:2] < MIN_VERSION:
        raise ContainerdConfigError(
            'containerd %s (%s) has no NRI support: the NRI plugin io.containerd.nri.v1.nri (NRI v0.3+) '
            'needs containerd 1.7 or later. Upgrade containerd on this node (for example Debian 13 ships 1.7.24), '
            'then run again. %s was not changed.'
            % (containerd_version, version_source or 'detected', path))
    if config_version is not None:
        if config_version < 2:
            raise ContainerdConfigError(
                '%s is a containerd config version %d file (%s): containerd 1.7 ignores the NRI table '
                '[plugins."io.containerd.nri.v1.nri"] in such a file. Convert it first: with containerd 1.7 '
                'run `containerd config default` and re-apply your changes with `version = 2` at the top, or with '
                'containerd 2.x run `containerd config migrate`. The file was not changed.'
                % (path, config_version,
                   'no `version` key' if config_version == 0 else '`version = %d`' % config_version))
        if config_version > MAX_CONFIG_VERSION:
            raise ContainerdConfigError(
                '%s has `version = %d`; this module knows containerd config versions %s (containerd 1.7: 2, '
                '2.0-2.2: 3, 2.3 and later: 4). The file was not changed.'
                % (path, config_version, ', '.join(str(v) for v in SUPPORTED_CONFIG_VERSIONS)))
        if containerd_version is not None:
            highest = highest_config_version(containerd_version)
            if config_version > highest:
                raise ContainerdConfigError(
                    '%s has `version = %d`, which containerd %s does not accept (it reads config version %d at '
                    'most and would fail to start: "expected containerd config version equal to or less than `%d`"). '
                    'Write `version = %d` (`containerd config migrate` of this containerd does it), or upgrade '
                    'containerd (version 3 needs 2.0, version 4 needs 2.3). The file was not changed.'
                    % (path, config_version, containerd_version, highest, highest, highest))


def highest_config_version(containerd_version):
    """The highest config version this containerd reads (and the one its `config default` writes)."""
    found = CONFIG_VERSIONS[0][2]
    for major, minor, version in CONFIG_VERSIONS:
        if tuple(containerd_version)[:2] >= (major, minor):
            found = version
    return found


def validate_nri_table(path, table, label=None):
    """Check every value of an NRI table already in a file against containerd's types.

    Returns warnings (unknown keys); raises ContainerdConfigError naming each wrong-typed value.
    """
    if not table:
        return []
    where = label or '[plugins."%s"]' % NRI_PLUGIN
    errors, warnings = [], []

    def check(key, value, kind, prefix=''):
        name = prefix + key
        bad = None
        if kind == 'bool' and not isinstance(value, bool):
            bad = 'a boolean (true or false)'
        elif kind == 'string' and not isinstance(value, str):
            bad = 'a string'
        elif kind == 'duration':
            if isinstance(value, int) and not isinstance(value, bool):
                # containerd's Duration is an int64 of nanoseconds: an integer is taken as nanoseconds
                warnings.append('%s: %s %s = %d is read by containerd as %d nanoseconds; write a duration string '
                                'such as "2s" if that is not meant.' % (path, where, name, value, value))
            elif not isinstance(value, str):
                bad = 'a Go duration string such as "5s"'
            else:
                try:
                    parse_duration(value)
                except ValueError:
                    bad = 'a Go duration string such as "5s" (units ns, us, ms, s, m, h)'
        elif kind == 'string list' and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            bad = 'an array of strings'
        elif kind == 'table' and not isinstance(value, dict):
            bad = 'a table'
        if bad:
            errors.append('%s = %s (%s) must be %s' % (name, _toml_repr(value), _type_name(value), bad))
        return bad is None

    for key in sorted(table):
        value = table[key]
        kind = NRI_TYPES.get(key)
        if kind is None:
            warnings.append('%s: %s has the key %r, which containerd does not know (it is ignored, or logged as '
                            'unknown by containerd 2.x); left as it is.' % (path, where, key))
            continue
        if check(key, value, kind) and key == 'default_validator':
            for sub in sorted(value):
                subkind = DEFAULT_VALIDATOR_TYPES.get(sub)
                if subkind is None:
                    warnings.append('%s: %s.default_validator has the key %r, which containerd does not know; left '
                                    'as it is.' % (path, where, sub))
                    continue
                check(sub, value[sub], subkind, prefix='default_validator.')
    if errors:
        raise ContainerdConfigError(
            '%s: the NRI table %s has %s; containerd refuses to start with this file (1.7: "Can\'t convert ...", 2.x: '
            '"toml: cannot decode ..."). Fix it by hand '
            '(or remove the key to get containerd\'s default). The file was not changed.'
            % (path, where, '; '.join(errors)))
    return warnings


def _type_name(value):
    if isinstance(value, bool):
        return 'boolean'
    if isinstance(value, int):
        return 'integer'
    if isinstance(value, float):
        return 'float'
    if isinstance(value, str):
        return 'string'
    if isinstance(value, list):
        return 'array'
    if isinstance(value, dict):
        return 'table'
    return type(value).__name__


def _toml_repr(value):
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, dict):
        return '{...}'
    return repr(value)


_GENERATED_RE = re.compile(r'^#.*?\bgenerated by\s+(\S+?)\.?\s.*DO NOT EDIT\.?(?:\s+Use\s+(\S+)\s+instead)?',
                           re.IGNORECASE)


def generated_header(text):
    """(program, template file name, header line) when the file says it is generated ("DO NOT EDIT"), else None.

    k3s and rke2 write ``# File generated by k3s. DO NOT EDIT. Use config.toml.tmpl instead.`` (or
    ``config-v3.toml.tmpl`` with containerd 2) and regenerate the file from that template at every start.
    """
    for line in (text or '').splitlines()[:10]:
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith('#'):
            break
        match = _GENERATED_RE.match(stripped)
        if match:
            program = match.group(1)
            template = match.group(2) or 'config.toml.tmpl'
            if '/' in template or program.startswith('{{'):
                template = posixpath.basename(template)
            return (program, template.rstrip('.'), stripped)
    return None


def config_version_for(containerd_version=None, config_version=None):
    """Config version for a new file: the file's own, else the one the detected containerd writes."""
    if config_version:
        return config_version
    if containerd_version is not None:
        return highest_config_version(containerd_version)
    return None


def nri_defaults(containerd_version=None, config_version=None):
    """containerd's built-in NRI settings for this containerd (or, when unknown, this config version)."""
    if containerd_version is not None:
        major = containerd_version[0]
    elif config_version is not None and config_version >= 3:
        major = 2
    else:
        major = 1
    defaults = dict(NRI_DEFAULTS)
    defaults['disable'] = major < 2
    return defaults


def whole_table_imports(containerd_version=None, config_version=None):
    """True when a drop-in's plugin table replaces the main file's whole table (containerd 1.x)."""
    if containerd_version is not None:
        return containerd_version[0] < 2
    return config_version is None or config_version < 3


def effective_nri(defaults, *tables):
    """containerd's effective NRI settings: defaults, overlaid by each table (main file, drop-in) in order."""
    result = dict(defaults)
    for table in tables:
        for key in NRI_KEYS:
            if table and key in table:
                result[key] = table[key]
    return dict((key, result[key]) for key in NRI_KEYS)


NEW_CONFIG_HEADER = ('# containerd configuration, created by numaops.colocation.containerd_nri.\n'
                     '# Everything not set here keeps containerd\'s built-in default (see `containerd config default`).')
DROPIN_HEADER = ('# NRI settings for containerd, managed by numaops.colocation.containerd_nri.\n'
                 '# Loaded through the `imports` list of %s.')


def minimal_config(config_version, wanted, header=True):
    """A complete, valid config for a file that is missing or empty: ``version`` plus the NRI table.

    Version 3 files use containerd 2.x's own single-quote style, version 2 files double quotes.
    """
    literal = config_version >= 3
    lines = []
    if header is True:
        header = NEW_CONFIG_HEADER
    if header:
        lines.extend(header.rstrip('\n').split('\n'))
    lines.append('version = %d' % config_version)
    lines.append('')
    lines.extend(nri_table_lines(wanted, literal=literal, header_indent='', key_indent='  '))
    return '\n'.join(lines) + '\n'


def toml_string(value, literal=False):
    """A TOML string literal; literal ('...') style only when the value allows it."""
    if literal and "'" not in value and '\n' not in value and not any(ord(c) < 32 for c in value):
        return "'%s'" % value
    out = []
    for char in value:
        if char == '"':
            out.append('\\"')
        elif char == '\\':
            out.append('\\\\')
        elif ord(char) < 32 or ord(char) == 127:
            out.append('\\u%04x' % ord(char))
        else:
            out.append(char)
    return '"%s"' % ''.join(out)


def toml_value(value, literal=False):
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return toml_string(value, literal=literal)


def nri_header(literal=False):
    quote = "'" if literal else '"'
    return '[plugins.%s%s%s]' % (quote, NRI_PLUGIN, quote)


def nri_table_lines(values, literal=False, header_indent='', key_indent='  '):
    lines = [header_indent + nri_header(literal)]
    for key in NRI_KEYS:
        if key in values:
            lines.append('%s%s = %s' % (key_indent, key, toml_value(values[key], literal=literal)))
    return lines


def _go_glob_to_fnmatch(component):
    # Go's filepath.Match uses [^...] for negation; fnmatch uses [!...]. '\\' escapes in Go.
    return component.replace('[^', '[!')


def import_covers(entry, main_path, target):
    """Whether one ``imports`` entry of ``main_path`` makes containerd load ``target``.

    Relative entries are resolved against the main file's directory; an entry containing ``*`` is a
    glob where ``*`` and ``?`` never match ``/`` (Go ``filepath.Glob``).
    """
    if not isinstance(entry, str) or not entry:
        return False
    path = entry
    if not posixpath.isabs(path):
        path = posixpath.join(posixpath.dirname(main_path), path)
    path = posixpath.normpath(path)
    target = posixpath.normpath(target)
    if '*' not in path:
        return path == target
    pattern_parts = path.split('/')
    target_parts = target.split('/')
    if len(pattern_parts) != len(target_parts):
        return False
    for pattern, part in zip(pattern_parts, target_parts):
        if not fnmatch.fnmatchcase(part, _go_glob_to_fnmatch(pattern)):
            return False
    return True
