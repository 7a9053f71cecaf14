# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where the kernel placed every container of the kubelet: its cgroup v2 ``cpuset.cpus.effective``,
``cpuset.mems.effective`` and ``memory.numa_stat``, under the kubepods cgroup of either cgroup driver.

* systemd: ``kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid, - as _>.slice/
  cri-containerd-<id>.scope`` (Guaranteed pods directly under ``kubepods.slice``; ``crio-<id>.scope``,
  ``docker-<id>.scope`` for the other runtimes);
* cgroupfs: ``kubepods/burstable/pod<uid>/<id>`` (``crio-<id>`` for CRI-O).

The paths of the kubepods and QoS cgroups are those of ``cgroup.py`` (one place for them). Every file is read
with a size limit (``nodefile.read_limited``; cgroup files report size 0, so the bytes read are counted too).
What cannot be read is listed with its path and why; nothing is filled in. Directory entries that are not a
pod or a container cgroup the kubelet and the runtimes make are left out; symbolic links are never followed.
Standard library only, Python 3.8+.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import os
import re
import stat

from ansible_collections.numaops.colocation.plugins.module_utils import cgroup as cg
from ansible_collections.numaops.colocation.plugins.module_utils import nodefile
from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import format_cpuset, parse_read_cpuset

# cpuset.cpus.effective of 8192 CPUs listed one by one is about 40 KiB; real ones are a few bytes
MAX_CPUSET_BYTES = 64 * 1024
# memory.numa_stat: about 20 lines with one N<node>=<bytes> field per NUMA node; a few KiB on real nodes
MAX_NUMA_STAT_BYTES = 1024 * 1024
# container cgroups read at most (a node runs at most a few hundred pods; kubelet maxPods defaults to 110)
MAX_CONTAINERS = 5000
# memory.numa_stat keys summed into kernel_bytes (memory the kernel uses on behalf of the container)
KERNEL_KEYS = ('kernel_stack', 'pagetables', 'sec_pagetables', 'slab_reclaimable', 'slab_unreclaimable')

_HEX64 = r'[0-9a-f]{64}'
_CONTAINER_DIRS = {
    'systemd': re.compile(r'^(?:(cri-containerd|crio|docker)-)(%s)\.scope$' % _HEX64),
    'cgroupfs': re.compile(r'^(crio-)?(%s)$' % _HEX64),
}
_POD_DIRS = {
    'systemd': re.compile(r'^(?:[A-Za-z0-9_.]+-)*pod([0-9a-f_]{32,36})\.slice$'),
    'cgroupfs': re.compile(r'^pod([0-9a-f-]{32,36})$'),
}
_NUMA_FIELD_RE = re.compile(r'^N([0-9]+)=([0-9]+)$')
_QOS_ORDER = ('Guaranteed', 'Burstable', 'BestEffort')


def parse_numa_stat(text):
    """cgroup v2 ``memory.numa_stat`` (``anon N0=4096 N1=0``, bytes) -> {key: {numa node: bytes}}.

    Raises ValueError naming the line and what it holds when a line is not ``<key> N<node>=<bytes> ...``."""
    stats = {}
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words:
            continue
        if not re.match(r'^[a-z_]+$', words[0]) or len(words) < 2:
            raise ValueError('line %d is not "<key> N<node>=<bytes> ...": %r' % (number, line[:80]))
        per_node = {}
        for word in words[1:]:
            match = _NUMA_FIELD_RE.match(word)
            if not match:
                raise ValueError('line %d (%s): %r is not N<node>=<bytes>' % (number, words[0], word[:40]))
            per_node[int(match.group(1))] = int(match.group(2))
        stats[words[0]] = per_node
    return stats


def numa_memory(stats):
    """{numa node: {'anon_bytes', 'file_bytes', 'kernel_bytes'}} from parse_numa_stat (a key the kernel does
    not have counts as 0 in kernel_bytes; anon and file are in every kernel with memory.numa_stat)."""
    nodes = set()
    for per_node in stats.values():
        nodes.update(per_node)
    out = {}
    for node in sorted(nodes):
        out[node] = {'anon_bytes': stats.get('anon', {}).get(node),
                     'file_bytes': stats.get('file', {}).get(node),
                     'kernel_bytes': sum(stats.get(key, {}).get(node, 0) for key in KERNEL_KEYS)}
    return out


def pod_uid_of_dir(driver, name):
    """The pod UID a pod cgroup directory is named after, or None when ``name`` is not one."""
    match = _POD_DIRS[driver].match(name)
    if not match:
        return None
    uid = match.group(1).replace('_', '-') if driver == 'systemd' else match.group(1)
    try:
        return cg.validate_pod_uid(uid)
    except cg.CgroupPathError:
        return None


