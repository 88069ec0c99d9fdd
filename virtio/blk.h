/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio-blk (virtio 1.2 §5.2): device ID 2, 1..VIRTIO_MMIO_MAX_QUEUES
 * request queues of VIRTIO_BLK_QUEUE_SIZE entries each, advertised with MQ
 * and num_queues (always, even for one queue).  Each queue is validated on
 * its own (a broken queue needs a device reset); a notification for a
 * queue at or beyond num_queues is ignored by the transport.  Requests on
 * different queues share the VIRTIO_BLK_DEPTH request slots and complete
 * in any order, each on the queue it came from.
 *
 * Offers SIZE_MAX and SEG_MAX (at most VIRTIO_BLK_REQ_MAX data bytes a
 * request), BLK_SIZE (512), FLUSH, RO for a read-only disk, and DISCARD /
 * WRITE_ZEROES when the backend implements them.  capacity is the disk
 * size / 512, rounded down: a trailing partial sector of the image is
 * never visible to the guest.
 *
 * Requests (header {le32 type, le32 reserved, le64 sector}, data, status):
 *  - the status byte is the last device-writable byte of the chain; a
 *    chain without one is returned untouched (used len 0, nothing done);
 *    a chain whose readable part is shorter than the header gets IOERR;
 *  - IN reads writable_len - 1 bytes, OUT writes the readable bytes after
 *    the header, straight between the guest's buffers and the backend
 *    (readv/writev); both must be a multiple of 512, at most
 *    VIRTIO_BLK_REQ_MAX and lie inside the disk (sector * 512 + len,
 *    overflow-checked), else IOERR and nothing is transferred;
 *  - a read-only disk fails OUT, DISCARD and WRITE_ZEROES with IOERR
 *    without touching the backend;
 *  - FLUSH starts once every write submitted before it has completed (on
 *    any queue: the order is the device's, across queues), and calls the
 *    backend's flush.  A write the guest saw completed, on any queue, was
 *    submitted before a FLUSH it issues afterwards, so it is covered; a failed flush is latched: every later
 *    FLUSH (and write-through write) fails with IOERR until the device is
 *    reset.  GET_ID writes min(data, 20) bytes of the disk's NUL-padded
 *    id; other types get UNSUPP;
 *  - DISCARD and WRITE_ZEROES take exactly one 16-byte segment
 *    (max_*_seg = 1; none or more is IOERR), bounds-checked like IN/OUT
 *    and at most max_*_sectors long (else IOERR); unknown flags, or unmap
 *    on a discard, get UNSUPP (§5.2.6.2);
 *  - a failing or short backend call gives IOERR; each distinct
 *    (operation, error) is logged once;
 *  - the used length is the number of bytes written into the chain: the
 *    data (IN, GET_ID; all of it, as far as the device knows) plus the
 *    status byte.
 * If the driver did not negotiate FLUSH, every completed write is made
 * stable first (write-through, §5.2.6.2): the backend's flush runs after
 * each successful OUT, DISCARD and WRITE_ZEROES.
 *
 * Requests run inline in the notify, or, with an engine
 * (virtio_blk_set_aio), asynchronously: up to VIRTIO_BLK_DEPTH at once,
 * each completed (used element, interrupt as EVENT_IDX says) as soon as it
 * finishes; the transport lock is not held during backend calls.  One
 * pass over a queue takes at most VIRTIO_BLK_BUDGET_CHAINS chains and
 * VIRTIO_BLK_BUDGET_BYTES bytes, then yields (the engine's eventfd, or the
 * rearm callback, brings it back), so one busy queue cannot starve the
 * I/O thread's other work.  A device reset waits for the requests in
 * flight to finish; their results are then dropped.
 *
 * The transport is embedded: register virtio_mmio_ops with opaque &blk->vm
 * at blk->vm.res.base / blk->vm.res.size.
 */
#ifndef RVKVM_VIRTIO_BLK_H
#define RVKVM_VIRTIO_BLK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "virtio/mmio.h"

#ifndef VIRTIO_ID_BLOCK
#define VIRTIO_ID_BLOCK 2
#endif

/* Feature bits (§5.2.3). */
#define VIRTIO_BLK_F_SIZE_MAX 1
#define VIRTIO_BLK_F_SEG_MAX 2
#define VIRTIO_BLK_F_RO 5
#define VIRTIO_BLK_F_BLK_SIZE 6
#define VIRTIO_BLK_F_FLUSH 9
#define VIRTIO_BLK_F_MQ 12
#define VIRTIO_BLK_F_DISCARD 13
#define VIRTIO_BLK_F_WRITE_ZEROES 14

/* Request types and status values (§5.2.6). */
#define VIRTIO_BLK_T_IN 0
#define VIRTIO_BLK_T_OUT 1
#define VIRTIO_BLK_T_FLUSH 4
#define VIRTIO_BLK_T_GET_ID 8
#define VIRTIO_BLK_T_DISCARD 11
#define VIRTIO_BLK_T_WRITE_ZEROES 13
#define VIRTIO_BLK_S_OK 0
#define VIRTIO_BLK_S_IOERR 1
#define VIRTIO_BLK_S_UNSUPP 2

#define VIRTIO_BLK_SECTOR 512
#define VIRTIO_BLK_REQ_HDR_SIZE 16
#define VIRTIO_BLK_DWZ_SEG_SIZE 16 /* {le64 sector, le32 num, le32 flags} */
#define VIRTIO_BLK_DWZ_F_UNMAP 1
#define VIRTIO_BLK_ID_BYTES 20

/* Configuration space offsets (§5.2.4, struct virtio_blk_config). */
#define VIRTIO_BLK_CFG_CAPACITY 0 /* le64 */
#define VIRTIO_BLK_CFG_SIZE_MAX 8
#define VIRTIO_BLK_CFG_SEG_MAX 12
#define VIRTIO_BLK_CFG_GEOMETRY 16 /* 4 bytes */
#define VIRTIO_BLK_CFG_BLK_SIZE 20
#define VIRTIO_BLK_CFG_TOPOLOGY 24   /* 8 bytes */
#define VIRTIO_BLK_CFG_WRITEBACK 32  /* u8, then unused0 u8 */
#define VIRTIO_BLK_CFG_NUM_QUEUES 34 /* le16 */
#define VIRTIO_BLK_CFG_MAX_DISCARD_SECTORS 36
#define VIRTIO_BLK_CFG_MAX_DISCARD_SEG 40
#define VIRTIO_BLK_CFG_DISCARD_ALIGN 44
#define VIRTIO_BLK_CFG_MAX_WZ_SECTORS 48
#define VIRTIO_BLK_CFG_MAX_WZ_SEG 52
#define VIRTIO_BLK_CFG_WZ_MAY_UNMAP 56 /* u8, then unused1[3] */
#define VIRTIO_BLK_CONFIG_SIZE 60

/* What this device advertises. */
#define VIRTIO_BLK_QUEUE_SIZE 256
#define VIRTIO_BLK_SEG_MAX 254
#define VIRTIO_BLK_BLK_SIZE 512
#define VIRTIO_BLK_MAX_DISCARD_SECTORS (1u << 22) /* 2 GiB */
#define VIRTIO_BLK_MAX_WZ_SECTORS (1u << 16) /* 32 MiB: bounds a fallback */
#define VIRTIO_BLK_MAX_DWZ_SEG 1
#define VIRTIO_BLK_DISCARD_ALIGN 8 /* sectors: 4 KiB host blocks */

/*
 * A request's data may be at most VIRTIO_BLK_SEG_MAX segments of at most
 * VIRTIO_BLK_SIZE_MAX bytes each (both advertised); a request carrying
 * more than their product is refused with IOERR.
 */
#define VIRTIO_BLK_SIZE_MAX (64 * 1024)
#define VIRTIO_BLK_REQ_MAX ((uint64_t)VIRTIO_BLK_SEG_MAX * VIRTIO_BLK_SIZE_MAX)

/* Requests in flight per device (the guest may queue more: they wait). */
#define VIRTIO_BLK_DEPTH 64
/* Per notification or completion pass and queue, before yielding. */
#define VIRTIO_BLK_BUDGET_CHAINS 32
#define VIRTIO_BLK_BUDGET_BYTES (16 * 1024 * 1024)

/* Alignment of the file backend's O_DIRECT bounce buffer. */
#define VIRTIO_BLK_BOUNCE_ALIGN 4096
/* The file backend's buffer for writing zeroes. */
#define VIRTIO_BLK_ZEROES (64 * 1024)

/*
 * The disk backend.  Offsets and lengths are in bytes and always inside
 * the disk (the device checks them first); readv/writev get the guest's
 * buffers as they are (any alignment; lengths add up to a multiple of 512
 * and at most VIRTIO_BLK_REQ_MAX).  readv/writev return the bytes
 * transferred (anything but the full length is an I/O error) or -errno;
 * the others return 0 or -errno.  flush may be NULL (nothing to flush);
 * discard and write_zeroes may be NULL: the feature is then not offered.
 * writev is not called for a read-only disk and may then be NULL.
 * write_zeroes must leave the range reading back as zeroes.  With an
 * asynchronous engine (virtio_blk_aio) the calls come from several worker
 * threads at once.  fd may be NULL; else it returns the file descriptor
 * on which io's READ / WRITE / FLUSH amount to exactly preadv / pwritev /
 * fdatasync (the io_uring engine then runs them itself), or -1 where the
 * backend must run io (other operations, O_DIRECT bounces).
 */
struct virtio_blk_io;

struct virtio_blk_disk_ops {
	ssize_t (*readv)(void *opaque, const struct iovec *iov, int iovcnt,
			 uint64_t offset);
	ssize_t (*writev)(void *opaque, const struct iovec *iov, int iovcnt,
			  uint64_t offset);
	int (*flush)(void *opaque);
	int (*discard)(void *opaque, uint64_t offset, uint64_t len);
	int (*write_zeroes)(void *opaque, uint64_t offset, uint64_t len);
	int (*fd)(void *opaque, const struct virtio_blk_io *io);
};

struct virtio_blk_disk {
	const struct virtio_blk_disk_ops *ops;
	void *opaque;
	uint64_t size; /* bytes */
	bool read_only;
	/*
	 * Its reads and writes copy memory and never wait for a device (a
	 * file on tmpfs, ramfs or hugetlbfs): an engine may serve one where
	 * it is taken rather than hand it to a thread of its own.
	 */
	bool in_memory;
	char id[VIRTIO_BLK_ID_BYTES]; /* GET_ID: NUL-padded, no terminator */
};

/* Set disk->id from s: its first 20 bytes, NUL-padded (s may be NULL). */
void virtio_blk_disk_set_id(struct virtio_blk_disk *disk, const char *s);

/* What a request asks of the backend. */
enum virtio_blk_op {
	VIRTIO_BLK_OP_NONE, /* nothing: the status is already known */
	VIRTIO_BLK_OP_READ,
	VIRTIO_BLK_OP_WRITE,
	VIRTIO_BLK_OP_FLUSH,
	VIRTIO_BLK_OP_DISCARD,
	VIRTIO_BLK_OP_WRITE_ZEROES,
};

/* One backend call, decoded and checked; see virtio_blk_exec(). */
struct virtio_blk_io {
	enum virtio_blk_op op;
	int iovcnt;
	uint64_t off, len;
	bool flush_after; /* write-through: flush after a good write */
	/*
	 * The owner lets the engine run it inside submit when the engine
	 * finds that shorter (not while the device busy-polls: then the
	 * owner's thread should go on taking requests).
	 */
	bool inline_ok;
	int res;	   /* 0, or -errno (-EIO for a short transfer) */
	bool flush_failed; /* res came from flush (or flush_after) */
	struct virtio_blk_io *next; /* the engine's lists */
	uint64_t moved;		    /* the engine's: bytes transferred so far */
	bool flushing;		    /* the engine's: in the flush_after step */
	struct iovec iov[VIRTQ_CHAIN_MAX_SEGS];
};

/*
 * Run io against disk, synchronously, on the calling thread: sets
 * io->res.  Touches only the guest buffers in io->iov and the backend.
 */
void virtio_blk_exec(const struct virtio_blk_disk *disk,
		     struct virtio_blk_io *io);

/*
 * The asynchronous engine: runs backend calls off the I/O thread and
 * reports finished ones through an eventfd, which the owner's I/O thread
 * watches and answers with virtio_blk_poll().  Two implementations behind
 * one ops table, chosen once by virtio_blk_aio_init() (blk_engine.c): io_uring
 * (blk_uring.c) where the kernel offers it and the disk has a file
 * descriptor, else a pool of worker threads running virtio_blk_exec()
 * (blk_pool.c).  The device gives an engine at most VIRTIO_BLK_DEPTH calls
 * at once; each is finished as it completes, in any order.
 */
struct virtio_blk_aio;

struct virtio_blk_aio_ops {
	/*
	 * Start io (never OP_NONE); from the owner, under its lock.  An
	 * engine may hold it back until commit.
	 */
	void (*submit)(struct virtio_blk_aio *a, struct virtio_blk_io *io);
	/*
	 * Optional: hand over everything submitted since the last commit in
	 * one go (io_uring: one io_uring_enter for a whole pass over the
	 * queues).  The owner calls it, under its lock, after each pass.
	 */
	void (*commit)(struct virtio_blk_aio *a);
	/*
	 * The calls finished since the last reap, linked by next.  The
	 * owner reaps after every commit: calls finished inside submit or
	 * commit need not signal efd.
	 */
	struct virtio_blk_io *(*reap)(struct virtio_blk_aio *a);
	/*
	 * Optional: false when efd cannot have been signalled since the last
	 * reap (the owner then skips reading it); without it, efd is read
	 * before every reap.
	 */
	bool (*signalled)(struct virtio_blk_aio *a);
	/* Stop; calls still running are waited for (uring) or dropped. */
	void (*destroy)(struct virtio_blk_aio *a);
};

struct virtio_blk_aio {
	const struct virtio_blk_aio_ops *ops;
	const struct virtio_blk_disk *disk;
	int efd;       /* readable when reap has something */
	void *priv;    /* the engine's own state */
	char name[96]; /* e.g. "io_uring, 128 entries" (for --debug) */
};

/* io_uring submission queue entries (two per request slot). */
#define VIRTIO_BLK_URING_ENTRIES (2 * VIRTIO_BLK_DEPTH)

/*
 * Pick the engine: io_uring with ring_entries entries if that can be set
 * up for disk (ring_entries 0 never can), else the pool with nr_threads
 * workers (clamped to 1..8).  0 or -errno.
 */
int virtio_blk_aio_init(struct virtio_blk_aio *a,
			const struct virtio_blk_disk *disk,
			unsigned int nr_threads, unsigned int ring_entries);
/*
 * The two engines on their own: 0 or -errno.  The pool's workers wait
 * delay_ms before each request (--debug-iodelay; 0: no wait).
 */
int virtio_blk_pool_init(struct virtio_blk_aio *a,
			 const struct virtio_blk_disk *disk,
			 unsigned int nr_threads, unsigned int delay_ms);
int virtio_blk_uring_init(struct virtio_blk_aio *a,
			  const struct virtio_blk_disk *disk,
			  unsigned int ring_entries);
/* Stops the engine (see ops->destroy); a no-op after a failed init. */
void virtio_blk_aio_destroy(struct virtio_blk_aio *a);

/* One request slot: a popped chain and its backend call. */
struct virtio_blk_req {
	struct virtq_chain chain;
	struct virtio_blk_io io;
	unsigned int q;
	uint32_t gen;	 /* the device's reset count at pop */
	uint64_t seq;	 /* write: submission order; flush: barrier */
	uint8_t *status; /* the chain's status byte */
	uint32_t used_len;
	bool busy, parked; /* in use; a flush waiting for writes */
};

struct virtio_blk {
	struct virtio_mmio vm;
	struct virtio_blk_disk disk;
	uint8_t config[VIRTIO_BLK_CONFIG_SIZE]; /* little-endian, fixed */
	bool writethrough; /* FLUSH not negotiated; set at FEATURES_OK */
	struct virtio_blk_aio *aio; /* NULL: requests run inline */
	/* Without aio: called when a budget ran out with work left. */
	void (*rearm)(void *opaque);
	void *rearm_opaque;
	/* Under vm.lock: */
	struct virtio_blk_req *reqs; /* VIRTIO_BLK_DEPTH slots */
	unsigned int inflight;	     /* busy slots */
	uint32_t gen;
	unsigned int next_q; /* virtio_blk_poll() starts here (fairness) */
	uint64_t write_seq;
	uint64_t requests[VIRTIO_MMIO_MAX_QUEUES]; /* chains taken, per queue */
	int flush_err;		/* a failed flush, latched until reset */
	pthread_cond_t drained; /* inflight reached 0 (with vm.lock) */
	struct {
		uint8_t op;
		int err;
	} logged[16];
	unsigned int nr_logged;
	/* Busy polling (virtio_blk_set_poll), under vm.lock; ns: */
	uint64_t poll_max;     /* the longest window; 0: never poll */
	uint64_t poll_ns;      /* the window now */
	uint64_t poll_until;   /* CLOCK_MONOTONIC: poll until then (or 0) */
	uint64_t poll_stopped; /* when the last window ended empty (or 0) */
	bool polling;	       /* the queues are in polling mode */
	bool starved;	       /* a pass found every request slot busy */
	uint64_t polled;       /* chains taken by busy-poll passes */
	uint64_t poll_seen;    /* chains taken, at the last busy-poll pass */
	uint64_t overlapped;   /* chains taken with another in flight/pass */
	uint64_t overlap_mark; /* overlapped, when a window opened or grew */
	uint64_t deep_until;   /* a deep guest's episode: windows go on */
	bool poll_always;      /* a window after every notification */
	/* Notification routing (virtio_blk_set_route), under vm.lock: */
	bool route;	     /* route by depth; false: leave as bound */
	uint64_t reroutes;   /* route changes */
	uint64_t vcpu_taken; /* chains taken by passes routed to a vCPU */
	struct virtio_blk_route {
		bool vcpu;		 /* routed to the vCPU's exit */
		unsigned int inflight;	 /* this queue's requests in flight */
		uint64_t overlapped;	 /* taken with another of it out */
		uint64_t mark;		 /* overlapped, at the last look */
		uint64_t until;		 /* depth shown: the I/O thread */
		uint64_t trial_at;	 /* on the vCPU: a trial from then */
		uint64_t trial_gap;	 /* ns from a move to the vCPU to it */
		unsigned int trial_left; /* notifications left in a trial */
	} routes[VIRTIO_MMIO_MAX_QUEUES];
};

/*
 * The disk description is copied; disk->ops and disk->opaque must outlive
 * the device.  -EINVAL for a missing res, no ops, no readv (or no writev
 * on a writable disk), -ENOMEM, or -errno.  Requests run inline (in the
 * notify) until virtio_blk_set_aio().  One request queue.
 */
int virtio_blk_init(struct virtio_blk *blk, const struct dev_res *res,
		    const struct guest_mem *mem, const struct irq_line *irq,
		    const struct virtio_blk_disk *disk);
/* The same with num_queues request queues: -EINVAL outside 1..8. */
int virtio_blk_init_mq(struct virtio_blk *blk, const struct dev_res *res,
		       const struct guest_mem *mem, const struct irq_line *irq,
		       const struct virtio_blk_disk *disk,
		       unsigned int num_queues);
void virtio_blk_destroy(struct virtio_blk *blk);

/* Before the driver starts: run requests on aio (its disk is blk's). */
void virtio_blk_set_aio(struct virtio_blk *blk, struct virtio_blk_aio *aio);

/*
 * On the I/O thread when aio->efd is readable (or, without aio, after a
 * rearm): complete what the engine finished, start waiting flushes and
 * process the queues again within the budget.
 */
void virtio_blk_poll(struct virtio_blk *blk);

/*
 * Busy polling, for an I/O thread with a host CPU to itself: a driver
 * notification opens a window in which the device looks at its queues
 * through virtio_blk_busy_poll(), with the driver's notifications off
 * (EVENT_IDX's avail_event left behind), and each new request taken (by
 * any pass) extends it, so a guest that keeps submitting does not exit to
 * notify.  Unless always is set, only for a guest that shows more than
 * one request out (since the last window, a pass took two chains, or one
 * with another in flight): a guest that waits for each request before it
 * sends the next gains one exit per request from a CPU spinning through
 * all its think time.  Showing depth opens an episode, until
 * VIRTIO_BLK_POLL_EPISODE_NS after the last time the guest showed it, in
 * which every notification opens a window and every new request extends
 * it, as with always set: polled, a deep guest's requests are each taken
 * as it sends them, one per pass with nothing else in flight, and no
 * longer look deep.  The thread spins only while no request is in flight;
 * with some in flight it sleeps until one completes (each completion's
 * pass looks at the queues too) or the window ends, leaving the CPU to
 * the copies.  Once a window passes with no new request, avail_event is
 * published and the queues looked at once more, so no request waits for
 * a notification that was never sent.  The window adapts to the guest's
 * pace, as QEMU's adaptive polling does: it starts at
 * VIRTIO_BLK_POLL_MIN_NS, doubles (up to max_ns) when the driver notifies
 * less than max_ns after a window ended, and halves when it notifies
 * later.  (Measured, fio 4 KiB random reads at queue depth 32, one vCPU,
 * in the emulated host: with windows only while the guest looked deep,
 * 10-21% of the requests were taken by polling passes, with episodes
 * 44-46%, with always set 61-70%; the IOPS followed.  At queue depth 1 no
 * request is polled for either way.)  max_ns 0 (the default) never polls.
 */
#define VIRTIO_BLK_POLL_MIN_NS 16000ULL
#define VIRTIO_BLK_POLL_EPISODE_NS 100000000ULL
void virtio_blk_set_poll(struct virtio_blk *blk, uint64_t max_ns, bool always);

/*
 * Notifications by depth (virtio_route), queue by queue: a guest that
 * waits for each request before it sends the next has its notifications
 * served in the notifying vCPU's MMIO exit, which takes the request and
 * submits it there (an in-memory disk's lone request completes inside
 * it), saving the hand-off to the I/O thread and its wake-up.  A queue
 * that shows more than one request out (a pass took two chains, or one
 * with another of that queue in flight) has its notifications wake the
 * I/O thread through its ioeventfd instead, so the vCPU returns to the
 * guest at once and goes on queueing, until VIRTIO_BLK_POLL_EPISODE_NS
 * after it last showed depth.  Served in the exit, a deep guest's
 * requests can complete one by one before it sends the next and no
 * longer look deep, so a queue on the vCPU tries the I/O thread for
 * VIRTIO_BLK_ROUTE_TRIAL_NOTIFIES notifications, and stays there if depth
 * shows: VIRTIO_BLK_ROUTE_TRIAL_NS after it moved to the vCPU, twice as
 * long after each trial that found no depth, up to
 * VIRTIO_BLK_ROUTE_TRIAL_MAX_NS, and VIRTIO_BLK_ROUTE_TRIAL_NS again once
 * the queue shows depth (each move is a KVM_IOEVENTFD call, whose SRCU
 * grace period is felt by every vCPU).  (Measured in the
 * emulated host, fio 4 KiB random reads from a file on tmpfs, two vCPUs
 * on two host CPUs, one round: depth 1 2843 IOPS in the exit, 2212 on
 * the I/O thread; depth 32 served in the exit without trials 3174, on
 * the I/O thread 10 339.)  Decided after each notification's pass,
 * through the core's route hook (none: nothing moves).  With on false
 * notifications stay where the owner bound them.  A reset leaves the
 * routes, episodes and trials as they are, so moves stay at least
 * VIRTIO_BLK_POLL_EPISODE_NS apart whatever the guest does: two
 * KVM_IOEVENTFD calls per queue per 100 ms at most.
 */
#define VIRTIO_BLK_ROUTE_TRIAL_NS 100000000ULL
#define VIRTIO_BLK_ROUTE_TRIAL_MAX_NS 800000000ULL
#define VIRTIO_BLK_ROUTE_TRIAL_NOTIFIES 8
void virtio_blk_set_route(struct virtio_blk *blk, bool on);

/*
 * The I/O thread's poller (vmm/iothread.h): one look at the queues while
 * a window is open.  Returns when to look again, in ns: 0 at once
 * (nothing in flight), what is left of the window (requests in flight:
 * their completions wake the thread), -1 when the window closed.
 */
int64_t virtio_blk_busy_poll(struct virtio_blk *blk);

/*
 * The production backend: a raw image file or a block device.
 *
 * Opened O_RDWR (O_RDONLY when read_only), O_CLOEXEC, and O_DIRECT when
 * direct is set: guest buffers go to preadv/pwritev as they are, except
 * that with O_DIRECT a request with a buffer address or length that is
 * not a multiple of 512 goes through an aligned bounce buffer (on
 * 4 KiB-logical-block devices unaligned guest I/O then fails with IOERR).  The size comes from fstat
 * (files) or BLKGETSIZE64 (block devices); other file types are refused.
 * A writable opener takes an exclusive OFD lock on the whole file, a
 * read-only one a shared lock, held until close: a conflicting opener (in
 * this or another process) gets -EBUSY and a clear error.  A writable
 * block device is also opened O_EXCL (-EBUSY while mounted).
 *
 * readv/writev loop over short transfers and EINTR; flush is fdatasync();
 * discard punches a hole (a no-op where that is not supported: discard
 * is advisory); write_zeroes uses FALLOC_FL_ZERO_RANGE and falls back to
 * writing zeroes where that is not supported.
 */
struct virtio_blk_file {
	int fd;
	uint64_t size;
	bool read_only, direct, is_blkdev;
	bool in_memory;	    /* on tmpfs, ramfs or hugetlbfs */
	bool no_zero_range; /* ZERO_RANGE unsupported: write zeroes instead */
	bool no_punch_hole; /* PUNCH_HOLE unsupported: discard is a no-op */
	uint8_t *zeroes;    /* VIRTIO_BLK_ZEROES aligned zero bytes */
};

extern const struct virtio_blk_disk_ops virtio_blk_file_ops;

/* The image format whose header starts buf ("qcow", ...), NULL for raw. */
const char *virtio_blk_file_format(const void *buf, size_t len);

/*
 * 0 or -errno (logged with the path); -EBUSY when locked by another,
 * -EMEDIUMTYPE for an image format lkvm does not serve (qcow, ...).
 */
int virtio_blk_file_open(struct virtio_blk_file *f, const char *path,
			 bool read_only, bool direct);
/* The same, with no format check: the bytes are the disk (-d IMG,raw). */
int virtio_blk_file_open_raw(struct virtio_blk_file *f, const char *path,
			     bool read_only, bool direct);
/* Closes the file (dropping the lock); a no-op after a failed open. */
void virtio_blk_file_close(struct virtio_blk_file *f);

/* A disk description for f (ops, opaque, size, read_only, id). */
void virtio_blk_file_disk(struct virtio_blk_file *f, const char *id,
			  struct virtio_blk_disk *disk);

#endif
