// SPDX-License-Identifier: GPL-2.0
/*
 * virtio-blk's engine choice: io_uring (blk_uring.c) where it can be set
 * up, else the thread pool (blk_pool.c); and the one teardown for either.
 * The engines never call each other, nor this file: a failed init undoes
 * itself.  See blk.h.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "virtio/blk.h"

int virtio_blk_aio_init(struct virtio_blk_aio *a,
			const struct virtio_blk_disk *disk,
			unsigned int nr_threads, unsigned int ring_entries)
{
	int ret = virtio_blk_uring_init(a, disk, ring_entries), why = -ret;
	size_t n;

	if (!ret)
		return 0;
	ret = virtio_blk_pool_init(a, disk, nr_threads, 0);
	n = strlen(a->name);
	if (!ret) /* say why io_uring was not taken */
		snprintf(a->name + n, sizeof(a->name) - n, " (io_uring: %s)",
			 strerror(why));
	return ret;
}

void virtio_blk_aio_destroy(struct virtio_blk_aio *a)
{
	if (a->ops)
		a->ops->destroy(a);
	a->ops = NULL;
	a->priv = NULL;
	if (a->efd >= 0)
		close(a->efd);
	a->efd = -1;
}
