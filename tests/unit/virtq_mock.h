/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest driver's side of a split virtqueue, for tests: a fake guest RAM
 * with the three rings at its start and a bump allocator for buffers and
 * indirect tables after them.  Chains are added, published and consumed the
 * way a driver does it (descriptors, then avail->ring, then avail->idx;
 * used entries read up to used->idx).  Raw helpers let tests write any
 * malformed descriptor or index they want.  Misuse of the mock aborts.
 */
#ifndef RVKVM_TESTS_VIRTQ_MOCK_H
#define RVKVM_TESTS_VIRTQ_MOCK_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "virtio/mmio.h"
#include "virtio/virtqueue.h"
#include "lib/guest_mem.h"

#define VQM_RAM_BASE 0x80000000ULL

struct vqm {
	struct guest_mem mem;
	uint32_t num;
	uint64_t desc, avail, used; /* ring guest addresses */
	uint16_t avail_idx;	    /* next avail->idx to publish */
	uint16_t last_used;	    /* next used entry to consume */
	uint32_t next_desc;	    /* next descriptor to hand out */
	uint64_t heap;		    /* next free guest address */
};

/* One buffer of a chain, as the driver sees it. */
struct vqm_buf {
	uint64_t gpa;
	uint32_t len;
	bool write; /* device-writable */
};

