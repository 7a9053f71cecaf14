#!/usr/bin/env bash
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# selftest.sh - checks the raw test node, without the collection: what the VM scenario relies on.
# Resumes a throw-away VM, checks cgroup v2 page rounding, the kubepods tree, NRI enabled by hand,
# the GRUB tools and the kubelet stand-in's refusals, then stops it. Run through `vm.sh selftest`.
set -euo pipefail
VM=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/vm.sh
RUN=$(mktemp -d "${TMPDIR:-/tmp}/numaops-vm-selftest.XXXXXX")
trap 'bash "$VM" down "$RUN" >/dev/null 2>&1 || true; rm -rf "$RUN"' EXIT

bash "$VM" up "$RUN" >/dev/null
# The checks run in the guest; each prints "ok - ..." or "not ok - ...".
bash "$VM" ssh "$RUN" bash -s <<'GUEST' | tee "$RUN/result"
set -u
check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fi; }
healthz() { python3 -c 'import urllib.request as u; print(u.urlopen("http://127.0.0.1:10248/healthz", timeout=3).read().decode())' 2>/dev/null; }
wait_kubelet() {  # $1 = active|failed
  for _ in $(seq 60); do
    case $1 in
      active) [ "$(healthz)" = ok ] && return 0 ;;
      failed) journalctl -u kubelet -o cat --since "@$T0" | grep -q '"command failed"\|Failed to start ContainerManager' && return 0 ;;
    esac
    sleep 0.5
  done
  return 1
}
# the kubelet's journal since T0 shows $1 (waits for it: a restart loop of the previous configuration can log
# its own failure in T0's second, so "it failed" alone does not mean the new configuration was read yet)
wait_log() {
  for _ in $(seq 60); do
    journalctl -u kubelet -o cat --since "@$T0" | grep -q "$1" && return 0
    sleep 0.5
  done
  return 1
}

# --- cgroup v2 with the memory controller; the kernel stores whole pages, rounding down
check "cgroup2 is mounted at /sys/fs/cgroup" '[ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]'
check "the memory controller is available" 'grep -qw memory /sys/fs/cgroup/cgroup.controllers'
G=/sys/fs/cgroup/numaops-selftest; rmdir $G 2>/dev/null; mkdir $G
echo 5000 > $G/memory.high; echo 858993459 > $G/memory.low; echo 1 > $G/memory.min
check "memory.high 5000 reads back 4096" '[ "$(cat $G/memory.high)" = 4096 ]'
check "memory.low 858993459 reads back 858992640" '[ "$(cat $G/memory.low)" = 858992640 ]'
check "memory.min 1 reads back 0" '[ "$(cat $G/memory.min)" = 0 ]'
rmdir $G

# --- the kubepods tree of the kubelet/containerd stand-in, with processes in the container scopes
K=/sys/fs/cgroup/kubepods.slice
check "kubepods.slice with burstable and besteffort QoS slices" '[ -d $K/kubepods-burstable.slice ] && [ -d $K/kubepods-besteffort.slice ]'
check "pod slices named with _ for - in the UID" '[ -d $K/kubepods-burstable.slice/kubepods-burstable-pod8a1d2e3f_4b5c_4d6e_8f70_9a0b1c2d3e4f.slice ]'
n=$(find $K -name 'cri-containerd-*.scope' -type d | wc -l)
check "9 container/sandbox scopes (found $n)" '[ "$n" = 9 ]'
check "every scope holds a process" '! for s in $(find $K -name "cri-containerd-*.scope" -type d); do [ -n "$(cat $s/cgroup.procs)" ] || echo empty; done | grep -q empty'
check "memory.high/low/min exist down to the containers" '[ -f $(find $K -name "cri-containerd-*.scope" | head -1)/memory.min ]'
check "scopes are delegated (Delegate=yes)" '[ "$(systemctl show -P Delegate $(basename $(find $K -name "cri-containerd-*.scope" | head -1)))" = yes ]'

