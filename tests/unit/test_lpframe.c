// SPDX-License-Identifier: GPL-2.0
/* Length-prefixed frames (lib/lpframe.c): split and joined across reads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/lpframe.h"

#define HEADROOM 12
#define MAX_FRAME 2000

/* Append len bytes of stream to rx, at most chunk bytes per "read". */
static void feed(struct lpframe_rx *rx, const uint8_t *stream, size_t len)
{
	size_t room;
	uint8_t *p = lpframe_rx_space(rx, &room);

	assert_true(room >= len);
	memcpy(p, stream, len);
	lpframe_rx_added(rx, len);
}

/* A stream of frames: frame i has length lens[i], bytes (i + j) & 0xff. */
static size_t build(uint8_t *out, const size_t *lens, int n)
{
	size_t off = 0;

	for (int i = 0; i < n; i++) {
		lpframe_put_len(out + off, (uint32_t)lens[i]);
		off += LPFRAME_LEN_SIZE;
		for (size_t j = 0; j < lens[i]; j++)
			out[off + j] = (uint8_t)(i + j);
		off += lens[i];
	}
	return off;
}

static void check_frame(const uint8_t *f, size_t len, int i, size_t want)
{
	assert_int_equal(len, want);
	for (size_t j = 0; j < len; j++)
		assert_int_equal(f[j], (uint8_t)(i + j));
}

static void test_put_len_big_endian(void **state)
{
	uint8_t b[4];

	(void)state;
	lpframe_put_len(b, 0x01020304);
	assert_memory_equal(b, "\x01\x02\x03\x04", 4);
}

static void test_init_bounds(void **state)
{
	struct lpframe_rx rx;

	(void)state;
	assert_int_equal(lpframe_rx_init(&rx, 3, 14, 100), -EINVAL);
	assert_int_equal(lpframe_rx_init(&rx, 4, 0, 100), -EINVAL);
	assert_int_equal(lpframe_rx_init(&rx, 4, 200, 100), -EINVAL);
	assert_int_equal(lpframe_rx_init(&rx, 4, 14, 100), 0);
	lpframe_rx_free(&rx);
}

/* Every split of a three-frame stream into two reads gives the frames. */
static void test_split_everywhere(void **state)
{
	static const size_t lens[] = { 14, 1500, 60 };
	uint8_t stream[4 * 3 + 14 + 1500 + 60];
	size_t total = build(stream, lens, 3);

	(void)state;
	for (size_t cut = 0; cut <= total; cut++) {
		struct lpframe_rx rx;
		uint8_t *f;
		size_t len;
		int got = 0;

		assert_int_equal(lpframe_rx_init(&rx, HEADROOM, 14, MAX_FRAME),
				 0);
		feed(&rx, stream, cut);
		while (lpframe_rx_next(&rx, &f, &len) == 1) {
			check_frame(f, len, got, lens[got]);
			/* The headroom in front is the caller's. */
			memset(f - HEADROOM, 0xee, HEADROOM);
			lpframe_rx_consume(&rx);
			got++;
		}
		feed(&rx, stream + cut, total - cut);
		while (lpframe_rx_next(&rx, &f, &len) == 1) {
			check_frame(f, len, got, lens[got]);
			memset(f - HEADROOM, 0xee, HEADROOM);
			lpframe_rx_consume(&rx);
			got++;
		}
		assert_int_equal(got, 3);
		assert_int_equal(lpframe_rx_next(&rx, &f, &len), 0);
		lpframe_rx_free(&rx);
	}
}

/* One byte per read, with compaction along the way. */
static void test_byte_by_byte(void **state)
{
	size_t lens[40];
	uint8_t *stream = malloc(40 * (4 + MAX_FRAME));
	struct lpframe_rx rx;
	size_t total, len;
	uint8_t *f;
	int got = 0;

	(void)state;
	for (int i = 0; i < 40; i++)
		lens[i] = 14 + (size_t)(i * 331) % (MAX_FRAME - 13);
	total = build(stream, lens, 40);
	assert_int_equal(lpframe_rx_init(&rx, HEADROOM, 14, MAX_FRAME), 0);
	for (size_t i = 0; i < total; i++) {
		feed(&rx, stream + i, 1);
		if (lpframe_rx_next(&rx, &f, &len) == 1) {
			check_frame(f, len, got, lens[got]);
			assert_true(f - rx.buf >= HEADROOM);
			lpframe_rx_consume(&rx);
			got++;
		}
	}
	assert_int_equal(got, 40);
	lpframe_rx_free(&rx);
	free(stream);
}

