/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The board: the machine the guest sees.  It alone reads the memory map
 * (layout.h); it creates the interrupt controller (a PLIC emulated here,
 * or the description of KVM's in-kernel AIA), the UART and virtio-rng,
 * hands out virtio slots (a virtio-mmio window and interrupt line, or a
 * virtio-pci function behind its PCIe host bridge) to the modules that
 * create the other virtio devices, puts every device on the MMIO bus, and
 * builds the device tree from its device list.
 */
#ifndef RVKVM_BOARD_H
#define RVKVM_BOARD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/pci_host.h"
#include "devices/plic.h"
#include "devices/pvpanic.h"
#include "devices/uart8250.h"
#include "vmm/board/fdt.h"
#include "vmm/kvm/irqchip.h"
#include "virtio/mmio.h"
#include "virtio/pci.h"
#include "virtio/balloon.h"
#include "virtio/rng.h"
#include "vmm/kvm/vm.h"

#define BOARD_VIRTIO_SLOTS 8

/* How the interrupt controller reaches the harts, from the VMM. */
struct board_irqchip {
	enum irqchip_kind kind;
	/* PLIC: hart i's supervisor external interrupt (KVM_INTERRUPT). */
	const struct irq_line *harts;
	/* AIA: set wired source src to level (KVM_IRQ_LINE). */
	void (*line)(void *opaque, unsigned int src, int level);
	/* AIA: deliver a message-signalled interrupt (KVM_SIGNAL_MSI). */
	void (*msi)(void *opaque, uint64_t addr, uint32_t data);
	/* AIA: GSI routes for MSI irqfds (vhost call eventfds); else NULL. */
	struct gsi_routes *routes;
	void *opaque;
};

struct board_slot;

/*
 * A queue's notification: an eventfd behind a KVM ioeventfd
 * (ioeventfds.c), unless the device routed the queue to the vCPU's MMIO
 * exit (then not bound; under the board's bind_lock).
 */
struct board_kick {
	struct board_slot *slot;
	unsigned int q;
	int fd;
	bool vcpu;
};

/*
 * Bind (assign) or unbind a queue's eventfd to 'len'-byte writes of the
 * value q at the guest address addr (a KVM ioeventfd).
 */
typedef void board_bind_fn(void *opaque, uint64_t addr, unsigned int len,
			   uint32_t q, int fd, bool assign);

/*
 * One virtio device: on virtio-mmio (its window and interrupt in res) or
 * on PCI (a function behind the bridge, res empty), with where its
 * transport lives and how it interrupts.
 */
struct board_slot {
	struct board *board;
	struct virtio_mmio *transport; /* NULL until board_virtio_add() */
	struct dev_res res;
	struct irq_line line; /* the transport's interrupt */
	bool pci;
	struct virtio_pci vpci;	     /* with pci */
	const struct irq_line *intx; /* with pci: the bridge's INTx */
	unsigned int devno;	     /* with pci: device number */
	uint64_t notify;	     /* with pci: bound notify address */
	struct board_kick kicks[VIRTIO_MMIO_MAX_QUEUES]; /* one per queue */
	unsigned int nr_kicks;				 /* eventfds open */
	uint32_t backend_kicks; /* queues whose eventfd a back-end reads */
	/* with pci: told of MSI-X changes (a vhost device's; may be unset) */
	struct virtio_pci_msix_hook msix_hook;
	int irq_fd; /* AIA: eventfd behind a KVM irqfd */
};

struct board {
	struct vm *vm;
	struct board_irqchip chip;
	struct plic plic;	      /* with IRQCHIP_KIND_PLIC */
	struct aia_params aia_params; /* with IRQCHIP_KIND_AIA: */
	struct aia_state aia;	      /* filled at each boot by KVM */
	struct uart8250 uart;
	struct irq_line uart_irq;
	struct pvpanic pvpanic;
	struct virtio_rng rng;
	bool rng_live;
	struct virtio_balloon balloon;
	bool ram_shared; /* guest RAM is a file mapped shared (balloon) */
	bool balloon_live;
	struct board_slot virtio[BOARD_VIRTIO_SLOTS];
	unsigned int nr_virtio; /* slots handed out */
	unsigned int nr_mmio;	/* of which on virtio-mmio */
	struct pci_host pci;
	bool pci_live;
	struct board_pin {
		struct board *board;
		uint32_t src;
	} pci_pins[PCI_HOST_PINS]; /* the bridge's INTx outputs */
	/* Set by kicks_bind() for the life of a KVM VM, else NULL. */
	board_bind_fn *bind;
	void *bind_opaque;
	/* Orders binding: BAR moves (vCPUs), routes (devices), boots. */
	pthread_mutex_t bind_lock;
};

/* The guest physical address of RAM on this board. */
uint64_t board_ram_base(void);

/*
 * The interrupt controller, as chip says, and the UART, whose output goes
 * to serial_out; both on vm's MMIO bus.  Returns 0 or -errno, having said
 * why.
 */
int board_up(struct board *b, struct vm *vm, const struct board_irqchip *chip,
	     const struct char_out *serial_out);
/* Destroys what board_up(), board_rng_up() and board_balloon_up() made. */
void board_down(struct board *b);

/* A virtio-rng device fed by getrandom(), in the next slot. */
int board_rng_up(struct board *b);
/* A virtio-balloon device (--balloon) in the next slot. */
int board_balloon_up(struct board *b);

/*
 * The next virtio slot, on the transport the configuration chose, its
 * resources and interrupt line filled in; NULL (having said so, naming
 * 'what') when all slots are taken or the PCI bridge cannot be set up.
 * board_virtio_slot_on() names the transport (DEFAULT: the configured).
 */
struct board_slot *board_virtio_slot(struct board *b, const char *what);
struct board_slot *board_virtio_slot_on(struct board *b, const char *what,
					enum virtio_transport t);
/* Put an initialised transport in its slot and on the MMIO bus. */
int board_virtio_add(struct board_slot *slot, struct virtio_mmio *transport);

/*
 * bind_lock held: (un)bind queue q's eventfd (board->bind) at the slot's
 * notify address (QueueNotify, or the PCI notify wherever the BAR is;
 * nothing while it is unplaced or no VM is bound).
 */
void board_kick_bind(struct board_slot *slot, unsigned int q, bool assign);

/*
 * A virtio device, as its glue module creates it, for board_virtio_attach().
 * init() sets the device up on the slot's resources and interrupt line
 * (slot->res, slot->line; slot->board is the board), whose transport is
 * the one named here; or it says why, undoes its own steps and returns
 * -errno.  destroy() undoes a successful init() when the board cannot take
 * the device.  Both get opaque.
 */
struct board_virtio_dev {
	int (*init)(void *opaque, struct board_slot *slot);
	void (*destroy)(void *opaque);
	void *opaque;
	struct virtio_mmio *transport; /* in the device's own struct */
};

/*
 * Attach a virtio device: take the next slot on transport t (as
 * board_virtio_slot_on()), dev->init() on it, then board_virtio_add(), or
 * dev->destroy() if that fails.  Returns 0, or -errno having said why:
 * -ENOSPC, naming 'what', when no slot is left.
 */
int board_virtio_attach(struct board *b, const char *what,
			enum virtio_transport t,
			const struct board_virtio_dev *dev);

/*
 * Builds the device tree into buf: p has the KVM-reported and boot-time
 * values (cfg, timer, ISA, initrd, seed); the board adds RAM, phandles,
 * stdout-path and its devices.
 */
int board_fdt(struct board *b, struct fdt_params *p, void *buf, size_t size);

#endif
