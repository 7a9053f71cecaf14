# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

from fractions import Fraction

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import containerd as c


@pytest.mark.parametrize('output, expected, text', [
    # Debian bookworm (the real output of this host's containerd)
    ('containerd github.com/containerd/containerd 1.6.20~ds1 1.6.20~ds1-1+deb12u3\n', (1, 6, 20), '1.6.20~ds1'),
    # Debian trixie 1.7.24 and sid 2.1.9 (real outputs of the extracted .deb binaries)
    ('containerd github.com/containerd/containerd 1.7.24~ds1 1.7.24~ds1-6+deb13u1\n', (1, 7, 24), '1.7.24~ds1'),
    ('containerd github.com/containerd/containerd/v2 2.1.9+unknown \n', (2, 1, 9), '2.1.9+unknown'),
    # upstream release binaries, Docker's containerd.io, k3s
    ('containerd github.com/containerd/containerd/v2 v2.0.0 207ad711eabd375a01713109a8a197d197ff6542\n',
     (2, 0, 0), '2.0.0'),
    ('containerd containerd.io 1.7.22 7f7fdf5fed64eb6a7caf99b3e12efcf9d60e311c\n', (1, 7, 22), '1.7.22'),
    ('containerd github.com/k3s-io/containerd v1.7.23-k3s2\n', (1, 7, 23), '1.7.23-k3s2'),
    ('WARNING: something\ncontainerd github.com/containerd/containerd v1.7.0 1fbd70374134b891f97ce19c70b6e50c7b9f4e0d\n',
     (1, 7, 0), '1.7.0'),
])
def test_parse_containerd_version(output, expected, text):
    version = c.parse_containerd_version(output)
    assert tuple(version) == expected
    assert str(version) == text
    assert version.major == expected[0] and version.minor == expected[1]


@pytest.mark.parametrize('output', ['', 'containerd: command not found', 'containerd github.com/containerd/containerd'])
def test_parse_containerd_version_unreadable(output):
    with pytest.raises(c.ContainerdConfigError, match='set containerd_version'):
        c.parse_containerd_version(output)


@pytest.mark.parametrize('text, expected', [
    ('1.7', (1, 7, 0)), ('1.7.24', (1, 7, 24)), ('v2.1.0', (2, 1, 0)), ('2.0.0-rc.1', (2, 0, 0)),
    ('1.6.20~ds1', (1, 6, 20)), ('2', None), ('latest', None), ('', None), ('1.x', None),
])
def test_parse_version_string(text, expected):
    version = c.parse_version_string(text)
    assert (tuple(version) if version is not None else None) == expected


@pytest.mark.parametrize('text, seconds', [
    ('5s', Fraction(5)), ('2s', Fraction(2)), ('500ms', Fraction(1, 2)), ('1m30s', Fraction(90)),
    ('1.5s', Fraction(3, 2)), ('1h', Fraction(3600)), ('100us', Fraction(1, 10000)), (u'100\u00b5s', Fraction(1, 10000)),
    ('10ns', Fraction(1, 10 ** 8)), ('0', Fraction(0)), ('.5s', Fraction(1, 2)), ('-1s', Fraction(-1)),
    ('1h2m3s4ms', Fraction(3723004, 1000)),
])
def test_parse_duration(text, seconds):
    assert c.parse_duration(text) == seconds


@pytest.mark.parametrize('text', ['', '5', 's', '5 s', '5sec', '1d', '5s ', ' 5s', '1..5s', 'ms5', None, 5])
def test_parse_duration_invalid(text):
    with pytest.raises(ValueError):
        c.parse_duration(text)


GOOD_OPTIONS = dict(path='/etc/containerd/config.toml', socket_path='/var/run/nri/nri.sock',
                    plugin_path='/opt/nri/plugins', plugin_registration_timeout='5s',
                    plugin_request_timeout='1m', mode='dropin', dropin_path='/etc/containerd/conf.d/99-nri.toml',
                    containerd_version='1.7.24')


