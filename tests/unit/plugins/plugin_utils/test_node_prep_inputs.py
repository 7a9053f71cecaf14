# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_prep's variables parsed strictly against roles/node_prep/meta/argument_specs.yml (plugin_utils/node_prep_inputs.py)."""
from __future__ import annotations

import os

import pytest
import yaml

from ansible_collections.numaops.colocation.plugins.plugin_utils import node_prep_inputs as inputs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
with open(os.path.join(ROOT, 'roles', 'node_prep', 'meta', 'argument_specs.yml')) as _handle:
    OPTIONS = yaml.safe_load(_handle)['argument_specs']['main']['options']
with open(os.path.join(ROOT, 'roles', 'node_prep', 'defaults', 'main.yml')) as _handle:
    # a templated default is a string until it is rendered, and is left out here
    DEFAULTS = dict((name, value) for name, value in yaml.safe_load(_handle).items()
                    if not (isinstance(value, str) and '{{' in value))


def _errors(**given):
    return inputs.parse(OPTIONS, given, 'host n1')[1]


def test_the_role_defaults_parse_and_keep_their_values():
    values, errors = inputs.parse(OPTIONS, DEFAULTS)
    assert errors == []
    assert values['node_prep_kernel_args'] == DEFAULTS['node_prep_kernel_args']
    assert values['node_prep_nri_enabled'] is True


@pytest.mark.parametrize('value, expected', [
    (True, True), (False, False), ('true', True), ('False', False), ('yes', True), ('no', False), (' on ', True),
    ('0', False), (1, True), (None, None)])
def test_booleans_in_every_spelling_ansible_reads_as_one(value, expected):
    values, errors = inputs.parse(OPTIONS, {'node_prep_drain': value, 'node_prep_nri_enabled': value})
    assert errors == []
    assert values == {'node_prep_drain': expected, 'node_prep_nri_enabled': expected}


@pytest.mark.parametrize('name', ['node_prep_nri_enabled', 'node_prep_drain', 'node_prep_reboot_allowed'])
@pytest.mark.parametrize('value', ['maybe', 'ture', '', 2, 0.5, ['true'], {'a': 1}])
def test_what_is_not_a_boolean_is_refused_naming_host_variable_and_value(name, value):
    errors = _errors(**{name: value})
    assert len(errors) == 1, errors
    assert errors[0].startswith('host n1: %s=%s ' % (name, repr(value) if isinstance(value, str) else value))
    assert 'give true or false' in errors[0]


def test_a_bare_string_is_not_a_list_of_kernel_arguments():
    errors = _errors(node_prep_kernel_args='nosmt')
    assert errors == ["host n1: node_prep_kernel_args='nosmt' is not a list (a string): give a list, such as ['nosmt']."]
    assert _errors(node_prep_kernel_args=['nosmt']) == []
    assert 'element 1 (True)' in _errors(node_prep_kernel_args=['nosmt', True])[0]


@pytest.mark.parametrize('given, fragment', [
    ({'node_prep_reserved_cores': 'many'}, "node_prep_reserved_cores='many' is not a whole number"),
    ({'node_prep_reserved_cores': -1}, 'node_prep_reserved_cores=-1 is out of range: give a whole number from 0'),
    ({'node_prep_reboot_timeout': 0}, 'node_prep_reboot_timeout=0 is out of range: give a whole number from 1'),
    ({'node_prep_drain_timeout': 1.5}, 'is not a whole number'),
    ({'node_prep_drain_timeout': True}, 'is not a whole number'),
    ({'node_prep_nri_mode': 'sideways'}, "node_prep_nri_mode='sideways' is not one of inline, dropin"),
    ({'node_prep_kubelet_version': 1.3}, 'node_prep_kubelet_version=1.3 is not a string (a decimal number: quote it)'),
    ({'node_prep_system_reserved': 'cpu=1'}, "node_prep_system_reserved='cpu=1' is not a dictionary (a string)"),
    # a list's choices are its elements'
    ({'node_prep_koordlet_features': ['psi', 'rdt']},
     "node_prep_koordlet_features=['psi', 'rdt'] has an element 1 ('rdt') that is not one of memory_qos, cpu_idle, "
     "core_sched, group_identity, psi, resctrl, nri, cpuset"),
    ({'node_prep_koordlet_features': 'psi'}, "node_prep_koordlet_features='psi' is not a list (a string)"),
])
def test_numbers_ranges_choices_strings_and_dictionaries(given, fragment):
    errors = _errors(**given)
    assert len(errors) == 1 and fragment in errors[0], errors


