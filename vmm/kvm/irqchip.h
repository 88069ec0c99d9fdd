/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest's interrupt controller: which one (--irqchip), KVM's
 * in-kernel AIA (an APLIC in MSI mode in front of one IMSIC per hart) and
 * KVM's in-kernel PLIC (KVM_DEV_TYPE_RISCV_PLIC, from kernel-patches/).
 *
 * Both are KVM's: lkvm only configures them through device attributes and
 * describes them in the device tree (the in-kernel PLIC with the very node
 * of the PLIC emulated in lkvm).  The configuration sequences are written
 * against struct aia_attr_ops, so they run against KVM in kvm_aia.c and
 * against a fake in the unit tests.
 */
#ifndef RVKVM_IRQCHIP_H
#define RVKVM_IRQCHIP_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/config.h"
#include "lib/device.h"

enum irqchip_kind {
	IRQCHIP_KIND_PLIC,	  /* user-space PLIC, KVM_INTERRUPT */
	IRQCHIP_KIND_AIA,	  /* in-kernel AIA, KVM_IRQ_LINE and irqfd */
	IRQCHIP_KIND_KERNEL_PLIC, /* in-kernel PLIC, KVM_IRQ_LINE and irqfd */
};

/* What the host offers, probed once at start. */
struct irqchip_host {
	bool aia;	  /* KVM_DEV_TYPE_RISCV_AIA can be created */
	bool kernel_plic; /* KVM_DEV_TYPE_RISCV_PLIC can be created */
};

/*
 * The choice for cfg on this host: 0 and *kind, or -ENODEV when
 * --irqchip aia or kernel-plic was asked for and the host's KVM lacks it
 * (*why says so).  auto takes the AIA unless the host lacks it or
 * --disable-ssaia hides it from the guest (as kvmtool does), else the
 * in-kernel PLIC if KVM offers it, else the PLIC emulated in lkvm.
 */
int irqchip_select(const struct vm_config *cfg, const struct irqchip_host *host,
		   enum irqchip_kind *kind, const char **why);

const char *irqchip_name(enum irqchip_kind kind);

/* Interrupts go through KVM (KVM_IRQ_LINE, irqfd), not lkvm's PLIC. */
static inline bool irqchip_in_kernel(enum irqchip_kind kind)
{
	return kind != IRQCHIP_KIND_PLIC;
}

/* Device attribute access to KVM's AIA device (or a fake). */
struct aia_attr_ops {
	int (*get)(void *opaque, uint32_t group, uint64_t attr, uint64_t *v);
	int (*set)(void *opaque, uint32_t group, uint64_t attr, uint64_t v);
};

/* Where the AIA goes and how big it is: from the board. */
struct aia_params {
	unsigned int nr_harts;
	uint64_t aplic_base; /* KVM_DEV_RISCV_APLIC_SIZE window */
	uint64_t imsic_base; /* hart i's IMSIC: + i * 4 KiB */
	uint32_t nr_sources; /* wanted; capped below the ids */
	uint32_t aplic_phandle, imsic_phandle;
	uint32_t cpu_intc_phandle; /* hart i's: + i */
};

/* What KVM reported and what was set; for the device tree. */
struct aia_state {
	struct aia_params p;
	uint64_t mode;	     /* KVM_DEV_RISCV_AIA_MODE_* */
	uint32_t nr_ids;     /* IMSIC interrupt identities */
	uint32_t nr_sources; /* APLIC sources, 1..nr_sources */
	uint32_t hart_bits;
};

/*
 * Configure the AIA device: read the mode and the number of IMSIC ids,
 * set the number of sources, the hart index bits, the APLIC address and
 * every hart's IMSIC address, then initialise it.  KVM sets up GSI routing
 * (GSI n = APLIC source n) at initialisation.  0, or -errno with *why
 * naming the step that failed.
 */
int aia_configure(const struct aia_attr_ops *ops, void *opaque,
		  const struct aia_params *p, struct aia_state *st,
		  const char **why);

/*
 * Configure KVM's in-kernel PLIC: the number of sources, the base
 * address, then initialisation (one context per vCPU created so far; KVM
 * routes GSI n to source n).  0, or -errno with *why naming the step.
 */
int kplic_configure(const struct aia_attr_ops *ops, void *opaque, uint64_t base,
		    uint32_t nr_sources, const char **why);

/*
 * The APLIC of KVM's AIA back to its state after creation (a guest reboot
 * that keeps the VM): every source's enable and pending bit cleared while
 * it is still active (KVM ignores a pending write to an inactive source),
 * then every source inactive with a zero target, then the domain off.
 */
int aplic_reset(const struct aia_attr_ops *ops, void *opaque,
		uint32_t nr_sources);

/* Bits of hart index for n harts: ceil(log2(n)), 0 for one hart. */
unsigned int aia_hart_bits(unsigned int nr_harts);

/*
 * Device tree callbacks (mmio_ops with only fdt(): never on the bus) for
 * the IMSIC and the APLIC nodes; opaque is the struct aia_state.
 */
extern const struct mmio_ops aia_imsic_fdt_ops;
extern const struct mmio_ops aia_aplic_fdt_ops;

#endif
