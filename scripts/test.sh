#!/usr/bin/env bash
# The whole test suite of numaops.colocation. `.ci/run` runs exactly this.
#
#   scripts/test.sh                 every stage, two at a time (scripts/lanes.py; NUMAOPS_JOBS=1: one at a time)
#   scripts/test.sh unit sanity     only the named stages, in that order
#   scripts/test.sh molecule:vm     one molecule scenario (molecule:a,b for several)
#   scripts/test.sh integration:kernel_cmdline   one integration target (integration:a,b for several)
#
# Stages: upstream unit kubelets sanity units integration lint build docs release ee molecule (and vmimage: the VM's image
# and its selftest, which molecule:vm does itself when run alone)
# upstream builds (or reuses) the programs the tests run from their Go modules (scripts/upstream.sh): the
# kubelets of the oldest and the newest release kubelet_config knows (1.31, 1.37), which the test VM's node
# runs; the newest containerd, which the corpus test and the containerd integration target load our files into
# (with Debian's containerd 1.7 and 2.x, which the upstream stage fetches into the cache as well);
# the test control plane of tests/cluster (kube-apiserver, kube-controller-manager, kube-scheduler, etcd, kwok)
# with Volcano's vc-controller-manager, which every cluster-side test runs against; kubelets builds the kubelets
# of 1.35 and 1.38 and runs the real-kubelet agreement test with the four (NUMAOPS_SKIP_UPSTREAM_KUBELET=1 skips it,
# loudly).
# The molecule stage includes the `vm` scenario (a Debian VM under QEMU). It fails loudly when QEMU
# cannot run here; set NUMAOPS_SKIP_VM=1 to skip it explicitly (the run then says so). The ee stage (ee:build and
# ee:run in a whole run) builds the AWX execution environment and runs the playbooks in it; NUMAOPS_SKIP_EE=1 skips
# it, and says so.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$NUMAOPS_ROOT"

