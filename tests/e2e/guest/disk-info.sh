#!/bin/sh
# Guest side: /dev/vda is read-only, /dev/vdb holds an ext4 file system.
echo "guest-vda-ro: $(cat /sys/block/vda/ro)"
# blk-mq hardware queues: one directory per virtio-blk request queue.
echo "guest-vda-queues: $(ls /sys/block/vda/mq | wc -l)"
echo "guest-vdb-queues: $(ls /sys/block/vdb/mq | wc -l)"
if dd if=/dev/zero of=/dev/vda bs=512 count=1 conv=fsync 2>/dev/null; then
	echo "guest-ro-write-accepted"
else
	echo "guest-ro-write-refused"
fi
mkdir -p /mnt && mount -t ext4 -o ro /dev/vdb /mnt &&
	echo "guest-vdb-marker: $(cat /mnt/marker)"
