# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""STAND-IN for a cgroup v2 mount with a kubelet-created kubepods tree (test double, not the kernel).

This machine's own cgroups are a v1/v2 hybrid with the memory controller on v1, so there is no real cgroup
v2 memory controller to test against here (the VM test runs the module on a real one). This stand-in is a
plain directory tree that reproduces what the module sees of the kernel's cgroupfs:

* ``cgroup.controllers`` in every cgroup, ``cgroup.subtree_control`` listing what children get;
* ``memory.high``, ``memory.low``, ``memory.min`` (and ``memory.max``, ``memory.current``) exist only
  in non-root cgroups whose parent enables the memory controller, with the kernel's initial values
  (``max``, ``0``, ``0``); the root cgroup has none of them, as on a real kernel;
* a file that does not exist cannot be written: the module opens files with ``O_WRONLY|O_TRUNC`` and no
  ``O_CREAT``, which fails with ENOENT here exactly like on cgroupfs; :meth:`CgroupV2StandIn.files`
  snapshots the tree so tests assert that a run created nothing;
* page rounding: the kernel stores memory values in whole pages, rounding down. A plain file cannot
  round on write, so the stand-in does it in two honest places: :meth:`write` (the test writing a value
  "through the kernel", e.g. as another agent would) stores the rounded value, and :meth:`settle`
  applies the kernel's rounding to everything written since (it returns the files it had to change;
  tests assert that it has nothing to change after the module ran, i.e. the module wrote only values the
  kernel keeps as they are);
* a cgroup that vanishes (:meth:`remove`) takes its files with it, so a later write fails with ENOENT.

Not reproduced: EBUSY/EINVAL for malformed values, the effective-protection arithmetic, processes.

Usable as a library (tests) and as a command (molecule, integration targets)::

    python cgroup2.py build --root DIR --pods pods.json [--driver systemd|cgroupfs] [--hybrid]
    python cgroup2.py settle --root DIR        # prints JSON list of files it had to round
    python cgroup2.py files --root DIR         # prints JSON list of all files (to compare before/after)
    python cgroup2.py write --root DIR --cgroup REL --file memory.high --value 123456789
                                               # another writer "through the kernel" (stores whole pages)
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import argparse
import json
import os
import shutil
import sys

MEMORY_FILES = {'memory.high': 'max', 'memory.low': '0', 'memory.min': '0', 'memory.max': 'max',
                'memory.current': '0'}
ROUNDED = ('memory.high', 'memory.low', 'memory.min', 'memory.max')
ROOT_CONTROLLERS = 'cpuset cpu io memory hugetlb pids rdma misc'
LONG_MAX = 2 ** 63 - 1


class CgroupV2StandIn:
    """A directory tree that behaves, for file reads and writes, like a cgroup v2 mount."""

    def __init__(self, root, page_size=4096, controllers=ROOT_CONTROLLERS, subtree='cpuset cpu io memory pids'):
        self.root = root
        self.page_size = page_size
        os.makedirs(root, exist_ok=True)
        self._put('', 'cgroup.controllers', controllers)
        self._put('', 'cgroup.subtree_control', subtree)
        self._put('', 'cgroup.procs', '1')

    # -- raw helpers (the "kernel" side)
    def _path(self, rel, name=None):
        path = os.path.join(self.root, rel) if rel else self.root
        return os.path.join(path, name) if name else path

    def _put(self, rel, name, text):
        with open(self._path(rel, name), 'w') as handle:
            handle.write(text + '\n' if text else '')

    def _get(self, rel, name):
        with open(self._path(rel, name)) as handle:
            return handle.read().strip()

    def mkdir(self, rel, subtree_control=''):
        """Create a cgroup like the kernel does on mkdir: interface files depend on the parent."""
        parent = os.path.dirname(rel)
        os.makedirs(self._path(rel), exist_ok=True)
        enabled = self._get(parent, 'cgroup.subtree_control').split()
        self._put(rel, 'cgroup.controllers', ' '.join(enabled))
        self._put(rel, 'cgroup.subtree_control', subtree_control)
        self._put(rel, 'cgroup.procs', '')
        if 'memory' in enabled:
            for name, value in MEMORY_FILES.items():
                self._put(rel, name, value)
        return self._path(rel)

    def enable(self, rel, controllers):
        """Write ``+memory`` etc. into cgroup.subtree_control (affects children created afterwards)."""
        self._put(rel, 'cgroup.subtree_control', controllers)

    def remove(self, rel):
        """The cgroup vanishes (pod or container ended)."""
        shutil.rmtree(self._path(rel))

    # -- values
    def kernel_value(self, text):
        text = text.strip()
        if text == 'max':
            return 'max'
        pages = int(text) // self.page_size
        if pages >= LONG_MAX // self.page_size:
            return 'max'
        return str(pages * self.page_size)

    def write(self, rel, name, value):
        """Write through the "kernel": fails like cgroupfs for a missing file, stores whole pages."""
        path = self._path(rel, name)
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC)  # no O_CREAT: ENOENT for a missing file
        try:
            os.write(fd, self.kernel_value(str(value)).encode() + b'\n')
        finally:
            os.close(fd)

    def read(self, rel, name):
        return self._get(rel, name)

    def settle(self):
        """Apply the kernel's page rounding to every memory value; return the files that had to change."""
        changed = []
        for dirpath, _dirs, names in os.walk(self.root):
            for name in names:
                if name not in ROUNDED:
                    continue
                path = os.path.join(dirpath, name)
                with open(path) as handle:
                    raw = handle.read()
                stored = self.kernel_value(raw)
                if raw.strip() != stored:
                    changed.append(os.path.relpath(path, self.root))
                if raw != stored + '\n':
                    with open(path, 'w') as handle:
                        handle.write(stored + '\n')
        return sorted(changed)

    def files(self):
        """Every file in the tree (relative paths) - to prove a run created or removed nothing."""
        found = []
        for dirpath, _dirs, names in os.walk(self.root):
            for name in names:
                found.append(os.path.relpath(os.path.join(dirpath, name), self.root))
        return sorted(found)


