#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: numa_facts
short_description: A node's NUMA topology and the kubelet's CPU and memory placement on it, as facts
version_added: 1.0.0
description:
  - Reads the node's NUMA topology from sysfs and the kubelet's placement from its state files, and returns
    it as the fact C(numaops_numa). Reads only; changes nothing; the same in check mode.
  - Per NUMA node, its CPUs, its physical cores with their SMT siblings, sockets, memory total and free
    (C(node<N>/meminfo)), huge pages per size (total and free), its row of the distance matrix, and the
    kubelet's reserved, exclusive and still free exclusive CPUs on it.
  - The node's isolated CPUs (C(/sys/devices/system/cpu/isolated)) and C(nohz_full) CPUs, and both as given
    on the kernel command line; network, GPU and NVMe PCI devices with their NUMA node; the cgroup version and
    the kubelet's cgroup driver.
  - From C(cpu_manager_state) the CPU manager policy, the default (shared) CPU set and each container's exclusive
    CPUs with their NUMA nodes; from C(memory_manager_state) the memory manager's per-NUMA-node machine state and
    each container's memory blocks with their NUMA nodes. Checkpoint formats of kubelet 1.23 to 1.37 (with and
    without the C(data) field) are read.
  - Or the same from the kubelet's pod-resources API (C(GetAllocatableResources) and C(List) of
    C(v1.PodResourcesLister) on C(<state_dir>/pod-resources/kubelet.sock)), see O(kubelet_source). The messages
    are decoded by the collection itself; the node needs only the Python gRPC library (Debian's
    C(python3-grpcio), or C(grpcio) from PyPI), not the protobuf package or generated code.
    C(numaops_numa.kubelet.source) says which source was read and why.
  - Every container of every QoS class (Guaranteed, Burstable, BestEffort) where the kernel placed it, from its
    cgroup v2 under the kubelet's kubepods cgroup (C(kubepods.slice/...) with the systemd cgroup driver,
    C(kubepods/...) with cgroupfs, below the kubelet's C(cgroupRoot)) -
    C(cpuset.cpus.effective), C(cpuset.mems.effective) and C(memory.numa_stat) (anon, page cache and kernel
    memory per NUMA node). Each file is read with a size limit; a file that is missing, too large, not UTF-8
    or does not parse is listed in C(unknown). On cgroup v1 the placement is not read (V(null)).
  - An entry of C(cpu_manager_state) or C(memory_manager_state) whose pod has no cgroup is marked C(stale) (the
    pod no longer runs); its CPUs do not count as exclusive.
  - With O(pods) (the node's pods from the API), placements carry the namespace and pod name as well as the
    pod UID, and container cgroups their container name. A UID not among O(pods) keeps namespace and pod V(null) (a pod deleted since, or a static pod
    whose mirror pod was not given).
  - A file that is missing, unreadable or does not parse is listed in C(unknown) with its path and why; its
    value is V(null). Nothing is guessed.
  - Standard library only on the node; one module call.
author:
  - numaops.colocation developers (@numaops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.facts
attributes:
  check_mode:
    support: full
    details: Reads only, so check mode returns the same facts.
  diff_mode:
    support: none
  facts:
    support: full
  platform:
    platforms: posix
options:
  root:
    description:
      - Directory the node's filesystem is read from (C(sys/...), C(proc/cmdline), the kubelet files below it).
        V(/) on a node; a copied or recorded tree otherwise.
    type: path
    default: /
  kubelet_config:
    description:
      - The kubelet configuration file, below O(root). Its top-level plain scalars C(cpuManagerPolicy),
        C(memoryManagerPolicy), C(topologyManagerPolicy), C(topologyManagerScope), C(reservedSystemCPUs) and
        C(cgroupDriver) are read, from block-style YAML or JSON (no YAML library is needed on the node).
      - kubespray keeps it at C(/etc/kubernetes/kubelet-config.yaml).
    type: path
    default: /var/lib/kubelet/config.yaml
  state_dir:
    description:
      - The kubelet's state directory (its C(--root-dir), holding C(cpu_manager_state), C(memory_manager_state) and
        C(pod-resources/kubelet.sock)), below O(root).
    type: path
    default: /var/lib/kubelet
  kubelet_source:
    description:
      - Where the kubelet's exclusive CPUs and memory-manager blocks are read from.
      - V(auto) reads the kubelet's pod-resources API when its socket exists and the Python gRPC library imports,
        the checkpoint files otherwise; a failed API call falls back to the checkpoint files too, and
        C(numaops_numa.kubelet.source) says why.
      - V(pod_resources) reads the API and fails, naming the socket and the reason, when it cannot.
      - V(checkpoints) reads C(cpu_manager_state) and C(memory_manager_state) only.
    type: str
    choices: [auto, pod_resources, checkpoints]
    default: auto
  pods:
    description:
      - The node's pods as API objects (C(metadata.namespace), C(metadata.name), C(metadata.uid), the
        C(kubernetes.io/config.mirror) annotation and the C(name) and C(containerID) of
        C(status.containerStatuses), C(status.initContainerStatuses) and C(status.ephemeralContainerStatuses) are
        used), for example the C(resources) of
        C(kubernetes.core.k8s_info) with C(field_selectors=spec.nodeName=<node>).
      - The refused pods of RV(ansible_facts.numaops_numa.refusals) also use C(metadata.ownerReferences),
        C(metadata.labels.pod-template-hash), C(metadata.creationTimestamp), C(spec.containers),
        C(spec.initContainers), C(spec.overhead) and C(status) (C(phase), C(reason), C(message), C(qosClass)).
      - Not given, placements carry pod UIDs only and RV(ansible_facts.numaops_numa.refusals) is V(null).
    type: list
    elements: dict
