# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""containerd_nri through Ansible itself: the action plugin, node_files on the node and the real write path.

One ansible-playbook run against localhost (connection local, the collection from this checkout)
runs every scenario's task and registers the results (the way the role test renders its templates);
the tests then check the results and the files. No containerd is needed: either ``containerd_binary`` points at a program that does not
exist (a node without containerd on PATH, so the version comes from the file's ``version`` key), or
``containerd_version`` is given.
"""
from __future__ import annotations

import os
import shutil

import pytest

from ansible_collections.numaops.colocation.tests.unit import playbooks
from ansible_collections.numaops.colocation.tests.unit.unit_stage import SHARED_PLAYBOOK_RUN, only_here

pytestmark = only_here(SHARED_PLAYBOOK_RUN)

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures', 'containerd')
NRI_DEFAULTS = dict(socket_path='/var/run/nri/nri.sock', plugin_path='/opt/nri/plugins',
                    plugin_config_path='/etc/nri/conf.d', plugin_registration_timeout='5s',
                    plugin_request_timeout='2s', disable_connections=False)


def run_tasks(work, tasks):
    """Run one containerd_nri task per ``(name, arguments)``; ``check_mode``/``diff`` are task keywords.

    Returns ``{name: registered result}``; failed tasks do not stop the play (``ignore_errors``).
    """
    entries = []
    for name, task in tasks:
        args = dict(task)
        entry = {'name': name}
        for keyword in ('check_mode', 'diff'):
            if keyword in args:
                entry[keyword] = args.pop(keyword)
        entry['numaops.colocation.containerd_nri'] = args
        entries.append(entry)
    return dict(zip([name for name, _task in tasks], playbooks.run_tasks(work, entries)))


def fixture_text(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


class Scenarios(object):
    """Files for every scenario, one playbook run for all of them, and the results by scenario name."""

    def __init__(self, base):
        self.base = base
        self.tasks = []
        self.results = None

    def config(self, name, fixture):
        directory = self.base / name
        directory.mkdir()
        target = directory / 'config.toml'
        shutil.copyfile(os.path.join(FIXTURES, fixture), str(target))
        return target

    def add(self, name, **args):
        self.tasks.append((name, args))

    def run(self):
        work = self.base / 'ansible'
        work.mkdir()
        self.results = run_tasks(work, self.tasks)

    def __getitem__(self, name):
        return self.results[name]


@pytest.fixture(scope='module', name='sc')
def scenarios_fixture(tmp_path_factory):
    sc = Scenarios(tmp_path_factory.mktemp('containerd_nri'))
    missing = str(sc.base / 'no-such-containerd')
    # the containerd version from the file's `version` key: no containerd program, no containerd_version
    for fixture, short in (('default-1.7.toml', 'v2'), ('default-2.1.toml', 'v3')):
        sc.add('%s inline' % short, path=str(sc.config('%s-inline' % short, fixture)), containerd_binary=missing,
               plugin_request_timeout='3s')
        sc.add('%s dropin' % short, path=str(sc.config('%s-dropin' % short, fixture)), mode='dropin',
               dropin_path=str(sc.base / ('%s-dropin' % short) / 'conf.d' / '99-nri.toml'), containerd_binary=missing)
    # backup_file
    common = dict(path=str(sc.config('backup', 'default-1.7.toml')), containerd_version='1.7.24')
    sc.add('backup predicted', check_mode=True, backup=True, **common)  # would change: no backup in check mode
    sc.add('backup made', backup=True, **common)                        # changes: backup made
    sc.add('backup unchanged', backup=True, **common)                   # nothing to change: no backup
    sc.add('backup off', backup=False, plugin_request_timeout='3s', **common)  # changes without backup
    # owner, group and mode
    if os.geteuid() == 0:
        owned = sc.config('owned', 'default-1.7.toml')
        os.chown(str(owned), 65534, 65534)
        os.chmod(str(owned), 0o640)
        sc.add('owned', path=str(owned), containerd_version='1.7.24')
    sc.run()
    return sc


# --- the containerd version taken from the file's `version` key (no containerd binary, no containerd_version)

def test_version_2_file_without_containerd_is_treated_as_containerd_17(sc):
    original = fixture_text('default-1.7.toml')
    res_inline, res_dropin = sc['v2 inline'], sc['v2 dropin']

    assert res_inline.get('failed') is not True, res_inline
    assert res_inline['changed'] is True
    assert res_inline['containerd_version'] is None
    assert res_inline['config_version'] == 2
    assert res_inline['nri'] == dict(NRI_DEFAULTS, disable=False, plugin_request_timeout='3s')
    assert 'warnings' not in res_inline  # a missing containerd program is not worth a warning
    expected = original.replace('    disable = true\n', '    disable = false\n', 1) \
                       .replace('plugin_request_timeout = "2s"', 'plugin_request_timeout = "3s"', 1)
    assert expected != original
    assert (sc.base / 'v2-inline' / 'config.toml').read_text() == expected

    # containerd 1.7 semantics: the drop-in's NRI table replaces the main file's whole table, so the main
    # file's NRI settings are carried into the drop-in (version 2, double quotes), with a warning.
    main = sc.base / 'v2-dropin' / 'config.toml'
    dropin = sc.base / 'v2-dropin' / 'conf.d' / '99-nri.toml'
    assert res_dropin.get('failed') is not True, res_dropin
    assert res_dropin['containerd_version'] is None
    assert res_dropin['config_version'] == 2
    assert res_dropin['nri'] == dict(NRI_DEFAULTS, disable=False)
    assert [w for w in res_dropin['warnings'] if 'replaces it as a whole' in w], res_dropin['warnings']
    assert main.read_text() == original.replace('imports = []', 'imports = ["%s"]' % dropin, 1)
    assert dropin.read_text() == (
        '# NRI settings for containerd, managed by numaops.colocation.containerd_nri.\n'
        '# Loaded through the `imports` list of %s.\n'
        'version = 2\n'
        '\n'
        '[plugins."io.containerd.nri.v1.nri"]\n'
        '  disable = false\n'
        '  socket_path = "/var/run/nri/nri.sock"\n'
        '  plugin_path = "/opt/nri/plugins"\n'
        '  plugin_config_path = "/etc/nri/conf.d"\n'
        '  plugin_registration_timeout = "5s"\n'
        '  plugin_request_timeout = "2s"\n'
        '  disable_connections = false\n' % main)


def test_version_3_file_without_containerd_is_treated_as_containerd_2(sc):
    original = fixture_text('default-2.1.toml')
    res_inline, res_dropin = sc['v3 inline'], sc['v3 dropin']

    assert res_inline.get('failed') is not True, res_inline
    assert res_inline['changed'] is True
    assert res_inline['containerd_version'] is None
    assert res_inline['config_version'] == 3
    assert res_inline['nri'] == dict(NRI_DEFAULTS, disable=False, plugin_request_timeout='3s')
    assert 'warnings' not in res_inline
    expected = original.replace("plugin_request_timeout = '2s'", "plugin_request_timeout = '3s'", 1)
    assert expected != original
    assert (sc.base / 'v3-inline' / 'config.toml').read_text() == expected

    # containerd 2.x semantics: drop-in tables merge key by key, so only `disable` goes into the drop-in
    # (version 3, containerd 2.x's single quotes) and nothing is carried over.
    main = sc.base / 'v3-dropin' / 'config.toml'
    dropin = sc.base / 'v3-dropin' / 'conf.d' / '99-nri.toml'
    assert res_dropin.get('failed') is not True, res_dropin
    assert res_dropin['containerd_version'] is None
    assert res_dropin['config_version'] == 3
    assert res_dropin['nri'] == dict(NRI_DEFAULTS, disable=False)
    assert 'warnings' not in res_dropin
    assert main.read_text() == original.replace('imports = []', "imports = ['%s']" % dropin, 1)
    assert dropin.read_text() == (
        '# NRI settings for containerd, managed by numaops.colocation.containerd_nri.\n'
        '# Loaded through the `imports` list of %s.\n'
        'version = 3\n'
        '\n'
        "[plugins.'io.containerd.nri.v1.nri']\n"
        '  disable = false\n' % main)


# --- backup_file is returned only when a backup of the main file was made

def test_backup_file_only_when_a_backup_was_made(sc):
    config = str(sc.base / 'backup' / 'config.toml')
    predicted, made, unchanged, off = (sc['backup predicted'], sc['backup made'], sc['backup unchanged'],
                                       sc['backup off'])

    assert predicted['changed'] is True
    assert 'backup_file' not in predicted and predicted['backup_files'] == {}

    assert made['changed'] is True
    backup = made['backup_file']
    assert isinstance(backup, str) and backup != config
    assert made['backup_files'] == {config: backup}
    assert made['restore'] == [dict(path=config, backup_file=backup)]
    with open(backup) as handle:
        assert handle.read() == fixture_text('default-1.7.toml')

    assert unchanged['changed'] is False
    assert 'backup_file' not in unchanged and unchanged['backup_files'] == {}

    assert off['changed'] is True
    assert 'backup_file' not in off and off['backup_files'] == {} and off['restore'] == []


# --- owner, group and mode of the replaced file are kept

@pytest.mark.skipif(os.geteuid() != 0, reason='chown to another user needs root')
def test_owner_group_and_mode_are_kept(sc):
    res = sc['owned']
    config = sc.base / 'owned' / 'config.toml'
    assert res.get('failed') is not True, res
    assert res['changed'] is True
    assert config.read_text() == fixture_text('default-1.7.toml').replace('    disable = true\n', '    disable = false\n', 1)
    st = os.stat(str(config))
    assert (st.st_uid, st.st_gid, st.st_mode & 0o7777) == (65534, 65534, 0o640)
