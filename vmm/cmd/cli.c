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
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "vmm/cmd/cli.h"
#include "vmm/isa.h"
#include "lib/log.h"
#include "vmm/sandbox/sandbox.h"
#include "vmm/cmd/netopt.h"

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
	bool sandbox_cmd; /* lkvm sandbox: a COMMAND ends the options */
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
	size_t field;	 /* offsetof() in vm_config, if used */
	size_t flag;	 /* offsetof() of a bool to raise, if used */
	const char *why; /* set_refused: what lkvm or the host lacks */
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

/* kvmtool's size suffixes; none means MiB.  -1: not a suffix. */
static int size_shift(char suffix)
{
	switch (suffix) {
	case 'B':
	case 'b':
		return 0;
	case 'K':
	case 'k':
		return 10;
	case '\0':
	case 'M':
	case 'm':
		return 20;
	case 'G':
	case 'g':
		return 30;
	case 'T':
	case 't':
		return 40;
	case 'P':
	case 'p':
		return 50;
	}
	return -1;
}

/*
 * Decimal, as kvmtool's -m (a leading 0 too: 0512 is 512); "0x" hex as
 * kvmtool's older base-0 -m took it.
 */
static int size_base(const char *s, const char **digits, const char **set)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		*digits = s + 2;
		*set = HEX_DIGITS;
		return 16;
	}
	*digits = s;
	*set = DEC_DIGITS;
	return 10;
}

