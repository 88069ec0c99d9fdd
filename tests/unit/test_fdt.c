// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <libfdt.h>

#include "devices/plic.h"
#include "golden.h"
#include "devices/uart8250.h"
#include "lib/sizes.h"
#include "vmm/board/fdt.h"

/* A memory map and phandles as a board would choose them. */
#define RAM_BASE 0x80000000ULL
#define PHANDLE_PLIC 1
#define PHANDLE_CPU_INTC(hart) (2 + (hart))

static const struct dev_res plic_res = {
	.base = 0x0c000000,
	.size = PLIC_SIZE,
	.phandle = PHANDLE_PLIC,
	.irq_parent = PHANDLE_CPU_INTC(0),
};
static const struct dev_res uart_res = {
	.base = 0x10000000,
	.size = 0x100,
	.irq = 10,
	.irq_parent = PHANDLE_PLIC,
	.irq_cells = 1,
};

#define GOLDEN "tests/unit/golden/fdt-basic.dts"
#define NR_HARTS 2

static const uint8_t seed[8] = {
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef
};

static const char *const basic_exts[] = {
	"i",	  "m",	   "a",	       "f",	  "d",	   "c",
	"h",	  "zicsr", "zifencei", "zicntr",  "zihpm", "zicbom",
	"zicboz", "zbb",   "sstc",     "svinval", NULL,
};

struct fixture {
	struct vm_config cfg;
	struct fdt_params p;
	struct plic plic;
	struct uart8250 uart;
	struct fdt_device devs[2];
	uint8_t buf[FDT_MAX_SIZE];
};

static void set_exts(uint64_t *bits, const char *const *names)
{
	memset(bits, 0, sizeof(uint64_t) * ISA_EXT_WORDS);
	for (; *names; names++) {
		int id = isa_ext_lookup(*names);

		assert_true(id >= 0);
		isa_ext_set(bits, id);
	}
}

static int setup(void **state)
{
	struct irq_line lines[NR_HARTS] = { { 0 } };
	struct irq_line irq = { 0 };
	struct char_out out = { 0 };
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	if (plic_init(&fx->plic, &plic_res, NR_HARTS, lines) ||
	    uart8250_init(&fx->uart, &uart_res, &irq, &out)) {
		free(fx);
		return -1;
	}
	fx->cfg.nr_cpus = NR_HARTS;
	fx->cfg.ram_size = SZ_256M;
	strcpy(fx->cfg.cmdline, "console=ttyS0 quiet");
	fx->devs[0] = (struct fdt_device){ &plic_mmio_ops, &fx->plic };
	fx->devs[1] = (struct fdt_device){ &uart8250_mmio_ops, &fx->uart };
	fx->p = (struct fdt_params){
		.cfg = &fx->cfg,
		.ram_base = RAM_BASE,
		.cpu_intc_phandle = PHANDLE_CPU_INTC(0),
		.timebase_freq = 10000000,
		.mmu_type = "riscv,sv48",
		.cbom_block_size = 64,
		.cboz_block_size = 64,
		.initrd_start = 0x8f000000,
		.initrd_end = 0x8f800000,
		.rng_seed = seed,
		.rng_seed_len = sizeof(seed),
		.stdout_path = "/soc/serial@10000000",
		.devices = fx->devs,
		.nr_devices = 2,
	};
	set_exts(fx->p.isa_ext, basic_exts);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	uart8250_destroy(&fx->uart);
	plic_destroy(&fx->plic);
	free(fx);
	return 0;
}

static void build_ok(struct fixture *fx)
{
	assert_int_equal(fdt_build(&fx->p, fx->buf, sizeof(fx->buf)), 0);
	assert_int_equal(fdt_check_full(fx->buf, sizeof(fx->buf)), 0);
}

static int node(const struct fixture *fx, const char *path)
{
	return fdt_path_offset(fx->buf, path);
}

static bool has_prop(const struct fixture *fx, const char *path,
		     const char *name)
{
	int off = node(fx, path);

	assert_true(off >= 0);
	return fdt_getprop(fx->buf, off, name, NULL) != NULL;
}

