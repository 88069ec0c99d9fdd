#!/bin/bash
# bench.sh: boot and I/O benchmarks in the emulated host (a benchmark, not a test:
# it prints figures).  Times are wall-clock inside the TCG-emulated host,
# so they measure lkvm under emulation, not real hardware.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
log=$RVKVM_BUILD/bench/boot.log
mkdir -p "$(dirname "$log")"
bench() {
	local name=$1
	shift
	stage "bench: $name"
	"$RVKVM_TOP/scripts/run-host.sh" --timeout 600 "$@" >>"$log" 2>&1 ||
		{ tail -20 "$log"; die "benchmark run failed (log: $log)"; }
	stage_done
}
# BENCH_ONLY="NAME..." runs those groups: boot, blk, qcow2, net, irqchip,
# fio, fs (9p is another name for it), vsock, and profile, which runs only
# when named; BENCH_ONLY=report prints the tables of the last run again.
only=${BENCH_ONLY:-}
# named NAME: the group was named in BENCH_ONLY (profile runs only then).
named() {
	case " $only " in *" $1 "*) true ;; *) false ;; esac
}
want() {
	[ -z "$only" ] || named "$1"
}
# BENCH_FIO_ROUNDS: the fio runs' A B pairs per case, 1 to 9 (default 2),
# and the rounds of the fs and vsock groups.
rounds=${BENCH_FIO_ROUNDS:-2}
case $rounds in
[1-9]) ;;
*) die "BENCH_FIO_ROUNDS=$rounds: expected 1 to 9" ;;
esac
# BENCH_FIO_RUNTIME: the seconds each fio job runs (default 5), in the
# guest and in the host's own sequential runs: longer jobs, narrower pairs.
fio_runtime=${BENCH_FIO_RUNTIME:-5}
[[ $fio_runtime =~ ^[1-9][0-9]{0,2}$ ]] && [ "$fio_runtime" -le 600 ] ||
	die "BENCH_FIO_RUNTIME=$fio_runtime: expected 1 to 600 (seconds)"
# BENCH_FS_FILES: the small files the fs group creates, stats and
# unlinks per run (default 1000).
fs_files=${BENCH_FS_FILES:-1000}
[[ $fs_files =~ ^[1-9][0-9]{0,5}$ ]] ||
	die "BENCH_FS_FILES=$fs_files: expected 1 to 999999"
# BENCH_VSOCK_MIB: the MiB the vsock group's guest sends to the host per
# run (default 16).
vsock_mib=${BENCH_VSOCK_MIB:-16}
[[ $vsock_mib =~ ^[1-9][0-9]{0,3}$ ]] ||
	die "BENCH_VSOCK_MIB=$vsock_mib: expected 1 to 9999"
# BENCH_FIO_JOBS: the fio jobs to run (names of tests/bench/fio/*.fio;
# default all).  BENCH_FIO_LKVM: lkvm variants run beside lkvm's defaults
# in each round, "NAME=OPTIONS" separated by ";" (reported as lkvm-NAME),
# e.g. "nopoll=--io-poll 0;poll32=--io-poll 32".
fio_jobs=$RVKVM_BUILD/bench/fio-jobs
fio_variants=$RVKVM_BUILD/bench/fio-variants
if { want fio || named profile; } && [ "$only" != report ]; then
	rm -rf "$fio_jobs" && mkdir -p "$fio_jobs"
	for j in ${BENCH_FIO_JOBS:-$(cd "$RVKVM_TOP/tests/bench/fio" && ls | sed 's/\.fio$//')}; do
		[ -f "$RVKVM_TOP/tests/bench/fio/$j.fio" ] ||
			die "BENCH_FIO_JOBS: no job '$j' (tests/bench/fio/$j.fio)"
		cp "$RVKVM_TOP/tests/bench/fio/$j.fio" "$fio_jobs/"
	done
	: >"$fio_variants"
	IFS=';' read -ra vs <<<"${BENCH_FIO_LKVM:-}"
	for v in "${vs[@]}"; do
		[[ $v =~ ^[a-z0-9]+=.+$ ]] ||
			die "BENCH_FIO_LKVM: '$v': expected NAME=OPTIONS (NAME: a-z, 0-9)"
		echo "${v%%=*} ${v#*=}" >>"$fio_variants"
	done
