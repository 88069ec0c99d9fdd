// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <pthread.h>
#include <stdlib.h>
#include <cmocka.h>

#include <libfdt.h>

#include "devices/plic.h"
#include "lib/log.h"

/* Where a board would put the PLIC: phandle 1, harts' intcs from 2. */
static const struct dev_res plic_res = {
	.base = 0x0c000000,
	.size = PLIC_SIZE,
	.phandle = 1,
	.irq_parent = 2,
};

#define NR_CTX 4

/* A recording irq_line: counts set() calls and redundant ones. */
struct fake_line {
	int level;
	unsigned int calls;
	unsigned int redundant;
};

struct fixture {
	struct plic plic;
	struct fake_line lines[NR_CTX];
};

static void fake_set(void *opaque, int level)
{
	struct fake_line *f = opaque;

	if (level == f->level)
		f->redundant++;
	f->level = level;
	f->calls++;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct irq_line out[NR_CTX];

	if (!fx)
		return -1;
	for (int i = 0; i < NR_CTX; i++)
		out[i] = (struct irq_line){ .set = fake_set,
					    .opaque = &fx->lines[i] };
	if (plic_init(&fx->plic, &plic_res, NR_CTX, out)) {
		free(fx);
		return -1;
	}
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	/* No test may ever see a redundant set(). */
	for (int i = 0; i < NR_CTX; i++)
		assert_int_equal(fx->lines[i].redundant, 0);
	plic_destroy(&fx->plic);
	free(fx);
	return 0;
}

static uint32_t rd(struct plic *p, uint64_t off)
{
	uint8_t buf[4] = { 0xaa, 0xaa, 0xaa, 0xaa };

	plic_mmio_ops.read(p, off, buf, 4);
	return mmio_data_get(buf, 4);
}

static void wr(struct plic *p, uint64_t off, uint32_t val)
{
	uint8_t buf[4];

	mmio_data_put(buf, 4, val);
	plic_mmio_ops.write(p, off, buf, 4);
}

static uint64_t enable_off(unsigned int ctx, unsigned int src)
{
	return PLIC_ENABLE_BASE + PLIC_ENABLE_STRIDE * ctx + 4 * (src / 32);
}

static uint64_t thresh_off(unsigned int ctx)
{
	return PLIC_CONTEXT_BASE + PLIC_CONTEXT_STRIDE * ctx;
}

static uint64_t claim_off(unsigned int ctx)
{
	return thresh_off(ctx) + PLIC_CONTEXT_CLAIM;
}

static void set_prio(struct plic *p, unsigned int src, uint32_t prio)
{
	wr(p, PLIC_PRIORITY_BASE + 4 * src, prio);
}

static void enable(struct plic *p, unsigned int ctx, unsigned int src, bool on)
{
	uint32_t v = rd(p, enable_off(ctx, src));
	uint32_t bit = 1u << (src % 32);

	wr(p, enable_off(ctx, src), on ? v | bit : v & ~bit);
}

static uint32_t claim(struct plic *p, unsigned int ctx)
{
	return rd(p, claim_off(ctx));
}

static void complete(struct plic *p, unsigned int ctx, uint32_t src)
{
	wr(p, claim_off(ctx), src);
}

static bool is_pending(struct plic *p, unsigned int src)
{
	return rd(p, PLIC_PENDING_BASE + 4 * (src / 32)) & (1u << (src % 32));
}

/* Priority 'prio', enabled for context 0 only. */
static void setup_src(struct plic *p, unsigned int src, uint32_t prio)
{
	set_prio(p, src, prio);
	enable(p, 0, src, true);
}

static void test_ops_table(void **state)
{
	(void)state;
	assert_string_equal(plic_mmio_ops.name, "plic");
	assert_int_equal(plic_mmio_ops.sizes, MMIO_SIZE(4));
	assert_non_null(plic_mmio_ops.read);
	assert_non_null(plic_mmio_ops.write);
	assert_non_null(plic_mmio_ops.reset);
	assert_non_null(plic_mmio_ops.fdt);
}

