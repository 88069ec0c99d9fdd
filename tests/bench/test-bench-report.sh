#!/bin/bash
# Tests of make bench's fio table (scripts/bench.sh, BENCH_ONLY=report) on a
# made-up log: the mean of the rounds per VMM, the ratio of the means, the
# lowest and highest ratio of one round's pair, and BENCH_FIO_ROUNDS'
# check, which must leave the last run's log alone.  No emulated host runs.
# Prints "PASS name" / "FAIL name" lines.
set -uo pipefail
. "$(dirname "$0")/../pass-fail.sh"
mkdir -p "$tmp/build/bench"
log=$tmp/build/bench/boot.log
# Two rounds; lkvm/kvmtool per round: 2.00 and 1.00, so 1.50 of the means
# (300 / 200).  A third round only lkvm ran has no pair, and kvmtool's 0
# (a status) gives no ratio.
cat >"$log" <<'EOF'
BENCH lkvm-r1-c1-pci-status 0 exit
BENCH kvmtool-r1-c1-pci-status 0 exit
BENCH lkvm-r1-c1-pci-seq-read-MiB/s 400.0 MiB/s
BENCH kvmtool-r1-c1-pci-seq-read-MiB/s 200.0 MiB/s
BENCH lkvm-r2-c1-pci-seq-read-MiB/s 200.0 MiB/s
BENCH kvmtool-r2-c1-pci-seq-read-MiB/s 200.0 MiB/s
BENCH lkvm-r1-c1-pci-seq-write-MiB/s 90.0 MiB/s
BENCH kvmtool-r1-c1-pci-seq-write-MiB/s 60.0 MiB/s
BENCH lkvm-r3-c1-pci-seq-write-MiB/s 30.0 MiB/s
EOF
cp "$log" "$tmp/log.orig"
report() {
	RVKVM_BUILD=$tmp/build BENCH_ONLY=report "$top/scripts/bench.sh" 2>&1
}
report >"$tmp/out"
row() { awk -v k="$1" '$1 == k { $1 = ""; print substr($0, 2) }' "$tmp/out"; }
t report-header grep -q '^fio, boot, fs, vsock (mean of rounds) .*lkvm/kvmtool *pairs$' "$tmp/out"
t report-mean-ratio-pairs test "$(row c1-pci-seq-read-MiB/s)" = "300.00 200.00 1.50 1.00-2.00"
# One pair only: no range.  lkvm's mean counts its unpaired round.
t report-one-pair test "$(row c1-pci-seq-write-MiB/s)" = "60.00 60.00 1.00 -"
t report-no-ratio-of-zero test "$(row c1-pci-status)" = "0.00 0.00 - -"

# A bad BENCH_FIO_ROUNDS or BENCH_FIO_RUNTIME: one line naming it, status 1.
while read -r var bad want; do
	env RVKVM_BUILD="$tmp/build" BENCH_ONLY=fio "$var=$bad" \
		"$top/scripts/bench.sh" >"$tmp/bad.out" 2>&1
	t "$var-$bad-refused" test $? -eq 1
	t "$var-$bad-named" grep -q "$var=$bad: expected $want" "$tmp/bad.out"
done <<'EOF2'
BENCH_FIO_ROUNDS 0 1 to 9
BENCH_FIO_ROUNDS 10 1 to 9
BENCH_FIO_ROUNDS x 1 to 9
BENCH_FIO_RUNTIME 0 1 to 600 (seconds)
BENCH_FIO_RUNTIME 601 1 to 600 (seconds)
BENCH_FIO_RUNTIME x 1 to 600 (seconds)
EOF2
t rounds-refused-keeps-log cmp -s "$log" "$tmp/log.orig"

