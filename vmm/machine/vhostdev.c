// SPDX-License-Identifier: GPL-2.0
/* The glue shared by the vhost devices; see vhostdev.h. */
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/machine/vhostdev.h"

int vhostdev_init(struct vhostdev *d, struct virtio_mmio *vm,
		  unsigned int nr_rings, const char *name)
{
	*d = (struct vhostdev){ .vm = vm, .name = name };
	memset(d->call_fd, -1, sizeof(d->call_fd));
	if (nr_rings > VHOST_MAX_RINGS)
		return -EINVAL;
	d->nr_rings = nr_rings;
	for (unsigned int i = 0; i < nr_rings; i++) {
		d->calls[i] = (struct vhostdev_call){ .d = d, .q = i };
		d->call_fd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (d->call_fd[i] < 0)
			return -errno;
	}
	return 0;
}

void vhostdev_attach(struct vhostdev *d, struct board_slot *slot)
{
	d->slot = slot;
	slot->backend_kicks = (1u << d->nr_rings) - 1;
}

int vhostdev_ring(const struct vhostdev *d, unsigned int i,
		  struct vhost_ring *r)
{
	const struct virtqueue *vq = virtio_core_queue(&d->vm->core, i);

	if (i >= d->nr_rings || !vq || !vq->ready || !d->slot ||
	    i >= d->slot->nr_kicks) {
		pr_guest_once("%s: DRIVER_OK with queue %u off", d->name, i);
		return -EINVAL;
	}
	*r = (struct vhost_ring){
		.num = vq->num,
		.base = vq->last_avail_idx,
		.desc = (uintptr_t)vq->desc,
		.avail = (uintptr_t)vq->avail,
		.used = (uintptr_t)vq->used,
		.call_fd = d->call_fd[i],
		.kick_fd = d->slot->kicks[i].fd,
	};
	return 0;
}

void vhostdev_kick(const struct vhostdev *d, unsigned int q)
{
	uint64_t one = 1;

	if (q < d->nr_rings && d->slot && q < d->slot->nr_kicks &&
	    write(d->slot->kicks[q].fd, &one, sizeof(one)) < 0)
		pr_once(LOG_WARN, "%s: kick eventfd: %s", d->name,
			strerror(errno));
}

int vhostdev_user_start(const struct vhostdev *d, struct vhost *v,
			uint64_t features, bool dma_off)
{
	int ret = vhost_set_features(v, features);

	for (unsigned int i = 0; !ret && i < d->nr_rings; i++) {
		struct vhost_ring r;

		ret = vhostdev_ring(d, i, &r);
		ret = ret ?: vhost_ring_start(v, i, &r);
	}
	for (unsigned int i = 0; !ret && !dma_off && i < d->nr_rings; i++)
		ret = vhost_ring_enable(v, i, true);
	return ret;
}

int vhostdev_user_dma(struct vhostdev *d, struct vhost *v, bool on)
{
	int ret = 0;

	for (unsigned int i = 0; !ret && i < d->nr_rings; i++)
		if (v->started & (1u << i))
			ret = vhost_ring_enable(v, i, on);
	return ret;
}

/* On the I/O thread: the back-end used buffers of one ring. */
static void vhostdev_call(void *opaque)
{
	const struct vhostdev_call *c = opaque;
	struct vhostdev *d = c->d;
	uint64_t v;

	if (read(d->call_fd[c->q], &v, sizeof(v)) != sizeof(v))
		return;
	virtio_mmio_lock(d->vm);
	virtio_core_backend_used_locked(&d->vm->core, c->q);
	virtio_mmio_unlock(d->vm);
}

int vhostdev_watch(struct vhostdev *d, struct iothread *io)
{
	int ret = 0;

	d->io = io;
	for (unsigned int i = 0; !ret && i < d->nr_rings; i++)
		ret = iothread_add(io, d->call_fd[i], vhostdev_call,
				   &d->calls[i]);
	return ret;
}

void vhostdev_unwatch(struct vhostdev *d)
{
	for (unsigned int i = 0; d->io && i < d->nr_rings; i++)
		iothread_watch(d->io, d->call_fd[i], false);
}

void vhostdev_close(struct vhostdev *d)
{
	for (unsigned int i = 0; i < VHOST_MAX_RINGS; i++) {
		if (d->call_fd[i] >= 0)
			close(d->call_fd[i]);
		d->call_fd[i] = -1;
	}
	d->nr_rings = 0;
}
