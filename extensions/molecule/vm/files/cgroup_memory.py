# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read (or reset) the memory QoS files of the real kubelet's container cgroups on the test VM (tests only).

    python3 cgroup_memory.py [--reset] CONTAINER_ID ...

Finds each container's cgroup by its ID (cri-containerd-<id>.scope anywhere below kubepods.slice: the
path the real kubelet and containerd made, not one derived by us), and prints one JSON document:

    {"containers": {ID: {"memory.high", "memory.low", "memory.min", "cgroup.procs", "path", "pod_path",
                         "cpuset.cpus.effective", "cpuset.mems.effective"}},
     "pods": {PATH: {...}}}     # each container's pod, the two QoS class slices and kubepods.slice

Each entry of "pods" also carries "children": the sums of memory.min and memory.low over all its child cgroups
(the sandbox's and those of other pods included), as the kernel holds them.

paths relative to /sys/fs/cgroup. With --reset, each found container's memory.high/low/min are first set
back to the kernel's defaults (max, 0, 0), so that what is read afterwards was written by whoever runs next:
the scope unit's MemoryHigh=/MemoryLow=/MemoryMin= too (systemctl set-property --runtime), or systemd would put
back what memory_qos set as the unit's properties the next time the kubelet makes it re-apply the unit.
An ID that is not found is missing from "containers" (the caller's assertion names it).
"""
import json
import os
import subprocess
import sys

ROOT = "/sys/fs/cgroup"
FILES = ("memory.high", "memory.low", "memory.min", "cgroup.procs")
CPUSET = ("cpuset.cpus.effective", "cpuset.mems.effective")   # containers only (null when the file is missing)
DEFAULTS = (("memory.min", "0"), ("memory.low", "0"), ("memory.high", "max"))
LEVELS = ("kubepods.slice", "kubepods.slice/kubepods-burstable.slice", "kubepods.slice/kubepods-besteffort.slice")


def find(ids):
    found = {}
    for top, dirs, _files in os.walk(os.path.join(ROOT, "kubepods.slice")):
        for name in dirs:
            if name.startswith("cri-containerd-") and name.endswith(".scope") and name[15:-6] in ids:
                found[name[15:-6]] = os.path.relpath(os.path.join(top, name), ROOT)
    return found


def read(rel, optional=()):
    values = {}
    for name in FILES + tuple(optional):
        try:
            with open(os.path.join(ROOT, rel, name)) as handle:
                values[name] = handle.read().strip()
        except FileNotFoundError:
            if name not in optional:
                raise
            values[name] = None
    return values


def children_sums(rel):
    sums = {"memory.min": 0, "memory.low": 0}
    top = os.path.join(ROOT, rel)
    for name in sorted(os.listdir(top)):
        if not os.path.isdir(os.path.join(top, name)):
            continue
        for key in sums:
            try:
                with open(os.path.join(top, name, key)) as handle:
                    sums[key] += int(handle.read().strip())
            except (IOError, OSError, ValueError):
                pass   # a child without the memory controller (or gone meanwhile) protects nothing
    return dict((key, str(value)) for key, value in sums.items())


def main(argv):
    reset = "--reset" in argv
    ids = [a for a in argv if a != "--reset"]
    found = find(set(ids))
    if reset:
        for rel in found.values():
            subprocess.check_call(["systemctl", "set-property", "--runtime", "--", os.path.basename(rel),
                                   "MemoryHigh=infinity", "MemoryLow=0", "MemoryMin=0"])
            for name, value in DEFAULTS:
                with open(os.path.join(ROOT, rel, name), "w") as handle:
                    handle.write(value)
    out = {"containers": {}, "pods": {}}
    for cid, rel in found.items():
        out["containers"][cid] = dict(read(rel, CPUSET), path=rel, pod_path=os.path.dirname(rel))
        out["pods"][os.path.dirname(rel)] = read(os.path.dirname(rel))
    for rel in LEVELS:
        out["pods"][rel] = read(rel)
    for rel in out["pods"]:
        out["pods"][rel]["children"] = children_sums(rel)
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1:])
