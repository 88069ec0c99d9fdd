/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio-mmio transport, version 2 (virtio 1.2 §4.2), modern only: a
 * register front-end to the shared virtio state machine (virtio/core.h),
 * which has the behaviour of status, features, queues and interrupts.
 * Registers below 0x100 take aligned 4-byte accesses only; the device
 * configuration space at 0x100 takes 1, 2 and 4-byte accesses inside
 * config_size.  Anything else is logged once and ignored (reads give 0).
 * The interrupt line is level: asserted while InterruptStatus != 0.
 *
 * Every virtio device embeds a struct virtio_mmio and calls the
 * virtio_mmio_* functions below, whichever transport the board puts it
 * on: a device on PCI has a window of size 0 here, and virtio/pci.c
 * drives the same core.  (The device-facing names are kept from when
 * virtio-mmio was the only transport.)
 *
 * Locking: the core's mutex.  virtio_mmio_queue(),
 * virtio_mmio_queue_live(), virtio_mmio_process() and
 * virtio_mmio_signal_used() must be called with it held: from a device op,
 * or between virtio_mmio_lock() and virtio_mmio_unlock().
 */
#ifndef RVKVM_VIRTIO_MMIO_H
#define RVKVM_VIRTIO_MMIO_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/device.h"
#include "lib/guest_mem.h"
#include "virtio/core.h"
#include "virtio/virtio.h"
#include "virtio/virtqueue.h"

#define VIRTIO_MMIO_MAGIC 0x74726976 /* "virt" */
#define VIRTIO_MMIO_VERSION_2 2
/* "RKVM" in little-endian byte order; drivers match on device IDs only. */
#define VIRTIO_MMIO_VENDOR 0x4d564b52

#define VIRTIO_MMIO_MAX_QUEUES VIRTIO_CORE_MAX_QUEUES
/* The register window: registers, then the device configuration. */
#define VIRTIO_MMIO_WINDOW 0x1000

/* Register offsets (§4.2.2, table "MMIO Device Register Layout"). */
#define VIRTIO_MMIO_MAGIC_VALUE 0x000
#define VIRTIO_MMIO_VERSION 0x004
#define VIRTIO_MMIO_DEVICE_ID 0x008
#define VIRTIO_MMIO_VENDOR_ID 0x00c
#define VIRTIO_MMIO_DEVICE_FEATURES 0x010
#define VIRTIO_MMIO_DEVICE_FEATURES_SEL 0x014
#define VIRTIO_MMIO_DRIVER_FEATURES 0x020
#define VIRTIO_MMIO_DRIVER_FEATURES_SEL 0x024
#define VIRTIO_MMIO_QUEUE_SEL 0x030
#define VIRTIO_MMIO_QUEUE_NUM_MAX 0x034
#define VIRTIO_MMIO_QUEUE_NUM 0x038
#define VIRTIO_MMIO_QUEUE_READY 0x044
#define VIRTIO_MMIO_QUEUE_NOTIFY 0x050
#define VIRTIO_MMIO_INTERRUPT_STATUS 0x060
#define VIRTIO_MMIO_INTERRUPT_ACK 0x064
#define VIRTIO_MMIO_STATUS 0x070
#define VIRTIO_MMIO_QUEUE_DESC_LOW 0x080
#define VIRTIO_MMIO_QUEUE_DESC_HIGH 0x084
#define VIRTIO_MMIO_QUEUE_DRIVER_LOW 0x090
#define VIRTIO_MMIO_QUEUE_DRIVER_HIGH 0x094
#define VIRTIO_MMIO_QUEUE_DEVICE_LOW 0x0a0
#define VIRTIO_MMIO_QUEUE_DEVICE_HIGH 0x0a4
#define VIRTIO_MMIO_SHM_SEL 0x0ac
#define VIRTIO_MMIO_SHM_LEN_LOW 0x0b0
#define VIRTIO_MMIO_SHM_LEN_HIGH 0x0b4
#define VIRTIO_MMIO_SHM_BASE_LOW 0x0b8
#define VIRTIO_MMIO_SHM_BASE_HIGH 0x0bc
#define VIRTIO_MMIO_CONFIG_GENERATION 0x0fc
#define VIRTIO_MMIO_CONFIG 0x100
#define VIRTIO_MMIO_CONFIG_MAX (VIRTIO_MMIO_WINDOW - VIRTIO_MMIO_CONFIG)

