#!/bin/bash
# check.sh [SUITE...]: build what each suite needs, run it and count every
# test.  Suites, in this order by default: format (clang-format, one test),
# scripts (kernel build machinery on fixtures, image recipes, the bench
# tables on a made-up log, the include layers of docs/architecture.md,
# make install, the Makefile's cross or board build),
# unit (native cmocka under ASan+UBSan), fuzz (short libFuzzer runs), board
# (lkvm built, installed and run, and the unit tests, natively in a riscv64
# chroot under qemu-user), e2e (boots in the emulated host; builds the
# kernel first).  The native suites run before the
# kernel is built, so a broken unit test shows in seconds.  A build that
# fails counts as one failure and its suite does not run.  Ends with
# "N passed, N failed, N skipped"; exit 1 on failure.  Run by 'make check'
# after 'make deps' (MAKE: the make to build with).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RVKVM_TOP"

suites=${*:-format scripts unit fuzz board e2e}
# make check-quick: fewer fuzz runs, the e2e cases of cases-quick.
if [ -n "${CHECK_QUICK:-}" ]; then
	: "${FUZZ_RUNS:=2000}" "${E2E_CASES:=tests/e2e/cases-quick}"
fi
# make -n check: MAKEFLAGS' first word holds the one-letter options.
flags=${MAKEFLAGS:-}
flags=${flags%% *}
if [[ $flags != -* && $flags == *n* ]]; then
	echo "check.sh: would build and run the suites: $suites"
	exit 0
fi

results=$RVKVM_BUILD/check/results
logs=$RVKVM_BUILD/check/logs
timings=$RVKVM_BUILD/check/timings
rm -rf "$RVKVM_BUILD/check"
mkdir -p "$logs"
: >"$results"
: >"$timings"

# record STATUS NAME [DETAIL]: STATUS is PASS, FAIL or SKIP.  What is not
# a pass is shown on stderr: collect's stdout is its count.
record() {
	echo "$1 $2" >>"$results"
	[ "$1" = PASS ] || echo "  $1 $2${3:+ ($3)}" >&2
}

# step_done [NOTE]: stage_done, and the stage's time into $timings as a
# step of the slowest-steps table.
step_done() {
	echo "step $(($(date +%s) - _stage_t0)) ${_stage_name#check: }" \
		>>"$timings"
	stage_done "$@"
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
	step_done
}

suite_scripts() {
	stage "check: kernel build machinery, image recipes, bench tables, include layers, make install, the board build's make"
	tests/kernel/test-kernel-scripts.sh >"$logs/scripts.log" 2>&1
	collect scripts "$logs/scripts.log" >/dev/null
	tests/images/test-images.sh >"$logs/images.log" 2>&1
	collect images "$logs/images.log" >/dev/null
	tests/bench/test-bench-report.sh >"$logs/bench-report.log" 2>&1
	collect bench-report "$logs/bench-report.log" >/dev/null
	tests/layers/test-layers.sh >"$logs/layers-test.log" 2>&1
	collect layers-test "$logs/layers-test.log" >/dev/null
	tests/install/test-install.sh >"$logs/install.log" 2>&1
	collect install "$logs/install.log" >/dev/null
	tests/native/test-board-make.sh >"$logs/board-make.log" 2>&1
	collect board-make "$logs/board-make.log" >/dev/null
	if scripts/layers.sh >"$logs/layers.log" 2>&1; then
		record PASS layers
	else
		record FAIL layers "$(grep -c '^scripts/layers.sh: ' "$logs/layers.log") violations, see $logs/layers.log"
	fi
	step_done
}

suite_unit() {
	local t name log nfail
	stage "check: build unit tests (native, ASan+UBSan)"
	build unit unit || { stage_done failed; return; }
	step_done
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
	step_done
}

suite_fuzz() {
	local f name corpus runs=${FUZZ_RUNS:-20000}
	stage "check: build fuzz targets"
	build fuzz fuzz-check || { stage_done failed; return; }
	step_done
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
	step_done
}