@pytest.mark.parametrize('key, bad', [('path', 'relative.toml'), ('socket_path', '/' + 'x' * 120),
                                      ('plugin_path', 'opt/nri'), ('plugin_registration_timeout', '5'),
                                      ('plugin_request_timeout', '0s'), ('dropin_path', '/etc/containerd/config.toml'),
                                      ('containerd_version', 'latest')])
def test_validate_options_accepts_good_values(key, bad):
    # the good set passes (returns nothing) ...
    assert c.validate_options(dict(GOOD_OPTIONS)) is None
    # ... and is not accepted by a check that looks at nothing: one bad value in it is refused, by name
    params = dict(GOOD_OPTIONS)
    params[key] = bad
    with pytest.raises(c.ContainerdConfigError) as err:
        c.validate_options(params)
    assert '%s=' % key in str(err.value)


@pytest.mark.parametrize('params, fragment', [
    (dict(socket_path='run/nri.sock'), "socket_path='run/nri.sock' must be an absolute path"),
    (dict(plugin_path=''), "plugin_path='' must be an absolute path"),
    (dict(socket_path='/' + 'x' * 107), 'at most 107 bytes'),
    (dict(plugin_request_timeout='5'), "plugin_request_timeout='5' is not a duration"),
    (dict(plugin_registration_timeout='0s'), 'must be longer than zero'),
    (dict(plugin_registration_timeout='-5s'), 'must be longer than zero'),
    (dict(mode='dropin', path='/etc/containerd/config.toml', dropin_path='/etc/containerd/./config.toml'),
     'is the main config file itself'),
    (dict(containerd_version='latest'), "containerd_version='latest' is not a version"),
])
def test_validate_options_refuses(params, fragment):
    with pytest.raises(c.ContainerdConfigError) as err:
        c.validate_options(params)
    assert fragment in str(err.value)
    assert 'Nothing was changed' in str(err.value)


def test_validate_options_reports_every_problem():
    with pytest.raises(c.ContainerdConfigError) as err:
        c.validate_options(dict(socket_path='x', plugin_request_timeout='soon'))
    assert 'socket_path' in str(err.value) and 'plugin_request_timeout' in str(err.value)


def test_wanted_values_always_has_disable_and_keeps_containerd_order():
    assert c.wanted_values(dict(state='enabled')) == {'disable': False}
    assert c.wanted_values(dict(state='disabled')) == {'disable': True}
    wanted = c.wanted_values(dict(state='enabled', disable_connections=False, socket_path='/s',
                                  plugin_request_timeout='2s'))
    assert list(wanted) == ['disable', 'socket_path', 'plugin_request_timeout', 'disable_connections']


@pytest.mark.parametrize('key, current, wanted, equal', [
    ('disable', False, False, True), ('disable', 'false', False, False), ('disable', 0, False, False),
    ('plugin_request_timeout', '2000ms', '2s', True), ('plugin_request_timeout', '2s', '3s', False),
    ('plugin_request_timeout', 'garbage', '3s', False),
    ('plugin_path', '/opt/nri/plugins/', '/opt/nri/plugins', True), ('plugin_path', '', '/opt', False),
    ('socket_path', None, '/s', False),
])
def test_values_equal(key, current, wanted, equal):
    assert c.values_equal(key, current, wanted) is equal


def test_check_supported_refuses_containerd_16_with_the_way_out():
    with pytest.raises(c.ContainerdConfigError) as err:
        c.check_supported('/etc/containerd/config.toml', c.parse_containerd_version(
            'containerd github.com/containerd/containerd 1.6.20~ds1 1.6.20~ds1-1+deb12u3'), 2, '`containerd --version`')
    message = str(err.value)
    assert 'containerd 1.6.20~ds1' in message and 'needs containerd 1.7 or later' in message
    assert 'was not changed' in message


