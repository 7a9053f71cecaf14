#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type

DOCUMENTATION = r'''
---
module: perf_profile
short_description: Apply a performance profile to a node - isolated CPUs, irqbalance, huge pages per NUMA node
version_added: 1.1.0
author: numaops.colocation developers (@numaops)
description:
  - Derives, from one profile in the shape of OpenShift's PerformanceProfile and the node's topology (read as
    M(numaops.colocation.numa_facts) reads it), the reserved and isolated CPUs, the kubelet settings, the kernel
    arguments of CPU isolation and of huge pages reserved at boot, and irqbalance's banned CPUs.
  - Writes the node's files - irqbalance's C(IRQBALANCE_BANNED_CPULIST) in O(irqbalance_path), and a
    systemd unit (O(unit_path), enabled for C(multi-user.target)) that sets the huge pages of each NUMA node
    before C(kubelet.service) starts at boot. Each file is replaced atomically, keeping its mode, owner and
    links; a failure puts back every file the run changed.
  - Returns the kubelet settings (RV(kubelet), named as the options of M(numaops.colocation.kubelet_config)) and
    the kernel arguments (RV(kernel_args), for M(numaops.colocation.kernel_cmdline)) without applying them; the
    kubelet and the kernel command line are changed by those modules (the node_prep role's kubelet and kernel
    steps).
  - Every refusal comes before anything is written and names the field, the value and what is allowed - CPUs
    that are not online, an empty set, reserved and isolated CPUs that overlap, SMT siblings of one core split
    between reserved and isolated, huge pages above a NUMA node's memory, an unknown NUMA node, a page size the
    node does not offer, and a running command line whose huge page arguments
    M(numaops.colocation.kernel_cmdline) would refuse to merge with the profile's (a C(hugepages=) of the default
    size when the profile sets C(default_hugepagesz), whose pages would become pages of another size).
  - See docs/performance_profiles.md for the mapping of each PerformanceProfile field and what is not done.
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
    details: Shows O(irqbalance_path) and O(unit_path) before and after.
  platform:
    support: full
    platforms: posix
options:
  profile:
    description:
      - The profile. Each part can be used alone (a huge-pages-only profile has only C(hugepages)).
      - C(cpu.reserved) - the CPUs of the system and the kubelet (C(reservedSystemCPUs)), a CPU list such as
        V(0-1), or V(auto) - C(cpu.reserved_cores) whole cores (each with all its SMT siblings, default one per
        NUMA node) taken one per NUMA node in turn, lowest core first.
      - C(cpu.isolated) - the CPUs kept free of the kernel's own work, a CPU list or V(auto) (the default - every
        online CPU not reserved).
      - C(cpu.balance_isolated) - V(true) (the default) lets the scheduler balance tasks over the isolated CPUs
        (C(isolcpus=managed_irq,...)); V(false) removes them from the scheduler domains
        (C(isolcpus=domain,managed_irq,...)).
      - C(hugepages.default_size) - V(2M) or V(1G), the kernel's C(default_hugepagesz).
      - C(hugepages.pages) - a list of C(size) (V(2M) or V(1G)), C(count) and C(node) (a NUMA node; without it
        the pages are reserved at boot by the kernel, which spreads them over the NUMA nodes).
      - C(numa.topology_policy) - V(none), V(best-effort) (the default with C(cpu)), V(restricted) or
        V(single-numa-node).
      - C(isolation) - V(true) (the default) derives the isolation kernel arguments and irqbalance's banned CPUs
        from C(cpu.isolated); V(false) only reserves the CPUs for the kubelet.
      - C(realtime) - only V(false); the real-time kernel and its hints are not set by this collection.
    type: dict
    required: true
  topology_root:
    description: The directory below which the node's C(sys/) and C(proc/cmdline) are read (and irqbalance's file
      looked for); V(/) on a node.
    type: path
    default: /
  irqbalance_path:
    description:
      - irqbalance's environment file. Default - the first of C(/etc/default/irqbalance) (Debian) and
        C(/etc/sysconfig/irqbalance) (openEuler, RHEL) below O(topology_root) that exists; when neither exists irqbalance is left alone
        (a note says so). A path given here is created when missing (mode 0644).
    type: path
  unit_path:
    description:
      - The systemd unit that sets the huge pages of each NUMA node at boot. Written only when a page entry names
        a node; enabled by the link C(multi-user.target.wants/<name>) in the unit's directory, as
        C(systemctl enable) makes it. A unit written by an earlier profile is never removed by this module.
    type: path
    default: /etc/systemd/system/numaops-hugepages.service
  write:
    description:
      - The files this call plans and writes - V(irqbalance) (O(irqbalance_path)) and V(hugepages_unit)
        (O(unit_path) and its link). The role C(numaops.colocation.node_prep) writes each in a call of its own (its
        C(irqbalance) and C(hugepages) concerns); V([]) only derives and checks the profile.
      - The results of a file left out are as without its part of the profile (C(path) null, C(changed) false).
    type: list
    elements: str
    choices: [irqbalance, hugepages_unit]
    default: [irqbalance, hugepages_unit]
notes:
  - The kernel arguments and the huge pages take effect at the next boot; RV(hugepages_drift) lists the NUMA
    nodes whose allocated huge pages differ from the profile until then.
  - irqbalance reads its file when it starts; restart it after a change (C(changed) of RV(irqbalance)).
  - A file with an active, non-empty C(IRQBALANCE_BANNED_CPUS) (the deprecated hex mask, which irqbalance takes
    before the CPU list) is refused.
seealso:
  - module: numaops.colocation.kubelet_config
  - module: numaops.colocation.kernel_cmdline
  - module: numaops.colocation.numa_facts
  - name: OpenShift PerformanceProfile
    description: The profile this module's options follow.
    link: https://github.com/openshift/cluster-node-tuning-operator/blob/master/docs/performanceprofile/performance_profile.md
'''

