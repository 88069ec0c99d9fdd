// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the PCIe host bridge with two virtio-pci functions (virtio-rng)
 * behind it: a stream of configuration-space and memory-window accesses of
 * any size and offset from a hostile guest, BARs placed anywhere (over
 * RAM, outside the window, overlapping each other, moved while the
 * device is live), resets, and kicks from the I/O thread's side, over a
 * fake guest RAM whose initial contents come from the input.
 *
 * Input:  [ops_len: u16] [ops: ops_len bytes] [RAM image]
 * Function 0 offers MSI-X (its messages recorded), function 1 INTx only.
 * Ops (first byte % 9):
 *   0  config write  [dev: u8 % 4] [reg: u16 % 0x1000] [size sel] [u32]
 *   1  config read   [dev] [reg] [size sel]
 *   2  place BAR 0   [dev] [u8: 0 in the window, else raw] [u32]
 *   3  command       [dev] [u16]
 *   4  window access [offset: u32] [size sel] [rd/wr] [u32]
 *   5  guest poke    [u16 offset] [u8 len] [bytes]
 *   6  driver up     [dev] [ring size sel]: the virtio set-up through
 *                    the window, wherever BAR 0 decodes
 *   7  kick          [dev] [queue: u8]
 *   8  system reset
 * After every op: the INTx outputs are the OR of the functions' lines,
 * each function's line follows its ISR, decoding BARs are in the window.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "devices/pci_host.h"
#include "lib/log.h"
#include "tests/fuzz/fuzz_virtio_util.h"
#include "virtio/pci.h"
#include "virtio/rng.h"

#define NDEV 2
#define ECAM 0x30000000ULL
#define WIN 0x40000000ULL
#define WIN_SIZE 0x40000000ULL

struct fuzz_ctx {
	struct guest_mem mem;
	struct pci_host h;
	struct virtio_rng rng[NDEV];
	struct virtio_pci vp[NDEV];
	const struct irq_line *intx[NDEV];
	int fn_level[NDEV];
	int pin_level[PCI_HOST_PINS];
	uint8_t counter;
	struct fuzz_in in;
};

static struct fuzz_ctx *the_ctx;

static ssize_t fuzz_source(void *opaque, void *buf, size_t len)
{
	struct fuzz_ctx *c = opaque;
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = c->counter++;
	return len;
}

/* A function's line: recorded, then passed to the bridge. */
static void fn_irq(void *opaque, int level)
{
	int *cur = opaque;
	unsigned int n = cur - the_ctx->fn_level;

	fuzz_irq_edge(cur, level);
	irq_line_set(the_ctx->intx[n], level);
}

static void fuzz_msi(void *opaque, uint64_t addr, uint32_t data)
{
	struct fuzz_ctx *c = opaque;

	/* only for an enabled, unmasked vector of function 0 */
	CHECK(c->vp[0].msix_ctrl == PCI_MSIX_FLAGS_ENABLE);
	(void)addr;
	(void)data;
}

static unsigned int fuzz_size(struct fuzz_in *in)
{
	static const unsigned int sizes[] = { 1, 2, 4, 8, 3 };

	return sizes[fuzz_u8(in) % 5];
}

static void cfg_access(struct fuzz_ctx *c, unsigned int dev, uint32_t reg,
		       unsigned int len, bool wr, uint32_t v)
{
	uint64_t off = (uint64_t)dev << 15 | reg;
	uint8_t d[8];

	if (reg + len > PCI_ECAM_FUNC_SIZE)
		return; /* the bus would refuse it */
	mmio_data_put(d, len, v);
	if (wr)
		pci_host_ecam_ops.write(&c->h, off, d, len);
	else
		pci_host_ecam_ops.read(&c->h, off, d, len);
}

