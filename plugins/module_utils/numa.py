# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""A node's NUMA topology and the kubelet's placement on it, read from sysfs and the kubelet's state files.

Everything is read below a root directory (``/`` on a node, a recorded tree in tests): nothing here runs a
command or guesses. A file that is missing or unreadable, or whose content does not parse, is listed in
``unknown`` (path and reason) and its value is ``None``; it is never filled in from another source.

Sources (all relative to the root):

* ``sys/devices/system/node/online``, ``node<N>/cpulist``, ``node<N>/meminfo`` (``MemTotal``/``MemFree``),
  ``node<N>/distance``, ``node<N>/hugepages/hugepages-<size>kB/{nr,free}_hugepages``;
* ``sys/devices/system/cpu/online``, ``cpu<N>/topology/{physical_package_id,core_id,thread_siblings_list}``,
  ``cpu/isolated``, ``cpu/nohz_full``; ``proc/cmdline`` (``isolcpus=``, ``nohz_full=`` as given at boot);
* ``sys/bus/pci/devices/<address>/{class,vendor,device,numa_node}`` and its ``net/``/``nvme/``/``drm/``
  children, for network controllers (class 0x02), display controllers (0x03) and NVMe (0x010802);
* ``sys/fs/cgroup/cgroup.controllers`` (cgroup v2) or ``sys/fs/cgroup/cpuset`` (v1);
* every container's cgroup under the kubepods cgroup (cgroup v2: ``cpuset.cpus.effective``,
  ``cpuset.mems.effective``, ``memory.numa_stat``; numa_cgroups.py), which flags checkpoint entries of pods
  without a cgroup as stale;
* the kubelet configuration file (top-level plain scalars only: the policies, ``reservedSystemCPUs``,
  ``cgroupDriver``, ``cgroupRoot``), ``cpu_manager_state`` and ``memory_manager_state`` (checkpoint formats v1 to v3:
  when a ``data`` string is present it is the authoritative payload, as in kubelet 1.37), or in their place the
  kubelet's pod-resources API (numa_podresources.py; ``kubelet_source`` of :func:`collect`).

