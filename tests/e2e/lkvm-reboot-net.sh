#!/bin/sh
# Runs in the emulated host: 20 guest reboots (SBI SRST) in a row, each
# with a large disk read and tap traffic both ways in flight (the guest
# streams UDP at the host, the host pings the guest); lkvm survives every
# one, the NIC works again after each reset, and lkvm exits 0 when the
# 20th boot powers off.
. ./lib.sh

dd if=/dev/zero of=/tmp/rnet.img bs=1 count=0 seek=256M 2>/dev/null
(
	while :; do
		ping -q -c 50 -i 0.1 -W 1 192.168.33.15 >/dev/null 2>&1
		sleep 0.5
	done
) &
pinger=$!
LKVM_TIMEOUT=900 lkvm /tmp/rnet.log -k Image -i guest-reboot-net.cpio.gz \
	-m 128 -c 2 -d /tmp/rnet.img -n mode=tap,tapif=lkvmtap1
kill $pinger 2>/dev/null
t reboot-net-status [ $rc -eq 0 ]
t reboot-net-19-resets has "lkvm: guest reboot (19)" /tmp/rnet.log
t reboot-net-20-boots has "guest-reboot-net-boot: 20" /tmp/rnet.log
# Each of the 19 reboots had traffic both ways in that boot.
traffic() {
	tr -d '\r' </tmp/rnet.log |
		sed -n 's/.*guest-reboot-net-rebooting: tx \([0-9]*\) rx \([0-9]*\).*/\1 \2/p' |
		awk '$1 >= 20 && $2 >= 20 { n++ } END { exit n != 19 }'
}
t reboot-net-traffic-in-flight traffic
t reboot-net-final-poweroff has "rvkvm-guest-result: 0" /tmp/rnet.log
exit $fail
