// SPDX-License-Identifier: GPL-2.0
/*
 * The PCIe host bridge: ECAM decode, BAR sizing and placement, memory
 * decode, the capability list as Linux walks it, INTx swizzling and level
 * behaviour, hostile access sizes and offsets, and the device tree node.
 * A fake function records what reaches it; virtio-pci's own registers are
 * tested in test_virtio_pci.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <libfdt.h>

#include "devices/pci_host.h"
#include "lib/log.h"

#define ECAM 0x30000000ULL
#define WIN 0x40000000ULL
#define WIN_SIZE 0x40000000ULL
#define BAR_SIZE 0x4000

struct fake_fn {
	unsigned int bar_reads, bar_writes, resets;
	unsigned int bme_calls;
	bool bme;
	bool bme_at_reset; /* BME as the function saw it when reset */
	unsigned int last_bar;
	uint64_t last_off;
	uint32_t last_val;
	uint8_t caps[PCI_CFG_SIZE];
};

struct fx {
	struct pci_host h;
	struct fake_fn fn[5];
	int pin_level[PCI_HOST_PINS];
	unsigned int pin_changes;
	const struct irq_line *intx[5];
	unsigned int moves;
	uint64_t moved_old, moved_new;
	unsigned int moved_dev, moved_bar;
};

static uint32_t fn_cfg_read(void *opaque, uint32_t off, unsigned int len)
{
	struct fake_fn *f = opaque;

	return pci_get(&f->caps[off], len);
}

static void fn_cfg_write(void *opaque, uint32_t off, unsigned int len,
			 uint32_t val)
{
	struct fake_fn *f = opaque;

	pci_put(&f->caps[off], len, val);
}

static void fn_bar_read(void *opaque, unsigned int bar, uint64_t off,
			void *data, unsigned int len)
{
	struct fake_fn *f = opaque;

	f->bar_reads++;
	f->last_bar = bar;
	f->last_off = off;
	mmio_data_put(data, len, 0x11223344);
}

static void fn_bar_write(void *opaque, unsigned int bar, uint64_t off,
			 const void *data, unsigned int len)
{
	struct fake_fn *f = opaque;

	f->bar_writes++;
	f->last_bar = bar;
	f->last_off = off;
	f->last_val = mmio_data_get(data, len);
}

static void fn_reset(void *opaque)
{
	struct fake_fn *f = opaque;

	f->resets++;
	f->bme_at_reset = f->bme;
}

static void fn_bus_master(void *opaque, bool on)
{
	struct fake_fn *f = opaque;

	f->bme_calls++;
	f->bme = on;
}

static const struct pci_func_ops fn_ops = {
	.cfg_read = fn_cfg_read,
	.cfg_write = fn_cfg_write,
	.bar_read = fn_bar_read,
	.bar_write = fn_bar_write,
	.reset = fn_reset,
	.bus_master = fn_bus_master,
};

static void pin_set(void *opaque, int level)
{
	int *p = opaque;

	*p = level;
}

static void moved(void *opaque, unsigned int dev, unsigned int bar,
		  uint64_t old, uint64_t new)
{
	struct fx *x = opaque;

	x->moves++;
	x->moved_dev = dev;
	x->moved_bar = bar;
	x->moved_old = old;
	x->moved_new = new;
}

static struct pci_func fake_func(struct fake_fn *f)
{
	/* Two capabilities: vendor at 0x40, then at 0x50, end. */
	f->caps[0x40] = PCI_CAP_ID_VNDR;
	f->caps[0x41] = 0x50;
	f->caps[0x50] = PCI_CAP_ID_VNDR;
	f->caps[0x51] = 0;
	return (struct pci_func){
		.name = "fake",
		.vendor = 0x1af4,
		.device = 0x1044,
		.subsys_vendor = 0x1af4,
		.subsys = 4,
		.revision = 1,
		.class_code = 0xff0000,
		.cap_ptr = 0x40,
		.intx = true,
		.bar_size = { BAR_SIZE, 0, 0x100 },
		.bar64 = { true },
		.ops = &fn_ops,
		.opaque = f,
	};
}