int cli_parse_size(const char *s, uint64_t *bytes)
{
	const char *digits, *set;
	int base = size_base(s, &digits, &set);
	size_t len = strspn(digits, set);
	const char *end = digits + len;
	int shift = size_shift(end[0]);
	uint64_t n;
	int ret;

	if (!len || shift < 0 || (end[0] && end[1]))
		return -EINVAL;
	ret = parse_digits(digits, len, base, &n);
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
			"invalid memory size '%s' (expected SIZE[BKMGTP]; a bare number is MiB)",
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

/* A kvmtool option lkvm does not have: one line saying what is missing. */
static int set_refused(struct cli_run *r, const struct cli_opt *o,
		       CLI_UNUSED const char *arg)
{
	return cli_err(r, "--%s is not supported: %s", o->name, o->why);
}

static int set_u64(struct cli_run *r, const struct cli_opt *o, const char *arg)
{
	if (cli_parse_u64(arg, cfg_field(r, o->field)))
		return cli_err(
			r,
			"invalid --%s '%s' (expected a decimal or 0x hex number)",
			o->name, arg);
	if (o->flag)
		*(bool *)cfg_field(r, o->flag) = true;
	return 0;
}

/* --debug-iodelay MS: every disk request waits MS milliseconds first. */
static int set_iodelay(struct cli_run *r, const struct cli_opt *o,
		       const char *arg)
{
	uint64_t ms;

	if (cli_parse_u64(arg, &ms) || ms > CLI_IODELAY_MAX_MS)
		return cli_err(r, "invalid --%s '%s' (expected 0..%d ms)",
			       o->name, arg, CLI_IODELAY_MAX_MS);
	r->cfg->debug_iodelay_ms = ms;
	return 0;
}

/* --io-poll USEC: the longest busy-polling window of the disks. */
static int set_io_poll(struct cli_run *r, const struct cli_opt *o,
		       const char *arg)
{
	uint64_t us;

	if (cli_parse_u64(arg, &us) || us > CLI_IO_POLL_MAX_US)
		return cli_err(r, "invalid --%s '%s' (expected 0..%d us)",
			       o->name, arg, CLI_IO_POLL_MAX_US);
	r->cfg->io_poll_us = us;
	return 0;
}

/* --tty N: kvmtool's terminal N; lkvm has one, its console (0). */
static int set_tty(struct cli_run *r, const struct cli_opt *o, const char *arg)
{
	uint64_t n;

	if (cli_parse_u64(arg, &n))
		return cli_err(r, "invalid --%s '%s' (expected a number)",
			       o->name, arg);
	if (n != 0)
		return cli_err(
			r,
			"--%s %s is not supported: lkvm has one guest terminal, 0 (the console)",
			o->name, arg);
	r->cfg->tty = 0;
	return 0;
}

/* The rv64imafdc of --cpu-type min. */
static void cpu_min_base(uint64_t *bits)
{
	static const char base[] = "imafdc";

	memset(bits, 0, ISA_EXT_WORDS * sizeof(*bits));
	for (const char *c = base; *c; c++) {
		char name[2] = { *c, 0 };

		isa_ext_set(bits, isa_ext_lookup(name));
	}
}

/* --cpu-type max, or min[,EXT]...: rv64imafdc plus the listed ones. */
static int set_cpu_type(struct cli_run *r, const struct cli_opt *o,
			const char *arg)
{
	const char *p = arg + 3;
	char name[32];

	if (!strcmp(arg, "max")) {
		r->cfg->cpu_min = false;
		return 0;
	}
	if (strncmp(arg, "min", 3) || (*p && *p != ','))
		return cli_err(
			r, "invalid --%s '%s' (expected min[,EXT...] or max)",
			o->name, arg);
	cpu_min_base(r->cfg->min_isa);
	r->cfg->cpu_min = true;
	while (*p) {
		size_t n;
		int id;

		p += *p == ',';
		n = strcspn(p, ",");
		if (!n)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		id = n < sizeof(name) ? isa_ext_lookup(name) : -1;
		if (id < 0)
			return cli_err(
				r,
				"invalid --%s '%s' (no ISA extension '%.*s'; see 'lkvm run --help')",
				o->name, arg, (int)n, p);
		isa_ext_set(r->cfg->min_isa, id);
		p += n;
	}
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
	{ "kernel-plic", IRQCHIP_KERNEL_PLIC, true },
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

	if (id < 0 && isa_ext_is_newer(ext))
		return cli_err(
			r,
			"'%.*s' is not supported: lkvm knows KVM's ISA extensions up to Linux 6.12, and '%s' is newer",
			r->spelled_len, r->spelled, ext);
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
	if (n == 3 && !strncmp(opt, "raw", 3)) {
		d->raw = true;
		return 0;
	}
	if (n < sizeof(q) - 1 || strncmp(opt, q, sizeof(q) - 1))
		return cli_err(
			r,
			"unknown --disk option '%.*s' in '%s' (expected ro, direct, raw or queues=N)",
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

/* One more 9p share: dir (not empty), tag (1..CONFIG_TAG_MAX bytes). */
static int add_share(struct cli_run *r, const char *dir, size_t dlen,
		     const char *tag)
{
	struct share_config *sh = &r->cfg->shares[r->cfg->nr_shares];

	if (r->cfg->nr_shares == CONFIG_MAX_SHARES)
		return cli_err(r, "too many 9p shares (at most %d)",
			       CONFIG_MAX_SHARES);
	if (!dlen || dlen >= CONFIG_PATH_MAX)
		return cli_err(r, "invalid 9p directory '%.*s'", (int)dlen,
			       dir);
	if (!tag[0] || strlen(tag) > CONFIG_TAG_MAX)
		return cli_err(r, "invalid 9p tag '%s' (1..%d bytes)", tag,
			       CONFIG_TAG_MAX);
	for (unsigned int i = 0; i < r->cfg->nr_shares; i++)
		if (!strcmp(r->cfg->shares[i].tag, tag))
			return cli_err(r, "9p tag '%s' is used twice", tag);
	memcpy(sh->path, dir, dlen);
	sh->path[dlen] = '\0';
	strcpy(sh->tag, tag);
	r->cfg->nr_shares++;
	return 0;
}

/* A setup root's view of the host: / as hostfs, read-only. */
static int add_host_share(struct cli_run *r)
{
	int ret = add_share(r, "/", 1, SANDBOX_HOST_TAG);

	if (!ret)
		r->cfg->shares[r->cfg->nr_shares - 1].ro = true;
	return ret;
}

/* --9p dir[,tag] (kvmtool's; default tag kvm_9p) */
static int set_9p(struct cli_run *r, CLI_UNUSED const struct cli_opt *o,
		  const char *arg)
{
	const char *comma = strchr(arg, ',');

	return add_share(r, arg, comma ? (size_t)(comma - arg) : strlen(arg),
			 comma ? comma + 1 : "kvm_9p");
}

/*
 * -d DIR: the directory is the guest's root over 9p; -d NAME with a
 * ~/.lkvm/NAME made by 'lkvm setup': that root plus the host's / as
 * hostfs, and lkvm's guest init.  1 when arg was one of these, 0 when it
 * is an image, or -EINVAL.
 */
static int set_rootfs_dir(struct cli_run *r, const char *arg)
{
	char home[CONFIG_PATH_MAX];
	struct stat st;
	bool custom = false;
	int ret;

	if (stat(arg, &st) || !S_ISDIR(st.st_mode)) {
		custom = !strchr(arg, '/') && strlen(arg) < 256 &&
			 !sandbox_root_path(arg, home, sizeof(home)) &&
			 !stat(home, &st) && S_ISDIR(st.st_mode);
		if (!custom)
			return 0;
	}
	if (r->cfg->rootfs_9p)
		return cli_err(r,
			       "only one root directory (-d DIR) is allowed");
	ret = custom ? add_share(r, home, strlen(home), SANDBOX_ROOT_TAG) :
		       add_share(r, arg, strlen(arg), SANDBOX_ROOT_TAG);
	if (!ret && custom)
		ret = add_host_share(r);
	if (ret)
		return ret;
	r->cfg->rootfs_9p = true;
	r->cfg->custom_rootfs = custom;
	if (custom)
		strcpy(r->cfg->rootfs_name, arg);
	return 1;
}

/* -d path[,ro][,direct][,raw][,queues=N] */
static int set_disk(struct cli_run *r, CLI_UNUSED const struct cli_opt *o,
		    const char *arg)
{
	struct disk_config *d;
	const char *opt = strchr(arg, ',');
	size_t len = opt ? (size_t)(opt - arg) : strlen(arg);
	int ret = set_rootfs_dir(r, arg);

	if (ret)
		return ret < 0 ? ret : 0;
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
	const char *bad, *why;
	size_t n;

	if (netopt_parse(&nic, i, arg, &bad, &n)) {
		why = netopt_unsupported(bad, n);
		if (why)
			return cli_err(
				r,
				"--network %.*s in '%s' is not supported: %s",
				(int)n, bad, arg, why);
		return cli_err(r, "invalid --network setting '%.*s' in '%s'",
			       (int)n, bad, arg);
	}
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

/* run --sandbox SCRIPT: run the host's SCRIPT in the guest. */
static int set_sandbox(struct cli_run *r, const struct cli_opt *o,
		       const char *arg)
{
	int ret = set_path(r, o, arg);

	r->cfg->sandbox = !ret;
	return ret;
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
	      "Guest RAM, SIZE[BKMGTP]; a bare number is MiB;\n"
	      "decimal (0512 = 512M) or 0x hex (0x100 = 256M);\n"
	      "16M..512G, a multiple of 2M (default: 64M *\n"
	      "(cpus + 3), at most 80% of host RAM)") },
	{ OPT("disk", 'd', "IMAGE", set_disk,
	      "Disk image: a raw file or block device, with\n"
	      "',ro' read-only, ',direct' O_DIRECT,\n"
	      "',raw' no format check (a qcow2, QED, VMDK or\n"
	      "VHDX header is refused without it) and\n"
	      "',queues=N' request queues (1..8; default: one\n"
	      "per vCPU, at most 8); repeat for more disks\n"
	      "(/dev/vda, /dev/vdb, ...).  A directory DIR is\n"
	      "the guest's root file system over 9p; NAME, a\n"
	      "root made by 'lkvm setup NAME', boots it with\n"
	      "lkvm's guest init and the host's / at /host") },
	{ OPT("io-poll", 0, "USEC", set_io_poll,
	      "Busy-poll the disks' request queues for up to\n"
	      "USEC microseconds after each request, with\n"
	      "the guest's notifications off; the window\n"
	      "adapts to the guest (0 = never; default:\n" STR(
		      CONFIG_IO_POLL_US) " when the host has more CPUs than\n"
					 "the guest, else 0)") },
	{ OPT("9p", 0, "DIR,TAG", set_9p,
	      "Share the host's DIR with the guest over\n"
	      "virtio-9p (9P2000.L) as TAG (default: kvm_9p):\n"
	      "mount -t 9p -o trans=virtio TAG /mnt; repeat\n"
	      "for more (at most " STR(CONFIG_MAX_SHARES) ")") },
	{ OPT("sandbox", 0, "SCRIPT", set_sandbox,
	      "Run the host's shell SCRIPT in the guest and\n"
	      "exit with its status (see 'lkvm sandbox')"),
	  .field = CFG(sandbox_script) },
	{ OPT("vnc", 0, NULL, set_refused, "Not supported: no framebuffer"),
	  .why = "lkvm has no framebuffer or display device" },
	{ OPT("gtk", 0, NULL, set_refused, "Not supported: no framebuffer"),
	  .why = "lkvm has no framebuffer or display device" },
	{ OPT("sdl", 0, NULL, set_refused, "Not supported: no framebuffer"),
	  .why = "lkvm has no framebuffer or display device" },
	{ OPT("console", 0, "TYPE", set_console,
	      "serial (8250 UART, ttyS0), hv (SBI console,\n"
	      "hvc0) or virtio (virtio-console: hvc0, or hvc1\n"
	      "if the guest has the SBI hvc driver too)\n"
	      "(default: serial)") },
	{ OPT("rng", 0, NULL, set_rng,
	      "virtio RNG (entropy from the host's getrandom)") },
	{ OPT("balloon", 0, NULL, set_true,
	      "virtio memory balloon ('lkvm balloon' gives\n"
	      "guest RAM back to the host; 'lkvm stat -m')"),
	  .field = CFG(balloon) },
	{ OPT("vsock", 0, "CID", set_refused,
	      "Not supported: no virtio-vsock device"),
	  .why = "lkvm has no virtio-vsock device (vhost-vsock)" },
	{ OPT("dev", 0, "PATH", set_path,
	      "KVM device file (default: /dev/kvm)"),
	  .field = CFG(dev) },
	{ OPT("tty", 0, "N", set_tty,
	      "Put guest terminal N on a new host pty (its\n"
	      "name is logged); lkvm has one terminal, 0,\n"
	      "the console") },
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
	      "Do not put console=... on the kernel command\n"
	      "line, nor boot ~/.lkvm/default when given no\n"
	      "root, disk or initrd"),
	  .field = CFG(nodefaults) },
	{ OPT("loglevel", 0, "LEVEL", set_loglevel,
	      "error, warning, info or debug\n"
	      "(default: info)") },
	{ OPT("no-seccomp", 0, NULL, set_true,
	      "Run without the seccomp filter (see below)"),
	  .field = CFG(no_seccomp) },
	{ OPT("help", 'h', NULL, set_help, "Show this help and exit") },

	{ .help = "Kernel options:" },
	{ OPT("kernel", 'k', "FILE", set_path,
	      "Kernel Image to boot (or give it as the first\n"
	      "argument that is not an option; without it,\n"
	      "kvmtool's search: ./bzImage, arch/riscv/boot/\n"
	      "bzImage, /boot/vmlinuz-$(uname -r)).  With no\n"
	      "-d, -i, root= in -p or --nodefaults: a shell\n"
	      "in ~/.lkvm/default over 9p (made if missing;\n"
	      "the host's / read-only at /host)"),
	  .field = CFG(kernel) },
	{ OPT("initrd", 'i', "FILE", set_path, "Initial RAM disk"),
	  .field = CFG(initrd) },
	{ OPT("params", 'p', "ARGS", set_string,
	      "Kernel command line, added after the default\n"
	      "console=ttyS0 (serial) or console=hvc0 (hv,\n"
	      "virtio)"),
	  .field = CFG(params) },
	{ OPT("firmware", 'f', "FILE", set_path,
	      "Boot a raw firmware image instead of a kernel:\n"
	      "loaded at the start of RAM (0x80000000) and\n"
	      "entered there with a0 = hart id, a1 = device\n"
	      "tree, whose bootargs are -p only; no initrd"),
	  .field = CFG(firmware) },
	{ OPT("flash", 'F', "FILE", set_refused,
	      "Not supported: no flash device"),
	  .why = "lkvm has no CFI flash device (kvmtool's is arm64-only and ignores -F on RISC-V)" },

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
	      "tapif=NAME (an existing tap is used as it\n"
	      "is), script=PATH|none, downscript=PATH|none.\n"
	      "user (passt):\n"
	      "host_mac=MAC (02:01:01:01:01:01),\n"
	      "fwd=tcp|udp:[ADDR:]HOSTPORT:GUESTPORT (host\n"
	      "port to guest port; repeatable).  Without -n:\n"
	      "one user-mode NIC (no NIC, with a warning, if\n"
	      "passt is not installed)") },
	{ OPT("no-dhcp", 0, NULL, set_true,
	      "No DHCP: a setup root's kernel gets no\n"
	      "ip=dhcp (as kvmtool) and the user-mode\n"
	      "network answers none: the guest sets its\n"
	      "address itself"),
	  .field = CFG(no_dhcp) },

	{ .help = "VFIO options:" },
	{ OPT("vfio-pci", 0, "BDF", set_refused,
	      "Not supported: no VFIO device assignment"),
	  .why = "lkvm has no VFIO device assignment" },

	{ .help = "Debug options:" },
	{ OPT("debug", 0, NULL, set_debug, "Same as --loglevel debug") },
	{ OPT("debug-single-step", 0, NULL, set_true,
	      "Single-step the vCPUs (needs KVM_GUESTDBG_\n"
	      "SINGLESTEP, which RISC-V KVM lacks: lkvm then\n"
	      "exits with status 1)"),
	  .field = CFG(single_step) },
	{ OPT("debug-ioport", 0, NULL, set_true,
	      "Log port I/O to no device: RISC-V has no port\n"
	      "I/O, so there is never any"),
	  .field = CFG(debug_ioport) },
	{ OPT("debug-mmio", 0, NULL, set_true,
	      "Log every guest MMIO access that no device\n"
	      "claims (default: the first one)"),
	  .field = CFG(debug_mmio) },
	{ OPT("debug-iodelay", 0, "MS", set_iodelay,
	      "Delay every disk request by MS milliseconds\n"
	      "(0.." STR(
		      CLI_IODELAY_MAX_MS) "; uses the thread pool engine)") },
	{ OPT("dump-dtb", 0, "FILE", set_path,
	      "Write the generated device tree to FILE"),
	  .field = CFG(dump_dtb) },

	{ .help = "RISC-V options:" },
	{ OPT("cpu-type", 0, "TYPE", set_cpu_type,
	      "max (every extension KVM offers; the default)\n"
	      "or min[,EXT...]: rv64imafdc plus the listed\n"
	      "extensions; KVM 6.12 keeps some others on\n"
	      "(named at --loglevel debug)") },
	{ OPT("suspend-seconds", 0, "N", set_u64,
	      "Seconds a guest's SBI system suspend lasts.\n"
	      "Not supported yet: lkvm exits with status 1,\n"
	      "naming whether the host KVM forwards SBI SUSP\n"
	      "(Linux 6.14+; 6.12 does not)"),
	  .field = CFG(suspend_seconds), .flag = CFG(set_suspend_seconds) },
	{ OPT("irqchip", 0, "TYPE", set_irqchip,
	      "aia (KVM's in-kernel AIA: APLIC + IMSIC,\n"
	      "interrupts through irqfd), kernel-plic (KVM's\n"
	      "in-kernel PLIC, from rvkvm's kernel patches;\n"
	      "interrupts through irqfd), plic (a PLIC\n"
	      "emulated in lkvm) or auto: aia when the host\n"
	      "has it and --disable-ssaia is not given, else\n"
	      "kernel-plic when KVM offers it, else plic\n"
	      "(default: auto)") },
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

		if (r->sandbox_cmd && (opts_done || a[0] != '-' || !a[1])) {
			r->cfg->sandbox_argv = argv + i; /* the command */
			return 0;
		}
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
	const char *root = "", *dhcp = "";
	int n;

	if (!cfg->nodefaults && !cfg->firmware)
		def = cfg->console != CONSOLE_SERIAL ? "console=hvc0" :
						       "console=ttyS0";
	/* kvmtool's rule: a disk and no root= means root=/dev/vda rw. */
	if (cfg->rootfs_9p)
		root = cfg->custom_rootfs ? SANDBOX_ROOT_PARAMS
			       " init=" SANDBOX_INIT :
					    SANDBOX_ROOT_PARAMS;
	else if (cfg->nr_disks && !strstr(params, "root=") && !cfg->firmware)
		root = "root=/dev/vda rw";
	/* kvmtool's too: a setup root's kernel asks for DHCP (--no-dhcp). */
	if (cfg->custom_rootfs && !cfg->no_dhcp)
		dhcp = " ip=dhcp";
	n = snprintf(cfg->cmdline, sizeof(cfg->cmdline), "%s%s%s%s%s%s", def,
		     def[0] && root[0] ? " " : "", root, dhcp,
		     (def[0] || root[0]) && params[0] ? " " : "", params);
	if (cfg->sandbox && n > 0 && n < (int)sizeof(cfg->cmdline))
		n += snprintf(cfg->cmdline + n, sizeof(cfg->cmdline) - n,
			      " " SANDBOX_PARAM "=" SANDBOX_RUN_DIR "%ld",
			      cfg->pid);
	if (n < 0 || n >= (int)sizeof(cfg->cmdline)) {
		cfg->cmdline[0] = '\0';
		return cli_err(
			r,
			"kernel command line is too long (more than %d bytes)",
			CONFIG_CMDLINE_MAX - 1);
	}
	return 0;
}

