/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Length-prefixed frames on a byte stream: each frame is a 4-byte
 * big-endian length followed by that many bytes (the framing of passt's
 * and QEMU's stream network backends).  The receive side reassembles
 * frames that arrive split across reads, or several in one read, in one
 * buffer, and keeps `headroom` writable bytes in front of every frame it
 * returns (the length field and what precedes it, already consumed), so a
 * caller can put its own header there without copying the frame.
 * Pure: no I/O; the caller reads into lpframe_rx_space().
 */
#ifndef RVKVM_LPFRAME_H
#define RVKVM_LPFRAME_H

#include <stddef.h>
#include <stdint.h>

#define LPFRAME_LEN_SIZE 4

struct lpframe_rx {
	uint8_t *buf;
	size_t cap;	   /* bytes at buf */
	size_t base;	   /* where data starts after compaction */
	size_t start, end; /* unconsumed bytes: buf[start, end) */
	size_t min_frame, max_frame;
	size_t cur; /* length of the frame lpframe_rx_next() gave; 0: none */
};

/*
 * headroom >= LPFRAME_LEN_SIZE; frames outside [min_frame, max_frame]
 * (min_frame >= 1) are a protocol error.  0, -EINVAL or -ENOMEM.
 */
int lpframe_rx_init(struct lpframe_rx *rx, size_t headroom, size_t min_frame,
		    size_t max_frame);
void lpframe_rx_free(struct lpframe_rx *rx);
/* Drop everything buffered. */
void lpframe_rx_clear(struct lpframe_rx *rx);

/*
 * Where to read more bytes to, and how many fit (at least one length
 * field plus max_frame whenever lpframe_rx_next() last returned 0).
 */
uint8_t *lpframe_rx_space(struct lpframe_rx *rx, size_t *len);
/* n bytes were read into the space (n <= its length). */
void lpframe_rx_added(struct lpframe_rx *rx, size_t n);

/*
 * The next whole frame, not consumed: 1 with *frame and *len set (headroom
 * writable bytes precede *frame: the caller may overwrite them; asking
 * again before lpframe_rx_consume() gives the same frame), 0 when more
 * bytes are needed, -EPROTO when its length is out of bounds (the stream
 * cannot be resynchronised).
 */
int lpframe_rx_next(struct lpframe_rx *rx, uint8_t **frame, size_t *len);
/* Consume the frame lpframe_rx_next() returned. */
void lpframe_rx_consume(struct lpframe_rx *rx);

/* The length field for a frame of len bytes. */
void lpframe_put_len(uint8_t out[LPFRAME_LEN_SIZE], uint32_t len);

#endif