static int setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));
	struct pci_host_params p = {
		.ecam = { .base = ECAM,
			  .size = PCI_HOST_ECAM_SIZE,
			  .irq_parent = 1,
			  .irq_cells = 1 },
		.mem32_base = WIN,
		.mem32_size = WIN_SIZE,
		.pin_irq = { 32, 33, 34, 35 },
		.bar_moved = moved,
	};

	log_level = -1;
	p.bar_moved_opaque = x;
	for (int i = 0; i < PCI_HOST_PINS; i++)
		p.pins[i] = (struct irq_line){ pin_set, &x->pin_level[i] };
	assert_int_equal(pci_host_init(&x->h, &p), 0);
	for (unsigned int i = 0; i < 5; i++) {
		struct pci_func f = fake_func(&x->fn[i]);
		unsigned int devno;

		assert_int_equal(pci_host_add(&x->h, &f, &devno, &x->intx[i]),
				 0);
		assert_int_equal(devno, i);
	}
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;

	pci_host_destroy(&x->h);
	free(x);
	return 0;
}

static uint64_t cfg_off(unsigned int dev, unsigned int fn, unsigned int reg)
{
	return (uint64_t)dev << 15 | fn << 12 | reg;
}

static uint32_t cfg_rd(struct fx *x, unsigned int dev, unsigned int reg,
		       unsigned int len)
{
	uint8_t d[8];

	pci_host_ecam_ops.read(&x->h, cfg_off(dev, 0, reg), d, len);
	return mmio_data_get(d, len);
}

static void cfg_wr(struct fx *x, unsigned int dev, unsigned int reg,
		   unsigned int len, uint32_t v)
{
	uint8_t d[8];

	mmio_data_put(d, len, v);
	pci_host_ecam_ops.write(&x->h, cfg_off(dev, 0, reg), d, len);
}

static uint32_t win_rd(struct fx *x, uint64_t addr, unsigned int len)
{
	uint8_t d[8];

	pci_host_window_ops.read(&x->h.mem32, addr - WIN, d, len);
	return mmio_data_get(d, len);
}

static void win_wr(struct fx *x, uint64_t addr, unsigned int len, uint32_t v)
{
	uint8_t d[8];

	mmio_data_put(d, len, v);
	pci_host_window_ops.write(&x->h.mem32, addr - WIN, d, len);
}

static void test_ecam_decode(void **state)
{
	struct fx *x = *state;
	uint8_t d[8];

	assert_int_equal(cfg_rd(x, 0, PCI_VENDOR_ID, 4), 0x10441af4);
	assert_int_equal(cfg_rd(x, 0, PCI_DEVICE_ID, 2), 0x1044);
	assert_int_equal(cfg_rd(x, 0, PCI_VENDOR_ID + 1, 1), 0x1a);
	assert_int_equal(cfg_rd(x, 4, PCI_REVISION_ID, 4), 0xff000001);
	assert_int_equal(cfg_rd(x, 0, PCI_SUBSYSTEM_ID, 2), 4);
	assert_int_equal(cfg_rd(x, 0, PCI_HEADER_TYPE, 1), 0);
	assert_int_equal(cfg_rd(x, 0, PCI_INTERRUPT_PIN, 1), 1);
	/* absent device, absent function: all ones */
	assert_int_equal(cfg_rd(x, 5, PCI_VENDOR_ID, 4), 0xffffffff);
	assert_int_equal(cfg_rd(x, 31, PCI_VENDOR_ID, 2), 0xffff);
	pci_host_ecam_ops.read(&x->h, cfg_off(0, 1, 0), d, 4);
	assert_int_equal(mmio_data_get(d, 4), 0xffffffff);
	/* extended space: no capabilities */
	assert_int_equal(cfg_rd(x, 0, 0x100, 4), 0);
	assert_int_equal(cfg_rd(x, 0, 0xffc, 4), 0);
	/* unaligned or 8-byte: all ones, and writes are dropped */
	assert_int_equal(cfg_rd(x, 0, 1, 2), 0xffff);
	assert_int_equal(cfg_rd(x, 0, 2, 4), 0xffffffff);
	assert_int_equal(cfg_rd(x, 0, 0, 8), 0xffffffff);
	cfg_wr(x, 0, PCI_COMMAND + 1, 2, 0xffff);
	assert_int_equal(cfg_rd(x, 0, PCI_COMMAND, 2), 0);
	/* beyond bus 0 */
	pci_host_ecam_ops.read(&x->h, PCI_HOST_ECAM_SIZE - 4, d, 4);
	assert_int_equal(mmio_data_get(d, 4), 0xffffffff);
}