def test_numbers_from_extra_variables_are_read_as_numbers():
    values, errors = inputs.parse(OPTIONS, {'node_prep_drain_timeout': ' 30 ', 'node_prep_reserved_system_cpus': 0})
    assert errors == [] and values == {'node_prep_drain_timeout': 30, 'node_prep_reserved_system_cpus': '0'}


@pytest.mark.parametrize('variables, expected', [
    ({}, (1, 0)),
    ({'node_prep_max_unavailable': '10%', 'node_prep_max_fail_percentage': '25'}, ('10%', 25)),
    ({'node_prep_max_unavailable': 3, 'node_prep_survey_max_unavailable': ' ', 'node_prep_survey_max_fail_percentage': ''},
     (3, 0)),
    ({'node_prep_max_unavailable': 3, 'node_prep_survey_max_unavailable': '2'}, ('2' and 2, 0)),
])
def test_fleet_settings_blank_survey_answers_are_not_answers(variables, expected):
    settings = inputs.fleet_settings(variables)
    assert settings['errors'] == []
    assert (settings['max_unavailable'], settings['max_fail_percentage']) == expected


@pytest.mark.parametrize('variables, fragment', [
    ({'node_prep_max_unavailable': 0}, 'node_prep_max_unavailable=0 is not a batch size'),
    ({'node_prep_max_unavailable': '0%'}, "node_prep_max_unavailable='0%' is out of range"),
    ({'node_prep_max_unavailable': '150%'}, 'out of range'),
    ({'node_prep_survey_max_unavailable': 'all'}, "node_prep_survey_max_unavailable='all' is not a batch size"),
    ({'node_prep_max_fail_percentage': 101}, 'node_prep_max_fail_percentage=101 is out of range: give a whole number from 0 to 100'),
    ({'node_prep_survey_max_fail_percentage': 'half'}, "node_prep_survey_max_fail_percentage='half' is not a whole number"),
    ({'node_prep_continue_healthy': 'ture'}, "node_prep_continue_healthy='ture' is not a boolean"),
])
def test_fleet_settings_refuse_what_has_no_meaning(variables, fragment):
    errors = inputs.fleet_settings(variables)['errors']
    assert len(errors) == 1 and fragment in errors[0], errors


def test_playbook_booleans():
    values, errors = inputs.playbook_booleans({'colocation_audit_fail_on_drift': 'flase'}, 'audit')
    assert errors == ["audit: colocation_audit_fail_on_drift='flase' is not a boolean: give true or false."]
    assert values['colocation_audit_fail_on_drift'] is True
    values, errors = inputs.playbook_booleans({'colocation_audit_fail_on_drift': 'false', 'colocation_gather_facts': ' '})
    assert errors == [] and values['colocation_audit_fail_on_drift'] is False and values['colocation_gather_facts'] is False


def test_the_performance_profile_is_typed_field_by_field():
    profile = {'cpu': {'reserved': 'auto', 'reserved_cores': '1'}, 'numa': {'topology_policy': 'single-numa-node'},
               'hugepages': {'default_size': '1G', 'pages': [{'size': '1G', 'count': 4, 'node': 0}]}}
    values, errors = inputs.parse(OPTIONS, {'node_prep_perf_profile': profile})
    assert errors == [] and values['node_prep_perf_profile']['cpu'] == {'reserved': 'auto', 'reserved_cores': 1}
    assert _errors(node_prep_perf_profile={'cpu': {'reserved': 'auto', 'isolate': '2-7'}}) == [
        "host n1: node_prep_perf_profile={'cpu': {'reserved': 'auto', 'isolate': '2-7'}} has a field cpu "
        "({'reserved': 'auto', 'isolate': '2-7'}) that has the field isolate, which is not one of balance_isolated, "
        "isolated, reserved, reserved_cores."]
    assert _errors(node_prep_perf_profile={'hugepages': {'pages': [{'size': '4M', 'count': 1}]}}) == [
        "host n1: node_prep_perf_profile={'hugepages': {'pages': [{'size': '4M', 'count': 1}]}} has a field hugepages "
        "({'pages': [{'size': '4M', 'count': 1}]}) that has a field pages ([{'size': '4M', 'count': 1}]) that has an "
        "element 0 ({'size': '4M', 'count': 1}) that has a field size ('4M') that is not one of 2M, 1G."]
    assert 'lacks the field count' in _errors(node_prep_perf_profile={'hugepages': {'pages': [{'size': '2M'}]}})[0]
    assert 'has a field isolation (\'maybe\') that is not a boolean' in _errors(
        node_prep_perf_profile={'isolation': 'maybe'})[0]