static void win_access(struct fuzz_ctx *c, uint64_t addr, unsigned int len,
		       bool wr, uint64_t v)
{
	uint8_t d[8];

	if (addr < WIN || addr - WIN > WIN_SIZE - len)
		return;
	mmio_data_put(d, len, v);
	if (wr)
		pci_host_window_ops.write(&c->h.mem32, addr - WIN, d, len);
	else
		pci_host_window_ops.read(&c->h.mem32, addr - WIN, d, len);
}

static void place_bar(struct fuzz_ctx *c)
{
	unsigned int dev = fuzz_u8(&c->in) % 4;
	bool raw = fuzz_u8(&c->in);
	uint32_t v = fuzz_u32(&c->in);
	uint64_t addr = raw ? v : WIN + (uint64_t)(v % 0x10000) * 0x4000;

	cfg_access(c, dev, PCI_BASE_ADDRESS_0, 4, true, addr);
	cfg_access(c, dev, PCI_BASE_ADDRESS_0 + 4, 4, true, addr >> 32);
}

/* Common configuration write of len bytes through BAR 0 of dev. */
static void common_wr(struct fuzz_ctx *c, unsigned int dev, uint64_t off,
		      unsigned int len, uint64_t v)
{
	uint64_t base = c->h.devs[dev].live[0];

	if (base)
		win_access(c, base + off, len, true, v);
}

static void driver_up(struct fuzz_ctx *c)
{
	unsigned int dev = fuzz_u8(&c->in) % NDEV;
	struct fuzz_ring r;

	fuzz_ring_at(&r, 0x1000 * (dev + 1), fuzz_u8(&c->in));
	common_wr(c, dev, VIRTIO_PCI_STATUS, 1, 0);
	common_wr(c, dev, VIRTIO_PCI_STATUS, 1, 3);
	common_wr(c, dev, VIRTIO_PCI_GFSELECT, 4, 1);
	common_wr(c, dev, VIRTIO_PCI_GF, 4, 1);
	common_wr(c, dev, VIRTIO_PCI_STATUS, 1, 0xb);
	common_wr(c, dev, VIRTIO_PCI_Q_SELECT, 2, 0);
	common_wr(c, dev, VIRTIO_PCI_Q_SIZE, 2, r.num);
	common_wr(c, dev, VIRTIO_PCI_Q_DESC, 8, r.desc);
	common_wr(c, dev, VIRTIO_PCI_Q_AVAIL, 8, r.avail);
	common_wr(c, dev, VIRTIO_PCI_Q_USED, 8, r.used);
	common_wr(c, dev, VIRTIO_PCI_Q_ENABLE, 2, 1);
	common_wr(c, dev, VIRTIO_PCI_STATUS, 1, 0xf);
	fuzz_publish(&c->mem, &r, &c->in);
	common_wr(c, dev, VIRTIO_PCI_NOTIFY_OFF, 2, 0);
}

static void fuzz_invariants(const struct fuzz_ctx *c)
{
	int pins[PCI_HOST_PINS] = { 0 };

	for (unsigned int n = 0; n < NDEV; n++) {
		const struct pci_host_dev *d = &c->h.devs[n];
		const struct virtio_core *core = &c->rng[n].vm.core;

		CHECK(c->fn_level[n] == (core->isr != 0));
		if (c->vp[n].msix_ctrl & PCI_MSIX_FLAGS_ENABLE)
			CHECK(!core->isr); /* no INTx with MSI-X */
		CHECK(!(c->vp[n].pending >> c->vp[n].nr_vectors));
		CHECK(d->intx_level == c->fn_level[n]);
		if (c->fn_level[n] && !(d->command & PCI_COMMAND_INTX_DISABLE))
			pins[n % PCI_HOST_PINS] = 1;
		for (unsigned int i = 0; i < PCI_NR_BARS; i++)
			CHECK(!d->live[i] ||
			      (d->live[i] >= WIN &&
			       d->live[i] + d->func.bar_size[i] <=
				       WIN + WIN_SIZE));
	}
	for (unsigned int p = 0; p < PCI_HOST_PINS; p++)
		CHECK(pins[p] == c->pin_level[p]);
}