static const char *str_prop(const struct fixture *fx, const char *path,
			    const char *name)
{
	const char *val = fdt_getprop(fx->buf, node(fx, path), name, NULL);

	assert_non_null(val);
	return val;
}

/* Properties are only 4-byte aligned in the blob. */
static uint64_t be64(const void *p)
{
	fdt64_t v;

	memcpy(&v, p, sizeof(v));
	return fdt64_to_cpu(v);
}

static uint64_t u64_prop(const struct fixture *fx, const char *path,
			 const char *name)
{
	int len = 0;
	const void *val = fdt_getprop(fx->buf, node(fx, path), name, &len);

	assert_non_null(val);
	assert_int_equal(len, 8);
	return be64(val);
}

static uint32_t u32_prop(const struct fixture *fx, const char *path,
			 const char *name)
{
	int len = 0;
	const void *val = fdt_getprop(fx->buf, node(fx, path), name, &len);

	assert_non_null(val);
	assert_int_equal(len, 4);
	return fdt32_ld(val);
}

static void test_golden(void **state)
{
	struct fixture *fx = *state;

	build_ok(fx);
	golden_check(fx->buf, GOLDEN);
}

/* --- properties -------------------------------------------------------- */

static void test_basic_values(void **state)
{
	struct fixture *fx = *state;

	build_ok(fx);
	assert_string_equal(str_prop(fx, "/", "compatible"),
			    "linux,dummy-virt");
	assert_string_equal(str_prop(fx, "/chosen", "bootargs"),
			    "console=ttyS0 quiet");
	assert_int_equal(u64_prop(fx, "/chosen", "linux,initrd-start"),
			 0x8f000000);
	assert_int_equal(u64_prop(fx, "/chosen", "linux,initrd-end"),
			 0x8f800000);
	assert_string_equal(str_prop(fx, "/aliases", "serial0"),
			    "/soc/serial@10000000");
	assert_int_equal(u32_prop(fx, "/cpus", "timebase-frequency"), 10000000);
	assert_int_equal(u32_prop(fx, "/cpus/cpu@1", "reg"), 1);
	assert_int_equal(
		u32_prop(fx, "/cpus/cpu@1/interrupt-controller", "phandle"),
		PHANDLE_CPU_INTC(1));
	assert_int_equal(fdt_node_offset_by_phandle(fx->buf, PHANDLE_PLIC),
			 node(fx, "/soc/interrupt-controller@c000000"));
	assert_true(node(fx, "/soc/serial@10000000") >= 0);
	assert_true(node(fx, "/cpus/cpu@2") < 0);
}

static void test_memory(void **state)
{
	struct fixture *fx = *state;
	const uint8_t *reg;
	int len = 0;

	fx->cfg.ram_size = 3 * SZ_1G;
	build_ok(fx);
	reg = fdt_getprop(fx->buf, node(fx, "/memory@80000000"), "reg", &len);
	assert_non_null(reg);
	assert_int_equal(len, 16);
	assert_int_equal(be64(reg), RAM_BASE);
	assert_int_equal(be64(reg + 8), 3 * SZ_1G);
}

static void test_no_initrd(void **state)
{
	struct fixture *fx = *state;

	fx->p.initrd_start = fx->p.initrd_end = 0;
	build_ok(fx);
	assert_false(has_prop(fx, "/chosen", "linux,initrd-start"));
	assert_false(has_prop(fx, "/chosen", "linux,initrd-end"));
	assert_true(has_prop(fx, "/chosen", "bootargs"));
}

static void test_optional_omitted(void **state)
{
	struct fixture *fx = *state;

	fx->p.rng_seed_len = 0;
	fx->p.stdout_path = NULL;
	fx->p.mmu_type = NULL;
	build_ok(fx);
	assert_false(has_prop(fx, "/chosen", "rng-seed"));
	assert_false(has_prop(fx, "/chosen", "stdout-path"));
	assert_false(has_prop(fx, "/cpus/cpu@0", "mmu-type"));
	assert_true(node(fx, "/aliases") < 0);
}

