// SPDX-License-Identifier: GPL-2.0
/*
 * Network glue.  Guest transmit calls the backend's tx() with the
 * transport lock held; receive runs on the I/O thread: frames are read
 * from the tap or from passt's socket and offered to the device, and a
 * frame the guest has no room for is held (the backend is not read
 * meanwhile) until the guest posts receive buffers.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/host/vhost_kernel.h"
#include "vmm/machine/nics.h"

/* Reads from passt per I/O thread wake-up, so other fds get their turn. */
#define NIC_USER_FILLS 16

static int nic_fd(const struct nic *nic)
{
	return nic->mode == NIC_MODE_USER ? nic->user.fd : nic->tap.fd;
}

/* --- tap ------------------------------------------------------------------ */

static int nic_tap_tx(void *opaque, const void *buf, size_t len)
{
	struct nic *nic = opaque;

	return write(nic->tap.fd, buf, len) == (ssize_t)len ? 0 : -EAGAIN;
}

/* Deliver the held frame; true when nothing is held any more. */
static bool nic_flush_held(struct nic *nic)
{
	if (!nic->frame_len)
		return true;
	if (virtio_net_receive(&nic->net, nic->frame, nic->frame_len) ==
	    -EAGAIN)
		return false;
	nic->frame_len = 0; /* delivered, or dropped for good */
	return true;
}

/* On the I/O thread: frames from the tap into the guest. */
static void nic_tap_readable(void *opaque)
{
	struct nic *nic = opaque;

	while (nic_flush_held(nic)) {
		ssize_t n = read(nic->tap.fd, nic->frame, VIRTIO_NET_FRAME_MAX);

		if (n <= 0)
			return;
		nic->frame_len = n;
	}
	/* No room in the guest: stop reading until it posts buffers. */
	iothread_watch(nic->io, nic->tap.fd, false);
}

static int nic_set_offloads(void *opaque, uint64_t features)
{
	struct nic *nic = opaque;
	unsigned int tun = 0;

	if (features & VIRTIO_BIT(VIRTIO_NET_F_GUEST_CSUM))
		tun |= TUN_F_CSUM;
	if (features & VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO4))
		tun |= TUN_F_TSO4;
	if (features & VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO6))
		tun |= TUN_F_TSO6;
	if (features & VIRTIO_BIT(VIRTIO_NET_F_GUEST_ECN))
		tun |= TUN_F_TSO_ECN;
	return tap_set_offload(&nic->tap, tun);
}

/* --- user mode (passt) ------------------------------------------------------ */

/* Frames without the virtio-net header; passt checksums nothing for us. */
static int nic_user_tx(void *opaque, const void *buf, size_t len)
{
	struct nic *nic = opaque;

	if (atomic_load(&nic->down))
		return -ENETDOWN;
	return usernet_send(&nic->user,
			    (const uint8_t *)buf + VIRTIO_NET_HDR_SIZE,
			    len - VIRTIO_NET_HDR_SIZE);
}

/* passt is gone (or broke the stream): one line, link down, stop reading. */
static void nic_user_down(struct nic *nic, const char *what)
{
	char why[64];

	if (atomic_exchange(&nic->down, true))
		return;
	iothread_watch(nic->io, nic->user.fd, false);
	virtio_net_set_link(&nic->net, false);
	usernet_reap(&nic->user, why, sizeof(why));
	pr_err("user-mode network: passt %s; the NIC's link is down, the guest keeps running",
	       what ? what : why);
}

/* Buffered frames into the guest; false when it has no room for one. */
static bool nic_user_deliver(struct nic *nic)
{
	uint8_t *f;
	size_t len;
	int r;

	while ((r = lpframe_rx_next(&nic->user.rx, &f, &len)) == 1) {
		/* A plain frame: no offloads, num_buffers set by the device. */
		memset(f - VIRTIO_NET_HDR_SIZE, 0, VIRTIO_NET_HDR_SIZE);
		if (virtio_net_receive(&nic->net, f - VIRTIO_NET_HDR_SIZE,
				       len + VIRTIO_NET_HDR_SIZE) == -EAGAIN)
			return false;
		lpframe_rx_consume(&nic->user.rx);
	}
	if (r < 0)
		nic_user_down(nic, "sent a frame of a bad length");
	return true;
}