fi
[ "$only" = report ] || : >"$log"
kvmtool_add=()
if [ -n "${KVMTOOL:-}" ]; then
	[ -x "$KVMTOOL" ] || die "KVMTOOL=$KVMTOOL is not an executable"
	kvmtool_add=(--add "$KVMTOOL:/rvkvm/kvmtool")
fi
want boot && bench "lkvm boot to guest init and peak RSS${KVMTOOL:+, lkvm and kvmtool on the minimal line}" \
	"${kvmtool_add[@]}" \
	--guest-test "$RVKVM_TOP/tests/e2e/guest/hello.sh" \
	--guest-test "$RVKVM_TOP/tests/e2e/guest/boottest.sh" \
	--test "$RVKVM_TOP/tests/bench/host-boot.sh"
want blk && bench "virtio-blk throughput and exits per MiB" \
	--guest-test "$RVKVM_TOP/tests/e2e/guest/hello.sh" \
	--guest-test "$RVKVM_TOP/tests/bench/guest-blk.sh" \
	--test "$RVKVM_TOP/tests/bench/host-blk.sh"
# The same block throughput on a qcow2 image qemu-storage-daemon serves
# over vhost-user-blk against a raw image lkvm serves, in turns.
want qcow2 && bench "virtio-blk throughput: qcow2 through qemu-storage-daemon against raw" \
	--guest-test "$RVKVM_TOP/tests/bench/guest-blk.sh" \
	--test "$RVKVM_TOP/tests/bench/host-qcow2.sh"
# lkvm's tap (lkvm's own and vhost-net) and user-mode network (passt's
# socket mode, and the default: passt over vhost-user) and, if KVMTOOL
# names a riscv64 kvmtool binary, kvmtool's tap with vhost-net and its
# user-mode network, in turns on one AIA host (kvmtool's vhost needs an
# in-kernel irqchip).
want net && bench "guest to host TCP: lkvm tap, tap vhost=1, user-mode vhost=0 and default${KVMTOOL:+, kvmtool tap vhost=1, kvmtool user-mode}" \
	--aia "${kvmtool_add[@]}" \
	--guest-test "$RVKVM_TOP/tests/bench/guest-net.sh" \
	--test "$RVKVM_TOP/tests/bench/host-net.sh"
# A share of the host's tmpfs: lkvm's virtio-fs (virtiofsd), lkvm's 9p on
# virtio-pci and virtio-mmio and, if KVMTOOL names a riscv64 kvmtool,
# kvmtool's 9p, in turns: sequential write and read, then create, stat
# and unlink of BENCH_FS_FILES small files.
{ want fs || want 9p; } && bench "file sharing: lkvm virtio-fs, lkvm 9p${KVMTOOL:+, kvmtool 9p}" \
	"${kvmtool_add[@]}" --timeout $((300 + 600 * rounds)) \
	--append "rvkvm.bench_rounds=$rounds rvkvm.fs_files=$fs_files" \
	--guest-test "$RVKVM_TOP/tests/bench/guest-fs.sh" \
	--test "$RVKVM_TOP/tests/bench/host-fs.sh"
# vsock throughput and round trips: lkvm on vhost-vsock, lkvm's unix-socket
# back-end and, with KVMTOOL, kvmtool on vhost-vsock, in turns, on one
# AIA host (kvmtool's vhost needs an in-kernel irqchip).
want vsock && bench "vsock: lkvm vhost-vsock, lkvm socket=${KVMTOOL:+, kvmtool vhost-vsock}" \
	--aia "${kvmtool_add[@]}" --timeout $((300 + 400 * rounds)) \
	--append "rvkvm.bench_rounds=$rounds rvkvm.vsock_mib=$vsock_mib" \
	--add "$RVKVM_BUILD/riscv64/vsock-peer:/rvkvm/vsock-peer" \
	--guest-add "$RVKVM_BUILD/riscv64/vsock-peer:/bin/vsock-peer" \
	--guest-test "$RVKVM_TOP/tests/bench/guest-vsock.sh" \
	--test "$RVKVM_TOP/tests/bench/host-vsock.sh"
