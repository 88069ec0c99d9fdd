// SPDX-License-Identifier: GPL-2.0
/*
 * Split virtqueue, device side.  See virtqueue.h for the checks.
 *
 * Memory ordering against the guest driver running on other CPUs
 * (§2.7.13 and §2.7.7/§2.7.10 of virtio 1.2):
 *  - avail->idx is loaded with acquire: the ring entry and the descriptors
 *    the driver wrote before publishing the index are read after it.
 *  - used->idx is stored with release: the used element and every byte
 *    written into the guest's buffers are visible before the new index.
 *  - Deciding whether to notify reads used_event (or avail->flags) after
 *    storing used->idx: a store-load pair, so a full (seq_cst) fence sits
 *    between them, matching the full barrier the driver has between its
 *    used_event store and its used->idx load.
 *  - Likewise avail_event is stored, a full fence, then avail->idx is
 *    loaded again.
 * Atomic accesses use the __atomic builtins on the 2-byte ring fields
 * (host alignment is checked at activation) and atomic_thread_fence().
 * Rings are little-endian (virtio 1.x).
 */
#include <endian.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "virtio/virtqueue.h"
#include "lib/log.h"

/* Log once per call site, mark the queue broken, evaluate to -EIO. */
#define virtq_fail(vq, ...)                 \
	({                                  \
		pr_guest_once(__VA_ARGS__); \
		(vq)->broken = true;        \
		-EIO;                       \
	})

struct virtq_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

void virtq_init(struct virtqueue *vq, const struct guest_mem *mem,
		uint32_t num_max)
{
	memset(vq, 0, sizeof(*vq));
	vq->mem = mem;
	vq->num_max = num_max;
	vq->num = num_max;
}

void virtq_reset(struct virtqueue *vq)
{
	bool held = vq->held;

	free(vq->held_used);
	virtq_init(vq, vq->mem, vq->num_max);
	vq->held = held;
}

/* Host pointer for a whole ring, or NULL: range, gpa and host alignment. */
static uint8_t *virtq_ring(const struct virtqueue *vq, uint64_t gpa,
			   uint64_t len, uint64_t align)
{
	uint8_t *p;

	if (gpa & (align - 1))
		return NULL;
	p = guest_mem_ptr(vq->mem, gpa, len);
	if ((uintptr_t)p & (align - 1))
		return NULL;
	return p;
}

static bool virtq_num_ok(uint32_t num, uint32_t num_max)
{
	return num && num <= num_max && num <= VIRTQ_MAX_SIZE &&
	       !(num & (num - 1));
}

int virtq_activate(struct virtqueue *vq)
{
	uint32_t num = vq->num;

	vq->ready = false;
	if (!vq->mem || !virtq_num_ok(num, vq->num_max)) {
		pr_guest_once("virtqueue: bad queue size %u", num);
		return -EINVAL;
	}
	vq->desc = virtq_ring(vq, vq->desc_gpa, (uint64_t)VIRTQ_DESC_SIZE * num,
			      VIRTQ_DESC_ALIGN);
	vq->avail = virtq_ring(vq, vq->avail_gpa, virtq_avail_bytes(num),
			       VIRTQ_AVAIL_ALIGN);
	vq->used = virtq_ring(vq, vq->used_gpa, virtq_used_bytes(num),
			      VIRTQ_USED_ALIGN);
	if (!vq->desc || !vq->avail || !vq->used) {
		pr_guest_once("virtqueue: ring misaligned or outside RAM");
		vq->desc = vq->avail = vq->used = NULL;
		return -EINVAL;
	}
	vq->last_avail_idx = 0;
	vq->used_idx = 0;
	vq->signalled_used = 0;
	vq->filled = 0;
	vq->unpoppable = 0;
	vq->broken = false;
	free(vq->held_used);
	vq->held_used = NULL;
	vq->held_from = 0;
	vq->ready = true;
	return 0;
}

static uint16_t virtq_load16(const uint8_t *p, int order)
{
	return le16toh(__atomic_load_n((const uint16_t *)p, order));
}

