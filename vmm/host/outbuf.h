/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outbuf: a bounded output buffer in front of a non-blocking sink (the
 * guest console's stdout).  Producers (vCPU threads, the I/O thread) never
 * wait on the sink: outbuf_put() writes straight through while nothing is
 * buffered and the sink takes it, keeps what the sink refused (EAGAIN, a
 * short write) in a ring of fixed size, and when the ring is full either
 * refuses the rest (back-pressure: the caller keeps it, e.g. in the
 * guest's virtqueue) or drops it and counts it (lossy: a UART byte).  One
 * drainer (the console thread) calls outbuf_flush() when the sink is
 * writable and, when it reports room, wakes the refused producers.
 *
 * Back-pressure is bounded in time: once a refused producer has waited
 * stall_ms without the drainer finding room (stdout is stalled, not just
 * slow), outbuf_wait_ms() turns the buffer to dropping: back-pressured
 * output is then taken and dropped (counted) like lossy output, until a
 * flush leaves the ring half empty again.  A producer that cannot wait
 * long (Linux's virtio console driver spins with interrupts off until
 * its buffer comes back) is so held for stall_ms at most.
 *
 * A sink that fails (EPIPE: nobody will ever read, EIO) turns the buffer
 * broken: from then on output is discarded and counted as dropped.  Bytes
 * are never reordered: a producer writes through only while the ring is
 * empty.
 *
 * Thread safe: one mutex, never held across a call that can block (the
 * sink must be non-blocking, or a regular file).
 */
#ifndef RVKVM_OUTBUF_H
#define RVKVM_OUTBUF_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Where buffered bytes go: bytes taken, -EAGAIN when full, or -errno. */
struct outbuf_sink {
	ssize_t (*write)(void *opaque, const uint8_t *buf, size_t len);
	void *opaque;
};

struct outbuf {
	pthread_mutex_t lock;
	uint8_t *ring;
	size_t size, head, len;	 /* len bytes wait from ring[head] on */
	struct outbuf_sink sink; /* write NULL: none yet, bytes wait */
	/*
	 * Called (lock held) when bytes start to wait (poll the sink) and
	 * when a producer is first refused (time its wait).
	 */
	void (*wake)(void *opaque);
	void *wake_opaque;
	bool wanted;		    /* a back-pressured producer was refused */
	bool dropping;		    /* stalled too long: see outbuf_wait_ms() */
	unsigned int stall_ms;	    /* how long a producer may be refused */
	struct timespec refused_at; /* when wanted was set */
	int error; /* the sink's failure (-errno): output discarded */
	atomic_ulong dropped;
};

/*
 * An empty buffer on ring[0..size), no sink; wake may be NULL; refused
 * producers wait at most stall_ms (see above).
 */
int outbuf_init(struct outbuf *ob, uint8_t *ring, size_t size,
		unsigned int stall_ms, void (*wake)(void *opaque),
		void *wake_opaque);
void outbuf_destroy(struct outbuf *ob);

/* Attach (sink) or detach (NULL) the sink. */
void outbuf_set_sink(struct outbuf *ob, const struct outbuf_sink *sink);

/*
 * Output len bytes of buf.  Returns how many were taken (written or
 * buffered), a prefix of buf.  lossy: the rest is dropped and counted,
 * and len is returned; otherwise the rest is refused and the producer is
 * owed a wake-up (outbuf_flush()'s *room).
 */
size_t outbuf_put(struct outbuf *ob, const uint8_t *buf, size_t len,
		  bool lossy);

/*
 * Write buffered bytes to the sink until it would block or the ring is
 * empty.  Returns the bytes still waiting, or the sink's -errno once it
 * failed (the ring is emptied then).  *room: a refused producer may try
 * again now (reported once per refusal).
 */
ssize_t outbuf_flush(struct outbuf *ob, bool *room);

/*
 * For the drainer's poll timeout: the milliseconds a refused producer
 * may still wait, or -1 when none waits.  When its time is up the buffer
 * turns to dropping, *resume is set (wake the producers: their output is
 * taken now) and -1 is returned.
 */
long outbuf_wait_ms(struct outbuf *ob, bool *resume);

/* Bytes waiting in the ring. */
size_t outbuf_pending(struct outbuf *ob);

/* Bytes dropped so far (lossy puts that did not fit, a failed sink). */
unsigned long outbuf_dropped(struct outbuf *ob);

#endif
