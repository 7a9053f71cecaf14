# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_preflight's ``role_vars: node_prep``: the options of the pre-flight from the role's variables, as the concern
registry declares them (module_utils/node_prep_concerns.py), checked against the role's argument specification, and
read from the task's variables by the action plugin (plugins/action/node_preflight.py)."""
from __future__ import annotations

import os
import re
import shutil

import yaml

from ansible_collections.numaops.colocation.plugins.action.node_preflight import role_options
from ansible_collections.numaops.colocation.plugins.module_utils import node_prep_concerns as nc
from ansible_collections.numaops.colocation.plugins.plugin_utils import node_prep_decision
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils import node_prep_concern_example as example
from ansible_collections.numaops.colocation.tests.unit.unit_stage import this_test

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
ROLE = os.path.join(ROOT, 'roles', 'node_prep')
with open(os.path.join(ROLE, 'meta', 'argument_specs.yml')) as _handle:
    SPEC = yaml.safe_load(_handle)['argument_specs']['inspect']['options']
with open(os.path.join(ROLE, 'defaults', 'main.yml')) as _handle:
    DEFAULTS = yaml.safe_load(_handle)

# every declaration table of the registry: (what it is, {option: source})
TABLES = ([('node_preflight read', nc.READ_INPUTS), ('checks', nc.CHECKS_INPUTS), ('profile', nc.PROFILE_INPUTS)]
          + [('plan of ' + concern.name, concern.inputs) for concern in nc.applying()])


def _declared(inputs):
    """[(option, variable)] of every role variable a table names (a Derived names several)."""
    pairs = []
    for option, source in sorted(inputs.items()):
        if isinstance(source, nc.Derived):
            pairs.extend((option, name) for name in source.variables)
        elif not isinstance(source, nc.Fixed):
            pairs.append((option, source))
    return pairs


def test_every_variable_the_registry_declares_is_an_option_of_the_role_with_a_default():
    names = nc.role_variables(settings=node_prep_decision.SETTINGS)
    assert [name for name in names if name not in SPEC] == [], 'not in roles/node_prep/meta/argument_specs.yml'
    assert [name for name in names if name not in DEFAULTS] == [], 'not in roles/node_prep/defaults/main.yml'


def test_a_declared_variable_the_role_does_not_have_fails_this_check():
    # the worked example of docs/developer/concerns.md, before its variables are in the role
    names = nc.role_variables(example.REGISTRY)
    assert sorted(name for name in names if name not in SPEC) == ['node_prep_numa_balancing', 'node_prep_sysctl_path']


def test_each_table_names_a_variable_once():
    for what, inputs in TABLES:
        variables = [name for _option, name in _declared(inputs)]
        repeated = sorted(set(name for name in variables if variables.count(name) > 1))
        assert repeated == [], '%s: %s feed more than one option' % (what, ', '.join(repeated))


def test_every_option_of_the_role_is_read_by_the_registry_or_by_a_file_of_the_role_or_the_playbooks():
    declared = set(nc.role_variables(settings=node_prep_decision.SETTINGS))
    texts = []
    for base in (os.path.join(ROLE, 'tasks'), os.path.join(ROLE, 'templates'), os.path.join(ROOT, 'playbooks')):
        for folder, _dirs, files in os.walk(base):
            for name in files:
                with open(os.path.join(folder, name)) as handle:
                    texts.append(handle.read())
    with open(os.path.join(ROLE, 'defaults', 'main.yml')) as handle:
        texts.append(handle.read())
    used = set(re.findall(r'\bnode_prep_[a-z0-9_]+', '\n'.join(texts)))
    assert sorted(name for name in SPEC if name not in declared and name not in used) == []


def test_the_pre_flight_task_of_the_role_has_no_mapping_of_its_own():
    with open(os.path.join(ROLE, 'tasks', 'inspect.yml')) as handle:
        tasks = yaml.safe_load(handle)
    preflight, = [task for task in tasks[0]['block'] if 'numaops.colocation.node_preflight' in task]
    assert preflight['numaops.colocation.node_preflight'] == {'role_vars': 'node_prep'}


def _values(**given):
    values = dict((name, DEFAULTS[name]) for name in nc.role_variables(settings=node_prep_decision.SETTINGS))
    values.update(node_prep_root='/n', node_prep_kubelet_state_dir='/n/var/lib/kubelet',
                  node_prep_containerd_config_path='/n/etc/containerd/config.toml',
                  node_prep_containerd_dropin_path='/n/etc/containerd/conf.d/99-nri.toml',
                  node_prep_lock_path='/n/lock', node_prep_node_name='n1', node_prep_k8s_enabled=False,
                  node_prep_k8s_validate_certs=True)
    values.update(given)
    return values


