#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: memory_qos
short_description: Apply Volcano ColocationConfiguration memory QoS to a node's cgroup v2 tree
version_added: 1.0.0
description:
  - Does the job of the Volcano agent's memory QoS handler for a whole node in one call. For every running
    container of every pod that a ColocationConfiguration (C(config.volcano.sh/v1alpha1)) selects, it writes
    C(memory.high), C(memory.low) and C(memory.min) of the container's cgroup.
  - "C(memory.high) = C(max) when the container has no memory limit or highRatio >= 100, else
    C(limit * highRatio / 100); C(memory.low) = C(request * lowRatio / 100); C(memory.min) =
    C(request * minRatio / 100) (exact integer arithmetic, truncating; Volcano's int64 arithmetic wraps for
    quantities of exabytes, this module does not). When the pod's C(volcano.sh/qos-level) is absent, unknown,
    C(LS) or C(BE) and the container declares O(batch_memory_resource), that quantity is used instead of
    C(memory). A pod whose configuration is C({}) (or has no memoryQos) is reset to C(max), C(0), C(0)."
  - Beyond the Volcano agent, with O(hierarchy=true) each managed pod's C(memory.min)/C(memory.low) is set
    to the sum of its child cgroups', and the QoS-class and kubepods cgroups to the sum of theirs, because the
    kernel caps a cgroup's effective protection by its ancestors'. Writes are ordered (decreases children
    first, then increases parents first) so that no parent is ever below the sum of its children.
  - Values are compared with what the kernel stores (whole pages, rounded down), so a second run reports
    no change, and a value that is already right is never rewritten.
  - With the systemd cgroup driver every cgroup written is a systemd unit, and systemd puts its own values back
    whenever the kubelet makes it re-apply a unit (after a container starts, after a kubelet restart, about once
    a minute for the QoS-class slices). So the values are set as runtime properties of the units as well as
    written to the files, and what systemd holds counts as well as the file (see O(systemd_units)).
  - Only files that already exist are written (a file is never created). Pod UIDs and container IDs are
    accepted only in the forms Kubernetes and the container runtimes produce, and nothing outside the
    kubepods cgroup is ever written. A pod or container whose cgroup has vanished (also while it is being
    written) is reported and skipped.
  - Every other skip produces a warning naming the pod (and container) or cgroup, why and what is allowed
    or what to do; an invalid pod UID, container ID or memory quantity, and a cgroup whose parent does not
    enable the memory controller. When no running container to manage can be written because the memory
    controller is not enabled below its pod, the module fails and nothing is written.
  - Requires the unified cgroup v2 hierarchy with the memory controller. On a cgroup v1 or hybrid node the
    module fails and names the fix (boot with C(systemd.unified_cgroup_hierarchy=1), which
    M(numaops.colocation.kernel_cmdline) can set).
  - See C(docs/memory_qos.md) in the collection for the formulas, the hierarchy rationale and the safety rules.
