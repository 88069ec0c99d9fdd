#!/bin/sh
# Runs in the emulated host (the rvkvm kernel): Debian's riscv64 perf
# (./perf, scripts/tool-root.sh) profiles lkvm as make bench's profile
# group does (BENCH_ONLY=profile): the kernel has perf events and its
# symbols, perf records the cpu-clock timer with kernel call chains, and
# its report names lkvm's own functions and the host's system calls.
. ./lib.sh
perf=./perf/perf
echo -1 >/proc/sys/kernel/perf_event_paranoid
echo 0 >/proc/sys/kernel/kptr_restrict

$perf record -q -g -e cpu-clock -F 999 -o /tmp/perf.data -- sh -c '
	for i in 1 2 3; do
		./lkvm run -k bm-exit.Image --nodefaults -n mode=none \
			</dev/null >>/tmp/runs.log 2>&1 || echo "lkvm exit $?"
	done' >/tmp/record.log 2>&1
rc=$?
t perf-record-status [ $rc -eq 0 ]
[ $rc -eq 0 ] || head -5 /tmp/record.log
t perf-lkvm-runs-exit-0 lacks "lkvm exit" /tmp/record.log
t perf-lkvm-guest-ran [ "$(grep -c 'EXIT: STATUS=1' /tmp/runs.log)" -eq 3 ]

$perf report -i /tmp/perf.data --stdio --no-children --sort dso,sym -g none \
	>/tmp/report.log 2>&1
t perf-report-has-samples has "^# Samples: [1-9]" /tmp/report.log
# lkvm's functions by name (its symbols: lkvm is not stripped).
t perf-report-lkvm-symbols grep -Eq '%  *lkvm  *\[\.\] [a-z_][a-z_0-9]*' /tmp/report.log
# The kernel's functions by name (kallsyms), not addresses.
t perf-report-kernel-symbols grep -Eq '%  *\[kernel\.kallsyms\]  *\[k\] [a-z_][a-z_0-9]*' /tmp/report.log

# The host kernel's call chains: system calls with their callees.
$perf report -i /tmp/perf.data --stdio --children --sort sym -g none \
	>/tmp/children.log 2>&1
# (a system call's entry with more samples under it than in it).
t perf-call-chains-syscalls awk '
	$NF ~ /^__riscv_sys_/ && $1 + 0 > $2 + 0 { found = 1 }
	END { exit !found }' /tmp/children.log
exit $fail