static void test_stdout_options(void **state)
{
	struct fixture *fx = *state;

	fx->p.stdout_path = "/soc/serial@10000000:115200n8";
	build_ok(fx);
	assert_string_equal(str_prop(fx, "/chosen", "stdout-path"),
			    "/soc/serial@10000000:115200n8");
	assert_string_equal(str_prop(fx, "/aliases", "serial0"),
			    "/soc/serial@10000000");

	fx->p.stdout_path = "/soc/virtio_console@10001000";
	build_ok(fx);
	assert_true(node(fx, "/aliases") < 0);
}

static void test_rng_seed(void **state)
{
	struct fixture *fx = *state;
	const void *val;
	int len = 0;

	build_ok(fx);
	val = fdt_getprop(fx->buf, node(fx, "/chosen"), "rng-seed", &len);
	assert_non_null(val);
	assert_int_equal(len, sizeof(seed));
	assert_memory_equal(val, seed, sizeof(seed));
}

static void test_h_never_exposed(void **state)
{
	struct fixture *fx = *state;
	const char *isa;

	build_ok(fx);
	for (unsigned int hart = 0; hart < NR_HARTS; hart++) {
		char path[32];
		int off;

		snprintf(path, sizeof(path), "/cpus/cpu@%u", hart);
		off = node(fx, path);
		assert_true(off >= 0);
		assert_true(fdt_stringlist_search(fx->buf, off,
						  "riscv,isa-extensions",
						  "h") < 0);
		assert_true(fdt_stringlist_search(fx->buf, off,
						  "riscv,isa-extensions",
						  "i") == 0);
		isa = str_prop(fx, path, "riscv,isa");
		assert_null(memchr(isa, 'h', strcspn(isa, "_")));
	}
}

static void test_cbo_sizes(void **state)
{
	struct fixture *fx = *state;
	static const char *const no_cbom[] = { "i", "zicboz", NULL };

	build_ok(fx);
	assert_int_equal(u32_prop(fx, "/cpus/cpu@0", "riscv,cbom-block-size"),
			 64);
	assert_int_equal(u32_prop(fx, "/cpus/cpu@0", "riscv,cboz-block-size"),
			 64);

	set_exts(fx->p.isa_ext, no_cbom);
	build_ok(fx);
	assert_false(has_prop(fx, "/cpus/cpu@0", "riscv,cbom-block-size"));
	assert_true(has_prop(fx, "/cpus/cpu@0", "riscv,cboz-block-size"));

	set_exts(fx->p.isa_ext, basic_exts);
	fx->p.cbom_block_size = fx->p.cboz_block_size = 0;
	build_ok(fx);
	assert_false(has_prop(fx, "/cpus/cpu@0", "riscv,cbom-block-size"));
	assert_false(has_prop(fx, "/cpus/cpu@0", "riscv,cboz-block-size"));
	assert_false(has_prop(fx, "/cpus/cpu@0", "riscv,cbop-block-size"));
}

/* Zicbop (a Linux 6.16+ host's) comes with its block size, or neither. */
static void test_cbop_size(void **state)
{
	struct fixture *fx = *state;
	static const char *const cbop[] = { "i", "zicbop", NULL };

	fx->p.cbop_block_size = 64;
	build_ok(fx);
	assert_false(has_prop(fx, "/cpus/cpu@0", "riscv,cbop-block-size"));
	set_exts(fx->p.isa_ext, cbop);
	build_ok(fx);
	assert_int_equal(u32_prop(fx, "/cpus/cpu@0", "riscv,cbop-block-size"),
			 64);
	assert_non_null(
		strstr(str_prop(fx, "/cpus/cpu@0", "riscv,isa"), "_zicbop"));
}