# lkvm's variants (BENCH_FIO_LKVM) get a column and a ratio of their own,
# after lkvm's and before kvmtool's; their lines stay out of the main table.
cat >"$log" <<'EOF2'
BENCH kvmtool-r1-c1-pci-randread-qd1-IOPS 100 IOPS
BENCH lkvm-r1-c1-pci-randread-qd1-IOPS 80 IOPS
BENCH lkvm-nopoll-r1-c1-pci-randread-qd1-IOPS 120 IOPS
BENCH lkvm-nopoll-r2-c1-pci-randread-qd1-IOPS 140 IOPS
BENCH kvmtool-r2-c1-pci-randread-qd1-IOPS 100 IOPS
EOF2
report >"$tmp/out"
t variants-header grep -q '^fio, boot, fs, vsock (mean of rounds) *lkvm *lkvm-nopoll *kvmtool *lkvm/kvmtool *pairs *lkvm-nopoll/kvmtool *pairs$' "$tmp/out"
t variants-row test "$(row c1-pci-randread-qd1-IOPS)" = "80.00 130.00 100.00 0.80 - 1.30 1.20-1.40"
t variants-not-in-main-table bash -c "! grep -q '^lkvm-nopoll-r1' '$tmp/out'"
cp "$log" "$tmp/log.orig"
RVKVM_BUILD=$tmp/build BENCH_ONLY=fio BENCH_FIO_JOBS="randread-qd1 nosuch" \
	"$top/scripts/bench.sh" >"$tmp/bad.out" 2>&1
t fio-jobs-unknown-refused test $? -eq 1
t fio-jobs-unknown-named grep -q "BENCH_FIO_JOBS: no job 'nosuch'" "$tmp/bad.out"
RVKVM_BUILD=$tmp/build BENCH_ONLY=fio BENCH_FIO_LKVM="Bad Name=--io-poll 0" \
	"$top/scripts/bench.sh" >"$tmp/bad.out" 2>&1
t fio-lkvm-bad-variant-refused test $? -eq 1
t fio-lkvm-bad-variant-named grep -q "BENCH_FIO_LKVM: 'Bad Name=--io-poll 0': expected NAME=OPTIONS" "$tmp/bad.out"
t fio-refused-keeps-log cmp -s "$log" "$tmp/log.orig"

# The host's own figure: no column in the main table, a table of its own
# with each VMM's mean as a fraction of it.
cat >"$log" <<'EOF2'
BENCH host-r1-c1-pci-seq-read-MiB/s 400.0 MiB/s
BENCH host-r2-c1-pci-seq-read-MiB/s 600.0 MiB/s
BENCH lkvm-r1-c1-pci-seq-read-MiB/s 100.0 MiB/s
BENCH lkvm-r2-c1-pci-seq-read-MiB/s 150.0 MiB/s
BENCH kvmtool-r1-c1-pci-seq-read-MiB/s 50.0 MiB/s
BENCH kvmtool-r2-c1-pci-seq-read-MiB/s 50.0 MiB/s
EOF2
report >"$tmp/out"
t host-not-a-column test "$(row c1-pci-seq-read-MiB/s | head -1)" = "125.00 50.00 2.50 2.00-3.00"
t host-header grep -q '^against the host itself (mean of rounds) *host *lkvm/host *kvmtool/host$' "$tmp/out"
t host-fractions test "$(row c1-pci-seq-read-MiB/s | tail -1)" = "500.00 0.25 0.10"

# The fs and vsock groups: variants of lkvm (lkvm-virtiofs, lkvm-hvsock)
# beside lkvm and kvmtool.  A round that failed prints no figure: it
# counts in no mean and its line is in the main table, and a variant
# whose every round failed has no mean and no ratio.
cat >"$log" <<'EOF2'
BENCH lkvm-virtiofs-r1-c1-fs-stat-files/s 300.0 files/s
BENCH lkvm-r1-c1-fs-stat-files/s 100.0 files/s
BENCH kvmtool-r1-c1-fs-stat-files/s 100.0 files/s
BENCH lkvm-virtiofs-r2-c1-fs-stat-files/s failed (mount -t virtiofs)
BENCH lkvm-r2-c1-fs-stat-files/s 200.0 files/s
BENCH kvmtool-r2-c1-fs-stat-files/s 100.0 files/s
BENCH lkvm-r1-c1-vsock-rtt-us 500.0 us
BENCH lkvm-hvsock-r1-c1-vsock-rtt-us failed
BENCH kvmtool-r1-c1-vsock-rtt-us 250.0 us
EOF2
report >"$tmp/out"
t fs-variant-header grep -q '^fio, boot, fs, vsock (mean of rounds) *lkvm *lkvm-virtiofs *lkvm-hvsock *kvmtool ' "$tmp/out"
t fs-failed-round-not-counted test "$(row c1-fs-stat-files/s)" = "150.00 300.00 - 100.00 1.50 1.00-2.00 3.00 - - -"
t fs-failed-line-shown grep -q '^lkvm-virtiofs-r2-c1-fs-stat-files/s *failed (mount -t virtiofs)$' "$tmp/out"
t vsock-all-failed-no-mean test "$(row c1-vsock-rtt-us)" = "500.00 - - 250.00 2.00 - - - - -"
t vsock-failed-line-shown grep -q '^lkvm-hvsock-r1-c1-vsock-rtt-us *failed$' "$tmp/out"
t figures-not-in-main-table bash -c "! grep -q '^lkvm-r1-c1-fs-stat' '$tmp/out'"

