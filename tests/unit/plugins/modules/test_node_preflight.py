# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_preflight on a copy of the sandbox node tree (examples/sandbox/tree) and on broken variants of it."""
from __future__ import annotations

import os
import shutil

import pytest

from ansible_collections.numaops.colocation.plugins.modules import node_preflight
from ansible_collections.numaops.colocation.tests.unit.plugins.modules.module_runner import run_module

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))


@pytest.fixture(name='tree')
def tree_fixture(tmp_path):
    tree = tmp_path / 'tree'
    shutil.copytree(os.path.join(ROOT, 'examples', 'sandbox', 'tree'), str(tree), symlinks=True)
    return tree


def _args(tree, **extra):
    root = str(tree)
    args = dict(
        root=root,
        cgroup_root=root + '/sys/fs/cgroup',
        proc_cmdline_path=root + '/proc/cmdline',
        kubelet_unit_dirs=[root + '/etc/systemd/system', root + '/usr/lib/systemd/system'],
        kubelet_env_files=[root + '/var/lib/kubelet/kubeadm-flags.env', root + '/etc/default/kubelet'],
        kubelet_config_candidates=[root + '/var/lib/kubelet/config.yaml'],
        sysfs_cpu_dir=root + '/sys/devices/system/cpu',
        sysfs_node_dir=root + '/sys/devices/system/node',
        proc_meminfo_path=root + '/proc/meminfo',
    )
    args.update(extra)
    return args


def test_reads_the_sandbox_node(tree, capsys):
    res = run_module(node_preflight, capsys, **_args(tree))
    assert res['changed'] is False and not res.get('failed')
    assert 'memory' in res['cgroup']['controllers'] and res['cgroup']['error'] == ''
    assert res['cmdline']['text'] == (tree / 'proc' / 'cmdline').read_text()
    kubelet = res['kubelet']
    assert kubelet['config_path'] == str(tree / 'var' / 'lib' / 'kubelet' / 'config.yaml') and kubelet['exists']
    assert kubelet['source'].startswith('the effective ExecStart of ') and kubelet['source'].endswith('(--config)')
    assert str(tree / 'usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf') in kubelet['read']
    assert res['online_cpus']['ids'] == list(range(16)) or res['online_cpus']['ids']
    assert res['online_cpus']['text'] == (tree / 'sys/devices/system/cpu/online').read_text()
    assert res['online_numa_nodes']['ids'] == [0, 1]
    assert res['containerd'] == {'binary': None, 'version': '', 'output': '', 'error': 'not run'}
    assert res['os']['machine'] and res['os']['nodename']
    # the sandbox has no proc/meminfo: missing is a value, not a failure
    assert res['meminfo']['text'] is None and 'No such file' in res['meminfo']['error']


def test_check_mode_reads_the_same(tree, capsys):
    assert run_module(node_preflight, capsys, check_mode=True, **_args(tree)) == \
        run_module(node_preflight, capsys, **_args(tree))


def test_given_config_path_reads_no_unit(tree, capsys):
    res = run_module(node_preflight, capsys, **_args(tree, kubelet_config_path=str(tree / 'nope.yaml')))
    assert res['kubelet']['config_path'] == str(tree / 'nope.yaml') and res['kubelet']['exists'] is False
    assert res['kubelet']['source'] == 'node_prep_kubelet_config_path' and res['kubelet']['read'] == []


def test_no_cgroup_v2_and_unreadable_lists_are_values(tree, capsys):
    os.unlink(str(tree / 'sys/fs/cgroup/cgroup.controllers'))
    (tree / 'sys/devices/system/cpu/online').write_text('0-x\n')
    res = run_module(node_preflight, capsys, **_args(tree))
    assert res['cgroup']['controllers'] is None and 'cgroup.controllers' in res['cgroup']['error']
    assert res['online_cpus']['ids'] is None and res['online_cpus']['text'] == '0-x\n'


def test_without_units_the_default_location_is_used_and_without_it_nothing(tree, capsys):
    shutil.rmtree(str(tree / 'usr'))
    res = run_module(node_preflight, capsys, **_args(tree))
    assert res['kubelet']['source'] == 'the kubeadm/kubespray default location' and res['kubelet']['exists']
    os.unlink(str(tree / 'var/lib/kubelet/config.yaml'))
    res = run_module(node_preflight, capsys, **_args(tree))
    assert res['kubelet']['config_path'] == '' and res['kubelet']['source'] == 'nowhere'
    assert res['kubelet']['exists'] is False


