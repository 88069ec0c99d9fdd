// SPDX-License-Identifier: GPL-2.0
/*
 * The PCIe host bridge (pci-host-ecam-generic): ECAM decode, the type-0
 * header, BAR placement and decode in the memory windows, INTx swizzling
 * and its device tree node.  See pci_host.h for the behaviour.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libfdt.h>

#include "devices/pci_host.h"
#include "lib/dev_fdt.h"
#include "lib/log.h"

#define ECAM_DEV(off) (((off) >> 15) & 0x1f)
#define ECAM_FN(off) (((off) >> 12) & 0x7)
#define ECAM_REG(off) ((off)&0xfff)
#define PCI_COMMAND_WRITABLE \
	(PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER | PCI_COMMAND_INTX_DISABLE)

/* --- INTx -------------------------------------------------------------- */

static unsigned int pci_dev_pin(const struct pci_host_dev *d)
{
	return d->devno % PCI_HOST_PINS; /* INTA swizzled by slot */
}

/* intx_lock held: recount d's contribution to its pin. */
static void pci_intx_update(struct pci_host_dev *d)
{
	struct pci_host *h = d->host;
	unsigned int pin = pci_dev_pin(d);
	bool out = d->intx_level && !(d->command & PCI_COMMAND_INTX_DISABLE);

	if (out == d->intx_out)
		return;
	d->intx_out = out;
	if (out && h->pin_count[pin]++ == 0)
		irq_line_set(&h->p.pins[pin], 1);
	else if (!out && --h->pin_count[pin] == 0)
		irq_line_set(&h->p.pins[pin], 0);
}

static void pci_intx_set(void *opaque, int level)
{
	struct pci_host_dev *d = opaque;

	pthread_mutex_lock(&d->host->intx_lock);
	d->intx_level = level;
	pci_intx_update(d);
	pthread_mutex_unlock(&d->host->intx_lock);
}

/* --- BAR decode ---------------------------------------------------------- */

static uint64_t pci_bar_size(const struct pci_host_dev *d, unsigned int i)
{
	return d->func.bar_size[i];
}

static bool pci_in_window(const struct pci_host_window *w, uint64_t addr,
			  uint64_t size)
{
	return w->size && addr >= w->base && addr - w->base < w->size &&
	       size <= w->size - (addr - w->base);
}

/* Where BAR i decodes now: 0 when it does not. */
static uint64_t pci_bar_target(const struct pci_host_dev *d, unsigned int i)
{
	const struct pci_host *h = d->host;
	uint64_t size = pci_bar_size(d, i), addr = d->bar[i];

	if (!size || !(d->command & PCI_COMMAND_MEMORY))
		return 0;
	if (pci_in_window(&h->mem32, addr, size) ||
	    pci_in_window(&h->mem64, addr, size))
		return addr;
	pr_guest_once("pci: %s BAR%u at %#llx is outside the windows",
		      d->func.name, i, (unsigned long long)addr);
	return 0;
}

/* cfg_lock held: bring d's decode in line with its registers. */
static void pci_bars_update(struct pci_host_dev *d)
{
	struct pci_host *h = d->host;

	for (unsigned int i = 0; i < PCI_NR_BARS; i++) {
		uint64_t old = d->live[i], new = pci_bar_target(d, i);

		if (old == new)
			continue;
		d->live[i] = new;
		if (h->p.bar_moved)
			h->p.bar_moved(h->p.bar_moved_opaque, d->devno, i, old,
				       new);
	}
}

/* cfg_lock held: the device and BAR that decode addr, or NULL. */
static struct pci_host_dev *pci_bar_find(struct pci_host *h, uint64_t addr,
					 unsigned int *bar, uint64_t *off)
{
	for (unsigned int n = 0; n < h->nr_devs; n++) {
		struct pci_host_dev *d = &h->devs[n];

		for (unsigned int i = 0; i < PCI_NR_BARS; i++) {
			uint64_t base = d->live[i];

			if (base && addr >= base &&
			    addr - base < pci_bar_size(d, i)) {
				*bar = i;
				*off = addr - base;
				return d;
			}
		}
	}
	return NULL;
}

static struct pci_host_dev *pci_bar_access(struct pci_host_window *w,
					   uint64_t offset, unsigned int len,
					   unsigned int *bar, uint64_t *off)
{
	struct pci_host *h = w->host;
	struct pci_host_dev *d;

	pthread_mutex_lock(&h->cfg_lock);
	d = pci_bar_find(h, w->base + offset, bar, off);
	if (d && len > pci_bar_size(d, *bar) - *off) {
		pr_guest_once("pci: %u-byte access across the end of a BAR",
			      len);
		d = NULL;
	}
	pthread_mutex_unlock(&h->cfg_lock);
	if (!d)
		pr_guest_once("pci: access at %#llx: no BAR there",
			      (unsigned long long)(w->base + offset));
	return d;
}

