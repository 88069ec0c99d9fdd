// SPDX-License-Identifier: GPL-2.0
/*
 * The command line.  cli_opts[] below is the only list of options: the
 * parser looks options up in it and 'lkvm run --help' is printed from it.
 * Parsing state lives in a struct on the caller's stack; nothing here
 * exits or touches globals.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "isa.h"
#include "lib/log.h"
#include "netopt.h"

#define STR_(x) #x
#define STR(x) STR_(x)

#define CLI_UNUSED __attribute__((unused))

#define HELP_COL 32   /* where the help text of an option starts */
#define HELP_WIDTH 79 /* wrap the extension lists here */

struct cli_run {
	struct vm_config *cfg;
	const struct cli_host *host;
	FILE *out, *err;
	const char *spelled; /* the option as typed, for messages */
	int spelled_len;
};

struct cli_opt;
typedef int cli_setter(struct cli_run *r, const struct cli_opt *o,
		       const char *arg);

struct cli_opt {
	const char *name; /* long name; NULL: a group title in .help */
	char letter;	  /* short option, 0 if none */
	bool prefix;	  /* --<name>EXT, EXT is passed as arg */
	const char *arg;  /* argument name for --help; NULL: a flag */
	const char *help; /* a '\n' continues in the help column */
	cli_setter *set;
	size_t field; /* offsetof() in vm_config, if used */
	size_t flag;  /* offsetof() of a bool to raise, if used */
};

struct cli_choice {
	const char *name;
	int value;
	bool supported;
};

static int cli_err(struct cli_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int cli_err(struct cli_run *r, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One line, whatever the arguments held. */
	for (char *p = line; *p; p++)
		if (iscntrl((unsigned char)*p))
			*p = '?';
	fprintf(r->err, "lkvm: error: %s\n", line);
	return -EINVAL;
}

static void *cfg_field(struct cli_run *r, size_t offset)
{
	return (char *)r->cfg + offset;
}

/* --- number parsing ---------------------------------------------------- */

#define DEC_DIGITS "0123456789"
#define HEX_DIGITS DEC_DIGITS "abcdefABCDEF"

/*
 * The number in the first @len characters of @s, which hold only digits
 * of @base (so strtoull() sees no spaces, signs or "0x" of its own).
 */
static int parse_digits(const char *s, size_t len, int base, uint64_t *val)
{
	if (!len)
		return -EINVAL;
	errno = 0;
	*val = strtoull(s, NULL, base);
	return errno == ERANGE ? -ERANGE : 0;
}

int cli_parse_u64(const char *s, uint64_t *val)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *digits = hex ? s + 2 : s;
	size_t len = strspn(digits, hex ? HEX_DIGITS : DEC_DIGITS);

	if (digits[len])
		return -EINVAL;
	return parse_digits(digits, len, hex ? 16 : 10, val);
}

static int size_shift(char suffix)
{
	switch (suffix) {
	case '\0':
	case 'M':
	case 'm':
		return 20;
	case 'K':
	case 'k':
		return 10;
	case 'G':
	case 'g':
		return 30;
	case 'T':
	case 't':
		return 40;
	}
	return -1;
}

int cli_parse_size(const char *s, uint64_t *bytes)
{
	size_t len = strspn(s, DEC_DIGITS);
	const char *end = s + len;
	int shift = size_shift(end[0]);
	uint64_t n;
	int ret;

	if (!len || shift < 0 || (end[0] && end[1]))
		return -EINVAL;
	ret = parse_digits(s, len, 10, &n);
	if (ret)
		return ret;
	if (n > UINT64_MAX >> shift)
		return -ERANGE;
	*bytes = n << shift;
	return 0;
}

/* --- setters ----------------------------------------------------------- */

static int set_string(struct cli_run *r, const struct cli_opt *o,
		      const char *arg)
{
	*(const char **)cfg_field(r, o->field) = arg;
	return 0;
}

static int set_path(struct cli_run *r, const struct cli_opt *o, const char *arg)
{
	if (!arg[0])
		return cli_err(r, "option '%.*s' requires a non-empty argument",
			       r->spelled_len, r->spelled);
	return set_string(r, o, arg);
}

static int set_true(struct cli_run *r, const struct cli_opt *o,
		    CLI_UNUSED const char *arg)
{
	*(bool *)cfg_field(r, o->field) = true;
	return 0;
}

