#!/bin/sh
# Guest side of lkvm-reboot-net: as reboot-io.sh (count this boot in the
# last sector of /dev/vda, reboot with a large disk read in flight), with
# tap traffic in flight as well: pings and a UDP stream to the host
# (answered by the host's ICMP port-unreachable), and the host's pings.
# Prints the interface counters just before each reboot.
ip link set eth0 up
ip addr add 192.168.33.15/24 dev eth0
last=$(($(cat /sys/block/vda/size) - 1))
n=$(dd if=/dev/vda bs=512 skip=$last count=1 2>/dev/null | tr -dc 0-9)
n=$((${n:-0} + 1))
echo "$n" | dd of=/dev/vda bs=512 seek=$last count=1 conv=sync,fsync 2>/dev/null
echo "guest-reboot-net-boot: $n"
# The boots to make: rvkvm.boots= on the command line (lkvm -p), or 20.
boots=$(sed -n 's/.*rvkvm\.boots=\([0-9]*\).*/\1/p' /proc/cmdline)
[ "$n" -ge "${boots:-20}" ] && exit 0
ping -q -i 0.02 192.168.33.1 >/dev/null 2>&1 &
(while :; do
	dd if=/dev/zero bs=1k count=4096 2>/dev/null | nc -u 192.168.33.1 9 2>/dev/null
	sleep 0.1
done) &
dd if=/dev/vda of=/dev/null bs=1M 2>/dev/null &
# Reboot once packets flow both ways (or after 10 s, and the host fails it:
# a NIC dead after the reset never gets there; a busy host may need more
# than a few seconds for the first 20 both ways; 19 reboots at 10 s stay
# well inside the case's time limit).
s=/sys/class/net/eth0/statistics
i=0
while [ $i -lt 100 ] && { [ "$(cat $s/tx_packets)" -lt 20 ] ||
	[ "$(cat $s/rx_packets)" -lt 20 ]; }; do
	sleep 0.1
	i=$((i + 1))
done
echo "guest-reboot-net-rebooting: tx $(cat $s/tx_packets) rx $(cat $s/rx_packets)"
# The UART sends a line after echo returns: let it out before the reset
# (the traffic and the read go on meanwhile).
sleep 0.5
reboot -f
