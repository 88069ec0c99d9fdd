#!/bin/sh
# Runs in the emulated host (run-host.sh --hostfwd: eth0 is QEMU's
# user-mode network; the build machine reaches port 1234 here): lkvm with
# --gdb tcp:0.0.0.0:1234 --gdb-wait, driven from the build machine by
# tests/e2e/lkvm-gdb.during (gdb-multiarch with the kernel's vmlinux):
# gdb finds the vCPUs held at the first instruction and detaches; when the
# guest is up it attaches again, breaks on a kernel function by symbol,
# reads a register and a variable, and detaches; the guest then runs to
# its end and powers off: lkvm exits 0.
. ./lib.sh

ip addr add 10.0.2.15/24 dev eth0
ip link set eth0 up
t gdb-host-eth0-up ip link show eth0
echo "lkvm-gdb: starting lkvm"
# The console (and lkvm's log lines) straight to ours: the driver reads it.
{
	timeout "${LKVM_TIMEOUT:-240}" ./lkvm run $irqchip_args -k Image \
		-i guest-gdb.cpio.gz -m 128 -c 2 --gdb tcp:0.0.0.0:1234 \
		--gdb-wait </dev/null
	echo "lkvm-gdb: lkvm exit status $?"
} 2>&1 | tee /tmp/a.log
t gdb-guest-ran-to-its-end has "guest-gdb-done" /tmp/a.log
t gdb-lkvm-attached-3-times [ "$(grep -c "gdb: attached" /tmp/a.log)" -eq 3 ]
t gdb-lkvm-exit-0 has "lkvm-gdb: lkvm exit status 0" /tmp/a.log
