// SPDX-License-Identifier: GPL-2.0
/*
 * Every 'lkvm run' option kvmtool has on RISC-V (its builtin-run.c and
 * riscv/include/kvm/kvm-config-arch.h), typed as a kvmtool user types
 * it: accepted with the configuration it should give, or refused with
 * one line saying what is missing and the status main() turns it into.
 * Options refused only at run time (the host KVM lacks something: status
 * 1) are accepted here and checked end to end by tests/e2e/lkvm-opts.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "tests/unit/cli_shim.h"
#include "vmm/exit_codes.h"
#include "vmm/isa.h"
#include "lib/log.h"

/* The table below lists fields by position; trailing ones default. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define MiB (1ULL << 20)
#define MAX_ARGS 16

enum kind {
	OK,	 /* parsed; check() holds */
	REFUSED, /* one "lkvm: error: ..." line containing msg; status 2 */
	UNKNOWN, /* today's behaviour of an option another branch adds */
};

struct row {
	const char *opt; /* kvmtool's option */
	const char *argv[MAX_ARGS];
	enum kind kind;
	bool (*check)(const struct vm_config *c);
	const char *msg;
	bool no_kernel; /* the row gives -k or -f itself */
};

static const struct cli_host host = {
	.online_cpus = 4,
	.mem_bytes = 4ULL << 30,
	.pid = 77,
};

#define CHECK(fn, expr)                           \
	static bool fn(const struct vm_config *c) \
	{                                         \
		return (expr);                    \
	}

CHECK(balloon_on, c->balloon)
CHECK(no_dhcp_on, c->no_dhcp)
CHECK(nic_user, c->nr_nics == 1 && c->nics[0].mode == NIC_MODE_USER &&
			!c->nics[0].implicit)
CHECK(nic_host_mac, c->nr_nics == 1 && c->nics[0].host_mac[5] == 1 &&
			    c->nics[0].host_mac[0] == 2)
/* The user's share first; with only a kernel, the default root's two. */
CHECK(share_srv, c->nr_shares == 3 && !strcmp(c->shares[0].path, "/srv") &&
			 !strcmp(c->shares[0].tag, "tag") &&
			 !strcmp(c->shares[1].tag, "/dev/root"))
CHECK(sandbox_script, c->sandbox_script && !strcmp(c->sandbox_script, "run.sh"))
CHECK(name_g1, !strcmp(c->name, "g1"))
CHECK(cpus_2, c->nr_cpus == 2)
CHECK(cpus_3, c->nr_cpus == 3)
CHECK(mem_256m, c->ram_size == 256 * MiB)
CHECK(mem_1g, c->ram_size == 1024 * MiB)
CHECK(mem_128m, c->ram_size == 128 * MiB)
CHECK(disk_1, c->nr_disks == 1 && !strcmp(c->disks[0].path, "disk.img"))
CHECK(disk_ro, c->nr_disks == 1 && c->disks[0].ro)
CHECK(disk_direct, c->nr_disks == 1 && c->disks[0].direct)
CHECK(rng_on, c->rng)
CHECK(nodefaults_on, c->nodefaults && !strcmp(c->cmdline, ""))
CHECK(con_serial, c->console == CONSOLE_SERIAL)
CHECK(con_virtio, c->console == CONSOLE_VIRTIO)
CHECK(con_hv, c->console == CONSOLE_HV)
CHECK(dev_kvm, !strcmp(c->dev, "/dev/vkvm"))
CHECK(tty_0, c->tty == 0)
CHECK(huge_on, !strcmp(c->hugetlbfs, "/mnt/huge"))
CHECK(vsock_3, c->vsock_cid == 3)
CHECK(vsock_max, c->vsock_cid == 4294967294ULL)
CHECK(vsock_hex, c->vsock_cid == 0x10)
CHECK(vsock_34, c->vsock_cid == 34)
CHECK(vsock_socket,
      c->vsock_cid == 3 && !strcmp(c->vsock_socket, "/tmp/v.sock"))