# lkvm with KVM's AIA, with KVM's PLIC (kernel-patches/), with its own
# PLIC, and kvmtool if KVMTOOL names a riscv64 kvmtool binary, alternating
# on one AIA host.
want irqchip && bench "irqchips: lkvm aia, kernel-plic, plic${KVMTOOL:+, kvmtool} on an AIA host" \
	--aia "${kvmtool_add[@]}" \
	--guest-test "$RVKVM_TOP/tests/bench/guest-io.sh" \
	--test "$RVKVM_TOP/tests/bench/host-irqchip.sh"
# fio in the guest (tests/bench/fio/*.fio), lkvm and kvmtool alternating.
if want fio; then
	"$RVKVM_TOP/scripts/tool-root.sh" fio "$RVKVM_BUILD/images/fio-root"
	# BENCH_FIO_TRANSPORT: "pci" (the default, as for both VMMs), "mmio"
	# or both ("pci mmio").  BENCH_FIO_ROUNDS: A B pairs per case.  A
	# round of one transport takes about 250 s here: allow 600 s for
	# each, and 600 s more.
	nt=$(echo ${BENCH_FIO_TRANSPORT:-pci} | wc -w)
	bench "fio: lkvm aia${KVMTOOL:+, kvmtool} with 1 and 2 vCPUs on an AIA host" \
		--aia --timeout $((600 + 600 * rounds * nt * ((fio_runtime + 4) / 5))) "${kvmtool_add[@]}" \
		--append "rvkvm.fio_transport=$(echo ${BENCH_FIO_TRANSPORT:-pci} | tr ' ' ,) rvkvm.fio_rounds=$rounds rvkvm.fio_runtime=$fio_runtime" \
		--guest-add "$RVKVM_BUILD/images/fio-root:/opt/fio" \
		--add "$RVKVM_TOP/tests/bench/fio-host-lib.sh:/rvkvm/fio-host-lib.sh" \
		--add "$fio_variants:/rvkvm/fio-variants" \
		--add "$fio_jobs:/rvkvm/fio-jobs" \
		--add "$RVKVM_BUILD/images/fio-root:/opt/fio" \
		--guest-add "$fio_jobs:/opt/bench" \
		--guest-test "$RVKVM_TOP/tests/bench/guest-fio.sh" \
		--test "$RVKVM_TOP/tests/bench/host-fio.sh"
fi
# Where the VMM's CPU time goes while the guest runs the fio jobs
# (BENCH_FIO_JOBS): Debian's riscv64 perf in the host samples lkvm and, with
# KVMTOOL, kvmtool, one vCPU each (tests/bench/host-profile.sh).  Only when
# named: BENCH_ONLY=profile.
if named profile; then
	"$RVKVM_TOP/scripts/tool-root.sh" fio "$RVKVM_BUILD/images/fio-root"
	"$RVKVM_TOP/scripts/tool-root.sh" perf "$RVKVM_BUILD/images/perf-root"
	bench "profile: perf in the host, lkvm${KVMTOOL:+ and kvmtool}, while the guest runs fio" \
		--aia --timeout $((1800 * ((fio_runtime + 4) / 5))) "${kvmtool_add[@]}" \
		--append "rvkvm.fio_runtime=$fio_runtime" \
		--add "$RVKVM_TOP/tests/bench/fio-host-lib.sh:/rvkvm/fio-host-lib.sh" \
		--add "$RVKVM_BUILD/images/perf-root:/opt/perf" \
		--add "$RVKVM_BUILD/riscv64/bm-exit.Image:/rvkvm/bm-exit.Image" \
		--guest-add "$RVKVM_BUILD/images/fio-root:/opt/fio" \
		--guest-add "$fio_jobs:/opt/bench" \
		--guest-test "$RVKVM_TOP/tests/bench/guest-fio.sh" \
		--test "$RVKVM_TOP/tests/bench/host-profile.sh"
