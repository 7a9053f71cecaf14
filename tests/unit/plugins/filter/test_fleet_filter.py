# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""known_variables() reads the roles' files with libyaml's loader where there is one: the same documents as
yaml.safe_load."""
from __future__ import annotations

import glob
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
