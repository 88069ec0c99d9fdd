#!/bin/sh
# Runs in the emulated host as its test (scripts/check.sh boots one host
# for several e2e cases): the cases of batch/list, lines "NAME LANE".
# The "solo" cases run first, one at a time, alone in the host (their
# checks time things); then lanes "a" and "b" run side by side, each its
# cases in order, so that both of the host's harts have work while a
# case's guest has one vCPU or waits.  Each case runs in a directory of
# its own, /run/case/NAME, holding its script (./test), its --add files
# (fresh copies, listed in batch/NAME.files as "INDEX NAME" of
# batch/files/INDEX) and links to the shared files of /rvkvm (lkvm,
# Image, guest images); in mount and network namespaces of its own, with
# its own /tmp and only lo (so taps, addresses and /tmp paths of cases
# side by side never meet); under a timeout of batch/timeout seconds.
# When it ends, every process it started is killed.  Its output is
# printed when it ends, whole, between "rvkvm-case-begin: NAME" and
# "rvkvm-case-end: NAME STATUS SECONDS" (124: timed out).  The host
# kernel's messages below "critical" stay off the console while the cases
# run (one that a case causes would otherwise land inside the output of
# the case being printed, in the middle of a PASS line or a base64
# block); those of the batch's time are printed after the last case,
# each line prefixed "host-kernel: ".  Exits 0: the statuses are the
# cases'.
up() {
	cut -d' ' -f1 /proc/uptime
}

# The session of a /proc/PID/stat line (after "(comm)", which may hold
# spaces: state ppid pgrp session ...).
session_of() {
	sed 's/.*) //' "$1" 2>/dev/null | cut -d' ' -f4
}

# kill_session SID: SIGKILL every process of session SID, until none is left.
kill_session() {
	n=0
	while [ $n -lt 50 ]; do
		left=0
		for p in /proc/[0-9]*; do
			[ "$(session_of "$p/stat")" = "$1" ] || continue
			kill -KILL "${p#/proc/}" 2>/dev/null && left=1
		done
		[ $left -eq 0 ] && return
		sleep 0.1
		n=$((n + 1))
	done
}

# case_dir NAME: /run/case/NAME made from the batch; its path.
case_dir() {
	d=/run/case/$1
	mkdir -p "$d"
	cp batch/"$1".test "$d/test"
	while read -r idx name; do
		cp -a "batch/files/$idx" "$d/$name"
	done <"batch/$1.files"
	for f in /rvkvm/*; do
		[ "${f##*/}" = batch ] || [ -e "$d/${f##*/}" ] || ln -s "$f" "$d/"
	done
	echo "$d"
}

# run_case NAME: the case, its output printed whole when it ends.
run_case() {
	d=$(case_dir "$1")
	t0=$(up)
	# A session of its own (setsid), so that all it started can be
	# found and killed; its id is the shell's pid, written first.
	setsid unshare -m -n sh -c 'echo $$ >"$1/.sid"
		mount -t tmpfs tmpfs /tmp && ip link set lo up && cd "$1" &&
		exec timeout -s KILL "$2" ./test' sh "$d" "$limit" \
		>"$d.out" 2>&1 </dev/null
	st=$?
	[ $st -eq 137 ] && st=124
	kill_session "$(cat "$d/.sid")"
	echo 0 >/proc/sys/vm/nr_hugepages
	secs=$(echo "$(up) $t0" | awk '{ printf "%.1f", $1 - $2 }')
	# One case's output at a time on the console.
	until mkdir /run/print.lock 2>/dev/null; do sleep 0.1; done
	echo "rvkvm-case-begin: $1"
	cat "$d.out"
	echo "rvkvm-case-end: $1 $st $secs"
	rmdir /run/print.lock
	rm -rf "$d" "$d.out"
}

# run_lane LANE: the cases of LANE, in order.
run_lane() {
	while read -r name lane; do
		[ "$lane" = "$1" ] && run_case "$name"
	done <batch/list
}

cd /rvkvm || exit 1
limit=$(cat batch/timeout)
echo "rvkvm-batch: host up after $(up) s"
dmesg -n 3
booted=$(dmesg | wc -l)
run_lane solo
run_lane a &
run_lane b
wait
dmesg | tail -n +$((booted + 1)) | sed 's/^/host-kernel: /'
exit 0