fi
# The profiles: per VMM and job, the CPU time sampled (the guest's and the
# VMM's), the threads' shares and the symbols over 1%.
if grep -q '^PROFILE ' "$log"; then
	sed -n 's/^PROFILE \(.*\)$/\1/p' "$log" | tr -d '\r' | awk '
		$2 == "status" { next }
		$3 == "fio" { what[$1, $2] = "fio: " $4 " MiB/s, " $5 " IOPS"; next }
		$3 == "statuses" { what[$1, $2] = "exit statuses: " $4; next }
		$3 == "cpu-ms" { ms = $4; next }
		$3 == "guest-ms" {
			printf "\nprofile %s %s (%s): %d ms of CPU sampled: %d in the guest, %d in the VMM\n",
				$1, $2, ($1, $2) in what ? what[$1, $2] : "-", ms, $4, ms - $4
			next
		}
		{ w = $5; for (i = 6; i <= NF; i++) w = w " " $i; printf "  %-7s %7s  %s\n", $3, $4, w }'
	echo
fi
printf '%-36s %s\n' "measure" "value"
sed -n 's/^BENCH \([^ ]*\) \(.*\)$/\1 \2/p' "$log" | tr -d '\r' |
	{ grep -v '^\(lkvm\(-[a-z0-9]*\)\{0,1\}\|kvmtool\|host\)-r[0-9]-c[^ ]* [0-9]' || true; } |
	while read -r name value unit; do
		printf '%-36s %s\n' "$name" "$value${unit:+ $unit}"
	done

# The net group: each variant's mean over its rounds (a failed round, which
# prints no figure, counts in none; its line is in the table above).
net_re='^BENCH tcp-guest-to-host-16MiB-\([a-z-]*\)-r[0-9] \([0-9][0-9.]*\) MiB/s'
if grep -q "$net_re" "$log"; then
	echo
	sed -n "s|$net_re.*|\1 \2|p" "$log" | tr -d '\r' | awk '
		{ if (!($1 in n)) order[++k] = $1; sum[$1] += $2; n[$1]++ }
		END {
			printf "%-36s %10s %7s\n", "guest to host TCP (mean of rounds)", "MiB/s", "rounds"
			for (i = 1; i <= k; i++)
				printf "%-36s %10.2f %7d\n", order[i],
					sum[order[i]] / n[order[i]], n[order[i]]
		}'
fi

# The irqchip runs side by side: the mean of the rounds per VMM (lkvm with
# each irqchip and transport, kvmtool), and lkvm on virtio-mmio with the
# AIA against kvmtool (the same transport and irqchip).
if want irqchip || [ "$only" = report ]; then
	echo
	sed -n 's/^BENCH \([a-z]*\)[0-9]-\([^ ]*\) \([0-9.]*\).*/\1 \2 \3/p' "$log" |
		tr -d '\r' | awk '
	{
		sum[$1, $2] += $3; n[$1, $2]++
		if (!($2 in seen)) { seen[$2]; order[++k] = $2 }
		if (!($1 in vseen)) { vseen[$1]; vmm[++nv] = $1 }
	}
	function m(v, x) { return n[v, x] ? sum[v, x] / n[v, x] : -1 }
	function f(v) { return v >= 0 ? sprintf("%.2f", v) : "-" }
	END {
		if (!nv) exit
		printf "%-28s", "per VMM (mean of rounds)"
		for (j = 1; j <= nv; j++) printf " %10s", vmm[j]
		printf " %16s\n", "aiammio/kvmtool"
		for (i = 1; i <= k; i++) {
			x = order[i]
			if (x == "status") continue
			printf "%-28s", x
			for (j = 1; j <= nv; j++) printf " %10s", f(m(vmm[j], x))
			a = m("aiammio", x); t = m("kvmtool", x)
			printf " %16s\n", (a >= 0 && t > 0) ? sprintf("%.2f", a / t) : "-"
		}
	}'
fi

