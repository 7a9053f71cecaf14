# shellcheck shell=bash
# The test VM's recipe: how the Debian 13 "trixie" image is built, which virtual machine it runs on,
# and how its booted state is saved. Sourced by vm.sh, never run on its own.
#
# This file, packages.txt and everything under guest/ are hashed into the cache key
# (vm.sh recipe_hash): changing any of them builds a new image; nothing else does.
#
# Functions here use the helpers vm.sh defines (log, now, took, qemu_start, wait_ssh, mon,
# guest_ssh, vm_poweroff) and run inside the build directory ($PWD).

VM_SUITE=trixie
VM_MEM_MB=2048      # split over two NUMA nodes of 1 GiB, one socket of one vCPU each
VM_SMP=2
VM_DISK_GB=3

# The virtual machine. Resuming saved state needs the very same devices, so every start uses this.
# $1 = disk image (qcow2). Two NUMA nodes so NUMA-aware settings meet a NUMA topology: 2 sockets of 1 core, one
# socket per NUMA node, distance 21 between them (numa_facts is checked against this in the vm scenario's
# verify). SMT (threads=2) was tried: 4 vCPUs under TCG on a 2-core host booted too slowly; SMT siblings are
# covered by the recorded sysfs trees of the unit tests.
machine_args() {
  local half=$((VM_MEM_MB / 2))
  # shellcheck disable=SC2034,SC2054  # VM_ARGS is used by vm.sh; the commas are QEMU's
  VM_ARGS=(
    -machine pc -accel tcg -cpu max -m "$VM_MEM_MB" -smp "$VM_SMP,sockets=2,cores=1,threads=1"
    -object "memory-backend-ram,id=ram0,size=${half}M" -numa "node,nodeid=0,cpus=0,memdev=ram0"
    -object "memory-backend-ram,id=ram1,size=${half}M" -numa "node,nodeid=1,cpus=1,memdev=ram1"
    -numa "dist,src=0,dst=1,val=21"
    -drive "file=$1,if=virtio,format=qcow2,cache=unsafe"
    -device virtio-net-pci,netdev=n0,mac=52:54:00:12:34:56
    -device virtio-rng-pci
    -display none -vga none -nodefaults -no-user-config
  )
}

