// SPDX-License-Identifier: GPL-2.0
/*
 * The ELF core writer (lib/elfcore.c): its headers and notes parsed back
 * with <elf.h> as a reader (gdb, readelf) would.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/elfcore.h"

#define RAM (64ULL << 20)

static void test_layout(void **state)
{
	const struct elfcore_seg segs[] = {
		{ 0x80000000, 0x80000000, 0, RAM },
		{ 0xffffffff80000000ULL, 0x80200000, 0x200000, 0x1000000 },
	};
	struct elfcore_cpu cpus[2];
	uint64_t data = elfcore_data_offset(2, 2);
	uint8_t *buf = malloc(data);
	Elf64_Ehdr e;
	Elf64_Phdr p[3];

	(void)state;
	for (int c = 0; c < 2; c++) {
		cpus[c].pid = c + 1;
		for (int i = 0; i < 32; i++)
			cpus[c].regs[i] = 0x1000 * c + i;
	}
	assert_int_equal(data % 4096, 0);
	assert_int_equal(elfcore_build(buf, data, segs, 2, cpus, 2, RAM), 0);
	memcpy(&e, buf, sizeof(e));
	assert_memory_equal(e.e_ident, ELFMAG, SELFMAG);
	assert_int_equal(e.e_ident[EI_CLASS], ELFCLASS64);
	assert_int_equal(e.e_ident[EI_DATA], ELFDATA2LSB);
	assert_int_equal(e.e_type, ET_CORE);
	assert_int_equal(e.e_machine, 243);
	assert_int_equal(e.e_phnum, 3);
	assert_int_equal(e.e_phentsize, sizeof(Elf64_Phdr));
	memcpy(p, buf + e.e_phoff, sizeof(p));
	assert_int_equal(p[0].p_type, PT_NOTE);
	assert_int_equal(p[1].p_type, PT_LOAD);
	assert_int_equal(p[1].p_offset, data);
	assert_int_equal(p[1].p_paddr, 0x80000000);
	assert_int_equal(p[1].p_filesz, RAM);
	assert_int_equal(p[2].p_vaddr, 0xffffffff80000000ULL);
	assert_int_equal(p[2].p_paddr, 0x80200000);
	assert_int_equal(p[2].p_offset, data + 0x200000); /* shares bytes */
	assert_int_equal(p[2].p_memsz, 0x1000000);
	assert_true(p[0].p_offset + p[0].p_filesz <= data);

	/* the notes, walked as a reader does */
	{
		const uint8_t *n = buf + p[0].p_offset;
		const uint8_t *end = n + p[0].p_filesz;
		int seen = 0;

		while (n < end) {
			Elf64_Nhdr h;
			const uint8_t *desc;
			uint64_t pc, t6;
			uint32_t pid;

			memcpy(&h, n, sizeof(h));
			assert_int_equal(h.n_type, NT_PRSTATUS);
			assert_int_equal(h.n_namesz, 5);
			assert_string_equal((const char *)n + sizeof(h),
					    "CORE");
			assert_int_equal(h.n_descsz, 376);
			desc = n + sizeof(h) + ((h.n_namesz + 3) & ~3u);
			memcpy(&pid, desc + 32, 4);
			memcpy(&pc, desc + 112, 8);
			memcpy(&t6, desc + 112 + 31 * 8, 8);
			assert_int_equal(pid, seen + 1);
			assert_int_equal(pc, 0x1000 * seen);
			assert_int_equal(t6, 0x1000 * seen + 31);
			n = desc + ((h.n_descsz + 3) & ~3u);
			seen++;
		}
		assert_int_equal(seen, 2);
	}
	free(buf);
}

static void test_errors(void **state)
{
	struct elfcore_seg seg = { 0, 0, RAM - 4096, 8192 };
	static uint8_t buf[8192];
	struct elfcore_cpu cpu = { 0 };

	(void)state;
	assert_int_equal(elfcore_build(buf, sizeof(buf), &seg, 1, &cpu, 1, RAM),
			 -EINVAL);
	seg.ram_offset = RAM + 1;
	seg.size = 0;
	assert_int_equal(elfcore_build(buf, sizeof(buf), &seg, 1, &cpu, 1, RAM),
			 -EINVAL);
	seg.ram_offset = 0;
	assert_int_equal(elfcore_build(buf, 100, &seg, 1, &cpu, 1, RAM),
			 -ENOSPC);
	assert_int_equal(elfcore_build(buf, sizeof(buf), &seg,
				       ELFCORE_MAX_SEGS + 1, &cpu, 1, RAM),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