static void test_init_rejects(void **state)
{
	struct irq_line out[PLIC_MAX_CONTEXTS + 1] = { 0 };
	struct plic p;

	(void)state;
	assert_int_equal(plic_init(&p, &plic_res, 0, out), -EINVAL);
	assert_int_equal(plic_init(&p, &plic_res, PLIC_MAX_CONTEXTS + 1, out),
			 -EINVAL);
	assert_int_equal(plic_init(&p, &plic_res, 1, NULL), -EINVAL);
	assert_int_equal(plic_init(&p, NULL, 1, out), -EINVAL);
	assert_int_equal(plic_init(&p, &plic_res, PLIC_MAX_CONTEXTS, out), 0);
	/* NULL set() callbacks are allowed. */
	plic_set_irq(&p, 1, 1);
	wr(&p, 4, 1);
	wr(&p, enable_off(PLIC_MAX_CONTEXTS - 1, 1), 2);
	assert_int_equal(claim(&p, PLIC_MAX_CONTEXTS - 1), 1);
	plic_destroy(&p);
}

static void test_claim_empty(void **state)
{
	struct fixture *fx = *state;

	for (int i = 0; i < NR_CTX; i++)
		assert_int_equal(claim(&fx->plic, i), 0);
	for (int i = 0; i < NR_CTX; i++)
		assert_int_equal(fx->lines[i].calls, 0);
}

static void test_priority_order(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;
	static const unsigned int srcs[] = { 5, 9, 7, 40, 1023 };
	static const uint32_t prios[] = { 1, 3, 3, 2, 1 };

	for (int i = 0; i < 5; i++) {
		setup_src(p, srcs[i], prios[i]);
		plic_set_irq(p, srcs[i], 1);
	}
	assert_int_equal(fx->lines[0].level, 1);
	assert_int_equal(claim(p, 0), 7);
	assert_int_equal(claim(p, 0), 9);
	assert_int_equal(claim(p, 0), 40);
	assert_int_equal(claim(p, 0), 5);
	assert_int_equal(fx->lines[0].level, 1);
	assert_int_equal(claim(p, 0), 1023);
	assert_int_equal(fx->lines[0].level, 0);
	assert_int_equal(claim(p, 0), 0);
	assert_int_equal(fx->lines[0].calls, 2);
	assert_false(is_pending(p, 7));
	assert_false(is_pending(p, 1023));
}

static void test_priority_change_reorders(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;

	setup_src(p, 2, 1);
	setup_src(p, 3, 2);
	plic_set_irq(p, 2, 1);
	plic_set_irq(p, 3, 1);
	set_prio(p, 2, 5);
	assert_int_equal(claim(p, 0), 2);
	assert_int_equal(claim(p, 0), 3);
}

static void test_threshold(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;

	setup_src(p, 3, 2);
	wr(p, thresh_off(0), 2);
	plic_set_irq(p, 3, 1);
	assert_true(is_pending(p, 3));
	assert_int_equal(fx->lines[0].level, 0);
	assert_int_equal(claim(p, 0), 0);
	assert_true(is_pending(p, 3));
	wr(p, thresh_off(0), 1);
	assert_int_equal(fx->lines[0].level, 1);
	wr(p, thresh_off(0), 2);
	assert_int_equal(fx->lines[0].level, 0);
	wr(p, thresh_off(0), 0);
	assert_int_equal(fx->lines[0].level, 1);
	assert_int_equal(claim(p, 0), 3);
	assert_int_equal(fx->lines[0].calls, 4);
}

static void test_warl_fields(void **state)
{
	struct plic *p = &((struct fixture *)*state)->plic;

	set_prio(p, 1, 0xffffffff);
	assert_int_equal(rd(p, 4), 7);
	set_prio(p, 1023, 0x9);
	assert_int_equal(rd(p, 4 * 1023), 1);
	wr(p, thresh_off(3), 0xff);
	assert_int_equal(rd(p, thresh_off(3)), 7);
	wr(p, enable_off(2, 32), 0xffffffff);
	assert_int_equal(rd(p, enable_off(2, 32)), 0xffffffff);
}

