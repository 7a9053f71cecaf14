# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Restart the real kubelet on the test VM and wait until systemd has re-applied the scope unit of every given
container (tests only).

    python3 kubelet_reapply.py TIMEOUT_SECONDS CONTAINER_ID ...

After a restart, the kubelet's CPU manager sends every container's resources to containerd, and runc sets them as
properties of the container's scope unit (it rewrites the unit's drop-in 50-AllowedCPUs.conf in
/run/systemd/transient/<scope>.d). systemd then re-applies the unit: it writes the unit's own MemoryMin=,
MemoryLow= and MemoryHigh= into the cgroup, which undoes a plain write of memory.min/low/high. This waits until
that drop-in of every container is newer than the restart, prints {"seconds": ..., "scopes": [...]} and exits 0;
after TIMEOUT_SECONDS it exits 1 naming the containers whose scope was not re-applied.
"""
import json
import os
import subprocess
import sys
import time

ROOT = "/sys/fs/cgroup/kubepods.slice"
DROP_IN = "/run/systemd/transient/%s.d/50-AllowedCPUs.conf"


def scopes(ids):
    found = {}
    for _top, dirs, _files in os.walk(ROOT):
        for name in dirs:
            if name.startswith("cri-containerd-") and name.endswith(".scope") and name[15:-6] in ids:
                found[name[15:-6]] = name
    return found


def mtime(path):
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def main(argv):
    timeout = float(argv[0])
    ids = set(argv[1:])
    found = scopes(ids)
    if set(found) != ids:
        sys.exit("no cgroup for container(s) %s below %s" % (", ".join(sorted(ids - set(found))), ROOT))
    start = time.time()
    subprocess.check_call(["systemctl", "restart", "kubelet"])
    waiting = dict(found)
    while waiting and time.time() - start < timeout:
        time.sleep(1)
        waiting = dict((cid, name) for cid, name in waiting.items() if mtime(DROP_IN % name) < start)
    if waiting:
        sys.exit("%.0f s after the kubelet restart, systemd had not re-applied the scope of container(s) %s (%s not "
                 "rewritten)" % (time.time() - start, ", ".join(sorted(waiting)),
                                 ", ".join(DROP_IN % name for name in sorted(waiting.values()))))
    print(json.dumps({"seconds": round(time.time() - start, 1), "scopes": sorted(found.values())}))


if __name__ == "__main__":
    main(sys.argv[1:])
