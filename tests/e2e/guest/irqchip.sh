#!/bin/sh
# Guest side: which interrupt controllers the device tree gave us, and
# virtio interrupts really arriving (the rng, when there is one).
cat /proc/device-tree/soc/*/compatible | tr '\0' '\n' | while read -r c; do
	case "$c" in
	riscv,imsics) echo "guest-irqchip: imsics" ;;
	riscv,aplic) echo "guest-irqchip: aplic" ;;
	riscv,plic0) echo "guest-irqchip: plic" ;;
	esac
done
if [ -e /dev/hwrng ]; then
	dd if=/dev/hwrng of=/tmp/r bs=64 count=64 2>/dev/null
	echo "guest-rng-bytes: $(wc -c </tmp/r)"
fi
grep -i virtio /proc/interrupts
# The per-CPU counts of the virtio lines, summed.
n=$(grep -i virtio /proc/interrupts |
	awk '{ for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i }
	     END { print s + 0 }')
echo "guest-virtio-irqs: $n"
