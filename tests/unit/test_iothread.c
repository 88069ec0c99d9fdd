// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "vmm/iothread.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handlers_run_on_events),
		cmocka_unit_test(test_watch_off_ignores_hangup),
		cmocka_unit_test(test_bounded_fd_table),
	};

	return cmocka_run_group_tests_name("iothread", tests, NULL, NULL);
}
