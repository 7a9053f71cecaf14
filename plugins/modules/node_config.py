#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: node_config
short_description: The kubelet resource managers, containerd NRI and kernel arguments of a node in one task
version_added: 1.0.0
description:
  - Runs M(numaops.colocation.kubelet_config), M(numaops.colocation.containerd_nri),
    M(numaops.colocation.kernel_cmdline) and M(numaops.colocation.perf_profile) (twice - irqbalance's banned CPUs,
    the huge pages unit) in one task, in that order, each with the options given in O(kubelet), O(containerd),
    O(kernel), O(irqbalance) and O(hugepages). A concern that is left out (or null) is not touched.
  - Each concern is done by its own module, unchanged - the same options, checks, refusals, messages and result
    (RV(kubelet), RV(containerd), RV(kernel)). What this task saves is round trips - one task for the three
    instead of three, and one read of the kubelet and containerd files on the node instead of one per module.
    The role C(numaops.colocation.node_prep) plans (check mode) and applies its changes with it.
  - In check mode the kubelet and containerd files are judged from that one read (the read also says whether a
    write or removal would be refused, for example an immutable file), so the plan of the two is one call to the
    node. In a real run in which both change files, both are planned on the controller first and their files
    written (and the kubelet checkpoints removed) in one M(numaops.colocation.node_files) call, which checks every
    file before it writes any; each concern reports its part of it. When that call refuses a file, nothing was
    written and the concerns commit one by one, as the modules alone do.
  - An option set to null inside O(kubelet), O(containerd) or O(kernel) counts as not given, as if left out of the
    module's task (for each of the three modules, an option that is not set leaves its key alone).
  - In check mode every concern is planned, also after one failed, so that the message names every problem at
    once. In a real run the first failure stops the task, the concerns after it are not run (they return
    C(skipped), with a C(msg) saying why) and the message says which files the concerns before it had already
    changed. Nothing is rolled back here - the role C(numaops.colocation.node_prep) takes a snapshot first and
    puts every file back.
  - With O(lock) and O(snapshot), the task's first call to the node renews the node lock and copies the files about
    to change before it reads them (one M(numaops.colocation.node_files) call, as that module's O(lock) and
    O(snapshot) do). The role C(numaops.colocation.node_prep) does so when nothing else runs on the node between the
    snapshot and the writes (no drain, the kubelet not stopped first), one round trip less per changed node. When
    the lock is held by another run or a file cannot be copied, the task fails having written nothing; RV(lock) and
    RV(snapshots) say what was done.
  - Each module keeps its own safety - a file changed on the node between the read and the write is refused
    (M(numaops.colocation.node_files) compares checksums), writes are atomic and keep owner, mode and links.
