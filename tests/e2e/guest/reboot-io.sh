#!/bin/sh
# Guest side: count this boot in the last sector of /dev/vda, start a large
# read of the disk in the background and reboot (SBI SRST) while it is in
# flight; the last boot (rvkvm.boots=, default 20) ends the test (init
# then powers off).
last=$(($(cat /sys/block/vda/size) - 1))
n=$(dd if=/dev/vda bs=512 skip=$last count=1 2>/dev/null | tr -dc 0-9)
n=$((${n:-0} + 1))
echo "$n" | dd of=/dev/vda bs=512 seek=$last count=1 conv=sync,fsync 2>/dev/null
echo "guest-reboot-io-boot: $n"
# The boots to make: rvkvm.boots= on the command line (lkvm -p), or 20.
boots=$(sed -n 's/.*rvkvm\.boots=\([0-9]*\).*/\1/p' /proc/cmdline)
[ "$n" -ge "${boots:-20}" ] && exit 0
dd if=/dev/vda of=/dev/null bs=1M 2>/dev/null &
sleep 1
echo "guest-reboot-io-rebooting"
# The UART sends a line after echo returns: let it out before the reset.
sleep 0.5
reboot -f
