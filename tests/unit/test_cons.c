// SPDX-License-Identifier: GPL-2.0
/*
 * The console back-end with a real stdout: a pipe (as "lkvm | less" gives
 * it) that is not being read.  Guest output never blocks the producer,
 * the console thread drains the buffer once the reader reads, and the
 * console stops in bounded time with the pipe stalled.  stdout is the
 * test's own for the length of each test (cmocka prints there).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/log.h"
#include "vmm/machine/cons.h"

struct fx {
	struct vm_config cfg;
	struct vm vm;
	struct cons cons;
	struct uart8250 uart;
	int pipe[2];
	int saved_stdout, saved_stdin;
};

static const struct dev_res uart_res = { .base = 0x10000000, .size = 0x100 };

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* stdout: a blocking pipe nobody reads yet; stdin: /dev/null. */
static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	int null = open("/dev/null", O_RDONLY);

	log_level = -1;
	if (!f || null < 0 || pipe(f->pipe))
		return -1;
	f->cfg = (struct vm_config){ .nr_cpus = 1, .console = CONSOLE_SERIAL };
	if (vm_init(&f->vm, &f->cfg, 0x80000000) ||
	    uart8250_init(&f->uart, &uart_res, NULL, NULL))
		return -1;
	fflush(stdout);
	f->saved_stdout = dup(STDOUT_FILENO);
	f->saved_stdin = dup(STDIN_FILENO);
	dup2(f->pipe[1], STDOUT_FILENO);
	dup2(null, STDIN_FILENO);
	close(null);
	if (cons_init(&f->cons, &f->vm) || cons_input_start(&f->cons, &f->uart))
		return -1;
	*state = f;
	return 0;
}

static void restore_stdio(struct fx *f)
{
	if (f->saved_stdout < 0)
		return;
	dup2(f->saved_stdout, STDOUT_FILENO);
	dup2(f->saved_stdin, STDIN_FILENO);
	close(f->saved_stdout);
	close(f->saved_stdin);
	f->saved_stdout = -1;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	restore_stdio(f);
	cons_fini(&f->cons);
	uart8250_destroy(&f->uart);
	close(f->vm.stop_fd);
	close(f->pipe[0]);
	close(f->pipe[1]);
	free(f);
	return 0;
}

/* Stop the console: bounded even with stdout stalled. */
static long stop_ms(struct fx *f)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	cons_input_stop(&f->cons);
	restore_stdio(f);
	return ms_since(&t0);
}

/*
 * 1 MiB of serial output into an unread pipe: the producer is never held;
 * what fits waits, the rest is dropped and counted; the console stops in
 * about CONS_FLUSH_MS; the shell's pipe stays blocking.
 */
static void test_stalled_stdout_never_blocks(void **state)
{
	struct fx *f = *state;
	uint8_t chunk[1024];
	struct timespec t0;
	size_t took = 0;
	long ms;

	memset(chunk, 'u', sizeof(chunk));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 1024; i++)
		took += f->cons.out.write(f->cons.out.opaque, chunk,
					  sizeof(chunk));
	ms = ms_since(&t0);
	/* back-pressure sink: refuses, never waits */
	assert_int_equal(f->cons.vcon_out.write(f->cons.vcon_out.opaque, chunk,
						sizeof(chunk)),
			 0);
	assert_int_equal(took, 1024 * sizeof(chunk));
	assert_true(ms < 1000);
	/* held back for CONS_STALL_MS at most, then taken and dropped */
	usleep((CONS_STALL_MS + 150) * 1000);
	assert_int_equal(f->cons.vcon_out.write(f->cons.vcon_out.opaque, chunk,
						sizeof(chunk)),
			 sizeof(chunk));
	assert_true(outbuf_dropped(&f->cons.ob) >= 1024 * 1024 - 2 * 65536);
	ms = stop_ms(f);
	assert_true(ms >= CONS_FLUSH_MS - 20 && ms < CONS_FLUSH_MS + 700);
	assert_false(fcntl(f->pipe[1], F_GETFL) & O_NONBLOCK);
}

/* Once the reader reads, the console thread writes what waited, in order. */
static void test_drained_when_read(void **state)
{
	struct fx *f = *state;
	static uint8_t chunk[8192], got[200 * 1024];
	size_t len = 0, want = 0;
	struct pollfd p = { .fd = f->pipe[0], .events = POLLIN };

	for (int i = 0; i < 12; i++) { /* 96 KiB: more than the pipe holds */
		memset(chunk, 'a' + i, sizeof(chunk));
		want += f->cons.vcon_out.write(f->cons.vcon_out.opaque, chunk,
					       sizeof(chunk));
	}
	assert_int_equal(want, 12 * sizeof(chunk));
	assert_true(outbuf_pending(&f->cons.ob) > 0);
	while (len < want && poll(&p, 1, 2000) > 0) {
		ssize_t n = read(f->pipe[0], got + len, sizeof(got) - len);

		assert_true(n > 0);
		len += n;
	}
	assert_int_equal(len, want);
	for (size_t i = 0; i < len; i++)
		assert_int_equal(got[i], 'a' + i / sizeof(chunk));
	assert_int_equal(outbuf_dropped(&f->cons.ob), 0);
	assert_true(stop_ms(f) < 100); /* nothing left to flush */
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_stalled_stdout_never_blocks),
		T(test_drained_when_read),
	};

	signal(SIGPIPE, SIG_IGN); /* as lkvm does (signals.c) */
	return cmocka_run_group_tests_name("cons", tests, NULL, NULL);
}
