/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio-fs (virtio 1.2 §5.11): device ID 26, queues 0 hiprio and 1 the
 * one request queue, configuration space the tag (36 bytes, NUL-padded,
 * no NUL when 36 long) and num_request_queues (le32, 1).  The device
 * model only describes itself and hands both queues to a back-end that
 * serves them (virtiofsd over vhost-user, through the glue in
 * vmm/machine/fs.c): start() at DRIVER_OK, stop() at every reset, kick()
 * for a notification that reached lkvm instead of the back-end, dma() for
 * PCI bus mastering turned off or on after start.
 *
 * No feature bits of its own (VIRTIO_FS_F_NOTIFICATION is not offered);
 * the transport adds VERSION_1, INDIRECT_DESC and EVENT_IDX.
 */
#ifndef RVKVM_VIRTIO_FS_H
#define RVKVM_VIRTIO_FS_H

#include <stdint.h>

#include "virtio/mmio.h"

#define VIRTIO_ID_FS 26
#define VIRTIO_FS_QUEUES 2 /* hiprio, one request queue */
#define VIRTIO_FS_QUEUE_SIZE 256
#define VIRTIO_FS_TAG_LEN 36
#define VIRTIO_FS_CONFIG_SIZE 40

/* What serves the queues; every op runs with the device's lock held. */
struct virtio_fs_backend {
	/* DRIVER_OK: take queues 0..VIRTIO_FS_QUEUES-1.  0 or -errno. */
	int (*start)(void *opaque, uint64_t features);
	/* Device reset: give them back (the rings are gone). */
	void (*stop)(void *opaque);
	/* A notification of queue q that lkvm received. */
	void (*kick)(void *opaque, unsigned int q);
	/* After start: PCI bus mastering off (false) or on again (true). */
	void (*dma)(void *opaque, bool on);
	void *opaque;
};

struct virtio_fs {
	struct virtio_mmio vm;
	uint8_t tag[VIRTIO_FS_TAG_LEN];
	uint64_t features; /* accepted at FEATURES_OK */
	bool started;	   /* the back-end has the rings */
	struct virtio_fs_backend be;
};

/* Is tag one the configuration space can hold (1..36 bytes)? */
bool virtio_fs_tag_ok(const char *tag);

/* A device showing tag (checked: -EINVAL), served by be. */
int virtio_fs_init(struct virtio_fs *fs, const struct dev_res *res,
		   const struct guest_mem *mem, const struct irq_line *irq,
		   const char *tag, const struct virtio_fs_backend *be);
void virtio_fs_destroy(struct virtio_fs *fs);

#endif
