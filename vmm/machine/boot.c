// SPDX-License-Identifier: GPL-2.0
/*
 * The load step of every boot.  The loader places the images in RAM; the
 * board builds the device tree from its devices and what KVM reported
 * about the harts; the boot hart is to start at the kernel with a0 = 0
 * (its hart id) and a1 = the tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmm/machine/boot.h"
#include "vmm/host/hostcons.h"
#include "lib/log.h"
#include "vmm/board/loader.h"

static const char *mmu_type(unsigned long satp_mode)
{
	switch (satp_mode) {
	case 8:
		return "riscv,sv39";
	case 9:
		return "riscv,sv48";
	case 10:
		return "riscv,sv57";
	default:
		return NULL;
	}
}

static mode_t umask_get(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return mask;
}

/* Write the DTB to a temporary file and rename it: never half-written. */
static int dump_dtb(const char *path, const void *fdt, size_t size)
{
	char tmp[4096];
	int fd, ret = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0 || fchmod(fd, 0644 & ~umask_get()) ||
	    hostcons_write_all(fd, fdt, size) || fsync(fd))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		pr_err("--dump-dtb %s: %s", path, strerror(-ret));
	}
	return ret;
}

static int boot_fdt(struct vm *vm, struct board *b,
		    const struct loader_placement *place)
{
	uint8_t seed[32];
	struct fdt_params p = {
		.cfg = vm->cfg,
		.timebase_freq = vm->caps.timebase_freq,
		.mmu_type = mmu_type(vm->caps.satp_mode),
		.cbom_block_size = vm->caps.cbom_block_size,
		.cboz_block_size = vm->caps.cboz_block_size,
		.cbop_block_size = vm->caps.cbop_block_size,
		.initrd_start = place->initrd_start,
		.initrd_end = place->initrd_end,
		.rng_seed = seed,
		.rng_seed_len = sizeof(seed),
	};
	void *fdt = guest_mem_ptr(&vm->mem, place->fdt_addr, place->fdt_max);
	int ret;

	memcpy(p.isa_ext, vm->caps.isa_ext, sizeof(p.isa_ext));
	if (getrandom(seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		p.rng_seed_len = 0;
	if (!fdt) {
		pr_err("no room for the device tree at %#llx",
		       (unsigned long long)place->fdt_addr);
		return -EFAULT;
	}
	ret = board_fdt(b, &p, fdt, place->fdt_max);
	if (ret) {
		pr_err("cannot build the device tree: %s", strerror(-ret));
		return ret;
	}
	if (vm->cfg->dump_dtb && vm->boots == 0)
		return dump_dtb(vm->cfg->dump_dtb, fdt, fdt_totalsize(fdt));
	return 0;
}

int boot_load(struct vm *vm, struct board *b, struct boot_entry *entry)
{
	struct loader_files files = {
		.kernel = vm->cfg->kernel,
		.firmware = vm->cfg->firmware,
		.initrds = vm->cfg->initrds,
		.nr_initrds = vm->cfg->nr_initrds,
		.fdt_max = FDT_MAX_SIZE,
	};
	struct loader_placement place;
	struct image_why why = { "" };
	int ret;

	ret = loader_load(&vm->mem, &files, &place, &why);
	if (ret) {
		pr_err("%s", why.msg);
		return ret;
	}
	ret = boot_fdt(vm, b, &place);
	if (ret)
		return ret;
	*entry = (struct boot_entry){
		.pc = place.kernel_addr,
		.a0 = 0,
		.a1 = place.fdt_addr,
	};
	return 0;
}