EXAMPLES = r'''
- name: Isolate every CPU but one whole core per NUMA node, 1G huge pages on both NUMA nodes
  numaops.colocation.perf_profile:
    profile:
      cpu:
        reserved: auto
      hugepages:
        default_size: 1G
        pages:
          - {size: 1G, count: 4, node: 0}
          - {size: 1G, count: 2, node: 1}
      numa:
        topology_policy: single-numa-node
  register: perf

- name: The kubelet settings of the profile
  numaops.colocation.kubelet_config:
    cpu_manager_policy: "{{ perf.kubelet.cpu_manager_policy }}"
    cpu_manager_policy_options: "{{ perf.kubelet.cpu_manager_policy_options }}"
    reserved_system_cpus: "{{ perf.kubelet.reserved_system_cpus }}"
    topology_manager_policy: "{{ perf.kubelet.topology_manager_policy }}"
    memory_manager_policy: "{{ perf.kubelet.memory_manager_policy }}"
    reserved_memory: "{{ perf.kubelet.reserved_memory }}"

- name: The kernel arguments of the profile, merged with the node's own
  numaops.colocation.kernel_cmdline:
    args: "{{ perf.kernel_args }}"

- name: Huge pages only - 2M pages unevenly over two NUMA nodes
  numaops.colocation.perf_profile:
    profile:
      hugepages:
        pages:
          - {size: 2M, count: 1024, node: 0}
          - {size: 2M, count: 256, node: 1}
'''

