// SPDX-License-Identifier: GPL-2.0
/* virtio-blk device core; see blk.h. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "virtio/blk.h"
#include "lib/log.h"

/* One request being decoded: the chain's cursors and the header. */
struct blk_req {
	const struct virtio_blk_disk *disk;
	struct virtio_blk_io *io;
	struct virtq_reader r; /* positioned after the header */
	struct virtq_writer w; /* GET_ID goes here; the status byte is last */
	const struct virtq_chain *chain;
	bool writethrough;
	uint32_t type;
	uint64_t sector;
	uint64_t data_len; /* IN/GET_ID: writable - 1; others: readable */
};

/* A DISCARD / WRITE_ZEROES segment, decoded. */
struct blk_dwz_seg {
	uint64_t sector;
	uint32_t num;
	uint32_t flags;
};

void virtio_blk_disk_set_id(struct virtio_blk_disk *disk, const char *s)
{
	memset(disk->id, 0, sizeof(disk->id));
	if (s)
		memcpy(disk->id, s, strnlen(s, sizeof(disk->id)));
}

/* The bytes the guest sees: whole sectors only. */
static uint64_t blk_disk_bytes(const struct virtio_blk_disk *disk)
{
	return disk->size & ~(uint64_t)(VIRTIO_BLK_SECTOR - 1);
}

/* Is [sector * 512, + len) inside the disk?  Overflow-safe. */
static bool blk_range_ok(const struct virtio_blk_disk *disk, uint64_t sector,
			 uint64_t len)
{
	uint64_t bytes = blk_disk_bytes(disk);

	if (sector > bytes / VIRTIO_BLK_SECTOR)
		return false;
	return len <= bytes - sector * VIRTIO_BLK_SECTOR;
}

static bool blk_refuse_ro(const struct blk_req *rq)
{
	if (!rq->disk->read_only)
		return false;
	pr_guest_once("virtio-blk: write request to a read-only disk");
	return true;
}

/* IN/OUT: whole sectors inside the disk, at most the advertised size. */
static bool blk_rw_ok(const struct blk_req *rq)
{
	if (rq->data_len % VIRTIO_BLK_SECTOR) {
		pr_guest_once("virtio-blk: data length not a multiple of 512");
		return false;
	}
	if (rq->data_len > VIRTIO_BLK_REQ_MAX) {
		pr_guest_once("virtio-blk: request above size_max * seg_max");
		return false;
	}
	if (!blk_range_ok(rq->disk, rq->sector, rq->data_len)) {
		pr_guest_once("virtio-blk: request beyond the end of the disk");
		return false;
	}
	return true;
}

/*
 * io->iov: bytes [skip, skip + len) of the chain's readable (or writable)
 * part, the guest's buffers themselves.
 */
static void blk_iov(struct virtio_blk_io *io, const struct virtq_chain *c,
		    bool writable, uint64_t skip, uint64_t len)
{
	unsigned int i = writable ? c->nr_readable : 0;
	unsigned int end = writable ? c->nr_segs : c->nr_readable;

	io->iovcnt = 0;
	for (; i < end && len; i++) {
		uint64_t n = c->segs[i].len;

		if (skip >= n) {
			skip -= n;
			continue;
		}
		n -= skip;
		if (n > len)
			n = len;
		io->iov[io->iovcnt++] = (struct iovec){
			.iov_base = c->segs[i].addr + skip,
			.iov_len = n,
		};
		len -= n;
		skip = 0;
	}
}

static uint8_t blk_rw(struct blk_req *rq, bool write)
{
	struct virtio_blk_io *io = rq->io;

	if ((write && blk_refuse_ro(rq)) || !blk_rw_ok(rq))
		return VIRTIO_BLK_S_IOERR;
	if (!rq->data_len)
		return VIRTIO_BLK_S_OK; /* nothing to move */
	io->op = write ? VIRTIO_BLK_OP_WRITE : VIRTIO_BLK_OP_READ;
	io->off = rq->sector * VIRTIO_BLK_SECTOR;
	io->len = rq->data_len;
	io->flush_after = write && rq->writethrough;
	if (write)
		blk_iov(io, rq->chain, false, VIRTIO_BLK_REQ_HDR_SIZE,
			rq->data_len);
	else
		blk_iov(io, rq->chain, true, 0, rq->data_len);
	return VIRTIO_BLK_S_OK;
}

static uint8_t blk_get_id(struct blk_req *rq)
{
	size_t n = rq->data_len < VIRTIO_BLK_ID_BYTES ? rq->data_len :
							VIRTIO_BLK_ID_BYTES;

	virtq_writer_write(&rq->w, rq->disk->id, n);
	return VIRTIO_BLK_S_OK;
}

