/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio-fs (virtio 1.2 §5.11): device ID 26, queues 0 hiprio and 1 the
 * one request queue, configuration space the tag (36 bytes, NUL-padded,
 * no NUL when 36 long) and num_request_queues (le32, 1).  A device served
 * by a back-end (virtio/backed.h: virtiofsd over vhost-user, through the
 * glue in vmm/machine/fs.c) that hands it both queues.
 *
 * No feature bits of its own (VIRTIO_FS_F_NOTIFICATION is not offered);
 * the transport adds VERSION_1, INDIRECT_DESC and EVENT_IDX.
 */
#ifndef RVKVM_VIRTIO_FS_H
#define RVKVM_VIRTIO_FS_H

#include <stdint.h>

#include "virtio/backed.h"

#define VIRTIO_ID_FS 26
#define VIRTIO_FS_QUEUES 2 /* hiprio, one request queue */
#define VIRTIO_FS_QUEUE_SIZE 256
#define VIRTIO_FS_TAG_LEN 36
#define VIRTIO_FS_CONFIG_SIZE 40

struct virtio_fs {
	struct virtio_backed b;
};

/* Is tag one the configuration space can hold (1..36 bytes)? */
bool virtio_fs_tag_ok(const char *tag);

/* A device showing tag (checked: -EINVAL), served by be. */
int virtio_fs_init(struct virtio_fs *fs, const struct dev_res *res,
		   const struct guest_mem *mem, const struct irq_line *irq,
		   const char *tag, const struct virtio_backend *be);
void virtio_fs_destroy(struct virtio_fs *fs);

#endif
