/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio-net (virtio 1.2 §5.1): device ID 1, queue 0 receiveq, queue 1
 * transmitq, no control queue, one queue pair.
 *
 * Offers MAC, STATUS and MRG_RXBUF; when the backend says it can take and
 * give offloaded frames (backend.offloads) also CSUM, GUEST_CSUM,
 * HOST_TSO4/6, HOST_ECN, GUEST_TSO4/6 and GUEST_ECN.  Configuration space
 * (read-only): mac[6], le16 status (VIRTIO_NET_S_LINK_UP until the
 * backend reports the link down, virtio_net_set_link()),
 * le16 max_virtqueue_pairs (1).
 *
 * Every packet has a 12-byte struct virtio_net_hdr_v1 in front (VERSION_1:
 * always 12 bytes, MRG_RXBUF or not), the same header a tap opened with
 * IFF_VNET_HDR and a vnet header size of 12 reads and writes, so frames
 * pass through mostly unchanged:
 *  - TX (notify on queue 1): the readable part of each chain (header +
 *    packet, VIRTIO_NET_HDR_SIZE .. VIRTIO_NET_FRAME_MAX bytes, else
 *    dropped, counted and logged once) is copied into one buffer and given
 *    to backend tx().  tx() returning < 0 (-EAGAIN included) drops the
 *    packet and counts it: the chain is always returned (used len 0), so a
 *    slow backend never stalls the guest.  One interrupt per batch.
 *  - RX: the I/O thread hands a frame (header + packet, as the tap gave
 *    it) to virtio_net_receive().  The header's num_buffers is set (1, or
 *    the number of chains with MRG_RXBUF); flags and gso_type must be
 *    allowed by the negotiated GUEST_* features (NEEDS_CSUM needs
 *    GUEST_CSUM, TCPV4/TCPV6 need GUEST_TSO4/6, ECN needs GUEST_ECN, other
 *    GSO types are never allowed; DATA_VALID and RSC_INFO are cleared
 *    without GUEST_CSUM), else the frame is dropped.  Without MRG_RXBUF
 *    the frame must fit in the writable part of the next chain; with it the
 *    frame is spread over as many chains as it needs.  The used entries of
 *    one frame are published together (one used->idx update) and signalled
 *    once.
 *  - A notification on queue 0 (the guest added receive buffers) calls
 *    backend rx_ready(), so a backend that got -EAGAIN can retry.
 *
 * Negotiated features reach the backend through set_offloads(opaque,
 * features), called with the full negotiated feature set when the driver
 * sets FEATURES_OK (so before any packet moves), and with 0 on a device
 * reset if it was called with GUEST_* offload bits before.  A backend
 * starts with all offloads off.
 *
 * The transport is embedded: register virtio_mmio_ops with opaque &net->vm
 * at net->vm.res.base / net->vm.res.size.
 */
#ifndef RVKVM_VIRTIO_NET_H
#define RVKVM_VIRTIO_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "virtio/mmio.h"

#ifndef VIRTIO_ID_NET
#define VIRTIO_ID_NET 1
#endif

/* Feature bits (§5.1.3). */
#define VIRTIO_NET_F_CSUM 0
#define VIRTIO_NET_F_GUEST_CSUM 1
#define VIRTIO_NET_F_MTU 3
#define VIRTIO_NET_F_MAC 5
#define VIRTIO_NET_F_GUEST_TSO4 7
#define VIRTIO_NET_F_GUEST_TSO6 8
#define VIRTIO_NET_F_GUEST_ECN 9
#define VIRTIO_NET_F_GUEST_UFO 10
#define VIRTIO_NET_F_HOST_TSO4 11
#define VIRTIO_NET_F_HOST_TSO6 12
#define VIRTIO_NET_F_HOST_ECN 13
#define VIRTIO_NET_F_HOST_UFO 14
#define VIRTIO_NET_F_MRG_RXBUF 15
#define VIRTIO_NET_F_STATUS 16

