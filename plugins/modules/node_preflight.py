#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: node_preflight
short_description: Everything the node_prep pre-flight reads from a node, in one call
version_added: 1.0.0
description:
  - Reads, in one module call, what the pre-flight of the C(numaops.colocation.node_prep) role checks before it
    plans anything - so that a host costs one round trip here instead of about fifteen
    (find, stat, slurp and command tasks).
  - The cgroup v2 controllers (O(cgroup_root)), the running kernel's command line (O(proc_cmdline_path)), the
    containerd version (O(containerd_binary) C(--version)), the online CPUs and NUMA nodes and C(/proc/meminfo),
    C(/etc/os-release) and the machine type.
  - Which kubelet configuration file the kubelet reads, the way systemd would start it - the unit file of the first
    directory of O(kubelet_unit_dirs) that has it, the C(*.conf) drop-ins of all of them in file-name order,
    C(Environment=) and C(EnvironmentFile=) expanded (among O(kubelet_env_files)), the C(--config) flag of the
    effective C(ExecStart=) - or else the first of O(kubelet_config_candidates) that exists; and whether it exists.
  - A file that is missing or unreadable is returned with V(null) content and the reason; the caller decides.
    Reads only; changes nothing but the node lock (O(lock)); the same in check mode. Python standard library only
    on the node.
  - With O(lock), the lock is taken before anything is read; when the module fails after taking it, it releases it
    again, so that a failed pre-flight leaves no lock behind. With O(lock.state=query) the lock is only read (the
    role C(numaops.colocation.node_prep) takes it only on a node that has something to change, after its plan).
