#!/bin/sh
# Runs in the emulated host (scripts/bench.sh): 9p throughput of a guest
# writing and reading 32 MiB on a --9p share, lkvm on virtio-pci and on
# virtio-mmio, and kvmtool (./kvmtool, when bench.sh got KVMTOOL) with
# the same guest and share.
mkdir -p /tmp/share9p
run() {
	name=$1
	shift
	"$@" -k Image -i guest-guest-9p.cpio.gz -m 256 -c 1 \
		--9p /tmp/share9p,bench </dev/null >/tmp/9p-$name.log 2>&1
	tr -d '\r' </tmp/9p-$name.log | sed -n "s/^BENCH /BENCH $name-/p"
	grep -q guest-9p-mount-failed /tmp/9p-$name.log && tail -20 /tmp/9p-$name.log
}
run lkvm-pci ./lkvm run
run lkvm-mmio ./lkvm run --virtio-transport mmio
[ -x ./kvmtool ] && run kvmtool ./kvmtool run
exit 0