def test_the_options_from_the_role_variables():
    values = _values()
    options = role_options(values, {'distribution': 'Debian'}, ['u'], False, ['i'])
    assert options['lock'] == {'path': '/n/lock', 'state': 'query', 'stale_after': values['node_prep_lock_stale_after']}
    assert options['root'] == '/n' and options['read_kubelet_config'] is True and options['output_dirs'] == {}
    # containerd's version is asked of its binary: NRI managed and no version given
    assert options['containerd_binary'] == values['node_prep_containerd_binary']
    assert options['read_files'] == ['/n/var/lib/kubelet/cpu_manager_state', '/n/var/lib/kubelet/memory_manager_state',
                                     '/n/sys/devices/system/cpu/online', '/n/etc/containerd/config.toml']
    checks = options['checks']
    assert checks['facts'] == {'distribution': 'Debian', 'distribution_version': None,
                               'distribution_release': None, 'architecture': None}
    assert (checks['unknown'], checks['allow_unknown'], checks['invalid']) == (['u'], False, ['i'])
    assert checks['kernel_args'] == values['node_prep_kernel_args'] and checks['root'] == '/n'
    plan = options['plan']
    assert sorted(plan) == ['containerd', 'hugepages', 'irqbalance', 'kernel', 'kubelet']
    assert plan['kubelet']['cpu_manager_policy'] == values['node_prep_cpu_manager_policy']
    assert plan['kubelet']['topology_root'] == '/n' and plan['kubelet']['backup'] is False
    assert plan['containerd']['path'] == '/n/etc/containerd/config.toml'
    assert plan['kernel']['state'] == 'present' and plan['kernel']['grub_cfg_paths'] is None
    # no performance profile: neither its concerns nor the profile option
    assert plan['irqbalance'] is None and plan['hugepages'] is None and 'profile' not in options
    # the decision's settings, every one it takes (node_prep_decision.decide refuses a missing or unknown one)
    assert sorted(options['decide']['settings']) == sorted(node_prep_decision.SETTINGS)
    assert options['decide']['settings']['lock_path'] == '/n/lock'


def test_the_computed_options():
    profile = {'cpu': {'reserved': 'auto'}}
    options = role_options(_values(node_prep_root='', node_prep_grub_cfg_paths=['/boot/grub/grub.cfg'],
                                   node_prep_nri_enabled=None, node_prep_perf_profile=profile,
                                   node_prep_numa_textfile_dir='/var/lib/node_exporter'), {}, [], False, [])
    assert options['plan']['kubelet']['topology_root'] == '/'
    assert options['plan']['kernel']['grub_cfg_paths'] == ['/boot/grub/grub.cfg']
    # containerd left alone: no version asked of its binary
    assert 'containerd_binary' not in options
    assert options['output_dirs'] == {'node_prep_numa_textfile_dir': '/var/lib/node_exporter'}
    assert options['profile'] == {'profile': profile, 'topology_root': '/', 'irqbalance_path': None,
                                  'unit_path': DEFAULTS['node_prep_hugepages_unit_path']}
    assert options['plan']['irqbalance'] == options['plan']['hugepages'] == options['profile']
    # a version given: none asked
    assert 'containerd_binary' not in role_options(_values(node_prep_containerd_version='1.7.24'), {}, [], False, [])


def _tree(tmp_path):
    tree = tmp_path / 'tree'
    shutil.copytree(os.path.join(ROOT, 'examples', 'sandbox', 'tree'), str(tree), symlinks=True)
    return tree


@this_test('runs ansible-playbook')
def test_the_action_reads_the_role_variables_from_the_task(tmp_path):
    """The role's defaults and the sandbox node's settings as the play's variables: the options come from them, a
    value of the task's variables is typed as the role's argument specification says, and one it refuses is an
    error of the checks naming the host, the variable and the value, with no plan."""
    from ansible_collections.numaops.colocation.tests.unit import playbooks
    tree = _tree(tmp_path)
    play_vars = dict(DEFAULTS, node_prep_root=str(tree), node_prep_node_name='sandbox-node-1',
                     node_prep_kubelet_unit_dirs=['{{ node_prep_root }}/etc/systemd/system',
                                                  '{{ node_prep_root }}/usr/lib/systemd/system'],
                     node_prep_containerd_version='1.7.24', node_prep_manage_services=False,
                     node_prep_k8s_enabled=False, node_prep_lock_enabled=False)
    work = tmp_path / 'work'
    work.mkdir()
    tasks = [
        {'name': 'from the role variables', 'numaops.colocation.node_preflight': {'role_vars': 'node_prep'},
         'vars': dict(play_vars, node_prep_reserved_cores='2'), 'check_mode': True},
        {'name': 'a value the specification refuses', 'numaops.colocation.node_preflight': {'role_vars': 'node_prep'},
         'vars': dict(play_vars, node_prep_kubelet_enabled='maybe'), 'check_mode': True},
        {'name': 'another role', 'numaops.colocation.node_preflight': {'role_vars': 'memory_qos'}},
        {'name': 'outside the role', 'numaops.colocation.node_preflight': {'role_vars': 'node_prep'}},
        # the host's facts given as an expression (as a play faking a platform does): read once templated
        {'name': 'facts from an expression', 'numaops.colocation.node_preflight': {'role_vars': 'node_prep'},
         'vars': dict(play_vars, ansible_facts="{{ {'distribution': 'openEuler', 'architecture': 'aarch64'} }}"),
         'check_mode': True},
    ]
    planned, refused, other, outside, faked = playbooks.run_tasks(work, tasks)
    assert not planned.get('failed'), planned
    assert planned['checks']['errors'] == []
    assert sorted(planned['plan_args']) == ['containerd', 'kubelet']
    # typed: the string '2' of the task's variables is the whole number of the specification
    assert planned['plan_args']['kubelet']['reserved_cores'] == 2
    assert planned['plan_args']['kubelet']['state_dir'] == str(tree) + '/var/lib/kubelet'
    assert planned['decision']['settings']['node_name'] == 'sandbox-node-1'
    assert planned['decision']['check_mode'] is True
    assert refused['checks']['errors'] == [
        "node_prep: host localhost: node_prep_kubelet_enabled='maybe' is not a boolean: give true or false. (the "
        "types and values roles/node_prep/meta/argument_specs.yml allows). Nothing was changed."]
    assert 'plan' not in refused and 'decision' not in refused
    assert other['failed'] and other['msg'].startswith('node_preflight: role_vars must be one of node_prep')
    assert outside['failed'] and 'run it as a task of the role' in outside['msg']
    assert not faked.get('failed'), faked
    assert faked['checks']['errors'] == []
