#!/bin/sh
# Runs in the emulated host: virtio-net over a tap.  lkvm gives a tap it
# creates 192.168.33.1/24 (script=none); ping both ways; a 2 MiB TCP
# transfer from guest to host whose checksum matches on both sides.  Then
# the same over a persistent tap the "user" made and configured: lkvm uses
# it as it is (kvmtool's tapif= rule), host_ip= does not land on it, and
# it is left as it was (in the plain case only).  A file ./netx holds
# more -n settings for every run (",vhost=1": the host kernel's vhost-net
# serves the rings; then lkvm runs with --debug, which names it, the
# kernel's vhost-PID thread must exist, and a host without /dev/vhost-net
# must refuse to start).
. ./lib.sh
netx=$(cat ./netx 2>/dev/null)
case $netx in *vhost=1*) vhost=1 ;; *) vhost= ;; esac

# net_run PREFIX LOG NETOPTS: boot the net guest with -n NETOPTS, ping it
# and fetch its blob while it serves, then tell it to power off.
net_run() {
	prefix=$1 nlog=$2
	rm -f /tmp/ctl
	mkfifo /tmp/ctl
	./lkvm run $irqchip_args ${vhost:+--debug} -k Image \
		-i guest-net.cpio.gz -m 128 -c 1 -n "$3$netx" \
		</tmp/ctl >"$nlog" 2>&1 &
	pid=$!
	exec 3>/tmp/ctl
	i=0
	while ! grep -q guest-serving "$nlog" && [ $i -lt 900 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	ip addr show "$tap" >/tmp/tap-addr 2>&1
	# vhost-net's worker: a kernel thread, or a thread of lkvm's.
	cat /proc/[0-9]*/comm /proc/$pid/task/*/comm 2>/dev/null |
		grep -x "vhost-$pid" >/tmp/vhost-thread
	t $prefix-host-ping-guest ping -c 3 -W 2 192.168.33.15
	rm -f /tmp/blob
	wget -q -O /tmp/blob http://192.168.33.15:8080/blob
	host_md5=$(md5sum /tmp/blob | cut -d' ' -f1)
	echo "host-blob-md5: $host_md5 ($(wc -c </tmp/blob) bytes)"
	echo go >&3
	wait $pid
	rc=$?
	exec 3>&-
	sed 's/^/  | /' "$nlog"
	t $prefix-status [ $rc -eq 0 ]
	t $prefix-guest-ping-host has "guest-ping-ok" "$nlog"
	t $prefix-tcp-transfer-size [ "$(wc -c </tmp/blob)" -eq 2097152 ]
	t $prefix-tcp-transfer-checksum has "guest-blob-md5: $host_md5" "$nlog"
	[ -z "$vhost" ] && return
	t $prefix-vhost-named has "served by vhost-net" "$nlog"
	t $prefix-vhost-thread [ -s /tmp/vhost-thread ]
}

tap=lkvmtap0
net_run net /tmp/n.log mode=tap,tapif=lkvmtap0
t tap-has-host-ip grep -q "inet 192.168.33.1/24" /tmp/tap-addr

# The rest is about the tap, not the interrupt controller or transport:
# once, in the plain case.
[ -z "$irqchip_args" ] || exit $fail

# vhost=1 on a host without /dev/vhost-net: one line, status 1.
if [ -n "$vhost" ]; then
	mv /dev/vhost-net /dev/vhost-net.away
	./lkvm run -k Image -i guest-net.cpio.gz -m 128 -c 1 \
		-n "mode=tap,tapif=lkvmtap0$netx" </dev/null >/tmp/nv.log 2>&1
	rc=$?
	mv /dev/vhost-net.away /dev/vhost-net
	sed 's/^/  | /' /tmp/nv.log
	t vhost-missing-status [ $rc -eq 1 ]
	t vhost-missing-said has "has no /dev/vhost-net" /tmp/nv.log
fi

# The user's own tap: persistent, 192.168.33.1/24, up.  host_ip= asks for
# another address, which lkvm must not set on a tap it did not create.
tap=lkvmtap9
tunctl -t lkvmtap9 >/dev/null
ip addr add 192.168.33.1/24 dev lkvmtap9
ip link set lkvmtap9 up
net_run own-tap /tmp/n9.log mode=tap,tapif=lkvmtap9,host_ip=192.168.33.77
t own-tap-address-kept grep -q "inet 192.168.33.1/24" /tmp/tap-addr
t own-tap-no-host-ip sh -c '! grep -q 192.168.33.77 /tmp/tap-addr'
tunctl -d lkvmtap9 >/dev/null
exit $fail
