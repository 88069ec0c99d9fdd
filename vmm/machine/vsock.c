// SPDX-License-Identifier: GPL-2.0
/* --vsock: virtio-vsock served by vhost-vsock; see vsock.h. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/host/vhost_kernel.h"
#include "vmm/machine/vsock.h"

/* Transport features the core always offers: vhost must have them. */
#define VSOCK_NEEDED                                                       \
	(VIRTIO_BIT(VIRTIO_F_VERSION_1) | VIRTIO_BIT(VIRTIO_F_EVENT_IDX) | \
	 VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC))

/* One line per failure, until a start succeeds again. */
static void vsock_fail(struct vsock *s, const char *when, int err)
{
	if (s->logged)
		return;
	s->logged = true;
	pr_err("vsock: vhost-vsock %s failed at %s: %s; the device needs a reset",
	       vhost_req_name(s->vh.failed), when, strerror(-err));
}

static int vsock_ring(struct vsock *s, unsigned int i)
{
	const struct virtqueue *vq = virtio_core_queue(&s->dev.vm.core, i);
	struct vhost_ring r;

	if (!vq->ready || i >= s->slot->nr_kicks) {
		pr_guest_once("virtio-vsock: DRIVER_OK with queue %u off", i);
		return -EINVAL;
	}
	r = (struct vhost_ring){
		.num = vq->num,
		.base = vq->last_avail_idx,
		.desc = (uintptr_t)vq->desc,
		.avail = (uintptr_t)vq->avail,
		.used = (uintptr_t)vq->used,
		.call_fd = s->call_fd[i],
		.kick_fd = s->slot->kicks[i].fd,
	};
	return vhost_ring_start(&s->vh, i, &r);
}

/* DRIVER_OK (the device's lock held): the rings to the kernel. */
static int vsock_start(void *opaque, uint64_t features)
{
	struct vsock *s = opaque;
	int run = !s->dev.vm.core.dma_off, ret = 0;

	for (unsigned int i = 0; !ret && i < VIRTIO_VSOCK_RINGS; i++)
		ret = vsock_ring(s, i);
	if (ret == -EINVAL && !s->vh.broken)
		return ret; /* the guest's fault, said */
	ret = ret ?: vhost_set_features(&s->vh, features);
	/* With bus mastering off the kernel waits for it (vsock_dma). */
	ret = ret ?: vhost_dev_req(&s->vh, VHOST_REQ_VSOCK_RUNNING, &run);
	if (ret)
		vsock_fail(s, "DRIVER_OK", ret);
	else
		s->logged = false;
	return ret;
}

/*
 * PCI bus mastering off or on again (the device's lock held): the kernel's
 * device stops or goes on, so it never touches guest memory meanwhile.
 */
static void vsock_dma(void *opaque, bool on)
{
	struct vsock *s = opaque;
	int run = on;
	int ret = vhost_dev_req(&s->vh, VHOST_REQ_VSOCK_RUNNING, &run);

	if (ret)
		vsock_fail(s, on ? "bus mastering on" : "bus mastering off",
			   ret);
}

/* Device reset (lock held): stop the kernel's device, take the rings. */
static void vsock_stop(void *opaque)
{
	struct vsock *s = opaque;
	int zero = 0;
	int ret = vhost_stop(&s->vh, VHOST_REQ_VSOCK_RUNNING, &zero);

	if (ret)
		vsock_fail(s, "reset", ret);
}

/* A notification that took the MMIO exit: pass it to the kernel. */
static void vsock_kick(void *opaque, unsigned int q)
{
	struct vsock *s = opaque;
	uint64_t one = 1;

	if (q < s->slot->nr_kicks &&
	    write(s->slot->kicks[q].fd, &one, sizeof(one)) < 0)
		pr_once(LOG_WARN, "vsock: kick eventfd: %s", strerror(errno));
}

static int vsock_dev_init(void *opaque, struct board_slot *slot)
{
	struct vsock *s = opaque;
	const struct virtio_vsock_backend be = {
		.start = vsock_start,
		.stop = vsock_stop,
		.kick = vsock_kick,
		.dma = vsock_dma,
		.opaque = s,
	};
	int ret = virtio_vsock_init(&s->dev, &slot->res, &slot->board->vm->mem,
				    &slot->line, s->dev.guest_cid,
				    s->vh.features, &be);

	if (ret) {
		pr_err("vsock: cannot create the device: %s", strerror(-ret));
		return ret;
	}
	s->slot = slot;
	slot->backend_kicks = (1u << VIRTIO_VSOCK_RINGS) - 1;
	return 0;
}

static void vsock_dev_destroy(void *opaque)
{
	struct vsock *s = opaque;

	virtio_vsock_destroy(&s->dev);
}

static int vsock_eventfds(struct vsock *s)
{
	for (unsigned int i = 0; i < VIRTIO_VSOCK_RINGS; i++) {
		s->call_fd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (s->call_fd[i] < 0)
			return -errno;
	}
	s->err_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return s->err_fd < 0 ? -errno : 0;
}