# ---------------------------------------------------------------- kubepods tree
def _escape(component):
    return component.replace('-', '_')


def _slices(components):
    return '/'.join('-'.join(_escape(c) for c in components[:i]) + '.slice' for i in range(1, len(components) + 1))


def kubepods_dirs(driver, qos_class=None, uid=None):
    components = ['kubepods']
    if qos_class in ('Burstable', 'BestEffort'):
        components.append(qos_class.lower())
    if uid:
        components.append('pod' + uid)
    return _slices(components) if driver == 'systemd' else '/'.join(components)


def container_dir(driver, container_id):
    scheme, _sep, cid = container_id.partition('://')
    runtime = {'containerd': 'cri-containerd', 'cri-o': 'crio', 'docker': 'docker'}[scheme]
    if driver == 'systemd':
        return '%s-%s.scope' % (runtime, cid)
    return ('crio-' + cid) if scheme == 'cri-o' else cid


def build_node(standin, pods, driver='systemd', sandbox=True, pod_memory=True):
    """Create the kubepods tree a kubelet would create for ``pods`` (running containers only).

    ``sandbox`` adds a pause-container scope to every pod (it has memory files like any child);
    ``pod_memory=False`` leaves the memory controller off in the pods' subtree_control, so containers
    have no memory.* files (a kernel refuses writes to them: the module must skip them).
    """
    sub = 'cpu memory pids'
    standin.mkdir(kubepods_dirs(driver), sub)
    for qos in ('Burstable', 'BestEffort'):
        standin.mkdir(kubepods_dirs(driver, qos), sub)
    for pod in pods:
        meta = pod['metadata']
        uid = (meta.get('annotations') or {}).get('kubernetes.io/config.mirror') or meta['uid']
        rel = kubepods_dirs(driver, pod['status']['qosClass'], uid)
        if (pod['status'].get('phase') or 'Running') in ('Succeeded', 'Failed'):
            continue
        standin.mkdir(rel, sub if pod_memory else 'cpu pids')
        if sandbox:
            standin.mkdir(rel + '/' + container_dir(driver, 'containerd://' + 'f' * 56 + meta['uid'].replace('-', '')[:8]))
        for status in pod['status'].get('containerStatuses') or []:
            if 'running' in (status.get('state') or {}) and status.get('containerID'):
                standin.mkdir(rel + '/' + container_dir(driver, status['containerID']))
    return standin


def hybrid_tree(root):
    """A cgroup v1/v2 hybrid mount like this build host's: memory on v1, an empty unified hierarchy."""
    os.makedirs(os.path.join(root, 'unified'), exist_ok=True)
    os.makedirs(os.path.join(root, 'memory', 'kubepods.slice'), exist_ok=True)
    for name in ('cgroup.controllers', 'cgroup.subtree_control'):
        with open(os.path.join(root, 'unified', name), 'w') as handle:
            handle.write('\n')
    with open(os.path.join(root, 'memory', 'memory.limit_in_bytes'), 'w') as handle:
        handle.write('9223372036854771712\n')


def main(argv=None):
    parser = argparse.ArgumentParser(description='cgroup v2 stand-in tree (test double)')
    parser.add_argument('action', choices=['build', 'settle', 'files', 'hybrid', 'write'])
    parser.add_argument('--root', required=True)
    parser.add_argument('--pods', help='JSON file: list of pods or a PodList')
    parser.add_argument('--driver', default='systemd', choices=['systemd', 'cgroupfs'])
    parser.add_argument('--page-size', type=int, default=4096)
    parser.add_argument('--cgroup', help='write: cgroup path relative to --root')
    parser.add_argument('--file', help='write: interface file, e.g. memory.high')
    parser.add_argument('--value', help='write: value')
    args = parser.parse_args(argv)
    if args.action == 'hybrid':
        hybrid_tree(args.root)
        return 0
    if args.action == 'build':
        with open(args.pods) as handle:
            data = json.load(handle)
        pods = data['items'] if isinstance(data, dict) else data
        build_node(CgroupV2StandIn(args.root, args.page_size), pods, args.driver)
        return 0
    standin = CgroupV2StandIn.__new__(CgroupV2StandIn)
    standin.root, standin.page_size = args.root, args.page_size
    if args.action == 'write':
        standin.write(args.cgroup, args.file, args.value)
        return 0
    print(json.dumps(standin.settle() if args.action == 'settle' else standin.files()))
    return 0


if __name__ == '__main__':
    sys.exit(main())
