"""Build the upstream programs the tests run (Kubernetes, etcd, kwok, Volcano, containerd) from their Go modules.

    scripts/upstream.sh build [COMPONENT ...]   build (or reuse) into the cache; default: every component
    scripts/upstream.sh path COMPONENT          print the directory holding COMPONENT's binaries (built)
    scripts/upstream.sh regen [COMPONENT ...]   rewrite tests/upstream/<component>/go.mod and go.sum
    scripts/upstream.sh list                    components, versions, binaries, cached or not

Only our go.mod/go.sum (one small module per component, under tests/upstream/<component>/) are committed:
the upstream source comes from the Go module proxy into the Go module cache, the binaries go to
$NUMAOPS_CACHE/upstream/<component>-<version>-<hash>/ (the hash covers go.mod, go.sum and the build
options, so a changed pin builds anew and an unchanged one is reused).

Why one module per component: k8s.io/kubernetes, Volcano and kwok each pin k8s.io/* libraries to their own
releases; one module would force a single version on all of them.

Why the replace lines: k8s.io/kubernetes (and volcano.sh/volcano, etcd) replace their staging libraries
with directories of their own repository; a module that requires them must pin those libraries itself
(for Kubernetes v1.X.Y, every k8s.io/<lib> => k8s.io/<lib> v0.X.Y). Replace directives of a dependency that
point to published versions are copied as they are.
"""
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UPSTREAM = os.path.join(ROOT, "tests", "upstream")
CACHE = os.environ.get("NUMAOPS_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "numaops-colocation")


def versions():
    out = {}
    with open(os.path.join(UPSTREAM, "versions.env")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                k, _sep, v = line.partition("=")
                out[k.strip()] = v.strip()
    return out


def k8s_ldflags(version):
    m = re.match(r"v(\d+)\.(\d+)\.", version)
    flags = []
    for pkg in ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version"):
        flags += ["-X", "%s.gitVersion=%s" % (pkg, version), "-X", "%s.gitMajor=%s" % (pkg, m.group(1)),
                  "-X", "%s.gitMinor=%s" % (pkg, m.group(2)), "-X", "%s.gitTreeState=clean" % pkg,
                  "-X", "%s.buildDate=1970-01-01T00:00:00Z" % pkg]
    return flags


def minor_of(version):
    return ".".join(version.lstrip("v").split(".")[:2])


def kubelet(version, toolchain=None, standins=None):
    """A kubelet alone, built from k8s.io/kubernetes at ``version`` (its own go.mod, tests/upstream/kubelet-1.M).

    ``standins``: {module: directory under tests/upstream/kubelet-1.M} for a dependency the module proxy does not
    serve (each directory's README.md says what it replaces and why)."""
    spec = dict(module="k8s.io/kubernetes", version=version, bins={"kubelet": "cmd/kubelet"},
                ldflags=k8s_ldflags(version), cgo=False, staging="k8s")
    if toolchain:
        spec["toolchain"] = toolchain
    if standins:
        spec["standins"] = standins
    return spec


def components():
    v = versions()
    # the control plane of tests/cluster; the kubelet is a component of its own (kubelet-<minor>), built from the
    # same go.mod, so the shared k8s.io packages are compiled once for both; so is kubeadm (the vm scenario
    # regenerates the node's kubelet configuration with its `upgrade node phase kubelet-config`, as a cluster upgrade
    # does), which the scenario needs later than the control plane
    k8s_bins = {"kube-apiserver": "cmd/kube-apiserver", "kube-controller-manager": "cmd/kube-controller-manager",
                "kube-scheduler": "cmd/kube-scheduler"}
    oldest = v["KUBELET_OLDEST_VERSION"]
    oldest_minor = ".".join(oldest.lstrip("v").split(".")[:2])
    newest_minor = ".".join(v["K8S_VERSION"].lstrip("v").split(".")[:2])
    return {
        "kubernetes": dict(module="k8s.io/kubernetes", version=v["K8S_VERSION"], bins=k8s_bins,
                           ldflags=k8s_ldflags(v["K8S_VERSION"]), cgo=False, staging="k8s"),
        "kubeadm": dict(module="k8s.io/kubernetes", version=v["K8S_VERSION"], bins={"kubeadm": "cmd/kubeadm"},
                        ldflags=k8s_ldflags(v["K8S_VERSION"]), cgo=False, staging="k8s", moddir="kubernetes"),
        # the newest kubelet alone (the agreement test of kubelet_config needs no control plane)
        "kubelet-" + newest_minor: dict(module="k8s.io/kubernetes", version=v["K8S_VERSION"],
                                        bins={"kubelet": "cmd/kubelet"}, ldflags=k8s_ldflags(v["K8S_VERSION"]),
                                        cgo=False, staging="k8s", moddir="kubernetes"),
        "kubelet-" + oldest_minor: dict(module="k8s.io/kubernetes", version=oldest, bins={"kubelet": "cmd/kubelet"},
                                        ldflags=k8s_ldflags(oldest), cgo=False, staging="k8s"),
        # a release between the two, and the next release's beta (its go.mod asks for a newer Go than the
        # machine's: the go command takes that toolchain from the module proxy); only the agreement test of
        # kubelet_config runs them, so only its job builds them
        "kubelet-" + minor_of(v["KUBELET_MIDDLE_VERSION"]): kubelet(v["KUBELET_MIDDLE_VERSION"]),
        # sigs.k8s.io/iptables-wrappers v1.0.0 (new in 1.38) is refused by the module proxy: a stand-in, see
        # tests/upstream/kubelet-1.38/iptables-standin/README.md
        "kubelet-" + minor_of(v["KUBELET_NEXT_VERSION"]): kubelet(
            v["KUBELET_NEXT_VERSION"], toolchain=v["KUBELET_NEXT_TOOLCHAIN"],
            standins={"sigs.k8s.io/iptables-wrappers": "./iptables-standin"}),
        "etcd": dict(module="go.etcd.io/etcd/server/v3", version=v["ETCD_VERSION"], bins={"etcd": ""},
                     ldflags=[], cgo=False),
        "kwok": dict(module="sigs.k8s.io/kwok", version=v["KWOK_VERSION"], bins={"kwok": "cmd/kwok"},
                     ldflags=["-X", "sigs.k8s.io/kwok/pkg/consts.Version=" + v["KWOK_VERSION"]], cgo=False),
        "volcano": dict(module="volcano.sh/volcano", version=v["VOLCANO_VERSION"],
                        # the controller (its colocation-config-controller runs in the cluster tests and, as an
                        # image, on the test VM's node) and the agent (vc-agent: memory QoS v2 on the VM's real
                        # pods, compared value by value with memory_qos in the molecule scenario vm)
                        bins={"vc-controller-manager": "cmd/controller-manager", "vc-agent": "cmd/agent"},
                        ldflags=[], cgo=False,
                        local={"volcano.sh/apis": v["VOLCANO_APIS_VERSION"]},
                        # Volcano pins a prometheus pseudo-version that sum.golang.org does not know (404);
                        # its hash is taken from the proxy's download once, at regen, and kept in go.sum
                        nosumdb="github.com/prometheus/prometheus"),
        "containerd": dict(module="github.com/containerd/containerd/v2", version=v["CONTAINERD_VERSION"],
                           bins={"containerd": "cmd/containerd", "containerd-shim-runc-v2": "cmd/containerd-shim-runc-v2",
                                 "ctr": "cmd/ctr"},
                           ldflags=["-X", "github.com/containerd/containerd/v2/version.Version=" + v["CONTAINERD_VERSION"],
                                    "-X", "github.com/containerd/containerd/v2/version.Revision=numaops-build"],
                           cgo=False, tags="no_btrfs no_devmapper no_zfs"),
        # Node Feature Discovery's topology updater: the oracle the VM scenario compares numa_facts with (its
        # NodeResourceTopology zones, read from the real kubelet's pod-resources API). Its go.mod pins the k8s.io
        # libraries by replace lines to published versions (copied as they are); its API module is a directory of
        # its repository, published under the same version
        "nfd": dict(module="sigs.k8s.io/node-feature-discovery", version=v["NFD_VERSION"],
                    bins={"nfd-topology-updater": "cmd/nfd-topology-updater"},
                    ldflags=["-X", "sigs.k8s.io/node-feature-discovery/pkg/version.version=" + v["NFD_VERSION"]],
                    cgo=False, local={"sigs.k8s.io/node-feature-discovery/api/nfd": v["NFD_VERSION"]},
                    # its k8s.io libraries at the kubelet-1.35 release (NFD pins v0.35.3; a patch release later), the
                    # other shared modules at the versions the kubernetes component builds: compiled once for both
                    align={"k8s": v["KUBELET_MIDDLE_VERSION"], "component": "kubernetes"},
                    # the NodeResourceTopology CRD the updater waits for (and publishes to), from the same module
                    files={"noderesourcetopologies.yaml":
                           "deployment/base/noderesourcetopologies-crd/noderesourcetopologies.yaml"}),
    }


def default_components(comps):
    """What `build` with no names builds: everything, biggest first (so the long one starts at once)."""
    order = ["kubernetes", "volcano", "containerd", "etcd", "kwok", "nfd"]
    return [n for n in order if n in comps] + sorted(n for n in comps if n not in order)


def shares_with(spec):
    """The component whose compiled packages ``spec`` takes from the Go build cache: kubelet-1.37 those of kubernetes
    (the same go.mod), nfd those of the kubelet of its k8s.io release. ``build`` starts it after that one is built,
    never beside it: two go builds running at once each compile the packages they share."""
    if spec.get("moddir"):
        return spec["moddir"]
    k8s = (spec.get("align") or {}).get("k8s")
    return "kubelet-" + minor_of(k8s) if k8s else None


def build_all(comps, todo, jobs):
    """Build ``todo``, ``jobs`` components at a time; a component that shares compiled packages with another one of
    ``todo`` waits for it (and is queued after the others, so no worker idles while there is other work)."""
    import threading
    from concurrent.futures import ThreadPoolExecutor
    done = {n: threading.Event() for n in todo}
    first = [n for n in todo if shares_with(comps[n]) not in done]
    order = first + [n for n in todo if n not in first]

    def one(n):
        try:
            before = shares_with(comps[n])
            if before in done and not os.path.exists(os.path.join(out_dir(n, comps[n]), ".complete")):
                done[before].wait()
            return n, build(n, comps[n])[1]
        finally:
            done[n].set()

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, order))


