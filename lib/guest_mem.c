// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "guest_mem.h"

void *guest_mem_ptr(const struct guest_mem *mem, uint64_t gpa, uint64_t len)
{
	uint64_t off;

	if (len == 0)
		len = 1;
	if (gpa < mem->base)
		return NULL;
	off = gpa - mem->base;
	if (off >= mem->size || len > mem->size - off)
		return NULL;
	return mem->host + off;
}

int guest_mem_read(const struct guest_mem *mem, uint64_t gpa, void *buf,
		   size_t len)
{
	const void *p = guest_mem_ptr(mem, gpa, len);

	if (!p)
		return -EFAULT;
	memcpy(buf, p, len);
	return 0;
}

int guest_mem_write(const struct guest_mem *mem, uint64_t gpa, const void *buf,
		    size_t len)
{
	void *p = guest_mem_ptr(mem, gpa, len);

	if (!p)
		return -EFAULT;
	memcpy(p, buf, len);
	return 0;
}
