# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import pytest

from ansible_collections.numaops.colocation.plugins.module_utils import cgroup as cg

UID = '0b6a3c1e-4f7d-4a8e-9c1b-2d3e4f5a6b7c'
UID_ = '0b6a3c1e_4f7d_4a8e_9c1b_2d3e4f5a6b7c'
CID = 'a' * 60 + '0123'
HASH = '6d1f8a2f3e4b5c6d7e8f90a1b2c3d4e5'

# (driver, qos, runtime scheme, expected container path)
PATH_CASES = []
_SYSTEMD_POD = {
    'Guaranteed': 'kubepods.slice/kubepods-pod%s.slice' % UID_,
    'Burstable': 'kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice' % UID_,
    'BestEffort': 'kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod%s.slice' % UID_,
}
_CGROUPFS_POD = {
    'Guaranteed': 'kubepods/pod%s' % UID,
    'Burstable': 'kubepods/burstable/pod%s' % UID,
    'BestEffort': 'kubepods/besteffort/pod%s' % UID,
}
_SYSTEMD_SCOPE = {'containerd': 'cri-containerd-%s.scope', 'cri-o': 'crio-%s.scope', 'docker': 'docker-%s.scope'}
_CGROUPFS_DIR = {'containerd': '%s', 'cri-o': 'crio-%s', 'docker': '%s'}
for _qos in ('Guaranteed', 'Burstable', 'BestEffort'):
    for _rt in ('containerd', 'cri-o', 'docker'):
        PATH_CASES.append(('systemd', _qos, _rt, _SYSTEMD_POD[_qos] + '/' + _SYSTEMD_SCOPE[_rt] % CID))
        PATH_CASES.append(('cgroupfs', _qos, _rt, _CGROUPFS_POD[_qos] + '/' + _CGROUPFS_DIR[_rt] % CID))


@pytest.mark.parametrize('driver,qos,runtime,expected', PATH_CASES,
                         ids=['%s-%s-%s' % c[:3] for c in PATH_CASES])
def test_container_paths_every_driver_qos_runtime(driver, qos, runtime, expected):
    assert cg.container_path(driver, qos, UID, '%s://%s' % (runtime, CID)) == expected
    assert cg.pod_path(driver, qos, UID) == expected.rsplit('/', 1)[0]


@pytest.mark.parametrize('driver,qos,root,expected', [
    ('systemd', 'Guaranteed', '', 'kubepods.slice'),
    ('systemd', 'Burstable', '', 'kubepods.slice/kubepods-burstable.slice'),
    ('systemd', 'BestEffort', '/', 'kubepods.slice/kubepods-besteffort.slice'),
    ('cgroupfs', 'Guaranteed', '', 'kubepods'),
    ('cgroupfs', 'Burstable', '', 'kubepods/burstable'),
    ('cgroupfs', 'BestEffort', '/', 'kubepods/besteffort'),
    ('cgroupfs', 'Burstable', '/kubelet', 'kubelet/kubepods/burstable'),
    ('cgroupfs', 'Burstable', '/a/b/', 'a/b/kubepods/burstable'),
    ('systemd', 'Burstable', '/kubelet', 'kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-burstable.slice'),
    ('systemd', 'Guaranteed', 'my-root', 'my_root.slice/my_root-kubepods.slice'),
])
def test_qos_paths_with_kubelet_root(driver, qos, root, expected):
    assert cg.qos_path(driver, qos, root) == expected


def test_pod_path_with_kubelet_root():
    assert cg.pod_path('systemd', 'Burstable', UID, '/kubelet') == (
        'kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-burstable.slice/'
        'kubelet-kubepods-burstable-pod%s.slice' % UID_)
    assert cg.pod_path('cgroupfs', 'Guaranteed', UID, '/kubelet') == 'kubelet/kubepods/pod%s' % UID


@pytest.mark.parametrize('uid', [UID, HASH, '00000000-0000-0000-0000-000000000000'])
def test_valid_pod_uids(uid):
    assert cg.validate_pod_uid(uid) == uid


@pytest.mark.parametrize('uid', [
    None, '', 'pod', UID.upper(), UID + '/..', '../' + UID, UID[:-1], UID + 'a', UID.replace('-', '_'),
    ' ' + UID, UID + '\n', '*', HASH + 'x', 12345,
    '0b6a3c1e-4f7d-4a8e-9c1b-2d3e4f5a6b7c/../../..',
])
def test_invalid_pod_uids(uid):
    with pytest.raises(cg.CgroupPathError, match='allowed'):
        cg.validate_pod_uid(uid)


