# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Measure numaops.colocation.memory_qos on a full node: 110 pods x 4 containers in one module call.

The node is the cgroup v2 STAND-IN tree (tests/standins/cgroup2.py) on the local file system - this host
has no cgroup v2 memory controller - so the figures measure the module's own work (planning, reads and
writes through the VFS), not kernel cgroupfs costs. Each run is a separate Python process executing the
module exactly as Ansible's module runner would (``python -m ... args.json``); printed are wall time, peak
RSS of that process, and the counts of files written / unchanged.

Usage: python3 bench/memory_qos_bench.py [--pods 110] [--containers 4] [--repeat 3]
"""

from __future__ import (absolute_import, division, print_function)

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def collection_path():
    top = tempfile.mkdtemp(prefix='numaops-bench-')
    os.makedirs(os.path.join(top, 'ansible_collections', 'numaops'))
    os.symlink(ROOT, os.path.join(top, 'ansible_collections', 'numaops', 'colocation'))
    return top


def run_module(top, args, check=False):
    payload = dict(args)
    if check:
        payload['_ansible_check_mode'] = True
    with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as handle:
        json.dump({'ANSIBLE_MODULE_ARGS': payload}, handle)
        path = handle.name
    env = dict(os.environ, PYTHONPATH=top)
    code = ('import resource, runpy, sys; sys.argv = ["memory_qos", %r]\n'
            'try:\n    runpy.run_module("ansible_collections.numaops.colocation.plugins.modules.memory_qos",'
            ' run_name="__main__")\n'
            'finally:\n    sys.stderr.write("MAXRSS=%%d\\n" %% resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n'
            % path)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    os.unlink(path)
    maxrss = [int(line.split('=')[1]) for line in proc.stderr.splitlines() if line.startswith('MAXRSS=')]
    try:
        result = json.loads(proc.stdout)
    except ValueError:
        raise SystemExit('module output is not JSON:\n%s\n%s' % (proc.stdout[-2000:], proc.stderr[-2000:]))
    if result.get('failed'):
        raise SystemExit('module failed: %s' % result.get('msg'))
    return wall, (maxrss[0] if maxrss else 0), result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--pods', type=int, default=110)
    parser.add_argument('--containers', type=int, default=4)
    parser.add_argument('--repeat', type=int, default=3)
    args = parser.parse_args()

    top = collection_path()
    sys.path.insert(0, top)
    from ansible_collections.numaops.colocation.tests.standins.cgroup2 import CgroupV2StandIn, build_node
    from ansible_collections.numaops.colocation.tests.standins.podgen import busy_node

    pods, configs = busy_node(args.pods, args.containers)
    print('node: %d pods x %d containers (%d containers), %d ColocationConfigurations, stand-in cgroup v2 tree'
          % (args.pods, args.containers, args.pods * args.containers, len(configs)))
    print('%-30s %9s %12s %8s %10s %8s' % ('run', 'wall [s]', 'peak RSS [MiB]', 'written', 'unchanged', 'skipped'))
    work = tempfile.mkdtemp(prefix='numaops-bench-cg-')
    try:
        for attempt in range(args.repeat):
            cgroot = os.path.join(work, 'cg%d' % attempt)
            build_node(CgroupV2StandIn(cgroot), pods)
            module_args = {'pods': pods, 'configs': configs, 'cgroup_root': cgroot,
                           'kubelet_config_path': '/nonexistent'}
            for label, check in (('baseline: no pods', None), ('check mode (audit)', True), ('first apply', False),
                                 ('second apply (idempotent)', False)):
                if check is None:  # module start-up and tree checks only: what the other rows pay anyway
                    wall, rss, result = run_module(top, dict(module_args, pods=[]), True)
                else:
                    wall, rss, result = run_module(top, module_args, check)
                row = ('%s #%d' % (label, attempt + 1), wall, rss / 1024.0,
                       result['written'], result['unchanged'], result['skipped'])
                print('%-30s %9.3f %12.1f %8d %10d %8d' % row)
        print('python %s, page size %d' % (sys.version.split()[0], os.sysconf('SC_PAGE_SIZE')))
        print('for comparison, this bench process peak RSS: %.1f MiB'
              % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(top, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
