#!/bin/sh
# Runs in the emulated host, with bare-metal guests (bm-*.S): --timeout
# ends a guest hung with its interrupts off, one that never wrote a byte
# and one in a reboot loop, with status 124 and the console's last lines;
# --no-reboot ends a reboot loop at once; --console-log keeps all of a
# flood of console output 100 times in a row, half of them with stdout a
# pipe nobody reads; kvm-unit-tests' kvmtool command line runs a test
# image and its probe with a missing kernel gets kvmtool's words.
. ./lib.sh

bm() {
	log=$1
	shift
	lkvm "$log" --nodefaults -n mode=none --console hv -m 64 -c 1 "$@"
}

t0=$(uptime_s)
bm /tmp/hang.log -k bm-hang.Image --timeout 3
t1=$(uptime_s)
t timeout-hung-status-124 [ $rc -eq 124 ]
t timeout-hung-says has "lkvm: error: timed out after 3 s" /tmp/hang.log
t timeout-hung-console-tail has "lkvm: error: | bm-hang: interrupts off, spinning" /tmp/hang.log
t timeout-hung-in-time awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 30) }'

bm /tmp/spin.log -k bm-spin.Image --timeout 2
t timeout-silent-status-124 [ $rc -eq 124 ]
t timeout-silent-says has "the guest wrote nothing to its console" /tmp/spin.log

bm /tmp/loop.log -k bm-reboot.Image --timeout 4
t timeout-reboot-loop-status-124 [ $rc -eq 124 ]
t timeout-reboot-loop-rebooted [ "$(grep -c 'lkvm: guest reboot' /tmp/loop.log)" -ge 2 ]

bm /tmp/once.log -k bm-reboot.Image --no-reboot
t no-reboot-loop-status-6 [ $rc -eq 6 ]
t no-reboot-loop-one-boot [ "$(grep -c 'bm-reboot: boot' /tmp/once.log)" -eq 1 ]

bm /tmp/badlog.log -k bm-exit.Image --console-log /nonexistent/dir/c.log
t console-log-unwritable-status [ $rc -eq 1 ]
t console-log-unwritable-says has "lkvm: error: --console-log /nonexistent/dir/c.log: No such file or directory" /tmp/badlog.log

# The flood, 100 times: odd runs with stdout a pipe that nobody reads
# (it stays full), even runs with stdout a file.  The log file must be
# whole every time; a file stdout too.
awk 'BEGIN { for (i = 0; i < 12000; i++) printf "line %06d\n", i;
	print "bm-flood: last line" }' >/tmp/flood.want
want=$(md5sum </tmp/flood.want)
mkfifo /tmp/stalled
exec 4<>/tmp/stalled
ok=0 stdout_ok=0 stalled_drops=0
i=0
while [ $i -lt 100 ]; do
	i=$((i + 1))
	out=/tmp/flood.out
	[ $((i % 2)) -eq 1 ] && out=/tmp/stalled
	rm -f /tmp/flood.log /tmp/flood.out
	timeout 60 ./lkvm run $irqchip_args -k bm-flood.Image --nodefaults \
		-n mode=none --console hv -m 64 -c 1 \
		--console-log /tmp/flood.log >$out 2>/tmp/flood.err </dev/null
	r=$?
	if [ $r -eq 0 ] && [ "$(md5sum </tmp/flood.log)" = "$want" ]; then
		ok=$((ok + 1))
	else
		echo "  run $i: status $r, log $(wc -c </tmp/flood.log) bytes"
		sed 's/^/  | /' /tmp/flood.err
	fi
	if [ $out = /tmp/stalled ]; then
		grep -q "guest console output lost" /tmp/flood.err &&
			stalled_drops=$((stalled_drops + 1))
	elif [ "$(md5sum </tmp/flood.out)" = "$want" ]; then
		stdout_ok=$((stdout_ok + 1))
	fi
done
exec 4>&-
echo "  console log whole $ok of 100; file stdout whole $stdout_ok of 50; stdout stalled and dropping $stalled_drops of 50"
t console-log-whole-100-of-100 [ $ok -eq 100 ]
t console-log-stdout-file-whole [ $stdout_ok -eq 50 ]
t console-log-stdout-was-stalled [ $stalled_drops -eq 50 ]

# kvm-unit-tests' kvmtool runner (scripts/vmm.bash): its default options,
# --cpus, --params; the result is read from the console.
timeout 60 ./lkvm run --kernel bm-exit.Image --nodefaults --network mode=none \
	--loglevel=warning --cpus 2 --params "arg1 arg2" >/tmp/kut.log 2>&1 </dev/null
r=$?
sed 's/^/  | /' /tmp/kut.log
t kut-status-0 [ $r -eq 0 ]
t kut-result-line has "EXIT: STATUS=1" /tmp/kut.log
t kut-quiet-at-warning lacks "lkvm: " /tmp/kut.log
timeout 60 ./lkvm run --kernel _NO_FILE_4Uhere_ --nodefaults --network mode=none \
	--loglevel=warning >/tmp/kut-probe.log 2>&1 </dev/null
r=$?
sed 's/^/  | /' /tmp/kut-probe.log
t kut-probe-kvmtool-words has "Fatal: Unable to open kernel _NO_FILE_4Uhere_" /tmp/kut-probe.log
t kut-probe-status-1 [ $r -eq 1 ]

exit $fail
