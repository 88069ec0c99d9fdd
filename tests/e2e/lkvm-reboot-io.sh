#!/bin/sh
# Runs in the emulated host: 20 guest reboots (SBI SRST) in a row, each
# while a large read of the disk is in flight; lkvm survives every one
# (guest RAM stays mapped, devices drain and reset) and exits 0 when the
# 20th boot powers off.
. ./lib.sh

dd if=/dev/zero of=/tmp/rio.img bs=1 count=0 seek=256M 2>/dev/null
LKVM_TIMEOUT=900 lkvm /tmp/rio.log -k Image -i guest-reboot-io.cpio.gz \
	-m 128 -c 2 -d /tmp/rio.img
t reboot-io-status [ $rc -eq 0 ]
t reboot-io-19-resets has "lkvm: guest reboot (19)" /tmp/rio.log
t reboot-io-20-boots has "guest-reboot-io-boot: 20" /tmp/rio.log
t reboot-io-read-in-flight [ "$(tr -d '\r' </tmp/rio.log |
	grep -c guest-reboot-io-rebooting)" -eq 19 ]
t reboot-io-final-poweroff has "rvkvm-guest-result: 0" /tmp/rio.log
exit $fail