/* Read and check the segment(s); returns the status and fills segs. */
static uint8_t blk_dwz_parse(struct blk_req *rq, bool discard,
			     struct blk_dwz_seg *segs, unsigned int *nr)
{
	uint32_t max = discard ? VIRTIO_BLK_MAX_DISCARD_SECTORS :
				 VIRTIO_BLK_MAX_WZ_SECTORS;
	uint8_t raw[VIRTIO_BLK_DWZ_SEG_SIZE];
	struct blk_dwz_seg *s;

	if (!rq->data_len || rq->data_len % VIRTIO_BLK_DWZ_SEG_SIZE ||
	    rq->data_len > VIRTIO_BLK_MAX_DWZ_SEG * VIRTIO_BLK_DWZ_SEG_SIZE) {
		pr_guest_once("virtio-blk: bad discard/write-zeroes segments");
		return VIRTIO_BLK_S_IOERR;
	}
	*nr = rq->data_len / VIRTIO_BLK_DWZ_SEG_SIZE;
	for (s = segs; s < segs + *nr; s++) {
		virtq_reader_read(&rq->r, raw, sizeof(raw));
		s->sector = mmio_data_get(raw, 8);
		s->num = mmio_data_get(raw + 8, 4);
		s->flags = mmio_data_get(raw + 12, 4);
		if ((s->flags & ~VIRTIO_BLK_DWZ_F_UNMAP) ||
		    (discard && s->flags)) {
			pr_guest_once("virtio-blk: unsupported segment flags");
			return VIRTIO_BLK_S_UNSUPP;
		}
		if (s->num > max ||
		    !blk_range_ok(rq->disk, s->sector,
				  (uint64_t)s->num * VIRTIO_BLK_SECTOR)) {
			pr_guest_once(
				"virtio-blk: bad discard/write-zeroes range");
			return VIRTIO_BLK_S_IOERR;
		}
	}
	return VIRTIO_BLK_S_OK;
}

static uint8_t blk_dwz(struct blk_req *rq)
{
	const struct virtio_blk_disk_ops *ops = rq->disk->ops;
	bool discard = rq->type == VIRTIO_BLK_T_DISCARD;
	struct blk_dwz_seg segs[VIRTIO_BLK_MAX_DWZ_SEG];
	unsigned int nr;
	uint8_t status;

	if (!(discard ? ops->discard : ops->write_zeroes)) {
		pr_guest_once("virtio-blk: discard/write-zeroes not offered");
		return VIRTIO_BLK_S_UNSUPP;
	}
	if (blk_refuse_ro(rq))
		return VIRTIO_BLK_S_IOERR;
	status = blk_dwz_parse(rq, discard, segs, &nr);
	if (status != VIRTIO_BLK_S_OK || !segs[0].num)
		return status;
	rq->io->op =
		discard ? VIRTIO_BLK_OP_DISCARD : VIRTIO_BLK_OP_WRITE_ZEROES;
	rq->io->off = segs[0].sector * VIRTIO_BLK_SECTOR;
	rq->io->len = (uint64_t)segs[0].num * VIRTIO_BLK_SECTOR;
	rq->io->flush_after = rq->writethrough;
	return VIRTIO_BLK_S_OK;
}

static uint8_t blk_dispatch(struct blk_req *rq)
{
	switch (rq->type) {
	case VIRTIO_BLK_T_IN:
		return blk_rw(rq, false);
	case VIRTIO_BLK_T_OUT:
		return blk_rw(rq, true);
	case VIRTIO_BLK_T_FLUSH:
		rq->io->op = VIRTIO_BLK_OP_FLUSH;
		return VIRTIO_BLK_S_OK;
	case VIRTIO_BLK_T_GET_ID:
		return blk_get_id(rq);
	case VIRTIO_BLK_T_DISCARD:
	case VIRTIO_BLK_T_WRITE_ZEROES:
		return blk_dwz(rq);
	}
	pr_guest_once("virtio-blk: unsupported request type %u", rq->type);
	return VIRTIO_BLK_S_UNSUPP;
}

/* The last device-writable byte of a chain with writable_len > 0. */
static uint8_t *blk_status_byte(const struct virtq_chain *c)
{
	const struct virtq_seg *last = &c->segs[c->nr_segs - 1];

	return last->addr + last->len - 1;
}

/*
 * Decode the request in req->chain into req->io (op NONE when nothing is
 * left to do), its status byte and used length.  false: no status byte
 * (the chain is returned untouched).
 */
