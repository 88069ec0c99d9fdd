/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio-balloon (virtio 1.2 §5.5): device ID 5, the inflate and deflate
 * queues and, with VIRTIO_BALLOON_F_STATS_VQ, the statistics queue.
 * Configuration: num_pages (the target the host sets, read-only to the
 * driver) and actual (what the driver reports it holds).
 *
 * Inflate: every page frame number (4 KiB pages) must lie inside guest
 * RAM (guest_mem_ptr); each such page is handed to the discard callback
 * (production: MADV_DONTNEED on the host mapping, so the host gets the
 * memory back); frames outside RAM are logged once and skipped.
 * Deflate: frames are checked and counted; the pages come back on touch.
 *
 * Statistics: the driver keeps one buffer of (u16 tag, u64 value)
 * entries in the statistics queue.  The device reads it and holds it;
 * virtio_balloon_stats_refresh() returns it, and the driver answers with
 * fresh values in a new buffer (stats_gen counts the buffers read).
 *
 * The transport is embedded, as for every device (virtio/mmio.h).
 */
#ifndef RVKVM_VIRTIO_BALLOON_H
#define RVKVM_VIRTIO_BALLOON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "virtio/mmio.h"

#define VIRTIO_ID_BALLOON 5
#define VIRTIO_BALLOON_F_STATS_VQ 1
#define VIRTIO_BALLOON_PFN_SHIFT 12
#define VIRTIO_BALLOON_PAGE (1u << VIRTIO_BALLOON_PFN_SHIFT)
#define VIRTIO_BALLOON_QUEUE_SIZE 128
#define VIRTIO_BALLOON_CONFIG_SIZE 8

enum {
	VIRTIO_BALLOON_Q_INFLATE,
	VIRTIO_BALLOON_Q_DEFLATE,
	VIRTIO_BALLOON_Q_STATS
};

/* Statistics tags (§5.5.6.3) that are kept; others are ignored. */
#define VIRTIO_BALLOON_S_SWAP_IN 0
#define VIRTIO_BALLOON_S_SWAP_OUT 1
#define VIRTIO_BALLOON_S_MAJFLT 2
#define VIRTIO_BALLOON_S_MINFLT 3
#define VIRTIO_BALLOON_S_MEMFREE 4
#define VIRTIO_BALLOON_S_MEMTOT 5
#define VIRTIO_BALLOON_S_AVAIL 6
#define VIRTIO_BALLOON_S_CACHES 7
#define VIRTIO_BALLOON_S_HTLB_PGALLOC 8
#define VIRTIO_BALLOON_S_HTLB_PGFAIL 9
#define VIRTIO_BALLOON_S_NR 10
/* Entries read from one statistics buffer at most. */
#define VIRTIO_BALLOON_STATS_MAX 64

/* Give [host, host + len) of guest RAM back to the host: 0 or -errno. */
typedef int (*virtio_balloon_discard_fn)(void *opaque, void *host, size_t len);

/* What the host side may know (a copy, taken under the lock). */
struct virtio_balloon_info {
	uint32_t num_pages;   /* target */
	uint32_t actual;      /* driver-reported */
	uint64_t inflated;    /* frames received on the inflate queue */
	uint64_t deflated;    /* frames received on the deflate queue */
	uint64_t discarded;   /* of which given back to the host */
	bool stats_vq;	      /* the driver negotiated the stats queue */
	uint32_t stats_gen;   /* statistics buffers read */
	uint32_t stats_valid; /* bit t: stats[t] was reported */
	uint64_t stats[VIRTIO_BALLOON_S_NR];
};

struct virtio_balloon {
	struct virtio_mmio vm;
	const struct guest_mem *mem;
	virtio_balloon_discard_fn discard;
	void *discard_opaque;
	struct virtio_balloon_info info;
	bool stats_held;	  /* a statistics buffer is held */
	uint16_t stats_head;	  /* its head */
	struct virtq_chain chain; /* scratch, used under vm.lock */
};

/* -EINVAL for a missing res or discard, or -errno. */
int virtio_balloon_init(struct virtio_balloon *b, const struct dev_res *res,
			const struct guest_mem *mem, const struct irq_line *irq,
			virtio_balloon_discard_fn discard, void *opaque);
void virtio_balloon_destroy(struct virtio_balloon *b);

/* Set the target (pages of 4 KiB) and tell the driver. Takes the lock. */
void virtio_balloon_set_target(struct virtio_balloon *b, uint32_t pages);
/* A copy of the state.  Takes the lock. */
void virtio_balloon_get_info(struct virtio_balloon *b,
			     struct virtio_balloon_info *out);
/*
 * Ask the driver for fresh statistics (return the held buffer): 0, or
 * -ENODEV (no live statistics queue) or -EAGAIN (no buffer held yet).
 * Takes the lock.
 */
int virtio_balloon_stats_refresh(struct virtio_balloon *b);

/*
 * The production discard: madvise(MADV_DONTNEED), or MADV_REMOVE when
 * opaque points to true (guest RAM is a file mapped shared, which only
 * gives its pages back when they are removed from the file).
 */
int virtio_balloon_madvise(void *opaque, void *host, size_t len);

#endif
