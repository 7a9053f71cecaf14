#!/usr/bin/env bash
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# vm.sh - a real test node for numaops.colocation: Debian 13 "trixie" built from Debian packages,
# run under QEMU (TCG), booted once and resumed from saved state for every test.
#
#   vm.sh image                 build (or reuse) the cached image and its saved running state
#   vm.sh up RUN_DIR [--cold]   start a throw-away node: resume the saved state (seconds), or with
#                               --cold boot it from power-on through GRUB; writes RUN_DIR/instance.env
#   vm.sh ssh RUN_DIR [CMD...]  run a command on the node (a shell without CMD)
#   vm.sh down RUN_DIR          stop the node and delete its overlay disk
#   vm.sh selftest              up + checks of the raw system (cgroup v2, NRI, GRUB, containerd images) + down
#   vm.sh deps                  install the Debian packages this needs (when missing)
#   vm.sh hash | cache-dir      print the recipe hash / the cache directory of this recipe
#   vm.sh prune                 delete cached images of other recipes
#
# Environment:
#   NUMAOPS_CACHE      cache root (default ~/.cache/numaops-colocation); images live in $NUMAOPS_CACHE/vm/<hash>/
#   NUMAOPS_SKIP_VM=1  explicit opt-out: do not run the VM, say so loudly, exit 0
#   NUMAOPS_VM_MIRROR  Debian mirror for debootstrap (default: the one this machine's apt uses)
set -euo pipefail

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NUMAOPS_CACHE=${NUMAOPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/numaops-colocation}
VM_CACHE_ROOT=$NUMAOPS_CACHE/vm
DEPS=(qemu-system-x86 qemu-utils debootstrap e2fsprogs fdisk zstd socat openssh-client gcc libc6-dev)
# shellcheck source=image.sh
. "$VM_DIR/image.sh"

now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
log() { echo "[vm $(date +%T)] $*" | tee -a "${VM_LOG:-/dev/null}" >&2; }
die() {
  printf '\n[vm] ERROR: %s\n' "$*" >&2
  exit 1
}
banner() { printf '\n%s\n%s\n%s\n\n' "########################################################################" "# $*" "########################################################################" >&2; }

skip_requested() { [ "${NUMAOPS_SKIP_VM:-}" = 1 ]; }
skipped() {
  banner "NUMAOPS_SKIP_VM=1: THE VM TESTS WERE SKIPPED - nothing was tested on a real node"
  exit 0
}

# ---------------------------------------------------------------------------------------- set-up
deps() {
  local missing=() p
  for p in "${DEPS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  log "installing Debian packages: ${missing[*]}"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null ||
    die "could not install ${missing[*]} (the VM tests need them; set NUMAOPS_SKIP_VM=1 to skip the VM tests explicitly)"
}

# QEMU must be able to run a machine at all; otherwise fail loudly (or skip, when asked to).
preflight() {
  local out
  if ! command -v qemu-system-x86_64 >/dev/null; then
    die "qemu-system-x86_64 is not installed and could not be installed: THE VM TESTS CANNOT RUN. Install qemu-system-x86, or set NUMAOPS_SKIP_VM=1 to skip them explicitly."
  fi
  if ! out=$(echo quit | timeout 60 qemu-system-x86_64 -machine pc -accel tcg -nodefaults -no-user-config \
    -display none -S -monitor stdio 2>&1); then
    die "QEMU cannot start a machine here: THE VM TESTS CANNOT RUN. qemu said: ${out:0:600}
Fix QEMU (qemu-system-x86 with TCG), or set NUMAOPS_SKIP_VM=1 to skip the VM tests explicitly."
  fi
}

recipe_hash() {
  (
    cd "$VM_DIR"
    for f in image.sh oci_archive.py packages.txt $(find guest -type f ! -name "*.pyc" ! -path "*/__pycache__/*" | LC_ALL=C sort); do
      printf '%s\0' "$f"
      cat "$f"
      printf '\0'
    done
  ) | sha256sum | cut -c1-16
}

# ---------------------------------------------------------------------------------------- qemu
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# qemu_start DISK [extra qemu args...]: QEMU in the background of its own session (setsid, NOT
# -daemonize: with -daemonize "migrate exec:" ends in status "failed"), serial console to
# console.log, monitor on mon.sock, SSH forwarded from a free 127.0.0.1 port chosen now.
qemu_start() {
  local disk=$1 attempt
  shift
  machine_args "$disk"
  for attempt in 1 2 3 4 5; do
    PORT=$(free_port)
    rm -f console.log qemu.pid mon.sock qemu.err
    QEMU_PID=
    setsid -f qemu-system-x86_64 "${VM_ARGS[@]}" \
      -netdev "user,id=n0,hostfwd=tcp:127.0.0.1:$PORT-:22" \
      -serial file:console.log -monitor unix:mon.sock,server,nowait -pidfile qemu.pid "$@" \
      </dev/null >qemu.err 2>&1
    for _ in $(seq 150); do
      [ -z "$QEMU_PID" ] && [ -s qemu.pid ] && QEMU_PID=$(cat qemu.pid)
      [ -n "$QEMU_PID" ] && [ -S mon.sock ] && return 0
      [ -s qemu.err ] && [ -z "$QEMU_PID" ] && sleep 0.3 && [ ! -s qemu.pid ] && break
      sleep 0.1
    done
    if grep -q 'host forwarding rule\|Could not set up host forwarding' qemu.err 2>/dev/null; then
      log "port $PORT was taken meanwhile, trying another (attempt $attempt)"
      continue
    fi
    [ -n "$QEMU_PID" ] && [ -S mon.sock ] && return 0
    die "QEMU did not start: $(cat qemu.err 2>/dev/null)"
  done
  die "QEMU could not forward a free loopback port after 5 attempts: $(cat qemu.err 2>/dev/null)"
}

