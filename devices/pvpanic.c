// SPDX-License-Identifier: GPL-2.0
/* pvpanic, MMIO flavour: see pvpanic.h. */
#include <libfdt.h>

#include "devices/pvpanic.h"
#include "lib/dev_fdt.h"
#include "lib/log.h"

void pvpanic_init(struct pvpanic *p, const struct dev_res *res,
		  const struct pvpanic_sink *sink)
{
	*p = (struct pvpanic){ .res = *res, .sink = *sink };
}

static void pvpanic_read(void *opaque, uint64_t offset, void *data,
			 unsigned int len)
{
	mmio_data_put(data, len, offset == 0 ? PVPANIC_EVENTS : 0);
}

static void pvpanic_write(void *opaque, uint64_t offset, const void *data,
			  unsigned int len)
{
	const struct pvpanic *p = opaque;
	unsigned int events = (unsigned int)mmio_data_get(data, len);

	if (offset != 0)
		return;
	if (events & ~PVPANIC_EVENTS)
		pr_guest_once("pvpanic: unknown events %#x ignored",
			      events & ~PVPANIC_EVENTS);
	events &= PVPANIC_EVENTS;
	if (events && p->sink.event)
		p->sink.event(p->sink.opaque, events);
}

static int pvpanic_fdt(void *opaque, void *fdt)
{
	static const char compat[] = "qemu,pvpanic-mmio";
	const struct pvpanic *p = opaque;
	int err =
		dev_fdt_begin(fdt, "pvpanic", compat, sizeof(compat), &p->res);

	return err ?: fdt_end_node(fdt);
}

const struct mmio_ops pvpanic_mmio_ops = {
	.name = "pvpanic",
	.sizes = MMIO_SIZE(1),
	.read = pvpanic_read,
	.write = pvpanic_write,
	.fdt = pvpanic_fdt,
};
