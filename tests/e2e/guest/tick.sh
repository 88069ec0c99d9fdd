#!/bin/sh
# Guest side of lkvm-dump.sh: a counter once a second until lkvm stops.
echo "guest-tick-ready"
i=0
while :; do
	i=$((i + 1))
	echo "guest-tick $i"
	sleep 1
done
