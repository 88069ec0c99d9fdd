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
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/host/vhost_kernel.h"
#include "vmm/kvm/vm.h"
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

/*
 * On the I/O thread, passt's start-up (socket mode): the guest boots
 * meanwhile, its frames wait in the socket pair.  Once passt is ready its
 * socket is read; a passt that dies or is late at start-up ends the run
 * with the line and the status it would have had before the guest ran.
 */
static void nic_user_started(void *opaque)
{
	struct nic *nic = opaque;
	int ret = usernet_started(&nic->user);

	if (!ret)
		return;
	iothread_watch(nic->io, nic->user.ready_fd, false);
	iothread_watch(nic->io, nic->user.late_fd, false);
	if (ret > 0)
		iothread_watch(nic->io, nic->user.fd, true);
	else
		vm_request_stop(nic->vm, VM_STOP_HOST_ERROR, "%s", "");
}

/* --- vhost=1 on a tap: vhost-net ------------------------------------------- */

/* One line per failure, until a start succeeds again. */
static void nic_vhost_fail(struct nic *nic, const char *when, int err)
{
	if (nic->logged)
		return;
	nic->logged = true;
	pr_err("-n: vhost-net %s failed at %s: %s; the device needs a reset",
	       vhost_req_name(nic->vn.vh.failed), when, strerror(-err));
}