ALL_STAGES=(upstream unit kubelets sanity units integration lint build docs release ee molecule)
UPSTREAM_COMPONENTS=${NUMAOPS_UPSTREAM_COMPONENTS:-kubernetes kubeadm kubelet-1.37 kubelet-1.31 volcano containerd etcd kwok}
# In a whole run the upstream stage is two jobs: upstream:vm builds what the vm scenario needs when it starts (the
# control plane, etcd, and the kubelet its node joins with), so that the VM job starts as soon as they are
# there; upstream:rest builds the others (the newest kubelet, kubeadm, Volcano, the newest containerd, kwok)
# beside the VM job's first steps, at a lower priority than the VM. The vm scenario builds or waits for each of
# these where it first needs it (scripts/upstream.sh build takes each component's lock: a second caller waits for
# the first, then reuses what it built).
UPSTREAM_VM="kubernetes kubelet-1.31 etcd"
UPSTREAM_REST="kubelet-1.37 kubeadm volcano containerd kwok"
KUBELET_AGREEMENT=tests/unit/plugins/module_utils/test_kubelet_upstream.py
# the molecule scenarios that start the test control plane (tests/cluster) in their prepare step, and need every
# upstream program first (the vm scenario is not one: it builds, or waits for, each program where it first needs it,
# so that its VM starts on the control plane and the first kubelet alone while the others are built beside it)
CLUSTER_SCENARIOS="colocation_cluster colocation_controller memory_qos_role node_prep node_prep_failure"
STAGES=("$@"); [ ${#STAGES[@]} -gt 0 ] || STAGES=("${ALL_STAGES[@]}")
PYVER=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')

ensure_apt
ensure_venv
ensure_get_pip_standin
LINK_TOP=$(make_collection_link)
export ANSIBLE_COLLECTIONS_PATH="$LINK_TOP"
export ANSIBLE_FORCE_COLOR=${ANSIBLE_FORCE_COLOR:-0}
COLL_TREE=""
MOLECULE_RUN_DIR=""
coll_tree() { [ -n "$COLL_TREE" ] || COLL_TREE=$(make_collection_tree); echo "$COLL_TREE"; }
cleanup() { rm -rf "$LINK_TOP"; [ -z "$MOLECULE_RUN_DIR" ] || rm -rf "$MOLECULE_RUN_DIR"; [ -z "$COLL_TREE" ] || rm -rf "${COLL_TREE%/ansible_collections/*}"; }
trap cleanup EXIT

# Debian's containerd 1.7 (trixie) and 2.x (sid), fetched with apt-get into the cache (never installed): the
# corpus test (unit stage) and the containerd_nri integration target load our files into them
FETCH_CONTAINERD=tests/integration/targets/containerd_nri/files/fetch-containerd.sh
export NUMAOPS_CACHE
fetch_debian_containerd() {
  local suite
  for suite in trixie sid; do
    sh "$FETCH_CONTAINERD" "$suite" "$NUMAOPS_CACHE/containerd" >/dev/null \
      || die "Debian's containerd ($suite) could not be fetched: sh $FETCH_CONTAINERD $suite $NUMAOPS_CACHE/containerd"
  done
}
stage_upstream() {
  local part=${1:-all} components niceness=5
  case "$part" in
    all) components=$UPSTREAM_COMPONENTS ;;
    vm) components=$UPSTREAM_VM ;;
    # beside the VM job: its QEMU comes first
    rest) components=$UPSTREAM_REST; niceness=10 ;;
    *) die "unknown part of the upstream stage '$part' (upstream:vm, upstream:rest, or upstream for both)" ;;
  esac
  log "upstream programs built from their Go modules (scripts/upstream.sh, cached by version): $components"
  # shellcheck disable=SC2086
  nice -n "$niceness" scripts/upstream.sh build $components
  [ "$part" != vm ] || return 0
  log "Debian's containerd 1.7 and 2.x ($FETCH_CONTAINERD, cached)"
  fetch_debian_containerd
}
# the stages with cluster-side tests make sure of the upstream programs first: a stage run alone
# (scripts/test.sh unit) builds them when missing; in a whole run they start after the upstream job, so this
# only checks the cache (well under a second)
# shellcheck disable=SC2086
ensure_upstream() { nice -n 5 scripts/upstream.sh build $UPSTREAM_COMPONENTS; fetch_debian_containerd; }
# each test runs once in a whole run: the units stage (ansible-test units) runs the tests of tests/unit that need only
# the collection; this stage runs tests/system and the rest of tests/unit, marked unit_stage (tests/unit/unit_stage.py:
# the tests on the real control plane, playbook runs, the tools of tests/requirements-dev.txt)
stage_unit() {
  ensure_upstream
  log "pytest -m unit_stage: tests/system and the tests of tests/unit that ansible-test units does not run (the real-kubelet agreement test runs in the kubelets stage)"
  # the 25 slowest tests named at the end: where the stage's time goes
  PYTHONPATH="$LINK_TOP" python -m pytest -q -p no:cacheprovider -m unit_stage tests/unit tests/system \
    --ignore "$KUBELET_AGREEMENT" --durations=25
}
stage_kubelets() {
  if [ "${NUMAOPS_SKIP_UPSTREAM_KUBELET:-0}" = 1 ]; then
    echo "!!! the real-kubelet agreement test ($KUBELET_AGREEMENT) SKIPPED because NUMAOPS_SKIP_UPSTREAM_KUBELET=1 !!!"
    return 0
  fi
  log "the kubelets of four releases (the oldest and the newest kubelet_config knows, one between, the next beta)"
  # 1.31 and 1.37 come from the upstream stage (the VM's node runs them); 1.35 and 1.38 only this job needs, so it
  # builds them here, on the second lane beside the VM job, not in the upstream stage before it. NFD's topology
  # updater too (the VM job runs it near its end; its k8s.io libraries are 1.35's, compiled once for both): a VM job
  # that gets there first builds it itself, or waits for this build
  # (at a lower priority than the VM's QEMU, which runs beside it)
  nice -n 10 scripts/upstream.sh build kubelet-1.31 kubelet-1.37 kubelet-1.35 kubelet-1.38 nfd
  log "pytest: every accept/refuse vector of kubelet_config through the real kubelets ($KUBELET_AGREEMENT)"
  PYTHONPATH="$LINK_TOP" python -m pytest -q -p no:cacheprovider "$KUBELET_AGREEMENT"
}
stage_sanity() {
  log "ansible-test sanity (python $PYVER, no ignore files)"
  [ ! -d tests/sanity ] || ! ls tests/sanity/ignore-*.txt >/dev/null 2>&1 || die "tests/sanity/ignore-*.txt must not exist"
  (cd "$(coll_tree)" && ansible-test sanity --color no --python "$PYVER" --requirements)
}
stage_units() {
  ensure_upstream
  log "ansible-test units (python $PYVER)"
  (cd "$(coll_tree)" && ansible-test units --color no --venv --python "$PYVER" --requirements)
}
stage_integration() {
  ensure_upstream
  log "ansible-test integration (local, python $PYVER)"
  # integration:a,b runs only targets a and b
  local targets=(); [ -z "${1:-}" ] || IFS=, read -r -a targets <<<"$1"
  (cd "$(coll_tree)" && ansible-test integration --color no --local --python "$PYVER" \
    --allow-destructive "${targets[@]}")
}
stage_lint() {
  log "ansible-lint (production profile)"
  ansible-lint --offline
}
stage_build() {
  log "ansible-galaxy collection build, offline install of the artifact, ansible-doc of every module"
  local out m json; out=$(mktemp -d)
  ansible-galaxy collection build --output-path "$out" .
  ansible-galaxy collection install --offline --no-deps --force -p "$out/installed" "$out"/numaops-colocation-*.tar.gz
  for m in plugins/modules/*.py; do
    m=$(basename "$m" .py)
    # the JSON is stdout alone: warnings a library prints on stderr (a deprecation) are kept apart, for the messages
    json=$(ANSIBLE_COLLECTIONS_PATH="$out/installed" ansible-doc --json -t module "numaops.colocation.$m" 2>"$out/stderr") \
      || die "ansible-doc numaops.colocation.$m failed: $json $(cat "$out/stderr")"
    python -c 'import json,sys; d=json.loads(sys.stdin.read()); sys.exit(0 if d and all(v.get("doc") for v in d.values()) else 1)' \
      <<<"$json" || die "ansible-doc found no documentation for numaops.colocation.$m (from the built artifact): $json $(cat "$out/stderr")"
    echo "ansible-doc numaops.colocation.$m: ok (rendered from the built artifact)"
  done
  rm -rf "$out"
}
# the docs site (antsibull-docs + Sphinx) of every module, role and filter and the pages under docs/, each page
# opened in a real headless Chromium (links, anchors, every option shown), screenshots in tests/output/docsite/
stage_docs() {
  log "the docs site (scripts/docsite.sh --check)"
  NUMAOPS_DOCSITE="$NUMAOPS_ROOT/tests/output/docsite" nice -n 5 scripts/docsite.sh --check
}
# the release artifact: the tarball installed into a clean environment (ansible and requirements.txt only) and the
# sandbox node prepared twice by the installed collection's playbook (second run changed=0)
stage_release() {
  log "the release check (scripts/release.sh check)"
  nice -n 5 scripts/release.sh check
}
# the execution environment of examples/awx (docs/execution-environment.md): ee:build is the Debian base image
# (debootstrap, cached by recipe) and ansible-builder build, which need nothing built by Go; ee:run runs the
# playbooks in the image through ansible-navigator (sandbox node, test control plane); ee alone: both
stage_ee() {
  local part=${1:-all}
  case "$part" in build|run|all) ;; *) die "unknown part of the ee stage '$part' (ee:build, ee:run, or ee for both)" ;; esac
  if [ "${NUMAOPS_SKIP_EE:-0}" = 1 ]; then
    echo "!!! the execution environment (ee:$part) SKIPPED because NUMAOPS_SKIP_EE=1 — the playbooks did not run in the AWX image !!!"
    return 0
  fi
  [ "$part" = build ] || ensure_upstream
  ensure_apt podman debootstrap
  log "the execution environment (tests/ee/ee.sh $part)"
  nice -n 5 bash tests/ee/ee.sh "$part"
}
# the test VM's image (built once per recipe, cached) and the selftest of the raw node; in a whole run this is a
# job of its own that needs nothing built by Go, so the image is ready when molecule:vm starts after upstream
stage_vmimage() {
  if [ "${NUMAOPS_SKIP_VM:-0}" = 1 ]; then
    echo "!!! the test VM's image and selftest SKIPPED because NUMAOPS_SKIP_VM=1 — the real-node tests did not run !!!"
    return 0
  fi
  log "tests/vm/vm.sh image (built when the recipe changed, else cached) and selftest (the raw test node)"
  bash tests/vm/vm.sh image
  bash tests/vm/vm.sh selftest
}
stage_molecule() {
  log "molecule scenarios (extensions/molecule)"
  local s name only=",${1:-},"
  [ -n "$MOLECULE_RUN_DIR" ] || MOLECULE_RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/numaops-molecule.XXXXXX")
  for s in extensions/molecule/*/molecule.yml; do
    [ -e "$s" ] || continue
    name=$(basename "$(dirname "$s")")
    [ "$only" = ",," ] || [[ "$only" == *",$name,"* ]] || continue
    if [ "$name" = vm ] && [ "${NUMAOPS_SKIP_VM:-0}" = 1 ]; then
      echo "!!! molecule scenario 'vm' SKIPPED because NUMAOPS_SKIP_VM=1 — the real-node tests did not run !!!"
      continue
    fi
    [[ " $CLUSTER_SCENARIOS " != *" $name "* ]] || ensure_upstream
    if [ "$name" = vm ] && [ -z "${NUMAOPS_LANE:-}" ]; then
      # in a whole run the vmimage job did this
      log "tests/vm/vm.sh selftest (the raw test node, before the vm scenario)"
      bash tests/vm/vm.sh selftest
    fi
    log "molecule test -s $name"
    # a fresh start: molecule keeps per-scenario state (e.g. "prepared") between runs
    # and a private ephemeral directory: molecule's default (~/.ansible/tmp/molecule.<hash of "extensions">.<name>)
    # is shared by every checkout of this repository on the machine
    (cd extensions && export MOLECULE_EPHEMERAL_DIRECTORY="$MOLECULE_RUN_DIR/$name" \
      && molecule reset -s "$name" >/dev/null && molecule test -s "$name")
    echo "molecule scenario $name passed (done at $(( SECONDS / 60 ))m$(( SECONDS % 60 ))s into the run)"
  done
}

