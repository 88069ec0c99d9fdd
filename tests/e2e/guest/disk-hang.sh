#!/bin/sh
# Guest side: as disk-write.sh, then wait to be killed (kill -9 of lkvm).
yes rvkvm-pattern | head -c 1048576 >/tmp/p
dd if=/tmp/p of=/dev/vda bs=64k seek=16 conv=fsync 2>/dev/null &&
	sync && echo "guest-disk-synced"
sleep 600