static void virtq_store16(uint8_t *p, uint16_t v, int order)
{
	__atomic_store_n((uint16_t *)p, htole16(v), order);
}

static uint16_t virtq_avail_idx(const struct virtqueue *vq)
{
	return virtq_load16(vq->avail + 2, __ATOMIC_ACQUIRE);
}

/* avail->ring[i]: read after the acquire load of avail->idx. */
static uint16_t virtq_avail_ring(const struct virtqueue *vq, uint16_t i)
{
	return virtq_load16(vq->avail + 4 + 2 * (i & (vq->num - 1)),
			    __ATOMIC_RELAXED);
}

static uint8_t *virtq_used_event(const struct virtqueue *vq)
{
	return vq->avail + 4 + 2 * vq->num;
}

static uint8_t *virtq_avail_event(const struct virtqueue *vq)
{
	return vq->used + 4 + VIRTQ_USED_ELEM_SIZE * vq->num;
}

int virtq_adopt(struct virtqueue *vq)
{
	uint16_t avail, used, next;

	if (!vq->ready)
		return -EINVAL;
	avail = virtq_avail_idx(vq);
	used = virtq_load16(vq->used + 2, __ATOMIC_ACQUIRE);
	next = vq->event_idx ?
		       virtq_load16(virtq_avail_event(vq), __ATOMIC_RELAXED) :
		       used;
	/*
	 * Where the back-end stopped popping is between used and avail; an
	 * avail_event outside was left behind (a back-end that sets it only
	 * when it turns notifications back on, as virtiofsd does, lags it
	 * while it streams) or is garbage: from used on, then.
	 */
	if ((uint16_t)(next - used) > (uint16_t)(avail - used))
		next = used;
	if ((uint16_t)(avail - used) > vq->num) {
		pr_guest_once("virtqueue: a ring taken over is inconsistent");
		vq->broken = true;
		return -EINVAL;
	}
	vq->last_avail_idx = next;
	vq->used_idx = used;
	vq->signalled_used = used;
	vq->filled = 0;
	vq->unpoppable = 0;
	vq->held_from = used;
	return 0;
}

/* Copy descriptor i of a table once; the guest may change it meanwhile. */
static void virtq_desc_read(const uint8_t *table, uint32_t i,
			    struct virtq_desc *d)
{
	memcpy(d, table + (size_t)i * VIRTQ_DESC_SIZE, sizeof(*d));
	d->addr = le64toh(d->addr);
	d->len = le32toh(d->len);
	d->flags = le16toh(d->flags);
	d->next = le16toh(d->next);
}

/* Switch the walk to the indirect table described by d. */
static int virtq_indirect(struct virtqueue *vq, const struct virtq_desc *d,
			  const uint8_t **table, uint32_t *table_num)
{
	if (!vq->indirect)
		return virtq_fail(vq, "virtqueue: indirect not negotiated");
	if (d->flags & VIRTQ_DESC_F_NEXT)
		return virtq_fail(vq, "virtqueue: indirect with NEXT");
	/* A chain is at most num long (§2.7.5.3.1), so is its table. */
	if (!d->len || d->len % VIRTQ_DESC_SIZE ||
	    d->len / VIRTQ_DESC_SIZE > vq->num)
		return virtq_fail(vq, "virtqueue: bad indirect length %u",
				  d->len);
	*table = guest_mem_ptr(vq->mem, d->addr, d->len);
	if (!*table)
		return virtq_fail(vq, "virtqueue: indirect table outside RAM");
	*table_num = d->len / VIRTQ_DESC_SIZE;
	return 0;
}

/*
 * Add one buffer descriptor to the chain.  The readable-before-writable
 * rule (§2.7.4.2) also applies to zero-length buffers, which are otherwise
 * skipped (their address is never used).
 */
static int virtq_add_buf(struct virtqueue *vq, const struct virtq_desc *d,
			 struct virtq_chain *c, bool *seen_writable)
{
	bool writable = d->flags & VIRTQ_DESC_F_WRITE;
	struct virtq_seg *s;
	uint8_t *p;

