#!/bin/bash
# riscv64-chroot.sh DIR: a Debian 13 (trixie) riscv64 root in DIR (made
# anew), in which riscv64 programs run on this x86_64 machine through
# qemu-user and binfmt_misc: the Essential packages and those of
# scripts/riscv64-board-packages.txt (gcc, make, pkg-config, the -dev
# packages lkvm needs), at their pinned versions, as on a riscv64 board.
#
# mmdebstrap makes it once, from the machine's own Debian mirror (read from
# its apt sources); the tarball is cached as
# $RVKVM_CACHE/board-chroot/<hash of the list and this script>.tar.zst and
# unpacked from there.  Needs root (chroot, binfmt_misc), the qemu-user
# and qemu-user-binfmt packages (make deps).  The binfmt_misc entry for
# riscv64 is registered from qemu-user-binfmt's file, with the F flag (the
# emulator is opened at registration, so the chroot needs no copy of it),
# when it is missing: machines without systemd-binfmt or binfmt-support do
# not register it by themselves.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "usage: riscv64-chroot.sh DIR"
dir=$1
list=$RVKVM_TOP/scripts/riscv64-board-packages.txt
suite=trixie
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
binfmt=/proc/sys/fs/binfmt_misc
conf=/usr/lib/binfmt.d/qemu-riscv64.conf

[ "$(id -u)" -eq 0 ] ||
	die "riscv64-chroot.sh: the riscv64 chroot needs root (chroot, binfmt_misc)"

# The riscv64 entry is there, enabled, with the F flag; else register it.
binfmt_riscv64() {
	local entry=$binfmt/qemu-riscv64
	if [ ! -e "$binfmt/register" ]; then
		mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null ||
			die "binfmt_misc is not mounted at $binfmt and cannot be: riscv64 programs cannot run here"
	fi
	if [ -e "$entry" ] && grep -qx enabled "$entry" &&
		grep -q '^flags:.*F' "$entry"; then
		return 0
	fi
	[ -f "$conf" ] ||
		die "no binfmt_misc entry for riscv64 and no $conf: install qemu-user-binfmt (make deps)"
	# An entry without F would need the emulator inside the chroot.
	[ ! -e "$entry" ] || echo -1 >"$entry"
	grep -v '^[[:space:]]*\(#\|$\)' "$conf" | head -1 >"$binfmt/register" ||
		die "registering $conf in $binfmt failed"
	grep -q '^flags:.*F' "$entry" ||
		die "the binfmt_misc entry for riscv64 has no F flag ($conf)"
	echo "riscv64-chroot: registered $conf in $binfmt"
}

packages() {
	grep -v '^[[:space:]]*\(#\|$\)' "$list"
}

# The cached tarball, made by mmdebstrap when missing.
make_tarball() {
	local mirror includes
	mirror=$(debian_mirror | head -1 || true)
	[ -n "$mirror" ] ||
		die "cannot find the machine's Debian mirror in /etc/apt/sources.list*"
	command -v mmdebstrap >/dev/null ||
		die "mmdebstrap is not installed (make deps)"
	includes=$(packages | awk '{ print $1 "=" $2 }' | paste -sd,)
	mkdir -p "$(dirname "$tarball")"
	stage "riscv64-chroot: mmdebstrap $suite riscv64 with $(packages | wc -l) packages"
	rm -f "$tarball.tmp.tar.zst"
	mmdebstrap --mode=root --architectures=riscv64 --variant=essential \
		--include="$includes" \
		"$suite" "$tarball.tmp.tar.zst" \
		"deb [signed-by=$keyring] $mirror $suite main" \
		>"$tarball.log" 2>&1 ||
		{ tail -20 "$tarball.log" >&2; die "mmdebstrap failed (log: $tarball.log)"; }
	mv "$tarball.tmp.tar.zst" "$tarball"
	stage_done
}

binfmt_riscv64
hash=$(hash_inputs "$list" "$0")
tarball=$RVKVM_CACHE/board-chroot/$hash.tar.zst
if [ -f "$tarball" ]; then
	echo "riscv64-chroot: package list unchanged (hash $hash): cached chroot"
else
	make_tarball
fi
rm -rf "$dir"
mkdir -p "$dir"
tar -C "$dir" --zstd -xf "$tarball"