CHECK(vsock_no_socket, c->vsock_cid == 3 && !c->vsock_socket[0])
CHECK(trans_pci, c->transport == VIRTIO_TRANSPORT_PCI)
CHECK(trans_mmio, c->transport == VIRTIO_TRANSPORT_MMIO)
CHECK(log_debug, c->loglevel == LOG_DEBUG)
CHECK(log_error, c->loglevel == LOG_ERR)
CHECK(kernel_image, !strcmp(c->kernel, "Image") && !c->firmware)
CHECK(initrd_on, c->nr_initrds == 1 && !strcmp(c->initrds[0], "initrd.cpio"))
/* -p's words come last, after the console and the default 9p root. */
CHECK(params_on, !strncmp(c->cmdline, "console=ttyS0 ", 14) &&
			 strlen(c->cmdline) > 6 &&
			 !strcmp(c->cmdline + strlen(c->cmdline) - 6, " quiet"))
CHECK(fw_only,
      !strcmp(c->firmware, "fw.bin") && !c->kernel && !strcmp(c->cmdline, ""))
CHECK(fw_params, !strcmp(c->firmware, "fw.bin") && !strcmp(c->cmdline, "x=1"))
CHECK(net_tap, c->nr_nics == 1 && c->nics[0].mode == NIC_MODE_TAP)
CHECK(net_none, c->nr_nics == 0 && c->no_net)
CHECK(net_vhost,
      c->nr_nics == 1 && c->nics[0].mode == NIC_MODE_TAP && c->nics[0].vhost)
CHECK(net_user_vhost, c->nr_nics == 1 && c->nics[0].mode == NIC_MODE_USER &&
			      c->nics[0].vhost && config_vhost_user(c))
CHECK(net_tapif, !strcmp(c->nics[0].tapif, "tap7"))
CHECK(net_ips, !strcmp(c->nics[0].guest_ip, "10.0.0.2") &&
		       !strcmp(c->nics[0].host_ip, "10.0.0.1"))
CHECK(net_mac, c->nics[0].mac[5] == 0x99)
CHECK(net_script, !strcmp(c->nics[0].script, "/etc/up") &&
			  !strcmp(c->nics[0].downscript, "/etc/down"))
CHECK(net_mmio, c->nics[0].transport == VIRTIO_TRANSPORT_MMIO)
CHECK(debug_on, c->debug && c->loglevel == LOG_DEBUG)
CHECK(single_step_on, c->single_step)
CHECK(ioport_on, c->debug_ioport)
CHECK(mmio_on, c->debug_mmio)
CHECK(iodelay_5, c->debug_iodelay_ms == 5)
CHECK(cpu_max, !c->cpu_min)
CHECK(cpu_min, (c->cpu_min && config_isa_hidden(c, isa_ext_lookup("zbb")) &&
		!config_isa_hidden(c, isa_ext_lookup("c")) &&
		!config_isa_hidden(c, isa_ext_lookup("d"))))
CHECK(cpu_min_ext, c->cpu_min &&
			   !config_isa_hidden(c, isa_ext_lookup("sstc")) &&
			   !config_isa_hidden(c, isa_ext_lookup("zicsr")) &&
			   config_isa_hidden(c, isa_ext_lookup("zbb")))
CHECK(dtb_on, !strcmp(c->dump_dtb, "g.dtb"))
CHECK(suspend_5, c->set_suspend_seconds && c->suspend_seconds == 5)
CHECK(mvendor, c->set_mvendorid && c->mvendorid == 0x5a5a)
CHECK(march, c->set_marchid && c->marchid == 7)
CHECK(mimp, c->set_mimpid && c->mimpid == 0x10)
CHECK(no_seccomp_on, c->no_seccomp)
/*
 * kvm-unit-tests' kvmtool runner (scripts/vmm.bash): its default options,
 * --cpus, --params with the test's arguments, --initrd with its environ
 * file: exactly the kernel command line given, no NIC, no default root.
 */
