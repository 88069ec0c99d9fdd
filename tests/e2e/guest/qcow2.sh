#!/bin/sh
# Guest side of lkvm-qcow2 (disks qemu-storage-daemon serves over
# vhost-user-blk).  qcow2test=rw on the command line: vda is a qcow2 over
# a backing file, vdb a qcow2 given with ,snapshot, vdc a VMDK read-only,
# vdd a VDI; each shows the base image's marker at sector 100, each
# writable one takes a pattern at sector 200 that reads back after the
# page cache is dropped, and vdc refuses a write.  qcow2test=kill: say so,
# then read a sector a second until a read fails (the host killed the
# daemon: lkvm fails the requests), then power off.
mode=$(sed -n 's/.*qcow2test=\([a-z]*\).*/\1/p' /proc/cmdline)
sector() {
	dd if="/dev/$1" bs=512 skip="$2" count=1 2>/dev/null | tr -dc 'A-Za-z0-9-'
}
if [ "$mode" = kill ]; then
	# The kernel's "I/O error" lines would land inside this script's on
	# the console (one port, two writers): errors only to the log.
	echo 1 >/proc/sys/kernel/printk
	echo "guest-qcow2-base-before-kill: $(sector vda 100)"
	echo "guest-qcow2-ready-for-kill"
	for i in $(seq 1 60); do
		sleep 1
		echo 3 >/proc/sys/vm/drop_caches
		if dd if=/dev/vda of=/dev/null bs=512 skip=$((1000 + i)) \
			count=1 2>/dev/null; then
			echo "guest-qcow2-read-ok-$i"
		else
			echo "guest-qcow2-read-error-$i"
			break
		fi
	done
	exit 0
fi
for d in vda vdb vdc vdd; do
	echo "guest-$d-size: $(cat /sys/block/$d/size)"
	echo "guest-$d-base: $(sector $d 100)"
done
echo "guest-vdc-ro: $(cat /sys/block/vdc/ro)"
for d in vda vdb vdd; do
	echo "WROTE-$d" | dd of=/dev/$d bs=512 seek=200 count=1 \
		conv=sync,fsync 2>/dev/null && echo "guest-$d-wrote"
done
echo x | dd of=/dev/vdc bs=512 seek=200 count=1 conv=sync,fsync \
	2>/dev/null || echo "guest-vdc-write-refused"
sync
echo 3 >/proc/sys/vm/drop_caches
for d in vda vdb vdd; do
	echo "guest-$d-readback: $(sector $d 200)"
done
exit 0