static void test_many_harts(void **state)
{
	struct fixture *fx = *state;
	char path[32];

	fx->cfg.nr_cpus = CONFIG_MAX_CPUS;
	fx->p.nr_devices = 1; /* the PLIC has only NR_HARTS contexts */
	fx->p.devices = &fx->devs[1];
	build_ok(fx);
	snprintf(path, sizeof(path), "/cpus/cpu@%x", CONFIG_MAX_CPUS - 1);
	assert_int_equal(u32_prop(fx, path, "reg"), CONFIG_MAX_CPUS - 1);
	assert_true(node(fx, "/soc/interrupt-controller@c000000") < 0);
}

/* --- sizes and errors -------------------------------------------------- */

static void test_enospc(void **state)
{
	struct fixture *fx = *state;
	uint32_t need;

	build_ok(fx);
	need = fdt_totalsize(fx->buf);
	assert_true(need > 1000 && need < FDT_MAX_SIZE);
	assert_int_equal(fdt_build(&fx->p, fx->buf, need - 1), -ENOSPC);
	assert_int_equal(fdt_build(&fx->p, fx->buf, 256), -ENOSPC);
	assert_int_equal(fdt_build(&fx->p, fx->buf, 0), -ENOSPC);
	assert_int_equal(fdt_build(&fx->p, fx->buf, need), 0);
	assert_int_equal(fdt_totalsize(fx->buf), need);
}

static int cb_open_node(void *opaque, void *fdt)
{
	(void)opaque;
	return fdt_begin_node(fdt, "broken@0");
}

static int cb_fail_nospace(void *opaque, void *fdt)
{
	(void)opaque;
	(void)fdt;
	return -FDT_ERR_NOSPACE;
}

static int cb_fail_badvalue(void *opaque, void *fdt)
{
	(void)opaque;
	(void)fdt;
	return -FDT_ERR_BADVALUE;
}

static void build_with_device(struct fixture *fx,
			      int (*cb)(void *opaque, void *fdt), int want)
{
	const struct mmio_ops ops = { .name = "test", .fdt = cb };
	const struct fdt_device dev = { &ops, NULL };

	fx->p.devices = &dev;
	fx->p.nr_devices = 1;
	assert_int_equal(fdt_build(&fx->p, fx->buf, sizeof(fx->buf)), want);
}

static void test_device_errors(void **state)
{
	struct fixture *fx = *state;

	build_with_device(fx, cb_open_node, -EINVAL);
	build_with_device(fx, cb_fail_nospace, -ENOSPC);
	build_with_device(fx, cb_fail_badvalue, -EINVAL);
	build_with_device(fx, NULL, 0); /* no node: fine */
	assert_true(node(fx, "/soc") >= 0);
}

static void test_einval(void **state)
{
	struct fixture *fx = *state;
	struct fdt_device nodev = { NULL, NULL };
	void *buf = fx->buf;
	size_t size = sizeof(fx->buf);

	assert_int_equal(fdt_build(NULL, buf, size), -EINVAL);
	assert_int_equal(fdt_build(&fx->p, NULL, size), -EINVAL);
	fx->cfg.nr_cpus = 0;
	assert_int_equal(fdt_build(&fx->p, buf, size), -EINVAL);
	fx->cfg.nr_cpus = CONFIG_MAX_CPUS + 1;
	assert_int_equal(fdt_build(&fx->p, buf, size), -EINVAL);
	fx->cfg.nr_cpus = 1;
	fx->p.initrd_end = fx->p.initrd_start;
	assert_int_equal(fdt_build(&fx->p, buf, size), -EINVAL);
	fx->p.initrd_start = 0;
	assert_int_equal(fdt_build(&fx->p, buf, size), 0);
	fx->p.rng_seed = NULL;
	assert_int_equal(fdt_build(&fx->p, buf, size), -EINVAL);
	fx->p.rng_seed_len = 0;
	fx->p.timebase_freq = 0;
	assert_int_equal(fdt_build(&fx->p, buf, size), -EINVAL);
	fx->p.timebase_freq = 1;
	fx->p.devices = &nodev;
	fx->p.nr_devices = 1;
	assert_int_equal(fdt_build(&fx->p, buf, size), -EINVAL);
	fx->p.devices = NULL;
	assert_int_equal(fdt_build(&fx->p, buf, size), -EINVAL);
	fx->p.nr_devices = 0;
	fx->cfg.ram_size = 0;
	assert_int_equal(fdt_build(&fx->p, buf, size), -EINVAL);
	fx->cfg.ram_size = SZ_1G;
	memset(fx->cfg.cmdline, 'x', sizeof(fx->cfg.cmdline));
	assert_int_equal(fdt_build(&fx->p, buf, size), -EINVAL);
	fx->cfg.cmdline[sizeof(fx->cfg.cmdline) - 1] = '\0';
	assert_int_equal(fdt_build(&fx->p, buf, size), 0);
}