suite_board() {
	local log=$logs/board.log
	stage "check: lkvm built on riscv64 natively (a trixie riscv64 chroot, qemu-user)"
	tests/native/test-native-build.sh >"$log" 2>&1
	collect board "$log" >/dev/null
	# Why the chroot could not be made, in one line.
	grep '^error: ' "$log" | sed 's/^/  /' >&2
	grep '^chroot run: ' "$log"
	step_done
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

# case_result NAME LOG STATUS: the results of one case: its PASS/FAIL
# lines, its .post checks, and the case itself (its status, and that it
# printed any result at all).
case_result() {
	local name=$1 log=$2 rc=$3 n
	n=$(collect "e2e/$name" "$log")
	if [ -x "tests/e2e/$name.post" ]; then
		"tests/e2e/$name.post" "$log" >"$logs/e2e-$name.post.log" 2>&1
		collect "e2e/$name" "$logs/e2e-$name.post.log" >/dev/null
	fi
	if [ "$rc" -eq 0 ] && [ "$n" -gt 0 ]; then
		record PASS "e2e/$name/status"
	else
		record FAIL "e2e/$name/status" "status $rc, $(tail -1 "$log"), see $log"
		# The log stays in the build tree; CI shows only this output.
		tail -n 25 "$log" | sed 's/^/    | /' >&2
	fi
}

# during_start NAME / during_end NAME: tests/e2e/NAME.during, when
# present, runs on the build machine while the case's host runs (a case
# with a host of its own), with the case's console log (written as it
# comes) as its argument; it ends by itself (its own time limits), and
# its PASS/FAIL lines count with the case's.
during_start() {
	during_pid=
	[ -x "tests/e2e/$1.during" ] || return 0
	: >"$logs/e2e-$1.log"
	"tests/e2e/$1.during" "$logs/e2e-$1.log" \
		>"$logs/e2e-$1.during.log" 2>&1 &
	during_pid=$!
}
during_end() {
	[ -z "$during_pid" ] && return 0
	wait "$during_pid"
	collect "e2e/$1" "$logs/e2e-$1.during.log" >/dev/null
}

# A case boots a host of its own when it needs one (a host disk, a kill
# at a console line); the others share one boot per batch key: the host
# kind (--aia), its kernel (--host-kernel stock: "stock-plic", "stock-aia")
# and the --guest-add files (added to every guest image).
batch_key() {
	local opts=" $1 " key=plic w prev=
	case "$opts" in *" --disk "* | *" --kill-on "* | *" --hostfwd "*)
		echo alone; return ;;
	esac
	case "$opts" in *" --aia "*) key=aia ;; esac
	for w in $opts; do
		[ "$prev" = --host-kernel ] && [ "$w" != rvkvm ] && key="$w-$key"
		prev=$w
	done
	prev=
	for w in $opts; do
		[ "$prev" = --guest-add ] && key+=" $w"
		prev=$w
	done
	echo "$key"
}

# batch_lanes NAME...: "NAME LANE" lines for tests/e2e/batch.sh: the
# --solo cases alone first, the others in two lanes side by side, longest
# first onto the lane with less work (times from the last run on this
# machine, $RVKVM_CACHE/e2e-times; 30 s for a case not timed yet), or in
# one lane, in order, with E2E_LANES=1.
batch_lanes() {
	local name
	for name in "$@"; do
		if [ -e "$case_dir/$name.solo" ]; then
			echo "$name solo"
		else
			echo "$name $(awk -v n="$name" '$1 == n { t = $2 }
				END { print t ? t : 30 }' "$RVKVM_CACHE/e2e-times" 2>/dev/null || echo 30)"
		fi
	done | awk -v lanes="${E2E_LANES:-2}" '
		BEGIN { n = 0; a = 0; b = 0 }
		$2 == "solo" { print; next }
		lanes == 1 { print $1, "a"; next }
		{ name[n] = $1; est[n++] = $2 }
		END {
			# longest first, each onto the lane with less work
			for (i = 0; i < n; i++) order[i] = i
			for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)
				if (est[order[j]] > est[order[i]]) {
					k = order[i]; order[i] = order[j]; order[j] = k }
			for (i = 0; i < n; i++) {
				c = order[i]
				if (a <= b) { print name[c], "a"; a += est[c] }
				else { print name[c], "b"; b += est[c] }
			}
		}'
}

