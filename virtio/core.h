/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The virtio device state machine shared by every transport (virtio 1.2
 * §2, §3): device status, feature negotiation, queue set-up, notifications,
 * interrupts and reset.  A transport is only a register front-end: the
 * virtio-mmio registers (virtio/mmio.c) and the virtio-pci common
 * configuration (virtio/pci.c) both decode guest accesses into the calls
 * below, so both behave the same way.
 *
 * Offers VIRTIO_F_VERSION_1 (always), VIRTIO_F_INDIRECT_DESC and
 * VIRTIO_F_EVENT_IDX on top of the device's own features; FEATURES_OK
 * sticks only when the driver's features are a subset of these, include
 * VERSION_1 and the device's features_ok() (if any) accepts them.
 *
 * Status: the driver may only add bits, in the order ACKNOWLEDGE, DRIVER,
 * FEATURES_OK, DRIVER_OK (FAILED at any time); writing 0 resets the device.
 * A bad write is logged once and the offending bits dropped.  Queue fields
 * are writable only while the queue is not ready; enabling a queue needs
 * FEATURES_OK and valid rings.  A failed activation or a queue that turned
 * broken sets DEVICE_NEEDS_RESET and raises a configuration change
 * interrupt; after that, notifications are ignored until the driver resets
 * the device.  Notifications that arrive before DRIVER_OK are remembered
 * and processed when DRIVER_OK is set.
 *
 * DMA: a transport whose bus can forbid the device to access memory
 * (virtio-pci: Bus Master Enable clear in the PCI command register) calls
 * virtio_core_set_dma_locked().  While DMA is off no queue is live (the
 * device's notify() does not run, work from elsewhere finds the queue
 * not live), every virtqueue is held (virtq_hold(): nothing popped, no
 * ring access, chains completed meanwhile kept by the host) and no queue
 * interrupt goes out.  When it is back the held completions are published
 * and signalled, and every live queue is processed as if the driver had
 * notified it: notifications that arrived meanwhile, and work the hold
 * stopped half-way, go on.  Requests already in flight when DMA goes off
 * (a disk read in the host kernel, a 9P request being served) finish
 * their buffers (that transfer began while DMA was allowed) but are
 * returned to the used ring only once DMA is back.  Drivers quiesce the
 * device before they clear Bus Master Enable (Linux does), so this
 * matters only for a hostile or broken guest.  The power-on state is DMA
 * allowed; virtio-pci turns it off until the driver sets bus mastering.
 *
 * Re-arming: a device that stops a pass with work left (a budget) calls
 * virtio_core_rearm_locked(); the notifier (the VMM's I/O thread, through
 * virtio_core_set_rearm()) then delivers another notification of that
 * queue later, after its other work.  Without one the core runs the
 * queue's notify() again itself, after dropping and retaking the lock.
 *
 * Interrupts: by default the core keeps an interrupt status (bit 0 used
 * buffers, bit 1 configuration change) and holds its line high while it is
 * non-zero.  A front-end that can send messages instead (MSI-X) installs a
 * struct virtio_msi; when its signal() returns true the interrupt was
 * delivered (or suppressed) that way and the status is left alone.
 *
 * Locking: one mutex per device, taken by virtio_core_kick() and
 * virtio_core_lock(); the *_locked functions and those marked "lock held"
 * expect it.  The device's ops and irq.set() run with it held.
 */
#ifndef RVKVM_VIRTIO_CORE_H
#define RVKVM_VIRTIO_CORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/device.h"
#include "lib/guest_mem.h"
#include "virtio/virtio.h"
#include "virtio/virtqueue.h"

#define VIRTIO_CORE_MAX_QUEUES 8
/* The largest device configuration space any front-end can show. */
#define VIRTIO_CORE_CONFIG_MAX 0xf00

/* Interrupt status bits (virtio-mmio InterruptStatus, virtio-pci ISR). */
#define VIRTIO_INT_VRING 1
#define VIRTIO_INT_CONFIG 2

/* signal()'s q for a configuration change. */
#define VIRTIO_MSI_CONFIG 0xffffu

struct virtio_msi {
	/* Lock held.  true: handled by message, do not touch the status. */
	bool (*signal)(void *opaque, unsigned int q);
	void *opaque;
};

/*
 * Deliver another notification of queue q later, from the notifier's own
 * loop (e.g. make the queue's ioeventfd readable again).  Called with the
 * core's lock held: must not call back into the core.
 */
struct virtio_rearm {
	void (*fn)(void *opaque, unsigned int q);
	void *opaque;
};

/*
 * Where queue q's notifications are served: on the notifier's own thread
 * (eventfd true: the VMM's I/O thread, woken through a KVM ioeventfd) or
 * in the notifying vCPU's MMIO exit (false).  Either way they end in the
 * queue's notify(); a notification written while the route changes is
 * served by one of the two.  Called with the core's lock held: must not
 * call back into the core.  false: the queue cannot be moved (a back-end
 * reads its eventfd), nothing was done.
 */
struct virtio_route {
	bool (*fn)(void *opaque, unsigned int q, bool eventfd);
	void *opaque;
};

/* Embeddable; fields are private to the core and its front-ends. */
struct virtio_core {
	pthread_mutex_t lock;
	struct irq_line irq;
	int irq_level; /* last level given to irq.set() */
	struct virtio_msi msi;
	struct virtio_dev dev;

