// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "vmm/host/iothread.h"

struct counter {
	int fd;
	atomic_int hits;
};

static void on_event(void *opaque)
{
	struct counter *c = opaque;
	uint64_t v;

	if (read(c->fd, &v, sizeof(v)) == sizeof(v))
		atomic_fetch_add(&c->hits, (int)v);
}

static void wait_hits(struct counter *c, int want)
{
	for (int i = 0; i < 2000 && atomic_load(&c->hits) < want; i++)
		usleep(1000);
}

static void test_handlers_run_on_events(void **state)
{
	struct iothread t;
	struct counter a = { .fd = eventfd(0, 0) }, b = { .fd = eventfd(0, 0) };
	uint64_t one = 1, three = 3;

	(void)state;
	assert_int_equal(iothread_init(&t), 0);
	assert_int_equal(iothread_add(&t, a.fd, on_event, &a), 0);
	assert_int_equal(iothread_add(&t, b.fd, on_event, &b), 0);
	assert_int_equal(iothread_start(&t), 0);
	assert_int_equal(write(a.fd, &one, 8), 8);
	assert_int_equal(write(b.fd, &three, 8), 8);
	wait_hits(&a, 1);
	wait_hits(&b, 3);
	assert_int_equal(atomic_load(&a.hits), 1);
	assert_int_equal(atomic_load(&b.hits), 3);
	iothread_stop(&t);
	close(a.fd);
	close(b.fd);
}

/* Counts wake-ups of a socket whose peer hung up; reads nothing. */
static void on_hup(void *opaque)
{
	atomic_fetch_add((atomic_int *)opaque, 1);
}

/*
 * A watched-off fd leaves the epoll set: not even a hang-up (which epoll
 * reports whatever the events asked for) wakes the thread; watched on
 * again, it does.  Idempotent both ways.
 */
static void test_watch_off_ignores_hangup(void **state)
{
	struct iothread t;
	atomic_int hits = 0;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(iothread_init(&t), 0);
	assert_int_equal(iothread_add(&t, sv[0], on_hup, &hits), 0);
	assert_int_equal(iothread_watch(&t, sv[0], false), 0);
	assert_int_equal(iothread_watch(&t, sv[0], false), 0);
	assert_int_equal(iothread_start(&t), 0);
	close(sv[1]);
	usleep(50000);
	assert_int_equal(atomic_load(&hits), 0);
	assert_int_equal(iothread_watch(&t, sv[0], true), 0);
	assert_int_equal(iothread_watch(&t, sv[0], true), 0);
	for (int i = 0; i < 2000 && !atomic_load(&hits); i++)
		usleep(1000);
	assert_true(atomic_load(&hits) > 0);
	assert_int_equal(iothread_watch(&t, sv[0], false), 0);
	assert_int_equal(iothread_watch(&t, 12345, true), -ENOENT);
	iothread_stop(&t);
	close(sv[0]);
}

