#!/bin/sh
# Guest side of lkvm-fio-verify: fio (Debian's, in /opt/fio) writes the
# whole of /dev/vda with random blocks of 4 to 128 KiB at queue depth 16,
# two jobs each pinned to its own vCPU (so blk-mq sends them down both
# request queues) and each owning half of the disk, then reads every block
# back and checks its crc32c.  Prints "guest-fio-verify: ok" or the error.
n=$(grep -c ^processor /proc/cpuinfo)
echo "guest-cpus: $n"
echo "guest-vda-queues: $(ls -d /sys/block/vda/mq/* | wc -l)"
/opt/fio/fio --name=verify --filename=/dev/vda --ioengine=libaio --direct=1 \
	--thread --rw=randwrite --bsrange=4k-128k --iodepth=16 \
	--numjobs=2 --cpus_allowed=0-1 --cpus_allowed_policy=split \
	--size=50% --offset_increment=50% --randrepeat=0 \
	--verify=crc32c --verify_fatal=1 --do_verify=1 \
	--group_reporting --minimal --terse-version=3 >/tmp/fio.out 2>/tmp/fio.err
status=$?
cat /tmp/fio.err
if [ $status -eq 0 ] && [ -s /tmp/fio.out ]; then
	# One terse line per group; the totals are their sums.
	awk -F';' '{ w += $47; r += $6 }
		END { printf "guest-fio-written-KiB: %d\nguest-fio-read-KiB: %d\n", w, r }' /tmp/fio.out
	echo "guest-fio-verify: ok"
else
	echo "guest-fio-verify: failed (status $status)"
fi
