// SPDX-License-Identifier: GPL-2.0
/*
 * The 'virt' board.  Every address, interrupt number and phandle the guest
 * sees comes from layout.h through this file: devices are created with
 * their resources in a struct dev_res and never look them up.  The device
 * tree lists the devices in the order they were created, which is also the
 * order of the virtio-mmio slots.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "layout.h"
#include "lib/log.h"

_Static_assert(BOARD_VIRTIO_SLOTS == LAYOUT_VIRTIO_MMIO_SLOTS,
	       "board.h and layout.h disagree on the virtio-mmio slots");
_Static_assert(LAYOUT_NR_IRQS <= PLIC_MAX_SOURCES,
	       "the PLIC has fewer sources than the board hands out");
_Static_assert(LAYOUT_VIRTIO_MMIO_FIRST_IRQ + LAYOUT_VIRTIO_MMIO_SLOTS <=
		       LAYOUT_UART_IRQ ||
		       LAYOUT_VIRTIO_MMIO_FIRST_IRQ > LAYOUT_UART_IRQ,
	       "virtio-mmio interrupts overlap the UART's");

uint64_t board_ram_base(void)
{
	return LAYOUT_RAM_BASE;
}

/* A device interrupt into the irqchip. */
static void board_irq_set(struct board *b, unsigned int src, int level)
{
	plic_set_irq(&b->plic, src, level);
}

static void uart_irq_set(void *opaque, int level)
{
	board_irq_set(opaque, LAYOUT_UART_IRQ, level);
}

static void slot_irq_set(void *opaque, int level)
{
	struct board_slot *slot = opaque;

	board_irq_set(slot->board, slot->res.irq, level);
}

static int board_irqchip_up(struct board *b, const struct irq_line *harts)
{
	const struct dev_res res = {
		.base = LAYOUT_PLIC_BASE, .size = PLIC_SIZE,
		.phandle = PHANDLE_IRQCHIP,
		.irq_parent = PHANDLE_CPU_INTC(0),
	};
	int ret;

	ret = plic_init(&b->plic, &res, b->vm->cfg->nr_cpus, harts);
	if (ret) {
		pr_err("cannot set up the PLIC: %s", strerror(-ret));
		return ret;
	}
	ret = mmio_bus_add(&b->vm->bus, res.base, res.size, &plic_mmio_ops,
			   &b->plic);
	if (ret) {
		pr_err("MMIO map of the PLIC: %s", strerror(-ret));
		plic_destroy(&b->plic);
	}
	return ret;
}

static int board_uart_up(struct board *b, const struct char_out *out)
{
	const struct dev_res res = {
		.base = LAYOUT_UART_BASE, .size = LAYOUT_UART_SIZE,
		.irq = LAYOUT_UART_IRQ, .irq_parent = PHANDLE_IRQCHIP,
		.irq_cells = 1,
	};
	int ret;

	b->uart_irq = (struct irq_line){ .set = uart_irq_set, .opaque = b };
	ret = uart8250_init(&b->uart, &res, &b->uart_irq, out);
	if (ret) {
		pr_err("cannot set up the UART: %s", strerror(-ret));
		return ret;
	}
	ret = mmio_bus_add(&b->vm->bus, res.base, res.size,
			   &uart8250_mmio_ops, &b->uart);
	if (ret) {
		pr_err("MMIO map of the UART: %s", strerror(-ret));
		uart8250_destroy(&b->uart);
	}
	return ret;
}

int board_up(struct board *b, struct vm *vm, const struct irq_line *harts,
	     const struct char_out *serial_out)
{
	int ret;

	*b = (struct board){ .vm = vm };
	ret = board_irqchip_up(b, harts);
	if (ret)
		return ret;
	ret = board_uart_up(b, serial_out);
	if (ret)
		plic_destroy(&b->plic);
	return ret;
}

void board_down(struct board *b)
{
	if (b->rng_live)
		virtio_rng_destroy(&b->rng);
	b->rng_live = false;
	uart8250_destroy(&b->uart);
	plic_destroy(&b->plic);
}

struct board_slot *board_virtio_slot(struct board *b, const char *what)
{
	struct board_slot *slot = &b->virtio[b->nr_virtio];
	unsigned int n = b->nr_virtio;

	if (n == BOARD_VIRTIO_SLOTS) {
		pr_err("%s: all %u virtio-mmio slots are taken", what,
		       BOARD_VIRTIO_SLOTS);
		return NULL;
	}
	*slot = (struct board_slot){
		.board = b,
		.res = {
			.base = LAYOUT_VIRTIO_MMIO_BASE +
				n * LAYOUT_VIRTIO_MMIO_SIZE,
			.size = LAYOUT_VIRTIO_MMIO_SIZE,
			.irq = LAYOUT_VIRTIO_MMIO_FIRST_IRQ + n,
			.irq_parent = PHANDLE_IRQCHIP,
			.irq_cells = 1,
		},
		.line = { .set = slot_irq_set, .opaque = slot },
		.kick_fd = -1,
	};
	return slot;
}

int board_virtio_add(struct board_slot *slot, struct virtio_mmio *transport)
{
	struct board *b = slot->board;
	int ret;

	ret = mmio_bus_add(&b->vm->bus, slot->res.base, slot->res.size,
			   &virtio_mmio_ops, transport);
	if (ret) {
		pr_err("MMIO map of %s: %s", transport->dev.name,
		       strerror(-ret));
		return ret;
	}
	slot->transport = transport;
	b->nr_virtio++;
	return 0;
}

int board_rng_up(struct board *b)
{
	struct board_slot *slot = board_virtio_slot(b, "--rng");
	int ret;

	if (!slot)
		return -ENOSPC;
	ret = virtio_rng_init(&b->rng, &slot->res, &b->vm->mem, &slot->line,
			      virtio_rng_getrandom, NULL);
	if (ret) {
		pr_err("cannot set up virtio-rng: %s", strerror(-ret));
		return ret;
	}
	ret = board_virtio_add(slot, &b->rng.vm);
	if (ret)
		virtio_rng_destroy(&b->rng);
	b->rng_live = !ret;
	return ret;
}

int board_fdt(struct board *b, struct fdt_params *p, void *buf, size_t size)
{
	struct fdt_device devices[2 + BOARD_VIRTIO_SLOTS] = {
		{ &plic_mmio_ops, &b->plic },
		{ &uart8250_mmio_ops, &b->uart },
	};
	unsigned int n = 2;
	char serial[32];

	snprintf(serial, sizeof(serial), "/soc/serial@%llx",
		 (unsigned long long)LAYOUT_UART_BASE);
	for (unsigned int i = 0; i < b->nr_virtio; i++)
		devices[n++] = (struct fdt_device){
			&virtio_mmio_ops, b->virtio[i].transport,
		};
	p->ram_base = LAYOUT_RAM_BASE;
	p->cpu_intc_phandle = PHANDLE_CPU_INTC(0);
	p->stdout_path = p->cfg->console == CONSOLE_SERIAL ? serial : NULL;
	p->devices = devices;
	p->nr_devices = n;
	return fdt_build(p, buf, size);
}
