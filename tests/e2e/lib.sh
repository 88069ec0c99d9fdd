# Helpers for host-side e2e scripts (busybox sh in the emulated host).
# t NAME CMD...: run CMD, print "PASS NAME" or "FAIL NAME".
fail=0
t() {
	name=$1
	shift
	if "$@"; then echo "PASS $name"; else echo "FAIL $name"; fail=1; fi
}

# The case may ask for an interrupt controller with a file ./irqchip
# holding lkvm options (e.g. "--irqchip aia"); every "./lkvm run" of the
# scripts passes $irqchip_args (unquoted: empty means lkvm's default).
irqchip_args=$(cat ./irqchip 2>/dev/null)

# The host's uptime in seconds (centiseconds after the point).
uptime_s() {
	cut -d' ' -f1 /proc/uptime
}

# lkvm_time T0 LOG: for scripts/check.sh's time table, the run that began
# at uptime T0 and wrote LOG: "rvkvm-time: lkvm WALL guest-boot B
# guest-uptime U": B the guests' kernel boot times (uptime at init, each
# boot), U the guest's uptime when it said it was done (-1: it booted more
# than once or did not say), so that WALL - U is lkvm's own start and stop.
lkvm_time() {
	tr -d '\r' <"$2" | awk -v t0="$1" -v t1="$(uptime_s)" '
		/rvkvm-init: guest up after / { boot += $5; boots++ }
		/rvkvm-init: guest (done|going down) after / { done = $(NF - 1) }
		END {
			printf "rvkvm-time: lkvm %.2f guest-boot %.2f guest-uptime %.2f\n",
				t1 - t0, boot, boots == 1 && done != "" ? done : -1
		}'
}

# lkvm LOG [ARGS...]: run "lkvm run ARGS" with a timeout and no input,
# console and messages to LOG (also shown, indented); status in $rc.
lkvm() {
	lkvm_cmd run "$@"
}

# lkvm_cmd COMMAND LOG [ARGS...]: lkvm() and sandbox() for "lkvm COMMAND".
lkvm_cmd() {
	cmd=$1
	log=$2
	shift 2
	t0=$(uptime_s)
	timeout "${LKVM_TIMEOUT:-120}" ./lkvm "$cmd" $irqchip_args "$@" \
		>"$log" 2>&1 </dev/null
	rc=$?
	sed 's/^/  | /' "$log"
	echo "  (lkvm exit status $rc)"
	lkvm_time "$t0" "$log"
}

# wait_for PATTERN LOG: until LOG matches PATTERN (at most 90 s).
wait_for() {
	i=0
	while ! grep -q -- "$1" "$2" && [ $i -lt 900 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# sandbox LOG [ARGS...]: "lkvm sandbox -k Image -m 128 -c 1 ARGS" as lkvm.
sandbox() {
	log=$1
	shift
	lkvm_cmd sandbox "$log" -k Image -m 128 -c 1 "$@"
}

# own_pidof NAME: the pids of the processes NAME in this case's network
# namespace (cases run side by side in one host, each in its own: a
# plain pidof would see the other case's).
own_pidof() {
	ns=$(readlink /proc/$$/ns/net)
	for p in $(pidof "$1"); do
		[ "$(readlink "/proc/$p/ns/net" 2>/dev/null)" = "$ns" ] &&
			printf '%s ' "$p"
	done
}

# has PATTERN LOG: the log (less the guest tty's carriage returns) matches.
has() {
	tr -d '\r' <"$2" | grep -q -- "$1"
}

# host_at_least MAJOR MINOR: the emulated host runs that Linux or newer
# (what its KVM forwards or offers depends on it).
host_at_least() {
	[ "$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')" -ge $(($1 * 1000 + $2)) ]
}

# lacks PATTERN LOG: the log does not match.
lacks() {
	! has "$@"
}

# kids PID: the pids whose parent is PID.
kids() {
	for s in /proc/[0-9]*/stat; do
		read -r p _ _ pp _ <"$s" 2>/dev/null || continue
		[ "$pp" = "$1" ] && echo "$p"
	done
}

# lkvm_wait PID LOG T0: the end of a "./lkvm run" started in the
# background at uptime T0 with its output in LOG, as lkvm(): status in
# $rc, the log shown indented.
lkvm_wait() {
	wait "$1"
	rc=$?
	sed 's/^/  | /' "$2"
	echo "  (lkvm exit status $rc)"
	lkvm_time "$3" "$2"
}