/* The offload bits offered only when the backend supports them. */
#define VIRTIO_NET_OFFLOAD_FEATURES                                            \
	(VIRTIO_BIT(VIRTIO_NET_F_CSUM) | VIRTIO_BIT(VIRTIO_NET_F_GUEST_CSUM) | \
	 VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO4) |                                 \
	 VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO6) |                                 \
	 VIRTIO_BIT(VIRTIO_NET_F_GUEST_ECN) |                                  \
	 VIRTIO_BIT(VIRTIO_NET_F_HOST_TSO4) |                                  \
	 VIRTIO_BIT(VIRTIO_NET_F_HOST_TSO6) |                                  \
	 VIRTIO_BIT(VIRTIO_NET_F_HOST_ECN))

/* The receive-side offloads a backend mirrors (e.g. into TUNSETOFFLOAD). */
#define VIRTIO_NET_GUEST_OFFLOADS              \
	(VIRTIO_BIT(VIRTIO_NET_F_GUEST_CSUM) | \
	 VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO4) | \
	 VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO6) | \
	 VIRTIO_BIT(VIRTIO_NET_F_GUEST_ECN))

/* struct virtio_net_hdr_v1 (§5.1.6): little-endian, 12 bytes. */
#define VIRTIO_NET_HDR_SIZE 12
#define VIRTIO_NET_HDR_FLAGS 0	      /* u8 */
#define VIRTIO_NET_HDR_GSO_TYPE 1     /* u8 */
#define VIRTIO_NET_HDR_HDR_LEN 2      /* le16 */
#define VIRTIO_NET_HDR_GSO_SIZE 4     /* le16 */
#define VIRTIO_NET_HDR_CSUM_START 6   /* le16 */
#define VIRTIO_NET_HDR_CSUM_OFFSET 8  /* le16 */
#define VIRTIO_NET_HDR_NUM_BUFFERS 10 /* le16 */

#define VIRTIO_NET_HDR_F_NEEDS_CSUM 1
#define VIRTIO_NET_HDR_F_DATA_VALID 2
#define VIRTIO_NET_HDR_F_RSC_INFO 4
#define VIRTIO_NET_HDR_GSO_NONE 0
#define VIRTIO_NET_HDR_GSO_TCPV4 1
#define VIRTIO_NET_HDR_GSO_UDP 3
#define VIRTIO_NET_HDR_GSO_TCPV6 4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5
#define VIRTIO_NET_HDR_GSO_ECN 0x80

/* Configuration space (§5.1.4, struct virtio_net_config). */
#define VIRTIO_NET_CFG_MAC 0	      /* u8[6] */
#define VIRTIO_NET_CFG_STATUS 6	      /* le16 */
#define VIRTIO_NET_CFG_MAX_VQ_PAIRS 8 /* le16 */
#define VIRTIO_NET_CONFIG_SIZE 10
#define VIRTIO_NET_S_LINK_UP 1

#define VIRTIO_NET_MAC_LEN 6
#define VIRTIO_NET_QUEUE_SIZE 256
#define VIRTIO_NET_RXQ 0
#define VIRTIO_NET_TXQ 1
/* Largest packet after the header: 64 KiB GSO + Ethernet + VLAN headers. */
#define VIRTIO_NET_PACKET_MAX 65550
#define VIRTIO_NET_FRAME_MAX (VIRTIO_NET_HDR_SIZE + VIRTIO_NET_PACKET_MAX)

/*
 * The packet backend (a tap).  All three run with the transport lock held
 * and must not block for long.
 *  tx: one frame (header + packet, len in [VIRTIO_NET_HDR_SIZE,
 *      VIRTIO_NET_FRAME_MAX]); 0 or -errno (the frame is dropped either
 *      way, see above).
 *  rx_ready: the guest added receive buffers (may be NULL).  May call
 *      virtio_net_receive_locked(), never virtio_net_receive().
 *  set_offloads: mirror the GUEST_* bits of features (see
 *      VIRTIO_NET_GUEST_OFFLOADS) into the backend; 0 or -errno (logged
 *      once).  Required when the backend offers offloads, else may be NULL.
 *
 * A backend that serves the rings itself (vhost-net) sets start, stop and
 * kick instead of tx and rx_ready (dma optional), as virtio-vsock's
 * (virtio/vsock.h): start(features) at DRIVER_OK hands both rings over
 * (non-zero: DEVICE_NEEDS_RESET), stop() at every reset after a start,
 * kick(q) for a notification that reached lkvm, dma(on) for PCI bus
 * mastering after a start.  The device then never touches the rings;
 * set_offloads works as above.
 */