static void pci_window_read(void *opaque, uint64_t offset, void *data,
			    unsigned int len)
{
	struct pci_host_dev *d;
	unsigned int bar;
	uint64_t off;

	memset(data, 0xff, len);
	d = pci_bar_access(opaque, offset, len, &bar, &off);
	if (d)
		d->func.ops->bar_read(d->func.opaque, bar, off, data, len);
}

static void pci_window_write(void *opaque, uint64_t offset, const void *data,
			     unsigned int len)
{
	struct pci_host_dev *d;
	unsigned int bar;
	uint64_t off;

	d = pci_bar_access(opaque, offset, len, &bar, &off);
	if (d)
		d->func.ops->bar_write(d->func.opaque, bar, off, data, len);
}

/* --- the type-0 header ----------------------------------------------- */

/* The BAR register i as read: address bits, then flags. */
static uint32_t pci_bar_reg(const struct pci_host_dev *d, unsigned int i)
{
	uint64_t size, mask;

	if (i > 0 && d->func.bar64[i - 1]) {
		size = pci_bar_size(d, i - 1);
		mask = ~(size - 1);
		return (d->bar[i - 1] & mask) >> 32;
	}
	size = pci_bar_size(d, i);
	if (!size)
		return 0;
	mask = ~(size - 1);
	return ((uint32_t)d->bar[i] & (uint32_t)mask) |
	       (d->func.bar64[i] ? PCI_BAR_MEM_64 | PCI_BAR_MEM_PREFETCH : 0);
}

static uint16_t pci_status(const struct pci_host_dev *d)
{
	return (d->intx_level ? PCI_STATUS_INTERRUPT : 0) |
	       (d->func.cap_ptr ? PCI_STATUS_CAP_LIST : 0);
}

static uint32_t pci_header_dword(const struct pci_host_dev *d, uint32_t reg)
{
	const struct pci_func *f = &d->func;

	switch (reg) {
	case PCI_VENDOR_ID:
		return f->vendor | (uint32_t)f->device << 16;
	case PCI_COMMAND:
		return d->command | (uint32_t)pci_status(d) << 16;
	case PCI_REVISION_ID:
		return f->revision | f->class_code << 8;
	case PCI_SUBSYSTEM_VENDOR_ID:
		return f->subsys_vendor | (uint32_t)f->subsys << 16;
	case PCI_CAPABILITY_LIST:
		return f->cap_ptr;
	case PCI_INTERRUPT_LINE:
		return d->int_line | (f->intx ? 1u : 0u) << 8;
	}
	if (reg >= PCI_BASE_ADDRESS_0 && reg < PCI_BASE_ADDRESS_0 + 24)
		return pci_bar_reg(d, (reg - PCI_BASE_ADDRESS_0) / 4);
	return 0; /* header type 0, BIST, ROM, latency: all 0 */
}

/* A BAR register written with val (its bytes merged already). */
static void pci_bar_write(struct pci_host_dev *d, unsigned int i, uint32_t val)
{
	if (i > 0 && d->func.bar64[i - 1]) {
		i--;
		d->bar[i] = (d->bar[i] & 0xffffffffULL) | (uint64_t)val << 32;
	} else if (pci_bar_size(d, i)) {
		d->bar[i] = (d->bar[i] & ~0xffffffffULL) | (val & ~0xfu);
	} else {
		return;
	}
	d->bar[i] &= ~(pci_bar_size(d, i) - 1);
}

/* cfg_lock held: the command register's new value. */
static void pci_command_write(struct pci_host_dev *d, uint16_t command)
{
	bool was = d->command & PCI_COMMAND_MASTER;

	d->command = command;
	if (was != !!(command & PCI_COMMAND_MASTER) && d->func.ops->bus_master)
		d->func.ops->bus_master(d->func.opaque, !was);
}

static void pci_header_write(struct pci_host_dev *d, uint32_t reg, uint32_t val,
			     uint32_t bytes)
{
	uint32_t cur = pci_header_dword(d, reg);

	val = (cur & ~bytes) | (val & bytes);
	if (reg == PCI_COMMAND) {
		pci_command_write(d, val & PCI_COMMAND_WRITABLE);
		pthread_mutex_lock(&d->host->intx_lock);
		pci_intx_update(d);
		pthread_mutex_unlock(&d->host->intx_lock);
	} else if (reg >= PCI_BASE_ADDRESS_0 && reg < PCI_BASE_ADDRESS_0 + 24) {
		pci_bar_write(d, (reg - PCI_BASE_ADDRESS_0) / 4, val);
	} else if (reg == PCI_INTERRUPT_LINE) {
		d->int_line = val;
	} else {
		return; /* read-only */
	}
	pci_bars_update(d);
}

