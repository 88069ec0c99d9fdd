#!/bin/bash
# checkpatch.sh: run the kernel tree's scripts/checkpatch.pl --strict on
# every patch of kernel-patches/series, as a patch for that tree would be
# checked before it is posted.  Prints "PASS checkpatch-<patch>" or
# "FAIL checkpatch-<patch>" with checkpatch's report under it; exits
# non-zero if any patch has a finding.  The tree (unpacked and patched by
# scripts/kernel.sh --tree-only) is shared: hold the kernel cache lock.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree=$("$RVKVM_TOP/scripts/kernel.sh" --tree-only | sed -n 's/^kernel: patched tree at //p')
[ -x "$tree/scripts/checkpatch.pl" ] || die "no checkpatch.pl in the kernel tree (scripts/kernel.sh --tree-only)"
exec 9>"$RVKVM_CACHE/kernel/lock"
flock 9
kp=$RVKVM_TOP/kernel-patches
rc=0
while read -r p; do
	if out=$(cd "$tree" && scripts/checkpatch.pl --strict --quiet "$kp/$p" 2>&1); then
		echo "PASS checkpatch-${p%.patch}"
	else
		echo "FAIL checkpatch-${p%.patch}"
		printf '%s\n' "$out" | sed 's/^/  /'
		rc=1
	fi
done < <(grep -v '^[[:space:]]*\(#\|$\)' "$kp/series")
exit $rc
