#!/bin/bash
# apply-patches.sh TREE PATCHDIR: apply the quilt series in PATCHDIR to TREE.
# Exits 0 when every patch applied; otherwise prints
#   error: patch NAME does not apply to TREE
# with quilt's output and exits 1, leaving TREE with the patches before it.
set -euo pipefail
tree=$1
patches=$(cd "$2" && pwd)

[ -d "$tree" ] || { echo "error: no source tree at $tree" >&2; exit 1; }
[ -f "$patches/series" ] || { echo "error: no series file in $patches" >&2; exit 1; }
cd "$tree"
if ! grep -qv '^[[:space:]]*\(#\|$\)' "$patches/series"; then
	echo "kernel-patches: series is empty, nothing to apply"
	exit 0
fi
export QUILT_PATCHES="$patches" QUILT_PC=.pc
# quilt prefers the patch directory recorded in an existing .pc to
# QUILT_PATCHES: a tree last used with another directory would push that
# one's series.  (A fresh tree has no .pc: quilt makes it, recording ours.)
if [ -d .pc ]; then
	echo "$patches" >.pc/.quilt_patches
	echo series >.pc/.quilt_series
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
while next=$(quilt next 2>/dev/null); do
	if ! quilt push -q >"$log" 2>&1; then
		cat "$log" >&2
		echo "error: patch $(basename "$next") does not apply to $tree" >&2
		exit 1
	fi
	echo "applied $(basename "$next")"
done