def die(msg):
    sys.stderr.write("upstream.sh: ERROR: %s\n" % msg)
    sys.exit(1)


def log(msg):
    sys.stderr.write("upstream.sh: %s\n" % msg)
    sys.stderr.flush()


def go_env(spec=None):
    env = dict(os.environ)
    env.setdefault("GOFLAGS", "-buildvcs=false")
    # the machine's own Go: never let a toolchain line send us to download another one, except for a component
    # that names the toolchain its module needs (the go command takes it from the module proxy, once)
    env["GOTOOLCHAIN"] = (spec or {}).get("toolchain") or env.get("GOTOOLCHAIN") or "local"
    return env


def run(cmd, cwd, env=None, quiet=False):
    p = subprocess.run(cmd, cwd=cwd, env=env or go_env(), stdout=subprocess.PIPE if quiet else None,
                       stderr=subprocess.STDOUT if quiet else None, universal_newlines=True, check=False)
    if p.returncode != 0:
        die("%s failed in %s (exit %d)%s" % (" ".join(cmd), cwd, p.returncode,
                                             (":\n" + p.stdout[-4000:]) if quiet and p.stdout else ""))
    return p.stdout


def comp_dir(name, spec=None):
    """tests/upstream/<dir>: the component's own, or the one it shares (``moddir``: kubelet-1.37 is built from the
    go.mod of kubernetes, so both always build the same release)."""
    return os.path.join(UPSTREAM, (spec or {}).get("moddir") or name)


