#!/bin/sh
# Guest side of the vsock benchmark (tests/bench/host-vsock.sh): vsock-peer
# bench to the host's bench server (CID 2, port rvkvm.vsockport= of the
# command line): rvkvm.vsock_mib= MiB (16 by default) guest -> host,
# timed from the first write to the server's byte count, then 2000 1-byte
# round trips (the mean).  Prints
# "BENCH c1-vsock-... value unit" or "... failed" lines.
port=$(sed -n 's/.*rvkvm\.vsockport=\([0-9]*\).*/\1/p' /proc/cmdline)
mib=$(sed -n 's/.*rvkvm\.vsock_mib=\([0-9]*\).*/\1/p' /proc/cmdline)
timeout 120 /bin/vsock-peer bench 2 "$port" $((${mib:-16} * 1048576)) 2000 ||
	echo "guest-vsock-bench-failed"