/*
 * A plain run boots the default root only where it can: with HOME set, two
 * share slots free and its tags unused; else one warning line, and the
 * kernel boots alone as before.
 */
static bool default_root_fits(struct cli_run *r, bool no_home)
{
	const struct vm_config *cfg = r->cfg;
	const char *why = NULL;

	if (no_home)
		why = "HOME is not set";
	else if (cfg->nr_shares > CONFIG_MAX_SHARES - 2)
		why = "its two 9p shares do not fit beside the --9p ones";
	for (unsigned int i = 0; !why && i < cfg->nr_shares; i++)
		if (!strcmp(cfg->shares[i].tag, SANDBOX_ROOT_TAG) ||
		    !strcmp(cfg->shares[i].tag, SANDBOX_HOST_TAG))
			why = "a --9p share has one of its tags";
	if (why)
		fprintf(r->err,
			"lkvm: warning: not booting ~/.lkvm/default (%s): the kernel alone boots\n",
			why);
	return !why;
}

/*
 * A sandbox boots a root made by 'lkvm setup' (-d NAME), by default
 * ~/.lkvm/default (made at the run if missing), as kvmtool does.  So does
 * a run given nothing else to boot (kvmtool's rule: no root, disk or
 * initrd, no --firmware or --nodefaults; nor a root= in -p): a shell in
 * that root, with the host's / read-only at /host.
 */
