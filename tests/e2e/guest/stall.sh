#!/bin/sh
# Guest side of lkvm-stall.sh; rvkvm.stall=MODE on the command line says
# what to do:
#   flood      flood every console (ttyS0, the SBI console hvc0, the
#              virtio console hvc1), meanwhile write 512 KiB to /dev/vda
#              with fsync and read 512 KiB more, then put a marker with the data's
#              MD5 in sector 0 and power off (stdout is stalled: the host
#              checks the disk image)
#   floodhold  the same, then keep flooding until killed
#   busy       spin on both vCPUs
#   idle       sleep (the vCPUs wait in WFI)
#   disk       keep /dev/vda busy with reads and writes
#   reboot     reboot at once, every boot
mode=$(sed -n 's/.*rvkvm\.stall=\([a-z]*\).*/\1/p' /proc/cmdline)

# Big writes (cat of a 64 KiB file) on every console, on vCPU 1 (this
# script and its disk I/O keep vCPU 0: under nested TCG a flood of serial
# bytes, one exit each, would otherwise take most of the guest's time).
# Linux's virtio console driver waits for the host to return each hvc
# buffer spinning with interrupts off: lkvm holds it back only briefly,
# then drops.
flood() {
	yes guest-flood | head -c 65536 >/tmp/text
	taskset -p 1 $$ >/dev/null
	for t in hvc1 hvc0 ttyS0; do
		[ -c /dev/$t ] || continue
		taskset 2 sh -c "while :; do cat /tmp/text; done >/dev/$t" &
	done
}

disk_work() {
	dd if=/dev/urandom of=/tmp/data bs=64k count=8 2>/dev/null
	dd if=/tmp/data of=/dev/vda bs=64k seek=16 conv=fsync 2>/dev/null
	dd if=/dev/vda of=/dev/null bs=64k skip=64 count=8 2>/dev/null
	sum=$(md5sum </tmp/data | cut -c1-32)
	printf 'guest-stall-disk %s %s\n' "$1" "$sum" |
		dd of=/dev/vda bs=512 conv=sync,fsync 2>/dev/null
	echo "guest-stall-disk-done $1"
}

case "$mode" in
flood | floodhold)
	# Under nested TCG the consoles move about 25 KB/s: 8 s fill the
	# host's pipe (64 KiB) and lkvm's buffer (64 KiB).
	flood
	sleep 8
	disk_work "$mode"
	[ "$mode" = floodhold ] && sleep 600
	;;
busy)
	(while :; do :; done) &
	echo "guest-stall-busy"
	while :; do :; done
	;;
idle)
	echo "guest-stall-idle"
	sleep 600
	;;
disk)
	(while :; do dd if=/dev/vda of=/dev/null bs=1M 2>/dev/null; done) &
	(while :; do
		dd if=/dev/zero of=/dev/vda bs=1M count=4 seek=4 conv=fsync 2>/dev/null
	done) &
	sleep 1
	echo "guest-stall-disk-busy"
	sleep 600
	;;
reboot)
	echo "guest-stall-rebooting"
	reboot -f
	;;
esac