static inline uint64_t vqm_align(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static inline void *vqm_ptr(const struct vqm *m, uint64_t gpa, uint64_t len)
{
	void *p = guest_mem_ptr(&m->mem, gpa, len);

	if (!p)
		abort();
	return p;
}

static inline void vqm_put16(struct vqm *m, uint64_t gpa, uint16_t v)
{
	v = htole16(v);
	memcpy(vqm_ptr(m, gpa, 2), &v, 2);
}

static inline uint16_t vqm_get16(const struct vqm *m, uint64_t gpa)
{
	uint16_t v;

	memcpy(&v, vqm_ptr(m, gpa, 2), 2);
	return le16toh(v);
}

static inline uint32_t vqm_get32(const struct vqm *m, uint64_t gpa)
{
	uint32_t v;

	memcpy(&v, vqm_ptr(m, gpa, 4), 4);
	return le32toh(v);
}

/* ram_size: a multiple of 4096; num: the ring size the driver uses. */
static inline void vqm_init(struct vqm *m, uint64_t ram_size, uint32_t num)
{
	memset(m, 0, sizeof(*m));
	m->mem.base = VQM_RAM_BASE;
	m->mem.size = ram_size;
	m->mem.host = aligned_alloc(4096, ram_size);
	if (!m->mem.host)
		abort();
	memset(m->mem.host, 0, ram_size);
	m->num = num;
	m->desc = VQM_RAM_BASE;
	m->avail = m->desc + (uint64_t)VIRTQ_DESC_SIZE * num;
	m->used = vqm_align(m->avail + virtq_avail_bytes(num), 4096);
	m->heap = vqm_align(m->used + virtq_used_bytes(num), 4096);
	if (m->heap > VQM_RAM_BASE + ram_size)
		abort();
}

static inline void vqm_free(struct vqm *m)
{
	free(m->mem.host);
	m->mem.host = NULL;
}

/* Point a device-side queue at the mock's rings (not yet activated). */
static inline void vqm_attach(const struct vqm *m, struct virtqueue *vq,
			      uint32_t num_max)
{
	virtq_init(vq, &m->mem, num_max);
	vq->num = m->num;
	vq->desc_gpa = m->desc;
	vq->avail_gpa = m->avail;
	vq->used_gpa = m->used;
}

static inline uint64_t vqm_alloc(struct vqm *m, uint64_t len, uint64_t align)
{
	uint64_t gpa = vqm_align(m->heap, align);

	if (gpa + len > m->mem.base + m->mem.size)
		abort();
	m->heap = gpa + len;
	return gpa;
}

/*
 * A second queue's rings in owner's heap, sharing its RAM, with fresh
 * driver indices; its own allocations start at heap.
 */
static inline void vqm_init_in(struct vqm *m, struct vqm *owner, uint32_t num,
			       uint64_t desc_align, uint64_t used_align,
			       uint64_t heap)
{
	memset(m, 0, sizeof(*m));
	m->mem = owner->mem;
	m->num = num;
	m->desc = vqm_alloc(owner, (uint64_t)VIRTQ_DESC_SIZE * num, desc_align);
	m->avail = vqm_alloc(owner, virtq_avail_bytes(num), 2);
	m->used = vqm_alloc(owner, virtq_used_bytes(num), used_align);
	m->heap = heap;
}

/* A buffer filled with 'fill'. */
static inline struct vqm_buf vqm_buf_new(struct vqm *m, uint32_t len,
					 bool write, uint8_t fill)
{
	struct vqm_buf b = { .gpa = vqm_alloc(m, len ? len : 1, 8),
			     .len = len,
			     .write = write };

	memset(vqm_ptr(m, b.gpa, len), fill, len);
	return b;
}

/* Write descriptor i of the table at table_gpa. */
static inline void vqm_desc_at(struct vqm *m, uint64_t table_gpa, uint32_t i,
			       uint64_t addr, uint32_t len, uint16_t flags,
			       uint16_t next)
{
	uint8_t *d = vqm_ptr(m, table_gpa + (uint64_t)i * VIRTQ_DESC_SIZE,
			     VIRTQ_DESC_SIZE);
	uint64_t a = htole64(addr);
	uint32_t l = htole32(len);
	uint16_t f = htole16(flags), n = htole16(next);

	memcpy(d, &a, 8);
	memcpy(d + 8, &l, 4);
	memcpy(d + 12, &f, 2);
	memcpy(d + 14, &n, 2);
}

/* Descriptor i of the queue's own table. */
static inline void vqm_set_desc(struct vqm *m, uint32_t i, uint64_t addr,
				uint32_t len, uint16_t flags, uint16_t next)
{
	vqm_desc_at(m, m->desc, i, addr, len, flags, next);
}

/* Link bufs into descriptors first, first + 1, ... (mod table_num). */
static inline void vqm_link(struct vqm *m, uint64_t table_gpa,
			    uint32_t table_num, uint32_t first,
			    const struct vqm_buf *bufs, unsigned int n)
{
	for (unsigned int k = 0; k < n; k++) {
		uint32_t i = (first + k) % table_num;
		uint16_t flags = bufs[k].write ? VIRTQ_DESC_F_WRITE : 0;

		if (k + 1 < n)
			flags |= VIRTQ_DESC_F_NEXT;
		vqm_desc_at(m, table_gpa, i, bufs[k].gpa, bufs[k].len, flags,
			    (i + 1) % table_num);
	}
}

/*
 * A ring index another thread may read meanwhile: one 16-bit store (a
 * 2-byte memcpy may be two byte stores, as gcc emits on riscv64, and a
 * device thread would then see the index jump at a carry).
 */
static inline void vqm_store_idx(struct vqm *m, uint64_t gpa, uint16_t v)
{
	__atomic_store_n((uint16_t *)vqm_ptr(m, gpa, 2), htole16(v),
			 __ATOMIC_RELEASE);
}

static inline uint16_t vqm_load_idx(const struct vqm *m, uint64_t gpa)
{
	return le16toh(__atomic_load_n((const uint16_t *)vqm_ptr(m, gpa, 2),
				       __ATOMIC_ACQUIRE));
}

/* Put head into the next avail slot and publish it. */
static inline void vqm_publish(struct vqm *m, uint16_t head)
{
	vqm_put16(m, m->avail + 4 + 2 * (m->avail_idx % m->num), head);
	vqm_store_idx(m, m->avail + 2, ++m->avail_idx);
}

/* Write avail->idx directly (e.g. to jump ahead). */
static inline void vqm_set_avail_idx(struct vqm *m, uint16_t idx)
{
	m->avail_idx = idx;
	vqm_store_idx(m, m->avail + 2, idx);
}

/* Add a direct chain; returns its head. */
static inline uint16_t vqm_add(struct vqm *m, const struct vqm_buf *bufs,
			       unsigned int n)
{
	uint16_t head = m->next_desc;

	vqm_link(m, m->desc, m->num, head, bufs, n);
	m->next_desc = (m->next_desc + n) % m->num;
	vqm_publish(m, head);
	return head;
}

/* An indirect table holding bufs; returns its guest address. */
static inline uint64_t vqm_table(struct vqm *m, const struct vqm_buf *bufs,
				 unsigned int n)
{
	uint64_t table = vqm_alloc(m, (uint64_t)n * VIRTQ_DESC_SIZE, 16);

	vqm_link(m, table, n, 0, bufs, n);
	return table;
}

/* Add a chain as one descriptor pointing to an indirect table. */
static inline uint16_t
vqm_add_indirect(struct vqm *m, const struct vqm_buf *bufs, unsigned int n)
{
	uint16_t head = m->next_desc;

	vqm_set_desc(m, head, vqm_table(m, bufs, n), n * VIRTQ_DESC_SIZE,
		     VIRTQ_DESC_F_INDIRECT, 0);
	m->next_desc = (m->next_desc + 1) % m->num;
	vqm_publish(m, head);
	return head;
}

/* Consume the next used entry; false when there is none. */
static inline bool vqm_get_used(struct vqm *m, uint32_t *id, uint32_t *len)
{
	uint64_t elem;

	if (vqm_load_idx(m, m->used + 2) == m->last_used)
		return false;
	elem = m->used + 4 + VIRTQ_USED_ELEM_SIZE * (m->last_used % m->num);
	*id = vqm_get32(m, elem);
	*len = vqm_get32(m, elem + 4);
	m->last_used++;
	return true;
}

static inline uint16_t vqm_used_idx(const struct vqm *m)
{
	return vqm_get16(m, m->used + 2);
}

static inline void vqm_set_avail_flags(struct vqm *m, uint16_t flags)
{
	vqm_put16(m, m->avail, flags);
}

/* used_event: "interrupt me when you fill used entry v". */
static inline void vqm_set_used_event(struct vqm *m, uint16_t v)
{
	vqm_put16(m, m->avail + 4 + 2 * m->num, v);
}

/* avail_event as written by the device. */
static inline uint16_t vqm_avail_event(const struct vqm *m)
{
	return vqm_get16(m, m->used + 4 + VIRTQ_USED_ELEM_SIZE * m->num);
}

/*
 * Start both rings at index idx (as after many earlier requests): the
 * driver's shadows, the ring indices and the device's state.
 */
static inline void vqm_start_at(struct vqm *m, struct virtqueue *vq,
				uint16_t idx)
{
	vqm_set_avail_idx(m, idx);
	m->last_used = idx;
	vqm_put16(m, m->used + 2, idx);
	vq->last_avail_idx = idx;
	vq->used_idx = idx;
	vq->signalled_used = idx;
}

/*
 * --- the driver's side of a virtio-mmio transport ---------------------------
 * Register accesses as a driver makes them; the steps that a driver checks
 * return what it reads back, for the caller to assert on.
 */

static inline uint32_t vqm_mmio_rd_n(struct virtio_mmio *vm, uint64_t off,
				     unsigned int len)
{
	uint8_t d[8];

	memset(d, 0xee, sizeof(d));
	virtio_mmio_ops.read(vm, off, d, len);
	return mmio_data_get(d, len);
}

static inline void vqm_mmio_wr_n(struct virtio_mmio *vm, uint64_t off,
				 uint32_t v, unsigned int len)
{
	uint8_t d[8];

	mmio_data_put(d, len, v);
	virtio_mmio_ops.write(vm, off, d, len);
}

static inline uint32_t vqm_mmio_rd(struct virtio_mmio *vm, uint64_t off)
{
	return vqm_mmio_rd_n(vm, off, 4);
}

static inline void vqm_mmio_wr(struct virtio_mmio *vm, uint64_t off, uint32_t v)
{
	vqm_mmio_wr_n(vm, off, v, 4);
}

static inline void vqm_mmio_features(struct virtio_mmio *vm, uint64_t features)
{
	vqm_mmio_wr(vm, VIRTIO_MMIO_DRIVER_FEATURES_SEL, 1);
	vqm_mmio_wr(vm, VIRTIO_MMIO_DRIVER_FEATURES, features >> 32);
	vqm_mmio_wr(vm, VIRTIO_MMIO_DRIVER_FEATURES_SEL, 0);
	vqm_mmio_wr(vm, VIRTIO_MMIO_DRIVER_FEATURES, (uint32_t)features);
}

/* §3.1.1 steps 1-6; returns the status read back. */
static inline uint32_t vqm_mmio_negotiate(struct virtio_mmio *vm,
					  uint64_t features)
{
	vqm_mmio_wr(vm, VIRTIO_MMIO_STATUS, 0);
	vqm_mmio_wr(vm, VIRTIO_MMIO_STATUS, VIRTIO_STATUS_ACKNOWLEDGE);
	vqm_mmio_wr(vm, VIRTIO_MMIO_STATUS,
		    VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
	vqm_mmio_features(vm, features);
	vqm_mmio_wr(vm, VIRTIO_MMIO_STATUS,
		    VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER |
			    VIRTIO_STATUS_FEATURES_OK);
	return vqm_mmio_rd(vm, VIRTIO_MMIO_STATUS);
}

/* The selected queue: its size and rings, then QueueReady. */
static inline void vqm_mmio_rings(struct virtio_mmio *vm, uint32_t num,
				  uint64_t desc, uint64_t avail, uint64_t used)
{
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_NUM, num);
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_DESC_LOW, (uint32_t)desc);
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_DESC_HIGH, desc >> 32);
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_DRIVER_LOW, (uint32_t)avail);
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_DRIVER_HIGH, avail >> 32);
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_DEVICE_LOW, (uint32_t)used);
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_DEVICE_HIGH, used >> 32);
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_READY, 1);
}

/* Queue q on the mock's rings; returns QueueReady read back. */
static inline uint32_t vqm_mmio_queue(struct virtio_mmio *vm, uint32_t q,
				      const struct vqm *m)
{
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_SEL, q);
	vqm_mmio_rings(vm, m->num, m->desc, m->avail, m->used);
	return vqm_mmio_rd(vm, VIRTIO_MMIO_QUEUE_READY);
}

/* Set DRIVER_OK; returns the status read back. */
static inline uint32_t vqm_mmio_driver_ok(struct virtio_mmio *vm)
{
	vqm_mmio_wr(vm, VIRTIO_MMIO_STATUS,
		    VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER |
			    VIRTIO_STATUS_FEATURES_OK |
			    VIRTIO_STATUS_DRIVER_OK);
	return vqm_mmio_rd(vm, VIRTIO_MMIO_STATUS);
}

#endif
