// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <ctype.h>
#include <errno.h>
#include <cmocka.h>

#include "lib/opt.h"
#include "tests/unit/cli_shim.h"
#include "vmm/host/qsd.h"
#include "vmm/isa.h"
#include "lib/sizes.h"
#include "lib/log.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)
#define MAX_ARGS 32

/* One cli_parse() call: its result, the config and what it printed. */
struct res {
	int ret;
	struct vm_config cfg;
	char *out, *err;
	size_t out_len, err_len;
};

static const struct cli_host host_4cpu_1g = {
	.online_cpus = 4,
	.mem_bytes = GiB,
	.pid = 1234,
};

static struct res *parse_argv(const struct cli_host *host, int argc,
			      char **argv)
{
	struct res *r = test_calloc(1, sizeof(*r));
	FILE *out, *err;

	assert_non_null(r);
	out = open_memstream(&r->out, &r->out_len);
	err = open_memstream(&r->err, &r->err_len);
	assert_non_null(out);
	assert_non_null(err);
	/* Garbage first: cli_parse() must set every field it hands back. */
	memset(&r->cfg, 0xa5, sizeof(r->cfg));
	r->ret = cli_parse(argc, argv, host, &r->cfg, out, err);
	fclose(out);
	fclose(err);
	return r;
}

/* "lkvm" + the NULL-terminated arguments, on @host. */
static struct res *parse_on(const struct cli_host *host, const char *a, ...)
{
	char *argv[MAX_ARGS + 1] = { (char *)"lkvm" };
	int argc = 1;
	va_list ap;

	va_start(ap, a);
	for (const char *s = a; s; s = va_arg(ap, const char *)) {
		assert_true(argc < MAX_ARGS);
		argv[argc++] = (char *)s;
	}
	va_end(ap);
	return parse_argv(host, argc, argv);
}

#define parse(...) parse_on(&host_4cpu_1g, __VA_ARGS__, NULL)

static void res_free(struct res *r)
{
	free(r->out);
	free(r->err);
	test_free(r);
}

/* A usage error with exactly this message and nothing on out. */
static void expect_error(struct res *r, const char *msg)
{
	char line[600];

	snprintf(line, sizeof(line), "lkvm: error: %s\n", msg);
	assert_int_equal(r->ret, -EINVAL);
	assert_string_equal(r->err, line);
	assert_int_equal(r->out_len, 0);
	res_free(r);
}

/* Parsed fine for a run, nothing printed; the caller frees. */
static struct res *expect_run(struct res *r)
{
	assert_string_equal(r->err, "");
	assert_string_equal(r->out, "");
	assert_int_equal(r->ret, CLI_RUN);
	return r;
}

/* Parsed fine for a run, with a warning on err; the caller frees. */
static struct res *expect_run_warned(struct res *r)
{
	assert_int_equal(r->ret, CLI_RUN);
	assert_string_equal(r->out, "");
	assert_non_null(strstr(r->err, "lkvm: warning: "));
	return r;
}

/* --- opt_parse_size / opt_parse_u64 ------------------------------------ */

static void size_ok(const char *s, uint64_t want)
{
	uint64_t v = 0xdead;

	assert_int_equal(opt_parse_size(s, &v), 0);
	assert_int_equal(v, want);
}

static void size_bad(const char *s, int want)
{
	uint64_t v = 0xdead;

	assert_int_equal(opt_parse_size(s, &v), want);
	assert_int_equal(v, 0xdead);
}

static void test_size_suffixes(void **state)
{
	(void)state;
	size_ok("256", 256 * MiB);
	size_ok("0", 0);
	size_ok("1", MiB);
	size_ok("512K", 512 << 10);
	size_ok("512k", 512 << 10);
	size_ok("3M", 3 * MiB);
	size_ok("3m", 3 * MiB);
	size_ok("2G", 2 * GiB);
	size_ok("2g", 2 * GiB);
	size_ok("1T", 1ULL << 40);
	size_ok("1t", 1ULL << 40);
	size_ok("007", 7 * MiB);
	/* kvmtool's: B(ytes), P; and 0x hex. */
	size_ok("4096B", 4096);
	size_ok("4096b", 4096);
	size_ok("1P", 1ULL << 50);
	size_ok("1p", 1ULL << 50);
	size_ok("0x10", 16 * MiB);
	size_ok("0X10M", 16 * MiB);
	/* As with strtoull(), a B after 0x digits is one more digit. */
	size_ok("0x10B", 0x10bULL * MiB);
	size_ok("0x100000K", GiB);
	/* Decimal even with a leading 0, as kvmtool's -m: never octal. */
	size_ok("0400", 400 * MiB);
	size_ok("0512", 512 * MiB);
	size_ok("010G", 10 * GiB);
	size_ok("08", 8 * MiB);
	/* The largest value that fits: 2^44 - 1 MiB. */
	size_ok("17592186044415", 17592186044415ULL * MiB);
}

static void test_size_junk(void **state)
{
	(void)state;
	size_bad("", -EINVAL);
	size_bad("M", -EINVAL);
	size_bad("abc", -EINVAL);
	size_bad("12abc", -EINVAL);
	size_bad("1GB", -EINVAL);
	size_bad("1MiB", -EINVAL);
	size_bad("1.5G", -EINVAL);
	size_bad(" 1", -EINVAL);
	size_bad("1 ", -EINVAL);
	size_bad("-1", -EINVAL);
	size_bad("+1", -EINVAL);
	size_bad("0x", -EINVAL);
	size_bad("0x1Q", -EINVAL);
	size_bad("1Q", -EINVAL);
	size_bad("1GG", -EINVAL);
}

static void test_size_overflow(void **state)
{
	(void)state;
	size_bad("99999999999T", -ERANGE);
	size_bad("17592186044416", -ERANGE);	   /* 2^64 bytes */
	size_bad("16777216T", -ERANGE);		   /* 2^64 bytes */
	size_bad("18446744073709551616", -ERANGE); /* 2^64 MiB */
	size_bad("99999999999999999999999999K", -ERANGE);
	size_ok("16777215T", 16777215ULL << 40);
}

static void u64_ok(const char *s, uint64_t want)
{
	uint64_t v = 0xdead;

	assert_int_equal(opt_parse_u64(s, &v), 0);
	assert_int_equal(v, want);
}

static void u64_bad(const char *s, int want)
{
	uint64_t v = 0;

	assert_int_equal(opt_parse_u64(s, &v), want);
}

static void test_parse_u64(void **state)
{
	(void)state;
	u64_ok("0", 0);
	u64_ok("42", 42);
	u64_ok("010", 10); /* decimal, not octal */
	u64_ok("0x10", 16);
	u64_ok("0XfF", 255);
	u64_ok("18446744073709551615", UINT64_MAX);
	u64_ok("0xffffffffffffffff", UINT64_MAX);
	u64_bad("18446744073709551616", -ERANGE);
	u64_bad("0x10000000000000000", -ERANGE);
	u64_bad("", -EINVAL);
	u64_bad("0x", -EINVAL);
	u64_bad("x1", -EINVAL);
	u64_bad("-1", -EINVAL);
	u64_bad("+1", -EINVAL);
	u64_bad(" 1", -EINVAL);
	u64_bad("1 ", -EINVAL);
	u64_bad("0x-1", -EINVAL);
	u64_bad("0x0x1", -EINVAL);
	u64_bad("12z", -EINVAL);
}

/* --- -m and -c --------------------------------------------------------- */

static void mem_ok(const char *arg, uint64_t want)
{
	const struct cli_host big = { 4, 1ULL << 40, 1, "" };
	struct res *r =
		expect_run(parse_on(&big, "run", "-m", arg, "Image", NULL));

	assert_int_equal(r->cfg.ram_size, want);
	res_free(r);
}

static void test_mem_limits(void **state)
{
	(void)state;
	mem_ok("16", 16 * MiB);
	mem_ok("16384K", 16 * MiB);
	mem_ok("18", 18 * MiB);
	mem_ok("1g", GiB);
	assert_int_equal(CONFIG_RAM_MAX, 512 * GiB); /* --help says so */
	mem_ok("512G", 512 * GiB);
	mem_ok("524288", 512 * GiB);
	expect_error(parse("run", "-m", "14", "Image"),
		     "memory size '14' is below the minimum of 16 MiB");
	expect_error(parse("run", "-m", "0", "Image"),
		     "memory size '0' is below the minimum of 16 MiB");
	expect_error(parse("run", "-m", "0G", "Image"),
		     "memory size '0G' is below the minimum of 16 MiB");
	expect_error(parse("run", "-m", "524290", "Image"),
		     "memory size '524290' is above the maximum of 512 GiB");
	expect_error(parse("run", "-m", "1T", "Image"),
		     "memory size '1T' is above the maximum of 512 GiB");
	expect_error(
		parse("run", "-m", "99999999999T", "Image"),
		"memory size '99999999999T' is above the maximum of 512 GiB");
	expect_error(parse("run", "-m", "17", "Image"),
		     "memory size '17' is not a multiple of 2 MiB");
	expect_error(parse("run", "-m", "16385K", "Image"),
		     "memory size '16385K' is not a multiple of 2 MiB");
	expect_error(
		parse("run", "-m", "abc", "Image"),
		"invalid memory size 'abc' (expected SIZE[BKMGTP]; a bare number is MiB)");
	expect_error(
		parse("run", "--mem=256MB", "Image"),
		"invalid memory size '256MB' (expected SIZE[BKMGTP]; a bare number is MiB)");
	expect_error(
		parse("run", "-m", "", "Image"),
		"invalid memory size '' (expected SIZE[BKMGTP]; a bare number is MiB)");
}

static void test_mem_above_host_warns(void **state)
{
	struct res *r = parse("run", "-m", "2G", "Image");

	(void)state;
	assert_int_equal(r->ret, CLI_RUN);
	assert_int_equal(r->cfg.ram_size, 2 * GiB);
	assert_string_equal(
		r->err,
		"lkvm: warning: guest RAM 2048 MiB exceeds host RAM 1024 MiB\n");
	res_free(r);
}

