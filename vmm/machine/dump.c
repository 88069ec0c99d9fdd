// SPDX-License-Identifier: GPL-2.0
/* Crash dumps; see dump.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/elfcore.h"
#include "lib/log.h"
#include "lib/pgwalk.h"
#include "vmm/machine/dump.h"

#define DUMP_PAGE 4096

struct dump_segs {
	const struct guest_mem *mem;
	struct elfcore_seg seg[ELFCORE_MAX_SEGS];
	unsigned int n;
	unsigned long dropped;
};

/* A kernel mapping: the part of it inside RAM becomes a segment. */
static int dump_add_range(void *opaque, uint64_t va, uint64_t pa, uint64_t size)
{
	struct dump_segs *d = opaque;
	uint64_t base = d->mem->base, end = base + d->mem->size;

	if (pa >= end || pa + size <= base || pa + size < pa)
		return 0; /* MMIO or nowhere */
	if (pa < base) {
		va += base - pa;
		size -= base - pa;
		pa = base;
	}
	if (pa + size > end)
		size = end - pa;
	if (d->n == ELFCORE_MAX_SEGS) {
		d->dropped++;
		return 0;
	}
	d->seg[d->n++] = (struct elfcore_seg){ va, pa, pa - base, size };
	return 0;
}

/* The first satp with paging on among the vCPUs (0: none). */
static uint64_t dump_satp(struct vm *vm)
{
	for (unsigned int i = 0; i < vm->cfg->nr_cpus; i++) {
		uint64_t satp;

		if (!kvm_cpu_reg_get(&vm->vcpus[i], VCPU_REG_CSR(CSR_NUM_SATP),
				     &satp) &&
		    pgwalk_levels(satp) > 0)
			return satp;
	}
	return 0;
}

static void dump_segments(struct vm *vm, struct dump_segs *d)
{
	uint64_t satp = dump_satp(vm);
	int ret;

	d->mem = &vm->mem;
	d->seg[0] = (struct elfcore_seg){ vm->mem.base, vm->mem.base, 0,
					  vm->mem.size };
	d->n = 1;
	if (!satp) {
		pr_info("dump: no vCPU has paging on: RAM at physical addresses only");
		return;
	}
	ret = pgwalk_ranges(&vm->mem, satp, dump_add_range, d);
	if (ret == -E2BIG)
		pr_warn("dump: the kernel's page tables have too many entries: some mappings left out");
	if (d->dropped)
		pr_warn("dump: %lu kernel mappings left out (at most %u segments)",
			d->dropped, ELFCORE_MAX_SEGS);
}

static void dump_cpus(struct vm *vm, struct elfcore_cpu *cpus)
{
	for (unsigned int i = 0; i < vm->cfg->nr_cpus; i++) {
		cpus[i].pid = i + 1;
		for (unsigned int r = 0; r < 32; r++)
			if (kvm_cpu_reg_get(&vm->vcpus[i], r, &cpus[i].regs[r]))
				cpus[i].regs[r] = 0;
	}
}

static bool page_zero(const uint8_t *p)
{
	static const uint8_t zero[DUMP_PAGE];

	return !memcmp(p, zero, DUMP_PAGE);
}

static int dump_pwrite(int fd, const uint8_t *p, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

/* RAM at data: runs of non-zero pages written, zero pages left holes. */
static int dump_ram(const struct guest_mem *mem, int fd, uint64_t data)
{
	uint64_t run = 0, len = 0;
	int ret = 0;

	for (uint64_t off = 0; off < mem->size && !ret; off += DUMP_PAGE) {
		if (!page_zero(mem->host + off)) {
			if (!len)
				run = off;
			len += DUMP_PAGE;
			continue;
		}
		if (len)
			ret = dump_pwrite(fd, mem->host + run, len, data + run);
		len = 0;
	}
	if (!ret && len)
		ret = dump_pwrite(fd, mem->host + run, len, data + run);
	if (!ret && ftruncate(fd, data + mem->size) < 0)
		ret = -errno;
	return ret;
}

int dump_write(struct vm *vm, int fd)
{
	struct elfcore_cpu cpus[CONFIG_MAX_CPUS];
	struct dump_segs *d = calloc(1, sizeof(*d));
	uint64_t data;
	uint8_t *hdr = NULL;
	int ret = -ENOMEM;

	if (!d)
		goto out;
	dump_segments(vm, d);
	dump_cpus(vm, cpus);
	data = elfcore_data_offset(d->n, vm->cfg->nr_cpus);
	hdr = malloc(data);
	if (!hdr)
		goto out;
	ret = elfcore_build(hdr, data, d->seg, d->n, cpus, vm->cfg->nr_cpus,
			    vm->mem.size);
	ret = ret ?: dump_pwrite(fd, hdr, data, 0);
	ret = ret ?: dump_ram(&vm->mem, fd, data);
	if (!ret)
		pr_info("dump: %u vCPUs, %llu MiB of RAM, %u kernel mappings",
			vm->cfg->nr_cpus,
			(unsigned long long)(vm->mem.size >> 20), d->n - 1);
out:
	if (ret)
		pr_err("dump: cannot write the core: %s", strerror(-ret));
	free(hdr);
	free(d);
	return ret;
}

void dump_to_path(struct vm *vm, const char *path)
{
	char tmp[4096];
	int fd, ret;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		pr_err("--dump-on-panic: %s: name too long", path);
		return;
	}
	/*
	 * A new file of lkvm's own: never one (or a link) that someone who
	 * can write to the directory put at tmp's name beforehand.
	 */
	if (unlink(tmp) < 0 && errno != ENOENT) {
		pr_err("--dump-on-panic: %s: %s", tmp, strerror(errno));
		return;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0) {
		pr_err("--dump-on-panic: %s: %s", tmp, strerror(errno));
		return;
	}
	ret = dump_write(vm, fd);
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	close(fd);
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret) {
		unlink(tmp);
		pr_err("--dump-on-panic: no core written to %s: %s", path,
		       strerror(-ret));
		return;
	}
	pr_info("--dump-on-panic: core written to %s", path);
}
