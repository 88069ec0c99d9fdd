#!/bin/bash
# sysroot.sh [--list FILE --name NAME] [--update-pins [--pin-from META]]
# [--repin CMD]: build the riscv64
# sysroot from Debian trixie riscv64 packages listed, with pinned versions,
# in scripts/riscv64-packages.txt.  --list and --name unpack another pinned
# list (scripts/riscv64-fio-packages.txt: fio for the bench guest) the same
# way, into $RVKVM_CACHE/NAME/<hash>, linked as build/NAME.
#
# apt runs with a private state directory under $RVKVM_CACHE/apt, so the
# machine's own apt configuration is never touched.  The mirror is the one
# the machine's apt sources already use.  The sysroot is cached under
# $RVKVM_CACHE/sysroot/<hash of the package list> and linked as build/sysroot.
# --update-pins rewrites the list with the versions the mirror has now;
# with --pin-from META the list's one line becomes the package META (a
# metapackage) depends on first, at its version (the stock kernel's list).
# A pin the mirror no longer has is one line naming the package and what
# the mirror offers; --repin names the command that re-pins (the default:
# this script's --update-pins).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

list=$RVKVM_TOP/scripts/riscv64-packages.txt
name=sysroot
update_pins=0
pin_from=
repin="scripts/sysroot.sh --update-pins"
while [ $# -gt 0 ]; do
	case "$1" in
	--list) list=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--update-pins) update_pins=1; shift ;;
	--pin-from) pin_from=$2; shift 2 ;;
	--repin) repin=$2; shift 2 ;;
	*) die "sysroot.sh: unknown option $1" ;;
	esac
done
[ -f "$list" ] || die "sysroot.sh: no package list $list"
suite=trixie
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

mirror=$(debian_mirror | head -1 || true)
[ -n "$mirror" ] || die "cannot find the machine's Debian mirror in /etc/apt/sources.list*"

apt_dir=$RVKVM_CACHE/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
echo "deb [arch=riscv64 signed-by=$keyring] $mirror $suite main" >"$apt_dir/sources.list"
apt_opts=(-q -oAPT::Architecture=riscv64 -oAPT::Architectures=riscv64
	-oDir::State::Lists="$apt_dir/lists" -oDir::State::status=/dev/null
	-oDir::Etc::SourceList="$apt_dir/sources.list" -oDir::Etc::SourceParts=/dev/null
	-oDir::Cache="$apt_dir/cache" -oDebug::NoLocking=1)

apt_update() {
	stage "sysroot: apt-get update ($suite riscv64)"
	apt-get "${apt_opts[@]}" update >"$apt_dir/update.log" 2>&1 ||
		{ cat "$apt_dir/update.log" >&2; die "apt-get update for $suite riscv64 failed"; }
	stage_done
}

packages() {
	grep -v '^[[:space:]]*\(#\|$\)' "$list"
}

if [ $update_pins -eq 1 ]; then
	apt_update
	tmp=$(mktemp)
	grep '^#' "$list" >"$tmp"
	if [ -n "$pin_from" ]; then
		ver=$(apt-cache "${apt_opts[@]}" policy "$pin_from" | awk '/Candidate:/ { print $2 }')
		[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "package $pin_from not found in $suite riscv64"
		# "Depends: NAME (= VERSION), ...": its first package and version.
		apt-cache "${apt_opts[@]}" show "$pin_from=$ver" |
			sed -n 's/^Depends: \([^ ,]*\) (= \([^)]*\)).*/\1 \2/p' |
			head -1 | grep . >>"$tmp" ||
			die "$pin_from $ver depends on no package at an exact version"
		mv "$tmp" "$list"
		echo "$name: pin updated in ${list#"$RVKVM_TOP"/}: $(packages)"
		exit 0
	fi
	packages | while read -r pkg _; do
		ver=$(apt-cache "${apt_opts[@]}" policy "$pkg" | awk '/Candidate:/ { print $2 }')
		[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "package $pkg not found in $suite riscv64"
		printf '%s %s\n' "$pkg" "$ver"
	done >>"$tmp"
	mv "$tmp" "$list"
	echo "sysroot: pins updated in ${list#"$RVKVM_TOP"/}"
	exit 0
fi

hash=$(hash_inputs "$list" "$0")
root=$RVKVM_CACHE/$name/$hash
mkdir -p "$RVKVM_BUILD"
if [ -f "$root/.complete" ]; then
	echo "$name: package list unchanged (hash $hash): reusing cached $name"
	ln -sfn "$root" "$RVKVM_BUILD/$name"
	exit 0
fi

apt_update
stage "$name: download and unpack $(packages | wc -l) packages"
rm -rf "$root.tmp" && mkdir -p "$root.tmp"
packages | while read -r pkg ver; do
	deb=$(ls "$apt_dir/cache/archives/${pkg}_"*.deb 2>/dev/null | head -1 || true)
	if [ -z "$deb" ] || [ "$(dpkg-deb -f "$deb" Version)" != "$ver" ]; then
		if ! (cd "$apt_dir/cache/archives" &&
		      apt-get "${apt_opts[@]}" download "$pkg=$ver" >"$apt_dir/download.log" 2>&1); then
			avail=$(apt-cache "${apt_opts[@]}" policy "$pkg" 2>/dev/null | awk '/Candidate:/ { print $2 }')
			[ "$avail" != "(none)" ] || avail=
			# The archive lacks the pin: one line says so.  Another
			# failure (the network) shows apt's own words first.
			if [ "$avail" = "$ver" ]; then
				cat "$apt_dir/download.log" >&2
				die "$name: download of $pkg $ver failed"
			fi
			die "$name: the archive has no $pkg $ver (it offers ${avail:-no version of it}; '$repin' re-pins)"
		fi
		deb=$(ls "$apt_dir/cache/archives/${pkg}_"*.deb | head -1)
	fi
	dpkg-deb -x "$deb" "$root.tmp"
	echo "  $pkg $ver"
done
# Absolute symlinks inside the packages would point into the build machine:
# make them relative.
find "$root.tmp" -type l -lname '/*' | while read -r l; do
	rel=$(realpath -m --relative-to="$(dirname "$l")" "$root.tmp$(readlink "$l")")
	ln -sfn "$rel" "$l"
done
stage_done
touch "$root.tmp/.complete"
rm -rf "$root" && mv "$root.tmp" "$root"
ln -sfn "$root" "$RVKVM_BUILD/$name"
echo "$name: $RVKVM_BUILD/$name -> $root"
