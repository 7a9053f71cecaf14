#!/usr/bin/env bash
# Copyright (c) 2026 numaops.colocation contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# selftest.sh - checks the raw test node, without the collection: what the VM scenario relies on.
# Resumes a throw-away VM, checks cgroup v2 page rounding, containerd's CRI set-up with the locally built
# images, NRI enabled by hand and the GRUB tools, then stops it. Run through `vm.sh selftest`. What the real
# kubelet does on this node is the vm scenario's (it needs the kubelet built by scripts/upstream.sh).
set -euo pipefail
VM=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/vm.sh
RUN=$(mktemp -d "${TMPDIR:-/tmp}/numaops-vm-selftest.XXXXXX")
trap 'bash "$VM" down "$RUN" >/dev/null 2>&1 || true; rm -rf "$RUN"' EXIT

bash "$VM" up "$RUN" >/dev/null
# The checks run in the guest; each prints "ok - ..." or "not ok - ...".
bash "$VM" ssh "$RUN" bash -s <<'GUEST' | tee "$RUN/result"
set -u
check() { if eval "$2"; then echo "ok - $1"; else echo "not ok - $1"; fi; }
# --- cgroup v2 with the memory controller; the kernel stores whole pages, rounding down
check "cgroup2 is mounted at /sys/fs/cgroup" '[ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]'
check "the memory controller is available" 'grep -qw memory /sys/fs/cgroup/cgroup.controllers'
G=/sys/fs/cgroup/numaops-selftest; rmdir $G 2>/dev/null; mkdir $G
echo 5000 > $G/memory.high; echo 858993459 > $G/memory.low; echo 1 > $G/memory.min
check "memory.high 5000 reads back 4096" '[ "$(cat $G/memory.high)" = 4096 ]'
check "memory.low 858993459 reads back 858992640" '[ "$(cat $G/memory.low)" = 858992640 ]'
check "memory.min 1 reads back 0" '[ "$(cat $G/memory.min)" = 0 ]'
rmdir $G

# --- containerd's CRI set-up for the real kubelet: the two images imported, a container runs from them
check "the sandbox and workload images are in containerd's k8s.io namespace" 'ctr -n k8s.io images ls -q | grep -qx numaops.invalid/pause:1 && ctr -n k8s.io images ls -q | grep -qx numaops.invalid/busybox:1'
check "a container runs from the busybox image" '[ "$(ctr -n k8s.io run --rm numaops.invalid/busybox:1 selftest-busybox /bin/echo hello 2>&1 </dev/null)" = hello ]'
check "CRI: systemd cgroups for runc, CNI plugins from /usr/lib/cni" 'containerd config dump | grep -q "SystemdCgroup = true" && [ -x /usr/lib/cni/bridge ] && [ -x /usr/lib/cni/host-local ] && [ -x /usr/lib/cni/loopback ]'

# --- containerd 1.7 with NRI enabled by hand: the socket appears, config dump shows it
check "containerd 1.7 is running" 'containerd --version | grep -q " 1\.7\." && systemctl is-active -q containerd'
check "no NRI socket while NRI is disabled (1.7 default)" '[ ! -S /var/run/nri/nri.sock ]'
mkdir -p /etc/containerd
printf '\n[plugins."io.containerd.nri.v1.nri"]\n  disable = false\n  socket_path = "/var/run/nri/nri.sock"\n' >> /etc/containerd/config.toml
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

# --- Python keeps the bytecode of a module imported from a zip archive (guest/zipimport_cache.py)
Z=$(mktemp -d); printf 'def where():\n    return where.__code__.co_filename\n' >$Z/numaops_selftest_mod.py
python3 -c "import zipfile; zipfile.ZipFile('$Z/a.zip', 'w').write('$Z/numaops_selftest_mod.py', 'numaops_selftest_mod.py')"
cp $Z/a.zip $Z/b.zip
first=$(python3 -c "import sys; sys.path.insert(0, '$Z/a.zip'); import numaops_selftest_mod as m; print(m.where())")
second=$(python3 -c "import sys; sys.path.insert(0, '$Z/b.zip'); import numaops_selftest_mod as m; print(m.where())")
check "a module imported from a zip archive is compiled once, then loaded from the cache with its own file name" '[ "$first" = "$Z/a.zip/numaops_selftest_mod.py" ] && [ "$second" = "$Z/b.zip/numaops_selftest_mod.py" ] && [ -n "$(grep -rl where /var/cache/numaops-zipimport 2>/dev/null)" ]'
rm -rf $Z

echo "# selftest: end of the checks"
GUEST
# a command that read the script's own stdin would end it early: the end marker says every check ran
if grep -q '^not ok' "$RUN/result" || ! grep -q '^ok' "$RUN/result" || ! grep -q '^# selftest: end of the checks' "$RUN/result"; then
  echo "selftest: FAILED ($(grep -c '^not ok' "$RUN/result") of $(grep -c 'ok - ' "$RUN/result") checks)" >&2
  exit 1
fi
echo "selftest: all $(grep -c '^ok' "$RUN/result") checks passed" >&2
