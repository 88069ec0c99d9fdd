// SPDX-License-Identifier: GPL-2.0
/*
 * The guest page-table walker (lib/pgwalk.c) over hand-built tables:
 * Sv39/Sv48/Sv57, superpages, NAPOT, reserved and misaligned entries,
 * tables outside RAM, and tables that point at themselves.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/pgwalk.h"

#define RAM_BASE 0x80000000ULL
#define RAM_SIZE (1u << 20)
#define PG 4096ULL

static uint8_t ram[RAM_SIZE] __attribute__((aligned(4096)));
static const struct guest_mem mem = { RAM_BASE, RAM_SIZE, ram };

/* Page n of RAM as a table's guest physical address. */
static uint64_t tpa(unsigned int n)
{
	return RAM_BASE + n * PG;
}

static void set_pte(uint64_t table, unsigned int idx, uint64_t pte)
{
	memcpy(ram + (table - RAM_BASE) + idx * 8, &pte, 8);
}

static uint64_t table_pte(uint64_t pa)
{
	return (pa >> 12) << PTE_PPN_SHIFT | PTE_V;
}

static uint64_t leaf_pte(uint64_t pa)
{
	return (pa >> 12) << PTE_PPN_SHIFT | PTE_V | PTE_R | PTE_W | PTE_X |
	       PTE_A | PTE_D;
}

static uint64_t satp_of(int mode, uint64_t root)
{
	return (uint64_t)mode << SATP_MODE_SHIFT | root >> 12;
}

static int setup(void **state)
{
	(void)state;
	memset(ram, 0, sizeof(ram));
	return 0;
}

static void expect_pa(uint64_t satp, uint64_t va, uint64_t want_pa,
		      uint64_t want_left)
{
	uint64_t pa = 0, left = 0;

	assert_int_equal(pgwalk_translate(&mem, satp, va, &pa, &left), 0);
	assert_int_equal(pa, want_pa);
	assert_int_equal(left, want_left);
}

static void expect_fault(uint64_t satp, uint64_t va, int err)
{
	uint64_t pa, left;

	assert_int_equal(pgwalk_translate(&mem, satp, va, &pa, &left), err);
}

static void test_bare(void **state)
{
	(void)state;
	expect_pa(0, 0x80001234, 0x80001234, PG - 0x234);
	assert_int_equal(pgwalk_levels(0), 0);
	assert_int_equal(pgwalk_levels(7ULL << 60), -EINVAL);
	expect_fault(7ULL << 60, 0, -EINVAL);
}

/* Sv39: 4 KiB, 2 MiB and 1 GiB pages of the kernel half. */
static void test_sv39_pages(void **state)
{
	uint64_t satp = satp_of(SATP_MODE_SV39, tpa(0));
	uint64_t va4k = 0xffffffff80001000ULL; /* idx 510, 0, 1 */

	(void)state;
	set_pte(tpa(0), 510, table_pte(tpa(1)));
	set_pte(tpa(1), 0, table_pte(tpa(2)));
	set_pte(tpa(2), 1, leaf_pte(RAM_BASE + 0x5000));
	expect_pa(satp, va4k + 0x10, RAM_BASE + 0x5010, PG - 0x10);
	/* 2 MiB at 0xffffffff80200000 */
	set_pte(tpa(1), 1, leaf_pte(0x80200000));
	expect_pa(satp, 0xffffffff80234567ULL, 0x80234567, 0x200000 - 0x34567);
	/* 1 GiB at 0xffffffc000000000 (idx 256) */
	set_pte(tpa(0), 256, leaf_pte(0x80000000));
	expect_pa(satp, 0xffffffc000000042ULL, 0x80000042, (1ULL << 30) - 0x42);
	/* not mapped; not canonical */
	expect_fault(satp, 0xffffffff80003000ULL, -EFAULT);
	expect_fault(satp, 0x0000004000000000ULL, -EINVAL);
}

