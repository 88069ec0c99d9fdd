#!/bin/sh
# Runs in the emulated host: reboot, poweroff and halt typed in a guest
# (busybox's, which signal the guest's init) do what they say: reboot boots
# the guest again, poweroff and halt end lkvm with status 0.  The guest's
# init (guest-images/init.sh) is the host's too.
. ./lib.sh

# One lkvm: the guest is told "reboot" at its first boot, "poweroff" at its
# second.
mkfifo /tmp/ctl
(timeout 200 ./lkvm run $irqchip_args -k Image -i guest-shutdown.cpio.gz -m 128 -c 2 \
	</tmp/ctl >/tmp/sd.log 2>&1; echo $? >/tmp/sd.rc) &
exec 3>/tmp/ctl
boot=0
for cmd in reboot poweroff; do
	boot=$((boot + 1))
	i=0
	while [ "$(grep -c guest-shutdown-ready /tmp/sd.log)" -lt $boot ] &&
		[ $i -lt 150 ]; do
		sleep 1
		i=$((i + 1))
	done
	echo "$cmd" >&3
done
wait
exec 3>&-
sed 's/^/  | /' /tmp/sd.log
t reboot-asked has "guest-shutdown: reboot" /tmp/sd.log
t reboot-by-init has "Requesting system reboot" /tmp/sd.log
t reboot-lkvm-reset has "lkvm: guest reboot" /tmp/sd.log
t reboot-boots-again [ "$(grep -c 'rvkvm-init: guest up' /tmp/sd.log)" -eq 2 ]
t poweroff-asked has "guest-shutdown: poweroff" /tmp/sd.log
t poweroff-by-init has "Requesting system poweroff" /tmp/sd.log
t poweroff-shutdown-actions [ "$(grep -c 'rvkvm-init: guest going down' /tmp/sd.log)" -eq 2 ]
t poweroff-lkvm-says has "lkvm: guest powered off" /tmp/sd.log
t poweroff-status [ "$(cat /tmp/sd.rc)" = 0 ]
t reboot-poweroff-not-ignored lacks "still running" /tmp/sd.log

# halt: on RISC-V the kernel powers off for it too.
echo halt | timeout 120 ./lkvm run $irqchip_args -k Image -i guest-shutdown.cpio.gz \
	-m 128 -c 1 >/tmp/halt.log 2>&1
rc=$?
sed 's/^/  | /' /tmp/halt.log
t halt-asked has "guest-shutdown: halt" /tmp/halt.log
t halt-by-init has "Requesting system halt" /tmp/halt.log
t halt-lkvm-says has "lkvm: guest powered off" /tmp/halt.log
t halt-status [ $rc -eq 0 ]
t halt-not-ignored lacks "still running" /tmp/halt.log
exit $fail
