// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the device side of the split virtqueue against a hostile driver.
 *
 * Input:  [cfg: 12 bytes] [ops_len: u16] [ops: ops_len bytes] [RAM image]
 *   cfg[0]     bit 0 EVENT_IDX, bit 1 INDIRECT, bit 2 RAM at 0x80000000
 *              (else at 0, so small descriptor addresses are valid)
 *   cfg[1]     queue size: < 0xf0: 1 << (cfg[1] % 10); else cfg[1] (any)
 *   cfg[2..7]  desc, avail, used offsets from the RAM base (u16 each)
 *   cfg[8]     high byte added to all three offsets (<< 16: may leave RAM)
 *   cfg[9..10] starting ring index (u16, for wrap-around)
 *   cfg[11]    unused
 * The RAM image (64 KiB of fake guest RAM, heap-allocated so ASan sees
 * any access outside it) holds the rings and buffers.  Ops (byte % 12):
 *   0 pop             1 read [u16 len]     2 write [u16 len]
 *   3 push the chain  4 push [u16 head] [u16 len]
 *   5 need_notify     6 guest poke [u16 off] [u8 len] [bytes]
 *   7 reset, configure from cfg again and activate
 *   8 fill [u16 head: 0xffff = the chain's] [u16 len] [u8 off]
 *   9 flush [u8 n]    10 unpop [u8 n]      11 pop_n [u8 n % 5]
 * Every segment must lie inside the RAM; copies never exceed what was
 * asked or what the chain holds; a broken queue stays broken.  A model
 * of the filled elements and of the chains that may be given back
 * predicts which fill/flush/unpop/push calls succeed; a flush publishes
 * exactly n elements.
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "virtio/virtqueue.h"
#include "lib/log.h"
#include "tests/fuzz/fuzz_virtio_util.h"

#define SCRATCH 4096
#define POP_N_MAX 4

struct fuzz_ctx {
	struct guest_mem mem;
	struct virtqueue vq;
	struct virtq_chain chain;
	struct virtq_chain chains[POP_N_MAX];
	bool have_chain;
	unsigned int filled;	 /* model: elements filled, not flushed */
	unsigned int unpoppable; /* model: pops since the last fill/push */
	struct virtq_reader r;
	struct virtq_writer w;
	uint16_t start;
	const uint8_t *cfg;
	struct fuzz_in in;
	uint8_t scratch[SCRATCH];
};

static void fuzz_check_chain(const struct fuzz_ctx *c,
			     const struct virtq_chain *ch)
{
	const uint8_t *ram = c->mem.host;
	uint64_t rd = 0, wr = 0;

	CHECK(ch->head < c->vq.num);
	CHECK(ch->nr_segs <= VIRTQ_CHAIN_MAX_SEGS);
	CHECK(ch->nr_segs <= c->vq.num);
	CHECK(ch->nr_readable <= ch->nr_segs);
	for (unsigned int i = 0; i < ch->nr_segs; i++) {
		const struct virtq_seg *s = &ch->segs[i];

		CHECK(s->len > 0);
		CHECK(s->addr >= ram && s->len <= FUZZ_RAM_SIZE &&
		      s->addr - ram <= FUZZ_RAM_SIZE - s->len);
		CHECK(s->writable == (i >= ch->nr_readable));
		if (s->writable)
			wr += s->len;
		else
			rd += s->len;
	}
	CHECK(rd == ch->readable_len && wr == ch->writable_len);
}

static uint32_t fuzz_num(uint8_t b)
{
	return b < 0xf0 ? 1u << (b % 10) : b;
}

static void fuzz_config(struct fuzz_ctx *c, const uint8_t *cfg)
{
	uint64_t hi = (uint64_t)cfg[8] << 16;
	bool event_idx = cfg[0] & 1, indirect = cfg[0] & 2;

	c->mem.base = (cfg[0] & 4) ? 0x80000000ULL : 0;
	virtq_init(&c->vq, &c->mem, VIRTQ_MAX_SIZE);
	c->vq.num = fuzz_num(cfg[1]);
	c->vq.desc_gpa = c->mem.base + hi + (cfg[2] | cfg[3] << 8);
	c->vq.avail_gpa = c->mem.base + hi + (cfg[4] | cfg[5] << 8);
	c->vq.used_gpa = c->mem.base + hi + (cfg[6] | cfg[7] << 8);
	c->vq.event_idx = event_idx;
	c->vq.indirect = indirect;
	c->start = cfg[9] | cfg[10] << 8;
}

static void fuzz_activate(struct fuzz_ctx *c)
{
	c->filled = 0;
	c->unpoppable = 0;
	if (virtq_activate(&c->vq))
		return;
	c->vq.last_avail_idx = c->start;
	c->vq.used_idx = c->start;
	c->vq.signalled_used = c->start;
}

static bool fuzz_usable(const struct fuzz_ctx *c)
{
	return c->vq.ready && !c->vq.broken;
}

static void fuzz_popped(struct fuzz_ctx *c, unsigned int n)
{
	c->unpoppable += n;
	if (c->unpoppable > c->vq.num)
		c->unpoppable = c->vq.num;
}

static void fuzz_take(struct fuzz_ctx *c, const struct virtq_chain *ch)
{
	fuzz_check_chain(c, ch);
	if (ch != &c->chain)
		memcpy(&c->chain, ch, sizeof(*ch));
	c->have_chain = true;
	virtq_reader_init(&c->r, &c->chain);
	virtq_writer_init(&c->w, &c->chain);
}

static void fuzz_pop(struct fuzz_ctx *c)
{
	bool was_broken = c->vq.broken;
	int ret = virtq_pop(&c->vq, &c->chain);

	CHECK(ret == -EIO || ret == 0 || ret == 1);
	if (was_broken)
		CHECK(ret < 0);
	c->have_chain = false;
	if (ret < 0)
		CHECK(c->vq.broken);
	if (ret != 1)
		return;
	fuzz_popped(c, 1);
	fuzz_take(c, &c->chain);
}

static void fuzz_pop_n(struct fuzz_ctx *c)
{
	unsigned int n = fuzz_u8(&c->in) % (POP_N_MAX + 1);
	bool was_broken = c->vq.broken;
	int ret = virtq_pop_n(&c->vq, c->chains, n);

	CHECK(ret == -EIO || (ret >= 0 && (unsigned int)ret <= n));
	if (was_broken || ret < 0)
		CHECK(ret < 0 && c->vq.broken);
	if (ret >= 0)
		CHECK((unsigned int)ret <= c->vq.num);
	c->have_chain = false;
	if (ret <= 0)
		return;
	fuzz_popped(c, ret);
	for (int i = 0; i < ret; i++)
		fuzz_check_chain(c, &c->chains[i]);
	fuzz_take(c, &c->chains[ret - 1]);
}

static void fuzz_read(struct fuzz_ctx *c)
{
	size_t len = fuzz_u16(&c->in) % (SCRATCH + 1), n;
	uint64_t before;

	if (!c->have_chain)
		return;
	before = virtq_reader_remaining(&c->r);
	n = virtq_reader_read(&c->r, c->scratch, len);
	CHECK(n <= len && n <= before);
	CHECK(n == len || n == before);
	CHECK(virtq_reader_remaining(&c->r) == before - n);
}

static void fuzz_write(struct fuzz_ctx *c)
{
	size_t len = fuzz_u16(&c->in) % (SCRATCH + 1), n;
	uint64_t before;
	uint32_t written;

	if (!c->have_chain)
		return;
	before = virtq_writer_remaining(&c->w);
	written = virtq_writer_written(&c->w);
	memset(c->scratch, 0xa5, len);
	n = virtq_writer_write(&c->w, c->scratch, len);
	CHECK(n <= len && n <= before);
	CHECK(n == len || n == before);
	CHECK(virtq_writer_remaining(&c->w) == before - n);
	CHECK(virtq_writer_written(&c->w) == written + n);
}

static void fuzz_push(struct fuzz_ctx *c, uint16_t head, uint32_t len)
{
	uint16_t used = c->vq.used_idx;
	int ret = virtq_push(&c->vq, head, len);

	if (!fuzz_usable(c)) {
		CHECK(ret == -EIO);
	} else if (c->filled) {
		CHECK(ret == -EBUSY);
	} else if (head >= c->vq.num) {
		CHECK(ret == -EINVAL);
	} else {
		CHECK(ret == 0 && c->vq.used_idx == (uint16_t)(used + 1));
		c->unpoppable = 0;
	}
	if (ret)
		CHECK(c->vq.used_idx == used);
}

static void fuzz_fill(struct fuzz_ctx *c)
{
	uint16_t head = fuzz_u16(&c->in), len = fuzz_u16(&c->in);
	unsigned int off = fuzz_u8(&c->in);
	uint16_t used = c->vq.used_idx;
	bool ok;
	int ret;

	if (head == 0xffff && c->have_chain)
		head = c->chain.head;
	ok = fuzz_usable(c) && head < c->vq.num && off <= c->filled &&
	     off < c->vq.num;
	ret = virtq_fill(&c->vq, head, len, off);
	CHECK(ok ? ret == 0 : ret < 0);
	CHECK(c->vq.used_idx == used);
	if (!ok)
		return;
	if (off == c->filled)
		c->filled++;
	c->unpoppable = 0;
}

static void fuzz_flush(struct fuzz_ctx *c)
{
	unsigned int n = fuzz_u8(&c->in);
	uint16_t used = c->vq.used_idx;
	bool ok = fuzz_usable(c) && n <= c->filled;
	int ret = virtq_flush(&c->vq, n);

	CHECK(ok ? ret == 0 : ret < 0);
	if (!ok) {
		CHECK(c->vq.used_idx == used);
		return;
	}
	c->filled -= n;
	CHECK(c->vq.used_idx == (uint16_t)(used + n));
	if (n)
		CHECK(le16toh(*(uint16_t *)(c->vq.used + 2)) == c->vq.used_idx);
}

static void fuzz_unpop(struct fuzz_ctx *c)
{
	unsigned int n = fuzz_u8(&c->in) % 8;
	uint16_t last = c->vq.last_avail_idx;
	bool ok = fuzz_usable(c) && n <= c->unpoppable;
	int ret = virtq_unpop(&c->vq, n);

	CHECK(ok ? ret == 0 : ret < 0);
	if (!ok) {
		CHECK(c->vq.last_avail_idx == last);
		return;
	}
	CHECK(c->vq.last_avail_idx == (uint16_t)(last - n));
	c->unpoppable -= n;
	if (n)
		c->have_chain = false;
}

static void fuzz_op(struct fuzz_ctx *c)
{
	uint16_t head;

	switch (fuzz_u8(&c->in) % 12) {
	case 0:
		fuzz_pop(c);
		break;
	case 1:
		fuzz_read(c);
		break;
	case 2:
		fuzz_write(c);
		break;
	case 3:
		if (c->have_chain)
			fuzz_push(c, c->chain.head,
				  virtq_writer_written(&c->w));
		c->have_chain = false;
		break;
	case 4:
		head = fuzz_u16(&c->in);
		fuzz_push(c, head, fuzz_u16(&c->in));
		break;
	case 5:
		virtq_need_notify(&c->vq);
		break;
	case 6:
		fuzz_poke(&c->mem, &c->in);
		break;
	case 7:
		virtq_reset(&c->vq);
		CHECK(!c->vq.ready && !c->vq.broken);
		fuzz_config(c, c->cfg);
		c->have_chain = false;
		fuzz_activate(c);
		break;
	case 8:
		fuzz_fill(c);
		break;
	case 9:
		fuzz_flush(c);
		break;
	case 10:
		fuzz_unpop(c);
		break;
	default:
		fuzz_pop_n(c);
		break;
	}
	/* (a broken queue's counts are void: pop_n may break mid-way) */
	if (fuzz_usable(c))
		CHECK(c->vq.filled == c->filled && c->filled <= c->vq.num &&
		      c->vq.unpoppable == c->unpoppable);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_ctx *c;

	log_level = -1;
	if (size < 14)
		return 0;
	c = calloc(1, sizeof(*c));
	CHECK(c);
	fuzz_ram_alloc(&c->mem);
	c->cfg = data;
	fuzz_config(c, data);
	fuzz_split_input(data, size, 14, &c->mem, &c->in);

	fuzz_activate(c);
	while (c->in.p < c->in.end)
		fuzz_op(c);

	fuzz_ram_free(&c->mem);
	free(c);
	return 0;
}
