// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the devices a daemon serves (virtio-fs for virtiofsd, virtio-blk
 * for qemu-storage-daemon) through their transport, with the daemon's
 * death among the operations: a hostile driver whose rings live in a
 * 64 KiB fake guest RAM (a copy of the input's tail), and a "daemon"
 * that left whatever it left in the rings (used entries, avail_event:
 * guest RAM, so the input's) when lkvm takes them over.  After that the
 * model answers alone: FUSE's ENOTCONN for virtio-fs, IOERR for
 * virtio-blk.
 *
 * Input:  [device: u8 (even: fs, odd: blk)] [ops_len: u16] [ops] [RAM]
 * Ops (first byte % 6):
 *   0  driver setup [features: u8] [per queue: num: u8, desc, avail,
 *      used: u16 each]: reset, negotiate, the queues, DRIVER_OK
 *   1  publish [queue: u8] [head: u16] and notify that queue
 *   2  the daemon dies: lkvm adopts the rings
 *   3  guest poke [u16 offset] [u8 len] [bytes]
 *   4  notify [queue: u8]
 *   5  system reset
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "virtio/blk.h"
#include "virtio/blk_user.h"
#include "virtio/fs.h"
#include "lib/log.h"
#include "tests/fuzz/fuzz_virtio_util.h"
#include "tests/unit/slot_res.h"

#define RAM_BASE 0x80000000ULL
#define QUEUES 2

struct fuzz_ctx {
	struct guest_mem mem;
	bool blk;
	struct virtio_fs fs;
	struct virtio_blk_user bu;
	struct virtio_backed *b;
	int level;
	unsigned int nq;
	struct fuzz_ring rings[QUEUES];
	struct fuzz_in in;
};

static void fuzz_irq(void *opaque, int level)
{
	*(int *)opaque = level;
}

/* The daemon: starts, stops, takes kicks; dies when the input says. */
static int be_start(void *opaque, uint64_t features)
{
	(void)opaque;
	(void)features;
	return 0;
}

static void be_stop(void *opaque)
{
	(void)opaque;
}

static void be_kick(void *opaque, unsigned int q)
{
	struct fuzz_ctx *c = opaque;

	CHECK(q < c->nq);
}

static void be_dma(void *opaque, bool on)
{
	(void)opaque;
	(void)on;
}

static int fuzz_dev_init(struct fuzz_ctx *c, const struct irq_line *irq)
{
	const struct virtio_backend be = {
		.start = be_start,
		.stop = be_stop,
		.kick = be_kick,
		.dma = be_dma,
		.opaque = c,
	};
	uint8_t cfg[VIRTIO_BLK_USER_CONFIG_SIZE] = { 0 };

	if (!c->blk) {
		c->b = &c->fs.b;
		c->nq = VIRTIO_FS_QUEUES;
		return virtio_fs_init(&c->fs, &SLOT_RES(0), &c->mem, irq,
				      "share", &be);
	}
	/* As qemu-storage-daemon describes a 1 GiB disk. */
	mmio_data_put(cfg + VIRTIO_BLK_CFG_CAPACITY, 4, 2097152);
	mmio_data_put(cfg + VIRTIO_BLK_CFG_SIZE_MAX, 4, 65536);
	mmio_data_put(cfg + VIRTIO_BLK_CFG_SEG_MAX, 4, 126);
	mmio_data_put(cfg + VIRTIO_BLK_CFG_BLK_SIZE, 4, 4096);
	cfg[VIRTIO_BLK_CFG_NUM_QUEUES] = 1;
	mmio_data_put(cfg + VIRTIO_BLK_CFG_MAX_DISCARD_SECTORS, 4, 32768);
	mmio_data_put(cfg + VIRTIO_BLK_CFG_MAX_DISCARD_SEG, 4, 1);
	c->b = &c->bu.b;
	c->nq = VIRTIO_BLK_USER_QUEUES;
	return virtio_blk_user_init(
		&c->bu, &SLOT_RES(0), &c->mem, irq, cfg, sizeof(cfg),
		VIRTIO_BACKED_NEEDED | VIRTIO_BLK_USER_FEATURES, &be);
}

static void fuzz_setup(struct fuzz_ctx *c)
{
	uint64_t features = fuzz_transport_features(fuzz_u8(&c->in));

	fuzz_mmio_negotiate(&c->b->vm, features);
	fuzz_mmio_rings(&c->b->vm, &c->in, c->rings, c->nq, RAM_BASE);
	vqm_mmio_wr_n(&c->b->vm, VIRTIO_MMIO_STATUS, 0xf, 4);
}

static void fuzz_publish_notify(struct fuzz_ctx *c)
{
	fuzz_mmio_publish_notify(&c->b->vm, &c->mem, &c->in, c->rings, c->nq,
				 RAM_BASE);
}

static void fuzz_op(struct fuzz_ctx *c)
{
	switch (fuzz_u8(&c->in) % 6) {
	case 0:
		fuzz_setup(c);
		break;
	case 1:
		fuzz_publish_notify(c);
		break;
	case 2:
		virtio_mmio_lock(&c->b->vm);
		virtio_backed_adopt_locked(c->b);
		virtio_mmio_unlock(&c->b->vm);
		break;
	case 3:
		fuzz_poke(&c->mem, &c->in);
		break;
	case 4:
		vqm_mmio_wr_n(&c->b->vm, VIRTIO_MMIO_QUEUE_NOTIFY,
			      fuzz_u8(&c->in), 4);
		break;
	default:
		virtio_mmio_ops.reset(&c->b->vm);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_ctx *c;
	struct irq_line irq = { .set = fuzz_irq };

	log_level = -1;
	if (size < 3)
		return 0;
	c = calloc(1, sizeof(*c));
	CHECK(c);
	fuzz_ram_alloc(&c->mem);
	c->mem.base = RAM_BASE;
	c->blk = data[0] & 1;
	irq.opaque = &c->level;
	CHECK(fuzz_dev_init(c, &irq) == 0);
	fuzz_split_input(data, size, 3, &c->mem, &c->in);
	while (c->in.p < c->in.end)
		fuzz_op(c);
	virtio_mmio_ops.reset(&c->b->vm);
	CHECK(c->level == 0);
	if (c->blk)
		virtio_blk_user_destroy(&c->bu);
	else
		virtio_fs_destroy(&c->fs);
	fuzz_ram_free(&c->mem);
	free(c);
	return 0;
}
