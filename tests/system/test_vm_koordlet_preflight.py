# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""The vm scenario's koordlet pre-flight tasks (extensions/molecule/vm/tasks/koordlet_preflight.yml), run with
ansible-playbook against a sandbox tree laid out as the Debian VM is after converge: the same answers per feature,
the cpu.idle hazard stopping a real node_prep run before any change; and, with a node_prep that does not stop (it
does not manage the services here, so it only warns), the tasks fail. What the VM run proves on the real kernel,
this proves of the tasks, in seconds, before the VM is booted."""
from __future__ import annotations

import os
import socket

import yaml

from ansible_collections.numaops.colocation.plugins.modules.node_preflight import core_sched_probe
from ansible_collections.numaops.colocation.tests.system import test_node_prep_fleet as fleet

top = fleet.top_fixture  # noqa: F811  (the same fixture)
SCENARIO = os.path.join(fleet.ROOT, 'extensions', 'molecule', 'vm')
# /proc/cpuinfo of QEMU's emulated CPU: no RDT (no cat_l3, no mba)
CPUINFO = ('processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: QEMU TCG CPU version 2.5+\n'
           'flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse '
           'sse2 ss syscall nx pdpe1gb rdtscp lm pni pclmulqdq ssse3 fma cx16 sse4_1 sse4_2 movbe popcnt aes xsave '
           'avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch fsgsbase bmi1 avx2 smep bmi2 erms invpcid\n')
# what the VM has after converge that the sandbox tree lacks: the kubepods cgroups with the cpu controller and PSI
VM_FILES = {
    'sys/fs/cgroup/kubepods.slice/memory.min': '0\n',
    'sys/fs/cgroup/kubepods.slice/cpu.idle': '0\n',
    'sys/fs/cgroup/kubepods.slice/cpu.pressure': 'some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n'
                                                 'full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n',
    'sys/fs/cgroup/kubepods.slice/kubepods-besteffort.slice/cpu.idle': '0\n',
    'sys/fs/cgroup/kubepods.slice/kubepods-besteffort.slice/cpu.weight': '1\n',
    'proc/cpuinfo': CPUINFO,
}
VARS = {
    'vm_node_prep_vars': {'node_prep_kernel_args': [], 'node_prep_perf_profile': None, 'node_prep_reboot_allowed': True,
                          'node_prep_backup': True, 'node_prep_health_poll_interval': 2},
    'vm_k8s_vars': {'node_prep_k8s_enabled': False, 'node_prep_k8s_kubeconfig': ''},
}


def _vm_like(top):
    tree = fleet._sandbox(top, 'vm')
    for rel, text in VM_FILES.items():
        path = tree / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    sock = tree / 'var' / 'run' / 'nri' / 'nri.sock'
    sock.parent.mkdir(parents=True)
    if len(str(sock)) < 100:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(sock))
        server.close()
    else:
        sock.mkdir()   # a too long path for a socket: only its existence is read
    return tree


def _files(tree):
    """{path: bytes} of every regular file of ``tree`` (the NRI socket is none)."""
    state = {}
    for dirpath, _dirs, names in os.walk(str(tree)):
        for name in names:
            path = os.path.join(dirpath, name)
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, 'rb') as handle:
                    state[path] = handle.read()
    return state


def _playbooks(top):
    """A converge as the vm scenario's (node_prep with its defaults, no services here), and a verify that includes
    the scenario's task file; ``files/`` beside them, as the task file finds its script there."""
    os.symlink(os.path.join(SCENARIO, 'files'), str(top / 'files'))
    (top / 'vars.yml').write_text(yaml.safe_dump(VARS))
    expected = {}
    if core_sched_probe()['supported']:
        # this machine's kernel has core scheduling, the VM's has not: the answers are this machine's then
        expected = {'vm_koordlet_expected': {'memory_qos': True, 'cpu_idle': True, 'psi': True, 'nri': True,
                                             'core_sched': True, 'group_identity': False, 'resctrl': False,
                                             'cpuset': False}}
    (top / 'converge.yml').write_text(yaml.safe_dump([{
        'name': 'Converge as the vm scenario does', 'hosts': 'colocation_nodes', 'gather_facts': False,
        'tasks': [{'name': 'Run node_prep', 'ansible.builtin.include_role': {'name': 'numaops.colocation.node_prep'}}],
    }]))
    (top / 'verify.yml').write_text(yaml.safe_dump([{
        'name': 'The koordlet pre-flight tasks of the vm scenario', 'hosts': 'colocation_nodes',
        'gather_facts': False, 'vars_files': ['vars.yml'],
        'vars': dict(expected, vm_koordlet_root='{{ node_prep_root }}'),
        'tasks': [{'name': 'Koordlet',
                   'ansible.builtin.include_tasks': os.path.join(SCENARIO, 'tasks', 'koordlet_preflight.yml')}],
    }]))


def test_the_vm_tasks_on_a_tree_laid_out_as_the_vm(top):
    tree = _vm_like(top)
    inventory = fleet._inventory(top, [tree])
    _playbooks(top)
    rc, out = fleet._playbook(inventory, str(top / 'converge.yml'))
    assert rc == 0, out[-3000:]
    before = _files(tree)
    # the VM manages its services: a kubelet change restarts the kubelet, so the hazard stops the run
    rc, out = fleet._playbook(inventory, str(top / 'verify.yml'), extra={'node_prep_manage_services': True})
    assert rc == 0, out[-4000:]
    assert fleet._recap(out)['failed'] == 0 and fleet._recap(out)['rescued'] == 1, out[-3000:]
    assert ('koordlet: memory_qos ok, cpu_idle ok, core_sched %s, group_identity NO, psi ok, resctrl NO, nri ok, '
            'cpuset NO' % ('ok' if core_sched_probe()['supported'] else 'NO')) in out
    # the cpuset answer, judged after the plan, is a warning of the pre-flight task as the others are
    assert '[WARNING]: sandbox-node-1: koordlet cannot do LSR/LSE CPU binding' in out, out[-3000:]
    assert _files(tree) == before, 'cpu.idle and cpu.weight put back, nothing else touched'

    # a node_prep that goes on (here: one that does not restart the kubelet, so the hazard only warns) fails the
    # tasks: the VM run cannot pass with a pre-flight that does not stop
    rc, out = fleet._playbook(inventory, str(top / 'verify.yml'))
    assert rc != 0 and 'node_prep with cpu.idle=1 on ' in out, out[-3000:]
    assert (tree / 'sys/fs/cgroup/kubepods.slice/kubepods-besteffort.slice/cpu.idle').read_text() == '0\n'