author:
  - numaops.colocation developers (@numaops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - numaops.colocation.node_lock_option
attributes:
  check_mode:
    support: full
    details: Reads only, so check mode returns the same values.
  diff_mode:
    support: none
    details: Nothing is changed.
  platform:
    platforms: posix
options:
  root:
    description:
      - Prefix of the node's file system for paths named inside unit files (C(EnvironmentFile=), C(--config)).
        Empty on a real node; the tree's directory for a copied tree.
    type: str
    default: ''
  cgroup_root:
    description: The cgroup v2 mount point; its C(cgroup.controllers) is read. Not read when not given.
    type: path
  proc_cmdline_path:
    description: The running kernel's command line. Not read when not given.
    type: path
  containerd_binary:
    description: The containerd program; C(<binary> --version) is run to learn the version. Not run when not given.
    type: str
  kubelet:
    description: Whether to find the kubelet configuration file (the O(kubelet_config_path) and C(kubelet_*) options).
    type: bool
    default: true
  kubelet_config_path:
    description: The kubelet configuration file, when the user named it; then no unit file is read.
    type: str
    default: ''
  kubelet_service:
    description: The kubelet's systemd service name.
    type: str
    default: kubelet
  kubelet_unit_dirs:
    description: systemd unit directories in priority order (highest first).
    type: list
    elements: path
    default: [/etc/systemd/system, /usr/lib/systemd/system, /lib/systemd/system]
  kubelet_env_files:
    description: Environment files the kubelet unit may read (those that exist are read).
    type: list
    elements: path
    default: []
  kubelet_config_candidates:
    description: Default locations of the kubelet configuration file, in order, used when no unit names one.
    type: list
    elements: path
    default: [/var/lib/kubelet/config.yaml, /etc/kubernetes/kubelet-config.yaml]
  sysfs_cpu_dir:
    description: C(/sys/devices/system/cpu); its C(online) is read. Not read when not given.
    type: path
  sysfs_node_dir:
    description: C(/sys/devices/system/node); its C(online) is read. Not read when not given.
    type: path
  proc_meminfo_path:
    description: C(/proc/meminfo). Not read when not given.
    type: path
  os_release_path:
    description: The os-release file.
    type: path
    default: /etc/os-release
  read_files:
    description:
      - Files to read for a plan that follows in this run - read as M(numaops.colocation.node_files) reads them
        (content, checksum, ownership, whether a write or removal would be refused), after the lock and everything
        else. A missing file is reported as such, not as an error.
      - The action plugin keeps what was read on the controller for O(numaops.colocation.node_config#module:reuse_read)
        (the role C(numaops.colocation.node_prep) plans from it, with no read of its own) and returns RV(read_token);
        the content is never part of the task's result.
      - A file that cannot be read is left out (RV(read_token) is then not returned, and the plan reads the files
        itself and names the problem).
    type: list
    elements: path
    default: []
  read_kubelet_config:
    description: With O(read_files), also read the kubelet configuration file found (C(config_path) of RV(kubelet)).
    type: bool
    default: false
  probe_files:
    description:
      - Paths whose existence (a path with C(*) is a pattern, true when anything matches it) and, for a regular file,
        text are returned in RV(probes). With O(checks), the action plugin sets it from what is asked (the files
        koordlet's features need, and the C(cpu.idle) files of the kubepods QoS cgroups).
    type: list
    elements: str
    default: []
  probe_core_sched:
    description:
      - Ask the kernel whether it does core scheduling (C(prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET)) on this process),
        as koordlet does on a kernel other than Anolis OS's; the answer is RV(core_sched_probe).
    type: bool
    default: false
  output_dirs:
    description:
      - Directories the run writes optional output into later (such as the NUMA textfile of node_prep), by the
        name of the variable that sets each. Each must be an existing directory this module's user can write to;
        RV(output_dirs) says, and with O(checks) one that is not fails the checks, so that the run stops before
        its first change rather than after it.
    type: dict
    default: {}
  checks:
    description:
      - What the C(numaops.colocation.node_prep) role asks of the node. With it, the action plugin judges what was
        read against it on the controller, in the same task, and returns RV(checks); the module on the node never
        sees it. Without it, only the read is returned.
      - With it, what is asked also decides what is read - without C(memory_qos_enabled) O(cgroup_root) and
        O(proc_cmdline_path) are not read; without C(kubelet_enabled) O(kubelet) and O(read_kubelet_config) are
        false and O(sysfs_cpu_dir), O(sysfs_node_dir) and O(proc_meminfo_path) are not read; without
        C(lock_enabled) O(lock) is left out.
      - "Keys (all optional; the role passes its variables of the same name without the C(node_prep_) prefix):
        C(kernel_args), C(mem_sampling) (V(auto), V(enabled) or V(disabled)), C(mem_sampling_args),
        C(memory_qos_enabled), C(reboot_allowed), C(manage_services), C(containerd_version), C(containerd_binary),
        C(nri_enabled) (V(null): containerd is left alone), C(kubelet_enabled), C(kubelet_config_path),
        C(kubelet_service), C(kubelet_unit_dirs), C(kubelet_env_files), C(kubelet_config_candidates),
        C(reserved_system_cpus), C(reserved_memory), C(k8s_enabled), C(node_name), C(cgroup_root),
        C(proc_cmdline_path), C(sysfs_cpu_dir), C(sysfs_node_dir), C(lock_enabled), C(koordlet_features),
        C(koordlet_nri_socket), C(kubelet_write_to), C(kubelet_config_dir), C(kubelet_enable_config_dir),
        C(kubelet_drop_in_name), C(root); C(facts) (the gathered C(distribution),
        C(distribution_version), C(distribution_release) and C(architecture), when there are any; else
        C(/etc/os-release) and C(uname) are used); C(unknown) (sentences naming collection variables nothing reads)
        and C(allow_unknown) (C(colocation_allow_unknown_variables)); C(invalid) (sentences naming role variables
        whose type or value the role's argument specification refuses, each one an error)."
      - An unknown key fails the task, naming it.
      - A key left out that is an option of this task too (O(kubelet_config_path), O(kubelet_service),
        O(kubelet_unit_dirs), O(kubelet_env_files), O(kubelet_config_candidates), O(cgroup_root),
        O(proc_cmdline_path), O(sysfs_cpu_dir), O(sysfs_node_dir)) is taken from that option.
    type: dict
  plan:
    description:
      - With O(checks), the plan that follows the checks, in the same task - C(kubelet), C(containerd) and
        C(kernel), each the options of that concern of M(numaops.colocation.node_config) (or V(null)). When every
        check passed, the action plugin runs M(numaops.colocation.node_config) in check mode over the concerns the
        checks enable, from the read of O(read_files) (no call to the node of its own), each completed with what
        the checks settled - the kubelet file found as C(path), the containerd version and NRI's C(state), the
        kernel arguments as C(args) - and returns its result as RV(plan); the module on the node never sees it.
      - The task reports a change, and shows the plan's diff, only in check mode; a real run's plan keeps its read
        on the controller for the apply (C(read_token) of RV(plan)).
    type: dict
  profile:
    description:
      - With O(checks) and O(plan), a performance profile judged after the checks, in the same task - the options of
        M(numaops.colocation.perf_profile) (C(profile), C(topology_root), C(unit_path)). When every check passed, the
        action plugin runs that module in check mode on the node, writing nothing, and folds what it derives into
        RV(checks) - the kernel arguments merged with C(kernel_args) (an argument of both with another value is an
        error), C(profile) (the kubelet settings it gives in place of the O(plan) C(kubelet) options, which must be
        null or the same for C(reserved_system_cpus), C(reserved_memory), C(memory_manager_policy) and
        C(cpu_manager_policy_options)), its notes, and its refusal as an error naming the host. The plan then runs
        with them, and with its C(irqbalance) and C(hugepages) concerns when the profile has isolated CPUs or huge
        pages on a NUMA node.
    type: dict
  decide:
    description:
      - With O(plan), the decision after the plan, in the same task - C(settings) (the role settings the decision
        takes, without the C(node_prep_) prefix). The action plugin returns RV(decision) (the C(node_prep__plan) of
        the role), a check-mode run being one whose task runs in check mode (C(--check), or C(check_mode) on the task,
        its block, role or play); the module on the node never sees it.
      - A setting left out that this task has already is taken from there - C(kubelet_enabled), C(nri_enabled),
        C(k8s_enabled), C(lock_enabled), C(reboot_allowed), C(manage_services), C(kubelet_service), C(node_name)
        and C(sysfs_cpu_dir) from O(checks); C(kubelet_state_dir) (C(state_dir) of the kubelet),
        C(containerd_config_path), C(containerd_dropin_path) and C(nri_mode) (C(path), C(dropin_path) and C(mode) of
        containerd) and C(grub_defaults_path) (of the kernel) from O(plan); C(proc_meminfo_path) from
        O(proc_meminfo_path) and C(lock_path) from C(path) of O(lock).
    type: dict
  role_vars:
    description:
      - V(node_prep) - every other option from the variables of the C(numaops.colocation.node_prep) role, as this
        task sees them (its defaults, the inventory, extra variables, survey answers, the play's variables), the way
        that role's pre-flight runs this module - O(lock) (V(query), only read), the paths of what is read,
        O(read_files), O(output_dirs), O(checks), O(plan), O(profile) and O(decide), each as the registry of its
        concerns declares them (C(plugins/module_utils/node_prep_concerns.py), see
        C(docs/developer/concerns.md)).
      - Each variable is templated and parsed strictly against the role's argument specification
        (C(meta/argument_specs.yml)); a value it refuses is an error of RV(checks), naming the host, the variable, the
        value and what is allowed. C(checks.unknown) and C(checks.invalid) name the host's variables (inventory,
        extra variables, survey answers) that nothing reads or that the specification refuses.
      - An option also given in the task takes the task's value.
      - The action plugin reads the variables on the controller; the module on the node never sees this option.
    type: str
    choices: [node_prep]
notes:
  - A file larger than 1 MiB is not read (reported as unreadable); none of these files is ever that large.
seealso:
  - module: numaops.colocation.numa_facts
  - module: numaops.colocation.kubelet_config
'''

EXAMPLES = r'''
- name: Pre-flight and plan of node_prep from the role's variables (a task of that role)
  numaops.colocation.node_preflight:
    role_vars: node_prep
  register: node_prep__node

- name: What the pre-flight needs
  numaops.colocation.node_preflight:
    cgroup_root: /sys/fs/cgroup
    proc_cmdline_path: /proc/cmdline
    containerd_binary: containerd
    kubelet_env_files: [/var/lib/kubelet/kubeadm-flags.env, /etc/default/kubelet]
    sysfs_cpu_dir: /sys/devices/system/cpu
    sysfs_node_dir: /sys/devices/system/node
    proc_meminfo_path: /proc/meminfo
  register: node_facts

- name: The kubelet configuration file
  ansible.builtin.debug:
    msg: "{{ node_facts.kubelet.config_path }} ({{ node_facts.kubelet.source }})"
'''

RETURN = r'''
cgroup:
  description: C(path) of cgroup.controllers, C(controllers) (V(null) when unreadable) and C(error).
  returned: always
  type: dict
  sample: {path: /sys/fs/cgroup/cgroup.controllers, controllers: [cpuset, cpu, io, memory, pids], error: ''}
cmdline:
  description: C(path), C(text) of the kernel command line (V(null) when unreadable) and C(error).
  returned: always
  type: dict
containerd:
  description: C(binary), C(version) (V('') when unknown), C(output) of C(--version) and C(error).
  returned: always
  type: dict
  sample: {binary: containerd, version: 1.7.24, output: containerd github.com/containerd/containerd v1.7.24 abc, error: ''}
kubelet:
  description:
    - C(config_path) (V('') when none was found), C(source) (why that file), C(exists), C(unit), C(drop_ins) (the
      files whose C(ExecStart=) was used), C(config_dir) (the kubelet's drop-in directory, its C(--config-dir) under
      O(root); V('') when it has none or O(kubelet_config_path) is set) and C(read) (every unit, drop-in and
      environment file read).
  returned: always
  type: dict
  sample:
    config_path: /var/lib/kubelet/config.yaml
    source: the effective ExecStart of /usr/lib/systemd/system/kubelet.service, /usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf (--config)
    exists: true
online_cpus:
  description: C(path), C(text), C(ids) (V(null) when unreadable or not a CPU list) and C(error).
  returned: always
  type: dict
online_numa_nodes:
  description: C(path), C(text), C(ids) and C(error), as RV(online_cpus).
  returned: always
  type: dict
meminfo:
  description: C(path), C(text) and C(error).
  returned: always
  type: dict
os:
  description: C(release) (the os-release values), C(machine), C(nodename) and C(kernel) (the kernel release) (C(uname)).
  returned: always
  type: dict
probes:
  description: For each path of O(probe_files), C(exists) and C(text) (a regular file's text, else V(null)).
  returned: always
  type: dict
  sample: {/sys/fs/cgroup/kubepods.slice/kubepods-besteffort.slice/cpu.idle: {exists: true, text: "0\n"}}
core_sched_probe:
  description: With O(probe_core_sched), C(supported) and C(error) (why the kernel refused, else V('')).
  returned: when O(probe_core_sched) is true
  type: dict
  sample: {supported: false, error: 'EINVAL: Invalid argument'}
checks:
  description:
    - The pre-flight verdict, with O(checks) - C(errors) (one message per check that fails, each naming the host,
      the file or variable, the value found and what is allowed; empty when the node fits), C(notes) (what the
      run should say beyond pass or fail), C(kernel_args) (the kernel arguments to manage, with the openEuler
      memory-sampling flags when they apply), C(mem_sampling_wanted), C(cgroup_v2_memory) (V(null) when memory QoS
      is off), C(cgroup_v2_args), C(cgroup_v2_after_reboot) (cgroup v2 comes with this run's reboot),
      C(containerd_version) (given or read; V('') when containerd is left alone), C(kubelet_config) (the file
      found), C(koordlet) (per koordlet feature asked, whether koordlet can do it here, and the QoS-class
      cgroups with C(cpu.idle) at 1; C(pending) names the features judged after the plan, on the kubelet
      configuration it leaves - C(cpuset) - whose answers are in RV(decision)'s C(plan_koordlet)),
      C(kubelet_target) (where the kubelet keys go - C(write_to) V(main) or V(dropin),
      C(config_dir), C(drop_in_file), C(unit_drop_in) and C(why); V({}) without C(kubelet_enabled)) and C(settings)
      (the booleans asked - C(kubelet_enabled), C(memory_qos_enabled), C(lock_enabled),
      C(k8s_enabled), C(manage_services), C(reboot_allowed) as V(true) or V(false), C(nri_enabled) also V(null)).
  returned: when O(checks) is given and the read succeeded
  type: dict
  sample:
    errors: []
    notes: []
    kernel_args: [systemd.unified_cgroup_hierarchy=1]
    mem_sampling_wanted: false
    cgroup_v2_memory: true
    cgroup_v2_args: [systemd.unified_cgroup_hierarchy=1]
    cgroup_v2_after_reboot: false
    containerd_version: 1.7.24
    kubelet_config: /var/lib/kubelet/config.yaml
    kubelet_target:
      write_to: dropin
      config_dir: /etc/kubernetes/kubelet.conf.d
      drop_in_file: /etc/kubernetes/kubelet.conf.d/90-numaops-colocation.conf
      unit_drop_in: ''
      why: 'node_prep_kubelet_write_to=auto: the kubelet runs with --config-dir=/etc/kubernetes/kubelet.conf.d'
plan:
  description:
    - The result of M(numaops.colocation.node_config) in check mode (its C(kubelet), C(containerd), C(kernel),
      C(changed), C(msg) and, in a real run with a change, C(read_token)).
    - "When no concern is enabled: C(changed) false and C(skipped) true."
  returned: when O(plan) is given and every check passed
  type: dict
  sample: {changed: true, kubelet: {changed: true, changed_fields: [cpuManagerPolicy]}, containerd: {changed: false}}
decision:
  description: The decision of the C(numaops.colocation.node_prep) role after the plan (whether this node has work,
    whether this run applies it, drains, reboots, takes the lock, the files to back up, the notes and plan errors,
    the settings typed, and the options the apply writes with).
  returned: when O(decide) is given and the plan succeeded
  type: dict
  sample: {work_needed: true, in_batches: true, kubelet_changing: true, plan_errors: [], notes: []}
plan_args:
  description: The options of each concern the plan ran with (as O(plan), completed from RV(checks); a concern the
    checks do not enable left out).
  returned: when O(plan) is given and every check passed
  type: dict
  sample: {kubelet: {path: /var/lib/kubelet/config.yaml, cpu_manager_policy: static}}
read_token:
  description: What names the read of O(read_files) for O(numaops.colocation.node_config#module:reuse_read) (kept on
    the controller in ansible-playbook's local temporary directory, mode 0600, until it is used or the run ends).
  returned: when O(read_files) is given and every file could be read
  type: str
  sample: 3f2b8c1d9e0a4b7c8d6e5f4a3b2c1d0e
output_dirs:
  description: For each entry of O(output_dirs), its C(path) and C(error) (empty when it is a directory this user can write to).
  returned: always
  type: dict
  sample: {node_prep_numa_textfile_dir: {path: /var/lib/node_exporter/textfile, error: ''}}
lock:
  description:
    - The result of M(numaops.colocation.node_lock) (C(outcome), C(holder), C(locked_by_other), C(age), C(stale),
      C(msg) when another run holds the lock in check mode); C(released_after_failure) when the read failed after
      the lock was taken and the lock was released again.
    - With O(lock.state=query), C(outcome) is V(absent) (no lock), V(held) (another run holds it; in check mode
      only, a real run fails), V(stale) (another run's stale lock, left in place) or V(refreshed) (this run id
      holds it).
  returned: when O(lock) is given
  type: dict
  sample: {outcome: acquired, holder: {run_id: 20261201T101500Z-4711, controller: ctl-1, pid: 4242}, locked_by_other: false}
'''

import ctypes
import ctypes.util
import errno
import glob
import os
import posixpath

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.numaops.colocation.plugins.module_utils import koordlet_node, nodefile, nodelock, preflight

ARGUMENT_SPEC = dict(
    root=dict(type='str', default=''),
    cgroup_root=dict(type='path'),
    proc_cmdline_path=dict(type='path'),
    containerd_binary=dict(type='str'),
    kubelet=dict(type='bool', default=True),
    kubelet_config_path=dict(type='str', default=''),
    kubelet_service=dict(type='str', default='kubelet'),
    kubelet_unit_dirs=dict(type='list', elements='path',
                           default=['/etc/systemd/system', '/usr/lib/systemd/system', '/lib/systemd/system']),
    kubelet_env_files=dict(type='list', elements='path', default=[]),
    kubelet_config_candidates=dict(type='list', elements='path',
                                   default=['/var/lib/kubelet/config.yaml', '/etc/kubernetes/kubelet-config.yaml']),
    sysfs_cpu_dir=dict(type='path'),
    sysfs_node_dir=dict(type='path'),
    proc_meminfo_path=dict(type='path'),
    os_release_path=dict(type='path', default='/etc/os-release'),
    # taken first (numaops.colocation.node_lock's options; the action plugin fills in the holder)
    lock=dict(type='dict', options=nodelock.OPTIONS_SPEC),
    # read for the plan that follows; the action plugin keeps them and removes them from the result
    read_files=dict(type='list', elements='path', default=[]),
    probe_files=dict(type='list', elements='str', default=[]),
    probe_core_sched=dict(type='bool', default=False),
    read_kubelet_config=dict(type='bool', default=False),
    output_dirs=dict(type='dict', default={}),
    # judged on the controller by the action plugin, which removes it before the module runs
    checks=dict(type='dict'),
    # the plan after the checks, run by the action plugin, which removes it before the module runs
    plan=dict(type='dict'),
    decide=dict(type='dict'),
    profile=dict(type='dict'),
    # the options from the role's variables, read by the action plugin, which removes it before the module runs
    role_vars=dict(type='str', choices=['node_prep']),
)


def read_text(path):
    """(text, error): the file's text, or None and why not (nodefile.read_text: regular files only, bounded,
    UTF-8)."""
    if path is None:
        return None, 'not read'
    try:
        text = nodefile.read_text(path)
    except nodefile.NodeFileError as exc:
        return None, str(exc)
    if text is None:
        return None, '%s: No such file or directory' % path
    return text, ''


def read_entry(path):
    text, error = read_text(path)
    return {'path': path, 'text': text, 'error': error}


def list_dirs(directories):
    listing = {}
    for directory in directories:
        try:
            listing[directory] = sorted(os.listdir(directory))
        except (IOError, OSError):
            listing[directory] = []
    return listing


def probe(path):
    """{exists, text}: whether ``path`` exists (a pattern with ``*``: whether anything matches), and a regular
    file's text (bounded; None when it is not one or cannot be read)."""
    if '*' in path:
        return {'exists': bool(glob.glob(path)), 'text': None}
    if not os.path.exists(path):
        return {'exists': False, 'text': None}
    text = None
    if os.path.isfile(path):
        try:
            with open(path, 'rb') as handle:
                text = handle.read(koordlet_node.MAX_PROBE_BYTES).decode('utf-8', 'replace')
        except (IOError, OSError):
            text = None
    return {'exists': True, 'text': text}


# linux/prctl.h
PR_SCHED_CORE = 62
PR_SCHED_CORE_GET = 0


def core_sched_probe():
    """prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, 0 (this thread), PIDTYPE_PID, &cookie): {supported, error}."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library('c') or 'libc.so.6', use_errno=True)
        cookie = ctypes.c_ulonglong(0)
        ret = libc.prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, 0, 0, ctypes.byref(cookie))
    except (OSError, AttributeError) as exc:
        return {'supported': False, 'error': 'prctl cannot be called: %s' % exc}
    if ret == 0:
        return {'supported': True, 'error': ''}
    code = ctypes.get_errno()
    return {'supported': False, 'error': '%s: %s' % (errno.errorcode.get(code, code), os.strerror(code))}


def output_dir(path):
    """'' when ``path`` is a directory this process can write into, else why not."""
    if not isinstance(path, str) or not path:
        return 'not a path'
    if not os.path.isdir(path):
        return '%s: %s' % (path, 'not a directory' if os.path.exists(path) else 'no such directory')
    if not os.access(path, os.W_OK | os.X_OK):
        return '%s: not writable by user %d' % (path, os.geteuid())
    return ''


def kubelet_facts(module, params):
    given = params['kubelet_config_path']
    unit_texts, env_texts, read = {}, {}, []
    existing = []
    if not given:
        dirs = params['kubelet_unit_dirs']
        for path in preflight.unit_files(list_dirs(preflight.unit_candidates(dirs, params['kubelet_service'])), dirs,
                                         params['kubelet_service']):
            text, error = read_text(path)
            if text is None:
                module.fail_json(msg='node_preflight: cannot read the kubelet unit file %s (%s); the kubelet '
                                     'configuration file cannot be found without it. Fix the file, or set '
                                     'node_prep_kubelet_config_path. Nothing was changed.' % (path, error))
            unit_texts[path] = text
            read.append(path)
        for path in params['kubelet_env_files']:
            if os.path.exists(path):
                text, error = read_text(path)
                if text is None:
                    module.fail_json(msg='node_preflight: cannot read the kubelet environment file %s (%s). Fix the '
                                         'file, or set node_prep_kubelet_config_path. Nothing was changed.'
                                         % (path, error))
                env_texts[path] = text
                read.append(path)
        existing = [path for path in params['kubelet_config_candidates'] if os.path.exists(path)]
    chosen = preflight.choose_kubelet_config(given, unit_texts, env_texts, params['kubelet_unit_dirs'],
                                             params['kubelet_service'], params['root'], existing)
    return {
        'config_path': chosen['path'],
        'source': chosen['source'],
        'exists': bool(chosen['path']) and os.path.exists(chosen['path']),
        'unit': chosen['unit'],
        'drop_ins': chosen['drop_ins'],
        'config_dir': chosen['config_dir'],
        'read': read,
    }


def take_lock(module, params):
    """The node lock first (node_lock's work, in this call): its result, or None without the lock option. When
    another run holds it, the module exits having read nothing (the action plugin decides: a stale lock is taken
    over by running the module again, otherwise the task fails naming the holder). Once taken, a failure of the
    module releases it again."""
    if params['lock'] is None:
        return None
    lock = {}
    try:
        nodelock.step(params['lock'], module.check_mode, lock)
    except nodelock.LockError as err:
        module.fail_json(msg=str(err), lock=lock)
    if module.check_mode or params['lock'].get('state') == 'query':
        return lock
    if lock['outcome'] == 'held':
        module.exit_json(changed=False, lock=lock)
    fail_json = module.fail_json

    def release_and_fail(**kwargs):
        try:
            lock['released_after_failure'] = nodelock.release(params['lock']['path'], params['lock']['run_id'])[0]
        except nodelock.LockError as err:
            lock['released_after_failure'] = str(err)
        kwargs.setdefault('lock', lock)
        fail_json(**kwargs)

    module.fail_json = release_and_fail
    return lock


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    lock = take_lock(module, params)

    cgroup_path = posixpath.join(params['cgroup_root'], 'cgroup.controllers') if params['cgroup_root'] else None
    text, error = read_text(cgroup_path)
    cgroup = {'path': cgroup_path, 'controllers': preflight.cgroup_controllers(text), 'error': error}

    containerd = {'binary': params['containerd_binary'], 'version': '', 'output': '', 'error': 'not run'}
    if params['containerd_binary']:
        try:
            rc, out, err = module.run_command([params['containerd_binary'], '--version'], handle_exceptions=False)
        except (IOError, OSError) as exc:  # a missing or unrunnable program is a value for the caller
            rc, out, err = 127, '', '%s: %s' % (params['containerd_binary'], exc.strerror or exc)
        containerd.update(output=(out or '').strip(), version=preflight.containerd_version(out) if rc == 0 else '',
                          error='' if rc == 0 else ('rc=%d: %s' % (rc, (err or out or 'no output').strip())))

    online = {}
    for name, directory in (('online_cpus', params['sysfs_cpu_dir']), ('online_numa_nodes', params['sysfs_node_dir'])):
        entry = read_entry(posixpath.join(directory, 'online') if directory else None)
        entry['ids'] = preflight.cpu_list(entry['text'])
        online[name] = entry

    release, _error = read_text(params['os_release_path'])
    uname = os.uname()
    kubelet = kubelet_facts(module, params) if params['kubelet'] else {}
    # for the plan that follows (the action plugin keeps them on the controller): node_files' read, last
    extra = dict(online, **({'lock': lock} if lock is not None else {}))
    if params['probe_core_sched']:
        extra['core_sched_probe'] = core_sched_probe()
    # a lock of another run found by state=query fails the task (unless it is stale): its files are not read then
    held = bool(lock) and lock.get('outcome') == 'held' and not module.check_mode
    paths = [] if held else list(params['read_files'])
    if (params['read_kubelet_config'] and not held and kubelet.get('config_path')
            and kubelet['config_path'] not in paths):
        paths.insert(0, kubelet['config_path'])
    if paths:
        files, removed = {}, []
        try:
            nodefile.read_for_plan(paths, nodefile.MAX_CONFIG_BYTES, module.check_mode, files, removed)
            extra.update(files=files, removed_temp_files=removed)
        except nodefile.NodeFileError as err:
            extra.update(files_error=str(err))
    module.exit_json(
        changed=False,
        cgroup=cgroup,
        cmdline=read_entry(params['proc_cmdline_path']),
        containerd=containerd,
        kubelet=kubelet,
        meminfo=read_entry(params['proc_meminfo_path']),
        os={'release': preflight.os_release(release), 'machine': uname[4], 'nodename': uname[1], 'kernel': uname[2]},
        probes=dict((path, probe(path)) for path in params['probe_files']),
        output_dirs=dict((name, {'path': path, 'error': output_dir(path)})
                         for name, path in sorted(params['output_dirs'].items())),
        **extra
    )


if __name__ == '__main__':
    main()