	uint32_t status;
	uint32_t isr; /* interrupt status */
	uint32_t config_generation;
	uint32_t device_features_sel, driver_features_sel, queue_sel;
	uint64_t driver_features; /* as written by the driver */
	uint64_t features;	  /* accepted at FEATURES_OK */
	uint32_t kick_pending;	  /* queues notified before DRIVER_OK */
	bool dma_off;		  /* the transport forbids DMA */
	uint32_t again;		  /* queues to notify again (no rearm hook) */
	struct virtio_rearm rearm;
	struct virtio_route route;
	struct virtqueue queues[VIRTIO_CORE_MAX_QUEUES];
};

/* Is dev a description the core accepts? */
bool virtio_core_dev_ok(const struct virtio_dev *dev);

/*
 * dev and irq (may be NULL) are copied; mem must outlive the core.
 * -EINVAL for a bad device description, or -errno.
 */
int virtio_core_init(struct virtio_core *c, const struct guest_mem *mem,
		     const struct irq_line *irq, const struct virtio_dev *dev);
void virtio_core_destroy(struct virtio_core *c);

void virtio_core_lock(struct virtio_core *c);
void virtio_core_unlock(struct virtio_core *c);

/* A driver notification for queue q; takes the lock. */
void virtio_core_kick(struct virtio_core *c, unsigned int q);
void virtio_core_kick_locked(struct virtio_core *c, uint32_t q);

/* Install (fn NULL: remove) the re-arm hook; takes the lock. */
void virtio_core_set_rearm(struct virtio_core *c, const struct virtio_rearm *r);
/*
 * Lock held.  The device stopped processing queue q with work left: have
 * its notify() run again later (see "Re-arming" above).
 */
void virtio_core_rearm_locked(struct virtio_core *c, unsigned int q);

/* Install (fn NULL: remove) the route hook; takes the lock. */
void virtio_core_set_route(struct virtio_core *c, const struct virtio_route *r);
/*
 * Lock held.  Serve queue q's notifications on the notifier's thread
 * (eventfd) or in the vCPU's exit; false (nothing done) without a route
 * hook, for a queue the device does not have, or one the hook cannot
 * move.
 */
bool virtio_core_route_locked(struct virtio_core *c, unsigned int q,
			      bool eventfd);

/* Lock held.  Queue q, or NULL when q >= num_queues. */
struct virtqueue *virtio_core_queue(struct virtio_core *c, unsigned int q);
/* Lock held.  DRIVER_OK, not NEEDS_RESET/FAILED, q exists and is ready. */
bool virtio_core_queue_live(const struct virtio_core *c, unsigned int q);

typedef int virtio_chain_fn(void *opaque, const struct virtq_chain *chain,
			    uint32_t *len);
/* Lock held.  See virtio_mmio_process() in virtio/mmio.h. */
int virtio_core_process(struct virtio_core *c, unsigned int q,
			struct virtq_chain *chain, virtio_chain_fn *fn,
			void *opaque);
/* Lock held.  Interrupt the driver for queue q if it wants to be. */
void virtio_core_signal_used(struct virtio_core *c, unsigned int q);

/*
 * Lock held.  A back-end that owns queue q's rings (vhost) used buffers
 * and asks for an interrupt (it has checked the driver's suppression):
 * interrupt the driver for q if q is ready and DRIVER_OK is set.
 */
void virtio_core_backend_used_locked(struct virtio_core *c, unsigned int q);
/*
 * Lock held.  The device cannot go on (its back-end failed): enter
 * DEVICE_NEEDS_RESET and tell the driver, until it resets the device.
 */
void virtio_core_fail_locked(struct virtio_core *c);

/*
 * Lock held.  The device changed its configuration space: a new
 * generation, and a configuration change interrupt once the driver is up.
 */
void virtio_core_config_changed_locked(struct virtio_core *c);

/* --- for the register front-ends (lock held) --------------------------- */

/* May the device access guest memory (see "DMA" above)? */
void virtio_core_set_dma_locked(struct virtio_core *c, bool on);

/* Full device reset (status 0, or system reset). */
void virtio_core_reset_locked(struct virtio_core *c);
void virtio_core_status_write_locked(struct virtio_core *c, uint32_t val);
/* The offered features' 32-bit word at device_features_sel (0 past 1). */
uint32_t virtio_core_device_features(const struct virtio_core *c);
/* The driver's features' word at driver_features_sel. */
uint32_t virtio_core_driver_features(const struct virtio_core *c);
void virtio_core_driver_features_write(struct virtio_core *c, uint32_t val);
/* The queue at queue_sel, or NULL. */
struct virtqueue *virtio_core_sel_queue(struct virtio_core *c);
/* The selected queue if its fields may be written, else NULL (logged). */
struct virtqueue *virtio_core_queue_writable(struct virtio_core *c);
/* Enable (val != 0: checks and activates the rings) or disable. */
void virtio_core_queue_enable_locked(struct virtio_core *c, uint32_t val);
/* Clear interrupt status bits (virtio-mmio InterruptACK). */
void virtio_core_isr_ack_locked(struct virtio_core *c, uint32_t bits);
/* Read and clear the whole status (virtio-pci ISR). */
uint32_t virtio_core_isr_take_locked(struct virtio_core *c);
/* Replace half of a 64-bit register. */
void virtio_core_set_half(uint64_t *reg, bool high, uint32_t val);

#endif