def container_of_dir(driver, name):
    """(runtime or None, 64-hex container ID) of a container cgroup directory, or None when it is not one
    (crio-conmon-, anything else)."""
    match = _CONTAINER_DIRS[driver].match(name)
    if not match:
        return None
    prefix = (match.group(1) or '').rstrip('-')
    # a bare ID (cgroupfs driver) is containerd's or docker's: the name does not say which
    runtime = {'cri-containerd': 'containerd', 'crio': 'crio', 'docker': 'docker', '': None}[prefix]
    return runtime, match.group(2)


def container_index(pods):
    """{64-hex container ID: (pod UID, container name)} from the API pods' container statuses (init and
    ephemeral containers too). The UID is the one the pod's cgroup is named after: a mirror pod's is the static
    pod's (its kubernetes.io/config.mirror annotation), not its metadata.uid."""
    index = {}
    for pod in pods or []:
        status = (pod or {}).get('status') or {}
        uid = cg.named_uid(pod)
        for key in ('containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses'):
            for item in status.get(key) or []:
                cid = (item or {}).get('containerID') or ''
                try:
                    _runtime, hexid = cg.parse_container_id(cid)
                except cg.CgroupPathError:
                    continue
                index[hexid] = (uid, item.get('name'))
    return index


def _subdirs(path):
    """Names of the directories in ``path`` (symbolic links left out), or None when it cannot be listed."""
    try:
        entries = list(os.scandir(path))
    except OSError:
        return None
    return sorted(entry.name for entry in entries if entry.is_dir(follow_symlinks=False))


class _Reader:
    """Reads cgroup files below cgroup_dir; what cannot be read is noted under its node path cgroup_rel/rel."""

    def __init__(self, cgroup_dir, cgroup_rel, unknown):
        self.cgroup_dir = cgroup_dir
        self.cgroup_rel = cgroup_rel.strip('/')
        self.unknown = unknown
        self.missing = {}
        self.node_ids = None

    def note_missing(self, rel):
        self.missing.setdefault(rel.rsplit('/', 1)[-1], []).append(rel)

    def report_missing(self, top_rel):
        """One entry per file name missing in many container cgroups (an older kernel, a controller not enabled),
        not one per container."""
        for name, rels in sorted(self.missing.items()):
            if len(rels) == 1:
                self.note(rels[0], 'missing')
            else:
                self.note('%s/.../%s' % (top_rel, name), 'missing in %d container cgroups (the first: /%s/%s): the '
                          'kernel has no such file or its controller is not enabled there'
                          % (len(rels), self.cgroup_rel, rels[0]))

    def note(self, rel, reason):
        self.unknown.append({'path': '/%s/%s' % (self.cgroup_rel, rel.lstrip('/')), 'reason': reason})

    def text(self, rel, limit):
        path = os.path.join(self.cgroup_dir, rel)
        try:
            if not os.path.lexists(path):
                self.note_missing(rel)
                return None
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                self.note(rel, 'a symbolic link, not a cgroup file: not followed')
                return None
            # the kernel's cgroup files report size 0: the bytes read are counted as well below
            data = None if info.st_size > limit else nodefile.read_limited(path, limit, 'cgroup file')
        except (OSError, nodefile.NodeFileError) as err:
            self.note(rel, 'unreadable: %s' % err)
            return None
        if data is None and info.st_size <= limit:
            self.note_missing(rel)     # removed while it was read (the container ended)
            return None
        if data is None or len(data) > limit:
            self.note(rel, 'refused: more than %s (real ones are a few bytes to a few KiB)' % nodefile.human_size(limit))
            return None
        try:
            return nodefile.decode_text(path, data, 'cgroup file')
        except nodefile.NodeFileError as err:
            self.note(rel, 'refused: %s' % err)
            return None

    def cpus(self, rel):
        return parse_read_cpuset(self.text(rel, MAX_CPUSET_BYTES), lambda reason: self.note(rel, reason))


def _pod_dirs(reader, driver, kubelet_cgroup_root):
    """[(qos class, pod UID, relative pod directory)] under the kubepods cgroup."""
    found = []
    for qos in _QOS_ORDER:
        qos_rel = cg.qos_path(driver, qos, kubelet_cgroup_root)
        names = _subdirs(os.path.join(reader.cgroup_dir, qos_rel))
        if names is None:
            if qos != 'Guaranteed':
                reader.note(qos_rel, 'missing: no %s pods are read' % qos)
            continue
        for name in names:
            uid = pod_uid_of_dir(driver, name)
            if uid is not None:
                found.append((qos, uid, qos_rel + '/' + name))
    return found


