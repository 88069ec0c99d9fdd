#!/bin/sh
# Runs in an emulated host with an AIA (APLIC + IMSIC): lkvm boots a 2-vCPU
# guest that powers off cleanly, and a guest reads /dev/hwrng from
# virtio-rng (a device interrupt delivered through lkvm's irqchip, whichever
# lkvm chose on this host).
. ./lib.sh
imsic() {
	cat /proc/device-tree/soc/*/compatible | tr '\0' '\n' | grep -qx riscv,imsics
}
t aia-host-has-imsic imsic
lkvm /tmp/c2.log -k Image -i guest-hello.cpio.gz -m 128 -c 2
t aia-host-boot-status [ $rc -eq 0 ]
t aia-host-boot-both-harts has "guest-hello: 2 cpu(s) online: 0-1" /tmp/c2.log
t aia-host-boot-poweroff has "rvkvm-guest-result: 0" /tmp/c2.log
lkvm /tmp/rng.log --rng -k Image -i guest-rng.cpio.gz -m 128 -c 1
t aia-host-virtio-rng-status [ $rc -eq 0 ]
t aia-host-virtio-rng-reads has "guest-rng-bytes: 256" /tmp/rng.log
exit $fail
