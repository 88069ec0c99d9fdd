// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupt controller selection, the AIA configuration sequence and the
 * AIA's device tree nodes.  No KVM calls here (see kvm_aia.c): the numbers
 * below are the RISC-V KVM uapi's (asm/kvm.h), checked against it there.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libfdt.h>

#include "vmm/kvm/irqchip.h"
#include "vmm/isa.h"
#include "lib/dev_fdt.h"

/* KVM_DEV_TYPE_RISCV_PLIC's attributes (kernel-patches/ 0001) */
#define KPLIC_GRP_CONFIG 0
#define KPLIC_CONFIG_SRCS 0
#define KPLIC_GRP_ADDR 1
#define KPLIC_ADDR_BASE 0
#define KPLIC_GRP_CTRL 2
#define KPLIC_CTRL_INIT 0
#define KPLIC_MAX_SOURCES 1023

#define AIA_GRP_CONFIG 0
#define AIA_CONFIG_MODE 0
#define AIA_CONFIG_IDS 1
#define AIA_CONFIG_SRCS 2
#define AIA_CONFIG_HART_BITS 5
#define AIA_GRP_ADDR 1
#define AIA_ADDR_APLIC 0
#define AIA_ADDR_IMSIC(hart) (1 + (hart))
#define AIA_GRP_CTRL 2
#define AIA_CTRL_INIT 0
#define AIA_APLIC_SIZE 0x4000
#define AIA_IMSIC_SIZE 0x1000
#define AIA_SRCS_MAX 1024 /* sources must be below this */
/* The APLIC's registers, by offset (KVM_DEV_RISCV_AIA_GRP_APLIC). */
#define AIA_GRP_APLIC 3
#define APLIC_DOMAINCFG 0x0000
#define APLIC_SOURCECFG_BASE 0x0004
#define APLIC_CLRIP_BASE 0x1d00
#define APLIC_CLRIE_BASE 0x1f00
#define APLIC_TARGET_BASE 0x3004

/* The hart interrupt an IMSIC drives: supervisor external. */
#define AIA_IRQ_S_EXT 9

int irqchip_select(const struct vm_config *cfg, const struct irqchip_host *host,
		   enum irqchip_kind *kind, const char **why)
{
	bool ssaia_hidden = config_isa_hidden(cfg, isa_ext_lookup("ssaia"));

	switch (cfg->irqchip) {
	case IRQCHIP_AIA:
		if (!host->aia) {
			*why = "--irqchip aia: the host's KVM offers no in-kernel AIA (the host needs an AIA with Ssaia)";
			return -ENODEV;
		}
		*kind = IRQCHIP_KIND_AIA;
		break;
	case IRQCHIP_KERNEL_PLIC:
		if (!host->kernel_plic) {
			*why = "--irqchip kernel-plic: the host's KVM offers no in-kernel PLIC (the host kernel needs rvkvm's kernel-patches)";
			return -ENODEV;
		}
		*kind = IRQCHIP_KIND_KERNEL_PLIC;
		break;
	case IRQCHIP_PLIC:
		*kind = IRQCHIP_KIND_PLIC;
		break;
	default:
		if (host->aia && !ssaia_hidden)
			*kind = IRQCHIP_KIND_AIA;
		else if (host->kernel_plic)
			*kind = IRQCHIP_KIND_KERNEL_PLIC;
		else
			*kind = IRQCHIP_KIND_PLIC;
	}
	return 0;
}

const char *irqchip_name(enum irqchip_kind kind)
{
	switch (kind) {
	case IRQCHIP_KIND_AIA:
		return "aia";
	case IRQCHIP_KIND_KERNEL_PLIC:
		return "kernel-plic";
	default:
		return "plic";
	}
}

