#!/bin/sh
# Runs in the emulated host: --fs on Debian's virtiofsd (lkvm starts it)
# with the case's interrupt controller and transport (./irqchip): the
# guest reads a file the host wrote and writes one the host then reads,
# in two boots (a guest reboot between them), and a read-only share
# refuses a write; then virtiofsd is killed while the guest reads a
# large file from the share: one line in lkvm's log, the guest's later
# requests fail with ENOTCONN (lkvm answers them), lkvm and the guest go
# on and power off cleanly.
# virtiofsd not installed, a DIR that is no directory (status 1, one
# line each) and a bad tag (status 2) are refused.
. ./lib.sh


dd if=/dev/zero of=/tmp/f.img bs=1 count=0 seek=16M 2>/dev/null
mkdir -p /tmp/share /tmp/share-ro
echo "host-wrote-this" >/tmp/share/from-host.txt
# Sparse: 2 GiB the guest is still reading when virtiofsd is killed.
dd if=/dev/zero of=/tmp/share/big bs=1 count=0 seek=2G 2>/dev/null
echo "read-only-content" >/tmp/share-ro/ro.txt
t0=$(uptime_s)
timeout 200 ./lkvm run $irqchip_args -k Image -i guest-virtiofs.cpio.gz \
	-m 128 -c 2 -d /tmp/f.img --fs /tmp/share,hostdir \
	--fs /tmp/share-ro,rodir,ro </dev/null >/tmp/f.log 2>&1 &
pid=$!
wait_for "guest-fs-ready-for-kill" /tmp/f.log
# hostdir's virtiofsd (and any child it forked): lkvm's child with
# /tmp/share as its shared directory.
killed=
for l in $(kids $pid); do
	for v in $(kids $l); do
		tr '\0' ' ' <"/proc/$v/cmdline" 2>/dev/null |
			grep -q -- "--shared-dir=/tmp/share " || continue
		killed="$killed $(kids $v) $v"
	done
done
echo "  killing virtiofsd:$killed"
[ -n "$killed" ] && kill -9 $killed
lkvm_wait $pid /tmp/f.log "$t0"
t fs-status [ $rc -eq 0 ]
t fs-device-seen has "guest-fs-device-1" /tmp/f.log
t fs-mounted has "guest-fs-mounted-1" /tmp/f.log
t fs-guest-reads-host-file has "guest-fs-read-1: host-wrote-this" /tmp/f.log
t fs-host-reads-guest-file [ "$(cat /tmp/share/from-guest-1.txt)" = "from-guest-boot-1" ]
t fs-ro-readable has "guest-fs-ro-read-1: read-only-content" /tmp/f.log
t fs-ro-refuses-write has "guest-fs-ro-refused-1" /tmp/f.log
t fs-ro-nothing-written [ ! -e /tmp/share-ro/new.txt ]
t fs-rebooted has "lkvm: guest reboot (1)" /tmp/f.log
t fs-mounted-after-reboot has "guest-fs-mounted-2" /tmp/f.log
t fs-guest-reads-after-reboot has "guest-fs-read-2: host-wrote-this" /tmp/f.log
t fs-host-reads-after-reboot [ "$(cat /tmp/share/from-guest-2.txt)" = "from-guest-boot-2" ]
t fs-virtiofsd-killed [ -n "$killed" ]
t fs-death-one-line [ "$(grep -c "virtio-fs hostdir: virtiofsd" /tmp/f.log)" -eq 1 ]
t fs-death-says-so has "virtio-fs hostdir: virtiofsd .*lkvm fails its requests from now on, the guest keeps running" /tmp/f.log
t fs-only-error-line [ "$(grep -c "lkvm: error" /tmp/f.log)" -eq 1 ]
t fs-guest-goes-on has "guest-fs-alive-10" /tmp/f.log
t fs-later-requests-enotconn has "guest-fs-after-kill: not connected" /tmp/f.log
t fs-poweroff has "rvkvm-guest-result: 0" /tmp/f.log

# No virtiofsd (not on PATH, /usr/libexec hidden): one line, status 1.
mkdir -p /tmp/empty
unshare -m --propagation private sh -c \
	'mount -t tmpfs none /usr/libexec &&
	PATH=/tmp/empty exec timeout 60 ./lkvm run '"$irqchip_args"' -k Image \
		-i guest.cpio.gz -m 64 --fs /tmp/share,t' \
	</dev/null >/tmp/none.log 2>&1
none_rc=$?
sed 's/^/  none| /' /tmp/none.log
t fs-no-virtiofsd-status-1 [ "$none_rc" -eq 1 ]
t fs-no-virtiofsd-one-line [ "$(grep -c "lkvm: error" /tmp/none.log)" -eq 1 ]
t fs-no-virtiofsd-says-so has "virtiofsd is not installed" /tmp/none.log
LKVM_TIMEOUT=60 lkvm /tmp/nodir.log -k Image -i guest.cpio.gz -m 64 \
	--fs /tmp/share/from-host.txt,t
t fs-not-a-dir-status-1 [ "$rc" -eq 1 ]
t fs-not-a-dir-one-line [ "$(grep -c "lkvm: error" /tmp/nodir.log)" -eq 1 ]
t fs-not-a-dir-says-so has "not a directory" /tmp/nodir.log
LKVM_TIMEOUT=60 lkvm /tmp/badtag.log -k Image -i guest.cpio.gz -m 64 \
	--fs "/tmp/share,a b"
t fs-bad-tag-status-2 [ "$rc" -eq 2 ]
exit $fail