static int vsock_open_dev(struct vsock *s)
{
	s->fd = open(VSOCK_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (s->fd >= 0)
		return 0;
	if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
		pr_err("--vsock: this host has no %s (its kernel lacks CONFIG_VHOST_VSOCK, or the vhost_vsock module is not loaded)",
		       VSOCK_DEV_PATH);
	else
		pr_err("--vsock: cannot open %s: %s", VSOCK_DEV_PATH,
		       strerror(errno));
	return -errno;
}

/* The kernel's device: owner, memory, CID, error eventfd. */
static int vsock_vhost_open(struct vsock *s, const struct guest_mem *mem,
			    uint64_t cid)
{
	const struct vhost_mem m = { mem->base, mem->size,
				     (uintptr_t)mem->host };
	const struct vhost_transport t = vhost_kernel_transport(&s->fd);
	int ret = vhost_open(&s->vh, &t, &m);

	ret = ret ?: vhost_dev_req(&s->vh, VHOST_REQ_VSOCK_SET_CID, &cid);
	for (unsigned int i = 0; !ret && i < VIRTIO_VSOCK_RINGS; i++) {
		struct vhost_ring_val rv = { .index = i, .val = s->err_fd };

		ret = vhost_dev_req(&s->vh, VHOST_REQ_SET_VRING_ERR, &rv);
	}
	if (ret == -EADDRINUSE) {
		pr_err("--vsock %llu: CID %llu is in use by another VM on this host",
		       (unsigned long long)cid, (unsigned long long)cid);
	} else if (ret) {
		pr_err("--vsock: %s %s: %s", VSOCK_DEV_PATH,
		       vhost_req_name(s->vh.failed), strerror(-ret));
	} else if ((s->vh.features & VSOCK_NEEDED) != VSOCK_NEEDED) {
		pr_err("--vsock: %s lacks VERSION_1, EVENT_IDX or INDIRECT_DESC (features %#llx)",
		       VSOCK_DEV_PATH, (unsigned long long)s->vh.features);
		ret = -EOPNOTSUPP;
	}
	return ret;
}

static void vsock_close_fds(struct vsock *s)
{
	for (unsigned int i = 0; i < VIRTIO_VSOCK_RINGS; i++)
		if (s->call_fd[i] >= 0)
			close(s->call_fd[i]);
	if (s->err_fd >= 0)
		close(s->err_fd);
	if (s->fd >= 0)
		close(s->fd);
	memset(s->call_fd, -1, sizeof(s->call_fd));
	s->err_fd = s->fd = -1;
}

int vsock_up(struct vsock *s, const struct vm_config *cfg, struct board *b)
{
	const struct board_virtio_dev dev = {
		.init = vsock_dev_init,
		.destroy = vsock_dev_destroy,
		.opaque = s,
		.transport = &s->dev.vm,
	};
	int ret;

	memset(s, 0, sizeof(*s));
	memset(s->call_fd, -1, sizeof(s->call_fd));
	s->err_fd = s->fd = -1;
	if (!cfg->vsock_cid)
		return 0;
	ret = vsock_eventfds(s);
	if (ret)
		pr_err("vsock: eventfd: %s", strerror(-ret));
	ret = ret ?: vsock_open_dev(s);
	ret = ret ?: vsock_vhost_open(s, &b->vm->mem, cfg->vsock_cid);
	s->dev.guest_cid = cfg->vsock_cid;
	if (!ret)
		ret = board_virtio_attach(b, "vsock", VIRTIO_TRANSPORT_DEFAULT,
					  &dev);
	if (ret) {
		vsock_close_fds(s);
		return ret;
	}
	s->live = true;
	pr_debug("vsock: guest CID %llu on %s",
		 (unsigned long long)cfg->vsock_cid, VSOCK_DEV_PATH);
	return 0;
}

/* On the I/O thread: the kernel used buffers of ring q. */
static void vsock_call(struct vsock *s, unsigned int q)
{
	uint64_t v;

	if (read(s->call_fd[q], &v, sizeof(v)) != sizeof(v))
		return;
	virtio_mmio_lock(&s->dev.vm);
	virtio_core_backend_used_locked(&s->dev.vm.core, q);
	virtio_mmio_unlock(&s->dev.vm);
}

static void vsock_call0(void *opaque)
{
	vsock_call(opaque, 0);
}

static void vsock_call1(void *opaque)
{
	vsock_call(opaque, 1);
}

/* On the I/O thread: the kernel found a ring it cannot use. */
static void vsock_err(void *opaque)
{
	struct vsock *s = opaque;
	uint64_t v;

	if (read(s->err_fd, &v, sizeof(v)) != sizeof(v))
		return;
	virtio_mmio_lock(&s->dev.vm);
	if (!s->logged)
		pr_err("vsock: vhost-vsock reports a ring error; the device needs a reset");
	s->logged = true;
	virtio_core_fail_locked(&s->dev.vm.core);
	virtio_mmio_unlock(&s->dev.vm);
}

int vsock_watch(struct vsock *s, struct iothread *io)
{
	int ret;

	if (!s->live)
		return 0;
	ret = iothread_add(io, s->call_fd[0], vsock_call0, s);
	ret = ret ?: iothread_add(io, s->call_fd[1], vsock_call1, s);
	return ret ?: iothread_add(io, s->err_fd, vsock_err, s);
}

void vsock_down(struct vsock *s)
{
	if (!s->live)
		return;
	virtio_vsock_destroy(&s->dev);
	vsock_close_fds(s);
	s->live = false;
}
