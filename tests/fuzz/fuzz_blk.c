// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the virtio-blk device behind its virtio-mmio transport: a hostile
 * driver's rings, chains and request headers over a fake guest RAM (64 KiB
 * at guest address 0, heap-allocated so ASan sees any access outside it)
 * and an in-memory disk of a few sectors plus a partial one (allocated to
 * its exact size).
 *
 * Input:  [cfg: 4 bytes] [ops_len: u16] [ops: ops_len bytes] [RAM image]
 *   cfg[0]  bit 0 read-only disk, bit 1 no discard/write-zeroes ops,
 *           bit 2 negotiate FLUSH, bit 3 EVENT_IDX, bit 4 INDIRECT_DESC,
 *           bit 5 every third backend call fails, bit 6 ... returns short,
 *           bit 7 multiqueue: MQ_QUEUES queues, 0 and 1 set up (queue 1's
 *           rings at MQ_RING1), 2 never
 *   cfg[1]  queue size 1 << (cfg[1] % 9)
 *   cfg[2]  whole sectors in the disk (% 16)
 *   cfg[3]  bytes of a trailing partial sector (0..255)
 * Rings: descriptors at 0, avail right after them, used at the next 4-byte
 * boundary (the RAM image fills them).  Ops (first byte % 8):
 *   0-2  notify queue 0; multiqueue: 0 queue 0, 1 queue 1, 2 [q: u8]
 *   3    publish [head: u16] in the avail ring (avail->idx + 1);
 *        multiqueue: [q: u8] first, queue q % 2
 *   4    guest poke [u16 offset] [u8 len] [bytes]
 *   5    config read [u8 offset] [size sel]
 *   6    [sel: u8] bit 0 clear: interrupt ack; set: one busy-poll pass
 *        (polling is on with a window of a minute), which with bit 1
 *        set ends the window first: polling must then be off
 *   7    device reset, driver set-up again
 * Notifications are routed by depth (virtio_blk_set_route) to a hook
 * that checks the queue index.
 * The backend checks every call: inside the visible disk, whole sectors,
 * guest buffers inside the fake RAM and at most VIRTIO_BLK_REQ_MAX bytes,
 * no writes to a read-only disk.  Requests run inline (no engine).
 * The invisible tail of the disk never changes.  The devices live for the
 * whole process, one per shape, reset by each input's driver set-up (see
 * fuzz_init_disk); a crash that needs the previous inputs shows as one
 * that does not reproduce alone: run the crashing run's inputs in order.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "virtio/blk.h"
#include "virtio/mmio.h"
#include "lib/log.h"
#include "tests/fuzz/fuzz_virtio_util.h"
#include "tests/unit/slot_res.h"

#define SECTOR 512
#define MQ_QUEUES 3
#define MQ_RING1 0x8000

struct fuzz_ctx {
	struct guest_mem mem;
	struct virtio_blk *blk; /* one of fuzz_devs[], reset for each input */
	uint8_t *disk, *tail_copy;
	uint64_t disk_size, visible;
	bool ro, fail, short_io, mq;
	unsigned int calls;
	struct fuzz_ring ring[2]; /* queue 1's only with mq */
	uint64_t features;
	struct fuzz_in in;
};

/* --- the in-memory disk -------------------------------------------------- */

/* Checks one call; true when this call is to fail. */
static bool fuzz_disk_call(struct fuzz_ctx *c, uint64_t off, uint64_t len)
{
	CHECK(off % SECTOR == 0 && len % SECTOR == 0);
	CHECK(off <= c->visible && len <= c->visible - off);
	return c->fail && ++c->calls % 3 == 0;
}

static ssize_t fuzz_io_len(struct fuzz_ctx *c, size_t len)
{
	return c->short_io && ++c->calls % 3 == 0 ? (ssize_t)len / 2 :
						    (ssize_t)len;
}

