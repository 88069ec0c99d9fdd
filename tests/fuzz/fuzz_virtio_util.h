/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared pieces of the virtio fuzz targets: the input cursor, the fake
 * guest RAM (64 KiB at guest address 0, heap-allocated so ASan sees any
 * access outside it, one buffer per process) filled from the input's
 * tail, guest pokes, split rings laid out from a size selector, and the
 * driver's side of the virtio-mmio registers.  Header-only: every target
 * is linked on its own.
 */
#ifndef RVKVM_TESTS_FUZZ_VIRTIO_UTIL_H
#define RVKVM_TESTS_FUZZ_VIRTIO_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "virtio/mmio.h"
#include "lib/guest_mem.h"
#include "tests/unit/virtq_mock.h" /* vqm_mmio_rd_n/wr_n */

#define FUZZ_RAM_SIZE 0x10000

#define CHECK(cond)                       \
	do {                              \
		if (!(cond))              \
			__builtin_trap(); \
	} while (0)

/* irq_line.set for a line whose level is the int at opaque: edges only. */
static inline void fuzz_irq_edge(void *opaque, int level)
{
	int *cur = opaque;

	CHECK(level == 0 || level == 1);
	CHECK(level != *cur); /* edges only */
	*cur = level;
}

/* The ops still to be consumed; reads past the end give zeroes. */
struct fuzz_in {
	const uint8_t *p, *end;
};

static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
	return in->p < in->end ? *in->p++ : 0;
}

static inline uint16_t fuzz_u16(struct fuzz_in *in)
{
	uint16_t lo = fuzz_u8(in);

	return lo | fuzz_u8(in) << 8;
}

static inline uint32_t fuzz_u32(struct fuzz_in *in)
{
	uint32_t lo = fuzz_u16(in);

	return lo | (uint32_t)fuzz_u16(in) << 16;
}

/*
 * Zeroed fake guest RAM of FUZZ_RAM_SIZE bytes (base left as it is).  One
 * heap buffer per process, zeroed again for each input: a fresh 64 KiB
 * allocation per input costs page faults (ASan's quarantine never hands
 * the last one back), and ASan's redzones still fence the reused one.
 */
static inline void fuzz_ram_alloc(struct guest_mem *mem)
{
	static void *ram;

	if (!ram)
		ram = malloc(FUZZ_RAM_SIZE);
	CHECK(ram);
	memset(ram, 0, FUZZ_RAM_SIZE);
	mem->size = FUZZ_RAM_SIZE;
	mem->host = ram;
}

/* The end of an input's use of the RAM (it stays for the next). */
static inline void fuzz_ram_free(struct guest_mem *mem)
{
	mem->host = NULL;
}

/*
 * At most this many bytes of ops an input: every seed needs less than
 * 200, and a mutated ops_len that turned the whole 30 KiB RAM image into
 * ops made one input thousands of device resets long (blk: 600 inputs/s).
 */
#define FUZZ_OPS_MAX 256

/*
 * Input: [hdr_len - 2 bytes] [ops_len: u16] [ops: ops_len bytes] [RAM
 * image].  Copies the RAM image to the start of RAM and points in at the
 * ops.  The caller has checked size >= hdr_len.  ops_len is clipped to
 * the input and to FUZZ_OPS_MAX (the RAM image then starts after the
 * whole ops_len bytes all the same).
 */
static inline void fuzz_split_input(const uint8_t *data, size_t size,
				    size_t hdr_len, struct guest_mem *mem,
				    struct fuzz_in *in)
{
	size_t ops_len = data[hdr_len - 2] | data[hdr_len - 1] << 8, img;

	if (ops_len > size - hdr_len)
		ops_len = size - hdr_len;
	img = size - hdr_len - ops_len;
	memcpy(mem->host, data + hdr_len + ops_len,
	       img < FUZZ_RAM_SIZE ? img : FUZZ_RAM_SIZE);
	in->p = data + hdr_len;
	in->end = in->p + (ops_len < FUZZ_OPS_MAX ? ops_len : FUZZ_OPS_MAX);
}

/* Guest poke: [u16 offset] [u8 len] [bytes], clipped to input and RAM. */
static inline void fuzz_poke(struct guest_mem *mem, struct fuzz_in *in)
{
	uint16_t off = fuzz_u16(in);
	size_t len = fuzz_u8(in), avail = in->end - in->p;

	if (len > avail)
		len = avail;
	if (len > (size_t)(FUZZ_RAM_SIZE - off))
		len = FUZZ_RAM_SIZE - off;
	memcpy((uint8_t *)mem->host + off, in->p, len);
	in->p += len;
}

/* A split ring: descriptors, avail right after them, used 4-aligned. */
struct fuzz_ring {
	uint32_t num;
	uint64_t desc, avail, used;
};

/* Lay out a ring of 1 << (sel % 9) entries at base. */
static inline void fuzz_ring_at(struct fuzz_ring *r, uint64_t base, uint8_t sel)
{
	r->num = 1u << (sel % 9);
	r->desc = base;
	r->avail = base + 16ULL * r->num;
	r->used = (r->avail + 6 + 2ULL * r->num + 3) & ~3ULL;
}

/* Put [head: u16] % num into the next avail slot of r, bump avail->idx. */
static inline void fuzz_publish(struct guest_mem *mem,
				const struct fuzz_ring *r, struct fuzz_in *in)
{
	uint16_t head = fuzz_u16(in) % r->num;
	uint8_t *a = (uint8_t *)mem->host + r->avail;
	uint16_t idx = mmio_data_get(a + 2, 2);

	mmio_data_put(a + 4 + 2 * (idx % r->num), 2, head);
	mmio_data_put(a + 2, 2, (uint16_t)(idx + 1));
}

