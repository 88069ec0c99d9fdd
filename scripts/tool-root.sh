#!/bin/bash
# tool-root.sh TOOL OUTDIR: a Debian riscv64 program that runs where the
# root file system has none of its libraries: fio for the benchmark guest,
# perf for a profile inside the emulated host (make profile).  Unpacks
# Debian trixie's riscv64 packages of scripts/riscv64-TOOL-packages.txt
# (cached like the sysroot) and copies the program, the dynamic loader and
# the closure of its DT_NEEDED libraries flat into OUTDIR.  It runs as
# OUTDIR/TOOL, a wrapper that starts the loader with --library-path, so
# nothing depends on the target's /lib layout or an ld.so.cache.
# Fails naming the library when one in the closure is in no package.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tool=${1:?usage: tool-root.sh fio|perf OUTDIR}
out=${2:?usage: tool-root.sh fio|perf OUTDIR}
list=$RVKVM_TOP/scripts/riscv64-$tool-packages.txt
[ -f "$list" ] || die "tool-root: no package list for $tool (scripts/riscv64-$tool-packages.txt)"
"$RVKVM_TOP/scripts/sysroot.sh" --list "$list" --name "$tool-sysroot" >/dev/null
root=$RVKVM_BUILD/$tool-sysroot
bin=$root/usr/bin/$tool
[ -x "$bin" ] || die "tool-root: no $tool binary in the packages of ${list#"$RVKVM_TOP"/}"
libdirs=("$root/usr/lib/riscv64-linux-gnu" "$root/usr/lib/riscv64-linux-gnu/ceph"
	"$root/lib/riscv64-linux-gnu" "$root/usr/lib")

needed() {
	riscv64-linux-gnu-readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}

find_lib() {
	local d
	for d in "${libdirs[@]}"; do
		[ -e "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}

rm -rf "$out.tmp"
mkdir -p "$out.tmp"
cp "$bin" "$out.tmp/$tool.bin"
todo=("$out.tmp/$tool.bin")
while [ ${#todo[@]} -gt 0 ]; do
	f=${todo[0]}
	todo=("${todo[@]:1}")
	for lib in $(needed "$f"); do
		[ -e "$out.tmp/$lib" ] && continue
		src=$(find_lib "$lib") || die "tool-root: $lib (needed by $(basename "$f")) is in none of the packages of ${list#"$RVKVM_TOP"/}"
		cp -L "$src" "$out.tmp/$lib"
		todo+=("$out.tmp/$lib")
	done
done
cat >"$out.tmp/$tool" <<WRAP
#!/bin/sh
d=\$(dirname "\$0")
exec "\$d/ld-linux-riscv64-lp64d.so.1" --library-path "\$d" "\$d/$tool.bin" "\$@"
WRAP
chmod 755 "$out.tmp/$tool"
rm -rf "$out" && mv "$out.tmp" "$out"
echo "tool-root: $tool, $(ls "$out" | wc -l) files, $(du -sh "$out" | cut -f1) in ${out#"$RVKVM_TOP"/}"
