#!/bin/bash
# fio-root.sh OUTDIR: fio for the benchmark guest.  Unpacks Debian trixie's
# riscv64 fio and its libraries (scripts/riscv64-fio-packages.txt, cached
# like the sysroot) and copies the fio binary, the dynamic loader and the
# closure of fio's DT_NEEDED libraries flat into OUTDIR.  The guest runs it
# as OUTDIR's "fio" wrapper, which starts the loader with --library-path,
# so nothing depends on the guest's /lib layout or an ld.so.cache.
# Fails naming the library when one in the closure is in no package.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${1:?usage: fio-root.sh OUTDIR}
"$RVKVM_TOP/scripts/sysroot.sh" --list "$RVKVM_TOP/scripts/riscv64-fio-packages.txt" \
	--name fio-sysroot >/dev/null
root=$RVKVM_BUILD/fio-sysroot
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
cp "$root/usr/bin/fio" "$out.tmp/fio.bin"
todo=("$out.tmp/fio.bin")
while [ ${#todo[@]} -gt 0 ]; do
	f=${todo[0]}
	todo=("${todo[@]:1}")
	for lib in $(needed "$f"); do
		[ -e "$out.tmp/$lib" ] && continue
		src=$(find_lib "$lib") || die "fio-root: $lib (needed by $(basename "$f")) is in none of the packages of scripts/riscv64-fio-packages.txt"
		cp -L "$src" "$out.tmp/$lib"
		todo+=("$out.tmp/$lib")
	done
done
cat >"$out.tmp/fio" <<'WRAP'
#!/bin/sh
d=$(dirname "$0")
exec "$d/ld-linux-riscv64-lp64d.so.1" --library-path "$d" "$d/fio.bin" "$@"
WRAP
chmod 755 "$out.tmp/fio"
rm -rf "$out" && mv "$out.tmp" "$out"
echo "fio-root: $(ls "$out" | wc -l) files, $(du -sh "$out" | cut -f1) in ${out#"$RVKVM_TOP"/}"
