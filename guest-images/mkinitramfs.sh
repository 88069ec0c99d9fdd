#!/bin/bash
# mkinitramfs.sh -o OUT|--dir DIR [--add SRC:DEST]... [--test SCRIPT]
#
# Build a gzip'd newc initramfs with busybox (from the riscv64 sysroot) and
# guest-images/init.sh as /init.  --add copies a host file or directory SRC
# to DEST inside the image (repeatable); --test installs SCRIPT as
# /rvkvm/test, which /init runs instead of a shell.  The same image recipe
# serves the emulated host and lkvm guests.  --dir DIR: the same tree in
# DIR, not archived (a disk's root: guest-images/mkdisk.sh).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

usage() {
	sed -n '2,11s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

out= dir=
adds=()
while [ $# -gt 0 ]; do
	case "$1" in
	-o) out=$2; shift 2 ;;
	--dir) dir=$2; shift 2 ;;
	--add) adds+=("$2"); shift 2 ;;
	--test) adds+=("$2:/rvkvm/test"); shift 2 ;;
	-h|--help) usage ;;
	*) echo "mkinitramfs: unknown option $1" >&2; usage ;;
	esac
done
[ -n "$out" ] || [ -n "$dir" ] || usage

busybox=$RVKVM_BUILD/sysroot/usr/bin/busybox
[ -x "$busybox" ] || die "no riscv64 busybox at $busybox (run 'make deps')"

stagedir=$(mktemp -d)
trap 'rm -rf "$stagedir"' EXIT
mkdir -p "$stagedir"/{bin,sbin,dev,proc,sys,tmp,run,etc,root,rvkvm}
cp "$busybox" "$stagedir/bin/busybox"
install -m 755 "$RVKVM_TOP/guest-images/init.sh" "$stagedir/init"
echo "root:x:0:0:root:/root:/bin/sh" >"$stagedir/etc/passwd"
for a in "${adds[@]}"; do
	src=${a%%:*}
	dest=${a#*:}
	[ -e "$src" ] || die "--add: $src does not exist"
	mkdir -p "$stagedir$(dirname "$dest")"
	cp -a "$src" "$stagedir$dest"
done
# The kernel opens /dev/console before /init runs; creating the node needs
# root, /init copes without it (it redirects after mounting devtmpfs).
mknod -m 600 "$stagedir/dev/console" c 5 1 2>/dev/null || true

if [ -n "$dir" ]; then
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	cp -a "$stagedir" "$dir"
	exit 0
fi
mkdir -p "$(dirname "$out")"
(cd "$stagedir" && find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc --owner=0:0 --quiet) | gzip -6 -n >"$out.tmp"
mv "$out.tmp" "$out"
