# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""What the kernel and systemd say of the performance profile on the node, as JSON on stdout, read the way the
Node Tuning Operator's functional tests read it: the isolated and nohz_full CPUs from sysfs, the booted command
line, the default IRQ affinity, each NUMA node's 2Mi huge pages, the huge pages unit's state, and the hugetlb
limit of the cgroup of the pod whose container ID is given (argument 1; the container's cgroup's parent).

Usage: perf_node.py CONTAINER_ID
"""
import glob
import json
import os
import subprocess
import sys


def read(path):
    try:
        with open(path) as handle:
            return handle.read().strip()
    except OSError as err:
        return 'unreadable: %s' % err


def main():
    out = dict((name, read(path)) for name, path in (
        ('isolated', '/sys/devices/system/cpu/isolated'),
        ('nohz_full', '/sys/devices/system/cpu/nohz_full'),
        ('cmdline', '/proc/cmdline'),
        ('default_smp_affinity', '/proc/irq/default_smp_affinity')))
    out['nr_hugepages'] = dict(
        (os.path.basename(node), int(read(node + '/hugepages/hugepages-2048kB/nr_hugepages')))
        for node in sorted(glob.glob('/sys/devices/system/node/node[0-9]*')))
    show = subprocess.run(['systemctl', 'show', '--property=UnitFileState,ActiveState,Result',
                           'numaops-hugepages.service'], stdout=subprocess.PIPE, universal_newlines=True, check=False)
    out['unit'] = dict(line.split('=', 1) for line in show.stdout.splitlines() if '=' in line)
    scopes = glob.glob('/sys/fs/cgroup/kubepods.slice/**/cri-containerd-%s.scope' % sys.argv[1], recursive=True)
    out['pod_hugetlb_max'] = read(os.path.dirname(scopes[0]) + '/hugetlb.2MB.max') if scopes else 'no cgroup'
    print(json.dumps(out))


if __name__ == '__main__':
    main()
