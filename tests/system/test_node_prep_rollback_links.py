# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""node_prep's rollback through links, end to end with ansible-playbook on a sandbox node: the kubelet
configuration, containerd's config.toml and /etc/default/grub are each reached through a symbolic link (relative,
absolute, into another directory), containerd's restart fails after the three were written, and the rollback puts
back every file and every link exactly: the links stay links to the same targets, the targets hold their old
bytes and modes."""
from __future__ import annotations

import os

from ansible_collections.numaops.colocation.tests.system import test_node_prep_fleet as fleet

top = fleet.top_fixture  # noqa: F811  (the same fixture)
GRUB_CFG = "menuentry 'Debian GNU/Linux' {\n\tlinux\t/boot/vmlinuz-6.1.0-28-amd64 root=/dev/vda ro quiet\n}\n"


def _state(tree):
    """{relative path: ('link', target) | ('file', mode, bytes)} of the tree (backups and the lock left out)."""
    state = {}
    for dirpath, dirs, names in os.walk(str(tree)):
        for name in names + [d for d in dirs if os.path.islink(os.path.join(dirpath, d))]:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, str(tree))
            if rel.startswith(os.path.join('var', 'backups')) or rel.startswith(os.path.join('var', 'lib', 'numaops')):
                continue
            if os.path.islink(path):
                state[rel] = ('link', os.readlink(path))
            else:
                with open(path, 'rb') as handle:
                    state[rel] = ('file', os.stat(path).st_mode & 0o7777, handle.read())
    return state


def _link(tree, rel, target_rel, absolute=False):
    path, target = tree / rel, tree / target_rel
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(str(path), str(target))
    os.chmod(str(target), 0o640)
    os.symlink(str(target) if absolute else os.path.relpath(str(target), str(path.parent)), str(path))


def test_a_failed_restart_puts_back_every_file_and_link_reached_through_a_link(top):
    tree = fleet._sandbox(top, 'links')
    _link(tree, 'var/lib/kubelet/config.yaml', 'var/lib/kubelet/real/config.yaml')
    _link(tree, 'etc/containerd/config.toml', 'opt/containerd/config.toml', absolute=True)
    _link(tree, 'etc/default/grub', 'usr/share/grub/default/grub')
    (tree / 'boot' / 'grub').mkdir(parents=True)
    (tree / 'boot' / 'grub' / 'grub.cfg').write_text(GRUB_CFG)
    before = _state(tree)
    host_vars = {fleet.NODE: {
        'node_prep_manage_services': True,
        'node_prep_kubelet_stop_command': ['true'], 'node_prep_kubelet_start_command': ['true'],
        # containerd never answers on a sandbox node: one second of waiting for it (after the failed restart and
        # after the rollback's) proves as much as the default
        'node_prep_containerd_restart_command': ['false'], 'node_prep_containerd_health_timeout': 1,
        'node_prep_kubelet_healthz_url': 'http://127.0.0.1:1/healthz', 'node_prep_kubelet_health_timeout': 1,
        'node_prep_health_poll_interval': 1,
        'node_prep_kernel_args': ['nosmt'], 'node_prep_kernel_backend': 'grubcfg',
        'node_prep_grub_cfg_paths': [str(tree / 'boot' / 'grub' / 'grub.cfg')]}}
    rc, out = fleet._playbook(fleet._inventory(top, [tree], host_vars), 'node_prep.yml', report_dir=str(top / 'r'))
    assert rc != 0, out[-3000:]
    assert 'node_prep FAILED on %s' % fleet.NODE in out, out[-4000:]
    # the three files were written before the restart failed
    assert 'boot configuration changed (nosmt)' in out, out[-4000:]
    after = _state(tree)
    changed = sorted(rel for rel in set(before) | set(after) if before.get(rel) != after.get(rel))
    assert changed == [], changed
    assert os.path.islink(str(tree / 'etc' / 'containerd' / 'config.toml'))