static void cpus_ok(const char *arg, unsigned int want)
{
	struct res *r = expect_run(parse("run", "-c", arg, "Image"));

	assert_int_equal(r->cfg.nr_cpus, want);
	res_free(r);
}

static void test_cpus_bounds(void **state)
{
	(void)state;
	cpus_ok("1", 1);
	cpus_ok("32", CONFIG_MAX_CPUS);
	cpus_ok("0x8", 8);
	expect_error(parse("run", "-c", "0", "Image"),
		     "invalid number of CPUs '0' (expected 1..32)");
	expect_error(parse("run", "-c", "33", "Image"),
		     "invalid number of CPUs '33' (expected 1..32)");
	expect_error(parse("run", "--cpus=-1", "Image"),
		     "invalid number of CPUs '-1' (expected 1..32)");
	expect_error(parse("run", "-c", "two", "Image"),
		     "invalid number of CPUs 'two' (expected 1..32)");
	expect_error(parse("run", "-c", "4294967297", "Image"),
		     "invalid number of CPUs '4294967297' (expected 1..32)");
}

/* --- defaults ---------------------------------------------------------- */

static void cmdline_is(struct res *r, const char *want);

/* No -k, and nothing where kvmtool looks (the test host has no release). */
#define NO_KERNEL                                                        \
	"no kernel given (-k FILE), and none found where kvmtool looks " \
	"(./bzImage, arch/riscv/boot/bzImage, /boot/vmlinuz-RELEASE, ...)"

/* What a run with nothing else to boot adds: kvmtool's default 9p root. */
#define DEFAULT_ROOT                                                        \
	" root=/dev/root rw rootflags=trans=virtio,version=9p2000.L,cache=" \
	"loose rootfstype=9p init=/virt/init ip=dhcp"

static void test_defaults(void **state)
{
	struct res *r;
	const struct vm_config *c;

	(void)state;
	setenv("HOME", "/home/u", 1);
	r = expect_run(parse("run", "Image"));
	c = &r->cfg;
	assert_string_equal(c->kernel, "Image");
	assert_int_equal(c->nr_initrds, 0);
	assert_false(c->no_reboot);
	assert_int_equal(c->timeout_s, 0);
	assert_null(c->console_log);
	assert_null(c->params);
	assert_null(c->dump_dtb);
	assert_null(c->hugetlbfs);
	assert_int_equal(c->nr_cpus, 4);
	assert_int_equal(c->ram_size, 448 * MiB); /* 64M * (4 + 3) */
	assert_string_equal(c->name, "guest-1234");
	assert_string_equal(c->dev, "/dev/kvm");
	assert_int_equal(c->console, CONSOLE_SERIAL);
	assert_int_equal(c->irqchip, IRQCHIP_AUTO);
	assert_int_equal(c->loglevel, LOG_INFO);
	assert_false(c->debug);
	assert_false(c->nodefaults);
	assert_int_equal(c->disable_isa[0], 0);
	assert_int_equal(c->disable_sbi, 0);
	assert_false(c->set_mvendorid);
	assert_false(c->set_marchid);
	assert_false(c->set_mimpid);
	/* Nothing to boot but the kernel: ~/.lkvm/default, as kvmtool. */
	assert_string_equal(c->cmdline,
			    "console=ttyS0 earlycon=sbi" DEFAULT_ROOT);
	assert_true(c->rootfs_9p);
	assert_true(c->custom_rootfs);
	assert_string_equal(c->rootfs_name, "default");
	assert_int_equal(c->nr_shares, 2);
	assert_string_equal(c->shares[0].path, "/home/u/.lkvm/default");
	assert_string_equal(c->shares[0].tag, "/dev/root");
	assert_string_equal(c->shares[1].path, "/");
	assert_true(c->shares[1].ro);
	res_free(r);
}

/* A run with the kernel the search found, named on stderr. */
static struct res *expect_found(struct res *r, const char *kernel)
{
	char line[256];

	snprintf(line, sizeof(line), "lkvm: no -k given: booting %s\n", kernel);
	assert_int_equal(r->ret, CLI_RUN);
	assert_string_equal(r->out, "");
	assert_string_equal(r->err, line);
	assert_string_equal(r->cfg.kernel, kernel);
	return r;
}

/* No -k: kvmtool's search, in its order, from the working directory. */
static void test_find_kernel(void **state)
{
	char dir[] = "/tmp/rvkvm-cli-kernel-XXXXXX", cwd[4096];
	struct res *r;
	FILE *f;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chdir(dir), 0);
	expect_error(parse("run", "-i", "initrd"), NO_KERNEL);
	assert_int_equal(system("mkdir -p arch/riscv/boot/bzImage.d && "
				"chmod -R go-w arch && "
				"touch arch/riscv/boot/bzImage"),
			 0);
	r = expect_found(parse("run", "-i", "initrd"),
			 "arch/riscv/boot/bzImage");
	res_free(r);
	/* ./bzImage comes first; a directory of that name is no kernel. */
	assert_int_equal(mkdir("bzImage", 0755), 0);
	r = expect_found(parse("run", "-i", "initrd"),
			 "arch/riscv/boot/bzImage");
	res_free(r);
	assert_int_equal(rmdir("bzImage"), 0);
	f = fopen("bzImage", "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(chmod("bzImage", 0644), 0);
	r = expect_found(parse("run", "-i", "initrd"), "./bzImage");
	res_free(r);
	/*
	 * What another user could have put there is not booted: a file
	 * writable by others, a directory on the way writable by the group.
	 */
	assert_int_equal(chmod("bzImage", 0666), 0);
	r = expect_run_warned(parse("run", "-i", "initrd"));
	assert_non_null(strstr(r->err, "not booting ./bzImage: another user"));
	assert_string_equal(r->cfg.kernel, "arch/riscv/boot/bzImage");
	res_free(r);
	assert_int_equal(chmod("arch/riscv", 0775), 0);
	r = parse("run", "-i", "initrd");
	assert_int_equal(r->ret, -EINVAL);
	assert_non_null(strstr(r->err, "not booting arch/riscv/boot/bzImage"));
	assert_non_null(strstr(r->err, "lkvm: error: no kernel given"));
	res_free(r);
	/* -k wins over the search. */
	r = expect_run(parse("run", "-i", "initrd", "-k", "Image"));
	assert_string_equal(r->cfg.kernel, "Image");
	res_free(r);
	assert_int_equal(chdir(cwd), 0);
	snprintf(cwd, sizeof(cwd), "rm -rf '%s'", dir);
	assert_int_equal(system(cwd), 0);
}

/* When a run boots the default root, and when what it was given wins. */
static void test_default_root(void **state)
{
	struct res *r;

	(void)state;
	setenv("HOME", "/home/u", 1);
	cmdline_is(parse("run", "-i", "initrd", "Image"),
		   "console=ttyS0 earlycon=sbi");
	cmdline_is(parse("run", "-d", "disk.img", "Image"),
		   "console=ttyS0 earlycon=sbi root=/dev/vda rw");
	cmdline_is(parse("run", "-p", "root=/dev/nfs", "Image"),
		   "console=ttyS0 earlycon=sbi root=/dev/nfs");
	cmdline_is(parse("run", "--nodefaults", "Image"), "");
	r = expect_run(parse("run", "--firmware", "fw.bin"));
	assert_false(r->cfg.rootfs_9p);
	assert_int_equal(r->cfg.nr_shares, 0);
	res_free(r);
	/* A --9p share of the user's comes first; the root's follow. */
	r = expect_run(
		parse("run", "--9p", "/srv/a,share", "-p", "quiet", "Image"));
	assert_string_equal(r->cfg.cmdline,
			    "console=ttyS0 earlycon=sbi" DEFAULT_ROOT " quiet");
	assert_int_equal(r->cfg.nr_shares, 3);
	assert_string_equal(r->cfg.shares[0].tag, "share");
	assert_string_equal(r->cfg.shares[1].tag, "/dev/root");
	assert_string_equal(r->cfg.shares[2].tag, "hostfs");
	res_free(r);
	/*
	 * Where the root cannot be had, one warning and the kernel alone:
	 * no HOME; three --9p shares (4 at most, the root needs 2); a share
	 * with one of its tags.
	 */
	unsetenv("HOME");
	r = expect_run_warned(parse("run", "Image"));
	assert_string_equal(r->cfg.cmdline, "console=ttyS0 earlycon=sbi");
	assert_false(r->cfg.rootfs_9p);
	assert_string_equal(
		r->err,
		"lkvm: warning: not booting ~/.lkvm/default (HOME is not set): the kernel alone boots\n");
	res_free(r);
	setenv("HOME", "/home/u", 1);
	r = expect_run_warned(parse("run", "--9p", "/a,1", "--9p", "/a,2",
				    "--9p", "/a,3", "Image"));
	assert_int_equal(r->cfg.nr_shares, 3);
	assert_false(r->cfg.rootfs_9p);
	assert_non_null(strstr(r->err, "do not fit beside the --9p ones"));
	res_free(r);
	r = expect_run_warned(parse("run", "--9p", "/a,hostfs", "Image"));
	assert_int_equal(r->cfg.nr_shares, 1);
	assert_string_equal(r->cfg.cmdline, "console=ttyS0 earlycon=sbi");
	assert_non_null(strstr(r->err, "has one of its tags"));
	res_free(r);
	/* A sandbox has no kernel-alone fallback: it needs its root. */
	unsetenv("HOME");
	expect_error(parse("sandbox", "-k", "Image", "--", "true"),
		     "no home directory for ~/.lkvm (set HOME)");
	setenv("HOME", "/home/u", 1);
}

