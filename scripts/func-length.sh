#!/bin/bash
# func-length.sh [MAX] [FILE...]: list C functions longer than MAX lines
# (default 60) in lib/, vmm/, devices/ and virtio/, counting from the line
# with the opening brace in column 0 to the closing one.  Exit 1 if any.
set -euo pipefail
cd "$(dirname "$0")/.."
max=${1:-60}
shift || true
[ $# -gt 0 ] || set -- lib/*.c vmm/*.c vmm/*/*.c devices/*.c virtio/*.c
awk -v max="$max" '
	FNR == 1 { start = 0 }
	/^[a-zA-Z].*\(/ { name = $0 }
	/^\{/ { start = FNR; fn = name }
	/^\}/ && start {
		n = FNR - start + 1
		if (n > max) { printf "%s:%d: %d lines: %s\n", FILENAME, start, n, fn; bad = 1 }
		start = 0
	}
	END { exit bad }
' "$@"
