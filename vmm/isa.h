/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RISC-V ISA and SBI extensions as KVM numbers them (Linux 6.12 uapi,
 * asm/kvm.h enum KVM_RISCV_ISA_EXT_ID / KVM_RISCV_SBI_EXT_ID).  A plain
 * table so that the CLI and the FDT code build and test natively; the
 * riscv64 KVM code checks the numbers against the kernel header.
 */
#ifndef RVKVM_ISA_H
#define RVKVM_ISA_H

#include <stdbool.h>
#include <stdint.h>

#define ISA_EXT_COUNT 62 /* KVM_RISCV_ISA_EXT_MAX in 6.12 */
#define ISA_EXT_WORDS 1
#define SBI_EXT_COUNT 11 /* KVM_RISCV_SBI_EXT_MAX in 6.12 */

struct ext_name {
	const char *name; /* lower case, as in riscv,isa-extensions */
	unsigned int id;  /* KVM's id */
};

/* Indexed by KVM id; single-letter extensions have one-letter names. */
extern const struct ext_name isa_exts[ISA_EXT_COUNT];
extern const struct ext_name sbi_exts[SBI_EXT_COUNT];

/* KVM id for a name, or -1. */
int isa_ext_lookup(const char *name);
int sbi_ext_lookup(const char *name);

static inline bool isa_ext_test(const uint64_t *bits, unsigned int id)
{
	return id < 64 * ISA_EXT_WORDS && (bits[id / 64] >> (id % 64)) & 1;
}

static inline void isa_ext_set(uint64_t *bits, unsigned int id)
{
	if (id < 64 * ISA_EXT_WORDS)
		bits[id / 64] |= 1ULL << (id % 64);
}

#endif
