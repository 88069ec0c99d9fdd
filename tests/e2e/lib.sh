# Helpers for host-side e2e scripts (busybox sh in the emulated host).
# t NAME CMD...: run CMD, print "PASS NAME" or "FAIL NAME".
fail=0
t() {
	name=$1
	shift
	if "$@"; then echo "PASS $name"; else echo "FAIL $name"; fail=1; fi
}

# lkvm LOG [ARGS...]: run "lkvm run ARGS" with a timeout and no input,
# console and messages to LOG (also shown, indented); status in $rc.
lkvm() {
	log=$1
	shift
	timeout "${LKVM_TIMEOUT:-120}" ./lkvm run "$@" >"$log" 2>&1 </dev/null
	rc=$?
	sed 's/^/  | /' "$log"
	echo "  (lkvm exit status $rc)"
}

# has PATTERN LOG: the log (less the guest tty's carriage returns) matches.
has() {
	tr -d '\r' <"$2" | grep -q -- "$1"
}
