/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device tree helpers for device nodes built from a struct dev_res, with
 * libfdt's sequential-write API (two address and size cells under /soc).
 * Each returns 0 or a negative libfdt error.
 */
#ifndef RVKVM_DEV_FDT_H
#define RVKVM_DEV_FDT_H

#include "lib/device.h"

/* Linux's IRQ_TYPE_LEVEL_HIGH, the second cell of a 2-cell specifier. */
#define DEV_FDT_IRQ_LEVEL_HIGH 4

/*
 * Opens the node "<name>@<base in hex>" and writes its "compatible"
 * (compat_len bytes: one or more NUL-terminated strings) and "reg".
 */
int dev_fdt_begin(void *fdt, const char *name, const char *compat,
		  int compat_len, const struct dev_res *res);

/* "interrupts" and "interrupt-parent" for res->irq (nothing when 0). */
int dev_fdt_irq(void *fdt, const struct dev_res *res);

/*
 * The interrupt specifier of res's interrupt (spec: 2 cells of room);
 * returns its number of cells or a negative libfdt error.
 */
int dev_fdt_irq_spec(const struct dev_res *res, uint32_t *spec);

#endif
