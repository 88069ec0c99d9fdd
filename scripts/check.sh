#!/bin/bash
# check.sh [SUITE...]: run the test suites and count every test.
# Suites: scripts (kernel build machinery on fixtures, image recipes), unit (native cmocka
# under ASan+UBSan), fuzz (short libFuzzer runs), e2e (boots in the emulated
# host).  Default: all.  Ends with "N passed, N failed"; exit 1 on failure.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RVKVM_TOP"

results=$RVKVM_BUILD/check/results
logs=$RVKVM_BUILD/check/logs
rm -rf "$RVKVM_BUILD/check"
mkdir -p "$logs"
: >"$results"

# record STATUS NAME [DETAIL]
record() {
	echo "$1 $2" >>"$results"
	[ "$1" = PASS ] || echo "  FAIL $2${3:+ ($3)}"
}

# Turn "PASS x" / "FAIL x" lines of a log into results under PREFIX; print
# how many there were.
collect() {
	local prefix=$1 log=$2
	sed -n 's/^\(PASS\|FAIL\) \([^ :]*\).*/\1 \2/p' "$log" |
		while read -r st name; do record "$st" "$prefix/$name"; done
	grep -cE '^(PASS|FAIL) ' "$log"
}

suite_scripts() {
	stage "check: kernel build machinery and image recipes"
	tests/kernel/test-kernel-scripts.sh >"$logs/scripts.log" 2>&1
	collect scripts "$logs/scripts.log" >/dev/null
	tests/images/test-images.sh >"$logs/images.log" 2>&1
	collect images "$logs/images.log" >/dev/null
	stage_done
}

suite_unit() {
	local t name log
	stage "check: unit tests (native, ASan+UBSan)"
	for t in "$RVKVM_BUILD"/native/test_*; do
		[ -x "$t" ] || continue
		name=${t##*/test_}
		log=$logs/unit-$name.log
		CMOCKA_MESSAGE_OUTPUT=tap "$t" >"$log" 2>&1
		local rc=$?
		sed -n 's/^\(not ok\|ok\) [0-9]* - \(.*\)$/\1 \2/p' "$log" |
			while read -r a b c; do
				if [ "$a" = ok ]; then record PASS "unit/$name/$b"
				else record FAIL "unit/$name/$c"; fi
			done
		# A crash (sanitizer report, abort) ends the binary early.
		if [ $rc -ne 0 ] && ! grep -q '^not ok' "$log"; then
			record FAIL "unit/$name" "exit status $rc, see $log"
		fi
	done
	stage_done
}

suite_fuzz() {
	local f name corpus runs=${FUZZ_RUNS:-20000}
	stage "check: fuzz targets ($runs runs each)"
	for f in "$RVKVM_BUILD"/fuzz/fuzz_*; do
		[ -x "$f" ] || continue
		name=${f##*/fuzz_}
		corpus=tests/fuzz/corpus/$name
		# New inputs go to the first directory: keep the seeds clean.
		mkdir -p "$RVKVM_BUILD/check/corpus-$name"
		if "$f" -runs="$runs" -seed=1 \
			-artifact_prefix="$RVKVM_BUILD/check/$name-" \
			"$RVKVM_BUILD/check/corpus-$name" \
			"$corpus" >"$logs/fuzz-$name.log" 2>&1; then
			record PASS "fuzz/$name"
		else
			record FAIL "fuzz/$name" "see $logs/fuzz-$name.log"
		fi
	done
	stage_done
}

# run_case LOG OPTS SCRIPT: one boot of the emulated host; its status.
# No case is booted again: the AIA-host hangs of QEMU 7.2, which were
# retried, do not happen under QEMU 10; a hang fails its case (status 124
# after E2E_TIMEOUT seconds, with the console in LOG).
run_case() {
	local log=$1 opts=$2 script=$3
	# shellcheck disable=SC2086
	scripts/run-host.sh $opts --timeout "${E2E_TIMEOUT:-300}" \
		--test "$script" >"$log" 2>&1
}

suite_e2e() {
	local name script opts log rc n
	while read -r name rest; do
		case "$name" in ""|\#*) continue ;; esac
		script=${rest##* }
		opts=${rest% *}
		log=$logs/e2e-$name.log
		stage "check: e2e $name"
		run_case "$log" "$opts" "$script"
		rc=$?
		n=$(collect "e2e/$name" "$log")
		if [ -x "tests/e2e/$name.post" ]; then
			"tests/e2e/$name.post" "$log" >"$logs/e2e-$name.post.log" 2>&1
			collect "e2e/$name" "$logs/e2e-$name.post.log" >/dev/null
		fi
		# The case itself: the script's status, and that it ran at all.
		if [ $rc -eq 0 ] && [ "$n" -gt 0 ]; then
			record PASS "e2e/$name/status"
		else
			record FAIL "e2e/$name/status" "status $rc, $(tail -1 "$log"), see $log"
		fi
		stage_done
	done <"${E2E_CASES:-tests/e2e/cases}"
}

suites=${*:-scripts unit fuzz e2e}
for s in $suites; do
	"suite_$s"
done

passed=$(grep -c '^PASS ' "$results")
failed=$(grep -c '^FAIL ' "$results")
echo "results: $results"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
