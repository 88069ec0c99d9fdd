// SPDX-License-Identifier: GPL-2.0
/*
 * The guest device tree, written with libfdt's sequential-write API: one
 * function per node, in tree order.  The helpers return 0 or a negative
 * libfdt error; fdt_build() turns that into -errno at the end.
 *
 * The root is compatible with "linux,dummy-virt", the documented binding
 * for a virtual machine whose hardware is described entirely by its device
 * tree (QEMU's "riscv-virtio" names QEMU's board, which this is not, and
 * has no binding).  Linux does not match on the root compatible on RISC-V.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libfdt.h>

#include "lib/log.h"
#include "vmm/board/fdt.h"

/* Canonical order of single-letter extensions (Linux uabi.rst, ISA spec). */
static const char dt_letter_order[] = "imafdqlcbkjtpvh";

/* The enabled extensions as names, sorted, ready for both properties. */
struct dt_isa {
	const char *names[ISA_EXT_COUNT + 1];
	unsigned int nr;
	char str[FDT_ISA_STRING_MAX]; /* riscv,isa */
};

static unsigned int dt_letter_rank(char c)
{
	const char *pos = c ? strchr(dt_letter_order, c) : NULL;

	if (pos)
		return pos - dt_letter_order;
	return sizeof(dt_letter_order) + (unsigned char)c;
}

/* Sort key: single letters, then z* by category, then s*, then the rest. */
static unsigned int dt_ext_rank(const char *name)
{
	if (!name[1])
		return dt_letter_rank(name[0]);
	switch (name[0]) {
	case 'z':
		return 0x1000 + dt_letter_rank(name[1]);
	case 's':
		return 0x2000;
	case 'x':
		return 0x3000;
	default:
		return 0x4000;
	}
}

static int dt_ext_cmp(const void *a, const void *b)
{
	const char *na = *(const char *const *)a;
	const char *nb = *(const char *const *)b;
	unsigned int ra = dt_ext_rank(na), rb = dt_ext_rank(nb);

	if (ra != rb)
		return ra < rb ? -1 : 1;
	return strcmp(na, nb);
}

/* 'i' always (the base), 'h' never, the rest as enabled. */
static void dt_isa_collect(const uint64_t *isa_ext, struct dt_isa *isa)
{
	isa->names[0] = "i";
	isa->nr = 1;
	for (unsigned int id = 0; id < ISA_EXT_COUNT; id++) {
		const char *name = isa_exts[id].name;

		if (!isa_ext_test(isa_ext, id) || !strcmp(name, "i") ||
		    !strcmp(name, "h"))
			continue;
		isa->names[isa->nr++] = name;
	}
	qsort(isa->names, isa->nr, sizeof(isa->names[0]), dt_ext_cmp);
}

/* Appends s at pos like snprintf would; returns the new logical length. */
static size_t dt_append(char *buf, size_t size, size_t pos, const char *s)
{
	size_t len = strlen(s);

	if (pos < size) {
		size_t room = size - pos - 1;

		memcpy(buf + pos, s, len < room ? len : room);
		buf[pos + (len < room ? len : room)] = '\0';
	}
	return pos + len;
}

static size_t dt_isa_string(const struct dt_isa *isa, char *buf, size_t size)
{
	size_t pos = dt_append(buf, size, 0, "rv64");

	for (unsigned int i = 0; i < isa->nr; i++) {
		if (isa->names[i][1])
			pos = dt_append(buf, size, pos, "_");
		pos = dt_append(buf, size, pos, isa->names[i]);
	}
	return pos;
}

size_t fdt_isa_string(const uint64_t *isa_ext, char *buf, size_t size)
{
	struct dt_isa isa;

	if (size)
		buf[0] = '\0';
	dt_isa_collect(isa_ext, &isa);
	return dt_isa_string(&isa, buf, size);
}

static bool dt_has_initrd(const struct fdt_params *p)
{
	return p->initrd_start || p->initrd_end;
}

static bool dt_ext_enabled(const struct fdt_params *p, const char *name)
{
	int id = isa_ext_lookup(name);

	return id >= 0 && isa_ext_test(p->isa_ext, id);
}

static bool dt_params_valid(const struct fdt_params *p)
{
	const struct vm_config *cfg = p ? p->cfg : NULL;

	if (!cfg || !cfg->nr_cpus || cfg->nr_cpus > CONFIG_MAX_CPUS ||
	    !cfg->ram_size || cfg->ram_size > CONFIG_RAM_MAX ||
	    !p->cpu_intc_phandle ||
	    !memchr(cfg->cmdline, '\0', sizeof(cfg->cmdline)) ||
	    !p->timebase_freq)
		return false;
	if (dt_has_initrd(p) && p->initrd_start >= p->initrd_end)
		return false;
	if (p->rng_seed_len && (!p->rng_seed || p->rng_seed_len > INT_MAX))
		return false;
	if (p->nr_devices && !p->devices)
		return false;
	for (unsigned int i = 0; i < p->nr_devices; i++)
		if (!p->devices[i].ops)
			return false;
	return true;
}

