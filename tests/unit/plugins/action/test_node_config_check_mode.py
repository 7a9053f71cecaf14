# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_config in check mode decides its commits from its own read (no second node_files call): it must predict
what a real run does, and say what the modules alone say in check mode (they ask node_files), failures included.

One ansible-playbook run on localhost: per tree, containerd_nri and kubelet_config alone in check mode,
node_config in check mode, then node_config for real. The immutable cases need root and chattr (skipped
otherwise)."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from ansible_collections.numaops.colocation.tests.unit import playbooks
from ansible_collections.numaops.colocation.tests.unit.unit_stage import SHARED_PLAYBOOK_RUN, only_here

pytestmark = only_here(SHARED_PLAYBOOK_RUN)

TREE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', 'examples', 'sandbox', 'tree')
CPU_STATE = '{"policyName":"none","defaultCpuSet":"","checksum":1353318690}\n'


def chattr(flag, path):
    return bool(shutil.which('chattr')) and subprocess.call(['chattr', flag, path], stderr=subprocess.DEVNULL) == 0


def can_chattr(base):
    probe = base / 'probe'
    probe.write_text('x')
    if os.geteuid() != 0 or not chattr('+i', str(probe)):
        return False
    chattr('-i', str(probe))
    return True


def node(base, name):
    root = base / name
    shutil.copytree(TREE, str(root), symlinks=True)
    (root / 'var/lib/kubelet/cpu_manager_state').write_text(CPU_STATE)
    return root


def options(root):
    return dict(
        kubelet=dict(path=str(root / 'var/lib/kubelet/config.yaml'), state_dir=str(root / 'var/lib/kubelet'),
                     cpu_manager_policy='static', topology_manager_policy='best-effort',
                     system_reserved={'cpu': '500m'}, kube_reserved={'cpu': '500m'}, reservations='merge'),
        containerd=dict(path=str(root / 'etc/containerd/config.toml'), state='enabled', containerd_version='1.7.24'))


def files(root):
    found = {}
    for top, _dirs, names in os.walk(str(root)):
        for name in names:
            path = os.path.join(top, name)
            with open(path, 'rb') as handle:
                found[os.path.relpath(path, str(root))] = handle.read()
    return found


# (name, what is made immutable, relative to the tree)
CASES = [('plain', None), ('immutable kubelet config', 'var/lib/kubelet/config.yaml'),
         ('immutable containerd config', 'etc/containerd/config.toml'),
         ('immutable kubelet state directory', 'var/lib/kubelet')]


@pytest.fixture(scope='module', name='runs')
def runs_fixture(tmp_path_factory):
    base = tmp_path_factory.mktemp('node_config_check')
    immutable_ok = can_chattr(base)
    tasks, trees, locked = [], {}, []
    for name, frozen in CASES:
        if frozen and not immutable_ok:
            continue
        root = node(base, name.replace(' ', '-'))
        trees[name] = root
        opts = options(root)
        tasks.append({'name': name + ': kubelet_config alone', 'check_mode': True,
                      'numaops.colocation.kubelet_config': opts['kubelet']})
        tasks.append({'name': name + ': containerd_nri alone', 'check_mode': True,
                      'numaops.colocation.containerd_nri': opts['containerd']})
        tasks.append({'name': name + ': plan', 'check_mode': True, 'numaops.colocation.node_config': opts})
        tasks.append({'name': name + ': apply', 'numaops.colocation.node_config': opts})
        if frozen:
            assert chattr('+i', str(root / frozen))
            locked.append(str(root / frozen))
    before = dict((name, files(root)) for name, root in trees.items())
    (base / 'ansible').mkdir()
    try:
        results = playbooks.run_tasks(base / 'ansible', tasks)
    finally:
        for path in locked:
            chattr('-i', path)
    by_name = dict((task['name'], result) for task, result in zip(tasks, results))
    return dict(results=by_name, trees=trees, before=before)


@pytest.mark.parametrize('case', [name for name, _frozen in CASES])
def test_check_mode_predicts_the_real_run(runs, case):
    if case not in runs['trees']:
        pytest.skip('needs root and a file system that supports chattr +i')
    res = runs['results']
    plan, apply = res[case + ': plan'], res[case + ': apply']
    for concern, module in (('kubelet', 'kubelet_config'), ('containerd', 'containerd_nri')):
        alone = res['%s: %s alone' % (case, module)]
        mine = plan[concern]
        # the same outcome and message as the module alone (which asked node_files in check mode)
        assert bool(mine.get('failed')) == bool(alone.get('failed')), (mine, alone)
        assert mine.get('msg') == alone.get('msg')
        assert mine.get('changed') == alone.get('changed')
        for key in ('state_files_removed', 'changed_fields', 'files'):
            assert mine.get(key) == alone.get(key)
        # ... and what the real run then did (or refused with the same message)
        real = apply[concern]
        assert bool(real.get('failed')) == bool(mine.get('failed')), (real, mine)
        if mine.get('failed'):
            assert real['msg'] == mine['msg']
        elif not apply.get('failed'):
            assert real['changed'] == mine['changed']
            for key in ('state_files_removed', 'changed_fields', 'files'):
                assert real.get(key) == mine.get(key)
    if case == 'plain':
        assert str(runs['trees'][case] / 'var/lib/kubelet/cpu_manager_state') in plan['kubelet']['state_files_removed']
        assert plan['changed'] is True and apply['changed'] is True and not apply.get('failed')
    else:
        assert plan['failed'] is True and apply['failed'] is True
        assert 'Operation not permitted (immutable' in plan['msg']
