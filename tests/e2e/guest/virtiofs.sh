#!/bin/sh
# Guest side of lkvm-virtiofs: mount the virtio-fs share "hostdir" (lkvm
# --fs, served by virtiofsd over vhost-user), read the file the host
# wrote, write one the host checks, and see that the read-only share
# "rodir" refuses a write; reboot once and do it again (the device was
# reset and its rings handed to virtiofsd afresh).  In the second boot,
# start reading a large file from the share, say so and keep running
# while the host kills virtiofsd: a later request fails with ENOTCONN;
# then power off.  The boot count is kept in the disk's last sector.
last=$(($(cat /sys/block/vda/size) - 1))
n=$(dd if=/dev/vda bs=512 skip=$last count=1 2>/dev/null | tr -dc 0-9)
n=$((${n:-0} + 1))
echo "$n" | dd of=/dev/vda bs=512 seek=$last count=1 conv=sync,fsync 2>/dev/null
echo "guest-fs-boot: $n"
grep -qx 0x001a /sys/bus/virtio/devices/*/device && echo "guest-fs-device-$n"
mkdir -p /mnt/fs /mnt/ro
mount -t virtiofs hostdir /mnt/fs && echo "guest-fs-mounted-$n"
echo "guest-fs-read-$n: $(cat /mnt/fs/from-host.txt)"
echo "from-guest-boot-$n" >/mnt/fs/from-guest-$n.txt && sync &&
	echo "guest-fs-wrote-$n"
umount /mnt/fs && echo "guest-fs-unmounted-$n"
if mount -t virtiofs rodir /mnt/ro; then
	echo "guest-fs-ro-read-$n: $(cat /mnt/ro/ro.txt)"
	echo x 2>/dev/null >/mnt/ro/new.txt || echo "guest-fs-ro-refused-$n"
	umount /mnt/ro
fi
if [ "$n" -lt 2 ]; then
	sleep 0.5
	reboot -f
fi
# A transfer under way when virtiofsd is killed: the guest's later
# requests fail with ENOTCONN (lkvm answers them), none waits for ever.
mount -t virtiofs hostdir /mnt/fs
dd if=/mnt/fs/big of=/dev/null bs=64k 2>/dev/null &
sleep 0.5
echo "guest-fs-ready-for-kill"
i=0
while [ $i -lt 60 ]; do
	i=$((i + 1))
	if ls "/mnt/fs/probe-$i" 2>&1 | grep -q "not connected"; then
		echo "guest-fs-after-kill: not connected"
		break
	fi
	sleep 0.5
done
for i in 1 2 3 4 5 6 7 8 9 10; do
	sleep 1
	echo "guest-fs-alive-$i"
done
exit 0
