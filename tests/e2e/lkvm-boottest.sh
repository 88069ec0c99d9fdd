#!/bin/sh
# Runs in the emulated host: what a boot-test CI relies on, with a Linux
# guest (guest/boottest.sh does what rvkvm.bt= says).  A panic ends lkvm
# with status 7 through the guest's pvpanic device, also with
# --no-reboot panic=-1; a reboot with --no-reboot ends it with status 6;
# a second -i is there; the last line before poweroff -f is on stdout and
# in --console-log's file, on every console type; an SBI system suspend
# lasts --suspend-seconds.
. ./lib.sh

bt() {
	log=$1
	shift
	lkvm "$log" -k Image -i guest-boottest.cpio.gz -m 128 -c 1 "$@"
}

bt /tmp/panic.log -p "rvkvm.bt=panic"
t panic-kernel-panicked has "Kernel panic - not syncing" /tmp/panic.log
t panic-pvpanic-seen has "guest kernel panic (reported by its pvpanic device)" /tmp/panic.log
t panic-status-7 [ $rc -eq 7 ]

bt /tmp/panic-nr.log --no-reboot -p "rvkvm.bt=panic panic=-1"
t panic-no-reboot-status-7 [ $rc -eq 7 ]
t panic-no-reboot-no-second-boot [ "$(grep -c 'rvkvm-init: guest up' /tmp/panic-nr.log)" -eq 1 ]

bt /tmp/reboot.log --no-reboot -p "rvkvm.bt=reboot"
t no-reboot-status-6 [ $rc -eq 6 ]
t no-reboot-says-why has "guest asked for a reboot (--no-reboot)" /tmp/reboot.log
t no-reboot-one-boot [ "$(grep -c 'rvkvm-init: guest up' /tmp/reboot.log)" -eq 1 ]
t no-reboot-no-restart lacks "lkvm: guest reboot" /tmp/reboot.log

# SBI system suspend: a host KVM from Linux 6.14 on forwards it, lkvm turns
# it on and the guest's "echo mem" sleeps --suspend-seconds, then goes on;
# --disable-sbi-susp takes deep sleep away.  An older host (6.12) has none:
# --suspend-seconds is an error there (1), naming why.
if host_at_least 6 14; then
	bt /tmp/susp.log --suspend-seconds 3 -p "rvkvm.bt=suspend"
	t suspend-status-0 [ $rc -eq 0 ]
	t suspend-guest-offers-deep grep -q "boottest: sleep states:.*mem.*deep" /tmp/susp.log
	t suspend-lkvm-suspends has "guest suspended (SBI system suspend): resuming in 3 s" /tmp/susp.log
	# The guest's own clock stops while it sleeps: lkvm's says how long.
	t suspend-lkvm-slept-3-s grep -Eq "guest resumes from system suspend after ([3-9]|[1-9][0-9])\.[0-9] s" /tmp/susp.log
	t suspend-guest-went-on has "boottest: resumed after the suspend" /tmp/susp.log

	bt /tmp/nosusp.log --disable-sbi-susp -p "rvkvm.bt=suspend"
	t suspend-disabled-status-0 [ $rc -eq 0 ]
	t suspend-disabled-no-deep has "boottest: no deep sleep" /tmp/nosusp.log
	t suspend-disabled-lkvm-quiet lacks "guest suspended" /tmp/nosusp.log

	lkvm /tmp/susp-off.log -k Image -m 64 --disable-sbi-susp --suspend-seconds 2
	t suspend-seconds-off-status-1 [ $rc -eq 1 ]
	t suspend-seconds-off-named has "SBI SUSP is off (--disable-sbi-susp)" /tmp/susp-off.log
else
	lkvm /tmp/susp.log -k Image -m 64 --suspend-seconds 2
	t suspend-seconds-status-1 [ $rc -eq 1 ]
	t suspend-seconds-named has "does not forward SBI system suspend" /tmp/susp.log
fi

# A sandbox whose command outlives --timeout: 124, not the 125 of a
# command that reported nothing.
sandbox /tmp/sbt.log --timeout 20 -- sh -c 'echo sandbox-sleeping; sleep 600'
t sandbox-timeout-status-124 [ $rc -eq 124 ]
t sandbox-timeout-says has "timed out after 20 s" /tmp/sbt.log

# Two initrds, the second an uncompressed cpio, concatenated.
lkvm /tmp/extra.log -k Image -i guest-boottest.cpio.gz -i extra.cpio -m 128 \
	-c 1 -p "rvkvm.bt=extra"
t two-initrds-second-seen has "boottest: the second initrd is here" /tmp/extra.log
t two-initrds-status [ $rc -eq 0 ]

# The last line before poweroff -f: on stdout and in the log file, on
# each console type (the serial one most, its driver sends from a buffer).
ok=0 runs=0
for c in serial serial serial serial virtio virtio virtio hv hv hv; do
	runs=$((runs + 1))
	rm -f /tmp/last.out /tmp/last.log
	timeout 120 ./lkvm run $irqchip_args -k Image -i guest-boottest.cpio.gz \
		-m 128 -c 1 --console $c -p "rvkvm.bt=last" \
		--console-log /tmp/last.log >/tmp/last.out 2>/tmp/last.err </dev/null
	r=$?
	if [ $r -eq 0 ] &&
		grep -q "boottest: the last line before poweroff" /tmp/last.out &&
		grep -q "boottest: the last line before poweroff" /tmp/last.log &&
		grep -q "rvkvm-init: guest up" /tmp/last.log; then
		ok=$((ok + 1))
	else
		echo "  last line lost on --console $c (status $r):"
		tail -5 /tmp/last.out /tmp/last.log /tmp/last.err | sed 's/^/  | /'
	fi
done
echo "  last line kept $ok of $runs times"
t last-line-on-stdout-and-log [ $ok -eq $runs ]
# The log holds what stdout got (the guest's whole console).
t console-log-whole cmp -s /tmp/last.out /tmp/last.log

exit $fail