static int dt_root_props(void *fdt)
{
	int err;

	err = fdt_property_u32(fdt, "#address-cells", 2);
	err = err ?: fdt_property_u32(fdt, "#size-cells", 2);
	err = err ?: fdt_property_string(fdt, "compatible", "linux,dummy-virt");
	return err ?: fdt_property_string(fdt, "model", "rvkvm");
}

static int dt_chosen(void *fdt, const struct fdt_params *p)
{
	int err;

	err = fdt_begin_node(fdt, "chosen");
	/* A firmware gets bootargs only from -p, as with kvmtool. */
	if (!err && (p->cfg->cmdline[0] || !p->cfg->firmware))
		err = fdt_property_string(fdt, "bootargs", p->cfg->cmdline);
	if (!err && p->stdout_path)
		err = fdt_property_string(fdt, "stdout-path", p->stdout_path);
	if (!err && dt_has_initrd(p)) {
		err = fdt_property_u64(fdt, "linux,initrd-start",
				       p->initrd_start);
		if (!err)
			err = fdt_property_u64(fdt, "linux,initrd-end",
					       p->initrd_end);
	}
	if (!err && p->rng_seed_len)
		err = fdt_property(fdt, "rng-seed", p->rng_seed,
				   (int)p->rng_seed_len);
	return err ?: fdt_end_node(fdt);
}

/*
 * The path of the serial console node without stdout-path's ":options",
 * or 0 when stdout_path is not a "serial@" node.
 */
static size_t dt_serial_path_len(const char *stdout_path)
{
	size_t len, base;

	if (!stdout_path)
		return 0;
	len = strcspn(stdout_path, ":");
	for (base = len; base && stdout_path[base - 1] != '/'; base--)
		;
	if (!base || strncmp(stdout_path + base, "serial@", 7))
		return 0;
	return len;
}

static int dt_aliases(void *fdt, const struct fdt_params *p)
{
	size_t len = dt_serial_path_len(p->stdout_path);
	void *val;
	int err;

	if (!len)
		return 0;
	if (len >= INT_MAX)
		return -FDT_ERR_BADVALUE;
	err = fdt_begin_node(fdt, "aliases");
	err = err ?: fdt_property_placeholder(fdt, "serial0", len + 1, &val);
	if (err)
		return err;
	memcpy(val, p->stdout_path, len);
	((char *)val)[len] = '\0';
	return fdt_end_node(fdt);
}

static int dt_memory(void *fdt, const struct fdt_params *p)
{
	const fdt64_t reg[2] = { cpu_to_fdt64(p->ram_base),
				 cpu_to_fdt64(p->cfg->ram_size) };
	char name[32];
	int err;

	snprintf(name, sizeof(name), "memory@%llx",
		 (unsigned long long)p->ram_base);
	err = fdt_begin_node(fdt, name);
	err = err ?: fdt_property_string(fdt, "device_type", "memory");
	err = err ?: fdt_property(fdt, "reg", reg, sizeof(reg));
	return err ?: fdt_end_node(fdt);
}

static int dt_cpu_intc(void *fdt, const struct fdt_params *p, unsigned int hart)
{
	int err;

	err = fdt_begin_node(fdt, "interrupt-controller");
	err = err ?: fdt_property_u32(fdt, "#interrupt-cells", 1);
	err = err ?: fdt_property(fdt, "interrupt-controller", NULL, 0);
	err = err ?: fdt_property_string(fdt, "compatible", "riscv,cpu-intc");
	err = err   ?:
		      fdt_property_u32(fdt, "phandle",
				       p->cpu_intc_phandle + hart);
	return err ?: fdt_end_node(fdt);
}

/* riscv,isa-extensions: the names as a string list. */
static int dt_isa_extensions(void *fdt, const struct dt_isa *isa)
{
	char list[FDT_ISA_STRING_MAX];
	size_t pos = 0;

	for (unsigned int i = 0; i < isa->nr; i++) {
		size_t len = strlen(isa->names[i]) + 1;

		if (len > sizeof(list) - pos)
			return -FDT_ERR_INTERNAL;
		memcpy(list + pos, isa->names[i], len);
		pos += len;
	}
	return fdt_property(fdt, "riscv,isa-extensions", list, pos);
}

