#!/bin/bash
# Tests of scripts/layers.sh, the include-layer check, on small fake trees
# (a git repository each, the layer table in fixtures/layers.md): a clean
# tree passes; an include against the layers, layout.h read outside the
# board, <linux/kvm.h> outside vmm/kvm, a circle of two modules and a doc
# without the markers each fail, naming what is wrong.
# Prints "PASS name" / "FAIL name" lines.
set -uo pipefail
. "$(dirname "$0")/../pass-fail.sh"
doc=$top/tests/layers/fixtures/layers.md
layers=$top/scripts/layers.sh

# put TREE FILE [TEXT]: write FILE of TREE (TEXT: its lines, \n-separated).
put() {
	mkdir -p "$(dirname "$1/$2")"
	printf '%b' "${3:-}" >"$1/$2"
}

# commit TREE: commit all of TREE.
commit() {
	git -C "$1" add -A &&
		git -C "$1" -c user.name=test -c user.email=test@example.com \
			-c commit.gpgsign=false commit -qm "$2" >/dev/null
}

# variant NAME: a copy of the clean tree, to be changed and committed.
variant() {
	cp -a "$tmp/clean" "$tmp/$1"
}

# run NAME [ARGS...]: layers.sh on tree NAME; output in NAME.out, status
# in NAME.rc.
run() {
	local name=$1
	shift
	"$layers" --doc "$doc" "$@" "$tmp/$name" >"$tmp/$name.out" 2>&1
	echo $? >"$tmp/$name.rc"
}

# A clean tree: every layer, a relative include in lib/, the board's
# layout.h, KVM under vmm/kvm, vmm/main.c taking everything, and tests/
# (not checked) breaking the rules.
c=$tmp/clean
mkdir -p "$c" && git -C "$c" init -q
put "$c" lib/log.h '#pragma once\n'
put "$c" lib/log.c '#include <stdio.h>\n#include "log.h"\n'
put "$c" lib/sizes.h '#pragma once\n'
put "$c" devices/uart.h '#include "lib/log.h"\n'
put "$c" devices/uart.c '#include "devices/uart.h"\n#include "lib/sizes.h"\n'
put "$c" virtio/core.h '#include "lib/log.h"\n'
put "$c" virtio/core.c '#include "virtio/core.h"\n'
put "$c" vmm/isa.h '#include "lib/sizes.h"\n'
put "$c" vmm/isa.c '#include "vmm/isa.h"\n'
put "$c" vmm/config.h '#include "vmm/isa.h"\n'
put "$c" vmm/host/iothread.h '#include "vmm/config.h"\n'
put "$c" vmm/host/iothread.c '#include "vmm/host/iothread.h"\n'
put "$c" vmm/kvm/vm.h '#include "vmm/host/iothread.h"\n'
put "$c" vmm/kvm/vm.c '#include <linux/kvm.h>\n#  include "vmm/kvm/vm.h"\n'
put "$c" vmm/board/layout.h '#pragma once\n'
put "$c" vmm/board/board.h '#include "vmm/kvm/vm.h"\n#include "devices/uart.h"\n'
put "$c" vmm/board/board_virt.c '#include "vmm/board/board.h"\n#include "vmm/board/layout.h"\n#include "virtio/core.h"\n'
put "$c" vmm/machine/lifecycle.h '#include "vmm/board/board.h"\n'
put "$c" vmm/machine/lifecycle.c '#include "vmm/machine/lifecycle.h"\n'
put "$c" vmm/cmd/cli.h '#include "vmm/config.h"\n'
put "$c" vmm/cmd/cli.c '#include "vmm/cmd/cli.h"\n#include "vmm/machine/lifecycle.h"\n'
put "$c" vmm/main.c '#include "vmm/cmd/cli.h"\n#include "devices/uart.h"\n#include "virtio/core.h"\n'
put "$c" tests/unit/test_board.c '#include <linux/kvm.h>\n#include "vmm/board/layout.h"\n#include "vmm/main.c"\n'
put "$c" README.md 'not C\n'
commit "$c" clean
run clean
t layers-clean-passes test "$(cat "$tmp/clean.rc")" -eq 0
t layers-clean-summary grep -qxF 'layers: 22 files, 26 includes, no layer crossed, no circle' "$tmp/clean.out"

# Only what git tracks is read.
variant untracked
put "$tmp/untracked" vmm/kvm/stray.c '#include "vmm/board/board.h"\n'
run untracked
t layers-untracked-ignored test "$(cat "$tmp/untracked.rc")" -eq 0

