// SPDX-License-Identifier: GPL-2.0
/* The guest's page tables; see pgwalk.h. */
#include <endian.h>
#include <errno.h>

#include "lib/pgwalk.h"

#define PAGE_SHIFT 12
#define LEVEL_BITS 9
#define PTES_PER_TABLE 512
#define PTE_RESERVED (0x7fULL << 54) /* bits 54..60 */
#define PTE_PBMT (3ULL << 61)
#define PTE_PPN(pte) (((pte) >> PTE_PPN_SHIFT) & SATP_PPN_MASK)
#define NAPOT_64K_PPN 0x8

int pgwalk_levels(uint64_t satp)
{
	switch (satp >> SATP_MODE_SHIFT) {
	case SATP_MODE_BARE:
		return 0;
	case SATP_MODE_SV39:
		return 3;
	case SATP_MODE_SV48:
		return 4;
	case SATP_MODE_SV57:
		return 5;
	default:
		return -EINVAL;
	}
}

static unsigned int level_shift(int level)
{
	return PAGE_SHIFT + LEVEL_BITS * level;
}

static int pte_read(const struct guest_mem *mem, uint64_t table,
		    unsigned int idx, uint64_t *pte)
{
	uint64_t v;

	if (guest_mem_read(mem, table + (uint64_t)idx * 8, &v, sizeof(v)))
		return -EFAULT;
	*pte = le64toh(v);
	return 0;
}

/*
 * What a valid-looking PTE at level names: 1 a leaf mapping [*base,
 * *base + *size), 0 the next table at *base, -EFAULT a fault.
 */
static int pte_decode(uint64_t pte, int level, uint64_t *base, uint64_t *size)
{
	uint64_t ppn = PTE_PPN(pte);

	if (!(pte & PTE_V) || (pte & PTE_RESERVED) ||
	    ((pte & PTE_W) && !(pte & PTE_R)))
		return -EFAULT;
	if (!(pte & (PTE_R | PTE_X))) {
		if (!level ||
		    (pte & (PTE_A | PTE_D | PTE_U | PTE_PBMT | PTE_N)))
			return -EFAULT;
		*base = ppn << PAGE_SHIFT;
		return 0;
	}
	*size = 1ULL << level_shift(level);
	if (pte & PTE_N) { /* Svnapot: only 64 KiB pages are defined */
		if (level || (ppn & 0xf) != NAPOT_64K_PPN)
			return -EFAULT;
		ppn &= ~0xfULL;
		*size = 1ULL << 16;
	}
	*base = ppn << PAGE_SHIFT;
	if (*base & (*size - 1))
		return -EFAULT; /* a misaligned superpage */
	return 1;
}

/* Is va the sign extension of its low bits (the mode's va width)? */
static bool va_canonical(uint64_t va, int levels)
{
	unsigned int bits = level_shift(levels);
	int64_t ext = (int64_t)(va << (64 - bits)) >> (64 - bits);

	return (uint64_t)ext == va;
}

int pgwalk_translate(const struct guest_mem *mem, uint64_t satp, uint64_t va,
		     uint64_t *pa, uint64_t *left)
{
	int levels = pgwalk_levels(satp);
	uint64_t table = (satp & SATP_PPN_MASK) << PAGE_SHIFT;

	if (levels < 0)
		return levels;
	if (!levels) {
		*pa = va;
		*left = (1ULL << PAGE_SHIFT) -
			(va & ((1ULL << PAGE_SHIFT) - 1));
		return 0;
	}
	if (!va_canonical(va, levels))
		return -EINVAL;
	for (int level = levels - 1; level >= 0; level--) {
		unsigned int idx =
			(va >> level_shift(level)) & (PTES_PER_TABLE - 1);
		uint64_t pte, base, size;
		int ret = pte_read(mem, table, idx, &pte);

		ret = ret ?: pte_decode(pte, level, &base, &size);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			*pa = base + (va & (size - 1));
			*left = size - (va & (size - 1));
			return 0;
		}
		table = base;
	}
	return -EFAULT; /* not reached: level 0 entries are leaves or faults */
}

struct walk {
	const struct guest_mem *mem;
	int levels;
	unsigned long ptes; /* read so far */
	pgwalk_fn *fn;
	void *opaque;
	uint64_t va, pa, size; /* the range being merged; size 0: none */
};

static int walk_flush(struct walk *w)
{
	int ret = w->size ? w->fn(w->opaque, w->va, w->pa, w->size) : 0;

	w->size = 0;
	return ret;
}

static int walk_leaf(struct walk *w, uint64_t va, uint64_t pa, uint64_t size)
{
	int ret = 0;

	if (w->size && w->va + w->size == va && w->pa + w->size == pa) {
		w->size += size;
		return 0;
	}
	ret = walk_flush(w);
	w->va = va;
	w->pa = pa;
	w->size = size;
	return ret;
}

static uint64_t va_extend(uint64_t va, int levels)
{
	unsigned int bits = level_shift(levels);

	return (uint64_t)((int64_t)(va << (64 - bits)) >> (64 - bits));
}

/* Entries [from, PTES_PER_TABLE) of the table at level; va: its base. */
static int walk_table(struct walk *w, uint64_t table, int level, uint64_t va,
		      unsigned int from)
{
	for (unsigned int i = from; i < PTES_PER_TABLE; i++) {
		uint64_t pte, base, size;
		uint64_t eva = va | ((uint64_t)i << level_shift(level));
		int ret;

		if (++w->ptes > PGWALK_MAX_PTES)
			return -E2BIG;
		if (pte_read(w->mem, table, i, &pte) || !(pte & PTE_V))
			continue;
		ret = pte_decode(pte, level, &base, &size);
		if (ret < 0)
			continue;
		if (ret == 1 && size < (1ULL << level_shift(level))) {
			/* a NAPOT entry: one 4 KiB part of its 64 KiB page */
			base += eva & (size - 1);
			size = 1ULL << PAGE_SHIFT;
		}
		ret = ret == 1 ? walk_leaf(w, va_extend(eva, w->levels), base,
					   size) :
				 walk_table(w, base, level - 1, eva, 0);
		if (ret)
			return ret;
	}
	return 0;
}

int pgwalk_ranges(const struct guest_mem *mem, uint64_t satp, pgwalk_fn *fn,
		  void *opaque)
{
	struct walk w = { .mem = mem, .fn = fn, .opaque = opaque };
	uint64_t root = (satp & SATP_PPN_MASK) << PAGE_SHIFT;
	int ret;

	w.levels = pgwalk_levels(satp);
	if (w.levels <= 0)
		return -EINVAL;
	ret = walk_table(&w, root, w.levels - 1, 0, PTES_PER_TABLE / 2);
	if (ret == -E2BIG) {
		walk_flush(&w);
		return ret;
	}
	return ret ?: walk_flush(&w);
}
