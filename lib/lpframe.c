// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lpframe.h"

int lpframe_rx_init(struct lpframe_rx *rx, size_t headroom, size_t min_frame,
		    size_t max_frame)
{
	memset(rx, 0, sizeof(*rx));
	if (headroom < LPFRAME_LEN_SIZE || !min_frame ||
	    min_frame > max_frame || max_frame > UINT32_MAX)
		return -EINVAL;
	rx->base = headroom - LPFRAME_LEN_SIZE;
	/* Room for a partial frame plus a whole one after compaction. */
	rx->cap = rx->base + 2 * (LPFRAME_LEN_SIZE + max_frame);
	rx->buf = malloc(rx->cap);
	if (!rx->buf)
		return -ENOMEM;
	rx->min_frame = min_frame;
	rx->max_frame = max_frame;
	lpframe_rx_clear(rx);
	return 0;
}

void lpframe_rx_free(struct lpframe_rx *rx)
{
	free(rx->buf);
	rx->buf = NULL;
}

void lpframe_rx_clear(struct lpframe_rx *rx)
{
	rx->start = rx->end = rx->base;
	rx->cur = 0;
}

uint8_t *lpframe_rx_space(struct lpframe_rx *rx, size_t *len)
{
	if (rx->cap - rx->end < LPFRAME_LEN_SIZE + rx->max_frame &&
	    rx->start > rx->base) {
		memmove(rx->buf + rx->base, rx->buf + rx->start,
			rx->end - rx->start);
		rx->end -= rx->start - rx->base;
		rx->start = rx->base;
	}
	*len = rx->cap - rx->end;
	return rx->buf + rx->end;
}

void lpframe_rx_added(struct lpframe_rx *rx, size_t n)
{
	if (n > rx->cap - rx->end)
		n = rx->cap - rx->end;
	rx->end += n;
}

static uint32_t lpframe_get_len(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

int lpframe_rx_next(struct lpframe_rx *rx, uint8_t **frame, size_t *len)
{
	size_t have = rx->end - rx->start;
	uint32_t n = rx->cur;

	if (!n) {
		if (have < LPFRAME_LEN_SIZE)
			return 0;
		n = lpframe_get_len(rx->buf + rx->start);
		if (n < rx->min_frame || n > rx->max_frame)
			return -EPROTO;
		if (have - LPFRAME_LEN_SIZE < n)
			return 0;
		rx->cur = n;
	}
	*frame = rx->buf + rx->start + LPFRAME_LEN_SIZE;
	*len = n;
	return 1;
}

void lpframe_rx_consume(struct lpframe_rx *rx)
{
	if (!rx->cur)
		return;
	rx->start += LPFRAME_LEN_SIZE + rx->cur;
	rx->cur = 0;
	if (rx->start == rx->end)
		rx->start = rx->end = rx->base;
}

void lpframe_put_len(uint8_t out[LPFRAME_LEN_SIZE], uint32_t len)
{
	out[0] = len >> 24;
	out[1] = len >> 16;
	out[2] = len >> 8;
	out[3] = len;
}