static int set_mem(struct cli_run *r, CLI_UNUSED const struct cli_opt *o,
		   const char *arg)
{
	uint64_t bytes = 0;
	int ret = cli_parse_size(arg, &bytes);

	if (ret == -EINVAL)
		return cli_err(
			r,
			"invalid memory size '%s' (expected SIZE[KMGT]; a bare number is MiB)",
			arg);
	if (ret == -ERANGE || bytes > CONFIG_RAM_MAX)
		return cli_err(
			r, "memory size '%s' is above the maximum of %llu GiB",
			arg, CONFIG_RAM_MAX >> 30);
	if (bytes < CLI_MEM_MIN)
		return cli_err(
			r, "memory size '%s' is below the minimum of %llu MiB",
			arg, CLI_MEM_MIN >> 20);
	if (bytes % CLI_MEM_ALIGN)
		return cli_err(r,
			       "memory size '%s' is not a multiple of %llu MiB",
			       arg, CLI_MEM_ALIGN >> 20);
	r->cfg->ram_size = bytes;
	return 0;
}

static int set_cpus(struct cli_run *r, CLI_UNUSED const struct cli_opt *o,
		    const char *arg)
{
	uint64_t n;

	if (cli_parse_u64(arg, &n) || n < 1 || n > CONFIG_MAX_CPUS)
		return cli_err(r,
			       "invalid number of CPUs '%s' (expected 1..%d)",
			       arg, CONFIG_MAX_CPUS);
	r->cfg->nr_cpus = n;
	return 0;
}

static int set_custom_id(struct cli_run *r, const struct cli_opt *o,
			 const char *arg)
{
	if (cli_parse_u64(arg, cfg_field(r, o->field)))
		return cli_err(
			r,
			"invalid --%s '%s' (expected a decimal or 0x hex number up to 64 bits)",
			o->name, arg);
	*(bool *)cfg_field(r, o->flag) = true;
	return 0;
}

/* Print "a, b or c" for an error message. */
static void choices_list(const struct cli_choice *c, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (; c->name && len < size; c++) {
		const char *sep = !len ? "" : c[1].name ? ", " : " or ";

		len += snprintf(buf + len, size - len, "%s%s", sep, c->name);
	}
}

static const struct cli_choice *choose(struct cli_run *r,
				       const struct cli_opt *o,
				       const struct cli_choice *list,
				       const char *arg)
{
	const struct cli_choice *c;
	char names[128];

	for (c = list; c->name; c++)
		if (!strcmp(c->name, arg))
			break;
	if (!c->name) {
		choices_list(list, names, sizeof(names));
		cli_err(r, "invalid --%s '%s' (expected %s)", o->name, arg,
			names);
		return NULL;
	}
	if (!c->supported) {
		cli_err(r, "--%s %s is not supported yet", o->name, arg);
		return NULL;
	}
	return c;
}

static const struct cli_choice consoles[] = {
	{ "serial", CONSOLE_SERIAL, true },
	{ "virtio", CONSOLE_VIRTIO, true },
	{ "hv", CONSOLE_HV, true },
	{ NULL, 0, false },
};

static const struct cli_choice irqchips[] = {
	{ "auto", IRQCHIP_AUTO, true },
	{ "aia", IRQCHIP_AIA, true },
	{ "plic", IRQCHIP_PLIC, true },
	{ NULL, 0, false },
};

static const struct cli_choice transports[] = {
	{ "pci", VIRTIO_TRANSPORT_PCI, true },
	{ "mmio", VIRTIO_TRANSPORT_MMIO, true },
	{ "pci-legacy", -1, true },
	{ "mmio-legacy", -1, true },
	{ NULL, 0, false },
};

static const struct cli_choice loglevels[] = {
	{ "error", LOG_ERR, true }, { "warning", LOG_WARN, true },
	{ "info", LOG_INFO, true }, { "debug", LOG_DEBUG, true },
	{ NULL, 0, false },
};

static int set_console(struct cli_run *r, const struct cli_opt *o,
		       const char *arg)
{
	const struct cli_choice *c = choose(r, o, consoles, arg);

	if (!c)
		return -EINVAL;
	r->cfg->console = c->value;
	return 0;
}

static int set_irqchip(struct cli_run *r, const struct cli_opt *o,
		       const char *arg)
{
	const struct cli_choice *c = choose(r, o, irqchips, arg);

	if (!c)
		return -EINVAL;
	r->cfg->irqchip = c->value;
	return 0;
}

