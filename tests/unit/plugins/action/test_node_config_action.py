# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_config through Ansible itself: its three concerns against the same three modules run one by one.

One ansible-playbook run against localhost (connection local, the collection from this checkout) runs, on two
copies of the sandbox node tree, the same plan / apply / rerun sequence: on one copy with kubelet_config,
containerd_nri and kernel_cmdline as three tasks, on the other with node_config as one task. Both must report the
same thing and leave the same bytes. Failures are checked on copies of their own.
"""
from __future__ import annotations

import os
import shutil

import pytest

from ansible_collections.numaops.colocation.tests.unit import playbooks
from ansible_collections.numaops.colocation.tests.unit.unit_stage import SHARED_PLAYBOOK_RUN, only_here

pytestmark = only_here(SHARED_PLAYBOOK_RUN)

TREE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', 'examples', 'sandbox', 'tree')
GRUB_CFG = ('menuentry "Debian" {\n'
            '\tlinux /vmlinuz-6.1.0 root=/dev/vda1 ro quiet\n'
            '\tinitrd /initrd.img-6.1.0\n'
            '}\n')
# fields whose values name the run, not the outcome
VOLATILE = ('backup_file', 'backup_files', 'restore', 'diff')


def node(base, name):
    root = base / name
    shutil.copytree(TREE, str(root), symlinks=True)
    (root / 'boot' / 'grub').mkdir(parents=True)
    (root / 'boot' / 'grub' / 'grub.cfg').write_text(GRUB_CFG)
    return root


def options(root, policy='static', containerd_config=None, nri='enabled', kernel_args=('numa_icon=enable',)):
    kubelet = dict(path=str(root / 'var/lib/kubelet/config.yaml'), state_dir=str(root / 'var/lib/kubelet'),
                   cpu_manager_policy=policy, topology_manager_policy='best-effort',
                   system_reserved={'cpu': '500m'}, kube_reserved={'cpu': '500m'}, reservations='merge',
                   backup=True, feature_gates=None)
    containerd = dict(path=str(containerd_config or root / 'etc/containerd/config.toml'), state=nri,
                      containerd_version='1.7.24', socket_path=None, backup=True)
    kernel = dict(args=list(kernel_args), backend='grubcfg', grub_defaults_path=str(root / 'etc/default/grub'),
                  grub_cfg_paths=[str(root / 'boot/grub/grub.cfg')], proc_cmdline_path=str(root / 'proc/cmdline'),
                  boot_dir=str(root / 'boot'), backup=False)
    return dict(kubelet=kubelet, containerd=containerd, kernel=kernel)


def separate(opts):
    """The same options as the three modules' own tasks (null options left out, as node_config does)."""
    return [('numaops.colocation.kubelet_config', opts['kubelet']),
            ('numaops.colocation.containerd_nri', opts['containerd']),
            ('numaops.colocation.kernel_cmdline', opts['kernel'])]


def clean(opts):
    return dict((name, value) for name, value in opts.items() if value is not None)


def files(root):
    found = {}
    for top, _dirs, names in os.walk(str(root)):
        for name in names:
            path = os.path.join(top, name)
            rel = os.path.relpath(path, str(root))
            if rel.startswith('etc/containerd/config.toml.') or '.20' in name:  # backups made by backup=true
                continue
            with open(path, 'rb') as handle:
                found[rel] = handle.read()
    return found


def comparable(result):
    # a task's registered result also says failed: false; a concern's result inside node_config does not
    return dict((key, value) for key, value in result.items()
                if key not in VOLATILE and not key.startswith('_') and not (key == 'failed' and value is False))