# debootstrap the Debian packages listed in packages.txt into ./rootfs.
build_rootfs() {
  local mirror include t
  mirror=${NUMAOPS_VM_MIRROR:-$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)}
  mirror=${mirror:-$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)}
  mirror=${mirror:-http://deb.debian.org/debian}
  include=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$VM_DIR/packages.txt" | paste -sd, -)
  t=$(now)
  rm -rf rootfs
  mkdir -p "$VM_CACHE_ROOT/debs"
  if ! debootstrap --variant=minbase --cache-dir="$VM_CACHE_ROOT/debs" --include="$include" \
    "$VM_SUITE" rootfs "$mirror" >debootstrap.log 2>&1; then
    tail -20 debootstrap.log >&2
    die "debootstrap of Debian $VM_SUITE from $mirror failed (log: $PWD/debootstrap.log)"
  fi
  log "build: debootstrap $VM_SUITE ($(wc -w <<<"${include//,/ }") packages) in $(took "$t")s, $(du -sh rootfs | cut -f1)"
}

# Configure the tree: network, SSH key, GRUB defaults, the kubelet stand-in and the kubepods tree.
configure_rootfs() {
  local R=rootfs G=$VM_DIR/guest t
  t=$(now)
  ssh-keygen -q -t ed25519 -N '' -f id_ed25519 -C numaops-colocation-vm
  echo testnode >$R/etc/hostname
  printf '127.0.0.1 localhost\n127.0.1.1 testnode\n' >$R/etc/hosts
  printf 'LABEL=root / ext4 rw,relatime 0 1\n' >$R/etc/fstab
  : >$R/etc/machine-id
  mkdir -p $R/etc/systemd/network
  printf '[Match]\nName=en* eth*\n[Network]\nDHCP=yes\n' >$R/etc/systemd/network/20-dhcp.network
  chroot $R systemctl enable systemd-networkd >/dev/null 2>&1
  # no second serial getty, no waiting for a network that is already there
  chroot $R systemctl mask systemd-networkd-wait-online.service >/dev/null 2>&1 || true
  # no drivers for what this machine does not use, which cost every boot time under TCG: the floppy driver
  # (probing the pc machine's floppy controller held the initramfs about 20 s) and the wireless stack
  # (systemd-networkd's nl80211 query loads cfg80211, which reads its certificates for about 7 s); the initramfs
  # gets the same list
  printf 'blacklist floppy\nblacklist cfg80211\n' >$R/etc/modprobe.d/numaops-vm.conf
  chroot $R update-initramfs -u -k all >/dev/null 2>&1 || die "update-initramfs failed in the image's tree"
  install -d -m700 $R/root/.ssh
  install -m600 id_ed25519.pub $R/root/.ssh/authorized_keys
  # grub2-common ships no /etc/default/grub (grub-pc's postinst would write it): start from its template
  cp $R/usr/share/grub/default/grub $R/etc/default/grub
  sed -i -e 's/^GRUB_TIMEOUT=.*/GRUB_TIMEOUT=0/' \
    -e 's/^GRUB_CMDLINE_LINUX=.*/GRUB_CMDLINE_LINUX="console=ttyS0"/' $R/etc/default/grub
  printf 'GRUB_TERMINAL="serial console"\nGRUB_SERIAL_COMMAND="serial --unit=0 --speed=115200"\n' >>$R/etc/default/grub
  prepare_grub
  # a kubeadm node's files for the real kubelet, which the scenario copies to /usr/bin/kubelet (built by
  # scripts/upstream.sh; the image holds no Kubernetes binary): the unit and kubeadm's drop-in, the kubelet
  # configuration, containerd's CRI set-up (systemd cgroups, CNI) and the bridge network for the pods
  install -d -m755 $R/usr/lib/systemd/system/kubelet.service.d $R/var/lib/kubelet $R/etc/kubernetes/manifests \
    $R/etc/kubernetes/pki $R/etc/containerd $R/etc/cni/net.d $R/var/lib/numaops-vm/images
  install -m644 "$G/kubelet.service" $R/usr/lib/systemd/system/kubelet.service
  install -m644 "$G/10-kubeadm.conf" $R/usr/lib/systemd/system/kubelet.service.d/10-kubeadm.conf
  install -m644 "$G/kubeadm-flags.env" $R/var/lib/kubelet/kubeadm-flags.env
  install -m644 "$G/kubelet-config.yaml" $R/var/lib/kubelet/config.yaml
  install -m644 "$G/containerd-config.toml" $R/etc/containerd/config.toml
  install -m644 "$G/10-numaops-bridge.conflist" $R/etc/cni/net.d/10-numaops-bridge.conflist
  # slirp's DNS; the kubelet hands this file to the pods (resolvConf)
  rm -f $R/etc/resolv.conf
  printf 'nameserver 10.0.2.3\n' >$R/etc/resolv.conf
  # the two images the pods run, made here without a registry: the sandbox from our pause.c, the workload from
  # Debian's busybox-static; snapshot imports them into containerd's k8s.io namespace
  gcc -static -Os -o pause "$G/pause.c"
  python3 "$VM_DIR/oci_archive.py" $R/var/lib/numaops-vm/images/pause.tar numaops.invalid/pause:1 \
    --entrypoint /pause --file /pause=pause >/dev/null
  local links=() app
  for app in $(chroot $R /bin/busybox --list); do
    [ "$app" = busybox ] || links+=(--link "bin/$app=busybox")
  done
  python3 "$VM_DIR/oci_archive.py" $R/var/lib/numaops-vm/images/busybox.tar numaops.invalid/busybox:1 \
    --entrypoint /bin/sh --file /bin/busybox=$R/bin/busybox "${links[@]}" >/dev/null
  rm -f pause
  # Python keeps the bytecode of modules imported from a zip archive (Ansible's module payloads) as it does for
  # files: guest/zipimport_cache.py, imported at interpreter start by a .pth file
  local site
  site=$(chroot $R python3 -c 'import site; print(site.getsitepackages()[0])')
  install -d -m755 "$R$site"
  install -m644 "$G/zipimport_cache.py" "$R$site/zipimport_cache.py"
  printf 'import zipimport_cache\n' >"$R$site/zipimport_cache.pth"
  rm -f $R/var/cache/apt/archives/*.deb $R/var/cache/apt/*.bin
  rm -rf $R/var/lib/apt/lists/*_Packages
  log "build: rootfs configured in $(took "$t")s"
}

# An MBR disk whose first partition is an ext4 file system made from ./rootfs (mkfs.ext4 -d: no loop
# device, no mount), converted to base.qcow2.
make_disk() {
  local t
  t=$(now)
  mkfs.ext4 -q -F -L root -d rootfs root.ext4 "${VM_DISK_GB}G" >/dev/null
  truncate -s $((VM_DISK_GB * 1024 + 1))M disk.raw
  echo 'start=2048, type=83, bootable' | sfdisk -q disk.raw
  dd if=root.ext4 of=disk.raw bs=1M seek=1 conv=notrunc,sparse status=none
  rm -f root.ext4
  # GRUB's boot code: boot.img in the MBR (the partition table stays), core.img in the gap after it.
  # boot.img loads sector 1 by default and grub-mkimage fills in core.img's own sector count,
  # so this is what grub-install --target=i386-pc writes, without a loop device.
  dd if=boot.img of=disk.raw bs=440 count=1 conv=notrunc status=none
  dd if=core.img of=disk.raw bs=512 seek=1 conv=notrunc status=none
  rm -f boot.img core.img
  qemu-img convert -f raw -O qcow2 disk.raw base.qcow2
  rm -f disk.raw
  rm -rf rootfs
  log "build: disk image in $(took "$t")s ($(du -h base.qcow2 | cut -f1) allocated)"
}

# GRUB for BIOS boot, made with the image's own GRUB (grub-pc-bin) in the chroot: the modules in
# /boot/grub/i386-pc, core.img (disk, msdos partition and ext2 drivers; prefix on the first partition)
# and boot.img for make_disk, and a first grub.cfg. The first boot replaces that grub.cfg with the one
# Debian's update-grub generates, so every boot goes firmware -> GRUB -> kernel like on a real node.
prepare_grub() {
  local R=rootfs kver
  kver=$(basename "$(readlink -f $R/vmlinuz)")
  kver=${kver#vmlinuz-}
  mkdir -p $R/boot/grub
  cp -a $R/usr/lib/grub/i386-pc $R/boot/grub/
  chroot $R grub-mkimage -O i386-pc -o /tmp/core.img -p '(hd0,msdos1)/boot/grub' biosdisk part_msdos ext2
  mv $R/tmp/core.img core.img
  cp $R/usr/lib/grub/i386-pc/boot.img boot.img
  cat >$R/boot/grub/grub.cfg <<EOF
serial --unit=0 --speed=115200
terminal_input serial console
terminal_output serial console
set timeout=0
menuentry 'Debian GNU/Linux (first boot)' {
  insmod part_msdos
  insmod ext2
  set root='hd0,msdos1'
  linux /boot/vmlinuz-$kver root=LABEL=root ro console=ttyS0 quiet
  initrd /boot/initrd.img-$kver
}
EOF
}

# First boot, through GRUB: let Debian's update-grub write grub.cfg, wait until the node is settled (containerd up
# with the two images imported into its k8s.io namespace),
# then save disk (snap-disk.qcow2, frozen) and memory+devices (vmstate.bin) with "migrate exec:".
snapshot() {
  local t st=""
  qemu-img create -q -f qcow2 -b "$PWD/base.qcow2" -F qcow2 snap-disk.qcow2
  t=$(now)
  qemu_start snap-disk.qcow2
  wait_ssh "$t" 900 || die "snapshot: boot through GRUB did not reach SSH (console: $PWD/console.log)"
  log "snapshot: boot through GRUB to SSH in $(took "$t")s"
  guest_ssh 'update-grub >/dev/null 2>&1 && grub-script-check /boot/grub/grub.cfg' ||
    die "snapshot: update-grub failed in the guest"
  # shellcheck disable=SC2016  # expanded in the guest
  guest_ssh 'systemctl is-system-running --wait >/dev/null 2>&1; for i in $(seq 240); do
      systemctl is-active -q containerd.service && ctr version >/dev/null 2>&1 && break; sleep 0.5; done
      for f in /var/lib/numaops-vm/images/*.tar; do ctr -n k8s.io images import "$f" >/dev/null || exit 1; done
      ctr -n k8s.io images ls -q | grep -qx numaops.invalid/pause:1 && ctr -n k8s.io images ls -q | grep -qx numaops.invalid/busybox:1 && exit 0
      systemctl --no-pager status containerd >&2; ctr -n k8s.io images ls >&2; exit 1' ||
    die "snapshot: the node did not settle (containerd, image import)"
  # a smaller saved state: flush, drop the page cache (zero pages cost nothing in the migration stream)
  guest_ssh 'journalctl --rotate >/dev/null 2>&1; sync; echo 3 >/proc/sys/vm/drop_caches'
  log "snapshot: node settled after $(took "$t")s"
  t=$(now)
  rm -f vmstate.bin
  mon stop >/dev/null
  mon "migrate -d \"exec:cat > $PWD/vmstate.bin\"" >/dev/null
  for _ in $(seq 600); do
    st=$(mon "info migrate" | grep -a "Migration status" || true)
    case "$st" in *completed* | *failed*) break ;; esac
    sleep 0.5
  done
  mon quit >/dev/null || true
  qemu_wait_exit
  case "$st" in *completed*) ;; *) die "snapshot: saving the VM state failed: ${st:-no status}" ;; esac
  log "snapshot: state saved in $(took "$t")s (vmstate.bin $(du -h vmstate.bin | cut -f1))"
}