static void test_defaults_host_caps(void **state)
{
	const struct cli_host big = { 64, GiB, 7, "" };
	const struct cli_host small = { 4, 256 * MiB, 7, "" };
	const struct cli_host unknown = { 0, 0, -1, "" };
	struct res *r;

	(void)state;
	/* 32 vCPUs want 2240M; 80% of 1G rounded down to 2M is 818M. */
	r = expect_run(parse_on(&big, "run", "Image", NULL));
	assert_int_equal(r->cfg.nr_cpus, CONFIG_MAX_CPUS);
	assert_int_equal(r->cfg.ram_size, 818 * MiB);
	assert_string_equal(r->cfg.name, "guest-7");
	res_free(r);

	/* 448M wanted, 80% of 256M = 204.8M -> 204M. */
	r = expect_run(parse_on(&small, "run", "Image", NULL));
	assert_int_equal(r->cfg.ram_size, 204 * MiB);
	res_free(r);

	/* Unknown host: 1 vCPU and an uncapped 256M. */
	r = expect_run(parse_on(&unknown, "run", "Image", NULL));
	assert_int_equal(r->cfg.nr_cpus, 1);
	assert_int_equal(r->cfg.ram_size, 256 * MiB);
	assert_string_equal(r->cfg.name, "guest--1");
	res_free(r);

	/* -c moves the default memory. */
	r = expect_run(parse("run", "-c", "1", "Image"));
	assert_int_equal(r->cfg.ram_size, 256 * MiB);
	res_free(r);
}

static void test_default_mem(void **state)
{
	(void)state;
	assert_int_equal(cli_default_mem(4, GiB), 448 * MiB);
	assert_int_equal(cli_default_mem(1, 0), 256 * MiB);
	assert_int_equal(cli_default_mem(32, 0), 2240 * MiB);
	assert_int_equal(cli_default_mem(4, 256 * MiB), 204 * MiB);
	/* Never below the 16M minimum, even on a tiny host. */
	assert_int_equal(cli_default_mem(4, 10 * MiB), 16 * MiB);
	/* 80% of 3M is 2.4M -> 2M, then the minimum. */
	assert_int_equal(cli_default_mem(1, 3 * MiB), 16 * MiB);
	/* Exactly at the cap: 80% of 560M = 448M. */
	assert_int_equal(cli_default_mem(4, 560 * MiB), 448 * MiB);
	assert_int_equal(cli_default_mem(UINT32_MAX, 0), CONFIG_RAM_MAX);
}

static void test_host_probe(void **state)
{
	struct cli_host h = { 0, 0, 0, "" };

	(void)state;
	cli_host_probe(&h);
	assert_true(h.online_cpus >= 1);
	assert_true(h.mem_bytes >= 16 * MiB);
	assert_int_equal(h.pid, getpid());
}

/* --- the kernel command line ------------------------------------------- */

static void cmdline_is(struct res *r, const char *want)
{
	expect_run(r);
	assert_string_equal(r->cfg.cmdline, want);
	res_free(r);
}

static void test_cmdline(void **state)
{
	(void)state;
	cmdline_is(parse("run", "-p", "root=/dev/vda rw", "Image"),
		   "console=ttyS0 earlycon=sbi root=/dev/vda rw");
	cmdline_is(parse("run", "--console", "hv", "-p", "quiet", "Image"),
		   "console=hvc0 earlycon=sbi" DEFAULT_ROOT " quiet");
	cmdline_is(parse("run", "--console=hv", "Image"),
		   "console=hvc0 earlycon=sbi" DEFAULT_ROOT);
	cmdline_is(parse("run", "--console=serial", "Image"),
		   "console=ttyS0 earlycon=sbi" DEFAULT_ROOT);
	cmdline_is(parse("run", "--nodefaults", "-p", "quiet", "Image"),
		   "quiet");
	cmdline_is(parse("run", "--nodefaults", "--console=hv", "Image"), "");
	cmdline_is(parse("run", "-p", "", "Image"),
		   "console=ttyS0 earlycon=sbi" DEFAULT_ROOT);
	cmdline_is(parse("run", "-p", "a", "-p", "b", "Image"),
		   "console=ttyS0 earlycon=sbi" DEFAULT_ROOT " b");
	/* An earlycon of the user's, or DBCN hidden: no earlycon=sbi. */
	cmdline_is(parse("run", "-i", "initrd", "-p",
			 "earlycon=uart8250,mmio,0x10000000", "Image"),
		   "console=ttyS0 earlycon=uart8250,mmio,0x10000000");
	cmdline_is(parse("run", "-i", "initrd", "--disable-sbi-dbcn", "Image"),
		   "console=ttyS0");
	cmdline_is(parse("run", "-i", "initrd", "--console", "hv",
			 "--disable-sbi-dbcn", "Image"),
		   "console=hvc0");
}

static void test_cmdline_too_long(void **state)
{
	size_t fits =
		CONFIG_CMDLINE_MAX - 1 - strlen("console=ttyS0 earlycon=sbi ");
	char *p = test_malloc(CONFIG_CMDLINE_MAX + 1);
	struct res *r;

	(void)state;
	memset(p, 'x', fits);
	p[fits] = '\0';
	r = expect_run(parse("run", "-i", "initrd", "-p", p, "Image"));
	assert_int_equal(strlen(r->cfg.cmdline), CONFIG_CMDLINE_MAX - 1);
	res_free(r);

	p[fits] = 'x';
	p[fits + 1] = '\0';
	r = parse("run", "-i", "initrd", "-p", p, "Image");
	assert_string_equal(r->cfg.cmdline, "");
	expect_error(r,
		     "kernel command line is too long (more than 4095 bytes)");

	/* Without the default, all of it is ours. */
	memset(p, 'y', CONFIG_CMDLINE_MAX - 1);
	p[CONFIG_CMDLINE_MAX - 1] = '\0';
	r = expect_run(parse("run", "--nodefaults", "-p", p, "Image"));
	assert_string_equal(r->cfg.cmdline, p);
	res_free(r);
	p[CONFIG_CMDLINE_MAX - 1] = 'y';
	p[CONFIG_CMDLINE_MAX] = '\0';
	expect_error(parse("run", "--nodefaults", "-p", p, "Image"),
		     "kernel command line is too long (more than 4095 bytes)");
	test_free(p);
}

/* --- option syntax ----------------------------------------------------- */

static void test_option_forms(void **state)
{
	struct res *r;

	(void)state;
	r = expect_run(parse("run", "--mem=256", "--cpus=2", "--kernel=K",
			     "--name=vm", "--params=a=b c", "--initrd=I",
			     "--dump-dtb=D", "--dev=/dev/x", "--hugetlbfs=/h"));
	assert_int_equal(r->cfg.ram_size, 256 * MiB);
	assert_int_equal(r->cfg.nr_cpus, 2);
	assert_string_equal(r->cfg.kernel, "K");
	assert_string_equal(r->cfg.name, "vm");
	assert_string_equal(r->cfg.params, "a=b c");
	assert_int_equal(r->cfg.nr_initrds, 1);
	assert_string_equal(r->cfg.initrds[0], "I");
	assert_string_equal(r->cfg.dump_dtb, "D");
	assert_string_equal(r->cfg.dev, "/dev/x");
	assert_string_equal(r->cfg.hugetlbfs, "/h");
	assert_string_equal(r->cfg.cmdline, "console=ttyS0 earlycon=sbi a=b c");
	res_free(r);

	r = expect_run(parse("run", "-m256", "-c2", "-kK", "-iI", "-px"));
	assert_int_equal(r->cfg.ram_size, 256 * MiB);
	assert_int_equal(r->cfg.nr_cpus, 2);
	assert_string_equal(r->cfg.kernel, "K");
	assert_string_equal(r->cfg.initrds[0], "I");
	assert_string_equal(r->cfg.params, "x");
	res_free(r);

	r = expect_run(parse("run", "-m", "256", "-c", "2", "-k", "K", "-i",
			     "I", "-p", "-x", "--name", "--vm"));
	assert_int_equal(r->cfg.ram_size, 256 * MiB);
	assert_string_equal(r->cfg.params, "-x"); /* taken as is */
	assert_string_equal(r->cfg.name, "--vm");
	res_free(r);
}

static void test_last_wins(void **state)
{
	struct res *r;

	(void)state;
	r = expect_run(parse("run", "-m", "256", "--mem=512", "-c", "1", "-c3",
			     "--name", "a", "--name=b", "--console", "hv",
			     "--console", "serial", "-k", "A", "-kB",
			     "--loglevel", "error", "--loglevel=info"));
	assert_int_equal(r->cfg.ram_size, 512 * MiB);
	assert_int_equal(r->cfg.nr_cpus, 3);
	assert_string_equal(r->cfg.name, "b");
	assert_int_equal(r->cfg.console, CONSOLE_SERIAL);
	assert_string_equal(r->cfg.kernel, "B");
	assert_int_equal(r->cfg.loglevel, LOG_INFO);
	res_free(r);
}