/* InterruptStatus bits. */
#define VIRTIO_MMIO_INT_VRING VIRTIO_INT_VRING
#define VIRTIO_MMIO_INT_CONFIG VIRTIO_INT_CONFIG

/* Embeddable; fields are private to the transports (tests may peek). */
struct virtio_mmio {
	struct virtio_core core;
	struct dev_res res; /* window and interrupt, for the device tree */
};

/*
 * Set up the transport in the window and with the interrupt that res
 * describes (at least VIRTIO_MMIO_WINDOW bytes, or 0 for a device that
 * another front-end reaches).  res, dev and irq are copied; mem must
 * outlive the transport.  -EINVAL for a missing or too small res, no mem
 * or a bad device description, or -errno.
 */
int virtio_mmio_init(struct virtio_mmio *vm, const struct dev_res *res,
		     const struct guest_mem *mem, const struct irq_line *irq,
		     const struct virtio_dev *dev);
void virtio_mmio_destroy(struct virtio_mmio *vm);

/*
 * A driver notification for queue q (QueueNotify, or an ioeventfd on an
 * I/O thread).  Takes the lock; calls the device's notify() when the queue
 * may be processed.
 */
static inline void virtio_mmio_kick(struct virtio_mmio *vm, unsigned int q)
{
	virtio_core_kick(&vm->core, q);
}

static inline void virtio_mmio_lock(struct virtio_mmio *vm)
{
	virtio_core_lock(&vm->core);
}

static inline void virtio_mmio_unlock(struct virtio_mmio *vm)
{
	virtio_core_unlock(&vm->core);
}

/* Lock held.  Queue q of the device, q < num_queues. */
static inline struct virtqueue *virtio_mmio_queue(struct virtio_mmio *vm,
						  unsigned int q)
{
	return virtio_core_queue(&vm->core, q);
}

/*
 * Lock held.  May the device use queue q now: DRIVER_OK set, neither
 * DEVICE_NEEDS_RESET nor FAILED (§3.1.1), q exists and is ready.  notify()
 * runs only when this holds; work arriving from elsewhere (received
 * packets or input on an I/O thread) checks it.
 */
static inline bool virtio_mmio_queue_live(const struct virtio_mmio *vm,
					  unsigned int q)
{
	return virtio_core_queue_live(&vm->core, q);
}

/*
 * Handle one popped chain (virtio_chain_fn, core.h): 0 with *len = the
 * bytes written into it (the used length), or -errno to give the chain
 * back unchanged (e.g. the backend is busy).  A device that gives chains
 * back must process the queue again itself when it can (backend ready):
 * the driver need not notify again for buffers it already made available
 * (with EVENT_IDX it does not, unless the ring had been seen empty).
 *
 * Lock held.  The request loop of a live queue q: pop each available
 * chain into *chain, hand it to fn, push it with fn's length, then signal
 * once.  Stops at fn's first error (that chain is unpopped).  Returns the
 * number of chains pushed, fn's error, or -EIO for a broken queue.
 */
static inline int virtio_mmio_process(struct virtio_mmio *vm, unsigned int q,
				      struct virtq_chain *chain,
				      virtio_chain_fn *fn, void *opaque)
{
	return virtio_core_process(&vm->core, q, chain, fn, opaque);
}

/*
 * Lock held.  After pushing used buffers on queue q: if the driver wants
 * a notification (virtq_need_notify), interrupt it (status bit 0 and the
 * line, or a message).  Also turns a broken queue into DEVICE_NEEDS_RESET.
 */
static inline void virtio_mmio_signal_used(struct virtio_mmio *vm,
					   unsigned int q)
{
	virtio_core_signal_used(&vm->core, q);
}

/* Bus callbacks; opaque is the struct virtio_mmio. */
extern const struct mmio_ops virtio_mmio_ops;

#endif
