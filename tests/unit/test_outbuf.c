// SPDX-License-Identifier: GPL-2.0
/*
 * The console output buffer: write-through, a stalled sink (EAGAIN,
 * partial writes), a full ring with back-pressure or drops, a failing
 * sink, and the real thing: a pipe nobody reads through outfd.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/log.h"
#include "vmm/host/outbuf.h"
#include "vmm/host/outfd.h"

#define RING 16
#define STALL_MS 50

/* A scripted sink: takes at most 'room' bytes, or fails with 'err'. */
struct sink {
	uint8_t got[4096];
	size_t len;
	size_t room;
	int err;
	unsigned int calls;
};

static ssize_t sink_write(void *opaque, const uint8_t *buf, size_t len)
{
	struct sink *s = opaque;

	s->calls++;
	if (s->err)
		return s->err;
	if (!s->room)
		return -EAGAIN;
	if (len > s->room)
		len = s->room;
	assert_true(s->len + len <= sizeof(s->got));
	memcpy(s->got + s->len, buf, len);
	s->len += len;
	s->room -= len;
	return len;
}

struct fx {
	struct outbuf ob;
	uint8_t ring[RING];
	struct sink sink;
	unsigned int wakes;
};

static void fx_wake(void *opaque)
{
	struct fx *f = opaque;

	f->wakes++;
}

static int setup(void **state)
{
	struct fx *f = test_calloc(1, sizeof(*f));
	const struct outbuf_sink sink = { sink_write, &f->sink };

	log_level = -1;
	if (!f || outbuf_init(&f->ob, f->ring, RING, STALL_MS, fx_wake, f))
		return -1;
	f->sink.room = SIZE_MAX;
	outbuf_set_sink(&f->ob, &sink);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	outbuf_destroy(&f->ob);
	test_free(f);
	return 0;
}

static size_t put(struct fx *f, const char *s, bool lossy)
{
	return outbuf_put(&f->ob, (const uint8_t *)s, strlen(s), lossy);
}

static void assert_got(const struct fx *f, const char *s)
{
	assert_int_equal(f->sink.len, strlen(s));
	assert_memory_equal(f->sink.got, s, f->sink.len);
}

static ssize_t flush(struct fx *f, bool *room)
{
	return outbuf_flush(&f->ob, room);
}

/* A sink that takes everything: straight through, nothing buffered. */
static void test_write_through(void **state)
{
	struct fx *f = *state;
	bool room;

	assert_int_equal(put(f, "hello, world, hello!", false), 20);
	assert_got(f, "hello, world, hello!");
	assert_int_equal(outbuf_pending(&f->ob), 0);
	assert_int_equal(f->wakes, 0);
	assert_int_equal(flush(f, &room), 0);
	assert_false(room);
}

/* EAGAIN: the bytes wait, the drainer is woken once, order is kept. */
static void test_eagain_buffers(void **state)
{
	struct fx *f = *state;
	bool room;

	f->sink.room = 0;
	assert_int_equal(put(f, "abc", false), 3);
	assert_int_equal(outbuf_pending(&f->ob), 3);
	assert_int_equal(f->wakes, 1);
	/* bytes wait: later output queues behind them, no second wake */
	f->sink.room = SIZE_MAX;
	assert_int_equal(put(f, "def", false), 3);
	assert_int_equal(f->sink.len, 0);
	assert_int_equal(f->wakes, 1);
	assert_int_equal(flush(f, &room), 0);
	assert_false(room);
	assert_got(f, "abcdef");
	/* empty again: write-through again */
	assert_int_equal(put(f, "g", false), 1);
	assert_got(f, "abcdefg");
}

/* A partial write: the rest is buffered, the flush goes on later. */
static void test_partial_writes(void **state)
{
	struct fx *f = *state;
	bool room;

	f->sink.room = 2;
	assert_int_equal(put(f, "0123456789", false), 10);
	assert_got(f, "01");
	assert_int_equal(outbuf_pending(&f->ob), 8);
	f->sink.room = 3;
	assert_int_equal(flush(f, &room), 5);
	assert_got(f, "01234");
	f->sink.room = SIZE_MAX;
	assert_int_equal(flush(f, &room), 0);
	assert_got(f, "0123456789");
}

/*
 * Full, back-pressure: a prefix is taken, the rest refused; the
 * producer is told there is room only once half the ring is free.
 */
static void test_full_back_pressure(void **state)
{
	struct fx *f = *state;
	bool room;

	f->sink.room = 0;
	assert_int_equal(put(f, "0123456789abcdefXYZ", false), RING);
	assert_int_equal(outbuf_pending(&f->ob), RING);
	assert_int_equal(put(f, "XYZ", false), 0);
	assert_int_equal(outbuf_dropped(&f->ob), 0);
	f->sink.room = 4;
	assert_int_equal(flush(f, &room), RING - 4);
	assert_false(room); /* 4 free: not yet half */
	f->sink.room = 4;
	assert_int_equal(flush(f, &room), RING / 2);
	assert_true(room);
	assert_int_equal(flush(f, &room), RING / 2);
	assert_false(room); /* reported once */
	/* the ring wraps: the refused bytes follow, in order */
	assert_int_equal(put(f, "XYZ", false), 3);
	f->sink.room = SIZE_MAX;
	assert_int_equal(flush(f, &room), 0);
	assert_got(f, "0123456789abcdefXYZ");
}