qemu_alive() { [ -n "${QEMU_PID:-}" ] && kill -0 "$QEMU_PID" 2>/dev/null; }

qemu_wait_exit() {
  for _ in $(seq 200); do
    qemu_alive || break
    sleep 0.1
  done
  if qemu_alive; then kill "$QEMU_PID" 2>/dev/null || true; fi
  rm -f qemu.pid mon.sock
}

# Talk to the QEMU monitor; prints the answer without the prompt echo.
mon() {
  local out
  out=$(printf '%s\n' "$@" | timeout 30 socat - "UNIX-CONNECT:$PWD/mon.sock" 2>/dev/null) || return 1
  printf '%s\n' "$out" | tr -d '\r' | grep -av '^(qemu)\|^QEMU' || true
}

ssh_opts() {
  SSH_OPTS=(-q -i "$KEY" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR
    -o BatchMode=yes -o ConnectTimeout=5 -o ServerAliveInterval=2 -o ServerAliveCountMax=3 -p "$PORT")
}

# Every SSH call is wrapped in timeout: slirp's port forward accepts connections even while the guest
# is down, so a bare ssh can hang for minutes.
guest_ssh() {
  ssh_opts
  timeout "${SSH_TIMEOUT:-600}" ssh "${SSH_OPTS[@]}" root@127.0.0.1 "$@" </dev/null
}

# wait_ssh START_STAMP LIMIT_S: until the guest answers on SSH.
wait_ssh() {
  local end=$(($(date +%s) + ${2:-300}))
  ssh_opts
  while [ "$(date +%s)" -lt "$end" ]; do
    qemu_alive || {
      log "QEMU exited: $(cat qemu.err 2>/dev/null)"
      return 1
    }
    timeout 10 ssh "${SSH_OPTS[@]}" root@127.0.0.1 true </dev/null 2>/dev/null && return 0
    sleep 0.5
  done
  return 1
}

vm_poweroff() {
  local t
  t=$(now)
  qemu_alive || return 0
  SSH_TIMEOUT=10 guest_ssh 'systemctl poweroff' 2>/dev/null || true
  for _ in $(seq 240); do
    qemu_alive || break
    sleep 0.5
  done
  if qemu_alive; then
    kill "$QEMU_PID"
    log "QEMU $QEMU_PID killed: the guest did not power off within 120 s"
  else
    log "power-off in $(took "$t")s"
  fi
  rm -f qemu.pid mon.sock
}

# ---------------------------------------------------------------------------------------- image
# Build the image of the current recipe unless the cache has it. Concurrent callers wait on a lock.
ensure_image() {
  local hash dir tmp t
  hash=$(recipe_hash)
  dir=$VM_CACHE_ROOT/$hash
  IMAGE_DIR=$dir
  [ -f "$dir/READY" ] && return 0
  mkdir -p "$VM_CACHE_ROOT"
  exec 9>"$VM_CACHE_ROOT/.lock-$hash"
  flock 9
  if [ -f "$dir/READY" ]; then
    exec 9>&-
    return 0
  fi
  [ "$(id -u)" -eq 0 ] || die "building the VM image needs root (debootstrap, chroot)"
  tmp=$VM_CACHE_ROOT/.build-$hash-$$
  rm -rf "$tmp"
  mkdir -p "$tmp"
  t=$(now)
  (
    cd "$tmp"
    VM_LOG=$tmp/timings.log
    KEY=$tmp/id_ed25519
    log "building the test VM image for recipe $hash in $tmp"
    build_rootfs
    configure_rootfs
    make_disk
    snapshot
  )
  echo "$hash" >"$tmp/READY"
  rm -rf "$dir"
  mv "$tmp" "$dir"
  # the overlay chain uses absolute backing paths: point snap-disk at the final place
  qemu-img rebase -u -f qcow2 -b "$dir/base.qcow2" -F qcow2 "$dir/snap-disk.qcow2"
  VM_LOG=$dir/timings.log log "image ready in $(took "$t")s total: $dir"
  exec 9>&-
}

