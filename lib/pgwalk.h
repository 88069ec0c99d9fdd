/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest's page tables, read the way a RISC-V hart reads them (the
 * privileged spec's "virtual address translation process"): satp's MODE
 * picks Bare, Sv39, Sv48 or Sv57, its PPN the root table.  Used by the gdb
 * stub (virtual addresses) and crash dumps (the kernel's mappings).
 *
 * Everything here is guest-controlled: each PTE is read through
 * guest_mem_read (a table outside RAM is a fault), reserved encodings
 * (W without R, a non-leaf at the last level, a misaligned superpage,
 * non-leaf A/D/U, reserved bits) are faults as on a hart, and a walk of
 * the mapped ranges reads at most PGWALK_MAX_PTES entries, whatever the
 * tables point at.  Access rights (R/W/X/U, A/D) are not checked: a
 * debugger reads what the mapping names.
 */
#ifndef RVKVM_PGWALK_H
#define RVKVM_PGWALK_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/guest_mem.h"

#define SATP_MODE_SHIFT 60
#define SATP_MODE_BARE 0
#define SATP_MODE_SV39 8
#define SATP_MODE_SV48 9
#define SATP_MODE_SV57 10
#define SATP_PPN_MASK ((1ULL << 44) - 1)

#define PTE_V (1u << 0)
#define PTE_R (1u << 1)
#define PTE_W (1u << 2)
#define PTE_X (1u << 3)
#define PTE_U (1u << 4)
#define PTE_G (1u << 5)
#define PTE_A (1u << 6)
#define PTE_D (1u << 7)
#define PTE_N (1ULL << 63)
#define PTE_PPN_SHIFT 10

/* PTE reads of one pgwalk_ranges (a full Sv39 kernel half is ~ 256 K). */
#define PGWALK_MAX_PTES (1u << 21)

/* Levels of satp's mode (3, 4, 5), 0 for Bare, -EINVAL for others. */
int pgwalk_levels(uint64_t satp);

/*
 * Guest physical address of va under satp into *pa, and in *left the
 * bytes from va to the end of its page (so a caller splits accesses at
 * page ends): 0, -EINVAL (a reserved satp mode, a non-canonical va) or
 * -EFAULT (not mapped, a reserved PTE, a table outside RAM).  Bare: pa =
 * va, left up to the next 4 KiB.
 */
int pgwalk_translate(const struct guest_mem *mem, uint64_t satp, uint64_t va,
		     uint64_t *pa, uint64_t *left);

/* One mapped range: [va, va + size) -> [pa, pa + size). */
typedef int pgwalk_fn(void *opaque, uint64_t va, uint64_t pa, uint64_t size);

/*
 * Call fn for each mapped range of the upper (kernel) half of satp's
 * address space, in va order, adjacent leaves merged when both va and pa
 * continue.  Returns 0, fn's first non-zero result, -EINVAL (Bare or a
 * reserved mode) or -E2BIG once PGWALK_MAX_PTES entries were read (the
 * ranges found until then were passed to fn).
 */
int pgwalk_ranges(const struct guest_mem *mem, uint64_t satp, pgwalk_fn *fn,
		  void *opaque);

#endif