/*
 * A refused producer waits STALL_MS at most: then output is dropped
 * (counted) until a flush leaves the ring half empty; then back-pressure
 * again.
 */
static void test_stall_turns_to_dropping(void **state)
{
	struct fx *f = *state;
	bool resume, room;
	long left;

	f->sink.room = 0;
	assert_int_equal(outbuf_wait_ms(&f->ob, &resume), -1);
	assert_int_equal(put(f, "0123456789abcdefXYZ", false), RING);
	assert_int_equal(f->wakes, 2); /* bytes wait; a producer waits */
	left = outbuf_wait_ms(&f->ob, &resume);
	assert_true(left > 0 && left <= STALL_MS);
	assert_false(resume);
	usleep((STALL_MS + 10) * 1000);
	assert_int_equal(outbuf_wait_ms(&f->ob, &resume), -1);
	assert_true(resume);
	/* dropping: the refused producer's output is taken, and counted */
	assert_int_equal(put(f, "XYZ", false), 3);
	assert_int_equal(outbuf_dropped(&f->ob), 3);
	assert_int_equal(outbuf_wait_ms(&f->ob, &resume), -1);
	assert_false(resume);
	/* stdout drains to half: back-pressure again, nothing lost since */
	f->sink.room = RING / 2;
	assert_int_equal(outbuf_flush(&f->ob, &room), RING / 2);
	assert_false(room);
	assert_int_equal(put(f, "0123456789", false), RING / 2);
	assert_int_equal(outbuf_dropped(&f->ob), 3);
	assert_true(outbuf_wait_ms(&f->ob, &resume) > 0);
}

/* Full, lossy: everything is "taken", what did not fit is counted. */
static void test_full_lossy_counts(void **state)
{
	struct fx *f = *state;
	bool room;

	f->sink.room = 0;
	assert_int_equal(put(f, "0123456789", true), 10);
	assert_int_equal(put(f, "abcdefghij", true), 10);
	assert_int_equal(outbuf_pending(&f->ob), RING);
	assert_int_equal(outbuf_dropped(&f->ob), 4);
	assert_int_equal(put(f, "x", true), 1);
	assert_int_equal(outbuf_dropped(&f->ob), 5);
	f->sink.room = SIZE_MAX;
	assert_int_equal(flush(f, &room), 0);
	assert_false(room); /* no producer was refused */
	assert_got(f, "0123456789abcdef");
}

/* A failing sink (EPIPE): output is discarded and counted, not kept. */
static void test_sink_error(void **state)
{
	struct fx *f = *state;
	bool room;

	f->sink.room = 0;
	assert_int_equal(put(f, "0123456789abcdefgh", false), RING);
	f->sink.err = -EPIPE;
	assert_int_equal(flush(f, &room), -EPIPE);
	assert_true(room); /* the refused producer must not wait forever */
	assert_int_equal(outbuf_pending(&f->ob), 0);
	assert_int_equal(outbuf_dropped(&f->ob), RING);
	f->sink.calls = 0;
	assert_int_equal(put(f, "more", false), 4);
	assert_int_equal(outbuf_dropped(&f->ob), RING + 4);
	assert_int_equal(f->sink.calls, 0);
}

/* The error may also come on the write-through path. */
static void test_sink_error_write_through(void **state)
{
	struct fx *f = *state;
	bool room;

	f->sink.err = -EIO;
	assert_int_equal(put(f, "abc", true), 3);
	assert_int_equal(outbuf_dropped(&f->ob), 3);
	assert_int_equal(outbuf_pending(&f->ob), 0);
	assert_int_equal(flush(f, &room), -EIO);
}

/* No sink yet: bytes wait (up to the ring) until one is attached. */
static void test_no_sink_yet(void **state)
{
	struct fx *f = *state;
	const struct outbuf_sink sink = { sink_write, &f->sink };
	bool room;

	outbuf_set_sink(&f->ob, NULL);
	assert_int_equal(put(f, "early", false), 5);
	assert_int_equal(flush(f, &room), 5);
	assert_int_equal(f->sink.calls, 0);
	outbuf_set_sink(&f->ob, &sink);
	assert_int_equal(flush(f, &room), 0);
	assert_got(f, "early");
}

static void test_init_errors(void **state)
{
	struct outbuf ob;
	uint8_t ring[4];

	(void)state;
	assert_int_equal(outbuf_init(&ob, NULL, 4, 0, NULL, NULL), -EINVAL);
	assert_int_equal(outbuf_init(&ob, ring, 0, 0, NULL, NULL), -EINVAL);
}

/* --- the real thing: a pipe nobody reads ------------------------------- */

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * A blocking pipe (as a shell gives it) is reopened non-blocking: a
 * flood neither blocks nor changes the shell's file's flags; the data
 * that went in comes out in order when the reader reads.
 */
