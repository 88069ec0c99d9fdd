/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vhost-net: a virtio-net device's receive (0) and transmit (1) rings
 * served by the host kernel (/dev/vhost-net) on a tap, over the vhost
 * layer (vhost.h), so the request order is tested against a fake:
 *   vhost_net_open():  SET_OWNER, GET_FEATURES, SET_MEM_TABLE,
 *                      SET_VRING_ERR (per ring)
 *   vhost_net_start(): each ring (NUM, BASE, ADDR, CALL, KICK), then
 *                      SET_FEATURES, then NET_SET_BACKEND with the tap
 *                      per ring (not while bus mastering is off)
 *   vhost_net_dma():   NET_SET_BACKEND -1 per ring (off), the tap (on)
 *   vhost_net_stop():  NET_SET_BACKEND -1 per ring, GET_VRING_BASE per
 *                      ring (the device reset, a guest reboot)
 * The kernel keeps no header of its own (VHOST_NET_F_VIRTIO_NET_HDR is
 * never asked for): the tap reads and writes the virtio-net header, whose
 * size the negotiated features set (vhost_net_hdr_len()).
 */
#ifndef RVKVM_VHOST_NET_H
#define RVKVM_VHOST_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/host/vhost.h"

#define VHOST_NET_RINGS 2
#define VHOST_NET_DEV_PATH "/dev/vhost-net"

/* Feature bits the vhost-net rules below look at (virtio 1.2). */
#define VHOST_NET_F_MRG_RXBUF 15
#define VHOST_NET_F_INDIRECT_DESC 28
#define VHOST_NET_F_EVENT_IDX 29
#define VHOST_NET_F_VERSION_1 32
#define VHOST_NET_F_ACCESS_PLATFORM 33

/* What the kernel must have: lkvm's transport always offers them. */
#define VHOST_NET_NEEDED                                                     \
	((1ULL << VHOST_NET_F_VERSION_1) | (1ULL << VHOST_NET_F_EVENT_IDX) | \
	 (1ULL << VHOST_NET_F_INDIRECT_DESC))

struct vhost_net {
	struct vhost vh;
	int tap_fd;    /* the back-end of both rings */
	bool attached; /* the rings have the tap (SET_BACKEND) */
};

/*
 * The kernel's device on transport t for guest memory mem, its rings'
 * errors signalled on err_fd, served on tap_fd.  0, or -errno (vh.failed
 * names the request); -EOPNOTSUPP when it lacks VHOST_NET_NEEDED.
 */
int vhost_net_open(struct vhost_net *n, const struct vhost_transport *t,
		   const struct vhost_mem *mem, int tap_fd, int err_fd);

/*
 * The device features to offer the guest, of lkvm's (dev_features): the
 * ring features the kernel lacks (MRG_RXBUF) taken out.
 */
uint64_t vhost_net_offer(const struct vhost_net *n, uint64_t dev_features);

/* The virtio-net header the tap must use with these features (bytes). */
unsigned int vhost_net_hdr_len(uint64_t features);

/*
 * DRIVER_OK: both rings, the negotiated features (ACCESS_PLATFORM and
 * what the kernel lacks masked), then the tap unless dma_off.  0 or
 * -errno (the first failure; the vhost is then broken until the stop).
 */
int vhost_net_start(struct vhost_net *n,
		    const struct vhost_ring rings[VHOST_NET_RINGS],
		    uint64_t features, bool dma_off);

/* PCI bus mastering off (false: the tap detached) or on: 0 or -errno. */
int vhost_net_dma(struct vhost_net *n, bool on);

/* The device reset: the tap detached, the rings taken back; 0 or -errno. */
int vhost_net_stop(struct vhost_net *n);

#endif