/* The request's buffers: non-empty, inside the fake RAM; their length. */
static size_t fuzz_check_iov(const struct fuzz_ctx *c, const struct iovec *iov,
			     int iovcnt)
{
	size_t len = 0;

	CHECK(iovcnt > 0 && iovcnt <= VIRTQ_CHAIN_MAX_SEGS);
	for (int i = 0; i < iovcnt; i++) {
		const uint8_t *p = iov[i].iov_base;

		CHECK(iov[i].iov_len > 0);
		CHECK(p >= c->mem.host &&
		      p + iov[i].iov_len <= c->mem.host + c->mem.size);
		len += iov[i].iov_len;
	}
	CHECK(len <= VIRTIO_BLK_REQ_MAX);
	return len;
}

static ssize_t fuzz_readv(void *opaque, const struct iovec *iov, int iovcnt,
			  uint64_t off)
{
	struct fuzz_ctx *c = opaque;
	size_t len = fuzz_check_iov(c, iov, iovcnt);

	if (fuzz_disk_call(c, off, len))
		return -EIO;
	for (int i = 0; i < iovcnt; off += iov[i++].iov_len)
		memcpy(iov[i].iov_base, c->disk + off, iov[i].iov_len);
	return fuzz_io_len(c, len);
}

static ssize_t fuzz_writev(void *opaque, const struct iovec *iov, int iovcnt,
			   uint64_t off)
{
	struct fuzz_ctx *c = opaque;
	size_t len = fuzz_check_iov(c, iov, iovcnt);

	CHECK(!c->ro);
	if (fuzz_disk_call(c, off, len))
		return -ENOSPC;
	for (int i = 0; i < iovcnt; off += iov[i++].iov_len)
		memmove(c->disk + off, iov[i].iov_base, iov[i].iov_len);
	return fuzz_io_len(c, len);
}

static int fuzz_flush(void *opaque)
{
	struct fuzz_ctx *c = opaque;

	return c->fail && ++c->calls % 3 == 0 ? -EIO : 0;
}

static int fuzz_discard(void *opaque, uint64_t off, uint64_t len)
{
	struct fuzz_ctx *c = opaque;

	CHECK(!c->ro && len > 0);
	CHECK(len <= (uint64_t)VIRTIO_BLK_MAX_DISCARD_SECTORS * SECTOR);
	return fuzz_disk_call(c, off, len) ? -EIO : 0;
}

static int fuzz_write_zeroes(void *opaque, uint64_t off, uint64_t len)
{
	struct fuzz_ctx *c = opaque;

	CHECK(!c->ro && len > 0);
	CHECK(len <= (uint64_t)VIRTIO_BLK_MAX_WZ_SECTORS * SECTOR);
	if (fuzz_disk_call(c, off, len))
		return -EIO;
	memset(c->disk + off, 0, len);
	return 0;
}

static const struct virtio_blk_disk_ops fuzz_ops = {
	.readv = fuzz_readv,
	.writev = fuzz_writev,
	.flush = fuzz_flush,
	.discard = fuzz_discard,
	.write_zeroes = fuzz_write_zeroes,
};

static const struct virtio_blk_disk_ops fuzz_ops_basic = {
	.readv = fuzz_readv,
	.writev = fuzz_writev,
	.flush = fuzz_flush,
};

/* --- the driver ---------------------------------------------------------- */

static uint32_t fuzz_reg_read(struct fuzz_ctx *c, uint64_t off,
			      unsigned int len)
{
	return vqm_mmio_rd_n(&c->blk->vm, off, len);
}

static void fuzz_reg_write(struct fuzz_ctx *c, uint64_t off, uint32_t v)
{
	vqm_mmio_wr_n(&c->blk->vm, off, v, 4);
}

static void fuzz_driver_up(struct fuzz_ctx *c)
{
	fuzz_mmio_driver_up(&c->blk->vm, c->features, c->ring, c->mq ? 2 : 1);
}

