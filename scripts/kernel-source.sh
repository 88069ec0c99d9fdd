#!/bin/bash
# kernel-source.sh [--list FILE]: print the path of the cached Debian
# linux-source .deb pinned in scripts/kernel-source.txt (or FILE),
# downloading it first when it is not in $RVKVM_CACHE/kernel-source yet.
#
# As scripts/sysroot.sh does for riscv64 packages: apt runs with a private
# state directory ($RVKVM_CACHE/kernel-source/apt) and a sources list naming
# the machine's own Debian mirror, so the machine's apt configuration is
# never touched.  Only this architecture's index is read: the suite lists
# its architecture "all" packages there too.  A download says so in one
# line on stderr; when the archive no longer has the pinned version the
# script fails with one line naming the package and the version.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

list=$RVKVM_TOP/scripts/kernel-source.txt
if [ "${1:-}" = --list ]; then
	list=$2
fi
[ -f "$list" ] || die "kernel-source.sh: no list $list"
read -r pkg ver suite < <(grep -v '^[[:space:]]*\(#\|$\)' "$list" | head -1) ||
	die "no package line in $list"
[ -n "${suite:-}" ] || die "$list: expected 'package version suite'"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
dir=$RVKVM_CACHE/kernel-source
deb=$dir/${pkg}_${ver}_all.deb
mkdir -p "$dir"
# One download at a time (other work trees, CI).
exec 8>"$dir/lock"
flock 8

if [ -f "$deb" ] && [ "$(dpkg-deb -f "$deb" Package Version 2>/dev/null |
	sed 's/^[^:]*: //' | paste -sd' ')" = "$pkg $ver" ]; then
	echo "$deb"
	exit 0
fi

mirror=$(debian_mirror | head -1 || true)
[ -n "$mirror" ] || die "cannot find the machine's Debian mirror in /etc/apt/sources.list*"
arch=$(dpkg --print-architecture)
apt_dir=$dir/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
echo "deb [arch=$arch signed-by=$keyring] $mirror $suite main" >"$apt_dir/sources.list"
apt_opts=(-q -oAPT::Architecture="$arch" -oAPT::Architectures="$arch"
	-oDir::State::Lists="$apt_dir/lists" -oDir::State::status=/dev/null
	-oDir::Etc::SourceList="$apt_dir/sources.list" -oDir::Etc::SourceParts=/dev/null
	-oDir::Cache="$apt_dir/cache" -oDebug::NoLocking=1)

t0=$(date +%s)
apt-get "${apt_opts[@]}" update >"$apt_dir/update.log" 2>&1 ||
	die "apt-get update for $suite failed (log: $apt_dir/update.log)"
(cd "$dir" && apt-get "${apt_opts[@]}" download "$pkg=$ver") \
	>"$apt_dir/download.log" 2>&1 ||
	die "$pkg $ver is no longer in $suite (log: $apt_dir/download.log): pin what the mirror offers in ${list#"$RVKVM_TOP"/} and rebase kernel-patches/"
[ -f "$deb" ] || die "apt-get download of $pkg $ver left no $deb"
echo "kernel-source: downloaded $pkg $ver ($(du -h "$deb" | cut -f1), $(($(date +%s) - t0)) s)" >&2
echo "$deb"
