# Sourced by the host side of the fio benchmarks (host-fio.sh,
# host-profile.sh; scripts/bench.sh adds it as ./fio-host-lib.sh).
#
# $fio_runtime: the seconds each fio job runs, rvkvm.fio_runtime= on the
# host's command line (BENCH_FIO_RUNTIME), 5 unless it says otherwise;
# the guest gets it as FIO_RUNTIME=N on its kernel command line, which
# its init passes to the fio jobs in its environment ($fio_params, for
# the VMMs' -p).
fio_runtime=$(sed -n 's/.*rvkvm\.fio_runtime=\([0-9]*\).*/\1/p' /proc/cmdline)
fio_runtime=${fio_runtime:-5}
fio_params="FIO_RUNTIME=$fio_runtime"
#
# fio_guest_start CMD...: the same start for every guest (no page cache,
# memory compacted for huge pages of guest RAM, a fresh 256 MiB image at
# /tmp/fio.img), then CMD in the background with its console into the
# fifo /tmp/fifo, which the caller reads; its pid in $pid.
fio_guest_start() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	echo 1 >/proc/sys/vm/compact_memory
	rm -f /tmp/fio.img
	dd if=/dev/zero of=/tmp/fio.img bs=1M count=256 2>/dev/null
	rm -f /tmp/fifo && mkfifo /tmp/fifo
	"$@" </dev/null >/tmp/fifo 2>&1 &
	pid=$!
}
