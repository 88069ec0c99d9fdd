#!/bin/bash
# make install: lkvm (the static riscv64 binary) and its man page under
# DESTDIR + PREFIX (or BINDIR, MANDIR), with their modes; nothing else.
# Prints "PASS name" / "FAIL name" lines.
set -uo pipefail
. "$(dirname "$0")/../pass-fail.sh"
mk() {
	make -C "$top" --no-print-directory install "$@" >>"$tmp/log" 2>&1
}

mk DESTDIR="$tmp/d" PREFIX=/usr
t install-status test $? -eq 0
t install-lkvm-riscv64-static bash -c "file '$tmp/d/usr/bin/lkvm' | grep -q 'RISC-V.*statically linked'"
t install-lkvm-mode-755 test "$(stat -c %a "$tmp/d/usr/bin/lkvm")" = 755
t install-man-page cmp -s "$top/docs/lkvm.1" "$tmp/d/usr/share/man/man1/lkvm.1"
t install-man-mode-644 test "$(stat -c %a "$tmp/d/usr/share/man/man1/lkvm.1")" = 644
t install-nothing-else test "$(find "$tmp/d" -type f | wc -l)" -eq 2

mk DESTDIR="$tmp/e" BINDIR=/opt/rv/bin MANDIR=/opt/rv/man
t install-bindir test -x "$tmp/e/opt/rv/bin/lkvm"
t install-mandir test -f "$tmp/e/opt/rv/man/man1/lkvm.1"

# The default prefix is /usr/local.
mk DESTDIR="$tmp/f"
t install-default-prefix test -x "$tmp/f/usr/local/bin/lkvm"
[ -n "${VERBOSE:-}" ] && cat "$tmp/log"
exit 0