static int dt_cbo_sizes(void *fdt, const struct fdt_params *p)
{
	int err = 0;

	if (p->cbom_block_size && dt_ext_enabled(p, "zicbom"))
		err = fdt_property_u32(fdt, "riscv,cbom-block-size",
				       p->cbom_block_size);
	if (!err && p->cboz_block_size && dt_ext_enabled(p, "zicboz"))
		err = fdt_property_u32(fdt, "riscv,cboz-block-size",
				       p->cboz_block_size);
	if (!err && p->cbop_block_size && dt_ext_enabled(p, "zicbop"))
		err = fdt_property_u32(fdt, "riscv,cbop-block-size",
				       p->cbop_block_size);
	return err;
}

static int dt_cpu(void *fdt, const struct fdt_params *p, unsigned int hart,
		  const struct dt_isa *isa)
{
	char name[32];
	int err;

	snprintf(name, sizeof(name), "cpu@%x", hart);
	err = fdt_begin_node(fdt, name);
	err = err ?: fdt_property_string(fdt, "device_type", "cpu");
	err = err ?: fdt_property_u32(fdt, "reg", hart);
	err = err ?: fdt_property_string(fdt, "compatible", "riscv");
	err = err ?: fdt_property_string(fdt, "status", "okay");
	err = err ?: fdt_property_string(fdt, "riscv,isa", isa->str);
	err = err ?: fdt_property_string(fdt, "riscv,isa-base", "rv64i");
	err = err ?: dt_isa_extensions(fdt, isa);
	if (!err && p->mmu_type)
		err = fdt_property_string(fdt, "mmu-type", p->mmu_type);
	err = err ?: dt_cbo_sizes(fdt, p);
	err = err ?: dt_cpu_intc(fdt, p, hart);
	return err ?: fdt_end_node(fdt);
}

static int dt_cpus(void *fdt, const struct fdt_params *p)
{
	struct dt_isa isa;
	int err;

	dt_isa_collect(p->isa_ext, &isa);
	if (dt_isa_string(&isa, isa.str, sizeof(isa.str)) >= sizeof(isa.str))
		return -FDT_ERR_INTERNAL;
	err = fdt_begin_node(fdt, "cpus");
	err = err ?: fdt_property_u32(fdt, "#address-cells", 1);
	err = err ?: fdt_property_u32(fdt, "#size-cells", 0);
	if (!err)
		err = fdt_property_u32(fdt, "timebase-frequency",
				       p->timebase_freq);
	for (unsigned int hart = 0; !err && hart < p->cfg->nr_cpus; hart++)
		err = dt_cpu(fdt, p, hart, &isa);
	return err ?: fdt_end_node(fdt);
}

static int dt_device(void *fdt, const struct fdt_device *dev)
{
	int err;

	if (!dev->ops->fdt)
		return 0;
	err = dev->ops->fdt(dev->opaque, fdt);
	if (err > 0)
		err = -FDT_ERR_INTERNAL;
	if (err && err != -FDT_ERR_NOSPACE)
		pr_debug("fdt: %s: %s", dev->ops->name ? dev->ops->name : "?",
			 fdt_strerror(err));
	return err;
}

static int dt_soc(void *fdt, const struct fdt_params *p)
{
	int err;

	err = fdt_begin_node(fdt, "soc");
	err = err ?: fdt_property_string(fdt, "compatible", "simple-bus");
	err = err ?: fdt_property_u32(fdt, "#address-cells", 2);
	err = err ?: fdt_property_u32(fdt, "#size-cells", 2);
	err = err ?: fdt_property(fdt, "ranges", NULL, 0);
	for (unsigned int i = 0; !err && i < p->nr_devices; i++)
		err = dt_device(fdt, &p->devices[i]);
	return err ?: fdt_end_node(fdt);
}

static int dt_tree(void *fdt, int size, const struct fdt_params *p)
{
	int err;

	err = fdt_create(fdt, size);
	err = err ?: fdt_finish_reservemap(fdt);
	err = err ?: fdt_begin_node(fdt, "");
	err = err ?: dt_root_props(fdt);
	err = err ?: dt_chosen(fdt, p);
	err = err ?: dt_aliases(fdt, p);
	err = err ?: dt_memory(fdt, p);
	err = err ?: dt_cpus(fdt, p);
	err = err ?: dt_soc(fdt, p);
	err = err ?: fdt_end_node(fdt);
	err = err ?: fdt_finish(fdt);
	/* Catches a device callback that left a node open or closed ours. */
	return err ?: fdt_check_full(fdt, size);
}

int fdt_build(const struct fdt_params *p, void *buf, size_t size)
{
	int err;

	if (!buf || !dt_params_valid(p))
		return -EINVAL;
	err = dt_tree(buf, size > INT_MAX ? INT_MAX : (int)size, p);
	if (err == -FDT_ERR_NOSPACE)
		return -ENOSPC;
	if (err) {
		pr_debug("fdt: %s (%d)", fdt_strerror(err), err);
		return -EINVAL;
	}
	return 0;
}
