/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PCI configuration space definitions and the interface between the PCI
 * host bridge (devices/pci_host.c) and a PCI function behind it (such as
 * virtio/pci.c).  The bridge owns the type-0 header (0x00-0x3f: ids,
 * command, status, BARs, interrupt pin and line); the function describes
 * its ids and BARs in a struct pci_func and owns the rest of the
 * configuration space (its capabilities, from 0x40) and its BARs' contents.
 * Nothing here knows where the bridge is or about KVM.
 */
#ifndef RVKVM_PCI_H
#define RVKVM_PCI_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/device.h"

/* Type-0 header registers. */
#define PCI_VENDOR_ID 0x00
#define PCI_DEVICE_ID 0x02
#define PCI_COMMAND 0x04
#define PCI_STATUS 0x06
#define PCI_REVISION_ID 0x08
#define PCI_CLASS_PROG 0x09
#define PCI_HEADER_TYPE 0x0e
#define PCI_BASE_ADDRESS_0 0x10
#define PCI_SUBSYSTEM_VENDOR_ID 0x2c
#define PCI_SUBSYSTEM_ID 0x2e
#define PCI_ROM_ADDRESS 0x30
#define PCI_CAPABILITY_LIST 0x34
#define PCI_INTERRUPT_LINE 0x3c
#define PCI_INTERRUPT_PIN 0x3d
#define PCI_HEADER_END 0x40

#define PCI_COMMAND_MEMORY 0x0002
#define PCI_COMMAND_MASTER 0x0004
#define PCI_COMMAND_INTX_DISABLE 0x0400
#define PCI_STATUS_INTERRUPT 0x0008
#define PCI_STATUS_CAP_LIST 0x0010

/* BAR flag bits (memory BARs only). */
#define PCI_BAR_MEM_64 0x4
#define PCI_BAR_MEM_PREFETCH 0x8
#define PCI_BAR_FLAGS 0xf

#define PCI_CAP_ID_VNDR 0x09
#define PCI_CAP_ID_MSIX 0x11

/* Conventional configuration space; ECAM gives each function 4 KiB. */
#define PCI_CFG_SIZE 0x100
#define PCI_ECAM_FUNC_SIZE 0x1000
#define PCI_NR_BARS 6
/* The smallest memory BAR. */
#define PCI_BAR_MIN 16

/* What the function does; offsets and lengths checked by the bridge. */
struct pci_func_ops {
	/*
	 * Configuration space at off in [0x40, 0x100): len is 1, 2 or 4 and
	 * the access is naturally aligned.  Data is little-endian.
	 */
	uint32_t (*cfg_read)(void *opaque, uint32_t off, unsigned int len);
	void (*cfg_write)(void *opaque, uint32_t off, unsigned int len,
			  uint32_t val);
	/*
	 * An access inside BAR bar: off + len <= the BAR's size, len 1, 2,
	 * 4 or 8.  Only while the BAR decodes (memory decode on, inside a
	 * window).
	 */
	void (*bar_read)(void *opaque, unsigned int bar, uint64_t off,
			 void *data, unsigned int len);
	void (*bar_write)(void *opaque, unsigned int bar, uint64_t off,
			  const void *data, unsigned int len);
	/* Function-level reset (system reset). */
	void (*reset)(void *opaque);
	/*
	 * Optional: Bus Master Enable (PCI_COMMAND_MASTER) changed.  While
	 * it is clear the function must not access memory (no DMA, no MSI
	 * writes).  It is clear at power-on (the function starts so) and
	 * after a reset (called before reset() when it was set).  Called
	 * with the bridge's configuration lock held.
	 */
	void (*bus_master)(void *opaque, bool on);
};

struct pci_func {
	const char *name;
	uint16_t vendor, device;
	uint16_t subsys_vendor, subsys;
	uint8_t revision;
	uint32_t class_code; /* base class, subclass, prog-if: 24 bits */
	uint8_t cap_ptr;     /* first capability (>= 0x40), 0: none */
	bool intx;	     /* has an INTx pin (INTA) */
	/*
	 * Memory BAR sizes: 0 unused, else a power of 2 >= PCI_BAR_MIN.  A
	 * 64-bit BAR (bar64) takes the next BAR number too, whose size is 0.
	 */
	uint64_t bar_size[PCI_NR_BARS];
	bool bar64[PCI_NR_BARS];
	const struct pci_func_ops *ops;
	void *opaque;
};

/* Is the description usable (BAR sizes, 64-bit BAR pairs, ops)? */
bool pci_func_ok(const struct pci_func *f);

/* Little-endian helpers for a function's capability image. */
static inline uint32_t pci_get(const uint8_t *p, unsigned int len)
{
	uint32_t v = 0;

	for (unsigned int i = 0; i < len && i < 4; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

static inline void pci_put(uint8_t *p, unsigned int len, uint32_t v)
{
	for (unsigned int i = 0; i < len && i < 4; i++)
		p[i] = v >> (8 * i);
}

#endif