static int default_root_finish(struct cli_run *r)
{
	struct vm_config *cfg = r->cfg;
	char root[CONFIG_PATH_MAX];
	int ret = sandbox_root_path(SANDBOX_DEFAULT_ROOT, root, sizeof(root));

	if (cfg->sandbox) {
		if (cfg->rootfs_9p && !cfg->custom_rootfs)
			return cli_err(
				r,
				"a sandbox needs a root made by 'lkvm setup NAME' (-d NAME), not a directory");
		if (cfg->custom_rootfs)
			return 0;
		if (cfg->nr_disks || cfg->initrd)
			return cli_err(
				r,
				"a sandbox boots over 9p: no -d IMAGE or -i");
	} else if (cfg->rootfs_9p || cfg->nr_disks || cfg->initrd ||
		   cfg->firmware || cfg->nodefaults ||
		   (cfg->params && strstr(cfg->params, "root="))) {
		return 0; /* -p root=...: the user says where the root is */
	} else if (!default_root_fits(r, ret == -ENOENT)) {
		return 0;
	}
	if (ret)
		return cli_err(r, "no home directory for ~/.lkvm (set HOME)");
	ret = add_share(r, root, strlen(root), SANDBOX_ROOT_TAG);
	ret = ret ?: add_host_share(r);
	if (ret)
		return ret;
	cfg->rootfs_9p = cfg->custom_rootfs = true;
	strcpy(cfg->rootfs_name, SANDBOX_DEFAULT_ROOT);
	return 0;
}