def read_dep_gomod(module, version, spec=None):
    out = run(["go", "mod", "download", "-json", "%s@%s" % (module, version)], cwd=tempfile.gettempdir(),
              env=go_env(spec), quiet=True)
    # the go command may say first that it fetches the toolchain the component names ("go: downloading go1.27.3")
    info = json.loads(out[out.index("{"):] if "{" in out else out)
    if info.get("Error"):
        die("go mod download %s@%s: %s" % (module, version, info["Error"]))
    with open(info["GoMod"]) as f:
        return f.read()


def parse_replaces(gomod):
    """(old, new) pairs of a go.mod's replace directives, in both single-line and block form."""
    pairs = []
    block = False
    for raw in gomod.splitlines():
        line = raw.split("//", 1)[0].strip()
        if not line:
            continue
        if block:
            if line == ")":
                block = False
                continue
            body = line
        elif line.startswith("replace ("):
            block = True
            continue
        elif line.startswith("replace "):
            body = line[len("replace "):]
        else:
            continue
        old, _sep, new = body.partition("=>")
        pairs.append((old.strip(), new.strip()))
    return pairs


def regen(name, spec):
    """Write tests/upstream/<name>/go.mod from the spec and let `go mod tidy` write go.sum."""
    if spec.get("moddir"):
        die("%s is built from tests/upstream/%s: regen %s instead" % (name, spec["moddir"], spec["moddir"]))
    dep = read_dep_gomod(spec["module"], spec["version"], spec)
    replaces = []
    align = spec.get("align") or {}
    for old, new in parse_replaces(dep):
        old_mod = old.split()[0]
        if align.get("k8s") and old_mod.startswith("k8s.io/") and re.match(r"^k8s\.io/\S+ v0\.", new):
            # the published staging release of the kubelet built from the same Kubernetes release
            replaces.append((old_mod, "%s v0.%s" % (old_mod, align["k8s"].split(".", 1)[1])))
            continue
        if new.startswith("./") or new.startswith("../"):
            if spec.get("staging") == "k8s" and old_mod.startswith("k8s.io/"):
                replaces.append((old_mod, "%s v0.%s" % (old_mod, spec["version"].split(".", 1)[1])))
            elif old_mod in spec.get("local", {}):
                replaces.append((old_mod, "%s %s" % (old_mod, spec["local"][old_mod])))
            # any other local replace (etcd's sibling modules, FORBIDDEN_DEPENDENCY guards): the published
            # version the dependency requires is what it was released with
            continue
        replaces.append((old, new))
    replaces += sorted(spec.get("standins", {}).items())
    godebug = re.search(r"^godebug .*$", dep, re.M)
    # our module asks for the Go the dependency asks for, at least the machine's
    want = re.search(r"^go (\d+)\.(\d+)(?:\.(\d+))?\s*$", dep, re.M)
    go_line = "1.26.0"
    if want and (int(want.group(1)), int(want.group(2))) > (1, 26):
        go_line = "%s.%s.%s" % (want.group(1), want.group(2), want.group(3) or "0")
    lines = ["// Generated by scripts/upstream.sh regen %s from %s@%s: do not edit." % (name, spec["module"], spec["version"]),
             "module numaops.test/upstream/%s" % name, "", "go %s" % go_line, ""]
    if godebug:
        lines += [godebug.group(0), ""]
    lines += ["require %s %s" % (spec["module"], spec["version"]), ""]
    if align.get("k8s"):
        lines += ["require k8s.io/kubernetes %s" % align["k8s"], ""]
    if replaces:
        lines.append("replace (")
        lines += ["\t%s => %s" % r for r in replaces]
        lines += [")", ""]
    # the programs of the components built from this go.mod too (kubelet-1.37 from kubernetes')
    tools = set(spec["bins"].values())
    for other in components().values():
        if other.get("moddir") == name:
            tools.update(other["bins"].values())
    lines.append("tool (")
    lines += ["\t%s" % pkg_path(spec, p) for p in sorted(tools)]
    lines += [")", ""]
    d = comp_dir(name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "go.mod"), "w") as f:
        f.write("\n".join(lines))
    if os.path.exists(os.path.join(d, "go.sum")):
        os.unlink(os.path.join(d, "go.sum"))
    log("%s: go mod tidy (downloads the sources of %s@%s and its dependencies)" % (name, spec["module"], spec["version"]))
    env = go_env(spec)
    if spec.get("nosumdb"):
        env["GONOSUMDB"] = spec["nosumdb"]
    run(["go", "mod", "tidy"], cwd=d, env=env, quiet=True)
    if align.get("component"):
        # the modules this component shares with another (k8s.io/* aside, which the replace lines pin), at the
        # other's version where it is newer (the go command keeps the newer of two requirements), so that their
        # packages compile the same and the Go build cache serves both
        with open(os.path.join(comp_dir(align["component"]), "go.mod")) as f:
            theirs = dict(re.findall(r"^\t(\S+) (v\S+)", f.read(), re.M))
        with open(os.path.join(d, "go.mod")) as f:
            text = f.read()
        ours = dict(re.findall(r"^\t(\S+) (v\S+)", text, re.M))
        pinned = set(r[0].split()[0] for r in replaces)
        shared = sorted(m for m in ours if m in theirs and not m.startswith("k8s.io/") and m not in pinned
                        and m != spec["module"])
        if shared:
            block = "\n".join(["// the versions tests/upstream/%s builds" % align["component"], "require ("]
                              + ["\t%s %s" % (m, theirs[m]) for m in shared] + [")", ""])
            with open(os.path.join(d, "go.mod"), "w") as f:
                f.write(text.rstrip("\n") + "\n\n" + block)
            run(["go", "mod", "tidy"], cwd=d, env=env, quiet=True)