CHECK(kut_line, c->nodefaults && c->no_net && c->nr_nics == 0 &&
			c->loglevel == LOG_WARN && c->nr_cpus == 2 &&
			!strcmp(c->cmdline, "arg1 arg2") &&
			c->nr_initrds == 1 && !c->rootfs_9p &&
			!strcmp(c->kernel, "selftest.flat"))

static const struct row rows[] = {
	/* Basic options */
	{ "--name", { "--name", "g1" }, OK, name_g1 },
	{ "-c", { "-c", "2" }, OK, cpus_2 },
	{ "--cpus", { "--cpus", "3" }, OK, cpus_3 },
	{ "-m", { "-m", "256" }, OK, mem_256m },
	{ "-m hex", { "--mem", "0x100" }, OK, mem_256m },
	{ "-m leading 0", { "-m", "0256" }, OK, mem_256m },
	{ "-m G", { "-m", "1G" }, OK, mem_1g },
	{ "-m B", { "-m", "134217728B" }, OK, mem_128m },
	{ "-m K", { "-m", "131072K" }, OK, mem_128m },
	{ "-d", { "-d", "disk.img" }, OK, disk_1 },
	{ "-d ,ro", { "--disk", "disk.img,ro" }, OK, disk_ro },
	{ "-d ,direct", { "-d", "disk.img,direct" }, OK, disk_direct },
	{ "--vnc", { "--vnc" }, REFUSED, NULL, "no framebuffer" },
	{ "--gtk", { "--gtk" }, REFUSED, NULL, "no framebuffer" },
	{ "--sdl", { "--sdl" }, REFUSED, NULL, "no framebuffer" },
	{ "--rng", { "--rng" }, OK, rng_on },
	{ "--nodefaults", { "--nodefaults" }, OK, nodefaults_on },
	{ "--console serial", { "--console", "serial" }, OK, con_serial },
	{ "--console virtio", { "--console", "virtio" }, OK, con_virtio },
	{ "--console hv", { "--console", "hv" }, OK, con_hv },
	{ "--vsock", { "--vsock", "3" }, OK, vsock_3 },
	{ "--vsock max", { "--vsock", "4294967294" }, OK, vsock_max },
	{ "--vsock hex", { "--vsock", "0x10" }, OK, vsock_hex },
	{ "--vsock 0",
	  { "--vsock", "0" },
	  REFUSED,
	  NULL,
	  "CID is 3 to 4294967294" },
	{ "--vsock 1",
	  { "--vsock", "1" },
	  REFUSED,
	  NULL,
	  "0, 1 and 2 are reserved" },
	{ "--vsock 2", { "--vsock", "2" }, REFUSED, NULL, "CID is 3 to" },
	{ "--vsock any",
	  { "--vsock", "4294967295" },
	  REFUSED,
	  NULL,
	  "means any" },
	{ "--vsock 2^32",
	  { "--vsock", "4294967296" },
	  REFUSED,
	  NULL,
	  "CID is 3" },
	/* 32 characters: the whole number counts, not its first 31. */
	{ "--vsock leading zeros",
	  { "--vsock", "00000000000000000000000000000034" },
	  OK,
	  vsock_34 },
	{ "--vsock -1", { "--vsock", "-1" }, REFUSED, NULL, "expected a CID" },
	{ "--vsock x", { "--vsock", "x3" }, REFUSED, NULL, "expected a CID" },
	{ "--vsock socket",
	  { "--vsock", "3,socket=/tmp/v.sock" },
	  OK,
	  vsock_socket },
	{ "--vsock plain", { "--vsock", "3" }, OK, vsock_no_socket },
	{ "--vsock socket empty",
	  { "--vsock", "3,socket=" },
	  REFUSED,
	  NULL,
	  "socket= needs a PATH" },
	{ "--vsock other key",
	  { "--vsock", "3,path=/tmp/v" },
	  REFUSED,
	  NULL,
	  "'path=/tmp/v' is not socket=PATH" },
	{ "--vsock socket long",
	  { "--vsock",
	    "3,socket=/tmp/abcdefghijklmnopqrstuvwxyz-abcdefghijklmnopqrstuvwxyz-"
	    "abcdefghijklmnopqrstuvwxyz-abcdefghijklmnopqrstuvwxyz" },
	  REFUSED,
	  NULL,
	  "too long (at most 96 bytes" },
	{ "--vsock socket no CID",
	  { "--vsock", ",socket=/tmp/v.sock" },
	  REFUSED,
	  NULL,
	  "expected a CID" },
	{ "--vsock socket CID 2",
	  { "--vsock", "2,socket=/tmp/v.sock" },
	  REFUSED,
	  NULL,
	  "CID is 3 to" },
	{ "--vsock twice",
	  { "--vsock", "3", "--vsock", "4,socket=/tmp/v.sock" },
	  REFUSED,
	  NULL,
	  "given twice" },
	{ "--dev", { "--dev", "/dev/vkvm" }, OK, dev_kvm },
	{ "--tty 0", { "--tty", "0" }, OK, tty_0 },
	{ "--tty 1", { "--tty", "1" }, REFUSED, NULL, "one guest terminal" },
	{ "--hugetlbfs", { "--hugetlbfs", "/mnt/huge" }, OK, huge_on },
	{ "--virtio-legacy",
	  { "--virtio-legacy" },
	  REFUSED,
	  NULL,
	  "modern virtio only" },
	{ "--virtio-transport pci",
	  { "--virtio-transport", "pci" },
	  OK,
	  trans_pci },
	{ "--virtio-transport mmio",
	  { "--virtio-transport", "mmio" },
	  OK,
	  trans_mmio },
	{ "--virtio-transport pci-legacy",
	  { "--virtio-transport", "pci-legacy" },
	  REFUSED,
	  NULL,
	  "modern virtio only" },
	{ "--virtio-transport mmio-legacy",
	  { "--virtio-transport", "mmio-legacy" },
	  REFUSED,
	  NULL,
	  "modern virtio only" },
	{ "--loglevel", { "--loglevel", "debug" }, OK, log_debug },
	{ "--loglevel=", { "--loglevel=error" }, OK, log_error },

	/* Kernel options */
	{ "-k", { "-k", "Image" }, OK, kernel_image, NULL, true },
	{ "--kernel", { "--kernel", "Image" }, OK, kernel_image, NULL, true },
	{ "-i", { "-i", "initrd.cpio" }, OK, initrd_on },
	{ "kvm-unit-tests' line",
	  { "--kernel", "selftest.flat", "--nodefaults", "--network",
	    "mode=none", "--loglevel=warning", "--cpus", "2", "--params",
	    "arg1 arg2", "--initrd", "env" },
	  OK,
	  kut_line,
	  NULL,
	  true },
	{ "-p", { "-p", "quiet" }, OK, params_on },
	{ "-f", { "-f", "fw.bin" }, OK, fw_only, NULL, true },
	{ "--firmware",
	  { "--firmware", "fw.bin", "-p", "x=1" },
	  OK,
	  fw_params,
	  NULL,
	  true },
	{ "--firmware with -k",
	  { "--firmware", "fw.bin" },
	  REFUSED,
	  NULL,
	  "only one of --kernel and --firmware" },
	{ "-F", { "-F", "flash.img" }, REFUSED, NULL, "no CFI flash" },
	{ "--flash",
	  { "--flash", "flash.img" },
	  REFUSED,
	  NULL,
	  "no CFI flash" },

	/* Networking options */
	{ "-n mode=tap", { "-n", "mode=tap" }, OK, net_tap },
	{ "-n mode=none", { "-n", "mode=none" }, OK, net_none },
	{ "-n tapif", { "--network", "mode=tap,tapif=tap7" }, OK, net_tapif },
	{ "-n guest_ip,host_ip",
	  { "-n", "guest_ip=10.0.0.2,host_ip=10.0.0.1" },
	  OK,
	  net_ips },
	{ "-n guest_mac",
	  { "-n", "guest_mac=02:00:00:00:00:99" },
	  OK,
	  net_mac },
	{ "-n script,downscript",
	  { "-n", "script=/etc/up,downscript=/etc/down" },
	  OK,
	  net_script },
	{ "-n trans", { "-n", "mode=tap,trans=mmio" }, OK, net_mmio },
	{ "-n vhost=0", { "-n", "mode=tap,vhost=0" }, OK, net_tap },
	{ "-n vhost=1", { "-n", "mode=tap,vhost=1" }, OK, net_vhost },
	{ "-n mode=user,vhost=1",
	  { "-n", "mode=user,vhost=1" },
	  OK,
	  net_user_vhost },
	{ "-n mode=user,vhost=1 --hugetlbfs",
	  { "-n", "mode=user,vhost=1", "--hugetlbfs", "/dev/hugepages" },
	  REFUSED,
	  NULL,
	  "cannot be combined with -n mode=user,vhost=1" },
	{ "-n mq=1", { "-n", "mode=tap,mq=1" }, OK, net_tap },
	{ "-n mq=4",
	  { "-n", "mode=tap,mq=4" },
	  REFUSED,
	  NULL,
	  "one queue pair" },
	{ "-n fd",
	  { "-n", "mode=tap,fd=3" },
	  REFUSED,
	  NULL,
	  "opens its tap itself" },

	/* VFIO options */
	{ "--vfio-pci",
	  { "--vfio-pci", "0000:00:01.0" },
	  REFUSED,
	  NULL,
	  "no VFIO device assignment" },

	/* Debug options */
	{ "--debug", { "--debug" }, OK, debug_on },
	{ "--debug-single-step",
	  { "--debug-single-step" },
	  OK,
	  single_step_on }, /* status 1 at run time: RISC-V KVM lacks it */
	{ "--debug-ioport", { "--debug-ioport" }, OK, ioport_on },
	{ "--debug-mmio", { "--debug-mmio" }, OK, mmio_on },
	{ "--debug-iodelay", { "--debug-iodelay", "5" }, OK, iodelay_5 },

	/* RISC-V options (kvm-config-arch.h) */
	{ "--cpu-type max", { "--cpu-type", "max" }, OK, cpu_max },
	{ "--cpu-type min", { "--cpu-type", "min" }, OK, cpu_min },
	{ "--cpu-type min,EXT",
	  { "--cpu-type", "min,sstc,zicsr" },
	  OK,
	  cpu_min_ext },
	{ "--cpu-type bad",
	  { "--cpu-type", "big" },
	  REFUSED,
	  NULL,
	  "expected min[,EXT...] or max" },
	{ "--cpu-type min,bad",
	  { "--cpu-type", "min,sstc,nope" },
	  REFUSED,
	  NULL,
	  "no ISA extension 'nope'" },
	{ "--dump-dtb", { "--dump-dtb", "g.dtb" }, OK, dtb_on },
	{ "--suspend-seconds", { "--suspend-seconds", "5" }, OK, suspend_5 },
	{ "--custom-mvendorid",
	  { "--custom-mvendorid", "0x5a5a" },
	  OK,
	  mvendor },
	{ "--custom-marchid", { "--custom-marchid", "7" }, OK, march },
	{ "--custom-mimpid", { "--custom-mimpid", "0x10" }, OK, mimp },

	/* virtio-balloon, 9p shares and sandboxes */
	{ "--balloon", { "--balloon" }, OK, balloon_on },
	{ "--9p", { "--9p", "/srv,tag" }, OK, share_srv },
	{ "--sandbox", { "--sandbox", "run.sh" }, OK, sandbox_script },

	/* lkvm's own */
	{ "--no-seccomp", { "--no-seccomp" }, OK, no_seccomp_on },

	/* user-mode networking (passt) */
	{ "--no-dhcp", { "--no-dhcp" }, OK, no_dhcp_on },
	{ "-n mode=user", { "-n", "mode=user" }, OK, nic_user },
	{ "-n host_mac",
	  { "-n", "mode=user,host_mac=02:00:00:00:00:01" },
	  OK,
	  nic_host_mac },
};