static bool blk_decode(struct virtio_blk *blk, struct virtio_blk_req *req)
{
	const struct virtq_chain *chain = &req->chain;
	struct blk_req rq = { .disk = &blk->disk,
			      .io = &req->io,
			      .chain = chain,
			      .writethrough = blk->writethrough };
	uint8_t hdr[VIRTIO_BLK_REQ_HDR_SIZE], status = VIRTIO_BLK_S_IOERR;
	uint64_t written;

	req->io = (struct virtio_blk_io){ .op = VIRTIO_BLK_OP_NONE };
	req->status = NULL;
	req->used_len = 0;
	if (!chain->writable_len) {
		pr_guest_once("virtio-blk: request without a status byte");
		return false;
	}
	virtq_reader_init(&rq.r, chain);
	virtq_writer_init(&rq.w, chain);
	if (virtq_reader_read(&rq.r, hdr, sizeof(hdr)) == sizeof(hdr)) {
		rq.type = mmio_data_get(hdr, 4);
		rq.sector = mmio_data_get(hdr + 8, 8);
		if (rq.type == VIRTIO_BLK_T_IN ||
		    rq.type == VIRTIO_BLK_T_GET_ID)
			rq.data_len = chain->writable_len - 1;
		else
			rq.data_len = virtq_reader_remaining(&rq.r);
		status = blk_dispatch(&rq);
	} else {
		pr_guest_once("virtio-blk: request header too short");
	}
	if (status != VIRTIO_BLK_S_OK)
		req->io.op = VIRTIO_BLK_OP_NONE;
	req->status = blk_status_byte(chain);
	*req->status = status;
	written = (uint64_t)virtq_writer_written(&rq.w) + 1;
	if (req->io.op == VIRTIO_BLK_OP_READ)
		written += req->io.len;
	req->used_len = written > UINT32_MAX ? UINT32_MAX : written;
	return true;
}

/* --- the backend call ---------------------------------------------------- */

static int blk_exec_rw(const struct virtio_blk_disk *d,
		       const struct virtio_blk_io *io)
{
	ssize_t n;

	if (io->op == VIRTIO_BLK_OP_READ)
		n = d->ops->readv(d->opaque, io->iov, io->iovcnt, io->off);
	else
		n = d->ops->writev(d->opaque, io->iov, io->iovcnt, io->off);
	if (n < 0)
		return n;
	return (uint64_t)n == io->len ? 0 : -EIO;
}

void virtio_blk_exec(const struct virtio_blk_disk *disk,
		     struct virtio_blk_io *io)
{
	const struct virtio_blk_disk_ops *ops = disk->ops;

	io->flush_failed = false;
	switch (io->op) {
	case VIRTIO_BLK_OP_READ:
	case VIRTIO_BLK_OP_WRITE:
		io->res = blk_exec_rw(disk, io);
		break;
	case VIRTIO_BLK_OP_DISCARD:
		io->res = ops->discard(disk->opaque, io->off, io->len);
		break;
	case VIRTIO_BLK_OP_WRITE_ZEROES:
		io->res = ops->write_zeroes(disk->opaque, io->off, io->len);
		break;
	case VIRTIO_BLK_OP_FLUSH:
		io->res = ops->flush ? ops->flush(disk->opaque) : 0;
		io->flush_failed = io->res < 0;
		return;
	default:
		io->res = 0;
		return;
	}
	if (!io->res && io->flush_after && ops->flush) {
		io->res = ops->flush(disk->opaque);
		io->flush_failed = io->res < 0;
	}
}

/* --- the device: slots, submission and completion ------------------------ */

static const char *const blk_op_names[] = {
	"none", "read", "write", "flush", "discard", "write-zeroes",
};

/* Each distinct (operation, error) of the host is logged once. */
static void blk_log_error(struct virtio_blk *blk,
			  const struct virtio_blk_io *io)
{
	uint8_t op = io->flush_failed ? VIRTIO_BLK_OP_FLUSH : io->op;

	for (unsigned int i = 0; i < blk->nr_logged; i++)
		if (blk->logged[i].op == op && blk->logged[i].err == io->res)
			return;
	if (blk->nr_logged < sizeof(blk->logged) / sizeof(*blk->logged))
		blk->logged[blk->nr_logged++] = (typeof(blk->logged[0])){
			.op = op,
			.err = io->res,
		};
	else
		return;
	pr_warn("virtio-blk: disk %s failed: %s", blk_op_names[op],
		io->res == -EIO ? "I/O error or short transfer" :
				  strerror(-io->res));
}

static struct virtio_blk_req *blk_free_slot(struct virtio_blk *blk)
{
	for (unsigned int i = 0; i < VIRTIO_BLK_DEPTH; i++)
		if (!blk->reqs[i].busy)
			return &blk->reqs[i];
	return NULL;
}

/* Is a write submitted at or before seq still running? */
static bool blk_writes_before(const struct virtio_blk *blk, uint64_t seq)
{
	for (unsigned int i = 0; i < VIRTIO_BLK_DEPTH; i++) {
		const struct virtio_blk_req *r = &blk->reqs[i];

		if (r->busy && !r->parked && r->seq && r->seq <= seq)
			return true;
	}
	return false;
}

