#!/bin/sh
# Guest side of lkvm-hvsock (lkvm --vsock 3,socket=PATH, served by lkvm
# over unix sockets): send 300 KiB to the host's echo server on PATH_P
# (CID 2, port P from rvkvm.vsockport=) and check the echo; in the first
# boot a connection to port P + 1, where nothing listens on the host, must
# be refused; then echo one connection the host makes to port 5000 + the
# boot count.  Reboot once (the device is reset, its connections gone)
# and do it again, then power off.  The disk's first byte is 2 once the
# first boot has begun.
n=1
[ "$(head -c 1 /dev/vda)" = 2 ] && n=2
printf 2 | dd of=/dev/vda conv=fsync 2>/dev/null
echo "guest-hvsock-boot: $n"
grep -qx 0x0013 /sys/bus/virtio/devices/*/device && echo "guest-hvsock-device-$n"
port=$(sed -n 's/.*rvkvm\.vsockport=\([0-9]*\).*/\1/p' /proc/cmdline)
/bin/vsock-peer sendn 2 "$port" 307200 && echo "guest-hvsock-g2h-ok-$n"
if [ "$n" -eq 1 ]; then
	/bin/vsock-peer refused 2 $((port + 1)) && echo "guest-hvsock-refused-ok"
fi
/bin/vsock-peer listen $((5000 + n)) 1 && echo "guest-hvsock-h2g-served-$n"
[ "$n" -ge 2 ] && exit 0
sleep 0.5
reboot -f