/* kvmtool's --disable-EXT options (kvm-config-arch.h, newest first seen). */
static const char *const kvmtool_isa[] = {
	"smstateen", "ssaia",	    "sscofpmf", "sstc",	  "svinval",
	"svnapot",   "svpbmt",	    "zacas",	"zawrs",  "zba",
	"zbb",	     "zbc",	    "zbkb",	"zbkc",	  "zbkx",
	"zbs",	     "zca",	    "zcb",	"zcd",	  "zcf",
	"zcmop",     "zfa",	    "zfh",	"zfhmin", "zicbom",
	"zicboz",    "zicntr",	    "zicond",	"zicsr",  "zifencei",
	"zihintntl", "zihintpause", "zihpm",	"zimop",  "zknd",
	"zkne",	     "zknh",	    "zkr",	"zksed",  "zksh",
	"zkt",	     "ztso",	    "zvbb",	"zvbc",	  "zvfh",
	"zvfhmin",   "zvkb",	    "zvkg",	"zvkned", "zvknha",
	"zvknhb",    "zvksed",	    "zvksh",	"zvkt",
};

/* kvmtool's --disable-sbi-EXT options and the KVM ids they hide. */
static const struct {
	const char *name;
	unsigned int id;
} kvmtool_sbi[] = {
	{ "legacy", 0 }, { "time", 1 },		{ "ipi", 2 },
	{ "rfence", 3 }, { "srst", 4 },		{ "hsm", 5 },
	{ "pmu", 6 },	 { "experimental", 7 }, { "vendor", 8 },
	{ "dbcn", 9 },	 { "sta", 10 },		{ "susp", SBI_EXT_SUSP_ID },
};

