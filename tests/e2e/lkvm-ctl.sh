#!/bin/sh
# Runs in the emulated host: the control socket and the commands that use
# it.  'lkvm list' shows a running guest (-i) apart from kvmtool rootfs
# directories (-r); pause holds the guest (its counter stops) and resume
# lets it go on; debug -d prints the vCPU registers; balloon -i takes
# memory from the guest (MemTotal drops) and gives it back to the host
# (lkvm's RSS drops), stat -m reports it, -d returns it; stop ends lkvm
# with status 3; only the owner may talk to the socket; the socket of a
# killed lkvm is removed by 'lkvm list'; the threads are named for their
# role (lkvm-vcpu-N, lkvm-io, lkvm-ctl).
. ./lib.sh

export HOME=/tmp/home
mkdir -p $HOME
sock=$HOME/.lkvm/ctl-a.sock

# wait_for PATTERN LOG SECONDS
wait_for() {
	i=0
	while ! has "$1" "$2" && [ $i -lt "$3" ]; do
		sleep 1
		i=$((i + 1))
	done
	has "$1" "$2"
}

# The last whole counter line of the guest: "guest-tick N total KB avail
# KB" (the log's last line may be one the guest is still writing).
tick() {
	tr -d '\r' </tmp/a.log |
		grep -E '^guest-tick [0-9]+ total [0-9]+ avail [0-9]+$' | tail -1
}
field() { tick | cut -d' ' -f"$1"; }

./lkvm run $irqchip_args --name ctl-a -k Image -i guest-ctl.cpio.gz \
	-m 256 -c 2 --balloon </dev/null >/tmp/a.log 2>&1 &
apid=$!
t guest-up wait_for "guest-tick 3 " /tmp/a.log 200
t balloon-driver-bound has "guest-ctl-balloon-driver: 1" /tmp/a.log
case "$irqchip_args" in
*mmio*) bus=mmio ;;
*) bus=pci ;;
esac
t balloon-on-$bus has "guest-ctl-balloon-bus: $bus" /tmp/a.log

# The socket, and who may use it.
t dir-mode [ "$(stat -c %a $HOME/.lkvm)" = 700 ]
t sock-mode [ "$(stat -c %a $sock)" = 600 ]
t sock-is-socket [ -S $sock ]
./ctl-peer as 65534 ./ctl-peer ask $sock >/tmp/peer.log 2>&1
t other-user-refused [ $? -eq 0 ]
t other-user-refused-why has "refused at connect: Permission denied" /tmp/peer.log
cat /tmp/peer.log

# list
mkdir -p $HOME/.lkvm/rootfs-x
./lkvm list >/tmp/list.log 2>&1
t list-status [ $? -eq 0 ]
cat /tmp/list.log
t list-shows-guest grep -qE "^ *$apid ctl-a +running$" /tmp/list.log
t list-shows-rootfs grep -qE "rootfs-x +shut off$" /tmp/list.log
./lkvm list -i >/tmp/list-i.log 2>&1
t list-i-shows-guest has "ctl-a" /tmp/list-i.log
t list-i-no-rootfs lacks "rootfs-x" /tmp/list-i.log
./lkvm list -r >/tmp/list-r.log 2>&1
t list-r-no-guest lacks "ctl-a" /tmp/list-r.log
t list-r-shows-rootfs has "rootfs-x" /tmp/list-r.log