def pkg_path(spec, p):
    return spec["module"] + ("/" + p if p else "")


def go_binary_name(pkg):
    """The file name `go build -o DIR/` gives a main package: its last path element, or the one before a /vN."""
    parts = pkg.split("/")
    if len(parts) > 1 and re.match(r"^v\d+$", parts[-1]):
        return parts[-2]
    return parts[-1]


def build_hash(name, spec):
    h = hashlib.sha256()
    files = [os.path.join(comp_dir(name, spec), fn) for fn in ("go.mod", "go.sum")]
    for standin in sorted(spec.get("standins", {}).values()):
        top = os.path.join(comp_dir(name, spec), standin)
        files += sorted(os.path.join(d, f) for d, _dirs, names in os.walk(top) for f in names)
    for fn in files:
        with open(fn, "rb") as f:
            h.update(f.read())
    h.update(json.dumps([spec["bins"], spec["ldflags"], spec["cgo"], spec.get("tags", "")] +
                        ([spec["files"]] if spec.get("files") else []), sort_keys=True).encode())
    h.update(subprocess.run(["go", "env", "GOVERSION"], stdout=subprocess.PIPE, universal_newlines=True,
                            env=go_env(spec), check=True).stdout.encode())
    return h.hexdigest()[:12]


def out_dir(name, spec):
    return os.path.join(CACHE, "upstream", "%s-%s-%s" % (name, spec["version"], build_hash(name, spec)))