@pytest.fixture(scope='module', name='runs')
def runs_fixture(tmp_path_factory):
    base = tmp_path_factory.mktemp('node_config')
    one_by_one, together = node(base, 'separate'), node(base, 'together')
    sep, tog = options(one_by_one), options(together)
    tasks = []
    names = []
    for phase, keywords in (('plan', {'check_mode': True, 'diff': True}), ('apply', {'diff': True}),
                            ('rerun', {})):
        for module, args in separate(sep):
            names.append('%s %s' % (phase, module.rsplit('.', 1)[1]))
            tasks.append(dict({'name': names[-1], module: clean(args)}, **keywords))
        names.append('%s node_config' % phase)
        tasks.append(dict({'name': names[-1], 'numaops.colocation.node_config': tog}, **keywords))
    # check mode names every problem; nothing is written
    bad = node(base, 'bad')
    bad_toml = bad / 'etc/containerd/broken.toml'
    bad_toml.write_text('[plugins\nversion = 2\n')
    names.append('bad plan')
    tasks.append({'name': names[-1], 'check_mode': True,
                  'numaops.colocation.node_config': options(bad, policy='dynamic', containerd_config=bad_toml)})
    # a real run stops at the first failure: kubelet written, containerd refused, kernel not run
    half = node(base, 'half')
    half_toml = half / 'etc/containerd/broken.toml'
    half_toml.write_text('[plugins\nversion = 2\n')
    names.append('half apply')
    tasks.append({'name': names[-1], 'numaops.colocation.node_config': options(half, containerd_config=half_toml)})
    # left out: not touched
    only = node(base, 'only')
    names.append('kubelet only')
    tasks.append({'name': names[-1], 'numaops.colocation.node_config': {'kubelet': options(only)['kubelet']}})
    names.append('not a dict')
    tasks.append({'name': names[-1], 'numaops.colocation.node_config': {'kubelet': 'static'}})
    before = dict((name, files(base / name)) for name in ('bad', 'half', 'only'))
    (base / 'ansible').mkdir()
    results = dict(zip(names, playbooks.run_tasks(base / 'ansible', tasks)))
    return dict(base=base, results=results, before=before, separate=one_by_one, together=together)


@pytest.mark.parametrize('phase', ['plan', 'apply', 'rerun'])
def test_each_concern_reports_what_its_own_module_reports(runs, phase):
    res = runs['results']
    together = res['%s node_config' % phase]
    assert together.get('failed') is not True, together
    assert together['failed_concerns'] == []
    for concern, module in (('kubelet', 'kubelet_config'), ('containerd', 'containerd_nri'),
                            ('kernel', 'kernel_cmdline')):
        alone = res['%s %s' % (phase, module)]
        assert alone.get('failed') is not True, alone
        mine = together[concern]
        # the paths differ by the tree's name only
        expected = comparable(alone)
        got = comparable(mine)
        text = repr(expected).replace(str(runs['separate']), 'ROOT')
        assert repr(got).replace(str(runs['together']), 'ROOT') == text
    assert together['changed'] == (phase != 'rerun')
    assert together['changed'] == any(res['%s %s' % (phase, m)]['changed']
                                      for m in ('kubelet_config', 'containerd_nri', 'kernel_cmdline'))


def test_the_two_trees_end_byte_for_byte_the_same(runs):
    assert files(runs['separate']) == files(runs['together'])
    assert files(runs['together'])['boot/grub/grub.cfg'] != GRUB_CFG.encode()


def test_the_diffs_of_the_three_are_one_list_in_order(runs):
    res = runs['results']
    diffs = res['plan node_config']['diff']
    assert isinstance(diffs, list)
    headers = [item.get('before_header', '') for item in diffs]
    kubelet_at = [n for n, h in enumerate(headers) if h.endswith('config.yaml')]
    containerd_at = [n for n, h in enumerate(headers) if h.endswith('config.toml')]
    grub_at = [n for n, h in enumerate(headers) if 'grub' in h]
    assert kubelet_at and containerd_at and grub_at, headers
    assert max(kubelet_at) < min(containerd_at) < min(grub_at)
    assert 'diff' not in res['rerun node_config']