@pytest.mark.parametrize('cid,expected', [
    ('containerd://' + CID, ('containerd', CID)),
    ('cri-o://' + CID, ('crio', CID)),
    ('docker://' + CID, ('docker', CID)),
])
def test_valid_container_ids(cid, expected):
    assert cg.parse_container_id(cid) == expected


@pytest.mark.parametrize('cid', [
    None, '', CID, 'containerd://', 'containerd://' + CID[:-1], 'containerd://' + CID + '0',
    'containerd://' + CID.upper(), 'rkt://' + CID, 'crio://' + CID, 'containerd:/' + CID,
    'containerd://../' + CID[3:], 'containerd://' + CID[:-2] + '/x', 'containerd://' + CID + '\n',
    'CONTAINERD://' + CID, 'containerd:// ' + CID[1:],
])
def test_invalid_container_ids(cid):
    with pytest.raises(cg.CgroupPathError, match='allowed'):
        cg.parse_container_id(cid)


def test_mirror_pod_uses_config_hash():
    pod = {'metadata': {'uid': UID, 'annotations': {'kubernetes.io/config.mirror': HASH}}}
    assert cg.pod_cgroup_uid(pod) == HASH
    assert cg.pod_cgroup_uid({'metadata': {'uid': UID}}) == UID
    with pytest.raises(cg.CgroupPathError):
        cg.pod_cgroup_uid({'metadata': {'uid': UID, 'annotations': {'kubernetes.io/config.mirror': '../x'}}})


@pytest.mark.parametrize('root', ['/../etc', '/a/../b', '/a b', '/./x', '/x;rm', '/.hidden'])
def test_invalid_kubelet_root(root):
    with pytest.raises(cg.CgroupPathError, match='kubelet_cgroup_root'):
        cg.root_components(root)


def test_invalid_driver_and_qos():
    with pytest.raises(cg.CgroupPathError, match='systemd, cgroupfs'):
        cg.kubepods_path('runc')
    with pytest.raises(cg.CgroupPathError, match='Guaranteed, Burstable, BestEffort'):
        cg.pod_path('systemd', 'Besteffort', UID)
    with pytest.raises(cg.CgroupPathError):
        cg.container_dir_name('systemd', 'rkt', CID)


@pytest.mark.parametrize('rel', ['kubepods.slice', 'kubepods.slice/x', 'kubepods.slice/a/b/c'])
def test_join_under_accepts_kubepods_tree(rel):
    assert cg.join_under('/sys/fs/cgroup', rel) == '/sys/fs/cgroup/' + rel


@pytest.mark.parametrize('rel', ['', 'system.slice', 'kubepods.slice/../system.slice', 'kubepods.slice2',
                                 '/etc', 'kubepods.slice/../../etc', 'kubepods'])
def test_join_under_refuses_outside(rel):
    with pytest.raises(cg.CgroupPathError, match='outside the kubepods cgroup'):
        cg.join_under('/sys/fs/cgroup', rel)


def test_join_under_cgroupfs_with_root():
    assert cg.join_under('/cg', 'kubelet/kubepods/pod1', '/kubelet', 'cgroupfs') == '/cg/kubelet/kubepods/pod1'
    with pytest.raises(cg.CgroupPathError):
        cg.join_under('/cg', 'kubepods/pod1', '/kubelet', 'cgroupfs')


@pytest.mark.parametrize('text,expected', [
    ('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\n', 'systemd'),
    ('cgroupDriver: "cgroupfs"  # set by kubeadm\n', 'cgroupfs'),
    ("cgroupDriver: 'systemd'\n", 'systemd'),
    ('kind: KubeletConfiguration\n', None),
    ('', None),
    (None, None),
    ('nested:\n  cgroupDriver: systemd\n', None),
    ('{"kind": "KubeletConfiguration", "cgroupDriver": "systemd"}', 'systemd'),
    ('{"kind": "KubeletConfiguration"}', None),
])
def test_driver_from_kubelet_config(text, expected):
    assert cg.driver_from_kubelet_config(text) == expected