static int set_transport(struct cli_run *r, const struct cli_opt *o,
			 const char *arg)
{
	const struct cli_choice *c = choose(r, o, transports, arg);

	if (!c)
		return -EINVAL;
	if (c->value < 0)
		return cli_err(
			r,
			"--%s %s is not supported: lkvm has modern virtio only",
			o->name, arg);
	r->cfg->transport = c->value;
	return 0;
}

static int set_legacy(struct cli_run *r, const struct cli_opt *o,
		      CLI_UNUSED const char *arg)
{
	return cli_err(r, "--%s is not supported: lkvm has modern virtio only",
		       o->name);
}

static int set_loglevel(struct cli_run *r, const struct cli_opt *o,
			const char *arg)
{
	const struct cli_choice *c = choose(r, o, loglevels, arg);

	if (!c)
		return -EINVAL;
	r->cfg->loglevel = c->value;
	return 0;
}

static int set_debug(struct cli_run *r, CLI_UNUSED const struct cli_opt *o,
		     CLI_UNUSED const char *arg)
{
	r->cfg->debug = true;
	r->cfg->loglevel = LOG_DEBUG;
	return 0;
}

static int unknown_ext(struct cli_run *r, const char *kind, const char *ext)
{
	return cli_err(
		r,
		"unknown option '%.*s' (no %s extension '%s'; see 'lkvm run --help')",
		r->spelled_len, r->spelled, kind, ext);
}

static int set_disable_isa(struct cli_run *r,
			   CLI_UNUSED const struct cli_opt *o, const char *ext)
{
	int id = isa_ext_lookup(ext);

	if (id < 0)
		return unknown_ext(r, "ISA", ext);
	isa_ext_set(r->cfg->disable_isa, id);
	return 0;
}

static int set_disable_sbi(struct cli_run *r,
			   CLI_UNUSED const struct cli_opt *o, const char *ext)
{
	int id = sbi_ext_lookup(ext);

	if (id < 0 || id >= 64)
		return unknown_ext(r, "SBI", ext);
	r->cfg->disable_sbi |= 1ULL << id;
	return 0;
}

/* One ',opt' of -d (n bytes at opt), into d. */
static int set_disk_opt(struct cli_run *r, struct disk_config *d,
			const char *opt, size_t n, const char *arg)
{
	static const char q[] = "queues=";
	char num[16];
	uint64_t v;

	if (n == 2 && !strncmp(opt, "ro", 2)) {
		d->ro = true;
		return 0;
	}
	if (n == 6 && !strncmp(opt, "direct", 6)) {
		d->direct = true;
		return 0;
	}
	if (n < sizeof(q) - 1 || strncmp(opt, q, sizeof(q) - 1))
		return cli_err(
			r,
			"unknown --disk option '%.*s' in '%s' (expected ro, direct or queues=N)",
			(int)n, opt, arg);
	n -= sizeof(q) - 1;
	opt += sizeof(q) - 1;
	if (n < sizeof(num)) {
		memcpy(num, opt, n);
		num[n] = 0;
	}
	if (n >= sizeof(num) || cli_parse_u64(num, &v) || v < 1 ||
	    v > CONFIG_MAX_DISK_QUEUES)
		return cli_err(
			r,
			"invalid --disk queues=%.*s in '%s' (expected 1..%d)",
			(int)n, opt, arg, CONFIG_MAX_DISK_QUEUES);
	d->queues = v;
	return 0;
}

/* -d path[,ro][,direct][,queues=N] */
static int set_disk(struct cli_run *r, CLI_UNUSED const struct cli_opt *o,
		    const char *arg)
{
	struct disk_config *d;
	const char *opt = strchr(arg, ',');
	size_t len = opt ? (size_t)(opt - arg) : strlen(arg);

	if (r->cfg->nr_disks == CONFIG_MAX_DISKS)
		return cli_err(r, "too many disks (at most %d)",
			       CONFIG_MAX_DISKS);
	if (!len || len >= CONFIG_PATH_MAX)
		return cli_err(r, "invalid --disk '%s'", arg);
	d = &r->cfg->disks[r->cfg->nr_disks];
	*d = (struct disk_config){ 0 };
	memcpy(d->path, arg, len);
	while (opt) {
		const char *next = strchr(opt + 1, ',');
		size_t n = next ? (size_t)(next - opt - 1) : strlen(opt + 1);
		int ret = set_disk_opt(r, d, opt + 1, n, arg);

		if (ret)
			return ret;
		opt = next;
	}
	r->cfg->nr_disks++;
	return 0;
}