# ---------------------------------------------------------------------------------------- nodes
up() {
  local run=$1 mode=${2:-} t
  [ -n "$run" ] || die "usage: vm.sh up RUN_DIR [--cold]"
  skip_requested && skipped
  deps
  preflight
  ensure_image
  mkdir -p "$run"
  run=$(cd "$run" && pwd)
  cd "$run"
  VM_LOG=$run/timings.log
  [ -f qemu.pid ] && kill -0 "$(cat qemu.pid)" 2>/dev/null && die "a VM is already running for $run (vm.sh down $run)"
  KEY=$IMAGE_DIR/id_ed25519
  rm -f disk.qcow2
  t=$(now)
  if [ "$mode" = --cold ]; then
    # the same disk the saved state has (Debian's own grub.cfg), booted from power-on
    qemu-img create -q -f qcow2 -b "$IMAGE_DIR/snap-disk.qcow2" -F qcow2 disk.qcow2
    qemu_start disk.qcow2
    wait_ssh "$t" 900 || die "cold boot: no SSH after 900 s (console: $run/console.log)"
    guest_ssh 'systemctl is-system-running --wait >/dev/null 2>&1 || true'
    log "cold boot through GRUB to SSH in $(took "$t")s"
  else
    qemu-img create -q -f qcow2 -b "$IMAGE_DIR/snap-disk.qcow2" -F qcow2 disk.qcow2
    qemu_start disk.qcow2 -incoming "exec:cat $IMAGE_DIR/vmstate.bin"
    local st=""
    for _ in $(seq 600); do
      st=$(mon 'info migrate' | grep -a 'Migration status' || true)
      case "$st" in *completed* | *failed*) break ;; esac
      qemu_alive || die "QEMU exited while loading the saved state: $(cat qemu.err)"
      sleep 0.1
    done
    case "$st" in *completed*) ;; *) die "loading the saved VM state failed: ${st:-no status} $(cat qemu.err)" ;; esac
    mon cont >/dev/null # saved while stopped, so it arrives paused
    wait_ssh "$t" 120 || die "resumed VM: no SSH after 120 s (console: $run/console.log)"
    # the guest clock stopped when the state was saved
    guest_ssh "date -u -s @$(date -u +%s.%N) >/dev/null"
    log "resume from saved state to SSH in $(took "$t")s"
  fi
  cat >instance.env <<EOF
VM_HOST=127.0.0.1
VM_PORT=$PORT
VM_USER=root
VM_KEY=$KEY
VM_PID=$QEMU_PID
VM_IMAGE=$IMAGE_DIR
EOF
  cat >instance.json <<EOF
{"address": "127.0.0.1", "port": $PORT, "user": "root", "identity_file": "$KEY", "pid": $QEMU_PID, "image": "$IMAGE_DIR", "run_dir": "$run"}
EOF
  cat instance.json
}

load_instance() {
  local run=$1
  [ -f "$run/instance.env" ] || die "no VM instance in $run (vm.sh up $run)"
  # shellcheck disable=SC1091
  . "$run/instance.env"
  PORT=$VM_PORT KEY=$VM_KEY QEMU_PID=$VM_PID
}

down() {
  local run=$1 t
  [ -d "$run" ] || return 0
  cd "$run"
  [ -f instance.env ] || return 0
  load_instance "$run"
  VM_LOG=$run/timings.log
  t=$(now)
  if qemu_alive; then
    # the overlay is thrown away, so no need for a clean guest shutdown
    mon quit >/dev/null 2>&1 || true
    qemu_wait_exit
    log "stopped in $(took "$t")s"
  fi
  rm -f disk.qcow2 instance.env instance.json mon.sock
}

vm_ssh() {
  local run=$1
  shift
  load_instance "$run"
  ssh_opts
  if [ $# -eq 0 ]; then
    exec ssh "${SSH_OPTS[@]}" -t root@127.0.0.1
  fi
  # stdin goes to the command (vm.sh ssh RUN_DIR bash -s <script)
  timeout "${SSH_TIMEOUT:-600}" ssh "${SSH_OPTS[@]}" root@127.0.0.1 "$@"
}

case "${1:-}" in
deps) deps ;;
image)
  skip_requested && skipped
  deps
  preflight
  ensure_image
  echo "$IMAGE_DIR"
  ;;
up) up "${2:-}" "${3:-}" ;;
down) down "${2:?usage: vm.sh down RUN_DIR}" ;;
ssh)
  shift
  run=${1:?usage: vm.sh ssh RUN_DIR [CMD...]}
  shift
  vm_ssh "$run" "$@"
  ;;
selftest)
  skip_requested && skipped
  exec "$VM_DIR/selftest.sh"
  ;;
hash) recipe_hash ;;
cache-dir) echo "$VM_CACHE_ROOT/$(recipe_hash)" ;;
prune)
  keep=$(recipe_hash)
  for d in "$VM_CACHE_ROOT"/*/; do
    [ -d "$d" ] || continue
    case "$(basename "$d")" in "$keep" | debs) continue ;; esac
    log "removing cached image $d"
    rm -rf "$d"
  done
  ;;
*)
  sed -n '6,22p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac
