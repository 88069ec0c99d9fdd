// SPDX-License-Identifier: GPL-2.0
/*
 * The 'virt' board.  Every address, interrupt number and phandle the guest
 * sees comes from layout.h through this file: devices are created with
 * their resources in a struct dev_res and never look them up.  The device
 * tree lists the devices in the order they were created, which is also the
 * order of the virtio-mmio slots.
 *
 * Virtio devices go on virtio-mmio slots or, as PCI functions, behind one
 * PCIe host bridge (created with the first PCI device): its ECAM and BAR
 * window are on the MMIO bus, and when the guest moves a device's BAR the
 * board moves the queues' notification ioeventfds with it.
 *
 * Interrupts, all level-triggered: with the PLIC, every line goes into the
 * emulated PLIC; the bridge's four INTx outputs too (virtio-pci functions
 * then offer no MSI-X).  With KVM's AIA the bridge's node names the IMSIC
 * as its msi-parent and virtio-pci functions offer MSI-X, whose messages
 * go to KVM_SIGNAL_MSI.  With an in-kernel irqchip (KVM's AIA, or KVM's
 * PLIC from kernel-patches/), the UART's and the INTx lines go to
 * KVM_IRQ_LINE, and each virtio-mmio slot's line is raised through an
 * irqfd (see slot_irq_set()): the I/O thread signals the guest without an
 * ioctl and without a vCPU exit.  KVM's PLIC is described by the node of
 * the emulated one (a struct plic that is never on the bus), so the guest
 * sees the same device tree with either.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "vmm/board/board.h"
#include "vmm/board/layout.h"
#include "lib/log.h"

_Static_assert(BOARD_VIRTIO_SLOTS == LAYOUT_VIRTIO_MMIO_SLOTS,
	       "board.h and layout.h disagree on the virtio-mmio slots");
_Static_assert(LAYOUT_NR_IRQS <= PLIC_MAX_SOURCES,
	       "the PLIC has fewer sources than the board hands out");
_Static_assert(LAYOUT_VIRTIO_MMIO_FIRST_IRQ + LAYOUT_VIRTIO_MMIO_SLOTS <=
			       LAYOUT_UART_IRQ ||
		       LAYOUT_VIRTIO_MMIO_FIRST_IRQ > LAYOUT_UART_IRQ,
	       "virtio-mmio interrupts overlap the UART's");
_Static_assert(LAYOUT_PCI_INTX_FIRST_IRQ > LAYOUT_UART_IRQ &&
		       LAYOUT_PCI_INTX_FIRST_IRQ + PCI_HOST_PINS <=
			       LAYOUT_AIA_NR_IRQS,
	       "PCI INTx sources overlap others or exceed the APLIC's");
_Static_assert(LAYOUT_RAM_BASE + CONFIG_RAM_MAX <= LAYOUT_PCI_MMIO64_BASE,
	       "the 64-bit PCI window overlaps the largest RAM");
_Static_assert(LAYOUT_PCI_ECAM_SIZE >= PCI_HOST_ECAM_SIZE,
	       "the ECAM window is too small for bus 0");
_Static_assert(PHANDLE_CPU_INTC(CONFIG_MAX_CPUS) <= PHANDLE_IMSIC,
	       "hart interrupt controller phandles run into the IMSIC's");

uint64_t board_ram_base(void)
{
	return LAYOUT_RAM_BASE;
}

static bool board_aia(const struct board *b)
{
	return b->chip.kind == IRQCHIP_KIND_AIA;
}

/* Lines go to KVM (KVM_IRQ_LINE, irqfd) rather than to our PLIC. */
static bool board_in_kernel(const struct board *b)
{
	return irqchip_in_kernel(b->chip.kind);
}

/* A wired (level) interrupt into the irqchip. */
static void board_irq_set(struct board *b, unsigned int src, int level)
{
	if (board_in_kernel(b))
		b->chip.line(b->chip.opaque, src, level);
	else
		plic_set_irq(&b->plic, src, level);
}

static void uart_irq_set(void *opaque, int level)
{
	board_irq_set(opaque, LAYOUT_UART_IRQ, level);
}

/*
 * With KVM's irqchip a slot's line is raised through its irqfd: a write to the
 * eventfd, which KVM turns into "source high" in the writer's own call,
 * so the I/O thread signals the guest with no ioctl and no exit.  KVM's
 * irqfd only ever raises a line, so it is lowered with KVM_IRQ_LINE: that
 * happens when the guest acknowledges the interrupt (already an exit) or
 * the device resets, and keeps the source's level semantics exact.
 */
static void slot_irq_set(void *opaque, int level)
{
	struct board_slot *slot = opaque;
	struct board *b = slot->board;
	uint64_t one = 1;

	if (!board_in_kernel(b))
		plic_set_irq(&b->plic, slot->res.irq, level);
	else if (!level)
		b->chip.line(b->chip.opaque, slot->res.irq, 0);
	else if (write(slot->irq_fd, &one, sizeof(one)) < 0)
		pr_once(LOG_WARN, "virtio interrupt eventfd: %s",
			strerror(errno));
}

/*
 * A device the board puts on the MMIO bus itself (the PLIC, the UART), for
 * board_mmio_attach(): init() sets it up at res, or returns -errno;
 * destroy() undoes init() when the bus cannot take the device.  Both get
 * opaque; the bus calls ops with state.
 */
struct board_mmio_dev {
	const char *name; /* in messages: "the UART" */
	int (*init)(void *opaque, const struct dev_res *res);
	void (*destroy)(void *opaque);
	void *opaque;
	const struct mmio_ops *ops; /* NULL: not on our bus (KVM's PLIC) */
	void *state;
};

/* Set up dev at res and put it on the bus; 0, or -errno having said why. */
static int board_mmio_attach(struct board *b, const struct dev_res *res,
			     const struct board_mmio_dev *dev)
{
	int ret = dev->init(dev->opaque, res);

	if (ret) {
		pr_err("cannot set up %s: %s", dev->name, strerror(-ret));
		return ret;
	}
	if (!dev->ops)
		return 0;
	ret = mmio_bus_add(&b->vm->bus, res->base, res->size, dev->ops,
			   dev->state);
	if (ret) {
		pr_err("MMIO map of %s: %s", dev->name, strerror(-ret));
		dev->destroy(dev->opaque);
	}
	return ret;
}

static void board_plic_resync(void *opaque, unsigned int hart)
{
	struct board *b = opaque;

	plic_resync(&b->plic, hart);
}

static int board_plic_init(void *opaque, const struct dev_res *res)
{
	struct board *b = opaque;
	int ret = plic_init(&b->plic, res, b->vm->cfg->nr_cpus, b->chip.harts);

	if (!ret) {
		b->vm->ext_resync_opaque = b;
		b->vm->ext_resync = board_plic_resync;
	}
	return ret;
}

static void board_plic_destroy(void *opaque)
{
	struct board *b = opaque;

	b->vm->ext_resync = NULL;
	plic_destroy(&b->plic);
}

static int board_plic_up(struct board *b)
{
	const struct dev_res res = {
		.base = LAYOUT_PLIC_BASE,
		.size = PLIC_SIZE,
		.phandle = PHANDLE_IRQCHIP,
		.irq_parent = PHANDLE_CPU_INTC(0),
	};
	const struct board_mmio_dev dev = {
		.name = "the PLIC",
		.init = board_plic_init,
		.destroy = board_plic_destroy,
		.opaque = b,
		/* KVM's PLIC: only the device tree node is ours. */
		.ops = board_in_kernel(b) ? NULL : &plic_mmio_ops,
		.state = &b->plic,
	};

	return board_mmio_attach(b, &res, &dev);
}

/* KVM creates the AIA at each boot; the board says where it goes. */
static void board_aia_params(struct board *b)
{
	b->aia_params = (struct aia_params){
		.nr_harts = b->vm->cfg->nr_cpus,
		.aplic_base = LAYOUT_APLIC_BASE,
		.imsic_base = LAYOUT_IMSIC_BASE,
		.nr_sources = LAYOUT_AIA_NR_IRQS,
		.aplic_phandle = PHANDLE_IRQCHIP,
		.imsic_phandle = PHANDLE_IMSIC,
		.cpu_intc_phandle = PHANDLE_CPU_INTC(0),
	};
}

static void board_irqchip_down(struct board *b)
{
	b->vm->ext_resync = NULL;
	if (!board_aia(b))
		plic_destroy(&b->plic);
}

/* What the UART's init and destroy work on. */
struct board_uart {
	struct board *b;
	const struct char_out *out; /* where its output goes */
};

static int board_uart_init(void *opaque, const struct dev_res *res)
{
	const struct board_uart *u = opaque;

	return uart8250_init(&u->b->uart, res, &u->b->uart_irq, u->out);
}

static void board_uart_destroy(void *opaque)
{
	const struct board_uart *u = opaque;

	uart8250_destroy(&u->b->uart);
}

static int board_uart_up(struct board *b, const struct char_out *out)
{
	const struct dev_res res = {
		.base = LAYOUT_UART_BASE,
		.size = LAYOUT_UART_SIZE,
		.irq = LAYOUT_UART_IRQ,
		.irq_parent = PHANDLE_IRQCHIP,
		.irq_cells = board_aia(b) ? 2 : 1,
	};
	struct board_uart u = { .b = b, .out = out };
	const struct board_mmio_dev dev = {
		.name = "the UART",
		.init = board_uart_init,
		.destroy = board_uart_destroy,
		.opaque = &u,
		.ops = &uart8250_mmio_ops,
		.state = &b->uart,
	};

	b->uart_irq = (struct irq_line){ .set = uart_irq_set, .opaque = b };
	return board_mmio_attach(b, &res, &dev);
}

/*
 * A panic the guest reports ends the run (exit status 7); with a crash
 * kernel loaded, the guest carries on into it.
 */
static void board_pvpanic_event(void *opaque, unsigned int events)
{
	struct board *b = opaque;

	if (events & PVPANIC_PANICKED)
		vm_request_stop(
			b->vm, VM_STOP_PANIC,
			"guest kernel panic (reported by its pvpanic device)");
	else
		pr_info("guest kernel panic: its crash kernel takes over (pvpanic)");
}

static int board_pvpanic_init(void *opaque, const struct dev_res *res)
{
	struct board *b = opaque;
	const struct pvpanic_sink sink = { board_pvpanic_event, b };

	pvpanic_init(&b->pvpanic, res, &sink);
	return 0;
}

static void board_pvpanic_destroy(void *opaque)
{
}

static int board_pvpanic_up(struct board *b)
{
	const struct dev_res res = {
		.base = LAYOUT_PVPANIC_BASE,
		.size = PVPANIC_MMIO_SIZE,
	};
	const struct board_mmio_dev dev = {
		.name = "the pvpanic device",
		.init = board_pvpanic_init,
		.destroy = board_pvpanic_destroy,
		.opaque = b,
		.ops = &pvpanic_mmio_ops,
		.state = &b->pvpanic,
	};

	return board_mmio_attach(b, &res, &dev);
}

int board_up(struct board *b, struct vm *vm, const struct board_irqchip *chip,
	     const struct char_out *serial_out)
{
	int ret = 0;

	*b = (struct board){ .vm = vm, .chip = *chip };
	pthread_mutex_init(&b->bind_lock, NULL);
	if (board_aia(b))
		board_aia_params(b);
	else
		ret = board_plic_up(b);
	if (ret)
		return ret;
	ret = board_uart_up(b, serial_out);
	if (!ret) {
		ret = board_pvpanic_up(b);
		if (ret)
			uart8250_destroy(&b->uart);
	}
	if (ret)
		board_irqchip_down(b);
	return ret;
}

void board_down(struct board *b)
{
	if (b->rng_live)
		virtio_rng_destroy(&b->rng);
	b->rng_live = false;
	if (b->balloon_live)
		virtio_balloon_destroy(&b->balloon);
	b->balloon_live = false;
	for (unsigned int i = 0; i < b->nr_virtio; i++)
		if (b->virtio[i].irq_fd >= 0)
			close(b->virtio[i].irq_fd);
	b->nr_virtio = 0;
	b->nr_mmio = 0;
	if (b->pci_live)
		pci_host_destroy(&b->pci);
	b->pci_live = false;
	uart8250_destroy(&b->uart);
	board_irqchip_down(b);
	pthread_mutex_destroy(&b->bind_lock);
}

static void board_slot_res(struct board *b, unsigned int n, struct dev_res *res)
{
	*res = (struct dev_res){
		.base = LAYOUT_VIRTIO_MMIO_BASE + n * LAYOUT_VIRTIO_MMIO_SIZE,
		.size = LAYOUT_VIRTIO_MMIO_SIZE,
		.irq = LAYOUT_VIRTIO_MMIO_FIRST_IRQ + n,
		.irq_parent = PHANDLE_IRQCHIP,
		.irq_cells = board_aia(b) ? 2 : 1,
	};
}

/* --- PCI ---------------------------------------------------------------- */

static void board_pin_set(void *opaque, int level)
{
	struct board_pin *pin = opaque;

	board_irq_set(pin->board, pin->src, level);
}

void board_kick_bind(struct board_slot *slot, unsigned int q, bool assign)
{
	struct board *b = slot->board;

	if (!b->bind)
		return;
	if (!slot->pci)
		b->bind(b->bind_opaque,
			slot->res.base + VIRTIO_MMIO_QUEUE_NOTIFY, 4, q,
			slot->kicks[q].fd, assign);
	else if (slot->notify)
		b->bind(b->bind_opaque, slot->notify, 2, q, slot->kicks[q].fd,
			assign);
}

/*
 * bind_lock held: bind (or unbind) the eventfd of each queue not routed
 * to the vCPU at the slot's notify address.
 */
static void board_slot_bind(struct board_slot *slot, bool assign)
{
	for (unsigned int q = 0; q < slot->nr_kicks; q++)
		if (!slot->kicks[q].vcpu)
			board_kick_bind(slot, q, assign);
}

/* The bridge says where a BAR decodes now: follow BAR 0's notify. */
static void board_bar_moved(void *opaque, unsigned int devno, unsigned int bar,
			    uint64_t old, uint64_t new)
{
	struct board *b = opaque;

	if (bar != VIRTIO_PCI_BAR)
		return;
	for (unsigned int i = 0; i < b->nr_virtio; i++) {
		struct board_slot *slot = &b->virtio[i];

		if (!slot->pci || slot->devno != devno)
			continue;
		pthread_mutex_lock(&b->bind_lock);
		board_slot_bind(slot, false);
		slot->notify = new ? new + VIRTIO_PCI_NOTIFY_OFF : 0;
		board_slot_bind(slot, true);
		pthread_mutex_unlock(&b->bind_lock);
	}
}

static void board_pci_params(struct board *b, struct pci_host_params *p)
{
	*p = (struct pci_host_params){
		.ecam = {
			.base = LAYOUT_PCI_ECAM_BASE,
			.size = LAYOUT_PCI_ECAM_SIZE,
			.irq_parent = PHANDLE_IRQCHIP,
			.irq_cells = board_aia(b) ? 2 : 1,
		},
		.mem32_base = LAYOUT_PCI_MMIO32_BASE,
		.mem32_size = LAYOUT_PCI_MMIO32_SIZE,
		.mem64_base = LAYOUT_PCI_MMIO64_BASE,
		.mem64_size = LAYOUT_PCI_MMIO64_SIZE,
		.msi_parent = board_aia(b) ? PHANDLE_IMSIC : 0,
		.bar_moved = board_bar_moved,
		.bar_moved_opaque = b,
	};
	for (unsigned int i = 0; i < PCI_HOST_PINS; i++) {
		b->pci_pins[i] =
			(struct board_pin){ b, LAYOUT_PCI_INTX_FIRST_IRQ + i };
		p->pin_irq[i] = LAYOUT_PCI_INTX_FIRST_IRQ + i;
		p->pins[i] =
			(struct irq_line){ board_pin_set, &b->pci_pins[i] };
	}
}

/* The bridge's ECAM and memory windows on the MMIO bus. */
static int board_pci_map(struct board *b, const struct pci_host_params *p)
{
	struct mmio_bus *bus = &b->vm->bus;
	int ret;

	ret = mmio_bus_add(bus, p->ecam.base, p->ecam.size, &pci_host_ecam_ops,
			   &b->pci);
	if (!ret)
		ret = mmio_bus_add(bus, p->mem32_base, p->mem32_size,
				   &pci_host_window_ops, &b->pci.mem32);
	if (!ret)
		ret = mmio_bus_add(bus, p->mem64_base, p->mem64_size,
				   &pci_host_window_ops, &b->pci.mem64);
	return ret;
}

/* The bridge, its ECAM and its windows on the bus, once. */
static int board_pci_up(struct board *b)
{
	struct pci_host_params p;
	int ret;

	if (b->pci_live)
		return 0;
	board_pci_params(b, &p);
	ret = pci_host_init(&b->pci, &p);
	ret = ret ?: board_pci_map(b, &p);
	if (ret) {
		pr_err("cannot set up the PCI host bridge: %s", strerror(-ret));
		return ret;
	}
	b->pci_live = true;
	return 0;
}

/* A PCI slot's line: the function's INTx, known once it is plugged. */
static void slot_intx_set(void *opaque, int level)
{
	struct board_slot *slot = opaque;

	if (slot->intx)
		irq_line_set(slot->intx, level);
}

/* --- slots ---------------------------------------------------------------- */

static bool board_want_pci(const struct board *b, enum virtio_transport t)
{
	if (t == VIRTIO_TRANSPORT_DEFAULT)
		t = b->vm->cfg->transport;
	return t == VIRTIO_TRANSPORT_PCI;
}

struct board_slot *board_virtio_slot_on(struct board *b, const char *what,
					enum virtio_transport t)
{
	struct board_slot *slot = &b->virtio[b->nr_virtio];
	bool pci = board_want_pci(b, t);

	if (b->nr_virtio == BOARD_VIRTIO_SLOTS) {
		pr_err("%s: all %u virtio slots are taken", what,
		       BOARD_VIRTIO_SLOTS);
		return NULL;
	}
	if (pci && board_pci_up(b))
		return NULL;
	*slot = (struct board_slot){
		.board = b,
		.line = { .set = slot_irq_set, .opaque = slot },
		.irq_fd = -1,
		.pci = pci,
	};
	if (pci)
		slot->line = (struct irq_line){ slot_intx_set, slot };
	else
		board_slot_res(b, b->nr_mmio, &slot->res);
	return slot;
}

struct board_slot *board_virtio_slot(struct board *b, const char *what)
{
	return board_virtio_slot_on(b, what, VIRTIO_TRANSPORT_DEFAULT);
}

/* With KVM's AIA, virtio-pci functions offer MSI-X, sent to the IMSICs. */
static void board_msi_send(void *opaque, uint64_t addr, uint32_t data)
{
	struct board *b = opaque;

	b->chip.msi(b->chip.opaque, addr, data);
}

static int board_pci_add(struct board_slot *slot, struct virtio_mmio *t)
{
	struct board *b = slot->board;
	const struct virtio_pci_msi_sink sink = { board_msi_send, b };
	bool msi = board_aia(b) && b->chip.msi;
	int ret = virtio_pci_init(&slot->vpci, &t->core, msi ? &sink : NULL);

	ret = ret   ?:
		      pci_host_add(&b->pci, &slot->vpci.func, &slot->devno,
				   &slot->intx);
	if (!ret && slot->msix_hook.changed)
		virtio_pci_set_msix_hook(&slot->vpci, &slot->msix_hook);
	if (ret)
		pr_err("%s on PCI: %s", t->core.dev.name, strerror(-ret));
	else
		pr_debug("%s: virtio-pci 0000:00:%02x.0, %s", t->core.dev.name,
			 slot->devno, msi ? "MSI-X or INTx" : "INTx");
	return ret;
}

static int board_mmio_add(struct board_slot *slot, struct virtio_mmio *t)
{
	struct board *b = slot->board;
	int ret;

	if (board_in_kernel(b)) {
		slot->irq_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (slot->irq_fd < 0) {
			pr_err("%s: eventfd: %s", t->core.dev.name,
			       strerror(errno));
			return -errno;
		}
	}
	ret = mmio_bus_add(&b->vm->bus, slot->res.base, slot->res.size,
			   &virtio_mmio_ops, t);
	if (ret) {
		pr_err("MMIO map of %s: %s", t->core.dev.name, strerror(-ret));
		if (slot->irq_fd >= 0)
			close(slot->irq_fd);
		slot->irq_fd = -1;
		return ret;
	}
	b->nr_mmio++;
	pr_debug("%s: virtio-mmio at %#llx, interrupt %u", t->core.dev.name,
		 (unsigned long long)slot->res.base, slot->res.irq);
	return 0;
}

int board_virtio_add(struct board_slot *slot, struct virtio_mmio *transport)
{
	int ret = slot->pci ? board_pci_add(slot, transport) :
			      board_mmio_add(slot, transport);

	if (ret)
		return ret;
	slot->transport = transport;
	slot->board->nr_virtio++;
	return 0;
}

