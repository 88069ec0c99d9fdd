/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel, initrd and FDT placement in guest RAM, and reading the files.
 *
 * Layout (addresses grow upwards; lowmem = first min(RAM, 256 MiB)):
 *
 *   RAM base
 *   + text_offset (2 MiB)  kernel: image_size bytes; Linux reserves up
 *                          to the next 2 MiB boundary (kernel_reserved_end)
 *   ...                    free
 *   fdt_addr               FDT: fdt_max bytes, 4 KiB aligned
 *   initrd_start           initrd: 4 KiB aligned, ends within 4 KiB of
 *   initrd_end             the end of lowmem
 *   lowmem_end
 *   ...                    rest of RAM (free)
 *
 * Why these alignments (Linux 6.12, arch/riscv/mm/init.c, init/initramfs.c):
 * an RV64 kernel with STRICT_KERNEL_RWX reserves its image rounded up to
 * 2 MiB, and it disables an initrd whose page-rounded range overlaps any
 * reserved memory (the kernel or the FDT).  So nothing may sit between the
 * kernel's end and the next 2 MiB boundary, and the FDT and the initrd
 * must not share a page.  4 KiB (not 2 MiB) for the FDT is enough: the
 * early FDT mapping covers the two 2 MiB blocks from the one holding its
 * start, so any 8-byte aligned FDT of up to 2 MiB is reachable, and a
 * coarser alignment would only take lowmem away from the initrd.
 */
#ifndef RVKVM_LOADER_H
#define RVKVM_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "vmm/config.h"
#include "vmm/board/image.h"
#include "lib/guest_mem.h"
#include "lib/sizes.h"

#define LOADER_KERNEL_ALIGN SZ_2M /* kernel start and reserved end */
#define LOADER_FDT_ALIGN SZ_4K
#define LOADER_INITRD_ALIGN SZ_4K
#define LOADER_FDT_SIZE_MAX SZ_2M /* the RV64 kernel's MAX_FDT_SIZE */
/* Linux wants the initrd and the FDT in the first 256 MiB of RAM. */
#define LOADER_LOWMEM_SIZE SZ_256M
#define LOADER_PA_LIMIT (1ULL << 56) /* RV64 physical address space */

struct loader_request {
	uint64_t ram_base;    /* the board's RAM base; 2 MiB aligned */
	uint64_t ram_size;    /* non-zero multiple of 4 KiB */
	uint64_t text_offset; /* from the Image header */
	uint64_t image_size;  /* from the Image header */
	uint64_t initrd_size; /* 0: no initrd */
	uint64_t fdt_max;     /* bytes reserved for the FDT: 1..2 MiB */
};

struct loader_placement {
	uint64_t kernel_addr;	      /* load address and entry point (pc) */
	uint64_t kernel_end;	      /* kernel_addr + image_size */
	uint64_t kernel_reserved_end; /* kernel_end rounded up to 2 MiB */
	uint64_t lowmem_end;	      /* ram_base + min(ram_size, 256 MiB) */
	uint64_t fdt_addr; /* a1; fdt_max bytes from here are the FDT's */
	uint64_t fdt_max;
	uint64_t initrd_start; /* linux,initrd-start; 0 without initrd */
	uint64_t initrd_end;   /* linux,initrd-end (exclusive); 0 without */
};

/*
 * Compute where everything goes (pure arithmetic, no I/O).  Returns 0, or
 *   -EINVAL  a malformed request (misaligned RAM base or text_offset, RAM
 *            size 0 / unaligned / above CONFIG_RAM_MAX, fdt_max 0 or over
 *            2 MiB, image_size 0);
 *   -EFBIG   the kernel does not fit in RAM;
 *   -ENOSPC  no room in lowmem for the FDT, or for the initrd after the
 *            kernel and the FDT.
 * why names the sizes and limits involved.
 */
int loader_place(const struct loader_request *req, struct loader_placement *out,
		 struct image_why *why);

/*
 * Read a whole file into a malloc()ed buffer (*buf, *len; free() it).
 * A regular file larger than max fails with -EFBIG before any read; other
 * files (pipes, devices) are read up to max + 1 bytes to find out.
 * open/read errors are returned as -errno (-ENOENT, -EACCES, -EISDIR...).
 * An empty file gives *len = 0 and a non-NULL *buf.
 */
int loader_read_file(const char *path, size_t max, void **buf, size_t *len,
		     struct image_why *why);

/*
 * Before anything is made on the host for a run (a sandbox's root): is
 * path a kernel that can boot in ram_size bytes?  An Image is parsed as
 * loader_load() will; of an Image.gz only the gzip magic is checked; what
 * is not a regular file (a pipe) is left to the load.  0, or -errno with
 * why->msg as loader_load() would word it.
 */
int loader_probe_kernel(const char *path, uint64_t ram_size,
			struct image_why *why);

struct loader_files {
	const char *kernel; /* Image or Image.gz */
	/* Concatenated in order, each from a 4-byte boundary; none: 0. */
	const char *const *initrds;
	unsigned int nr_initrds;
	uint64_t fdt_max; /* room to keep for the FDT */
	/* Instead of kernel: a raw image run from the RAM base; or NULL. */
	const char *firmware;
};

/*
 * Read, validate and place the kernel (inflating Image.gz inside guest
 * RAM), or the firmware (as it is, at the RAM base), and the initrds, and
 * copy them into guest RAM.  The FDT is written
 * later by its builder at out->fdt_addr, at most out->fdt_max bytes.
 * On failure why->msg names the file and the problem on one line.
 */
int loader_load(const struct guest_mem *mem, const struct loader_files *files,
		struct loader_placement *out, struct image_why *why);

#endif