int kplic_configure(const struct aia_attr_ops *ops, void *opaque, uint64_t base,
		    uint32_t nr_sources, const char **why)
{
	int ret;

	if (!nr_sources || nr_sources > KPLIC_MAX_SOURCES) {
		*why = "bad number of sources";
		return -EINVAL;
	}
	ret = ops->set(opaque, KPLIC_GRP_CONFIG, KPLIC_CONFIG_SRCS, nr_sources);
	if (ret) {
		*why = "setting the number of sources";
		return ret;
	}
	ret = ops->set(opaque, KPLIC_GRP_ADDR, KPLIC_ADDR_BASE, base);
	if (ret) {
		*why = "setting the PLIC address";
		return ret;
	}
	ret = ops->set(opaque, KPLIC_GRP_CTRL, KPLIC_CTRL_INIT, 0);
	if (ret)
		*why = "initialising the PLIC";
	return ret;
}

int aplic_reset(const struct aia_attr_ops *ops, void *opaque,
		uint32_t nr_sources)
{
	int ret = 0;

	for (uint32_t w = 0; w <= nr_sources / 32 && !ret; w++) {
		ret = ops->set(opaque, AIA_GRP_APLIC, APLIC_CLRIE_BASE + 4 * w,
			       ~0u);
		ret = ret   ?:
			      ops->set(opaque, AIA_GRP_APLIC,
				       APLIC_CLRIP_BASE + 4 * w, ~0u);
	}
	for (uint32_t i = 1; i <= nr_sources && !ret; i++) {
		ret = ops->set(opaque, AIA_GRP_APLIC,
			       APLIC_SOURCECFG_BASE + 4 * (i - 1), 0);
		ret = ret   ?:
			      ops->set(opaque, AIA_GRP_APLIC,
				       APLIC_TARGET_BASE + 4 * (i - 1), 0);
	}
	return ret ?: ops->set(opaque, AIA_GRP_APLIC, APLIC_DOMAINCFG, 0);
}

unsigned int aia_hart_bits(unsigned int nr_harts)
{
	unsigned int bits = 0;

	while (nr_harts > 1 && (1u << bits) < nr_harts)
		bits++;
	return bits;
}

static int aia_read_config(const struct aia_attr_ops *ops, void *opaque,
			   struct aia_state *st, const char **why)
{
	uint64_t ids;
	int ret;

	ret = ops->get(opaque, AIA_GRP_CONFIG, AIA_CONFIG_MODE, &st->mode);
	if (ret) {
		*why = "reading the AIA mode";
		return ret;
	}
	ret = ops->get(opaque, AIA_GRP_CONFIG, AIA_CONFIG_IDS, &ids);
	if (!ret && (ids < 63 || ids > 2047))
		ret = -ERANGE;
	if (ret) {
		*why = "reading the number of IMSIC ids";
		return ret;
	}
	st->nr_ids = ids;
	return 0;
}

static int aia_set_addresses(const struct aia_attr_ops *ops, void *opaque,
			     const struct aia_params *p, const char **why)
{
	int ret;

	ret = ops->set(opaque, AIA_GRP_ADDR, AIA_ADDR_APLIC, p->aplic_base);
	if (ret) {
		*why = "setting the APLIC address";
		return ret;
	}
	for (unsigned int i = 0; i < p->nr_harts; i++) {
		ret = ops->set(opaque, AIA_GRP_ADDR, AIA_ADDR_IMSIC(i),
			       p->imsic_base + (uint64_t)i * AIA_IMSIC_SIZE);
		if (ret) {
			*why = "setting an IMSIC address";
			return ret;
		}
	}
	return 0;
}

