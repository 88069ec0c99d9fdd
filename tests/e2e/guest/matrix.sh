#!/bin/sh
# Guest side of lkvm-matrix: every device kind whose interrupts lkvm
# delivers, in one boot: the serial console's input (the UART), virtio-blk
# (a write read back past the page cache), virtio-net (ping the host over
# the tap), virtio-rng, virtio-9p and the balloon's driver; then a reboot,
# and the second boot uses the disk, the NIC and the console input again
# (devices reset, interrupts still delivered) and powers off.  The boot
# count is kept in the disk's last sector.
last=$(($(cat /sys/block/vda/size) - 1))
n=$(dd if=/dev/vda bs=512 skip=$last count=1 2>/dev/null | tr -dc 0-9)
n=$((${n:-0} + 1))
echo "$n" | dd of=/dev/vda bs=512 seek=$last count=1 conv=sync,fsync 2>/dev/null
echo "guest-matrix-boot: $n, harts $(cat /sys/devices/system/cpu/online)"
read -r line
echo "guest-matrix-stdin-$n: $line"
dd if=/dev/urandom of=/tmp/w bs=64k count=16 2>/dev/null
dd if=/tmp/w of=/dev/vda bs=64k conv=fsync 2>/dev/null
echo 3 >/proc/sys/vm/drop_caches
if [ "$(dd if=/dev/vda bs=64k count=16 2>/dev/null | md5sum)" = "$(md5sum </tmp/w)" ]; then
	echo "guest-matrix-blk-ok-$n"
fi
ip link set eth0 up
ip addr add 192.168.33.15/24 dev eth0
ping -c 3 -W 5 192.168.33.1 >/dev/null && echo "guest-matrix-net-ok-$n"
if [ "$n" -eq 1 ]; then
	[ "$(dd if=/dev/hwrng bs=64 count=1 2>/dev/null | wc -c)" -eq 64 ] &&
		echo "guest-matrix-rng-ok"
	mkdir -p /mnt
	mount -t 9p -o trans=virtio,version=9p2000.L share /mnt &&
		echo "guest-matrix-9p-read: $(cat /mnt/fromhost.txt)" &&
		echo guest-to-host >/mnt/fromguest.txt && umount /mnt &&
		echo "guest-matrix-9p-ok"
	ls /sys/bus/virtio/drivers/virtio_balloon 2>/dev/null | grep -q '^virtio' &&
		echo "guest-matrix-balloon-bound"
	echo "guest-matrix-rebooting"
	sleep 0.5
	reboot -f
fi