# batch_opts DIR NAME...: the run-host.sh options for one boot running the
# cases NAME (read from $cases_opts/NAME, $cases_script/NAME) with
# tests/e2e/batch.sh; the batch's files are staged in DIR.
batch_opts() {
	local dir=$1 name w prev src dest idx nfiles=0 opts
	local -A file_idx=() guest_tests=() guest_adds=()
	local aia= host_kernel=
	shift
	mkdir -p "$dir/files"
	batch_lanes "$@" >"$dir/list"
	echo "${E2E_TIMEOUT:-300}" >"$dir/timeout"
	for name in "$@"; do
		cp "$(cat "$case_dir/$name.script")" "$dir/$name.test"
		: >"$dir/$name.files"
		prev=
		for w in $(cat "$case_dir/$name.opts"); do
			case "$prev" in
			--add)
				src=${w%%:*} dest=${w#*:}
				idx=${file_idx[$src]:-}
				if [ -z "$idx" ]; then
					idx=$nfiles
					nfiles=$((nfiles + 1))
					file_idx[$src]=$idx
					cp -a "$src" "$dir/files/$idx"
				fi
				echo "$idx ${dest#/rvkvm/}" >>"$dir/$name.files" ;;
			--guest-test) guest_tests[$w]=1 ;;
			--guest-add) guest_adds[$w]=1 ;;
			--host-kernel) host_kernel="--host-kernel $w" ;;
			esac
			[ "$w" = --aia ] && aia=--aia
			prev=$w
		done
	done
	opts="$aia $host_kernel --add $dir:/rvkvm/batch --lkvm"
	for w in "${!guest_tests[@]}"; do opts+=" --guest-test $w"; done
	for w in "${!guest_adds[@]}"; do opts+=" --guest-add $w"; done
	echo "$opts"
}

# split_batch LOG NAME...: each case's part of a batch's console into
# logs/e2e-NAME.log, its status and time into $case_dir/NAME.{rc,secs}.
split_batch() {
	local log=$1
	shift
	awk -v dir="$logs" -v cdir="$case_dir" '
		/^rvkvm-case-begin: / { name = $2; out = dir "/e2e-" name ".log"; next }
		/^rvkvm-case-end: / {
			print $3 > (cdir "/" $2 ".rc"); close(cdir "/" $2 ".rc")
			print $4 > (cdir "/" $2 ".secs"); close(cdir "/" $2 ".secs")
			close(out); out = ""; next }
		out != "" { print > out }' "$log"
}