/* VERSION_1, INDIRECT_DESC if bit 0 of sel is set, EVENT_IDX if bit 1. */
static inline uint64_t fuzz_transport_features(uint8_t sel)
{
	uint64_t features = VIRTIO_BIT(VIRTIO_F_VERSION_1);

	if (sel & 1)
		features |= VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC);
	if (sel & 2)
		features |= VIRTIO_BIT(VIRTIO_F_EVENT_IDX);
	return features;
}

/* --- the driver's side of the transport ----------------------------------- */

/* Reset, ACKNOWLEDGE, DRIVER, the features, FEATURES_OK (§3.1.1 1-5). */
static inline void fuzz_mmio_negotiate(struct virtio_mmio *vm,
				       uint64_t features)
{
	vqm_mmio_wr_n(vm, VIRTIO_MMIO_STATUS, 0, 4);
	vqm_mmio_wr_n(vm, VIRTIO_MMIO_STATUS, 1, 4);
	vqm_mmio_wr_n(vm, VIRTIO_MMIO_STATUS, 3, 4);
	vqm_mmio_wr_n(vm, VIRTIO_MMIO_DRIVER_FEATURES_SEL, 1, 4);
	vqm_mmio_wr_n(vm, VIRTIO_MMIO_DRIVER_FEATURES, features >> 32, 4);
	vqm_mmio_wr_n(vm, VIRTIO_MMIO_DRIVER_FEATURES_SEL, 0, 4);
	vqm_mmio_wr_n(vm, VIRTIO_MMIO_DRIVER_FEATURES, (uint32_t)features, 4);
	vqm_mmio_wr_n(vm, VIRTIO_MMIO_STATUS, 11, 4);
}

/* Select queue q, give it its rings (low halves only) and make it ready. */
static inline void fuzz_mmio_queue(struct virtio_mmio *vm, uint32_t q,
				   uint32_t num, uint32_t desc, uint32_t avail,
				   uint32_t used)
{
	vqm_mmio_wr_n(vm, VIRTIO_MMIO_QUEUE_SEL, q, 4);
	vqm_mmio_wr_n(vm, VIRTIO_MMIO_QUEUE_NUM, num, 4);
	vqm_mmio_wr_n(vm, VIRTIO_MMIO_QUEUE_DESC_LOW, desc, 4);
	vqm_mmio_wr_n(vm, VIRTIO_MMIO_QUEUE_DRIVER_LOW, avail, 4);
	vqm_mmio_wr_n(vm, VIRTIO_MMIO_QUEUE_DEVICE_LOW, used, 4);
	vqm_mmio_wr_n(vm, VIRTIO_MMIO_QUEUE_READY, 1, 4);
}

/*
 * The whole driver set-up: negotiate, queues 0 .. n - 1 on rings[], then
 * DRIVER_OK, which must stick.
 */
static inline void fuzz_mmio_driver_up(struct virtio_mmio *vm,
				       uint64_t features,
				       const struct fuzz_ring *rings,
				       unsigned int n)
{
	fuzz_mmio_negotiate(vm, features);
	for (unsigned int q = 0; q < n; q++)
		fuzz_mmio_queue(vm, q, rings[q].num, rings[q].desc,
				rings[q].avail, rings[q].used);
	vqm_mmio_wr_n(vm, VIRTIO_MMIO_STATUS, 15, 4);
	CHECK(vqm_mmio_rd_n(vm, VIRTIO_MMIO_STATUS, 4) == 15);
}

/*
 * Queues 0 .. n - 1 from the input: [num: u8] [desc, avail, used: u16
 * offsets into RAM at ram_base] each, given to the transport (after the
 * negotiation) and noted in rings[].
 */
static inline void fuzz_mmio_rings(struct virtio_mmio *vm, struct fuzz_in *in,
				   struct fuzz_ring *rings, unsigned int n,
				   uint64_t ram_base)
{
	for (uint32_t q = 0; q < n; q++) {
		uint8_t num = fuzz_u8(in);
		uint16_t desc = fuzz_u16(in);
		uint16_t avail = fuzz_u16(in);
		uint16_t used = fuzz_u16(in);

		rings[q].num = 1u << (num % 8);
		rings[q].desc = ram_base + desc;
		rings[q].avail = ram_base + avail;
		rings[q].used = ram_base + used;
		fuzz_mmio_queue(vm, q, rings[q].num, (uint32_t)rings[q].desc,
				(uint32_t)rings[q].avail,
				(uint32_t)rings[q].used);
	}
}

/*
 * [queue: u8 % n] [head: u16]: publish head on that queue's ring (when
 * it fits in RAM) and notify the queue.
 */
static inline void fuzz_mmio_publish_notify(struct virtio_mmio *vm,
					    struct guest_mem *mem,
					    struct fuzz_in *in,
					    const struct fuzz_ring *rings,
					    unsigned int n, uint64_t ram_base)
{
	uint32_t q = fuzz_u8(in) % n;
	struct fuzz_ring r = rings[q];

	if (!r.num) {
		fuzz_u16(in);
		return;
	}
	r.avail -= ram_base; /* fuzz_publish wants an offset into RAM */
	if (r.avail + 4 + 2 * r.num + 2 > FUZZ_RAM_SIZE) {
		fuzz_u16(in);
		return;
	}
	fuzz_publish(mem, &r, in);
	vqm_mmio_wr_n(vm, VIRTIO_MMIO_QUEUE_NOTIFY, q, 4);
}

#endif
