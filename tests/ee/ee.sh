#!/usr/bin/env bash
# The execution environment of examples/awx/execution-environment.yml, built and run here as AWX runs it.
#
#   bash tests/ee/ee.sh base    the base image: Debian bookworm from Debian's packages (debootstrap), imported into
#                               podman as localhost/numaops-ee-base:<recipe hash>; built only when the recipe changed
#                               (its file system is kept in the cache, ~/.cache/numaops-colocation/ee/, like the VM's
#                               image: a machine whose podman store lost the image imports it again from there)
#   bash tests/ee/ee.sh build   the EE image with `ansible-builder build` from examples/awx/execution-environment.yml
#                               on that base: localhost/numaops-colocation-ee:<version>
#   bash tests/ee/ee.sh run     through ansible-navigator with that image (podman): playbooks/node_prep.yml on the
#                               sandbox node twice (second run changed=0), then playbooks/colocation_sync.yml and
#                               playbooks/memory_qos.yml against the test control plane (tests/cluster)
#   bash tests/ee/ee.sh all     the three
#
# No container registry and no Galaxy server is reachable here, so the definition is built with three
# substitutions, and nothing else changed: the base image (Debian from debootstrap instead of
# quay.io/centos/centos:stream9), its package manager (tests/ee/pkgmgr passes ansible-builder's dnf-style calls to
# apt-get) and kubernetes.core (the copy the ansible package ships, packed as a collection tarball, instead of
# Galaxy). Python packages come from PyPI and Debian packages from Debian, as in any build.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"
cd "$NUMAOPS_ROOT"