# The fio runs, the minimal boot line (tests/bench/host-boot.sh,
# "c1-boot-min-..."), the fs and vsock groups ("c1-fs-...", "c1-vsock-..."):
# mean of the rounds per VMM (lkvm, its BENCH_FIO_LKVM
# variants "lkvm-NAME", kvmtool), each lkvm's mean over kvmtool's, and
# the lowest and highest ratio of one round's pair (the VMMs' round N ran
# one after the other): how far one pair can be off in this environment.
# A round that failed ("... failed", no figure) counts in no mean (a
# variant that always failed has a column of "-"); its line is in the
# table above.
# Then the sequential jobs' figures as a fraction of the host's own on
# the same file ("host", tests/bench/host-fio.sh's host_seq).
fio_re='^BENCH \(lkvm\(-[a-z0-9]*\)\{0,1\}\|kvmtool\|host\)-r\([0-9]\)-\(c[0-9]-[^ ]*\) \([0-9][0-9.]*\|failed\).*'
grep -q "$fio_re" "$log" || exit 0
echo
sed -n "s/$fio_re/\1 \3 \4 \5/p" "$log" | tr -d '\r' | awk '
	{
		if ($4 != "failed") {
			v[$1, $2, $3] = $4; sum[$1, $3] += $4; n[$1, $3]++
		}
		if ($2 > nr) nr = $2
		if (!($3 in seen)) { seen[$3]; order[++k] = $3 }
		if (!($1 in vseen)) { vseen[$1]; vmm[++nv] = $1 }
	}
	function m(w, x) { return n[w, x] ? sum[w, x] / n[w, x] : -1 }
	function f(w) { return w >= 0 ? sprintf("%.2f", w) : "-" }
	# The ratios of the rounds that VMM w and kvmtool both ran, "low-high".
	function pairs(w, x,   r, q, lo, hi, c) {
		c = 0
		for (r = 1; r <= nr; r++) {
			if (!((w, r, x) in v) || !(("kvmtool", r, x) in v) ||
			    v["kvmtool", r, x] <= 0)
				continue
			q = v[w, r, x] / v["kvmtool", r, x]
			if (!c++ || q < lo) lo = q
			if (c == 1 || q > hi) hi = q
		}
		return c > 1 ? sprintf("%.2f-%.2f", lo, hi) : "-"
	}
	END {
		# Columns: lkvm first, its variants, kvmtool last.
		nc = 0
		if ("lkvm" in vseen) col[++nc] = "lkvm"
		for (j = 1; j <= nv; j++)
			if (vmm[j] != "lkvm" && vmm[j] != "kvmtool" && vmm[j] != "host")
				col[++nc] = vmm[j]
		if ("kvmtool" in vseen) col[++nc] = "kvmtool"
		printf "%-44s", "fio, boot, fs, vsock (mean of rounds)"
		for (j = 1; j <= nc; j++) printf " %10s", col[j]
		for (j = 1; j <= nc; j++)
			if (col[j] != "kvmtool")
				printf " %14s %13s", col[j] "/kvmtool", "pairs"
		printf "\n"
		for (i = 1; i <= k; i++) {
			x = order[i]
			printf "%-44s", x
			for (j = 1; j <= nc; j++) printf " %10s", f(m(col[j], x))
			t = m("kvmtool", x)
			for (j = 1; j <= nc; j++) {
				if (col[j] == "kvmtool") continue
				a = m(col[j], x)
				r = (a >= 0 && t > 0) ? sprintf("%.2f", a / t) : "-"
				printf " %14s %13s", r, pairs(col[j], x)
			}
			printf "\n"
		}
		# The physical limit: the host on the same file (host_seq).
		if (!("host" in vseen)) exit
		printf "\n%-44s %10s", "against the host itself (mean of rounds)", "host"
		for (j = 1; j <= nc; j++) printf " %14s", col[j] "/host"
		printf "\n"
		for (i = 1; i <= k; i++) {
			x = order[i]
			h = m("host", x)
			if (h <= 0) continue
			printf "%-44s %10s", x, f(h)
			for (j = 1; j <= nc; j++) {
				a = m(col[j], x)
				printf " %14s", (a >= 0 ? sprintf("%.2f", a / h) : "-")
			}
			printf "\n"
		}
	}'
