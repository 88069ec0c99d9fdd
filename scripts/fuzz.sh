#!/bin/bash
# fuzz.sh long FUZZER...: run each libFuzzer target for FUZZ_SECONDS
# (default 300) with its seed corpus; new inputs are kept in
# $RVKVM_CACHE/fuzz-corpus/<name>, crashes in build/fuzz/artifacts/.
#
# fuzz.sh campaign FUZZER...: run each target to FUZZ_RUNS executions
# (default 10 000 000), one process at a time, with the same corpora,
# within FUZZ_BUDGET seconds for all of them (default 3600): a target may
# take what is left of the budget divided by the targets still to run, so
# time a fast one did not need goes to the later ones (the fast ones go
# first).  Prints "target runs seconds result" for each: ok (FUZZ_RUNS
# reached), short (stopped at its share of the budget; no failure), FAIL
# (a crash, leak, timeout, out-of-memory or sanitizer report: see the log
# in build/fuzz/campaign/ and the input in build/fuzz/artifacts/).  Fails
# if any target failed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
mode=$1
shift
fail=0
mkdir -p "$RVKVM_BUILD/fuzz/artifacts"

long() {
	local f name work
	for f in "$@"; do
		name=${f##*/fuzz_}
		work=$RVKVM_CACHE/fuzz-corpus/$name
		mkdir -p "$work"
		stage "fuzz: $name for ${FUZZ_SECONDS:-300} s"
		"$f" -max_total_time="${FUZZ_SECONDS:-300}" \
			-artifact_prefix="$RVKVM_BUILD/fuzz/artifacts/$name-" \
			"$work" "$RVKVM_TOP/tests/fuzz/corpus/$name" 2>&1 |
			tail -3 || fail=1
		stage_done
	done
}

# The targets, fastest first (runs/s measured on one core).
FAST_FIRST="ctl vhost_user sbi usernet uart8250 cli virtio_mmio virtqueue balloon virtio_console pci 9p image plic net ctl_server blk"

order() {
	local n f
	for n in $FAST_FIRST; do
		for f in "$@"; do
			[ "${f##*/fuzz_}" = "$n" ] && echo "$f"
		done
	done
	for f in "$@"; do
		case " $FAST_FIRST " in
		*" ${f##*/fuzz_} "*) ;;
		*) echo "$f" ;;
		esac
	done
}

campaign() {
	local runs=${FUZZ_RUNS:-10000000} budget=${FUZZ_BUDGET:-3600}
	local logs=$RVKVM_BUILD/fuzz/campaign table f name work log t0 t1
	local left share rc ran result n=$# start
	mkdir -p "$logs"
	table=$(printf '%-16s %10s %8s  %s' target runs seconds result)
	start=$(date +%s)
	for f in $(order "$@"); do
		name=${f##*/fuzz_}
		work=$RVKVM_CACHE/fuzz-corpus/$name
		log=$logs/$name.log
		mkdir -p "$work"
		left=$((budget - ($(date +%s) - start)))
		share=$((left / n))
		[ "$share" -ge 10 ] || share=10
		n=$((n - 1))
		stage "fuzz campaign: $name, $runs runs or $share s"
		t0=$(date +%s)
		"$f" -runs="$runs" -max_total_time="$share" -timeout=30 \
			-print_final_stats=1 \
			-artifact_prefix="$RVKVM_BUILD/fuzz/artifacts/$name-" \
			"$work" "$RVKVM_TOP/tests/fuzz/corpus/$name" >"$log" 2>&1
		rc=$?
		t1=$(date +%s)
		ran=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		[ -n "$ran" ] || ran=$(grep -o '^#[0-9]*' "$log" | tail -1 |
			tr -d '#')
		if [ "$rc" -ne 0 ] || grep -q 'ERROR: \(AddressSanitizer\|LeakSanitizer\|UndefinedBehaviorSanitizer\|libFuzzer\)\|runtime error:' "$log"; then
			result="FAIL (exit $rc, see $log)"
			fail=1
		elif [ "${ran:-0}" -ge "$runs" ]; then
			result=ok
		else
			result="short ($((${ran:-0} / ((t1 - t0) ? (t1 - t0) : 1))) runs/s)"
		fi
		table+=$(printf '\n%-16s %10s %8s  %s' "$name" "${ran:-?}" \
			"$((t1 - t0))" "$result")
		stage_done "$result"
	done
	echo
	echo "$table"
}

case $mode in
long) long "$@" ;;
campaign) campaign "$@" ;;
*) die "usage: fuzz.sh long|campaign FUZZER..." ;;
esac
exit $fail