Pure functions of file contents, standard library only, Python 3.8+.
"""

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

import json
import os
import re

from ansible_collections.numaops.colocation.plugins.module_utils import cgroup as cg
from ansible_collections.numaops.colocation.plugins.module_utils import numa_cgroups, pod_classes
from ansible_collections.numaops.colocation.plugins.module_utils import numa_podresources, numa_refusals
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet_scalars import top_level_scalars
from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import (
    format_cpuset, parse_cpuset, parse_read_cpuset)

FACTS_KEY = 'numaops_numa'
SCHEMA_VERSION = 1

NODE_DIR = 'sys/devices/system/node'
CPU_DIR = 'sys/devices/system/cpu'
PCI_DIR = 'sys/bus/pci/devices'
CGROUP_DIR = 'sys/fs/cgroup'
CMDLINE = 'proc/cmdline'
DEFAULT_KUBELET_CONFIG = 'var/lib/kubelet/config.yaml'
DEFAULT_STATE_DIR = 'var/lib/kubelet'

_NODE_RE = re.compile(r'^node([0-9]+)$')
_HUGE_RE = re.compile(r'^hugepages-([0-9]+)kB$')
# a line of /proc/meminfo ("MemTotal:  16384 kB") or of node<N>/meminfo ("Node 0 MemTotal:  16384 kB")
_MEMINFO_RE = re.compile(r'^(?:Node\s+[0-9]+\s+)?([A-Za-z0-9_()]+):\s+([0-9]+)(\s*kB)?\s*$')
_PCI_KINDS = (('0x010802', 'nvme'), ('0x02', 'network'), ('0x03', 'gpu'))
KUBELET_KEYS = ('cpuManagerPolicy', 'memoryManagerPolicy', 'topologyManagerPolicy', 'topologyManagerScope',
                'reservedSystemCPUs', 'cgroupDriver', 'cgroupRoot')


def huge_size_name(kib):
    """2048 -> '2Mi', 1048576 -> '1Gi' (the kubelet's hugepages-<size> resource suffix)."""
    for suffix, factor in (('Gi', 1024 * 1024), ('Mi', 1024)):
        if kib % factor == 0:
            return '%d%s' % (kib // factor, suffix)
    return '%dKi' % kib


def _meminfo_lines(text):
    """(name, number, in_kib) for each line of meminfo text that parses; other lines are left out."""
    for line in (text or '').splitlines():
        match = _MEMINFO_RE.match(line)
        if match:
            yield match.group(1), int(match.group(2)), bool(match.group(3))


def parse_meminfo(text):
    """``/proc/meminfo`` or ``node<N>/meminfo`` -> {'MemTotal': bytes, 'MemFree': bytes, ...}: values given in
    kB in bytes, page counts (``HugePages_Total``, ...) as counts."""
    return dict((name, number * 1024 if in_kib else number) for name, number, in_kib in _meminfo_lines(text))


def mem_total(text):
    """MemTotal in bytes from meminfo text, or None when it has no MemTotal line in kB (the kernel's unit)."""
    found = [number * 1024 for name, number, in_kib in _meminfo_lines(text) if name == 'MemTotal' and in_kib]
    return found[-1] if found else None


def _used_without_cache(meminfo):
    """MemTotal - MemFree - FilePages - SReclaimable (what free(1) counts as used: no page cache, no reclaimable
    slab), or None when a line is missing."""
    keys = ('MemTotal', 'MemFree', 'FilePages', 'SReclaimable')
    if not all(key in meminfo for key in keys):
        return None
    return max(0, meminfo['MemTotal'] - meminfo['MemFree'] - meminfo['FilePages'] - meminfo['SReclaimable'])


def parse_distances(text):
    return [int(part) for part in text.split()]


def parse_cmdline_cpus(text, name):
    """The CPU list of ``isolcpus=``/``nohz_full=`` on a kernel command line (flags such as ``domain,`` and
    ``managed_irq,`` of isolcpus are skipped); None when absent."""
    value = None
    for word in text.split():
        if word.startswith(name + '='):
            value = word[len(name) + 1:]
    if value is None:
        return None
    parts = [part for part in value.split(',') if part and not part[0].isalpha()]
    return ','.join(parts)


def parse_kubelet_scalars(text):
    """Top-level plain scalars of a KubeletConfiguration file, for KUBELET_KEYS only (kubelet_scalars.py: a line scan,
    no YAML library). A key whose value is not a plain scalar on its line is left out (reported unknown by the caller);
    a JSON file that does not parse gives none."""
    try:
        return top_level_scalars(text, KUBELET_KEYS)
    except ValueError:
        return {}


def parse_checkpoint(text):
    """Decode a kubelet checkpoint; a v3 ``data`` string wins over the inline v1/v2 fields."""
    doc = json.loads(text)
    if not isinstance(doc, dict):
        raise ValueError('not a JSON object')
    data = doc.get('data')
    if isinstance(data, str) and data:
        inner = json.loads(data)
        if not isinstance(inner, dict):
            raise ValueError('the data field is not a JSON object')
        return inner
    return doc


def pod_index(pods):
    """{kubelet pod UID: (namespace, name)} from API pod objects; a mirror pod is indexed under the static
    pod's UID (its kubernetes.io/config.mirror annotation) as well as its own."""
    index = {}
    for pod in pods or []:
        meta = (pod or {}).get('metadata') or {}
        ident = (meta.get('namespace') or 'default', meta.get('name'))
        if meta.get('uid'):
            index[meta['uid']] = ident
        mirror = (meta.get('annotations') or {}).get(cg.MIRROR_POD_ANNOTATION)
        if mirror:
            index[mirror] = ident
    return index


def nodes_of(cpus, cpu_node):
    return sorted(set(cpu_node[cpu] for cpu in cpus if cpu in cpu_node))


class _Tree:
    """Reads files below root and remembers what could not be read."""

    def __init__(self, root):
        self.root = root
        self.unknown = []

    def path(self, rel):
        return os.path.join(self.root, rel)

    def read(self, rel, what=None, quiet=False):
        try:
            with open(self.path(rel), 'r') as handle:
                return handle.read()
        except (IOError, OSError) as err:
            if not quiet:
                reason = 'missing' if not os.path.lexists(self.path(rel)) else 'unreadable (%s)' % err.strerror
                self.note(rel, reason + (': ' + what if what else ''))
            return None

    def note(self, rel, reason):
        self.unknown.append({'path': '/' + rel.lstrip('/'), 'reason': reason})

    def listdir(self, rel):
        try:
            return sorted(os.listdir(self.path(rel)))
        except OSError:
            return None

    def cpus(self, rel, what=None, quiet=False):
        return parse_read_cpuset(self.read(rel, what, quiet), lambda reason: self.note(rel, reason))

    def integer(self, rel, what=None):
        text = self.read(rel, what)
        if text is None:
            return None
        try:
            return int(text.strip(), 0)
        except ValueError:
            self.note(rel, 'not an integer: %r' % text.strip()[:40])
            return None


def _node_ids(tree):
    text = tree.read(NODE_DIR + '/online', 'NUMA nodes listed from the node<N> directories', quiet=True)
    if text is not None:
        try:
            return sorted(parse_cpuset(text.strip()))
        except ValueError as err:
            tree.note(NODE_DIR + '/online', 'not a node list: %s' % err)
    entries = tree.listdir(NODE_DIR)
    if entries is None:
        tree.note(NODE_DIR, 'missing: no NUMA information (kernel without CONFIG_NUMA?)')
        return []
    if text is None:
        tree.note(NODE_DIR + '/online', 'missing: NUMA nodes taken from the node<N> directories')
    return sorted(int(m.group(1)) for m in (_NODE_RE.match(e) for e in entries) if m)


def _cpu_topology(tree, cpus):
    """{cpu: {'socket', 'core_id', 'siblings'}} for the CPUs whose topology files are all readable.

    A topology file missing for many CPUs is reported once, with the CPU list."""
    topo = {}
    missing = {}
    for cpu in sorted(cpus):
        base = '%s/cpu%d/topology/' % (CPU_DIR, cpu)
        values = {}
        for name in ('physical_package_id', 'core_id', 'thread_siblings_list'):
            text = tree.read(base + name, quiet=True)
            if text is None:
                missing.setdefault(name, set()).add(cpu)
                continue
            try:
                values[name] = parse_cpuset(text.strip()) if name == 'thread_siblings_list' else int(text.strip())
            except ValueError:
                tree.note(base + name, 'does not parse: %r' % text.strip()[:40])
        if len(values) == 3:
            topo[cpu] = {'socket': values['physical_package_id'], 'core_id': values['core_id'],
                         'siblings': values['thread_siblings_list']}
    for name, which in sorted(missing.items()):
        tree.note('%s/cpu{%s}/topology/%s' % (CPU_DIR, format_cpuset(which), name),
                  'missing: cores, SMT siblings and sockets of these CPUs unknown')
    return topo


def _hugepages(tree, node):
    base = '%s/node%d/hugepages' % (NODE_DIR, node)
    entries = tree.listdir(base)
    if entries is None:
        tree.note(base, 'missing: huge pages of NUMA node %d unknown' % node)
        return None
    pages = {}
    for entry in entries:
        match = _HUGE_RE.match(entry)
        if not match:
            continue
        kib = int(match.group(1))
        total = tree.integer('%s/%s/nr_hugepages' % (base, entry))
        free = tree.integer('%s/%s/free_hugepages' % (base, entry))
        pages[huge_size_name(kib)] = {'page_bytes': kib * 1024, 'total': total, 'free': free,
                                      'total_bytes': None if total is None else total * kib * 1024,
                                      'free_bytes': None if free is None else free * kib * 1024}
    return pages


def _pci_devices(tree):
    entries = tree.listdir(PCI_DIR)
    if entries is None:
        tree.note(PCI_DIR, 'missing: PCI devices unknown')
        return None
    devices = []
    for address in entries:
        base = '%s/%s/' % (PCI_DIR, address)
        klass = tree.read(base + 'class', 'class of PCI device %s unknown' % address)
        if klass is None:
            continue
        klass = klass.strip().lower()
        kind = next((name for prefix, name in _PCI_KINDS if klass.startswith(prefix)), None)
        if kind is None:
            continue
        raw_node = tree.read(base + 'numa_node', 'NUMA node of %s unknown' % address)
        numa_node = None
        if raw_node is not None:
            try:
                numa_node = int(raw_node.strip())
            except ValueError:
                tree.note(base + 'numa_node', 'not an integer: %r' % raw_node.strip()[:40])
            if numa_node is not None and numa_node < 0:
                numa_node = None   # -1: the firmware reports no NUMA affinity for this device
        names = []
        for child in ('net', 'nvme', 'drm'):
            names.extend(tree.listdir(base + child) or [])
        vendor = tree.read(base + 'vendor', quiet=True)
        device = tree.read(base + 'device', quiet=True)
        devices.append({'address': address, 'kind': kind, 'class': klass, 'numa_node': numa_node,
                        'vendor': vendor.strip() if vendor else None,
                        'device': device.strip() if device else None,
                        'names': [n for n in names if not n.startswith('card') or kind == 'gpu']})
    return devices


def _cgroup(tree, kubelet_values):
    version = None
    if os.path.isfile(tree.path(CGROUP_DIR + '/cgroup.controllers')):
        version = 2
    elif os.path.isdir(tree.path(CGROUP_DIR + '/cpuset')) or os.path.isdir(tree.path(CGROUP_DIR + '/memory')):
        version = 1
    else:
        tree.note(CGROUP_DIR, 'neither cgroup.controllers (v2) nor cpuset/ or memory/ (v1): cgroup version unknown')
    driver = kubelet_values.get('cgroupDriver') if kubelet_values is not None else None
    source = 'kubelet configuration (cgroupDriver)' if driver else None
    if kubelet_values is not None and not driver:
        driver, source = 'cgroupfs', 'kubelet default (no cgroupDriver in the configuration)'
    return {'version': version, 'driver': driver, 'driver_source': source}


def _placement_name(index, uid, container):
    item = {'pod_uid': uid, 'container': container, 'namespace': None, 'pod': None}
    if uid in index:
        item['namespace'], item['pod'] = index[uid]
    return item


def _cpu_manager(tree, state_dir, cpu_node, index):
    rel = state_dir + '/cpu_manager_state'
    text = tree.read(rel, 'the kubelet CPU manager placement unknown')
    if text is None:
        return None
    try:
        doc = parse_checkpoint(text)
        default = parse_cpuset(doc.get('defaultCpuSet') or '')
        exclusive = []
        for uid, containers in sorted((doc.get('entries') or {}).items()):
            for name, cpus_text in sorted((containers or {}).items()):
                cpus = parse_cpuset(cpus_text)
                item = _placement_name(index, uid, name)
                item.update(cpus=format_cpuset(cpus), cpu_ids=sorted(cpus), cpu_count=len(cpus),
                            numa_nodes=nodes_of(cpus, cpu_node))
                exclusive.append(item)
        for uid, entry in sorted((doc.get('podEntries') or {}).items()):
            cpus = parse_cpuset((entry or {}).get('cpuSet') or '')
            item = _placement_name(index, uid, None)
            item.update(cpus=format_cpuset(cpus), cpu_ids=sorted(cpus), cpu_count=len(cpus),
                        numa_nodes=nodes_of(cpus, cpu_node), pod_level=True)
            exclusive.append(item)
    except (ValueError, TypeError, AttributeError) as err:
        tree.note(rel, 'does not decode as a kubelet CPU manager checkpoint: %s' % err)
        return None
    return {'policy': doc.get('policyName'), 'default_cpus': format_cpuset(default),
            'default_cpu_ids': sorted(default), 'exclusive': exclusive}


def _memory_manager(tree, state_dir, index):
    rel = state_dir + '/memory_manager_state'
    text = tree.read(rel, 'the kubelet memory manager placement unknown')
    if text is None:
        return None
    try:
        doc = parse_checkpoint(text)
        machine = {}
        for node, state in sorted((doc.get('machineState') or {}).items(), key=lambda kv: int(kv[0])):
            machine[int(node)] = {
                'cells': list(state.get('cells') or []),
                'assignments': state.get('numberOfAssignments', 0),
                'resources': dict((res, dict((k, table.get(k)) for k in
                                             ('total', 'systemReserved', 'allocatable', 'reserved', 'free')))
                                  for res, table in sorted((state.get('memoryMap') or {}).items()))}
        containers = []
        for uid, conts in sorted((doc.get('entries') or {}).items()):
            for name, blocks in sorted((conts or {}).items()):
                item = _placement_name(index, uid, name)
                item['blocks'] = [{'numa_nodes': sorted(b.get('numaAffinity') or []), 'resource': b.get('type'),
                                   'bytes': b.get('size')} for b in blocks or []]
                item['numa_nodes'] = sorted(set(n for b in item['blocks'] for n in b['numa_nodes']))
                containers.append(item)
    except (ValueError, TypeError, AttributeError) as err:
        tree.note(rel, 'does not decode as a kubelet memory manager checkpoint: %s' % err)
        return None
    return {'policy': doc.get('policyName'), 'machine_state': machine, 'containers': containers}


def _placement(tree, cgroup_facts, kubelet_values, cpu_node, index, pods, node_ids):
    """numa_cgroups.read_placement for the kubelet's driver and cgroupRoot, the containers named after the pods."""
    if cgroup_facts['version'] != 2:
        tree.note(CGROUP_DIR, 'not cgroup v2: the placement of containers is read from cgroup v2 only')
        return None
    driver = cgroup_facts['driver']
    try:
        kubelet_root = (kubelet_values or {}).get('cgroupRoot') or ''
        cg.root_components(kubelet_root)
        if driver is None:
            driver = cg.driver_from_tree(lambda rel: os.path.isdir(tree.path(CGROUP_DIR + '/' + rel)), kubelet_root)
        if driver not in cg.DRIVERS:
            tree.note(CGROUP_DIR, 'cgroup driver %s unknown: the placement of containers is not read' % (driver,))
            return None
    except cg.CgroupPathError as err:
        tree.note(CGROUP_DIR, '%s: the placement of containers is not read' % err)
        return None
    placement = numa_cgroups.read_placement(tree.path(CGROUP_DIR), CGROUP_DIR, driver, kubelet_root, cpu_node,
                                            pods, tree.unknown, node_ids)
    by_uid = pod_classes.pods_by_uid(pods, cg.MIRROR_POD_ANNOTATION)
    for item in (placement or {}).get('containers') or []:
        item['namespace'], item['pod'] = index.get(item['pod_uid'], (None, None))
        item.update(pod_classes.classes(by_uid.get(item['pod_uid']), item.get('qos')))
    return placement


def _running_pod_uids(pods):
    """UIDs of the pods given that have not finished (a mirror pod under the static pod's UID too); None: no pods
    were given."""
    if pods is None:
        return None
    live = set()
    for pod in pods:
        if ((pod or {}).get('status') or {}).get('phase') in ('Succeeded', 'Failed'):
            continue
        live.update(uid for uid in pod_index([pod]))
    return live


def _mark_stale(placement, cpu_manager, memory_manager, pods=None):
    """Checkpoint entries whose pod has no cgroup are stale (True). Without the cgroup tree, an entry whose pod is
    not among the node's pods given, or has finished, is stale; unknown (None) when no pods were given either."""
    live = _running_pod_uids(pods) if placement is None else set(placement['pod_uids'])
    exclusive = {}
    for item in ((cpu_manager or {}).get('exclusive') or []) + ((memory_manager or {}).get('containers') or []):
        item['stale'] = None if live is None or item['pod_uid'] is None else item['pod_uid'] not in live
    for item in (cpu_manager or {}).get('exclusive') or []:
        exclusive[(item['pod_uid'], item['container'])] = item['cpus']
    for item in (placement or {}).get('containers') or []:
        item['exclusive'] = (item['pod_uid'], item['container']) in exclusive if item['container'] else None


def _kubelet_records(tree, state_dir, requested, all_cpus, cpu_node, index, pods):
    """(source, cpu_manager, memory_manager): from the pod-resources API or the checkpoints (numa_podresources)."""
    grpc, source = numa_podresources.choose(requested, tree.path(state_dir + '/' + numa_podresources.SOCKET))
    if grpc is not None:
        try:
            return (source,) + numa_podresources.read(grpc, source['socket'], all_cpus, cpu_node, pods)
        except numa_podresources.PodResourcesError as err:
            if requested == 'pod_resources':
                raise
            source.update(used='checkpoints', why=str(err))
    return source, _cpu_manager(tree, state_dir, cpu_node, index), _memory_manager(tree, state_dir, index)


def collect(root='/', kubelet_config=DEFAULT_KUBELET_CONFIG, state_dir=DEFAULT_STATE_DIR, pods=None,
            kubelet_source='checkpoints'):
    """The NUMA facts of the node whose filesystem is at ``root`` (see the module docstring); ``kubelet_source``
    auto, pod_resources or checkpoints (numa_podresources.choose; pod_resources raises PodResourcesError)."""
    tree = _Tree(root)
    kubelet_config = kubelet_config.lstrip('/')
    state_dir = state_dir.strip('/')
    node_ids = _node_ids(tree)
    online = tree.cpus(CPU_DIR + '/online', 'online CPUs unknown')

    cpu_node = {}
    nodes = []
    for node in node_ids:
        base = '%s/node%d/' % (NODE_DIR, node)
        cpus = tree.cpus(base + 'cpulist', 'CPUs of NUMA node %d unknown' % node)
        for cpu in cpus or ():
            cpu_node[cpu] = node
        meminfo_text = tree.read(base + 'meminfo', 'memory of NUMA node %d unknown' % node)
        meminfo = parse_meminfo(meminfo_text) if meminfo_text is not None else {}
        if meminfo_text is not None and ('MemTotal' not in meminfo or 'MemFree' not in meminfo):
            tree.note(base + 'meminfo', 'no MemTotal/MemFree line')
        distance_text = tree.read(base + 'distance', 'distances of NUMA node %d unknown' % node)
        distances = None
        if distance_text is not None:
            try:
                distances = parse_distances(distance_text)
            except ValueError:
                tree.note(base + 'distance', 'not a list of integers')
            if distances is not None and len(distances) != len(node_ids):
                tree.note(base + 'distance', '%d distances for %d NUMA nodes' % (len(distances), len(node_ids)))
                distances = None
        nodes.append({'id': node, 'cpus': None if cpus is None else format_cpuset(cpus),
                      'cpu_ids': None if cpus is None else sorted(cpus),
                      'memory_total_bytes': meminfo.get('MemTotal'), 'memory_free_bytes': meminfo.get('MemFree'),
                      'memory_used_without_cache_bytes': _used_without_cache(meminfo),
                      'hugepages': _hugepages(tree, node), 'distances': distances})

    all_cpus = set(online) if online is not None else set(cpu_node)
    topo = _cpu_topology(tree, all_cpus)
    for entry in nodes:
        cores = {}
        for cpu in entry['cpu_ids'] or ():
            info = topo.get(cpu)
            if info is None:
                continue
            key = tuple(sorted(info['siblings']))
            cores.setdefault(key, {'core_id': info['core_id'], 'socket': info['socket'], 'cpus': list(key)})
        entry['cores'] = sorted(cores.values(), key=lambda core: core['cpus'][0])
        entry['cores_complete'] = entry['cpu_ids'] is not None and all(cpu in topo for cpu in entry['cpu_ids'])
        entry['sockets'] = sorted(set(core['socket'] for core in entry['cores']))

    sockets = {}
    for cpu, info in topo.items():
        sock = sockets.setdefault(info['socket'], {'id': info['socket'], 'cpu_ids': set(), 'numa_nodes': set()})
        sock['cpu_ids'].add(cpu)
        if cpu in cpu_node:
            sock['numa_nodes'].add(cpu_node[cpu])
    socket_list = [{'id': s['id'], 'cpus': format_cpuset(s['cpu_ids']), 'numa_nodes': sorted(s['numa_nodes'])}
                   for _k, s in sorted(sockets.items())]
    threads = sorted(set(len(info['siblings']) for info in topo.values()))

    cmdline = tree.read(CMDLINE, 'boot-time isolcpus/nohz_full unknown')
    isolated = tree.cpus(CPU_DIR + '/isolated', 'isolated CPUs unknown')
    nohz = tree.read(CPU_DIR + '/nohz_full', quiet=True)
    nohz_full = None
    if nohz is None:
        if not os.path.lexists(tree.path(CPU_DIR + '/nohz_full')):
            tree.note(CPU_DIR + '/nohz_full', 'missing: the kernel has no CONFIG_NO_HZ_FULL or it is off; '
                                              'nohz_full unknown')
    else:
        text = nohz.strip()
        try:
            nohz_full = parse_cpuset('' if text == '(null)' else text)
        except ValueError as err:
            tree.note(CPU_DIR + '/nohz_full', 'not a CPU list: %s' % err)

    kubelet_text = tree.read(kubelet_config, 'kubelet policies and reservedSystemCPUs unknown')
    kubelet_values = parse_kubelet_scalars(kubelet_text) if kubelet_text is not None else None
    index = pod_index(pods)
    source, cpu_manager, memory_manager = _kubelet_records(tree, state_dir, kubelet_source, all_cpus, cpu_node,
                                                           index, pods)
    cgroup_facts = _cgroup(tree, kubelet_values)
    placement = _placement(tree, cgroup_facts, kubelet_values, cpu_node, index, pods, node_ids)
    _mark_stale(placement, cpu_manager, memory_manager, pods)

    reserved = None
    if kubelet_values is not None and kubelet_values.get('reservedSystemCPUs') is not None:
        try:
            reserved = parse_cpuset(kubelet_values['reservedSystemCPUs'])
        except ValueError as err:
            tree.note(kubelet_config, 'reservedSystemCPUs: %s' % err)
    for entry in nodes:
        node_cpus = set(entry['cpu_ids'] or ())
        entry['reserved_cpus'] = None if reserved is None else format_cpuset(node_cpus & reserved)
        if cpu_manager is None:
            entry['exclusive_cpus'] = entry['free_exclusive_cpus'] = None
            continue
        taken = set()
        for item in cpu_manager['exclusive']:
            if not item['stale']:
                taken.update(item['cpu_ids'])
        entry['exclusive_cpus'] = format_cpuset(node_cpus & taken)
        if cpu_manager['policy'] == 'static':
            free = (node_cpus & set(cpu_manager['default_cpu_ids'])) - (reserved or set())
            entry['free_exclusive_cpus'] = format_cpuset(free)
            entry['free_exclusive_cpu_count'] = len(free)
        else:
            entry['free_exclusive_cpus'] = None   # no exclusive CPUs without the static policy
            entry['free_exclusive_cpu_count'] = 0

    facts = {
        'schema': SCHEMA_VERSION,
        'root': root,
        'online_cpus': None if online is None else format_cpuset(online),
        'cpu_count': None if online is None else len(online),
        'core_count': sum(len(entry['cores']) for entry in nodes),
        'threads_per_core': threads[0] if len(threads) == 1 else (threads or None),
        'numa_nodes': nodes,
        'numa_node_ids': node_ids,
        'sockets': socket_list,
        'distances': [entry['distances'] for entry in nodes],
        'isolated_cpus': None if isolated is None else format_cpuset(isolated),
        'nohz_full_cpus': None if nohz_full is None else format_cpuset(nohz_full),
        'cmdline': None if cmdline is None else {
            'isolcpus': parse_cmdline_cpus(cmdline, 'isolcpus'), 'nohz_full': parse_cmdline_cpus(cmdline, 'nohz_full')},
        'pci_devices': _pci_devices(tree),
        'cgroup': cgroup_facts,
        'placement': placement,
        'kubelet': {
            'config_path': '/' + kubelet_config,
            # no kubelet on this node: neither its configuration nor its state files exist
            'found': any(os.path.lexists(tree.path(rel)) for rel in (
                kubelet_config, state_dir + '/cpu_manager_state', state_dir + '/memory_manager_state')),
            'config': kubelet_values,
            'reserved_cpus': None if reserved is None else format_cpuset(reserved),
            'cpu_manager': cpu_manager,
            'memory_manager': memory_manager,
            'source': source,
        },
        'unknown': tree.unknown,
    }
    # pods the kubelet refused at admission for NUMA alignment, and why (None: no pods given)
    facts['refusals'] = numa_refusals.refusals(pods, facts)
    return facts