static void fuzz_op(struct fuzz_ctx *c)
{
	uint8_t op = fuzz_u8(&c->in) % 9;
	unsigned int dev, len;
	uint32_t reg, v;
	bool wr;

	if (op <= 1) {
		dev = fuzz_u8(&c->in) % 4;
		reg = fuzz_u16(&c->in) % PCI_ECAM_FUNC_SIZE;
		len = fuzz_size(&c->in);
		v = op == 0 ? fuzz_u32(&c->in) : 0;
		cfg_access(c, dev, reg, len, op == 0, v);
	} else if (op == 2) {
		place_bar(c);
	} else if (op == 3) {
		dev = fuzz_u8(&c->in) % 4;
		cfg_access(c, dev, PCI_COMMAND, 2, true, fuzz_u16(&c->in));
	} else if (op == 4) {
		reg = fuzz_u32(&c->in);
		len = fuzz_size(&c->in);
		wr = fuzz_u8(&c->in) & 1;
		win_access(c, WIN + reg % WIN_SIZE, len, wr, fuzz_u32(&c->in));
	} else if (op == 5) {
		fuzz_poke(&c->mem, &c->in);
	} else if (op == 6) {
		driver_up(c);
	} else if (op == 7) {
		dev = fuzz_u8(&c->in) % NDEV;
		virtio_core_kick(&c->rng[dev].vm.core, fuzz_u8(&c->in));
	} else {
		pci_host_ecam_ops.reset(&c->h);
		for (unsigned int n = 0; n < NDEV; n++)
			CHECK(!c->h.devs[n].live[0] && !c->fn_level[n]);
	}
	fuzz_invariants(c);
}

static void fuzz_setup(struct fuzz_ctx *c)
{
	struct pci_host_params p = {
		.ecam = { .base = ECAM, .size = PCI_HOST_ECAM_SIZE },
		.mem32_base = WIN,
		.mem32_size = WIN_SIZE,
	};
	const struct dev_res none = { 0 };
	const struct virtio_pci_msi_sink sink = { fuzz_msi, c };

	for (unsigned int i = 0; i < PCI_HOST_PINS; i++)
		p.pins[i] =
			(struct irq_line){ fuzz_irq_edge, &c->pin_level[i] };
	CHECK(pci_host_init(&c->h, &p) == 0);
	for (unsigned int n = 0; n < NDEV; n++) {
		struct irq_line irq = { fn_irq, &c->fn_level[n] };
		unsigned int devno;

		CHECK(virtio_rng_init(&c->rng[n], &none, &c->mem, &irq,
				      fuzz_source, c) == 0);
		/* function 0 offers MSI-X, function 1 does not */
		CHECK(virtio_pci_init(&c->vp[n], &c->rng[n].vm.core,
				      n ? NULL : &sink) == 0);
		CHECK(pci_host_add(&c->h, &c->vp[n].func, &devno,
				   &c->intx[n]) == 0);
		CHECK(devno == n);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_ctx *c;

	log_level = -1;
	if (size < 2)
		return 0;
	c = calloc(1, sizeof(*c));
	CHECK(c);
	the_ctx = c;
	fuzz_ram_alloc(&c->mem);
	fuzz_setup(c);
	fuzz_split_input(data, size, 2, &c->mem, &c->in);

	while (c->in.p < c->in.end)
		fuzz_op(c);

	pci_host_ecam_ops.reset(&c->h);
	for (unsigned int n = 0; n < NDEV; n++) {
		CHECK(c->fn_level[n] == 0);
		virtio_rng_destroy(&c->rng[n]);
	}
	for (unsigned int p = 0; p < PCI_HOST_PINS; p++)
		CHECK(c->pin_level[p] == 0);
	pci_host_destroy(&c->h);
	fuzz_ram_free(&c->mem);
	free(c);
	return 0;
}