author:
  - numaops.colocation developers (@numaops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - numaops.colocation.node_lock_option
  - numaops.colocation.snapshot_option
attributes:
  action:
    description: Part of the work is done on the controller by an action plugin of the same name.
    support: full
    details: The kubelet and containerd files are edited on the controller (which needs C(ruamel.yaml) and
      C(tomlkit), as for M(numaops.colocation.kubelet_config) and M(numaops.colocation.containerd_nri)); the node
      needs only Python's standard library.
  async:
    description: Whether the task can run with the C(async) keyword.
    support: none
  check_mode:
    support: full
    details: Each concern reports exactly what a real run would change; see each module.
  diff_mode:
    support: full
    details: The diffs of every concern, as one list, in the order kubelet, containerd, kernel, irqbalance,
      hugepages.
  platform:
    platforms: posix
options:
  kubelet:
    description:
      - The options of M(numaops.colocation.kubelet_config), as a dictionary (C(path), C(cpu_manager_policy),
        C(reserved_system_cpus) and the rest, with the same meaning and defaults).
      - Left out or null - the kubelet configuration is not touched, and RV(kubelet) says C(skipped=true).
    type: dict
  containerd:
    description:
      - The options of M(numaops.colocation.containerd_nri), as a dictionary (C(path), C(state), C(mode),
        C(dropin_path) and the rest).
      - Left out or null - containerd's configuration is not touched.
    type: dict
  kernel:
    description:
      - The options of M(numaops.colocation.kernel_cmdline), as a dictionary (C(args), C(state), C(backend) and
        the rest).
      - Left out or null - the boot loader is not touched.
    type: dict
  irqbalance:
    description:
      - The options of M(numaops.colocation.perf_profile) (C(profile) and the rest) for irqbalance's banned CPUs -
        only its O(numaops.colocation.perf_profile#module:irqbalance_path) is written (its
        O(numaops.colocation.perf_profile#module:write) is set to V([irqbalance])).
      - Left out or null - irqbalance's file is not touched.
    type: dict
  hugepages:
    description:
      - The options of M(numaops.colocation.perf_profile) for the unit that sets the huge pages of each NUMA node at
        boot - only its O(numaops.colocation.perf_profile#module:unit_path) and that unit's link are written (its
        O(numaops.colocation.perf_profile#module:write) is set to V([hugepages_unit])).
      - Left out or null - the unit is not touched.
    type: dict
  keep_read:
    description:
      - Keep what this task read of the kubelet and containerd files for a later task of the same run
        (O(reuse_read)), when it found something to change; RV(read_token) names it. The read is kept on the
        controller in ansible-playbook's local temporary directory (a file of mode 0600, removed when it is used
        and, with that directory, when the run ends), never in the task's result.
      - The role C(numaops.colocation.node_prep) keeps its plan's read this way.
    type: bool
    default: false
  reuse_read:
    description:
      - The RV(read_token) of an earlier task of this run on this host (O(keep_read), or
        M(numaops.colocation.node_preflight) with O(numaops.colocation.node_preflight#module:read_files)) - plan and
        write from that read instead of reading the files again, one round trip less. A file that read did not cover
        is read as usual.
      - In a real run the call that writes checks first that every file read then is unchanged (and renews O(lock)
        and takes O(snapshot) before anything else); when one changed, that call does nothing, the task reads and
        plans again and RV(read_again) names the files. In check mode nothing is written - the plan judges from that
        read as from its own.
      - Ignored in a real run with O(kernel), O(irqbalance) or O(hugepages) (their module works on the node by
        itself), and when the token is
        unknown (another run, another host, or used already) - the task then reads the files itself.
    type: str
seealso:
  - module: numaops.colocation.kubelet_config
  - module: numaops.colocation.containerd_nri
  - module: numaops.colocation.kernel_cmdline
  - module: numaops.colocation.node_files
'''

EXAMPLES = r'''
- name: Plan all three (nothing is written)
  numaops.colocation.node_config:
    kubelet:
      path: /var/lib/kubelet/config.yaml
      cpu_manager_policy: static
      reserved_system_cpus: "0-1"
      topology_manager_policy: single-numa-node
    containerd:
      state: enabled
      containerd_version: 1.7.24
    kernel:
      args: [mem_sampling_on, numa_icon=enable]
  check_mode: true
  register: plan

- name: Apply only what the plan found
  numaops.colocation.node_config:
    kubelet: "{{ kubelet_options if plan.kubelet.changed else omit }}"
    containerd: "{{ containerd_options if plan.containerd.changed else omit }}"
  when: plan.changed

- name: The same, renewing the node lock and copying the files first, in the same call to the node
  numaops.colocation.node_config:
    containerd: "{{ containerd_options }}"
    lock:
      run_id: "{{ run_id }}"
    snapshot:
      paths: [/etc/containerd/config.toml]
      dest: /var/backups/numaops-colocation/{{ run_id }}
  register: applied
'''

RETURN = r'''
changed:
  description: Whether any concern changed (in check mode, would change) something.
  returned: always
  type: bool
msg:
  description: One line per concern that ran, naming its module - what it did, or why it failed.
  returned: always
  type: str
  sample: "numaops.colocation.kubelet_config: /var/lib/kubelet/config.yaml: changed cpuManagerPolicy;
    numaops.colocation.containerd_nri: ok"
kubelet:
  description: The result of M(numaops.colocation.kubelet_config) (see its RETURN), or only C(changed=false) and
    C(skipped=true) when O(kubelet) was left out (or, in a real run, not run after an earlier failure, then with a
    C(msg) saying so). Its own C(failed) and C(msg) when it failed.
  returned: always
  type: dict
containerd:
  description: The result of M(numaops.colocation.containerd_nri), the same way.
  returned: always
  type: dict
kernel:
  description: The result of M(numaops.colocation.kernel_cmdline), the same way (C(reboot_required) and the rest).
  returned: always
  type: dict
irqbalance:
  description: The result of M(numaops.colocation.perf_profile) for O(irqbalance), the same way (C(irqbalance) and the
    rest).
  returned: always
  type: dict
hugepages:
  description: The result of M(numaops.colocation.perf_profile) for O(hugepages), the same way (C(hugepages_unit),
    C(reboot_required), C(hugepages_drift) and the rest).
  returned: always
  type: dict
lock:
  description: The node lock renewed in the task's first call (M(numaops.colocation.node_lock)'s result - C(outcome),
    C(holder), C(age), C(stale)).
  returned: when O(lock) is given
  type: dict
  sample: {outcome: refreshed, holder: {run_id: 20261201T101500Z-4711, controller: ctl-1, pid: 4242}}
snapshots:
  description:
    - The copies taken in the task's first call, one entry per path of O(snapshot.paths), in order - C(path),
      C(existed), C(backup) (where the copy is), C(checksum), C(owner) and C(group), as
      M(numaops.colocation.node_files) returns them. Also in the result of a task that failed after the copies.
  returned: when O(lock) or O(snapshot) is given
  type: list
  elements: dict
  sample:
    - path: /etc/containerd/config.toml
      existed: true
      backup: /var/backups/numaops-colocation/20261201T180000Z/etc/containerd/config.toml
      checksum: 2f1c8e5a0c0f7a4d7f0f0b7c5a3c1e9e6c6a1f00
      owner: root
      group: root
read_token:
  description: What names this task's read for O(reuse_read) (with O(keep_read), when something would change).
  returned: when O(keep_read) is true and something changed or would change
  type: str
  sample: 3f2b8c1d9e0a4b7c8d6e5f4a3b2c1d0e
read_again:
  description: The files that had changed since the read of O(reuse_read); the task read them again and planned
    anew.
  returned: when a file read by the task of O(reuse_read) changed since
  type: list
  elements: str
  sample: [/var/lib/kubelet/cpu_manager_state]
failed_concerns:
  description: The concerns (V(kubelet), V(containerd), V(kernel), V(irqbalance), V(hugepages)) that failed, in order; empty on success.
  returned: always
  type: list
  elements: str
  sample: [containerd]
'''

from ansible_collections.numaops.colocation.plugins.module_utils import node_prep_concerns, nodelock
from ansible_collections.numaops.colocation.plugins.module_utils.action_only import action_only_main
from ansible_collections.numaops.colocation.plugins.module_utils.nodefile import SNAPSHOT_SPEC


def main():
    action_only_main('numaops.colocation.node_config',
                     dict([(name, dict(type='dict')) for name in node_prep_concerns.names(node_prep_concerns.applying())],
                          lock=dict(type='dict', options=nodelock.OPTIONS_SPEC),
                          snapshot=dict(type='dict', options=SNAPSHOT_SPEC),
                          keep_read=dict(type='bool', default=False), reuse_read=dict(type='str')))


if __name__ == '__main__':
    main()