/* --no-reboot, --timeout, --console-log; -i adds one more each time. */
static void test_boot_test_options(void **state)
{
	static const char *const bad_gdb[] = { "1234", "tcp:65536",
					       "unix:", "tcp:", "udp:1" };
	struct res *r;

	(void)state;
	r = expect_run(parse("run", "--no-reboot", "--timeout", "120",
			     "--console-log=/tmp/c.log", "-i", "a.cpio", "-ib",
			     "--initrd=c", "Image"));
	assert_true(r->cfg.no_reboot);
	assert_int_equal(r->cfg.timeout_s, 120);
	assert_string_equal(r->cfg.console_log, "/tmp/c.log");
	assert_int_equal(r->cfg.nr_initrds, 3);
	assert_string_equal(r->cfg.initrds[0], "a.cpio");
	assert_string_equal(r->cfg.initrds[1], "b");
	assert_string_equal(r->cfg.initrds[2], "c");
	res_free(r);

	r = expect_run(
		parse("run", "--timeout=0", "--timeout=604800", "Image"));
	assert_int_equal(r->cfg.timeout_s, 604800);
	res_free(r);
	expect_error(parse("run", "--timeout", "604801", "Image"),
		     "invalid --timeout '604801' (expected 0..604800 seconds)");
	expect_error(parse("run", "--timeout", "-1", "Image"),
		     "invalid --timeout '-1' (expected 0..604800 seconds)");
	expect_error(parse("run", "--timeout", "2m", "Image"),
		     "invalid --timeout '2m' (expected 0..604800 seconds)");
	/* --suspend-seconds: the same range; 0 resumes at once. */
	r = expect_run(parse("run", "Image"));
	assert_false(r->cfg.set_suspend_seconds);
	res_free(r);
	r = expect_run(parse("run", "--suspend-seconds", "0", "Image"));
	assert_true(r->cfg.set_suspend_seconds);
	assert_int_equal(r->cfg.suspend_seconds, 0);
	res_free(r);
	r = expect_run(parse("run", "--suspend-seconds=604800", "Image"));
	assert_int_equal(r->cfg.suspend_seconds, 604800);
	res_free(r);
	expect_error(
		parse("run", "--suspend-seconds", "604801", "Image"),
		"invalid --suspend-seconds '604801' (expected 0..604800 seconds)");
	expect_error(
		parse("run", "--suspend-seconds", "-5", "Image"),
		"invalid --suspend-seconds '-5' (expected 0..604800 seconds)");
	/* --debug-iodelay: milliseconds, to 10 s. */
	r = expect_run(parse("run", "--debug-iodelay", "10000", "Image"));
	assert_int_equal(r->cfg.debug_iodelay_ms, 10000);
	res_free(r);
	expect_error(parse("run", "--debug-iodelay", "10001", "Image"),
		     "invalid --debug-iodelay '10001' (expected 0..10000 ms)");
	expect_error(parse("run", "--console-log=", "Image"),
		     "option '--console-log' requires a non-empty argument");
	expect_error(parse("run", "-i", "", "Image"),
		     "option '-i' requires a non-empty argument");
	expect_error(parse("run", "-i1", "-i2", "-i3", "-i4", "-i5", "-i6",
			   "-i7", "-i8", "-i9", "Image"),
		     "too many initrds (at most 8 -i)");
	/* --gdb: the form is checked at once, the address when bound. */
	r = expect_run(parse("run", "--gdb", "tcp::1234", "Image"));
	assert_string_equal(r->cfg.gdb, "tcp::1234");
	res_free(r);
	res_free(expect_run(parse("run", "--gdb=tcp:0.0.0.0:1", "Image")));
	res_free(expect_run(parse("run", "--gdb", "unix:/tmp/g", "Image")));
	for (size_t i = 0; i < sizeof(bad_gdb) / sizeof(*bad_gdb); i++) {
		char msg[128];

		snprintf(
			msg, sizeof(msg),
			"invalid --gdb '%s' (expected tcp:PORT, tcp:HOST:PORT or unix:PATH)",
			bad_gdb[i]);
		expect_error(parse("run", "--gdb", bad_gdb[i], "Image"), msg);
	}
	/* --firmware boots no kernel: every initrd is ignored. */
	r = expect_run_warned(parse("run", "-f", "fw", "-i", "a", "-i", "b"));
	assert_int_equal(r->cfg.nr_initrds, 0);
	res_free(r);
}

static void test_positional_kernel(void **state)
{
	struct res *r;

	(void)state;
	r = expect_run(parse("run", "-m", "256", "Image", "-c", "2"));
	assert_string_equal(r->cfg.kernel, "Image");
	assert_int_equal(r->cfg.nr_cpus, 2);
	res_free(r);

	r = expect_run(parse("run", "A", "-k", "B"));
	assert_string_equal(r->cfg.kernel, "B");
	res_free(r);

	r = expect_run(parse("run", "-c", "1", "--", "-Image"));
	assert_string_equal(r->cfg.kernel, "-Image");
	res_free(r);

	r = expect_run(parse("run", "-"));
	assert_string_equal(r->cfg.kernel, "-");
	res_free(r);

	expect_error(parse("run", "A", "B"),
		     "unexpected argument 'B' (the kernel is already 'A')");
	expect_error(parse("run", "-k", "A", "B"),
		     "unexpected argument 'B' (the kernel is already 'A')");
	expect_error(parse("run", "--", "A", "--"),
		     "unexpected argument '--' (the kernel is already 'A')");
	expect_error(parse("run", ""), "empty kernel file name");
	expect_error(parse("run", "-m", "256"), NO_KERNEL);
	expect_error(parse("run"), NO_KERNEL);
	expect_error(parse("run", "--kernel="),
		     "option '--kernel' requires a non-empty argument");
	expect_error(parse("run", "-k", "", "Image"),
		     "option '-k' requires a non-empty argument");
	expect_error(parse("run", "--name", "", "Image"),
		     "option '--name' requires a non-empty argument");
}

static void test_unknown_option(void **state)
{
	(void)state;
	expect_error(parse("run", "--foo", "Image"),
		     "unknown option '--foo' (see 'lkvm run --help')");
	expect_error(parse("run", "Image", "--foo=bar"),
		     "unknown option '--foo' (see 'lkvm run --help')");
	expect_error(parse("run", "-x", "Image"),
		     "unknown option '-x' (see 'lkvm run --help')");
	expect_error(parse("run", "-hx"),
		     "unknown option '-hx' (see 'lkvm run --help')");
	expect_error(parse("run", "--"), NO_KERNEL);
	expect_error(parse("run", "---mem", "256"),
		     "unknown option '---mem' (see 'lkvm run --help')");
	expect_error(parse("run", "--me", "256"), /* no abbreviations */
		     "unknown option '--me' (see 'lkvm run --help')");
	expect_error(parse("run", "--=x"),
		     "unknown option '--' (see 'lkvm run --help')");
	/* Control characters do not break the one line. */
	expect_error(parse("run", "--fo\no"),
		     "unknown option '--fo?o' (see 'lkvm run --help')");
	/* Parsing stops at the first error. */
	expect_error(parse("run", "--foo", "--help"),
		     "unknown option '--foo' (see 'lkvm run --help')");
}

static void test_missing_argument(void **state)
{
	(void)state;
	expect_error(parse("run", "Image", "-m"),
		     "option '-m' requires an argument (SIZE)");
	expect_error(parse("run", "Image", "--mem"),
		     "option '--mem' requires an argument (SIZE)");
	expect_error(parse("run", "--kernel"),
		     "option '--kernel' requires an argument (FILE)");
	expect_error(parse("run", "Image", "--name"),
		     "option '--name' requires an argument (NAME)");
	expect_error(parse("run", "Image", "-c"),
		     "option '-c' requires an argument (N)");
	expect_error(parse("run", "Image", "--custom-marchid"),
		     "option '--custom-marchid' requires an argument (N)");
	expect_error(parse("run", "Image", "--nodefaults=1"),
		     "option '--nodefaults' takes no argument");
	expect_error(parse("run", "Image", "--debug="),
		     "option '--debug' takes no argument");
	expect_error(parse("run", "Image", "--disable-sstc=1"),
		     "option '--disable-sstc' takes no argument");
}

/* --io-poll USEC: -1 (automatic) unless given, 0..100000. */
static void test_io_poll(void **state)
{
	struct res *r;

	(void)state;
	r = expect_run(parse("run", "Image"));
	assert_int_equal(r->cfg.io_poll_us, -1);
	res_free(r);
	r = expect_run(parse("run", "--io-poll", "0", "Image"));
	assert_int_equal(r->cfg.io_poll_us, 0);
	res_free(r);
	r = expect_run(parse("run", "--io-poll=250", "Image"));
	assert_int_equal(r->cfg.io_poll_us, 250);
	res_free(r);
	expect_error(parse("run", "--io-poll", "100001", "Image"),
		     "invalid --io-poll '100001' (expected 0..100000 us)");
	expect_error(parse("run", "--io-poll", "-1", "Image"),
		     "invalid --io-poll '-1' (expected 0..100000 us)");
	expect_error(parse("run", "--io-poll", "1ms", "Image"),
		     "invalid --io-poll '1ms' (expected 0..100000 us)");
}

/* --io-notify auto|iothread|vcpu: auto unless given. */
static void test_io_notify(void **state)
{
	static const struct {
		const char *arg; /* NULL: the option not given */
		enum io_notify want;
	} cases[] = {
		{ NULL, IO_NOTIFY_AUTO },
		{ "--io-notify=vcpu", IO_NOTIFY_VCPU },
		{ "--io-notify=iothread", IO_NOTIFY_IOTHREAD },
		{ "--io-notify=auto", IO_NOTIFY_AUTO },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct res *r = expect_run(
			cases[i].arg ? parse("run", cases[i].arg, "Image") :
				       parse("run", "Image"));

		assert_int_equal(r->cfg.io_notify, cases[i].want);
		res_free(r);
	}
	expect_error(
		parse("run", "--io-notify", "thread", "Image"),
		"invalid --io-notify 'thread' (expected auto, iothread or vcpu)");
}

/* --9p dir[,tag]; -d DIR as the root over 9p. */
static void test_9p(void **state)
{
	char dir[] = "/tmp/rvkvm-cli-9p-XXXXXX";
	struct res *r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	r = expect_run(parse("run", "-i", "initrd", "--9p", "/srv/a,share",
			     "--9p=/srv/b", "Image"));
	assert_int_equal(r->cfg.nr_shares, 2);
	assert_string_equal(r->cfg.shares[0].path, "/srv/a");
	assert_string_equal(r->cfg.shares[0].tag, "share");
	assert_string_equal(r->cfg.shares[1].path, "/srv/b");
	assert_string_equal(r->cfg.shares[1].tag, "kvm_9p");
	assert_false(r->cfg.rootfs_9p);
	res_free(r);
	expect_error(parse("run", "--9p", ",t", "Image"),
		     "invalid 9p directory ''");
	expect_error(parse("run", "--9p", "/a,", "Image"),
		     "invalid 9p tag '' (1..64 bytes)");
	expect_error(parse("run", "--9p", "/a,t", "--9p", "/b,t", "Image"),
		     "9p tag 't' is used twice");
	expect_error(parse("run", "--9p", "/a,1", "--9p", "/a,2", "--9p",
			   "/a,3", "--9p", "/a,4", "--9p", "/a,5", "Image"),
		     "too many 9p shares (at most 4)");
	/* -d DIR: kvmtool's root over 9p */
	r = expect_run(parse("run", "-d", dir, "Image"));
	assert_int_equal(r->cfg.nr_disks, 0);
	assert_true(r->cfg.rootfs_9p);
	assert_false(r->cfg.custom_rootfs);
	assert_string_equal(r->cfg.shares[0].tag, "/dev/root");
	assert_string_equal(
		r->cfg.cmdline,
		"console=ttyS0 earlycon=sbi root=/dev/root rw rootflags=trans=virtio,version=9p2000.L,cache=loose rootfstype=9p");
	res_free(r);
	expect_error(parse("run", "-d", dir, "-d", dir, "Image"),
		     "only one root directory (-d DIR) is allowed");
	rmdir(dir);
}

