/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio-pci, modern (virtio 1.2 §4.1): a PCI function (lib/pci.h) that is
 * a register front-end to a device's shared virtio core (virtio/core.h),
 * the same core virtio-mmio drives.
 *
 * Vendor 0x1af4, device 0x1040 + virtio device id, subsystem 0x1af4 / the
 * device id, revision 1.  One 64-bit memory BAR (BAR 0, 16 KiB) holds the
 * common configuration (0x0000), the ISR (0x1000), the device
 * configuration (0x2000) and the notification address (0x3000:
 * notify_off_multiplier 0, so every queue is notified by writing its index
 * there, 2 bytes, which the VMM binds to one ioeventfd per queue with a
 * data match).  Capabilities: common, notify, ISR, device (when the device
 * has a configuration space) and the PCI configuration access capability.
 *
 * Interrupts: INTx (level, through the bridge); reading the ISR returns
 * and clears the interrupt status and lowers the line.  With a message
 * sink (the VMM has an MSI-capable interrupt controller: KVM's AIA), an
 * MSI-X capability too: num_queues + 1 vectors, the table at 0x4000 and
 * the PBA at 0x5000 of BAR 0, the function mask and per-vector masks with
 * pending bits (a masked vector's message is sent when it is unmasked).
 * While MSI-X is enabled each queue and the configuration change signal
 * the vector the driver chose (none: NO_VECTOR, or a vector beyond the
 * table, which then reads back as NO_VECTOR), never INTx or the ISR.
 * Without a sink, config_msix_vector and queue_msix_vector read NO_VECTOR.
 *
 * Bus mastering: while Bus Master Enable is clear in the command register
 * (the power-on state, and after a reset) the device does no DMA: the
 * core's DMA gate is off (virtio/core.h: queues held, nothing popped or
 * completed, notifications replayed when it is set) and MSI-X messages
 * stay pending (the PBA shows them) until it is set again.
 *
 * Accesses: common configuration fields take their own width (64-bit
 * fields also as two 4-byte halves); the device configuration 1, 2 and 4
 * bytes inside its size; anything else is logged once (reads give 0).
 */
#ifndef RVKVM_VIRTIO_PCI_H
#define RVKVM_VIRTIO_PCI_H

#include <stdint.h>

#include "lib/pci.h"
#include "virtio/core.h"

#define VIRTIO_PCI_VENDOR 0x1af4
#define VIRTIO_PCI_DEVICE_BASE 0x1040
#define VIRTIO_PCI_REVISION 1

#define VIRTIO_PCI_BAR 0
#define VIRTIO_PCI_BAR_SIZE 0x8000
#define VIRTIO_PCI_COMMON_OFF 0x0000
#define VIRTIO_PCI_COMMON_LEN 0x38
#define VIRTIO_PCI_ISR_OFF 0x1000
#define VIRTIO_PCI_DEVICE_OFF 0x2000
#define VIRTIO_PCI_NOTIFY_OFF 0x3000
#define VIRTIO_PCI_NOTIFY_LEN 4
#define VIRTIO_PCI_MSIX_TABLE 0x4000
#define VIRTIO_PCI_MSIX_PBA 0x5000
#define VIRTIO_PCI_MSIX_MAX (VIRTIO_CORE_MAX_QUEUES + 1)
#define VIRTIO_PCI_MSIX_ENTRY 16

/* Capability cfg_type values (§4.1.4). */
#define VIRTIO_PCI_CAP_COMMON_CFG 1
#define VIRTIO_PCI_CAP_NOTIFY_CFG 2
#define VIRTIO_PCI_CAP_ISR_CFG 3
#define VIRTIO_PCI_CAP_DEVICE_CFG 4
#define VIRTIO_PCI_CAP_PCI_CFG 5

/* Common configuration layout (§4.1.4.3). */
#define VIRTIO_PCI_DFSELECT 0x00
#define VIRTIO_PCI_DF 0x04
#define VIRTIO_PCI_GFSELECT 0x08
#define VIRTIO_PCI_GF 0x0c
#define VIRTIO_PCI_MSIX_CONFIG 0x10
#define VIRTIO_PCI_NUM_QUEUES 0x12
#define VIRTIO_PCI_STATUS 0x14
#define VIRTIO_PCI_CFG_GENERATION 0x15
#define VIRTIO_PCI_Q_SELECT 0x16
#define VIRTIO_PCI_Q_SIZE 0x18
#define VIRTIO_PCI_Q_MSIX 0x1a
#define VIRTIO_PCI_Q_ENABLE 0x1c
#define VIRTIO_PCI_Q_NOFF 0x1e
#define VIRTIO_PCI_Q_DESC 0x20
#define VIRTIO_PCI_Q_AVAIL 0x28
#define VIRTIO_PCI_Q_USED 0x30

#define VIRTIO_PCI_NO_VECTOR 0xffff

/* Where the capabilities sit in configuration space. */
#define VIRTIO_PCI_CAP_COMMON 0x40
#define VIRTIO_PCI_CAP_NOTIFY 0x50
#define VIRTIO_PCI_CAP_ISR 0x64
#define VIRTIO_PCI_CAP_DEVICE 0x74
#define VIRTIO_PCI_CAP_PCICFG 0x84
#define VIRTIO_PCI_CAP_MSIX 0x98
#define VIRTIO_PCI_CAPS_END 0xa4

/* MSI-X capability: message control bits. */
#define PCI_MSIX_FLAGS_ENABLE 0x8000
#define PCI_MSIX_FLAGS_MASKALL 0x4000
/* Vector control: masked. */
#define PCI_MSIX_ENTRY_MASKED 1

/* Where messages go: send one (address, data) write (MSI-X). */
struct virtio_pci_msi_sink {
	void (*send)(void *opaque, uint64_t addr, uint32_t data);
	void *opaque;
};

/*
 * Told (core lock held) after anything that may change where a queue's
 * vector goes (virtio_pci_queue_msi()): the table, a mask, MSI-X enable,
 * a queue's vector, bus mastering, a reset.  Must not call into the core.
 */
struct virtio_pci_msix_hook {
	void (*changed)(void *opaque);
	void *opaque;
};

/* Why a queue's interrupt is not a message of its own right now. */
enum virtio_pci_qmsi {
	VIRTIO_PCI_QMSI_OK,	   /* *addr, *data: its vector's message */
	VIRTIO_PCI_QMSI_NONE,	   /* no MSI-X offered (no message sink) */
	VIRTIO_PCI_QMSI_OFF,	   /* MSI-X disabled: INTx */
	VIRTIO_PCI_QMSI_NO_VECTOR, /* the queue has NO_VECTOR */
	VIRTIO_PCI_QMSI_MASKED,	   /* vector or function masked, or no DMA */
};

struct virtio_pci_msix_entry {
	uint64_t addr;
	uint32_t data;
	uint32_t ctrl;
};

struct virtio_pci {
	struct virtio_core *core;
	struct pci_func func; /* to plug into the bridge */
	/* Configuration space from 0x40, as the driver reads it. */
	uint8_t cfg[PCI_CFG_SIZE - PCI_HEADER_END];

	/* MSI-X, under the core's lock; nr_vectors 0: not offered. */
	struct virtio_pci_msi_sink sink;
	unsigned int nr_vectors;
	uint16_t msix_ctrl; /* enable and function mask bits */
	uint16_t config_vector;
	uint16_t queue_vector[VIRTIO_CORE_MAX_QUEUES];
	struct virtio_pci_msix_entry table[VIRTIO_PCI_MSIX_MAX];
	uint32_t pending; /* PBA */
	unsigned int msgs_sent;
	bool bus_master; /* Bus Master Enable, as the bridge reports it */
	struct virtio_pci_msix_hook hook;
};

/*
 * Describe core (initialised, its line the function's INTx) as a PCI
 * function in vp->func; with sink (may be NULL), offer MSI-X and deliver
 * its messages there.  -EINVAL for a core whose device cannot be shown.
 */
int virtio_pci_init(struct virtio_pci *vp, struct virtio_core *core,
		    const struct virtio_pci_msi_sink *sink);

/* Install the MSI-X change hook (after init, before the guest runs). */
void virtio_pci_set_msix_hook(struct virtio_pci *vp,
			      const struct virtio_pci_msix_hook *hook);

/*
 * Core lock held.  Can queue q's interrupt go straight to its vector's
 * message (MSI-X on, a vector in the table, neither it nor the function
 * masked, bus mastering on)?  VIRTIO_PCI_QMSI_OK with *addr and *data,
 * else why not (interrupts then go through virtio_core, which keeps a
 * masked vector's message pending).
 */
enum virtio_pci_qmsi virtio_pci_queue_msi(const struct virtio_pci *vp,
					  unsigned int q, uint64_t *addr,
					  uint32_t *data);

#endif