static void fuzz_config(struct fuzz_ctx *c)
{
	static const unsigned int sizes[] = { 1, 2, 4 };
	uint32_t off = fuzz_u8(&c->in) % 72;
	unsigned int len = sizes[fuzz_u8(&c->in) % 3];
	uint32_t v = fuzz_reg_read(c, VIRTIO_MMIO_CONFIG + off, len);

	if (off + len > VIRTIO_BLK_CONFIG_SIZE) {
		CHECK(v == 0);
		return;
	}
	CHECK(v == mmio_data_get(c->blk->config + off, len));
	if (off == VIRTIO_BLK_CFG_CAPACITY && len == 4)
		CHECK(v == c->visible / SECTOR);
	if (off == VIRTIO_BLK_CFG_NUM_QUEUES && len == 2)
		CHECK(v == (c->mq ? MQ_QUEUES : 1));
}

static void fuzz_invariants(const struct fuzz_ctx *c)
{
	const struct virtio_mmio *vm = &c->blk->vm;

	CHECK(!memcmp(c->disk + c->visible, c->tail_copy,
		      c->disk_size - c->visible));
	for (unsigned int q = 0; q < vm->core.dev.num_queues; q++)
		if (vm->core.queues[q].broken)
			CHECK(vm->core.status &
			      VIRTIO_STATUS_DEVICE_NEEDS_RESET);
	/* queue 2 is never set up: nothing ever lands there */
	if (c->mq)
		CHECK(!vm->core.queues[2].ready && !vm->core.queues[2].broken);
	CHECK((vm->core.isr != 0) == vm->core.irq_level);
}

static void fuzz_poll_or_ack(struct fuzz_ctx *c, uint8_t sel)
{
	if (!(sel & 1)) {
		fuzz_reg_write(c, VIRTIO_MMIO_INTERRUPT_ACK, 3);
		return;
	}
	if (sel & 2)
		c->blk->poll_until = c->blk->poll_until ? 1 : 0; /* ended */
	if (virtio_blk_busy_poll(c->blk) < 0)
		for (unsigned int q = 0; q < c->blk->vm.core.dev.num_queues;
		     q++)
			CHECK(!c->blk->vm.core.queues[q].polling);
}

static void fuzz_op(struct fuzz_ctx *c)
{
	uint8_t op = fuzz_u8(&c->in) % 8;

	if (op < 3)
		fuzz_reg_write(c, VIRTIO_MMIO_QUEUE_NOTIFY,
			       !c->mq || op == 0 ? 0 :
			       op == 1		 ? 1 :
						   fuzz_u8(&c->in));
	else if (op == 3)
		fuzz_publish(&c->mem, &c->ring[c->mq ? fuzz_u8(&c->in) % 2 : 0],
			     &c->in);
	else if (op == 4)
		fuzz_poke(&c->mem, &c->in);
	else if (op == 5)
		fuzz_config(c);
	else if (op == 6)
		fuzz_poll_or_ack(c, fuzz_u8(&c->in));
	else
		fuzz_driver_up(c);
	fuzz_invariants(c);
}

/* --- set-up -------------------------------------------------------------- */

static void fuzz_configure(struct fuzz_ctx *c, const uint8_t *cfg)
{
	c->ro = cfg[0] & 1;
	c->fail = cfg[0] & 0x20;
	c->short_io = cfg[0] & 0x40;
	c->mq = cfg[0] & 0x80;
	c->features = VIRTIO_BIT(VIRTIO_F_VERSION_1);
	if (cfg[0] & 4)
		c->features |= VIRTIO_BIT(VIRTIO_BLK_F_FLUSH);
	if (cfg[0] & 8)
		c->features |= VIRTIO_BIT(VIRTIO_F_EVENT_IDX);
	if (cfg[0] & 0x10)
		c->features |= VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC);
	fuzz_ring_at(&c->ring[0], 0, cfg[1]);
	fuzz_ring_at(&c->ring[1], MQ_RING1, cfg[1]);
	c->visible = (uint64_t)(cfg[2] % 16) * SECTOR;
	c->disk_size = c->visible + cfg[3];
}

/*
 * The device for this input's shape: one per (read-only, discard/write-
 * zeroes ops, multiqueue) for the whole process, set up the first time and
 * afterwards reset by the driver's set-up (status 0), as a guest would.  A
 * fresh device per input cost 64 request slots (640 KiB, mmap'ed and
 * page-faulted by ASan each time): 500 inputs/s.  What a reset keeps but a
 * fresh device would not have is set here: the disk's size (capacity),
 * the log-once table, the write order and the per-queue counters.
 */