/* --fs DIR,TAG[,ro]: up to CONFIG_MAX_FS, tags of 1..36 bytes, once each. */
static void test_fs(void **state)
{
	struct res *r;

	(void)state;
	r = expect_run(parse("run", "--fs", "/srv/a,share", "--fs=/srv/b,t2,ro",
			     "Image"));
	assert_int_equal(r->cfg.nr_fs, 2);
	assert_string_equal(r->cfg.fs[0].path, "/srv/a");
	assert_string_equal(r->cfg.fs[0].tag, "share");
	assert_false(r->cfg.fs[0].ro);
	assert_string_equal(r->cfg.fs[1].path, "/srv/b");
	assert_string_equal(r->cfg.fs[1].tag, "t2");
	assert_true(r->cfg.fs[1].ro);
	res_free(r);
	r = expect_run(parse("run", "--fs",
			     "/d,abcdefghijklmnopqrstuvwxyz0123456789",
			     "Image"));
	assert_string_equal(r->cfg.fs[0].tag,
			    "abcdefghijklmnopqrstuvwxyz0123456789");
	res_free(r);
	expect_error(parse("run", "--fs", "/srv/a", "Image"),
		     "--fs '/srv/a': expected DIR,TAG[,ro]");
	expect_error(parse("run", "--fs", ",t", "Image"),
		     "invalid --fs directory ''");
	expect_error(parse("run", "--fs", "/a,", "Image"),
		     "invalid --fs tag '' (1..36 bytes, no spaces)");
	expect_error(
		parse("run", "--fs", "/d,abcdefghijklmnopqrstuvwxyz0123456789x",
		      "Image"),
		"invalid --fs tag 'abcdefghijklmnopqrstuvwxyz0123456789x' (1..36 bytes, no spaces)");
	expect_error(parse("run", "--fs", "/a,a b", "Image"),
		     "invalid --fs tag 'a b' (1..36 bytes, no spaces)");
	expect_error(parse("run", "--fs", "/a,t,rw", "Image"),
		     "unknown --fs option 'rw' in '/a,t,rw' (expected ro)");
	expect_error(parse("run", "--fs", "/a,t", "--fs", "/b,t", "Image"),
		     "--fs tag 't' is used twice");
	expect_error(parse("run", "--fs", "/a,1", "--fs", "/a,2", "--fs",
			   "/a,3", "Image"),
		     "too many --fs directories (at most 2)");
	/* virtiofsd could shrink a hugetlbfs file under lkvm's RAM. */
	expect_error(parse("run", "--fs", "/a,t", "--hugetlbfs", "/h", "Image"),
		     "--hugetlbfs cannot be combined with --fs");
}

/* Names that are not setup roots: "" is not ~/.lkvm, "-x" is an option. */
static void test_bad_root_names(void **state)
{
	char home[] = "/tmp/rvkvm-cli-home-XXXXXX", lkvm[64];

	(void)state;
	assert_non_null(mkdtemp(home));
	snprintf(lkvm, sizeof(lkvm), "%s/.lkvm", home);
	assert_int_equal(mkdir(lkvm, 0700), 0);
	setenv("HOME", home, 1);
	expect_error(parse("run", "-d", "", "Image"), "invalid --disk ''");
	expect_error(
		parse("setup", "--help"),
		"usage: lkvm setup NAME (a name for ~/.lkvm/NAME, no '/')");
	expect_error(
		parse("setup", "-x"),
		"usage: lkvm setup NAME (a name for ~/.lkvm/NAME, no '/')");
	setenv("HOME", "/home/u", 1);
	rmdir(lkvm);
	rmdir(home);
}

/* lkvm sandbox [options] [--] COMMAND [ARGS]; lkvm setup NAME. */
static void test_sandbox(void **state)
{
	char *argv[] = { "lkvm", "sandbox", "-k",     "Image", "--",
			 "sh",	 "-c",	    "exit 7", NULL };
	char *argv2[] = {
		"lkvm", "sandbox", "-k", "Image", "uname", "-r", NULL
	};
	struct res *r;

	(void)state;
	setenv("HOME", "/home/u", 1);
	r = parse_argv(&host_4cpu_1g, 8, argv);
	assert_int_equal(r->ret, CLI_RUN);
	assert_true(r->cfg.sandbox);
	assert_ptr_equal(r->cfg.sandbox_argv, argv + 5);
	assert_true(r->cfg.custom_rootfs);
	assert_string_equal(r->cfg.rootfs_name, "default");
	assert_int_equal(r->cfg.nr_shares, 2);
	assert_string_equal(r->cfg.shares[0].path, "/home/u/.lkvm/default");
	assert_string_equal(r->cfg.shares[1].path, "/");
	assert_string_equal(r->cfg.shares[1].tag, "hostfs");
	assert_true(r->cfg.shares[1].ro);
	assert_false(r->cfg.shares[0].ro);
	assert_non_null(strstr(r->cfg.cmdline, " init=/virt/init"));
	assert_non_null(
		strstr(r->cfg.cmdline, " lkvm.sandbox=/virt/sandbox-1234"));
	res_free(r);
	r = parse_argv(&host_4cpu_1g, 6, argv2);
	assert_int_equal(r->ret, CLI_RUN);
	assert_ptr_equal(r->cfg.sandbox_argv, argv2 + 4);
	res_free(r);
	expect_error(
		parse("sandbox", "-k", "Image"),
		"no command given (lkvm sandbox [options] -- COMMAND [ARGS])");
	expect_error(parse("sandbox", "-k", "Image", "-i", "x", "--", "sh"),
		     "a sandbox boots over 9p: no -d IMAGE or -i");
	r = expect_run(parse("run", "-k", "Image", "--sandbox", "t.sh"));
	assert_true(r->cfg.sandbox);
	assert_string_equal(r->cfg.sandbox_script, "t.sh");
	res_free(r);
	r = parse("setup", "box");
	assert_int_equal(r->ret, CLI_SETUP);
	assert_string_equal(r->cfg.rootfs_name, "box");
	res_free(r);
	expect_error(
		parse("setup", "a/b"),
		"usage: lkvm setup NAME (a name for ~/.lkvm/NAME, no '/')");
	expect_error(
		parse("setup"),
		"usage: lkvm setup NAME (a name for ~/.lkvm/NAME, no '/')");
}

static void test_disks(void **state)
{
	struct res *r;

	(void)state;
	r = expect_run(parse("run", "-d", "a.img", "--disk=/dev/sdb,ro,direct",
			     "Image"));
	assert_int_equal(r->cfg.nr_disks, 2);
	assert_string_equal(r->cfg.disks[0].path, "a.img");
	assert_false(r->cfg.disks[0].ro);
	assert_false(r->cfg.disks[0].direct);
	assert_string_equal(r->cfg.disks[1].path, "/dev/sdb");
	assert_true(r->cfg.disks[1].ro);
	assert_true(r->cfg.disks[1].direct);
	assert_int_equal(r->cfg.disks[0].queues, 0); /* one per vCPU */
	assert_int_equal(r->cfg.disks[1].queues, 0);
	res_free(r);
	r = expect_run(parse("run", "-d", "a.img,queues=1", "-d",
			     "b.img,ro,queues=8,direct", "Image"));
	assert_int_equal(r->cfg.disks[0].queues, 1);
	assert_false(r->cfg.disks[0].ro);
	assert_int_equal(r->cfg.disks[1].queues, 8);
	assert_true(r->cfg.disks[1].ro);
	assert_true(r->cfg.disks[1].direct);
	assert_false(r->cfg.disks[1].raw);
	res_free(r);
	r = expect_run(parse("run", "-d", "q.qcow2,raw,ro", "Image"));
	assert_true(r->cfg.disks[0].raw);
	assert_true(r->cfg.disks[0].ro);
	res_free(r);
	expect_error(
		parse("run", "-d", "c,img", "Image"),
		"unknown --disk option 'img' in 'c,img' (expected ro, direct, raw, snapshot, format=F or queues=N)");
	expect_error(parse("run", "-d", "a,queues=0", "Image"),
		     "invalid --disk queues=0 in 'a,queues=0' (expected 1..8)");
	expect_error(
		parse("run", "-d", "a,queues=9,ro", "Image"),
		"invalid --disk queues=9 in 'a,queues=9,ro' (expected 1..8)");
	expect_error(parse("run", "-d", "a,queues=", "Image"),
		     "invalid --disk queues= in 'a,queues=' (expected 1..8)");
	expect_error(
		parse("run", "-d", "a,queues=2x", "Image"),
		"invalid --disk queues=2x in 'a,queues=2x' (expected 1..8)");
	expect_error(
		parse("run", "-d", "a,queues=00000000000000000002", "Image"),
		"invalid --disk queues=00000000000000000002 in 'a,queues=00000000000000000002' (expected 1..8)");
	expect_error(
		parse("run", "-d", "a,queues", "Image"),
		"unknown --disk option 'queues' in 'a,queues' (expected ro, direct, raw, snapshot, format=F or queues=N)");
	expect_error(parse("run", "-d", ",ro", "Image"),
		     "invalid --disk ',ro'");
	expect_error(parse("run", "-d", "1", "-d", "2", "-d", "3", "-d", "4",
			   "-d", "5", "Image"),
		     "too many disks (at most 4)");
	/* A disk and no root= gives kvmtool's root=/dev/vda rw. */
	cmdline_is(parse("run", "-d", "a.img", "Image"),
		   "console=ttyS0 earlycon=sbi root=/dev/vda rw");
	cmdline_is(parse("run", "-d", "a.img", "-p", "quiet", "Image"),
		   "console=ttyS0 earlycon=sbi root=/dev/vda rw quiet");
	cmdline_is(parse("run", "-d", "a.img", "-p", "root=/dev/vdb", "Image"),
		   "console=ttyS0 earlycon=sbi root=/dev/vdb");
	cmdline_is(parse("run", "-d", "a.img", "--nodefaults", "Image"),
		   "root=/dev/vda rw");
}