static void test_priority_zero_never(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;

	setup_src(p, 8, 0);
	plic_set_irq(p, 8, 1);
	assert_true(is_pending(p, 8));
	assert_int_equal(fx->lines[0].calls, 0);
	assert_int_equal(claim(p, 0), 0);
	set_prio(p, 8, 1);
	assert_int_equal(fx->lines[0].level, 1);
	assert_int_equal(claim(p, 0), 8);
}

static void test_enable_per_context(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;

	setup_src(p, 10, 4);
	plic_set_irq(p, 10, 1);
	assert_int_equal(fx->lines[0].level, 1);
	for (int i = 1; i < NR_CTX; i++) {
		assert_int_equal(claim(p, i), 0);
		assert_int_equal(fx->lines[i].calls, 0);
	}
	assert_int_equal(claim(p, 0), 10);
	complete(p, 0, 10);
	assert_int_equal(fx->lines[0].level, 1);
	for (int i = 1; i < NR_CTX; i++)
		assert_int_equal(fx->lines[i].calls, 0);
	/* Disabling masks the output without touching pending. */
	enable(p, 0, 10, false);
	assert_int_equal(fx->lines[0].level, 0);
	assert_true(is_pending(p, 10));
}

static void test_shared_source_claimed_once(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;

	setup_src(p, 33, 1);
	enable(p, 1, 33, true);
	plic_set_irq(p, 33, 1);
	assert_int_equal(fx->lines[0].level, 1);
	assert_int_equal(fx->lines[1].level, 1);
	assert_int_equal(claim(p, 1), 33);
	assert_int_equal(fx->lines[0].level, 0);
	assert_int_equal(fx->lines[1].level, 0);
	assert_int_equal(claim(p, 0), 0);
	/* Any context with the source enabled may complete it. */
	complete(p, 0, 33);
	assert_int_equal(fx->lines[0].level, 1);
	assert_int_equal(fx->lines[1].level, 1);
}

static void test_level_repends(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;

	setup_src(p, 4, 1);
	plic_set_irq(p, 4, 1);
	assert_int_equal(claim(p, 0), 4);
	assert_false(is_pending(p, 4));
	assert_int_equal(fx->lines[0].level, 0);
	complete(p, 0, 4);
	assert_true(is_pending(p, 4));
	assert_int_equal(fx->lines[0].level, 1);
	assert_int_equal(claim(p, 0), 4);
	plic_set_irq(p, 4, 0);
	complete(p, 0, 4);
	assert_false(is_pending(p, 4));
	assert_int_equal(fx->lines[0].level, 0);
	assert_int_equal(claim(p, 0), 0);
	assert_int_equal(fx->lines[0].calls, 4);
}

static void test_level_deassert_before_claim(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;

	setup_src(p, 4, 1);
	plic_set_irq(p, 4, 1);
	assert_int_equal(fx->lines[0].level, 1);
	plic_set_irq(p, 4, 0);
	assert_int_equal(fx->lines[0].level, 0);
	assert_false(is_pending(p, 4));
	assert_int_equal(claim(p, 0), 0);
}

static void test_level_pulse_during_service(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;

	setup_src(p, 4, 1);
	plic_set_irq(p, 4, 1);
	assert_int_equal(claim(p, 0), 4);
	plic_set_irq(p, 4, 0);
	plic_set_irq(p, 4, 1);
	assert_false(is_pending(p, 4));
	plic_set_irq(p, 4, 0);
	complete(p, 0, 4);
	assert_false(is_pending(p, 4));
	assert_int_equal(fx->lines[0].calls, 2);
}