	if (!writable && *seen_writable)
		return virtq_fail(vq, "virtqueue: readable after writable");
	*seen_writable |= writable;
	if (!d->len)
		return 0;
	if (c->nr_segs == VIRTQ_CHAIN_MAX_SEGS)
		return virtq_fail(vq, "virtqueue: more than %d buffers",
				  VIRTQ_CHAIN_MAX_SEGS);
	p = guest_mem_ptr(vq->mem, d->addr, d->len);
	if (!p)
		return virtq_fail(vq, "virtqueue: buffer outside RAM");
	s = &c->segs[c->nr_segs++];
	s->addr = p;
	s->len = d->len;
	s->writable = writable;
	if (writable) {
		c->writable_len += d->len;
	} else {
		c->nr_readable++;
		c->readable_len += d->len;
	}
	return 0;
}

/*
 * Walk the chain from head.  At most num buffer descriptors are visited in
 * total (direct and indirect), plus at most one descriptor pointing to an
 * indirect table, so the walk always ends.
 */
static int virtq_walk(struct virtqueue *vq, uint16_t head,
		      struct virtq_chain *c)
{
	const uint8_t *table = vq->desc;
	uint32_t table_num = vq->num, ttl = vq->num, i = head;
	bool in_indirect = false, seen_writable = false;
	struct virtq_desc d;
	int ret;

	memset(c, 0, offsetof(struct virtq_chain, segs));
	c->head = head;
	if (head >= vq->num)
		return virtq_fail(vq, "virtqueue: head %u out of range", head);
	for (;;) {
		virtq_desc_read(table, i, &d);
		if (d.flags & VIRTQ_DESC_F_INDIRECT) {
			if (in_indirect)
				return virtq_fail(vq,
						  "virtqueue: nested indirect");
			ret = virtq_indirect(vq, &d, &table, &table_num);
			if (ret)
				return ret;
			in_indirect = true;
			i = 0;
			continue;
		}
		if (!ttl--)
			return virtq_fail(vq, "virtqueue: chain loops or is "
					      "longer than the queue");
		ret = virtq_add_buf(vq, &d, c, &seen_writable);
		if (ret)
			return ret;
		if (!(d.flags & VIRTQ_DESC_F_NEXT))
			return 0;
		if (d.next >= table_num)
			return virtq_fail(vq, "virtqueue: next %u out of range",
					  d.next);
		i = d.next;
	}
}

/* avail->idx, or the same value as last_avail_idx when empty. */
static uint16_t virtq_avail_poll(struct virtqueue *vq)
{
	uint16_t idx = virtq_avail_idx(vq);

	if (idx != vq->last_avail_idx || !vq->event_idx || vq->polling)
		return idx;
	/* Ask for a notification at the next entry, then look again. */
	virtq_store16(virtq_avail_event(vq), vq->last_avail_idx,
		      __ATOMIC_RELAXED);
	atomic_thread_fence(memory_order_seq_cst);
	return virtq_avail_idx(vq);
}

int virtq_pop(struct virtqueue *vq, struct virtq_chain *chain)
{
	uint16_t idx, head;

	if (vq->broken)
		return -EIO;
	if (!vq->ready || vq->held)
		return 0;
	idx = virtq_avail_poll(vq);
	if (idx == vq->last_avail_idx)
		return 0;
	if ((uint16_t)(idx - vq->last_avail_idx) > vq->num)
		return virtq_fail(vq, "virtqueue: avail index moved %u ahead",
				  (uint16_t)(idx - vq->last_avail_idx));
	head = virtq_avail_ring(vq, vq->last_avail_idx);
	vq->last_avail_idx++;
	if (virtq_walk(vq, head, chain))
		return -EIO;
	if (vq->unpoppable < vq->num)
		vq->unpoppable++;
	return 1;
}

