// SPDX-License-Identifier: GPL-2.0
/* Virtio notifications: an eventfd per queue, on the I/O thread. */
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/machine/ioeventfds.h"

/*
 * On the I/O thread: the guest wrote this queue's index to its notify.
 * Edge-triggered: one call per signal of the eventfd, whose count is
 * never read (it cannot overflow in any guest's life: one per notify).
 */
static void kicks_handle(void *opaque)
{
	struct board_kick *k = opaque;

	virtio_mmio_kick(k->slot->transport, k->q);
}

/*
 * The core's re-arm (a device stopped a pass with work left): make the
 * queue's eventfd readable again, so the I/O thread notifies the queue
 * once more after its other ready work.  The core's lock is held.
 */
static void kicks_rearm(void *opaque, unsigned int q)
{
	struct board_slot *slot = opaque;
	uint64_t one = 1;

	if (q < slot->nr_kicks &&
	    write(slot->kicks[q].fd, &one, sizeof(one)) < 0)
		pr_once(LOG_WARN, "virtio: re-arm eventfd: %s",
			strerror(errno));
}

/*
 * The device's route (virtio_route; the core's lock held): queue q's
 * notifications wake the I/O thread through the eventfd, or, unbound,
 * exit to the vCPU thread.  A queue a back-end reads stays bound (false).
 */
static bool kicks_route(void *opaque, unsigned int q, bool eventfd)
{
	struct board_slot *slot = opaque;
	struct board_kick *k;

	if (q >= slot->nr_kicks || (slot->backend_kicks & (1u << q)))
		return false;
	k = &slot->kicks[q];
	pthread_mutex_lock(&slot->board->bind_lock);
	if (k->vcpu == eventfd) {
		k->vcpu = !eventfd;
		board_kick_bind(slot, q, eventfd);
	}
	pthread_mutex_unlock(&slot->board->bind_lock);
	return true;
}

static int kicks_watch_slot(struct board_slot *slot, struct iothread *io)
{
	unsigned int nq = slot->transport->core.dev.num_queues;
	const struct virtio_rearm rearm = { kicks_rearm, slot };
	const struct virtio_route route = { kicks_route, slot };

	for (unsigned int q = 0; q < nq; q++) {
		struct board_kick *k = &slot->kicks[q];
		int ret;

		k->slot = slot;
		k->q = q;
		k->vcpu = false;
		k->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (k->fd < 0)
			return -errno;
		slot->nr_kicks++;
		if (slot->backend_kicks & (1u << q))
			continue; /* vhost reads it */
		ret = iothread_add_edge(io, k->fd, kicks_handle, k);
		if (ret)
			return ret;
	}
	virtio_core_set_rearm(&slot->transport->core, &rearm);
	virtio_core_set_route(&slot->transport->core, &route);
	return 0;
}

int kicks_watch(struct board *b, struct iothread *io)
{
	int ret = 0;

	for (unsigned int i = 0; !ret && i < b->nr_virtio; i++)
		ret = kicks_watch_slot(&b->virtio[i], io);
	return ret;
}

void kicks_bind(struct board *b, kicks_bind_fn *fn, void *opaque)
{
	pthread_mutex_lock(&b->bind_lock);
	b->bind = fn;
	b->bind_opaque = opaque;
	for (unsigned int i = 0; i < b->nr_virtio; i++) {
		struct board_slot *slot = &b->virtio[i];

		for (unsigned int q = 0; q < slot->nr_kicks; q++)
			if (!slot->kicks[q].vcpu)
				board_kick_bind(slot, q, true);
	}
	pthread_mutex_unlock(&b->bind_lock);
}

void kicks_unbind(struct board *b)
{
	pthread_mutex_lock(&b->bind_lock);
	b->bind = NULL;
	b->bind_opaque = NULL;
	pthread_mutex_unlock(&b->bind_lock);
}

void kicks_close(struct board *b)
{
	for (unsigned int i = 0; i < b->nr_virtio; i++) {
		struct board_slot *slot = &b->virtio[i];

		if (slot->nr_kicks) {
			virtio_core_set_rearm(&slot->transport->core, NULL);
			virtio_core_set_route(&slot->transport->core, NULL);
		}
		while (slot->nr_kicks) {
			struct board_kick *k = &slot->kicks[--slot->nr_kicks];

			close(k->fd);
			k->fd = -1;
		}
	}
}