/* -d settings refused: the argument and lkvm's one line. */
static const char *const bad_disks[][2] = {
	{ "a,format=qcow",
	  "unknown --disk format=qcow in 'a,format=qcow' (expected raw, qcow2, qed, vmdk, vdi or vhdx)" },
	{ "a,format=",
	  "unknown --disk format= in 'a,format=' (expected raw, qcow2, qed, vmdk, vdi or vhdx)" },
	{ "a,raw,format=qcow2",
	  "--disk 'a,raw,format=qcow2': ,raw contradicts format=qcow2" },
	{ "a.qcow2,queues=2",
	  "--disk 'a.qcow2,queues=2': queues=N is for the disks lkvm serves itself (qemu-storage-daemon serves this one with one queue)" },
	{ "a,snapshot=1",
	  "unknown --disk option 'snapshot=1' in 'a,snapshot=1' (expected ro, direct, raw, snapshot, format=F or queues=N)" },
};

/*
 * Formats only by format= or a name ending .qcow2 (never the contents),
 * ,snapshot for any; qemu-storage-daemon serves them (config_disk_qsd).
 */
static void test_disk_formats(void **state)
{
	const struct disk_config *d;
	struct res *r;

	(void)state;
	r = expect_run(parse("run", "-d", "a.qcow2", "-d", "b.img,format=vmdk",
			     "-d", "c.img,snapshot", "-d", "d.qcow2,raw",
			     "Image"));
	d = r->cfg.disks;
	assert_true(config_disk_qsd(&d[0]));
	assert_string_equal(qsd_format(&d[0]), "qcow2");
	assert_string_equal(d[1].format, "vmdk");
	assert_string_equal(qsd_format(&d[1]), "vmdk");
	assert_true(d[2].snapshot);
	assert_string_equal(qsd_format(&d[2]), "raw");
	assert_false(config_disk_qsd(&d[3]));
	assert_null(qsd_format(&d[3]));
	assert_true(config_vhost_user(&r->cfg));
	res_free(r);
	r = expect_run(parse("run", "-d", "a.img,format=raw", "-d",
			     "b.img,format=qcow2,snapshot,ro", "-d", "c.QCOW2",
			     "-d", ".qcow2", "Image"));
	d = r->cfg.disks;
	assert_true(d[0].raw);
	assert_false(config_disk_qsd(&d[0]));
	assert_string_equal(qsd_format(&d[1]), "qcow2");
	assert_true(d[1].snapshot && d[1].ro);
	assert_false(config_disk_qsd(&d[2])); /* the name exactly */
	assert_false(config_disk_qsd(&d[3]));
	res_free(r);
	r = expect_run(parse("run", "-d", "a.img", "Image"));
	assert_false(config_vhost_user(&r->cfg));
	res_free(r);
	expect_error(
		parse("run", "--hugetlbfs", "/dev/hugepages", "-d", "a.qcow2",
		      "Image"),
		"--hugetlbfs cannot be combined with -n mode=user,vhost=1 or a -d qemu-storage-daemon serves (the daemon maps guest RAM from a sealed memfd)");
	for (size_t i = 0; i < sizeof(bad_disks) / sizeof(*bad_disks); i++)
		expect_error(parse("run", "-d", bad_disks[i][0], "Image"),
			     bad_disks[i][1]);
}

static void test_networks(void **state)
{
	const struct nic_config *n;
	struct res *r;

	(void)state;
	r = expect_run(parse("run", "-n", "mode=tap", "-n",
			     "mode=tap,tapif=lkvm0,guest_mac=02:aa:bb:cc:dd:ee,"
			     "host_ip=10.0.0.1,guest_ip=10.0.0.2,script=/s,"
			     "downscript=/d,trans=mmio",
			     "Image"));
	assert_int_equal(r->cfg.nr_nics, 2);
	n = &r->cfg.nics[0];
	assert_int_equal(n->mode, NIC_MODE_TAP);
	assert_false(n->implicit);
	assert_memory_equal(n->mac, "\x02\x15\x15\x15\x15\x15", 6);
	assert_string_equal(n->host_ip, "192.168.33.1");
	assert_string_equal(n->guest_ip, "192.168.33.15");
	assert_string_equal(n->script, "none");
	assert_string_equal(n->tapif, "");
	n = &r->cfg.nics[1];
	assert_string_equal(n->tapif, "lkvm0");
	assert_memory_equal(n->mac, "\x02\xaa\xbb\xcc\xdd\xee", 6);
	assert_string_equal(n->host_ip, "10.0.0.1");
	assert_string_equal(n->guest_ip, "10.0.0.2");
	assert_string_equal(n->script, "/s");
	assert_string_equal(n->downscript, "/d");
	res_free(r);
	/*
	 * As in kvmtool, mode=none adds no NIC (the next one still gets the
	 * first MAC) and keeps the default user-mode NIC away.
	 */
	r = expect_run(
		parse("run", "-n", "mode=none", "-n", "mode=tap", "Image"));
	assert_int_equal(r->cfg.nr_nics, 1);
	assert_true(r->cfg.no_net);
	assert_int_equal(r->cfg.nics[0].mode, NIC_MODE_TAP);
	assert_memory_equal(r->cfg.nics[0].mac, "\x02\x15\x15\x15\x15\x15", 6);
	res_free(r);
	r = expect_run(parse("run", "-n", "mode=none", "Image"));
	assert_int_equal(r->cfg.nr_nics, 0);
	res_free(r);
	/* No -n at all: one user-mode NIC with kvmtool's addresses. */
	r = expect_run(parse("run", "Image"));
	assert_int_equal(r->cfg.nr_nics, 1);
	n = &r->cfg.nics[0];
	assert_int_equal(n->mode, NIC_MODE_USER);
	assert_true(n->implicit);
	assert_string_equal(n->guest_ip, "192.168.33.15");
	assert_string_equal(n->host_ip, "192.168.33.1");
	assert_memory_equal(n->host_mac, "\x02\x01\x01\x01\x01\x01", 6);
	assert_false(r->cfg.no_dhcp);
	res_free(r);
	r = expect_run(parse("run", "-n", "mode=user,fwd=tcp:2222:22",
			     "--no-dhcp", "Image"));
	assert_int_equal(r->cfg.nr_nics, 1);
	assert_int_equal(r->cfg.nics[0].mode, NIC_MODE_USER);
	assert_false(r->cfg.nics[0].implicit);
	assert_int_equal(r->cfg.nics[0].nr_fwd, 1);
	assert_true(r->cfg.no_dhcp);
	/* kvmtool's meaning too: the default root's kernel gets no ip=dhcp. */
	assert_null(strstr(r->cfg.cmdline, "ip=dhcp"));
	assert_non_null(strstr(r->cfg.cmdline, "init=/virt/init"));
	res_free(r);
	expect_error(parse("run", "-n", "mode=slirp", "Image"),
		     "invalid --network setting 'mode=slirp' in 'mode=slirp'");
	expect_error(
		parse("run", "-n", "mode=tap,fwd=tcp:1:2", "Image"),
		"invalid --network setting 'fwd=tcp:1:2' in 'mode=tap,fwd=tcp:1:2'");
	expect_error(
		parse("run", "-n", "mode=tap,guest_mac=01:00:00:00:00:01",
		      "Image"),
		"invalid --network setting 'guest_mac=01:00:00:00:00:01' in 'mode=tap,guest_mac=01:00:00:00:00:01'");
	expect_error(
		parse("run", "-n", "host_ip=1.2.3", "Image"),
		"invalid --network setting 'host_ip=1.2.3' in 'host_ip=1.2.3'");
	expect_error(
		parse("run", "-n", "tapif=0123456789abcdef", "Image"),
		"invalid --network setting 'tapif=0123456789abcdef' in 'tapif=0123456789abcdef'");
	expect_error(parse("run", "-n", "mode=tap", "-n", "mode=tap", "-n",
			   "mode=tap", "Image"),
		     "too many networks (at most 2)");
}

static void test_not_supported_yet(void **state)
{
	struct res *r;

	(void)state;
	r = expect_run(parse("run", "--rng", "Image"));
	assert_true(r->cfg.rng);
	res_free(r);
	cmdline_is(parse("run", "--console", "virtio", "-i", "initrd", "Image"),
		   "console=hvc0 earlycon=sbi");
	expect_error(
		parse("run", "--virtio-transport=pci-legacy", "Image"),
		"--virtio-transport pci-legacy is not supported: lkvm has modern virtio only");
	expect_error(
		parse("run", "--virtio-transport=mmio-legacy", "Image"),
		"--virtio-transport mmio-legacy is not supported: lkvm has modern virtio only");
	expect_error(
		parse("run", "--virtio-legacy", "Image"),
		"--virtio-legacy is not supported: lkvm has modern virtio only");
	expect_error(
		parse("run", "--virtio-transport=usb", "Image"),
		"invalid --virtio-transport 'usb' (expected pci, mmio, pci-legacy or mmio-legacy)");
	expect_error(
		parse("run", "--console", "ttyS0", "Image"),
		"invalid --console 'ttyS0' (expected serial, virtio or hv)");
	expect_error(parse("run", "-d"),
		     "option '-d' requires an argument (IMAGE)");
	r = expect_run(parse("run", "--virtio-transport", "mmio", "Image"));
	assert_int_equal(r->cfg.transport, VIRTIO_TRANSPORT_MMIO);
	res_free(r);
	r = expect_run(parse("run", "--virtio-transport", "pci", "Image"));
	assert_int_equal(r->cfg.transport, VIRTIO_TRANSPORT_PCI);
	res_free(r);
	/* kvmtool's default */
	r = expect_run(parse("run", "Image"));
	assert_int_equal(r->cfg.transport, VIRTIO_TRANSPORT_PCI);
	res_free(r);
	r = expect_run(parse("run", "-n", "mode=tap,trans=mmio", "-n",
			     "mode=tap,trans=pci", "Image"));
	assert_int_equal(r->cfg.nics[0].transport, VIRTIO_TRANSPORT_MMIO);
	assert_int_equal(r->cfg.nics[1].transport, VIRTIO_TRANSPORT_PCI);
	res_free(r);
}

