#!/bin/bash
# deps.sh: install what rvkvm needs on this machine, then build the riscv64
# sysroot.  Safe to re-run: does nothing when everything is in place.
# Exit 2 when something is missing and we are not root (what to run as
# root is printed).
#
# QEMU 10 and OpenSBI 1.5 come from <codename>-backports: as root this
# script adds an apt sources entry for it on the machine's own Debian mirror
# (read from its apt sources) and an apt pin that keeps everything else of
# backports at the low default priority, so that only the packages marked
# "backports" in scripts/host-packages.txt come from there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

min_qemu=10
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
bpo=$codename-backports
bpo_sources=/etc/apt/sources.list.d/rvkvm-backports.sources
bpo_pin=/etc/apt/preferences.d/rvkvm-backports
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

wanted=() bpo_pkgs=()
while read -r name from; do
	wanted+=("$name")
	[ "$from" = backports ] && bpo_pkgs+=("$name")
done < <(grep -v '^[[:space:]]*\(#\|$\)' "$RVKVM_TOP/scripts/host-packages.txt")

# apt_suite_uris SUITE FILE...: the URIs of the enabled "deb" entries for
# SUITE in apt sources files, deb822 (.sources) or one-line (.list).
apt_suite_uris() {
	local suite=$1 f
	shift
	for f in "$@"; do
		[ -f "$f" ] || continue
		case "$f" in
		*.sources)
			awk -v s="$suite" '
				function flush() {
					if (deb && ok && on) printf "%s", uris
					deb = ok = 0; on = 1; uris = ""
				}
				BEGIN { on = 1 }
				/^[[:space:]]*$/ { flush(); next }
				/^[[:space:]]*#/ { next }
				tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
				tolower($1) == "uris:" { for (i = 2; i <= NF; i++) uris = uris $i "\n" }
				tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == s) ok = 1 }
				tolower($1) == "enabled:" && tolower($2) == "no" { on = 0 }
				END { flush() }' "$f"
			;;
		*)
			sed -E 's/\[[^]]*\]//' "$f" |
				awk -v s="$suite" '$1 == "deb" && $3 == s { print $2 }'
			;;
		esac
	done
}

# What the backports sources entry and the pin should contain; empty
# sources when the machine's own apt sources already have backports.
bpo_files() {
	local others=() f mirror
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources; do
		[ "$f" = "$bpo_sources" ] || others+=("$f")
	done
	want_sources=
	if [ -z "$(apt_suite_uris "$bpo" "${others[@]}")" ]; then
		mirror=$(apt_suite_uris "$codename" "${others[@]}" | head -1)
		[ -n "$mirror" ] ||
			die "cannot find the machine's Debian mirror ($codename) in its apt sources"
		want_sources="# Written by rvkvm's scripts/deps.sh: $bpo for QEMU and OpenSBI;
# $bpo_pin lets only those come from it.
Types: deb
URIs: $mirror
Suites: $bpo
Components: main
Signed-By: $keyring"
	fi
	want_pin="# Written by rvkvm's scripts/deps.sh: nothing comes from $bpo
# unless asked for, except the packages rvkvm needs from there.
Package: *
Pin: release n=$bpo
Pin-Priority: 100

Package: ${bpo_pkgs[*]}
Pin: release n=$bpo
Pin-Priority: 500"
}

# same FILE CONTENT: FILE exists with exactly CONTENT (empty: FILE absent).
same() {
	if [ -z "$2" ]; then [ ! -e "$1" ]; else [ "$(cat "$1" 2>/dev/null)" = "$2" ]; fi
}

is_root() { [ "$(id -u)" -eq 0 ]; }

bpo_files
if ! same "$bpo_sources" "$want_sources" || ! same "$bpo_pin" "$want_pin"; then
	if ! is_root; then
		echo "deps: QEMU $min_qemu and OpenSBI come from $bpo, which is not set up;" \
			"as root run: scripts/deps.sh" >&2
		exit 2
	fi
	echo "deps: enabling $bpo for ${bpo_pkgs[*]} ($bpo_sources, $bpo_pin)"
	if [ -n "$want_sources" ]; then
		printf '%s\n' "$want_sources" >"$bpo_sources"
	else
		rm -f "$bpo_sources"
	fi
	printf '%s\n' "$want_pin" >"$bpo_pin"
fi

# A package is in place when installed; one from backports when the
# installed version is a backport (Debian's "~bpo" version suffix).
missing=()
for p in "${wanted[@]}"; do
	v=$(dpkg-query -W -f='${Status} ${Version}' "$p" 2>/dev/null || true)
	case " ${bpo_pkgs[*]} " in
	*" $p "*) [[ $v == "install ok installed "*~bpo* ]] || missing+=("$p") ;;
	*) [[ $v == "install ok installed "* ]] || missing+=("$p") ;;
	esac
done

if [ ${#missing[@]} -gt 0 ]; then
	if ! is_root; then
		echo "deps: missing Debian packages; as root run:" >&2
		echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
		exit 2
	fi
	mkdir -p "$RVKVM_CACHE"
	stage "deps: install ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >"$RVKVM_CACHE/apt-update.log" 2>&1 ||
		{ tail -20 "$RVKVM_CACHE/apt-update.log" >&2; die "apt-get update failed (log: $RVKVM_CACHE/apt-update.log)"; }
	apt-get install -y -q --no-install-recommends "${missing[@]}" >"$RVKVM_CACHE/apt-install.log" 2>&1 ||
		{ tail -20 "$RVKVM_CACHE/apt-install.log" >&2; die "apt-get install failed (log: $RVKVM_CACHE/apt-install.log)"; }
	stage_done
else
	echo "deps: all ${#wanted[@]} host packages installed (${#bpo_pkgs[@]} from $bpo)"
fi

qemu_version=$(qemu-system-riscv64 --version 2>/dev/null |
	sed -n '1s/^QEMU emulator version \([0-9][0-9.]*\).*/\1/p' || true)
[ "${qemu_version%%.*}" -ge "$min_qemu" ] 2>/dev/null ||
	die "qemu-system-riscv64 is ${qemu_version:+QEMU }${qemu_version:-missing}; rvkvm needs QEMU $min_qemu or newer (package qemu-system-riscv from $bpo)"

"$RVKVM_TOP/scripts/sysroot.sh"