static void test_bounded_fd_table(void **state)
{
	struct iothread t;
	struct counter c = { .fd = eventfd(0, 0) };
	int fds[IOTHREAD_MAX_FDS];

	(void)state;
	assert_int_equal(iothread_init(&t), 0);
	for (int i = 0; i < IOTHREAD_MAX_FDS; i++) {
		fds[i] = eventfd(0, 0);
		assert_int_equal(iothread_add(&t, fds[i], on_event, &c), 0);
	}
	assert_int_equal(iothread_add(&t, c.fd, on_event, &c), -ENOSPC);
	assert_int_equal(iothread_start(&t), 0);
	iothread_stop(&t);
	for (int i = 0; i < IOTHREAD_MAX_FDS; i++)
		close(fds[i]);
	close(c.fd);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A poller that wants `limit` more turns, each within `ns`, then none. */
struct script {
	atomic_int turns;
	int limit;
	int64_t ns;
	_Atomic uint64_t first, last; /* when the first and last turn ran */
};

static int64_t scripted_poll(void *opaque)
{
	struct script *s = opaque;
	int n = atomic_fetch_add(&s->turns, 1) + 1;
	uint64_t t = now_ns();

	if (n == 1)
		atomic_store(&s->first, t);
	atomic_store(&s->last, t);
	return n < s->limit ? s->ns : -1;
}

static void wait_turns(struct script *s, int want)
{
	for (int i = 0; i < 5000 && atomic_load(&s->turns) < want; i++)
		usleep(1000);
}

/* An I/O thread with one eventfd and up to two scripted pollers. */
struct loop {
	struct iothread t;
	struct counter c;
};

/*
 * The pollers' first turn comes after the first event (until then the
 * loop sleeps without a timeout).  no_pwait2: as after epoll_pwait2 said
 * ENOSYS (kernels before 5.11).
 */
static void loop_start(struct loop *l, bool no_pwait2, struct script *a,
		       struct script *b)
{
	l->c = (struct counter){ .fd = eventfd(0, 0) };
	assert_int_equal(iothread_init(&l->t), 0);
	assert_int_equal(iothread_add(&l->t, l->c.fd, on_event, &l->c), 0);
	l->t.no_pwait2 = no_pwait2;
	assert_int_equal(iothread_add_poller(&l->t, scripted_poll, a), 0);
	if (b)
		assert_int_equal(iothread_add_poller(&l->t, scripted_poll, b),
				 0);
	assert_int_equal(iothread_start(&l->t), 0);
}

static void loop_event(struct loop *l)
{
	uint64_t one = 1;

	assert_int_equal(write(l->c.fd, &one, 8), 8);
}

static void loop_stop(struct loop *l)
{
	iothread_stop(&l->t);
	close(l->c.fd);
}

/* s ran its `limit` turns, the first and last at least min_ns apart. */
static void assert_turns_span(struct script *s, uint64_t min_ns)
{
	wait_turns(s, s->limit);
	assert_int_equal(atomic_load(&s->turns), s->limit);
	assert_true(atomic_load(&s->last) - atomic_load(&s->first) >= min_ns);
}

/*
 * A poller that answers 0 gets its next turn at once, without an event;
 * once it answers -1 the loop sleeps until an fd is ready, and then the
 * poller runs again.
 */
static void test_poller_busy_then_sleeps(void **state)
{
	struct script s = { .limit = 100, .ns = 0 };
	struct loop l;

	(void)state;
	loop_start(&l, false, &s, NULL);
	usleep(20000);
	assert_int_equal(atomic_load(&s.turns), 0); /* no event yet */
	loop_event(&l);
	wait_turns(&s, 100);
	assert_int_equal(atomic_load(&s.turns), 100);
	usleep(50000);
	assert_int_equal(atomic_load(&s.turns), 100); /* asleep now */
	loop_event(&l);
	wait_turns(&s, 101);
	usleep(20000);
	assert_int_equal(atomic_load(&s.turns), 101);
	loop_stop(&l);
}

/*
 * A poller that answers N ns is not spun: the loop waits that long
 * between its turns (a lower bound, which no load can break), and the
 * soonest answer of two pollers sets the wait.
 */
static void test_poller_timeout_in_ns(void **state)
{
	struct script a = { .limit = 6, .ns = 3000000 };	 /* 3 ms */
	struct script b = { .limit = 1000000, .ns = 200000000 }; /* 200 ms */
	struct loop l;

	(void)state;
	loop_start(&l, false, &a, &b);
	loop_event(&l);
	/* Five waits of 3 ms between six turns; b ran on each turn too. */
	assert_turns_span(&a, 15000000);
	assert_true(atomic_load(&b.turns) >= 6);
	loop_stop(&l);
}

/*
 * Without epoll_pwait2 the timeout goes to epoll_wait in ms, rounded up:
 * 100 us becomes 1 ms, never 0 (a spin).
 */
static void test_poller_ms_fallback_rounds_up(void **state)
{
	struct script s = { .limit = 11, .ns = 100000 }; /* 100 us */
	struct loop l;

	(void)state;
	loop_start(&l, true, &s, NULL);
	loop_event(&l);
	assert_turns_span(&s, 10000000); /* ten waits of at least 1 ms */
	loop_stop(&l);
}

static void test_bounded_pollers(void **state)
{
	struct iothread t;
	struct script s = { .limit = 1 };

	(void)state;
	assert_int_equal(iothread_init(&t), 0);
	for (int i = 0; i < IOTHREAD_MAX_POLLERS; i++)
		assert_int_equal(iothread_add_poller(&t, scripted_poll, &s), 0);
	assert_int_equal(iothread_add_poller(&t, scripted_poll, &s), -ENOSPC);
	iothread_stop(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handlers_run_on_events),
		cmocka_unit_test(test_watch_off_ignores_hangup),
		cmocka_unit_test(test_bounded_fd_table),
		cmocka_unit_test(test_poller_busy_then_sleeps),
		cmocka_unit_test(test_poller_timeout_in_ns),
		cmocka_unit_test(test_poller_ms_fallback_rounds_up),
		cmocka_unit_test(test_bounded_pollers),
	};

	return cmocka_run_group_tests_name("iothread", tests, NULL, NULL);
}
