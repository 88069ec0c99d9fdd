#!/bin/sh
# Guest side of lkvm-ctl.sh: touch most of RAM once (so the host has it
# mapped and a balloon can give it back), then print a counter with the
# memory the guest sees, once a second, until stopped.
dd if=/dev/zero of=/dev/null bs=128M count=1 2>/dev/null
echo "guest-ctl-balloon-driver: $(ls /sys/bus/virtio/drivers/virtio_balloon 2>/dev/null | grep -c '^virtio')"
dev=$(readlink -f /sys/bus/virtio/drivers/virtio_balloon/virtio* 2>/dev/null)
case "$dev" in
*/pci*) echo "guest-ctl-balloon-bus: pci" ;;
*) echo "guest-ctl-balloon-bus: mmio" ;;
esac
echo "guest-ctl-ready"
i=0
while :; do
	i=$((i + 1))
	total=$(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)
	avail=$(sed -n 's/^MemAvailable: *\([0-9]*\).*/\1/p' /proc/meminfo)
	echo "guest-tick $i total $total avail $avail"
	sleep 1
done
