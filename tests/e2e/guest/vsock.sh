#!/bin/sh
# Guest side of lkvm-vsock: over virtio-vsock (lkvm --vsock, served by
# the host kernel's vhost-vsock) send a line to the host's echo server
# (CID 2, port rvkvm.vsockport= of the command line) and check the echo,
# then echo one connection the host makes to port 5000 + the boot count;
# reboot once and do both again (the device was reset and handed to vhost
# afresh), then power off.  The boot count is kept in the disk's last
# sector.
last=$(($(cat /sys/block/vda/size) - 1))
n=$(dd if=/dev/vda bs=512 skip=$last count=1 2>/dev/null | tr -dc 0-9)
n=$((${n:-0} + 1))
echo "$n" | dd of=/dev/vda bs=512 seek=$last count=1 conv=sync,fsync 2>/dev/null
echo "guest-vsock-boot: $n"
grep -qx 0x0013 /sys/bus/virtio/devices/*/device && echo "guest-vsock-device-$n"
port=$(sed -n 's/.*rvkvm\.vsockport=\([0-9]*\).*/\1/p' /proc/cmdline)
/bin/vsock-peer send 2 "$port" "guest-to-host-$n" &&
	echo "guest-vsock-g2h-ok-$n"
/bin/vsock-peer listen $((5000 + n)) 1 && echo "guest-vsock-h2g-served-$n"
[ "$n" -ge 2 ] && exit 0
sleep 0.5
reboot -f
