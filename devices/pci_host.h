/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A PCIe host bridge as Linux's pci-host-ecam-generic driver sees it: one
 * bus (bus 0) of up to 32 single-function devices, its configuration space
 * in an ECAM window, and memory windows in which the guest places the
 * functions' BARs.
 *
 * Configuration space: 1, 2 and 4-byte naturally aligned accesses (others
 * are logged once: reads give all ones, writes are dropped).  An absent
 * device reads all ones.  The header is emulated here: command (memory
 * decode, bus master, INTx disable writable), status (interrupt and
 * capability list bits), BARs sized the usual way (write all ones, read
 * back the size mask), interrupt line writable, pin INTA when the function
 * has INTx; the extended space (0x100-0xfff) reads 0.  Offsets from 0x40
 * go to the function.
 *
 * BARs decode only while memory decode is on and the whole BAR lies inside
 * one window: the windows are the only address ranges the bridge claims,
 * so a BAR placed over RAM or another device never decodes (logged once).
 * Where two BARs overlap, the lower device number wins.  Every change of
 * where a BAR decodes is reported to the bar_moved callback (the VMM moves
 * its ioeventfds there).
 *
 * INTx: the function's line drives its pin, swizzled by slot ((device +
 * pin) mod 4) onto the bridge's four outputs; each output is the OR of the
 * functions driving it (level, shared).  INTx disable in the command
 * register masks a function's contribution; the status bit shows its level.
 *
 * Locking: cfg_lock serialises configuration accesses and BAR look-ups;
 * the function's callbacks run without it for BAR accesses and with it
 * for configuration accesses.  intx_lock protects the pin counts; the
 * functions' lines take it (from any thread, with their own locks held).
 */
#ifndef RVKVM_PCI_HOST_H
#define RVKVM_PCI_HOST_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/device.h"
#include "lib/pci.h"

#define PCI_HOST_DEVICES 32
#define PCI_HOST_ECAM_SIZE (PCI_HOST_DEVICES * 8 * PCI_ECAM_FUNC_SIZE)
#define PCI_HOST_PINS 4

struct pci_host;

/* A memory window; its mmio_ops opaque is this struct. */
struct pci_host_window {
	struct pci_host *host;
	uint64_t base, size; /* size 0: no window */
	bool mem64;	     /* the 64-bit prefetchable window */
};

struct pci_host_dev {
	struct pci_host *host;
	unsigned int devno;
	struct pci_func func;
	struct irq_line intx; /* handed to the function */
	uint16_t command;
	uint8_t int_line;
	bool intx_level;	    /* the function's line */
	bool intx_out;		    /* counted on its pin */
	uint64_t bar[PCI_NR_BARS];  /* as programmed, flag bits clear */
	uint64_t live[PCI_NR_BARS]; /* where it decodes; 0: it does not */
};

/* Where a BAR decodes now (new) and did (old); 0: not decoding. */
typedef void pci_bar_moved_fn(void *opaque, unsigned int devno,
			      unsigned int bar, uint64_t old, uint64_t new);

struct pci_host_params {
	struct dev_res ecam; /* base, size; irq_parent, irq_cells for INTx */
	uint64_t mem32_base, mem32_size;
	uint64_t mem64_base, mem64_size; /* 0: none */
	uint32_t pin_irq[PCI_HOST_PINS]; /* INTA..INTD sources */
	struct irq_line pins[PCI_HOST_PINS];
	uint32_t msi_parent; /* phandle, 0: none */
	pci_bar_moved_fn *bar_moved;
	void *bar_moved_opaque;
};

struct pci_host {
	pthread_mutex_t cfg_lock, intx_lock;
	struct pci_host_params p;
	struct pci_host_window mem32, mem64;
	unsigned int pin_count[PCI_HOST_PINS];
	struct pci_host_dev devs[PCI_HOST_DEVICES];
	unsigned int nr_devs;
};

/* -EINVAL for a missing ECAM or mem32 window, or -errno. */
int pci_host_init(struct pci_host *h, const struct pci_host_params *p);
void pci_host_destroy(struct pci_host *h);

/*
 * Plug f in the next device number (*devno).  Its INTx line, to pass to
 * the function, is *intx.  -EINVAL for a bad f, -ENOSPC when full.
 */
int pci_host_add(struct pci_host *h, const struct pci_func *f,
		 unsigned int *devno, const struct irq_line **intx);

/* The ECAM window: mmio_ops with opaque the struct pci_host. */
extern const struct mmio_ops pci_host_ecam_ops;
/* A memory window: mmio_ops with opaque a struct pci_host_window. */
extern const struct mmio_ops pci_host_window_ops;

#endif