SUITE=bookworm
MIRROR=${NUMAOPS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# python3-venv: ansible-builder's pip_install runs ensurepip, which Debian ships in python3-venv
BASE_PACKAGES=python3,python3-pip,python3-venv,openssh-client,ca-certificates
EE_PYTHON_DIR=/opt/ee-python
VERSION=$(sed -n 's/^version: *//p' galaxy.yml)
EE_IMAGE=localhost/numaops-colocation-ee:$VERSION
WORK=${NUMAOPS_EE_WORK:-$NUMAOPS_ROOT/tests/output/ee}
BASE_CACHE=$NUMAOPS_CACHE/ee
PODMAN=(podman)
# podman's defaults do not start a container on every machine: in a container without CAP_SYS_RESOURCE podman's
# default ulimits (nofile 1048576) fail with "crun: setrlimit `RLIMIT_NOFILE`: Operation not permitted", and on a
# hybrid cgroup v1/v2 layout crun fails with "cgroups in hybrid mode not supported, drop all controllers from
# cgroupv2". A containers.conf of its own for every podman call here (podman, ansible-builder's podman build,
# ansible-navigator's podman run): runc, and ulimits this process may set (its own open-files limit).
write_containers_conf() {
  local nofile; nofile=$(ulimit -Hn)
  [ "$nofile" != unlimited ] || nofile=1048576
  printf '[containers]\ndefault_ulimits = ["nofile=%s:%s", "nproc=32768:32768"]\n[engine]\nruntime = "runc"\n' \
    "$nofile" "$nofile" >"$WORK/containers.conf"
  export CONTAINERS_CONF="$WORK/containers.conf"
}

need() { command -v "$1" >/dev/null || die "$1 is not installed: $2"; }

base_tag() {
  # the recipe: the functions that build and import it, its inputs, the package manager front, the extra CAs
  { declare -f stage_base import_base; printf '%s\n' "$SUITE" "$BASE_PACKAGES" "$EE_PYTHON_DIR"; cat tests/ee/pkgmgr
    cat /usr/local/share/ca-certificates/*.crt 2>/dev/null || true; } | sha256sum | cut -c1-16
}

stage_base() {
  need debootstrap "apt-get install debootstrap (Debian's package)"
  need podman "apt-get install podman (Debian's package)"
  local hash tag; hash=$(base_tag); tag="localhost/numaops-ee-base:$hash"
  local archive="$BASE_CACHE/base-$hash.tar"
  if "${PODMAN[@]}" image exists "$tag"; then
    echo "base image $tag: in podman's store (the recipe did not change)"
    return 0
  fi
  # base images of earlier recipes are not needed any more
  "${PODMAN[@]}" images --format '{{.Repository}}:{{.Tag}}' | grep '^localhost/numaops-ee-base:' \
    | xargs -r "${PODMAN[@]}" rmi >/dev/null 2>&1 || true
  if [ -s "$archive" ]; then
    log "podman import: $tag from the cache ($archive, the recipe did not change)"
    import_base "$tag" <"$archive"
    return 0
  fi
  find "$BASE_CACHE" -maxdepth 1 -name 'base-*.tar' -delete 2>/dev/null || true
  local root; root=$(mktemp -d "${TMPDIR:-/tmp}/numaops-ee-root.XXXXXX")
  log "debootstrap $SUITE (minbase + $BASE_PACKAGES) from $MIRROR"
  nice -n 5 debootstrap --variant=minbase --include="$BASE_PACKAGES" "$SUITE" "$root" "$MIRROR" \
    >"$WORK/debootstrap.log" 2>&1 || { tail -20 "$WORK/debootstrap.log"; rm -rf "$root"; die "debootstrap failed (log: $WORK/debootstrap.log)"; }
  install -m 0755 tests/ee/pkgmgr "$root/usr/local/bin/pkgmgr"
  # the certificate authorities this machine trusts beyond Debian's (a proxy's, a company's): pip in the build
  # reaches PyPI through the same network as this machine
  if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    chroot "$root" update-ca-certificates >/dev/null 2>&1
  fi
  # Debian's system python has ensurepip switched off (ansible-builder's pip_install runs it) and is externally
  # managed: the EE's python is a virtual environment of it, first on PATH
  chroot "$root" /usr/bin/python3 -m venv "$EE_PYTHON_DIR"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  log "podman import: $tag (its file system kept in $archive)"
  mkdir -p "$BASE_CACHE"
  tar -C "$root" --numeric-owner -c -f "$archive.part" . && mv "$archive.part" "$archive"
  rm -rf "$root"
  import_base "$tag" <"$archive"
}

# the base image's file system (a tar on stdin) imported into podman as $1, checked by running its python
import_base() {
  "${PODMAN[@]}" import --change 'CMD ["/bin/bash"]' \
    --change "ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt" \
    --change "ENV PATH=$EE_PYTHON_DIR/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" - "$1" >/dev/null
  "${PODMAN[@]}" run --rm --network host "$1" python3 -c 'import sys; print("base image python", sys.version.split()[0])'
}

# examples/awx/execution-environment.yml with the three substitutions (see the top of this file)
definition() {
  local dir=$1 base=$2 kcore=$3
  EE_PYTHON_DIR=$EE_PYTHON_DIR python3 - "$dir" "$base" "$kcore" <<'EOF'
import os, sys, yaml
out, base, kcore = sys.argv[1:]
with open('examples/awx/execution-environment.yml') as handle:
    ee = yaml.safe_load(handle)
ee['images']['base_image']['name'] = base
ee.setdefault('options', {})['package_manager_path'] = '/usr/local/bin/pkgmgr'
ee['dependencies']['python_interpreter'] = {'package_system': 'python3', 'python_path': os.environ['EE_PYTHON_DIR'] + '/bin/python3'}
collections = ee['dependencies']['galaxy']['collections']
for entry in collections:
    if entry['name'] == 'kubernetes.core':
        entry.clear()
        entry.update(name='collections/' + os.path.basename(kcore), type='file')
ee['additional_build_files'].append({'src': os.path.basename(kcore), 'dest': 'collections'})
# only the collections listed: nothing is asked of Galaxy
ee.setdefault('build_arg_defaults', {})['ANSIBLE_GALAXY_CLI_COLLECTION_OPTS'] = '--offline'
with open(os.path.join(out, 'execution-environment.yml'), 'w') as handle:
    yaml.safe_dump(ee, handle, sort_keys=False)
EOF
}

stage_build() {
  need podman "apt-get install podman (Debian's package)"
  stage_base
  local base; base="localhost/numaops-ee-base:$(base_tag)"
  local dir="$WORK/build"
  rm -rf "$dir"; mkdir -p "$dir"
  log "collection tarballs: numaops.colocation $VERSION (ansible-galaxy collection build) and kubernetes.core (the ansible package's copy)"
  ansible-galaxy collection build --output-path "$dir" . >/dev/null
  local kdir kver
  kdir=$(python3 -c 'import ansible_collections.kubernetes.core as k, os; print(os.path.dirname(k.__file__))' 2>/dev/null) \
    || kdir=$(python3 -c 'import ansible_collections, os; print(os.path.join(list(ansible_collections.__path__)[0], "kubernetes", "core"))')
  kver=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["collection_info"]["version"])' "$kdir/MANIFEST.json")
  # an installed collection (MANIFEST.json, FILES.json and its files) is what a collection tarball holds; the
  # ansible package leaves out a few files FILES.json lists (.github/...), so FILES.json is written for the files
  # there and MANIFEST.json gets its checksum
  python3 - "$kdir" "$dir/kubernetes-core-$kver.tar.gz" <<'EOF'
import hashlib, io, json, os, sys, tarfile
src, out = sys.argv[1:]
files = json.load(open(os.path.join(src, 'FILES.json')))
files['files'] = [f for f in files['files'] if f['name'] == '.' or os.path.lexists(os.path.join(src, f['name']))]
files_data = json.dumps(files, indent=4).encode()
manifest = json.load(open(os.path.join(src, 'MANIFEST.json')))
manifest['file_manifest_file']['chksum_sha256'] = hashlib.sha256(files_data).hexdigest()
with tarfile.open(out, 'w:gz') as tar:
    for name, data in (('MANIFEST.json', json.dumps(manifest, indent=4).encode()), ('FILES.json', files_data)):
        info = tarfile.TarInfo(name)
        info.size, info.mode = len(data), 0o644
        tar.addfile(info, io.BytesIO(data))
    for entry in files['files']:
        if entry['name'] != '.':
            tar.add(os.path.join(src, entry['name']), arcname=entry['name'], recursive=False)
EOF
  definition "$dir" "$base" "$dir/kubernetes-core-$kver.tar.gz"
  log "ansible-builder build -t $EE_IMAGE (base $base)"
  (cd "$dir" && nice -n 5 ansible-builder build -f execution-environment.yml -c context -t "$EE_IMAGE" \
    --container-runtime podman --extra-build-cli-args=--network=host -v 2 >"$WORK/ansible-builder.log" 2>&1) \
    || { tail -40 "$WORK/ansible-builder.log"; die "ansible-builder build failed (log: $WORK/ansible-builder.log)"; }
  "${PODMAN[@]}" run --rm --network host "$EE_IMAGE" ansible-galaxy collection list numaops.colocation
}

# ansible-navigator's settings for one run: the EE image through podman, the directories the run works in mounted
# at the same path, host networking (the test control plane listens on 127.0.0.1) and root in the container (the
# node files here belong to root, as on a node reached with become)
navigator_settings() {
  local file=$1; shift
  python3 - "$file" "$EE_IMAGE" "$WORK/navigator.log" "$@" <<'EOF'
import sys, yaml
file, image, log = sys.argv[1:4]
mounts, env = [], {}
for arg in sys.argv[4:]:
    if '=' in arg:
        name, value = arg.split('=', 1)
        env[name] = value
    else:
        mounts.append({'src': arg, 'dest': arg})
settings = {'ansible-navigator': {
    'mode': 'stdout',
    'playbook-artifact': {'enable': False},
    'logging': {'file': log, 'append': True},
    'execution-environment': {
        'enabled': True, 'container-engine': 'podman', 'image': image, 'pull': {'policy': 'never'},
        'container-options': ['--network=host', '--user=0'],
        'volume-mounts': mounts, 'environment-variables': {'set': env}}}}
with open(file, 'w') as handle:
    yaml.safe_dump(settings, handle, sort_keys=False)
EOF
}

# "changed failed" of the recap line of host $1 in log $2
recap() { sed -e 's/\x1b\[[0-9;]*m//g' "$2" | sed -n "s/^$1 *:.* changed=\\([0-9]*\\).* failed=\\([0-9]*\\).*/\\1 \\2/p" | tail -1; }

# ansible-navigator's output without the event markers ansible-runner puts in it when it is not a terminal
plain() { sed -E 's/\x1b\[K[A-Za-z0-9+\/=]*\x1b\[[0-9]+D//g; s/\x1b\[K//g'; }

# a playbook twice through ansible-navigator: the first run must change something, the second nothing. The
# collections are the image's: the test suite's ANSIBLE_COLLECTIONS_PATH (its link to this tree) stays outside
twice() {
  local name=$1 host=$2 settings=$3; shift 3
  local changed failed
  log "ansible-navigator, image $EE_IMAGE: $* (first run)"
  ANSIBLE_NAVIGATOR_CONFIG=$settings env -u ANSIBLE_COLLECTIONS_PATH -u ANSIBLE_CONFIG ansible-navigator run "$@" | plain | tee "$WORK/$name-1.log"
  read -r changed failed < <(recap "$host" "$WORK/$name-1.log")
  if [ "${failed:-1}" != 0 ] || [ "${changed:-0}" -eq 0 ]; then
    die "$name in the EE: the first run failed or changed nothing (log: $WORK/$name-1.log)"
  fi
  log "ansible-navigator, image $EE_IMAGE: $* (second run: must report changed=0)"
  ANSIBLE_NAVIGATOR_CONFIG=$settings env -u ANSIBLE_COLLECTIONS_PATH -u ANSIBLE_CONFIG ansible-navigator run "$@" | plain | tee "$WORK/$name-2.log"
  read -r changed failed < <(recap "$host" "$WORK/$name-2.log")
  if [ "${failed:-1}" != 0 ] || [ "${changed:-1}" != 0 ]; then
    die "NOT IDEMPOTENT in the EE: $name second run changed=${changed:-?} (log: $WORK/$name-2.log)"
  fi
  echo "EE: $name first run changed, second run changed=0"
}

# the control plane's programs (scripts/upstream.sh): built when missing, else only checked
ensure_upstream_programs() { nice -n 5 scripts/upstream.sh build kubernetes etcd kwok >/dev/null; }

stage_run() {
  need ansible-navigator "it is in tests/requirements-dev.txt (scripts/lib.sh ensure_venv)"
  "${PODMAN[@]}" image exists "$EE_IMAGE" || die "no image $EE_IMAGE: bash tests/ee/ee.sh build"
  : >"$WORK/navigator.log"
  # ansible-navigator refuses podman without a /dev/mqueue directory on this machine (POSIX message queues, which
  # the container gets from podman); a machine without one (a container) gets the directory
  if [ ! -d /dev/mqueue ]; then
    mkdir /dev/mqueue 2>/dev/null || die "ansible-navigator with podman needs /dev/mqueue/ and it cannot be made here (mkdir /dev/mqueue)"
    echo "made /dev/mqueue/ (ansible-navigator's podman check)"
  fi
  # 1. the main job on the sandbox node
  local sandbox="$WORK/sandbox"
  rm -rf "$sandbox"; mkdir -p "$sandbox"; touch "$sandbox/.numaops-sandbox"
  cp -a examples/sandbox/tree "$sandbox/tree"
  navigator_settings "$WORK/navigator-sandbox.yml" "$sandbox" "NUMAOPS_SANDBOX=$sandbox"
  twice node_prep sandbox-node-1 "$WORK/navigator-sandbox.yml" playbooks/node_prep.yml -i examples/sandbox/inventory.yml --diff

  # 2. the cluster-side playbooks against the test control plane, prepared as the memory_qos_role scenario does
  local scratch="$WORK/cluster" inventory="$WORK/cluster-inventory.yml"
  ensure_upstream_programs
  cat >"$inventory" <<EOF
all:
  hosts:
    localhost:
      ansible_connection: local
      ansible_python_interpreter: "{{ ansible_playbook_python }}"
      scratch_dir: $scratch
      memory_qos_node_name: molecule-node-1
      memory_qos_cgroup_root: $scratch/cgroup
      memory_qos_cgroup_driver: systemd
      memory_qos_page_size: 4096
      memory_qos_become: false
  children:
    colocation_nodes:
      hosts:
        localhost: {}
EOF
  local link; link=$(make_collection_link)
  # shellcheck disable=SC2064
  trap "ANSIBLE_COLLECTIONS_PATH='$link' ansible-playbook -i '$inventory' extensions/molecule/memory_qos_role/cleanup.yml >/dev/null 2>&1 || true; rm -rf '$link'" EXIT
  log "the test control plane, pods and ColocationConfigurations (extensions/molecule/memory_qos_role/prepare.yml, on this machine)"
  ANSIBLE_COLLECTIONS_PATH="$link" K8S_AUTH_KUBECONFIG="$scratch/kubeconfig" \
    ansible-playbook -i "$inventory" extensions/molecule/memory_qos_role/prepare.yml >"$WORK/cluster-prepare.log" 2>&1 \
    || { tail -30 "$WORK/cluster-prepare.log"; die "preparing the control plane failed (log: $WORK/cluster-prepare.log)"; }
  navigator_settings "$WORK/navigator-cluster.yml" "$scratch" "K8S_AUTH_KUBECONFIG=$scratch/kubeconfig"
  twice memory_qos localhost "$WORK/navigator-cluster.yml" playbooks/memory_qos.yml -i "$inventory"
  twice colocation_sync localhost "$WORK/navigator-cluster.yml" playbooks/colocation_sync.yml -i "$inventory"
  log "EE $EE_IMAGE: node_prep (sandbox), memory_qos and colocation_sync (test control plane) each changed the first time and reported changed=0 the second"
}

mkdir -p "$WORK"
[ -n "${NUMAOPS_EE_PODMAN_DEFAULTS:-}" ] || write_containers_conf
case "${1:-}" in
  base) stage_base ;;
  build) stage_build ;;
  run) stage_run ;;
  all) stage_build; stage_run ;;
  *) die "usage: bash tests/ee/ee.sh base|build|run|all" ;;
esac
