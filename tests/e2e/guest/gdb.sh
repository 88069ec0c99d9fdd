#!/bin/sh
# Guest side of lkvm-gdb.sh: say it is up, count for 60 s (while gdb
# attaches, breaks in the kernel and detaches), then end (the guest
# powers off: lkvm exits 0).
echo "guest-gdb-ready"
i=0
while [ $i -lt 60 ]; do
	i=$((i + 1))
	echo "guest-gdb-tick $i"
	sleep 1
done
echo "guest-gdb-done"