/* One parse of "lkvm run ARGS [Image]"; *cfg, the error text, the status. */
static int run_args(const char *const *args, bool kernel, struct vm_config *cfg,
		    char **err)
{
	char *argv[MAX_ARGS + 4] = { (char *)"lkvm", (char *)"run" };
	int argc = 2, ret;
	size_t err_len = 0, out_len = 0;
	char *out = NULL;
	FILE *e = open_memstream(err, &err_len);
	FILE *o = open_memstream(&out, &out_len);

	assert_non_null(e);
	assert_non_null(o);
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	if (kernel)
		argv[argc++] = (char *)"Image";
	ret = cli_parse(argc, argv, &host, cfg, o, e);
	fclose(e);
	fclose(o);
	free(out);
	/* main(): -EINVAL is a usage error. */
	return ret < 0 ? LKVM_EXIT_USAGE : 0;
}

static void row_run(const struct row *r)
{
	static struct vm_config cfg;
	char *err = NULL;
	int status = run_args(r->argv, !r->no_kernel, &cfg, &err);

	switch (r->kind) {
	case OK:
		if (status || !r->check(&cfg))
			fail_msg("%s: status %d, '%s'", r->opt, status, err);
		break;
	case REFUSED:
	case UNKNOWN:
		if (status != LKVM_EXIT_USAGE || !strstr(err, r->msg) ||
		    strncmp(err, "lkvm: error: ", 13) ||
		    strchr(err, '\n') != err + strlen(err) - 1)
			fail_msg("%s: status %d, '%s' (want '%s')", r->opt,
				 status, err, r->msg);
		/* Never "unknown option" for a kvmtool option lkvm knows. */
		if (r->kind == REFUSED && strstr(err, "unknown option"))
			fail_msg("%s: '%s'", r->opt, err);
		break;
	}
	free(err);
}

