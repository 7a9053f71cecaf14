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
from ansible_collections.numaops.colocation.plugins.plugin_utils import fleet

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


def test_node_prep_report_and_summaries_read_only_the_role_facts():
    lock = {'outcome': 'absent', 'locked_by_other': False}
    hosts = [{'inventory_hostname': name, 'unrelated': object(),
              'node_prep__plan': {'lock': lock, 'work_needed': False,
                                  'report_settings': {'containerd_config_path': '/c.toml'}}}
             for name in ('n2', 'n1')]
    for host_vars in hosts:
        host_vars['node_prep_report'] = fleet_filter.node_prep_report(host_vars)
    assert hosts[0]['node_prep_report']['lock']['outcome'] == 'not_taken'
    summaries = fleet_filter.node_prep_summaries(hosts)
    assert list(summaries) == ['n2', 'n1']
    assert summaries['n1'][0] == 'n1: no change' and summaries['n1'][2] == 'containerd /c.toml: ok'
    # a report given explicitly wins over the host's node_prep_report
    report = dict(hosts[1]['node_prep_report'], drift=True)
    assert fleet_filter.node_prep_summary(hosts[1], report)[0] == 'n1: changed'


def _role_defaults(role):
    with open(os.path.join(ROOT, 'roles', role, 'defaults', 'main.yml')) as handle:
        return yaml.safe_load(handle) or {}


@pytest.mark.parametrize('entry_point', ['main', 'inspect', 'prepare', 'lock', 'finish'])
def test_the_role_defaults_pass_the_validation_the_playbook_runs_in_their_place(entry_point):
    """playbooks/node_prep.yml validates only the variables hostvars has (no role defaults there): the defaults
    themselves must pass (a templated one is a string until it is rendered, and is left out here)."""
    defaults = dict((name, value) for name, value in _role_defaults('node_prep').items()
                    if not (isinstance(value, str) and '{{' in value))
    assert len(defaults) > 40
    assert fleet_filter.role_variable_errors(defaults, 'node_prep', entry_point) == []


def test_role_variable_errors_name_the_host_the_variable_and_what_is_allowed(tmp_path):
    cache = str(tmp_path / 'known.json')
    host_vars = {'node_prep_nri_mode': 'sideways', 'node_prep_reserved_cores': 'many',
                 'node_prep_not_an_option': object(), 'ansible_host': '10.0.0.1'}
    errors = fleet_filter.role_variable_errors(host_vars, 'node_prep', 'inspect', 'host n1', cache_file=lambda: cache)
    assert len(errors) == 2, errors
    assert any(e.startswith('host n1: ') and 'node_prep_nri_mode' in e and 'inline, dropin' in e and 'sideways' in e
               for e in errors), errors
    assert any('node_prep_reserved_cores' in e and 'whole number' in e and "'many'" in e for e in errors), errors
    # read from the run's cache the second time, the same answer
    fleet_filter._KNOWN[:] = []
    assert fleet_filter.role_variable_errors(host_vars, 'node_prep', 'inspect', 'host n1',
                                             cache_file=lambda: cache) == errors
    assert fleet_filter.role_variable_errors({'node_prep_nri_mode': 'dropin'}, 'node_prep', 'inspect') == []


def test_a_survey_answer_for_no_variable_of_the_collection_is_an_error():
    result = fleet_filter.survey_answers({'node_prep_survey_cpu_manager_polcy': 'static',
                                          'node_prep_survey_drain': 'false', 'memory_qos_survey_source': 'annotations',
                                          'unrelated': 'x'})
    assert result['answers'] == {'node_prep_cpu_manager_polcy': 'static', 'node_prep_drain': False,
                                 'memory_qos_source': 'annotations'}
    assert result['errors'] == ['survey answer node_prep_cpu_manager_polcy is not a variable of numaops.colocation '
                                '(did you mean node_prep_cpu_manager_policy?)']


def test_the_run_settings_take_the_survey_answers_they_are_read_with():
    # playbooks/node_prep.yml reads them in the run_once tasks that set the survey answers as facts
    settings = fleet_filter.fleet_settings({'node_prep_survey_continue_healthy': 'true', 'node_prep_continue_healthy': False,
                                            'node_prep_survey_max_unavailable': '20%', 'node_prep_max_unavailable': 1})
    assert settings['continue_healthy'] is True
    assert settings['max_unavailable'] == '20%'
    assert settings['errors'] == []
    blank = fleet_filter.fleet_settings({'node_prep_survey_continue_healthy': '  ', 'node_prep_continue_healthy': True})
    assert blank['continue_healthy'] is True
    wrong = fleet_filter.fleet_settings({'node_prep_survey_continue_healthy': 'maybe'})
    assert [error for error in wrong['errors'] if 'node_prep_continue_healthy' in error], wrong['errors']