int board_virtio_attach(struct board *b, const char *what,
			enum virtio_transport t,
			const struct board_virtio_dev *dev)
{
	struct board_slot *slot = board_virtio_slot_on(b, what, t);
	int ret;

	if (!slot)
		return -ENOSPC;
	ret = dev->init(dev->opaque, slot);
	if (ret)
		return ret;
	ret = board_virtio_add(slot, dev->transport);
	if (ret)
		dev->destroy(dev->opaque);
	return ret;
}

static int board_rng_init(void *opaque, struct board_slot *slot)
{
	struct board *b = opaque;
	int ret = virtio_rng_init(&b->rng, &slot->res, &b->vm->mem, &slot->line,
				  virtio_rng_getrandom, NULL);

	if (ret) {
		pr_err("cannot set up virtio-rng: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

static void board_rng_destroy(void *opaque)
{
	struct board *b = opaque;

	virtio_rng_destroy(&b->rng);
}

int board_rng_up(struct board *b)
{
	const struct board_virtio_dev dev = {
		.init = board_rng_init,
		.transport = &b->rng.vm,
		.destroy = board_rng_destroy,
		.opaque = b,
	};
	int ret =
		board_virtio_attach(b, "--rng", VIRTIO_TRANSPORT_DEFAULT, &dev);

	b->rng_live = !ret;
	return ret;
}

static int board_balloon_init(void *opaque, struct board_slot *slot)
{
	struct board *b = opaque;
	int ret;

	b->ram_shared = b->vm->ram_fd >= 0;
	ret = virtio_balloon_init(&b->balloon, &slot->res, &b->vm->mem,
				  &slot->line, virtio_balloon_madvise,
				  &b->ram_shared);

	if (ret) {
		pr_err("cannot set up virtio-balloon: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

static void board_balloon_destroy(void *opaque)
{
	struct board *b = opaque;

	virtio_balloon_destroy(&b->balloon);
}

int board_balloon_up(struct board *b)
{
	const struct board_virtio_dev dev = {
		.init = board_balloon_init,
		.transport = &b->balloon.vm,
		.destroy = board_balloon_destroy,
		.opaque = b,
	};
	int ret = board_virtio_attach(b, "--balloon", VIRTIO_TRANSPORT_DEFAULT,
				      &dev);

	b->balloon_live = !ret;
	return ret;
}

/* The board's devices in tree order: irqchip, UART, virtio slots. */
static unsigned int board_fdt_devices(struct board *b,
				      struct fdt_device *devices)
{
	unsigned int n = 0;

	if (board_aia(b)) {
		devices[n++] =
			(struct fdt_device){ &aia_imsic_fdt_ops, &b->aia };
		devices[n++] =
			(struct fdt_device){ &aia_aplic_fdt_ops, &b->aia };
	} else {
		devices[n++] = (struct fdt_device){ &plic_mmio_ops, &b->plic };
	}
	devices[n++] = (struct fdt_device){ &uart8250_mmio_ops, &b->uart };
	devices[n++] = (struct fdt_device){ &pvpanic_mmio_ops, &b->pvpanic };
	for (unsigned int i = 0; i < b->nr_virtio; i++)
		if (!b->virtio[i].pci)
			devices[n++] = (struct fdt_device){
				&virtio_mmio_ops,
				b->virtio[i].transport,
			};
	if (b->pci_live)
		devices[n++] =
			(struct fdt_device){ &pci_host_ecam_ops, &b->pci };
	return n;
}

int board_fdt(struct board *b, struct fdt_params *p, void *buf, size_t size)
{
	struct fdt_device devices[5 + BOARD_VIRTIO_SLOTS];
	char serial[32];

	snprintf(serial, sizeof(serial), "/soc/serial@%llx",
		 (unsigned long long)LAYOUT_UART_BASE);
	p->ram_base = LAYOUT_RAM_BASE;
	p->cpu_intc_phandle = PHANDLE_CPU_INTC(0);
	p->stdout_path = p->cfg->console == CONSOLE_SERIAL ? serial : NULL;
	p->devices = devices;
	p->nr_devices = board_fdt_devices(b, devices);
	return fdt_build(p, buf, size);
}