/* A held frame stays the same frame, even with its headroom written. */
static void test_next_again_same_frame(void **state)
{
	static const size_t lens[] = { 20, 30 };
	uint8_t stream[58];
	struct lpframe_rx rx;
	uint8_t *f, *g;
	size_t len;

	(void)state;
	build(stream, lens, 2);
	assert_int_equal(lpframe_rx_init(&rx, HEADROOM, 14, MAX_FRAME), 0);
	feed(&rx, stream, sizeof(stream));
	assert_int_equal(lpframe_rx_next(&rx, &f, &len), 1);
	memset(f - HEADROOM, 0xff, HEADROOM); /* clobbers the length field */
	assert_int_equal(lpframe_rx_next(&rx, &g, &len), 1);
	assert_ptr_equal(f, g);
	check_frame(g, len, 0, 20);
	lpframe_rx_consume(&rx);
	assert_int_equal(lpframe_rx_next(&rx, &f, &len), 1);
	check_frame(f, len, 1, 30);
	lpframe_rx_consume(&rx);
	lpframe_rx_consume(&rx); /* nothing to consume: no effect */
	assert_int_equal(lpframe_rx_next(&rx, &f, &len), 0);
	lpframe_rx_free(&rx);
}

static void test_bad_lengths(void **state)
{
	static const uint32_t bad[] = { 0, 13, MAX_FRAME + 1, 0xffffffff };
	struct lpframe_rx rx;
	uint8_t hdr[4], *f;
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(lpframe_rx_init(&rx, HEADROOM, 14, MAX_FRAME),
				 0);
		lpframe_put_len(hdr, bad[i]);
		feed(&rx, hdr, 3);
		assert_int_equal(lpframe_rx_next(&rx, &f, &len), 0);
		feed(&rx, hdr + 3, 1);
		assert_int_equal(lpframe_rx_next(&rx, &f, &len), -EPROTO);
		lpframe_rx_clear(&rx);
		assert_int_equal(lpframe_rx_next(&rx, &f, &len), 0);
		lpframe_rx_free(&rx);
	}
}

/* After a partial frame, the space holds the rest of the largest one. */
static void test_space_after_partial(void **state)
{
	struct lpframe_rx rx;
	uint8_t stream[2 * (4 + MAX_FRAME)], *f;
	size_t lens[2] = { MAX_FRAME, MAX_FRAME }, room, len;

	(void)state;
	build(stream, lens, 2);
	assert_int_equal(lpframe_rx_init(&rx, HEADROOM, 14, MAX_FRAME), 0);
	feed(&rx, stream, 4 + MAX_FRAME + 100);
	assert_int_equal(lpframe_rx_next(&rx, &f, &len), 1);
	lpframe_rx_consume(&rx);
	assert_int_equal(lpframe_rx_next(&rx, &f, &len), 0);
	lpframe_rx_space(&rx, &room);
	assert_true(room >= LPFRAME_LEN_SIZE + MAX_FRAME);
	feed(&rx, stream + 4 + MAX_FRAME + 100, MAX_FRAME - 96);
	assert_int_equal(lpframe_rx_next(&rx, &f, &len), 1);
	check_frame(f, len, 1, MAX_FRAME);
	lpframe_rx_free(&rx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_len_big_endian),
		cmocka_unit_test(test_init_bounds),
		cmocka_unit_test(test_split_everywhere),
		cmocka_unit_test(test_byte_by_byte),
		cmocka_unit_test(test_next_again_same_frame),
		cmocka_unit_test(test_bad_lengths),
		cmocka_unit_test(test_space_after_partial),
	};

	return cmocka_run_group_tests_name("lpframe", tests, NULL, NULL);
}
