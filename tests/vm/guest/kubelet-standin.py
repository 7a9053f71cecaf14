# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""kubelet stand-in for the numaops.colocation test VM. NOT a kubelet.

Debian has no kubelet package, so this plays the part of the kubelet that matters to the collection,
the way the kubelet does it, with the kubelet's own error texts:

* reads the KubeletConfiguration given with --config (YAML);
* refuses to start (exit 1, "command failed" in the journal) on a configuration the kubelet refuses:
  unreadable/unparsable file, wrong kind/apiVersion, topologyManagerPolicy/Scope outside the allowed
  values, reservedSystemCPUs combined with systemReservedCgroup/kubeReservedCgroup, unknown
  cpuManagerPolicy or memoryManagerPolicy, static CPU policy without a CPU reservation;
* refuses to start when <root-dir>/cpu_manager_state or memory_manager_state records a policy other than
  the configured one ("could not restore state from checkpoint: configured policy ... differs ...");
* writes those state files when they are missing (as the kubelet does on start);
* while running, serves GET /healthz -> "ok" on healthzBindAddress:healthzPort (127.0.0.1:10248).

What it does not do: talk to an API server, run pods, verify the state files' checksums.
"""
from __future__ import annotations

import http.server
import json
import os
import re
import sys
import time
from fractions import Fraction

try:
    import yaml
except ImportError:  # python3-yaml is part of the VM image
    yaml = None

PID = os.getpid()


def klog(level, msg, **kv):
    t = time.time()
    stamp = time.strftime("%m%d %H:%M:%S", time.localtime(t)) + ".%06d" % int((t % 1) * 1e6)
    extra = "".join(" %s=%s" % (k, json.dumps(v)) for k, v in kv.items())
    sys.stderr.write('%s%s %7d kubelet-standin] %s%s\n' % (level, stamp, PID, json.dumps(msg), extra))
    sys.stderr.flush()


def command_failed(err):
    # what cmd/kubelet prints (component-base cli.Run) before exiting 1
    klog("E", "command failed", err=err)
    sys.exit(1)


def parse_args(argv):
    opts = {"config": None, "root-dir": "/var/lib/kubelet"}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a.startswith("--"):
            name, eq, value = a[2:].partition("=")
            if not eq and name in opts and i + 1 < len(argv):
                i += 1
                value = argv[i]
            if name in opts:
                opts[name] = value
        i += 1
    return opts


def cpu_milli(value):
    """CPU quantity -> millicores, rounded up like resource.Quantity.MilliValue()."""
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(m?)", str(value).strip())
    if not m:
        raise ValueError("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    n = Fraction(m.group(1)) * (1 if m.group(2) else 1000)
    return -(-n.numerator // n.denominator)


def parse_cpuset(text):
    cpus = set()
    for part in filter(None, (p.strip() for p in text.split(","))):
        lo, _sep, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def format_cpuset(cpus):
    out, run = [], []
    for c in sorted(cpus):
        if run and c == run[-1] + 1:
            run.append(c)
            continue
        if run:
            out.append(str(run[0]) if len(run) == 1 else "%d-%d" % (run[0], run[-1]))
        run = [c]
    if run:
        out.append(str(run[0]) if len(run) == 1 else "%d-%d" % (run[0], run[-1]))
    return ",".join(out)


def load_config(path):
    if yaml is None:
        command_failed("python3-yaml is missing in the test VM image")
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        command_failed("failed to load kubelet config file, path: %s, error: failed to read kubelet config file "
                       "\"%s\", error: open %s: %s" % (path, path, path, e.strerror.lower()))
    try:
        cfg = yaml.safe_load(text)
    except yaml.YAMLError as e:
        command_failed("failed to load kubelet config file, path: %s, error: failed to decode: %s"
                       % (path, str(e).replace("\n", " ")))
    if not isinstance(cfg, dict):
        command_failed("failed to load kubelet config file, path: %s, error: failed to decode: "
                       "Object 'Kind' is missing in '%s'" % (path, text.strip()[:80]))
    if cfg.get("kind") != "KubeletConfiguration" or cfg.get("apiVersion") != "kubelet.config.k8s.io/v1beta1":
        command_failed("failed to load kubelet config file, path: %s, error: failed to decode: no kind \"%s\" is "
                       "registered for version \"%s\" in scheme" % (path, cfg.get("kind"), cfg.get("apiVersion")))
    return cfg


def validate(cfg, path):
    errs = []
    tmp = cfg.get("topologyManagerPolicy") or "none"
    if tmp not in ("none", "best-effort", "restricted", "single-numa-node"):
        errs.append('invalid configuration: topologyManagerPolicy (--topology-manager-policy) "%s" must be one '
                    'of: ["none" "best-effort" "restricted" "single-numa-node"]' % tmp)
    scope = cfg.get("topologyManagerScope") or "container"
    if scope not in ("container", "pod"):
        errs.append('invalid configuration: topologyManagerScope (--topology-manager-scope) "%s" must be one of: '
                    '"container", or "pod"' % scope)
    reserved = cfg.get("reservedSystemCPUs") or ""
    if reserved:
        if cfg.get("systemReservedCgroup") or cfg.get("kubeReservedCgroup"):
            errs.append("invalid configuration: can't use reservedSystemCPUs (--reserved-cpus) with "
                        "systemReservedCgroup (--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup)")
        try:
            parse_cpuset(reserved)
        except ValueError as e:
            errs.append("invalid configuration: unable to parse reservedSystemCPUs (--reserved-cpus) %s, error: %s"
                        % (reserved, e))
    if errs:
        agg = errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"
        command_failed("failed to validate kubelet configuration, error: %s, path: %s" % (agg, path))


def online_cpus():
    try:
        with open("/sys/devices/system/cpu/online") as f:
            return parse_cpuset(f.read().strip())
    except OSError:
        return set(os.sched_getaffinity(0))


def atomic_write(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, path)


def restore_or_create(root, name, manager, configured, fresh):
    """The cpu/memory manager's state checkpoint: refuse a different policy, write it when missing."""
    path = os.path.join(root, name)
    if os.path.exists(path):
        try:
            with open(path) as f:
                recorded = json.load(f).get("policyName")
        except (OSError, ValueError, AttributeError):
            recorded = None
            err = ("could not restore state from checkpoint: checkpoint is corrupted, please drain this node and "
                   "delete the %s checkpoint file \"%s\" before restarting Kubelet" % (manager, path))
        else:
            err = None
            if recorded != configured:
                err = ("could not restore state from checkpoint: configured policy \"%s\" differs from state "
                       "checkpoint policy \"%s\", please drain this node and delete the %s checkpoint file \"%s\" "
                       "before restarting Kubelet" % (configured, recorded, manager, path))
        if err:
            klog("E", "Could not initialize checkpoint manager, please drain node and remove policy state file", err=err)
            short = "cpu" if manager == "CPU manager" else "memory"
            klog("E", "Failed to start ContainerManager", err="start %s manager error: %s" % (short, err))
            sys.exit(1)
        return
    os.makedirs(root, exist_ok=True)
    atomic_write(path, json.dumps(fresh, separators=(",", ":")))
    klog("I", "Wrote a new state checkpoint", path=path, policyName=configured)