/*
 * No -k and no --firmware: kvmtool's search, first a kernel tree's (its
 * bzImage names, kept for scripts that rely on them), then the host's own
 * kernel.  0 with cfg->kernel set, or -ENOENT.
 */
static int find_kernel(struct cli_run *r)
{
	/* A trailing '-' takes the host's release (uname -r). */
	static const char *const where[] = {
		"./bzImage",
		"arch/riscv/boot/bzImage",
		"../../arch/riscv/boot/bzImage",
		"/boot/vmlinuz-",
		"/boot/bzImage-",
	};
	const char *release = r->host->release;
	char *k = r->cfg->found_kernel;
	struct stat st;

	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		bool versioned = where[i][strlen(where[i]) - 1] == '-';

		if (versioned && !release[0])
			continue;
		snprintf(k, sizeof(r->cfg->found_kernel), "%s%s", where[i],
			 versioned ? release : "");
		if (!stat(k, &st) && S_ISREG(st.st_mode)) {
			r->cfg->kernel = k;
			return 0;
		}
	}
	k[0] = '\0';
	return -ENOENT;
}

static int run_finish(struct cli_run *r)
{
	struct vm_config *cfg = r->cfg;
	const struct cli_host *host = r->host;

	if (cfg->kernel && cfg->firmware)
		return cli_err(
			r, "only one of --kernel and --firmware can be given");
	if (!cfg->kernel && !cfg->firmware && find_kernel(r))
		return cli_err(
			r,
			"no kernel given (-k FILE), and none found where kvmtool looks (./bzImage, arch/riscv/boot/bzImage, /boot/vmlinuz-%s, ...)",
			host->release[0] ? host->release : "RELEASE");
	if (cfg->firmware && cfg->initrd) {
		fprintf(r->err,
			"lkvm: warning: ignoring the initrd: --firmware boots no kernel\n");
		cfg->initrd = NULL;
	}
	if (cfg->irqchip == IRQCHIP_AIA &&
	    config_isa_hidden(cfg, isa_ext_lookup("ssaia")))
		return cli_err(r, "--irqchip aia needs Ssaia, which %s hides",
			       cfg->cpu_min ? "--cpu-type min without ssaia" :
					      "--disable-ssaia");
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
	cfg->pid = host->pid;
	return default_root_finish(r) ?: cmdline_build(r);
}

