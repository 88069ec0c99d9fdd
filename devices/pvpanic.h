/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pvpanic, MMIO flavour (device tree "qemu,pvpanic-mmio", Linux's
 * drivers/misc/pvpanic/): how a guest kernel tells the VMM it panicked.
 *
 * One byte-wide register at offset 0 of a PVPANIC_MMIO_SIZE window.
 * Reading it gives the events this device reports (PVPANIC_EVENTS); the
 * guest writes the events that happened: PVPANIC_PANICKED from its panic
 * notifier, or PVPANIC_CRASH_LOADED instead when a crash kernel (kdump)
 * is about to take over.  Events go to an injected callback; bits it does
 * not know are ignored (logged once).  The rest of the window reads as
 * zero.  No state, no interrupt.
 */
#ifndef RVKVM_PVPANIC_H
#define RVKVM_PVPANIC_H

#include "lib/device.h"

#define PVPANIC_MMIO_SIZE 2
#define PVPANIC_PANICKED 0x1u
#define PVPANIC_CRASH_LOADED 0x2u
#define PVPANIC_EVENTS (PVPANIC_PANICKED | PVPANIC_CRASH_LOADED)

/* Called on the vCPU thread with the known events of one write (!= 0). */
struct pvpanic_sink {
	void (*event)(void *opaque, unsigned int events);
	void *opaque;
};

struct pvpanic {
	struct dev_res res;
	struct pvpanic_sink sink;
};

void pvpanic_init(struct pvpanic *p, const struct dev_res *res,
		  const struct pvpanic_sink *sink);

extern const struct mmio_ops pvpanic_mmio_ops;

#endif
