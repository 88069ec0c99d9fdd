/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio-vsock (virtio 1.2 §5.10): device ID 19, three queues (0 rx,
 * 1 tx, 2 event), configuration space the guest's CID (le64).  The
 * device model only describes itself and hands the rx and tx queues to a
 * back-end that serves them (vhost-vsock in the host kernel, through the
 * glue in vmm/machine/vsock.c): start() at DRIVER_OK, stop() at every
 * reset, kick() for a notification that reached lkvm instead of the
 * back-end (one the ioeventfd did not match).  The event queue stays
 * with the device, which never sends an event (transport resets are for
 * migration), so its buffers wait.
 *
 * Feature bits offered: VIRTIO_VSOCK_F_SEQPACKET when the back-end has
 * it (the transport adds VERSION_1, INDIRECT_DESC and EVENT_IDX).
 */
#ifndef RVKVM_VIRTIO_VSOCK_H
#define RVKVM_VIRTIO_VSOCK_H

#include <stdint.h>

#include "virtio/mmio.h"

#define VIRTIO_VSOCK_QUEUES 3
#define VIRTIO_VSOCK_RINGS 2 /* rx and tx: the back-end's */
#define VIRTIO_VSOCK_QUEUE_SIZE 256
#define VIRTIO_VSOCK_F_SEQPACKET 1
#define VIRTIO_VSOCK_CONFIG_SIZE 8

/* CIDs a guest may have: not any, hypervisor, local or host. */
#define VIRTIO_VSOCK_CID_MIN 3
#define VIRTIO_VSOCK_CID_MAX 0xfffffffeULL

/* What serves the queues; every op runs with the device's lock held. */
struct virtio_vsock_backend {
	/* DRIVER_OK: take queues 0..VIRTIO_VSOCK_RINGS-1.  0 or -errno. */
	int (*start)(void *opaque, uint64_t features);
	/* Device reset: give them back (the rings are gone). */
	void (*stop)(void *opaque);
	/* A notification of ring q that lkvm received. */
	void (*kick)(void *opaque, unsigned int q);
	/*
	 * After start: PCI bus mastering off (false), stop touching guest
	 * memory; on again (true), go on.  Optional.
	 */
	void (*dma)(void *opaque, bool on);
	void *opaque;
};

struct virtio_vsock {
	struct virtio_mmio vm;
	uint64_t guest_cid;
	uint64_t features; /* accepted at FEATURES_OK */
	bool started;	   /* the back-end has the rings */
	struct virtio_vsock_backend be;
};

/*
 * A device with guest_cid (checked: -EINVAL outside the CID range),
 * offering host_features & VIRTIO_VSOCK_F_SEQPACKET, served by be.
 */
int virtio_vsock_init(struct virtio_vsock *vs, const struct dev_res *res,
		      const struct guest_mem *mem, const struct irq_line *irq,
		      uint64_t guest_cid, uint64_t host_features,
		      const struct virtio_vsock_backend *be);
void virtio_vsock_destroy(struct virtio_vsock *vs);

/* Is cid a CID a guest may be given? */
static inline bool virtio_vsock_cid_ok(uint64_t cid)
{
	return cid >= VIRTIO_VSOCK_CID_MIN && cid <= VIRTIO_VSOCK_CID_MAX;
}

#endif
