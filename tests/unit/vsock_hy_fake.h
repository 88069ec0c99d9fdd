/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fake host streams for the hybrid vsock core (virtio/vsock_hybrid.h),
 * shared by its unit test and its fuzz target: each handle is a stream
 * with scripted input (bytes, then end of stream or not), a room for
 * output after which it says -EAGAIN, and a "gone" switch (the peer
 * vanished).  Every op checks with FAKE_CHECK (the includer's assert)
 * that the core passes an open handle and a length it may pass, closes
 * a handle once and shuts its write side once.  The core's opaque is the
 * struct fake_host.
 */
#ifndef RVKVM_TESTS_VSOCK_HY_FAKE_H
#define RVKVM_TESTS_VSOCK_HY_FAKE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "virtio/vsock_hybrid.h"

#define FAKE_NH 80
#define FAKE_IN_MAX 4096

struct fake_stream {
	bool open, shut_wr, eof, gone;
	uint8_t in[FAKE_IN_MAX]; /* what the host peer sends */
	size_t in_len, in_off;
	size_t room;  /* output taken before -EAGAIN; SIZE_MAX: any */
	uint8_t *out; /* what lkvm sent it (when the host records) */
	size_t out_len;
};

struct fake_host {
	struct fake_stream s[FAKE_NH];
	uint64_t now;
	bool record; /* keep every stream's output */
	/* A guest connects to host port: the handle to open, or -errno. */
	int (*connect)(struct fake_host *fh, uint32_t port);
	unsigned int connects;
	uint32_t connect_port; /* the last one asked for */
};

static inline struct fake_stream *fake_open(struct fake_host *fh, int h)
{
	struct fake_stream *s = &fh->s[h];

	free(s->out);
	*s = (struct fake_stream){ .open = true, .room = SIZE_MAX };
	return s;
}

static inline struct fake_stream *fake_get(void *opaque, int h)
{
	struct fake_host *fh = opaque;

	FAKE_CHECK(h >= 0 && h < FAKE_NH && fh->s[h].open);
	return &fh->s[h];
}

static inline int fake_connect(void *opaque, uint32_t port)
{
	struct fake_host *fh = opaque;
	int h = fh->connect(fh, port);

	fh->connects++;
	fh->connect_port = port;
	if (h >= 0)
		fake_open(fh, h);
	return h;
}

static inline long fake_send(void *opaque, int h, const void *buf, size_t len)
{
	struct fake_stream *s = fake_get(opaque, h);

	FAKE_CHECK(buf && len > 0 && len <= VSOCK_HY_BUF_ALLOC);
	FAKE_CHECK(!s->shut_wr);
	if (s->gone)
		return -EPIPE;
	if (!s->room)
		return -EAGAIN;
	if (len > s->room)
		len = s->room;
	if (s->room != SIZE_MAX)
		s->room -= len;
	if (((struct fake_host *)opaque)->record) {
		s->out = realloc(s->out, s->out_len + len);
		FAKE_CHECK(s->out);
		memcpy(s->out + s->out_len, buf, len);
		s->out_len += len;
	}
	return len;
}

static inline long fake_recv(void *opaque, int h, void *buf, size_t len)
{
	struct fake_stream *s = fake_get(opaque, h);
	size_t n = s->in_len - s->in_off;

	FAKE_CHECK(buf && len > 0 && len <= VSOCK_HY_PKT_MAX);
	if (s->gone)
		return -ECONNRESET;
	if (!n)
		return s->eof ? 0 : -EAGAIN;
	if (n > len)
		n = len;
	memcpy(buf, s->in + s->in_off, n);
	s->in_off += n;
	return n;
}

static inline void fake_shutdown_wr(void *opaque, int h)
{
	struct fake_stream *s = fake_get(opaque, h);

	FAKE_CHECK(!s->shut_wr);
	s->shut_wr = true;
}

static inline void fake_close(void *opaque, int h)
{
	fake_get(opaque, h)->open = false;
}

static inline uint64_t fake_now(void *opaque)
{
	return ((struct fake_host *)opaque)->now;
}

/* In the struct's order (each member's type differs: the compiler checks). */
static const struct vsock_hy_host_ops fake_host_ops = {
	fake_connect,	  fake_send,  fake_recv,
	fake_shutdown_wr, fake_close, fake_now,
};

/* Append n bytes to what the peer of h sends (as much as fits). */
static inline void fake_input(struct fake_host *fh, int h, const void *p,
			      size_t n)
{
	struct fake_stream *s = &fh->s[h];

	if (n > FAKE_IN_MAX - s->in_len)
		n = FAKE_IN_MAX - s->in_len;
	memcpy(s->in + s->in_len, p, n);
	s->in_len += n;
}

/* How many handles are open; frees the recorded output. */
static inline unsigned int fake_finish(struct fake_host *fh)
{
	unsigned int open = 0;

	for (unsigned int h = 0; h < FAKE_NH; h++) {
		open += fh->s[h].open;
		free(fh->s[h].out);
		fh->s[h].out = NULL;
	}
	return open;
}

#endif
