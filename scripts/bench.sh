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
printf '%-36s %s\n' "measure" "value"
sed -n 's/^BENCH \([^ ]*\) \(.*\)$/\1 \2/p' "$log" | tr -d '\r' |
	while read -r name value unit; do
		printf '%-36s %s %s\n' "$name" "$value" "$unit"
	done