static void test_loglevel(void **state)
{
	struct res *r;

	(void)state;
	r = expect_run(parse("run", "--debug", "Image"));
	assert_true(r->cfg.debug);
	assert_int_equal(r->cfg.loglevel, LOG_DEBUG);
	res_free(r);

	r = expect_run(parse("run", "--debug", "--loglevel", "info", "Image"));
	assert_true(r->cfg.debug);
	assert_int_equal(r->cfg.loglevel, LOG_INFO);
	res_free(r);

	r = expect_run(parse("run", "--loglevel=error", "Image"));
	assert_int_equal(r->cfg.loglevel, LOG_ERR);
	res_free(r);

	r = expect_run(parse("run", "--loglevel=warning", "Image"));
	assert_int_equal(r->cfg.loglevel, LOG_WARN);
	res_free(r);

	expect_error(
		parse("run", "--loglevel", "verbose", "Image"),
		"invalid --loglevel 'verbose' (expected error, warning, info or debug)");
}

/* --- RISC-V options ---------------------------------------------------- */

static void test_disable_ext(void **state)
{
	struct res *r;

	(void)state;
	r = expect_run(parse("run", "--disable-sstc", "--disable-zbb",
			     "--disable-sbi-dbcn", "Image"));
	assert_int_equal(r->cfg.disable_isa[0], (1ULL << 8) | (1ULL << 13));
	assert_int_equal(r->cfg.disable_sbi, 1ULL << 9);
	res_free(r);

	r = expect_run(parse("run", "--disable-sbi-sta", "--disable-sbi-v01",
			     "--disable-zawrs", "--disable-a", "Image"));
	assert_int_equal(r->cfg.disable_isa[0], (1ULL << 61) | 1);
	assert_int_equal(r->cfg.disable_sbi, (1ULL << 10) | 1);
	res_free(r);

	expect_error(
		parse("run", "--disable-foo", "Image"),
		"unknown option '--disable-foo' (no ISA extension 'foo'; see 'lkvm run --help')");
	expect_error(
		parse("run", "--disable-sbi-foo", "Image"),
		"unknown option '--disable-sbi-foo' (no SBI extension 'foo'; see 'lkvm run --help')");
	expect_error(
		parse("run", "--disable-SSTC", "Image"),
		"unknown option '--disable-SSTC' (no ISA extension 'SSTC'; see 'lkvm run --help')");
	expect_error(
		parse("run", "--disable-sbi", "Image"),
		"unknown option '--disable-sbi' (no ISA extension 'sbi'; see 'lkvm run --help')");
	expect_error(parse("run", "--disable-", "Image"),
		     "unknown option '--disable-' (see 'lkvm run --help')");
	expect_error(
		parse("run", "--disable-sbi-", "Image"),
		"unknown option '--disable-sbi-' (no ISA extension 'sbi-'; see 'lkvm run --help')");
}

/* Every name in the tables gives an option that sets exactly its bit. */
static void test_disable_every_ext(void **state)
{
	char opt[64];
	struct res *r;

	(void)state;
	for (unsigned int i = 0; i < ISA_EXT_COUNT; i++) {
		snprintf(opt, sizeof(opt), "--disable-%s", isa_exts[i].name);
		r = expect_run(parse("run", opt, "Image"));
		for (unsigned int w = 0; w < ISA_EXT_WORDS; w++)
			assert_int_equal(r->cfg.disable_isa[w],
					 isa_exts[i].id / 64 == w ?
						 1ULL << isa_exts[i].id % 64 :
						 0);
		assert_int_equal(r->cfg.disable_sbi, 0);
		res_free(r);
	}
	for (unsigned int i = 0; i < SBI_EXT_COUNT; i++) {
		snprintf(opt, sizeof(opt), "--disable-sbi-%s",
			 sbi_exts[i].name);
		r = expect_run(parse("run", opt, "Image"));
		assert_int_equal(r->cfg.disable_sbi, 1ULL << sbi_exts[i].id);
		assert_int_equal(r->cfg.disable_isa[0], 0);
		assert_int_equal(r->cfg.disable_isa[1], 0);
		res_free(r);
	}
}

static void test_custom_ids(void **state)
{
	struct res *r;

	(void)state;
	r = expect_run(parse("run", "--custom-mvendorid", "0x489",
			     "--custom-marchid=12345", "--custom-mimpid",
			     "0xffffffffffffffff", "Image"));
	assert_true(r->cfg.set_mvendorid);
	assert_int_equal(r->cfg.mvendorid, 0x489);
	assert_true(r->cfg.set_marchid);
	assert_int_equal(r->cfg.marchid, 12345);
	assert_true(r->cfg.set_mimpid);
	assert_int_equal(r->cfg.mimpid, UINT64_MAX);
	res_free(r);

	r = expect_run(parse("run", "--custom-marchid=0", "Image"));
	assert_false(r->cfg.set_mvendorid);
	assert_true(r->cfg.set_marchid);
	assert_int_equal(r->cfg.marchid, 0);
	assert_false(r->cfg.set_mimpid);
	res_free(r);

	expect_error(
		parse("run", "--custom-mvendorid", "-1", "Image"),
		"invalid --custom-mvendorid '-1' (expected a decimal or 0x hex number up to 64 bits)");
	expect_error(
		parse("run", "--custom-mimpid=0x1ffffffffffffffff", "Image"),
		"invalid --custom-mimpid '0x1ffffffffffffffff' (expected a decimal or 0x hex number up to 64 bits)");
	expect_error(
		parse("run", "--custom-marchid=0xg", "Image"),
		"invalid --custom-marchid '0xg' (expected a decimal or 0x hex number up to 64 bits)");
}

/* --- help, usage, version, commands ------------------------------------ */

static const char *const long_opts[] = {
	"--name NAME",
	"--cpus N",
	"--mem SIZE",
	"--disk IMAGE",
	"--vnc",
	"--gtk",
	"--sdl",
	"--console TYPE",
	"--rng",
	"--balloon",
	"--vsock CID",
	"--dev PATH",
	"--tty N",
	"--hugetlbfs PATH",
	"--virtio-transport TYPE",
	"--virtio-legacy",
	"--nodefaults",
	"--loglevel LEVEL",
	"--no-seccomp",
	"--help",
	"--no-reboot",
	"--timeout SECS",
	"--console-log FILE",
	"--kernel FILE",
	"--initrd FILE",
	"--params ARGS",
	"--firmware FILE",
	"--flash FILE",
	"--network SPEC",
	"--no-dhcp",
	"--vfio-pci BDF",
	"--debug",
	"--debug-single-step",
	"--debug-ioport",
	"--debug-mmio",
	"--debug-reboot-new-vm",
	"--debug-iodelay MS",
	"--io-poll USEC",
	"--io-notify WHERE",
	"--gdb SPEC",
	"--gdb-wait",
	"--dump-on-panic FILE",
	"--dump-dtb FILE",
	"--cpu-type TYPE",
	"--suspend-seconds N",
	"--disable-sbi-EXT",
	"--disable-EXT",
	"--custom-mvendorid N",
	"--custom-marchid N",
	"--custom-mimpid N",
	"--irqchip TYPE",
	"--9p DIR,TAG",
	"--fs DIR,TAG[,ro]",
	"--sandbox SCRIPT",
};

static const char *const short_opts[] = {
	"-c, --cpus",	  "-m, --mem",	  "-d, --disk",	  "-h, --help",
	"-k, --kernel",	  "-i, --initrd", "-p, --params", "-n, --network",
	"-f, --firmware", "-F, --flash",
};

static const char *const help_facts[] = {
	"usage: lkvm run [options] [kernel]",
	"Exit status:\n"
	"  0  the guest powered off\n"
	"  1  fatal host error\n"
	"  2  usage error\n"
	"  3  stopped by a signal (SIGINT, SIGTERM, SIGHUP), Ctrl-A x or\n"
	"     'lkvm stop'\n"
	"  4  the guest crashed (KVM internal error, failed entry, an\n"
	"     access KVM cannot emulate, an unexpected exit, or a\n"
	"     shutdown reporting a system failure)\n"
	"  5  a forbidden system call under seccomp (see above)\n"
	"  6  the guest asked for a reboot and --no-reboot was given\n"
	"  7  the guest kernel panicked (reported by its pvpanic device)\n"
	"124  --timeout expired; the console's last lines are on stderr\n",
	"  lkvm: seccomp: forbidden system call NAME (number N)\n",
	"Ctrl-A x stops the VM, Ctrl-A Ctrl-A sends Ctrl-A.",
	"panic=-1",
	"\"lkvm: guest reboot\"",
	"(default: guest-<pid>)",
	"(default: /dev/kvm)",
	"(default: serial)",
	"(default: info)",
	"1..32 (default: the host's\n",
	"16M..512G, a multiple of 2M (default: 64M *\n",
	"80% of host RAM",
	"'--' ends the options",
	"',queues=N' request queues (1..8; default: one\n",
	"mode=tap|user|none",
	"fwd=tcp|udp:[ADDR:]HOSTPORT:GUESTPORT",
	"one user-mode NIC",
};

