#!/bin/bash
# kernel.sh [--tree-only]: build the rvkvm kernel Image.
#
# Unpacks Debian's linux-source package pinned in scripts/kernel-source.txt
# (fetched and cached by scripts/kernel-source.sh), applies
# kernel-patches/series with quilt, merges kernel-patches/config/*.config onto allnoconfig, verifies the
# result and builds arch/riscv/boot/Image.  The Image is cached under
# $RVKVM_CACHE/kernel/<hash of inputs>/ and copied to build/kernel/.
# With --tree-only, stop after patching and print the tree's path.
#
# The tree, with its objects, is kept in the cache per linux-source version
# ($RVKVM_CACHE/kernel/linux-<version>): a change of the series or of a
# patch pops the old stack and pushes the new one (the files either touches
# are rebuilt), a change of the fragments reconfigures, and kbuild rebuilds
# only what changed.  No ccache: a cold ccache makes the first build about
# half again as slow, and the kept tree already makes rebuilds incremental.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

deb=$("$RVKVM_TOP/scripts/kernel-source.sh")
srcpkg=$(dpkg-deb -f "$deb" Package)
srcver=$(dpkg-deb -f "$deb" Version)

kp=$RVKVM_TOP/kernel-patches
mapfile -t patches < <(grep -v '^[[:space:]]*\(#\|$\)' "$kp/series" | sed "s|^|$kp/|")
fragments=("$kp"/config/*.config)
hash=$( { echo "$srcver"; hash_inputs "$kp/series" "${patches[@]}" \
	"${fragments[@]}" "$0"; } | sha256sum | cut -c1-16)

out=$RVKVM_CACHE/kernel/$hash
tree=$RVKVM_CACHE/kernel/linux-${srcver//[^A-Za-z0-9.-]/_}
mkdir -p "$RVKVM_BUILD/kernel" "$RVKVM_CACHE/kernel"
# One kernel build at a time in the shared tree (other work trees, CI).
exec 9>"$RVKVM_CACHE/kernel/lock"
flock 9

if [ "${1:-}" != --tree-only ] && [ -f "$out/Image" ] &&
	[ -f "$out/vmlinux" ]; then
	echo "kernel: inputs unchanged (linux-source $srcver, hash $hash): reusing cached Image"
	cp "$out/Image" "$out/config" "$out/vmlinux" "$RVKVM_BUILD/kernel/"
	exit 0
fi

# unpack: a fresh tree of this linux-source version, from the tarball in
# the .deb.  Trees of other versions stay (other work trees may build from
# them) until unused for two weeks.
unpack() {
	stage "kernel: unpack $srcpkg $srcver"
	rm -rf "$tree"
	mkdir -p "$tree"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO "./usr/src/$srcpkg.tar.xz" |
		tar -xJ -C "$tree" --strip-components=1
	stage_done
}
find "$RVKVM_CACHE/kernel" -mindepth 2 -maxdepth 2 -path '*/linux-*/.rvkvm-used' \
	-mtime +14 -printf '%h\n' | xargs -r rm -rf --

# unpatch: pop the applied quilt stack (from quilt's backups: the patch
# files may have changed or gone) and touch what it had changed, so kbuild
# rebuilds those files' objects.
unpatch() {
	local files
	[ -s "$tree/.pc/applied-patches" ] || return 0
	stage "kernel: pop the previous quilt stack"
	files=$(cd "$tree/.pc" && find . -mindepth 2 -type f ! -name .timestamp |
		cut -d/ -f3-)
	(cd "$tree" && QUILT_PATCHES="$kp" QUILT_PC=.pc quilt pop -a -f -q) \
		>"$RVKVM_BUILD/kernel/quilt-pop.log" 2>&1 || return 1
	[ -z "$files" ] ||
		(cd "$tree" && printf '%s\n' "$files" | xargs -d '\n' touch -c --)
	stage_done
}

treehash=$( { echo "$srcver"; hash_inputs "$kp/series" "${patches[@]}"; } | sha256sum | cut -c1-16)
if [ "$(cat "$tree/.rvkvm-tree" 2>/dev/null)" != "$treehash" ]; then
	# No stamp while the stack changes: an interrupted run starts over.
	rm -f "$tree/.rvkvm-tree"
	if [ ! -f "$tree/Makefile" ]; then
		unpack
	elif ! unpatch; then
		echo "kernel: quilt pop failed (log: $RVKVM_BUILD/kernel/quilt-pop.log); unpacking again"
		unpack
	fi
	stage "kernel: apply kernel-patches/series"
	"$RVKVM_TOP/scripts/apply-patches.sh" "$tree" "$kp"
	echo "$treehash" >"$tree/.rvkvm-tree"
	stage_done
else
	echo "kernel: patched tree unchanged, reusing $tree"
fi
touch "$tree/.rvkvm-used"
if [ "${1:-}" = --tree-only ]; then
	echo "kernel: patched tree at $tree"
	exit 0
fi

export ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu-
export KBUILD_BUILD_USER=rvkvm KBUILD_BUILD_HOST=rvkvm
export KBUILD_BUILD_TIMESTAMP="linux-source $srcver"
# One job more than CPUs: on 2 cores the cold build took 346 s instead of
# 434 s (gcc waits for the disk and the page cache now and then).
mkopts=(-C "$tree" -j"$(($(nproc) + 1))")

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
# The ELF kernel with its symbols, for gdb and crash dumps of a guest.
cp "$tree/vmlinux" "$out.tmp/vmlinux"
rm -rf "$out" && mv "$out.tmp" "$out"
cp "$out/Image" "$out/config" "$out/vmlinux" "$RVKVM_BUILD/kernel/"
echo "kernel: $RVKVM_BUILD/kernel/Image (cached as $out)"
