#!/bin/bash
# deps.sh: install what rvkvm needs on this machine, then build the riscv64
# sysroot.  Safe to re-run: does nothing when everything is in place.
# Exit 2 when packages are missing and we are not root (the apt-get line
# to run is printed).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapfile -t wanted < <(grep -v '^[[:space:]]*\(#\|$\)' "$RVKVM_TOP/scripts/host-packages.txt")
missing=()
for p in "${wanted[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: missing Debian packages; as root run:" >&2
		echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
		exit 2
	fi
	mkdir -p "$RVKVM_CACHE"
	stage "deps: install ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" >"$RVKVM_CACHE/apt-install.log" 2>&1 ||
		{ tail -20 "$RVKVM_CACHE/apt-install.log" >&2; die "apt-get install failed (log: $RVKVM_CACHE/apt-install.log)"; }
	stage_done
else
	echo "deps: all ${#wanted[@]} host packages installed"
fi

"$RVKVM_TOP/scripts/sysroot.sh"
