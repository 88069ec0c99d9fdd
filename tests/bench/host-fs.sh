#!/bin/sh
# Runs in the emulated host (scripts/bench.sh): the guest of
# tests/bench/guest-fs.sh (32 MiB written and read, then create, stat and
# unlink of N small files) on a share of the host's /tmp (tmpfs), through
# lkvm's 9p on virtio-pci ("lkvm") and on virtio-mmio ("lkvm-9pmmio"),
# lkvm's virtio-fs on Debian's virtiofsd ("lkvm-virtiofs", --fs) and,
# when bench.sh added ./kvmtool, kvmtool's 9p ("kvmtool", its default
# transport), in turns, rvkvm.bench_rounds= rounds (BENCH lines are
# "VMM-rR-c1-fs-..."); N is rvkvm.fs_files=.  1 vCPU, 256 MiB, no NIC.
rounds=$(sed -n 's/.*rvkvm\.bench_rounds=\([1-9]\).*/\1/p' /proc/cmdline)
files=$(sed -n 's/.*rvkvm\.fs_files=\([0-9]*\).*/\1/p' /proc/cmdline)
params="rvkvm.fs_files=${files:-1000}"
run() {
	name=$1
	shift
	rm -rf /tmp/sharefs
	mkdir -p /tmp/sharefs
	timeout 300 "$@" -k Image -i guest-guest-fs.cpio.gz -m 256 -c 1 \
		-n mode=none </dev/null >/tmp/fs-$name.log 2>&1
	tr -d '\r' </tmp/fs-$name.log | sed -n "s/^BENCH /BENCH $name-/p" |
		grep . || {
		echo "BENCH $name-c1-fs-run failed (no figures; the end of its log follows)"
		tail -20 /tmp/fs-$name.log
	}
}
r=1
while [ $r -le "${rounds:-2}" ]; do
	run lkvm-virtiofs-r$r ./lkvm run --fs /tmp/sharefs,bench \
		-p "rvkvm.fs=virtiofs $params"
	run lkvm-r$r ./lkvm run --9p /tmp/sharefs,bench -p "rvkvm.fs=9p $params"
	run lkvm-9pmmio-r$r ./lkvm run --virtio-transport mmio \
		--9p /tmp/sharefs,bench -p "rvkvm.fs=9p $params"
	[ -x ./kvmtool ] && run kvmtool-r$r ./kvmtool run \
		--9p /tmp/sharefs,bench -p "console=ttyS0 rvkvm.fs=9p $params"
	r=$((r + 1))
done
exit 0