/* --- commands ---------------------------------------------------------- */

static int cmd_run(struct cli_run *r, int argc, char **argv)
{
	int ret = run_parse_args(r, argc, argv);

	return ret ? ret : run_finish(r);
}

/* lkvm sandbox [run options] [--] COMMAND [ARGS] */
static int cmd_sandbox(struct cli_run *r, int argc, char **argv)
{
	int ret;

	r->sandbox_cmd = true;
	ret = run_parse_args(r, argc, argv);
	if (ret)
		return ret;
	if (r->cfg->sandbox_script)
		return cli_err(r,
			       "lkvm sandbox takes a COMMAND, not --sandbox");
	if (!r->cfg->sandbox_argv || !r->cfg->sandbox_argv[0])
		return cli_err(
			r,
			"no command given (lkvm sandbox [options] -- COMMAND [ARGS])");
	r->cfg->sandbox = true;
	return run_finish(r);
}

/* lkvm setup NAME */
static int cmd_setup(struct cli_run *r, int argc, char **argv)
{
	if (argc != 3 || !sandbox_name_ok(argv[2]))
		return cli_err(
			r,
			"usage: lkvm setup NAME (a name for ~/.lkvm/NAME, no '/')");
	r->cfg->rootfs_name[0] = '\0';
	strcpy(r->cfg->rootfs_name, argv[2]);
	return CLI_SETUP;
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

/* Commands for running guests: cmd_ctl.c parses, main.c runs them. */
static int cmd_ctl(struct cli_run *r, int argc, char **argv)
{
	int ret = ctl_args_parse(argc - 1, argv + 1, &r->cfg->ctl, r->out,
				 r->err);

	return ret < 0 ? ret : ret ? CLI_DONE : CLI_CTL;
}

static const struct cli_cmd {
	const char *name;
	int (*fn)(struct cli_run *r, int argc, char **argv);
} cli_cmds[] = {
	{ "run", cmd_run },	      { "sandbox", cmd_sandbox },
	{ "setup", cmd_setup },	      { "version", cmd_version },
	{ "--version", cmd_version }, { "help", cmd_help },
	{ "--help", cmd_help },	      { "-h", cmd_help },
	{ "list", cmd_ctl },	      { "stop", cmd_ctl },
	{ "pause", cmd_ctl },	      { "resume", cmd_ctl },
	{ "debug", cmd_ctl },	      { "stat", cmd_ctl },
	{ "balloon", cmd_ctl },
};

int cli_parse(int argc, char **argv, const struct cli_host *host,
	      struct vm_config *cfg, FILE *out, FILE *err)
{
	struct cli_run r = { .cfg = cfg, .host = host, .out = out, .err = err };
	size_t n = sizeof(cli_cmds) / sizeof(cli_cmds[0]);

	memset(cfg, 0, sizeof(*cfg));
	cfg->tty = -1;
	cfg->io_poll_us = -1;
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
	struct utsname uts;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long pages = sysconf(_SC_PHYS_PAGES);
	long page_size = sysconf(_SC_PAGE_SIZE);

	host->online_cpus = cpus > 0 ? (unsigned int)cpus : 0;
	host->mem_bytes = pages > 0 && page_size > 0 ?
				  (uint64_t)pages * (uint64_t)page_size :
				  0;
	host->pid = getpid();
	host->release[0] = '\0';
	if (!uname(&uts))
		snprintf(host->release, sizeof(host->release), "%s",
			 uts.release);
}

int cli_summary(const struct vm_config *cfg, char *buf, size_t size)
{
	int n = snprintf(buf, size, "# lkvm run %s %s -m %llu -c %u --name %s",
			 cfg->firmware ? "--firmware" : "-k",
			 cfg->firmware ? cfg->firmware :
			 cfg->kernel   ? cfg->kernel :
					 "",
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

static const char run_help_sbi_aliases[] =
	"kvmtool's names work too: --disable-sbi-legacy is v01, and\n"
	"--disable-sbi-susp hides SBI SUSP (absent from a 6.12 host anyway).\n"
	"--disable-EXT for an extension newer than Linux 6.12 (svade, svadu,\n"
	"svvptc, zabha, ziccrse, smnpm) is refused: lkvm does not know it.\n";

static const char run_help_tail[] =
	"\n"
	"Not supported, refused with one line saying what lkvm lacks (exit\n"
	"status 2): --vnc, --gtk, --sdl, --vsock, -F/--flash, --vfio-pci,\n"
	"--virtio-legacy, --tty N for N > 0, and -n vhost=1, mq=N (N > 1), fd=N.\n"
	"\n"
	"Seccomp: once set up, lkvm runs under a seccomp filter that allows only\n"
	"the system calls its threads need (--no-seccomp turns it off).  Any\n"
	"other system call ends lkvm at once with the line\n"
	"  lkvm: seccomp: forbidden system call NAME (number N)\n"
	"on stderr and exit status 5.\n"
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
	"  3  stopped by a signal (SIGINT, SIGTERM, SIGHUP), Ctrl-A x or\n"
	"     'lkvm stop'\n"
	"  4  the guest crashed (KVM internal error, failed entry, an\n"
	"     access KVM cannot emulate, an unexpected exit, or a\n"
	"     shutdown reporting a system failure)\n"
	"  5  a forbidden system call under seccomp (see above)\n"
	"lkvm sandbox and run --sandbox exit with the command's status\n"
	"instead, or 125 when the guest reported none.\n";

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
	fputs(run_help_sbi_aliases, out);
	fputs(run_help_tail, out);
}

void cli_print_usage(FILE *out)
{
	fputs("usage: lkvm COMMAND [ARGS]\n"
	      "\n"
	      "Commands:\n"
	      "  run [options] [kernel]   Boot a kernel in a KVM virtual machine\n"
	      "  sandbox [options] [--] COMMAND [ARGS]\n"
	      "                           Boot a guest (-k IMAGE) from a root made\n"
	      "                           by 'setup' (-d NAME; default ~/.lkvm/\n"
	      "                           default, made if missing) over 9p, the\n"
	      "                           host's / at /host; run COMMAND in it (a\n"
	      "                           host file runs as /host/PATH), power off\n"
	      "                           and exit with COMMAND's status (125: none\n"
	      "                           came back)\n"
	      "  setup NAME               Make a guest root in ~/.lkvm/NAME for\n"
	      "                           'lkvm run -d NAME' and 'lkvm sandbox'\n"
	      "  list [-i] [-r]           List running guests (-i) and kvmtool\n"
	      "                           rootfs directories (-r); both by default\n"
	      "  stop -n NAME | -a        Stop a guest (its lkvm run exits with 3)\n"
	      "  pause -n NAME | -a       Hold every vCPU of a guest\n"
	      "  resume -n NAME | -a      Let a paused guest run again\n"
	      "  debug -n NAME | -a -d    Print the vCPU registers\n"
	      "  stat -n NAME | -a -m     Memory and balloon statistics\n"
	      "  balloon -n NAME -i MB | -d MB\n"
	      "                           Inflate or deflate the balloon\n"
	      "  version                  Print the version and exit\n"
	      "  help [run]               Show this help, or the options of 'run'\n"
	      "\n"
	      "'lkvm --help' and 'lkvm -h' are 'lkvm help'; 'lkvm --version' is\n"
	      "'lkvm version'.  See 'lkvm run --help' for the options and the\n"
	      "exit status, 'lkvm COMMAND --help' for the others.  Guests are\n"
	      "found by name (lkvm run --name) through their control sockets\n"
	      "in ~/.lkvm; these commands exit with 0, 1 when a guest cannot be\n"
	      "reached or refuses, or 2 for a usage error.\n",
	      out);
}