# The threads are named for their role, as top -H and ps -T show them.
cat /proc/$apid/task/*/comm >/tmp/comm.log
t thread-name-vcpu0 grep -qx lkvm-vcpu-0 /tmp/comm.log
t thread-name-vcpu1 grep -qx lkvm-vcpu-1 /tmp/comm.log
t thread-name-io grep -qx lkvm-io /tmp/comm.log
t thread-name-ctl grep -qx lkvm-ctl /tmp/comm.log

# pause / resume: the counter stops, then goes on.
./lkvm pause -n ctl-a >/tmp/pause.log 2>&1
t pause-status [ $? -eq 0 ]
t pause-says has "Guest ctl-a paused" /tmp/pause.log
./lkvm list -i >/tmp/list-p.log 2>&1
t list-shows-paused has "ctl-a  *paused" /tmp/list-p.log
sleep 2
n1=$(field 2)
sleep 5
n2=$(field 2)
echo "  paused: counter $n1, 5 s later $n2"
t pause-holds-guest [ "$n1" = "$n2" ]
# debug -d: registers as each vCPU stopped (the guest stays paused).
./lkvm debug -n ctl-a -d >/tmp/debug.log 2>&1
t debug-status [ $? -eq 0 ]
cat /tmp/debug.log
t debug-pc has "^ *pc 0x[0-9a-f]\{16\}" /tmp/debug.log
t debug-both-vcpus has "vCPU 1 " /tmp/debug.log
t debug-csrs has "sepc 0x" /tmp/debug.log
./lkvm resume -n ctl-a >/tmp/resume.log 2>&1
t resume-status [ $? -eq 0 ]
t resume-says has "Guest ctl-a resumed" /tmp/resume.log
sleep 5
n3=$(field 2)
echo "  resumed: counter $n3"
t resume-continues [ "$n3" -gt "$n2" ]
# debug -d of a running guest pauses it only for the dump.
./lkvm debug -n ctl-a -d >/tmp/debug2.log 2>&1
t debug-running-pc has "pc 0x" /tmp/debug2.log
./lkvm list -i >/tmp/list-r2.log 2>&1
t debug-leaves-running has "ctl-a  *running" /tmp/list-r2.log

# balloon: 64 MiB out of the guest and back to the host.
total1=$(field 4)
rss1=$(awk '/^VmRSS:/ { print $2 }' /proc/$apid/status)
./lkvm balloon -n ctl-a -i 64 >/tmp/bal.log 2>&1
t balloon-inflate-status [ $? -eq 0 ]
i=0
while [ $((total1 - $(field 4))) -lt 61440 ] && [ $i -lt 60 ]; do
	sleep 1
	i=$((i + 1))
done
total2=$(field 4)
rss2=$(awk '/^VmRSS:/ { print $2 }' /proc/$apid/status)
echo "  MemTotal $total1 -> $total2 kB; lkvm VmRSS $rss1 -> $rss2 kB"
t balloon-guest-memtotal-drops [ $((total1 - total2)) -ge 61440 ]
t balloon-host-rss-drops [ $((rss1 - rss2)) -ge 32768 ]
# The guest may still be giving the last MiB: ask until it holds 64.
i=0
while :; do
	./lkvm stat -n ctl-a -m >/tmp/stat.log 2>&1
	st=$?
	has "held by the guest: 64 MiB" /tmp/stat.log || [ $i -ge 30 ] || {
		sleep 1
		i=$((i + 1))
		continue
	}
	break
done
t stat-status [ $st -eq 0 ]
cat /tmp/stat.log
t stat-target has "balloon target: 64 MiB, held by the guest: 64 MiB" /tmp/stat.log
t stat-guest-stats has "total memory: [0-9]* KiB" /tmp/stat.log
./lkvm balloon -n ctl-a -d 1000 >/tmp/bal-bad.log 2>&1
t balloon-range-status [ $? -eq 1 ]
cat /tmp/bal-bad.log
./lkvm balloon -n ctl-a -d 64 >/tmp/bal-d.log 2>&1
t balloon-deflate-status [ $? -eq 0 ]
i=0
while [ "$(field 4)" -lt "$total1" ] && [ $i -lt 60 ]; do
	sleep 1
	i=$((i + 1))
done
t balloon-deflate-returns [ "$(field 4)" -eq "$total1" ]

# Bad uses: one line, status 1 (no such guest) or 2 (usage).
./lkvm pause -n no-such >/tmp/nosuch.log 2>&1
t no-such-guest-status [ $? -eq 1 ]
t no-such-guest-says has "no running guest named 'no-such'" /tmp/nosuch.log
./lkvm balloon -n ctl-a >/tmp/usage.log 2>&1
t balloon-usage-status [ $? -eq 2 ]
./lkvm stop >/tmp/usage2.log 2>&1
t stop-usage-status [ $? -eq 2 ]

# stop (of a paused guest): lkvm run exits with 3 and removes its socket.
./lkvm pause -a >/tmp/pause-a.log 2>&1
t pause-all has "Guest ctl-a paused" /tmp/pause-a.log
./lkvm stop -n ctl-a >/tmp/stop.log 2>&1
t stop-status [ $? -eq 0 ]
wait $apid
rc=$?
t stop-run-status [ $rc -eq 3 ]
t stop-says-why has "stopped by 'lkvm stop'" /tmp/a.log
t stop-removes-socket [ ! -e $sock ]

# Owned by another user: lkvm run as uid 65534; root's connection is
# refused by lkvm itself (SO_PEERCRED), as the mode bits do not stop root.
chmod 666 /dev/kvm
mkdir -p /tmp/nobody && chown 65534:65534 /tmp/nobody
HOME=/tmp/nobody ./ctl-peer as 65534 ./lkvm run $irqchip_args --name ctl-b \
	-k Image -i guest-ctl.cpio.gz -m 128 -c 1 </dev/null >/tmp/b.log 2>&1 &
bpid=$!
t nobody-guest-up wait_for "guest-ctl-ready" /tmp/b.log 200
./ctl-peer ask /tmp/nobody/.lkvm/ctl-b.sock >/tmp/peer2.log 2>&1
t root-refused-by-peercred [ $? -eq 0 ]
t root-refused-by-peercred-why has "refused by lkvm" /tmp/peer2.log
cat /tmp/peer2.log
HOME=/tmp/nobody ./ctl-peer as 65534 ./lkvm list -i >/tmp/list-b.log 2>&1
t owner-lists-guest has "ctl-b  *running" /tmp/list-b.log
HOME=/tmp/nobody ./ctl-peer as 65534 ./lkvm stat -n ctl-b -m >/tmp/nob.log 2>&1
t no-balloon-stat-status [ $? -eq 1 ]
t no-balloon-stat-says has "no balloon (run the guest with --balloon)" /tmp/nob.log

# A killed lkvm leaves its socket; 'lkvm list' removes it.
kill -9 $bpid
wait $bpid
t stale-socket-left [ -S /tmp/nobody/.lkvm/ctl-b.sock ]
HOME=/tmp/nobody ./ctl-peer as 65534 ./lkvm list >/tmp/list-s.log 2>&1
rc=$?
cat /tmp/list-s.log
t stale-list-status [ $rc -eq 0 ]
t stale-removed [ ! -e /tmp/nobody/.lkvm/ctl-b.sock ]
t stale-said has "ctl-b: removed the stale socket" /tmp/list-s.log
t stale-not-listed lacks "ctl-b  *running" /tmp/list-s.log

sed 's/^/  a| /' /tmp/a.log | tail -40
exit $fail
