/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test helper: gzip-compress a buffer with zlib's own deflate (gzip
 * wrapper: 16 + MAX_WBITS).  Include after <cmocka.h>; the caller frees.
 */
#ifndef RVKVM_TEST_GZIP_HELPER_H
#define RVKVM_TEST_GZIP_HELPER_H

#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

static inline uint8_t *gzip(const uint8_t *in, size_t len, size_t *out_len)
{
	z_stream zs = { 0 };
	size_t cap;
	uint8_t *out;

	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8,
				      Z_DEFAULT_STRATEGY),
			 Z_OK);
	cap = deflateBound(&zs, len) + 32;
	out = malloc(cap);
	assert_non_null(out);
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	*out_len = zs.total_out;
	deflateEnd(&zs);
	return out;
}

#endif
