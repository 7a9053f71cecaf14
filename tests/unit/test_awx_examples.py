# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The AWX material under examples/awx and the execution environment files, checked the way AWX and
ansible-builder would check them: survey specs with AWX's rules, every survey variable a documented role
variable (or a play variable the playbook reads), job templates naming existing playbooks with the slicing
docs/awx.md calls safe, the credential type's injectors, ``ansible-builder create`` on the example
definition and ``ansible-builder introspect`` on the collection."""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from ansible_collections.numaops.colocation.tests.unit import playbooks

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AWX = os.path.join(ROOT, 'examples', 'awx')
PLAYBOOKS = ['node_prep', 'deploy_controller', 'memory_qos', 'site', 'audit', 'colocation_sync']
# Variables a playbook reads at play level (not role variables): the batch settings of node_prep.yml.
PLAY_VARIABLES = {'node_prep_max_unavailable', 'node_prep_max_fail_percentage', 'colocation_audit_fail_on_drift',
                  'colocation_audit_fail_on_refusals',
                  'colocation_sync_label_selector', 'colocation_sync_namespaces'}
SURVEY_TYPES = {'text', 'textarea', 'password', 'integer', 'float', 'multiplechoice', 'multiselect'}
SLICEABLE = {'memory_qos', 'audit'}


def _load(path):
    with open(path) as handle:
        return json.load(handle)


def _role_variables():
    names = set()
    for spec_file in glob.glob(os.path.join(ROOT, 'roles', '*', 'meta', 'argument_specs.yml')):
        with open(spec_file) as handle:
            specs = yaml.safe_load(handle)['argument_specs']
        for entry in specs.values():
            names.update(entry.get('options', {}))
    return names


@pytest.mark.parametrize('name', PLAYBOOKS)
def test_survey_spec_follows_awx_rules(name):
    survey = _load(os.path.join(AWX, 'surveys', name + '.json'))
    assert set(survey) == {'name', 'description', 'spec'} and survey['spec']
    variables = [q['variable'] for q in survey['spec']]
    assert len(variables) == len(set(variables)), 'a variable is asked twice'
    known = _role_variables() | PLAY_VARIABLES
    for question in survey['spec']:
        where = '%s: %s' % (name, question.get('variable'))
        assert {'question_name', 'question_description', 'required', 'type', 'variable', 'default'} <= set(question), where
        assert question['type'] in SURVEY_TYPES, where
        assert isinstance(question['required'], bool), where
        # a <prefix>_survey_<name> answer is applied as <prefix>_<name> only when given (plugins/plugin_utils/fleet.py)
        variable = re.sub(r'^(node_prep|memory_qos|colocation_controller|colocation)_survey_', r'\1_', question['variable'])
        assert variable in known, '%s is not a documented role variable' % where
        assert not question['required'], '%s: a required question forces one value over the inventory' % where
        if question['type'] in ('multiplechoice', 'multiselect'):
            choices = question['choices']
            choices = choices.split('\n') if isinstance(choices, str) else choices
            assert question['default'] in choices, where
        elif question['type'] == 'integer':
            assert isinstance(question['default'], int), where
            assert question['min'] <= question['default'] <= question['max'], where
        elif question['type'] == 'text':
            assert isinstance(question['default'], str), where
            assert question['min'] <= len(question['default']) <= question['max'] or not question['required'], where


def test_survey_choices_are_what_the_roles_accept():
    with open(os.path.join(ROOT, 'roles', 'colocation_controller', 'meta', 'argument_specs.yml')) as handle:
        controller = yaml.safe_load(handle)['argument_specs']['main']['options']
    with open(os.path.join(ROOT, 'roles', 'memory_qos', 'meta', 'argument_specs.yml')) as handle:
        memory_qos = yaml.safe_load(handle)['argument_specs']['main']['options']
    options = dict(controller, **memory_qos)
    for name in PLAYBOOKS:
        for question in _load(os.path.join(AWX, 'surveys', name + '.json'))['spec']:
            spec = options.get(question['variable'])
            if spec and 'choices' in spec:
                assert set(question['choices']) <= set(spec['choices']), question['variable']
            if spec and spec.get('type') == 'bool':
                assert set(question['choices']) == {'true', 'false'}, question['variable']


@pytest.mark.parametrize('name', PLAYBOOKS)
def test_job_template(name):
    template = _load(os.path.join(AWX, 'job_templates', name + '.json'))
    assert os.path.isfile(os.path.join(ROOT, template['playbook'])), template['playbook']
    assert os.path.isfile(os.path.join(AWX, template['survey_spec']))
    assert template['survey_enabled'] is True
    assert template['job_type'] == ('check' if name == 'audit' else 'run')
    if name not in SLICEABLE:
        assert template['job_slice_count'] == 1, 'docs/awx.md: %s must not be sliced' % name
    # docs/awx.md: no two jobs of a node-changing template at once (the node lock would fail the second one)
    assert template['allow_simultaneous'] is False, name
    machine = any('machine' in c for c in template['credentials'])
    assert machine == (name not in ('deploy_controller', 'colocation_sync')), 'these two do not reach the nodes'
    assert any('kubeconfig' in c for c in template['credentials'])


def test_kubeconfig_credential_type_injects_k8s_auth_kubeconfig():
    credential_type = _load(os.path.join(AWX, 'credential_type_kubeconfig.json'))
    kubeconfig = [f for f in credential_type['inputs']['fields'] if f['id'] == 'kubeconfig'][0]
    assert kubeconfig['secret'] and kubeconfig['multiline']
    assert credential_type['injectors']['file'] == {'template.kubeconfig': '{{ kubeconfig }}'}
    assert credential_type['injectors']['env']['K8S_AUTH_KUBECONFIG'] == '{{ tower.filename.kubeconfig }}'


def test_collection_metadata_for_ansible_builder():
    with open(os.path.join(ROOT, 'meta', 'execution-environment.yml')) as handle:
        meta = yaml.safe_load(handle)
    assert meta['dependencies'] == {'python': 'requirements.txt', 'system': 'bindep.txt'}
    for path in meta['dependencies'].values():
        assert os.path.isfile(os.path.join(ROOT, path))
    with open(os.path.join(ROOT, 'galaxy.yml')) as handle:
        ignored = yaml.safe_load(handle).get('build_ignore', [])
    assert not {'requirements.txt', 'bindep.txt', 'meta/execution-environment.yml'} & set(ignored)


def _builder():
    found = shutil.which('ansible-builder', path=os.path.dirname(sys.executable)) or shutil.which('ansible-builder')
    if not found:
        playbooks.missing('ansible-builder is not installed', 'scripts/lib.sh ensure_venv installs it (tests/requirements-dev.txt)')
    return found


def test_ansible_builder_create_accepts_the_example(tmp_path):
    # the collection comes from its tarball (not Galaxy): build it where the EE definition expects it
    with open(os.path.join(ROOT, 'galaxy.yml')) as handle:
        version = yaml.safe_load(handle)['version']
    with open(os.path.join(AWX, 'execution-environment.yml')) as handle:
        definition = yaml.safe_load(handle)
    tarball = 'numaops-colocation-%s.tar.gz' % version
    assert definition['additional_build_files'] == [{'src': tarball, 'dest': 'collections'}]
    galaxy = shutil.which('ansible-galaxy', path=os.path.dirname(sys.executable)) or shutil.which('ansible-galaxy')
    build = subprocess.run([galaxy, 'collection', 'build', '--output-path', str(tmp_path), ROOT],
                           capture_output=True, text=True, check=False)
    assert build.returncode == 0, build.stdout + build.stderr
    shutil.copy(os.path.join(AWX, 'execution-environment.yml'), str(tmp_path / 'execution-environment.yml'))
    proc = subprocess.run([_builder(), 'create', '-f', str(tmp_path / 'execution-environment.yml'),
                           '-c', str(tmp_path / 'context'), '--output-filename', 'Dockerfile'],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    dockerfile = (tmp_path / 'context' / 'Dockerfile').read_text()  # what docs/awx.md names
    assert 'ansible-galaxy collection install' in dockerfile and 'introspect' in dockerfile
    assert (tmp_path / 'context' / '_build' / 'collections' / tarball).is_file()
    requirements = yaml.safe_load((tmp_path / 'context' / '_build' / 'requirements.yml').read_text())
    ours = [c for c in requirements['collections'] if 'numaops' in c['name']]
    assert ours == [{'name': 'collections/' + tarball, 'type': 'file'}], requirements


def test_ansible_builder_introspect_finds_the_dependencies(tmp_path):
    collections = tmp_path / 'collections'
    (collections / 'ansible_collections' / 'numaops').mkdir(parents=True)
    os.symlink(ROOT, str(collections / 'ansible_collections' / 'numaops' / 'colocation'))
    proc = subprocess.run([_builder(), 'introspect', '--sanitize', str(collections)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = yaml.safe_load(proc.stdout.split('\n', 1)[1])
    python = ' '.join(data['python'])
    assert 'kubernetes' in python and 'ruamel.yaml' in python and 'tomlkit' in python
    assert any(line.startswith('openssh-clients [platform:rpm]') for line in data['system'])