static void test_sv48_sv57(void **state)
{
	uint64_t va48 = 0xffff800000002000ULL; /* idx 256, 0, 0, 2 */
	uint64_t va57 = 0xff00000000003000ULL; /* idx 256, 0, 0, 0, 3 */

	(void)state;
	set_pte(tpa(0), 256, table_pte(tpa(1)));
	set_pte(tpa(1), 0, table_pte(tpa(2)));
	set_pte(tpa(2), 0, table_pte(tpa(3)));
	set_pte(tpa(3), 2, leaf_pte(RAM_BASE + 0x7000));
	expect_pa(satp_of(SATP_MODE_SV48, tpa(0)), va48 + 8, RAM_BASE + 0x7008,
		  PG - 8);
	set_pte(tpa(3), 0, table_pte(tpa(4)));
	set_pte(tpa(4), 3, leaf_pte(RAM_BASE + 0x9000));
	expect_pa(satp_of(SATP_MODE_SV57, tpa(0)), va57, RAM_BASE + 0x9000, PG);
	expect_fault(satp_of(SATP_MODE_SV57, tpa(0)), 0xff80000000000000ULL,
		     -EFAULT);
}

static void test_reserved_entries(void **state)
{
	uint64_t satp = satp_of(SATP_MODE_SV39, tpa(0));
	uint64_t va = 0xffffffc000000000ULL; /* idx 256 */

	(void)state;
	/* W without R */
	set_pte(tpa(0), 256, (0x80000ULL << PTE_PPN_SHIFT) | PTE_V | PTE_W);
	expect_fault(satp, va, -EFAULT);
	/* misaligned 1 GiB superpage */
	set_pte(tpa(0), 256, leaf_pte(0x80200000));
	expect_fault(satp, va, -EFAULT);
	/* reserved bits */
	set_pte(tpa(0), 256, leaf_pte(0x80000000) | (1ULL << 55));
	expect_fault(satp, va, -EFAULT);
	/* non-leaf with A */
	set_pte(tpa(0), 256, table_pte(tpa(1)) | PTE_A);
	expect_fault(satp, va, -EFAULT);
	/* a non-leaf at the last level */
	set_pte(tpa(0), 256, table_pte(tpa(1)));
	set_pte(tpa(1), 0, table_pte(tpa(2)));
	set_pte(tpa(2), 0, table_pte(tpa(3)));
	expect_fault(satp, va, -EFAULT);
	/* invalid */
	set_pte(tpa(2), 0, leaf_pte(RAM_BASE) & ~(uint64_t)PTE_V);
	expect_fault(satp, va, -EFAULT);
}

static void test_outside_ram(void **state)
{
	uint64_t va = 0xffffffc000000000ULL;

	(void)state;
	/* the root itself, then a next level, outside RAM */
	expect_fault(satp_of(SATP_MODE_SV39, 0x1000), va, -EFAULT);
	expect_fault(satp_of(SATP_MODE_SV39, 0xffffffffff000ULL), va, -EFAULT);
	set_pte(tpa(0), 256, table_pte(RAM_BASE + RAM_SIZE));
	expect_fault(satp_of(SATP_MODE_SV39, tpa(0)), va, -EFAULT);
	/* a leaf may name any address: the caller checks the RAM */
	set_pte(tpa(0), 256, leaf_pte(0x40000000));
	expect_pa(satp_of(SATP_MODE_SV39, tpa(0)), va, 0x40000000, 1ULL << 30);
}

static void test_napot(void **state)
{
	uint64_t satp = satp_of(SATP_MODE_SV39, tpa(0));
	uint64_t pte = leaf_pte(RAM_BASE + 0x10000) | PTE_N | (8ULL << 10);

	(void)state;
	set_pte(tpa(0), 511, table_pte(tpa(1)));
	set_pte(tpa(1), 0, table_pte(tpa(2)));
	set_pte(tpa(2), 3, pte);
	expect_pa(satp, 0xffffffffc0003004ULL, RAM_BASE + 0x13004,
		  0x10000 - 0x3004);
	set_pte(tpa(2), 3, pte | (1ULL << 10)); /* not a 64 KiB encoding */
	expect_fault(satp, 0xffffffffc0003004ULL, -EFAULT);
}