RETURN = r'''
reserved_cpus:
  description: The reserved CPUs (C(reservedSystemCPUs)); null without C(cpu) in the profile.
  returned: always
  type: str
  sample: "0,2,64,66"
isolated_cpus:
  description: The isolated CPUs; null without C(cpu) in the profile.
  returned: always
  type: str
  sample: "1,3-63,65,67-127"
reserved_detail:
  description: With C(cpu.reserved=auto), the cores taken - C(numa_node), C(core_id), C(socket), C(cpus).
  returned: always
  type: list
  elements: dict
kubelet:
  description:
    - The kubelet settings of the profile as options of M(numaops.colocation.kubelet_config) -
      C(cpu_manager_policy), C(reserved_system_cpus), C(topology_manager_policy), and with V(restricted) or
      V(single-numa-node) C(memory_manager_policy=Static) with C(reserved_memory=auto); with
      V(single-numa-node) C(cpu_manager_policy_options) with C(full-pcpus-only) V(true).
  returned: always
  type: dict
  sample: {cpu_manager_policy: static, reserved_system_cpus: "0,64", topology_manager_policy: best-effort}
kernel_args:
  description: The kernel arguments of the profile, for M(numaops.colocation.kernel_cmdline).
  returned: always
  type: list
  elements: str
  sample: [nohz=on, nohz_full=1-63, rcu_nocbs=1-63, "isolcpus=managed_irq,1-63", irqaffinity=0,
           systemd.cpu_affinity=0, skew_tick=1, default_hugepagesz=1G, hugepagesz=1G, "hugepages=0:4,1:2"]
kernel_args_replacing:
  description:
    - Arguments of the running kernel's command line whose key RV(kernel_args) gives another value.
    - For huge pages, the C(hugepagesz=)/C(hugepages=) pair of a page size whose count RV(kernel_args) changes
      (M(numaops.colocation.kernel_cmdline) replaces that count where it is and keeps the pairs of other sizes).
  returned: always
  type: list
  elements: str
  sample: ["isolcpus=2-7"]
irqbalance:
  description: C(path) (null when irqbalance is left alone), C(banned_cpus) (null without isolation), C(changed).
  returned: always
  type: dict
hugepages:
  description: The huge pages of the profile - C(size), C(kib), C(count), C(node) (null - reserved at boot).
  returned: always
  type: list
  elements: dict
hugepages_unit:
  description: C(path), C(link) (its C(multi-user.target.wants) link), C(changed); C(path) null when no page entry
    names a node.
  returned: always
  type: dict
reboot_required:
  description: The huge pages unit was written (or would be, in check mode) - its pages are set at the next boot.
  returned: always
  type: bool
hugepages_drift:
  description: The pages whose count in sysfs differs - C(node), C(size), C(wanted), C(allocated) (null -
    unknown); for pages without a node C(node) is null and C(allocated) the sum over the NUMA nodes.
  returned: always
  type: list
  elements: dict
notes:
  description: What was left alone and why.
  returned: always
  type: list
  elements: str
diff:
  description: Before and after of each file written (or that would be, in check mode).
  returned: in diff mode
  type: list
  elements: dict
'''

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.numaops.colocation.plugins.module_utils import irqbalance, numa, perfprofile
from ansible_collections.numaops.colocation.plugins.module_utils.cpuset import parse_cpuset
from ansible_collections.numaops.colocation.plugins.module_utils.nodefile import (
    MAX_CONFIG_BYTES, NodeFileError, check_writable, decode_text, read_limited, write_target)
from ansible_collections.numaops.colocation.plugins.module_utils.nodewrite import (
    Changes, link_text, replace_link, result_text)


def _read(path, what):
    check_writable(write_target(path))
    data = read_limited(write_target(path), MAX_CONFIG_BYTES, what)
    return None if data is None else decode_text(path, data, what)


def _running(root):
    try:
        with open(os.path.join(root, 'proc/cmdline')) as handle:
            return handle.read().split()
    except (IOError, OSError):
        return []


def _replacing(words, args):
    wanted = dict((arg.split('=', 1)[0], arg) for arg in args if '=' in arg)
    return [word for word in words if '=' in word and word.split('=', 1)[0] in wanted
            and word != wanted[word.split('=', 1)[0]] and word.split('=', 1)[0] not in ('hugepagesz', 'hugepages')] \
        + perfprofile.replaced_pairs(words, args)


def plan(module, derived):
    """[(path, old text, new text)] and the link to make: everything read and checked before any write."""
    p = module.params
    notes, files = [], []
    irq = {'path': None, 'banned_cpus': derived['irqbalance_banned_cpus'], 'changed': False}
    if derived['irqbalance_banned_cpus'] is not None and 'irqbalance' in p['write']:
        candidates = [os.path.join(p['topology_root'], c.lstrip('/')) for c in irqbalance.DEFAULT_PATHS]
        path = p['irqbalance_path'] or next((c for c in candidates if os.path.exists(c)), None)
        if path is None:
            notes.append('irqbalance left alone: neither %s exists (irqbalance not installed)'
                         % ' nor '.join(candidates))
        else:
            old = _read(path, 'irqbalance environment file')
            new = irqbalance.set_banned_cpus(old, set(parse_cpuset(derived['irqbalance_banned_cpus'])),
                                             path)
            irq.update(path=path, changed=new != old)
            files.append((path, old, new, 'irqbalance'))
    unit = {'path': None, 'link': None, 'changed': False}
    link = None
    wanted = 'hugepages_unit' in p['write']
    if wanted and derived['node_hugepages']:
        path = p['unit_path']
        old = _read(path, 'systemd unit')
        new = perfprofile.huge_pages_unit(derived['node_hugepages'])
        link_path = os.path.join(os.path.dirname(path), 'multi-user.target.wants', os.path.basename(path))
        link_wrong = link_text(link_path) != path
        if link_wrong and os.path.lexists(link_path):
            raise NodeFileError('%s is there and is not a link to %s, so the unit would not be enabled; remove it '
                                '(systemctl disable %s). Nothing was changed.'
                                % (link_path, path, os.path.basename(path)))
        unit.update(path=path, link=link_path, changed=new != old or link_wrong)
        files.append((path, old, new, 'unit'))
        link = (link_path, path) if link_wrong else None
    elif wanted and os.path.lexists(p['unit_path']):
        notes.append('%s (of an earlier profile) left in place: it still sets huge pages at boot; the profile names '
                     'no NUMA node for its pages. Disable and remove it to stop that.' % p['unit_path'])
    return files, link, irq, unit, notes


