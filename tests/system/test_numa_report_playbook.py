# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""playbooks/numa_report.yml through ansible-playbook on the recorded trees: the HTML and JSON on the controller,
the textfile on a node, a node that fails shown as not read, nothing else written; --check writes the report too."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import ansible_collections
from ansible_collections.numaops.colocation.tests.unit.plugins.module_utils.numa_trees import tree


def collections_path():
    for entry in ansible_collections.__path__:
        if os.path.isdir(os.path.join(entry, 'numaops', 'colocation')):
            return os.path.dirname(entry)
    raise AssertionError('numaops.colocation is not importable')


@pytest.mark.parametrize('check', [False, True])
def test_numa_report_playbook(tmp_path, check):
    textfile = tmp_path / 'textfile'
    textfile.mkdir()
    inventory = {'colocation_nodes': {
        'vars': {'ansible_connection': 'local', 'ansible_python_interpreter': sys.executable,
                 'numa_report_become': False},
        'hosts': {
            'xeon-1': {'numa_report_root': tree('xeon8358-2s')},
            'tx2-1': {'numa_report_root': tree('thunderx2-2s'), 'numa_report_textfile_dir': str(textfile)},
            'broken-1': {'numa_report_root': tree('xeon8358-2s'), 'numa_report_state_dir': 'relative/path'},
        }}}
    (tmp_path / 'inventory.json').write_text(json.dumps(inventory))
    command = ['ansible-playbook', '-i', str(tmp_path / 'inventory.json'), 'numaops.colocation.numa_report',
               '-e', 'numa_report_dir=%s' % (tmp_path / 'out')]
    if check:
        command.append('--check')
    proc = subprocess.run(command, cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600,
                          env=dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections_path(), ANSIBLE_NOCOLOR='1'),
                          check=False)
    out = proc.stdout.decode()
    assert proc.returncode == 0, out
    assert 'Not read: broken-1 (numa_facts: state_dir=relative/path must be an absolute path' in out
    html = (tmp_path / 'out' / 'numa-report.html').read_text()
    data = json.loads((tmp_path / 'out' / 'numa-report.json').read_text())
    assert [row['name'] for row in data['nodes']] == ['broken-1', 'tx2-1', 'xeon-1']
    assert data['nodes'][0]['error'].startswith('numa_facts: state_dir=relative/path must be an absolute path')
    assert data['nodes'][2]['numa_nodes'][0]['free_exclusive_cpu_count'] == 48
    assert 'data-field="free-exclusive" data-numa="0" data-count="48"' in html
    prom = textfile / 'numaops_numa.prom'
    if check:
        assert not prom.exists()           # check mode writes nothing on the nodes
    else:
        text = prom.read_text()
        assert 'numaops_numa_node_cpus{numa_node="0"} 28' in text
        assert 'numaops_numa_cpu_info{cpu="28",core="0",socket="1",numa_node="1"} 1' in text
        # no pods from the API in this run: the containers are known by pod UID and container ID
        assert 'numaops_container_numa_cpus{namespace="",pod="",container="",pod_uid="a1d2c3b4-0e9f-4a8b-b7c6-d5e4f3a2b103"' in text
        assert 'numaops_kubelet_stale_checkpoint_entries 1' in text


def run_report(tmp_path, hosts, *extra):
    inventory = {'colocation_nodes': {
        'vars': {'ansible_connection': 'local', 'ansible_python_interpreter': sys.executable,
                 'numa_report_become': False},
        'hosts': hosts}}
    (tmp_path / 'inventory.json').write_text(json.dumps(inventory))
    command = ['ansible-playbook', '-i', str(tmp_path / 'inventory.json'), 'numaops.colocation.numa_report',
               '-e', 'numa_report_dir=%s' % (tmp_path / 'out')] + list(extra)
    proc = subprocess.run(command, cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600,
                          env=dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections_path(), ANSIBLE_NOCOLOR='1'),
                          check=False)
    return proc.returncode, proc.stdout.decode()


def test_missing_textfile_dir_fails_before_anything_is_written(tmp_path):
    good = tmp_path / 'textfile'
    good.mkdir()
    rc, out = run_report(tmp_path, {
        'xeon-1': {'numa_report_root': tree('xeon8358-2s'), 'numa_report_textfile_dir': str(good)},
        'tx2-1': {'numa_report_root': tree('thunderx2-2s'), 'numa_report_textfile_dir': str(tmp_path / 'nope')},
    })
    assert rc != 0, out
    assert ('tx2-1: numa_report_textfile_dir=%s does not exist on the node (it must be node_exporter\'s '
            '--collector.textfile.directory)' % (tmp_path / 'nope')) in out
    assert 'Nothing was written.' in out
    assert not (tmp_path / 'out').exists()            # no report blanking the node's drawing
    assert os.listdir(str(good)) == []                 # and no textfile on the other node either
    assert not (tmp_path / 'nope').exists()


def test_unreachable_host_is_named_as_not_read(tmp_path):
    rc, out = run_report(tmp_path, {
        'xeon-1': {'numa_report_root': tree('xeon8358-2s')},
        # nothing listens on port 1 of the loopback: ssh cannot connect, the host is unreachable
        'gone-1': {'ansible_connection': 'ssh', 'ansible_host': '127.0.0.1', 'ansible_port': 1,
                   'ansible_ssh_common_args': '-o ConnectTimeout=5 -o BatchMode=yes'},
    })
    assert 'unreachable=1' in out, out
    assert 'Not read: none.' not in out
    assert 'Not read: gone-1 (no numa_facts result (the host failed or was unreachable)).' in out
    data = json.loads((tmp_path / 'out' / 'numa-report.json').read_text())
    assert [row['name'] for row in data['nodes'] if row['error']] == ['gone-1']
