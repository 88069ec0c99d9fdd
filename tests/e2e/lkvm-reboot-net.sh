#!/bin/sh
# Runs in the emulated host: guest boots (20, or the number in ./boots)
# in a row, each rebooting (SBI SRST) with a large disk read and tap
# traffic both ways in flight (the guest streams UDP at the host, the
# host pings the guest); lkvm survives every reset, the NIC works again
# after each, and lkvm exits 0 when the last boot powers off.
# A file ./netx holds more -n settings (",vhost=1": vhost-net serves the
# rings, and lkvm's --debug must name it).
. ./lib.sh
boots=$(cat ./boots 2>/dev/null || echo 20)
netx=$(cat ./netx 2>/dev/null)
case $netx in *vhost=1*) vhost=1 ;; *) vhost= ;; esac

dd if=/dev/zero of=/tmp/rnet.img bs=1 count=0 seek=256M 2>/dev/null
(
	while :; do
		ping -q -c 50 -i 0.1 -W 1 192.168.33.15 >/dev/null 2>&1
		sleep 0.5
	done
) &
pinger=$!
LKVM_TIMEOUT=900 lkvm /tmp/rnet.log -k Image -i guest-reboot-net.cpio.gz \
	-m 128 -c 2 -d /tmp/rnet.img -n "mode=tap,tapif=lkvmtap1$netx" \
	${vhost:+--debug} -p "rvkvm.boots=$boots"
kill $pinger 2>/dev/null
t reboot-net-status [ $rc -eq 0 ]
t reboot-net-all-resets has "lkvm: guest reboot ($((boots - 1)))" /tmp/rnet.log
t reboot-net-all-boots has "guest-reboot-net-boot: $boots" /tmp/rnet.log
# Each reboot had traffic both ways in that boot.
traffic() {
	tr -d '\r' </tmp/rnet.log |
		sed -n 's/.*guest-reboot-net-rebooting: tx \([0-9]*\) rx \([0-9]*\).*/\1 \2/p' |
		awk -v want=$((boots - 1)) '$1 >= 20 && $2 >= 20 { n++ } END { exit n != want }'
}
t reboot-net-traffic-in-flight traffic
t reboot-net-final-poweroff has "rvkvm-guest-result: 0" /tmp/rnet.log
[ -z "$vhost" ] ||
	t reboot-net-vhost-named has "served by vhost-net" /tmp/rnet.log
exit $fail