/* -n SPEC: kvmtool's settings (vmm/netopt.h); mode=none adds no NIC. */
static int set_network(struct cli_run *r, CLI_UNUSED const struct cli_opt *o,
		       const char *arg)
{
	unsigned int i = r->cfg->nr_nics;
	struct nic_config nic;
	const char *bad;
	size_t n;

	if (netopt_parse(&nic, i, arg, &bad, &n))
		return cli_err(r, "invalid --network setting '%.*s' in '%s'",
			       (int)n, bad, arg);
	if (nic.mode == NIC_MODE_NONE) {
		r->cfg->no_net = true;
		return 0;
	}
	if (i == CONFIG_MAX_NICS)
		return cli_err(r, "too many networks (at most %d)",
			       CONFIG_MAX_NICS);
	r->cfg->nics[r->cfg->nr_nics++] = nic;
	return 0;
}

static int set_rng(struct cli_run *r, CLI_UNUSED const struct cli_opt *o,
		   CLI_UNUSED const char *arg)
{
	r->cfg->rng = true;
	return 0;
}

static int set_help(struct cli_run *r, CLI_UNUSED const struct cli_opt *o,
		    CLI_UNUSED const char *arg)
{
	cli_print_run_help(r->out);
	return CLI_DONE;
}

/* --- the option table -------------------------------------------------- */

#define CFG(member) offsetof(struct vm_config, member)

/* One option: long name, short letter, argument name, setter, help. */
#define OPT(n, l, a, fn, h) \
	.name = n, .letter = l, .arg = a, .set = fn, .help = h