static void test_kvmtool_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		row_run(&rows[i]);
}

static void test_kvmtool_disable_isa(void **state)
{
	static struct vm_config cfg;
	char opt[64];

	(void)state;
	for (size_t i = 0; i < sizeof(kvmtool_isa) / sizeof(*kvmtool_isa);
	     i++) {
		const char *args[] = { opt, NULL };
		char *err = NULL;
		int id = isa_ext_lookup(kvmtool_isa[i]);

		snprintf(opt, sizeof(opt), "--disable-%s", kvmtool_isa[i]);
		assert_true(id >= 0);
		if (run_args(args, true, &cfg, &err) ||
		    !isa_ext_test(cfg.disable_isa, id) ||
		    !config_isa_hidden(&cfg, id))
			fail_msg("%s: '%s'", opt, err);
		free(err);
	}
}

/*
 * kvmtool's names for extensions KVM numbers after 6.12: taken, at 7.3's
 * ids (a host KVM without one has nothing to disable).
 */
static void test_kvmtool_disable_isa_newer(void **state)
{
	static const struct {
		const char *name;
		unsigned int id;
	} newer[] = { { "smnpm", 62 },	 { "svade", 64 },   { "svadu", 65 },
		      { "svvptc", 66 },	 { "zabha", 67 },   { "ziccrse", 68 },
		      { "zicfiss", 79 }, { "zicfilp", 78 }, { "zicbop", 71 } };
	static struct vm_config cfg;
	char opt[64];

	(void)state;
	for (size_t i = 0; i < sizeof(newer) / sizeof(*newer); i++) {
		const char *args[] = { opt, NULL };
		char *err = NULL;

		snprintf(opt, sizeof(opt), "--disable-%s", newer[i].name);
		assert_int_equal(run_args(args, true, &cfg, &err), 0);
		assert_true(isa_ext_test(cfg.disable_isa, newer[i].id));
		assert_int_equal(isa_ext_lookup(newer[i].name), newer[i].id);
		free(err);
	}
}

