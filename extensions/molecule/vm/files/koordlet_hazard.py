# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Arm and disarm the kubelet-restart hazard of cpu.idle on the BestEffort QoS cgroup (tests only), and
snapshot what node_prep may touch, so that the caller can show a refused run left it byte-identical.

    python3 koordlet_hazard.py ROOT arm
    python3 koordlet_hazard.py ROOT disarm WEIGHT

ROOT is the node's root ("" on the VM, the fixture tree elsewhere). ``arm`` reads the BestEffort cgroup's
cpu.idle and cpu.weight, then writes 1 to cpu.idle (as koordlet does for a beClass with schedIdle: 1).
``disarm`` writes 0 to cpu.idle, then WEIGHT to cpu.weight: the kernel resets an idle group's weight when
idle goes back to 0, so the kubelet's value is put back too. Both print one JSON document:

    {"idle": cpu.idle as read first, "weight": cpu.weight as read first,
     "idle_now": ..., "weight_now": ...,          # after the write
     "files": {path: sha256}, "lock": whether the node lock exists,
     "kubelet": the kubelet unit's MainPID and ActiveEnterTimestampMonotonic (null without systemd)}
"""
import hashlib
import json
import os
import subprocess
import sys

BESTEFFORT = "/sys/fs/cgroup/kubepods.slice/kubepods-besteffort.slice"
# what node_prep reads and writes on the VM: the kubelet's files and state, its unit drop-ins, containerd's
# configuration, the boot loader's defaults, the node lock and the backups
WATCHED = ("/var/lib/kubelet/config.yaml", "/var/lib/kubelet/cpu_manager_state",
           "/var/lib/kubelet/memory_manager_state", "/etc/kubernetes", "/etc/systemd/system/kubelet.service.d",
           "/etc/containerd", "/etc/default/grub", "/var/lib/numaops-colocation", "/var/backups/numaops-colocation")
LOCK = "/var/lib/numaops-colocation/node.lock"


def read(path):
    with open(path) as handle:
        return handle.read().strip()


def write(path, value):
    with open(path, "w") as handle:
        handle.write(value + "\n")


def digests(root):
    found = {}
    for top in WATCHED:
        path = root + top
        if os.path.isfile(path):
            names = [path]
        else:
            names = [os.path.join(where, name) for where, _dirs, files in os.walk(path) for name in files]
        for name in names:
            if os.path.isfile(name) and not os.path.islink(name):
                with open(name, "rb") as handle:
                    found[name] = hashlib.sha256(handle.read()).hexdigest()
            elif os.path.islink(name):
                found[name] = "link to " + os.readlink(name)
    return found


def kubelet():
    try:
        out = subprocess.run(["systemctl", "show", "kubelet", "-p", "MainPID", "-p", "ActiveEnterTimestampMonotonic"],
                             check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def main(argv):
    root, action = argv[1], argv[2]
    cgroup = root + BESTEFFORT
    result = {"idle": read(cgroup + "/cpu.idle"), "weight": read(cgroup + "/cpu.weight"),
              "files": digests(root), "lock": os.path.exists(root + LOCK), "kubelet": kubelet()}
    if action == "arm":
        write(cgroup + "/cpu.idle", "1")
    elif action == "disarm":
        write(cgroup + "/cpu.idle", "0")
        write(cgroup + "/cpu.weight", argv[3])
    else:
        raise SystemExit("unknown action %r (arm, disarm)" % action)
    result.update(idle_now=read(cgroup + "/cpu.idle"), weight_now=read(cgroup + "/cpu.weight"))
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv)