static void test_header_read_only(void **state)
{
	struct fx *x = *state;

	cfg_wr(x, 0, PCI_VENDOR_ID, 4, 0);
	cfg_wr(x, 0, PCI_REVISION_ID, 4, 0);
	cfg_wr(x, 0, PCI_CAPABILITY_LIST, 1, 0x80);
	assert_int_equal(cfg_rd(x, 0, PCI_VENDOR_ID, 4), 0x10441af4);
	assert_int_equal(cfg_rd(x, 0, PCI_CAPABILITY_LIST, 1), 0x40);
	/* command: only memory, master and INTx disable stick */
	cfg_wr(x, 0, PCI_COMMAND, 2, 0xffff);
	assert_int_equal(cfg_rd(x, 0, PCI_COMMAND, 2), 0x406);
	cfg_wr(x, 0, PCI_INTERRUPT_LINE, 1, 0x21);
	assert_int_equal(cfg_rd(x, 0, PCI_INTERRUPT_LINE, 4), 0x121);
}

static void test_bar_sizing(void **state)
{
	struct fx *x = *state;

	/* BAR 0: 64-bit prefetchable, 16 KiB */
	assert_int_equal(cfg_rd(x, 0, PCI_BASE_ADDRESS_0, 4), 0xc);
	cfg_wr(x, 0, PCI_BASE_ADDRESS_0, 4, 0xffffffff);
	cfg_wr(x, 0, PCI_BASE_ADDRESS_0 + 4, 4, 0xffffffff);
	assert_int_equal(cfg_rd(x, 0, PCI_BASE_ADDRESS_0, 4),
			 (uint32_t) ~(BAR_SIZE - 1) | 0xc);
	assert_int_equal(cfg_rd(x, 0, PCI_BASE_ADDRESS_0 + 4, 4), 0xffffffff);
	/* BAR 2: 32-bit, 256 bytes */
	cfg_wr(x, 0, PCI_BASE_ADDRESS_0 + 8, 4, 0xffffffff);
	assert_int_equal(cfg_rd(x, 0, PCI_BASE_ADDRESS_0 + 8, 4), 0xffffff00);
	/* unused BARs stay 0 */
	for (unsigned int i = 3; i < 6; i++) {
		cfg_wr(x, 0, PCI_BASE_ADDRESS_0 + 4 * i, 4, 0xffffffff);
		assert_int_equal(cfg_rd(x, 0, PCI_BASE_ADDRESS_0 + 4 * i, 4),
				 0);
	}
	/* byte writes merge */
	cfg_wr(x, 0, PCI_BASE_ADDRESS_0 + 8, 4, 0);
	cfg_wr(x, 0, PCI_BASE_ADDRESS_0 + 11, 1, 0x45);
	assert_int_equal(cfg_rd(x, 0, PCI_BASE_ADDRESS_0 + 8, 4), 0x45000000);
	assert_int_equal(x->moves, 0); /* decode never on */
}

static void place_bar0(struct fx *x, unsigned int dev, uint64_t addr)
{
	cfg_wr(x, dev, PCI_BASE_ADDRESS_0, 4, addr);
	cfg_wr(x, dev, PCI_BASE_ADDRESS_0 + 4, 4, addr >> 32);
}

