#!/bin/busybox sh
# /init for rvkvm's host and guest initramfs (busybox).
#
# Mounts proc, sys, devtmpfs and tmpfs, brings up lo, then either runs the
# test script /rvkvm/test (printing "rvkvm-<role>-result: <status>" and
# powering off) or gives an interactive shell (powering off when it exits).
# The role comes from "rvkvm.role=" on the kernel command line (default:
# guest), so nested runs keep their result markers apart.

/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mkdir -p /proc /sys /dev /tmp /run
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
exec </dev/console >/dev/console 2>&1

role=guest
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	rvkvm.role=*) role=${arg#rvkvm.role=} ;;
	esac
done
hostname "rvkvm-$role"
ip link set lo up

echo "rvkvm-init: $role up: $(uname -sr), $(grep -c ^processor /proc/cpuinfo) cpu(s)"
if [ -x /rvkvm/test ]; then
	cd /rvkvm
	./test
	echo "rvkvm-$role-result: $?"
else
	echo "rvkvm-init: shell; 'poweroff' or exit to leave"
	setsid cttyhack sh -l
fi
sync
poweroff -f