def run(module):
    p = module.params
    facts = numa.collect(p['topology_root'])
    try:
        derived = perfprofile.derive(p['profile'], facts)
    except perfprofile.ProfileError as err:
        module.fail_json(msg='perf_profile: %s. Nothing was changed.' % err, errors=err.errors)
    running = _running(p['topology_root'])
    conflict = perfprofile.running_pairs_error(derived['kernel_args'], running,
                                               os.path.join(p['topology_root'], 'proc/cmdline'))
    if conflict:
        module.fail_json(msg='perf_profile: %s' % conflict)
    try:
        files, link, irq, unit, notes = plan(module, derived)
    except (NodeFileError, irqbalance.IrqbalanceError) as err:
        module.fail_json(msg=str(err))
    changed = any(old != new for _path, old, new, _what in files) or link is not None
    diffs = [{'before_header': path, 'after_header': path, 'before': old or '', 'after': new}
             for path, old, new, _what in files if old != new]
    if link is not None:
        diffs.append({'before_header': link[0], 'after_header': link[0], 'before': '',
                      'after': 'symbolic link to %s\n' % link[1]})
    if changed and not module.check_mode:
        changes = Changes(mover=module.atomic_move)
        try:
            for path, old, new, _what in files:
                if old != new:
                    directory = os.path.dirname(write_target(path))
                    if not os.path.isdir(directory):
                        raise NodeFileError('cannot write %s: its directory %s does not exist' % (path, directory))
                    changes.write(path, new.encode('utf-8'), mode=0o644)
            if link is not None:
                os.makedirs(os.path.dirname(link[0]), exist_ok=True)
                changes.remember(link[0], link[0])
                replace_link(link[0], link[1])
        except (NodeFileError, OSError) as err:
            restored, failed = changes.rollback()
            module.fail_json(msg='%s; put back: %s%s' % (err, ', '.join(restored) or 'nothing',
                                                         ('; NOT put back: ' + '; '.join(failed)) if failed else ''))
        changes.forget()
    result = dict(changed=changed, reserved_cpus=derived['reserved_cpus'], isolated_cpus=derived['isolated_cpus'],
                  reserved_detail=derived['reserved_detail'], kubelet=derived['kubelet'],
                  kernel_args=derived['kernel_args'],
                  kernel_args_replacing=_replacing(running, derived['kernel_args']),
                  irqbalance=irq, hugepages=derived['hugepages'], hugepages_unit=unit,
                  hugepages_drift=perfprofile.hugepages_drift(derived['hugepages'], facts), notes=notes,
                  reboot_required=bool(unit['changed']))
    if module._diff:
        result['diff'] = diffs
    module.exit_json(**result_text(result))


def main():
    module = AnsibleModule(argument_spec=dict(
        profile=dict(type='dict', required=True),
        topology_root=dict(type='path', default='/'),
        irqbalance_path=dict(type='path'),
        unit_path=dict(type='path', default='/etc/systemd/system/numaops-hugepages.service'),
        write=dict(type='list', elements='str', choices=['irqbalance', 'hugepages_unit'],
                   default=['irqbalance', 'hugepages_unit']),
    ), supports_check_mode=True)
    run(module)


if __name__ == '__main__':
    main()
