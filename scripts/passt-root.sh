#!/bin/bash
# passt-root.sh OUTDIR: passt, virtiofsd and qemu-storage-daemon for the
# emulated host.
# Unpacks Debian trixie's riscv64 passt, virtiofsd, qemu-utils and the
# libraries they need (scripts/riscv64-passt-packages.txt, cached like the
# sysroot) and lays out in OUTDIR what the host image gets:
#   usr/bin/passt
#   usr/libexec/virtiofsd                 (where Debian puts it)
#   usr/bin/qemu-storage-daemon, usr/bin/qemu-img
#   lib/ld-linux-riscv64-lp64d.so.1       (their PT_INTERP)
#   lib/riscv64-linux-gnu/<each library they need, and those need>
# The loader searches /lib/riscv64-linux-gnu by default, so they run as
# they are, as lkvm starts them (passt and qemu-storage-daemon found on
# PATH, virtiofsd on PATH or in /usr/libexec).  Fails naming the library
# when one of them needs one that is in no package of the list.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${1:?usage: passt-root.sh OUTDIR}
"$RVKVM_TOP/scripts/sysroot.sh" --list "$RVKVM_TOP/scripts/riscv64-passt-packages.txt" \
	--name passt-sysroot >/dev/null
root=$RVKVM_BUILD/passt-sysroot
libdir=$root/usr/lib/riscv64-linux-gnu
loader=ld-linux-riscv64-lp64d.so.1

rm -rf "$out.tmp"
mkdir -p "$out.tmp/usr/bin" "$out.tmp/usr/libexec" "$out.tmp/lib/riscv64-linux-gnu"
cp -L "$libdir/$loader" "$out.tmp/lib/$loader"
# The libraries an ELF file needs, each copied once, then theirs.
needs() {
	riscv64-linux-gnu-readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}
copy_libs() {
	local lib
	for lib in $(needs "$1"); do
		[ "$lib" = "$loader" ] && continue
		[ -e "$out.tmp/lib/riscv64-linux-gnu/$lib" ] && continue
		[ -e "$libdir/$lib" ] || die "passt-root: $lib (needed by ${1##*/}) is in none of the packages of scripts/riscv64-passt-packages.txt"
		cp -L "$libdir/$lib" "$out.tmp/lib/riscv64-linux-gnu/$lib"
		copy_libs "$out.tmp/lib/riscv64-linux-gnu/$lib"
	done
}
for prog in usr/bin/passt usr/libexec/virtiofsd usr/bin/qemu-storage-daemon usr/bin/qemu-img; do
	cp "$root/$prog" "$out.tmp/$prog"
	interp=$(riscv64-linux-gnu-readelf -l "$out.tmp/$prog" |
		sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	[ "$interp" = "/lib/$loader" ] || die "passt-root: $prog wants $interp, not /lib/$loader"
	copy_libs "$out.tmp/$prog"
done
rm -rf "$out" && mv "$out.tmp" "$out"
echo "passt-root: $(find "$out" -type f | wc -l) files, $(du -sh "$out" | cut -f1) in ${out#"$RVKVM_TOP"/}"