static unsigned int count_option_lines(const char *text)
{
	unsigned int n = 0;
	const char *l = text;

	while (l) {
		if (!strncmp(l, "      --", 8) ||
		    (!strncmp(l, "  -", 3) && l[3] && l[4] == ','))
			n++;
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return n;
}

static void assert_lines_fit(const char *text)
{
	const char *l = text;

	while (*l) {
		const char *nl = strchr(l, '\n');

		assert_non_null(nl);
		assert_true(nl - l <= 79);
		l = nl + 1;
	}
}

static void check_run_help(struct res *r)
{
	char word[64];

	assert_int_equal(r->ret, CLI_DONE);
	assert_string_equal(r->err, "");
	for (size_t i = 0; i < sizeof(long_opts) / sizeof(*long_opts); i++)
		assert_non_null(strstr(r->out, long_opts[i]));
	for (size_t i = 0; i < sizeof(short_opts) / sizeof(*short_opts); i++)
		assert_non_null(strstr(r->out, short_opts[i]));
	for (size_t i = 0; i < sizeof(help_facts) / sizeof(*help_facts); i++)
		if (!strstr(r->out, help_facts[i]))
			fail_msg("help lacks \"%s\"", help_facts[i]);
	for (unsigned int i = 0; i < ISA_EXT_COUNT; i++) {
		snprintf(word, sizeof(word), " %s", isa_exts[i].name);
		assert_non_null(strstr(r->out, word));
	}
	for (unsigned int i = 0; i < SBI_EXT_COUNT; i++) {
		snprintf(word, sizeof(word), " %s", sbi_exts[i].name);
		assert_non_null(strstr(r->out, word));
	}
	/* No option in the help that this test does not know. */
	assert_int_equal(count_option_lines(r->out),
			 sizeof(long_opts) / sizeof(*long_opts));
	assert_lines_fit(r->out);
}

static void test_irqchip(void **state)
{
	static const struct {
		const char *arg;
		enum irqchip_choice want;
	} ok[] = {
		{ "auto", IRQCHIP_AUTO },
		{ "aia", IRQCHIP_AIA },
		{ "plic", IRQCHIP_PLIC },
		{ "kernel-plic", IRQCHIP_KERNEL_PLIC },
	};
	struct res *r;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		r = parse("run", "--irqchip", ok[i].arg, "Image");
		assert_int_equal(r->ret, CLI_RUN);
		assert_int_equal(r->cfg.irqchip, ok[i].want);
		res_free(r);
	}
	/* kvmtool: --disable-ssaia alone means the PLIC; with aia, a clash. */
	r = parse("run", "--disable-ssaia", "Image");
	assert_int_equal(r->ret, CLI_RUN);
	assert_int_equal(r->cfg.irqchip, IRQCHIP_AUTO);
	res_free(r);
	expect_error(parse("run", "--irqchip=aia", "--disable-ssaia", "Image"),
		     "--irqchip aia needs Ssaia, which --disable-ssaia hides");
	expect_error(
		parse("run", "--irqchip", "gic", "Image"),
		"invalid --irqchip 'gic' (expected auto, aia, plic or kernel-plic)");
}

static void test_run_help(void **state)
{
	struct res *a = parse("run", "--help");
	struct res *b = parse("run", "-h");
	struct res *c = parse("help", "run");
	struct res *d = parse("run", "-m", "256", "--help", "--bogus");

	(void)state;
	check_run_help(a);
	assert_string_equal(a->out, b->out);
	assert_string_equal(a->out, c->out);
	assert_string_equal(a->out, d->out);
	assert_int_equal(c->ret, CLI_DONE);
	assert_int_equal(d->ret, CLI_DONE);
	res_free(a);
	res_free(b);
	res_free(c);
	res_free(d);
}

/* Every long option of the help text is in the man page too. */
static void test_man_page(void **state)
{
	FILE *f = fopen("docs/lkvm.1", "r");
	char *man = NULL, *p, want[64];
	size_t len = 0;

	(void)state;
	if (!f)
		skip();
	assert_true(getdelim(&man, &len, '\0', f) > 0);
	fclose(f);
	for (size_t i = 0; i < sizeof(long_opts) / sizeof(*long_opts); i++) {
		/* "--disable-sbi-EXT" -> "\-\-disable\-sbi\-" */
		p = want;
		for (const char *o = long_opts[i];
		     *o > ' ' && !isupper((unsigned char)*o); o++) {
			if (*o == '-')
				*p++ = '\\';
			*p++ = *o;
		}
		*p = '\0';
		assert_non_null(strstr(man, want));
	}
	for (unsigned int i = 0; i < ISA_EXT_COUNT; i++)
		assert_non_null(strstr(man, isa_exts[i].name));
	assert_non_null(strstr(man, "EXIT STATUS"));
	assert_non_null(strstr(man, "Ctrl\\-A x"));
	assert_non_null(strstr(man, "\\fB,queues=\\fP\\fIN\\fP"));
	assert_non_null(strstr(man, LKVM_VERSION));
	free(man);
}

static void test_usage(void **state)
{
	const char *forms[] = { "help", "--help", "-h" };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct res *r = parse(forms[i]);

		assert_int_equal(r->ret, CLI_DONE);
		assert_string_equal(r->err, "");
		assert_non_null(strstr(r->out, "usage: lkvm COMMAND [ARGS]\n"));
		assert_non_null(strstr(r->out, "  run [options] [kernel]"));
		assert_non_null(strstr(r->out, "  version "));
		assert_non_null(strstr(r->out, "  help [run] "));
		assert_non_null(strstr(r->out, "  list [-i] [-r] "));
		assert_non_null(strstr(r->out, "  stop -n NAME | -a "));
		assert_non_null(strstr(r->out, "  pause -n NAME | -a "));
		assert_non_null(strstr(r->out, "  resume -n NAME | -a "));
		assert_non_null(strstr(r->out, "  debug -n NAME | -a -d "));
		assert_non_null(strstr(r->out, "  stat -n NAME | -a -m "));
		assert_non_null(
			strstr(r->out, "  balloon -n NAME -i MB | -d MB"));
		assert_non_null(strstr(r->out, "'lkvm run --help'"));
		assert_lines_fit(r->out);
		res_free(r);
	}
	expect_error(parse("help", "foo"),
		     "unexpected argument 'foo' (see 'lkvm help')");
	expect_error(parse("help", "run", "x"),
		     "unexpected argument 'x' (see 'lkvm help')");
}

static void test_version(void **state)
{
	struct res *r;

	(void)state;
	r = parse("version");
	assert_int_equal(r->ret, CLI_DONE);
	assert_string_equal(r->out, "lkvm version " LKVM_VERSION "\n");
	assert_string_equal(r->err, "");
	res_free(r);
	r = parse("--version");
	assert_int_equal(r->ret, CLI_DONE);
	assert_string_equal(r->out, "lkvm version " LKVM_VERSION "\n");
	res_free(r);
	expect_error(parse("version", "x"),
		     "unexpected argument 'x' (see 'lkvm help')");
}

static void test_commands(void **state)
{
	char *argv0[] = { (char *)"lkvm", NULL };
	struct res *r;

	(void)state;
	r = parse_argv(&host_4cpu_1g, 1, argv0);
	expect_error(r, "no command given (see 'lkvm help')");
	r = parse_argv(&host_4cpu_1g, 0, argv0);
	expect_error(r, "no command given (see 'lkvm help')");
	expect_error(parse("start", "Image"),
		     "unknown command 'start' (see 'lkvm help')");
	expect_error(parse("Run", "Image"),
		     "unknown command 'Run' (see 'lkvm help')");
	expect_error(parse("--run"),
		     "unknown command '--run' (see 'lkvm help')");
}

static void test_summary(void **state)
{
	struct res *r;
	char buf[128];

	(void)state;
	r = expect_run(parse("run", "-k", "Image", "-m", "256", "-c", "2",
			     "--name", "vm1"));
	assert_int_equal(cli_summary(&r->cfg, buf, sizeof(buf)),
			 strlen("# lkvm run -k Image -m 256 -c 2 --name vm1"));
	assert_string_equal(buf, "# lkvm run -k Image -m 256 -c 2 --name vm1");
	assert_int_equal(cli_summary(&r->cfg, buf, 10), -ENOSPC);
	assert_string_equal(buf, "# lkvm ru");
	res_free(r);

	r = expect_run(parse("run", "Image"));
	assert_int_equal(
		cli_summary(&r->cfg, buf, sizeof(buf)),
		strlen("# lkvm run -k Image -m 448 -c 4 --name guest-1234"));
	assert_string_equal(
		buf, "# lkvm run -k Image -m 448 -c 4 --name guest-1234");
	res_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_suffixes),
		cmocka_unit_test(test_size_junk),
		cmocka_unit_test(test_size_overflow),
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_mem_limits),
		cmocka_unit_test(test_mem_above_host_warns),
		cmocka_unit_test(test_cpus_bounds),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_default_root),
		cmocka_unit_test(test_find_kernel),
		cmocka_unit_test(test_defaults_host_caps),
		cmocka_unit_test(test_default_mem),
		cmocka_unit_test(test_host_probe),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_cmdline_too_long),
		cmocka_unit_test(test_option_forms),
		cmocka_unit_test(test_last_wins),
		cmocka_unit_test(test_boot_test_options),
		cmocka_unit_test(test_positional_kernel),
		cmocka_unit_test(test_unknown_option),
		cmocka_unit_test(test_missing_argument),
		cmocka_unit_test(test_disks),
		cmocka_unit_test(test_disk_formats),
		cmocka_unit_test(test_io_poll),
		cmocka_unit_test(test_io_notify),
		cmocka_unit_test(test_9p),
		cmocka_unit_test(test_fs),
		cmocka_unit_test(test_bad_root_names),
		cmocka_unit_test(test_sandbox),
		cmocka_unit_test(test_networks),
		cmocka_unit_test(test_not_supported_yet),
		cmocka_unit_test(test_loglevel),
		cmocka_unit_test(test_disable_ext),
		cmocka_unit_test(test_disable_every_ext),
		cmocka_unit_test(test_custom_ids),
		cmocka_unit_test(test_irqchip),
		cmocka_unit_test(test_run_help),
		cmocka_unit_test(test_man_page),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_summary),
	};

	/* A run with only a kernel boots ~/.lkvm/default: HOME is needed. */
	setenv("HOME", "/home/u", 1);
	return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
