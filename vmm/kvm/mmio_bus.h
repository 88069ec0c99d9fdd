/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The MMIO bus: maps guest physical windows to devices.  It passes offsets,
 * not addresses, and refuses accesses whose size the device did not declare
 * or that do not fit inside the window; unclaimed accesses read as zero.
 */
#ifndef RVKVM_MMIO_BUS_H
#define RVKVM_MMIO_BUS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/device.h"

#define MMIO_BUS_MAX_REGIONS 16

struct mmio_region {
	uint64_t base;
	uint64_t size;
	const struct mmio_ops *ops;
	void *opaque;
};

struct mmio_bus {
	struct mmio_region regions[MMIO_BUS_MAX_REGIONS];
	unsigned int nr_regions;
};

/* -EINVAL for an empty or wrapping window, -EEXIST on overlap, -ENOSPC. */
int mmio_bus_add(struct mmio_bus *bus, uint64_t base, uint64_t size,
		 const struct mmio_ops *ops, void *opaque);

/*
 * Dispatch one access.  Returns false when nothing handled it (no device,
 * size not accepted or the access straddles the window's end); reads then
 * return zeros.  Logged once per cause.
 */
bool mmio_bus_access(const struct mmio_bus *bus, uint64_t addr, void *data,
		     unsigned int len, bool is_write);

/* Call every device's reset(). */
void mmio_bus_reset(const struct mmio_bus *bus);

#endif
