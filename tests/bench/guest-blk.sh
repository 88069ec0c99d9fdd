#!/bin/sh
# Guest side of the block benchmark: 64 MiB written (with fsync) to and
# read back from /dev/vda.  Prints "BENCH name value unit".
now() {
	cut -d' ' -f1 /proc/uptime
}
rate() {
	awk -v s="$1" -v e="$2" 'BEGIN { printf "%.1f", 64 / (e - s) }'
}
t0=$(now)
dd if=/dev/zero of=/dev/vda bs=1M count=64 conv=fsync 2>/dev/null
t1=$(now)
echo 3 >/proc/sys/vm/drop_caches 2>/dev/null
dd if=/dev/vda of=/dev/null bs=1M count=64 2>/dev/null
t2=$(now)
echo "BENCH blk-write-64MiB-fsync $(rate "$t0" "$t1") MiB/s"
echo "BENCH blk-read-64MiB $(rate "$t1" "$t2") MiB/s"
