#!/bin/bash
# layers.sh [--doc FILE] [TOP]: check the includes of the C files git tracks
# under lib/ devices/ virtio/ vmm/ of the tree TOP (default: this
# repository) against the layer table of FILE (default: $LAYERS_DOC, else
# TOP/docs/architecture.md).  The table is the markdown table between the
# lines "<!-- layers: begin -->" and "<!-- layers: end -->":
#
#   | folder | may include |
#   |---|---|
#   | lib | lib |
#   | vmm/main.c | everything |
#
# A file belongs to the row naming its path (vmm/main.c), else to the row
# naming its folder (vmm/isa.c: vmm; vmm/kvm/vm.c: vmm/kvm).  In a cell,
# only the first word of each comma-separated item counts (backticks and
# a trailing "/" are dropped), so "vmm (the shared types)" is vmm.
# "everything" allows every folder.  An include "X" names X from the top,
# unless the including file's folder has X (lib/log.c's "log.h").
# Includes <...> are ignored but for <linux/kvm.h>.  Checked:
#   - an include reaches only a folder its file's row allows;
#   - only $layout_users includes $layout (tests/ are not checked);
#   - only files under $kvm_dir/ (and $kvm_numbers, for the ioctl
#     numbers) include <linux/kvm.h>;
#   - no circle of modules: module X is X.c with X.h, and it depends on Y
#     when one of its files includes Y.h.
# Prints one line per violation and exits 1, or prints
# "layers: N files, N includes, no layer crossed, no circle" (N includes:
# the #include "..." lines read) and exits 0.  Usage errors exit 2.
set -uo pipefail

me=scripts/layers.sh
layout=vmm/board/layout.h
layout_users=vmm/board/board_virt.c
kvm_dir=vmm/kvm
# Names the KVM ioctls its filter allows; issues none.
kvm_numbers=vmm/host/seccomp.c
begin='<!-- layers: begin -->'
end='<!-- layers: end -->'

usage() {
	echo "usage: $me [--doc FILE] [TOP]" >&2
	exit 2
}

doc=${LAYERS_DOC:-}
top=
while [ $# -gt 0 ]; do
	case $1 in
	--doc) [ $# -ge 2 ] || usage; doc=$2; shift 2 ;;
	--doc=*) doc=${1#--doc=}; shift ;;
	-*) usage ;;
	*) [ -z "$top" ] || usage; top=$1; shift ;;
	esac
done
[ -n "$top" ] || top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "$doc" ]; then
	docname=docs/architecture.md
	doc=$top/$docname
else
	docname=$doc