/* DRIVER_OK (the device's lock held): the rings and the tap to vhost. */
static int nic_vhost_start(void *opaque, uint64_t features)
{
	struct nic *nic = opaque;
	struct vhost_ring r[VHOST_NET_RINGS];
	int ret = 0;

	for (unsigned int i = 0; !ret && i < VHOST_NET_RINGS; i++)
		ret = vhostdev_ring(&nic->vd, i, &r[i]);
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

/* A notification that took the MMIO exit: pass it to the back-end. */
static void nic_vhost_kick(void *opaque, unsigned int q)
{
	struct nic *nic = opaque;

	vhostdev_kick(&nic->vd, q);
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

static void nic_vhost_close(struct nic *nic)
{
	vhostdev_close(&nic->vd);
	if (nic->err_fd >= 0)
		close(nic->err_fd);
	if (nic->vhost_fd >= 0)
		close(nic->vhost_fd);
	nic->err_fd = nic->vhost_fd = -1;
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
	int ret = nic_vhost_open_dev(nic);

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

/* --- vhost=1 in user mode: passt's vhost-user back-end ----------------------- */

/*
 * A request to passt failed (lock held): one line, until a start
 * succeeds again (never, once the stream is lost).  A passt whose
 * stream is lost still maps guest RAM: it is killed, and its socket's
 * end of file then takes the link down (nic_vu_sock()).
 */
static void nic_vu_fail(struct nic *nic, const char *when, int err)
{
	if (nic->vu.dead && nic->user.pid > 0)
		kill(nic->user.pid, SIGKILL);
	if (nic->logged || nic->gone)
		return;
	nic->logged = true;
	pr_err("user-mode network: passt (vhost-user) %s failed at %s: %s; the device needs a reset",
	       vhost_req_name(nic->vh.failed), when,
	       nic->vu.why ? nic->vu.why : strerror(-err));
}

/*
 * DRIVER_OK (lock held): the features, the rings, each ring enabled
 * unless bus mastering is off.  Once passt is gone nothing is handed
 * over: the link is down and the device idles (a guest reboot too).
 */
static int nic_vu_start(void *opaque, uint64_t features)
{
	struct nic *nic = opaque;
	int ret;

	if (nic->gone)
		return 0;
	ret = vhostdev_user_start(&nic->vd, &nic->vh, features,
				  nic->net.vm.core.dma_off);
	if (ret == -EINVAL && !nic->vh.broken)
		return ret; /* the guest's fault, said */
	if (ret)
		nic_vu_fail(nic, "DRIVER_OK", ret);
	else
		nic->logged = false;
	return ret;
}

static void nic_vu_dma(void *opaque, bool on)
{
	struct nic *nic = opaque;
	int ret = nic->gone ? 0 : vhostdev_user_dma(&nic->vd, &nic->vh, on);

	if (ret)
		nic_vu_fail(nic, on ? "bus mastering on" : "bus mastering off",
			    ret);
}

/* Device reset (lock held): the rings taken back. */
static void nic_vu_stop(void *opaque)
{
	struct nic *nic = opaque;
	int ret = nic->gone ? 0 : vhost_stop(&nic->vh, VHOST_REQ_NR, NULL);

	if (ret)
		nic_vu_fail(nic, "reset", ret);
}

/*
 * On the I/O thread: passt's socket is readable outside a request
 * (requests are made with the device's lock held, which this takes), so
 * passt closed it (died) or sent what nobody asked for.  One line; the
 * link goes down for good, lkvm and the guest go on.
 */
static void nic_vu_sock(void *opaque)
{
	struct nic *nic = opaque;
	struct pollfd p = { .fd = nic->user.fd, .events = POLLIN };
	char why[64], b;

	virtio_mmio_lock(&nic->net.vm);
	if (nic->gone || poll(&p, 1, 0) <= 0) {
		virtio_mmio_unlock(&nic->net.vm);
		return;
	}
	nic->gone = true;
	nic->vu.dead = true;
	iothread_watch(nic->io, nic->user.fd, false);
	vhostdev_unwatch(&nic->vd);
	if (recv(nic->user.fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) > 0) {
		strcpy(why, "sent a message nobody asked for");
		if (nic->user.pid > 0)
			kill(nic->user.pid, SIGKILL); /* it maps guest RAM */
	} else {
		usernet_reap(&nic->user, why, sizeof(why));
	}
	if (!nic->logged)
		pr_err("user-mode network: passt %s; the NIC's link is down, the guest keeps running",
		       why);
	nic->logged = true;
	virtio_mmio_unlock(&nic->net.vm);
	virtio_net_set_link(&nic->net, false);
}

/* What passt must have; and the ring features to withhold if it lacks. */
#define NIC_VU_NEEDED VIRTIO_BIT(VIRTIO_F_VERSION_1)
#define NIC_VU_OPTIONAL                                                        \
	(VIRTIO_BIT(VIRTIO_NET_F_MRG_RXBUF) | VIRTIO_BIT(VIRTIO_F_EVENT_IDX) | \
	 VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC))
/* How long passt may take to answer its first requests (start-up). */
#define NIC_VU_START_MS 30000

/* passt started: its owner, features and memory table (guest RAM). */
static int nic_vu_open(struct nic *nic, const struct vm *vm)
{
	const struct vhost_mem m = { vm->mem.base, vm->mem.size,
				     (uintptr_t)vm->mem.host };
	const struct vhost_transport t = vhost_user_transport(&nic->vu);
	char why[64];
	int ret;

	if (vm->ram_fd < 0) {
		pr_err("user-mode NIC (vhost-user): guest RAM is not shareable");
		return -EINVAL;
	}
	vhost_user_init(&nic->vu, nic->user.fd, vm->ram_fd, 0);
	nic->vu.timeout_ms = NIC_VU_START_MS;
	ret = vhost_open(&nic->vh, &t, &m);
	nic->vu.timeout_ms = VHOST_USER_TIMEOUT_MS;
	if (ret == -ECONNRESET) {
		usernet_reap(&nic->user, why, sizeof(why));
		pr_err("user-mode NIC (vhost-user): passt %s at start-up (see its message above)",
		       why);
	} else if (ret) {
		pr_err("user-mode NIC (vhost-user): passt %s failed: %s",
		       vhost_req_name(nic->vh.failed),
		       nic->vu.why ? nic->vu.why : strerror(-ret));
	} else if ((nic->vh.features & NIC_VU_NEEDED) != NIC_VU_NEEDED) {
		pr_err("user-mode NIC (vhost-user): passt lacks VERSION_1 (features %#llx)",
		       (unsigned long long)nic->vh.features);
		ret = -EOPNOTSUPP;
	} else {
		pr_debug(
			"-n: user-mode NIC served by passt over vhost-user (pid %d, features %#llx)",
			(int)nic->user.pid,
			(unsigned long long)nic->vh.features);
	}
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
	/* Before passt has started, nic_user_started() watches its socket. */
	if (!atomic_load(&nic->down) && nic_user_deliver(nic) &&
	    !atomic_load(&nic->down) && nic->user.started)
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

static const struct virtio_net_backend_ops nic_vu_ops = {
	.start = nic_vu_start,
	.stop = nic_vu_stop,
	.kick = nic_vhost_kick,
	.dma = nic_vu_dma,
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
			 bool no_dhcp)
{
	int ret = usernet_open(&nic->user, cfg, no_dhcp, VIRTIO_NET_HDR_SIZE);

	if (ret != -ENOENT)
		return ret;
	if (cfg->implicit) {
		pr_warn("passt is not installed (not on PATH): the guest gets no network (install passt, or give -n mode=none)");
		return 1;
	}
	pr_err("-n mode=user needs passt, which is not installed (not on PATH)");
	return -ENOENT;
}

/* vhost=1: the call eventfds (and vhost-net's error eventfd). */
static int nic_vhost_eventfds(struct nic *nic)
{
	int ret = vhostdev_init(&nic->vd, &nic->net.vm, VHOST_NET_RINGS,
				"virtio-net");

	if (!ret && nic->mode == NIC_MODE_TAP) {
		nic->err_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		ret = nic->err_fd < 0 ? -errno : 0;
	}
	if (ret)
		pr_err("-n vhost=1: eventfd: %s", strerror(-ret));
	return ret;
}

/* The tap, and with vhost=1 the kernel's vhost-net on it. */
static int nic_tap_open(struct nic *nic, const struct nic_config *cfg,
			const struct vm *vm)
{
	int ret = tap_open(&nic->tap, cfg);

	if (!ret && nic->vhost && nic_vhost_open(nic, &vm->mem)) {
		tap_close(&nic->tap);
		ret = -EIO;
	}
	return ret;
}

/*
 * passt, and with vhost=1 its vhost-user back-end, whose requests need
 * passt running: only then is its start waited for here (socket mode:
 * nic_user_started()).
 */
static int nic_passt_open(struct nic *nic, const struct nic_config *cfg,
			  bool no_dhcp, const struct vm *vm, int cancel_fd)
{
	int ret = nic_user_open(nic, cfg, no_dhcp);

	if (ret || !nic->vhost)
		return ret;
	ret = usernet_wait_started(&nic->user, cancel_fd);
	if (!ret && nic_vu_open(nic, vm))
		ret = -EIO;
	if (ret)
		usernet_close(&nic->user);
	return ret;
}

/* The host side of a NIC: wake-up eventfd, the tap or passt (and vhost). */
static int nic_host_open(struct nic *nic, const struct nic_config *cfg,
			 bool no_dhcp, const struct vm *vm, int cancel_fd)
{
	int ret = 0;

	nic->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (nic->mode == NIC_MODE_TAP && !nic->vhost)
		nic->frame = malloc(VIRTIO_NET_FRAME_MAX);
	if (nic->wake_fd < 0 ||
	    (nic->mode == NIC_MODE_TAP && !nic->vhost && !nic->frame)) {
		pr_err("-n: out of memory or file descriptors");
		ret = -ENOMEM;
	}
	if (!ret && nic->vhost)
		ret = nic_vhost_eventfds(nic);
	if (!ret && nic->mode == NIC_MODE_USER)
		ret = nic_passt_open(nic, cfg, no_dhcp, vm, cancel_fd);
	else if (!ret)
		ret = nic_tap_open(nic, cfg, vm);
	if (ret) {
		nic_vhost_close(nic);
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

	if (nic->vhost && nic->mode == NIC_MODE_USER) {
		be.ops = &nic_vu_ops;
		be.no_features = NIC_VU_OPTIONAL & ~nic->vh.features;
	} else if (nic->vhost) {
		be.ops = &nic_vhost_ops;
		be.no_features = ~vhost_net_offer(&nic->vn, ~0ULL);
	}
	if (nic->vhost)
		vhostdev_attach(&nic->vd, slot);
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
			     .vm = b->vm,
			     .mode = cfg->mode,
			     .tap.fd = -1,
			     .user.fd = -1,
			     .user.ready_fd = -1,
			     .user.late_fd = -1,
			     .wake_fd = -1,
			     .vhost = cfg->vhost,
			     .vhost_fd = -1,
			     .err_fd = -1 };
	memset(nic->vd.call_fd, -1, sizeof(nic->vd.call_fd));
	ret = nic_host_open(nic, cfg, no_dhcp, b->vm, cancel_fd);
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
			ret = vhostdev_watch(&nic->vd, nic->io);
			if (nic->mode == NIC_MODE_USER)
				ret = ret   ?:
					      iothread_add(nic->io,
							   nic->user.fd,
							   nic_vu_sock, nic);
			else
				ret = ret   ?:
					      iothread_add(nic->io, nic->err_fd,
							   nic_vhost_err, nic);
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
		if (nic->mode != NIC_MODE_USER || ret)
			continue;
		/* Read passt's socket once it has started. */
		ret = iothread_add(nic->io, nic->user.ready_fd,
				   nic_user_started, nic);
		if (!ret)
			ret = iothread_add(nic->io, nic->user.late_fd,
					   nic_user_started, nic);
		if (!ret)
			ret = iothread_watch(nic->io, nic->user.fd, false);
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