# With no stage named (CI), every stage runs, two at a time (scripts/lanes.py; NUMAOPS_JOBS=1 runs them one after
# the other): the long jobs first, each molecule scenario a job of its own, the jobs that need the upstream
# containerd after the upstream stage.
if [ $# -eq 0 ] && [ "${NUMAOPS_JOBS:-2}" != 1 ]; then
  # molecule:vm itself says loudly when NUMAOPS_SKIP_VM=1 skips it (stage_molecule)
  # the VM's image beside the Go builds; the vm scenario (the longest job) first once they are done: its node runs
  # the real kubelets and joins the control plane the upstream stage builds
  # the execution environment's images (ee:build: debootstrap, ansible-builder, no Go) beside the Go builds too; the
  # playbooks in it (ee:run) once both the images and the control plane's programs are there
  JOBS=(upstream:vm vmimage molecule:vm@upstream:vm ee:build upstream:rest@upstream:vm)
  # the cluster-side tests (unit, units, integration, the molecule scenarios in CLUSTER_SCENARIOS) run on the
  # control plane the upstream stage builds, and need its other programs too; the other scenarios need nothing of it
  U=@upstream:vm@upstream:rest
  JOBS+=("kubelets$U" "unit$U" "molecule:colocation_controller$U" "molecule:node_prep$U")
  JOBS+=("units$U" "integration$U" "ee:run$U@ee:build")
  for s in extensions/molecule/*/molecule.yml; do
    name=$(basename "$(dirname "$s")")
    case " ${JOBS[*]} " in *" molecule:$name$U "*) continue ;; esac
    [ "$name" != vm ] || continue
    if [[ " $CLUSTER_SCENARIOS " == *" $name "* ]]; then JOBS+=("molecule:$name$U"); else JOBS+=("molecule:$name"); fi
  done
  JOBS+=(sanity lint build docs release)
  t0=$SECONDS
  rc=0; python3 scripts/lanes.py --jobs "${NUMAOPS_JOBS:-2}" "${JOBS[@]}" || rc=$?
  [ $rc -eq 0 ] || die "some jobs failed (listed above); the whole run took $(( SECONDS / 60 ))m$(( SECONDS % 60 ))s"
  log "all stages passed (total $(( SECONDS / 60 ))m$(( SECONDS % 60 ))s on ${NUMAOPS_JOBS:-2} lanes)"
  exit 0
fi

TIMES=()
for s in "${STAGES[@]}"; do
  declare -F "stage_${s%%:*}" >/dev/null || die "unknown stage '$s' (known: ${ALL_STAGES[*]}; molecule:<scenario>)"
  t0=$SECONDS
  if [[ "$s" == *:* ]]; then "stage_${s%%:*}" "${s#*:}"; else "stage_$s"; fi
  TIMES+=("$s $(( (SECONDS - t0) / 60 ))m$(( (SECONDS - t0) % 60 ))s")
done
log "all requested stages passed: ${TIMES[*]} (total $(( SECONDS / 60 ))m$(( SECONDS % 60 ))s)"