static struct virtio_blk fuzz_devs[8];
static bool fuzz_devs_up[8];

/* The route hook: only the device's own queues are ever moved. */
static bool fuzz_route(void *opaque, unsigned int q, bool eventfd)
{
	const struct virtio_blk *blk = opaque;

	(void)eventfd;
	CHECK(q < blk->vm.core.dev.num_queues);
	return true;
}

static void fuzz_init_disk(struct fuzz_ctx *c, bool dwz)
{
	struct virtio_blk_disk disk = {
		.ops = dwz ? &fuzz_ops : &fuzz_ops_basic,
		.opaque = c,
		.size = c->disk_size,
		.read_only = c->ro,
	};
	const struct irq_line irq = { 0 };
	unsigned int key = c->ro | dwz << 1 | c->mq << 2;

	c->disk = malloc(c->disk_size ? c->disk_size : 1);
	c->tail_copy = malloc(SECTOR);
	CHECK(c->disk && c->tail_copy);
	for (uint64_t i = 0; i < c->disk_size; i++)
		c->disk[i] = i * 31 + 7;
	memcpy(c->tail_copy, c->disk + c->visible, c->disk_size - c->visible);
	c->blk = &fuzz_devs[key];
	if (!fuzz_devs_up[key]) {
		virtio_blk_disk_set_id(&disk, "fuzz-disk");
		CHECK(virtio_blk_init_mq(c->blk, &SLOT_RES(0), &c->mem, &irq,
					 &disk, c->mq ? MQ_QUEUES : 1) == 0);
		/* Both policies: multi-queue devices poll always. */
		virtio_blk_set_poll(c->blk, 60ULL * 1000000000, c->mq);
		/* Notifications routed by depth, to a hook that checks q. */
		virtio_blk_set_route(c->blk, true);
		virtio_core_set_route(
			&c->blk->vm.core,
			&(const struct virtio_route){ fuzz_route, c->blk });
		fuzz_devs_up[key] = true;
	}
	CHECK(c->blk->disk.opaque == c && c->blk->inflight == 0);
	for (unsigned int q = 0; q < VIRTIO_MMIO_MAX_QUEUES; q++)
		CHECK(c->blk->routes[q].inflight == 0);
	c->blk->disk.size = c->disk_size;
	mmio_data_put(c->blk->config + VIRTIO_BLK_CFG_CAPACITY, 8,
		      c->disk_size / SECTOR);
	c->blk->nr_logged = 0;
	c->blk->write_seq = 0;
	c->blk->next_q = 0;
	c->blk->polled = c->blk->poll_seen = 0;
	c->blk->overlapped = c->blk->overlap_mark = 0;
	memset(c->blk->requests, 0, sizeof(c->blk->requests));
	c->blk->poll_ns = c->blk->poll_max; /* a window never ends by itself */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_ctx ctx;
	struct fuzz_ctx *c = &ctx;
	uint8_t *ro_copy = NULL;

	log_level = -1;
	if (size < 6)
		return 0;
	memset(c, 0, sizeof(*c));
	fuzz_ram_alloc(&c->mem);
	fuzz_configure(c, data);
	fuzz_init_disk(c, !(data[0] & 2));
	if (c->ro) {
		ro_copy = malloc(c->disk_size ? c->disk_size : 1);
		CHECK(ro_copy);
		memcpy(ro_copy, c->disk, c->disk_size);
	}
	fuzz_split_input(data, size, 6, &c->mem, &c->in);
	fuzz_driver_up(c);

	while (c->in.p < c->in.end)
		fuzz_op(c);
	for (unsigned int q = 0; q < c->blk->vm.core.dev.num_queues; q++)
		fuzz_reg_write(c, VIRTIO_MMIO_QUEUE_NOTIFY, q);
	fuzz_invariants(c);
	if (ro_copy)
		CHECK(!memcmp(ro_copy, c->disk, c->disk_size));

	free(ro_copy);
	free(c->disk);
	free(c->tail_copy);
	return 0;
}