def build(name, spec):
    d = comp_dir(name, spec)
    if not all(os.path.exists(os.path.join(d, f)) for f in ("go.mod", "go.sum")):
        die("%s has no go.mod/go.sum: run scripts/upstream.sh regen %s (needs the Go module proxy)" % (d, name))
    out = out_dir(name, spec)
    stamp = os.path.join(out, ".complete")
    if os.path.exists(stamp):
        log("%s %s: cached in %s" % (name, spec["version"], out))
        return out, 0.0
    # one build of a component at a time: a second caller (another checkout, another job) waits, then reuses it
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(stamp):
            log("%s %s: built meanwhile by another caller, cached in %s" % (name, spec["version"], out))
            return out, 0.0
        return _build_locked(name, spec, d, out)


def _build_locked(name, spec, d, out):
    t0 = time.time()
    tmp = out + ".partial"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    env = go_env(spec)
    env["CGO_ENABLED"] = "1" if spec["cgo"] else "0"
    ldflags = " ".join(["-s", "-w"] + ["%s '%s'" % (a, b) for a, b in zip(spec["ldflags"][::2], spec["ldflags"][1::2])])
    log("%s %s: building %s" % (name, spec["version"], ", ".join(sorted(spec["bins"]))))
    # one `go build` for all of a component's programs: the packages they share are compiled once and
    # the links run side by side; -o DIR/ names each binary after its package, renamed to ours below
    cmd = ["go", "build", "-trimpath", "-ldflags", ldflags, "-o", tmp + os.sep]
    if spec.get("tags"):
        cmd += ["-tags", spec["tags"]]
    cmd += [pkg_path(spec, spec["bins"][b]) for b in sorted(spec["bins"])]
    if len(spec["bins"]) == 1:
        # with a single package -o names the file itself
        cmd[cmd.index(tmp + os.sep)] = os.path.join(tmp, next(iter(spec["bins"])))
    proc = subprocess.Popen(cmd, cwd=d, env=env)
    # wait4 gives the CPU time of go build and every compiler/linker it ran: what a quiet machine needs
    _pid, status, usage = os.wait4(proc.pid, 0)
    if os.WIFSIGNALED(status) or os.WEXITSTATUS(status) != 0:
        die("%s failed in %s (status %d)" % (" ".join(cmd), d, status))
    cpu = usage.ru_utime + usage.ru_stime
    for binary, p in spec["bins"].items():
        built = os.path.join(tmp, go_binary_name(pkg_path(spec, p)))
        if len(spec["bins"]) > 1 and built != os.path.join(tmp, binary):
            os.rename(built, os.path.join(tmp, binary))
    if spec.get("files"):
        # files of the module itself the tests need beside its programs (``files``: {name in the output: path in the
        # module}), from the module cache the build just used
        info = json.loads(run(["go", "list", "-m", "-json", spec["module"]], cwd=d, env=env, quiet=True))
        for name_out, rel in sorted(spec["files"].items()):
            shutil.copyfile(os.path.join(info["Dir"], rel), os.path.join(tmp, name_out))
    with open(os.path.join(tmp, ".complete"), "w") as f:
        json.dump({"component": name, "module": spec["module"], "version": spec["version"],
                   "binaries": sorted(spec["bins"]), "seconds": round(time.time() - t0, 1),
                   "cpu_seconds": round(cpu, 1)}, f)
    shutil.rmtree(out, ignore_errors=True)
    os.rename(tmp, out)
    secs = time.time() - t0
    log("%s %s: built in %.0f s wall, %.0f s of CPU (compile and link) -> %s" % (name, spec["version"], secs, cpu, out))
    return out, secs


