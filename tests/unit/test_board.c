// SPDX-License-Identifier: GPL-2.0
/*
 * The virt board: the device tree it builds with the PLIC, KVM's PLIC and
 * KVM's AIA (golden files), and where its interrupt lines go.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <libfdt.h>

#include "golden.h"
#include "lib/log.h"
#include "vmm/board/board.h"
#include "vmm/machine/ioeventfds.h"
#include "vmm/board/layout.h"

struct fixture {
	struct vm_config cfg;
	struct vm vm;
	struct board board;
	struct irq_line harts[2];
	int hart_level[2];
	unsigned int line_src[8]; /* AIA: KVM_IRQ_LINE calls */
	int line_level[8];
	unsigned int nr_lines;
	unsigned int nr_msis;
	struct {
		uint64_t addr;
		unsigned int len;
		uint32_t q;
		bool assign;
	} binds[8];
	unsigned int nr_binds;
	uint8_t buf[FDT_MAX_SIZE] __attribute__((aligned(8))); /* libfdt */
};

static void hart_set(void *opaque, int level)
{
	*(int *)opaque = level;
}

static void aia_line(void *opaque, unsigned int src, int level)
{
	struct fixture *fx = opaque;

	assert_true(fx->nr_lines < 8);
	fx->line_src[fx->nr_lines] = src;
	fx->line_level[fx->nr_lines++] = level;
}

static void aia_msi(void *opaque, uint64_t addr, uint32_t data)
{
	((struct fixture *)opaque)->nr_msis++;
}

static struct fixture *fixture_new_on(enum irqchip_kind kind,
				      enum virtio_transport t)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct board_irqchip chip = {
		.kind = kind,
		.harts = fx->harts,
		.line = aia_line,
		.msi = aia_msi,
		.opaque = fx,
	};

	assert_non_null(fx);
	fx->cfg = (struct vm_config){
		.nr_cpus = 2, .ram_size = SZ_256M, .rng = true, .transport = t
	};
	strcpy(fx->cfg.cmdline, "console=ttyS0");
	for (int i = 0; i < 2; i++)
		fx->harts[i] =
			(struct irq_line){ hart_set, &fx->hart_level[i] };
	assert_int_equal(vm_init(&fx->vm, &fx->cfg, board_ram_base()), 0);
	assert_int_equal(board_up(&fx->board, &fx->vm, &chip, NULL), 0);
	assert_int_equal(board_rng_up(&fx->board), 0);
	if (kind == IRQCHIP_KIND_AIA)
		/* What KVM's configuration would have reported. */
		fx->board.aia = (struct aia_state){
			.p = fx->board.aia_params,
			.mode = 2,
			.nr_ids = 255,
			.nr_sources = LAYOUT_AIA_NR_IRQS,
			.hart_bits = 1,
		};
	return fx;
}

static struct fixture *fixture_new(enum irqchip_kind kind)
{
	return fixture_new_on(kind, VIRTIO_TRANSPORT_MMIO);
}

static void fixture_free(struct fixture *fx)
{
	board_down(&fx->board);
	close(fx->vm.stop_fd);
	free(fx);
}

static void build(struct fixture *fx)
{
	struct fdt_params p = {
		.cfg = &fx->cfg,
		.timebase_freq = 10000000,
		.mmu_type = "riscv,sv48",
	};

	isa_ext_set(p.isa_ext, isa_ext_lookup("ssaia"));
	assert_int_equal(board_fdt(&fx->board, &p, fx->buf, sizeof(fx->buf)),
			 0);
}

static void test_plic_tree(void **state)
{
	struct fixture *fx = fixture_new(IRQCHIP_KIND_PLIC);

	(void)state;
	build(fx);
	golden_check(fx->buf, "tests/unit/golden/board-plic.dts");
	fixture_free(fx);
}

static void test_aia_tree(void **state)
{
	struct fixture *fx = fixture_new(IRQCHIP_KIND_AIA);

	(void)state;
	build(fx);
	golden_check(fx->buf, "tests/unit/golden/board-aia.dts");
	/* The node the guest's APLIC driver looks for sends MSIs. */
	assert_true(fdt_node_offset_by_compatible(fx->buf, -1, "riscv,plic0") <
		    0);
	fixture_free(fx);
}

