// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vmm/host/hostcons.h"

static size_t filter(struct hostcons *c, const char *in, char *out, bool *stop)
{
	return hostcons_filter(c, (const uint8_t *)in, strlen(in),
			       (uint8_t *)out, stop);
}

static void test_plain_bytes_pass(void **state)
{
	struct hostcons c;
	char out[32];
	bool stop;

	(void)state;
	hostcons_init(&c);
	assert_int_equal(filter(&c, "ls -l\n", out, &stop), 6);
	assert_memory_equal(out, "ls -l\n", 6);
	assert_false(stop);
	hostcons_destroy(&c);
}

static void test_ctrl_a_x_stops(void **state)
{
	struct hostcons c;
	char out[32];
	bool stop;

	(void)state;
	hostcons_init(&c);
	assert_int_equal(filter(&c, "ab\001xcd", out, &stop), 2);
	assert_true(stop);
	hostcons_destroy(&c);
}

static void test_escape_across_reads(void **state)
{
	struct hostcons c;
	char out[32];
	bool stop;

	(void)state;
	hostcons_init(&c);
	assert_int_equal(filter(&c, "a\001", out, &stop), 1);
	assert_false(stop);
	assert_int_equal(filter(&c, "x", out, &stop), 0);
	assert_true(stop);
	hostcons_destroy(&c);
}

static void test_ctrl_a_ctrl_a_sends_one(void **state)
{
	struct hostcons c;
	char out[32];
	bool stop;

	(void)state;
	hostcons_init(&c);
	assert_int_equal(filter(&c, "\001\001z", out, &stop), 2);
	assert_memory_equal(out, "\001z", 2);
	/* Ctrl-A then another key sends both. */
	assert_int_equal(filter(&c, "\001c", out, &stop), 2);
	assert_memory_equal(out, "\001c", 2);
	assert_false(stop);
	hostcons_destroy(&c);
}

static void test_queue_bounded_fifo(void **state)
{
	static uint8_t big[HOSTCONS_QUEUE_SIZE + 10], back[HOSTCONS_QUEUE_SIZE];
	struct hostcons c;

	(void)state;
	hostcons_init(&c);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = i * 7;
	assert_int_equal(hostcons_push(&c, big, 3), 3);
	assert_int_equal(hostcons_pop(&c, back, 2), 2);
	assert_memory_equal(back, big, 2);
	assert_int_equal(hostcons_push(&c, big + 3, sizeof(big) - 3),
			 HOSTCONS_QUEUE_SIZE - 1);
	assert_int_equal(hostcons_pop(&c, back, sizeof(back)),
			 HOSTCONS_QUEUE_SIZE);
	assert_int_equal(back[0], big[2]);
	assert_memory_equal(back + 1, big + 3, HOSTCONS_QUEUE_SIZE - 1);
	assert_int_equal(hostcons_pop(&c, back, 1), 0);
	hostcons_destroy(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_bytes_pass),
		cmocka_unit_test(test_ctrl_a_x_stops),
		cmocka_unit_test(test_escape_across_reads),
		cmocka_unit_test(test_ctrl_a_ctrl_a_sends_one),
		cmocka_unit_test(test_queue_bounded_fifo),
	};

	return cmocka_run_group_tests_name("console", tests, NULL, NULL);
}