int virtq_pop_n(struct virtqueue *vq, struct virtq_chain *chains,
		unsigned int n)
{
	unsigned int k;
	int ret;

	if (vq->broken)
		return -EIO;
	if (n > vq->num)
		n = vq->num;
	for (k = 0; k < n; k++) {
		ret = virtq_pop(vq, &chains[k]);
		if (ret < 0)
			return ret;
		if (!ret)
			break;
	}
	return k;
}

static bool virtq_usable(const struct virtqueue *vq)
{
	return vq->ready && !vq->broken;
}

int virtq_unpop(struct virtqueue *vq, unsigned int n)
{
	if (!virtq_usable(vq))
		return -EIO;
	if (n > vq->unpoppable)
		return -EINVAL;
	vq->last_avail_idx -= n;
	vq->unpoppable -= n;
	return 0;
}

/* Where used element i goes: the ring, or while held the host copy. */
static uint8_t *virtq_used_elem(const struct virtqueue *vq, uint8_t *ring,
				uint16_t i)
{
	return ring + VIRTQ_USED_ELEM_SIZE * (i & (vq->num - 1));
}

int virtq_fill(struct virtqueue *vq, uint16_t head, uint32_t len,
	       unsigned int off)
{
	uint16_t i = vq->used_idx + off;
	uint8_t *elem;
	uint32_t v;

	if (!virtq_usable(vq))
		return -EIO;
	if (head >= vq->num || off > vq->filled || off >= vq->num)
		return -EINVAL;
	if (vq->held && !vq->held_used) {
		vq->held_used = calloc(vq->num, VIRTQ_USED_ELEM_SIZE);
		if (!vq->held_used) {
			pr_once(LOG_ERR, "virtqueue: no memory to hold a "
					 "used element: chain lost");
			return -ENOMEM;
		}
	}
	elem = vq->held ? virtq_used_elem(vq, vq->held_used, i) :
			  virtq_used_elem(vq, vq->used + 4, i);
	v = htole32(head);
	memcpy(elem, &v, 4);
	v = htole32(len);
	memcpy(elem + 4, &v, 4);
	if (off == vq->filled)
		vq->filled++;
	vq->unpoppable = 0;
	return 0;
}

int virtq_flush(struct virtqueue *vq, unsigned int n)
{
	if (!virtq_usable(vq))
		return -EIO;
	if (n > vq->filled)
		return -EINVAL;
	if (!n)
		return 0;
	vq->filled -= n;
	vq->used_idx += n;
	if (!vq->held)
		virtq_store16(vq->used + 2, vq->used_idx, __ATOMIC_RELEASE);
	return 0;
}

void virtq_hold(struct virtqueue *vq)
{
	if (vq->held)
		return;
	if (virtq_usable(vq) && vq->filled)
		virtq_flush(vq, vq->filled);
	vq->held = true;
	vq->held_from = vq->used_idx;
}

unsigned int virtq_unhold(struct virtqueue *vq)
{
	uint16_t n = vq->used_idx - vq->held_from;
	uint16_t end = vq->used_idx + vq->filled;

	if (!vq->held)
		return 0;
	vq->held = false;
	if (!virtq_usable(vq) || !vq->held_used) {
		n = 0;
	} else {
		for (uint16_t i = vq->held_from; i != end; i++)
			memcpy(virtq_used_elem(vq, vq->used + 4, i),
			       virtq_used_elem(vq, vq->held_used, i),
			       VIRTQ_USED_ELEM_SIZE);
		if (n)
			virtq_store16(vq->used + 2, vq->used_idx,
				      __ATOMIC_RELEASE);
	}
	free(vq->held_used);
	vq->held_used = NULL;
	return n;
}

int virtq_push(struct virtqueue *vq, uint16_t head, uint32_t len)
{
	int ret;

	if (virtq_usable(vq) && vq->filled)
		return -EBUSY;
	ret = virtq_fill(vq, head, len, 0);
	return ret ?: virtq_flush(vq, 1);
}

/*
 * §2.7.10: notify when used_event lies in [old, new), the entries filled
 * since the last check, computed modulo 2^16: new - used_event - 1 is then
 * smaller than new - old.
 */