/* --- ECAM ---------------------------------------------------------------- */

/* The device an ECAM offset names, or NULL (absent: reads all ones). */
static struct pci_host_dev *pci_ecam_dev(struct pci_host *h, uint64_t off)
{
	unsigned int dev = ECAM_DEV(off);

	if (off >= PCI_HOST_ECAM_SIZE || ECAM_FN(off) || dev >= h->nr_devs)
		return NULL;
	return &h->devs[dev];
}

static bool pci_ecam_ok(uint64_t off, unsigned int len)
{
	if ((len == 1 || len == 2 || len == 4) && !(off & (len - 1)))
		return true;
	pr_guest_once("pci: %u-byte configuration access at %#llx", len,
		      (unsigned long long)off);
	return false;
}

static uint32_t pci_cfg_read(struct pci_host_dev *d, uint32_t reg,
			     unsigned int len)
{
	unsigned int shift = 8 * (reg & 3);

	if (reg >= PCI_CFG_SIZE)
		return 0;
	if (reg >= PCI_HEADER_END)
		return d->func.ops->cfg_read(d->func.opaque, reg, len);
	return pci_header_dword(d, reg & ~3u) >> shift;
}

static void pci_ecam_read(void *opaque, uint64_t off, void *data,
			  unsigned int len)
{
	struct pci_host *h = opaque;
	struct pci_host_dev *d;
	uint32_t v = 0xffffffff;

	memset(data, 0xff, len);
	if (!pci_ecam_ok(off, len))
		return;
	pthread_mutex_lock(&h->cfg_lock);
	d = pci_ecam_dev(h, off);
	if (d)
		v = pci_cfg_read(d, ECAM_REG(off), len);
	pthread_mutex_unlock(&h->cfg_lock);
	mmio_data_put(data, len, v);
}

static void pci_cfg_write(struct pci_host_dev *d, uint32_t reg,
			  unsigned int len, uint32_t v)
{
	unsigned int shift = 8 * (reg & 3);
	uint32_t bytes = len == 4 ? ~0u : ((1u << (8 * len)) - 1) << shift;

	if (reg >= PCI_CFG_SIZE)
		return;
	if (reg >= PCI_HEADER_END)
		d->func.ops->cfg_write(d->func.opaque, reg, len, v);
	else
		pci_header_write(d, reg & ~3u, v << shift, bytes);
}

static void pci_ecam_write(void *opaque, uint64_t off, const void *data,
			   unsigned int len)
{
	struct pci_host *h = opaque;
	struct pci_host_dev *d;

	if (!pci_ecam_ok(off, len))
		return;
	pthread_mutex_lock(&h->cfg_lock);
	d = pci_ecam_dev(h, off);
	if (d)
		pci_cfg_write(d, ECAM_REG(off), len, mmio_data_get(data, len));
	pthread_mutex_unlock(&h->cfg_lock);
}

/* System reset: every header back to its power-on state. */
static void pci_host_reset(void *opaque)
{
	struct pci_host *h = opaque;

	pthread_mutex_lock(&h->cfg_lock);
	for (unsigned int n = 0; n < h->nr_devs; n++) {
		struct pci_host_dev *d = &h->devs[n];

		pci_command_write(d, 0);
		d->int_line = 0;
		memset(d->bar, 0, sizeof(d->bar));
		pci_bars_update(d);
		pthread_mutex_lock(&h->intx_lock);
		pci_intx_update(d);
		pthread_mutex_unlock(&h->intx_lock);
		if (d->func.ops->reset)
			d->func.ops->reset(d->func.opaque);
	}
	pthread_mutex_unlock(&h->cfg_lock);
}

/* --- device tree ------------------------------------------------------- */

static int pci_fdt_ranges(void *fdt, const struct pci_host *h)
{
	fdt32_t r[14];
	unsigned int n = 0;
	const struct pci_host_window *w[2] = { &h->mem32, &h->mem64 };

	for (unsigned int i = 0; i < 2; i++) {
		if (!w[i]->size)
			continue;
		/* phys.hi: 32-bit memory, or 64-bit prefetchable memory */
		r[n++] = cpu_to_fdt32(w[i]->mem64 ? 0x43000000 : 0x02000000);
		r[n++] = cpu_to_fdt32(w[i]->base >> 32);
		r[n++] = cpu_to_fdt32(w[i]->base);
		r[n++] = cpu_to_fdt32(w[i]->base >> 32);
		r[n++] = cpu_to_fdt32(w[i]->base);
		r[n++] = cpu_to_fdt32(w[i]->size >> 32);
		r[n++] = cpu_to_fdt32(w[i]->size);
	}
	return fdt_property(fdt, "ranges", r, n * sizeof(r[0]));
}

/*
 * interrupt-map: for each device number mod 4 and each pin, the bridge
 * output it lands on ((device + pin) mod 4) at the interrupt controller.
 */
