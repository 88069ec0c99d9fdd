// SPDX-License-Identifier: GPL-2.0
/* The glue shared by the vhost devices; see vhostdev.h. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/host/spawn.h"
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

/* Every ring of every slot can have its route: ENOSPC is never the guest's. */
_Static_assert(BOARD_VIRTIO_SLOTS *VHOST_MAX_RINGS <= GSI_ROUTES_MSI_MAX,
	       "gsi_routes.h must hold a route per vhost ring");

static void vhostdev_msix_changed(void *opaque)
{
	vhostdev_update(opaque);
}

void vhostdev_attach(struct vhostdev *d, struct board_slot *slot)
{
	d->slot = slot;
	slot->backend_kicks = (1u << d->nr_rings) - 1;
	d->routes = slot->board ? slot->board->chip.routes : NULL;
	if (slot->pci && d->routes)
		slot->msix_hook =
			(struct virtio_pci_msix_hook){ vhostdev_msix_changed,
						       d };
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

/*
 * What --debug says of a device's interrupt path at set-up: the static
 * part of vhostdev_path()'s choice (below); change the two together.
 */
static const char *vhostdev_path_plan(const struct vhostdev *d)
{
	if (!d->slot || !d->slot->pci)
		return "relayed by lkvm (virtio-mmio: the interrupt status first)";
	if (!d->routes)
		return "relayed by lkvm (no MSI routes on this irqchip)";
	return "KVM irqfd on each ring's MSI-X vector (relayed by lkvm while MSI-X is off or the vector masked or unset)";
}

int vhostdev_watch(struct vhostdev *d, struct iothread *io)
{
	int ret = 0;

	d->io = io;
	for (unsigned int i = 0; !ret && i < d->nr_rings; i++) {
		ret = iothread_add(io, d->call_fd[i], vhostdev_call,
				   &d->calls[i]);
		if (!ret)
			d->path[i] = VHOSTDEV_PATH_RELAY;
	}
	if (!ret)
		pr_debug("%s: vhost interrupts: %s", d->name,
			 vhostdev_path_plan(d));
	return ret;
}

/*
 * The one place that chooses ring q's interrupt path (see vhostdev.h):
 * the irqfd only for a virtio-pci MSI-X vector that may fire now, on
 * KVM's AIA; *addr and *data its message.
 */
static enum vhostdev_path vhostdev_path(struct vhostdev *d, unsigned int q,
					uint64_t *addr, uint32_t *data)
{
	if (d->gone || !d->io)
		return VHOSTDEV_PATH_NONE;
	if (!d->routes || !d->slot || !d->slot->pci ||
	    !gsi_routes_live(d->routes))
		return VHOSTDEV_PATH_RELAY;
	if (virtio_pci_queue_msi(&d->slot->vpci, q, addr, data) !=
	    VIRTIO_PCI_QMSI_OK)
		return VHOSTDEV_PATH_RELAY;
	return VHOSTDEV_PATH_IRQFD;
}

/* How many rings are on the irqfd. */
static unsigned int vhostdev_irqfds(const struct vhostdev *d)
{
	unsigned int n = 0;

	for (unsigned int q = 0; q < d->nr_rings; q++)
		n += d->path[q] == VHOSTDEV_PATH_IRQFD;
	return n;
}

/* Ring q onto the irqfd: false when KVM refused (the relay stays). */
static bool vhostdev_to_irqfd(struct vhostdev *d, unsigned int q, uint64_t addr,
			      uint32_t data)
{
	uint32_t gsi;
	int ret = gsi_routes_set(d->routes, d->call_fd[q], addr, data, &gsi);

	if (ret) {
		if (!d->said_fail)
			pr_warn("%s: ring %u: no MSI route (%s): interrupts relayed",
				d->name, q, strerror(-ret));
		d->said_fail = true;
		return false;
	}
	if (vhostdev_irqfds(d) == 0 && d->said_irqfd < VHOSTDEV_SAY_MAX) {
		pr_debug("%s: ring %u: call eventfd is a KVM irqfd, GSI %u",
			 d->name, q, gsi);
		d->said_irqfd++;
	}
	/* Bound before the relay stops: no signal falls between the two. */
	if (d->path[q] == VHOSTDEV_PATH_RELAY)
		iothread_watch(d->io, d->call_fd[q], false);
	return true;
}

/* Ring q off the irqfd, to the relay (relay) or to nobody. */
static void vhostdev_from_irqfd(struct vhostdev *d, unsigned int q, bool relay)
{
	uint64_t one = 1;

	(void)gsi_routes_clear(d->routes, d->call_fd[q]);
	if (!relay)
		return;
	iothread_watch(d->io, d->call_fd[q], true);
	/* KVM may have taken a signal away with the irqfd: one more. */
	if (write(d->call_fd[q], &one, sizeof(one)) < 0)
		pr_once(LOG_WARN, "%s: call eventfd: %s", d->name,
			strerror(errno));
}

static void vhostdev_set_path(struct vhostdev *d, unsigned int q)
{
	uint64_t addr = 0;
	uint32_t data = 0;
	enum vhostdev_path want = vhostdev_path(d, q, &addr, &data);
	enum vhostdev_path was = d->path[q];

	if (want == VHOSTDEV_PATH_IRQFD) {
		if (!vhostdev_to_irqfd(d, q, addr, data))
			want = VHOSTDEV_PATH_RELAY;
		else
			was = VHOSTDEV_PATH_IRQFD;
	}
	if (was == VHOSTDEV_PATH_IRQFD && want != VHOSTDEV_PATH_IRQFD)
		vhostdev_from_irqfd(d, q, want == VHOSTDEV_PATH_RELAY);
	else if (was == VHOSTDEV_PATH_RELAY && want == VHOSTDEV_PATH_NONE)
		iothread_watch(d->io, d->call_fd[q], false);
	else if (was == VHOSTDEV_PATH_NONE && want == VHOSTDEV_PATH_RELAY)
		iothread_watch(d->io, d->call_fd[q], true);
	d->path[q] = want;
}

void vhostdev_update(struct vhostdev *d)
{
	for (unsigned int q = 0; q < d->nr_rings; q++)
		vhostdev_set_path(d, q);
}

void vhostdev_unwatch(struct vhostdev *d)
{
	d->gone = true;
	vhostdev_update(d);
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

/* ": MESSAGE" from the daemon's last words, or "". */
static void user_last_words(struct vhostdev_user *u, char *buf, size_t size)
{
	char w[180] = "";

	if (u->last_words)
		u->last_words(u->lw_opaque, w, sizeof(w));
	snprintf(buf, size, "%s%s", w[0] ? ": " : "", w);
}

int vhostdev_user_open(struct vhostdev_user *u, const char *what,
		       const struct vhost_mem *m, int ram_fd, int start_ms)
{
	const struct vhost_transport t = vhost_user_transport(&u->vu);
	uint64_t wanted = u->vu.wanted;
	char why[64], words[200];
	int ret;

	vhost_user_init(&u->vu, u->sock, ram_fd, 0);
	u->vu.wanted |= wanted;
	u->vu.timeout_ms = start_ms;
	ret = vhost_open(&u->vh, &t, m);
	u->vu.timeout_ms = VHOST_USER_TIMEOUT_MS;
	if (ret)
		host_reap(u->pid, why, sizeof(why));
	/* It died (reset, EPIPE or end of file, by the time it is seen). */
	if (ret && (ret == -ECONNRESET || !*u->pid)) {
		user_last_words(u, words, sizeof(words));
		pr_err("%s: %s %s at start-up%s", what, u->daemon, why,
		       words[0] ? words : " (see its message above)");
	} else if (ret) {
		pr_err("%s: %s %s failed: %s", what, u->daemon,
		       vhost_req_name(u->vh.failed),
		       u->vu.why ? u->vu.why : strerror(-ret));
	}
	return ret;
}

/* One line per failure, until a start succeeds; none once it is gone. */
static void user_fail(struct vhostdev_user *u, const char *when, int err)
{
	if (u->logged || u->gone)
		return;
	u->logged = true;
	pr_err("%s: %s %s failed at %s: %s; the device needs a reset", u->label,
	       u->daemon, vhost_req_name(u->vh.failed), when,
	       u->vu.why ? u->vu.why : strerror(-err));
}

/*
 * DRIVER_OK (the device's lock held): features first (the daemon wants
 * them before a ring is enabled), the rings, then each ring enabled
 * unless bus mastering is off (user_dma enables them later).
 */
static int user_start(void *opaque, uint64_t features)
{
	struct vhostdev_user *u = opaque;
	int ret = vhostdev_user_start(&u->vd, &u->vh, features,
				      u->dev->vm.core.dma_off);

	if (ret == -EINVAL && !u->vh.broken)
		return ret; /* the guest's fault, said */
	if (ret)
		user_fail(u, "DRIVER_OK", ret);
	else
		u->logged = false;
	return ret;
}

/* PCI bus mastering off or on again (lock held): rings disabled or on. */
static void user_dma(void *opaque, bool on)
{
	struct vhostdev_user *u = opaque;
	int ret = vhostdev_user_dma(&u->vd, &u->vh, on);

	if (ret)
		user_fail(u, on ? "bus mastering on" : "bus mastering off",
			  ret);
}

/* Device reset (lock held): take the rings back. */
static void user_stop(void *opaque)
{
	struct vhostdev_user *u = opaque;
	int ret = vhost_stop(&u->vh, VHOST_REQ_NR, NULL);

	if (ret)
		user_fail(u, "reset", ret);
}

/* A notification that took the MMIO exit: pass it to the daemon. */
static void user_kick(void *opaque, unsigned int q)
{
	struct vhostdev_user *u = opaque;

	vhostdev_kick(&u->vd, q);
}

struct virtio_backend vhostdev_user_backend(struct vhostdev_user *u)
{
	return (struct virtio_backend){
		.start = user_start,
		.stop = user_stop,
		.kick = user_kick,
		.dma = user_dma,
		.opaque = u,
	};
}

/*
 * On the I/O thread: the daemon's socket is readable outside a request
 * (requests are made with the device's lock held, which this takes), so
 * it closed (died) or sent what nobody asked for.
 */
static void user_sock(void *opaque)
{
	struct vhostdev_user *u = opaque;
	struct virtio_mmio *vm = &u->dev->vm;
	struct pollfd p = { .fd = u->sock, .events = POLLIN };
	char why[64], words[200] = "", b;
	bool adopted;

	virtio_mmio_lock(vm);
	if (u->gone || poll(&p, 1, 0) <= 0) {
		virtio_mmio_unlock(vm);
		return;
	}
	u->gone = true;
	u->vu.dead = true;
	iothread_watch(u->io, u->sock, false);
	if (recv(u->sock, &b, 1, MSG_PEEK | MSG_DONTWAIT) > 0)
		strcpy(why, "sent a message nobody asked for");
	else
		host_reap(u->pid, why, sizeof(why));
	if (!*u->pid)
		user_last_words(u, words, sizeof(words));
	/*
	 * A daemon that misbehaves but lives still maps guest RAM and holds
	 * the rings' eventfds: stop it (reaped at exit), and its calls.
	 */
	if (*u->pid > 0)
		kill(*u->pid, SIGKILL);
	vhostdev_unwatch(&u->vd);
	/* A model that answers alone gets its notifications back. */
	for (unsigned int q = 0;
	     u->dev->orphan && u->vd.slot && q < u->vd.nr_rings; q++)
		iothread_watch(u->io, u->vd.slot->kicks[q].fd, true);
	adopted = !virtio_backed_adopt_locked(u->dev);
	if (!u->logged)
		pr_err("%s: %s %s%s; %s, the guest keeps running", u->label,
		       u->daemon, why, words,
		       adopted ? "lkvm fails its requests from now on" :
				 "the device is broken");
	u->logged = true;
	virtio_mmio_unlock(vm);
}

/* On the I/O thread, once the daemon is gone: a queue's notification. */
static void user_kick_back(void *opaque)
{
	const struct vhostdev_call *c = opaque;
	uint64_t v;

	if (read(c->d->slot->kicks[c->q].fd, &v, sizeof(v)) == sizeof(v))
		virtio_mmio_kick(c->d->vm, c->q);
}

/* The kicks, on io but off while the daemon reads them. */
static int user_watch_kicks(struct vhostdev_user *u, struct iothread *io)
{
	struct vhostdev *d = &u->vd;
	int ret = 0;

	for (unsigned int q = 0; !ret && q < d->nr_rings; q++) {
		int fd = d->slot->kicks[q].fd;

		ret = iothread_add(io, fd, user_kick_back, &d->calls[q]);
		ret = ret ?: iothread_watch(io, fd, false);
	}
	return ret;
}

int vhostdev_user_watch(struct vhostdev_user *u, struct iothread *io)
{
	int ret = vhostdev_watch(&u->vd, io);

	u->io = io;
	if (!ret && u->dev->orphan && u->vd.slot)
		ret = user_watch_kicks(u, io);
	return ret ?: iothread_add(io, u->sock, user_sock, u);
}