/* On the I/O thread: frames from passt into the guest. */
static void nic_user_readable(void *opaque)
{
	struct nic *nic = opaque;

	for (int i = 0; i < NIC_USER_FILLS && !atomic_load(&nic->down); i++) {
		ssize_t n;

		if (!nic_user_deliver(nic)) {
			/* Until the guest posts buffers (nic_woken). */
			iothread_watch(nic->io, nic->user.fd, false);
			return;
		}
		n = usernet_fill(&nic->user);
		if (n == -EAGAIN)
			return;
		if (n < 0)
			nic_user_down(nic, n == -EPIPE ? NULL : "socket error");
	}
}

/* --- vhost=1: vhost-net ------------------------------------------------------ */

/* One line per failure, until a start succeeds again. */
static void nic_vhost_fail(struct nic *nic, const char *when, int err)
{
	if (nic->logged)
		return;
	nic->logged = true;
	pr_err("-n: vhost-net %s failed at %s: %s; the device needs a reset",
	       vhost_req_name(nic->vn.vh.failed), when, strerror(-err));
}

static int nic_vhost_ring(struct nic *nic, unsigned int i, struct vhost_ring *r)
{
	const struct virtqueue *vq = virtio_core_queue(&nic->net.vm.core, i);

	if (!vq->ready || i >= nic->slot->nr_kicks) {
		pr_guest_once("virtio-net: DRIVER_OK with queue %u off", i);
		return -EINVAL;
	}
	*r = (struct vhost_ring){
		.num = vq->num,
		.base = vq->last_avail_idx,
		.desc = (uintptr_t)vq->desc,
		.avail = (uintptr_t)vq->avail,
		.used = (uintptr_t)vq->used,
		.call_fd = nic->call_fd[i],
		.kick_fd = nic->slot->kicks[i].fd,
	};
	return 0;
}

/* DRIVER_OK (the device's lock held): the rings and the tap to vhost. */
static int nic_vhost_start(void *opaque, uint64_t features)
{
	struct nic *nic = opaque;
	struct vhost_ring r[VHOST_NET_RINGS];
	int ret = 0;

	for (unsigned int i = 0; !ret && i < VHOST_NET_RINGS; i++)
		ret = nic_vhost_ring(nic, i, &r[i]);
	if (ret)
		return ret; /* the guest's fault, said */
	ret = tap_set_vnet_hdr_len(&nic->tap, vhost_net_hdr_len(features));
	if (ret) {
		pr_err("-n: tap %s: vnet header size: %s", nic->tap.ifname,
		       strerror(-ret));
		return ret;
	}
	ret = vhost_net_start(&nic->vn, r, features, nic->net.vm.core.dma_off);
	if (ret)
		nic_vhost_fail(nic, "DRIVER_OK", ret);
	else
		nic->logged = false;
	return ret;
}

/* PCI bus mastering off or on (lock held): the tap detached meanwhile. */
static void nic_vhost_dma(void *opaque, bool on)
{
	struct nic *nic = opaque;
	int ret = vhost_net_dma(&nic->vn, on);

	if (ret)
		nic_vhost_fail(nic,
			       on ? "bus mastering on" : "bus mastering off",
			       ret);
}

/* Device reset (lock held): the tap detached, the rings taken back. */
static void nic_vhost_stop(void *opaque)
{
	struct nic *nic = opaque;
	int ret = vhost_net_stop(&nic->vn);

	if (ret)
		nic_vhost_fail(nic, "reset", ret);
}

/* A notification that took the MMIO exit: pass it to the kernel. */
static void nic_vhost_kick(void *opaque, unsigned int q)
{
	struct nic *nic = opaque;
	uint64_t one = 1;

	if (q < VHOST_NET_RINGS && q < nic->slot->nr_kicks &&
	    write(nic->slot->kicks[q].fd, &one, sizeof(one)) < 0)
		pr_once(LOG_WARN, "-n: kick eventfd: %s", strerror(errno));
}