def test_an_unreadable_unit_file_fails_naming_it(tree, capsys):
    dropin = tree / 'usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf'
    os.unlink(str(dropin))
    os.mkdir(str(dropin))  # a directory where the drop-in should be: cannot be read
    res = run_module(node_preflight, capsys, **_args(tree))
    assert res['failed'] and str(dropin) in res['msg'] and 'node_prep_kubelet_config_path' in res['msg']


def test_containerd_version_and_a_missing_binary(tree, capsys):
    fake = tree / 'containerd'
    fake.write_text('#!/bin/sh\necho "containerd github.com/containerd/containerd v1.7.24 88bf19b"\n')
    os.chmod(str(fake), 0o755)
    res = run_module(node_preflight, capsys, **_args(tree, containerd_binary=str(fake)))
    assert res['containerd']['version'] == '1.7.24' and res['containerd']['error'] == ''
    res = run_module(node_preflight, capsys, **_args(tree, containerd_binary=str(tree / 'missing')))
    assert res['containerd']['version'] == '' and res['containerd']['error']
    assert not res.get('failed')


def test_output_directories_are_checked_before_anything_is_written(tree, capsys):
    (tree / 'textfile').mkdir()
    (tree / 'a-file').write_text('x')
    res = run_module(node_preflight, capsys, **_args(tree, output_dirs={
        'good': str(tree / 'textfile'), 'missing': str(tree / 'nope'), 'file': str(tree / 'a-file')}))
    assert res['output_dirs'] == {
        'good': {'path': str(tree / 'textfile'), 'error': ''},
        'missing': {'path': str(tree / 'nope'), 'error': '%s: no such directory' % (tree / 'nope')},
        'file': {'path': str(tree / 'a-file'), 'error': '%s: not a directory' % (tree / 'a-file')}}
    assert run_module(node_preflight, capsys, **_args(tree))['output_dirs'] == {}


@pytest.mark.parametrize('content, expected', [
    (b'[Service]\n# caf\xe9\nEnvironment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"\n',
     'line 2, column 6: byte 0xe9 is not UTF-8'),
    (b'#' * (1024 * 1024 + 1), 'above the limit of 1 MiB'),
])
def test_an_undecodable_or_oversize_unit_file_fails_naming_it(tree, capsys, content, expected):
    dropin = tree / 'usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf'
    dropin.write_bytes(content)
    res = run_module(node_preflight, capsys, **_args(tree))
    assert res['failed'] and str(dropin) in res['msg'] and expected in res['msg']


def test_probes_the_files_koordlet_checks(tree, capsys):
    cg = tree / 'sys/fs/cgroup/kubepods.slice/kubepods-besteffort.slice'
    cg.mkdir(parents=True)
    (cg / 'cpu.idle').write_text('1\n')
    (tree / 'sys/fs/cgroup/kubepods.slice/memory.wmark_ratio').write_text('0\n')
    socket_dir = tree / 'var/run/nri'
    socket_dir.mkdir(parents=True)
    (socket_dir / 'nri.sock').mkdir()   # not a regular file: exists, no text
    paths = [str(cg / 'cpu.idle'), str(tree / 'sys/fs/cgroup/kubepods.slice/cpu.idle'), str(socket_dir / 'nri.sock'),
             str(tree / 'sys/fs/cgroup') + '/*/memory.wmark_ratio', str(tree / 'sys/fs/cgroup') + '/*/nothing']
    res = run_module(node_preflight, capsys, **_args(tree, probe_files=paths, probe_core_sched=True))
    assert res['probes'] == {paths[0]: {'exists': True, 'text': '1\n'}, paths[1]: {'exists': False, 'text': None},
                             paths[2]: {'exists': True, 'text': None}, paths[3]: {'exists': True, 'text': None},
                             paths[4]: {'exists': False, 'text': None}}
    # the kernel's answer, whatever this machine's kernel is: a boolean and, when refused, why
    probe = res['core_sched_probe']
    assert probe['supported'] in (True, False) and (probe['supported'] or probe['error'])
    assert res['os']['kernel'] == os.uname()[2]
    assert 'core_sched_probe' not in run_module(node_preflight, capsys, **_args(tree))