static bool blk_is_write(enum virtio_blk_op op)
{
	return op == VIRTIO_BLK_OP_WRITE || op == VIRTIO_BLK_OP_DISCARD ||
	       op == VIRTIO_BLK_OP_WRITE_ZEROES;
}

/* Return the slot's chain to the guest (unless reset since) and free it. */
static void blk_finish(struct virtio_blk *blk, struct virtio_blk_req *req)
{
	struct virtio_blk_io *io = &req->io;

	if (io->op != VIRTIO_BLK_OP_NONE && io->res < 0) {
		blk_log_error(blk, io);
		if (io->flush_failed)
			blk->flush_err = io->res;
	}
	if (req->gen == blk->gen) {
		if (io->op != VIRTIO_BLK_OP_NONE && io->res < 0) {
			*req->status = VIRTIO_BLK_S_IOERR;
			req->used_len = 1;
		}
		virtq_push(&blk->vm.core.queues[req->q], req->chain.head,
			   req->used_len);
	}
	req->busy = req->parked = false;
	req->seq = 0;
	blk->routes[req->q].inflight--;
	if (!--blk->inflight)
		pthread_cond_broadcast(&blk->drained);
}

/* Hand a decoded request to the engine, or run it here. */
static void blk_start(struct virtio_blk *blk, struct virtio_blk_req *req)
{
	struct virtio_blk_io *io = &req->io;
	struct virtio_blk_aio *a = blk->aio;

	req->parked = false;
	if (io->op == VIRTIO_BLK_OP_NONE || !a) {
		virtio_blk_exec(&blk->disk, io);
		blk_finish(blk, req);
		return;
	}
	io->inline_ok = !blk->polling;
	a->ops->submit(a, io);
}

/*
 * A decoded request: a flush waits for the writes before it; one after a
 * latched flush failure fails at once (as does a write-through write).
 */
static void blk_submit(struct virtio_blk *blk, struct virtio_blk_req *req)
{
	struct virtio_blk_io *io = &req->io;

	if (blk->flush_err && (io->op == VIRTIO_BLK_OP_FLUSH ||
			       (blk_is_write(io->op) && io->flush_after))) {
		*req->status = VIRTIO_BLK_S_IOERR;
		io->op = VIRTIO_BLK_OP_NONE;
	}
	if (blk_is_write(io->op))
		req->seq = ++blk->write_seq;
	if (io->op == VIRTIO_BLK_OP_FLUSH &&
	    blk_writes_before(blk, blk->write_seq)) {
		req->seq = 0;
		req->parked = true;
		req->io.off = blk->write_seq; /* the barrier */
		return;
	}
	blk_start(blk, req);
}

/* Start the parked flushes whose writes have all completed. */
static void blk_unpark(struct virtio_blk *blk)
{
	for (unsigned int i = 0; i < VIRTIO_BLK_DEPTH; i++) {
		struct virtio_blk_req *r = &blk->reqs[i];

		if (r->busy && r->parked && !blk_writes_before(blk, r->io.off))
			blk_start(blk, r);
	}
}

/* Pop one chain into a free slot and submit it: its data bytes, or -1. */
static int64_t blk_take(struct virtio_blk *blk, unsigned int q)
{
	struct virtio_blk_req *req = blk_free_slot(blk);
	struct virtqueue *vq = &blk->vm.core.queues[q];

	if (!req) {
		blk->starved = true; /* a completion must look again */
		return -1;
	}
	if (virtq_pop(vq, &req->chain) <= 0)
		return -1;
	req->q = q;
	blk->requests[q]++;
	req->gen = blk->gen;
	req->seq = 0;
	req->busy = true;
	req->parked = false;
	if (blk->inflight++)
		blk->overlapped++;
	if (blk->routes[q].inflight++)
		blk->routes[q].overlapped++;
	if (blk_decode(blk, req))
		blk_submit(blk, req);
	else
		blk_start(blk, req); /* no status byte: returned untouched */
	return req->io.len;
}

static void blk_rearm(struct virtio_blk *blk)
{
	uint64_t one = 1;

	if (blk->aio) {
		if (write(blk->aio->efd, &one, sizeof(one)) < 0)
			pr_once(LOG_WARN, "virtio-blk: eventfd: %s",
				strerror(errno));
	} else if (blk->rearm) {
		blk->rearm(blk->rearm_opaque);
	}
}

/*
 * Lock held: take chains from a live queue q within the budget; true when
 * the budget ran out with chains left.
 */