/* --- ISA string -------------------------------------------------------- */

static void test_isa_string_basic(void **state)
{
	uint64_t bits[ISA_EXT_WORDS];
	char buf[FDT_ISA_STRING_MAX];
	size_t len;

	(void)state;
	set_exts(bits, basic_exts);
	len = fdt_isa_string(bits, buf, sizeof(buf));
	assert_int_equal(len, strlen(buf));
	assert_string_equal(buf, "rv64imafdc_zicbom_zicboz_zicntr_zicsr_"
				 "zifencei_zihpm_zbb_sstc_svinval");
}

static void test_isa_string_order(void **state)
{
	static const char *const exts[] = {
		"svinval",  "zvbb",  "v",   "ztso",  "zkt",	  "zba",
		"c",	    "zca",   "zfh", "zacas", "smstateen", "zbb",
		"zifencei", "zicsr", "a",   "sstc",  "ssaia",	  "d",
		"f",	    "m",     "h",   NULL,
	};
	uint64_t bits[ISA_EXT_WORDS];
	char buf[FDT_ISA_STRING_MAX];

	(void)state;
	set_exts(bits, exts); /* note: no "i", it is implied */
	fdt_isa_string(bits, buf, sizeof(buf));
	assert_string_equal(buf, "rv64imafdcv_zicsr_zifencei_zacas_zfh_zca_"
				 "zba_zbb_zkt_ztso_zvbb_smstateen_ssaia_"
				 "sstc_svinval");
}

static void test_isa_string_edges(void **state)
{
	uint64_t bits[ISA_EXT_WORDS] = { 0 };
	char buf[FDT_ISA_STRING_MAX];
	char small[8];
	size_t len;

	(void)state;
	assert_int_equal(fdt_isa_string(bits, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "rv64i");

	memset(bits, 0xff, sizeof(bits)); /* ids past the table too */
	len = fdt_isa_string(bits, buf, sizeof(buf));
	assert_true(len < sizeof(buf));
	assert_int_equal(len, strlen(buf));
	assert_true(!strncmp(buf, "rv64imafdcv_zicbom_", 19));
	assert_null(memchr(buf, 'h', strcspn(buf, "_")));
	assert_non_null(strstr(buf, "_zihintntl_zihintpause_"));
	assert_non_null(strstr(buf, "_svpbmt"));

	memset(small, '#', sizeof(small));
	assert_int_equal(fdt_isa_string(bits, small, sizeof(small)), len);
	assert_string_equal(small, "rv64ima");
	small[0] = '#';
	assert_int_equal(fdt_isa_string(bits, small, 0), len);
	assert_int_equal(small[0], '#');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_golden, setup, teardown),
		cmocka_unit_test_setup_teardown(test_basic_values, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_initrd, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_optional_omitted, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stdout_options, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rng_seed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_h_never_exposed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cbo_sizes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cbop_size, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_many_harts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_enospc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_einval, setup, teardown),
		cmocka_unit_test(test_isa_string_basic),
		cmocka_unit_test(test_isa_string_order),
		cmocka_unit_test(test_isa_string_edges),
	};

	return cmocka_run_group_tests_name("fdt", tests, NULL, NULL);
}
