#!/bin/sh
# Guest side of the irqchip benchmark.  The host reads KVM's exit counters
# at "bench-start", "bench-mid" and "bench-end".  In the first part 32 MiB
# are written to /dev/vda with fsync and read back; in the second 64 KiB
# are read from the virtio-rng, one 64-byte request (and interrupt) at a
# time.  Prints "IO name value" lines for the host.
now() {
	cut -d' ' -f1 /proc/uptime
}
virtio_irqs() {
	grep -i virtio /proc/interrupts |
		awk '{ for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i }
		     END { print s + 0 }'
}
echo "bench-start"
sleep 2
i0=$(virtio_irqs)
t0=$(now)
dd if=/dev/urandom of=/tmp/blk bs=64k count=16 2>/dev/null
dd if=/dev/zero of=/dev/vda bs=1M count=32 conv=fsync 2>/dev/null
t1=$(now)
echo 3 >/proc/sys/vm/drop_caches 2>/dev/null
dd if=/dev/vda of=/dev/null bs=1M count=32 2>/dev/null
t2=$(now)
i1=$(virtio_irqs)
echo "bench-mid"
sleep 2
t2=$(now)
if [ -e /dev/hwrng ]; then
	dd if=/dev/hwrng of=/dev/null bs=64 count=1024 2>/dev/null
fi
t3=$(now)
i2=$(virtio_irqs)
echo "IO write-MiB/s $(awk -v s="$t0" -v e="$t1" 'BEGIN { printf "%.1f", 32 / (e - s) }')"
echo "IO read-MiB/s $(awk -v s="$t1" -v e="$t2" 'BEGIN { printf "%.1f", 32 / (e - s) }')"
echo "IO blk-irqs $((i1 - i0))"
echo "IO rng-irqs $((i2 - i1))"
echo "IO rng-us-per-irq $(awk -v s="$t2" -v e="$t3" -v n="$((i2 - i1))" 'BEGIN { if (n) printf "%.0f", (e - s) * 1e6 / n; else print 0 }')"
echo "bench-end"
sleep 2