# The net group: each variant's mean over the rounds that have a figure;
# a failed round (kvmtool-tap-vhost's second) counts in none and keeps
# its line in the main table.
cat >"$log" <<'EOF2'
BENCH tcp-guest-to-host-16MiB-lkvm-tap-r1 2.00 MiB/s
BENCH tcp-guest-to-host-16MiB-lkvm-tap-vhost-r1 4.00 MiB/s
BENCH tcp-guest-to-host-16MiB-kvmtool-tap-vhost-r1 3.00 MiB/s
BENCH tcp-guest-to-host-16MiB-lkvm-user-r1 1.50 MiB/s
BENCH tcp-guest-to-host-16MiB-lkvm-user-r1-bytes 16000001 bytes
BENCH tcp-guest-to-host-16MiB-lkvm-tap-r2 3.00 MiB/s
BENCH tcp-guest-to-host-16MiB-lkvm-tap-vhost-r2 5.00 MiB/s
BENCH tcp-guest-to-host-16MiB-kvmtool-tap-vhost-r2 failed (0 bytes)
BENCH tcp-guest-to-host-16MiB-lkvm-user-r2 2.50 MiB/s
EOF2
report >"$tmp/out"
net() { awk -v k="$1" '$1 == k { print $2, $3 }' "$tmp/out"; }
t net-header grep -q '^guest to host TCP (mean of rounds) *MiB/s *rounds$' "$tmp/out"
t net-tap-mean test "$(net lkvm-tap)" = "2.50 2"
t net-vhost-not-tap test "$(net lkvm-tap-vhost)" = "4.50 2"
t net-failed-round-not-counted test "$(net kvmtool-tap-vhost)" = "3.00 1"
t net-bytes-line-not-a-round test "$(net lkvm-user)" = "2.00 2"
t net-failed-line-shown grep -q '^tcp-guest-to-host-16MiB-kvmtool-tap-vhost-r2 *failed (0 bytes)$' "$tmp/out"

# The profile group (BENCH_ONLY=profile): per VMM and job, fio's figures
# and the CPU time sampled as a heading, then the threads' and the
# symbols' shares.
cat >"$log" <<'EOF2'
PROFILE lkvm randread-qd1 fio 5.6 1424 28672
PROFILE lkvm status 0 exit
PROFILE lkvm randread-qd1 cpu-ms 4321
PROFILE lkvm randread-qd1 guest-ms 3000
PROFILE lkvm randread-qd1 thread 61.20% vcpu0
PROFILE lkvm randread-qd1 symbol 12.50% [kernel.kallsyms] [k] __schedule
PROFILE lkvm start-minimal statuses 0x9,1x1
PROFILE lkvm start-minimal cpu-ms 290
PROFILE lkvm start-minimal guest-ms 0
EOF2
report >"$tmp/out"
t profile-heading grep -q '^profile lkvm randread-qd1 (fio: 5.6 MiB/s, 1424 IOPS): 4321 ms of CPU sampled: 3000 in the guest, 1321 in the VMM$' "$tmp/out"
t profile-thread grep -q '^  thread   61.20%  vcpu0$' "$tmp/out"
t profile-symbol grep -q '^  symbol   12.50%  \[kernel.kallsyms\] \[k\] __schedule$' "$tmp/out"
t profile-start-heading grep -q '^profile lkvm start-minimal (exit statuses: 0x9,1x1): 290 ms of CPU sampled: 0 in the guest, 290 in the VMM$' "$tmp/out"
t profile-status-not-shown bash -c "! grep -q '0 exit' '$tmp/out'"
