#!/bin/bash
# passt-root.sh OUTDIR: passt for the emulated host.  Unpacks Debian
# trixie's riscv64 passt and libc6 (scripts/riscv64-passt-packages.txt,
# cached like the sysroot) and lays out in OUTDIR what the host image gets:
#   usr/bin/passt
#   lib/ld-linux-riscv64-lp64d.so.1       (passt's PT_INTERP)
#   lib/riscv64-linux-gnu/<each library passt needs>
# The loader searches /lib/riscv64-linux-gnu by default, so passt runs as
# it is, as lkvm starts it (found on PATH).  Fails naming the library when
# one passt needs is in no package of the list.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${1:?usage: passt-root.sh OUTDIR}
"$RVKVM_TOP/scripts/sysroot.sh" --list "$RVKVM_TOP/scripts/riscv64-passt-packages.txt" \
	--name passt-sysroot >/dev/null
root=$RVKVM_BUILD/passt-sysroot
libdir=$root/usr/lib/riscv64-linux-gnu
loader=ld-linux-riscv64-lp64d.so.1

rm -rf "$out.tmp"
mkdir -p "$out.tmp/usr/bin" "$out.tmp/lib/riscv64-linux-gnu"
cp "$root/usr/bin/passt" "$out.tmp/usr/bin/passt"
interp=$(riscv64-linux-gnu-readelf -l "$out.tmp/usr/bin/passt" |
	sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
[ "$interp" = "/lib/$loader" ] || die "passt-root: passt wants $interp, not /lib/$loader"
cp -L "$libdir/$loader" "$out.tmp/lib/$loader"
for lib in $(riscv64-linux-gnu-readelf -d "$out.tmp/usr/bin/passt" |
	sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
	[ "$lib" = "$loader" ] && continue
	[ -e "$libdir/$lib" ] || die "passt-root: $lib (needed by passt) is in none of the packages of scripts/riscv64-passt-packages.txt"
	cp -L "$libdir/$lib" "$out.tmp/lib/riscv64-linux-gnu/$lib"
done
rm -rf "$out" && mv "$out.tmp" "$out"
echo "passt-root: $(find "$out" -type f | wc -l) files, $(du -sh "$out" | cut -f1) in ${out#"$RVKVM_TOP"/}"