static void test_edge_during_service_kept(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;

	plic_set_edge(p, 6, true);
	setup_src(p, 6, 1);
	plic_set_irq(p, 6, 1);
	assert_true(is_pending(p, 6));
	assert_int_equal(claim(p, 0), 6);
	plic_set_irq(p, 6, 0);
	plic_set_irq(p, 6, 1);
	/* Held in the gateway until completion. */
	assert_false(is_pending(p, 6));
	assert_int_equal(fx->lines[0].level, 0);
	assert_int_equal(claim(p, 0), 0);
	complete(p, 0, 6);
	assert_true(is_pending(p, 6));
	assert_int_equal(fx->lines[0].level, 1);
	assert_int_equal(claim(p, 0), 6);
	complete(p, 0, 6);
	assert_false(is_pending(p, 6));
	assert_int_equal(fx->lines[0].level, 0);
}

static void test_edge_not_repended_by_held_line(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;

	plic_set_edge(p, 6, true);
	setup_src(p, 6, 1);
	plic_set_irq(p, 6, 1);
	assert_int_equal(claim(p, 0), 6);
	complete(p, 0, 6);
	assert_false(is_pending(p, 6));
	plic_set_irq(p, 6, 1);
	assert_false(is_pending(p, 6));
	assert_int_equal(fx->lines[0].level, 0);
	plic_set_irq(p, 6, 0);
	assert_false(is_pending(p, 6));
	plic_set_irq(p, 6, 1);
	assert_true(is_pending(p, 6));
}

static void test_edge_at_most_one(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;

	plic_set_edge(p, 100, true);
	setup_src(p, 100, 7);
	for (int i = 0; i < 3; i++) {
		plic_set_irq(p, 100, 1);
		plic_set_irq(p, 100, 0);
	}
	assert_int_equal(claim(p, 0), 100);
	assert_int_equal(claim(p, 0), 0);
	complete(p, 0, 100);
	assert_int_equal(claim(p, 0), 0);
}

static void test_edge_deassert_keeps_pending(void **state)
{
	struct plic *p = &((struct fixture *)*state)->plic;

	plic_set_edge(p, 6, true);
	setup_src(p, 6, 1);
	plic_set_irq(p, 6, 1);
	plic_set_irq(p, 6, 0);
	assert_true(is_pending(p, 6));
	assert_int_equal(claim(p, 0), 6);
}

static void test_switch_to_level(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;

	plic_set_edge(p, 6, true);
	setup_src(p, 6, 1);
	plic_set_irq(p, 6, 1);
	assert_int_equal(claim(p, 0), 6);
	complete(p, 0, 6);
	assert_false(is_pending(p, 6));
	plic_set_edge(p, 6, false);
	assert_true(is_pending(p, 6));
	assert_int_equal(fx->lines[0].level, 1);
}

static void test_complete_ignored(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;

	setup_src(p, 12, 1);
	setup_src(p, 13, 1);
	plic_set_irq(p, 12, 1);
	plic_set_irq(p, 13, 1);
	/* 13 is pending but not claimed: completing it changes nothing. */
	complete(p, 0, 13);
	assert_true(is_pending(p, 13));
	assert_int_equal(claim(p, 0), 12);
	assert_int_equal(claim(p, 0), 13);
	/* Context 1 does not have 12 enabled: ignored. */
	complete(p, 1, 12);
	assert_false(is_pending(p, 12));
	/* Disabled in the claiming context too: still ignored. */
	enable(p, 0, 12, false);
	complete(p, 0, 12);
	enable(p, 0, 12, true);
	assert_false(is_pending(p, 12));
	assert_int_equal(claim(p, 0), 0);
	complete(p, 0, 12);
	assert_true(is_pending(p, 12));
	/* A second completion is ignored. */
	complete(p, 0, 13);
	complete(p, 0, 13);
	assert_int_equal(claim(p, 0), 12);
	assert_int_equal(claim(p, 0), 13);
	assert_int_equal(claim(p, 0), 0);
}