def read_placement(cgroup_dir, cgroup_rel, driver, kubelet_cgroup_root, cpu_node, pods=None, unknown=None,
                   node_ids=None):
    """Every container cgroup under the kubepods cgroup of ``driver`` below ``cgroup_dir`` (the mounted cgroup v2
    hierarchy; ``cgroup_rel`` its path as reported, e.g. ``sys/fs/cgroup``).

    Returns {'driver', 'kubepods', 'pod_uids' (pods with a cgroup), 'containers': [...]} or None when the kubepods
    cgroup is not there (the reason is appended to ``unknown``). Each container: pod_uid, container (name from the
    pods' container statuses, else None), container_id, runtime, qos, cgroup (path), cpus, cpu_count, mems, and
    numa: one entry per NUMA node holding its CPUs or memory (numa_node, cpus, cpu_count, anon_bytes, file_bytes,
    kernel_bytes). With ``node_ids`` (the online NUMA nodes), memory.numa_stat naming another node is refused."""
    unknown = [] if unknown is None else unknown
    reader = _Reader(cgroup_dir, cgroup_rel, unknown)
    reader.node_ids = None if node_ids is None else set(node_ids)
    top_rel = cg.kubepods_path(driver, kubelet_cgroup_root)
    if _subdirs(os.path.join(cgroup_dir, top_rel)) is None:
        reader.note(top_rel, 'missing: no kubepods cgroup of the %s driver, so the placement of '
                    'containers is unknown (no kubelet, another cgroup driver or cgroupRoot)' % driver)
        return None
    names = container_index(pods)
    containers = []
    pod_uids = []
    for qos, uid, pod_rel in _pod_dirs(reader, driver, kubelet_cgroup_root):
        pod_uids.append(uid)
        for name in _subdirs(os.path.join(cgroup_dir, pod_rel)) or []:
            found = container_of_dir(driver, name)
            if found is None or len(containers) > MAX_CONTAINERS:
                continue
            if len(containers) == MAX_CONTAINERS:
                reader.note(top_rel, 'more than %d container cgroups: the rest are not read' % MAX_CONTAINERS)
                containers.append(None)
                continue
            containers.append(_container(reader, pod_rel + '/' + name, qos, uid, found, names, cpu_node))
    containers = [item for item in containers if item is not None]
    reader.report_missing(top_rel)
    return {'driver': driver, 'kubepods': '/%s/%s' % (reader.cgroup_rel, top_rel), 'pod_uids': sorted(set(pod_uids)),
            'containers': containers}


def _container(reader, rel, qos, uid, found, names, cpu_node):
    runtime, hexid = found
    cpus = reader.cpus(rel + '/cpuset.cpus.effective')
    mems = reader.cpus(rel + '/cpuset.mems.effective')
    stat_text = reader.text(rel + '/memory.numa_stat', MAX_NUMA_STAT_BYTES)
    memory = None
    if stat_text is not None:
        try:
            memory = numa_memory(parse_numa_stat(stat_text))
            strange = sorted(set(memory) - reader.node_ids) if reader.node_ids is not None else []
            if strange:
                raise ValueError('NUMA node %s is not online (online: %s)'
                                 % (strange[0], format_cpuset(reader.node_ids) or 'none'))
        except ValueError as err:
            memory = None
            reader.note(rel + '/memory.numa_stat', 'does not parse: %s' % err)
    name_uid, name = names.get(hexid, (None, None))
    per_node = {}
    for cpu in cpus or ():
        node = cpu_node.get(cpu)
        if node is not None:
            per_node.setdefault(node, set()).add(cpu)
    numa = []
    for node in sorted(set(per_node) | set(memory or {})):
        entry = {'numa_node': node, 'cpus': format_cpuset(per_node.get(node, ())),
                 'cpu_count': len(per_node.get(node, ()))}
        entry.update((memory or {}).get(node) or {'anon_bytes': None, 'file_bytes': None, 'kernel_bytes': None})
        numa.append(entry)
    return {'pod_uid': uid, 'container': name if name_uid in (None, uid) else None, 'container_id': hexid,
            'runtime': runtime, 'qos': qos, 'cgroup': '/%s/%s' % (reader.cgroup_rel, rel),
            'cpus': None if cpus is None else format_cpuset(cpus), 'cpu_count': None if cpus is None else len(cpus),
            'cpu_numa_nodes': sorted(per_node), 'mems': None if mems is None else format_cpuset(mems),
            'memory_known': memory is not None, 'numa': numa}
