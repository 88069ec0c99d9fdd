#!/bin/sh
# Runs in the emulated host (scripts/bench.sh): time from starting lkvm to
# the guest's init (3 runs each, 1 vCPU, 256 MiB) with "-p earlycon" and
# with "-p quiet", and lkvm's peak RSS.  Prints "BENCH name value unit".
now() {
	cut -d' ' -f1 /proc/uptime
}

boot_once() {
	params=$1
	shift
	rm -f /tmp/b.log
	start=$(now)
	./lkvm run -k Image -i guest-hello.cpio.gz -m 256 -c 1 -p "$params" \
		--debug "$@" </dev/null >/tmp/b.log 2>&1 &
	pid=$!
	i=0
	while ! grep -q "rvkvm-init: guest up" /tmp/b.log && [ $i -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	end=$(now)
	wait $pid
	awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f\n", e - s }'
}

for params in earlycon quiet; do
	times=
	for run in 1 2 3; do
		times="$times $(boot_once "$params")"
		rss=$(sed -n 's/.*peak RSS: \([0-9]*\) KiB.*/\1/p' /tmp/b.log)
		echo "BENCH boot-$params-run$run $(echo $times | awk '{print $NF}') s"
		echo "BENCH rss-$params-run$run $rss KiB"
	done
	median=$(echo $times | tr ' ' '\n' | sort -n | sed -n 2p)
	echo "BENCH boot-to-init-$params-median $median s"
done

# The same with a disk and virtio-rng on each transport (-p quiet).
dd if=/dev/zero of=/tmp/boot.img bs=1 count=0 seek=16M 2>/dev/null
for transport in pci mmio; do
	times=
	for run in 1 2 3; do
		times="$times $(boot_once quiet --rng -d /tmp/boot.img \
			--virtio-transport $transport)"
	done
	median=$(echo $times | tr ' ' '\n' | sort -n | sed -n 2p)
	echo "BENCH boot-to-init-$transport-disk-rng-median $median s"
done
