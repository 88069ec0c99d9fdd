#!/bin/sh
# Guest side of lkvm-boottest: what rvkvm.bt= on the command line says.
#   panic   panic the kernel (SysRq c)
#   reboot  reboot at once (reboot -f: SBI SRST reset)
#   last    write a last line to the console and power off at once
#   extra   show the file the second initrd (-i) brought, then power off
#   suspend suspend to RAM (SBI system suspend), say for how long, power off
what=$(sed -n 's/.*rvkvm\.bt=\([a-z]*\).*/\1/p' /proc/cmdline)
echo "boottest: $what"
case "$what" in
panic)
	echo c >/proc/sysrq-trigger
	;;
reboot)
	reboot -f
	;;
last)
	echo "boottest: the last line before poweroff"
	poweroff -f
	;;
extra)
	cat /boottest-extra.txt || echo "boottest: no second initrd"
	poweroff -f
	;;
suspend)
	echo "boottest: sleep states: $(cat /sys/power/state 2>&1)"
	t0=$(date +%s)
	if echo mem >/sys/power/state; then
		echo "boottest: resumed after $(($(date +%s) - t0)) s"
		echo "boottest: after the suspend"
	else
		echo "boottest: suspend failed"
	fi
	poweroff -f
	;;
esac
sleep 30
echo "boottest: still running"