notes:
  - Free exclusive CPUs of a NUMA node are, under the static CPU manager policy, the CPUs of its default set that
    are not in C(reservedSystemCPUs); without the static policy no CPU is exclusive and the value is V(null).
  - A PCI device whose C(numa_node) is V(-1) (the firmware gives no locality) has C(numa_node) V(null).
  - The pod-resources API reports what the running kubelet applies, and the policies are derived from it (V(static)
    when the kubelet has CPUs to give exclusively, V(Static) when it has allocatable memory per NUMA node). It names
    pods by namespace and name; their UIDs (for C(stale)) come from O(pods), and without O(pods) C(pod_uid) and
    C(stale) are V(null). The memory manager's C(machine_state) has C(allocatable) per NUMA node and resource,
    C(reserved) and C(free) from the listed blocks (V(null) on a NUMA node that a block spanning several nodes
    touches), and no C(total) or C(systemReserved) (V(null)).
  - The socket is the kubelet's own, readable by root only; run the module with become.
seealso:
  - module: numaops.colocation.kubelet_config
  - name: NUMA topology and placement (docs/numa.md)
    description: The facts, the fleet report and the Prometheus textfile.
    link: https://github.com/numaops/colocation/blob/main/docs/numa.md
'''

EXAMPLES = r'''
- name: Read the NUMA topology and the kubelet's placement
  numaops.colocation.numa_facts:

- name: Name the placements after the pods
  kubernetes.core.k8s_info:
    kind: Pod
    field_selectors: ["spec.nodeName={{ inventory_hostname }}"]
  delegate_to: localhost
  register: node_pods

- name: NUMA facts with pod names
  numaops.colocation.numa_facts:
    pods: "{{ node_pods.resources }}"

- name: The kubelet's placement from its pod-resources API (the node has python3-grpcio)
  numaops.colocation.numa_facts:
    kubelet_source: pod_resources
    pods: "{{ node_pods.resources }}"
  become: true

- name: Exclusive CPUs per container
  ansible.builtin.debug:
    msg: "{{ item.namespace }}/{{ item.pod }}/{{ item.container }}: CPUs {{ item.cpus }} on NUMA {{ item.numa_nodes }}"
  loop: "{{ numaops_numa.kubelet.cpu_manager.exclusive | default([], true) | rejectattr('stale') }}"

- name: Every container where the kernel placed it
  ansible.builtin.debug:
    msg: "{{ item.namespace }}/{{ item.pod }}/{{ item.container }} ({{ item.qos }}): CPUs {{ item.cpus }}, memory nodes {{ item.mems }}"
  loop: "{{ (numaops_numa.placement | default({}, true)).containers | default([]) }}"
