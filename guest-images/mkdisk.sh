#!/bin/bash
# mkdisk.sh DIR OUT SIZE: make an ext4 disk image OUT of SIZE (e.g. 64M)
# holding the contents of DIR (mke2fs -d; no root or loop device needed).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 DIR OUT SIZE" >&2; exit 2; }
dir=$1 out=$2 size=$3
[ -d "$dir" ] || { echo "error: $dir is not a directory" >&2; exit 1; }
rm -f "$out.tmp"
mke2fs -q -F -t ext4 -L rvkvm -E root_owner=0:0 -d "$dir" "$out.tmp" "$size"
mv "$out.tmp" "$out"
