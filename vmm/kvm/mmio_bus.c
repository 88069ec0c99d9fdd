// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "lib/log.h"
#include "vmm/kvm/mmio_bus.h"

static bool region_overlaps(const struct mmio_region *r, uint64_t base,
			    uint64_t size)
{
	return base < r->base + r->size && r->base < base + size;
}

int mmio_bus_add(struct mmio_bus *bus, uint64_t base, uint64_t size,
		 const struct mmio_ops *ops, void *opaque)
{
	if (!size || base + size < base)
		return -EINVAL;
	for (unsigned int i = 0; i < bus->nr_regions; i++)
		if (region_overlaps(&bus->regions[i], base, size))
			return -EEXIST;
	if (bus->nr_regions == MMIO_BUS_MAX_REGIONS)
		return -ENOSPC;
	bus->regions[bus->nr_regions++] = (struct mmio_region){
		.base = base,
		.size = size,
		.ops = ops,
		.opaque = opaque,
	};
	return 0;
}

static const struct mmio_region *mmio_bus_find(const struct mmio_bus *bus,
					       uint64_t addr)
{
	for (unsigned int i = 0; i < bus->nr_regions; i++) {
		const struct mmio_region *r = &bus->regions[i];

		if (addr >= r->base && addr - r->base < r->size)
			return r;
	}
	return NULL;
}

bool mmio_bus_access(const struct mmio_bus *bus, uint64_t addr, void *data,
		     unsigned int len, bool is_write)
{
	const struct mmio_region *r = mmio_bus_find(bus, addr);
	uint64_t offset;

	if (len == 0 || len > 8) {
		pr_guest_once("MMIO access of %u bytes at %#llx refused", len,
			      (unsigned long long)addr);
		return false;
	}
	if (!is_write)
		memset(data, 0, len);
	if (!r) {
		pr_guest_once("MMIO %s of %u bytes at %#llx: no device there",
			      is_write ? "write" : "read", len,
			      (unsigned long long)addr);
		return false;
	}
	offset = addr - r->base;
	if (!(r->ops->sizes & MMIO_SIZE(len)) || len > r->size - offset) {
		pr_guest_once("%s: %u-byte access at offset %#llx refused",
			      r->ops->name, len, (unsigned long long)offset);
		return false;
	}
	if (is_write)
		r->ops->write(r->opaque, offset, data, len);
	else
		r->ops->read(r->opaque, offset, data, len);
	return true;
}

void mmio_bus_reset(const struct mmio_bus *bus)
{
	for (unsigned int i = 0; i < bus->nr_regions; i++)
		if (bus->regions[i].ops->reset)
			bus->regions[i].ops->reset(bus->regions[i].opaque);
}
