// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include <libfdt.h>

#include "lib/dev_fdt.h"

int dev_fdt_begin(void *fdt, const char *name, const char *compat,
		  int compat_len, const struct dev_res *res)
{
	const fdt64_t reg[2] = { cpu_to_fdt64(res->base),
				 cpu_to_fdt64(res->size) };
	char node[64];
	int err;

	snprintf(node, sizeof(node), "%s@%llx", name,
		 (unsigned long long)res->base);
	err = fdt_begin_node(fdt, node);
	err = err ?: fdt_property(fdt, "compatible", compat, compat_len);
	return err ?: fdt_property(fdt, "reg", reg, sizeof(reg));
}

int dev_fdt_irq_spec(const struct dev_res *res, uint32_t *spec)
{
	uint32_t cells = res->irq_cells ?: 1;

	spec[0] = cpu_to_fdt32(res->irq);
	if (cells == 1)
		return 1;
	if (cells != 2)
		return -FDT_ERR_BADVALUE;
	spec[1] = cpu_to_fdt32(DEV_FDT_IRQ_LEVEL_HIGH);
	return 2;
}

int dev_fdt_irq(void *fdt, const struct dev_res *res)
{
	uint32_t spec[2];
	int n, err;

	if (!res->irq)
		return 0;
	n = dev_fdt_irq_spec(res, spec);
	if (n < 0)
		return n;
	err = fdt_property(fdt, "interrupts", spec, n * sizeof(spec[0]));
	return err   ?:
		       fdt_property_u32(fdt, "interrupt-parent",
					res->irq_parent);
}
