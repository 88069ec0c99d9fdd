/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one hardened split virtqueue (virtio 1.2 §2.7), device side.
 *
 * Every virtio device uses this; devices never see raw guest addresses.
 * The driver (guest) owns the rings; everything read from them is
 * untrusted and read once into host variables before it is checked:
 *  - at activation the ring addresses, alignments, sizes and the full
 *    extent of each ring (incl. used_event/avail_event) are checked against
 *    guest RAM, so later ring accesses need no checks;
 *  - popping checks that avail->idx moved at most num entries, that every
 *    descriptor index is < the table size, walks at most num buffer
 *    descriptors in total (loops end there), allows one indirect table of
 *    1..num entries (no nesting), resolves every buffer through
 *    guest_mem_ptr() and wants device-readable buffers before writable ones.
 * A violation logs once per cause, marks the queue broken and makes every
 * later call fail; the transport then reports DEVICE_NEEDS_RESET.  Only a
 * reset (virtq_reset + virtq_activate) clears it.
 *
 * Bounds: a queue has at most VIRTQ_MAX_SIZE entries (the spec's maximum);
 * a chain has at most min(num, VIRTQ_CHAIN_MAX_SEGS) non-empty buffers.
 * Devices with queues longer than VIRTQ_CHAIN_MAX_SEGS must advertise a
 * per-request segment limit below it (e.g. virtio-blk seg_max).
 *
 * Returning chains: virtq_push() publishes one used element; virtq_fill()
 * writes elements without publishing them and virtq_flush() publishes a
 * batch with one used->idx store (a merged receive frame becomes visible
 * at once); virtq_unpop() gives back chains popped but not yet returned.
 * The queue counts filled elements and unreturned pops, so a device can
 * neither publish an element it did not fill nor give back more than it
 * holds (-EINVAL, the queue stays usable: that is a host bug, not the
 * guest's).  Devices never write ring memory themselves.
 *
 * Holding (the transport forbids DMA, e.g. PCI bus mastering is off):
 * while vq->held the queue touches no ring memory.  virtq_pop() finds
 * nothing, virtq_need_notify() says no, and the elements of chains
 * returned meanwhile (chains popped before the hold, still in flight) are
 * kept in a host copy; virtq_unhold() writes and publishes them, in
 * order.  The hold belongs to the transport: virtq_reset() keeps it (and
 * drops the elements kept).
 *
 * Not thread safe: the owner (the transport's lock) serialises all calls.
 */
#ifndef RVKVM_VIRTQUEUE_H
#define RVKVM_VIRTQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/guest_mem.h"

#define VIRTQ_MAX_SIZE 32768
#define VIRTQ_CHAIN_MAX_SEGS 256

#define VIRTQ_DESC_F_NEXT 1
#define VIRTQ_DESC_F_WRITE 2
#define VIRTQ_DESC_F_INDIRECT 4
#define VIRTQ_AVAIL_F_NO_INTERRUPT 1
#define VIRTQ_USED_F_NO_NOTIFY 1

/* Ring layout (§2.7): sizes in bytes and required alignments. */
#define VIRTQ_DESC_SIZE 16
#define VIRTQ_USED_ELEM_SIZE 8
#define VIRTQ_DESC_ALIGN 16
#define VIRTQ_AVAIL_ALIGN 2
#define VIRTQ_USED_ALIGN 4

/* flags, idx, ring[num], used_event */
static inline uint64_t virtq_avail_bytes(uint32_t num)
{
	return 6 + 2ULL * num;
}

/* flags, idx, ring[num], avail_event */
static inline uint64_t virtq_used_bytes(uint32_t num)
{
	return 6 + (uint64_t)VIRTQ_USED_ELEM_SIZE * num;
}

struct virtqueue {
	const struct guest_mem *mem;
	uint32_t num_max; /* QueueNumMax: power of 2, <= VIRTQ_MAX_SIZE */

	/* Written by the driver through the transport while !ready. */
	uint32_t num;
	uint64_t desc_gpa, avail_gpa, used_gpa;
	bool event_idx; /* VIRTIO_F_EVENT_IDX negotiated */
	bool indirect;	/* VIRTIO_F_INDIRECT_DESC negotiated */

	/* Device state; the host pointers are valid while ready. */
	bool ready;
	bool broken;
	uint16_t last_avail_idx; /* next avail entry to pop */
	uint16_t used_idx;	 /* next used entry to publish */
	uint16_t signalled_used; /* used_idx at the last notify check */
	uint16_t filled; /* entries written at used_idx + 0.. not published */
	uint16_t unpoppable; /* chains popped since the last fill (<= num) */
	/*
	 * The device polls the ring (EVENT_IDX only): an empty ring leaves
	 * avail_event where it is, so the driver does not notify.
	 */
	bool polling;
	uint8_t *desc, *avail, *used;
	/* See "Holding" above; held_used: num elements, on the first fill. */
	bool held;
	uint16_t held_from; /* used_idx when the hold began */
	uint8_t *held_used;
};

/* One non-empty guest buffer of a chain. */
struct virtq_seg {
	uint8_t *addr; /* host pointer, [addr, addr + len) is RAM */
	uint32_t len;  /* > 0 */
	bool writable; /* device-writable */
};

/*
 * A popped descriptor chain: segs[0, nr_readable) are device-readable,
 * segs[nr_readable, nr_segs) device-writable.  Zero-length buffers are
 * accepted and left out.  Devices access the buffers through the reader
 * and writer below, not through segs.  About 4 KiB: embed it in the
 * device, do not put it on small stacks.
 */
struct virtq_chain {
	uint16_t head; /* id to give back to virtq_push() */
	unsigned int nr_segs;
	unsigned int nr_readable;
	uint64_t readable_len; /* sum of readable segment lengths */
	uint64_t writable_len; /* sum of writable segment lengths */
	struct virtq_seg segs[VIRTQ_CHAIN_MAX_SEGS];
};

/* Bounded copy cursors over a chain's readable or writable part. */
struct virtq_iter {
	const struct virtq_chain *chain;
	unsigned int seg, end; /* current and one-past-last segment */
	uint32_t off;	       /* offset in the current segment */
	uint64_t remaining;    /* bytes left in [seg, end) */
	uint64_t done;	       /* bytes copied so far */
};

struct virtq_reader {
	struct virtq_iter it;
};

struct virtq_writer {
	struct virtq_iter it;
};

/*
 * Take over a ready ring another context served (a vhost-user daemon
 * that died): the used index it published becomes the device's, and the
 * next entry to pop is where it stopped popping: the avail_event it left
 * in the used ring (with EVENT_IDX: QEMU's back-ends set it to their next
 * entry at every pop), when that lies between the used index and
 * avail->idx; else (no EVENT_IDX, or one left behind: rust-vmm's back-ends
 * set it only when they turn notifications back on) the used index, so
 * the requests it popped but never completed are answered too.  -EINVAL
 * (the queue broken) when used and avail->idx are more than the ring
 * apart.
 */
int virtq_adopt(struct virtqueue *vq);

/* Power-on state: not ready, addresses 0, num = num_max. */
void virtq_init(struct virtqueue *vq, const struct guest_mem *mem,
		uint32_t num_max);

/*
 * Back to the power-on state (keeps mem, num_max and the hold; frees the
 * held elements).
 */
void virtq_reset(struct virtqueue *vq);

/*
 * Start holding (see above).  Elements filled but not flushed yet (none
 * when the owner holds only between its passes) are published first.
 */
void virtq_hold(struct virtqueue *vq);

/*
 * Stop holding: the elements returned meanwhile go to the used ring and
 * the published ones become visible with one release store.  Returns how
 * many were published (then see virtq_need_notify()).
 */
unsigned int virtq_unhold(struct virtqueue *vq);

/*
 * QueueReady = 1: check num and the three rings (see above), then start
 * with both indices at 0.  -EINVAL (logged once) when anything is wrong;
 * the queue then stays not ready.
 */
int virtq_activate(struct virtqueue *vq);

/*
 * Take the next available chain.  Returns 1 with *chain filled, 0 when the
 * ring is empty or the queue is not ready, -EIO when the queue is (or just
 * became) broken.  With EVENT_IDX, an empty ring publishes avail_event =
 * last_avail_idx and checks again, so no driver notification is lost;
 * not while vq->polling, so the driver stays quiet while the device polls
 * (the device clears it and pops once more before it stops).
 */
int virtq_pop(struct virtqueue *vq, struct virtq_chain *chain);

/*
 * Take up to n (at most num) chains into chains[0..]: the count taken
 * (0 when empty or not ready), or -EIO when the queue is (or became)
 * broken, in which case the chains taken are void too.
 */
int virtq_pop_n(struct virtqueue *vq, struct virtq_chain *chains,
		unsigned int n);

/*
 * Give back the last n chains popped, to be popped (and walked and checked)
 * again later, e.g. a receive frame that does not fit yet.  Only chains
 * popped since the last virtq_fill()/virtq_push() can be given back, since
 * the queue cannot tell which of the earlier ones are already used.
 * -EIO if not ready or broken, -EINVAL (nothing done) for more than that.
 * avail_event is left alone: a device that waits for more buffers before
 * popping again relies on a virtq_pop() that returned 0, which asked the
 * driver for a notification at the next entry.
 */
int virtq_unpop(struct virtqueue *vq, unsigned int n);

/*
 * Write used element used_idx + off = (head, len = bytes written) without
 * publishing it (while held: into the host copy; -ENOMEM when it cannot
 * be allocated).  Elements are filled without holes: off may be at most
 * the number already filled (off < that rewrites an element), and < num.
 * -EIO if not ready or broken, -EINVAL (nothing written) for a bad head
 * or off.
 */
int virtq_fill(struct virtqueue *vq, uint16_t head, uint32_t len,
	       unsigned int off);

/*
 * Publish the first n filled elements with one release store of the used
 * index; later filled ones move to off 0...  -EIO if not ready or broken,
 * -EINVAL (nothing published) for n larger than the number filled.
 */
int virtq_flush(struct virtqueue *vq, unsigned int n);

/*
 * Return one chain: virtq_fill() at off 0, then virtq_flush() of 1.
 * -EIO if not ready or broken, -EINVAL for head >= num, -EBUSY while
 * filled elements wait for a flush.
 */
int virtq_push(struct virtqueue *vq, uint16_t head, uint32_t len);

/*
 * After one or more pushes or flushes: does the driver want a used-buffer
 * notification for the entries published since the last call?  EVENT_IDX:
 * used_event (§2.7.10), otherwise VIRTQ_AVAIL_F_NO_INTERRUPT.
 */
bool virtq_need_notify(struct virtqueue *vq);

void virtq_reader_init(struct virtq_reader *r, const struct virtq_chain *c);
/* Copy up to len bytes out of the readable segments; returns the count. */
size_t virtq_reader_read(struct virtq_reader *r, void *buf, size_t len);
/* Step over up to len readable bytes without copying; returns the count. */
uint64_t virtq_reader_skip(struct virtq_reader *r, uint64_t len);
uint64_t virtq_reader_remaining(const struct virtq_reader *r);

void virtq_writer_init(struct virtq_writer *w, const struct virtq_chain *c);
/* Copy up to len bytes into the writable segments; returns the count. */
size_t virtq_writer_write(struct virtq_writer *w, const void *buf, size_t len);
uint64_t virtq_writer_remaining(const struct virtq_writer *w);
/* Bytes written so far: the len for virtq_push(). */
uint32_t virtq_writer_written(const struct virtq_writer *w);

#endif