static const struct cli_opt cli_opts[] = {
	{ .help = "Basic options:" },
	{ OPT("name", 0, "NAME", set_path, "Guest name (default: guest-<pid>)"),
	  .field = CFG(name) },
	{ OPT("cpus", 'c', "N", set_cpus,
	      "Number of vCPUs, 1.." STR(
		      CONFIG_MAX_CPUS) " (default: the host's\n"
				       "online CPUs, at most " STR(
					       CONFIG_MAX_CPUS) ")") },
	{ OPT("mem", 'm', "SIZE", set_mem,
	      "Guest RAM, SIZE[KMGT]; a bare number is MiB.\n"
	      "16M..512G, a multiple of 2M (default: 64M *\n"
	      "(cpus + 3), at most 80% of host RAM)") },
	{ OPT("disk", 'd', "IMAGE", set_disk,
	      "Disk image: a raw file or block device, with\n"
	      "',ro' read-only, ',direct' O_DIRECT and\n"
	      "',queues=N' request queues (1..8; default: one\n"
	      "per vCPU, at most 8); repeat for more disks\n"
	      "(/dev/vda, /dev/vdb, ...)") },
	{ OPT("console", 0, "TYPE", set_console,
	      "serial (8250 UART, ttyS0), hv (SBI console,\n"
	      "hvc0) or virtio (virtio-console: hvc0, or hvc1\n"
	      "if the guest has the SBI hvc driver too)\n"
	      "(default: serial)") },
	{ OPT("rng", 0, NULL, set_rng,
	      "virtio RNG (entropy from the host's getrandom)") },
	{ OPT("dev", 0, "PATH", set_path,
	      "KVM device file (default: /dev/kvm)"),
	  .field = CFG(dev) },
	{ OPT("hugetlbfs", 0, "PATH", set_path,
	      "Back guest RAM with the hugetlbfs mounted at\nPATH"),
	  .field = CFG(hugetlbfs) },
	{ OPT("virtio-transport", 0, "TYPE", set_transport,
	      "pci (virtio-pci modern behind a PCIe host\n"
	      "bridge; the default) or mmio (virtio-mmio);\n"
	      "the legacy transports are not supported") },
	{ OPT("virtio-legacy", 0, NULL, set_legacy,
	      "Not supported: lkvm has modern virtio only") },
	{ OPT("nodefaults", 0, NULL, set_true,
	      "Do not put console=... on the kernel command\nline"),
	  .field = CFG(nodefaults) },
	{ OPT("help", 'h', NULL, set_help, "Show this help and exit") },

	{ .help = "Kernel options:" },
	{ OPT("kernel", 'k', "FILE", set_path,
	      "Kernel Image to boot (or give it as the first\n"
	      "argument that is not an option)"),
	  .field = CFG(kernel) },
	{ OPT("initrd", 'i', "FILE", set_path, "Initial RAM disk"),
	  .field = CFG(initrd) },
	{ OPT("params", 'p', "ARGS", set_string,
	      "Kernel command line, added after the default\n"
	      "console=ttyS0 (serial) or console=hvc0 (hv,\n"
	      "virtio)"),
	  .field = CFG(params) },

	{ .help = "Networking options:" },
	{ OPT("network", 'n', "SPEC", set_network,
	      "A virtio-net NIC: mode=tap|user|none (default\n"
	      "tap; none: no NIC at all), guest_mac=MAC\n"
	      "(02:15:15:15:15:15, then :16), host_ip=IP\n"
	      "(192.168.33.1: the tap's address, or the\n"
	      "user-mode gateway where the host's own\n"
	      "services answer), guest_ip=IP (192.168.33.15,\n"
	      "user mode: given by DHCP, /24), trans=pci|mmio\n"
	      "(default: --virtio-transport).  tap:\n"
	      "tapif=NAME, script=PATH|none,\n"
	      "downscript=PATH|none.  user (passt):\n"
	      "host_mac=MAC (02:01:01:01:01:01),\n"
	      "fwd=tcp|udp:[ADDR:]HOSTPORT:GUESTPORT (host\n"
	      "port to guest port; repeatable).  Without -n:\n"
	      "one user-mode NIC (no NIC, with a warning, if\n"
	      "passt is not installed)") },
	{ OPT("no-dhcp", 0, NULL, set_true,
	      "The user-mode network answers no DHCP: the\n"
	      "guest sets its address itself"),
	  .field = CFG(no_dhcp) },

	{ .help = "Debug options:" },
	{ OPT("debug", 0, NULL, set_debug, "Same as --loglevel debug") },
	{ OPT("loglevel", 0, "LEVEL", set_loglevel,
	      "error, warning, info or debug\n"
	      "(default: info)") },
	{ OPT("dump-dtb", 0, "FILE", set_path,
	      "Write the generated device tree to FILE"),
	  .field = CFG(dump_dtb) },

	{ .help = "RISC-V options:" },
	{ OPT("irqchip", 0, "TYPE", set_irqchip,
	      "aia (KVM's in-kernel AIA: APLIC + IMSIC,\n"
	      "interrupts through irqfd), plic (a PLIC\n"
	      "emulated in lkvm) or auto: aia when the host\n"
	      "has it and --disable-ssaia is not given, else\n"
	      "plic (default: auto)") },
	/* Before "disable-": the longer prefix must match first. */
	{ OPT("disable-sbi-", 0, NULL, set_disable_sbi,
	      "Hide SBI extension EXT from the guest"),
	  .prefix = true },
	{ OPT("disable-", 0, NULL, set_disable_isa,
	      "Hide ISA extension EXT from the guest (KVM\n"
	      "refuses some)"),
	  .prefix = true },
	{ OPT("custom-mvendorid", 0, "N", set_custom_id,
	      "mvendorid the guest sees (decimal or 0x hex)"),
	  .field = CFG(mvendorid), .flag = CFG(set_mvendorid) },
	{ OPT("custom-marchid", 0, "N", set_custom_id,
	      "marchid the guest sees (decimal or 0x hex)"),
	  .field = CFG(marchid), .flag = CFG(set_marchid) },
	{ OPT("custom-mimpid", 0, "N", set_custom_id,
	      "mimpid the guest sees (decimal or 0x hex)"),
	  .field = CFG(mimpid), .flag = CFG(set_mimpid) },
};

#define NR_OPTS (sizeof(cli_opts) / sizeof(cli_opts[0]))

/* --- option lookup and the argv walk ----------------------------------- */

static const struct cli_opt *opt_find_long(const char *name, size_t len,
					   const char **suffix)
{
	const struct cli_opt *o;

	for (o = cli_opts; o < cli_opts + NR_OPTS; o++)
		if (o->name && !o->prefix && strlen(o->name) == len &&
		    !strncmp(o->name, name, len))
			return o;
	for (o = cli_opts; o < cli_opts + NR_OPTS; o++) {
		size_t plen = o->name ? strlen(o->name) : 0;

		if (o->prefix && len > plen && !strncmp(o->name, name, plen)) {
			*suffix = name + plen;
			return o;
		}
	}
	return NULL;
}

static const struct cli_opt *opt_find_short(char letter)
{
	for (const struct cli_opt *o = cli_opts; o < cli_opts + NR_OPTS; o++)
		if (o->name && o->letter == letter)
			return o;
	return NULL;
}

static int unknown_opt(struct cli_run *r)
{
	return cli_err(r, "unknown option '%.*s' (see 'lkvm run --help')",
		       r->spelled_len, r->spelled);
}