/* On the I/O thread: the kernel used buffers of ring q. */
static void nic_vhost_call(struct nic *nic, unsigned int q)
{
	uint64_t v;

	if (read(nic->call_fd[q], &v, sizeof(v)) != sizeof(v))
		return;
	virtio_mmio_lock(&nic->net.vm);
	virtio_core_backend_used_locked(&nic->net.vm.core, q);
	virtio_mmio_unlock(&nic->net.vm);
}

static void nic_vhost_call0(void *opaque)
{
	nic_vhost_call(opaque, 0);
}

static void nic_vhost_call1(void *opaque)
{
	nic_vhost_call(opaque, 1);
}

/* On the I/O thread: the kernel found a ring it cannot use. */
static void nic_vhost_err(void *opaque)
{
	struct nic *nic = opaque;
	uint64_t v;

	if (read(nic->err_fd, &v, sizeof(v)) != sizeof(v))
		return;
	virtio_mmio_lock(&nic->net.vm);
	if (!nic->logged)
		pr_err("-n: vhost-net reports a ring error; the device needs a reset");
	nic->logged = true;
	virtio_core_fail_locked(&nic->net.vm.core);
	virtio_mmio_unlock(&nic->net.vm);
}

static int nic_vhost_watch(struct nic *nic)
{
	int ret = iothread_add(nic->io, nic->call_fd[0], nic_vhost_call0, nic);

	ret = ret   ?:
		      iothread_add(nic->io, nic->call_fd[1], nic_vhost_call1,
				   nic);
	return ret ?: iothread_add(nic->io, nic->err_fd, nic_vhost_err, nic);
}

static void nic_vhost_close(struct nic *nic)
{
	for (unsigned int i = 0; i < VHOST_NET_RINGS; i++)
		if (nic->call_fd[i] >= 0)
			close(nic->call_fd[i]);
	if (nic->err_fd >= 0)
		close(nic->err_fd);
	if (nic->vhost_fd >= 0)
		close(nic->vhost_fd);
	memset(nic->call_fd, -1, sizeof(nic->call_fd));
	nic->err_fd = nic->vhost_fd = -1;
}

static int nic_vhost_eventfds(struct nic *nic)
{
	for (unsigned int i = 0; i < VHOST_NET_RINGS; i++) {
		nic->call_fd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (nic->call_fd[i] < 0)
			return -errno;
	}
	nic->err_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return nic->err_fd < 0 ? -errno : 0;
}

