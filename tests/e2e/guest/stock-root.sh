#!/bin/sh
# Guest side, on a root file system on a virtio-blk disk (the stock guest of
# lkvm-stock-guest): what / is, and the kernel running.
echo "guest-root: $(awk '$2 == "/" { print $1, $3 }' /proc/mounts | tail -1)"
echo "guest-kernel: $(uname -r)"
echo "guest-root-marker: $(cat /etc/stock-root-marker 2>/dev/null)"