/* KVM's PLIC: the guest sees the very tree of the emulated PLIC. */
static void test_kernel_plic_tree(void **state)
{
	struct fixture *fx = fixture_new(IRQCHIP_KIND_KERNEL_PLIC);

	(void)state;
	build(fx);
	golden_check(fx->buf, "tests/unit/golden/board-plic.dts");
	fixture_free(fx);
	fx = fixture_new_on(IRQCHIP_KIND_KERNEL_PLIC, VIRTIO_TRANSPORT_PCI);
	assert_int_equal(fx->board.virtio[0].vpci.nr_vectors, 0); /* INTx */
	build(fx);
	golden_check(fx->buf, "tests/unit/golden/board-pci-plic.dts");
	fixture_free(fx);
}

/*
 * KVM's PLIC: nothing of it on lkvm's bus, the UART's and INTx lines to
 * KVM_IRQ_LINE, virtio-mmio edges to irqfds, the harts never driven.
 */
static void test_kernel_plic_lines(void **state)
{
	struct fixture *fx = fixture_new(IRQCHIP_KIND_KERNEL_PLIC);
	const struct board_slot *slot = &fx->board.virtio[0];
	uint64_t count = 0;
	uint32_t v = 0;

	(void)state;
	assert_false(mmio_bus_access(&fx->vm.bus, LAYOUT_PLIC_BASE + 4, &v, 4,
				     false));
	assert_false(mmio_bus_access(&fx->vm.bus, LAYOUT_PLIC_BASE + 0x200004,
				     &v, 4, false));
	irq_line_set(&fx->board.uart_irq, 1);
	irq_line_set(&fx->board.uart_irq, 0);
	assert_int_equal(fx->nr_lines, 2);
	assert_int_equal(fx->line_src[0], LAYOUT_UART_IRQ);
	assert_int_equal(fx->line_level[0], 1);
	assert_int_equal(fx->line_level[1], 0);
	assert_true(slot->irq_fd >= 0);
	irq_line_set(&slot->line, 1);
	irq_line_set(&slot->line, 0);
	assert_int_equal(read(slot->irq_fd, &count, sizeof(count)),
			 sizeof(count));
	assert_int_equal(count, 1);
	assert_int_equal(fx->nr_lines, 3);
	assert_int_equal(fx->line_src[2], slot->res.irq);
	assert_int_equal(fx->hart_level[0], 0);
	assert_int_equal(fx->hart_level[1], 0);
	fixture_free(fx);

	fx = fixture_new_on(IRQCHIP_KIND_KERNEL_PLIC, VIRTIO_TRANSPORT_PCI);
	irq_line_set(&fx->board.virtio[0].line, 1);
	assert_int_equal(fx->nr_lines, 1);
	assert_int_equal(fx->line_src[0], LAYOUT_PCI_INTX_FIRST_IRQ);
	assert_int_equal(fx->line_level[0], 1);
	fixture_free(fx);
}

/* The PLIC: device lines into the emulated PLIC, out to the harts. */
static void test_plic_lines(void **state)
{
	struct fixture *fx = fixture_new(IRQCHIP_KIND_PLIC);
	uint32_t v = 1;

	(void)state;
	/* Enable source 1 (slot 0) for hart 0, priority 1. */
	plic_mmio_ops.write(&fx->board.plic, 4, &v, 4);
	v = 2;
	plic_mmio_ops.write(&fx->board.plic, PLIC_ENABLE_BASE, &v, 4);
	irq_line_set(&fx->board.virtio[0].line, 1);
	assert_int_equal(fx->hart_level[0], 1);
	assert_int_equal(fx->hart_level[1], 0);
	irq_line_set(&fx->board.virtio[0].line, 0);
	assert_int_equal(fx->hart_level[0], 0);
	assert_int_equal(fx->nr_lines, 0);
	fixture_free(fx);
}

/* The AIA: the UART's level through KVM_IRQ_LINE, virtio edges to irqfds. */
static void test_aia_lines(void **state)
{
	struct fixture *fx = fixture_new(IRQCHIP_KIND_AIA);
	const struct board_slot *slot = &fx->board.virtio[0];
	uint64_t count = 0;

	(void)state;
	irq_line_set(&fx->board.uart_irq, 1);
	irq_line_set(&fx->board.uart_irq, 0);
	assert_int_equal(fx->nr_lines, 2);
	assert_int_equal(fx->line_src[0], LAYOUT_UART_IRQ);
	assert_int_equal(fx->line_level[0], 1);
	assert_int_equal(fx->line_level[1], 0);
	assert_true(slot->irq_fd >= 0);
	/* Raised through the irqfd, lowered through KVM_IRQ_LINE. */
	irq_line_set(&slot->line, 1);
	irq_line_set(&slot->line, 0);
	irq_line_set(&slot->line, 1);
	assert_int_equal(read(slot->irq_fd, &count, sizeof(count)),
			 sizeof(count));
	assert_int_equal(count, 2);
	assert_int_equal(fx->nr_lines, 3);
	assert_int_equal(fx->line_src[2], slot->res.irq);
	assert_int_equal(fx->line_level[2], 0);
	assert_int_equal(fx->hart_level[0], 0);
	fixture_free(fx);
}

