/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Virtio definitions shared by the transport and the devices (virtio 1.2),
 * and the interface between them.
 *
 * A device core describes itself with a struct virtio_dev and is driven by
 * the shared virtio core (virtio/core.h) through struct virtio_dev_ops,
 * whichever transport front-end (virtio/mmio.h, virtio/pci.h) the guest
 * uses.  Every
 * callback runs with the transport's lock held, so a device needs no lock
 * of its own for state it only touches from callbacks; work completed
 * elsewhere (an I/O thread) takes virtio_mmio_lock() first.
 */
#ifndef RVKVM_VIRTIO_H
#define RVKVM_VIRTIO_H

#include <stdint.h>

/* Device status (§2.1). */
#define VIRTIO_STATUS_ACKNOWLEDGE 1
#define VIRTIO_STATUS_DRIVER 2
#define VIRTIO_STATUS_DRIVER_OK 4
#define VIRTIO_STATUS_FEATURES_OK 8
#define VIRTIO_STATUS_DEVICE_NEEDS_RESET 64
#define VIRTIO_STATUS_FAILED 128

/* Reserved feature bits (§6) that the transport offers. */
#define VIRTIO_F_INDIRECT_DESC 28
#define VIRTIO_F_EVENT_IDX 29
#define VIRTIO_F_VERSION_1 32
#define VIRTIO_BIT(n) (1ULL << (n))

/* Device IDs (§5). */
#define VIRTIO_ID_RNG 4
#define VIRTIO_ID_VSOCK 19

struct virtio_dev_ops {
	/*
	 * The driver notified queue q (q < num_queues, the queue is ready
	 * and DRIVER_OK is set).  Process the queue with
	 * virtio_mmio_process(), or pop chains with virtq_pop() on
	 * virtio_mmio_queue(), push them and call virtio_mmio_signal_used().
	 */
	void (*notify)(void *opaque, unsigned int q);
	/* Device reset (status 0 or system reset): drop in-flight work. */
	void (*reset)(void *opaque);
	/*
	 * The driver sets FEATURES_OK with these features (already checked
	 * to be a subset of the offered ones, with VERSION_1): keep what the
	 * device needs of them.  0 accepts; non-zero refuses, and FEATURES_OK
	 * then stays clear (§3.1.1 step 6).  May be NULL (accept).
	 */
	int (*features_ok)(void *opaque, uint64_t features);
	/*
	 * Device configuration space; offset + len <= config_size and len is
	 * 1, 2 or 4.  Data is little-endian.  Either may be NULL: reads then
	 * return zeros and writes are ignored.
	 */
	void (*config_read)(void *opaque, uint32_t offset, void *data,
			    unsigned int len);
	void (*config_write)(void *opaque, uint32_t offset, const void *data,
			     unsigned int len);
	/*
	 * The driver set DRIVER_OK (before notifications held back until
	 * then are delivered): a device whose queues a back-end serves (vhost)
	 * hands them over here.  Non-zero: the device could not start and
	 * enters DEVICE_NEEDS_RESET.  May be NULL.
	 */
	int (*driver_ok)(void *opaque);
	/*
	 * PCI bus mastering turned off (on: false) or on again: a device
	 * whose queues another party serves (vhost) stops it touching guest
	 * memory meanwhile.  Optional; lkvm's own queues are held by the core.
	 */
	void (*dma)(void *opaque, bool on);
};

/* What a device tells the transport about itself. */
struct virtio_dev {
	const char *name;
	const struct virtio_dev_ops *ops;
	void *opaque; /* passed to every op */
	uint32_t device_id;
	uint64_t features; /* device-type bits, offered as is */
	/*
	 * Transport bits (INDIRECT_DESC, EVENT_IDX) not to offer: a ring
	 * back-end in another process that lacks them.  VERSION_1 stays.
	 */
	uint64_t withheld;
	unsigned int num_queues; /* 1 .. VIRTIO_MMIO_MAX_QUEUES */
	uint32_t queue_num_max;	 /* power of 2, <= VIRTQ_MAX_SIZE */
	uint32_t config_size;	 /* bytes, <= VIRTIO_MMIO_CONFIG_MAX */
};

#endif
