// SPDX-License-Identifier: GPL-2.0
/* virtio-net device core; see net.h. */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "virtio/net.h"
#include "lib/log.h"

/* --- common --------------------------------------------------------------- */

static bool net_has(const struct virtio_net *net, unsigned int bit)
{
	return net->features & VIRTIO_BIT(bit);
}

/* FEATURES_OK: keep the features and tell the backend, before any packet. */
static int net_features_ok(void *opaque, uint64_t features)
{
	struct virtio_net *net = opaque;
	int ret;

	net->features = features;
	if (!net->be.ops->set_offloads)
		return 0;
	ret = net->be.ops->set_offloads(net->be.opaque, features);
	if (ret < 0) {
		pr_once(LOG_WARN,
			"virtio-net: setting offloads %#llx failed (%d)",
			(unsigned long long)features, ret);
		return 0;
	}
	net->offloads_applied = features & VIRTIO_NET_GUEST_OFFLOADS;
	return 0;
}

/* --- transmit ------------------------------------------------------------- */

/* Hand the packet in chain to the backend, or drop it; used len 0. */
static int net_tx_chain(void *opaque, const struct virtq_chain *c,
			uint32_t *used)
{
	struct virtio_net *net = opaque;
	struct virtq_reader r;
	size_t len;
	int ret;

	*used = 0;
	if (c->writable_len)
		pr_guest_once("virtio-net: tx chain with writable buffers");
	if (c->readable_len < VIRTIO_NET_HDR_SIZE) {
		pr_guest_once("virtio-net: tx packet without a header");
		net->stats.tx_dropped++;
		return 0;
	}
	if (c->readable_len > VIRTIO_NET_FRAME_MAX) {
		pr_guest_once("virtio-net: tx packet of %llu bytes",
			      (unsigned long long)c->readable_len);
		net->stats.tx_dropped++;
		return 0;
	}
	virtq_reader_init(&r, c);
	len = virtq_reader_read(&r, net->tx_buf, c->readable_len);
	ret = net->be.ops->tx(net->be.opaque, net->tx_buf, len);
	if (ret < 0) {
		if (ret != -EAGAIN)
			pr_once(LOG_WARN, "virtio-net: backend tx failed (%d)",
				ret);
		net->stats.tx_dropped++;
		return 0;
	}
	net->stats.tx_packets++;
	net->stats.tx_bytes += len - VIRTIO_NET_HDR_SIZE;
	return 0;
}

/* --- receive -------------------------------------------------------------- */

/* May the guest get a frame with this GSO type? */
static bool net_rx_gso_ok(const struct virtio_net *net, uint8_t gso)
{
	if ((gso & VIRTIO_NET_HDR_GSO_ECN) &&
	    !net_has(net, VIRTIO_NET_F_GUEST_ECN))
		return false;
	switch (gso & ~VIRTIO_NET_HDR_GSO_ECN) {
	case VIRTIO_NET_HDR_GSO_NONE:
		return !(gso & VIRTIO_NET_HDR_GSO_ECN);
	case VIRTIO_NET_HDR_GSO_TCPV4:
		return net_has(net, VIRTIO_NET_F_GUEST_TSO4);
	case VIRTIO_NET_HDR_GSO_TCPV6:
		return net_has(net, VIRTIO_NET_F_GUEST_TSO6);
	}
	return false;
}

/*
 * Check the backend's header against what the guest negotiated and fix
 * what may be fixed (flags the guest does not know about); -EPROTO when the
 * frame cannot be given to this guest.
 */