static int missing_arg(struct cli_run *r, const struct cli_opt *o)
{
	return cli_err(r, "option '%.*s' requires an argument (%s)",
		       r->spelled_len, r->spelled, o->arg);
}

/* "--name", "--name=ARG" or "--name ARG"; *i moves past what it used. */
static int parse_long(struct cli_run *r, int argc, char **argv, int *i)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const char *suffix = NULL;
	const struct cli_opt *o = opt_find_long(name, len, &suffix);

	r->spelled = argv[*i];
	r->spelled_len = len + 2 > 256 ? 256 : (int)len + 2;
	if (!o)
		return unknown_opt(r);
	if (!o->arg && eq)
		return cli_err(r, "option '%.*s' takes no argument",
			       r->spelled_len, r->spelled);
	if (!o->arg)
		return o->set(r, o, suffix);
	if (eq)
		return o->set(r, o, eq + 1);
	if (*i + 1 >= argc)
		return missing_arg(r, o);
	return o->set(r, o, argv[++*i]);
}

/* "-x", "-xARG" or "-x ARG". */
static int parse_short(struct cli_run *r, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	const struct cli_opt *o = opt_find_short(a[1]);

	r->spelled = a;
	r->spelled_len = 2;
	if (!o || (!o->arg && a[2])) {
		r->spelled_len = strnlen(a, 256);
		return unknown_opt(r);
	}
	if (!o->arg)
		return o->set(r, o, NULL);
	if (a[2])
		return o->set(r, o, a + 2);
	if (*i + 1 >= argc)
		return missing_arg(r, o);
	return o->set(r, o, argv[++*i]);
}

static int set_positional(struct cli_run *r, const char *arg)
{
	if (r->cfg->kernel)
		return cli_err(
			r,
			"unexpected argument '%s' (the kernel is already '%s')",
			arg, r->cfg->kernel);
	if (!arg[0])
		return cli_err(r, "empty kernel file name");
	r->cfg->kernel = arg;
	return 0;
}

static int run_parse_args(struct cli_run *r, int argc, char **argv)
{
	bool opts_done = false;
	int ret = 0;

	for (int i = 2; i < argc && !ret; i++) {
		const char *a = argv[i];

		if (opts_done || a[0] != '-' || !a[1])
			ret = set_positional(r, a);
		else if (!strcmp(a, "--"))
			opts_done = true;
		else if (a[1] == '-')
			ret = parse_long(r, argc, argv, &i);
		else
			ret = parse_short(r, argc, argv, &i);
	}
	return ret;
}

/* --- defaults and the kernel command line ------------------------------ */

uint64_t cli_default_mem(unsigned int cpus, uint64_t host_mem)
{
	uint64_t mem = (64ULL << 20) * (cpus + 3ULL);

	/* Like kvmtool, leave the host a fifth of its RAM. */
	if (host_mem && mem > host_mem / 5 * 4)
		mem = host_mem / 5 * 4;
	mem &= ~(CLI_MEM_ALIGN - 1);
	if (mem < CLI_MEM_MIN)
		mem = CLI_MEM_MIN;
	if (mem > CONFIG_RAM_MAX)
		mem = CONFIG_RAM_MAX;
	return mem;
}

static unsigned int default_cpus(unsigned int online)
{
	if (!online)
		return 1;
	return online > CONFIG_MAX_CPUS ? CONFIG_MAX_CPUS : online;
}

static int cmdline_build(struct cli_run *r)
{
	struct vm_config *cfg = r->cfg;
	const char *def = "", *params = cfg->params ? cfg->params : "";
	const char *root = "";
	int n;

	if (!cfg->nodefaults)
		def = cfg->console != CONSOLE_SERIAL ? "console=hvc0" :
						       "console=ttyS0";
	/* kvmtool's rule: a disk and no root= means root=/dev/vda rw. */
	if (cfg->nr_disks && !strstr(params, "root="))
		root = "root=/dev/vda rw";
	n = snprintf(cfg->cmdline, sizeof(cfg->cmdline), "%s%s%s%s%s", def,
		     def[0] && root[0] ? " " : "", root,
		     (def[0] || root[0]) && params[0] ? " " : "", params);
	if (n < 0 || n >= (int)sizeof(cfg->cmdline)) {
		cfg->cmdline[0] = '\0';
		return cli_err(
			r,
			"kernel command line is too long (more than %d bytes)",
			CONFIG_CMDLINE_MAX - 1);
	}
	return 0;
}

