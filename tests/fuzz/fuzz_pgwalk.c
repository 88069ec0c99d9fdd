// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the guest page-table walker (lib/pgwalk.c) with guest-controlled
 * tables: the input's first 8 bytes are satp's mode and root, the next 8
 * a virtual address, the rest is guest RAM (16 KiB at most, at
 * 0x80000000; tables may point anywhere).  A translation must land
 * inside the page it names; the kernel-half walk must end within its
 * bound, its ranges in the upper half and not wrapping.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "lib/pgwalk.h"

#define CHECK(cond)                       \
	do {                              \
		if (!(cond))              \
			__builtin_trap(); \
	} while (0)

#define RAM_BASE 0x80000000ULL
#define RAM_MAX (16u << 10)

static uint8_t ram[RAM_MAX] __attribute__((aligned(4096)));

static int check_range(void *opaque, uint64_t va, uint64_t pa, uint64_t size)
{
	unsigned long *n = opaque;

	CHECK(size && va + size - 1 >= va && va >> 63);
	(void)pa;
	++*n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct guest_mem mem = { RAM_BASE, 0, ram };
	uint64_t hdr[2], pa, left;
	unsigned long n = 0;
	int ret;

	if (size < sizeof(hdr))
		return 0;
	memcpy(hdr, data, sizeof(hdr));
	size -= sizeof(hdr);
	mem.size = size < RAM_MAX ? size : RAM_MAX;
	memset(ram, 0, sizeof(ram));
	memcpy(ram, data + sizeof(hdr), mem.size);
	/* the root in RAM most of the time */
	hdr[0] = (hdr[0] & 0xf000000000000000ULL) |
		 ((RAM_BASE >> 12) + (hdr[0] & 3));
	ret = pgwalk_translate(&mem, hdr[0], hdr[1], &pa, &left);
	if (!ret)
		CHECK(left >= 1 && left <= (1ULL << 48) &&
		      ((pa + left) & 0xfff) == 0);
	ret = pgwalk_ranges(&mem, hdr[0], check_range, &n);
	CHECK(ret == 0 || ret == -EINVAL || ret == -E2BIG);
	return 0;
}