static void test_source0_and_out_of_range(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;

	set_prio(p, 0, 7);
	assert_int_equal(rd(p, 0), 0);
	wr(p, enable_off(0, 0), 0xffffffff);
	assert_int_equal(rd(p, enable_off(0, 0)), 0xfffffffe);
	wr(p, enable_off(0, 1023), 0xffffffff);
	assert_int_equal(rd(p, enable_off(0, 1023)), 0xffffffff);
	plic_set_irq(p, 0, 1);
	plic_set_irq(p, 1024, 1);
	plic_set_irq(p, 0xffffffffu, 1);
	plic_set_edge(p, 0, true);
	plic_set_edge(p, 1024, true);
	assert_int_equal(rd(p, PLIC_PENDING_BASE), 0);
	assert_int_equal(claim(p, 0), 0);
	/* Pending bits are read-only. */
	wr(p, PLIC_PENDING_BASE, 0xffffffff);
	wr(p, PLIC_PENDING_BASE + 4 * 31, 0xffffffff);
	assert_int_equal(rd(p, PLIC_PENDING_BASE), 0);
	assert_int_equal(rd(p, PLIC_PENDING_BASE + 4 * 31), 0);
	assert_int_equal(claim(p, 0), 0);
	/* Completions of nonexistent sources. */
	setup_src(p, 1, 1);
	plic_set_irq(p, 1, 1);
	assert_int_equal(claim(p, 0), 1);
	complete(p, 0, 0);
	complete(p, 0, 1024);
	complete(p, 0, 0xffffffff);
	complete(p, 0, 1 + 1024);
	assert_false(is_pending(p, 1));
	assert_int_equal(fx->lines[0].level, 0);
	complete(p, 0, 1);
	assert_int_equal(fx->lines[0].level, 1);
}

/* State a stray access could corrupt, read back through registers. */
static uint32_t checksum(struct plic *p)
{
	uint32_t sum = 0;

	for (unsigned int s = 0; s < 1024; s++)
		sum = sum * 31 + rd(p, 4 * s);
	for (unsigned int c = 0; c < NR_CTX; c++) {
		for (unsigned int w = 0; w < 32; w++)
			sum = sum * 31 + rd(p, enable_off(c, 32 * w));
		sum = sum * 31 + rd(p, thresh_off(c));
	}
	for (unsigned int w = 0; w < 32; w++)
		sum = sum * 31 + rd(p, PLIC_PENDING_BASE + 4 * w);
	return sum;
}

static void test_bad_offsets(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;
	const uint64_t bad[] = {
		PLIC_PENDING_BASE + 0x80,
		0x1ffc,
		PLIC_ENABLE_BASE + PLIC_ENABLE_STRIDE * NR_CTX,
		0x1f1ffc,
		0x100000,
		PLIC_CONTEXT_BASE - 4,
		PLIC_CONTEXT_BASE + 8,
		PLIC_CONTEXT_BASE + 0xffc,
		thresh_off(NR_CTX),
		claim_off(NR_CTX),
		claim_off(PLIC_MAX_CONTEXTS),
		PLIC_SIZE - 4,
		PLIC_SIZE,
		UINT64_MAX - 3,
	};
	uint32_t sum;

	for (int i = 1; i <= 3; i++) {
		setup_src(p, i, i);
		plic_set_irq(p, i, 1);
	}
	wr(p, thresh_off(1), 1);
	sum = checksum(p);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(rd(p, bad[i]), 0);
		wr(p, bad[i], 0xffffffff);
		wr(p, bad[i], 3);
	}
	assert_int_equal(checksum(p), sum);
	assert_int_equal(fx->lines[0].level, 1);
	assert_int_equal(fx->lines[0].calls, 1);
}

