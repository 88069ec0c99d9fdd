#!/bin/sh
# Guest side of the 9p benchmark: 32 MiB written (with fsync) to a file on
# the 9p share "bench" and read back, with dd bs=1M, for the mount's
# default msize and for msize=512000.  Prints "BENCH name value unit";
# the host script prefixes the VMM.
now() {
	cut -d' ' -f1 /proc/uptime
}
rate() {
	awk -v s="$1" -v e="$2" 'BEGIN { printf "%.1f", 32 / (e - s) }'
}
mkdir -p /mnt/b
for opt in default 512000; do
	o=trans=virtio,version=9p2000.L
	[ $opt = default ] || o=$o,msize=$opt
	mount -t 9p -o $o bench /mnt/b || { echo "guest-9p-mount-failed"; exit 1; }
	t0=$(now)
	dd if=/dev/zero of=/mnt/b/f bs=1M count=32 conv=fsync 2>/dev/null
	t1=$(now)
	dd if=/mnt/b/f of=/dev/null bs=1M 2>/dev/null
	t2=$(now)
	echo "BENCH 9p-write-32MiB-fsync-msize-$opt $(rate "$t0" "$t1") MiB/s"
	echo "BENCH 9p-read-32MiB-msize-$opt $(rate "$t1" "$t2") MiB/s"
	rm /mnt/b/f
	umount /mnt/b
done