@pytest.mark.parametrize('config_version, fragment', [
    (1, '`version = 1`'), (0, 'no `version` key'), (5, 'knows containerd config versions 2, 3, 4'),
])
def test_check_supported_refuses_config_versions(config_version, fragment):
    with pytest.raises(c.ContainerdConfigError) as err:
        c.check_supported('/x.toml', None, config_version)
    assert fragment in str(err.value)


def test_check_supported_refuses_version_3_for_containerd_17():
    with pytest.raises(c.ContainerdConfigError, match='does not accept'):
        c.check_supported('/x.toml', c.parse_version_string('1.7.24'), 3)


@pytest.mark.parametrize('version, config_version, highest', [
    ('1.7.0', 2, 2), ('2.0.0', 2, 3), ('2.1.9', 3, 3), ('2.2.1', 3, 3), ('2.3.0', 4, 4), ('2.4.2', 3, 4),
    ('2.4.2', 4, 4), (None, 2, 4), (None, 3, 4), (None, 4, 4),
])
def test_check_supported_accepts(version, config_version, highest):
    parsed = c.parse_version_string(version) if version else None
    assert c.check_supported('/x.toml', parsed, config_version) is None
    # the boundary is real: one version above what this containerd reads is refused
    with pytest.raises(c.ContainerdConfigError) as err:
        c.check_supported('/x.toml', parsed, highest + 1)
    assert '`version = %d`' % (highest + 1) in str(err.value)


@pytest.mark.parametrize('version, highest', [('1.7.24', 2), ('2.0.0', 3), ('2.2.9', 3), ('2.3.0', 4), ('2.4.2', 4)])
def test_highest_config_version_per_release(version, highest):
    # from containerd's own version.ConfigVersion: 1.7 reads 2, v2.2.1 3, v2.3.0 and v2.4.2 4
    assert c.highest_config_version(c.parse_version_string(version)) == highest
    assert c.config_version_for(c.parse_version_string(version), None) == highest


@pytest.mark.parametrize('table, fragment', [
    ({'socket_path': 7}, 'socket_path = 7 (integer) must be a string'),
    ({'disable': 'false'}, 'disable = "false" (string) must be a boolean'),
    ({'plugin_request_timeout': 2.5}, 'plugin_request_timeout = 2.5 (float) must be a Go duration'),
    ({'plugin_registration_timeout': '5 s'}, 'plugin_registration_timeout = "5 s" (string) must be a Go duration'),
    ({'disable_connections': 1}, 'disable_connections = 1 (integer) must be a boolean'),
    ({'default_validator': {'enable': 'yes'}}, 'default_validator.enable = "yes" (string) must be a boolean'),
    ({'default_validator': {'required_plugins': [1]}}, 'default_validator.required_plugins = [1] (array)'),
    ({'default_validator': 'on'}, 'default_validator = "on" (string) must be a table'),
])
def test_validate_nri_table_refuses_wrong_types(table, fragment):
    with pytest.raises(c.ContainerdConfigError) as err:
        c.validate_nri_table('/etc/containerd/config.toml', table)
    assert fragment in str(err.value) and '/etc/containerd/config.toml' in str(err.value)


def test_validate_nri_table_accepts_containerd_defaults_and_warns_on_unknown_keys():
    table = dict(c.NRI_DEFAULTS, disable=False, default_validator={'enable': False, 'required_plugins': []})
    assert c.validate_nri_table('/x.toml', table) == []
    warnings = c.validate_nri_table('/x.toml', dict(table, socket_mode='0660'))
    assert len(warnings) == 1 and "'socket_mode'" in warnings[0]
    # containerd reads an integer duration as nanoseconds (checked with 1.7.24, 2.1.9 and 2.4.2): kept, with a warning
    warnings = c.validate_nri_table('/x.toml', dict(table, plugin_request_timeout=2))
    assert len(warnings) == 1 and 'read by containerd as 2 nanoseconds' in warnings[0]


