#!/bin/sh
# Runs in the emulated host (scripts/bench.sh): the guest of
# tests/bench/guest-vsock.sh (16 MiB guest -> host, then 1-byte round
# trips, to vsock-peer's bench server in this host) over lkvm's --vsock on
# the host kernel's vhost-vsock ("lkvm"), over lkvm's own unix-socket
# back-end, --vsock CID,socket=PATH ("lkvm-hvsock": the guest's port P
# reaches the server on PATH_P through lkvm), and, when bench.sh added
# ./kvmtool, kvmtool's --vsock (vhost-vsock, "kvmtool"), in turns,
# rvkvm.bench_rounds= rounds; the guest sends rvkvm.vsock_mib= MiB
# (passed on to its command line).  1 vCPU, 256 MiB, no NIC, each VMM's
# default transport.
rounds=$(sed -n 's/.*rvkvm\.bench_rounds=\([1-9]\).*/\1/p' /proc/cmdline)
port=5001
mib=$(sed -n 's/.*rvkvm\.vsock_mib=\([0-9]*\).*/\1/p' /proc/cmdline)
params="rvkvm.vsockport=$port rvkvm.vsock_mib=${mib:-16}"
# run NAME SERVER-MODE ADDRESS VMM...: the server for the guest's two
# connections, then the VMM, whose guest prints the figures.
run() {
	name=$1
	mode=$2
	addr=$3
	shift 3
	rm -f /tmp/vb.sock /tmp/vb.sock_$port
	./vsock-peer "$mode" "$addr" 2 >/tmp/vsrv-$name.log 2>&1 &
	srv=$!
	i=0
	while ! grep -q "listening on" /tmp/vsrv-$name.log && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	timeout 240 "$@" -k Image -i guest-guest-vsock.cpio.gz -m 256 -c 1 \
		-n mode=none </dev/null >/tmp/vsock-$name.log 2>&1
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	tr -d '\r' </tmp/vsock-$name.log | sed -n "s/^BENCH /BENCH $name-/p" |
		grep . || {
		echo "BENCH $name-c1-vsock-run failed (no figures; the end of its log follows)"
		tail -20 /tmp/vsock-$name.log
		sed 's/^/  server| /' /tmp/vsrv-$name.log
	}
}
r=1
while [ $r -le "${rounds:-2}" ]; do
	run lkvm-r$r blisten $port ./lkvm run --vsock 3 \
		-p "$params"
	run lkvm-hvsock-r$r ublisten /tmp/vb.sock_$port ./lkvm run \
		--vsock 3,socket=/tmp/vb.sock -p "$params"
	[ -x ./kvmtool ] && run kvmtool-r$r blisten $port ./kvmtool run \
		--vsock 3 -p "console=ttyS0 $params"
	r=$((r + 1))
done
exit 0
