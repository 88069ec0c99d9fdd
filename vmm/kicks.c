// SPDX-License-Identifier: GPL-2.0
/* Virtio notifications: an eventfd per slot, on the I/O thread. */
#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "kicks.h"

/* On the I/O thread: the guest wrote QueueNotify; process every queue. */
static void kicks_handle(void *opaque)
{
	struct board_slot *slot = opaque;
	uint64_t v;

	if (read(slot->kick_fd, &v, sizeof(v)) != sizeof(v))
		return;
	for (unsigned int q = 0; q < slot->transport->dev.num_queues; q++)
		virtio_mmio_kick(slot->transport, q);
}

int kicks_watch(struct board *b, struct iothread *io)
{
	for (unsigned int i = 0; i < b->nr_virtio; i++) {
		struct board_slot *slot = &b->virtio[i];
		int ret;

		slot->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (slot->kick_fd < 0)
			return -errno;
		ret = iothread_add(io, slot->kick_fd, kicks_handle, slot);
		if (ret)
			return ret;
	}
	return 0;
}

void kicks_close(struct board *b)
{
	for (unsigned int i = 0; i < b->nr_virtio; i++) {
		if (b->virtio[i].kick_fd >= 0)
			close(b->virtio[i].kick_fd);
		b->virtio[i].kick_fd = -1;
	}
}