'''

RETURN = r'''
ansible_facts:
  description: Facts set.
  returned: always
  type: dict
  contains:
    numaops_numa:
      description: The node's NUMA topology and placement.
      returned: always
      type: dict
      contains:
        schema:
          description: Version of this structure.
          type: int
          sample: 1
        root:
          description: O(root).
          type: str
        online_cpus:
          description: Online CPUs (C(/sys/devices/system/cpu/online)); V(null) when unknown.
          type: str
          sample: 0-127
        cpu_count:
          description: Number of online CPUs.
          type: int
          sample: 128
        core_count:
          description: Physical cores whose topology is known.
          type: int
          sample: 64
        threads_per_core:
          description: CPUs per core (2 with SMT); a list when cores differ; V(null) when unknown.
          type: raw
          sample: 2
        numa_node_ids:
          description: NUMA node numbers.
          type: list
          elements: int
          sample: [0, 1]
        numa_nodes:
          description: One entry per NUMA node.
          type: list
          elements: dict
          contains:
            id: {description: NUMA node number., type: int}
            cpus: {description: Its CPUs as a CPU list., type: str, sample: "0-31,64-95"}
            cpu_ids: {description: Its CPUs., type: list, elements: int}
            cores:
              description: Its physical cores, lowest CPU first, each with C(core_id), C(socket) and C(cpus) (the SMT siblings).
              type: list
              elements: dict
            cores_complete: {description: Whether the core of every CPU of the node is known., type: bool}
            sockets: {description: Sockets its cores are on., type: list, elements: int}
            memory_total_bytes: {description: MemTotal of C(node<N>/meminfo) in bytes., type: int}
            memory_free_bytes: {description: MemFree of C(node<N>/meminfo) in bytes., type: int}
            memory_used_without_cache_bytes:
              description: C(MemTotal - MemFree - FilePages - SReclaimable) of C(node<N>/meminfo) in bytes (used
                without page cache and reclaimable slab); V(null) when one of the lines is missing.
              type: int
            hugepages:
              description: Per size (V(2Mi), V(1Gi), ...) C(total) and C(free) pages, C(page_bytes), C(total_bytes), C(free_bytes).
              type: dict
            distances: {description: Its row of the distance matrix (C(node<N>/distance))., type: list, elements: int}
            reserved_cpus: {description: Its CPUs in C(reservedSystemCPUs)., type: str}
            exclusive_cpus: {description: Its CPUs given exclusively to containers., type: str}
            free_exclusive_cpus: {description: Its CPUs still free for exclusive allocation (static policy only)., type: str}
            free_exclusive_cpu_count: {description: Their number., type: int}
        sockets:
          description: Sockets with their CPUs and NUMA nodes.
          type: list
          elements: dict
        distances:
          description: The distance matrix, one row per NUMA node in C(numa_node_ids) order.
          type: list
          elements: list
        isolated_cpus:
          description: C(/sys/devices/system/cpu/isolated).
          type: str
        nohz_full_cpus:
          description: C(/sys/devices/system/cpu/nohz_full); V(null) when the kernel has no such file.
          type: str
        cmdline:
          description: C(isolcpus) and C(nohz_full) CPU lists of C(/proc/cmdline) (flags of isolcpus dropped).
          type: dict
        pci_devices:
          description: Network (C(kind=network)), display (C(gpu)) and NVMe (C(nvme)) PCI devices with C(address),
            C(class), C(vendor), C(device), C(numa_node) and C(names) (interfaces, nvme controllers, DRM nodes).
          type: list
          elements: dict
        cgroup:
          description: C(version) (1 or 2), C(driver) (the kubelet's cgroupDriver) and C(driver_source).
          type: dict
        kubelet:
          description:
            - C(config_path), C(config) (the scalars read), C(reserved_cpus).
            - C(cpu_manager) with C(policy), C(default_cpus) and C(exclusive) (each with C(pod_uid), C(namespace),
              C(pod), C(container), C(cpus), C(cpu_count), C(numa_nodes), C(stale)).
            - C(memory_manager) with C(policy), C(machine_state) (per NUMA node and resource C(total),
              C(systemReserved), C(allocatable), C(reserved), C(free) bytes) and C(containers) (each with
              C(pod_uid), C(namespace), C(pod), C(container), C(numa_nodes), C(stale) and C(blocks) of C(resource),
              C(bytes), C(numa_nodes)).
            - C(stale) is V(true) when the entry's pod has no cgroup (it no longer runs), V(false) when it has one.
              When the cgroups could not be read it comes from O(pods), V(true) when the pod is not among them or
              has finished (phase C(Succeeded) or C(Failed)); V(null) when O(pods) was not given either.
            - C(found) is V(false) when the node has no kubelet (neither the configuration nor a state file
              exists).
            - C(source), the source of C(cpu_manager) and C(memory_manager) (see O(kubelet_source)), with C(requested)
              (O(kubelet_source)), C(used) (V(pod_resources) or V(checkpoints)), C(socket) (the pod-resources
              socket) and C(why), one sentence. With V(pod_resources), C(cpu_manager) also has C(allocatable_cpus)
              (the CPUs the kubelet may give exclusively).
          type: dict
        placement:
          description:
            - Every container cgroup under the kubepods cgroup, where the kernel placed it; V(null) when the
              cgroups could not be read (cgroup v1, no kubepods cgroup; C(unknown) says why).
          type: dict
          contains:
            driver:
              description: The cgroup driver whose layout was read.
              type: str
              sample: systemd
            kubepods:
              description: The kubepods cgroup read.
              type: str
              sample: /sys/fs/cgroup/kubepods.slice
            pod_uids:
              description: UIDs of the pods that have a cgroup.
              type: list
              elements: str
            containers:
              description:
                - One entry per container cgroup (the pod sandbox included), each with C(pod_uid), C(namespace),
                  C(pod), C(container) (V(null) when O(pods) does not name it), C(container_id), C(runtime)
                  (V(null) for a bare ID under the cgroupfs driver, which containerd and docker both use),
                  C(qos) (V(Guaranteed), V(Burstable) or V(BestEffort)), C(cgroup) (its path), C(cpus) and
                  C(cpu_count) (C(cpuset.cpus.effective)), C(cpu_numa_nodes), C(mems) (C(cpuset.mems.effective)),
                  C(memory_known), C(exclusive) (its CPUs are the CPU manager's exclusive ones; V(null) without a
                  container name), C(koordinator_class) (Koordinator's QoS class of its pod - the
                  C(koordinator.sh/qosClass) label, else V(LSR), V(LS) or V(BE) from the Kubernetes QoS class),
                  C(koordinator_class_from_label) and C(volcano_qos_level) (the pod's C(volcano.sh/qos-level)
                  annotation); all three V(null) when O(pods) does not have the pod.
                - C(numa), one entry per NUMA node holding its CPUs or memory, with C(numa_node), C(cpus),
                  C(cpu_count), C(anon_bytes), C(file_bytes) (page cache) and C(kernel_bytes) (kernel stack,
                  page tables, slab) of C(memory.numa_stat).
              type: list
              elements: dict
        refusals:
          description:
            - The pods of O(pods) the kubelet refused at admission for NUMA alignment, oldest first; V(null) when
              O(pods) was not given. The kubelet leaves such a pod in phase C(Failed) with C(status.reason)
              C(TopologyAffinityError) (the topology manager), C(SMTAlignmentError) (the CPU manager's
              full-pcpus-only) or C(UnexpectedAdmissionError) (another allocation failure of the CPU, memory or
              device manager) and C(status.message) starting with C(Pod was rejected).
            - Each with C(namespace), C(pod), C(uid), C(created), C(reason), C(reason_text), C(message) (without
              the C(Pod was rejected) prefix), C(qos), C(owner_kind) and C(owner) (its controller), C(workload)
              (C(Deployment/<name>) for a ReplicaSet of a Deployment), C(owner_refusals) (refused pods of the same
              controller on the node), C(requests) (the pod's effective requests as Kubernetes adds them up -
              containers and sidecar init containers summed, at least each other init container beside the
              sidecars before it, pod-level requests in their place, plus the overhead), C(policy) and C(scope)
              (the topology manager's), C(units) (what the topology manager aligns at once - the pod, or each
              container - with C(aligned), what the CPU and memory managers ask to place per NUMA node, C(devices)
              and C(fits_numa_nodes)), C(numa_free) (per NUMA node C(free_exclusive_cpus) and, under the Static
              memory manager, C(memory) free per resource in bytes, as read now), C(invalid) (the pod's values that
              are not quantities, each naming its field; left out of the sums) and C(why), one sentence.
          type: list
          elements: dict
        unknown:
          description: What could not be read, each with C(path) and C(reason).
          type: list
          elements: dict
          sample: [{path: /sys/devices/system/cpu/nohz_full, reason: "missing: the kernel has no CONFIG_NO_HZ_FULL"}]
'''

import posixpath

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.numaops.colocation.plugins.module_utils import numa, numa_podresources

ARGUMENT_SPEC = dict(
    root=dict(type='path', default='/'),
    kubelet_config=dict(type='path', default='/' + numa.DEFAULT_KUBELET_CONFIG),
    state_dir=dict(type='path', default='/' + numa.DEFAULT_STATE_DIR),
    pods=dict(type='list', elements='dict'),
    kubelet_source=dict(type='str', default='auto', choices=list(numa_podresources.SOURCES)),
)


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    for name in ('kubelet_config', 'state_dir'):
        if not posixpath.isabs(params[name]):
            module.fail_json(msg='numa_facts: %s=%s must be an absolute path (it is read below root=%s)'
                             % (name, params[name], params['root']))
    try:
        facts = numa.collect(params['root'], params['kubelet_config'], params['state_dir'], params['pods'],
                             params['kubelet_source'])
    except numa_podresources.PodResourcesError as err:
        module.fail_json(msg='numa_facts: %s' % err)
    module.exit_json(changed=False, ansible_facts={numa.FACTS_KEY: facts})


if __name__ == '__main__':
    main()
