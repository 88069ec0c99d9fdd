// SPDX-License-Identifier: GPL-2.0
/* vhost-net's request order over the vhost layer; see vhost_net.h. */
#include <errno.h>
#include <stddef.h>

#include "vmm/host/vhost_net.h"

int vhost_net_open(struct vhost_net *n, const struct vhost_transport *t,
		   const struct vhost_mem *mem, int tap_fd, int err_fd)
{
	int ret = vhost_open(&n->vh, t, mem);

	n->tap_fd = tap_fd;
	n->attached = false;
	for (unsigned int i = 0; !ret && i < VHOST_NET_RINGS; i++) {
		struct vhost_ring_val rv = { .index = i, .val = err_fd };

		ret = vhost_dev_req(&n->vh, VHOST_REQ_SET_VRING_ERR, &rv);
	}
	if (!ret && (n->vh.features & VHOST_NET_NEEDED) != VHOST_NET_NEEDED)
		ret = -EOPNOTSUPP;
	return ret;
}

uint64_t vhost_net_offer(const struct vhost_net *n, uint64_t dev_features)
{
	const uint64_t mrg = 1ULL << VHOST_NET_F_MRG_RXBUF;

	return n->vh.features & mrg ? dev_features : dev_features & ~mrg;
}

unsigned int vhost_net_hdr_len(uint64_t features)
{
	const uint64_t twelve = (1ULL << VHOST_NET_F_VERSION_1) |
				(1ULL << VHOST_NET_F_MRG_RXBUF);

	return features & twelve ? 12 : 10;
}

/* Both rings' back-end: the tap (attach) or none (-1). */
static int vhost_net_backend(struct vhost_net *n, bool attach)
{
	int ret = 0;

	for (unsigned int i = 0; !ret && i < VHOST_NET_RINGS; i++) {
		struct vhost_ring_val rv = { .index = i,
					     .val = attach ? n->tap_fd : -1 };

		ret = vhost_dev_req(&n->vh, VHOST_REQ_NET_SET_BACKEND, &rv);
	}
	n->attached = attach && !ret;
	return ret;
}

int vhost_net_start(struct vhost_net *n,
		    const struct vhost_ring rings[VHOST_NET_RINGS],
		    uint64_t features, bool dma_off)
{
	const uint64_t platform = 1ULL << VHOST_NET_F_ACCESS_PLATFORM;
	int ret = 0;

	for (unsigned int i = 0; !ret && i < VHOST_NET_RINGS; i++)
		ret = vhost_ring_start(&n->vh, i, &rings[i]);
	ret = ret ?: vhost_set_features(&n->vh, features & ~platform);
	if (!ret && !dma_off)
		ret = vhost_net_backend(n, true);
	return ret;
}

int vhost_net_dma(struct vhost_net *n, bool on)
{
	if (on == n->attached)
		return 0;
	return vhost_net_backend(n, on);
}

int vhost_net_stop(struct vhost_net *n)
{
	int ret = vhost_stop_ring_req(&n->vh, VHOST_REQ_NET_SET_BACKEND, -1);
	int stop = vhost_stop(&n->vh, VHOST_REQ_NR, NULL);

	n->attached = false;
	return ret ?: stop;
}
