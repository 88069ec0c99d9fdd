#!/bin/bash
# check.sh [SUITE...]: build what each suite needs, run it and count every
# test.  Suites, in this order by default: format (clang-format, one test),
# scripts (kernel build machinery on fixtures, image recipes, the bench
# tables on a made-up log, the include layers of docs/architecture.md),
# unit (native cmocka under ASan+UBSan), fuzz (short libFuzzer runs), e2e (boots in the
# emulated host; builds the kernel first).  The native suites run before the
# kernel is built, so a broken unit test shows in seconds.  A build that
# fails counts as one failure and its suite does not run.  Ends with
# "N passed, N failed, N skipped"; exit 1 on failure.  Run by 'make check'
# after 'make deps' (MAKE: the make to build with).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RVKVM_TOP"

suites=${*:-format scripts unit fuzz e2e}
# make -n check: MAKEFLAGS' first word holds the one-letter options.
flags=${MAKEFLAGS:-}
flags=${flags%% *}
if [[ $flags != -* && $flags == *n* ]]; then
	echo "check.sh: would build and run the suites: $suites"
	exit 0
fi

results=$RVKVM_BUILD/check/results
logs=$RVKVM_BUILD/check/logs
rm -rf "$RVKVM_BUILD/check"
mkdir -p "$logs"
: >"$results"

# record STATUS NAME [DETAIL]: STATUS is PASS, FAIL or SKIP.  What is not
# a pass is shown on stderr: collect's stdout is its count.
record() {
	echo "$1 $2" >>"$results"
	[ "$1" = PASS ] || echo "  $1 $2${3:+ ($3)}" >&2
}

# Turn "PASS x" / "FAIL x" / "SKIP x" lines of a log into results under
# PREFIX; print how many there were.
collect() {
	local prefix=$1 log=$2
	sed -n 's/^\(PASS\|FAIL\|SKIP\) \([^ :]*\).*/\1 \2/p' "$log" |
		while read -r st name; do record "$st" "$prefix/$name"; done
	grep -cE '^(PASS|FAIL|SKIP) ' "$log"
}

# tap_collect PREFIX LOG: record the results of cmocka's TAP output; print
# how many failed.  A skipped test is "not ok N # SKIP name" (cmocka 1.1.5)
# or "ok N - name # SKIP" (TAP): either way a SKIP, never a pass.
tap_collect() {
	local prefix=$1 log=$2 line st name nfail=0
	local skip='^(not )?ok [0-9]+ # [Ss][Kk][Ii][Pp] *([^ ]*)'
	local skip2='^ok [0-9]+ - ([^ ]*).* # [Ss][Kk][Ii][Pp]'
	local res='^(not )?ok [0-9]+ - ([^ ]*)'
	while IFS= read -r line; do
		if [[ $line =~ $skip ]]; then
			st=SKIP name=${BASH_REMATCH[2]}
		elif [[ $line =~ $skip2 ]]; then
			st=SKIP name=${BASH_REMATCH[1]}
		elif [[ $line =~ $res ]]; then
			st=PASS name=${BASH_REMATCH[2]}
			[ -z "${BASH_REMATCH[1]}" ] || st=FAIL
		else
			continue
		fi
		[ $st != FAIL ] || nfail=$((nfail + 1))
		record $st "$prefix/${name:-unnamed}" >&2
	done <"$log"
	echo $nfail
}

# build NAME TARGET...: make TARGETs, output in logs/build-NAME.log (lines
# of scripts/kernel.sh shown).  A failure is counted as build/NAME.
build() {
	local name=$1 log=$logs/build-$1.log jobs=() rc
	shift
	case " ${MAKEFLAGS:-} " in
	*" -j"* | *jobserver*) ;;
	*) jobs=(-j"$(nproc)") ;;
	esac
	# deps ran once before check.sh (DEPS= keeps make from running it again).
	"${MAKE:-make}" --no-print-directory "${jobs[@]}" DEPS= "$@" 2>&1 |
		tee "$log" | grep --line-buffered -E '^(==> )?kernel:'
	rc=${PIPESTATUS[0]}
	[ "$rc" -eq 0 ] && return 0
	tail -20 "$log" | sed 's/^/    /'
	record FAIL "build/$name" "make $*: status $rc, see $log"
	return 1
}

suite_format() {
	stage "check: C formatting (make format-check)"
	if "${MAKE:-make}" --no-print-directory format-check \
		>"$logs/format.log" 2>&1; then
		record PASS format
	else
		record FAIL format "$(sed -n 's/^\([^ :]*\.[ch]\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' \
			"$logs/format.log" | sort -u | wc -l) files differ from clang-format's output, see $logs/format.log"
	fi
	stage_done
}

suite_scripts() {
	stage "check: kernel build machinery, image recipes, bench tables, include layers"
	tests/kernel/test-kernel-scripts.sh >"$logs/scripts.log" 2>&1
	collect scripts "$logs/scripts.log" >/dev/null
	tests/images/test-images.sh >"$logs/images.log" 2>&1
	collect images "$logs/images.log" >/dev/null
	tests/bench/test-bench-report.sh >"$logs/bench-report.log" 2>&1
	collect bench-report "$logs/bench-report.log" >/dev/null
	tests/layers/test-layers.sh >"$logs/layers-test.log" 2>&1
	collect layers-test "$logs/layers-test.log" >/dev/null
	if scripts/layers.sh >"$logs/layers.log" 2>&1; then
		record PASS layers
	else
		record FAIL layers "$(grep -c '^scripts/layers.sh: ' "$logs/layers.log") violations, see $logs/layers.log"
	fi
	stage_done
}

suite_unit() {
	local t name log nfail
	stage "check: build unit tests (native, ASan+UBSan)"
	build unit unit || { stage_done failed; return; }
	stage_done
	stage "check: unit tests (native, ASan+UBSan)"
	for t in "$RVKVM_BUILD"/native/test_*; do
		[ -x "$t" ] || continue
		name=${t##*/test_}
		log=$logs/unit-$name.log
		CMOCKA_MESSAGE_OUTPUT=tap "$t" >"$log" 2>&1
		local rc=$?
		nfail=$(tap_collect "unit/$name" "$log")
		# A crash (sanitizer report, abort) ends the binary early.
		if [ $rc -ne 0 ] && [ "$nfail" -eq 0 ]; then
			record FAIL "unit/$name" "exit status $rc, see $log"
		fi
	done
	stage_done
}

suite_fuzz() {
	local f name corpus runs=${FUZZ_RUNS:-20000}
	stage "check: build fuzz targets"
	build fuzz fuzz-check || { stage_done failed; return; }
	stage_done
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
	stage "check: build the kernel and the riscv64 tests"
	build e2e kernel riscv-tests || { stage_done failed; return; }
	stage_done
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
			# The log stays in the build tree; CI shows only this output.
			tail -n 25 "$log" | sed 's/^/    | /' >&2
		fi
		stage_done
	done <"${E2E_CASES:-tests/e2e/cases}"
}

for s in $suites; do
	"suite_$s"
done

passed=$(grep -c '^PASS ' "$results")
failed=$(grep -c '^FAIL ' "$results")
skipped=$(grep -c '^SKIP ' "$results")
echo "results: $results"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
