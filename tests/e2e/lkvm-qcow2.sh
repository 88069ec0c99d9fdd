#!/bin/sh
# Runs in the emulated host: -d images qemu-storage-daemon serves over
# vhost-user-blk (Debian's qemu-utils in the host image).  One guest gets
# a qcow2 with a backing file (read-write), a qcow2 with ,snapshot, a
# VMDK read-only (format=vmdk,ro) and a VDI (format=vdi); it reads the
# base's marker on each and writes a pattern it reads back.  After lkvm
# exits, qemu-img finds the writes in the qcow2 overlay and the VDI, the
# backing file, the snapshot's image and the VMDK byte-identical, no file
# left behind and no daemon running.  A second guest sees its daemon
# killed: one line in lkvm's log, the guest's reads fail, lkvm exits 0.
# No qemu-storage-daemon (status 1, one line naming it) and a file named
# .qcow2 that is none (status 1, one line with qemu's reason).
. ./lib.sh

sum() {
	sha256sum "$1" | cut -d' ' -f1
}
sector() {
	dd if="$1" bs=512 skip="$2" count=1 2>/dev/null | tr -dc 'A-Za-z0-9-'
}

mkdir -p /tmp/q /tmp/qtmp
cd /tmp/q || exit 1
dd if=/dev/zero of=base.raw bs=1M count=8 2>/dev/null
printf 'BASE-MARKER' | dd of=base.raw bs=512 seek=100 conv=notrunc 2>/dev/null
qemu-img convert -f raw -O qcow2 base.raw base.qcow2
qemu-img create -q -f qcow2 -b /tmp/q/base.qcow2 -F qcow2 top.qcow2
qemu-img convert -f raw -O qcow2 base.raw snap.qcow2
qemu-img convert -f raw -O vmdk base.raw base.vmdk
qemu-img convert -f raw -O vdi base.raw base.vdi
cd - >/dev/null || exit 1
base_sum=$(sum /tmp/q/base.qcow2)
snap_sum=$(sum /tmp/q/snap.qcow2)
vmdk_sum=$(sum /tmp/q/base.vmdk)
tmp_before=$(ls -A /tmp /var/tmp 2>/dev/null | wc -l)

export TMPDIR=/tmp/qtmp
lkvm /tmp/rw.log -k Image -i guest-qcow2.cpio.gz -m 128 \
	-c 2 -p qcow2test=rw --debug -d /tmp/q/top.qcow2 \
	-d /tmp/q/snap.qcow2,snapshot -d /tmp/q/base.vmdk,format=vmdk,ro \
	-d /tmp/q/base.vdi,format=vdi
unset TMPDIR
t qcow2-status [ $rc -eq 0 ]
t qcow2-served has "top.qcow2: qcow2 served by qemu-storage-daemon" /tmp/rw.log
t qcow2-snapshot-served has "snap.qcow2: qcow2 served by qemu-storage-daemon .*throw-away overlay" /tmp/rw.log
for d in vda vdb vdc vdd; do
	t qcow2-$d-size has "guest-$d-size: 16384" /tmp/rw.log
	t qcow2-$d-base has "guest-$d-base: BASE-MARKER" /tmp/rw.log
done
for d in vda vdb vdd; do
	t qcow2-$d-readback has "guest-$d-readback: WROTE-$d" /tmp/rw.log