def main(argv):
    comps = components()
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    cmd, names = argv[0], argv[1:]
    for n in names:
        if n not in comps:
            die("unknown component %r (known: %s)" % (n, ", ".join(sorted(comps))))
    if cmd == "build":
        t0 = time.time()
        report = []
        todo = names or default_components(comps)
        # two components at a time: one's single-threaded link overlaps the other's compiles
        results = build_all(comps, todo, int(os.environ.get("NUMAOPS_UPSTREAM_JOBS", "2")))
        for n, secs in results:
            report.append("%s %s" % (n, "cached" if not secs else "%.0fs" % secs))
        log("done in %.0f s: %s" % (time.time() - t0, ", ".join(report)))
    elif cmd == "path":
        if len(names) != 1:
            die("path takes one component")
        out = out_dir(names[0], comps[names[0]])
        if not os.path.exists(os.path.join(out, ".complete")):
            die("%s is not built (%s missing): run scripts/upstream.sh build %s" % (names[0], out, names[0]))
        print(out)
    elif cmd == "regen":
        for n in names or sorted(comps):
            regen(n, comps[n])
    elif cmd == "list":
        for n in sorted(comps):
            s = comps[n]
            have = all(os.path.exists(os.path.join(comp_dir(n, s), f)) for f in ("go.mod", "go.sum"))
            cached = have and os.path.exists(os.path.join(out_dir(n, s), ".complete"))
            print("%-14s %-36s %-9s %-6s %s" % (n, s["module"], s["version"], "cached" if cached else "-",
                                                " ".join(sorted(s["bins"]))))
    else:
        die("unknown command %r (build, path, regen, list)" % cmd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
