// SPDX-License-Identifier: GPL-2.0
/*
 * virtio-blk's io_uring engine (liburing).  The owner submits under its
 * lock, from whichever thread notifies, and commits once per pass: the
 * SQEs of a pass go to the kernel in one io_uring_enter.  Completions
 * post to a CQ whose eventfd the I/O thread watches, and reap (under the
 * same lock) turns CQEs into finished calls: a short transfer resubmits
 * the remainder, a write-through write goes on to an fsync.  Calls the
 * disk cannot hand over as a file descriptor (discard, write-zeroes,
 * O_DIRECT bounces) run synchronously in submit, and so does a lone read
 * or write of a file in memory (uring_alone_in_memory): they wait for the
 * reap the owner makes after each commit, with no eventfd write.  FLUSH
 * needs no ordering here: blk.c starts it only once every write before it
 * has completed.  See blk.h.
 */
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "virtio/blk.h"
#include "lib/log.h"

struct blk_uring {
	struct io_uring ring;
	struct virtio_blk_io *done; /* finished, not yet reaped */
	unsigned int inflight;	    /* SQEs whose CQE is still to come */
	bool pending;		    /* SQEs prepared, not yet submitted */
};

static struct io_uring_sqe *uring_sqe(struct blk_uring *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe) {
		/* Full: hand what is queued to the kernel and retry. */
		io_uring_submit(&u->ring);
		sqe = io_uring_get_sqe(&u->ring);
	}
	return sqe;
}

static void uring_done(struct virtio_blk_aio *a, struct virtio_blk_io *io)
{
	struct blk_uring *u = a->priv;

	io->next = u->done;
	u->done = io;
}

/* Queue the next SQE of io: the rest of its transfer, or its fsync. */
static void uring_queue(struct virtio_blk_aio *a, struct virtio_blk_io *io,
			int fd)
{
	struct blk_uring *u = a->priv;
	struct io_uring_sqe *sqe = fd < 0 ? NULL : uring_sqe(u);

	if (!sqe) {
		/*
		 * No SQE cannot happen with DEPTH slots in 2 * DEPTH entries;
		 * no fd, only for the rest of an O_DIRECT transfer cut short
		 * at an unaligned length (the end of the file).
		 */
		io->res = -EIO;
		uring_done(a, io);
		return;
	}
	if (io->op == VIRTIO_BLK_OP_FLUSH || io->flushing)
		io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
	else if (io->op == VIRTIO_BLK_OP_READ)
		io_uring_prep_readv(sqe, fd, io->iov, io->iovcnt,
				    io->off + io->moved);
	else
		io_uring_prep_writev(sqe, fd, io->iov, io->iovcnt,
				     io->off + io->moved);
	io_uring_sqe_set_data(sqe, io);
	u->inflight++;
	u->pending = true;
}

/* Calls finished inside submit wait in done: the owner reaps next. */
static void uring_kick(struct virtio_blk_aio *a)
{
	struct blk_uring *u = a->priv;
	int ret;

	if (u->pending) {
		ret = io_uring_submit(&u->ring);
		if (ret < 0)
			pr_once(LOG_WARN, "virtio-blk: io_uring_submit: %s",
				strerror(-ret));
		u->pending = false;
	}
}

/* The kernel signals efd for each completion it posts. */
static bool uring_signalled(struct virtio_blk_aio *a)
{
	struct blk_uring *u = a->priv;

	return io_uring_cq_ready(&u->ring) != 0;
}

static int uring_fd(const struct virtio_blk_disk *d,
		    const struct virtio_blk_io *io)
{
	if (io->op == VIRTIO_BLK_OP_FLUSH && !d->ops->flush)
		return -1;
	if (io->op != VIRTIO_BLK_OP_READ && io->op != VIRTIO_BLK_OP_WRITE &&
	    io->op != VIRTIO_BLK_OP_FLUSH)
		return -1;
	return d->ops->fd ? d->ops->fd(d->opaque, io) : -1;
}

/*
 * A read or write of a file in memory, with nothing else on the ring,
 * that the owner lets run here: a guest waiting on one request at a time.
 * io_uring would hand it to a worker thread (tmpfs cannot serve a read
 * without blocking, in Linux 6.12) and wake the I/O thread again when it
 * is done; a copy here is shorter.  Only the first of a pass: with more,
 * the workers copy side by side.
 */
static bool uring_alone_in_memory(const struct blk_uring *u,
				  const struct virtio_blk_aio *a,
				  const struct virtio_blk_io *io)
{
	return a->disk->in_memory && io->inline_ok && !u->inflight &&
	       !u->pending && !u->done &&
	       (io->op == VIRTIO_BLK_OP_READ || io->op == VIRTIO_BLK_OP_WRITE);
}

static void uring_submit(struct virtio_blk_aio *a, struct virtio_blk_io *io)
{
	int fd = uring_fd(a->disk, io);

	io->res = 0;
	io->flush_failed = io->flushing = false;
	io->moved = 0;
	if (fd < 0 || uring_alone_in_memory(a->priv, a, io)) {
		virtio_blk_exec(a->disk, io);
		uring_done(a, io);
	} else {
		uring_queue(a, io, fd);
	}
}

