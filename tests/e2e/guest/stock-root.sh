#!/bin/sh
# Guest side, on a root file system on a virtio-blk disk (the stock guest of
# lkvm-stock-guest): what / is, the kernel running, its modules.
echo "guest-root: $(awk '$2 == "/" { print $1, $3 }' /proc/mounts | tail -1)"
echo "guest-kernel: $(uname -r)"
echo "guest-root-marker: $(cat /etc/stock-root-marker 2>/dev/null)"
# The modules the initramfs loaded, sorted, and the disk's driver.
echo "guest-modules: $(cut -d' ' -f1 /proc/modules | sort | tr '\n' ' ')"
echo "guest-vda-driver: $(basename "$(readlink /sys/block/vda/device/driver)")"