static void test_bad_sizes_and_alignment(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;
	uint8_t buf[8];
	uint32_t sum;

	setup_src(p, 1, 1);
	plic_set_irq(p, 1, 1);
	sum = checksum(p);
	/* Misaligned 4-byte accesses, including near the claim register. */
	for (uint64_t off = 1; off < 4; off++) {
		memset(buf, 0xaa, sizeof(buf));
		plic_mmio_ops.read(p, claim_off(0) + off, buf, 4);
		assert_int_equal(mmio_data_get(buf, 4), 0);
		plic_mmio_ops.read(p, claim_off(0) - off, buf, 4);
		assert_int_equal(mmio_data_get(buf, 4), 0);
		plic_mmio_ops.write(p, 4 + off, buf, 4);
		plic_mmio_ops.write(p, enable_off(0, 0) + off, buf, 4);
	}
	/* Other sizes: reads give zeros of that size, writes are ignored. */
	for (unsigned int len = 1; len <= 8; len *= 2) {
		if (len == 4)
			continue;
		memset(buf, 0xaa, sizeof(buf));
		plic_mmio_ops.read(p, claim_off(0), buf, len);
		assert_int_equal(mmio_data_get(buf, len), 0);
		if (len < 8)
			assert_int_equal(buf[len], 0xaa);
		memset(buf, 0xff, sizeof(buf));
		plic_mmio_ops.write(p, 4, buf, len);
		plic_mmio_ops.write(p, thresh_off(0), buf, len);
	}
	assert_int_equal(checksum(p), sum);
	assert_int_equal(fx->lines[0].level, 1);
	assert_int_equal(claim(p, 0), 1);
}

static void test_reset(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;

	plic_set_edge(p, 20, true);
	setup_src(p, 20, 2); /* edge, line stays high */
	setup_src(p, 21, 2); /* level, claimed, line stays high */
	setup_src(p, 22, 2); /* level, pending, line stays high */
	setup_src(p, 23, 2); /* level, line dropped */
	enable(p, 1, 22, true);
	wr(p, thresh_off(2), 5);
	for (int s = 20; s <= 23; s++)
		plic_set_irq(p, s, 1);
	plic_set_irq(p, 23, 0);
	assert_int_equal(claim(p, 0), 20);
	assert_int_equal(claim(p, 0), 21);
	assert_int_equal(fx->lines[0].level, 1);
	assert_int_equal(fx->lines[1].level, 1);

	plic_mmio_ops.reset(p);
	assert_int_equal(fx->lines[0].level, 0);
	assert_int_equal(fx->lines[1].level, 0);
	assert_int_equal(fx->lines[0].calls, 2);
	assert_int_equal(fx->lines[1].calls, 2);
	for (int s = 20; s <= 23; s++)
		assert_int_equal(rd(p, 4 * s), 0);
	for (int c = 0; c < NR_CTX; c++) {
		assert_int_equal(rd(p, enable_off(c, 20)), 0);
		assert_int_equal(rd(p, thresh_off(c)), 0);
		assert_int_equal(claim(p, c), 0);
	}
	assert_false(is_pending(p, 20));
	assert_true(is_pending(p, 21));
	assert_true(is_pending(p, 22));
	assert_false(is_pending(p, 23));

	/* In-service state is gone: 21 is claimable again. */
	for (int s = 20; s <= 23; s++)
		setup_src(p, s, 1);
	assert_int_equal(claim(p, 0), 21);
	assert_int_equal(claim(p, 0), 22);
	assert_int_equal(claim(p, 0), 0);
	/* Edge wiring survives reset. */
	plic_set_irq(p, 20, 0);
	plic_set_irq(p, 20, 1);
	plic_set_irq(p, 20, 0);
	assert_int_equal(claim(p, 0), 20);
}

static void test_reset_idle_no_calls(void **state)
{
	struct fixture *fx = *state;

	plic_mmio_ops.reset(&fx->plic);
	for (int i = 0; i < NR_CTX; i++)
		assert_int_equal(fx->lines[i].calls, 0);
}

/*
 * KVM clears a hart's external interrupt when it resets the vCPU (SBI HSM
 * hart_start); the PLIC still thinks it drove the line high, and a
 * pending source would wait until the best source changes.  The vCPU's
 * resync drives it again; on a low line or a bad context it does nothing.
 */
