#!/bin/sh
# Runs in the emulated host (scripts/bench.sh): guest -> host TCP
# throughput, 16 MiB pushed by the guest with busybox nc to a busybox nc
# listening in the host, over lkvm's virtio-net with a tap, with lkvm's
# user-mode network (passt) and, if ./kvmtool is there, with kvmtool's
# user-mode network (its uip), in turns, 2 rounds.  Timed in the host from
# the first byte to the 16 MiB-th.  Prints "BENCH name value unit".
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
	t0= t1= i=0
	while [ $i -lt 6000 ] && kill -0 $pid 2>/dev/null; do
		s=$(size /tmp/sink)
		[ -z "$t0" ] && [ "$s" -gt 0 ] && t0=$(now)
		[ "$s" -ge 16777216 ] && { t1=$(now); break; }
		sleep 0.05
		i=$((i + 1))
	done
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
	if [ -n "$t1" ]; then
		awk -v s="$t0" -v e="$t1" -v n="$name" \
			'BEGIN { printf "BENCH tcp-guest-to-host-16MiB-%s %.2f MiB/s\n", n, 16 / (e - s) }'
	else
		echo "BENCH tcp-guest-to-host-16MiB-$name failed ($(size /tmp/sink) bytes)"
		tail -5 /tmp/net.log
	fi
}
img=guest-guest-net.cpio.gz
for round in 1 2; do
	run "lkvm-tap-r$round" ./lkvm run -k Image -i $img -m 256 -c 1 \
		-p rvkvm.net=static -n mode=tap,tapif=benchtap0
	run "lkvm-user-r$round" ./lkvm run -k Image -i $img -m 256 -c 1
	[ -x ./kvmtool ] && run "kvmtool-user-r$round" ./kvmtool run -k Image \
		-i $img -m 256 -c 1 --virtio-transport mmio -p console=ttyS0 \
		-n mode=user
done
exit 0
