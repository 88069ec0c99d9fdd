/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest device tree, built last from the configuration, the values KVM
 * reported (timer frequency, satp mode, ISA extensions) and the device list.
 * One function per node; each device adds its own node under /soc through
 * its mmio_ops.fdt() callback, in the order of the device list.
 */
#ifndef RVKVM_FDT_H
#define RVKVM_FDT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/device.h"
#include "vmm/config.h"
#include "vmm/isa.h"

/* The largest tree the loader reserves room for in guest RAM. */
#define FDT_MAX_SIZE 0x10000

/* Room for the ISA string with every extension in isa.h enabled. */
#define FDT_ISA_STRING_MAX 1024

struct fdt_device {
	const struct mmio_ops *ops; /* ops->fdt NULL: the device has no node */
	void *opaque;
};

struct fdt_params {
	const struct vm_config *cfg; /* cmdline, nr_cpus, ram_size */
	uint64_t ram_base;	     /* guest physical address of RAM */
	uint32_t cpu_intc_phandle;   /* hart i's interrupt controller: + i */
	uint32_t timebase_freq;	     /* KVM TIMER frequency, Hz */
	const char *mmu_type;	     /* "riscv,sv39"...; NULL: omit (bare) */
	uint64_t isa_ext[ISA_EXT_WORDS];   /* KVM ISA_EXT ids, every hart */
	uint32_t cbom_block_size;	   /* 0: omit; only with zicbom */
	uint32_t cboz_block_size;	   /* 0: omit; only with zicboz */
	uint32_t cbop_block_size;	   /* 0: omit; only with zicbop */
	uint64_t initrd_start, initrd_end; /* GPA; both 0: no initrd */
	const uint8_t *rng_seed;	   /* /chosen/rng-seed; may be NULL */
	size_t rng_seed_len;
	/*
	 * /chosen/stdout-path, e.g. "/soc/serial@10000000"; NULL: omit.
	 * When it names a "serial@..." node, /aliases/serial0 points there.
	 */
	const char *stdout_path;
	const struct fdt_device *devices;
	unsigned int nr_devices;
};

/*
 * Builds the tree into buf (size bytes; FDT_MAX_SIZE is what the loader
 * uses) and finishes it: fdt_totalsize(buf) is then its exact size.
 * Returns 0, -ENOSPC when the tree does not fit, or -EINVAL for bad
 * parameters or a libfdt error from a device callback.
 */
int fdt_build(const struct fdt_params *p, void *buf, size_t size);

/*
 * Writes the riscv,isa string for the extensions in isa_ext, e.g.
 * "rv64imafdc_zicsr_zifencei_zbb_sstc": "rv64i", the other single-letter
 * extensions in canonical order, then the multi-letter ones, each after an
 * underscore: z* by the canonical order of their second letter, then
 * alphabetically; then s* alphabetically.  'i' (the base) is always
 * there; 'h' is never (the guest cannot use the hypervisor extension).
 * Like snprintf: returns the full length, writes at most size bytes
 * including the NUL.
 */
size_t fdt_isa_string(const uint64_t *isa_ext, char *buf, size_t size);

#endif