def test_driver_from_kubelet_config_invalid_value():
    with pytest.raises(cg.CgroupPathError, match='allowed: systemd, cgroupfs'):
        cg.driver_from_kubelet_config('cgroupDriver: cgroupv2\n')


@pytest.mark.parametrize('present,root,expected', [
    ({'kubepods.slice'}, '', 'systemd'),
    ({'kubepods'}, '', 'cgroupfs'),
    ({'kubepods', 'kubepods.slice'}, '', None),
    (set(), '', None),
    ({'kubelet/kubepods'}, '/kubelet', 'cgroupfs'),
    ({'kubelet.slice/kubelet-kubepods.slice'}, '/kubelet', 'systemd'),
])
def test_driver_from_tree(present, root, expected):
    assert cg.driver_from_tree(lambda rel: rel in present, root) == expected


# ---------------------------------------------------------------- the Volcano agent's driver sources
# Volcano v1.14.1 / v1.15.0 pkg/agent/utils/cgroup/cgroup.go: GetCgroupDriver, parseKubeletConfig,
# parseCgroupDriverFromCmdline.
@pytest.mark.parametrize('text,expected', [
    ('KUBELET_KUBEADM_ARGS="--cgroup-driver=systemd --pod-infra-container-image=x"\n', 'systemd'),
    ('KUBELET_KUBEADM_ARGS="--pod-infra-container-image=x --cgroup-driver cgroupfs"\n', 'cgroupfs'),
    ("KUBELET_EXTRA_ARGS='--cgroup-driver=cgroupfs'\n", 'cgroupfs'),
    ('--cgroup-driver=cgroupfs --cgroup-driver=systemd', 'systemd'),   # the last flag wins (kubelet)
    ('# --cgroup-driver=cgroupfs\nKUBELET_KUBEADM_ARGS=""\n', None),
    ('KUBELET_KUBEADM_ARGS="--cgroup-drivers=x --my-cgroup-driver=cgroupfs"', None),
    ('', None),
])
def test_driver_from_flags(text, expected):
    assert cg.driver_from_flags(text) == expected


def test_driver_from_flags_refuses_other_values():
    with pytest.raises(cg.CgroupPathError, match='allowed: systemd, cgroupfs'):
        cg.driver_from_flags('KUBELET_KUBEADM_ARGS="--cgroup-driver=cgroup"')


def test_driver_from_file_setting_then_flag():
    assert cg.driver_from_file('kind: KubeletConfiguration\ncgroupDriver: systemd\n') == 'systemd'
    assert cg.driver_from_file('KUBELET_KUBEADM_ARGS="--cgroup-driver=cgroupfs"') == 'cgroupfs'
    assert cg.driver_from_file('apiVersion: v1\nkind: Config\n') is None   # /etc/kubernetes/kubelet.conf, a kubeconfig


def test_driver_from_cmdline():
    files = {'/etc/k/config.yaml': 'cgroupDriver: cgroupfs\n', '/etc/k/empty.yaml': 'kind: KubeletConfiguration\n'}
    read = files.get
    assert cg.driver_from_cmdline(['kubelet', '--cgroup-driver=systemd', '--config=/etc/k/config.yaml'], read) \
        == ('systemd', '--cgroup-driver')
    assert cg.driver_from_cmdline(['kubelet', '--cgroup-driver', 'cgroupfs'], read) == ('cgroupfs', '--cgroup-driver')
    assert cg.driver_from_cmdline(['kubelet', '--config', '/etc/k/config.yaml'], read) == ('cgroupfs', '/etc/k/config.yaml')
    assert cg.driver_from_cmdline(['kubelet', '--config=/etc/k/empty.yaml'], read) == (None, None)
    assert cg.driver_from_cmdline(['kubelet', '--config=/missing'], read) == (None, None)
    assert cg.driver_from_cmdline([], read) == (None, None)


def test_choose_driver_first_source_wins_and_reports_disagreement():
    # GetCgroupDriver: environment, then the files, then the process; the first answer is taken.
    assert cg.choose_driver([('env', None), ('config.yaml', 'systemd'), ('cmdline', 'systemd')]) \
        == ('systemd', 'config.yaml', [])
    assert cg.choose_driver([('env', 'cgroupfs'), ('config.yaml', 'systemd')]) \
        == ('cgroupfs', 'env', [('config.yaml', 'systemd')])
    assert cg.choose_driver([('env', None)]) == (None, None, [])
