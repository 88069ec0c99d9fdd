#!/bin/busybox sh
# /init for rvkvm's host and guest initramfs (busybox).
#
# Mounts proc, sys, devtmpfs and tmpfs, brings up lo, then hands PID 1 to
# busybox init, which runs "/init session" once: the test script
# /rvkvm/test (printing "rvkvm-<role>-result: <status>" and powering off)
# or an interactive shell (powering off when it exits).  busybox init is
# what makes poweroff, reboot and halt work: they signal PID 1 (SIGUSR2,
# SIGTERM, SIGUSR1), and a shell as PID 1 would not act on the signal
# while it waits for the shell or the test in the foreground.  The role
# comes from "rvkvm.role=" on the kernel command line (default: guest), so
# nested runs keep their result markers apart.

# The console's last lines may still wait in the serial driver's buffer,
# going out as transmit interrupts come; poweroff -f would drop them (seen
# on a loaded host: the result line lost).  Wait until the serial ports'
# transmit counts stop moving (twice, 0.05 s apart), at most 3 s.
drain_console() {
	[ -r /proc/tty/driver/serial ] || return 0
	prev='' same=0 i=0
	while [ $same -lt 2 ] && [ $i -lt 60 ]; do
		cur=$(grep -o 'tx:[0-9]*' /proc/tty/driver/serial | tr '\n' ' ')
		if [ "$cur" = "$prev" ]; then same=$((same + 1)); else same=0; fi
		prev=$cur
		sleep 0.05
		i=$((i + 1))
	done
}

if [ "$1" = session ]; then
	role=$2
	if [ -x /rvkvm/test ]; then
		cd /rvkvm
		./test
		st=$?
		echo "rvkvm-init: $role done after $(cut -d' ' -f1 /proc/uptime) s"
		echo "rvkvm-$role-result: $st"
	else
		echo "rvkvm-init: shell; 'poweroff' or exit to leave"
		# cttyhack (run by init, below) made the console our
		# controlling tty: job control and Ctrl-C work in sh.
		sh -l
	fi
	drain_console
	sync
	poweroff -f
fi

/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mkdir -p /proc /sys /dev /tmp /run /etc
mount -t proc proc /proc

# The host moves its root from the initramfs (rootfs) to a tmpfs first:
# passt, lkvm's user-mode network, isolates itself with pivot_root(2),
# which a process whose root is the rootfs cannot do.  switch_root frees
# the initramfs copy and runs /init again on the tmpfs.
if grep -q "rvkvm.role=host" /proc/cmdline && [ ! -e /.rvkvm-tmpfs-root ]; then
	mkdir -p /newroot
	mount -t tmpfs -o mode=755 tmpfs /newroot
	for f in /*; do
		case "$f" in
		/proc | /newroot) mkdir -p "/newroot$f" ;;
		*) cp -a "$f" /newroot/ ;;
		esac
	done
	touch /newroot/.rvkvm-tmpfs-root
	umount /proc
	exec switch_root /newroot /init
fi
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
exec </dev/console >/dev/console 2>&1

# Since Linux 7.x the serial console is printed by a kernel thread
# ("pr/ttyS0", an nbcon console), and a console registered late in boot
# replays the whole boot log from there while init already runs: a line
# written now would land inside that replay, split by kernel lines.  Wait
# until every such thread has been seen asleep twice in a row, 0.1 s
# apart (caught up), at most 30 s.  Older kernels print synchronously and
# have no such thread: no wait.
console_threads() { # prints the states of the console threads
	for s in /proc/[0-9]*/stat; do
		read -r _ comm state _ 2>/dev/null <"$s" || continue
		case "$comm" in "(pr/"*) printf %s "$state" ;; esac
	done
}
i=0 idle=0
while st=$(console_threads) && [ -n "$st" ] && [ $idle -lt 2 ] && [ $i -lt 300 ]; do
	case "$st" in *[!S]*) idle=0 ;; *) idle=$((idle + 1)) ;; esac
	[ $idle -lt 2 ] && sleep 0.1
	i=$((i + 1))
done

role=guest root=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	rvkvm.role=*) role=${arg#rvkvm.role=} ;;
	rvkvm.root=*) root=${arg#rvkvm.root=} ;;
	esac
done

# A kernel with its drivers as modules (Debian's stock kernel: KVM, vhost
# and tun in the host; virtio-blk and ext4 in a guest): those named in
# /etc/modules, each with what it needs (modprobe reads modules.dep).
if [ -s /etc/modules ]; then
	for m in $(cat /etc/modules); do
		modprobe "$m" || echo "rvkvm-init: modprobe $m failed"
	done
	echo "rvkvm-init: modules loaded:" $(cut -d' ' -f1 /proc/modules)
fi

# rvkvm.root=DEV: the root is a disk (its driver a module loaded above):
# mount it and run its /init, once (there / is DEV).
if [ -n "$root" ] && [ "$(awk '$2 == "/" { print $1 }' /proc/mounts | tail -1)" != "$root" ]; then
	i=0
	while [ ! -b "$root" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	mkdir -p /newroot
	if mount "$root" /newroot; then
		umount /tmp /sys
		mount --move /dev /newroot/dev
		umount /proc
		exec switch_root /newroot /init
	fi
	echo "rvkvm-init: cannot mount the root $root"
fi
hostname "rvkvm-$role"
ip link set lo up

echo "rvkvm-init: $role up after $(cut -d' ' -f1 /proc/uptime) s: $(uname -sr), $(grep -c ^processor /proc/cpuinfo) cpu(s)"
# The shell gets the console (ttyS0, hvc0) as its controlling tty from
# cttyhack, which must run as a session leader: init starts it directly.
session="/init session $role"
[ -x /rvkvm/test ] || session="/bin/cttyhack $session"
# On poweroff, reboot or halt busybox init runs the shutdown actions, then
# stops every process (TERM, then KILL) and asks the kernel.
cat >/etc/inittab <<EOF
::once:$session
::shutdown:/bin/sh -c 'echo "rvkvm-init: $role going down after \$(cut -d" " -f1 /proc/uptime) s"'
EOF
exec /bin/busybox init