# run_batch KEY NAME...: one host boot for the cases NAME, their results.
run_batch() {
	local key=$1 blog dir opts name rc t0 limit boot
	shift
	nbatch=$((${nbatch:-0} + 1))
	blog=$logs/e2e-batch-$nbatch-${key%% *}.log
	dir=$RVKVM_BUILD/check/batch
	rm -rf "$dir"
	opts=$(batch_opts "$dir" "$@")
	# A case that hangs is killed in the host after E2E_TIMEOUT; the
	# host's own limit only catches a host that stops answering.
	limit=$((120 + $# * ${E2E_TIMEOUT:-300} / 2))
	stage "check: e2e batch on a ${key%% *} host: $*"
	t0=$(date +%s)
	# shellcheck disable=SC2086
	scripts/run-host.sh $opts --timeout "$limit" \
		--test tests/e2e/batch.sh >"$blog" 2>&1
	rc=$?
	split_batch "$blog" "$@"
	# The host's kernel boot (its uptime when the batch began), and the
	# whole boot's time, cases side by side included.
	boot=$(sed -n 's/^rvkvm-batch: host up after \([0-9.]*\) s.*/\1/p' "$blog")
	echo "boot ${boot%.*} host kernel boot, batch $nbatch (${key%% *} host)" \
		>>"$timings"
	echo "batch $(($(date +%s) - t0)) batch $nbatch on a ${key%% *} host: $# cases" \
		>>"$timings"
	for name in "$@"; do
		if [ -f "$case_dir/$name.rc" ]; then
			echo "==> check: e2e $name: done in $(cat "$case_dir/$name.secs") s"
			case_result "$name" "$logs/e2e-$name.log" \
				"$(cat "$case_dir/$name.rc")"
			case_time "$name" "$(cat "$case_dir/$name.secs")"
		else
			[ -f "$logs/e2e-$name.log" ] || tail -n 40 "$blog" \
				>"$logs/e2e-$name.log"
			case_result "$name" "$logs/e2e-$name.log" \
				$((rc ? rc : 125))
		fi
	done
	stage_done "batch status $rc, $(($(date +%s) - t0)) s"
	rm -rf "$dir"
}

# case_time NAME SECS: the case's time into $timings, split by the
# "rvkvm-time:" lines of its lkvm runs (tests/e2e/lib.sh): lkvm's own
# start and stop (measured on the runs whose guest booted once and said
# when it was done), the guests' kernel boots, and the rest (the test).
case_time() {
	awk -v name="$1" -v secs="$2" '
		/^rvkvm-time: / {
			runs++; boot += $5
			if ($7 >= 0) { known++; start += $3 - $7 }
		}
		END {
			printf "case %d e2e/%s (lkvm start+stop %.0f s in %d of %d runs, guest kernel boots %.0f s, test %.0f s)\n",
				secs, name, start, known, runs, boot, secs - start - boot
		}' "$logs/e2e-$1.log" >>"$timings"
}

suite_e2e() {
	local name script opts key t0
	local -a keys=()
	local -A batch=()
	stage "check: build the kernel and the riscv64 tests"
	build e2e kernel riscv-tests || { stage_done failed; return; }
	step_done
	# The patch stack stays postable: the patched tree's own
	# checkpatch.pl --strict finds nothing in any patch.
	scripts/checkpatch.sh >"$logs/checkpatch.log" 2>&1 ||
		grep -q '^FAIL' "$logs/checkpatch.log" ||
		record FAIL kernel-patches/checkpatch "did not run, see $logs/checkpatch.log"
	collect kernel-patches "$logs/checkpatch.log" >/dev/null
	case_dir=$RVKVM_BUILD/check/cases
	mkdir -p "$case_dir"
	while read -r name rest; do
		case "$name" in ""|\#*) continue ;; esac
		# NAME OPTIONS... SCRIPT: a name glued to its first option
		# would run the case without that option.
		if [[ $name == *--* || $rest != --* ]]; then
			record FAIL "e2e/$name/case-line" "not NAME OPTIONS... SCRIPT"
			continue
		fi
		script=${rest##* }
		opts=${rest% *}
		# --solo: alone in its host while it runs (it times things).
		case " $opts " in
		*" --solo "*) touch "$case_dir/$name.solo"
			opts=$(echo " $opts " | sed 's/ --solo / /') ;;
		esac
		echo "$opts" >"$case_dir/$name.opts"
		echo "$script" >"$case_dir/$name.script"
		key=$(batch_key "$opts")
		if [ "$key" = alone ]; then
			stage "check: e2e $name (a host of its own)"
			t0=$(date +%s)
			during_start "$name"
			run_case "$logs/e2e-$name.log" "$opts" "$script"
			rc=$?
			during_end "$name"
			case_result "$name" "$logs/e2e-$name.log" $rc
			case_time "$name" $(($(date +%s) - t0))
			stage_done
			continue
		fi
		[ -n "${batch[$key]:-}" ] || keys+=("$key")
		batch[$key]+=" $name"
	done <"${E2E_CASES:-tests/e2e/cases}"
	for key in "${keys[@]}"; do
		# shellcheck disable=SC2086
		run_batch "$key" ${batch[$key]}
	done
	# The cases' times, for the next run's lanes (batch_lanes).
	mkdir -p "$RVKVM_CACHE"
	touch "$RVKVM_CACHE/e2e-times"
	sed -n 's/^case \([0-9]*\) e2e\/\([^ ]*\).*/\2 \1/p' "$timings" |
		awk 'NR == FNR { t[$1] = $2; next }
			!($1 in t) { t[$1] = $2 }
			END { for (n in t) print n, t[n] }' - \
			"$RVKVM_CACHE/e2e-times" >"$RVKVM_CACHE/e2e-times.new" &&
		mv "$RVKVM_CACHE/e2e-times.new" "$RVKVM_CACHE/e2e-times"
}

# The slowest steps and each suite's share of the time, from $timings:
# "suite SECS NAME", "step SECS NAME", "boot SECS ..." (an emulated host's
# boot), "case SECS NAME (split)".
report_times() {
	local total
	total=$(awk '$1 == "suite" { t += $2 } END { print t + 0 }' "$timings")
	echo "time by suite (${total} s in all):"
	awk -v t="$total" '$1 == "suite" {
		printf "  %-8s %5d s %4.0f %%\n", $3, $2, t ? 100 * $2 / t : 0 }' \
		"$timings"
	awk '$1 == "batch" { t = $2; $1 = $2 = ""; sub(/^ +/, "")
		printf "  %5d s  e2e %s\n", t, $0 }' "$timings"
	echo "the ten slowest steps:"
	awk '$1 != "suite" && $1 != "batch"' "$timings" | sort -k2,2nr | head -10 |
		while read -r kind secs what; do
			printf '  %5d s  %s\n' "$secs" "$what"
		done
}

for s in $suites; do
	t0=$(date +%s)
	"suite_$s"
	echo "suite $(($(date +%s) - t0)) $s" >>"$timings"
done
report_times

passed=$(grep -c '^PASS ' "$results")
failed=$(grep -c '^FAIL ' "$results")
skipped=$(grep -c '^SKIP ' "$results")
echo "results: $results"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
