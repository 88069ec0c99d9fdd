#!/bin/sh
# Runs in the emulated host (scripts/bench.sh): the guest's block
# throughput on virtio-blk, and lkvm's exits to user space per MiB moved
# (a run doing 128 MiB of I/O minus a run that only boots).
exits() {
	sed -n 's/.*exits to user space: \([0-9]*\) MMIO, \([0-9]*\) SBI.*/\1 \2/p' "$1" |
		awk '{ print $1 + $2 }'
}
dd if=/dev/zero of=/tmp/bench.img bs=1 count=0 seek=80M 2>/dev/null
./lkvm run -k Image -i guest-hello.cpio.gz -m 256 -c 1 -d /tmp/bench.img \
	--debug </dev/null >/tmp/base.log 2>&1
./lkvm run -k Image -i guest-guest-blk.cpio.gz -m 256 -c 1 -d /tmp/bench.img \
	--debug </dev/null >/tmp/blk.log 2>&1
tr -d '\r' </tmp/blk.log | grep '^BENCH'
echo "BENCH exits-boot-only $(exits /tmp/base.log) MMIO+SBI"
echo "BENCH exits-boot-and-128MiB $(exits /tmp/blk.log) MMIO+SBI"
awk -v a="$(exits /tmp/base.log)" -v b="$(exits /tmp/blk.log)" \
	'BEGIN { printf "BENCH exits-per-MiB-blk %.1f MMIO+SBI\n", (b - a) / 128 }'
