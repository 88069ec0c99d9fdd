#!/bin/sh
# Runs in the emulated host: virtio-blk.  Data the guest wrote and synced is
# in the image after poweroff and after kill -9 of lkvm; a ro disk refuses
# writes; two disks at once (the second an ext4 image, read over one queue
# while the first has one per vCPU); a second lkvm on a locked image fails
# with status 1, and so does a qcow2 image (unless given with ,raw).
. ./lib.sh

yes rvkvm-pattern | head -c 1048576 >/tmp/p
same_pattern() {
	dd if="$1" bs=64k skip=16 count=16 2>/dev/null | cmp -s - /tmp/p
}

dd if=/dev/zero of=/tmp/disk.img bs=1 count=0 seek=8M 2>/dev/null
# 2 vCPUs, so 2 request queues: writes and the flush may use either.
lkvm /tmp/w.log --debug -k Image -i guest-disk-write.cpio.gz -m 128 -c 2 \
	-d /tmp/disk.img
t disk-write-status [ $rc -eq 0 ]
# The host kernel has io_uring: requests go through it, not the fallback.
t disk-engine-io_uring has "virtio-blk I/O engine: io_uring" /tmp/w.log
t disk-debug-2-queues has "depth 64, 2 queues," /tmp/w.log
# /tmp is a tmpfs here: a request alone on the ring runs inline.
t disk-debug-in-memory has "in memory: a lone request inline" /tmp/w.log
t debug-cpu-to-first-instruction has "CPU time to the first guest instruction: " /tmp/w.log
t disk-write-synced has "guest-disk-synced" /tmp/w.log
t disk-write-bytes-in-image same_pattern /tmp/disk.img

dd if=/dev/zero of=/tmp/disk2.img bs=1 count=0 seek=8M 2>/dev/null
./lkvm run $irqchip_args -k Image -i guest-disk-hang.cpio.gz -m 128 -c 1 -d /tmp/disk2.img \
	</dev/null >/tmp/k.log 2>&1 &
pid=$!
i=0
while ! grep -q guest-disk-synced /tmp/k.log && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -9 $pid
wait $pid
sed 's/^/  | /' /tmp/k.log
t disk-kill9-after-sync-data-kept same_pattern /tmp/disk2.img

# 2 vCPUs: vda gets a request queue per vCPU, vdb the one it asks for.
lkvm /tmp/ro.log -k Image -i guest-disk-info.cpio.gz -m 128 -c 2 \
	-d /tmp/disk.img,ro -d test-disk.img,queues=1
t disk-ro-status [ $rc -eq 0 ]
t disk-mq-per-vcpu has "guest-vda-queues: 2" /tmp/ro.log
t disk-mq-queues-1 has "guest-vdb-queues: 1" /tmp/ro.log
t disk-ro-advertised has "guest-vda-ro: 1" /tmp/ro.log
t disk-ro-refuses-writes has "guest-ro-write-refused" /tmp/ro.log
t disk-ro-image-unchanged same_pattern /tmp/disk.img
t two-disks-ext4-read has "guest-vdb-marker: rvkvm-ext4-marker" /tmp/ro.log

./lkvm run $irqchip_args -k Image -i guest.cpio.gz -m 128 -c 1 -d /tmp/disk.img \
	</dev/null >/tmp/l1.log 2>&1 &
pid=$!
i=0
while ! grep -q "rvkvm-init" /tmp/l1.log && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
lkvm /tmp/l2.log -k Image -m 128 -c 1 -d /tmp/disk.img
t disk-locked-status [ $rc -eq 1 ]
t disk-locked-named has "/tmp/disk.img" /tmp/l2.log
kill -TERM $pid
wait $pid
# A qcow2 header in an image neither named .qcow2 nor given a format=
# (lkvm never takes the format from the contents: a raw disk's guest may
# have written it) is refused before the guest starts, with its format
# named; ,raw serves it as raw bytes all the same.
{ printf 'QFI\373\000\000\000\003'; dd if=/dev/zero bs=1k count=63 2>/dev/null; } >/tmp/q.img
lkvm /tmp/q.log -k Image -m 128 -c 1 -d /tmp/q.img
t qcow2-refused-status [ $rc -eq 1 ]
t qcow2-refused-named has "/tmp/q.img: starts like a qcow image" /tmp/q.log
t qcow2-refused-no-bare-convert lacks "convert -O raw" /tmp/q.log
lkvm /tmp/qr.log -k Image -i guest-disk-info.cpio.gz -m 128 -c 1 \
	-d /tmp/q.img,raw,ro
t qcow2-as-raw-status [ $rc -eq 0 ]
t qcow2-as-raw-served has "guest-vda-ro: 1" /tmp/qr.log
exit $fail
