#!/bin/sh
# Runs in the emulated host, booted with --disk and --kill-on
# guest-disk-synced (tests/e2e/cases): lkvm's disk is an image on the ext4
# file system of the host's own virtio disk /dev/vda, a file on the build
# machine.  The guest writes 1 MiB and syncs it; at its "guest-disk-synced"
# the build machine kills QEMU, and lkvm-durable.post looks for the data in
# the file.  ext4 allocates blocks late (delalloc), so the data reaches
# /dev/vda only if lkvm's fdatasync makes this host's kernel write it out.
# (lkvm on the raw /dev/vda cannot fail: the host writes part of a block
# device's page cache out on its own, flush or not.)
# With rvkvm.test_skip_flush=1 on the host's command line (run-host.sh
# --append), lkvm skips the flush (LKVM_TEST_SKIP_FLUSH=1): the test fails.
. ./lib.sh

# No periodic writeback: only a flush takes the data out of the page cache.
echo 0 >/proc/sys/vm/dirty_writeback_centisecs
echo 360000 >/proc/sys/vm/dirty_expire_centisecs
mkdir -p /mnt
t durable-host-disk-mounted mount -t ext4 /dev/vda /mnt
dd if=/dev/zero of=/mnt/disk.img bs=1 count=0 seek=8M 2>/dev/null
sync
if grep -q "rvkvm.test_skip_flush=1" /proc/cmdline; then
	echo "lkvm-durable: LKVM_TEST_SKIP_FLUSH=1, the test should fail"
	export LKVM_TEST_SKIP_FLUSH=1
fi
# The console goes straight to ours: the build machine watches it.
timeout "${LKVM_TIMEOUT:-120}" ./lkvm run $irqchip_args -k Image \
	-i guest-disk-hang.cpio.gz -m 128 -c 1 -d /mnt/disk.img </dev/null
echo "FAIL durable-killed-after-sync (lkvm exit status $?, QEMU not killed)"
exit 1
