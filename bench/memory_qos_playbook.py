# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""memory_qos on one full node as a playbook task, side by side with an empty module call and with the
per-container loop of builtin tasks a user would write instead.

The node is the cgroup v2 STAND-IN tree (tests/standins/cgroup2.py) on the local file system (this host has no
cgroup v2 memory controller), default 110 pods x 4 containers; every run is a whole `ansible-playbook` against
localhost with the local connection, so each figure includes Ansible's start-up, which all three pay alike:

- empty:  one `ansible.builtin.ping` task (the cost of any module call);
- empty+vars: the same with the node's pods loaded as a vars file, as the ours variants have them (the pods
          have to come from somewhere: loading 110 pods into a play is a cost of their own);
- ours:   one `numaops.colocation.memory_qos` task, pods given as the task's arguments (first apply on a fresh
          tree, then the idempotent rerun), with report=all (the module's default: every pod in the result)
          and with report=changes (what the memory_qos role passes: only what changed, drifted or was skipped);
- ours pods_file: the rerun with the same pods read from a PodList file on the node (option pods_file), so
          the pods are neither loaded into the play nor sent with the task; report=changes;
- loop:   one `ansible.builtin.shell` task looped over every container, writing its memory.high, memory.low and
          memory.min (the values memory_qos computes, taken from a check-mode run, so both write the same);
          run on a fresh tree, and checked to leave the same files as ours.

Targets: ours <= 1.5x empty; loop >= 50x ours. Each variant runs --repeat times (the loop once, it is slow), in
the order empty, empty+vars, ours (all) first and rerun, ours (changes) first and rerun, ours pods_file rerun,
then again; the median is printed.

Usage: python3 bench/memory_qos_playbook.py [--pods 110] [--containers 4] [--repeat 3] [--skip-loop] [--from-api]
"""

from __future__ import (absolute_import, division, print_function)

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = ('memory.high', 'memory.low', 'memory.min')

MEMORY_QOS_PLAY = '''
- name: {title}
  hosts: localhost
  gather_facts: false
  vars_files: [{vars_file}]
  tasks:
    - name: {task}
      numaops.colocation.memory_qos:
        {pods_option}
        configs: "{{{{ configs }}}}"
        cgroup_root: "{{{{ cgroup_root }}}}"
        kubelet_config_path: /nonexistent
{extra}      register: qos
'''


def memory_qos_play(title, task='Memory QoS for every container', vars_file='node.json',
                    pods_option='pods: "{{ pods }}"', extra=''):
    """One memory_qos task on the node; ``extra``: further lines of the task before its ``register``."""
    return MEMORY_QOS_PLAY.format(title=title, task=task, vars_file=vars_file, pods_option=pods_option, extra=extra)


PLAYBOOKS = {
    'empty': '''
- name: An empty module call
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Ping
      ansible.builtin.ping:
''',
    'empty_vars': '''
- name: An empty module call, the node's pods loaded
  hosts: localhost
  gather_facts: false
  vars_files: [node.json]
  tasks:
    - name: Ping
      ansible.builtin.ping:
''',
    'loop': '''
- name: The loop a user would write
  hosts: localhost
  gather_facts: false
  vars_files: [node.json, values.json]
  tasks:
    - name: Write memory.high, memory.low and memory.min of each container
      ansible.builtin.shell:
        cmd: >-
          printf '%s' {{ item.high | quote }} > {{ item.dir | quote }}/memory.high &&
          printf '%s' {{ item.low | quote }} > {{ item.dir | quote }}/memory.low &&
          printf '%s' {{ item.min | quote }} > {{ item.dir | quote }}/memory.min
      loop: "{{ containers }}"
      loop_control:
        label: "{{ item.dir | basename }}"
      changed_when: true
''',
    'ours': memory_qos_play('memory_qos on the node'),
    'ours_changes': memory_qos_play('memory_qos on the node, the result listing what changed only',
                                    extra='        report: changes\n'),
    'ours_file': memory_qos_play('memory_qos on the node, the pods from a file on the node', vars_file='configs.json',
                                 pods_option='pods_file: "{{ pods_file }}"', extra='        report: changes\n'),
    'plan': memory_qos_play('The values memory_qos computes (check mode), for the loop', task='Memory QoS in check mode',
                            extra='      check_mode: true\n') + '''    - name: Keep the result
      ansible.builtin.copy:
        content: "{{ qos | to_json }}"
        dest: plan.json
        mode: "0600"
''',
}


def collection_path():
    top = tempfile.mkdtemp(prefix='numaops-bench-')
    os.makedirs(os.path.join(top, 'ansible_collections', 'numaops'))
    os.symlink(ROOT, os.path.join(top, 'ansible_collections', 'numaops', 'colocation'))
    return top


def playbook(work, top, name, extra=None):
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=top, ANSIBLE_NOCOLOR='1', ANSIBLE_LOCALHOST_WARNING='false',
               ANSIBLE_INVENTORY_UNPARSED_WARNING='false', ANSIBLE_PYTHON_INTERPRETER=sys.executable)
    argv = ['ansible-playbook', '-c', 'local', os.path.join(work, name + '.yml')] + list(extra or [])
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit('%s failed (rc=%d):\n%s' % (name, proc.returncode, (proc.stdout + proc.stderr)[-3000:]))
    return wall, proc.stdout


def api_pods(pods):
    """``pods`` created on a private test control plane as a kubelet would (tests/unit/roles/k8s_seed.py) and
    listed back as the API returns them, with server-assigned UIDs and every field the server adds."""
    from ansible_collections.numaops.colocation.tests.cluster.fixture import running_cluster
    from ansible_collections.numaops.colocation.tests.unit.roles import k8s_seed

    with running_cluster(nodes=('node-1',)) as cluster:
        listed = k8s_seed.seed_pods(cluster.kubeconfig_path, pods, 'bench-node')['items']
    by_name = dict((pod['metadata']['name'], pod) for pod in listed)
    missing = [pod['metadata']['name'] for pod in pods if pod['metadata']['name'] not in by_name]
    if missing:
        raise SystemExit('the API did not return the pods %s' % ', '.join(missing[:5]))
    print('pods from kube-apiserver: %d kB as JSON (%d kB as generated)'
          % (len(json.dumps(listed)) // 1024, len(json.dumps(pods)) // 1024))
    return [by_name[pod['metadata']['name']] for pod in pods]


def container_values(cgroot, cgroups):
    """memory.high/low/min of the containers' cgroups (relative paths) below ``cgroot``."""
    values = {}
    for cgroup in cgroups:
        for name in FILES:
            with open(os.path.join(cgroot, cgroup, name)) as handle:
                values[os.path.join(cgroup, name)] = handle.read().strip()
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--pods', type=int, default=110)
    parser.add_argument('--containers', type=int, default=4)
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--skip-loop', action='store_true', help='leave out the (slow: ~10 min) builtin loop')
    parser.add_argument('--from-api', action='store_true',
                        help='the pods as kube-apiserver returns them (managedFields and all): created on the real test '
                             'control plane (tests/cluster, needs its binaries: scripts/upstream.sh) and read back')
    args = parser.parse_args()

    top = collection_path()
    sys.path.insert(0, top)
    from ansible_collections.numaops.colocation.tests.standins.cgroup2 import CgroupV2StandIn, build_node
    from ansible_collections.numaops.colocation.tests.standins.podgen import busy_node

    pods, configs = busy_node(args.pods, args.containers)
    if args.from_api:
        pods = api_pods(pods)
    work = tempfile.mkdtemp(prefix='numaops-bench-qos-')
    try:
        for name, text in PLAYBOOKS.items():
            with open(os.path.join(work, name + '.yml'), 'w') as handle:
                handle.write('---' + text)

        def fresh(label):
            cgroot = os.path.join(work, label)
            shutil.rmtree(cgroot, ignore_errors=True)
            build_node(CgroupV2StandIn(cgroot), pods)
            with open(os.path.join(work, 'node.json'), 'w') as handle:
                json.dump({'pods': pods, 'configs': configs, 'cgroup_root': cgroot}, handle)
            with open(os.path.join(work, 'configs.json'), 'w') as handle:
                json.dump({'configs': configs, 'cgroup_root': cgroot, 'pods_file': os.path.join(work, 'pods.json')}, handle)
            return cgroot

        # the values memory_qos computes, for the loop (a check-mode run writes nothing)
        fresh('plan')
        playbook(work, top, 'plan')
        with open(os.path.join(work, 'plan.json')) as handle:
            plan = json.load(handle)
        containers = []
        cgroups = []
        for pod in plan['pods']:
            for container in pod.get('containers') or []:
                expected = container.get('expected') or {}
                if container.get('cgroup') and all(name in expected for name in FILES):
                    cgroups.append(container['cgroup'])
                    containers.append({'dir': os.path.join(work, 'LOOP', container['cgroup']),
                                       'high': expected['memory.high'], 'low': expected['memory.low'],
                                       'min': expected['memory.min']})
        with open(os.path.join(work, 'values.json'), 'w') as handle:
            json.dump({'containers': containers}, handle)
        print('node: %d pods x %d containers (%d containers with memory files), %d ColocationConfigurations, '
              'stand-in cgroup v2 tree' % (args.pods, args.containers, len(containers), len(configs)))

        with open(os.path.join(work, 'pods.json'), 'w') as handle:
            json.dump({'apiVersion': 'v1', 'kind': 'PodList', 'items': pods}, handle)
        variants = ('empty', 'empty+vars', 'ours first', 'ours rerun', 'changes first', 'changes rerun',
                    'pods_file rerun', 'loop')
        times = dict((key, []) for key in variants)
        same = None
        for attempt in range(args.repeat):
            times['empty'].append(playbook(work, top, 'empty')[0])
            times['empty+vars'].append(playbook(work, top, 'empty_vars')[0])
            ours_root = fresh('OURS')
            times['ours first'].append(playbook(work, top, 'ours')[0])
            times['ours rerun'].append(playbook(work, top, 'ours')[0])
            fresh('OURS')
            times['changes first'].append(playbook(work, top, 'ours_changes')[0])
            times['changes rerun'].append(playbook(work, top, 'ours_changes')[0])
            times['pods_file rerun'].append(playbook(work, top, 'ours_file')[0])
            if attempt == 0 and not args.skip_loop:
                loop_root = fresh('LOOP')
                times['loop'].append(playbook(work, top, 'loop')[0])
                same = container_values(ours_root, cgroups) == container_values(loop_root, cgroups)
        if args.skip_loop:
            del times['loop']
        median = dict((key, statistics.median(values)) for key, values in times.items())
        print('%-16s %10s %10s  %s' % ('variant', 'median [s]', 'min [s]', 'runs'))
        for key, values in times.items():
            print('%-16s %10.2f %10.2f  %s' % (key, median[key], min(values), ' '.join('%.2f' % v for v in values)))
        for key in ('ours first', 'ours rerun', 'changes first', 'changes rerun', 'pods_file rerun'):
            print('%-16s / empty %.2fx  / empty+vars %.2fx  (target <= 1.5x empty)'
                  % (key, median[key] / median['empty'], median[key] / median['empty+vars']))
        if same is None:
            return 0
        print('loop / ours first   %.1fx  (target >= 50x)' % (median['loop'] / median['ours first']))
        print('the containers\' memory.high/low/min are the same after the loop and after ours: %s'
              % ('yes' if same else 'NO'))
        return 0 if same else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(top, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