static void test_resync_after_hart_reset(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;

	plic_resync(p, 0);
	plic_resync(p, NR_CTX);
	plic_resync(p, ~0u);
	assert_int_equal(fx->lines[0].calls, 0);
	setup_src(p, 1, 1);
	plic_set_irq(p, 1, 1);
	assert_int_equal(fx->lines[0].level, 1);
	fx->lines[0].level = 0; /* the vCPU reset */
	plic_resync(p, 1);	/* another hart's exit: not this line */
	assert_int_equal(fx->lines[0].level, 0);
	plic_resync(p, 0);
	assert_int_equal(fx->lines[0].level, 1);
	assert_int_equal(claim(p, 0), 1);
	assert_int_equal(fx->lines[0].level, 0);
	plic_resync(p, 0); /* claimed: stays low */
	assert_int_equal(fx->lines[0].level, 0);
	assert_int_equal(fx->lines[0].calls, 3);
}

static void test_output_only_on_change(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;

	setup_src(p, 1, 1);
	setup_src(p, 2, 1);
	plic_set_irq(p, 1, 1);
	plic_set_irq(p, 1, 1);
	plic_set_irq(p, 2, 1);
	set_prio(p, 2, 3);
	wr(p, thresh_off(0), 0);
	enable(p, 0, 3, true);
	assert_int_equal(fx->lines[0].calls, 1);
	assert_int_equal(claim(p, 0), 2);
	assert_int_equal(fx->lines[0].calls, 1);
	assert_int_equal(claim(p, 0), 1);
	assert_int_equal(fx->lines[0].calls, 2);
	assert_int_equal(claim(p, 0), 0);
	plic_set_irq(p, 1, 0);
	plic_set_irq(p, 2, 0);
	assert_int_equal(fx->lines[0].calls, 2);
	for (int i = 1; i < NR_CTX; i++)
		assert_int_equal(fx->lines[i].calls, 0);
}

static void *toggle_thread(void *arg)
{
	struct plic *p = arg;

	for (int i = 0; i < 20000; i++) {
		plic_set_irq(p, 1 + i % 2, 1);
		plic_set_irq(p, 1 + i % 2, 0);
	}
	return NULL;
}