# An include upwards: vmm/kvm may not see the board.
variant up
put "$tmp/up" vmm/kvm/vm.h '#include "vmm/host/iothread.h"\n#include "vmm/board/board.h"\n'
commit "$tmp/up" up
run up
t layers-upward-fails test "$(cat "$tmp/up.rc")" -eq 1
t layers-upward-named grep -qxF 'scripts/layers.sh: vmm/kvm/vm.h includes vmm/board/board.h: vmm/kvm may include lib, vmm, vmm/host, vmm/kvm' "$tmp/up.out"

# lib/ includes nothing of vmm/ (the table says so).
variant libvmm
put "$tmp/libvmm" lib/log.c '#include "log.h"\n#include "vmm/config.h"\n'
commit "$tmp/libvmm" libvmm
run libvmm
t layers-lib-to-vmm-fails test "$(cat "$tmp/libvmm.rc")" -eq 1
t layers-lib-to-vmm-named grep -qxF 'scripts/layers.sh: lib/log.c includes vmm/config.h: lib may include lib' "$tmp/libvmm.out"

# A folder the table does not know.
variant newdir
put "$tmp/newdir" vmm/extra/x.c '#include "lib/log.h"\n'
commit "$tmp/newdir" newdir
run newdir
t layers-unknown-folder-fails test "$(cat "$tmp/newdir.rc")" -eq 1
t layers-unknown-folder-named grep -q '^scripts/layers.sh: vmm/extra/x.c: folder vmm/extra has no row' "$tmp/newdir.out"

# layout.h read outside the board, though vmm/machine may include the board.
variant layout
put "$tmp/layout" vmm/machine/lifecycle.c '#include "vmm/machine/lifecycle.h"\n#include "vmm/board/layout.h"\n'
commit "$tmp/layout" layout
run layout
t layers-layout-fails test "$(cat "$tmp/layout.rc")" -eq 1
t layers-layout-named grep -qxF 'scripts/layers.sh: vmm/machine/lifecycle.c includes vmm/board/layout.h: only vmm/board/board_virt.c may include vmm/board/layout.h' "$tmp/layout.out"
t layers-layout-one-line test "$(wc -l <"$tmp/layout.out")" -eq 1

# <linux/kvm.h> outside vmm/kvm.
variant kvm
put "$tmp/kvm" vmm/host/iothread.c '#include <linux/kvm.h>\n#include "vmm/host/iothread.h"\n'
commit "$tmp/kvm" kvm
run kvm
t layers-kvm-fails test "$(cat "$tmp/kvm.rc")" -eq 1
t layers-kvm-named grep -qxF 'scripts/layers.sh: vmm/host/iothread.c includes <linux/kvm.h>: only files under vmm/kvm/ may include <linux/kvm.h>' "$tmp/kvm.out"

# Two modules of one folder that include each other.
variant circle
put "$tmp/circle" vmm/host/pty.h '#pragma once\n'
put "$tmp/circle" vmm/host/pty.c '#include "vmm/host/pty.h"\n#include "vmm/host/term.h"\n'
put "$tmp/circle" vmm/host/term.h '#pragma once\n'
put "$tmp/circle" vmm/host/term.c '#include "vmm/host/term.h"\n#include "vmm/host/pty.h"\n'
commit "$tmp/circle" circle
run circle
t layers-circle-fails test "$(cat "$tmp/circle.rc")" -eq 1
t layers-circle-named grep -qxF 'scripts/layers.sh: circle of modules vmm/host/pty -> vmm/host/term -> vmm/host/pty: vmm/host/pty.c includes vmm/host/term.h, vmm/host/term.c includes vmm/host/pty.h' "$tmp/circle.out"
t layers-circle-once test "$(wc -l <"$tmp/circle.out")" -eq 1

# A doc without the markers, and one with a single marker.
grep -v '<!-- layers:' "$doc" >"$tmp/nomarkers.md"
"$layers" --doc "$tmp/nomarkers.md" "$tmp/clean" >"$tmp/nomarkers.out" 2>&1
t layers-no-markers-fails test $? -eq 1
t layers-no-markers-named grep -qxF "scripts/layers.sh: $tmp/nomarkers.md has no \"<!-- layers: begin -->\" and \"<!-- layers: end -->\" markers around the layer table" "$tmp/nomarkers.out"
t layers-no-markers-one-line test "$(wc -l <"$tmp/nomarkers.out")" -eq 1
grep -v '<!-- layers: end' "$doc" >"$tmp/noend.md"
LAYERS_DOC=$tmp/noend.md "$layers" "$tmp/clean" >"$tmp/noend.out" 2>&1
t layers-no-end-marker-fails test $? -eq 1
t layers-no-end-marker-named grep -qF 'has no "<!-- layers: end -->" marker' "$tmp/noend.out"