fi
[[ $doc == /* ]] || doc=$PWD/$doc
cd "$top" 2>/dev/null || { echo "$me: $top: no such directory" >&2; exit 2; }
if ! [ -f "$doc" ] || ! [ -r "$doc" ]; then
	echo "$me: cannot read $docname"
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! git -c core.quotePath=false ls-files >"$tmp/tracked" 2>/dev/null; then
	echo "$me: $top is not a git work tree" >&2
	exit 2
fi
files=()
while IFS= read -r f; do
	[ -f "$f" ] && files+=("$f")
done < <(grep -E '^(lib|devices|virtio|vmm)/.*\.[ch]$' "$tmp/tracked")
printf '%s\n' "${files[@]}" >"$tmp/checked"

# Inputs by phase: 1 the doc, 2 the tracked files, 3 the files to check,
# 4 their contents (/dev/null keeps awk off stdin when there is none).
awk -v me="$me" -v docname="$docname" -v begin="$begin" -v end="$end" \
	-v layout="$layout" -v layout_users="$layout_users" -v kvm_dir="$kvm_dir" -v kvm_numbers="$kvm_numbers" '
function trim(s) { gsub(/^[ \t\r]+|[ \t\r]+$/, "", s); return s }
# The first word of a cell item, without backticks, "*" or a trailing "/".
function word(s) {
	gsub(/[`*]/, "", s)
	s = trim(s)
	sub(/[ \t].*/, "", s)
	sub(/\/+$/, "", s)
	return s
}
function fail(msg) {
	if (!(msg in said)) { said[msg] = 1; nfail++; print me ": " msg }
}
function dirname(p) { return p ~ /\// ? substr(p, 1, match(p, /\/[^\/]*$/) - 1) : "." }
# Drop "." and "dir/.." components.
function normalize(p,    n, i, c, out, k) {
	n = split(p, c, "/"); k = 0
	for (i = 1; i <= n; i++) {
		if (c[i] == "" || c[i] == ".") continue
		if (c[i] == ".." && k > 0 && out[k] != "..") { k--; continue }
		out[++k] = c[i]
	}
	p = ""
	for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") out[i]
	return p
}
function layer(p) { return (p in row) ? p : dirname(p) }
function module(p) { sub(/\.[ch]$/, "", p); return p }
function under(p, d) { return index(p, d "/") == 1 }
# Once, before the first file: the table must be there and whole.
function checkdoc(    i, j, miss, f) {
	if (docchecked++) return
	if (!sawbegin || !sawend) {
		miss = sawbegin ? "\"" end "\" marker" : sawend ? "\"" begin "\" marker" : \
			"\"" begin "\" and \"" end "\" markers"
		print me ": " docname " has no " miss " around the layer table"
		baddoc = 1; exit 1
	}
	if (nrows == 0) {
		print me ": " docname ": no \"| folder | may include |\" rows between the layer markers"
		baddoc = 1; exit 1
	}
	for (i = 1; i <= nrows; i++)
		for (j = 1; j <= nmay[rows[i]]; j++)
			if (!(mayl[rows[i], j] in row))
				fail(docname ": " rows[i] " may include " mayl[rows[i], j] \
					", which has no row of its own")
	for (i = 1; i <= nchecked; i++) {
		f = layer(checked[i])
		if (!(f in row))
			fail(checked[i] ": folder " f " has no row in the layer table of " docname)
	}
}

phase == 1 {
	if (trim($0) == begin) { inside = 1; sawbegin = 1; next }
	if (trim($0) == end) { inside = 0; sawend = 1; next }
	if (!inside || $0 !~ /^[ \t]*\|/) next
	if (split($0, cell, "|") < 3) next
	f = word(cell[2])
	if (f == "" || tolower(f) == "folder" || f ~ /^:?-+:?$/ || f in row) next
	row[f] = 1; rows[++nrows] = f
	k = split(cell[3], item, ",")
	for (i = 1; i <= k; i++) {
		w = word(item[i])
		if (w == "") continue
		shown[f] = shown[f] (shown[f] == "" ? "" : ", ") w
		if (w == "everything") all[f] = 1
		else { may[f, w] = 1; mayl[f, ++nmay[f]] = w }
	}
	next
}

phase == 2 { exists[$0] = 1; next }

phase == 3 { if ($0 != "") checked[++nchecked] = $0; next }

phase == 4 && FILENAME != "/dev/null" {
	checkdoc()
	if (FILENAME != cur) {
		cur = FILENAME; me_layer = layer(cur); me_mod = module(cur)
		if (!(me_mod in isnode)) { isnode[me_mod] = 1; nodes[++nnodes] = me_mod }
	}
	if ($0 ~ /^[ \t]*#[ \t]*include[ \t]*</) {
		name = $0; sub(/^[^<]*</, "", name); sub(/>.*/, "", name)
		if (name == "linux/kvm.h" && !under(cur, kvm_dir) && cur != kvm_numbers)
			fail(cur " includes <linux/kvm.h>: only files under " kvm_dir "/ may include <linux/kvm.h>")
		next
	}
	if ($0 !~ /^[ \t]*#[ \t]*include[ \t]*"/) next
	name = $0; sub(/^[^"]*"/, "", name); sub(/".*/, "", name)
	nincl++
	local = normalize(dirname(cur) "/" name)
	inc = (local in exists) ? local : normalize(name)
	if (inc == "linux/kvm.h" && !under(cur, kvm_dir) && cur != kvm_numbers)
		fail(cur " includes \"linux/kvm.h\": only files under " kvm_dir "/ may include <linux/kvm.h>")
	to = layer(inc)
	if ((me_layer in row) && !(me_layer in all) && !((me_layer, to) in may))
		fail(cur " includes " inc ": " me_layer " may include " shown[me_layer])
	if (inc == layout && index(" " layout_users " ", " " cur " ") == 0)
		fail(cur " includes " inc ": only " layout_users " may include " layout)
	to = module(inc)
	if (inc ~ /\.[ch]$/ && to != me_mod && !((me_mod, to) in edge)) {
		edge[me_mod, to] = cur " includes " inc
		adj[me_mod] = adj[me_mod] " " to
	}
}

END {
	if (baddoc) exit 1
	checkdoc()
	# reach[u, v]: v is reachable from u (breadth first from every node).
	for (i = 1; i <= nnodes; i++) {
		u = nodes[i]; qh = 1; qt = 0
		q[++qt] = u
		while (qh <= qt) {
			x = q[qh++]
			k = split(adj[x], nb, " ")
			for (j = 1; j <= k; j++)
				if (!((u, nb[j]) in reach)) { reach[u, nb[j]] = 1; q[++qt] = nb[j] }
		}
	}
	# Each strongly connected component (two modules or more) is a circle:
	# print its shortest circle through its first module with the includes
	# that make it, and all its modules when the circle misses some.
	for (i = 1; i <= nnodes; i++) {
		u = nodes[i]
		if ((u in done) || !((u, u) in reach)) continue
		split("", in_scc); members = 0; list = ""
		for (j = 1; j <= nnodes; j++) {
			v = nodes[j]
			if (v == u || (((u, v) in reach) && ((v, u) in reach))) {
				in_scc[v] = 1; done[v] = 1; members++
				list = list (list == "" ? "" : ", ") v
			}
		}
		split("", parent); qh = 1; qt = 0
		q[++qt] = u; parent[u] = ""; last = ""
		while (qh <= qt && last == "") {
			x = q[qh++]
			k = split(adj[x], nb, " ")
			for (j = 1; j <= k; j++) {
				if (!(nb[j] in in_scc)) continue
				if (nb[j] == u) { last = x; break }
				if (!(nb[j] in parent)) { parent[nb[j]] = x; q[++qt] = nb[j] }
			}
		}
		path = u; why = edge[last, u]; x = last; len = 1
		while (x != u) {
			path = x " -> " path
			why = edge[parent[x], x] ", " why
			x = parent[x]; len++
		}
		msg = "circle of modules " u " -> " path ": " why
		if (members > len)
			msg = msg " (all in one circle: " list ")"
		fail(msg)
	}
	if (nfail) exit 1
	print "layers: " nchecked + 0 " files, " nincl + 0 " includes, no layer crossed, no circle"
}
' phase=1 "$doc" phase=2 "$tmp/tracked" phase=3 "$tmp/checked" phase=4 "${files[@]}" /dev/null
