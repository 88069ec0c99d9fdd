#!/bin/sh
# Guest side of lkvm-hvsock (lkvm --vsock 3,socket=PATH, served by lkvm
# over unix sockets): send 300 KiB to the host's echo server on PATH_P
# (CID 2, port P from rvkvm.vsockport=) and check the echo; a connection
# to port P + 1, where nothing listens on the host, must be refused; then
# echo one connection the host makes to port 5001 (300 KiB both ways).
grep -qx 0x0013 /sys/bus/virtio/devices/*/device && echo "guest-hvsock-device"
port=$(sed -n 's/.*rvkvm\.vsockport=\([0-9]*\).*/\1/p' /proc/cmdline)
/bin/vsock-peer sendn 2 "$port" 307200 && echo "guest-hvsock-g2h-ok"
/bin/vsock-peer refused 2 $((port + 1)) && echo "guest-hvsock-refused-ok"
/bin/vsock-peer listen 5001 1 && echo "guest-hvsock-h2g-served"
