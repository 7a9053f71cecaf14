#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: kubelet_config
short_description: Manage the kubelet's CPU, topology and memory manager settings safely
version_added: 1.0.0
description:
  - Sets the CPU manager, topology manager and memory manager keys of a kubelet configuration file
    (a C(KubeletConfiguration), C(kubelet.config.k8s.io/v1beta1)), together with C(reservedSystemCPUs),
    C(systemReserved), C(kubeReserved) and C(featureGates).
  - Only the keys this module manages change. Every other key, every comment, the key order, the
    quoting and the indentation of the file stay byte-identical; inside a changed dictionary only the
    entries that change are rewritten. New keys go to their sorted place in a sorted file (as kubeadm
    writes it) and to the end of any other file.
  - Before anything is written, the resulting configuration (what the file says plus what the task
    asks) is checked with the kubelet's own rules, so that the kubelet will not refuse to start. Any
    problem stops the task with a message naming the file, the field, the value and what is allowed,
    and the file stays byte-identical.
  - Removes the CPU manager and memory manager checkpoint files (C(cpu_manager_state),
    C(memory_manager_state) in O(state_dir)) exactly when the kubelet would otherwise refuse to
    start with the new configuration, and never otherwise. See RV(state_files_removed).
  - A corrupt checkpoint file (not JSON, no policy name, a CPU set that does not parse, or a checksum that does not
    match its content, checked with the kubelet's own algorithm) is removed whatever the configuration change, even
    when nothing else changes, because the kubelet refuses to start with it. The reason is in
    RV(state_files_removed_reasons), in RV(msg) and in the diff.
  - Under the C(static) CPU manager policy, a CPU manager checkpoint that the kubelet would refuse as its static
    policy checks it (reserved CPUs missing from the shared pool, an assignment that overlaps it, or CPUs that do not
    add up to the node's online CPUs, read from C(sys/devices/system/cpu/online) below O(topology_root)) is removed
    too, with the reason. A kubelet stopped between the two writes of a container's removal leaves such a file, and
    then refuses to start until it is removed.
  - An option that is not set leaves its key alone. An empty value of the option's type removes the key -
    V("") for a string option (O(cpu_manager_policy), O(cpu_manager_reconcile_period), O(topology_manager_policy),
    O(topology_manager_scope), O(memory_manager_policy), O(reserved_system_cpus)), V({}) for a dictionary option
    (O(cpu_manager_policy_options), O(topology_manager_policy_options), O(system_reserved), O(kube_reserved),
    O(feature_gates)) and V([]) for O(reserved_memory). V("") given to a dictionary or list option is refused.
  - The module runs through an action plugin. The file is edited on the controller, which needs the
    Python library C(ruamel.yaml); the node needs only Python's standard library.
author:
  - numaops.colocation developers (@numaops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Reports exactly what a real run would change and remove, including RV(state_files_removed).
  diff_mode:
    support: full
    details: Shows the diff of each file written (the module's drop-in and unit drop-in included) and each
      checkpoint file that would be removed.
  platform:
    platforms: posix
options:
  path:
    description:
      - The kubelet configuration file. kubespray writes it to C(/etc/kubernetes/kubelet-config.yaml).
      - Must hold a single block-style YAML C(KubeletConfiguration) document.
    type: path
    default: /var/lib/kubelet/config.yaml
  config_dir:
    description:
      - The kubelet's drop-in directory (its C(--config-dir), Kubernetes 1.30 and later). Every file below it whose
        name ends in C(.conf) is merged over O(path) in name order (sub-directories at their place in that order;
        links to directories are not followed, and when O(config_dir) itself is a link nothing is read, with a
        warning, as the kubelet reads nothing there),
        as the kubelet does - maps entry by entry, other values replaced, V(null) removing a key (from 1.32; in 1.31
        a V(null) does not remove what O(path) sets).
      - The checks, RV(state_files_removed) and RV(restart_required) are then judged on that merged configuration,
        the one the kubelet runs. A value the task asks that a drop-in overrides (sets to something else or removes)
        is refused before anything changes, naming the drop-in, the key and its value; the drop-ins of others are
        never edited. Drop-ins that set keys this module manages are listed in RV(drop_in_overrides) and RV(msg).
      - A O(config_dir) that does not exist (the kubelet refuses to start) or is not a directory (stricter than the
        kubelet), an empty drop-in, one that is not YAML or JSON, or one without
        C(apiVersion) C(kubelet.config.k8s.io/v1beta1) and C(kind) C(KubeletConfiguration) is refused naming the
        file (the kubelet refuses to start with each of them). A key spelled like a managed key in another case is
        refused too (the kubelet matches it regardless of case and the result depends on the key order).
      - Not set, drop-ins are not read, as for a kubelet started without C(--config-dir).
      - Needed by O(write_to=dropin).
    type: path
  write_to:
    description:
      - Where the managed keys are written.
      - V(main) edits O(path), as described above.
      - V(dropin) writes them into one drop-in file of this module's own, O(drop_in_name) in O(config_dir), and
        leaves O(path) byte-identical (it is read, and may then also be JSON). The drop-in holds only the keys the
        task sets (and keys the file had already); a key or a dictionary entry the task removes that O(path) or an
        earlier drop-in sets is written as V(null) there, so that the kubelet uses its default. The checks,
        RV(state_files_removed) and RV(restart_required) are judged on the merged configuration, and the result is
        the same effective configuration as with V(main).
      - A later drop-in (by the kubelet's order) that sets one of those keys to another value is refused, naming
        it; so is, on kubelet 1.31 (O(kubelet_version)), the removal of a key or entry that O(path) sets (that
        kubelet keeps what the main file sets under a drop-in's V(null)).
      - A key that leaves the drop-in is reported in RV(drop_in_removed) and RV(msg) with the value the kubelet
        runs with then and the file it comes from.
      - A main file regenerated by C(kubeadm upgrade) keeps the drop-in's settings in effect.
    type: str
    choices: [main, dropin]
    default: main
  drop_in_name:
    description:
      - With O(write_to=dropin), the name of this module's drop-in file in O(config_dir). It must end in C(.conf)
        (the kubelet reads nothing else) and sort after every drop-in that sets a key the task sets to another value.
    type: str
    default: 90-numaops-colocation.conf
  enable_config_dir:
    description:
      - With O(write_to=dropin), make the kubelet read O(config_dir) when its service does not yet (kubelet 1.30 and
        later; O(kubelet_version) is required, and an older one is refused).
      - The kubelet's unit is found as systemd finds it (the unit file in the first of O(kubelet_unit_dirs) that has
        it, the C(*.conf) drop-ins of all of them in name order, C(Environment=) and C(EnvironmentFile=) expanded).
        When its command has no C(--config-dir), the unit drop-in O(config_dir_unit_drop_in) in the first of
        O(kubelet_unit_dirs) repeats that command with C(--config-dir=) added (C(ExecStart=) emptied, then set). The
        unit file and the other drop-ins (kubeadm's C(10-kubeadm.conf)) are never edited; when their command changes,
        the next run writes the drop-in again.
      - A C(--config-dir) the kubelet has already is kept when it is O(config_dir), and refused otherwise. O(config_dir)
        is created with the module's drop-in when it does not exist.
      - Writing the unit drop-in sets RV(daemon_reload_required) and RV(restart_required).
    type: bool
    default: false
  kubelet_service:
    description: With O(enable_config_dir), the kubelet's systemd service.
    type: str
    default: kubelet
  kubelet_unit_dirs:
    description: With O(enable_config_dir), the systemd unit directories, highest priority first.
    type: list
    elements: path
    default: [/etc/systemd/system, /usr/lib/systemd/system, /lib/systemd/system]
  config_dir_unit_drop_in:
    description:
      - With O(enable_config_dir), the file name of the unit drop-in that adds C(--config-dir). It must end in
        C(.conf) and sort after every drop-in that sets the kubelet's C(ExecStart=) (a later one is refused, naming
        it).
    type: str
    default: 90-numaops-config-dir.conf
  state_dir:
    description: The kubelet's root directory, holding C(cpu_manager_state) and C(memory_manager_state).
    type: path
    default: /var/lib/kubelet
  create:
    description:
      - Create O(path) (mode C(0644), parent directories as needed) with just C(apiVersion) and C(kind)
        plus the requested keys when it does not exist. Without it a missing file is an error.
    type: bool
    default: false
  backup:
    description:
      - Keep a timestamped copy of the file next to it before changing it (with O(write_to=dropin), of the module's
        drop-in and unit drop-in).
    type: bool
    default: false
  cpu_manager_policy:
    description:
      - C(cpuManagerPolicy). V(none) or V(static).
      - V(static) needs a CPU reservation greater than zero (O(reserved_system_cpus), or a C(cpu) amount in
        O(system_reserved)/O(kube_reserved)).
    type: str
  cpu_manager_policy_options:
    description:
      - C(cpuManagerPolicyOptions), replacing the whole dictionary. Needs the V(static) policy.
      - 'Known options: V(full-pcpus-only), V(distribute-cpus-across-numa), V(align-by-socket),
        V(distribute-cpus-across-cores), V(strict-cpu-reservation), V(prefer-align-cpus-by-uncorecache).
        Values are booleans (written as the strings V("true") / V("false"), as the kubelet reads them).'
      - Refused combinations (both true), as in the kubelet - V(full-pcpus-only) with
        V(distribute-cpus-across-cores); V(distribute-cpus-across-numa) with V(distribute-cpus-across-cores);
        V(prefer-align-cpus-by-uncorecache) with V(distribute-cpus-across-cores) or
        V(distribute-cpus-across-numa); V(align-by-socket) with topology manager policy V(single-numa-node).
    type: dict
  cpu_manager_reconcile_period:
    description: C(cpuManagerReconcilePeriod), a duration such as V(10s) or V(1m30s).
    type: str
  topology_manager_policy:
    description: C(topologyManagerPolicy). V(none), V(best-effort), V(restricted) or V(single-numa-node).
    type: str
  topology_manager_scope:
    description: C(topologyManagerScope). V(container) or V(pod).
    type: str
  topology_manager_policy_options:
    description:
      - C(topologyManagerPolicyOptions), replacing the whole dictionary.
      - 'Known options: V(prefer-closest-numa-nodes) (boolean) and V(max-allowable-numa-nodes) (a whole
        number, at least 8).'
    type: dict
  memory_manager_policy:
    description:
      - C(memoryManagerPolicy). V(None) or V(Static); the names are case-sensitive.
      - V(Static) needs O(reserved_memory) whose C(memory) limits add up, over all NUMA nodes, to exactly
        C(kubeReserved.memory) + C(systemReserved.memory) + the hard-eviction threshold
        C(evictionHard[memory.available]) (the kubelet's default 100Mi when the file sets no C(evictionHard)).
    type: str
  reserved_memory:
    description:
      - C(reservedMemory), replacing the whole list. Each item has C(numaNode) (a NUMA node number) and
        C(limits) (a dictionary of C(memory) or C(hugepages-<size>) to a non-zero quantity).
      - V(auto) (the string) derives it from the kubelet's sum rule, C(kubeReserved.memory) +
        C(systemReserved.memory) + the hard-eviction C(memory.available) of the planned configuration (a
        percentage is taken of the node's memory), put on the NUMA nodes as O(reserved_memory_split) says.
        The node's NUMA nodes and their memory are read with M(numaops.colocation.numa_facts); a share as large
        as its NUMA node's memory is refused naming both numbers. The derived list is in RV(derived).
    type: list
    elements: dict
  reserved_system_cpus:
    description:
      - C(reservedSystemCPUs), a CPU list such as V(0-1) or V(0,32).
      - V(auto) derives it from the node's topology (read with M(numaops.colocation.numa_facts)) as O(reserved_cores)
        whole physical cores, each with all its SMT siblings, lowest cores first, placed as
        O(reserved_cores_placement) says. More cores than there are, or every core of the node, is refused naming
        both numbers; so is a node whose SMT siblings are not all known. The derived list is in RV(derived) and
        in the diff, in check mode too.
      - Cannot be combined with C(systemReservedCgroup) or C(kubeReservedCgroup) in the file.
    type: str
  reserved_cores:
    description: With O(reserved_system_cpus=auto), the number of whole physical cores to reserve.
    type: int
    default: 1
  reserved_cores_placement:
    description:
      - With O(reserved_system_cpus=auto), where the cores are taken.
      - V(numa0) takes the lowest O(reserved_cores) cores of NUMA node 0.
      - V(spread) takes one core per NUMA node in node order (the lowest core of each), then the next one of
        each, until O(reserved_cores) cores are taken; with as many cores as NUMA nodes, one per NUMA node.
    type: str
    choices: [numa0, spread]
    default: numa0
  reserved_memory_split:
    description:
      - With O(reserved_memory=auto), how the sum is put on the NUMA nodes.
      - V(numa0) puts all of it on NUMA node 0; V(even) splits it equally over all NUMA nodes (in whole MiB when
        the sum is a whole number of MiB; what does not divide goes to the lowest nodes).
    type: str
    choices: [numa0, even]
    default: numa0
  topology_root:
    description:
      - With an V(auto) value, the directory below which the node's C(sys/devices/system/{cpu,node}) are read
        (the O(numaops.colocation.numa_facts#module:root) of M(numaops.colocation.numa_facts)). V(/) on a node.
      - The node's online CPUs (C(sys/devices/system/cpu/online)), which a C(static) CPU manager checkpoint must
        account for, are read below it whatever the values; when that file is missing, that check is skipped.
    type: path
    default: /
  system_reserved:
    description:
      - C(systemReserved). Keys V(cpu), V(memory), V(ephemeral-storage), V(pid); values are quantities.
      - With O(reservations=replace) the whole dictionary is replaced; with O(reservations=merge) only the entries
        given change, an entry set to V(null) is removed and every other entry of the file stays.
    type: dict
  kube_reserved:
    description:
      - C(kubeReserved). Keys V(cpu), V(memory), V(ephemeral-storage), V(pid); values are quantities.
      - Replaced or merged like O(system_reserved), following O(reservations).
    type: dict
  reservations:
    description:
      - How O(system_reserved) and O(kube_reserved) apply to the file's dictionaries.
      - V(merge) sets the entries given and keeps the others (a node's C(memory), C(ephemeral-storage) or C(pid)
        reservation stays when only C(cpu) is asked).
      - V(replace) writes the dictionaries as given, dropping every other entry. Each entry dropped either way is
        named in RV(reservations_removed) and RV(msg), and shows in the diff.
      - The M(numaops.colocation.kubelet_config) default is V(replace); the node_prep role uses V(merge) unless
        told otherwise (C(node_prep_reservations)).
    type: str
    choices: [merge, replace]
    default: replace
  feature_gates:
    description:
      - C(featureGates) entries to set, merged into the file's gates. A gate set to V(null) is removed from the
        file; V({}) removes the whole key.
    type: dict
  kubelet_version:
    description:
      - The kubelet version on the node (V(1.31), V(v1.31.2)). When set, the module also checks each policy
        option's maturity in that version and the feature gates it needs (for example an alpha CPU manager
        option needs C(CPUManagerPolicyAlphaOptions=true)), and refuses C(false) for gates locked to true.
      - It also refuses a feature gate that kubelet does not know (a typo, with a did-you-mean for near names, or a
        gate removed in that release, naming the release), a gate locked to its default set to the other value,
        and a C(cpuManagerPolicyOptions) / C(topologyManagerPolicyOptions) map (even V({})) while the gate it
        needs is off.
      - Without it, those checks are skipped; a gate name that no kubelet of the data knows only warns.
      - 'Releases 1.31 to 1.38 are known (data generated from the Kubernetes sources of 1.31.14, 1.32.13, 1.33.13,
        1.34.4, 1.35.4, 1.36.3, 1.37.2 and 1.38.0-beta.0); an older version is refused, a newer one is checked as 1.38
        with a warning.'
    type: str
notes:
  - 'The kubelet reads its configuration only at start-up: restart it when RV(restart_required) is true.
    Drain the node first when a checkpoint file is removed. The kubelet rewrites its checkpoint files while
    it runs, so stop it before this task (or restart it right after) when policies change.'
  - Checks that need the node's hardware (whether reserved CPUs exist, NUMA node count) are left to the kubelet.
  - A JSON or flow-style configuration file is refused (a drop-in, which is only read, may be JSON).
seealso:
  - name: Control CPU Management Policies on the Node
    description: The CPU manager, its policies and options.
    link: https://kubernetes.io/docs/tasks/administer-cluster/cpu-management-policies/
  - name: Control Topology Management Policies on a node
    description: The topology manager, its policies, scopes and options.
    link: https://kubernetes.io/docs/tasks/administer-cluster/topology-manager/
  - name: Utilizing the NUMA-aware Memory Manager
    description: The memory manager and the reservedMemory rules.
    link: https://kubernetes.io/docs/tasks/administer-cluster/memory-manager/
'''

EXAMPLES = r'''
- name: Pin CPUs and memory of Guaranteed pods to NUMA nodes (kubeadm node)
  numaops.colocation.kubelet_config:
    cpu_manager_policy: static
    reserved_system_cpus: "0-1"
    cpu_manager_policy_options:
      full-pcpus-only: true
    topology_manager_policy: single-numa-node
    topology_manager_scope: pod
    memory_manager_policy: Static
    kube_reserved:
      memory: 512Mi
    system_reserved:
      memory: 512Mi
    reserved_memory:
      - numaNode: 0
        limits:
          memory: 1124Mi    # 512Mi + 512Mi + 100Mi default hard eviction
    kubelet_version: "1.31"
    backup: true
  register: kubelet_cfg

- name: Restart the kubelet when its configuration changed
  ansible.builtin.systemd_service:
    name: kubelet
    state: restarted
  when: kubelet_cfg.restart_required

- name: Static CPU policy on a kubespray node, with an alpha option and the gate it needs
  numaops.colocation.kubelet_config:
    path: /etc/kubernetes/kubelet-config.yaml
    cpu_manager_policy: static
    kube_reserved:
      cpu: "1"
      memory: 512Mi
    cpu_manager_policy_options:
      distribute-cpus-across-cores: true
    feature_gates:
      CPUManagerPolicyAlphaOptions: true
    kubelet_version: "1.31"

- name: Keep the settings in a drop-in of our own, which a kubeadm upgrade does not regenerate
  numaops.colocation.kubelet_config:
    write_to: dropin
    config_dir: /etc/kubernetes/kubelet.conf.d
    enable_config_dir: true    # adds --config-dir to the kubelet unit through a unit drop-in when it has none
    kubelet_version: "1.33"
    cpu_manager_policy: static
    reserved_system_cpus: "0-1"
    topology_manager_policy: single-numa-node
  register: kubelet_dropin

- name: Reload systemd when the kubelet unit changed
  ansible.builtin.systemd_service:
    daemon_reload: true
  when: kubelet_dropin.daemon_reload_required

- name: Back to the defaults (remove the keys)
  numaops.colocation.kubelet_config:
    cpu_manager_policy: ""
    cpu_manager_policy_options: {}
    topology_manager_policy: ""
    memory_manager_policy: ""
    reserved_memory: []
'''

RETURN = r'''
changed_fields:
  description:
    - The KubeletConfiguration keys whose value changes (would change, in check mode) in the file written, O(path) or,
      with O(write_to=dropin), the module's drop-in.
  returned: success
  type: list
  elements: str
  sample: [cpuManagerPolicy, reservedSystemCPUs, topologyManagerPolicy]
restart_required:
  description:
    - Whether the kubelet must be restarted to apply the change (the file or a checkpoint changed). With
      O(config_dir), a file change that the drop-ins hide entirely (the merged configuration stays the same) needs no
      restart. A unit drop-in written by O(enable_config_dir) needs one (after RV(daemon_reload_required)).
  returned: success
  type: bool
  sample: true
state_files_removed:
  description:
    - Checkpoint files removed (would be removed, in check mode) because the kubelet would refuse to
      start with them; the reason for each is in RV(msg).
  returned: success
  type: list
  elements: str
  sample: [/var/lib/kubelet/cpu_manager_state]
state_files_removed_reasons:
  description:
    - For each path in RV(state_files_removed), why it is removed (would be removed, in check mode), for example
      that the checkpoint is corrupt (not JSON, no policy, or a checksum that does not match its content), which
      makes the kubelet refuse to start whatever the configuration.
  returned: success
  type: dict
  sample:
    /var/lib/kubelet/cpu_manager_state: >-
      the CPU manager checkpoint is corrupt: its checksum 99 does not match its content; the kubelet refuses to
      start with it ("could not restore state from checkpoint"), whatever the configuration
backup_file:
  description: The backup copy of the file, when O(backup) was set and the file changed.
  returned: changed and backup was requested
  type: str
  sample: /var/lib/kubelet/config.yaml.12345.2026-11-29@22:41:25~
config:
  description:
    - The managed keys present in the file after the change (with O(write_to=dropin), the module's drop-in; a V(null)
      there removes the key from the merged configuration).
  returned: success
  type: dict
  sample:
    cpuManagerPolicy: static
    reservedSystemCPUs: 0-1
    topologyManagerPolicy: single-numa-node
previous:
  description: The managed keys present in the file (O(path), or the module's drop-in) before the change.
  returned: success
  type: dict
  sample:
    cpuManagerPolicy: none
reservations_removed:
  description:
    - The reservation entries the change drops from the file (would drop, in check mode), as C(key.resource=value).
  returned: success
  type: list
  elements: str
  sample: [systemReserved.memory=2Gi, kubeReserved.memory=1Gi]
msg:
  description: What changed (or would change), and why each checkpoint file is removed.
  returned: always
  type: str
  sample: >-
    /var/lib/kubelet/config.yaml: changed cpuManagerPolicy, reservedSystemCPUs; removed
    /var/lib/kubelet/cpu_manager_state: it records CPU manager policy "none" but the configuration now says "static"
derived:
  description:
    - The values derived for O(reserved_system_cpus=auto) (C(value), C(placement) and the C(cores) taken, each
      with C(numa_node), C(core_id), C(socket), C(cpus)) and O(reserved_memory=auto) (C(value), C(sum_bytes),
      C(parts_bytes) of kubeReserved, systemReserved and evictionHard, C(split)).
  returned: when an auto value was given
  type: dict
  sample:
    reserved_system_cpus:
      value: "0,64"
      placement: numa0
      cores: [{numa_node: 0, core_id: 0, socket: 0, cpus: "0,64"}]
    reserved_memory:
      value: [{numaNode: 0, limits: {memory: 1124Mi}}]
      sum_bytes: 1178599424
      parts_bytes: {kubeReserved: 524288000, systemReserved: 524288000, evictionHard: 104857600}
      split: numa0
config_dir:
  description: The drop-in directory read (O(config_dir)).
  returned: when O(config_dir) is set
  type: str
  sample: /etc/kubernetes/kubelet.conf.d
drop_in_files:
  description: The drop-in files merged over O(path), in the order the kubelet merges them (a later one wins).
  returned: when O(config_dir) is set
  type: list
  elements: str
  sample: [/etc/kubernetes/kubelet.conf.d/10-site.conf, /etc/kubernetes/kubelet.conf.d/90-vendor.conf]
drop_in_files_skipped:
  description: The other entries below O(config_dir) that are not directories, which the kubelet does not read.
  returned: when O(config_dir) is set
  type: list
  elements: str
  sample: [/etc/kubernetes/kubelet.conf.d/README]
drop_in_overrides:
  description:
    - Each managed key a drop-in sets (a dictionary key - C(systemReserved), C(featureGates), ... - entry by entry,
      as C(key.entry)), in merge order, with the drop-in C(file) and the C(value) it sets (V(null) when it removes
      the key). With O(write_to=dropin), the module's own drop-in is left out.
  returned: when O(config_dir) is set
  type: list
  elements: dict
  sample:
    - file: /etc/kubernetes/kubelet.conf.d/10-site.conf
      key: systemReserved.memory
      value: 1Gi
effective_config:
  description:
    - The managed keys of the configuration the kubelet runs after the change, O(path) with the drop-ins merged
      over it (RV(config) is O(path) alone).
  returned: when O(config_dir) is set
  type: dict
  sample:
    cpuManagerPolicy: static
    reservedSystemCPUs: 0-1
drop_in_file:
  description: The module's own drop-in file (O(config_dir)/O(drop_in_name)).
  returned: when O(write_to=dropin)
  type: str
  sample: /etc/kubernetes/kubelet.conf.d/90-numaops-colocation.conf
drop_in_removed:
  description:
    - Each managed key (a dictionary entry as C(key.entry)) that leaves the module's drop-in (would leave, in check
      mode), with the C(value) it had there, the C(effective) value the kubelet runs with then (V(null) - its
      default) and the file that value comes C(from) (or C(the kubelet default)).
  returned: when O(write_to=dropin)
  type: list
  elements: dict
  sample:
    - key: topologyManagerScope
      value: pod
      effective: null
      from: the kubelet default
unit_drop_in:
  description: The kubelet unit drop-in that adds C(--config-dir) (O(config_dir_unit_drop_in)).
  returned: when O(enable_config_dir) is set
  type: str
  sample: /etc/systemd/system/kubelet.service.d/90-numaops-config-dir.conf
daemon_reload_required:
  description: Whether the kubelet unit changed, so that systemd must reload its units before the kubelet restarts.
  returned: when O(write_to=dropin)
  type: bool
  sample: false
diff:
  description:
    - The diff of the file written (O(path), or the module's drop-in and unit drop-in) and, for each removed checkpoint
      file, its removal (in diff mode).
  returned: diff mode
  type: list
  elements: dict
'''

from ansible_collections.numaops.colocation.plugins.module_utils.action_only import action_only_main
from ansible_collections.numaops.colocation.plugins.module_utils.kubelet import ARGUMENT_SPEC
from ansible_collections.numaops.colocation.plugins.module_utils.reservations import AUTO_ARGUMENT_SPEC


def main():
    action_only_main('numaops.colocation.kubelet_config', dict(ARGUMENT_SPEC, **AUTO_ARGUMENT_SPEC))


if __name__ == '__main__':
    main()
