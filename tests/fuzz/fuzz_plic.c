// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the PLIC with an op stream: raw MMIO anywhere in (and past) the
 * window at any size and alignment, structured register accesses, input
 * lines, trigger modes and reset, on 4 contexts.  After every op the state
 * is checked against invariants and a reference model of claim selection
 * and register decoding written independently of devices/plic.c.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "devices/plic.h"
#include "lib/log.h"

#define NR_CTX 4
#define NR_SRC (PLIC_MAX_SOURCES + 1)

#define CHECK(cond)              \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

/*
 * The reference model's loops over every source run after every op; their
 * own coverage tells the fuzzer nothing about the PLIC, and its
 * comparison tracing was most of their cost.
 */
#define FUZZ_NO_COVERAGE __attribute__((noinline, no_sanitize("coverage")))

struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

struct fuzz_line {
	int level;
};

struct fuzz_state {
	struct plic plic;
	struct fuzz_line lines[NR_CTX];
};

static uint32_t fuzz_take(struct fuzz_in *in, unsigned int bytes)
{
	uint32_t v = 0;

	for (unsigned int i = 0; i < bytes && in->n; i++, in->n--)
		v |= (uint32_t)*in->p++ << (8 * i);
	return v;
}

/* Mostly small ids, sometimes the edges of (and beyond) the range. */
static unsigned int fuzz_src(struct fuzz_in *in)
{
	static const unsigned int special[] = {
		0, 31, 32, 1022, 1023, 1024, 4096, 0xffffffffu,
	};
	uint32_t b = fuzz_take(in, 1);

	return b >= 0xf8 ? special[b - 0xf8] : b;
}

static unsigned int fuzz_len(struct fuzz_in *in)
{
	static const unsigned int lens[] = { 4, 4, 4, 4, 1, 2, 8, 3 };

	return lens[fuzz_take(in, 1) % 8];
}

static void fuzz_line_set(void *opaque, int level)
{
	struct fuzz_line *f = opaque;

	CHECK(level == 0 || level == 1);
	CHECK(level != f->level);
	f->level = level;
}

static bool bit(const uint32_t *map, unsigned int src)
{
	return (map[src / 32] >> (src % 32)) & 1;
}

/*
 * Reference claim selection: the lowest-numbered of the pending, enabled
 * sources of the highest priority above the threshold.  Sources in
 * ascending order, a word of pending & enable at a time (the loop over
 * all 1024 sources after every op was most of this target's time).
 */
FUZZ_NO_COVERAGE
static unsigned int fuzz_best(const struct plic *p, unsigned int ctx)
{
	const struct plic_context *c = &p->ctx[ctx];
	unsigned int best = 0, prio = 0;

	for (unsigned int w = 0; w < NR_SRC / 32; w++) {
		uint32_t m = p->pending[w] & c->enable[w];

		for (; m; m &= m - 1) {
			unsigned int s = w * 32 + __builtin_ctz(m);

			if (!s || p->priority[s] <= c->threshold ||
			    p->priority[s] <= prio)
				continue;
			best = s;
			prio = p->priority[s];
		}
	}
	return best;
}

/* Context whose register 'reg' (threshold or claim) is at 'off', or -1. */
static int fuzz_ctx_reg(uint64_t off, uint64_t reg)
{
	for (int c = 0; c < NR_CTX; c++)
		if (off == PLIC_CONTEXT_BASE + PLIC_CONTEXT_STRIDE * c + reg)
			return c;
	return -1;
}

/* Reference decoder for reads, except claim. */
static uint32_t fuzz_expect_read(const struct plic *p, uint64_t off,
				 unsigned int len)
{
	int c;

	if (len != 4 || off % 4 || off >= PLIC_SIZE)
		return 0;
	if (off < 4 * NR_SRC)
		return p->priority[off / 4];
	if (off >= PLIC_PENDING_BASE && off < PLIC_PENDING_BASE + 128)
		return p->pending[(off - PLIC_PENDING_BASE) / 4];
	for (c = 0; c < NR_CTX; c++) {
		uint64_t e = PLIC_ENABLE_BASE + PLIC_ENABLE_STRIDE * c;

		if (off >= e && off < e + 128)
			return p->ctx[c].enable[(off - e) / 4];
	}
	c = fuzz_ctx_reg(off, PLIC_CONTEXT_THRESHOLD);
	return c >= 0 ? p->ctx[c].threshold : 0;
}

