#!/bin/sh
# Runs in the emulated host (scripts/bench.sh): the guest's block
# throughput (tests/bench/guest-blk.sh: 64 MiB written with fsync, then
# read) on a raw image lkvm serves and on a qcow2 image
# qemu-storage-daemon serves over vhost-user-blk, in turns, two rounds;
# the mean of each and qcow2's over raw.
dd if=/dev/zero of=/tmp/bench.raw bs=1 count=0 seek=80M 2>/dev/null
qemu-img create -q -f qcow2 /tmp/bench.qcow2 80M
for r in 1 2; do
	for kind in raw qcow2; do
		./lkvm run -k Image -i guest-guest-blk.cpio.gz -m 256 -c 1 \
			-d /tmp/bench.$kind </dev/null >/tmp/$kind.log 2>&1
		tr -d '\r' </tmp/$kind.log |
			sed -n "s/^BENCH blk-\([^ ]*\) \([0-9.]*\) .*/$kind \1 \2/p"
	done
done | awk '
	{ sum[$1, $2] += $3; n[$1, $2]++; if (!($2 in seen)) { seen[$2]; k[++nk] = $2 } }
	END {
		for (i = 1; i <= nk; i++) {
			x = k[i]
			r = sum["raw", x] / n["raw", x]; q = sum["qcow2", x] / n["qcow2", x]
			printf "BENCH raw-%s %.1f MiB/s\n", x, r
			printf "BENCH qcow2-qsd-%s %.1f MiB/s\n", x, q
			printf "BENCH qcow2-qsd/raw-%s %.2f x\n", x, (r > 0 ? q / r : 0)
		}
	}'