static int pci_fdt_irq_map(void *fdt, const struct pci_host *h)
{
	const fdt32_t mask[4] = { cpu_to_fdt32(0x1800), 0, 0, cpu_to_fdt32(7) };
	fdt32_t map[PCI_HOST_PINS * PCI_HOST_PINS * 7];
	unsigned int n = 0;
	int err;

	for (unsigned int dev = 0; dev < PCI_HOST_PINS; dev++) {
		for (unsigned int pin = 0; pin < PCI_HOST_PINS; pin++) {
			struct dev_res r = h->p.ecam;
			uint32_t spec[2];
			int cells;

			r.irq = h->p.pin_irq[(dev + pin) % PCI_HOST_PINS];
			cells = dev_fdt_irq_spec(&r, spec);
			if (cells < 0)
				return cells;
			map[n++] = cpu_to_fdt32(dev << 11);
			map[n++] = 0;
			map[n++] = 0;
			map[n++] = cpu_to_fdt32(pin + 1);
			map[n++] = cpu_to_fdt32(h->p.ecam.irq_parent);
			for (int c = 0; c < cells; c++)
				map[n++] = spec[c];
		}
	}
	err = fdt_property(fdt, "interrupt-map-mask", mask, sizeof(mask));
	return err   ?:
		       fdt_property(fdt, "interrupt-map", map,
				    n * sizeof(map[0]));
}

static int pci_host_fdt(void *opaque, void *fdt)
{
	static const char compat[] = "pci-host-ecam-generic";
	static const fdt32_t bus_range[2] = { 0, 0 };
	const struct pci_host *h = opaque;
	int err;

	err = dev_fdt_begin(fdt, "pci", compat, sizeof(compat), &h->p.ecam);
	err = err ?: fdt_property_string(fdt, "device_type", "pci");
	err = err ?: fdt_property_u32(fdt, "#address-cells", 3);
	err = err ?: fdt_property_u32(fdt, "#size-cells", 2);
	err = err ?: fdt_property_u32(fdt, "#interrupt-cells", 1);
	err = err   ?:
		      fdt_property(fdt, "bus-range", bus_range,
				   sizeof(bus_range));
	err = err ?: fdt_property_u32(fdt, "linux,pci-domain", 0);
	err = err ?: fdt_property(fdt, "dma-coherent", NULL, 0);
	err = err ?: pci_fdt_ranges(fdt, h);
	err = err ?: pci_fdt_irq_map(fdt, h);
	if (!err && h->p.msi_parent)
		err = fdt_property_u32(fdt, "msi-parent", h->p.msi_parent);
	return err ?: fdt_end_node(fdt);
}

/* --- set-up ---------------------------------------------------------- */

int pci_host_init(struct pci_host *h, const struct pci_host_params *p)
{
	if (!p || p->ecam.size < PCI_HOST_ECAM_SIZE || !p->mem32_size)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	h->p = *p;
	h->mem32 = (struct pci_host_window){ h, p->mem32_base, p->mem32_size,
					     false };
	h->mem64 = (struct pci_host_window){ h, p->mem64_base, p->mem64_size,
					     true };
	pthread_mutex_init(&h->cfg_lock, NULL);
	pthread_mutex_init(&h->intx_lock, NULL);
	return 0;
}

void pci_host_destroy(struct pci_host *h)
{
	pthread_mutex_destroy(&h->cfg_lock);
	pthread_mutex_destroy(&h->intx_lock);
}

int pci_host_add(struct pci_host *h, const struct pci_func *f,
		 unsigned int *devno, const struct irq_line **intx)
{
	struct pci_host_dev *d;

	if (!pci_func_ok(f))
		return -EINVAL;
	if (h->nr_devs == PCI_HOST_DEVICES)
		return -ENOSPC;
	pthread_mutex_lock(&h->cfg_lock);
	d = &h->devs[h->nr_devs];
	*d = (struct pci_host_dev){ .host = h,
				    .devno = h->nr_devs,
				    .func = *f };
	d->intx = (struct irq_line){ .set = pci_intx_set, .opaque = d };
	h->nr_devs++;
	pthread_mutex_unlock(&h->cfg_lock);
	*devno = d->devno;
	*intx = &d->intx;
	return 0;
}

const struct mmio_ops pci_host_ecam_ops = {
	.name = "pci-ecam",
	.sizes = MMIO_SIZES_8_TO_64,
	.read = pci_ecam_read,
	.write = pci_ecam_write,
	.reset = pci_host_reset,
	.fdt = pci_host_fdt,
};

const struct mmio_ops pci_host_window_ops = {
	.name = "pci-window",
	.sizes = MMIO_SIZES_8_TO_64,
	.read = pci_window_read,
	.write = pci_window_write,
};
