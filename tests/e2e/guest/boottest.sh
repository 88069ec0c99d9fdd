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
	# "deep" is suspend to RAM (SBI system suspend); without it "mem"
	# would be suspend to idle, which nothing here would wake.
	echo "boottest: sleep states: $(cat /sys/power/state 2>&1); mem: $(cat /sys/power/mem_sleep 2>&1)"
	if ! grep -q deep /sys/power/mem_sleep; then
		echo "boottest: no deep sleep"
	elif echo deep >/sys/power/mem_sleep && echo mem >/sys/power/state; then
		echo "boottest: resumed after the suspend"
	else
		echo "boottest: suspend failed"
	fi
	poweroff -f
	;;
esac
sleep 30
echo "boottest: still running"
