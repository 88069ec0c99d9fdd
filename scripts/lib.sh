# shellcheck shell=bash
# Common helpers for rvkvm scripts: cache location, stage timing, errors.

RVKVM_TOP=${RVKVM_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
RVKVM_CACHE=${RVKVM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rvkvm}
RVKVM_BUILD=${RVKVM_BUILD:-$RVKVM_TOP/build}

die() {
	echo "error: $*" >&2
	exit 1
}

# stage NAME: print a stage header; stage_done prints its elapsed time.
stage() {
	_stage_name=$1
	_stage_t0=$(date +%s)
	echo "==> $1"
}

stage_done() {
	echo "==> $_stage_name: done in $(($(date +%s) - _stage_t0)) s${1:+ ($1)}"
}

# hash_inputs FILE...: one sha256 over the names and contents of FILEs.
hash_inputs() {
	local f
	for f in "$@"; do
		printf '%s\n' "${f#"$RVKVM_TOP"/}"
		cat "$f"
	done | sha256sum | cut -c1-16
}

# The URI of the machine's Debian main archive (the one serving its own
# release), from deb822 .sources files or one-line sources.list entries.
debian_mirror() {
	local codename
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	{
		cat /etc/apt/sources.list.d/*.sources 2>/dev/null
		echo
	} | awk -v c="$codename" '
		/^URIs:/ { uri = $2 }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == c) ok = 1 }
		/^[[:space:]]*$/ { if (ok && uri) { print uri; exit } uri = ""; ok = 0 }'
	grep -hE '^deb[[:space:]]' /etc/apt/sources.list \
		/etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -E 's/\[[^]]*\]//' |
		awk -v c="$codename" '$3 == c { print $2 }' || true
}
