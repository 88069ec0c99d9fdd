#!/bin/bash
# The Makefile's choice between the cross build and the build on the board,
# from what 'make -n' would run (nothing is built): on this machine lkvm is
# cross-compiled, static, against the sysroot; with BUILD_MACHINE=riscv64
# (what uname -m says on a board) with plain gcc, dynamic, without the
# sysroot, and 'make deps' only checks for Debian's packages.  The build
# itself on riscv64 is tests/native/test-native-build.sh's.  Prints
# "PASS name" / "FAIL name" lines.
set -uo pipefail
. "$(dirname "$0")/../pass-fail.sh"

dry() {
	make -C "$top" --no-print-directory -n -B "$@" 2>&1
}
# has TEXT PATTERN / lacks TEXT PATTERN: a line of TEXT matches, none does.
has() { grep -q -- "$2" <<<"$1"; }
lacks() { ! grep -q -- "$2" <<<"$1"; }

cross=$(dry DEPS= lkvm)
board=$(dry DEPS= BUILD_MACHINE=riscv64 lkvm)
cc_cross=$(grep -- '-c vmm/main.c' <<<"$cross")
cc_board=$(grep -- '-c vmm/main.c' <<<"$board")
ld_cross=$(grep -- ' -o build/riscv64/lkvm$' <<<"$cross")
ld_board=$(grep -- ' -o build/riscv64/lkvm$' <<<"$board")
t board-make-cross-compiler has "$cc_cross" '^riscv64-linux-gnu-gcc .* -static .*-isystem build/sysroot/usr/include'
t board-make-cross-link-static has "$ld_cross" '^riscv64-linux-gnu-gcc -static .*-Lbuild/sysroot/'
t board-make-native-compiler has "$cc_board" '^gcc '
t board-make-native-no-sysroot lacks "$board" 'sysroot\|-static\|riscv64-linux-gnu-'
t board-make-native-libs has "$ld_board" '^gcc -pthread .* -lfdt .*-lz.*-luring.*-lseccomp'
# A unit test is compiled (-c) and linked apart: ccache, which the board
# suite's build goes through, caches compiles, never a compile and link in
# one call.
unit=$(dry DEPS= BUILD_MACHINE=riscv64 SAN= build/native/test_plic)
t board-make-unit-compiled-apart has "$unit" \
	'^gcc .* -c tests/unit/test_plic.c -o build/native/obj/tests/unit/test_plic.o$'
t board-make-unit-linked-from-objects has "$unit" \
	'^gcc .* build/native/obj/tests/unit/test_plic.o .* -o build/native/test_plic$'
t board-make-unit-link-compiles-nothing lacks \
	"$(grep -- ' -o build/native/test_plic$' <<<"$unit")" '\.c '
# 'make deps' on the board: a check with the apt-get line, not deps.sh.
deps=$(dry BUILD_MACHINE=riscv64 deps)
t board-make-deps-checks has "$deps" 'apt-get install gcc make pkg-config libfdt-dev zlib1g-dev liburing-dev libseccomp-dev'
t board-make-deps-not-deps-sh lacks "$deps" 'scripts/deps.sh'
t board-make-cross-deps-sh has "$(dry deps)" 'scripts/deps.sh'
exit 0
