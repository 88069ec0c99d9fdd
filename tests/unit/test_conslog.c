// SPDX-License-Identifier: GPL-2.0
/* The console log: every byte to the file, the last lines kept. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "vmm/host/conslog.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;

	assert_non_null(f);
	*len = 0;
	assert_true(getdelim(&buf, len, '\0', f) >= 0 || feof(f));
	*len = ftell(f);
	fclose(f);
	return buf;
}

/* Everything, in order, also far more than the tail holds. */
static void test_file_gets_everything(void **state)
{
	char path[] = "/tmp/test-conslog-XXXXXX", line[32];
	struct conslog l;
	size_t len, at = 0;
	char *got;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	/* Truncated at open. */
	assert_int_equal(conslog_open(&l, path), 0);
	conslog_write(&l, "old", 3);
	conslog_close(&l);
	assert_int_equal(conslog_open(&l, path), 0);
	for (int i = 0; i < 5000; i++) {
		int n = snprintf(line, sizeof(line), "line %d\r\n", i);

		conslog_write(&l, line, n);
	}
	conslog_close(&l);
	got = slurp(path, &len);
	for (int i = 0; i < 5000; i++) {
		int n = snprintf(line, sizeof(line), "line %d\r\n", i);

		assert_memory_equal(got + at, line, n);
		at += n;
	}
	assert_int_equal(len, at);
	free(got);
	unlink(path);
}

static void test_tail_lines(void **state)
{
	char out[CONSLOG_TAIL_SIZE + 1];
	struct conslog l;

	(void)state;
	assert_int_equal(conslog_open(&l, NULL), 0);
	assert_int_equal(conslog_tail(&l, 5, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	conslog_write(&l, "a\r\nb\nc\nd\n", 9);
	assert_int_equal(conslog_tail(&l, 2, out, sizeof(out)), 4);
	assert_string_equal(out, "c\nd\n");
	assert_int_equal(conslog_tail(&l, 10, out, sizeof(out)), 8);
	assert_string_equal(out, "a\nb\nc\nd\n");
	/* An unfinished last line counts as one. */
	conslog_write(&l, "partial", 7);
	conslog_tail(&l, 2, out, sizeof(out));
	assert_string_equal(out, "d\npartial");
	/* A small buffer gets the start of the tail, terminated. */
	assert_int_equal(conslog_tail(&l, 2, out, 4), 3);
	assert_string_equal(out, "d\np");
	conslog_close(&l);
}

/* Past the ring's size: the last CONSLOG_TAIL_SIZE bytes at most. */
static void test_tail_wraps(void **state)
{
	static char big[3 * CONSLOG_TAIL_SIZE], out[CONSLOG_TAIL_SIZE + 1];
	struct conslog l;

	(void)state;
	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = 'E';
	assert_int_equal(conslog_open(&l, NULL), 0);
	conslog_write(&l, "first\n", 6);
	conslog_write(&l, big, sizeof(big));
	assert_int_equal(conslog_tail(&l, 3, out, sizeof(out)),
			 CONSLOG_TAIL_SIZE);
	assert_int_equal(out[CONSLOG_TAIL_SIZE - 1], 'E');
	assert_null(strstr(out, "first"));
	conslog_write(&l, "\nlast\n", 6);
	conslog_tail(&l, 1, out, sizeof(out));
	assert_string_equal(out, "last\n");
	conslog_close(&l);
}

/* A file that cannot be made is a one-line error; one that fails later
 * stops being written, and the tail goes on. */
static void test_errors(void **state)
{
	char out[64];
	struct conslog l;

	(void)state;
	assert_int_equal(conslog_open(&l, "/nonexistent/dir/log"), -ENOENT);
	assert_int_equal(conslog_open(&l, "/dev/full"), 0);
	conslog_write(&l, "abc\n", 4);
	assert_true(l.failed);
	conslog_write(&l, "def\n", 4);
	conslog_tail(&l, 5, out, sizeof(out));
	assert_string_equal(out, "abc\ndef\n");
	conslog_close(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_gets_everything),
		cmocka_unit_test(test_tail_lines),
		cmocka_unit_test(test_tail_wraps),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests_name("conslog", tests, NULL, NULL);
}