static int net_rx_hdr(const struct virtio_net *net, uint8_t *hdr)
{
	uint8_t flags = hdr[VIRTIO_NET_HDR_FLAGS];
	uint8_t gso = hdr[VIRTIO_NET_HDR_GSO_TYPE];

	if (!net_has(net, VIRTIO_NET_F_GUEST_CSUM)) {
		if (flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
			goto bad;
		flags = 0;
	}
	if (!net_rx_gso_ok(net, gso))
		goto bad;
	hdr[VIRTIO_NET_HDR_FLAGS] = flags & (VIRTIO_NET_HDR_F_NEEDS_CSUM |
					     VIRTIO_NET_HDR_F_DATA_VALID);
	return 0;
bad:
	pr_once(LOG_WARN,
		"virtio-net: rx frame with flags %#x gso %#x not negotiated",
		flags, gso);
	return -EPROTO;
}

/*
 * How many chains a frame of len bytes needs: pop until their writable
 * parts hold it (one chain without MRG_RXBUF, at most num with it), then
 * give them all back.  The count (> 0), -EAGAIN, -EMSGSIZE or -EIO.
 */
static int net_rx_count(struct virtio_net *net, struct virtqueue *vq,
			size_t len, bool mrg)
{
	uint64_t room = 0;
	unsigned int n = 0;
	int ret = 0;

	while (room < len && n < vq->num) {
		ret = virtq_pop(vq, &net->chain);
		if (ret <= 0)
			break;
		n++;
		room += net->chain.writable_len;
		if (!mrg)
			break;
	}
	if (ret < 0 || virtq_unpop(vq, n))
		return -EIO;
	if (room >= len)
		return n;
	if ((!mrg && n) || n >= vq->num) {
		pr_once(LOG_WARN,
			"virtio-net: rx frame of %zu bytes does not "
			"fit the guest's buffers",
			len);
		return -EMSGSIZE;
	}
	return -EAGAIN;
}

/*
 * Copy header and packet into the next n chains and publish them
 * together.  0, or -EIO when the guest changed the ring meanwhile.
 */
static int net_rx_write(struct virtio_net *net, struct virtqueue *vq,
			const uint8_t *hdr, const uint8_t *pkt, size_t pkt_len,
			unsigned int n)
{
	size_t hdone = 0, pdone = 0;
	struct virtq_writer w;
	unsigned int k;
	int ret = 0;

	for (k = 0; k < n; k++) {
		ret = virtq_pop(vq, &net->chain);
		if (ret <= 0)
			break;
		virtq_writer_init(&w, &net->chain);
		hdone += virtq_writer_write(&w, hdr + hdone,
					    VIRTIO_NET_HDR_SIZE - hdone);
		pdone += virtq_writer_write(&w, pkt + pdone, pkt_len - pdone);
		ret = virtq_fill(vq, net->chain.head, virtq_writer_written(&w),
				 k);
		if (ret < 0)
			break;
	}
	if (ret < 0 || virtq_flush(vq, k))
		return -EIO;
	if (k < n || pdone < pkt_len) {
		pr_guest_once("virtio-net: rx ring changed under the device");
		return -EIO;
	}
	return 0;
}

/* Deliver a frame whose length is in range to a running device. */
static int net_rx(struct virtio_net *net, const uint8_t *buf, size_t len)
{
	struct virtqueue *vq = virtio_mmio_queue(&net->vm, VIRTIO_NET_RXQ);
	bool mrg = net_has(net, VIRTIO_NET_F_MRG_RXBUF);
	uint8_t hdr[VIRTIO_NET_HDR_SIZE];
	int ret;

	memcpy(hdr, buf, sizeof(hdr));
	ret = net_rx_hdr(net, hdr);
	if (ret)
		return ret;
	ret = net_rx_count(net, vq, len, mrg);
	if (ret > 0) {
		mmio_data_put(hdr + VIRTIO_NET_HDR_NUM_BUFFERS, 2,
			      mrg ? ret : 1);
		ret = net_rx_write(net, vq, hdr, buf + sizeof(hdr),
				   len - sizeof(hdr), ret);
	}
	virtio_mmio_signal_used(&net->vm, VIRTIO_NET_RXQ);
	return ret;
}

int virtio_net_receive_locked(struct virtio_net *net, const void *buf,
			      size_t len)
{
	int ret;

	if (!virtio_mmio_queue_live(&net->vm, VIRTIO_NET_RXQ)) {
		ret = -ENETDOWN;
	} else if (len < VIRTIO_NET_HDR_SIZE || len > VIRTIO_NET_FRAME_MAX) {
		pr_once(LOG_WARN, "virtio-net: rx frame of %zu bytes dropped",
			len);
		ret = -EMSGSIZE;
	} else {
		ret = net_rx(net, buf, len);
	}
	if (!ret) {
		net->stats.rx_packets++;
		net->stats.rx_bytes += len - VIRTIO_NET_HDR_SIZE;
	} else if (ret != -EAGAIN) {
		net->stats.rx_dropped++;
	}
	return ret;
}

int virtio_net_receive(struct virtio_net *net, const void *buf, size_t len)
{
	int ret;

	virtio_mmio_lock(&net->vm);
	ret = virtio_net_receive_locked(net, buf, len);
	virtio_mmio_unlock(&net->vm);
	return ret;
}

/* --- the device ----------------------------------------------------------- */

static bool net_rings_backend(const struct virtio_net *net)
{
	return net->be.ops->start != NULL;
}

static void net_notify(void *opaque, unsigned int q)
{
	struct virtio_net *net = opaque;

	if (net_rings_backend(net)) {
		if (net->started)
			net->be.ops->kick(net->be.opaque, q);
	} else if (q == VIRTIO_NET_TXQ)
		virtio_mmio_process(&net->vm, q, &net->chain, net_tx_chain,
				    net);
	else if (net->be.ops->rx_ready)
		net->be.ops->rx_ready(net->be.opaque);
}

/* DRIVER_OK: a ring backend takes the rings. */
static int net_driver_ok(void *opaque)
{
	struct virtio_net *net = opaque;
	int ret;

	if (!net_rings_backend(net))
		return 0;
	ret = net->be.ops->start(net->be.opaque, net->features);
	/* A failed start may have handed over some rings: stop at reset. */
	net->started = true;
	return ret;
}

static void net_dma(void *opaque, bool on)
{
	struct virtio_net *net = opaque;

	if (net->started && net->be.ops->dma)
		net->be.ops->dma(net->be.opaque, on);
}

static void net_reset(void *opaque)
{
	struct virtio_net *net = opaque;

	if (net->started)
		net->be.ops->stop(net->be.opaque);
	net->started = false;

	if (net->offloads_applied &&
	    net->be.ops->set_offloads(net->be.opaque, 0) < 0)
		pr_once(LOG_WARN, "virtio-net: clearing offloads failed");
	net->offloads_applied = 0;
	net->features = 0;
}

static void net_config_read(void *opaque, uint32_t offset, void *data,
			    unsigned int len)
{
	struct virtio_net *net = opaque;

	memcpy(data, net->config + offset, len);
}

static const struct virtio_dev_ops net_dev_ops = {
	.notify = net_notify,
	.reset = net_reset,
	.features_ok = net_features_ok,
	.config_read = net_config_read,
	.driver_ok = net_driver_ok,
	.dma = net_dma,
};

static uint64_t net_features(const struct virtio_net_backend *be)
{
	uint64_t f = VIRTIO_BIT(VIRTIO_NET_F_MAC) |
		     VIRTIO_BIT(VIRTIO_NET_F_STATUS) |
		     VIRTIO_BIT(VIRTIO_NET_F_MRG_RXBUF);

	if (be->offloads)
		f |= VIRTIO_NET_OFFLOAD_FEATURES;
	return f & ~be->no_features;
}

static void net_config_init(struct virtio_net *net)
{
	memcpy(net->config + VIRTIO_NET_CFG_MAC, net->be.mac,
	       VIRTIO_NET_MAC_LEN);
	mmio_data_put(net->config + VIRTIO_NET_CFG_STATUS, 2,
		      VIRTIO_NET_S_LINK_UP);
	mmio_data_put(net->config + VIRTIO_NET_CFG_MAX_VQ_PAIRS, 2, 1);
}

static bool net_backend_ok(const struct virtio_net_backend *be)
{
	const struct virtio_net_backend_ops *o = be ? be->ops : NULL;

	if (!o || (be->offloads && !o->set_offloads))
		return false;
	/* Rings served elsewhere: all three hooks; else tx. */
	if (o->start || o->stop || o->kick)
		return o->start && o->stop && o->kick;
	return o->tx != NULL;
}

int virtio_net_init(struct virtio_net *net, const struct dev_res *res,
		    const struct guest_mem *mem, const struct irq_line *irq,
		    const struct virtio_net_backend *be)
{
	struct virtio_dev dev = {
		.name = "virtio-net",
		.ops = &net_dev_ops,
		.opaque = net,
		.device_id = VIRTIO_ID_NET,
		.num_queues = 2,
		.queue_num_max = VIRTIO_NET_QUEUE_SIZE,
		.config_size = VIRTIO_NET_CONFIG_SIZE,
	};
	int ret;

	if (!net_backend_ok(be))
		return -EINVAL;
	memset(net, 0, sizeof(*net));
	net->be = *be;
	dev.features = net_features(be);
	dev.withheld = be->no_features;
	net_config_init(net);
	net->tx_buf = malloc(VIRTIO_NET_FRAME_MAX);
	if (!net->tx_buf)
		return -ENOMEM;
	ret = virtio_mmio_init(&net->vm, res, mem, irq, &dev);
	if (ret) {
		free(net->tx_buf);
		net->tx_buf = NULL;
	}
	return ret;
}

void virtio_net_set_link(struct virtio_net *net, bool up)
{
	virtio_mmio_lock(&net->vm);
	mmio_data_put(net->config + VIRTIO_NET_CFG_STATUS, 2,
		      up ? VIRTIO_NET_S_LINK_UP : 0);
	virtio_core_config_changed_locked(&net->vm.core);
	virtio_mmio_unlock(&net->vm);
}

void virtio_net_destroy(struct virtio_net *net)
{
	virtio_mmio_destroy(&net->vm);
	free(net->tx_buf);
	net->tx_buf = NULL;
}
