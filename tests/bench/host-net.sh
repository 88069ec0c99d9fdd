#!/bin/sh
# Runs in the emulated host (scripts/bench.sh): guest -> host TCP
# throughput, 16 MiB pushed by the guest with busybox nc to a busybox nc
# listening in the host, in turns, 3 rounds:
#   lkvm-tap          lkvm's virtio-net on a tap, frames through lkvm
#   lkvm-tap-vhost    the same tap with vhost=1: the host kernel's vhost-net
#   lkvm-user-socket  passt with vhost=0: frames through lkvm's socket
#   lkvm-user         the default NIC: passt over vhost-user where passt
#                     offers it (its own back-end on the guest's rings)
# and, if ./kvmtool is there, kvmtool on the tap with vhost=1
# (kvmtool-tap-vhost; the tap made persistent and set up beforehand, as
# kvmtool does not set up a tap named by tapif=) and kvmtool's user-mode
# network (its uip,
# kvmtool-user).  Timed in the host from the first byte to the last (the
# 16 MiB-th, or the last before the VMM exited).  Prints "BENCH name
# value unit".
now() {
	cut -d' ' -f1 /proc/uptime
}
size() {
	wc -c <"$1" 2>/dev/null || echo 0
}
run() {
	name=$1
	shift
	rm -f /tmp/sink /tmp/ncin
	# nc's stdin must not end (busybox nc quits at EOF on stdin).
	mkfifo /tmp/ncin
	nc -l -p 5001 </tmp/ncin >/tmp/sink 2>/dev/null &
	ncpid=$!
	exec 7>/tmp/ncin
	"$@" </dev/null >/tmp/net.log 2>&1 &
	pid=$!
	t0= t1= last=0 i=0
	while [ $i -lt 6000 ] && kill -0 $pid 2>/dev/null; do
		s=$(size /tmp/sink)
		[ -z "$t0" ] && [ "$s" -gt 0 ] && t0=$(now)
		[ "$s" -gt "$last" ] && { last=$s; t1=$(now); }
		[ "$s" -ge 16777216 ] && break
		sleep 0.05
		i=$((i + 1))
	done
	# A VMM may exit before its last bytes reach the host (kvmtool's uip
	# did, a few KiB short): the rate is what arrived over the time it
	# took, first byte to last.
	sleep 0.2
	s=$(size /tmp/sink)
	[ "$s" -gt "$last" ] && { last=$s; t1=$(now); }
	kill $ncpid 2>/dev/null
	exec 7>&-
	i=0
	while kill -0 $pid 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	wait $ncpid 2>/dev/null
	if [ "$last" -ge 16000000 ]; then
		awk -v s="$t0" -v e="$t1" -v n="$name" -v b="$last" \
			'BEGIN { printf "BENCH tcp-guest-to-host-16MiB-%s %.2f MiB/s\n", n, b / 1048576 / (e - s) }'
		[ "$last" -lt 16777216 ] &&
			echo "BENCH tcp-guest-to-host-16MiB-$name-bytes $last bytes"
	else
		echo "BENCH tcp-guest-to-host-16MiB-$name failed ($last bytes)"
		tail -5 /tmp/net.log
	fi
}
img=guest-guest-net.cpio.gz
tap=mode=tap,tapif=benchtap0
for round in 1 2 3; do
	run "lkvm-tap-r$round" ./lkvm run -k Image -i $img -m 256 -c 1 \
		-p rvkvm.net=static -n $tap
	run "lkvm-tap-vhost-r$round" ./lkvm run -k Image -i $img -m 256 -c 1 \
		-p rvkvm.net=static -n $tap,vhost=1
	# kvmtool leaves a tap named by tapif= as it finds it (down, without
	# an address, when it made it): it gets one made and set up as lkvm
	# sets up its own.
	if [ -x ./kvmtool ]; then
		tunctl -t benchtap0 >/dev/null
		ip addr add 192.168.33.1/24 dev benchtap0
		ip link set benchtap0 up
		run "kvmtool-tap-vhost-r$round" ./kvmtool run -k Image -i $img \
			-m 256 -c 1 -p "console=ttyS0 rvkvm.net=static" \
			-n $tap,vhost=1
		tunctl -d benchtap0 >/dev/null
	fi
	run "lkvm-user-socket-r$round" ./lkvm run -k Image -i $img -m 256 \
		-c 1 -n mode=user,vhost=0
	run "lkvm-user-r$round" ./lkvm run -k Image -i $img -m 256 -c 1
	[ -x ./kvmtool ] && run "kvmtool-user-r$round" ./kvmtool run -k Image \
		-i $img -m 256 -c 1 --virtio-transport mmio -p console=ttyS0 \
		-n mode=user
done
exit 0
