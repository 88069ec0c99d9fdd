// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the virtio-balloon device through its transport: a hostile driver
 * whose three rings (placement, size, contents) live in a 64 KiB fake
 * guest RAM at guest address 0x80000000 (heap-allocated, so ASan sees any
 * access outside it) that starts as a copy of the input's tail,
 * interleaved with host requests (targets, statistics refreshes).
 *
 * Input:  [ops_len: u16] [ops: ops_len bytes] [RAM image]
 * Ops (first byte % 8):
 *   0  driver setup [features: u8] [3 x (num: u8, desc, avail, used: u16)]
 *   1  publish [queue: u8 % 3] [head: u16] and notify
 *   2  notify [queue: u8] (any value)
 *   3  guest poke [u16 offset] [u8 len] [bytes]
 *   4  config access [offset: u8 % 12] [size sel: u8] [write: u8] [u32]
 *   5  host: set target [u32]
 *   6  host: statistics refresh
 *   7  system reset
 * Invariants: every discarded range is a whole page inside guest RAM;
 * the statistics generation only grows; the host's view of num_pages is
 * what it set.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "virtio/balloon.h"
#include "lib/log.h"
#include "tests/fuzz/fuzz_virtio_util.h"
#include "tests/unit/slot_res.h"

#define RAM_BASE 0x80000000ULL

struct fuzz_ctx {
	struct guest_mem mem;
	struct virtio_balloon b;
	int level;
	uint32_t target;
	uint32_t gen;
	struct fuzz_ring rings[3];
	struct fuzz_in in;
};

static int fuzz_discard(void *opaque, void *host, size_t len)
{
	struct fuzz_ctx *c = opaque;
	uint8_t *p = host;

	CHECK(len == VIRTIO_BALLOON_PAGE);
	CHECK(p >= c->mem.host && p + len <= c->mem.host + c->mem.size);
	CHECK((size_t)(p - c->mem.host) % VIRTIO_BALLOON_PAGE == 0);
	memset(p, 0, len); /* as MADV_DONTNEED would */
	return 0;
}

static void fuzz_irq(void *opaque, int level)
{
	*(int *)opaque = level;
}

static void fuzz_setup(struct fuzz_ctx *c)
{
	uint8_t f = fuzz_u8(&c->in);
	uint64_t features = fuzz_transport_features(f);

	if (f & 4)
		features |= VIRTIO_BIT(VIRTIO_BALLOON_F_STATS_VQ);
	fuzz_mmio_negotiate(&c->b.vm, features);
	fuzz_mmio_rings(&c->b.vm, &c->in, c->rings, 3, RAM_BASE);
	vqm_mmio_wr_n(&c->b.vm, VIRTIO_MMIO_STATUS, 0xf, 4);
}

static void fuzz_publish_notify(struct fuzz_ctx *c)
{
	fuzz_mmio_publish_notify(&c->b.vm, &c->mem, &c->in, c->rings, 3,
				 RAM_BASE);
}

static void fuzz_config(struct fuzz_ctx *c)
{
	static const unsigned int sizes[] = { 1, 2, 4 };
	uint32_t off = fuzz_u8(&c->in) % 12;
	unsigned int len = sizes[fuzz_u8(&c->in) % 3];
	bool write = fuzz_u8(&c->in) & 1;
	uint32_t v = fuzz_u32(&c->in);

	if (write)
		vqm_mmio_wr_n(&c->b.vm, VIRTIO_MMIO_CONFIG + off, v, len);
	else
		vqm_mmio_rd_n(&c->b.vm, VIRTIO_MMIO_CONFIG + off, len);
}

static void fuzz_check(struct fuzz_ctx *c)
{
	struct virtio_balloon_info info;

	virtio_balloon_get_info(&c->b, &info);
	CHECK(info.num_pages == c->target);
	CHECK(info.stats_gen >= c->gen);
	CHECK(info.discarded <= info.inflated);
	c->gen = info.stats_gen;
}

static void fuzz_op(struct fuzz_ctx *c)
{
	switch (fuzz_u8(&c->in) % 8) {
	case 0:
		fuzz_setup(c);
		break;
	case 1:
		fuzz_publish_notify(c);
		break;
	case 2:
		vqm_mmio_wr_n(&c->b.vm, VIRTIO_MMIO_QUEUE_NOTIFY,
			      fuzz_u8(&c->in), 4);
		break;
	case 3:
		fuzz_poke(&c->mem, &c->in);
		break;
	case 4:
		fuzz_config(c);
		break;
	case 5:
		c->target = fuzz_u32(&c->in);
		virtio_balloon_set_target(&c->b, c->target);
		break;
	case 6:
		virtio_balloon_stats_refresh(&c->b);
		break;
	default:
		virtio_mmio_ops.reset(&c->b.vm);
		break;
	}
	fuzz_check(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_ctx *c;
	struct irq_line irq = { .set = fuzz_irq };

	log_level = -1;
	if (size < 2)
		return 0;
	c = calloc(1, sizeof(*c));
	CHECK(c);
	fuzz_ram_alloc(&c->mem);
	c->mem.base = RAM_BASE;
	irq.opaque = &c->level;
	CHECK(virtio_balloon_init(&c->b, &SLOT_RES(0), &c->mem, &irq,
				  fuzz_discard, c) == 0);
	fuzz_split_input(data, size, 2, &c->mem, &c->in);
	while (c->in.p < c->in.end)
		fuzz_op(c);
	virtio_mmio_ops.reset(&c->b.vm);
	CHECK(c->level == 0);
	virtio_balloon_destroy(&c->b);
	fuzz_ram_free(&c->mem);
	free(c);
	return 0;
}
