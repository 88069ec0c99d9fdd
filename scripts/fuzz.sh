#!/bin/bash
# fuzz.sh long FUZZER...: run each libFuzzer target for FUZZ_SECONDS
# (default 300) with its seed corpus; new inputs are kept in
# $RVKVM_CACHE/fuzz-corpus/<name>, crashes in build/fuzz/artifacts/.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
shift
fail=0
mkdir -p "$RVKVM_BUILD/fuzz/artifacts"
for f in "$@"; do
	name=${f##*/fuzz_}
	work=$RVKVM_CACHE/fuzz-corpus/$name
	mkdir -p "$work"
	stage "fuzz: $name for ${FUZZ_SECONDS:-300} s"
	"$f" -max_total_time="${FUZZ_SECONDS:-300}" \
		-artifact_prefix="$RVKVM_BUILD/fuzz/artifacts/$name-" \
		"$work" "$RVKVM_TOP/tests/fuzz/corpus/$name" 2>&1 | tail -3 || fail=1
	stage_done
done
exit $fail