@pytest.mark.parametrize('text, expected', [
    ('# File generated by k3s. DO NOT EDIT. Use config.toml.tmpl instead.\nversion = 2\n', ('k3s', 'config.toml.tmpl')),
    ('# File generated by k3s. DO NOT EDIT. Use config-v3.toml.tmpl instead.\nversion = 3\n',
     ('k3s', 'config-v3.toml.tmpl')),
    ('\n# File generated by rke2. DO NOT EDIT. Use config.toml.tmpl instead.\n', ('rke2', 'config.toml.tmpl')),
    ('version = 2\n# File generated by k3s. DO NOT EDIT.\n', None),
    ('# containerd config\nversion = 2\n', None),
])
def test_generated_header(text, expected):
    got = c.generated_header(text)
    assert (got[:2] if got else None) == expected


def test_defaults_differ_only_in_disable():
    v17 = c.nri_defaults(c.parse_version_string('1.7.24'))
    v2 = c.nri_defaults(c.parse_version_string('2.1.9'))
    assert v17['disable'] is True and v2['disable'] is False
    del v17['disable'], v2['disable']
    assert v17 == v2 == c.NRI_DEFAULTS
    # unknown binary: the file's config version decides
    assert c.nri_defaults(None, 2)['disable'] is True
    assert c.nri_defaults(None, 3)['disable'] is False


def test_config_version_for():
    assert c.config_version_for(c.parse_version_string('1.7'), None) == 2
    assert c.config_version_for(c.parse_version_string('2.0'), None) == 3
    assert c.config_version_for(c.parse_version_string('2.3'), None) == 4
    assert c.config_version_for(c.parse_version_string('2.0'), 2) == 2
    assert c.config_version_for(None, None) is None


def test_whole_table_imports():
    assert c.whole_table_imports(c.parse_version_string('1.7.24'), 2) is True
    assert c.whole_table_imports(c.parse_version_string('2.1.9'), 2) is False
    assert c.whole_table_imports(None, 3) is False
    assert c.whole_table_imports(None, 2) is True


def test_effective_nri_overlays_in_order():
    defaults = c.nri_defaults(c.parse_version_string('1.7'))
    got = c.effective_nri(defaults, {'disable': False, 'plugin_path': '/a'}, {'plugin_path': '/b'})
    assert got['disable'] is False and got['plugin_path'] == '/b' and got['socket_path'] == '/var/run/nri/nri.sock'
    assert list(got) == list(c.NRI_KEYS)


def test_minimal_config_per_version():
    assert c.minimal_config(2, {'disable': False}) == (
        '# containerd configuration, created by numaops.colocation.containerd_nri.\n'
        "# Everything not set here keeps containerd's built-in default (see `containerd config default`).\n"
        'version = 2\n'
        '\n'
        '[plugins."io.containerd.nri.v1.nri"]\n'
        '  disable = false\n')
    assert c.minimal_config(3, {'disable': False, 'socket_path': '/run/nri.sock'}, header=False) == (
        'version = 3\n'
        '\n'
        "[plugins.'io.containerd.nri.v1.nri']\n"
        '  disable = false\n'
        "  socket_path = '/run/nri.sock'\n")


@pytest.mark.parametrize('value, literal, expected', [
    ('/a', False, '"/a"'), ('/a', True, "'/a'"), ("/it's", True, '"/it\'s"'), ('/a"b', False, '"/a\\"b"'),
    ('/a\\b', False, '"/a\\\\b"'), ('/a\tb', True, '"/a\\u0009b"'),
])
def test_toml_string(value, literal, expected):
    assert c.toml_string(value, literal) == expected