# --- containerd 1.7 with NRI enabled by hand: the socket appears, config dump shows it
check "containerd 1.7 is running" 'containerd --version | grep -q " 1\.7\." && systemctl is-active -q containerd'
check "no NRI socket while NRI is disabled (1.7 default)" '[ ! -S /var/run/nri/nri.sock ]'
mkdir -p /etc/containerd
printf 'version = 2\n\n[plugins."io.containerd.nri.v1.nri"]\n  disable = false\n  socket_path = "/var/run/nri/nri.sock"\n' > /etc/containerd/config.toml
systemctl restart containerd
for _ in $(seq 60); do [ -S /var/run/nri/nri.sock ] && break; sleep 0.25; done
check "NRI socket after enabling NRI and restarting containerd" '[ -S /var/run/nri/nri.sock ]'
check "containerd config dump shows NRI enabled" 'containerd config dump | python3 -c "import sys, tomllib; sys.exit(tomllib.load(sys.stdin.buffer)[\"plugins\"][\"io.containerd.nri.v1.nri\"][\"disable\"])"'

# --- GRUB tools (Debian's update-grub path)
check "/etc/default/grub exists (copied from grub2-common's template)" '[ -f /etc/default/grub ]'
check "grub-mkconfig writes a config grub-script-check accepts" 'grub-mkconfig -o /run/grub-test.cfg >/dev/null 2>&1 && grub-script-check /run/grub-test.cfg'
printf 'if true; then\n' >/run/bad.cfg
check "grub-script-check rejects a broken config" '! grub-script-check /run/bad.cfg 2>/dev/null'
check "update-grub regenerates /boot/grub/grub.cfg" 'update-grub >/dev/null 2>&1 && grep -q "^\s*linux\s" /boot/grub/grub.cfg'

# --- kubelet stand-in: healthy, refuses a policy change while the old state file exists, refuses invalid policies
C=/var/lib/kubelet/config.yaml; cp $C /run/kc.orig
check "kubelet stand-in healthy on 127.0.0.1:10248/healthz" '[ "$(healthz)" = ok ]'
check "cpu_manager_state written with policy none" 'grep -q "\"policyName\":\"none\"" /var/lib/kubelet/cpu_manager_state'
printf 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n' >> $C
T0=$(date +%s); systemctl restart kubelet
check "static policy with the none state file: kubelet refuses to start" 'wait_kubelet failed'
check "... with kubelet's error text" 'wait_log "could not restore state from checkpoint: configured policy \\\\\"static\\\\\" differs from state checkpoint policy \\\\\"none\\\\\", please drain this node and delete the CPU manager checkpoint file \\\\\"/var/lib/kubelet/cpu_manager_state\\\\\" before restarting Kubelet"'
rm -f /var/lib/kubelet/cpu_manager_state
T0=$(date +%s); systemctl restart kubelet
check "state file removed: kubelet healthy with the static policy" 'wait_kubelet active && grep -q "\"policyName\":\"static\"" /var/lib/kubelet/cpu_manager_state'
cp /run/kc.orig $C; printf 'cpuManagerPolicy: statik\n' >> $C
T0=$(date +%s); systemctl restart kubelet
check "invalid cpuManagerPolicy: refused with unknown policy" 'wait_log "unknown policy: \\\\\"statik\\\\\""'
cp /run/kc.orig $C; printf 'topologyManagerPolicy: numa\n' >> $C
T0=$(date +%s); systemctl restart kubelet
check "invalid topologyManagerPolicy: refused by validation" 'wait_log "failed to validate kubelet configuration, error: invalid configuration: topologyManagerPolicy"'
cp /run/kc.orig $C; rm -f /var/lib/kubelet/cpu_manager_state
T0=$(date +%s); systemctl restart kubelet
check "original configuration back: healthy" 'wait_kubelet active'
GUEST
if grep -q '^not ok' "$RUN/result" || ! grep -q '^ok' "$RUN/result"; then
  echo "selftest: FAILED ($(grep -c '^not ok' "$RUN/result") of $(grep -c 'ok - ' "$RUN/result") checks)" >&2
  exit 1
fi
echo "selftest: all $(grep -c '^ok' "$RUN/result") checks passed" >&2