FUZZ_NO_COVERAGE
static void fuzz_check(const struct fuzz_state *st)
{
	const struct plic *p = &st->plic;

	CHECK(p->priority[0] == 0);
	for (unsigned int s = 1; s < NR_SRC; s++)
		CHECK(p->priority[s] <= PLIC_MAX_PRIORITY);
	for (unsigned int w = 0; w < PLIC_WORDS; w++) {
		uint32_t level_src = ~p->edge[w];

		CHECK(!(p->pending[w] & p->claimed[w]));
		CHECK(!(p->held[w] & ~p->claimed[w]));
		CHECK(!(p->held[w] & ~p->edge[w]));
		CHECK((p->pending[w] & level_src) ==
		      (p->line[w] & ~p->claimed[w] & level_src));
	}
	CHECK(!(p->pending[0] & 1) && !(p->claimed[0] & 1));
	CHECK(!(p->line[0] & 1) && !(p->edge[0] & 1));
	for (unsigned int c = 0; c < NR_CTX; c++) {
		CHECK(!(p->ctx[c].enable[0] & 1));
		CHECK(p->ctx[c].threshold <= PLIC_MAX_PRIORITY);
		CHECK(st->lines[c].level == (fuzz_best(p, c) != 0));
	}
}

static void fuzz_read(struct fuzz_state *st, uint64_t off, unsigned int len)
{
	struct plic *p = &st->plic;
	int c = len == 4 ? fuzz_ctx_reg(off, PLIC_CONTEXT_CLAIM) : -1;
	uint32_t want, got;
	uint8_t buf[8];

	want = c >= 0 ? fuzz_best(p, c) : fuzz_expect_read(p, off, len);
	memset(buf, 0xa5, sizeof(buf));
	plic_mmio_ops.read(p, off, buf, len);
	got = mmio_data_get(buf, len);
	CHECK(got == want);
	for (unsigned int i = len; i < sizeof(buf); i++)
		CHECK(buf[i] == 0xa5);
	if (c >= 0 && got) {
		CHECK(got <= PLIC_MAX_SOURCES);
		CHECK(bit(p->claimed, got) && !bit(p->pending, got));
	}
}

static void fuzz_write(struct fuzz_state *st, uint64_t off, uint32_t val,
		       unsigned int len)
{
	uint8_t buf[8];

	mmio_data_put(buf, sizeof(buf), val);
	plic_mmio_ops.write(&st->plic, off, buf, len);
}

static void fuzz_complete(struct fuzz_state *st, unsigned int ctx, uint32_t src)
{
	struct plic *p = &st->plic;
	uint32_t pending[PLIC_WORDS], claimed[PLIC_WORDS], held[PLIC_WORDS];
	bool ok = src >= 1 && src < NR_SRC && ctx < NR_CTX &&
		  bit(p->ctx[ctx].enable, src) && bit(p->claimed, src);
	bool again = ok && (bit(p->edge, src) ? bit(p->held, src) :
						bit(p->line, src));

	memcpy(pending, p->pending, sizeof(pending));
	memcpy(claimed, p->claimed, sizeof(claimed));
	memcpy(held, p->held, sizeof(held));
	fuzz_write(st,
		   PLIC_CONTEXT_BASE + PLIC_CONTEXT_STRIDE * ctx +
			   PLIC_CONTEXT_CLAIM,
		   src, 4);
	if (ok) {
		CHECK(!bit(p->claimed, src) && !bit(p->held, src));
		CHECK(bit(p->pending, src) == again);
		return;
	}
	CHECK(!memcmp(pending, p->pending, sizeof(pending)));
	CHECK(!memcmp(claimed, p->claimed, sizeof(claimed)));
	CHECK(!memcmp(held, p->held, sizeof(held)));
}