@pytest.mark.parametrize('entry, covered', [
    ('/etc/containerd/conf.d/99-nri.toml', True),
    ('conf.d/99-nri.toml', True),                 # relative to the main file's directory
    ('./conf.d/../conf.d/99-nri.toml', True),
    ('/etc/containerd/conf.d/*.toml', True),
    ('conf.d/*.toml', True),                      # relative globs too (containerd 1.7.24 and 2.x)
    ('/etc/containerd/conf.d/9?-nri.toml', False),  # no '*': containerd takes it literally
    ('/etc/containerd/conf.d/*-nri.toml', True),
    ('/etc/containerd/*/99-nri.toml', True),
    ('/etc/containerd/*.toml', False),            # '*' does not cross '/'
    ('/etc/containerd/conf.d/[^9]*.toml', False),
    ('/etc/containerd/conf.d/[0-9]*.toml', True),
    ('/etc/containerd/conf.d/*.conf', False),
    ('', False),
])
def test_import_covers(entry, covered):
    assert c.import_covers(entry, '/etc/containerd/config.toml', '/etc/containerd/conf.d/99-nri.toml') is covered


# ---------------------------------------------------------------- journal_errors: why containerd stopped

JOURNAL = [
    '2026-12-03T12:47:50+00:00 n containerd[1]: time="a" level=info msg="starting containerd"',
    '2026-12-03T12:47:50+00:00 n containerd[1]: time="b" level=info msg="skip" error="skip plugin"',
    '2026-12-03T12:47:50+00:00 n containerd[1]: time="c" level=warning msg="deprecated"',
    '2026-12-03T12:47:50+00:00 n containerd[1]: time="d" level=error msg="x failed"',
    '2026-12-03T12:47:51+00:00 n containerd[1]: time="e" level=fatal msg="Failed to run CRI service"',
    "2026-12-03T12:47:51+00:00 n systemd[1]: containerd.service: Main process exited, code=exited, status=1/FAILURE",
    "2026-12-03T12:47:51+00:00 n systemd[1]: containerd.service: Failed with result 'exit-code'.",
    '2026-12-03T12:47:57+00:00 n containerd[2]: time="f" level=fatal msg="Failed to run CRI service"',
    "2026-12-03T12:47:57+00:00 n systemd[1]: containerd.service: Main process exited, code=exited, status=1/FAILURE",
    '2026-12-03T12:47:58+00:00 n systemd[1]: containerd.service: Start request repeated too quickly.',
    '2026-12-03T12:47:58+00:00 n systemd[1]: Failed to start containerd.service - containerd container runtime.',
    '2026-12-03T12:47:59+00:00 n containerd[3]: time="g" level=panic msg="boom"',
    '2026-12-03T12:48:05+00:00 n containerd[4]: containerd: failed to load TOML from /etc/containerd/config.toml: '
    'unsupported config version `3`',
]


def test_journal_errors_picks_the_reasons_once_each_in_their_last_order():
    assert c.journal_errors(JOURNAL) == [
        JOURNAL[3], JOURNAL[6], JOURNAL[7], JOURNAL[8], JOURNAL[9], JOURNAL[10], JOURNAL[11], JOURNAL[12]]


def test_journal_errors_keeps_the_last_ones_within_the_limit():
    assert c.journal_errors(JOURNAL, limit=2) == [JOURNAL[11], JOURNAL[12]]
    assert c.journal_errors(JOURNAL, limit=0) == []


def test_journal_errors_of_nothing_and_of_plain_log_lines():
    assert c.journal_errors([]) == []
    assert c.journal_errors(['level=info msg=ok', 'error="skip plugin"', 'an error happened',
                             'n containerd[1]: time="x" level=info msg="containerd: not the command line"']) == []
    assert c.journal_errors(['containerd: failed to load TOML']) == ['containerd: failed to load TOML']
    # a log file without journal prefixes (log_file)
    assert c.journal_errors(['time="1" level=error msg="a"', 'time="2" level=error msg="a"']) == [
        'time="2" level=error msg="a"']