static int nic_vhost_open_dev(struct nic *nic)
{
	nic->vhost_fd = open(VHOST_NET_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (nic->vhost_fd >= 0)
		return 0;
	if (errno == ENOENT || errno == ENODEV || errno == ENXIO)
		pr_err("-n vhost=1: this host has no %s (its kernel lacks CONFIG_VHOST_NET, or the vhost_net module is not loaded)",
		       VHOST_NET_DEV_PATH);
	else
		pr_err("-n vhost=1: cannot open %s: %s", VHOST_NET_DEV_PATH,
		       strerror(errno));
	return -errno;
}

/* vhost=1, the tap open: the kernel's device with guest memory. */
static int nic_vhost_open(struct nic *nic, const struct guest_mem *mem)
{
	const struct vhost_mem m = { mem->base, mem->size,
				     (uintptr_t)mem->host };
	const struct vhost_transport t = vhost_kernel_transport(&nic->vhost_fd);
	int ret = nic_vhost_eventfds(nic);

	if (ret)
		pr_err("-n vhost=1: eventfd: %s", strerror(-ret));
	ret = ret ?: nic_vhost_open_dev(nic);
	if (ret)
		return ret;
	ret = vhost_net_open(&nic->vn, &t, &m, nic->tap.fd, nic->err_fd);
	if (ret == -EOPNOTSUPP)
		pr_err("-n vhost=1: %s lacks VERSION_1, EVENT_IDX or INDIRECT_DESC (features %#llx)",
		       VHOST_NET_DEV_PATH,
		       (unsigned long long)nic->vn.vh.features);
	else if (ret)
		pr_err("-n vhost=1: %s %s: %s", VHOST_NET_DEV_PATH,
		       vhost_req_name(nic->vn.vh.failed), strerror(-ret));
	else
		pr_debug("-n: tap %s served by vhost-net (%s)", nic->tap.ifname,
			 VHOST_NET_DEV_PATH);
	return ret;
}

/* --- common ----------------------------------------------------------------- */

/*
 * The guest posted receive buffers (any thread, transport lock held):
 * wake the I/O thread, which owns the held frame and the backend fd.
 */
static void nic_rx_ready(void *opaque)
{
	struct nic *nic = opaque;
	uint64_t one = 1;

	if (write(nic->wake_fd, &one, sizeof(one)) < 0)
		pr_once(LOG_WARN, "virtio-net: cannot wake the I/O thread");
}

static void nic_woken(void *opaque)
{
	struct nic *nic = opaque;
	uint64_t v;

	if (read(nic->wake_fd, &v, sizeof(v)) != sizeof(v))
		return;
	if (nic->mode == NIC_MODE_TAP) {
		if (nic_flush_held(nic))
			iothread_watch(nic->io, nic->tap.fd, true);
		return;
	}
	if (!atomic_load(&nic->down) && nic_user_deliver(nic) &&
	    !atomic_load(&nic->down))
		iothread_watch(nic->io, nic->user.fd, true);
}

static const struct virtio_net_backend_ops nic_tap_ops = {
	.tx = nic_tap_tx,
	.rx_ready = nic_rx_ready,
	.set_offloads = nic_set_offloads,
};

static const struct virtio_net_backend_ops nic_vhost_ops = {
	.set_offloads = nic_set_offloads,
	.start = nic_vhost_start,
	.stop = nic_vhost_stop,
	.kick = nic_vhost_kick,
	.dma = nic_vhost_dma,
};

static const struct virtio_net_backend_ops nic_user_ops = {
	.tx = nic_user_tx,
	.rx_ready = nic_rx_ready,
};

static void nic_host_close(struct nic *nic)
{
	if (nic->mode == NIC_MODE_USER)
		usernet_close(&nic->user);
	else
		tap_close(&nic->tap);
	nic_vhost_close(nic);
	if (nic->wake_fd >= 0)
		close(nic->wake_fd);
	free(nic->frame);
}

/* passt for a user-mode NIC; 1: not installed, leave the default out. */
static int nic_user_open(struct nic *nic, const struct nic_config *cfg,
			 bool no_dhcp, int cancel_fd)
{
	int ret = usernet_open(&nic->user, cfg, no_dhcp, VIRTIO_NET_HDR_SIZE,
			       cancel_fd);

	if (ret != -ENOENT)
		return ret;
	if (cfg->implicit) {
		pr_warn("passt is not installed (not on PATH): the guest gets no network (install passt, or give -n mode=none)");
		return 1;
	}
	pr_err("-n mode=user needs passt, which is not installed (not on PATH)");
	return -ENOENT;
}

/* The host side of a NIC: wake-up eventfd, the tap (and vhost) or passt. */
static int nic_host_open(struct nic *nic, const struct nic_config *cfg,
			 bool no_dhcp, const struct guest_mem *mem,
			 int cancel_fd)
{
	int ret;

	nic->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (nic->mode == NIC_MODE_TAP)
		nic->frame = malloc(VIRTIO_NET_FRAME_MAX);
	if (nic->wake_fd < 0 || (nic->mode == NIC_MODE_TAP && !nic->frame)) {
		pr_err("-n: out of memory or file descriptors");
		ret = -ENOMEM;
	} else if (nic->mode == NIC_MODE_USER) {
		ret = nic_user_open(nic, cfg, no_dhcp, cancel_fd);
	} else {
		ret = tap_open(&nic->tap, cfg);
		if (!ret && nic->vhost && nic_vhost_open(nic, mem)) {
			nic_vhost_close(nic);
			tap_close(&nic->tap);
			ret = -EIO;
		}
	}
	if (ret) {
		if (nic->wake_fd >= 0)
			close(nic->wake_fd);
		free(nic->frame);
	}
	return ret;
}

/* What nic_init() and nic_destroy() work on. */
struct nic_attach {
	struct nic *nic; /* its host side open */
	const struct nic_config *cfg;
};

/* The NIC's virtio-net device on slot, its backend the tap or passt. */
static int nic_init(void *opaque, struct board_slot *slot)
{
	const struct nic_attach *a = opaque;
	struct nic *nic = a->nic;
	struct virtio_net_backend be = {
		.ops = nic->mode == NIC_MODE_USER ? &nic_user_ops :
						    &nic_tap_ops,
		.opaque = nic,
		.offloads = nic->mode == NIC_MODE_TAP,
	};
	int ret;

	if (nic->vhost) {
		be.ops = &nic_vhost_ops;
		be.no_features = ~vhost_net_offer(&nic->vn, ~0ULL);
		nic->slot = slot;
		slot->backend_kicks = (1u << VHOST_NET_RINGS) - 1;
	}
	memcpy(be.mac, a->cfg->mac, sizeof(be.mac));
	ret = virtio_net_init(&nic->net, &slot->res, &slot->board->vm->mem,
			      &slot->line, &be);
	if (ret) {
		pr_err("cannot set up virtio-net: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

static void nic_destroy(void *opaque)
{
	const struct nic_attach *a = opaque;

	virtio_net_destroy(&a->nic->net);
}

static int nic_up(struct nics *n, const struct nic_config *cfg, bool no_dhcp,
		  struct board *b, struct iothread *io, int cancel_fd)
{
	struct nic *nic = &n->nic[n->nr];
	struct nic_attach a = { .nic = nic, .cfg = cfg };
	const struct board_virtio_dev dev = {
		.init = nic_init,
		.transport = &nic->net.vm,
		.destroy = nic_destroy,
		.opaque = &a,
	};
	int ret;

	*nic = (struct nic){ .io = io,
			     .mode = cfg->mode,
			     .tap.fd = -1,
			     .user.fd = -1,
			     .wake_fd = -1,
			     .vhost = cfg->vhost && cfg->mode == NIC_MODE_TAP,
			     .vhost_fd = -1,
			     .call_fd = { -1, -1 },
			     .err_fd = -1 };
	ret = nic_host_open(nic, cfg, no_dhcp, &b->vm->mem, cancel_fd);
	if (ret)
		return ret > 0 ? 0 : ret;
	ret = board_virtio_attach(b, "-n", cfg->transport, &dev);
	if (ret) {
		nic_host_close(nic);
		return ret;
	}
	n->nr++;
	return 0;
}

int nics_up(struct nics *n, const struct vm_config *cfg, struct board *b,
	    struct iothread *io, int cancel_fd)
{
	int ret = 0;

	n->nr = 0;
	for (unsigned int i = 0; !ret && i < cfg->nr_nics; i++)
		if (cfg->nics[i].mode != NIC_MODE_NONE)
			ret = nic_up(n, &cfg->nics[i], cfg->no_dhcp, b, io,
				     cancel_fd);
	return ret;
}

int nics_watch(struct nics *n)
{
	int ret = 0;

	for (unsigned int i = 0; !ret && i < n->nr; i++) {
		struct nic *nic = &n->nic[i];

		if (nic->vhost) {
			ret = nic_vhost_watch(nic);
			continue;
		}
		ret = iothread_add(nic->io, nic_fd(nic),
				   nic->mode == NIC_MODE_USER ?
					   nic_user_readable :
					   nic_tap_readable,
				   nic);
		ret = ret   ?:
			      iothread_add(nic->io, nic->wake_fd, nic_woken,
					   nic);
	}
	return ret;
}

void nics_down(struct nics *n)
{
	while (n->nr) {
		struct nic *nic = &n->nic[--n->nr];

		virtio_net_destroy(&nic->net);
		nic_host_close(nic);
	}
}
