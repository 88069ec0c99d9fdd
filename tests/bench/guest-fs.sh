#!/bin/sh
# Guest side of the file-sharing benchmark (tests/bench/host-fs.sh): on
# the share "bench", 9p (trans=virtio, 9p2000.L, the mount's default
# msize) or virtio-fs, as rvkvm.fs= of the command line says.  32 MiB
# written with dd bs=1M and fsync, the share remounted (no page cache of
# the file left in the guest), read back; then N empty files
# (rvkvm.fs_files=, 1000 by default) created by the shell (no process per
# file), the share remounted, stat'ed by one stat(1), removed by one rm.
# Timed in the guest (/proc/uptime, 10 ms steps).  Prints "BENCH name
# value unit" (the host script prefixes the VMM and round), or a line
# with "failed" instead of a value.
now() {
	cut -d' ' -f1 /proc/uptime
}
# rate AMOUNT T0 T1: AMOUNT per second.
rate() {
	awk -v n="$1" -v s="$2" -v e="$3" 'BEGIN { printf "%.1f", n / (e - s) }'
}
fs=$(sed -n 's/.*rvkvm\.fs=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
n=$(sed -n 's/.*rvkvm\.fs_files=\([0-9]*\).*/\1/p' /proc/cmdline)
n=${n:-1000}
mkdir -p /mnt/b
mnt() {
	case $fs in
	9p) mount -t 9p -o trans=virtio,version=9p2000.L bench /mnt/b ;;
	virtiofs) mount -t virtiofs bench /mnt/b ;;
	*) false ;;
	esac
}
remount() {
	umount /mnt/b && mnt
}
fail() {
	for m in seq-write-32MiB-fsync-MiB/s seq-read-32MiB-MiB/s \
		create-files/s stat-files/s unlink-files/s; do
		echo "BENCH c1-fs-$m failed ($1)"
	done
	exit 1
}
mnt || fail "mount -t $fs"
t0=$(now)
dd if=/dev/zero of=/mnt/b/f bs=1M count=32 conv=fsync 2>/dev/null || fail write
t1=$(now)
remount || fail remount
t2=$(now)
dd if=/mnt/b/f of=/dev/null bs=1M 2>/dev/null || fail read
t3=$(now)
[ "$(wc -c </mnt/b/f)" -eq 33554432 ] || fail "file size"
echo "BENCH c1-fs-seq-write-32MiB-fsync-MiB/s $(rate 32 "$t0" "$t1") MiB/s"
echo "BENCH c1-fs-seq-read-32MiB-MiB/s $(rate 32 "$t2" "$t3") MiB/s"
rm /mnt/b/f
mkdir /mnt/b/d || fail mkdir
t0=$(now)
i=0
while [ $i -lt "$n" ]; do
	: >/mnt/b/d/f$i || fail create
	i=$((i + 1))
done
t1=$(now)
remount || fail remount
t2=$(now)
[ "$(cd /mnt/b/d && stat -c %s -- * | wc -l)" -eq "$n" ] || fail stat
t3=$(now)
rm -r /mnt/b/d || fail unlink
t4=$(now)
[ ! -e /mnt/b/d ] || fail unlink
echo "BENCH c1-fs-create-files/s $(rate "$n" "$t0" "$t1") files/s"
echo "BENCH c1-fs-stat-files/s $(rate "$n" "$t2" "$t3") files/s"
echo "BENCH c1-fs-unlink-files/s $(rate "$n" "$t3" "$t4") files/s"
umount /mnt/b