static void test_slots_run_out(void **state)
{
	struct fixture *fx = fixture_new(IRQCHIP_KIND_PLIC);

	(void)state;
	/* rng took slot 0; fill the rest as a device module would. */
	for (unsigned int i = 1; i < BOARD_VIRTIO_SLOTS; i++) {
		struct board_slot *s = board_virtio_slot(&fx->board, "test");

		assert_non_null(s);
		assert_int_equal(s->res.base,
				 LAYOUT_VIRTIO_MMIO_BASE +
					 i * LAYOUT_VIRTIO_MMIO_SIZE);
		assert_int_equal(s->res.irq, LAYOUT_VIRTIO_MMIO_FIRST_IRQ + i);
		assert_int_equal(board_virtio_add(s, &fx->board.rng.vm), 0);
	}
	assert_null(board_virtio_slot(&fx->board, "test"));
	fx->board.nr_virtio = 1; /* only the rng is real */
	fixture_free(fx);
}

/* The device tree of a PCI guest: the bridge instead of virtio-mmio. */
static void test_pci_plic_tree(void **state)
{
	struct fixture *fx =
		fixture_new_on(IRQCHIP_KIND_PLIC, VIRTIO_TRANSPORT_PCI);

	(void)state;
	assert_true(fx->board.virtio[0].pci);
	assert_int_equal(fx->board.virtio[0].vpci.nr_vectors, 0); /* INTx */
	build(fx);
	golden_check(fx->buf, "tests/unit/golden/board-pci-plic.dts");
	fixture_free(fx);
}

static void test_pci_aia_tree(void **state)
{
	struct fixture *fx =
		fixture_new_on(IRQCHIP_KIND_AIA, VIRTIO_TRANSPORT_PCI);

	(void)state;
	assert_int_equal(fx->board.virtio[0].vpci.nr_vectors, 2); /* MSI-X */
	assert_true(fx->board.virtio[0].irq_fd < 0);
	build(fx);
	golden_check(fx->buf, "tests/unit/golden/board-pci-aia.dts");
	fixture_free(fx);
}

static void record_bind(void *opaque, uint64_t addr, unsigned int len,
			uint32_t q, int fd, bool assign)
{
	struct fixture *fx = opaque;

	assert_true(fx->nr_binds < 8);
	fx->binds[fx->nr_binds].addr = addr;
	fx->binds[fx->nr_binds].len = len;
	fx->binds[fx->nr_binds].q = q;
	fx->binds[fx->nr_binds++].assign = assign;
}

static void ecam_wr(struct fixture *fx, unsigned int reg, uint32_t v)
{
	assert_true(mmio_bus_access(&fx->vm.bus, LAYOUT_PCI_ECAM_BASE + reg, &v,
				    4, true));
}