/* Drop the first n bytes of io->iov (a short transfer's done part). */
static void uring_advance(struct virtio_blk_io *io, uint64_t n)
{
	int i = 0;

	while (i < io->iovcnt && n >= io->iov[i].iov_len)
		n -= io->iov[i++].iov_len;
	memmove(io->iov, io->iov + i, (io->iovcnt - i) * sizeof(*io->iov));
	io->iovcnt -= i;
	if (io->iovcnt) {
		io->iov[0].iov_base = (uint8_t *)io->iov[0].iov_base + n;
		io->iov[0].iov_len -= n;
	}
}

/*
 * Worth submitting again: interrupted, or cancelled because the thread
 * that submitted it (a vCPU's, at a notify) exited meanwhile.
 */
static bool uring_retry(int res)
{
	return res == -EINTR || res == -EAGAIN || res == -ECANCELED;
}

/* A read or write CQE: true when io is finished. */
static bool uring_rw_done(struct virtio_blk_aio *a, struct virtio_blk_io *io,
			  int res)
{
	const struct virtio_blk_disk *d = a->disk;

	if (uring_retry(res))
		res = 0; /* nothing moved: try again */
	else if (res < 0 || (res == 0 && io->moved < io->len)) {
		io->res = res < 0 ? res : -EIO; /* error, or end of file */
		return true;
	}
	io->moved += res;
	if (io->moved < io->len) {
		uring_advance(io, res);
		uring_queue(a, io, uring_fd(d, io));
		return false;
	}
	if (!io->flush_after || !d->ops->flush)
		return true;
	io->flushing = true;
	uring_queue(a, io, d->ops->fd(d->opaque, io));
	return false;
}

/* One CQE: true when its call is finished. */
static bool uring_complete(struct virtio_blk_aio *a, struct virtio_blk_io *io,
			   int res)
{
	if (io->op == VIRTIO_BLK_OP_FLUSH || io->flushing) {
		if (uring_retry(res)) {
			uring_queue(a, io,
				    a->disk->ops->fd(a->disk->opaque, io));
			return false;
		}
		io->res = res < 0 ? res : 0;
		io->flush_failed = res < 0;
		return true;
	}
	return uring_rw_done(a, io, res);
}

static struct virtio_blk_io *uring_reap(struct virtio_blk_aio *a)
{
	struct blk_uring *u = a->priv;
	struct io_uring_cqe *cqe;
	struct virtio_blk_io *io;

	while (io_uring_peek_cqe(&u->ring, &cqe) == 0) {
		io = io_uring_cqe_get_data(cqe);
		if (uring_complete(a, io, cqe->res))
			uring_done(a, io);
		io_uring_cqe_seen(&u->ring, cqe);
		u->inflight--;
	}
	if (u->pending) {
		io_uring_submit(&u->ring);
		u->pending = false;
	}
	io = u->done;
	u->done = NULL;
	return io;
}

/* Wait for what the kernel still works on: it writes guest memory. */
static void uring_destroy(struct virtio_blk_aio *a)
{
	struct blk_uring *u = a->priv;
	struct io_uring_cqe *cqe;

	if (u->pending)
		io_uring_submit(&u->ring);
	while (u->inflight && io_uring_wait_cqe(&u->ring, &cqe) == 0) {
		io_uring_cqe_seen(&u->ring, cqe);
		u->inflight--;
	}
	io_uring_queue_exit(&u->ring);
	free(u);
}

/* A failed init undoes itself (blk_engine.c is above the engines). */
static void uring_abandon(struct virtio_blk_aio *a)
{
	uring_destroy(a);
	if (a->efd >= 0)
		close(a->efd);
	memset(a, 0, sizeof(*a));
	a->efd = -1;
}

static const struct virtio_blk_aio_ops uring_ops = {
	.submit = uring_submit,
	.commit = uring_kick,
	.reap = uring_reap,
	.signalled = uring_signalled,
	.destroy = uring_destroy,
};

int virtio_blk_uring_init(struct virtio_blk_aio *a,
			  const struct virtio_blk_disk *disk,
			  unsigned int ring_entries)
{
	struct blk_uring *u;
	int ret;

	memset(a, 0, sizeof(*a));
	a->efd = -1;
	if (!disk->ops->fd)
		return -EOPNOTSUPP; /* nothing the ring could read */
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	ret = io_uring_queue_init(ring_entries, &u->ring, 0);
	if (ret) {
		free(u);
		return ret;
	}
	a->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ret = a->efd < 0 ? -errno : io_uring_register_eventfd(&u->ring, a->efd);
	a->ops = &uring_ops;
	a->priv = u;
	a->disk = disk;
	snprintf(a->name, sizeof(a->name), "io_uring, %u entries",
		 ring_entries);
	if (ret)
		uring_abandon(a);
	return ret;
}
