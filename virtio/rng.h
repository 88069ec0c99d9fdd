/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio-rng (virtio 1.2 §5.4): device ID 4, one request queue, no feature
 * bits, no configuration space.  On a notification every available chain
 * gets up to VIRTIO_RNG_CHAIN_MAX bytes from the entropy source written
 * into its device-writable buffers and is returned (used len = bytes
 * written).  A failing source returns the chain with the bytes it did
 * produce, possibly none (logged once).
 *
 * The transport is embedded: register virtio_mmio_ops with opaque &rng->vm
 * at rng->vm.res.base / rng->vm.res.size.
 */
#ifndef RVKVM_VIRTIO_RNG_H
#define RVKVM_VIRTIO_RNG_H

#include <stddef.h>
#include <sys/types.h>

#include "virtio/mmio.h"

#define VIRTIO_RNG_QUEUE_SIZE 256
/* Bounds the work one chain can ask for; the spec lets us write less. */
#define VIRTIO_RNG_CHAIN_MAX 65536

/* Fill buf with up to len random bytes: the count (> 0), or -errno. */
typedef ssize_t (*virtio_rng_source_fn)(void *opaque, void *buf, size_t len);

struct virtio_rng {
	struct virtio_mmio vm;
	virtio_rng_source_fn source;
	void *source_opaque;
	struct virtq_chain chain; /* scratch, used under vm.lock */
};

/* -EINVAL for a missing res or a NULL source, or -errno. */
int virtio_rng_init(struct virtio_rng *rng, const struct dev_res *res,
		    const struct guest_mem *mem, const struct irq_line *irq,
		    virtio_rng_source_fn source, void *source_opaque);
void virtio_rng_destroy(struct virtio_rng *rng);

/* The production source: getrandom(2), non-blocking; opaque unused. */
ssize_t virtio_rng_getrandom(void *opaque, void *buf, size_t len);

#endif