done
t qcow2-vmdk-ro has "guest-vdc-ro: 1" /tmp/rw.log
t qcow2-vmdk-write-refused has "guest-vdc-write-refused" /tmp/rw.log
t qcow2-no-error lacks "lkvm: error" /tmp/rw.log
qemu-img convert -O raw /tmp/q/top.qcow2 /tmp/q/top.raw
t qcow2-overlay-holds-write [ "$(sector /tmp/q/top.raw 200)" = "WROTE-vda" ]
t qcow2-overlay-reads-base [ "$(sector /tmp/q/top.raw 100)" = "BASE-MARKER" ]
t qcow2-overlay-check qemu-img check -q /tmp/q/top.qcow2
t qcow2-backing-untouched [ "$(sum /tmp/q/base.qcow2)" = "$base_sum" ]
t qcow2-snapshot-untouched [ "$(sum /tmp/q/snap.qcow2)" = "$snap_sum" ]
t qcow2-vmdk-untouched [ "$(sum /tmp/q/base.vmdk)" = "$vmdk_sum" ]
qemu-img convert -O raw /tmp/q/base.vdi /tmp/q/vdi.raw
t qcow2-vdi-holds-write [ "$(sector /tmp/q/vdi.raw 200)" = "WROTE-vdd" ]
t qcow2-nothing-left-in-tmpdir [ -z "$(ls -A /tmp/qtmp)" ]
t qcow2-nothing-left-in-tmp [ "$(ls -A /tmp /var/tmp 2>/dev/null | wc -l)" -eq $((tmp_before + 1)) ]
t qcow2-no-daemon-left [ -z "$(own_pidof qemu-storage-daemon)" ]

# The daemon killed while the guest runs.
t0=$(uptime_s)
timeout 200 ./lkvm run $irqchip_args -k Image -i guest-qcow2.cpio.gz \
	-m 128 -c 2 -p qcow2test=kill -d /tmp/q/top.qcow2 \
	</dev/null >/tmp/kill.log 2>&1 &
pid=$!
wait_for "guest-qcow2-ready-for-kill" /tmp/kill.log
killed=
for k in $(kids $pid); do
	tr '\0' ' ' <"/proc/$k/cmdline" 2>/dev/null |
		grep -q "qemu-storage-daemon" && killed="$killed $k"
done
echo "  killing qemu-storage-daemon:$killed"
[ -n "$killed" ] && kill -9 $killed
lkvm_wait $pid /tmp/kill.log "$t0"
t qcow2-kill-status [ $rc -eq 0 ]
t qcow2-kill-base has "guest-qcow2-base-before-kill: BASE-MARKER" /tmp/kill.log
t qcow2-daemon-killed [ -n "$killed" ]
t qcow2-death-one-line [ "$(grep -c "qemu-storage-daemon" /tmp/kill.log)" -eq 1 ]
t qcow2-death-says-so has "virtio-blk /tmp/q/top.qcow2: qemu-storage-daemon was killed by signal 9.*the guest keeps running" /tmp/kill.log
t qcow2-guest-io-error has "guest-qcow2-read-error-" /tmp/kill.log
t qcow2-kill-poweroff has "rvkvm-guest-result: 0" /tmp/kill.log

# No qemu-storage-daemon: one line naming it, status 1.
mkdir -p /tmp/empty
timeout 60 env PATH=/tmp/empty ./lkvm run $irqchip_args -k Image \
	-i guest.cpio.gz -m 64 -d /tmp/q/top.qcow2 </dev/null >/tmp/none.log 2>&1
rc=$?
sed 's/^/  none| /' /tmp/none.log
t qcow2-no-daemon-status-1 [ "$rc" -eq 1 ]
t qcow2-no-daemon-one-line [ "$(grep -c "lkvm: error" /tmp/none.log)" -eq 1 ]
t qcow2-no-daemon-says-so has "qemu-storage-daemon is not installed.*qemu-utils" /tmp/none.log
# A file named .qcow2 that is not one: qemu's reason in one line.
dd if=/dev/zero of=/tmp/q/bad.qcow2 bs=1k count=64 2>/dev/null
LKVM_TIMEOUT=60 lkvm /tmp/bad.log -k Image -i guest.cpio.gz -m 64 \
	-d /tmp/q/bad.qcow2
t qcow2-bad-image-status-1 [ "$rc" -eq 1 ]
t qcow2-bad-image-one-line [ "$(grep -c "lkvm: error" /tmp/bad.log)" -eq 1 ]
t qcow2-bad-image-no-daemon-line lacks "^qemu-storage-daemon:" /tmp/bad.log
t qcow2-bad-image-says-why has "bad.qcow2: qemu-storage-daemon exited with status 1 at start-up: .*qcow2" /tmp/bad.log
exit $fail
