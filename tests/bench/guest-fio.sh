#!/bin/sh
# Guest side of the fio benchmark (scripts/bench.sh, tests/bench/host-fio.sh):
# runs each job file of /opt/bench/ on /dev/vda with one fio job per vCPU,
# printing "fio-begin NAME" and "fio-end NAME" around it (the host reads
# KVM's exit counters and the VMM's CPU time there) and then
# "FIO NAME MiB/s IOPS KiB-moved" from fio's terse output (version 3: field
# 6 and 47 are KiB read and written, 7/48 KiB/s, 8/49 IOPS).
# FIO_RUNTIME: from the kernel command line (the host's BENCH_FIO_RUNTIME),
# which init passes on in the environment.
export FIO_RUNTIME=${FIO_RUNTIME:-5}
echo "fio-runtime $FIO_RUNTIME"
FIO_JOBS=$(grep -c ^processor /proc/cpuinfo)
export FIO_JOBS
# The markers themselves (console output) cost exits: measured once with
# nothing between them, the host subtracts that from every job.
echo "fio-begin markers"
echo "fio-end markers"
for job in /opt/bench/*.fio; do
	name=$(basename "$job" .fio)
	echo "fio-begin $name"
	/opt/fio/fio --minimal --terse-version=3 "$job" >/tmp/fio.out 2>/tmp/fio.err
	status=$?
	echo "fio-end $name"
	if [ $status -ne 0 ]; then
		echo "FIO $name failed: $(head -1 /tmp/fio.err)"
		continue
	fi
	awk -F';' -v n="$name" '{
		printf "FIO %s %.1f %d %d\n", n, ($7 + $48) / 1024, $8 + $49, $6 + $47
	}' /tmp/fio.out
done
echo "fio-done"
# The host reads the VMM's per-thread CPU times at the last "fio-end":
# give it a moment before the guest powers off and the threads end.
sleep 1
