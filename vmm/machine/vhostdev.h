/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The glue every vhost device shares (virtio-fs over vhost-user, -n
 * vhost=1 over vhost-net or over passt's vhost-user back-end): one call
 * eventfd per ring, relayed on the I/O thread into the device's
 * interrupt (virtio_core_backend_used_locked(); virtio-mmio and INTx need
 * the interrupt status set first, so never an irqfd); each ring's
 * description for vhost_ring_start() taken from the driver's queue, its
 * kick the queue's KVM ioeventfd (the board slot's, which the I/O thread
 * then leaves to the back-end); a notification that took the MMIO exit
 * written to that eventfd; and the vhost-user start order (features,
 * rings, each ring enabled unless PCI bus mastering is off).
 *
 * The device model calls start/stop/kick/dma with its transport lock
 * held; the relay takes that lock.  Nothing here logs a host failure:
 * the caller says once what failed.
 */
#ifndef RVKVM_VHOSTDEV_H
#define RVKVM_VHOSTDEV_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/board/board.h"
#include "vmm/host/iothread.h"
#include "vmm/host/vhost.h"

struct vhostdev;

/* What the I/O thread's handler of one call eventfd needs. */
struct vhostdev_call {
	struct vhostdev *d;
	unsigned int q;
};

struct vhostdev {
	struct virtio_mmio *vm;	 /* the device's transport */
	struct board_slot *slot; /* its kick eventfds; NULL until attached */
	struct iothread *io;	 /* NULL until watched */
	const char *name;	 /* "virtio-net", for the guest's messages */
	unsigned int nr_rings;
	int call_fd[VHOST_MAX_RINGS];
	struct vhostdev_call calls[VHOST_MAX_RINGS];
};

/* nr_rings call eventfds for the device on vm: 0 or -errno. */
int vhostdev_init(struct vhostdev *d, struct virtio_mmio *vm,
		  unsigned int nr_rings, const char *name);
/* At the device's creation on slot: its rings' kicks go to the back-end. */
void vhostdev_attach(struct vhostdev *d, struct board_slot *slot);
/* Ring i as the driver set it up: 0, or -EINVAL (queue off; said once). */
int vhostdev_ring(const struct vhostdev *d, unsigned int i,
		  struct vhost_ring *r);
/* A notification of queue q that reached lkvm: to the back-end. */
void vhostdev_kick(const struct vhostdev *d, unsigned int q);
/*
 * DRIVER_OK over vhost-user: the features, every ring, then each ring
 * enabled unless dma_off.  0, -EINVAL (the guest's queue; said), or the
 * back-end's -errno (v->failed names the request).
 */
int vhostdev_user_start(const struct vhostdev *d, struct vhost *v,
			uint64_t features, bool dma_off);
/* Bus mastering off or on: every started ring disabled or enabled. */
int vhostdev_user_dma(struct vhostdev *d, struct vhost *v, bool on);
/* The call eventfds on io (before it starts): 0 or -errno. */
int vhostdev_watch(struct vhostdev *d, struct iothread *io);
/* Stop relaying (a back-end that is gone). */
void vhostdev_unwatch(struct vhostdev *d);
/* Close the eventfds (safe on a zeroed or half-made one after init). */
void vhostdev_close(struct vhostdev *d);

#endif