static void test_stalled_pipe(void **state)
{
	static uint8_t ring[64 * 1024], chunk[4096], back[8192];
	struct outbuf ob;
	struct outfd o;
	struct outbuf_sink sink = { outfd_sink_write, &o };
	struct timespec t0;
	int p[2];
	size_t total = 0;
	ssize_t n;
	bool room;

	(void)state;
	assert_int_equal(pipe(p), 0);
	outfd_open(&o, p[1]);
	assert_int_equal(o.kind, OUTFD_REOPENED);
	assert_int_not_equal(o.fd, p[1]);
	assert_false(fcntl(p[1], F_GETFL) & O_NONBLOCK);
	assert_int_equal(outbuf_init(&ob, ring, sizeof(ring), 100, NULL, NULL),
			 0);
	outbuf_set_sink(&ob, &sink);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned int i = 0; i < 256; i++) { /* 1 MiB */
		memset(chunk, 'a' + i % 26, sizeof(chunk));
		total += outbuf_put(&ob, chunk, sizeof(chunk), true);
	}
	assert_true(ms_since(&t0) < 1000);
	assert_int_equal(total, 256 * sizeof(chunk));
	/* the pipe (64 KiB) and the ring (64 KiB) are full, the rest dropped */
	assert_int_equal(outbuf_pending(&ob), sizeof(ring));
	assert_int_equal(outbuf_dropped(&ob), 256 * sizeof(chunk) - 2 * 65536);
	assert_int_equal(outbuf_flush(&ob, &room), sizeof(ring));
	/* the reader wakes up: the first bytes are the first written */
	n = read(p[0], back, sizeof(back));
	assert_true(n > 0);
	assert_int_equal(back[0], 'a');
	assert_int_equal(back[4096], 'b');
	assert_true(outbuf_flush(&ob, &room) < (ssize_t)sizeof(ring));
	outbuf_set_sink(&ob, NULL);
	outfd_close(&o);
	assert_false(fcntl(p[1], F_GETFL) & O_NONBLOCK);
	/* the reader goes away: EPIPE, output discarded, nothing blocks */
	close(p[0]);
	assert_true(outbuf_flush(&ob, &room) > 0); /* no sink: bytes wait */
	outfd_open(&o, p[1]);
	outbuf_set_sink(&ob, &sink);
	assert_int_equal(outbuf_flush(&ob, &room), -EPIPE);
	assert_int_equal(outbuf_put(&ob, chunk, 10, false), 10);
	outfd_close(&o);
	outbuf_destroy(&ob);
	close(p[1]);
}

/* A regular file is written as it is (shared offset, O_APPEND kept). */
static void test_regular_file(void **state)
{
	char path[] = "/tmp/rvkvm-outfd-XXXXXX";
	int fd = mkstemp(path);
	struct outfd o;

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	outfd_open(&o, fd);
	assert_int_equal(o.kind, OUTFD_FILE);
	assert_int_equal(o.fd, fd);
	assert_int_equal(outfd_write(&o, (const uint8_t *)"abc", 3), 3);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 3);
	outfd_close(&o);
	close(fd);
}

/*
 * Log lines to a stalled stderr: the first waits LOG_STALL_MS at most
 * and is dropped, the next are dropped at once; once the reader reads,
 * lines get through again.
 */
static void test_log_stalled(void **state)
{
	static char fill[65536];
	struct timespec t0;
	char back[256];
	int p[2];
	long ms;

	(void)state;
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	memset(fill, 'x', sizeof(fill));
	while (write(p[1], fill, sizeof(fill)) > 0)
		;
	log_level = LOG_INFO;
	log_set_output(p[1], false);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pr_info("first");
	ms = ms_since(&t0);
	assert_true(ms >= LOG_STALL_MS - 10 && ms < LOG_STALL_MS + 500);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 100; i++) {
		/* A dropped line leaves errno alone: "-errno after a line". */
		errno = ENOSPC;
		pr_info("more %d", i);
		assert_int_equal(errno, ENOSPC);
	}
	assert_true(ms_since(&t0) < 100);
	assert_int_equal(log_dropped(), 101);
	while (read(p[0], fill, sizeof(fill)) > 0)
		;
	pr_info("through");
	assert_int_equal(read(p[0], back, sizeof(back)), 14);
	assert_memory_equal(back, "lkvm: through\n", 14);
	log_set_output(-1, false);
	log_level = -1;
	close(p[0]);
	close(p[1]);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_write_through),
		T(test_eagain_buffers),
		T(test_partial_writes),
		T(test_full_back_pressure),
		T(test_stall_turns_to_dropping),
		T(test_full_lossy_counts),
		T(test_sink_error),
		T(test_sink_error_write_through),
		T(test_no_sink_yet),
		cmocka_unit_test(test_init_errors),
		cmocka_unit_test(test_stalled_pipe),
		cmocka_unit_test(test_regular_file),
		cmocka_unit_test(test_log_stalled),
	};

	signal(SIGPIPE, SIG_IGN); /* as lkvm does (signals.c) */
	return cmocka_run_group_tests_name("outbuf", tests, NULL, NULL);
}
