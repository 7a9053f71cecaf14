# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""known_variables() reads the roles' files with libyaml's loader where there is one: the same documents as
yaml.safe_load."""
from __future__ import annotations

import glob
import json
import os

import pytest
import yaml

from ansible_collections.numaops.colocation.plugins.filter import fleet as fleet_filter
from ansible_collections.numaops.colocation.plugins.module_utils import fleet

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
ROLE_FILES = sorted(glob.glob(os.path.join(ROOT, 'roles', '*', 'meta', 'argument_specs.yml'))
                    + glob.glob(os.path.join(ROOT, 'roles', '*', 'defaults', 'main.yml')))


def test_libyaml_is_used_when_pyyaml_has_it():
    assert fleet_filter._SAFE_LOADER is getattr(yaml, 'CSafeLoader', yaml.SafeLoader)


@pytest.mark.parametrize('path', ROLE_FILES, ids=lambda path: os.path.relpath(path, ROOT))
def test_both_loaders_read_the_same_documents(path):
    with open(path) as handle:
        expected = yaml.safe_load(handle)
    with open(path) as handle:
        assert yaml.load(handle, Loader=fleet_filter._SAFE_LOADER) == expected


def test_known_variables_are_those_safe_load_finds():
    names = set(fleet.PLAYBOOK_VARIABLES) | set(fleet.SURVEY_VARIABLES)
    for path in ROLE_FILES:
        with open(path) as handle:
            data = yaml.safe_load(handle) or {}
        if path.endswith('argument_specs.yml'):
            for entry in (data.get('argument_specs') or {}).values():
                names.update((entry or {}).get('options') or {})
        else:
            names.update(data)
    assert len(ROLE_FILES) >= 4
    assert fleet_filter.known_variables() == sorted(names)


def test_the_workers_of_a_run_share_the_names_through_its_temporary_directory(tmp_path, monkeypatch):
    """The first worker loads the role files and keeps the names in the run's local tmp; the next ones read them
    there (no YAML); a role file changed since (size or time) makes it load them again."""
    cache = str(tmp_path / 'known.json')
    monkeypatch.setattr(fleet_filter, '_KNOWN', [])
    first = fleet_filter.known_variables(cache_file=lambda: cache)
    assert os.path.exists(cache)

    def no_yaml(_sources):
        raise AssertionError('the role files were loaded again')

    monkeypatch.setattr(fleet_filter, '_KNOWN', [])
    with monkeypatch.context() as patch:
        patch.setattr(fleet_filter, '_load_known', no_yaml)
        assert fleet_filter.known_variables(cache_file=lambda: cache) == first

    # a role file that changed since: loaded again, and the cache renewed
    sources = fleet_filter._known_sources()
    with open(cache) as handle:
        stale = dict(json.load(handle), sources=[[path, size + 1, mtime] for path, size, mtime in sources])
    with open(cache, 'w') as handle:
        json.dump(dict(stale, names=['bogus']), handle)
    monkeypatch.setattr(fleet_filter, '_KNOWN', [])
    assert fleet_filter.known_variables(cache_file=lambda: cache) == first
    monkeypatch.setattr(fleet_filter, '_KNOWN', [])
    # an unreadable cache is no reason to fail: the names are loaded
    with open(cache, 'w') as handle:
        handle.write('{not json')
    assert fleet_filter.known_variables(cache_file=lambda: cache) == first
    monkeypatch.setattr(fleet_filter, '_KNOWN', [])
    assert fleet_filter.known_variables(cache_file=lambda: None) == first
