// SPDX-License-Identifier: GPL-2.0
/*
 * Network glue.  Guest transmit calls nic_tx() with the transport lock
 * held; receive runs on the I/O thread: frames are read from the tap and
 * offered to the device, and a frame the guest has no room for is held
 * (the tap is not read meanwhile) until the guest posts receive buffers.
 */
#include <errno.h>
#include <linux/if_tun.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "lib/log.h"
#include "nics.h"

static int nic_tx(void *opaque, const void *buf, size_t len)
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

/*
 * The guest posted receive buffers (any thread, transport lock held):
 * wake the I/O thread, which owns the held frame and the tap.
 */
static void nic_rx_ready(void *opaque)
{
	struct nic *nic = opaque;
	uint64_t one = 1;

	if (write(nic->wake_fd, &one, sizeof(one)) < 0)
		pr_once(LOG_WARN, "virtio-net: cannot wake the I/O thread");
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

static void nic_woken(void *opaque)
{
	struct nic *nic = opaque;
	uint64_t v;

	if (read(nic->wake_fd, &v, sizeof(v)) != sizeof(v))
		return;
	if (nic_flush_held(nic))
		iothread_watch(nic->io, nic->tap.fd, true);
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

static const struct virtio_net_backend_ops nic_ops = {
	.tx = nic_tx,
	.rx_ready = nic_rx_ready,
	.set_offloads = nic_set_offloads,
};

/* The host side of a NIC: frame buffer, wake-up eventfd, the tap. */
static int nic_host_open(struct nic *nic, const struct nic_config *cfg)
{
	int ret;

	nic->frame = malloc(VIRTIO_NET_FRAME_MAX);
	nic->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ret = !nic->frame || nic->wake_fd < 0 ? -ENOMEM :
						tap_open(&nic->tap, cfg);
	if (ret) {
		if (!nic->frame || nic->wake_fd < 0)
			pr_err("-n: out of memory or file descriptors");
		if (nic->wake_fd >= 0)
			close(nic->wake_fd);
		free(nic->frame);
	}
	return ret;
}

static void nic_host_close(struct nic *nic)
{
	tap_close(&nic->tap);
	close(nic->wake_fd);
	free(nic->frame);
}

static int nic_up(struct nics *n, const struct nic_config *cfg, struct board *b,
		  struct iothread *io)
{
	struct nic *nic = &n->nic[n->nr];
	struct board_slot *slot = board_virtio_slot_on(b, "-n", cfg->transport);
	struct virtio_net_backend be = {
		.ops = &nic_ops,
		.opaque = nic,
		.offloads = true,
	};
	int ret;

	if (!slot)
		return -ENOSPC;
	*nic = (struct nic){ .io = io, .tap.fd = -1, .wake_fd = -1 };
	ret = nic_host_open(nic, cfg);
	if (ret)
		return ret;
	memcpy(be.mac, cfg->mac, sizeof(be.mac));
	ret = virtio_net_init(&nic->net, &slot->res, &b->vm->mem, &slot->line,
			      &be);
	if (ret) {
		pr_err("cannot set up virtio-net: %s", strerror(-ret));
		nic_host_close(nic);
		return ret;
	}
	ret = board_virtio_add(slot, &nic->net.vm);
	if (ret) {
		virtio_net_destroy(&nic->net);
		nic_host_close(nic);
		return ret;
	}
	n->nr++;
	return 0;
}

int nics_up(struct nics *n, const struct vm_config *cfg, struct board *b,
	    struct iothread *io)
{
	int ret = 0;

	n->nr = 0;
	for (unsigned int i = 0; !ret && i < cfg->nr_nics; i++)
		if (cfg->nics[i].tap)
			ret = nic_up(n, &cfg->nics[i], b, io);
	return ret;
}

int nics_watch(struct nics *n)
{
	int ret = 0;

	for (unsigned int i = 0; !ret && i < n->nr; i++) {
		struct nic *nic = &n->nic[i];

		ret = iothread_add(nic->io, nic->tap.fd, nic_tap_readable, nic);
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