static bool virtq_event_crossed(uint16_t event, uint16_t new, uint16_t old)
{
	return (uint16_t)(new - event - 1) < (uint16_t)(new - old);
}

bool virtq_need_notify(struct virtqueue *vq)
{
	uint16_t old = vq->signalled_used, new = vq->used_idx, flags, event;

	if (!vq->ready || vq->held)
		return false;
	vq->signalled_used = new;
	atomic_thread_fence(memory_order_seq_cst);
	if (vq->event_idx) {
		event = virtq_load16(virtq_used_event(vq), __ATOMIC_RELAXED);
		return virtq_event_crossed(event, new, old);
	}
	flags = virtq_load16(vq->avail, __ATOMIC_RELAXED);
	return new != old && !(flags & VIRTQ_AVAIL_F_NO_INTERRUPT);
}

/* --- bounded copy cursors ------------------------------------------- */

static void virtq_iter_init(struct virtq_iter *it, const struct virtq_chain *c,
			    unsigned int first, unsigned int end, uint64_t len)
{
	it->chain = c;
	it->seg = first;
	it->end = end;
	it->off = 0;
	it->remaining = len;
	it->done = 0;
}

/* Next span of the current segment, at most max bytes; NULL at the end. */
static uint8_t *virtq_iter_span(const struct virtq_iter *it, size_t max,
				size_t *len)
{
	const struct virtq_seg *s;
	size_t n;

	if (it->seg >= it->end)
		return NULL;
	s = &it->chain->segs[it->seg];
	n = s->len - it->off;
	*len = n < max ? n : max;
	return s->addr + it->off;
}

static void virtq_iter_advance(struct virtq_iter *it, size_t n)
{
	it->off += n;
	it->remaining -= n;
	it->done += n;
	if (it->off == it->chain->segs[it->seg].len) {
		it->seg++;
		it->off = 0;
	}
}

void virtq_reader_init(struct virtq_reader *r, const struct virtq_chain *c)
{
	virtq_iter_init(&r->it, c, 0, c->nr_readable, c->readable_len);
}

size_t virtq_reader_read(struct virtq_reader *r, void *buf, size_t len)
{
	uint8_t *dst = buf;
	size_t done = 0, n;
	const uint8_t *src;

	while (done < len) {
		src = virtq_iter_span(&r->it, len - done, &n);
		if (!src)
			break;
		memcpy(dst + done, src, n);
		virtq_iter_advance(&r->it, n);
		done += n;
	}
	return done;
}

uint64_t virtq_reader_skip(struct virtq_reader *r, uint64_t len)
{
	uint64_t done = 0, want;
	size_t n;

	while (done < len) {
		want = len - done;
		if (!virtq_iter_span(&r->it, want < SIZE_MAX ? want : SIZE_MAX,
				     &n))
			break;
		virtq_iter_advance(&r->it, n);
		done += n;
	}
	return done;
}

uint64_t virtq_reader_remaining(const struct virtq_reader *r)
{
	return r->it.remaining;
}

void virtq_writer_init(struct virtq_writer *w, const struct virtq_chain *c)
{
	virtq_iter_init(&w->it, c, c->nr_readable, c->nr_segs, c->writable_len);
}

size_t virtq_writer_write(struct virtq_writer *w, const void *buf, size_t len)
{
	const uint8_t *src = buf;
	size_t done = 0, n;
	uint8_t *dst;

	while (done < len) {
		dst = virtq_iter_span(&w->it, len - done, &n);
		if (!dst)
			break;
		memcpy(dst, src + done, n);
		virtq_iter_advance(&w->it, n);
		done += n;
	}
	return done;
}

uint64_t virtq_writer_remaining(const struct virtq_writer *w)
{
	return w->it.remaining;
}

uint32_t virtq_writer_written(const struct virtq_writer *w)
{
	return w->it.done > UINT32_MAX ? UINT32_MAX : (uint32_t)w->it.done;
}