static bool blk_process(struct virtio_blk *blk, unsigned int q)
{
	bool budget = blk->aio || blk->rearm;
	uint64_t bytes = 0;
	unsigned int chains;
	int64_t n = 0;

	if (!virtio_mmio_queue_live(&blk->vm, q))
		return false;
	for (chains = 0; !budget || (chains < VIRTIO_BLK_BUDGET_CHAINS &&
				     bytes < VIRTIO_BLK_BUDGET_BYTES);
	     chains++) {
		n = blk_take(blk, q);
		if (n < 0)
			break;
		if (chains) { /* the guest had sent both */
			blk->overlapped++;
			blk->routes[q].overlapped++;
		}
		bytes += n;
	}
	return n >= 0;
}

static void blk_commit(struct virtio_blk *blk)
{
	if (blk->aio && blk->aio->ops->commit)
		blk->aio->ops->commit(blk->aio);
}

/*
 * Lock held: the engine's finished calls, in any order; true when there
 * were any.  drain: the eventfd woke the thread, read it; otherwise only
 * when the engine may have signalled it (no system call for nothing).
 */
static bool blk_reap(struct virtio_blk *blk, bool drain)
{
	struct virtio_blk_aio *a = blk->aio;
	struct virtio_blk_io *io, *next;
	bool any = false;
	uint64_t v;

	if (!a)
		return false;
	if ((drain || !a->ops->signalled || a->ops->signalled(a)) &&
	    read(a->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		pr_once(LOG_WARN, "virtio-blk: eventfd: %s", strerror(errno));
	io = a->ops->reap(a);
	for (; io; io = next) {
		next = io->next;
		any = true;
		blk_finish(blk,
			   (struct virtio_blk_req
				    *)((uint8_t *)io -
				       offsetof(struct virtio_blk_req, io)));
	}
	return any;
}

/*
 * Lock held, after a pass over the queues: hand the pass's requests to the
 * engine in one go, take what finished meanwhile (io_uring completes a
 * page-cache hit inside the submit: its interrupt goes out in this pass,
 * not after another wake-up of the I/O thread), start the flushes those
 * writes released, and interrupt the guest once per queue for all of it.
 * more: the budget ran out with chains left, so come back later; so too
 * when a pass found no free slot and slots are free now.
 */
static void blk_settle(struct virtio_blk *blk, bool more)
{
	unsigned int rounds = 0;

	blk_commit(blk);
	/*
	 * What finished may release parked flushes, which may finish inside
	 * their submit in turn: each round finishes one request at least.
	 */
	while (blk_reap(blk, false)) {
		blk_unpark(blk);
		blk_commit(blk);
		if (++rounds > VIRTIO_BLK_DEPTH) {
			more = true; /* the rest in the next pass */
			break;
		}
	}
	/*
	 * A pass found every slot busy, and the reap (which drained the
	 * eventfd) freed some: chains may wait that no notification or
	 * completion will announce any more.
	 */
	if (blk->starved && blk->inflight < VIRTIO_BLK_DEPTH) {
		blk->starved = false;
		more = true;
	}
	if (more)
		blk_rearm(blk); /* after the reap, which drains the eventfd */
	for (unsigned int q = 0; q < blk->vm.core.dev.num_queues; q++)
		virtio_mmio_signal_used(&blk->vm, q);
}

static uint64_t blk_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t blk_taken(const struct virtio_blk *blk)
{
	uint64_t n = 0;

	for (unsigned int q = 0; q < blk->vm.core.dev.num_queues; q++)
		n += blk->requests[q];
	return n;
}

/* Lock held; virtio_blk_busy_poll() peeks at it without the lock. */
static void blk_poll_until(struct virtio_blk *blk, uint64_t ns)
{
	__atomic_store_n(&blk->poll_until, ns, __ATOMIC_RELAXED);
}

/* Lock held: the guest showed more than one request out since the mark. */
static bool blk_deep(const struct virtio_blk *blk)
{
	return blk->overlapped != blk->overlap_mark;
}

/*
 * Lock held: windows go on for this guest: asked for always, depth shown
 * since the mark, or within the episode its depth opened.
 */
static bool blk_polls(const struct virtio_blk *blk, uint64_t now)
{
	return blk->poll_always || blk_deep(blk) || now < blk->deep_until;
}

/*
 * Lock held: the driver notified, and the pass that followed is done.
 * Unless polling was asked for (always), only a guest that showed more
 * than one request out since the last window gets one: one that waits
 * for each request before it sends the next would have the thread spin
 * through all its think time for one exit saved.  Showing depth opens an
 * episode (VIRTIO_BLK_POLL_EPISODE_NS from the last time it did) in which
 * every notification opens a window and every new request extends it, as
 * when asked for: polled, a deep guest's requests come one per pass and
 * no longer look deep (see blk.h).  The window adapts: after a window
 * that ended empty, a notification within poll_max of its end means the
 * window was too short (double it), a later one that it is longer than
 * this guest's pauses (halve it).
 */
static void blk_poll_notified(struct virtio_blk *blk, unsigned int q)
{
	uint64_t now;

	/* Without EVENT_IDX the driver notifies anyway: nothing to gain. */
	if (!blk->poll_max || !blk->vm.core.queues[q].event_idx)
		return;
	now = blk_now_ns();
	if (!blk_polls(blk, now))
		return;
	if (!blk->poll_always && blk_deep(blk))
		blk->deep_until = now + VIRTIO_BLK_POLL_EPISODE_NS;
	blk->overlap_mark = blk->overlapped;
	if (blk->poll_stopped) {
		if (now - blk->poll_stopped < blk->poll_max)
			blk->poll_ns = blk->poll_ns * 2 < blk->poll_max ?
					       blk->poll_ns * 2 :
					       blk->poll_max;
		else if (blk->poll_ns / 2 >= VIRTIO_BLK_POLL_MIN_NS)
			blk->poll_ns /= 2;
		blk->poll_stopped = 0;
	}
	blk_poll_until(blk, now + blk->poll_ns);
}

/*
 * Lock held, after a notification's pass over queue q that took taken
 * chains: where the queue's next notifications go (see
 * virtio_blk_set_route()).
 */
static void blk_route(struct virtio_blk *blk, unsigned int q, uint64_t taken)
{
	struct virtio_blk_route *r = &blk->routes[q];
	uint64_t now = blk_now_ns();
	bool vcpu;

	if (r->vcpu)
		blk->vcpu_taken += taken;
	if (r->overlapped != r->mark) {
		r->mark = r->overlapped;
		r->until = now + VIRTIO_BLK_POLL_EPISODE_NS;
		r->trial_left = 0;
		r->trial_gap = VIRTIO_BLK_ROUTE_TRIAL_NS;
	}
	if (now < r->until) {
		vcpu = false; /* depth: the I/O thread */
	} else if (r->vcpu) {
		vcpu = now < r->trial_at; /* else time for a trial */
	} else if (r->trial_left) {
		vcpu = !--r->trial_left; /* the trial's last: back */
		if (vcpu && r->trial_gap < VIRTIO_BLK_ROUTE_TRIAL_MAX_NS)
			r->trial_gap *= 2; /* it found no depth */
	} else {
		vcpu = true;
	}
	if (vcpu == r->vcpu ||
	    !virtio_core_route_locked(&blk->vm.core, q, !vcpu))
		return;
	r->vcpu = vcpu;
	blk->reroutes++;
	if (vcpu)
		r->trial_at = now + r->trial_gap;
	else if (now >= r->until)
		r->trial_left = VIRTIO_BLK_ROUTE_TRIAL_NOTIFIES;
}

static void blk_notify(void *opaque, unsigned int q)
{
	struct virtio_blk *blk = opaque;
	uint64_t taken = blk->requests[q];
	bool more = blk_process(blk, q);

	blk_poll_notified(blk, q);
	if (blk->route)
		blk_route(blk, q, blk->requests[q] - taken);
	blk_settle(blk, more);
}

void virtio_blk_poll(struct virtio_blk *blk)
{
	unsigned int nq = blk->vm.core.dev.num_queues;
	bool more = false;

	virtio_mmio_lock(&blk->vm);
	blk_reap(blk, true);
	blk_unpark(blk);
	/* The shared slots go to each queue first in turn. */
	for (unsigned int i = 0; i < nq; i++)
		more |= blk_process(blk, (blk->next_q + i) % nq);
	blk->next_q = (blk->next_q + 1) % nq;
	blk_settle(blk, more);
	virtio_mmio_unlock(&blk->vm);
}

void virtio_blk_set_poll(struct virtio_blk *blk, uint64_t max_ns, bool always)
{
	virtio_mmio_lock(&blk->vm);
	blk->poll_max = max_ns;
	blk->poll_always = always;
	blk->poll_ns = max_ns < VIRTIO_BLK_POLL_MIN_NS ? max_ns :
							 VIRTIO_BLK_POLL_MIN_NS;
	blk->poll_stopped = 0;
	virtio_mmio_unlock(&blk->vm);
}

void virtio_blk_set_route(struct virtio_blk *blk, bool on)
{
	virtio_mmio_lock(&blk->vm);
	blk->route = on;
	virtio_mmio_unlock(&blk->vm);
}

/* Lock held: every queue in (or out of) polling mode. */
static void blk_set_polling(struct virtio_blk *blk, bool on)
{
	for (unsigned int q = 0; q < blk->vm.core.dev.num_queues; q++)
		blk->vm.core.queues[q].polling = on;
	blk->polling = on;
}

int64_t virtio_blk_busy_poll(struct virtio_blk *blk)
{
	unsigned int nq = blk->vm.core.dev.num_queues;
	uint64_t taken, now;
	bool more = false;
	int64_t next;

	/* Cheap when idle; a notify on a vCPU thread may set it meanwhile. */
	if (!__atomic_load_n(&blk->poll_until, __ATOMIC_RELAXED))
		return -1;
	now = blk_now_ns();
	virtio_mmio_lock(&blk->vm);
	/* Past the deadline: notifications back on, then a last look. */
	blk_set_polling(blk, blk->poll_until && now < blk->poll_until);
	taken = blk_taken(blk);
	for (unsigned int q = 0; q < nq; q++)
		more |= blk_process(blk, q);
	blk->polled += blk_taken(blk) - taken;
	/*
	 * New requests since the last look (any pass took them) from a guest
	 * with more than one out, or within its episode: go on.
	 */
	if (blk_taken(blk) != blk->poll_seen && blk_polls(blk, now)) {
		blk_poll_until(blk, now + blk->poll_ns);
		blk->overlap_mark = blk->overlapped;
	} else if (!blk->polling) {
		blk_poll_until(blk, 0);
	}
	blk->poll_seen = blk_taken(blk);
	if (!blk->poll_until)
		blk->poll_stopped = now;
	blk_settle(blk, more);
	blk_set_polling(blk, blk->poll_until != 0);
	if (!blk->poll_until)
		next = -1;
	else if (!blk->inflight)
		next = 0;
	else /* what is left of the window */
		next = (int64_t)(blk->poll_until - now);
	virtio_mmio_unlock(&blk->vm);
	return next;
}

/*
 * Lock held (a driver reset or a guest reboot): requests in flight finish
 * first, their results dropped; waiting flushes never start.
 */
static void blk_reset(void *opaque)
{
	struct virtio_blk *blk = opaque;

	blk->gen++;
	for (unsigned int i = 0; i < VIRTIO_BLK_DEPTH; i++)
		if (blk->reqs[i].busy && blk->reqs[i].parked)
			blk_finish(blk, &blk->reqs[i]);
	while (blk->inflight)
		pthread_cond_wait(&blk->drained, &blk->vm.core.lock);
	blk->flush_err = 0;
	blk->writethrough = true;
	blk->starved = false;
	blk_poll_until(blk, 0);
	blk->poll_stopped = 0;
	blk->deep_until = 0;
	/*
	 * The routes, their episodes and trials stay as they are: a guest
	 * cannot reset its way past the time between two moves.
	 */
	/* A busy-poll pass may have run during the wait, lock released. */
	blk_set_polling(blk, false);
}

/* Without FLUSH the guest expects every write to be stable at once. */
static int blk_features_ok(void *opaque, uint64_t features)
{
	struct virtio_blk *blk = opaque;

	blk->writethrough = !(features & VIRTIO_BIT(VIRTIO_BLK_F_FLUSH));
	return 0;
}

static void blk_config_read(void *opaque, uint32_t offset, void *data,
			    unsigned int len)
{
	struct virtio_blk *blk = opaque;

	memcpy(data, blk->config + offset, len);
}

static uint64_t blk_features(const struct virtio_blk_disk *disk)
{
	uint64_t f = VIRTIO_BIT(VIRTIO_BLK_F_SIZE_MAX) |
		     VIRTIO_BIT(VIRTIO_BLK_F_SEG_MAX) |
		     VIRTIO_BIT(VIRTIO_BLK_F_BLK_SIZE) |
		     VIRTIO_BIT(VIRTIO_BLK_F_FLUSH) |
		     VIRTIO_BIT(VIRTIO_BLK_F_MQ);

	if (disk->read_only)
		f |= VIRTIO_BIT(VIRTIO_BLK_F_RO);
	if (disk->ops->discard)
		f |= VIRTIO_BIT(VIRTIO_BLK_F_DISCARD);
	if (disk->ops->write_zeroes)
		f |= VIRTIO_BIT(VIRTIO_BLK_F_WRITE_ZEROES);
	return f;
}

static void blk_config_put(struct virtio_blk *blk, uint32_t off,
			   unsigned int len, uint64_t v)
{
	mmio_data_put(blk->config + off, len, v);
}

static void blk_config_init(struct virtio_blk *blk, unsigned int num_queues)
{
	const struct virtio_blk_disk *d = &blk->disk;

	memset(blk->config, 0, sizeof(blk->config));
	blk_config_put(blk, VIRTIO_BLK_CFG_NUM_QUEUES, 2, num_queues);
	blk_config_put(blk, VIRTIO_BLK_CFG_CAPACITY, 8,
		       d->size / VIRTIO_BLK_SECTOR);
	blk_config_put(blk, VIRTIO_BLK_CFG_SIZE_MAX, 4, VIRTIO_BLK_SIZE_MAX);
	blk_config_put(blk, VIRTIO_BLK_CFG_SEG_MAX, 4, VIRTIO_BLK_SEG_MAX);
	blk_config_put(blk, VIRTIO_BLK_CFG_BLK_SIZE, 4, VIRTIO_BLK_BLK_SIZE);
	if (d->ops->discard) {
		blk_config_put(blk, VIRTIO_BLK_CFG_MAX_DISCARD_SECTORS, 4,
			       VIRTIO_BLK_MAX_DISCARD_SECTORS);
		blk_config_put(blk, VIRTIO_BLK_CFG_MAX_DISCARD_SEG, 4,
			       VIRTIO_BLK_MAX_DWZ_SEG);
		blk_config_put(blk, VIRTIO_BLK_CFG_DISCARD_ALIGN, 4,
			       VIRTIO_BLK_DISCARD_ALIGN);
	}
	if (d->ops->write_zeroes) {
		blk_config_put(blk, VIRTIO_BLK_CFG_MAX_WZ_SECTORS, 4,
			       VIRTIO_BLK_MAX_WZ_SECTORS);
		blk_config_put(blk, VIRTIO_BLK_CFG_MAX_WZ_SEG, 4,
			       VIRTIO_BLK_MAX_DWZ_SEG);
	}
}

static const struct virtio_dev_ops blk_dev_ops = {
	.notify = blk_notify,
	.features_ok = blk_features_ok,
	.config_read = blk_config_read,
	.reset = blk_reset,
};

static bool blk_disk_ok(const struct virtio_blk_disk *disk)
{
	return disk && disk->ops && disk->ops->readv &&
	       (disk->read_only || disk->ops->writev);
}

int virtio_blk_init_mq(struct virtio_blk *blk, const struct dev_res *res,
		       const struct guest_mem *mem, const struct irq_line *irq,
		       const struct virtio_blk_disk *disk,
		       unsigned int num_queues)
{
	struct virtio_dev dev = {
		.name = "virtio-blk",
		.ops = &blk_dev_ops,
		.opaque = blk,
		.device_id = VIRTIO_ID_BLOCK,
		.num_queues = num_queues,
		.queue_num_max = VIRTIO_BLK_QUEUE_SIZE,
		.config_size = VIRTIO_BLK_CONFIG_SIZE,
	};
	int ret;

	if (!blk_disk_ok(disk) || !num_queues ||
	    num_queues > VIRTIO_MMIO_MAX_QUEUES)
		return -EINVAL;
	blk->disk = *disk;
	blk->writethrough = true; /* until FEATURES_OK says otherwise */
	dev.features = blk_features(disk);
	blk_config_init(blk, num_queues);
	blk->aio = NULL;
	blk->rearm = NULL;
	blk->inflight = blk->gen = blk->nr_logged = blk->next_q = 0;
	blk->write_seq = 0;
	blk->flush_err = 0;
	blk->poll_max = blk->poll_ns = blk->poll_until = blk->poll_stopped = 0;
	blk->deep_until = 0;
	blk->polled = blk->poll_seen = 0;
	blk->overlapped = blk->overlap_mark = 0;
	blk->poll_always = false;
	blk->polling = blk->starved = false;
	blk->route = false;
	blk->reroutes = blk->vcpu_taken = 0;
	memset(blk->routes, 0, sizeof(blk->routes));
	for (unsigned int q = 0; q < VIRTIO_MMIO_MAX_QUEUES; q++)
		blk->routes[q].trial_gap = VIRTIO_BLK_ROUTE_TRIAL_NS;
	blk->reqs = calloc(VIRTIO_BLK_DEPTH, sizeof(*blk->reqs));
	if (!blk->reqs)
		return -ENOMEM;
	ret = pthread_cond_init(&blk->drained, NULL);
	ret = ret ? -ret : virtio_mmio_init(&blk->vm, res, mem, irq, &dev);
	if (ret) {
		free(blk->reqs);
		blk->reqs = NULL;
	}
	return ret;
}

int virtio_blk_init(struct virtio_blk *blk, const struct dev_res *res,
		    const struct guest_mem *mem, const struct irq_line *irq,
		    const struct virtio_blk_disk *disk)
{
	return virtio_blk_init_mq(blk, res, mem, irq, disk, 1);
}

void virtio_blk_destroy(struct virtio_blk *blk)
{
	virtio_mmio_destroy(&blk->vm);
	pthread_cond_destroy(&blk->drained);
	free(blk->reqs);
	blk->reqs = NULL;
}

void virtio_blk_set_aio(struct virtio_blk *blk, struct virtio_blk_aio *aio)
{
	blk->aio = aio;
}