int aia_configure(const struct aia_attr_ops *ops, void *opaque,
		  const struct aia_params *p, struct aia_state *st,
		  const char **why)
{
	int ret;

	*st = (struct aia_state){ .p = *p };
	if (!p->nr_harts || !p->nr_sources) {
		*why = "no harts or no sources";
		return -EINVAL;
	}
	ret = aia_read_config(ops, opaque, st, why);
	if (ret)
		return ret;
	/* Sources must be fewer than the ids and below KVM's maximum. */
	st->nr_sources = p->nr_sources;
	if (st->nr_sources >= AIA_SRCS_MAX)
		st->nr_sources = AIA_SRCS_MAX - 1;
	if (st->nr_sources > st->nr_ids)
		st->nr_sources = st->nr_ids;
	st->hart_bits = aia_hart_bits(p->nr_harts);
	ret = ops->set(opaque, AIA_GRP_CONFIG, AIA_CONFIG_SRCS, st->nr_sources);
	if (ret) {
		*why = "setting the number of sources";
		return ret;
	}
	ret = ops->set(opaque, AIA_GRP_CONFIG, AIA_CONFIG_HART_BITS,
		       st->hart_bits);
	if (ret) {
		*why = "setting the hart index bits";
		return ret;
	}
	ret = aia_set_addresses(ops, opaque, p, why);
	if (ret)
		return ret;
	ret = ops->set(opaque, AIA_GRP_CTRL, AIA_CTRL_INIT, 0);
	if (ret)
		*why = "initialising the AIA";
	return ret;
}

/* The IMSICs: one S-level interrupt file per hart, contiguous. */
static int aia_imsic_fdt(void *opaque, void *fdt)
{
	static const char compat[] = "riscv,imsics";
	const struct aia_state *st = opaque;
	const struct dev_res res = {
		.base = st->p.imsic_base,
		.size = (uint64_t)st->p.nr_harts * AIA_IMSIC_SIZE,
	};
	fdt32_t ext[2 * CONFIG_MAX_CPUS];
	unsigned int n = st->p.nr_harts;
	int err;

	if (n > CONFIG_MAX_CPUS)
		return -FDT_ERR_BADVALUE;
	for (unsigned int i = 0; i < n; i++) {
		ext[2 * i] = cpu_to_fdt32(st->p.cpu_intc_phandle + i);
		ext[2 * i + 1] = cpu_to_fdt32(AIA_IRQ_S_EXT);
	}
	err = dev_fdt_begin(fdt, "imsics", compat, sizeof(compat), &res);
	err = err   ?:
		      fdt_property(fdt, "interrupts-extended", ext,
				   n * 2 * sizeof(ext[0]));
	err = err ?: fdt_property_u32(fdt, "riscv,num-ids", st->nr_ids);
	if (!err && st->hart_bits)
		err = fdt_property_u32(fdt, "riscv,hart-index-bits",
				       st->hart_bits);
	err = err ?: fdt_property(fdt, "msi-controller", NULL, 0);
	err = err ?: fdt_property_u32(fdt, "#msi-cells", 0);
	err = err ?: fdt_property(fdt, "interrupt-controller", NULL, 0);
	err = err ?: fdt_property_u32(fdt, "#interrupt-cells", 0);
	err = err ?: fdt_property_u32(fdt, "phandle", st->p.imsic_phandle);
	return err ?: fdt_end_node(fdt);
}

/* The APLIC in MSI mode: wired sources become MSIs to the IMSICs. */
static int aia_aplic_fdt(void *opaque, void *fdt)
{
	static const char compat[] = "riscv,aplic";
	const struct aia_state *st = opaque;
	const struct dev_res res = {
		.base = st->p.aplic_base,
		.size = AIA_APLIC_SIZE,
	};
	int err;

	err = dev_fdt_begin(fdt, "aplic", compat, sizeof(compat), &res);
	err = err ?: fdt_property(fdt, "interrupt-controller", NULL, 0);
	err = err ?: fdt_property_u32(fdt, "#interrupt-cells", 2);
	err = err ?: fdt_property_u32(fdt, "#address-cells", 0);
	err = err ?: fdt_property_u32(fdt, "msi-parent", st->p.imsic_phandle);
	err = err ?: fdt_property_u32(fdt, "riscv,num-sources", st->nr_sources);
	err = err ?: fdt_property_u32(fdt, "phandle", st->p.aplic_phandle);
	return err ?: fdt_end_node(fdt);
}

const struct mmio_ops aia_imsic_fdt_ops = {
	.name = "imsics",
	.fdt = aia_imsic_fdt,
};

const struct mmio_ops aia_aplic_fdt_ops = {
	.name = "aplic",
	.fdt = aia_aplic_fdt,
};
