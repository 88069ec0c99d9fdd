/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one guest-memory accessor.  Every path that touches guest RAM
 * (virtqueues, SBI console buffers, the loader) translates guest physical
 * addresses here, range- and overflow-checked.
 */
#ifndef RVKVM_GUEST_MEM_H
#define RVKVM_GUEST_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct guest_mem {
	uint64_t base; /* guest physical address of the first byte */
	uint64_t size; /* bytes */
	uint8_t *host; /* host mapping of the first byte */
};

/*
 * Host pointer for [gpa, gpa + len) or NULL when any byte of it lies outside
 * guest RAM or the range wraps.  len == 0 is treated as len == 1.
 */
void *guest_mem_ptr(const struct guest_mem *mem, uint64_t gpa, uint64_t len);

/* Copy to/from guest RAM; -EFAULT when the range is not all RAM. */
int guest_mem_read(const struct guest_mem *mem, uint64_t gpa, void *buf,
		   size_t len);
int guest_mem_write(const struct guest_mem *mem, uint64_t gpa, const void *buf,
		    size_t len);

#endif
