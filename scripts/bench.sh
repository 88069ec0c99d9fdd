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
	"$RVKVM_TOP/scripts/run-host.sh" "$@" --timeout 600 >>"$log" 2>&1 ||
		{ tail -20 "$log"; die "benchmark run failed (log: $log)"; }
	stage_done
}
: >"$log"
bench "lkvm boot to guest init and peak RSS" \
	--guest-test "$RVKVM_TOP/tests/e2e/guest/hello.sh" \
	--test "$RVKVM_TOP/tests/bench/host-boot.sh"
bench "virtio-blk throughput and exits per MiB" \
	--guest-test "$RVKVM_TOP/tests/e2e/guest/hello.sh" \
	--guest-test "$RVKVM_TOP/tests/bench/guest-blk.sh" \
	--test "$RVKVM_TOP/tests/bench/host-blk.sh"
bench "guest to host TCP over virtio-net and a tap" \
	--guest-test "$RVKVM_TOP/tests/bench/guest-net.sh" \
	--test "$RVKVM_TOP/tests/bench/host-net.sh"
# lkvm with KVM's AIA, with its own PLIC, and kvmtool if KVMTOOL names a
# riscv64 kvmtool binary, alternating on one AIA host.
kvmtool_add=()
if [ -n "${KVMTOOL:-}" ]; then
	[ -x "$KVMTOOL" ] || die "KVMTOOL=$KVMTOOL is not an executable"
	kvmtool_add=(--add "$KVMTOOL:/rvkvm/kvmtool")
fi
bench "irqchips: lkvm aia, lkvm plic${KVMTOOL:+, kvmtool} on an AIA host" \
	--aia "${kvmtool_add[@]}" \
	--guest-test "$RVKVM_TOP/tests/bench/guest-io.sh" \
	--test "$RVKVM_TOP/tests/bench/host-irqchip.sh"
printf '%-36s %s\n' "measure" "value"
sed -n 's/^BENCH \([^ ]*\) \(.*\)$/\1 \2/p' "$log" | tr -d '\r' |
	while read -r name value unit; do
		printf '%-36s %s %s\n' "$name" "$value" "$unit"
	done

# The irqchip runs side by side: the mean of the rounds, and ratios.
echo
printf '%-28s %10s %10s %10s %12s %12s\n' "per VMM (mean of rounds)" \
	"lkvm-aia" "lkvm-plic" "kvmtool" "aia/plic" "aia/kvmtool"
sed -n 's/^BENCH \([a-z]*\)[0-9]-\([^ ]*\) \([0-9.]*\).*/\1 \2 \3/p' "$log" |
	tr -d '\r' | awk '
	{ sum[$1, $2] += $3; n[$1, $2]++; if (!($2 in seen)) { seen[$2]; order[++k] = $2 } }
	function m(v, x) { return n[v, x] ? sum[v, x] / n[v, x] : -1 }
	function r(a, b) { return (a >= 0 && b > 0) ? sprintf("%.2f", a / b) : "-" }
	function f(v) { return v >= 0 ? sprintf("%.2f", v) : "-" }
	END {
		for (i = 1; i <= k; i++) {
			x = order[i]
			if (x == "status") continue
			a = m("aia", x); p = m("plic", x); t = m("kvmtool", x)
			printf "%-28s %10s %10s %10s %12s %12s\n", x, f(a), f(p), f(t), r(a, p), r(a, t)
		}
	}'
