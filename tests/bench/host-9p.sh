#!/bin/sh
# Runs in the emulated host (scripts/bench.sh): 9p throughput of a guest
# writing and reading 32 MiB on a --9p share, lkvm on virtio-pci and on
# virtio-mmio, and kvmtool (./kvmtool, when bench.sh got KVMTOOL) with
# the same guest and share, alternating, two rounds (BENCH lines are
# prefixed r1-, r2-), with lkvm's exits to user space per run (--debug).
mkdir -p /tmp/share9p
run() {
	name=$1
	shift
	"$@" -k Image -i guest-guest-9p.cpio.gz -m 256 -c 1 \
		--9p /tmp/share9p,bench </dev/null >/tmp/9p-$name.log 2>&1
	tr -d '\r' </tmp/9p-$name.log | sed -n "s/^BENCH /BENCH $name-/p"
	sed -n "s/.*exits to user space: \([0-9]*\) MMIO.*/BENCH $name-mmio-exits \1 exits/p" \
		/tmp/9p-$name.log
	grep -q guest-9p-mount-failed /tmp/9p-$name.log && tail -20 /tmp/9p-$name.log
}
for r in 1 2; do
	run r$r-lkvm-pci ./lkvm run --debug
	run r$r-lkvm-mmio ./lkvm run --debug --virtio-transport mmio
	[ -x ./kvmtool ] && run r$r-kvmtool ./kvmtool run
done
exit 0
