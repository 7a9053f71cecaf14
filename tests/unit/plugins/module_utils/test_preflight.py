# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import annotations

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import preflight

UNIT_DIRS = ['/r/etc/systemd/system', '/r/usr/lib/systemd/system']


@pytest.mark.parametrize('text, ids', [
    ('0-3,8\n', [0, 1, 2, 3, 8]),
    ('0', [0]),
    ('', []),
    ('  \n', []),
    ('3,1-2', [1, 2, 3]),
    (None, None),
    ('0-', None),
    ('3-1', None),
    ('a', None),
    ('0,,1', None),
    ('0-1-2', None),
    (12, [12]),
])
def test_cpu_list(text, ids):
    assert preflight.cpu_list(text) == ids


@pytest.mark.parametrize('output, version', [
    ('containerd github.com/containerd/containerd v1.7.24 88bf19b2105c8b17560993bee28a01ddc2f97182\n', '1.7.24'),
    ('containerd containerd.io 2.1.4 75cb2b7193e4e490e9fbdc236c0e811ccaba3376', '2.1.4'),
    ('containerd github.com/containerd/containerd/v2 v2.0.0', '2.0.0'),
    ('containerd 1.6', '1.6'),
    ('', ''),
    (None, ''),
    ('containerd: not found', ''),
])
def test_containerd_version(output, version):
    assert preflight.containerd_version(output) == version


def test_os_release():
    text = 'NAME="openEuler"\nVERSION="22.03 (LTS-SP4)"\n# comment\nID=openEuler\nVERSION_ID=\'22.03\'\nbroken\n\n'
    assert preflight.os_release(text) == {'NAME': 'openEuler', 'VERSION': '22.03 (LTS-SP4)', 'ID': 'openEuler',
                                          'VERSION_ID': '22.03'}
    assert preflight.os_release(None) == {}


def test_unit_files_keeps_the_unit_and_conf_drop_ins_only():
    listing = {
        '/r/etc/systemd/system': ['kubelet.service', 'other.service', 'x.conf'],
        '/r/usr/lib/systemd/system/kubelet.service.d': ['10-kubeadm.conf', 'README', '20-x.conf.bak'],
        '/r/etc/systemd/system/kubelet.service.d': ['90-local.conf'],
    }
    assert preflight.unit_candidates(UNIT_DIRS, 'kubelet') == UNIT_DIRS + [d + '/kubelet.service.d' for d in UNIT_DIRS]
    assert preflight.unit_files(listing, UNIT_DIRS, 'kubelet') == [
        '/r/etc/systemd/system/kubelet.service',
        '/r/etc/systemd/system/kubelet.service.d/90-local.conf',
        '/r/usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf',
    ]
    with_suffix = preflight.unit_files(listing, UNIT_DIRS, 'kubelet.service')
    assert with_suffix == preflight.unit_files(listing, UNIT_DIRS, 'kubelet')


def test_choose_kubelet_config_given_wins():
    chosen = preflight.choose_kubelet_config('/x/config.yaml', {}, {}, UNIT_DIRS, 'kubelet', '/r', ['/r/c.yaml'])
    assert chosen == {'path': '/x/config.yaml', 'source': 'node_prep_kubelet_config_path', 'unit': None,
                      'drop_ins': [], 'config_dir': ''}


def test_choose_kubelet_config_finds_the_drop_in_directory_of_the_unit():
    units = {'/r/usr/lib/systemd/system/kubelet.service': (
        '[Service]\nExecStart=/usr/bin/kubelet --config=/var/lib/kubelet/config.yaml '
        '--config-dir=/etc/kubernetes/kubelet.conf.d\n')}
    chosen = preflight.choose_kubelet_config('', units, {}, UNIT_DIRS, 'kubelet', '/r', [])
    assert chosen['path'] == '/r/var/lib/kubelet/config.yaml'
    assert chosen['config_dir'] == '/r/etc/kubernetes/kubelet.conf.d'
    units = {'/r/usr/lib/systemd/system/kubelet.service': '[Service]\nExecStart=/usr/bin/kubelet\n'}
    assert preflight.choose_kubelet_config('', units, {}, UNIT_DIRS, 'kubelet', '/r', ['/r/c.yaml'])['config_dir'] == ''
    # written under the root already (kubelet_config's enable_config_dir in a sandbox tree): taken as it is
    units = {'/r/usr/lib/systemd/system/kubelet.service': '[Service]\nExecStart=/usr/bin/kubelet --config-dir=/r/d\n'}
    assert preflight.choose_kubelet_config('', units, {}, UNIT_DIRS, 'kubelet', '/r', ['/r/c.yaml'])['config_dir'] == '/r/d'


def test_choose_kubelet_config_from_the_effective_exec_start_with_the_environment_file():
    units = {
        '/r/usr/lib/systemd/system/kubelet.service': '[Service]\nExecStart=/usr/bin/kubelet\n',
        '/r/usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf': (
            '[Service]\nEnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env\n'
            'ExecStart=\nExecStart=/usr/bin/kubelet $KUBELET_KUBEADM_ARGS\n'),
    }
    env = {'/r/var/lib/kubelet/kubeadm-flags.env': 'KUBELET_KUBEADM_ARGS="--config=/etc/kubelet/custom.yaml"\n'}
    chosen = preflight.choose_kubelet_config('', units, env, UNIT_DIRS, 'kubelet', '/r', ['/r/var/lib/kubelet/config.yaml'])
    assert chosen['path'] == '/r/etc/kubelet/custom.yaml'
    assert chosen['source'] == ('the effective ExecStart of /r/usr/lib/systemd/system/kubelet.service, '
                                '/r/usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf (--config)')


def test_choose_kubelet_config_falls_back_to_the_default_locations_then_nowhere():
    units = {'/r/usr/lib/systemd/system/kubelet.service': '[Service]\nExecStart=/usr/bin/kubelet\n'}
    chosen = preflight.choose_kubelet_config('', units, {}, UNIT_DIRS, 'kubelet', '/r', ['/r/etc/kubernetes/k.yaml'])
    assert chosen['path'] == '/r/etc/kubernetes/k.yaml'
    assert chosen['source'] == 'the kubeadm/kubespray default location'
    assert preflight.choose_kubelet_config('', {}, {}, UNIT_DIRS, 'kubelet', '', [])['source'] == 'nowhere'


def test_a_config_flag_with_an_unexpanded_variable_is_not_used():
    units = {'/r/etc/systemd/system/kubelet.service': '[Service]\nExecStart=/usr/bin/kubelet --config=${NOPE}x\n'}
    chosen = preflight.choose_kubelet_config('', units, {}, UNIT_DIRS, 'kubelet', '/r', [])
    assert chosen['path'] == '' or '$' not in chosen['path']


def test_cgroup_controllers():
    assert preflight.cgroup_controllers('cpuset cpu io memory pids\n') == ['cpuset', 'cpu', 'io', 'memory', 'pids']
    assert preflight.cgroup_controllers('') == []
    assert preflight.cgroup_controllers(None) is None
