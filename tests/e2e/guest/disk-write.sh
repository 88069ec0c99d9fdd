#!/bin/sh
# Guest side: write 1 MiB of a known pattern at 1 MiB into /dev/vda, sync.
yes rvkvm-pattern | head -c 1048576 >/tmp/p
dd if=/tmp/p of=/dev/vda bs=64k seek=16 conv=fsync 2>/dev/null &&
	sync && echo "guest-disk-synced"
