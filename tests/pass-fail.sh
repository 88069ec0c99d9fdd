# Sourced by the script tests (tests/kernel, tests/images, tests/bench):
# $top (the repository), $tmp (a directory removed at exit) and
# t NAME CMD...: run CMD and print "PASS NAME" or "FAIL NAME".
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

t() {
	local name=$1
	shift
	if "$@"; then echo "PASS $name"; else echo "FAIL $name"; fi
}
