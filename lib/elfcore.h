/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ELF64 core file of a riscv64 guest, the pure part: the file header,
 * the program headers and the notes, in front of the guest's RAM.  The
 * layout (elfcore_data_offset() is page-aligned):
 *
 *   Elf64_Ehdr | PT_NOTE, PT_LOAD x nsegs | notes | pad | RAM image
 *
 * Each segment maps part of the RAM image: p_paddr its guest physical
 * address, p_vaddr the address a debugger reads it at (the physical one
 * for RAM itself, a kernel virtual one for the kernel's mappings, found
 * by walking its page tables; they share the RAM image's bytes).  Each
 * vCPU is a "CORE" NT_PRSTATUS note in the riscv64 Linux layout
 * (struct elf_prstatus, 376 bytes, pr_reg = user_regs_struct: pc, ra,
 * sp, ... t6), which gdb and the crash utility read.
 */
#ifndef RVKVM_ELFCORE_H
#define RVKVM_ELFCORE_H

#include <stddef.h>
#include <stdint.h>

#define ELFCORE_PRSTATUS_SIZE 376
#define ELFCORE_PR_PID 32
#define ELFCORE_PR_REG 112
/* Program headers the file may have (e_phnum is 16 bits). */
#define ELFCORE_MAX_SEGS 4096

struct elfcore_seg {
	uint64_t vaddr, paddr;
	uint64_t ram_offset; /* where its bytes start in the RAM image */
	uint64_t size;
};

struct elfcore_cpu {
	uint32_t pid;	   /* the note's pr_pid: hart id + 1 */
	uint64_t regs[32]; /* pc, x1..x31 */
};

/* Where the RAM image starts in the file (header, notes, padding). */
uint64_t elfcore_data_offset(unsigned int nsegs, unsigned int ncpus);

/*
 * Write the headers and notes into buf (elfcore_data_offset() bytes;
 * the padding zeroed): 0, or -EINVAL (too many segments, a segment out of
 * ram_size) or -ENOSPC (buf too small).
 */
int elfcore_build(uint8_t *buf, size_t size, const struct elfcore_seg *segs,
		  unsigned int nsegs, const struct elfcore_cpu *cpus,
		  unsigned int ncpus, uint64_t ram_size);

#endif
