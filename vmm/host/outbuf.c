// SPDX-License-Identifier: GPL-2.0
/* The bounded console output buffer; see outbuf.h. */
#include <errno.h>
#include <string.h>

#include "vmm/host/outbuf.h"

static long ob_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

int outbuf_init(struct outbuf *ob, uint8_t *ring, size_t size,
		unsigned int stall_ms, void (*wake)(void *opaque),
		void *wake_opaque)
{
	if (!ring || !size)
		return -EINVAL;
	*ob = (struct outbuf){
		.ring = ring,
		.size = size,
		.stall_ms = stall_ms,
		.wake = wake,
		.wake_opaque = wake_opaque,
	};
	return -pthread_mutex_init(&ob->lock, NULL);
}

void outbuf_destroy(struct outbuf *ob)
{
	pthread_mutex_destroy(&ob->lock);
}

void outbuf_set_sink(struct outbuf *ob, const struct outbuf_sink *sink)
{
	pthread_mutex_lock(&ob->lock);
	ob->sink = sink ? *sink : (struct outbuf_sink){ 0 };
	pthread_mutex_unlock(&ob->lock);
}

/* Lock held.  The sink failed: discard what waits, and all output after. */
static void ob_fail(struct outbuf *ob, int err)
{
	ob->error = err;
	atomic_fetch_add(&ob->dropped, ob->len);
	ob->head = ob->len = 0;
}

/*
 * Lock held.  One write to the sink: bytes taken, 0 when it would block
 * (or took nothing), or -1 when it failed (then the buffer is broken).
 */
static ssize_t ob_sink_write(struct outbuf *ob, const uint8_t *buf, size_t len)
{
	ssize_t n = ob->sink.write(ob->sink.opaque, buf, len);

	if (n >= 0 || n == -EAGAIN)
		return n > 0 ? n : 0;
	ob_fail(ob, (int)n);
	return -1;
}

/* Lock held, nothing buffered: write through while the sink takes it. */
static size_t ob_write_through(struct outbuf *ob, const uint8_t *buf,
			       size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = ob_sink_write(ob, buf + done, len - done);

		if (n <= 0)
			break; /* would block, or broken: see the caller */
		done += n;
	}
	return done;
}

/* Lock held.  Copy as much of buf as fits into the ring. */
static size_t ob_store(struct outbuf *ob, const uint8_t *buf, size_t len)
{
	size_t room = ob->size - ob->len, tail, first;

	if (len > room)
		len = room;
	if (!len)
		return 0;
	tail = (ob->head + ob->len) % ob->size;
	first = ob->size - tail < len ? ob->size - tail : len;
	memcpy(ob->ring + tail, buf, first);
	memcpy(ob->ring, buf + first, len - first);
	if (!ob->len && ob->wake)
		ob->wake(ob->wake_opaque);
	ob->len += len;
	return len;
}

size_t outbuf_put(struct outbuf *ob, const uint8_t *buf, size_t len, bool lossy)
{
	size_t took = 0;

	pthread_mutex_lock(&ob->lock);
	lossy |= ob->dropping;
	if (!ob->error && !ob->len && ob->sink.write)
		took = ob_write_through(ob, buf, len);
	if (ob->error) {
		/* Nobody will read it: taken, and counted as dropped. */
		atomic_fetch_add(&ob->dropped, len - took);
		took = len;
	}
	took += ob_store(ob, buf + took, len - took);
	if (took < len && lossy) {
		atomic_fetch_add(&ob->dropped, len - took);
		took = len;
	} else if (took < len && !ob->wanted) {
		/* The drainer must time the wait (outbuf_wait_ms()). */
		ob->wanted = true;
		clock_gettime(CLOCK_MONOTONIC, &ob->refused_at);
		if (ob->wake)
			ob->wake(ob->wake_opaque);
	}
	pthread_mutex_unlock(&ob->lock);
	return took;
}

ssize_t outbuf_flush(struct outbuf *ob, bool *room)
{
	ssize_t ret;

	pthread_mutex_lock(&ob->lock);
	while (ob->len && ob->sink.write && !ob->error) {
		size_t chunk = ob->size - ob->head;
		ssize_t n = ob_sink_write(ob, ob->ring + ob->head,
					  chunk < ob->len ? chunk : ob->len);

		if (n <= 0)
			break;
		ob->head = (ob->head + n) % ob->size;
		ob->len -= n;
	}
	if (!ob->len)
		ob->head = 0;
	/* Half the ring free before a refused producer is woken. */
	*room = ob->wanted && (ob->error || ob->len <= ob->size / 2);
	if (*room)
		ob->wanted = false;
	if (ob->len <= ob->size / 2)
		ob->dropping = false;
	ret = ob->error ? ob->error : (ssize_t)ob->len;
	pthread_mutex_unlock(&ob->lock);
	return ret;
}

long outbuf_wait_ms(struct outbuf *ob, bool *resume)
{
	long left = -1;

	*resume = false;
	pthread_mutex_lock(&ob->lock);
	if (ob->wanted) {
		left = ob->stall_ms - ob_ms_since(&ob->refused_at);
		if (left <= 0) {
			ob->wanted = false;
			ob->dropping = true;
			*resume = true;
			left = -1;
		}
	}
	pthread_mutex_unlock(&ob->lock);
	return left;
}

size_t outbuf_pending(struct outbuf *ob)
{
	size_t len;

	pthread_mutex_lock(&ob->lock);
	len = ob->len;
	pthread_mutex_unlock(&ob->lock);
	return len;
}

unsigned long outbuf_dropped(struct outbuf *ob)
{
	return atomic_load(&ob->dropped);
}
