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

# lkvm LOG [ARGS...]: run "lkvm run ARGS" with a timeout and no input,
# console and messages to LOG (also shown, indented); status in $rc.
lkvm() {
	log=$1
	shift
	timeout "${LKVM_TIMEOUT:-120}" ./lkvm run $irqchip_args "$@" >"$log" 2>&1 </dev/null
	rc=$?
	sed 's/^/  | /' "$log"
	echo "  (lkvm exit status $rc)"
}

# has PATTERN LOG: the log (less the guest tty's carriage returns) matches.
has() {
	tr -d '\r' <"$2" | grep -q -- "$1"
}

# lacks PATTERN LOG: the log does not match.
lacks() {
	! has "$@"
}
