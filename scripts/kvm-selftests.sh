#!/bin/bash
# kvm-selftests.sh OUTDIR: cross-build the KVM selftests of kernel-patches/
# (tools/testing/selftests/kvm/riscv/plic_test) statically for riscv64 from
# the patched kernel tree, into OUTDIR.  The tree is shared: hold the
# kernel cache lock while its headers and the selftests are built.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mkdir -p "$1"
out=$(cd "$1" && pwd)
tree=$("$RVKVM_TOP/scripts/kernel.sh" --tree-only | sed -n 's/^kernel: patched tree at //p')
[ -d "$tree" ] || die "no patched kernel tree (scripts/kernel.sh --tree-only)"
exec 9>"$RVKVM_CACHE/kernel/lock"
flock 9
# Objects built from another kernel tree (another linux-source version)
# do not link with this one's: start over when the tree changed.
if [ "$(cat "$out/obj/.rvkvm-tree" 2>/dev/null)" != "$tree" ]; then
	rm -rf "$out/obj"
	mkdir -p "$out/obj"
	echo "$tree" >"$out/obj/.rvkvm-tree"
fi
log=$RVKVM_BUILD/kernel/selftests.log
mkdir -p "$(dirname "$log")"
stage "kvm selftests: headers and riscv/plic_test (log: $log)"
export ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu-
if ! { make -C "$tree" headers &&
	make -C "$tree/tools/testing/selftests/kvm" LDFLAGS=-static \
		OUTPUT="$out/obj" "$out/obj/riscv/plic_test"; } >"$log" 2>&1; then
	tail -20 "$log" >&2
	die "kvm selftests build failed (log: $log)"
fi
cp "$out/obj/riscv/plic_test" "$out/plic_test"
stage_done
