# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kubepods stand-in (test VM only): the cgroup tree kubelet + containerd build with the systemd driver.

No kubelet or CRI images exist in the test VM, so this creates, for the pods listed in a PodList file
(default /etc/numaops-vm/pods.json), what kubelet and containerd/runc would create for them -
through systemd's D-Bus API (StartTransientUnit), as they do:

  kubepods.slice                                  kubelet, node allocatable root
  kubepods-burstable.slice, kubepods-besteffort.slice   kubelet, QoS classes (Guaranteed pods sit in kubepods.slice)
  kubepods-<qos>-pod<uid with - as _>.slice       kubelet, one per pod
  cri-containerd-<64 hex>.scope                   runc, one per container and one for the pod sandbox,
                                                  Delegate=yes, with a real process (sleep) inside

All units get MemoryAccounting=yes, so the memory controller is enabled down to the containers and
memory.high/low/min exist. Idempotent: units already active are left alone.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time

PODS_FILE = sys.argv[1] if len(sys.argv) > 1 else "/etc/numaops-vm/pods.json"
QOS_SLICE = {"Guaranteed": "kubepods.slice", "Burstable": "kubepods-burstable.slice",
             "BestEffort": "kubepods-besteffort.slice"}
ACCOUNTING = ["MemoryAccounting", "b", "true", "CPUAccounting", "b", "true",
              "IOAccounting", "b", "true", "TasksAccounting", "b", "true"]


def active(unit):
    out = subprocess.run(["systemctl", "show", "-P", "ActiveState", unit],
                         capture_output=True, text=True, check=False).stdout.strip()
    return out == "active"


def start_transient(unit, props):
    """props: flat busctl list of name, signature, value... ; waits for the unit to be active."""
    count = 0
    i = 0
    while i < len(props):  # count (name, sig, value...) triples; arrays carry a length
        sig = props[i + 1]
        if sig.startswith("a"):
            i += 3 + int(props[i + 2])
        else:
            i += 3
        count += 1
    cmd = ["busctl", "--", "call", "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
           "org.freedesktop.systemd1.Manager", "StartTransientUnit", "ssa(sv)a(sa(sv))",
           unit, "fail", str(count)] + props + ["0"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    for _attempt in range(200):
        if active(unit):
            return
        time.sleep(0.05)
    raise SystemExit("kubepods-standin: %s did not become active" % unit)


def ensure_slice(name, parent):
    if active(name):
        return
    # as kubelet's cgroup manager (libcontainer's systemd driver) creates its slices
    start_transient(name, ["Description", "s", "libcontainer container " + name,
                           "Wants", "as", "1", parent,
                           "DefaultDependencies", "b", "false"] + ACCOUNTING)


def ensure_scope(container_id, slice_name, what):
    unit = "cri-containerd-%s.scope" % container_id
    if active(unit):
        return
    proc = subprocess.Popen(["sleep", "infinity"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    # as runc's systemd cgroup driver starts a container's scope
    start_transient(unit, ["Description", "s", "libcontainer container %s (%s)" % (container_id, what),
                           "Slice", "s", slice_name,
                           "PIDs", "au", "1", str(proc.pid),
                           "Delegate", "b", "true",
                           "DefaultDependencies", "b", "false"] + ACCOUNTING)


def main():
    with open(PODS_FILE) as f:
        pods = json.load(f)["items"]
    ensure_slice("kubepods.slice", "-.slice")
    ensure_slice("kubepods-burstable.slice", "kubepods.slice")
    ensure_slice("kubepods-besteffort.slice", "kubepods.slice")
    made = 0
    for pod in pods:
        qos = pod["status"]["qosClass"]
        uid = pod["metadata"]["uid"].replace("-", "_")
        parent = QOS_SLICE[qos]
        prefix = "kubepods" if qos == "Guaranteed" else parent[:-len(".slice")]
        pod_slice = "%s-pod%s.slice" % (prefix, uid)
        ensure_slice(pod_slice, parent)
        sandbox = hashlib.sha256(("sandbox/" + pod["metadata"]["uid"]).encode()).hexdigest()
        ensure_scope(sandbox, pod_slice, "sandbox of %s/%s" % (pod["metadata"]["namespace"], pod["metadata"]["name"]))
        for status in pod["status"].get("containerStatuses", []):
            cid = status["containerID"].split("://", 1)[1]
            ensure_scope(cid, pod_slice,
                         "%s/%s %s" % (pod["metadata"]["namespace"], pod["metadata"]["name"], status["name"]))
            made += 1
    print("kubepods-standin: %d pods, %d containers under /sys/fs/cgroup/kubepods.slice" % (len(pods), made))


if __name__ == "__main__":
    os.umask(0o022)
    main()