author:
  - numaops.colocation developers (@numaops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: A drift audit. Nothing is written; RV(pods) lists per container the expected and actual values
      and which files differ, RV(levels) the same for the pod, QoS-class and kubepods cgroups.
  diff_mode:
    support: full
    details: One line per cgroup file that changes (or would change), old value before, new value after.
  action:
    description: Part of the work is done on the controller by an action plugin of the same name.
    support: full
    details: The action plugin cuts each pod of O(pods) down to the fields the module reads before the pods are
      sent to the node.
  async:
    description: Whether the task can run with the C(async) keyword.
    support: full
  platform:
    platforms: posix
options:
  pods:
    description:
      - The pods on this node as the Kubernetes API returns them (for example the RV(kubernetes.core.k8s_info#module:resources)
        of M(kubernetes.core.k8s_info)). Used are C(metadata) (namespace, name, uid, labels, annotations),
        C(metadata.deletionTimestamp), C(spec.nodeName), C(spec.containers[].resources), C(status.conditions),
        C(status.qosClass) and C(status.containerStatuses[]) (name, containerID, state).
      - Only those fields (and C(apiVersion), C(kind), C(status.phase)) are sent to the node; the rest of each
        pod (C(managedFields), environment, volumes, probes, ...) is dropped on the controller, so a full node's
        pods from M(kubernetes.core.k8s_info) travel as a fraction of their size.
      - Like the Volcano agent's pod probe, only pods with the condition C(Ready=True) and no
        C(deletionTimestamp) are handled; the cgroup files of every other pod are left as they are
        (counted in RV(ignored)).
      - Mutually exclusive with O(pods_file).
    type: list
    elements: dict
  pods_file:
    description:
      - Path on the node of a file holding the pods, as a PodList (C(kubectl get pods -o json)), a list of
        pods, or a saved M(kubernetes.core.k8s_info) result (C(resources)).
      - JSON is always read; YAML needs PyYAML on the node (C(python3-yaml)).
      - Mutually exclusive with O(pods).
    type: path
  source:
    description:
      - V(configs) matches the pods against O(configs) exactly like Volcano's controller (configurations of
        the pod's own namespace, newest C(creationTimestamp) first, ties broken by name, first selector match
        wins). A pod that no configuration selects but that carries a C(volcano.sh/colocation-config)
        annotation is reset, as the controller would do.
      - V(annotations) reads the C(volcano.sh/colocation-config) annotation Volcano's controller put on each
        pod, like the Volcano agent (absent or empty annotation, pod left alone; C({}), reset).
    type: str
    choices: [configs, annotations]
    default: configs
  configs:
    description:
      - ColocationConfiguration objects (as the API returns them, or manifests) for O(source=configs).
      - Required with O(source=configs); an empty list resets every pod that carries a colocation annotation.
      - An invalid configuration fails the module before anything is written; the message names the
        configuration, the field, the value and what is allowed.
    type: list
    elements: dict
  node_name:
    description:
      - When given, only pods whose C(spec.nodeName) equals it are applied; other pods are ignored.
    type: str
  cgroup_root:
    description: Mount point of the unified cgroup v2 hierarchy.
    type: path
    default: /sys/fs/cgroup
  cgroup_driver:
    description:
      - The kubelet's cgroup driver. V(auto) looks where the Volcano agent looks, in its order, and takes the
        first answer - the environment variable E(CGROUP_DRIVER) (V(systemd) or V(cgroupfs)), C(cgroupDriver)
        or C(--cgroup-driver) in O(kubelet_config_path), then in each of O(kubelet_flags_files), then the
        command line of the running kubelet (C(--cgroup-driver), else the file of its C(--config)) - and
        warns when a later source names another driver. When none does, it looks for C(kubepods.slice)
        (systemd) or C(kubepods) (cgroupfs) in the tree (the agent guesses from C(system.slice) instead).
    type: str
    choices: [auto, systemd, cgroupfs]
    default: auto
  kubelet_config_path:
    description: The kubelet's KubeletConfiguration file, read first for O(cgroup_driver=auto).
    type: path
    default: /var/lib/kubelet/config.yaml
  kubelet_flags_files:
    description:
      - More files read for O(cgroup_driver=auto), in this order, after O(kubelet_config_path), for a
        C(cgroupDriver) setting or a C(--cgroup-driver) flag (the Volcano agent's list). Missing files are skipped.
    type: list
    elements: path
    default: [/etc/kubernetes/kubelet.conf, /var/lib/kubelet/kubeadm-flags.env]
  proc_root:
    description: Where the processes are listed, to find the kubelet's command line for O(cgroup_driver=auto).
    type: path
    default: /proc
  batch_memory_resource:
    description:
      - The extended resource a container of a C(volcano.sh/qos-level) C(LS)/C(BE) (or unset) pod declares
        instead of C(memory); the Volcano agent's C(--extend-resource-memory-name). Give both the same name.
    type: str
    default: kubernetes.io/batch-memory
  kubelet_cgroup_root:
    description:
      - The kubelet's C(cgroupRoot) (C(--cgroup-root)) when it is not the root cgroup, for example V(/kubelet).
        The kubepods cgroup is looked up below it.
    type: str
    default: ''
  hierarchy:
    description:
      - Also set each managed pod's C(memory.min)/C(memory.low) to the sum of its children's, and the
        QoS-class and kubepods cgroups to the sum of theirs, so container protection is effective.
      - Set V(false) on nodes where the kubelet's C(MemoryQoS) feature gate manages the upper levels; then
        only container cgroups are written, exactly like the Volcano agent.
    type: bool
    default: true
  page_size:
    description:
      - Page size in bytes the kernel rounds memory values to. Default is the node's page size.
    type: int
  report:
    description:
      - Which entries RV(pods) and RV(levels) list. The counts (RV(managed), RV(written), RV(unchanged),
        RV(skipped), RV(ignored)) and RV(writes) are the same either way.
      - V(all) lists every managed pod and every level.
      - V(changes) lists only the pods with a container that was (or in check mode would be) written, that had
        drifted or that was skipped, and the pods skipped whole, each with all its containers; and only the
        levels that had drifted or were skipped. On a node where nothing changes the result is then a few
        lines instead of one entry per pod, which is also what keeps the call cheap on a full node (the
        result of every task travels back to the controller, and AWX stores it in its job events).
    type: str
    choices: [all, changes]
    default: all
    version_added: 1.0.0
  systemd_units:
    description:
      - How the cgroups that are systemd units are written. With the systemd driver every cgroup this module
        writes is one - the containers' C(.scope) units and the pod, QoS-class and kubepods C(.slice) units.
      - systemd writes a unit's own C(MemoryMin=)/C(MemoryLow=)/C(MemoryHigh=) (0/0/infinity unless set) into its
        cgroup again whenever it re-applies the unit's settings, and the kubelet makes it do so all the time. It
        updates the QoS-class slices through systemd about once a minute, and every container's scope when it
        starts (its CPU manager sends the container's resources to the runtime, which sets them as unit
        properties), which puts a plain file write back to 0/0/max within seconds. Both were seen on the real
        kubelet in the collection's VM test.
      - V(auto) sets the values as runtime properties of the unit (C(systemctl set-property --runtime <unit>
        MemoryMin=... MemoryLow=... MemoryHigh=...), one call per unit and step of the write order), so systemd
        itself writes and keeps them, when the driver is systemd, O(cgroup_root) is C(/sys/fs/cgroup) and the
        node runs systemd (C(/run/systemd/system) exists); otherwise it writes the files. V(always) requires
        the systemd way, V(never) always writes the files only (as the Volcano agent does).
      - Through systemd, what systemd holds for each unit (one C(systemctl show) for up to 400 units) counts as
        well as the file - a value that is right in the file but not held by systemd would be undone at the
        next re-apply, so it is drift and is written. A cgroup that is not a loaded unit is written as a file.
      - The file is written too, so the value read back at once is the new one. Runtime properties live in
        C(/run) and end with the unit (the kubelet's slices and the containers' scopes are transient units) or
        at the next boot.
      - Was O(systemd_slices) (still accepted as an alias), which covered only the slices' C(memory.min)/C(memory.low).
    type: str
    choices: [auto, always, never]
    default: auto
    aliases: [systemd_slices]
    version_added: 1.0.0
'''

EXAMPLES = r'''
- name: Read the pods of this node
  kubernetes.core.k8s_info:
    kind: Pod
    field_selectors:
      - spec.nodeName={{ inventory_hostname }}
  register: node_pods
  delegate_to: localhost

- name: Read the ColocationConfigurations
  kubernetes.core.k8s_info:
    api_version: config.volcano.sh/v1alpha1
    kind: ColocationConfiguration
  register: colocation_configs
  delegate_to: localhost

- name: Apply memory QoS to the node's cgroups
  numaops.colocation.memory_qos:
    pods: "{{ node_pods.resources }}"
    configs: "{{ colocation_configs.resources }}"
    node_name: "{{ inventory_hostname }}"
  become: true

- name: The same, listing only what changed, drifted or was skipped (a short result on a full node)
  numaops.colocation.memory_qos:
    pods: "{{ node_pods.resources }}"
    configs: "{{ colocation_configs.resources }}"
    node_name: "{{ inventory_hostname }}"
    report: changes
  become: true

- name: Audit drift only (nothing is written)
  numaops.colocation.memory_qos:
    pods: "{{ node_pods.resources }}"
    source: annotations
  check_mode: true
  register: audit

- name: Container-level only, like the Volcano agent, from a file on the node
  numaops.colocation.memory_qos:
    pods_file: /var/tmp/pods.json
    source: annotations
    hierarchy: false
    cgroup_driver: systemd
'''

RETURN = r'''
written:
  description: Number of cgroup files written (in check mode, that would be written).
  returned: always
  type: int
  sample: 12
unchanged:
  description: Number of cgroup files that already held the expected value.
  returned: always
  type: int
  sample: 1308
skipped:
  description: Number of managed pods and containers skipped (cgroup vanished, also while being written,
    container not running, invalid UID, container ID or memory quantity, memory controller not enabled).
    Each has a reason in RV(pods) (a pod cgroup that vanished while being written, in RV(levels)).
  returned: always
  type: int
  sample: 1
ignored:
  description: Number of pods of the node left alone because they are not Ready or are being deleted (the Volcano agent does not handle them either).
  returned: always
  type: int
  sample: 2
managed:
  description: Number of managed pods (pods a configuration or annotation applies to), listed in RV(pods) or not.
  returned: always
  type: int
  sample: 110
pods:
  description:
    - One entry per managed pod (a pod a configuration or annotation applies to).
    - With O(report=changes), only the pods with a container written (or that would be), drifted or skipped, and
      the pods skipped whole.
  returned: always
  type: list
  elements: dict
  contains:
    namespace: {description: Pod namespace., type: str, returned: always}
    name: {description: Pod name., type: str, returned: always}
    uid: {description: Pod UID., type: str, returned: always}
    config_name: {description: Name of the ColocationConfiguration applied (null for a reset or an annotation without name)., type: str, returned: always}
    qos_class: {description: The pod's Kubernetes QoS class., type: str, returned: always}
    cgroup:
      description: The pod's cgroup, relative to O(cgroup_root).
      type: str
      returned: always
    reset: {description: Whether the pod is reset to max/0/0., type: bool, returned: always}
    skipped:
      description: Why the whole pod was skipped (null when it was not).
      type: str
      returned: always
    containers:
      description: Per container of C(spec.containers).
      type: list
      elements: dict
      returned: always
      contains:
        name: {description: Container name., type: str, returned: always}
        cgroup: {description: The container's cgroup relative to O(cgroup_root) (null when it cannot be named)., type: str, returned: always}
        expected:
          description: The values the kernel will hold (page-rounded), keyed C(memory.high), C(memory.low), C(memory.min).
          type: dict
          returned: always
          sample: {"memory.high": "858992640", "memory.low": "214745088", "memory.min": "107372544"}
        actual: {description: The values found before this run (null when skipped)., type: dict, returned: always}
        drift:
          description: The files whose actual value differs from the expected one, or whose value systemd holds for the unit does (see C(held)).
          type: list
          elements: str
          returned: always
        held:
          description:
            - With O(systemd_units) in effect, the files (of C(drift)) for which systemd held another value for the
              container's scope unit than the expected one (null when it could not be read); systemd would have put
              that value back. Empty otherwise.
          type: dict
          returned: when the container was not skipped
          sample: {"memory.low": "0"}
        changed: {description: Whether any file of this container was (or would be) written., type: bool, returned: always}
        skipped:
          description:
            - Why the container was skipped (null when it was not), for example its cgroup vanished (also while
              being written), an invalid container ID or memory quantity (the reason says what is allowed) or
              the memory controller is not enabled for its cgroup.
          type: str
          returned: always
levels:
  description:
    - The pod, QoS-class and kubepods cgroups and their C(memory.min)/C(memory.low) (sum of their children).
      Empty with O(hierarchy=false). With O(report=changes), only the levels that drifted or were skipped.
    - C(skipped) is null, or why the cgroup was not written (the memory controller is not enabled for it, or
      it vanished while being written).
    - C(held), like the containers' C(held), the files for which systemd held another value for the slice.
  returned: always
  type: list
  elements: dict
  sample:
    - {"cgroup": "kubepods.slice", "level": "kubepods", "expected": {"memory.min": "1073741824", "memory.low": "2147483648"},
       "actual": {"memory.min": "0", "memory.low": "0"}, "drift": ["memory.min", "memory.low"], "changed": true, "skipped": null}
writes:
  description:
    - The writes in the order they were (or would be) made.
    - C(via) is V(systemd) for a value set as a runtime property of the cgroup's systemd unit (see
      O(systemd_units); the file is written too), V(file) for a plain write.
    - C(held), only when systemd held another value for the unit than the expected one (null when it could not
      be read); C(old) is always the file's value. A write with C(old) equal to C(new) sets the unit's property
      only in effect - the file was right, but systemd would have put C(held) back.
  returned: always
  type: list
  elements: dict
  sample: [{"cgroup": "kubepods.slice", "file": "memory.min", "old": "0", "new": "1073741824", "level": 0, "via": "systemd"}]
cgroup_driver:
  description: The cgroup driver used.
  returned: always
  type: str
  sample: systemd
cgroup_driver_source:
  description:
    - Where the driver came from, C(option), C(environment CGROUP_DRIVER), C(kubelet_config)
      (O(kubelet_config_path)), the path of one of O(kubelet_flags_files), C(kubelet command line (...)) or C(tree).
  returned: always
  type: str
  sample: kubelet_config
page_size:
  description: The page size used for rounding.
  returned: always
  type: int
  sample: 4096
diff:
  description: Before/after text of the changed cgroup files (with diff mode).
  returned: when diff mode is on
  type: dict
'''

import errno
import json
import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native

from ansible_collections.numaops.colocation.plugins.module_utils import cgroup as cg
from ansible_collections.numaops.colocation.plugins.module_utils import colocation as co
from ansible_collections.numaops.colocation.plugins.module_utils import memqos as mq

try:
    import yaml
    HAS_YAML = True
except ImportError:
    yaml = None
    HAS_YAML = False

V2_FIX = ('memory.high, memory.low and memory.min exist only in the unified cgroup v2 hierarchy. Boot the '
          'node with systemd.unified_cgroup_hierarchy=1 on the kernel command line (the '
          'numaops.colocation.kernel_cmdline module can set it) and reboot; nothing was written.')
VANISHED = (errno.ENOENT, errno.ENODEV, errno.ESRCH)


class NodeError(Exception):
    pass


def load_pods_file(path):
    try:
        with open(path, 'rb') as handle:
            raw = handle.read().decode('utf-8')
    except (IOError, OSError) as exc:
        raise NodeError('pods_file %s cannot be read: %s' % (path, to_native(exc)))
    except UnicodeDecodeError:
        raise NodeError('pods_file %s is not UTF-8 text; give a JSON (or YAML) PodList' % path)
    try:
        data = json.loads(raw)
    except ValueError as json_error:
        if not HAS_YAML:
            raise NodeError('pods_file %s is not valid JSON (%s); YAML files need PyYAML on the node '
                            '(apt install python3-yaml, or pip install pyyaml), or save the pods as JSON '
                            '(kubectl get pods -o json)' % (path, json_error))
        try:
            data = yaml.safe_load(raw)
        except yaml.YAMLError as exc:
            raise NodeError('pods_file %s is neither JSON nor YAML: %s' % (path, to_native(exc)))
    return pods_from_document(data, 'pods_file %s' % path)


def pods_from_document(data, where):
    if isinstance(data, dict):
        if isinstance(data.get('items'), list):
            data = data['items']
        elif isinstance(data.get('resources'), list):
            data = data['resources']
        elif data.get('kind') == 'Pod':
            data = [data]
    if not isinstance(data, list):
        raise NodeError('%s holds no pods; allowed: a PodList (with items), a list of pods, or a '
                        'k8s_info result (with resources)' % where)
    for index, pod in enumerate(data):
        if not isinstance(pod, dict) or not isinstance(pod.get('metadata'), dict):
            raise NodeError('%s: item %d is not a pod object (a mapping with metadata, spec and status)'
                            % (where, index))
    return data


def read_text(path):
    with open(path, 'r') as handle:
        return handle.read()


class CgroupTree:
    """Reads the real (or stand-in) cgroup tree below cgroup_root, only under the kubepods cgroup."""

    def __init__(self, root, driver, kubelet_root):
        self.root = root
        self.driver = driver
        self.kubelet_root = kubelet_root
        self.snapshot = {}
        self.children = {}
        self.abs_top = cg.join_under(root, cg.kubepods_path(driver, kubelet_root), kubelet_root, driver)
        self.real_top = None
        self.real_dirs = {}

    def abspath(self, rel):
        path = cg.join_under(self.root, rel, self.kubelet_root, self.driver)
        # a symbolic link anywhere on the way (never present on a real cgroupfs) must not lead elsewhere;
        # the parents' resolution is cached (one realpath per pod, not per container)
        if self.real_top is None:
            self.real_top = os.path.realpath(self.abs_top)
        parent = os.path.dirname(path)
        if parent not in self.real_dirs:
            self.real_dirs[parent] = os.path.realpath(parent)
        if os.path.islink(path):
            real = os.path.realpath(path)
        else:
            real = os.path.join(self.real_dirs[parent], os.path.basename(path))
        if real != self.real_top and not real.startswith(self.real_top + os.sep):
            raise NodeError('refusing %s: it resolves to %s, outside the kubepods cgroup %s'
                            % (path, real, self.abs_top))
        return path

    def read_cgroup(self, rel, files):
        path = self.abspath(rel)
        if not os.path.isdir(path) or os.path.islink(path):
            return False
        values = {}
        for name in files:
            try:
                text = read_text(os.path.join(path, name))
            except (IOError, OSError) as exc:
                if exc.errno in VANISHED:
                    if not os.path.isdir(path):
                        return False
                    continue
                raise NodeError('cannot read %s/%s: %s' % (path, name, to_native(exc)))
            try:
                values[name] = mq.parse_value(text)
            except ValueError as exc:
                raise NodeError('%s/%s: %s' % (path, name, exc))
        self.snapshot[rel] = values
        return True

    def list_children(self, rel):
        path = self.abspath(rel)
        try:
            entries = sorted(e.name for e in os.scandir(path) if e.is_dir(follow_symlinks=False))
        except (IOError, OSError) as exc:
            if exc.errno in VANISHED:
                return []
            raise NodeError('cannot list %s: %s' % (path, to_native(exc)))
        kids = [rel + '/' + name for name in entries]
        self.children[rel] = kids
        return kids


def check_cgroup_v2(root):
    controllers_file = os.path.join(root, 'cgroup.controllers')
    if not os.path.exists(controllers_file):
        if os.path.exists(os.path.join(root, 'unified', 'cgroup.controllers')):
            kind = ('a cgroup v1/v2 hybrid (%s/unified is cgroup v2 without controllers; the memory controller '
                    'is on cgroup v1 at %s/memory)' % (root, root))
        else:
            kind = 'cgroup v1 (%s/cgroup.controllers does not exist)' % root
        raise NodeError('this node runs %s. %s' % (kind, V2_FIX))
    controllers = read_text(controllers_file).split()
    if 'memory' not in controllers:
        raise NodeError('the memory controller is not available in the unified cgroup hierarchy at %s '
                        '(cgroup.controllers lists: %s); it is still bound to cgroup v1. %s'
                        % (root, ' '.join(controllers) or 'nothing', V2_FIX))


def _read_optional(path):
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError):
        return None


def kubelet_cmdline(proc_root):
    """The command line of the process named kubelet under proc_root (as a list), or None."""
    try:
        entries = os.listdir(proc_root)
    except OSError:
        return None
    for entry in sorted(entries, key=lambda e: (len(e), e)):
        if not entry.isdigit():
            continue
        comm = _read_optional(os.path.join(proc_root, entry, 'comm'))
        if comm is None or comm.strip() != 'kubelet':
            continue
        try:
            with open(os.path.join(proc_root, entry, 'cmdline'), 'rb') as handle:
                raw = handle.read()
        except (IOError, OSError):
            continue
        return [to_native(a, errors='surrogate_or_strict') for a in raw.split(b'\0') if a]
    return None


def detect_driver(module, root, kubelet_root):
    """The kubelet's cgroup driver, found where the Volcano agent looks, in its order.

    Returns (driver, source, warnings). Sources: the option, E(CGROUP_DRIVER), the kubelet files, the
    running kubelet's command line, then (ours, instead of the agent's guess) the kubepods tree.
    """
    requested = module.params['cgroup_driver']
    if requested != 'auto':
        return requested, 'option', []
    candidates = []
    env = os.environ.get(cg.ENV_DRIVER, '')
    candidates.append(('environment %s' % cg.ENV_DRIVER, env if env in cg.DRIVERS else None))
    files = [module.params['kubelet_config_path']] + list(module.params['kubelet_flags_files'] or [])
    for path in files:
        if not path or not os.path.exists(path):
            continue
        try:
            text = read_text(path)
        except (IOError, OSError) as exc:
            raise NodeError('cannot read %s: %s' % (path, to_native(exc)))
        try:
            candidates.append(('kubelet_config' if path == files[0] else path, cg.driver_from_file(text)))
        except cg.CgroupPathError as exc:
            raise NodeError('%s: %s' % (path, exc))
    args = kubelet_cmdline(module.params['proc_root'])
    if args:
        try:
            driver, where = cg.driver_from_cmdline(args, _read_optional)
        except cg.CgroupPathError as exc:
            raise NodeError('the kubelet command line: %s' % exc)
        candidates.append(('kubelet command line (%s)' % where if where else 'kubelet command line', driver))
    driver, source, others = cg.choose_driver(candidates)
    warnings = []
    if others:
        warnings.append('the cgroup driver sources disagree: %s says %s, but %s. The Volcano agent uses the first '
                        '(%s); the kubelet lets a command-line flag override its config file. Set cgroup_driver '
                        'if %s is wrong' % (source, driver, ', '.join('%s says %s' % o for o in others),
                                            driver, driver))
    if driver:
        return driver, source, warnings

    def exists(rel):
        return os.path.isdir(os.path.join(root, rel))
    driver = cg.driver_from_tree(exists, kubelet_root)
    if driver:
        return driver, 'tree', warnings
    raise NodeError('cannot tell the kubelet cgroup driver: %s is not set, %s do not set cgroupDriver or '
                    '--cgroup-driver, no kubelet process shows it, and %s has %s. Set cgroup_driver to systemd '
                    'or cgroupfs (and kubelet_cgroup_root if the kubelet uses --cgroup-root)'
                    % (cg.ENV_DRIVER, ', '.join(files), root,
                       'both kubepods.slice and kubepods' if exists(cg.kubepods_path('systemd', kubelet_root))
                       else 'neither kubepods.slice nor kubepods'))


def use_systemd(params, driver, root):
    """Whether the cgroups that are systemd units are written through systemd (option systemd_units); raises
    NodeError for always where it cannot."""
    mode = params['systemd_units']
    if mode == 'never':
        return False
    why = None
    if driver != 'systemd':
        why = 'the cgroup driver is %s' % driver
    elif root != '/sys/fs/cgroup':
        why = 'cgroup_root is %s, not /sys/fs/cgroup' % root
    elif not os.path.isdir('/run/systemd/system'):
        why = 'the node does not run systemd (no /run/systemd/system)'
    if why and mode == 'always':
        raise NodeError('systemd_units=always, but %s; allowed there: auto or never' % why)
    return why is None


# units per systemctl show call: far below the kernel's argument limit even with long unit names
SHOW_CHUNK = 400


def read_held(module, cgroups):
    """{cgroup: {file: value}} of the ``cgroups`` that are loaded systemd units: what systemd holds for them
    (systemctl show, a few hundred units per call); raises NodeError when systemctl fails."""
    units = {}
    for cgroup in cgroups:
        unit = mq.systemd_unit(cgroup)
        if unit:
            units.setdefault(unit, []).append(cgroup)
    names = sorted(units)
    held = {}
    for start in range(0, len(names), SHOW_CHUNK):
        argv = mq.show_argv(names[start:start + SHOW_CHUNK])
        rc, out, err = module.run_command(argv)
        if rc != 0:
            raise NodeError('%s failed (exit %d): %s. Nothing was written; with systemd_units=never the module '
                            'writes the cgroup files only (systemd may then undo them)'
                            % (' '.join(argv[:4] + ['<%d units>' % (len(argv) - 4)]), rc,
                               (err or out).strip() or 'no output'))
        for unit, values in mq.parse_unit_properties(out).items():
            for cgroup in units.get(unit, []):
                held[cgroup] = values
    return held


def set_unit(module, cgroup, values):
    """systemctl set-property --runtime <unit> MemoryMin=... MemoryLow=... MemoryHigh=...; raises NodeError when
    it fails."""
    argv = mq.set_property_argv(mq.systemd_unit(cgroup), values)
    rc, out, err = module.run_command(argv)
    if rc != 0:
        raise NodeError('%s failed (exit %d): %s' % (' '.join(argv), rc, (err or out).strip() or 'no output'))


def earlier_writes(done):
    """What a failure message says about the writes made before it."""
    return '%d earlier writes were made: %s' % (
        len(done), ', '.join('%s/%s=%s' % (w['cgroup'], w['file'], w['new']) for w in done) or 'none')


def write_value(path, text):
    """Write like `echo value > file` but never create the file (the kernel refuses unknown files)."""
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC | getattr(os, 'O_NOFOLLOW', 0))
    try:
        os.write(fd, text.encode('ascii'))
    finally:
        os.close(fd)


def memory_fix(tree, parents):
    """What to do about cgroups below ``parents`` (relative paths) that have no memory.* files (message text)."""
    path = os.path.join(tree.root, parents[0]) if parents[0] else tree.root
    try:
        listed = read_text(os.path.join(tree.abspath(parents[0]), 'cgroup.subtree_control')).split()
        lists = ', which lists: %s' % (' '.join(listed) or 'nothing')
    except (IOError, OSError, NodeError, cg.CgroupPathError):
        lists = ''
    more = (' (and in that of %d more cgroup%s)' % (len(parents) - 1, 's' if len(parents) > 2 else '')
            if len(parents) > 1 else '')
    return ('memory is not in %s/cgroup.subtree_control%s%s. Enable it there (echo +memory > %s/cgroup.subtree_control; '
            'with the systemd driver, systemd enables it for units with MemoryAccounting=yes, the default with '
            'DefaultMemoryAccounting=yes in /etc/systemd/system.conf, and may undo a manual write) and run again'
            % (path, lists, more, path))


def problem_warnings(tree, problems):
    """One warning per invalid pod or container, and one per cgroup whose children lack the memory controller."""
    warnings = []
    nomem = {}
    for item in problems:
        if item['kind'] == 'invalid':
            if item['container'] is None:
                warnings.append('pod %s skipped: %s' % (item['pod'], item['reason']))
            else:
                warnings.append('pod %s container %s skipped: %s; nothing is written for it'
                                % (item['pod'], item['container'], item['reason']))
        else:
            nomem.setdefault(os.path.dirname(item['cgroup']), []).append(item)
    for parent, items in sorted(nomem.items()):
        names = []
        for item in items:
            if item['container'] is not None:
                names.append('container %s of pod %s (%s)' % (item['container'], item['pod'], item['cgroup']))
            else:
                names.append('%s cgroup %s' % (item['level'], item['cgroup']))
        warnings.append('skipped %s: no memory.high/memory.low/memory.min files, the memory controller is not '
                        'enabled below %s; %s' % ('; '.join(names), parent, memory_fix(tree, [parent])))
    return warnings


def build_diff(root, writes):
    before = ''.join('%s/%s: %s\n' % (w['cgroup'], w['file'], w['old']) for w in writes)
    after = ''.join('%s/%s: %s\n' % (w['cgroup'], w['file'], w['new']) for w in writes)
    return {'before': before, 'after': after,
            'before_header': '%s (before)' % root, 'after_header': '%s (after)' % root}


def mark_vanished(result, vanished, done, warnings, tree):
    """Report cgroups that vanished between planning and writing: a reason in pods/levels and a warning."""
    entries = {}
    for pod in result['pods']:
        for entry in pod['containers']:
            if entry['cgroup']:
                entries[entry['cgroup']] = ('container %s of pod %s/%s' % (entry['name'], pod['namespace'], pod['name']), entry)
    for entry in result['levels']:
        entries[entry['cgroup']] = ('%s cgroup' % entry['level'], entry)
    for cgroup, files in sorted(vanished.items()):
        if os.path.isdir(os.path.join(tree.root, cgroup)):
            text = '%s lost %s before they could be written (the memory controller was disabled meanwhile)'
        else:
            text = '%s vanished before %s could be written (the pod or container is gone)'
        reason = text % (cgroup, ', '.join(files))
        what, entry = entries.get(cgroup, ('cgroup', None))
        if entry is not None:
            entry['skipped'] = reason
            entry['changed'] = any(w['cgroup'] == cgroup for w in done)
        warnings.append('%s skipped: %s' % (what, reason))


def run(module):
    params = module.params
    root = os.path.normpath(params['cgroup_root'])
    kubelet_root = params['kubelet_cgroup_root'] or ''
    page_size = params['page_size'] or os.sysconf('SC_PAGE_SIZE')
    if page_size < 4096 or page_size & (page_size - 1):
        raise NodeError('page_size %d is not a page size; allowed: a power of two of at least 4096 '
                        '(leave it unset to use the node\'s)' % page_size)
    try:
        cg.root_components(kubelet_root)
    except cg.CgroupPathError as exc:
        raise NodeError(str(exc))

    # Inputs first: bad input fails before the node is even looked at.
    if params['pods_file']:
        pods = load_pods_file(params['pods_file'])
    else:
        pods = pods_from_document(params['pods'] or [], 'pods')
    configs = []
    if params['source'] == 'configs':
        if params['configs'] is None:
            raise NodeError('configs is required with source=configs (the ColocationConfiguration objects; '
                            'give [] to reset every pod that carries a colocation annotation), or use '
                            'source=annotations')
        for index, obj in enumerate(params['configs']):
            try:
                configs.append(co.parse_config(obj))
            except co.ColocationConfigError as exc:
                raise NodeError('configs[%d]: %s' % (index, exc))

    check_cgroup_v2(root)
    driver, driver_source, warnings = detect_driver(module, root, kubelet_root)

    decisions = []
    ignored = 0
    for pod in pods:
        if params['node_name'] and (pod.get('spec') or {}).get('nodeName') != params['node_name']:
            continue
        if mq.pod_handled(pod) is not None:
            ignored += 1
            continue
        try:
            decision = mq.pod_decision(pod, params['source'], configs)
        except co.ColocationConfigError as exc:
            raise NodeError(str(exc))
        if decision.get('invalid'):
            warnings.append('pod %s skipped: %s' % (mq.pod_ref(pod), decision['reason']))
        if decision['managed']:
            decisions.append((pod, decision))

    tree = CgroupTree(root, driver, kubelet_root)
    kubepods = cg.kubepods_path(driver, kubelet_root)
    if not tree.read_cgroup(kubepods, mq.CONTAINER_FILES):
        raise NodeError('the kubepods cgroup %s/%s does not exist: is this a Kubernetes node with cgroup '
                        'driver %s (from %s)? Set cgroup_driver / kubelet_cgroup_root to match the kubelet'
                        % (root, kubepods, driver, driver_source))
    qos_paths = [cg.qos_path(driver, q, kubelet_root) for q in ('Burstable', 'BestEffort')]
    hierarchy = params['hierarchy']
    batch_memory = params['batch_memory_resource']
    plans = [mq.pod_plan(pod, decision, driver, kubelet_root, page_size, batch_memory) for pod, decision in decisions]
    if hierarchy:
        for rel in tree.list_children(kubepods):
            tree.read_cgroup(rel, mq.PROTECTION_FILES)
        for rel in qos_paths:
            if rel in tree.snapshot:
                for child in tree.list_children(rel):
                    tree.read_cgroup(child, mq.PROTECTION_FILES)
    for plan in plans:
        if plan['skipped'] or not plan['cgroup']:
            continue
        if plan['cgroup'] not in tree.snapshot and not tree.read_cgroup(plan['cgroup'], mq.PROTECTION_FILES):
            continue
        if hierarchy:
            for child in tree.list_children(plan['cgroup']):
                tree.read_cgroup(child, mq.CONTAINER_FILES)
        else:
            for entry in plan['containers']:
                if entry['cgroup'] and not entry['skipped']:
                    tree.read_cgroup(entry['cgroup'], mq.CONTAINER_FILES)

    via_systemd = use_systemd(params, driver, root)
    held = {}
    if via_systemd:
        # the cgroups this run may write: the managed containers, and with hierarchy their pods and the levels
        candidates = set()
        for plan in plans:
            if plan['skipped'] or plan['cgroup'] not in tree.snapshot:
                continue
            if hierarchy:
                candidates.add(plan['cgroup'])
            candidates.update(entry['cgroup'] for entry in plan['containers']
                              if entry['cgroup'] and not entry['skipped'] and entry['cgroup'] in tree.snapshot)
        if hierarchy:
            candidates.update(rel for rel in qos_paths + [kubepods] if rel in tree.snapshot)
        held = read_held(module, sorted(candidates))
    result = mq.plan_node(plans, tree.snapshot, tree.children, {'kubepods': kubepods, 'qos': qos_paths},
                          hierarchy=hierarchy, page_size=page_size, held=held)
    nomem = [p for p in result['problems'] if p['kind'] == 'no_memory_controller' and p['container'] is not None]
    if nomem and len(nomem) == result['containers_found']:
        parents = sorted(set(os.path.dirname(p['cgroup']) for p in nomem))
        raise NodeError('no running container to manage can be written (%d found): their cgroups have no '
                        'memory.high/memory.low/memory.min because the memory controller is not enabled below '
                        '%s%s; %s. Nothing was written'
                        % (len(nomem), ', '.join(parents[:5]), ' and %d more' % (len(parents) - 5) if len(parents) > 5 else '',
                           memory_fix(tree, parents)))
    warnings.extend(problem_warnings(tree, result['problems']))

    done = []
    vanished = {}
    mismatched = []
    unreadable = []
    for write in result['writes']:
        write['via'] = 'systemd' if write['cgroup'] in held else 'file'
    batches = mq.write_batches(result['writes'])
    if not module.check_mode:
        for batch in batches:
            cgroup = batch[0]['cgroup']
            if cgroup in vanished:
                vanished[cgroup].extend(write['file'] for write in batch)
                continue
            try:
                if batch[0]['via'] == 'systemd':
                    # all of the unit's values of this step in one call; then the files too: systemd may apply
                    # the property after its answer, and the value read back below must be the one written
                    # (systemd then writes the same value)
                    if not os.path.isdir(tree.abspath(cgroup)):
                        raise IOError(errno.ENOENT, 'the cgroup is gone', tree.abspath(cgroup))
                    try:
                        set_unit(module, cgroup, dict((write['file'], write['new']) for write in batch))
                    except NodeError:
                        if not os.path.isdir(tree.abspath(cgroup)):
                            raise IOError(errno.ENOENT, 'the unit is gone', tree.abspath(cgroup))
                        raise
            except (IOError, OSError, NodeError) as exc:
                if isinstance(exc, (IOError, OSError)) and exc.errno in VANISHED:
                    vanished[cgroup] = [write['file'] for write in batch]
                    continue
                raise NodeError('%s. %s' % (to_native(exc), earlier_writes(done)))
            for write in batch:
                if cgroup in vanished:
                    vanished[cgroup].append(write['file'])
                    continue
                path = os.path.join(tree.abspath(cgroup), write['file'])
                try:
                    write_value(path, write['new'])
                except (IOError, OSError) as exc:
                    if exc.errno in VANISHED:
                        vanished[cgroup] = [write['file']]
                        continue
                    raise NodeError('writing %s to %s failed: %s. %s'
                                    % (write['new'], path, to_native(exc), earlier_writes(done)))
                done.append(write)
                try:
                    stored = mq.to_text(mq.parse_value(read_text(path)))
                except (IOError, OSError, ValueError) as exc:
                    unreadable.append('%s (%s)' % (path, to_native(exc)))
                    continue
                if stored != write['new']:
                    mismatched.append('%s holds %s after writing %s' % (path, stored, write['new']))
        if mismatched:
            warnings.append('the kernel stored other values than written (is page_size %d right?): %s'
                            % (page_size, '; '.join(mismatched[:10])))
        if unreadable:
            warnings.append('%d written value(s) could not be read back, so whether the kernel kept them is unknown: %s'
                            % (len(unreadable), '; '.join(unreadable[:10])))
    else:
        done = [write for batch in batches for write in batch]

    mark_vanished(result, vanished, done, warnings, tree)
    pods_shown, levels_shown = mq.report_entries(result['pods'], result['levels'], params['report'])

    output = dict(
        changed=bool(done),
        written=len(done),
        unchanged=result['unchanged'],
        skipped=result['skipped'] + len(vanished),
        ignored=ignored,
        managed=len(result['pods']),
        pods=pods_shown,
        levels=levels_shown,
        writes=done,
        cgroup_driver=driver,
        cgroup_driver_source=driver_source,
        page_size=page_size,
    )
    if module._diff:
        output['diff'] = build_diff(root, done)
    return output, warnings


def main():
    module = AnsibleModule(
        argument_spec=dict(
            pods=dict(type='list', elements='dict'),
            pods_file=dict(type='path'),
            source=dict(type='str', choices=['configs', 'annotations'], default='configs'),
            configs=dict(type='list', elements='dict'),
            node_name=dict(type='str'),
            cgroup_root=dict(type='path', default='/sys/fs/cgroup'),
            cgroup_driver=dict(type='str', choices=['auto', 'systemd', 'cgroupfs'], default='auto'),
            kubelet_config_path=dict(type='path', default=cg.KUBELET_CONFIG_FILE),
            kubelet_flags_files=dict(type='list', elements='path',
                                     default=[cg.KUBELET_KUBECONFIG_FILE, cg.KUBEADM_FLAGS_FILE]),
            proc_root=dict(type='path', default='/proc'),
            batch_memory_resource=dict(type='str', default=mq.BATCH_MEMORY),
            kubelet_cgroup_root=dict(type='str', default=''),
            hierarchy=dict(type='bool', default=True),
            page_size=dict(type='int'),
            report=dict(type='str', choices=list(mq.REPORTS), default='all'),
            systemd_units=dict(type='str', choices=['auto', 'always', 'never'], default='auto',
                               aliases=['systemd_slices']),
        ),
        mutually_exclusive=[('pods', 'pods_file')],
        required_one_of=[('pods', 'pods_file')],
        supports_check_mode=True,
    )
    try:
        output, warnings = run(module)
    except (NodeError, mq.MemQosError, cg.CgroupPathError) as exc:
        module.fail_json(msg=to_native(exc))
    for warning in warnings:
        module.warn(warning)
    module.exit_json(**output)


if __name__ == '__main__':
    main()