static void fuzz_set_irq(struct fuzz_state *st, unsigned int src, int level)
{
	struct plic *p = &st->plic;
	bool valid = src >= 1 && src < NR_SRC;
	bool rising = valid && level && !bit(p->line, src);
	bool busy = valid && bit(p->claimed, src);

	plic_set_irq(p, src, level);
	if (!valid)
		return;
	CHECK(bit(p->line, src) == level);
	if (rising && bit(p->edge, src))
		CHECK(busy ? bit(p->held, src) : bit(p->pending, src));
}

FUZZ_NO_COVERAGE
static void fuzz_reset(struct fuzz_state *st)
{
	struct plic *p = &st->plic;

	plic_mmio_ops.reset(p);
	for (unsigned int s = 0; s < NR_SRC; s++)
		CHECK(p->priority[s] == 0);
	for (unsigned int w = 0; w < PLIC_WORDS; w++) {
		CHECK(!p->claimed[w] && !p->held[w]);
		CHECK(p->pending[w] == (p->line[w] & ~p->edge[w]));
		for (unsigned int c = 0; c < NR_CTX; c++)
			CHECK(!p->ctx[c].enable[w]);
	}
	for (unsigned int c = 0; c < NR_CTX; c++)
		CHECK(!p->ctx[c].threshold && !st->lines[c].level);
}

static void fuzz_op(struct fuzz_state *st, struct fuzz_in *in)
{
	unsigned int op = fuzz_take(in, 1) % 10;
	unsigned int ctx, src, len;
	uint64_t off;

	switch (op) {
	case 0:
		off = fuzz_take(in, 4) & (2 * PLIC_SIZE - 1);
		len = fuzz_len(in);
		fuzz_read(st, off, len);
		break;
	case 1:
		off = fuzz_take(in, 4) & (2 * PLIC_SIZE - 1);
		len = fuzz_len(in);
		fuzz_write(st, off, fuzz_take(in, 4), len);
		break;
	case 2:
		src = fuzz_src(in) % NR_SRC;
		fuzz_write(st, PLIC_PRIORITY_BASE + 4 * src, fuzz_take(in, 1),
			   4);
		break;
	case 3:
		ctx = fuzz_take(in, 1) % (NR_CTX + 1);
		off = PLIC_ENABLE_BASE + PLIC_ENABLE_STRIDE * ctx +
		      4 * (fuzz_take(in, 1) % PLIC_WORDS);
		fuzz_write(st, off, fuzz_take(in, 4), 4);
		break;
	case 4:
		ctx = fuzz_take(in, 1) % (NR_CTX + 1);
		fuzz_write(st, PLIC_CONTEXT_BASE + PLIC_CONTEXT_STRIDE * ctx,
			   fuzz_take(in, 1), 4);
		break;
	case 5:
		ctx = fuzz_take(in, 1) % (NR_CTX + 1);
		fuzz_read(st,
			  PLIC_CONTEXT_BASE + PLIC_CONTEXT_STRIDE * ctx +
				  PLIC_CONTEXT_CLAIM,
			  4);
		break;
	case 6:
		ctx = fuzz_take(in, 1) % (NR_CTX + 1);
		fuzz_complete(st, ctx, fuzz_src(in));
		break;
	case 7:
		src = fuzz_src(in);
		fuzz_set_irq(st, src, fuzz_take(in, 1) & 1);
		break;
	case 8:
		src = fuzz_src(in);
		plic_set_edge(&st->plic, src, fuzz_take(in, 1) & 1);
		break;
	default:
		fuzz_reset(st);
		break;
	}
	fuzz_check(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { .p = data, .n = size };
	const struct dev_res res = { .base = 0x0c000000, .size = PLIC_SIZE };
	struct irq_line out[NR_CTX];
	struct fuzz_state st;

	log_level = -1;
	memset(&st, 0, sizeof(st));
	for (int i = 0; i < NR_CTX; i++)
		out[i] = (struct irq_line){ .set = fuzz_line_set,
					    .opaque = &st.lines[i] };
	CHECK(plic_init(&st.plic, &res, NR_CTX, out) == 0);
	while (in.n)
		fuzz_op(&st, &in);
	plic_destroy(&st.plic);
	return 0;
}
