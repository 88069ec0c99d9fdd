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
	struct vhost_ring r;
	int ret = vhostdev_ring(&s->vd, i, &r);

	return ret ?: vhost_ring_start(&s->vh, i, &r);
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

	vhostdev_kick(&s->vd, q);
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
	vhostdev_attach(&s->vd, slot);
	return 0;
}

static void vsock_dev_destroy(void *opaque)
{
	struct vsock *s = opaque;

	virtio_vsock_destroy(&s->dev);
}

static int vsock_eventfds(struct vsock *s)
{
	int ret = vhostdev_init(&s->vd, &s->dev.vm, VIRTIO_VSOCK_RINGS,
				"virtio-vsock");

	if (ret)
		return ret;
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
	vhostdev_close(&s->vd);
	if (s->err_fd >= 0)
		close(s->err_fd);
	if (s->fd >= 0)
		close(s->fd);
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
	memset(s->vd.call_fd, -1, sizeof(s->vd.call_fd));
	s->err_fd = s->fd = -1;
	if (!cfg->vsock_cid || cfg->vsock_socket[0])
		return 0; /* none, or lkvm serves it (hvsock.c) */
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
	ret = vhostdev_watch(&s->vd, io);
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
