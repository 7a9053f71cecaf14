# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_prep writing the kubelet keys into a drop-in of its own, through ansible-playbook on a copy of the sandbox
node (its kubeadm kubelet unit, no --config-dir yet): check mode predicts the real run's recap and touches nothing;
the real run writes the drop-in and the unit drop-in that adds --config-dir, leaving the main file byte-identical;
a second run changes nothing; a failure after the write (the kubelet does not start) removes both new files again,
reloads systemd, and keeps the links of the node. The API is not used and the service commands are stand-ins
(argv lists of the role: node_prep_kubelet_stop_command, node_prep_kubelet_start_command,
node_prep_daemon_reload_command), because no kubelet or systemd runs here; the node_prep_failure molecule scenario
runs the rollback against the real API server, the vm scenario the real kubelet."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from ansible_collections.numaops.colocation.tests.unit.unit_stage import only_here

pytestmark = only_here('runs node_prep through ansible-playbook')

# pylint: disable=wrong-import-position
from ansible_collections.numaops.colocation.tests.unit.roles.test_node_prep_numa_auto import (  # noqa: E402
    ROOT, collections_path,
)

DROPIN = 'etc/kubernetes/kubelet.conf.d/90-numaops-colocation.conf'
UNIT = 'etc/systemd/system/kubelet.service.d/90-numaops-config-dir.conf'
MAIN = 'var/lib/kubelet/config.yaml'


def digest(tree):
    out = {}
    for base, _dirs, files in os.walk(tree):
        for name in files:
            path = os.path.join(base, name)
            rel = os.path.relpath(path, tree)
            if rel.startswith('var/backups') or os.path.islink(path):
                continue
            with open(path, 'rb') as handle:
                out[rel] = hashlib.sha256(handle.read()).hexdigest()
    return out


def links(tree):
    return dict((os.path.relpath(os.path.join(base, name), tree), os.readlink(os.path.join(base, name)))
                for base, dirs, files in os.walk(tree) for name in files + dirs
                if os.path.islink(os.path.join(base, name)))


@pytest.fixture
def node(tmp_path):
    tree = tmp_path / 'tree'
    shutil.copytree(os.path.join(ROOT, 'examples', 'sandbox', 'tree'), str(tree), symlinks=True)
    # the kubelet configuration reached through a link, as config management often leaves it
    real = tree / 'etc' / 'kubelet-config.yaml'
    shutil.move(str(tree / MAIN), str(real))
    os.symlink('../../../etc/kubelet-config.yaml', str(tree / MAIN))
    return tmp_path


def play(workdir, check=False, **extra):
    host = {
        'ansible_connection': 'local', 'ansible_python_interpreter': sys.executable,
        'node_prep_become': False, 'node_prep_root': str(workdir / 'tree'), 'node_prep_k8s_enabled': False,
        'node_prep_containerd_version': '1.7.24', 'node_prep_nri_enabled': None, 'node_prep_mem_sampling': 'disabled',
        'node_prep_manage_services': False, 'node_prep_kubelet_write_to': 'dropin',
        'node_prep_kubelet_enable_config_dir': True, 'node_prep_kubelet_version': '1.33',
        'node_prep_daemon_reload_command': ['sh', '-c', 'echo reload >> %s' % (workdir / 'reloads')],
    }
    host.update(extra)
    (workdir / 'inventory.json').write_text(json.dumps({'colocation_nodes': {'hosts': {'node-1': host}}}))
    (workdir / 'play.yml').write_text(
        '- hosts: colocation_nodes\n  gather_facts: false\n  roles: [numaops.colocation.node_prep]\n'
        '  post_tasks:\n    - ansible.builtin.copy: {content: "{{ node_prep_report | to_json }}", dest: %s, mode: "0600"}\n'
        '      delegate_to: localhost\n      check_mode: false\n      changed_when: false\n' % (workdir / 'report.json'))
    command = ['ansible-playbook', '-i', str(workdir / 'inventory.json'), str(workdir / 'play.yml'), '--diff']
    if check:
        command.append('--check')
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections_path(), ANSIBLE_NOCOLOR='1',
               ANSIBLE_STDOUT_CALLBACK='default', ANSIBLE_FORCE_COLOR='0')
    if os.path.exists(str(workdir / 'report.json')):
        os.unlink(str(workdir / 'report.json'))
    proc = subprocess.run(command, cwd=str(workdir), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=600, check=False)
    return proc.returncode, proc.stdout.decode()


def recap(out):
    found = re.search(r'node-1\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)', out)
    assert found, out
    return dict(zip(('ok', 'changed', 'unreachable', 'failed'), (int(x) for x in found.groups())))


def report(workdir):
    with open(str(workdir / 'report.json')) as handle:
        return json.load(handle)


def test_the_drop_in_is_predicted_written_once_and_the_main_file_left_alone(node):
    tree = node / 'tree'
    before, links_before = digest(str(tree)), links(str(tree))
    rc, out = play(node, check=True)
    assert rc == 0, out
    predicted = recap(out)
    assert predicted['changed'] == 1, out
    assert report(node)['kubelet']['drop_in_file'] == str(tree / DROPIN)
    assert digest(str(tree)) == before and links(str(tree)) == links_before

    rc, out = play(node)
    assert rc == 0, out
    assert recap(out)['changed'] == predicted['changed'], out
    kubelet = report(node)['kubelet']
    assert (kubelet['drop_in_file'], kubelet['unit_drop_in']) == (str(tree / DROPIN), str(tree / UNIT))
    assert 'cpuManagerPolicy' in kubelet['changed_fields']
    after = digest(str(tree))
    # the main file (through its link) byte-identical; the drop-in holds the keys; the unit adds --config-dir
    assert after['etc/kubelet-config.yaml'] == before['etc/kubelet-config.yaml']
    assert links(str(tree)) == links_before
    assert 'cpuManagerPolicy: static' in (tree / DROPIN).read_text()
    assert '--config-dir=%s' % (tree / 'etc/kubernetes/kubelet.conf.d') in (tree / UNIT).read_text()
    # the services are not managed here: no reload, and the restart is named as skipped
    assert not (node / 'reloads').exists()
    assert report(node)['restarts_skipped'] == ['kubelet']

    rc, out = play(node)
    assert rc == 0, out
    assert recap(out)['changed'] == 0, out
    assert digest(str(tree)) == after


def test_a_failure_after_the_write_removes_the_new_drop_ins_and_reloads_systemd(node):
    tree = node / 'tree'
    before, links_before = digest(str(tree)), links(str(tree))
    rc, out = play(node, node_prep_manage_services=True, node_prep_kubelet_stop_command=['true'],
                   node_prep_kubelet_start_command=['false'])
    assert rc != 0, out
    assert recap(out)['failed'] == 1, out
    message = ' '.join(out.split())
    assert 'node_prep FAILED on node-1' in message, out
    assert re.search(r'Rolled back: restored [^;]*%s' % re.escape(str(tree / DROPIN)), message), out
    assert 'systemd reloaded (kubelet unit drop-in %s put back)' % (tree / UNIT) in message, out
    # the new files are gone (their directory may stay), the rest byte-identical, links kept
    assert not (tree / DROPIN).exists() and not (tree / UNIT).exists()
    assert digest(str(tree)) == before and links(str(tree)) == links_before
    # written and put back: systemd reloaded after the write and after the rollback
    assert (node / 'reloads').read_text().split() == ['reload', 'reload']
