// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the decoder of what passt sends lkvm (lib/lpframe.c): a byte stream
 * of 4-byte big-endian lengths and frames, cut into reads of fuzz-chosen
 * sizes, with the caller writing a virtio-net header into the headroom of
 * each frame and sometimes asking for the same frame again (a frame held
 * while the guest has no buffers), as vmm/nics.c does.
 *
 * Input:  [cut seed: 1 byte] [stream: the rest]
 * Checked against a plain reference parse of the whole stream: the same
 * frames in the same order with the same bytes, every frame within
 * [14, 65535] bytes with 12 writable bytes in front of it inside the
 * buffer, -EPROTO exactly where the reference finds a bad length, and
 * never more bytes buffered than were read.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lpframe.h"

#define HEADROOM 12
#define MIN_FRAME 14
#define MAX_FRAME 65535

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* The reference: offset of frame k's data, or its error. */
struct ref {
	size_t off, len;
	int bad;
};

static size_t ref_parse(const uint8_t *s, size_t n, struct ref *out, size_t max)
{
	size_t k = 0, off = 0;

	while (k < max && n - off >= 4) {
		uint32_t len = be32(s + off);

		if (len < MIN_FRAME || len > MAX_FRAME) {
			out[k++] = (struct ref){ .bad = 1 };
			break;
		}
		if (n - off - 4 < len)
			break;
		out[k++] = (struct ref){ .off = off + 4, .len = len };
		off += 4 + len;
	}
	return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ref ref[4096];
	/*
	 * One buffer (128 KiB) for the process, emptied by lpframe_rx_clear
	 * for each input: a fresh one was an mmap, page faults and a munmap
	 * under ASan every input.
	 */
	static struct lpframe_rx rx;
	static bool rx_up;
	uint32_t seed;
	size_t nref, k = 0, off = 0;
	const uint8_t *s;
	uint8_t *f;
	size_t len;
	int r = 0;

	if (size < 1)
		return 0;
	seed = data[0] * 2654435761u + 1;
	s = data + 1;
	size--;
	nref = ref_parse(s, size, ref, sizeof(ref) / sizeof(ref[0]));
	if (!rx_up && lpframe_rx_init(&rx, HEADROOM, MIN_FRAME, MAX_FRAME))
		abort();
	rx_up = true;
	lpframe_rx_clear(&rx);
	while (off < size && k < nref) {
		size_t room, chunk;
		uint8_t *p = lpframe_rx_space(&rx, &room);

		seed = seed * 1103515245u + 12345u;
		chunk = 1 + (seed >> 8) % 70000;
		if (chunk > size - off)
			chunk = size - off;
		if (chunk > room)
			chunk = room;
		if (!room)
			abort(); /* a whole frame must always fit */
		memcpy(p, s + off, chunk);
		lpframe_rx_added(&rx, chunk);
		off += chunk;
		if (rx.end - rx.start > off)
			abort();
		while (k < nref && (r = lpframe_rx_next(&rx, &f, &len)) == 1) {
			if (ref[k].bad || len != ref[k].len ||
			    len < MIN_FRAME || len > MAX_FRAME ||
			    f - rx.buf < HEADROOM ||
			    f + len > rx.buf + rx.cap ||
			    memcmp(f, s + ref[k].off, len))
				abort();
			memset(f - HEADROOM, 0xa5, HEADROOM);
			if (seed & 1) {
				uint8_t *g;
				size_t glen;

				if (lpframe_rx_next(&rx, &g, &glen) != 1 ||
				    g != f || glen != len)
					abort();
			}
			lpframe_rx_consume(&rx);
			k++;
		}
		if (r == -EPROTO) {
			if (k >= nref || !ref[k].bad)
				abort();
			break;
		}
	}
	return 0;
}
