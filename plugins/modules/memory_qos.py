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
short_description: Apply memory QoS (Volcano ColocationConfiguration, Koordinator NodeSLO or the kubelet's own) to a node's cgroup v2 tree
version_added: 1.0.0
description:
  - What decides the values is the O(flavour). With the default V(volcano) the module does the job of the Volcano
    agent's memory QoS handler for a whole node in one call. For every running container of every pod that a
    ColocationConfiguration (C(config.volcano.sh/v1alpha1)) selects, it writes C(memory.high), C(memory.low) and
    C(memory.min) of the container's cgroup.
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
  - With O(flavour=kubelet) the values are those the kubelet's own memory QoS (feature gate C(MemoryQoS), kubelet
    1.37) gives every container, pod, QoS class and the kubepods cgroup, from the pods' memory requests and limits
    and O(flavour_config); for auditing (check mode) or putting back what the kubelet would have set.
  - With O(flavour=koordinator) the values are those Koordinator's koordlet writes on cgroup v2 (its cgroup reconcile,
    feature gate C(CgroupReconcile)) from the node's NodeSLO and each pod's class (label C(koordinator.sh/qosClass)),
    given in O(flavour_config); see C(docs/koordinator.md) in the collection.
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
    details: The action plugin cuts each pod of O(pods) down to the fields the module (and its O(flavour)) reads
      before the pods are sent to the node.
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
        C(status.phase),
        C(status.qosClass) and C(status.containerStatuses[]) (name, containerID, state).
      - Only those fields (and C(apiVersion), C(kind), C(status.phase)) are sent to the node; the rest of each
        pod (C(managedFields), environment, volumes, probes, ...) is dropped on the controller, so a full node's
        pods from M(kubernetes.core.k8s_info) travel as a fraction of their size.
      - Like the Volcano agent's pod probe, only pods with the condition C(Ready=True) and no
        C(deletionTimestamp) are handled; the cgroup files of every other pod are left as they are
        (counted in RV(ignored)). With O(flavour=kubelet), every pod whose C(status.phase) is not C(Succeeded) or
        C(Failed) is handled, and C(spec.initContainers), C(spec.overhead) and C(spec.resources) are read as well.
        With O(flavour=koordinator), every pod in phase C(Pending) or C(Running) is handled, Ready or not, being
        deleted or not (koordlet's rule), and the same three fields are read as well.
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
  flavour:
    description:
      - What decides the values (one file of the collection's C(plugins/module_utils/memqos_flavours) each).
      - V(volcano) - Volcano's ColocationConfiguration as the Volcano agent applies it; its inputs are O(source),
        O(configs) and O(batch_memory_resource).
      - V(kubelet) - the kubelet's memory QoS (feature gate C(MemoryQoS), KEP-2570, as kubelet 1.37 computes it); its
        inputs are O(flavour_config). Every pod that has not finished is handled (the kubelet sets the values when it
        creates a container, Ready or not), and the levels get the kubelet's values rather than sums.
      - V(koordinator) - Koordinator's memory QoS as koordlet computes it from a NodeSLO (C(spec.resourceQOSStrategy),
        over Koordinator's defaults) and each pod's class (C(koordinator.sh/qosClass), else from its Kubernetes QoS
        class) and C(koordinator.sh/memoryQOS) annotation; its inputs are O(flavour_config). The pod cgroups get the
        pod's request times the class's percentages, the QoS-class and kubepods cgroups the sums koordlet writes.
    type: str
    choices: [koordinator, kubelet, volcano]
    default: volcano
    version_added: 1.0.0
  flavour_config:
    description:
      - The inputs of flavours that have no options of their own; each flavour refuses keys it does not know.
      - "For O(flavour=kubelet): C(memory_reservation_policy) (V(None), the kubelet's default, or V(TieredReservation):
        the kubelet's C(memoryReservationPolicy)), C(memory_throttling_factor) (the kubelet's C(memoryThrottlingFactor),
        greater than 0 and at most 1; unset, the kubelet's default, sets no C(memory.high)), C(allocatable_memory)
        (the Node's C(status.allocatable.memory), required with C(memory_throttling_factor): a container without a
        memory limit is throttled relative to it, with the eviction threshold added back as the kubelet does),
        C(eviction_hard_memory_available) (the kubelet's C(evictionHard) C(memory.available): a quantity, default
        V(100Mi) as the kubelet's, or a percentage of C(capacity_memory)), C(capacity_memory) (the Node's
        C(status.capacity.memory), needed only for a percentage) and C(hugepages_capacity) (the Node's
        C(status.capacity), of which the C(hugepages-<size>) entries count - the node's pre-allocated huge pages,
        which the Node's allocatable memory has taken off and the kubelet adds back for C(memory.high))."
      - "For O(flavour=koordinator): C(node_slo) (required: the node's NodeSLO object, C(slo.koordinator.sh/v1alpha1),
        as the API returns it; a percentage that is not an integer from 0 to 100, a field it does not know or a value
        of the wrong type fails the module before anything is written) and C(allocatable_memory) (the Node's
        C(status.allocatable.memory), required when a class has a C(throttlingPercent): a container without a memory
        limit is throttled relative to it)."
    type: dict
    default: {}
    version_added: 1.0.0
  source:
    description:
      - For O(flavour=volcano).
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
      - ColocationConfiguration objects (as the API returns them, or manifests) for O(source=configs)
        (O(flavour=volcano) only; other flavours refuse it).
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
      - For O(flavour=volcano).
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
  description:
    - Number of pods of the node left alone because they are not Ready or are being deleted (the Volcano agent does
      not handle them either); with O(flavour=kubelet), because they have finished; with O(flavour=koordinator), because
      their phase is neither C(Pending) nor C(Running).
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
    config_name:
      description:
        - Name of the ColocationConfiguration applied (null for a reset or an annotation without name).
        - With O(flavour=koordinator), the Koordinator QoS class whose settings apply (C(SYSTEM), C(LSE), C(LSR), C(LS) or C(BE)).
      type: str
      returned: always
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

import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native

from ansible_collections.numaops.colocation.plugins.module_utils import cgroup as cg
from ansible_collections.numaops.colocation.plugins.module_utils import memqos as mq
from ansible_collections.numaops.colocation.plugins.module_utils import memqos_node as node
from ansible_collections.numaops.colocation.plugins.module_utils.memqos_flavours import DEFAULT, FLAVOURS
from ansible_collections.numaops.colocation.plugins.module_utils.memqos_node import (
    NodeError, read_cgroup_file, use_systemd, write_value)

try:
    import yaml
    HAS_YAML = True
except ImportError:
    yaml = None
    HAS_YAML = False


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
        pods = node.load_pods_file(params['pods_file'], yaml if HAS_YAML else None)
    else:
        pods = node.pods_from_document(params['pods'] or [], 'pods')
    flavour = FLAVOURS[params['flavour']](dict(params, page_size=page_size))

    node.check_cgroup_v2(root)
    driver, driver_source, warnings = node.detect_driver(params, root, kubelet_root)

    decisions = []
    active = []
    ignored = 0
    for pod in pods:
        if params['node_name'] and (pod.get('spec') or {}).get('nodeName') != params['node_name']:
            continue
        if flavour.ignored(pod) is not None:
            ignored += 1
            continue
        active.append(pod)
        decision = flavour.decide(pod)
        if decision.get('invalid'):
            state = 'applied' if decision['managed'] else 'skipped'
            warnings.append('pod %s %s: %s' % (mq.pod_ref(pod), state, decision['reason']))
        if decision['managed']:
            decisions.append((pod, decision))

    tree = node.CgroupTree(root, driver, kubelet_root)
    kubepods = cg.kubepods_path(driver, kubelet_root)
    if not tree.read_cgroup(kubepods, mq.CONTAINER_FILES):
        raise NodeError('the kubepods cgroup %s/%s does not exist: is this a Kubernetes node with cgroup '
                        'driver %s (from %s)? Set cgroup_driver / kubelet_cgroup_root to match the kubelet'
                        % (root, kubepods, driver, driver_source))
    qos = dict((q, cg.qos_path(driver, q, kubelet_root)) for q in ('Burstable', 'BestEffort'))
    qos_paths = [qos['Burstable'], qos['BestEffort']]
    hierarchy = params['hierarchy']
    plans = [mq.pod_plan(pod, decision, driver, kubelet_root, page_size, flavour.container_values)
             for pod, decision in decisions]
    node.read_tree(tree, plans, kubepods, qos_paths, hierarchy)
    given = flavour.level_values(active) if hierarchy else {}
    level_values = dict((kubepods if name == 'kubepods' else qos[name], values) for name, values in given.items())

    held = {}
    if use_systemd(params, driver, root):
        held = node.read_held(module.run_command, node.held_candidates(tree, plans, kubepods, qos_paths, hierarchy))
    result = mq.plan_node(plans, tree.snapshot, tree.children, {'kubepods': kubepods, 'qos': qos_paths},
                          hierarchy=hierarchy, page_size=page_size, held=held, level_values=level_values)
    node.fail_without_memory_controller(tree, result)
    warnings.extend(node.problem_warnings(tree, result['problems']))

    for write in result['writes']:
        write['via'] = 'systemd' if write['cgroup'] in held else 'file'
    batches = mq.write_batches(result['writes'])
    vanished = {}
    if module.check_mode:
        done = [write for batch in batches for write in batch]
    else:
        done, vanished, write_warnings = node.apply_writes(batches, tree, module.run_command, page_size,
                                                           write_value, read_cgroup_file)
        warnings.extend(write_warnings)

    node.mark_vanished(result, vanished, done, warnings, tree)
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
        output['diff'] = node.build_diff(root, done)
    return output, warnings


def main():
    module = AnsibleModule(
        argument_spec=dict(
            pods=dict(type='list', elements='dict'),
            pods_file=dict(type='path'),
            flavour=dict(type='str', choices=sorted(FLAVOURS), default=DEFAULT),
            flavour_config=dict(type='dict', default={}),
            source=dict(type='str', choices=['configs', 'annotations'], default='configs'),
            configs=dict(type='list', elements='dict'),
            node_name=dict(type='str'),
            cgroup_root=dict(type='path', default='/sys/fs/cgroup'),
            cgroup_driver=dict(type='str', choices=['auto', 'systemd', 'cgroupfs'], default='auto'),
            kubelet_config_path=dict(type='path', default=cg.KUBELET_CONFIG_FILE),
            kubelet_flags_files=dict(type='list', elements='path',
                                     default=[cg.KUBELET_KUBECONFIG_FILE, cg.KUBEADM_FLAGS_FILE]),
            proc_root=dict(type='path', default='/proc'),
            batch_memory_resource=dict(type='str', default='kubernetes.io/batch-memory'),
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