/* Device input on one thread, claim/complete on another. */
static void test_threads(void **state)
{
	struct fixture *fx = *state;
	struct plic *p = &fx->plic;
	pthread_t t;

	setup_src(p, 1, 1);
	setup_src(p, 2, 2);
	assert_int_equal(pthread_create(&t, NULL, toggle_thread, p), 0);
	for (int i = 0; i < 20000; i++) {
		uint32_t src = claim(p, 0);

		assert_true(src <= 2);
		if (src)
			complete(p, 0, src);
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	/* Both lines ended low and every claim was completed. */
	assert_int_equal(claim(p, 0), 0);
	assert_int_equal(fx->lines[0].level, 0);
	assert_int_equal(rd(p, PLIC_PENDING_BASE), 0);
}

static void build_fdt(void *buf, int size, struct plic *p, int *err)
{
	int e;

	e = fdt_create(buf, size);
	e = e ?: fdt_finish_reservemap(buf);
	e = e ?: fdt_begin_node(buf, "");
	e = e ?: fdt_property_u32(buf, "#address-cells", 2);
	e = e ?: fdt_property_u32(buf, "#size-cells", 2);
	if (!e)
		*err = plic_mmio_ops.fdt(p, buf);
	e = e ?: *err;
	e = e ?: fdt_end_node(buf);
	e = e ?: fdt_finish(buf);
	assert_int_equal(e, *err);
}

static void assert_cells(const void *fdt, int node, const char *name,
			 const uint32_t *want, int n)
{
	const fdt32_t *v;
	int len;

	v = fdt_getprop(fdt, node, name, &len);
	assert_non_null(v);
	assert_int_equal(len, 4 * n);
	for (int i = 0; i < n; i++)
		assert_int_equal(fdt32_to_cpu(v[i]), want[i]);
}

static void test_fdt(void **state)
{
	struct plic *p = &((struct fixture *)*state)->plic;
	static const char compat[] = "sifive,plic-1.0.0\0riscv,plic0";
	static const uint32_t reg[] = { 0, 0x0c000000, 0, 0x04000000 };
	static const uint32_t ext[] = { 2, 9, 3, 9, 4, 9, 5, 9 };
	static const uint32_t ndev = 1023, one = 1, zero = 0;
	char buf[1024];
	const void *v;
	int node, len, err = 1;

	build_fdt(buf, sizeof(buf), p, &err);
	assert_int_equal(err, 0);
	node = fdt_path_offset(buf, "/interrupt-controller@c000000");
	assert_true(node >= 0);
	v = fdt_getprop(buf, node, "compatible", &len);
	assert_non_null(v);
	assert_int_equal(len, sizeof(compat));
	assert_memory_equal(v, compat, sizeof(compat));
	assert_int_equal(fdt_node_check_compatible(buf, node, "riscv,plic0"),
			 0);
	assert_cells(buf, node, "reg", reg, 4);
	assert_cells(buf, node, "interrupts-extended", ext, 8);
	assert_cells(buf, node, "riscv,ndev", &ndev, 1);
	assert_cells(buf, node, "#interrupt-cells", &one, 1);
	assert_cells(buf, node, "#address-cells", &zero, 1);
	assert_cells(buf, node, "phandle", &one, 1);
	v = fdt_getprop(buf, node, "interrupt-controller", &len);
	assert_non_null(v);
	assert_int_equal(len, 0);
	assert_int_equal(fdt_get_phandle(buf, node), plic_res.phandle);
	assert_int_equal(fdt_node_offset_by_phandle(buf, plic_res.phandle),
			 node);
}

static void test_fdt_one_context(void **state)
{
	static const uint32_t ext[] = { 2, 9 };
	struct irq_line out = { 0 };
	struct plic p;
	char buf[1024];
	int node, err = 1;

	(void)state;
	assert_int_equal(plic_init(&p, &plic_res, 1, &out), 0);
	build_fdt(buf, sizeof(buf), &p, &err);
	assert_int_equal(err, 0);
	node = fdt_path_offset(buf, "/interrupt-controller@c000000");
	assert_true(node >= 0);
	assert_cells(buf, node, "interrupts-extended", ext, 2);
	plic_destroy(&p);
}

static void test_fdt_nospace(void **state)
{
	struct plic *p = &((struct fixture *)*state)->plic;
	char buf[160];
	int err = 1;

	build_fdt(buf, sizeof(buf), p, &err);
	assert_int_equal(err, -FDT_ERR_NOSPACE);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ops_table),
		cmocka_unit_test(test_init_rejects),
		T(test_claim_empty),
		T(test_priority_order),
		T(test_priority_change_reorders),
		T(test_threshold),
		T(test_warl_fields),
		T(test_priority_zero_never),
		T(test_enable_per_context),
		T(test_shared_source_claimed_once),
		T(test_level_repends),
		T(test_level_deassert_before_claim),
		T(test_level_pulse_during_service),
		T(test_edge_during_service_kept),
		T(test_edge_not_repended_by_held_line),
		T(test_edge_at_most_one),
		T(test_edge_deassert_keeps_pending),
		T(test_switch_to_level),
		T(test_complete_ignored),
		T(test_source0_and_out_of_range),
		T(test_bad_offsets),
		T(test_bad_sizes_and_alignment),
		T(test_reset),
		T(test_reset_idle_no_calls),
		T(test_output_only_on_change),
		T(test_resync_after_hart_reset),
		T(test_threads),
		T(test_fdt),
		cmocka_unit_test(test_fdt_one_context),
		T(test_fdt_nospace),
	};

	log_level = -1; /* the guest-error paths are exercised on purpose */
	return cmocka_run_group_tests_name("plic", tests, NULL, NULL);
}