/* Notify ioeventfds follow BAR 0 while a KVM VM exists. */
static void test_pci_notify_follows_bar(void **state)
{
	struct fixture *fx =
		fixture_new_on(IRQCHIP_KIND_PLIC, VIRTIO_TRANSPORT_PCI);
	struct board_slot *slot = &fx->board.virtio[0];
	uint64_t hi = LAYOUT_PCI_MMIO64_BASE;
	uint32_t v = 0;

	(void)state;
	slot->kicks[0].fd = 42; /* as kicks_watch() would */
	slot->nr_kicks = 1;
	kicks_bind(&fx->board, record_bind, fx);
	assert_int_equal(fx->nr_binds, 0); /* no BAR placed yet */
	ecam_wr(fx, PCI_BASE_ADDRESS_0, LAYOUT_PCI_MMIO32_BASE);
	ecam_wr(fx, PCI_COMMAND, PCI_COMMAND_MEMORY);
	assert_int_equal(fx->nr_binds, 1);
	assert_int_equal(fx->binds[0].addr,
			 LAYOUT_PCI_MMIO32_BASE + VIRTIO_PCI_NOTIFY_OFF);
	assert_int_equal(fx->binds[0].len, 2);
	assert_true(fx->binds[0].assign);
	/* into the 64-bit window: unbound, bound again there */
	ecam_wr(fx, PCI_BASE_ADDRESS_0 + 4, hi >> 32);
	ecam_wr(fx, PCI_BASE_ADDRESS_0, (uint32_t)hi);
	assert_int_equal(fx->binds[fx->nr_binds - 1].addr,
			 hi + VIRTIO_PCI_NOTIFY_OFF);
	/* the function answers there, through the MMIO bus */
	assert_true(mmio_bus_access(&fx->vm.bus, hi + VIRTIO_PCI_NUM_QUEUES, &v,
				    2, false));
	assert_int_equal(v & 0xffff, 1);
	/* and no longer where it was: the window reads all ones */
	assert_true(mmio_bus_access(&fx->vm.bus, LAYOUT_PCI_MMIO32_BASE, &v, 4,
				    false));
	assert_int_equal(v, 0xffffffff);
	assert_true(fx->binds[fx->nr_binds - 1].assign);
	assert_false(fx->binds[1].assign);
	/* the VM goes: nothing to unbind on the reset that follows */
	kicks_unbind(&fx->board);
	fx->nr_binds = 0;
	mmio_bus_reset(&fx->vm.bus);
	assert_int_equal(fx->nr_binds, 0);
	assert_int_equal(slot->notify, 0);
	slot->nr_kicks = 0;
	fixture_free(fx);
}

/* A queue its device routed to the vCPU's exit does not follow the BAR. */
static void test_pci_notify_skips_vcpu_queue(void **state)
{
	struct fixture *fx =
		fixture_new_on(IRQCHIP_KIND_PLIC, VIRTIO_TRANSPORT_PCI);
	struct board_slot *slot = &fx->board.virtio[0];

	(void)state;
	slot->kicks[0].fd = 42; /* as kicks_watch() would */
	slot->kicks[1].fd = 43;
	slot->kicks[1].vcpu = true;
	slot->nr_kicks = 2;
	kicks_bind(&fx->board, record_bind, fx);
	ecam_wr(fx, PCI_BASE_ADDRESS_0, LAYOUT_PCI_MMIO32_BASE);
	ecam_wr(fx, PCI_COMMAND, PCI_COMMAND_MEMORY);
	assert_int_equal(fx->nr_binds, 1);
	assert_int_equal(fx->binds[0].q, 0);
	assert_true(fx->binds[0].assign);
	ecam_wr(fx, PCI_COMMAND, 0); /* decoding off: unbound */
	assert_int_equal(fx->nr_binds, 2);
	assert_int_equal(fx->binds[1].q, 0);
	assert_false(fx->binds[1].assign);
	kicks_unbind(&fx->board);
	slot->nr_kicks = 0;
	fixture_free(fx);
}

/* INTx of device 0 (INTA) on the first PCI source, through the PLIC. */
static void test_pci_intx_lines(void **state)
{
	struct fixture *fx =
		fixture_new_on(IRQCHIP_KIND_AIA, VIRTIO_TRANSPORT_PCI);

	(void)state;
	irq_line_set(&fx->board.virtio[0].line, 1);
	irq_line_set(&fx->board.virtio[0].line, 0);
	assert_int_equal(fx->nr_lines, 2);
	assert_int_equal(fx->line_src[0], LAYOUT_PCI_INTX_FIRST_IRQ);
	assert_int_equal(fx->line_level[0], 1);
	assert_int_equal(fx->line_level[1], 0);
	fixture_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plic_tree),
		cmocka_unit_test(test_aia_tree),
		cmocka_unit_test(test_plic_lines),
		cmocka_unit_test(test_aia_lines),
		cmocka_unit_test(test_kernel_plic_tree),
		cmocka_unit_test(test_kernel_plic_lines),
		cmocka_unit_test(test_slots_run_out),
		cmocka_unit_test(test_pci_plic_tree),
		cmocka_unit_test(test_pci_aia_tree),
		cmocka_unit_test(test_pci_notify_follows_bar),
		cmocka_unit_test(test_pci_notify_skips_vcpu_queue),
		cmocka_unit_test(test_pci_intx_lines),
	};

	log_level = getenv("RVKVM_TEST_DEBUG") ? LOG_DEBUG : -1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