def test_msg_names_each_module(runs):
    msg = runs['results']['apply node_config']['msg']
    for module in ('kubelet_config', 'containerd_nri', 'kernel_cmdline'):
        assert 'numaops.colocation.%s: ' % module in msg


def test_check_mode_names_every_problem_and_touches_nothing(runs):
    res = runs['results']['bad plan']
    assert res['failed'] is True
    assert res['failed_concerns'] == ['kubelet', 'containerd']
    assert 'numaops.colocation.kubelet_config: FAILED: ' in res['msg'] and 'dynamic' in res['msg']
    assert 'numaops.colocation.containerd_nri: FAILED: ' in res['msg'] and 'broken.toml' in res['msg']
    assert res['kernel']['changed'] is True and not res['kernel'].get('failed')
    assert '(Planned without a problem: numaops.colocation.kernel_cmdline would change files.)' in res['msg']
    assert files(runs['base'] / 'bad') == runs['before']['bad']


def test_a_real_run_stops_at_the_first_failure_and_says_what_it_had_done(runs):
    res = runs['results']['half apply']
    assert res['failed'] is True
    assert res['failed_concerns'] == ['containerd']
    assert res['kubelet']['changed'] is True
    assert res['kernel'] == {'changed': False, 'skipped': True,
                             'msg': 'not run: numaops.colocation.containerd_nri failed before it'}
    assert '(numaops.colocation.kubelet_config had changed its files before that.)' in res['msg']
    assert '(Not run: numaops.colocation.kernel_cmdline.)' in res['msg']
    after = files(runs['base'] / 'half')
    before = runs['before']['half']
    assert after['var/lib/kubelet/config.yaml'] != before['var/lib/kubelet/config.yaml']
    assert after['boot/grub/grub.cfg'] == before['boot/grub/grub.cfg']
    assert after['etc/containerd/broken.toml'] == before['etc/containerd/broken.toml']


def test_a_concern_left_out_is_not_touched(runs):
    res = runs['results']['kubelet only']
    assert res.get('failed') is not True, res
    assert res['containerd'] == {'changed': False, 'skipped': True}
    assert res['kernel'] == {'changed': False, 'skipped': True}
    after, before = files(runs['base'] / 'only'), runs['before']['only']
    assert after['etc/containerd/config.toml'] == before['etc/containerd/config.toml']
    assert after['etc/default/grub'] == before['etc/default/grub']


def test_a_concern_that_is_not_a_dictionary_is_refused(runs):
    res = runs['results']['not a dict']
    assert res['failed'] is True
    assert 'kubelet must be a dictionary of the options of numaops.colocation.kubelet_config' in res['msg']
    assert "'static'" in res['msg']


def test_node_config_reads_the_same_files_as_the_registry_from_the_options_of_its_concerns():
    # an action plugin imports ansible's controller code: tested here, not beside the registry's module_utils tests
    from ansible_collections.numaops.colocation.plugins.action.node_config import paths_to_read
    from ansible_collections.numaops.colocation.plugins.module_utils import node_prep_concerns
    options = {'kubelet': {'path': '/k/config.yaml', 'state_dir': '/var/lib/kubelet'},
               'containerd': {'path': '/etc/containerd/config.toml', 'mode': 'dropin',
                              'dropin_path': '/etc/containerd/conf.d/99-nri.toml'},
               'kernel': {'args': ['nosmt']}}
    # node_config fills in each module's defaults: the same files as kubelet_config and containerd_nri read (the node's
    # online CPUs too, which kubelet_config checks the CPU manager checkpoint against)
    assert paths_to_read({'kubelet': {'path': None}, 'containerd': {}}) == [
        '/var/lib/kubelet/config.yaml', '/var/lib/kubelet/cpu_manager_state', '/var/lib/kubelet/memory_manager_state',
        '/sys/devices/system/cpu/online', '/etc/containerd/config.toml']
    assert paths_to_read(options) == node_prep_concerns.read_paths_of(options)
