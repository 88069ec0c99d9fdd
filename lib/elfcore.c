// SPDX-License-Identifier: GPL-2.0
/* An ELF64 core of a riscv64 guest; see elfcore.h. */
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "lib/elfcore.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif
#ifndef EF_RISCV_RVC
#define EF_RISCV_RVC 0x1
#endif
#define CORE_PAGE 4096
#define NOTE_NAME "CORE"
#define NOTE_NAMESZ 5 /* with its NUL, padded to 8 */
#define NOTE_SIZE (sizeof(Elf64_Nhdr) + 8 + ELFCORE_PRSTATUS_SIZE)

static uint64_t notes_size(unsigned int ncpus)
{
	return (uint64_t)ncpus * NOTE_SIZE;
}

static uint64_t headers_size(unsigned int nsegs)
{
	return sizeof(Elf64_Ehdr) + (uint64_t)(nsegs + 1) * sizeof(Elf64_Phdr);
}

uint64_t elfcore_data_offset(unsigned int nsegs, unsigned int ncpus)
{
	uint64_t n = headers_size(nsegs) + notes_size(ncpus);

	return (n + CORE_PAGE - 1) & ~(uint64_t)(CORE_PAGE - 1);
}

static void put_ehdr(uint8_t *buf, unsigned int nsegs)
{
	Elf64_Ehdr e = {
		.e_type = htole16(ET_CORE),
		.e_machine = htole16(EM_RISCV),
		.e_version = htole32(EV_CURRENT),
		.e_phoff = htole64(sizeof(Elf64_Ehdr)),
		.e_flags = htole32(EF_RISCV_RVC),
		.e_ehsize = htole16(sizeof(Elf64_Ehdr)),
		.e_phentsize = htole16(sizeof(Elf64_Phdr)),
		.e_phnum = htole16(nsegs + 1),
	};

	memcpy(e.e_ident, ELFMAG, SELFMAG);
	e.e_ident[EI_CLASS] = ELFCLASS64;
	e.e_ident[EI_DATA] = ELFDATA2LSB;
	e.e_ident[EI_VERSION] = EV_CURRENT;
	e.e_ident[EI_OSABI] = ELFOSABI_NONE;
	memcpy(buf, &e, sizeof(e));
}

static void put_phdr(uint8_t *at, uint32_t type, uint32_t flags, uint64_t off,
		     uint64_t vaddr, uint64_t paddr, uint64_t size)
{
	Elf64_Phdr p = {
		.p_type = htole32(type),
		.p_flags = htole32(flags),
		.p_offset = htole64(off),
		.p_vaddr = htole64(vaddr),
		.p_paddr = htole64(paddr),
		.p_filesz = htole64(size),
		.p_memsz = htole64(size),
		.p_align = htole64(type == PT_LOAD ? CORE_PAGE : 4),
	};

	memcpy(at, &p, sizeof(p));
}

static void put_le(uint8_t *at, uint64_t v, unsigned int bytes)
{
	for (unsigned int i = 0; i < bytes; i++)
		at[i] = v >> (8 * i);
}

/* One NT_PRSTATUS note: header, "CORE\0" padded, elf_prstatus. */
static void put_note(uint8_t *at, const struct elfcore_cpu *cpu)
{
	uint8_t *desc = at + sizeof(Elf64_Nhdr) + 8;

	put_le(at, NOTE_NAMESZ, 4);
	put_le(at + 4, ELFCORE_PRSTATUS_SIZE, 4);
	put_le(at + 8, NT_PRSTATUS, 4);
	memcpy(at + sizeof(Elf64_Nhdr), NOTE_NAME, NOTE_NAMESZ);
	put_le(desc + ELFCORE_PR_PID, cpu->pid, 4);
	for (unsigned int i = 0; i < 32; i++)
		put_le(desc + ELFCORE_PR_REG + 8 * i, cpu->regs[i], 8);
}

int elfcore_build(uint8_t *buf, size_t size, const struct elfcore_seg *segs,
		  unsigned int nsegs, const struct elfcore_cpu *cpus,
		  unsigned int ncpus, uint64_t ram_size)
{
	uint64_t data = elfcore_data_offset(nsegs, ncpus);
	uint64_t notes = headers_size(nsegs);
	uint8_t *ph = buf + sizeof(Elf64_Ehdr);

	if (nsegs > ELFCORE_MAX_SEGS)
		return -EINVAL;
	if (size < data)
		return -ENOSPC;
	for (unsigned int i = 0; i < nsegs; i++)
		if (segs[i].ram_offset > ram_size ||
		    segs[i].size > ram_size - segs[i].ram_offset)
			return -EINVAL;
	memset(buf, 0, data);
	put_ehdr(buf, nsegs);
	put_phdr(ph, PT_NOTE, 0, notes, 0, 0, notes_size(ncpus));
	for (unsigned int i = 0; i < nsegs; i++)
		put_phdr(ph + (i + 1) * sizeof(Elf64_Phdr), PT_LOAD,
			 PF_R | PF_W | PF_X, data + segs[i].ram_offset,
			 segs[i].vaddr, segs[i].paddr, segs[i].size);
	for (unsigned int i = 0; i < ncpus; i++)
		put_note(buf + notes + i * NOTE_SIZE, &cpus[i]);
	return 0;
}