static int run_finish(struct cli_run *r)
{
	struct vm_config *cfg = r->cfg;
	const struct cli_host *host = r->host;

	if (!cfg->kernel)
		return cli_err(r, "no kernel given (-k FILE)");
	if (cfg->irqchip == IRQCHIP_AIA &&
	    isa_ext_test(cfg->disable_isa, isa_ext_lookup("ssaia")))
		return cli_err(
			r,
			"--irqchip aia needs Ssaia, which --disable-ssaia hides");
	if (!cfg->nr_cpus)
		cfg->nr_cpus = default_cpus(host->online_cpus);
	if (!cfg->ram_size)
		cfg->ram_size = cli_default_mem(cfg->nr_cpus, host->mem_bytes);
	else if (host->mem_bytes && cfg->ram_size > host->mem_bytes)
		fprintf(r->err,
			"lkvm: warning: guest RAM %llu MiB exceeds host RAM %llu MiB\n",
			(unsigned long long)(cfg->ram_size >> 20),
			(unsigned long long)(host->mem_bytes >> 20));
	if (!cfg->name) {
		snprintf(cfg->default_name, sizeof(cfg->default_name),
			 "guest-%ld", host->pid);
		cfg->name = cfg->default_name;
	}
	if (!cfg->dev)
		cfg->dev = "/dev/kvm";
	if (cfg->transport == VIRTIO_TRANSPORT_DEFAULT)
		cfg->transport = VIRTIO_TRANSPORT_PCI;
	/* kvmtool's rule: no -n at all means one user-mode NIC. */
	if (!cfg->nr_nics && !cfg->no_net) {
		netopt_defaults(&cfg->nics[0], 0, NIC_MODE_USER);
		cfg->nics[0].implicit = true;
		cfg->nr_nics = 1;
	}
	return cmdline_build(r);
}

/* --- commands ---------------------------------------------------------- */

static int cmd_run(struct cli_run *r, int argc, char **argv)
{
	int ret = run_parse_args(r, argc, argv);

	return ret ? ret : run_finish(r);
}

static int cmd_version(struct cli_run *r, int argc, char **argv)
{
	if (argc > 2)
		return cli_err(r, "unexpected argument '%s' (see 'lkvm help')",
			       argv[2]);
	fprintf(r->out, "lkvm version %s\n", LKVM_VERSION);
	return CLI_DONE;
}

static int cmd_help(struct cli_run *r, int argc, char **argv)
{
	if (argc > 3 || (argc == 3 && strcmp(argv[2], "run")))
		return cli_err(r, "unexpected argument '%s' (see 'lkvm help')",
			       argv[argc - 1]);
	if (argc == 3)
		cli_print_run_help(r->out);
	else
		cli_print_usage(r->out);
	return CLI_DONE;
}

static const struct cli_cmd {
	const char *name;
	int (*fn)(struct cli_run *r, int argc, char **argv);
} cli_cmds[] = {
	{ "run", cmd_run },	      { "version", cmd_version },
	{ "--version", cmd_version }, { "help", cmd_help },
	{ "--help", cmd_help },	      { "-h", cmd_help },
};

int cli_parse(int argc, char **argv, const struct cli_host *host,
	      struct vm_config *cfg, FILE *out, FILE *err)
{
	struct cli_run r = { .cfg = cfg, .host = host, .out = out, .err = err };
	size_t n = sizeof(cli_cmds) / sizeof(cli_cmds[0]);

	memset(cfg, 0, sizeof(*cfg));
	cfg->console = CONSOLE_SERIAL;
	cfg->loglevel = LOG_INFO;
	if (argc < 2)
		return cli_err(&r, "no command given (see 'lkvm help')");
	for (const struct cli_cmd *c = cli_cmds; c < cli_cmds + n; c++)
		if (!strcmp(argv[1], c->name))
			return c->fn(&r, argc, argv);
	return cli_err(&r, "unknown command '%s' (see 'lkvm help')", argv[1]);
}

void cli_host_probe(struct cli_host *host)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long pages = sysconf(_SC_PHYS_PAGES);
	long page_size = sysconf(_SC_PAGE_SIZE);

	host->online_cpus = cpus > 0 ? (unsigned int)cpus : 0;
	host->mem_bytes = pages > 0 && page_size > 0 ?
				  (uint64_t)pages * (uint64_t)page_size :
				  0;
	host->pid = getpid();
}