def start_managers(cfg, root):
    cpu_policy = cfg.get("cpuManagerPolicy") or "none"
    if cpu_policy not in ("none", "static"):
        klog("E", "Failed to initialize cpu manager", err='unknown policy: "%s"' % cpu_policy)
        command_failed('failed to run Kubelet: unknown policy: "%s"' % cpu_policy)
    if cpu_policy == "static":
        reserved_set = parse_cpuset(cfg.get("reservedSystemCPUs") or "")
        if not reserved_set:
            milli = 0
            for key in ("systemReserved", "kubeReserved"):
                try:
                    milli += cpu_milli((cfg.get(key) or {}).get("cpu", "0"))
                except ValueError as e:
                    command_failed("failed to run Kubelet: %s.cpu: %s" % (key, e))
            if milli <= 0:
                err = "new static policy error: [cpumanager] unable to determine reserved CPU resources for static policy"
                klog("E", "Failed to initialize cpu manager", err=err)
                command_failed("failed to run Kubelet: " + err)
    mem_policy = cfg.get("memoryManagerPolicy") or "None"
    if mem_policy not in ("None", "Static"):
        klog("E", "Failed to initialize memory manager", err='unknown policy: "%s"' % mem_policy)
        command_failed('failed to run Kubelet: unknown policy: "%s"' % mem_policy)

    if cpu_policy == "none":
        # byte for byte what the kubelet writes for the none policy
        cpu_fresh = {"policyName": "none", "defaultCpuSet": "", "checksum": 1353318690}
    else:
        cpu_fresh = {"policyName": "static", "defaultCpuSet": format_cpuset(online_cpus()), "checksum": 0}
    restore_or_create(root, "cpu_manager_state", "CPU manager", cpu_policy, cpu_fresh)
    if mem_policy == "None":
        mem_fresh = {"policyName": "None", "machineState": {}, "checksum": 4236770233}
    else:
        # the checksum the kubelet computes for this (empty) state; a wrong one makes it refuse the file
        mem_fresh = {"policyName": "Static", "machineState": {}, "checksum": 3940083781}
    restore_or_create(root, "memory_manager_state", "memory manager", mem_policy, mem_fresh)
    return cpu_policy, mem_policy


class Healthz(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"ok" if self.path.split("?")[0] == "/healthz" else b"404 page not found\n"
        self.send_response(200 if body == b"ok" else 404)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    opts = parse_args(sys.argv[1:])
    path = opts["config"]
    if not path:
        command_failed("kubelet stand-in: --config is required")
    cfg = load_config(path)
    validate(cfg, path)
    cpu_policy, mem_policy = start_managers(cfg, opts["root-dir"])
    addr = cfg.get("healthzBindAddress") or "127.0.0.1"
    port = int(cfg.get("healthzPort") if cfg.get("healthzPort") is not None else 10248)
    server = http.server.HTTPServer((addr, port), Healthz)
    klog("I", "kubelet stand-in running (test double, not a kubelet)", config=path,
         cpuManagerPolicy=cpu_policy, memoryManagerPolicy=mem_policy,
         topologyManagerPolicy=cfg.get("topologyManagerPolicy") or "none",
         healthz="http://%s:%d/healthz" % (addr, port))
    server.serve_forever()


if __name__ == "__main__":
    main()