static void test_kvmtool_disable_sbi(void **state)
{
	static struct vm_config cfg;
	char opt[64];

	(void)state;
	for (size_t i = 0; i < sizeof(kvmtool_sbi) / sizeof(*kvmtool_sbi);
	     i++) {
		const char *args[] = { opt, NULL };
		char *err = NULL;

		snprintf(opt, sizeof(opt), "--disable-sbi-%s",
			 kvmtool_sbi[i].name);
		if (run_args(args, true, &cfg, &err) ||
		    cfg.disable_sbi != 1ULL << kvmtool_sbi[i].id)
			fail_msg("%s: '%s'", opt, err);
		free(err);
	}
}

/* -h and --help print the help (status 0), as kvmtool's do. */
static void test_kvmtool_help(void **state)
{
	static const char *const forms[] = { "-h", "--help" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		static struct vm_config cfg;
		char *argv[] = { (char *)"lkvm", (char *)"run",
				 (char *)forms[i] };
		char *out = NULL, *err = NULL;
		size_t ol = 0, el = 0;
		FILE *o = open_memstream(&out, &ol),
		     *e = open_memstream(&err, &el);

		assert_int_equal(cli_parse(3, argv, &host, &cfg, o, e),
				 CLI_DONE);
		fclose(o);
		fclose(e);
		assert_non_null(strstr(out, "--cpu-type TYPE"));
		assert_string_equal(err, "");
		free(out);
		free(err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kvmtool_rows),
		cmocka_unit_test(test_kvmtool_disable_isa),
		cmocka_unit_test(test_kvmtool_disable_isa_newer),
		cmocka_unit_test(test_kvmtool_disable_sbi),
		cmocka_unit_test(test_kvmtool_help),
	};

	/* A run with only a kernel boots ~/.lkvm/default: HOME is needed. */
	setenv("HOME", "/home/u", 1);
	return cmocka_run_group_tests_name("cli_kvmtool", tests, NULL, NULL);
}
