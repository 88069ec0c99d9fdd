#!/bin/sh
# Runs in the emulated host (scripts/bench.sh): guest -> host TCP
# throughput over virtio-net and a tap (16 MiB over HTTP).
now() {
	cut -d' ' -f1 /proc/uptime
}
mkfifo /tmp/ctl
./lkvm run -k Image -i guest-guest-net.cpio.gz -m 256 -c 1 \
	-n mode=tap,tapif=benchtap0 </tmp/ctl >/tmp/net.log 2>&1 &
pid=$!
exec 3>/tmp/ctl
i=0
while ! grep -q guest-serving /tmp/net.log && [ $i -lt 900 ]; do
	sleep 0.1
	i=$((i + 1))
done
t0=$(now)
wget -q -O /tmp/blob http://192.168.33.15:8080/blob
t1=$(now)
echo go >&3
wait $pid
awk -v s="$t0" -v e="$t1" -v n="$(wc -c </tmp/blob)" \
	'BEGIN { printf "BENCH tcp-guest-to-host-16MiB %.1f MiB/s\n", n / 1048576 / (e - s) }'
