/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio-blk whose request queue a vhost-user back-end serves
 * (qemu-storage-daemon's vhost-user-blk export, through the glue in
 * vmm/machine/qsdisk.c): a device of virtio/backed.h with device ID 2,
 * one request queue, and the back-end's configuration space (read with
 * GET_CONFIG at start-up) and device feature bits.
 *
 * The back-end is not trusted: its configuration must be exactly
 * VIRTIO_BLK_USER_CONFIG_SIZE bytes, its capacity below 2^54 sectors
 * (8 EiB), its blk_size (with BLK_SIZE) a power of two from 512 to
 * 64 KiB, its seg_max (with SEG_MAX) at least 1; it must offer
 * VERSION_1, INDIRECT_DESC and EVENT_IDX (the transport always offers
 * them).  Of its feature bits only SIZE_MAX, SEG_MAX, RO, BLK_SIZE,
 * FLUSH, TOPOLOGY, DISCARD and WRITE_ZEROES reach the guest (no MQ: one
 * queue; no CONFIG_WCE: the configuration is read-only, so a guest with
 * FLUSH sees a write-back cache and flushes).  The device never reads
 * the configuration again: a capacity that changes is not followed.
 *
 * When the back-end is gone (virtio_backed_adopt_locked()), every request
 * it had not yet taken, and every later one, fails with IOERR; those it
 * had taken and not completed never complete.
 */
#ifndef RVKVM_VIRTIO_BLK_USER_H
#define RVKVM_VIRTIO_BLK_USER_H

#include <stdint.h>

#include "virtio/backed.h"

#define VIRTIO_BLK_USER_CONFIG_SIZE 60 /* virtio-blk's, to write zeroes */
#define VIRTIO_BLK_USER_QUEUES 1
#define VIRTIO_BLK_USER_QUEUE_SIZE 256
#define VIRTIO_BLK_USER_MAX_SECTORS (1ULL << 54)

#define VIRTIO_BLK_F_TOPOLOGY 10
#define VIRTIO_BLK_USER_FEATURES                                         \
	(VIRTIO_BIT(1) /* SIZE_MAX */ | VIRTIO_BIT(2) /* SEG_MAX */ |    \
	 VIRTIO_BIT(5) /* RO */ | VIRTIO_BIT(6) /* BLK_SIZE */ |         \
	 VIRTIO_BIT(9) /* FLUSH */ | VIRTIO_BIT(VIRTIO_BLK_F_TOPOLOGY) | \
	 VIRTIO_BIT(13) /* DISCARD */ | VIRTIO_BIT(14) /* WRITE_ZEROES */)

struct virtio_blk_user {
	struct virtio_backed b;
	uint64_t capacity; /* in 512-byte sectors */
};

/*
 * Check the back-end's configuration (len bytes at cfg) and feature bits:
 * 0 (*capacity set), or -EPROTO with a short reason in *why.  Pure.
 */
int virtio_blk_user_check(const uint8_t *cfg, uint32_t len, uint64_t features,
			  uint64_t *capacity, const char **why);

/*
 * The device for a back-end that passed virtio_blk_user_check() (checked
 * again: -EPROTO), served by be.
 */
int virtio_blk_user_init(struct virtio_blk_user *d, const struct dev_res *res,
			 const struct guest_mem *mem,
			 const struct irq_line *irq, const uint8_t *cfg,
			 uint32_t len, uint64_t features,
			 const struct virtio_backend *be);
void virtio_blk_user_destroy(struct virtio_blk_user *d);

#endif
