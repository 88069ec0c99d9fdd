#!/bin/sh
# Runs in the emulated host, PLIC or AIA: --irqchip picks as documented.
# On an AIA host: auto and aia take KVM's in-kernel AIA (the guest binds
# its APLIC and IMSIC drivers and gets virtio interrupts through irqfds,
# so the rng's used buffers cost lkvm no MMIO exit for the interrupt);
# plic still works.  On a PLIC host (whose kernel has rvkvm's in-kernel
# PLIC, kernel-patches/): auto takes KVM's PLIC (the guest sees the same
# PLIC node, virtio interrupts arrive), plic and kernel-plic work when
# asked for, and aia fails with one line and status 1.  On Debian's stock
# kernel (the host's command line says rvkvm.host-kernel=stock), which has
# no in-kernel PLIC: auto and --disable-ssaia take lkvm's own PLIC, and
# kernel-plic fails with one line and status 1.
. ./lib.sh

stock=0
grep -q 'rvkvm.host-kernel=stock' /proc/cmdline && stock=1

# The host's own device tree: an IMSIC means an AIA host (node names
# differ between QEMU versions, compatibles do not).
if cat /proc/device-tree/soc/*/compatible | tr '\0' '\n' |
	grep -qx riscv,imsics; then
	lkvm /tmp/auto.log --debug --rng -k Image -i guest-irqchip.cpio.gz \
		-m 128 -c 2
	t auto-status [ $rc -eq 0 ]
	t auto-takes-aia has "irqchip: aia (the host's KVM: in-kernel AIA yes" \
		/tmp/auto.log
	t aia-guest-has-imsic has "guest-irqchip: imsics" /tmp/auto.log
	t aia-guest-has-aplic has "guest-irqchip: aplic" /tmp/auto.log
	t aia-guest-no-plic lacks "guest-irqchip: plic" /tmp/auto.log
	t aia-guest-rng-reads has "guest-rng-bytes: 4096" /tmp/auto.log
	t aia-virtio-irq-counted has "guest-virtio-irqs: [1-9]" /tmp/auto.log

	lkvm /tmp/aia.log --debug --irqchip aia -k Image \
		-i guest-irqchip.cpio.gz -m 128 -c 1
	t aia-status [ $rc -eq 0 ]
	t aia-chosen has "irqchip: aia" /tmp/aia.log

	lkvm /tmp/plic.log --debug --irqchip plic --rng -k Image \
		-i guest-irqchip.cpio.gz -m 128 -c 2
	t plic-on-aia-host-status [ $rc -eq 0 ]
	t plic-on-aia-host-chosen has "irqchip: plic" /tmp/plic.log
	t plic-on-aia-host-guest-plic has "guest-irqchip: plic" /tmp/plic.log
	t plic-on-aia-host-rng has "guest-rng-bytes: 4096" /tmp/plic.log

	lkvm /tmp/nossaia.log --debug --disable-ssaia -k Image \
		-i guest-irqchip.cpio.gz -m 128 -c 1
	t disable-ssaia-status [ $rc -eq 0 ]
	if [ $stock -eq 1 ]; then
		t disable-ssaia-takes-plic has \
			"irqchip: plic (the host's KVM: in-kernel AIA yes, in-kernel PLIC no)" \
			/tmp/nossaia.log
	else
		t disable-ssaia-takes-kernel-plic has "irqchip: kernel-plic" \
			/tmp/nossaia.log
	fi
elif [ $stock -eq 1 ]; then
	lkvm /tmp/auto.log --debug --rng -k Image -i guest-irqchip.cpio.gz \
		-m 128 -c 2
	t auto-status [ $rc -eq 0 ]
	t auto-takes-plic has \
		"irqchip: plic (the host's KVM: in-kernel AIA no, in-kernel PLIC no)" \
		/tmp/auto.log
	t plic-guest-has-plic has "guest-irqchip: plic" /tmp/auto.log
	t plic-guest-rng has "guest-rng-bytes: 4096" /tmp/auto.log
	t plic-virtio-irq-counted has "guest-virtio-irqs: [1-9]" /tmp/auto.log

	lkvm /tmp/kplic.log --irqchip kernel-plic -k Image \
		-i guest-irqchip.cpio.gz -m 128 -c 1
	t kernel-plic-refused-status [ $rc -eq 1 ]
	t kernel-plic-refused-one-line \
		[ "$(grep -c 'lkvm: error' /tmp/kplic.log)" -eq 1 ]
	t kernel-plic-refused-says-why has "no in-kernel PLIC" /tmp/kplic.log

	lkvm /tmp/aia.log --irqchip aia -k Image -i guest-irqchip.cpio.gz \
		-m 128 -c 1
	t aia-on-plic-host-status [ $rc -eq 1 ]
	t aia-on-plic-host-says-why has "no in-kernel AIA" /tmp/aia.log
else
	lkvm /tmp/auto.log --debug --rng -k Image -i guest-irqchip.cpio.gz \
		-m 128 -c 1
	t auto-status [ $rc -eq 0 ]
	t auto-takes-kernel-plic has \
		"irqchip: kernel-plic (the host's KVM: in-kernel AIA no, in-kernel PLIC yes)" \
		/tmp/auto.log
	t kernel-plic-guest-has-plic has "guest-irqchip: plic" /tmp/auto.log
	t kernel-plic-guest-rng has "guest-rng-bytes: 4096" /tmp/auto.log
	t kernel-plic-virtio-irq-counted has "guest-virtio-irqs: [1-9]" \
		/tmp/auto.log

	lkvm /tmp/kplic.log --debug --irqchip kernel-plic --rng \
		--virtio-transport mmio -k Image -i guest-irqchip.cpio.gz \
		-m 128 -c 2
	t kernel-plic-mmio-status [ $rc -eq 0 ]
	t kernel-plic-mmio-chosen has "irqchip: kernel-plic" /tmp/kplic.log
	t kernel-plic-mmio-rng has "guest-rng-bytes: 4096" /tmp/kplic.log
	t kernel-plic-mmio-virtio-irq-counted has "guest-virtio-irqs: [1-9]" \
		/tmp/kplic.log

	lkvm /tmp/plic.log --debug --irqchip plic --rng -k Image \
		-i guest-irqchip.cpio.gz -m 128 -c 1
	t plic-status [ $rc -eq 0 ]
	t plic-chosen has "irqchip: plic (" /tmp/plic.log
	t plic-guest-has-plic has "guest-irqchip: plic" /tmp/plic.log
	t plic-rng has "guest-rng-bytes: 4096" /tmp/plic.log

	lkvm /tmp/aia.log --irqchip aia -k Image -i guest-irqchip.cpio.gz \
		-m 128 -c 1
	t aia-on-plic-host-status [ $rc -eq 1 ]
	t aia-on-plic-host-one-line [ "$(grep -c 'lkvm: error' /tmp/aia.log)" -eq 1 ]
	t aia-on-plic-host-says-why has "no in-kernel AIA" /tmp/aia.log

	# --dev naming something that is not KVM: one line that says so,
	# before any irqchip is chosen (the choice asks the VM lkvm boots;
	# a KVM without the in-kernel PLIC is the stock host's case below).
	lkvm /tmp/nokvm.log --dev /dev/null --irqchip kernel-plic -k Image \
		-i guest-irqchip.cpio.gz -m 128 -c 1
	t dev-not-kvm-status [ $rc -eq 1 ]
	t dev-not-kvm-one-line \
		[ "$(grep -c 'lkvm: error' /tmp/nokvm.log)" -eq 1 ]
	t dev-not-kvm-says-why has "/dev/null is not KVM" /tmp/nokvm.log
fi
exit $fail
