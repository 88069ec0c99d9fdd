#!/bin/sh
# Guest side: read from the virtio-rng device through /dev/hwrng.
echo "guest-rng-current: $(cat /sys/class/misc/hw_random/rng_current)"
dd if=/dev/hwrng of=/tmp/r bs=64 count=4 2>/dev/null
echo "guest-rng-bytes: $(wc -c </tmp/r)"
if [ -n "$(od -An -tx1 /tmp/r | tr -d ' 0\n')" ]; then
	echo "guest-rng-nonzero"
fi
