# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""containerd_toml over real config files.

default-1.6/1.7/2.1.toml are the verbatim `containerd config default` output of Debian's containerd
1.6.20 (bookworm), 1.7.24 (trixie) and 2.1.9 (sid); debian-bookworm-package.toml is the
/etc/containerd/config.toml Debian's package installs. The others are hand-written configs of the shapes
users have (comments, odd quoting, dotted keys, inline tables, k3s templates, broken files).
"""
from __future__ import annotations

import difflib
import os

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils.containerd import ContainerdConfigError, NRI_PLUGIN
from ansible_collections.numaops.colocation.plugins.plugin_utils import containerd_toml as ct

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures', 'containerd')
DROPIN = '/etc/containerd/conf.d/99-nri.toml'
MAIN = '/etc/containerd/config.toml'


def fixture(name):
    with open(os.path.join(FIXTURES, name), encoding='utf-8', newline='') as handle:
        return handle.read()


def changes(before, after):
    """The lines removed ('-') and added ('+'); every other line is byte-identical."""
    return [line.rstrip('\n') for line in difflib.ndiff(before.splitlines(True), after.splitlines(True))
            if line[:1] in '+-']


def assert_idempotent(text, path, **kwargs):
    again = ct.edit(text, path, **kwargs)
    assert again.text == text
    assert again.changed == []


@pytest.mark.parametrize('name, wanted, expected', [
    ('default-1.7.toml', {'disable': False},
     ['-     disable = true', '+     disable = false']),
    ('default-1.7.toml', {'disable': False, 'plugin_request_timeout': '3s', 'socket_path': '/run/nri/nri.sock'},
     ['-     disable = true', '+     disable = false',
      '-     plugin_request_timeout = "2s"', '+     plugin_request_timeout = "3s"',
      '-     socket_path = "/var/run/nri/nri.sock"', '+     socket_path = "/run/nri/nri.sock"']),
    # 2.x default already enables NRI: nothing to write for disable=false
    ('default-2.1.toml', {'disable': False}, []),
    # 2.x style single quotes are kept
    ('default-2.1.toml', {'disable': True, 'plugin_path': '/usr/libexec/nri'},
     ['-     disable = false', '+     disable = true',
      "-     plugin_path = '/opt/nri/plugins'", "+     plugin_path = '/usr/libexec/nri'"]),
    # same duration, other spelling: left as written
    ('default-2.1.toml', {'disable': False, 'plugin_registration_timeout': '5000ms'}, []),
    # 1.6 defaults have no NRI table: it is added once, after the last plugins table, in the file's layout
    ('default-1.6.toml', {'disable': False},
     ['+   [plugins."io.containerd.nri.v1.nri"]', '+     disable = false', '+ ']),
    ('debian-bookworm-package.toml', {'disable': False, 'disable_connections': True},
     ['+ ', '+   [plugins."io.containerd.nri.v1.nri"]', '+     disable = false', '+     disable_connections = true']),
    ('k3s-style.toml', {'disable': False},
     ['+ ', '+ [plugins."io.containerd.nri.v1.nri"]', '+   disable = false']),
])
def test_edit_real_configs(name, wanted, expected):
    before = fixture(name)
    result = ct.edit(before, '/etc/containerd/config.toml', wanted=wanted)
    assert changes(before, result.text) == expected
    assert result.text.count(NRI_PLUGIN) == max(before.count(NRI_PLUGIN), 1)
    assert ct.inspect(result.text, MAIN).nri.items() >= wanted.items() or not expected
    assert_idempotent(result.text, MAIN, wanted=wanted)


def test_comments_and_layout_are_kept_exactly():
    result = ct.edit(fixture('comments.toml'), MAIN, wanted={'disable': False, 'plugin_request_timeout': '3s'})
    assert result.text == '''\
# Site containerd configuration - owned by the platform team.
# Do not remove the registry mirrors below.
version = 2
root = "/var/lib/containerd"   # on the data disk

[grpc]
  address = "/run/containerd/containerd.sock"

[plugins]
  # CRI settings
  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "registry.k8s.io/pause:3.9"  # pinned
    [plugins."io.containerd.grpc.v1.cri".registry.mirrors."docker.io"]
      endpoint = ["https://mirror.example.com"]

  # NRI: enabled for the topology-aware plugins
  [plugins."io.containerd.nri.v1.nri"]
    disable = false # flipped by hand during the 2026-03 incident
    socket_path = "/var/run/nri/nri.sock"
    plugin_request_timeout = "3s"

  [plugins."io.containerd.internal.v1.opt"]
    path = "/opt/containerd"
'''
    assert result.changed == ['disable', 'plugin_request_timeout']


def test_single_quoted_table_is_found_not_duplicated():
    result = ct.edit(fixture('odd-quoting.toml'), MAIN, wanted={'disable': False, 'plugin_request_timeout': '3s'})
    assert result.text == '''\
version = 2

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.9"

[plugins.'io.containerd.nri.v1.nri']
  disable = false
  plugin_path = '/opt/nri/plugins'
  plugin_request_timeout = '3s'
'''


def test_dotted_keys_are_edited_in_place():
    result = ct.edit(fixture('dotted.toml'), MAIN, wanted={'disable': False, 'plugin_path': '/p'})
    assert result.text == '''\
version = 2
plugins."io.containerd.nri.v1.nri".disable = false
plugins."io.containerd.nri.v1.nri".plugin_path = "/p"
plugins."io.containerd.nri.v1.nri".socket_path = "/var/run/nri/nri.sock"

[grpc]
  address = "/run/containerd/containerd.sock"
'''
    assert_idempotent(result.text, MAIN, wanted={'disable': False, 'plugin_path': '/p'})


def test_inline_table_is_edited_in_place():
    result = ct.edit(fixture('inline.toml'), MAIN, wanted={'disable': False, 'plugin_request_timeout': '3s'})
    assert result.text == '''\
version = 3

[plugins]
  'io.containerd.nri.v1.nri' = { disable = false, socket_path = '/var/run/nri/nri.sock', plugin_request_timeout = '3s' }
  'io.containerd.cri.v1.images' = { snapshotter = 'overlayfs' }
'''


def test_split_table_with_out_of_order_subtable():
    before = fixture('nested-split.toml')
    result = ct.edit(before, MAIN, wanted={'disable': False})
    assert changes(before, result.text) == ['-   "io.containerd.nri.v1.nri".disable = true',
                                            '+   "io.containerd.nri.v1.nri".disable = false']
    added = ct.edit(before, MAIN, wanted={'disable': False, 'socket_path': '/s'})
    info = ct.inspect(added.text, MAIN)
    assert info.nri['socket_path'] == '/s' and info.nri['extra'] == {'note': 'sub-table of the NRI table, out of order'}
    assert_idempotent(added.text, MAIN, wanted={'disable': False, 'socket_path': '/s'})


def test_duplicated_table_is_refused_with_its_line():
    with pytest.raises(ContainerdConfigError) as err:
        ct.edit(fixture('duplicated.toml'), MAIN, wanted={'disable': False})
    message = str(err.value)
    assert 'line 10, column 1' in message
    assert 'defined more than once' in message
    assert 'it was not changed' in message


def test_malformed_toml_names_line_and_column():
    with pytest.raises(ContainerdConfigError) as err:
        ct.inspect(fixture('malformed.toml'), MAIN)
    message = str(err.value)
    assert message.startswith('/etc/containerd/config.toml is not valid TOML: ')
    assert 'line 4, column 45' in message
    assert 'sandbox_image = \\"registry.k8s.io/pause:3.9' in message or 'registry.k8s.io/pause:3.9' in message


@pytest.mark.parametrize('text, line, column', [
    ('version = = 2\n', 1, 11),
    ('version = 2\n[plugins\n', 2, 9),
    ('version = 2\nversion = 3\n', 2, 1),
])
def test_more_parse_errors(text, line, column):
    with pytest.raises(ContainerdConfigError, match='line %d, column %d' % (line, column)):
        ct.inspect(text, MAIN)


@pytest.mark.parametrize('name, version', [('v1.toml', 1), ('no-version.toml', 0), ('default-1.7.toml', 2),
                                           ('default-2.1.toml', 3), ('default-1.6.toml', 2)])
def test_inspect_versions(name, version):
    assert ct.inspect(fixture(name), MAIN).version == version


def test_inspect_reports_nri_values():
    info = ct.inspect(fixture('default-1.7.toml'), MAIN)
    assert info.nri['disable'] is True and info.nri['socket_path'] == '/var/run/nri/nri.sock'
    assert ct.inspect(fixture('default-1.6.toml'), MAIN).nri is None
    assert ct.inspect(None, MAIN).exists is False


def test_missing_file_gets_a_minimal_config():
    result = ct.edit(None, MAIN, wanted={'disable': False}, new_version=3)
    assert result.text == (
        '# containerd configuration, created by numaops.colocation.containerd_nri.\n'
        "# Everything not set here keeps containerd's built-in default (see `containerd config default`).\n"
        'version = 3\n\n'
        "[plugins.'io.containerd.nri.v1.nri']\n"
        '  disable = false\n')
    assert_idempotent(result.text, MAIN, wanted={'disable': False})


@pytest.mark.parametrize('name', ['empty.toml', 'comments-only.toml'])
def test_empty_file_gets_version_and_table(name):
    before = fixture(name)
    result = ct.edit(before, MAIN, wanted={'disable': False}, new_version=2)
    assert result.text.startswith(before)
    assert ct.inspect(result.text, MAIN).version == 2
    assert result.text.endswith('version = 2\n\n[plugins."io.containerd.nri.v1.nri"]\n  disable = false\n')


def test_missing_file_without_known_version_is_refused():
    with pytest.raises(ContainerdConfigError, match='set containerd_version|Set containerd_version'):
        ct.edit(None, MAIN, wanted={'disable': False})


def test_misplaced_keys_warned_and_left_by_default():
    before = fixture('misplaced.toml')
    result = ct.edit(before, MAIN, wanted={'disable': False})
    assert 'disable, socket_path outside the NRI table' in result.warnings[0]
    assert changes(before, result.text) == ['+ ', '+ [plugins."io.containerd.nri.v1.nri"]', '+   disable = false']


def test_misplaced_keys_removed_on_request():
    before = fixture('misplaced.toml')
    result = ct.edit(before, MAIN, wanted={'disable': False}, misplaced='remove')
    assert result.warnings == []
    assert changes(before, result.text) == ['- disable = false', '- socket_path = "/run/nri/nri.sock"',
                                            '+ ', '+ [plugins."io.containerd.nri.v1.nri"]', '+   disable = false']
    assert ct.misplaced_keys(ct.parse(result.text, MAIN)) == []


def test_misplaced_under_plugins_is_detected():
    doc = ct.parse('version = 2\n[plugins]\n  disable = false\n', MAIN)
    assert ct.misplaced_keys(doc) == ['plugins.disable']


# -- drop-in mode: the main file's imports ------------------------------------------------------------

def test_import_added_to_empty_imports_array():
    before = fixture('default-2.1.toml')
    result = ct.edit(before, MAIN, import_path=DROPIN)
    assert changes(before, result.text) == ["- imports = []", "+ imports = ['/etc/containerd/conf.d/99-nri.toml']"]
    assert_idempotent(result.text, MAIN, import_path=DROPIN)


def test_import_key_added_when_missing():
    before = fixture('debian-bookworm-package.toml')
    result = ct.edit(before, MAIN, import_path=DROPIN)
    assert result.text.startswith('version = 2\nimports = ["/etc/containerd/conf.d/99-nri.toml"]\n\n[plugins]\n')
    assert changes(before, result.text) == ['+ imports = ["/etc/containerd/conf.d/99-nri.toml"]']


def test_import_already_covered_by_a_relative_glob():
    before = fixture('imports-glob-v3.toml')
    result = ct.edit(before, MAIN, import_path=DROPIN)
    assert result.text == before and result.changed == []


def test_import_appended_to_other_imports_in_their_style():
    before = "version = 3\nimports = ['/etc/containerd/runtimes.toml']  # keep\n"
    result = ct.edit(before, MAIN, import_path=DROPIN)
    assert result.text == ("version = 3\nimports = ['/etc/containerd/runtimes.toml', "
                           "'/etc/containerd/conf.d/99-nri.toml']  # keep\n")


def test_missing_main_file_in_dropin_mode():
    result = ct.edit(None, MAIN, import_path=DROPIN, new_version=2)
    assert result.text == 'version = 2\nimports = ["/etc/containerd/conf.d/99-nri.toml"]\n'


def test_dropin_file_created_with_header():
    result = ct.edit(None, DROPIN, wanted={'disable': False}, new_version=2, new_file_header='# drop-in header')
    assert result.text == '# drop-in header\nversion = 2\n\n[plugins."io.containerd.nri.v1.nri"]\n  disable = false\n'


def test_bad_imports_value_is_refused():
    with pytest.raises(ContainerdConfigError, match='`imports` must be an array'):
        ct.edit('version = 2\nimports = "/etc/containerd/conf.d"\n', MAIN, import_path=DROPIN)


def test_plugins_not_a_table_is_refused():
    with pytest.raises(ContainerdConfigError, match='`plugins` is a'):
        ct.edit('version = 2\nplugins = 1\n', MAIN, wanted={'disable': False})


def test_crlf_line_endings_are_kept():
    before = 'version = 2\r\n\r\n[plugins."io.containerd.nri.v1.nri"]\r\n  disable = true\r\n'
    result = ct.edit(before, MAIN, wanted={'disable': False})
    assert result.text == 'version = 2\r\n\r\n[plugins."io.containerd.nri.v1.nri"]\r\n  disable = false\r\n'


def test_values_needing_escapes_round_trip():
    wanted = {'disable': False, 'socket_path': '/run/odd "dir"/nri.sock'}
    result = ct.edit(fixture('default-2.1.toml'), MAIN, wanted=wanted)
    assert ct.inspect(result.text, MAIN).nri['socket_path'] == '/run/odd "dir"/nri.sock'
    assert_idempotent(result.text, MAIN, wanted=wanted)
