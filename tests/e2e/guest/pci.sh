#!/bin/sh
# Guest side of lkvm-pci: what the guest's sysfs, device tree and
# /proc/interrupts say about its PCI devices, then use each device once.
for d in /sys/bus/pci/devices/*; do
	[ -e "$d/vendor" ] || continue
	drv=$(basename "$(readlink "$d/driver")" 2>/dev/null)
	echo "guest-pci: ${d##*/} vendor=$(cat "$d/vendor") device=$(cat "$d/device") class=$(cat "$d/class") driver=$drv"
done
echo "guest-pci-count: $(ls /sys/bus/pci/devices 2>/dev/null | wc -l)"
echo "guest-virtio-count: $(ls /sys/bus/virtio/devices 2>/dev/null | wc -l)"
for c in /proc/device-tree/soc/pci@*/compatible; do
	[ -e "$c" ] && echo "guest-pci-host: $(tr -d '\0' <"$c")"
done
if [ -e /dev/hwrng ]; then
	dd if=/dev/hwrng of=/tmp/r bs=64 count=16 2>/dev/null
	echo "guest-rng-bytes: $(wc -c </tmp/r)"
fi
if [ -e /dev/vda ]; then
	echo "guest-vda-bytes: $(dd if=/dev/vda bs=4k count=16 2>/dev/null | wc -c)"
fi
if ip link show eth0 >/dev/null 2>&1; then
	ip link set eth0 up
	ip addr add 192.168.33.15/24 dev eth0
	ping -c 2 -W 2 192.168.33.1 >/dev/null && echo "guest-ping-ok"
fi
grep -i -E 'virtio|msi' /proc/interrupts
n=$(grep -i virtio /proc/interrupts |
	awk '{ for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i }
	     END { print s + 0 }')
echo "guest-virtio-irqs: $n"
echo "guest-msi-lines: $(grep -c -i 'msi' /proc/interrupts)"
echo "guest-virtio-queue-vectors: $(grep -E 'virtio[0-9]+-' /proc/interrupts | grep -c -v -- '-config')"
