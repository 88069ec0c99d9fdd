/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RISC-V ISA and SBI extensions as KVM numbers them (Linux 7.3 uapi,
 * asm/kvm.h enum KVM_RISCV_ISA_EXT_ID / KVM_RISCV_SBI_EXT_ID).  A plain
 * table so that the CLI and the FDT code build and test natively; the
 * riscv64 KVM code checks the numbers it shares with the kernel header
 * it is built with (6.12's), and a host KVM without an extension has no
 * ONE_REG for it (ENOENT), which lkvm treats as "not there".
 */
#ifndef RVKVM_ISA_H
#define RVKVM_ISA_H

#include <stdbool.h>
#include <stdint.h>

#define ISA_EXT_COUNT 80 /* KVM_RISCV_ISA_EXT_MAX in 7.3 (6.12: 62) */
#define ISA_EXT_WORDS 2
#define SBI_EXT_COUNT 14 /* KVM_RISCV_SBI_EXT_MAX in 7.3 (6.12: 11) */

struct ext_name {
	const char *name; /* lower case, as in riscv,isa-extensions */
	unsigned int id;  /* KVM's id */
};

/* Indexed by KVM id; single-letter extensions have one-letter names. */
extern const struct ext_name isa_exts[ISA_EXT_COUNT];
extern const struct ext_name sbi_exts[SBI_EXT_COUNT];

/*
 * SBI SUSP (system suspend): KVM id 11 from Linux 6.14 on, past 6.12's
 * KVM_RISCV_SBI_EXT_MAX; a 6.12 host neither offers nor forwards it.
 */
#define SBI_EXT_SUSP_ID 11
/* Zicbop, whose block size is a KVM CONFIG register from Linux 6.16 on. */
#define ISA_EXT_ZICBOP_ID 71

/* kvmtool's SBI names that differ from KVM's ("legacy" is v01). */
#define SBI_EXT_ALIAS_COUNT 1
extern const struct ext_name sbi_ext_aliases[SBI_EXT_ALIAS_COUNT];

/* KVM id for a name (SBI: KVM's or kvmtool's name), or -1. */
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