struct virtio_net_backend_ops {
	int (*tx)(void *opaque, const void *buf, size_t len);
	void (*rx_ready)(void *opaque);
	int (*set_offloads)(void *opaque, uint64_t features);
	int (*start)(void *opaque, uint64_t features);
	void (*stop)(void *opaque);
	void (*kick)(void *opaque, unsigned int q);
	void (*dma)(void *opaque, bool on);
};

struct virtio_net_backend {
	const struct virtio_net_backend_ops *ops;
	void *opaque;
	uint8_t mac[VIRTIO_NET_MAC_LEN];
	bool offloads; /* offer the checksum/TSO offload features */
	/*
	 * Feature bits not to offer (a ring back-end lacks them), device or
	 * transport (INDIRECT_DESC, EVENT_IDX; never VERSION_1).
	 */
	uint64_t no_features;
};

/* Counters, updated under vm.lock. */
struct virtio_net_stats {
	uint64_t tx_packets, tx_bytes, tx_dropped;
	uint64_t rx_packets, rx_bytes, rx_dropped;
};

struct virtio_net {
	struct virtio_mmio vm;
	struct virtio_net_backend be;
	uint8_t config[VIRTIO_NET_CONFIG_SIZE]; /* little-endian, fixed */
	uint64_t features;	   /* negotiated, kept at FEATURES_OK */
	uint64_t offloads_applied; /* GUEST_* bits given to set_offloads() */
	struct virtio_net_stats stats;
	bool started;		  /* a ring backend has the rings */
	uint8_t *tx_buf;	  /* VIRTIO_NET_FRAME_MAX, used under vm.lock */
	struct virtq_chain chain; /* scratch, used under vm.lock */
};

/*
 * The backend description is copied; be->ops and be->opaque must outlive
 * the device.  -EINVAL for a missing res, no ops, no tx (nor start, stop
 * and kick), or offloads without set_offloads; -ENOMEM, or -errno.
 */
int virtio_net_init(struct virtio_net *net, const struct dev_res *res,
		    const struct guest_mem *mem, const struct irq_line *irq,
		    const struct virtio_net_backend *be);
void virtio_net_destroy(struct virtio_net *net);

/*
 * The link is up or down (e.g. the user-mode stack died): the status in
 * the configuration space, and a configuration change interrupt if the
 * driver is running.  Takes vm.lock.
 */
void virtio_net_set_link(struct virtio_net *net, bool up);

/*
 * Deliver one received frame (header + packet) to the guest.  Takes
 * vm.lock (the _locked variant expects it held, e.g. from rx_ready()).
 *   0        delivered (the frame was copied; buf may be reused)
 *   -EAGAIN  not enough receive buffers now: keep the frame and retry
 *            after rx_ready() (nothing was consumed)
 *   other    dropped and counted, do not retry: -ENETDOWN (driver not
 *            running or receive queue not ready), -EMSGSIZE (shorter than
 *            the header, longer than VIRTIO_NET_FRAME_MAX, larger than the
 *            next chain without MRG_RXBUF, or larger than the whole ring
 *            with it), -EPROTO (header flags / GSO type the guest did not
 *            negotiate), -EIO (the guest broke the queue, or changed the
 *            ring while the frame was being copied)
 */
int virtio_net_receive(struct virtio_net *net, const void *buf, size_t len);
int virtio_net_receive_locked(struct virtio_net *net, const void *buf,
			      size_t len);

#endif