static void test_bar_decode(void **state)
{
	struct fx *x = *state;

	place_bar0(x, 1, WIN + 0x8000);
	/* memory decode off: nothing decodes */
	assert_int_equal(win_rd(x, WIN + 0x8000, 4), 0xffffffff);
	assert_int_equal(x->fn[1].bar_reads, 0);
	assert_int_equal(x->moves, 0);
	cfg_wr(x, 1, PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
	assert_int_equal(x->moves, 1);
	assert_int_equal(x->moved_dev, 1);
	assert_int_equal(x->moved_bar, 0);
	assert_int_equal(x->moved_old, 0);
	assert_int_equal(x->moved_new, WIN + 0x8000);
	assert_int_equal(win_rd(x, WIN + 0x8010, 4), 0x11223344);
	assert_int_equal(x->fn[1].last_off, 0x10);
	win_wr(x, WIN + 0x8000 + BAR_SIZE - 8, 8, 0x55);
	assert_int_equal(x->fn[1].bar_writes, 1);
	assert_int_equal(x->fn[1].last_off, BAR_SIZE - 8);
	/* across the BAR's end: refused */
	win_wr(x, WIN + 0x8000 + BAR_SIZE - 2, 4, 0x55);
	assert_int_equal(x->fn[1].bar_writes, 1);
	/* moved while live */
	place_bar0(x, 1, WIN + 0x10000);
	assert_int_equal(x->moved_old, WIN + 0x8000);
	assert_int_equal(x->moved_new, WIN + 0x10000);
	assert_int_equal(win_rd(x, WIN + 0x8000, 4), 0xffffffff);
	assert_int_equal(win_rd(x, WIN + 0x10000, 4), 0x11223344);
	/* decode off again */
	cfg_wr(x, 1, PCI_COMMAND, 2, 0);
	assert_int_equal(x->moved_new, 0);
	assert_int_equal(win_rd(x, WIN + 0x10000, 4), 0xffffffff);
}

static void test_bar_outside_windows(void **state)
{
	struct fx *x = *state;

	/* over RAM, below or above the window: never decodes */
	place_bar0(x, 0, 0x80000000);
	cfg_wr(x, 0, PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
	assert_int_equal(x->moves, 0);
	place_bar0(x, 0, WIN - BAR_SIZE); /* just below the window */
	assert_int_equal(x->moves, 0);
	/* 64-bit BAR written low half first: briefly in the window */
	place_bar0(x, 0, 0x100000000ULL + WIN);
	assert_int_equal(x->moves, 2);
	assert_int_equal(x->moved_new, 0);
	x->moves = 0;
	place_bar0(x, 0, WIN);
	assert_int_equal(x->moves, 1);
	/* overlapping BARs: the lower device number wins */
	place_bar0(x, 2, WIN);
	cfg_wr(x, 2, PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
	win_rd(x, WIN, 4);
	assert_int_equal(x->fn[0].bar_reads, 1);
	assert_int_equal(x->fn[2].bar_reads, 0);
}

/* Linux's walk: status bit, then pointers, at most 48 hops, dword-aligned. */
static void test_capability_walk(void **state)
{
	struct fx *x = *state;
	unsigned int pos, ttl = 48, n = 0;

	assert_true(cfg_rd(x, 0, PCI_STATUS, 2) & PCI_STATUS_CAP_LIST);
	pos = cfg_rd(x, 0, PCI_CAPABILITY_LIST, 1);
	while (ttl-- && pos >= 0x40) {
		pos &= ~3u;
		assert_int_equal(cfg_rd(x, 0, pos, 1), PCI_CAP_ID_VNDR);
		n++;
		pos = cfg_rd(x, 0, pos + 1, 1);
	}
	assert_int_equal(n, 2);
	/* function-owned bytes reach the function */
	cfg_wr(x, 0, 0x60, 4, 0xdeadbeef);
	assert_int_equal(cfg_rd(x, 0, 0x60, 4), 0xdeadbeef);
	assert_int_equal(cfg_rd(x, 0, 0x62, 2), 0xdead);
}

/* dev 0 and dev 4 share INTA's output; dev 1 lands on the next one. */
static void test_intx_swizzle_and_level(void **state)
{
	struct fx *x = *state;

	irq_line_set(x->intx[1], 1);
	assert_int_equal(x->pin_level[1], 1);
	assert_int_equal(x->pin_level[0], 0);
	assert_true(cfg_rd(x, 1, PCI_STATUS, 2) & PCI_STATUS_INTERRUPT);
	irq_line_set(x->intx[1], 0);
	assert_int_equal(x->pin_level[1], 0);
	assert_false(cfg_rd(x, 1, PCI_STATUS, 2) & PCI_STATUS_INTERRUPT);

	irq_line_set(x->intx[0], 1);
	irq_line_set(x->intx[4], 1);
	assert_int_equal(x->pin_level[0], 1);
	irq_line_set(x->intx[0], 0); /* the other still holds it */
	assert_int_equal(x->pin_level[0], 1);
	irq_line_set(x->intx[4], 1); /* repeated level: no double count */
	irq_line_set(x->intx[4], 0);
	assert_int_equal(x->pin_level[0], 0);

	/* INTx disable masks, and unmasking brings a held level back */
	irq_line_set(x->intx[0], 1);
	cfg_wr(x, 0, PCI_COMMAND, 2, PCI_COMMAND_INTX_DISABLE);
	assert_int_equal(x->pin_level[0], 0);
	assert_true(cfg_rd(x, 0, PCI_STATUS, 2) & PCI_STATUS_INTERRUPT);
	cfg_wr(x, 0, PCI_COMMAND, 2, 0);
	assert_int_equal(x->pin_level[0], 1);
}

static void test_reset(void **state)
{
	struct fx *x = *state;

	place_bar0(x, 3, WIN);
	cfg_wr(x, 3, PCI_COMMAND, 2, PCI_COMMAND_MEMORY | 0x400);
	assert_int_equal(x->moved_new, WIN);
	pci_host_ecam_ops.reset(&x->h);
	assert_int_equal(x->moved_new, 0);
	assert_int_equal(cfg_rd(x, 3, PCI_COMMAND, 2), 0);
	assert_int_equal(cfg_rd(x, 3, PCI_BASE_ADDRESS_0, 4), 0xc);
	for (unsigned int i = 0; i < 5; i++)
		assert_int_equal(x->fn[i].resets, 1);
}

static void test_add_refuses(void **state)
{
	struct fx *x = *state;
	struct pci_func f = fake_func(&x->fn[0]);
	const struct irq_line *l;
	unsigned int devno;

	f.bar_size[0] = 0x1800; /* not a power of 2 */
	assert_int_equal(pci_host_add(&x->h, &f, &devno, &l), -EINVAL);
	f = fake_func(&x->fn[0]);
	f.bar64[5] = true; /* no room for the upper half */
	assert_int_equal(pci_host_add(&x->h, &f, &devno, &l), -EINVAL);
	f = fake_func(&x->fn[0]);
	f.cap_ptr = 0x20;
	assert_int_equal(pci_host_add(&x->h, &f, &devno, &l), -EINVAL);
	f = fake_func(&x->fn[0]);
	while (x->h.nr_devs < PCI_HOST_DEVICES)
		assert_int_equal(pci_host_add(&x->h, &f, &devno, &l), 0);
	assert_int_equal(pci_host_add(&x->h, &f, &devno, &l), -ENOSPC);
}

static void test_fdt(void **state)
{
	struct fx *x = *state;
	char buf[4096];
	const fdt32_t *p;
	int node, len;

	assert_int_equal(fdt_create(buf, sizeof(buf)), 0);
	assert_int_equal(fdt_finish_reservemap(buf), 0);
	assert_int_equal(fdt_begin_node(buf, ""), 0);
	assert_int_equal(pci_host_ecam_ops.fdt(&x->h, buf), 0);
	assert_int_equal(fdt_end_node(buf), 0);
	assert_int_equal(fdt_finish(buf), 0);
	node = fdt_path_offset(buf, "/pci@30000000");
	assert_true(node >= 0);
	assert_int_equal(
		fdt_node_check_compatible(buf, node, "pci-host-ecam-generic"),
		0);
	p = fdt_getprop(buf, node, "bus-range", &len);
	assert_int_equal(len, 8);
	p = fdt_getprop(buf, node, "ranges", &len);
	assert_int_equal(len, 7 * 4);
	assert_int_equal(fdt32_to_cpu(p[0]), 0x02000000);
	assert_int_equal(fdt32_to_cpu(p[2]), WIN);
	assert_int_equal(fdt32_to_cpu(p[6]), WIN_SIZE);
	p = fdt_getprop(buf, node, "interrupt-map", &len);
	assert_int_equal(len, 16 * 6 * 4);
	/* device 1, INTB: (1 + 1) mod 4 -> source 34 */
	assert_int_equal(fdt32_to_cpu(p[5 * 6 + 0]), 1 << 11);
	assert_int_equal(fdt32_to_cpu(p[5 * 6 + 3]), 2);
	assert_int_equal(fdt32_to_cpu(p[5 * 6 + 4]), 1);
	assert_int_equal(fdt32_to_cpu(p[5 * 6 + 5]), 34);
	assert_null(fdt_getprop(buf, node, "msi-parent", &len));
}

/*
 * Bus Master Enable reaches the function on every change (and only then),
 * whatever the access size; a reset turns it off before the function's
 * own reset.
 */
static void test_bus_master(void **state)
{
	struct fx *x = *state;
	struct fake_fn *f = &x->fn[2];

	cfg_wr(x, 2, PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
	assert_int_equal(f->bme_calls, 0);
	cfg_wr(x, 2, PCI_COMMAND, 2, PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	assert_int_equal(f->bme_calls, 1);
	assert_true(f->bme);
	cfg_wr(x, 2, PCI_COMMAND, 1, PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	cfg_wr(x, 2, PCI_COMMAND + 1, 1, 4); /* INTx disable: BME stays */
	assert_int_equal(f->bme_calls, 1);
	cfg_wr(x, 2, PCI_COMMAND, 4, PCI_COMMAND_MEMORY); /* dword write */
	assert_int_equal(f->bme_calls, 2);
	assert_false(f->bme);
	assert_int_equal(x->fn[1].bme_calls, 0);
	cfg_wr(x, 2, PCI_COMMAND, 2, PCI_COMMAND_MASTER);
	assert_true(f->bme);
	pci_host_ecam_ops.reset(&x->h);
	assert_false(f->bme);
	assert_false(f->bme_at_reset);
	assert_int_equal(f->bme_calls, 4);
	assert_int_equal(x->fn[1].bme_calls, 0); /* it was off already */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ecam_decode, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_header_read_only, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bar_sizing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bar_decode, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bar_outside_windows, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_capability_walk, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_intx_swizzle_and_level,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_add_refuses, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fdt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bus_master, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
