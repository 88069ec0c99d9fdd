#!/bin/sh
# Runs in the emulated host: guest boots (20, or the number in ./boots)
# in a row, each rebooting (SBI SRST) while a large read of the disk is in
# flight; lkvm survives every reset (guest RAM stays mapped, devices drain
# and reset) and exits 0 when the last boot powers off.  A host KVM that
# resets vCPUs on request (Linux 6.16+) has every reboot keep the VM; an
# older one has a new VM built each time.
. ./lib.sh
boots=$(cat ./boots 2>/dev/null || echo 20)

dd if=/dev/zero of=/tmp/rio.img bs=1 count=0 seek=256M 2>/dev/null
LKVM_TIMEOUT=900 lkvm /tmp/rio.log -k Image -i guest-reboot-io.cpio.gz \
	-m 128 -c 2 -d /tmp/rio.img -p "rvkvm.boots=$boots" --debug
t reboot-io-status [ $rc -eq 0 ]
t reboot-io-all-resets has "lkvm: guest reboot ($((boots - 1)))" /tmp/rio.log
t reboot-io-all-boots has "guest-reboot-io-boot: $boots" /tmp/rio.log
t reboot-io-read-in-flight [ "$(tr -d '\r' </tmp/rio.log |
	grep -c guest-reboot-io-rebooting)" -eq $((boots - 1)) ]
t reboot-io-final-poweroff has "rvkvm-guest-result: 0" /tmp/rio.log
if host_at_least 6 16; then
	way="the VM kept, its vCPUs reset by KVM"
else
	way="a new KVM VM built"
fi
t reboot-io-reset-way [ "$(tr -d '\r' </tmp/rio.log |
	grep -c "reboot: $way")" -eq $((boots - 1)) ]
exit $fail