int cli_summary(const struct vm_config *cfg, char *buf, size_t size)
{
	int n = snprintf(buf, size, "# lkvm run -k %s -m %llu -c %u --name %s",
			 cfg->kernel ? cfg->kernel : "",
			 (unsigned long long)(cfg->ram_size >> 20),
			 cfg->nr_cpus, cfg->name ? cfg->name : "");

	return n < 0 || (size_t)n >= size ? -ENOSPC : n;
}

/* --- help -------------------------------------------------------------- */

/* "  -c, --cpus N", "      --name NAME" or "      --disable-EXT". */
static int help_left(char *buf, size_t size, const struct cli_opt *o)
{
	char letter[8] = "    ";
	const char *sep = o->prefix ? "EXT" : o->arg ? " " : "";

	if (o->letter)
		snprintf(letter, sizeof(letter), "-%c, ", o->letter);
	return snprintf(buf, size, "  %s--%s%s%s", letter, o->name, sep,
			o->arg ? o->arg : "");
}

static void help_opt(FILE *out, const struct cli_opt *o)
{
	char left[64];
	int n = help_left(left, sizeof(left), o);

	if (n >= HELP_COL - 1)
		fprintf(out, "%s\n%*s", left, HELP_COL, "");
	else
		fprintf(out, "%-*s", HELP_COL, left);
	for (const char *p = o->help; *p; p++) {
		fputc(*p, out);
		if (*p == '\n')
			fprintf(out, "%*s", HELP_COL, "");
	}
	fputc('\n', out);
}

static void help_ext_list(FILE *out, const char *title,
			  const struct ext_name *exts, unsigned int n)
{
	int col = HELP_WIDTH;

	fprintf(out, "\n%s", title);
	for (unsigned int i = 0; i < n; i++) {
		int len = strlen(exts[i].name);

		if (col + 1 + len > HELP_WIDTH) {
			fputs("\n ", out);
			col = 1;
		}
		col += fprintf(out, " %s", exts[i].name);
	}
	fputc('\n', out);
}

static const char run_help_head[] =
	"usage: lkvm run [options] [kernel]\n"
	"\n"
	"Boot a RISC-V Linux kernel Image in a KVM virtual machine.  Options\n"
	"take their argument as '--opt ARG', '--opt=ARG', '-x ARG' or '-xARG';\n"
	"'--' ends the options.  A repeated option overrides the earlier one.\n";

static const char run_help_tail[] =
	"\n"
	"Console keys: Ctrl-A x stops the VM, Ctrl-A Ctrl-A sends Ctrl-A.\n"
	"\n"
	"A guest reboot (including a panicking guest booted with panic=-1)\n"
	"restarts the guest rather than exiting, with a \"lkvm: guest reboot\"\n"
	"line on stderr, so a crash loop is visible in the log, not in the\n"
	"exit status.\n"
	"\n"
	"Exit status:\n"
	"  0  the guest powered off\n"
	"  1  fatal host error\n"
	"  2  usage error\n"
	"  3  stopped by a signal (SIGINT, SIGTERM, SIGHUP) or Ctrl-A x\n"
	"  4  the guest crashed (KVM internal error, failed entry, an\n"
	"     access KVM cannot emulate, an unexpected exit, or a\n"
	"     shutdown reporting a system failure)\n";

void cli_print_run_help(FILE *out)
{
	fputs(run_help_head, out);
	for (const struct cli_opt *o = cli_opts; o < cli_opts + NR_OPTS; o++) {
		if (o->name)
			help_opt(out, o);
		else
			fprintf(out, "\n%s\n", o->help);
	}
	help_ext_list(out, "ISA extensions (--disable-EXT):", isa_exts,
		      ISA_EXT_COUNT);
	help_ext_list(out, "SBI extensions (--disable-sbi-EXT):", sbi_exts,
		      SBI_EXT_COUNT);
	fputs(run_help_tail, out);
}

void cli_print_usage(FILE *out)
{
	fputs("usage: lkvm COMMAND [ARGS]\n"
	      "\n"
	      "Commands:\n"
	      "  run [options] [kernel]   Boot a kernel in a KVM virtual machine\n"
	      "  version                  Print the version and exit\n"
	      "  help [run]               Show this help, or the options of 'run'\n"
	      "\n"
	      "'lkvm --help' and 'lkvm -h' are 'lkvm help'; 'lkvm --version' is\n"
	      "'lkvm version'.  See 'lkvm run --help' for the options and the\n"
	      "exit status.\n",
	      out);
}
