#!/bin/bash
# kernel.sh [--tree-only]: build the rvkvm kernel Image.
#
# Unpacks Debian's linux-source-6.12, applies kernel-patches/series with
# quilt, merges kernel-patches/config/*.config onto allnoconfig, verifies the
# result and builds arch/riscv/boot/Image with ccache.  The Image is cached
# under $RVKVM_CACHE/kernel/<hash of inputs>/ and copied to build/kernel/.
# With --tree-only, stop after patching and print the tree's path.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tarball=/usr/src/linux-source-6.12.tar.xz
[ -f "$tarball" ] || die "$tarball not found (run 'make deps')"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
	die "package linux-source-6.12 is not installed (run 'make deps')"

kp=$RVKVM_TOP/kernel-patches
mapfile -t patches < <(grep -v '^[[:space:]]*\(#\|$\)' "$kp/series" | sed "s|^|$kp/|")
fragments=("$kp"/config/*.config)
hash=$( { echo "$srcver"; hash_inputs "$kp/series" "${patches[@]}" \
	"${fragments[@]}" "$0"; } | sha256sum | cut -c1-16)

out=$RVKVM_CACHE/kernel/$hash
tree=$RVKVM_CACHE/kernel/tree
mkdir -p "$RVKVM_BUILD/kernel"

if [ "${1:-}" != --tree-only ] && [ -f "$out/Image" ]; then
	echo "kernel: inputs unchanged (linux-source $srcver, hash $hash): reusing cached Image"
	cp "$out/Image" "$out/config" "$RVKVM_BUILD/kernel/"
	exit 0
fi

# The patched tree is kept between builds; it is unpacked again only when
# the source package or the patches change (ccache needs a stable path).
treehash=$( { echo "$srcver"; hash_inputs "$kp/series" "${patches[@]}"; } | sha256sum | cut -c1-16)
if [ "$(cat "$tree/.rvkvm-tree" 2>/dev/null)" != "$treehash" ]; then
	stage "kernel: unpack linux-source $srcver"
	rm -rf "$tree" && mkdir -p "$tree"
	tar -xf "$tarball" -C "$tree" --strip-components=1
	stage_done

	stage "kernel: apply kernel-patches/series"
	"$RVKVM_TOP/scripts/apply-patches.sh" "$tree" "$kp"
	echo "$treehash" >"$tree/.rvkvm-tree"
	stage_done
else
	echo "kernel: patched tree unchanged, reusing $tree"
fi
if [ "${1:-}" = --tree-only ]; then
	echo "kernel: patched tree at $tree"
	exit 0
fi

export ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu-
export KBUILD_BUILD_USER=rvkvm KBUILD_BUILD_HOST=rvkvm
export KBUILD_BUILD_TIMESTAMP="linux-source $srcver"
export CCACHE_DIR=$RVKVM_CACHE/ccache CCACHE_BASEDIR=$tree
mkopts=(-C "$tree" -j"$(nproc)" CC="ccache ${CROSS_COMPILE}gcc")

stage "kernel: configure (allnoconfig + ${fragments[*]##*/})"
(cd "$tree" && scripts/kconfig/merge_config.sh -n "${fragments[@]}" >"$RVKVM_BUILD/kernel/config.log" 2>&1) ||
	die "kernel config merge failed (log: $RVKVM_BUILD/kernel/config.log)"
"$RVKVM_TOP/scripts/check-config.sh" "$tree/.config" "${fragments[@]}"
stage_done

stage "kernel: build Image (log: $RVKVM_BUILD/kernel/build.log)"
if ! make "${mkopts[@]}" Image >"$RVKVM_BUILD/kernel/build.log" 2>&1; then
	tail -30 "$RVKVM_BUILD/kernel/build.log" >&2
	die "kernel build failed (full log: $RVKVM_BUILD/kernel/build.log)"
fi
stage_done "$(du -h "$tree/arch/riscv/boot/Image" | cut -f1)"

mkdir -p "$out.tmp"
cp "$tree/arch/riscv/boot/Image" "$out.tmp/Image"
cp "$tree/.config" "$out.tmp/config"
rm -rf "$out" && mv "$out.tmp" "$out"
cp "$out/Image" "$out/config" "$RVKVM_BUILD/kernel/"
echo "kernel: $RVKVM_BUILD/kernel/Image (cached as $out)"
