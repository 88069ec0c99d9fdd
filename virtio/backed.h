/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A virtio device whose queues a back-end in another context serves
 * (vhost-user daemons, through the glue in vmm/machine/vhostdev.c): the
 * model only describes itself (device ID, feature bits, a fixed
 * configuration space of bytes given at creation) and hands every queue
 * to the back-end: start() at DRIVER_OK, stop() at every reset, kick()
 * for a notification that reached lkvm instead of the back-end, dma()
 * for PCI bus mastering turned off or on after start.  virtio-fs
 * (virtio/fs.c) and virtio-blk served by qemu-storage-daemon
 * (virtio/blk_user.c) are made this way.
 *
 * The configuration space is read-only to the driver (writes are
 * ignored: no such device here offers a writable field).
 *
 * A back-end that is gone for good (its daemon died) leaves the device
 * broken (DEVICE_NEEDS_RESET, virtio_core_fail_locked()), unless the
 * model can answer requests without it (orphan, e.g. virtio-blk: every
 * request fails with IOERR): then virtio_backed_adopt_locked() takes the
 * rings back where the back-end stopped, and from then on (guest resets
 * and reboots included) the model answers every request itself.
 */
#ifndef RVKVM_VIRTIO_BACKED_H
#define RVKVM_VIRTIO_BACKED_H

#include <stdint.h>

#include "virtio/mmio.h"

#define VIRTIO_BACKED_CONFIG_MAX 256
/*
 * The transport features the core always offers, so the rings the driver
 * sets up may use them: a back-end must have every one.
 */
#define VIRTIO_BACKED_NEEDED                                               \
	(VIRTIO_BIT(VIRTIO_F_VERSION_1) | VIRTIO_BIT(VIRTIO_F_EVENT_IDX) | \
	 VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC))

/* What serves the queues; every op runs with the device's lock held. */
struct virtio_backend {
	/* DRIVER_OK: take every queue.  0 or -errno. */
	int (*start)(void *opaque, uint64_t features);
	/* Device reset: give them back (the rings are gone). */
	void (*stop)(void *opaque);
	/* A notification of queue q that lkvm received. */
	void (*kick)(void *opaque, unsigned int q);
	/* After start: PCI bus mastering off (false) or on again (true). */
	void (*dma)(void *opaque, bool on);
	void *opaque;
};

struct virtio_backed {
	struct virtio_mmio vm;
	uint8_t config[VIRTIO_BACKED_CONFIG_MAX];
	uint64_t features; /* accepted at FEATURES_OK */
	bool started;	   /* the back-end has the rings */
	struct virtio_backend be;
	/* The model's answer to a request with no back-end (NULL: none). */
	virtio_chain_fn *orphan;
	bool orphaned; /* the back-end is gone: orphan answers */
};

/*
 * A device described by dev (its ops are the model's own; config_size
 * bytes of config, at most VIRTIO_BACKED_CONFIG_MAX), served by be.
 * -EINVAL for a bad description, or -errno.
 */
int virtio_backed_init(struct virtio_backed *d, const struct dev_res *res,
		       const struct guest_mem *mem, const struct irq_line *irq,
		       const struct virtio_dev *dev, const void *config,
		       const struct virtio_backend *be);
void virtio_backed_destroy(struct virtio_backed *d);

/*
 * Lock held.  The back-end is gone: with an orphan answer, every ready
 * queue taken over (virtq_adopt()) and its waiting requests answered, 0;
 * else (or a ring that cannot be taken over) the device broken
 * (DEVICE_NEEDS_RESET) and -EOPNOTSUPP or -EINVAL.
 */
int virtio_backed_adopt_locked(struct virtio_backed *d);

#endif
