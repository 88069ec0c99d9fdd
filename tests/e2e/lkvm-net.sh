#!/bin/sh
# Runs in the emulated host: virtio-net over a tap.  lkvm gives a tap it
# creates 192.168.33.1/24 (script=none); ping both ways; a 2 MiB TCP
# transfer from guest to host whose checksum matches on both sides.  Then
# the same over a persistent tap the "user" made and configured: lkvm uses
# it as it is (kvmtool's tapif= rule), host_ip= does not land on it, and
# it is left as it was (in the plain case only).
. ./lib.sh

# net_run PREFIX LOG NETOPTS: boot the net guest with -n NETOPTS, ping it
# and fetch its blob while it serves, then tell it to power off.
net_run() {
	prefix=$1 nlog=$2
	rm -f /tmp/ctl
	mkfifo /tmp/ctl
	./lkvm run $irqchip_args -k Image -i guest-net.cpio.gz -m 128 -c 1 \
		-n "$3" </tmp/ctl >"$nlog" 2>&1 &
	pid=$!
	exec 3>/tmp/ctl
	i=0
	while ! grep -q guest-serving "$nlog" && [ $i -lt 900 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	ip addr show "$tap" >/tmp/tap-addr 2>&1
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
}

tap=lkvmtap0
net_run net /tmp/n.log mode=tap,tapif=lkvmtap0
t tap-has-host-ip grep -q "inet 192.168.33.1/24" /tmp/tap-addr

# The rest is about the tap, not the interrupt controller or transport:
# once, in the plain case.
[ -z "$irqchip_args" ] || exit $fail

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