struct seen {
	unsigned int n;
	uint64_t va[8], pa[8], size[8];
};

static int record(void *opaque, uint64_t va, uint64_t pa, uint64_t size)
{
	struct seen *s = opaque;

	if (s->n < 8) {
		s->va[s->n] = va;
		s->pa[s->n] = pa;
		s->size[s->n] = size;
	}
	s->n++;
	return 0;
}

/* Leaves that continue in va and pa are one range; lower half skipped. */
static void test_ranges_merge(void **state)
{
	uint64_t satp = satp_of(SATP_MODE_SV39, tpa(0));
	struct seen s = { 0 };

	(void)state;
	set_pte(tpa(0), 0, leaf_pte(0x80000000)); /* user half: skipped */
	set_pte(tpa(0), 510, table_pte(tpa(1)));
	set_pte(tpa(1), 0, leaf_pte(0x80000000));
	set_pte(tpa(1), 1, leaf_pte(0x80200000)); /* continues */
	set_pte(tpa(1), 2, table_pte(tpa(2)));
	set_pte(tpa(2), 0, leaf_pte(0x80400000));		 /* continues */
	set_pte(tpa(2), 2, leaf_pte(0x80402000));		 /* va gap */
	set_pte(tpa(2), 3, leaf_pte(0x80900000));		 /* pa gap */
	set_pte(tpa(2), 4, leaf_pte(0x80200000) | (1ULL << 56)); /* bad */
	assert_int_equal(pgwalk_ranges(&mem, satp, record, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.va[0], 0xffffffff80000000ULL);
	assert_int_equal(s.pa[0], 0x80000000);
	assert_int_equal(s.size[0], 0x400000 + PG);
	assert_int_equal(s.va[1], 0xffffffff80402000ULL);
	assert_int_equal(s.size[1], PG);
	assert_int_equal(s.pa[2], 0x80900000);
	assert_int_equal(pgwalk_ranges(&mem, 0, record, &s), -EINVAL);
}

/* Every entry of every level points back at the root: bounded. */
static void test_ranges_self_loop(void **state)
{
	uint64_t satp = satp_of(SATP_MODE_SV57, tpa(0));
	struct seen s = { 0 };

	(void)state;
	for (unsigned int i = 0; i < 512; i++)
		set_pte(tpa(0), i, table_pte(tpa(0)));
	assert_int_equal(pgwalk_ranges(&mem, satp, record, &s), -E2BIG);
	assert_int_equal(s.n, 0);
	/* make the last level's entries leaves: capped, ranges reported */
	set_pte(tpa(0), 300, leaf_pte(RAM_BASE));
	s.n = 0;
	assert_int_equal(pgwalk_ranges(&mem, satp, record, &s), -E2BIG);
	assert_true(s.n > 0);
}

static int stop_at_first(void *opaque, uint64_t va, uint64_t pa, uint64_t size)
{
	(void)opaque;
	(void)va;
	(void)pa;
	(void)size;
	return -EIO;
}

static void test_ranges_callback_error(void **state)
{
	uint64_t satp = satp_of(SATP_MODE_SV39, tpa(0));

	(void)state;
	set_pte(tpa(0), 300, leaf_pte(0x80000000));
	set_pte(tpa(0), 302, leaf_pte(0xc0000000));
	assert_int_equal(pgwalk_ranges(&mem, satp, stop_at_first, NULL), -EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_bare, setup),
		cmocka_unit_test_setup(test_sv39_pages, setup),
		cmocka_unit_test_setup(test_sv48_sv57, setup),
		cmocka_unit_test_setup(test_reserved_entries, setup),
		cmocka_unit_test_setup(test_outside_ram, setup),
		cmocka_unit_test_setup(test_napot, setup),
		cmocka_unit_test_setup(test_ranges_merge, setup),
		cmocka_unit_test_setup(test_ranges_self_loop, setup),
		cmocka_unit_test_setup(test_ranges_callback_error, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
