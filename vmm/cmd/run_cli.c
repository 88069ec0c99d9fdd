// SPDX-License-Identifier: GPL-2.0
/*
 * The command line of 'lkvm run' and 'lkvm sandbox'.  run_opts[] below is
 * the only list of their options: the option engine (lib/opt.h) looks
 * options up in it and 'lkvm run --help' is printed from it.  Parsing
 * state lives in a struct on the caller's stack; nothing here exits or
 * touches globals.  run_finish.c completes the configuration.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/log.h"
#include "lib/sizes.h"
#include "vmm/cmd/netopt.h"
#include "vmm/cmd/run_cli.h"
#include "vmm/cmd/run_parse.h"
#include "vmm/isa.h"
#include "vmm/sandbox/sandbox.h"

#define STR_(x) #x
#define STR(x) STR_(x)

#define HELP_COL 32   /* where the help text of an option starts */
#define HELP_WIDTH 79 /* wrap the extension lists here */

struct cli_choice {
	const char *name;
	int value;
	const char *why; /* known but refused: what lkvm lacks */
};

static int set_mem(struct opt_parser *p, const struct opt *o, const char *arg)
{
	struct cli_run *r = p->ctx;
	uint64_t bytes = 0;
	int ret = opt_parse_size(arg, &bytes);

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

static int set_cpus(struct opt_parser *p, const struct opt *o, const char *arg)
{
	struct cli_run *r = p->ctx;
	uint64_t n;

	if (opt_parse_u64(arg, &n) || n < 1 || n > CONFIG_MAX_CPUS)
		return cli_err(r,
			       "invalid number of CPUs '%s' (expected 1..%d)",
			       arg, CONFIG_MAX_CPUS);
	r->cfg->nr_cpus = n;
	return 0;
}

static int set_custom_id(struct opt_parser *p, const struct opt *o,
			 const char *arg)
{
	struct cli_run *r = p->ctx;

	if (opt_parse_u64(arg, opt_field(&r->p, o->field)))
		return cli_err(
			r,
			"invalid --%s '%s' (expected a decimal or 0x hex number up to 64 bits)",
			o->name, arg);
	*(bool *)opt_field(&r->p, o->flag) = true;
	return 0;
}

/*
 * A number from 0 to a limit, with its unit (--io-poll, --debug-iodelay,
 * --timeout, --suspend-seconds): .data is the struct bound, .field an
 * unsigned int, or an int with .kind BOUND_INT; .flag, if any, is raised.
 */
struct bound {
	unsigned int max;
	const char *unit;
};

enum { BOUND_UINT, BOUND_INT };

static const struct bound io_poll_bound = { CLI_IO_POLL_MAX_US, "us" };
static const struct bound iodelay_bound = { CLI_IODELAY_MAX_MS, "ms" };
static const struct bound timeout_bound = { CLI_TIMEOUT_MAX_S, "seconds" };

static int set_bounded(struct opt_parser *p, const struct opt *o,
		       const char *arg)
{
	const struct bound *b = o->data;
	struct cli_run *r = p->ctx;
	void *field = opt_field(&r->p, o->field);
	uint64_t v;

	if (opt_parse_u64(arg, &v) || v > b->max)
		return cli_err(r, "invalid --%s '%s' (expected 0..%u %s)",
			       o->name, arg, b->max, b->unit);
	if (o->kind == BOUND_INT)
		*(int *)field = (int)v;
	else
		*(unsigned int *)field = (unsigned int)v;
	if (o->flag)
		*(bool *)opt_field(&r->p, o->flag) = true;
	return 0;
}

/* -i FILE, repeatable: the initrds are concatenated in order. */
static int set_initrd(struct opt_parser *p, const struct opt *o,
		      const char *arg)
{
	struct cli_run *r = p->ctx;
	struct vm_config *cfg = r->cfg;

	if (!arg[0])
		return cli_err(r, "option '%.*s' requires a non-empty argument",
			       p->spelled_len, p->spelled);
	if (cfg->nr_initrds == CONFIG_MAX_INITRDS)
		return cli_err(r, "too many initrds (at most %d -i)",
			       CONFIG_MAX_INITRDS);
	cfg->initrds[cfg->nr_initrds++] = arg;
	return 0;
}

/*
 * --gdb tcp:[HOST:]PORT or unix:PATH: the form here (a typo is a usage
 * error); the address itself when the stub binds it (vmm/machine/gdb.c).
 */
static int set_gdb(struct opt_parser *p, const struct opt *o, const char *arg)
{
	struct cli_run *r = p->ctx;
	const char *port = strrchr(arg, ':');
	uint64_t n;

	if (!strncmp(arg, "unix:", 5) && arg[5])
		return opt_set_string(p, o, arg);
	if (strncmp(arg, "tcp:", 4) || opt_parse_u64(port + 1, &n) || !n ||
	    n > 65535)
		return cli_err(
			r,
			"invalid --%s '%s' (expected tcp:PORT, tcp:HOST:PORT or unix:PATH)",
			o->name, arg);
	return opt_set_string(p, o, arg);
}

/* --tty N: kvmtool's terminal N; lkvm has one, its console (0). */
static int set_tty(struct opt_parser *p, const struct opt *o, const char *arg)
{
	struct cli_run *r = p->ctx;
	uint64_t n;

	if (opt_parse_u64(arg, &n))
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
static int set_cpu_type(struct opt_parser *p, const struct opt *o,
			const char *arg)
{
	struct cli_run *r = p->ctx;
	const char *e = arg + 3;
	char name[32];

	if (!strcmp(arg, "max")) {
		r->cfg->cpu_min = false;
		return 0;
	}
	if (strncmp(arg, "min", 3) || (*e && *e != ','))
		return cli_err(
			r, "invalid --%s '%s' (expected min[,EXT...] or max)",
			o->name, arg);
	cpu_min_base(r->cfg->min_isa);
	r->cfg->cpu_min = true;
	while (*e) {
		size_t n;
		int id;

		e += *e == ',';
		n = strcspn(e, ",");
		if (!n)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)n, e);
		id = n < sizeof(name) ? isa_ext_lookup(name) : -1;
		if (id < 0)
			return cli_err(
				r,
				"invalid --%s '%s' (no ISA extension '%.*s'; see 'lkvm run --help')",
				o->name, arg, (int)n, e);
		isa_ext_set(r->cfg->min_isa, id);
		e += n;
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

/* The choice arg names in list, or NULL having said why. */
static const struct cli_choice *choose(struct cli_run *r, const struct opt *o,
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
	if (c->why) {
		cli_err(r, "--%s %s is not supported: %s", o->name, arg,
			c->why);
		return NULL;
	}
	return c;
}

#define MODERN_ONLY "lkvm has modern virtio only"

static const struct cli_choice consoles[] = {
	{ "serial", CONSOLE_SERIAL, NULL },
	{ "virtio", CONSOLE_VIRTIO, NULL },
	{ "hv", CONSOLE_HV, NULL },
	{ NULL, 0, NULL },
};

static const struct cli_choice irqchips[] = {
	{ "auto", IRQCHIP_AUTO, NULL },
	{ "aia", IRQCHIP_AIA, NULL },
	{ "plic", IRQCHIP_PLIC, NULL },
	{ "kernel-plic", IRQCHIP_KERNEL_PLIC, NULL },
	{ NULL, 0, NULL },
};

static const struct cli_choice transports[] = {
	{ "pci", VIRTIO_TRANSPORT_PCI, NULL },
	{ "mmio", VIRTIO_TRANSPORT_MMIO, NULL },
	{ "pci-legacy", 0, MODERN_ONLY },
	{ "mmio-legacy", 0, MODERN_ONLY },
	{ NULL, 0, NULL },
};

static const struct cli_choice loglevels[] = {
	{ "error", LOG_ERR, NULL }, { "warning", LOG_WARN, NULL },
	{ "info", LOG_INFO, NULL }, { "debug", LOG_DEBUG, NULL },
	{ NULL, 0, NULL },
};

static const struct cli_choice io_notifies[] = {
	{ "auto", IO_NOTIFY_AUTO, NULL },
	{ "iothread", IO_NOTIFY_IOTHREAD, NULL },
	{ "vcpu", IO_NOTIFY_VCPU, NULL },
	{ NULL, 0, NULL },
};

/* The enums the choices go into are stored as int. */
_Static_assert(sizeof(enum console_type) == sizeof(int) &&
		       sizeof(enum io_notify) == sizeof(int) &&
		       sizeof(enum irqchip_choice) == sizeof(int) &&
		       sizeof(enum virtio_transport) == sizeof(int),
	       "a choice is stored through an int");

/* One of the names in o->data (a cli_choice list), into the int at .field. */
static int set_choice(struct opt_parser *p, const struct opt *o,
		      const char *arg)
{
	const struct cli_choice *c = choose(p->ctx, o, o->data, arg);

	if (!c)
		return -EINVAL;
	*(int *)opt_field(p, o->field) = c->value;
	return 0;
}

static int set_debug(struct opt_parser *p, const struct opt *o, const char *arg)
{
	struct cli_run *r = p->ctx;

	r->cfg->debug = true;
	r->cfg->loglevel = LOG_DEBUG;
	return 0;
}

static int unknown_ext(struct cli_run *r, const char *kind, const char *ext)
{
	return cli_err(
		r,
		"unknown option '%.*s' (no %s extension '%s'; see 'lkvm run --help')",
		r->p.spelled_len, r->p.spelled, kind, ext);
}

static int set_disable_isa(struct opt_parser *p, const struct opt *o,
			   const char *ext)
{
	struct cli_run *r = p->ctx;
	int id = isa_ext_lookup(ext);

	if (id < 0)
		return unknown_ext(r, "ISA", ext);
	isa_ext_set(r->cfg->disable_isa, id);
	return 0;
}

static int set_disable_sbi(struct opt_parser *p, const struct opt *o,
			   const char *ext)
{
	struct cli_run *r = p->ctx;
	int id = sbi_ext_lookup(ext);

	if (id < 0 || id >= 64)
		return unknown_ext(r, "SBI", ext);
	r->cfg->disable_sbi |= 1ULL << id;
	return 0;
}

static int set_rng(struct opt_parser *p, const struct opt *o, const char *arg)
{
	struct cli_run *r = p->ctx;

	r->cfg->rng = true;
	return 0;
}

/* --vsock CID[,socket=PATH]'s PATH: the unix-socket back-end. */
static int set_vsock_socket(struct cli_run *r, const char *opt)
{
	static const char key[] = "socket=";
	const char *path = opt + sizeof(key) - 1;

	if (strncmp(opt, key, sizeof(key) - 1))
		return cli_err(
			r,
			"--vsock: '%s' is not socket=PATH (expected CID or CID,socket=PATH)",
			opt);
	if (!*path)
		return cli_err(r, "--vsock: socket= needs a PATH");
	if (strlen(path) > CONFIG_VSOCK_SOCKET_MAX)
		return cli_err(
			r,
			"--vsock: socket=%s is too long (at most %d bytes, so that PATH_<port> fits a unix socket address)",
			path, CONFIG_VSOCK_SOCKET_MAX);
	strcpy(r->cfg->vsock_socket, path);
	return 0;
}

/*
 * --vsock CID[,socket=PATH]: 0 (hypervisor), 1 (local), 2 (host) and -1
 * (any) are not CIDs a guest may have; one vsock device.
 */
static int set_vsock(struct opt_parser *p, const struct opt *o, const char *arg)
{
	struct cli_run *r = p->ctx;
	const char *comma = strchr(arg, ',');
	char num[32] = ""; /* CID,...: the CID; too long for one: "" */
	uint64_t cid;
	int ret;

	if (r->cfg->vsock_cid)
		return cli_err(r,
			       "--%s given twice (lkvm has one vsock device)",
			       o->name);
	if (comma && (size_t)(comma - arg) < sizeof(num)) {
		memcpy(num, arg, comma - arg);
		num[comma - arg] = '\0';
		ret = set_vsock_socket(r, comma + 1);
		if (ret)
			return ret;
	}
	if (opt_parse_u64(comma ? num : arg, &cid))
		return cli_err(r, "invalid --%s '%s' (expected a CID number)",
			       o->name, arg);
	if (cid < CONFIG_VSOCK_CID_MIN || cid > CONFIG_VSOCK_CID_MAX)
		return cli_err(
			r,
			"--%s %s: a guest's CID is %llu to %llu (0, 1 and 2 are reserved, 4294967295 means any)",
			o->name, arg, (unsigned long long)CONFIG_VSOCK_CID_MIN,
			(unsigned long long)CONFIG_VSOCK_CID_MAX);
	r->cfg->vsock_cid = cid;
	return 0;
}

/* run --sandbox SCRIPT: run the host's SCRIPT in the guest. */
static int set_sandbox(struct opt_parser *p, const struct opt *o,
		       const char *arg)
{
	struct cli_run *r = p->ctx;
	int ret = opt_set_path(p, o, arg);

	r->cfg->sandbox = !ret;
	return ret;
}

static int set_help(struct opt_parser *p, const struct opt *o, const char *arg)
{
	cli_print_run_help(p->out);
	return CLI_DONE;
}

/* --- the option table -------------------------------------------------- */

#define CFG(member) offsetof(struct vm_config, member)

/* One option: long name, short letter, argument name, setter, help. */
#define OPT(n, l, a, fn, h) \
	.name = n, .letter = l, .arg = a, .set = fn, .help = h

static const struct opt run_opts[] = {
	{ .help = "Basic options:" },
	{ OPT("name", 0, "NAME", opt_set_path,
	      "Guest name (default: guest-<pid>)"),
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
	{ OPT("disk", 'd', "IMAGE", run_set_disk,
	      "Disk image: a raw file or block device, with\n"
	      "',ro' read-only, ',direct' O_DIRECT,\n"
	      "',raw' no format check (a qcow2, QED, VMDK or\n"
	      "VHDX header is refused without it) and\n"
	      "',queues=N' request queues (1..8; default: one\n"
	      "per vCPU, at most 8).  ',format=F' (qcow2,\n"
	      "qed, vmdk, vdi, vhdx; qcow2 also for a name\n"
	      "ending .qcow2): qemu-storage-daemon serves it,\n"
	      "read-write with its backing chain; ',snapshot'\n"
	      "(any format): the guest's writes are thrown\n"
	      "away at exit.  Repeat for more disks\n"
	      "(/dev/vda, /dev/vdb, ...).  A directory DIR is\n"
	      "the guest's root file system over 9p; NAME, a\n"
	      "root made by 'lkvm setup NAME', boots it with\n"
	      "lkvm's guest init and the host's / at /host") },
	{ OPT("io-poll", 0, "USEC", set_bounded,
	      "Busy-poll the disks' request queues for up to\n"
	      "USEC microseconds after each notification, with\n"
	      "the guest's notifications off; the window\n"
	      "adapts to the guest (0 = never).  Default: up\n"
	      "to " STR(
		      CONFIG_IO_POLL_US) " when the host has more CPUs than the\n"
					 "guest, and only for a guest that keeps more\n"
					 "than one request out (until 100 ms after)"),
	  .field = CFG(io_poll_us), .kind = BOUND_INT, .data = &io_poll_bound },
	{ OPT("io-notify", 0, "WHERE", set_choice,
	      "Where the disks' notifications are served:\n"
	      "vcpu (in the notifying vCPU's exit while the\n"
	      "guest has one request out at a time, on the\n"
	      "I/O thread while it keeps more out, until\n"
	      "100 ms after), iothread (always on the I/O\n"
	      "thread, woken through an ioeventfd) or auto\n"
	      "(default: vcpu when the host has no more CPUs\n"
	      "than the guest, else iothread)"),
	  .field = CFG(io_notify), .data = io_notifies },
	{ OPT("9p", 0, "DIR,TAG", run_set_9p,
	      "Share the host's DIR with the guest over\n"
	      "virtio-9p (9P2000.L) as TAG (default: kvm_9p):\n"
	      "mount -t 9p -o trans=virtio TAG /mnt; repeat\n"
	      "for more (at most " STR(CONFIG_MAX_SHARES) ")") },
	{ OPT("fs", 0, "DIR,TAG[,ro]", run_set_fs,
	      "Share the host's DIR with the guest over\n"
	      "virtio-fs as TAG (1.." STR(
		      CONFIG_FS_TAG_MAX) " bytes), served by\n"
					 "virtiofsd, which lkvm starts (',ro':\n"
					 "read-only): mount -t virtiofs TAG /mnt;\n"
					 "repeat for more (at most " STR(
						 CONFIG_MAX_FS) ")") },
	{ OPT("sandbox", 0, "SCRIPT", set_sandbox,
	      "Run the host's shell SCRIPT in the guest and\n"
	      "exit with its status (see 'lkvm sandbox')"),
	  .field = CFG(sandbox_script) },
	{ OPT("vnc", 0, NULL, opt_set_refused, "Not supported: no framebuffer"),
	  .why = "lkvm has no framebuffer or display device" },
	{ OPT("gtk", 0, NULL, opt_set_refused, "Not supported: no framebuffer"),
	  .why = "lkvm has no framebuffer or display device" },
	{ OPT("sdl", 0, NULL, opt_set_refused, "Not supported: no framebuffer"),
	  .why = "lkvm has no framebuffer or display device" },
	{ OPT("console", 0, "TYPE", set_choice,
	      "serial (8250 UART, ttyS0), hv (SBI console,\n"
	      "hvc0) or virtio (virtio-console: hvc0, or hvc1\n"
	      "if the guest has the SBI hvc driver too)\n"
	      "(default: serial)"),
	  .field = CFG(console), .data = consoles },
	{ OPT("rng", 0, NULL, set_rng,
	      "virtio RNG (entropy from the host's getrandom)") },
	{ OPT("balloon", 0, NULL, opt_set_true,
	      "virtio memory balloon ('lkvm balloon' gives\n"
	      "guest RAM back to the host; 'lkvm stat -m')"),
	  .field = CFG(balloon) },
	{ OPT("vsock", 0, "CID[,socket=PATH]", set_vsock,
	      "virtio-vsock; CID is the guest's address, 3\n"
	      "to 4294967294.  Served by the host's\n"
	      "vhost-vsock (/dev/vhost-vsock), or with\n"
	      "socket=PATH by lkvm over unix sockets, no\n"
	      "root or vsock module needed: a host process\n"
	      "connects to PATH and writes \"CONNECT <port>\\n\"\n"
	      "(lkvm answers \"OK <hostport>\\n\"); the guest's\n"
	      "connections to CID 2 port P go to PATH_P") },
	{ OPT("dev", 0, "PATH", opt_set_path,
	      "KVM device file (default: /dev/kvm)"),
	  .field = CFG(dev) },
	{ OPT("tty", 0, "N", set_tty,
	      "Put guest terminal N on a new host pty (its\n"
	      "name is logged); lkvm has one terminal, 0,\n"
	      "the console") },
	{ OPT("hugetlbfs", 0, "PATH", opt_set_path,
	      "Back guest RAM with the hugetlbfs mounted at\nPATH"),
	  .field = CFG(hugetlbfs) },
	{ OPT("virtio-transport", 0, "TYPE", set_choice,
	      "pci (virtio-pci modern behind a PCIe host\n"
	      "bridge; the default) or mmio (virtio-mmio);\n"
	      "the legacy transports are not supported"),
	  .field = CFG(transport), .data = transports },
	{ OPT("virtio-legacy", 0, NULL, opt_set_refused,
	      "Not supported: lkvm has modern virtio only"),
	  .why = MODERN_ONLY },
	{ OPT("nodefaults", 0, NULL, opt_set_true,
	      "Do not put console=... on the kernel command\n"
	      "line, nor boot ~/.lkvm/default when given no\n"
	      "root, disk or initrd"),
	  .field = CFG(nodefaults) },
	{ OPT("loglevel", 0, "LEVEL", set_choice,
	      "error, warning, info or debug\n"
	      "(default: info)"),
	  .field = CFG(loglevel), .data = loglevels },
	{ OPT("no-seccomp", 0, NULL, opt_set_true,
	      "Run without the seccomp filter (see below)"),
	  .field = CFG(no_seccomp) },
	{ OPT("help", 'h', NULL, set_help, "Show this help and exit") },

	{ .help = "Kernel options:" },
	{ OPT("kernel", 'k', "FILE", opt_set_path,
	      "Kernel Image to boot (or give it as the first\n"
	      "argument that is not an option; without it,\n"
	      "kvmtool's search: ./bzImage, arch/riscv/boot/\n"
	      "bzImage, /boot/vmlinuz-$(uname -r)).  With no\n"
	      "-d, -i, root= in -p or --nodefaults: a shell\n"
	      "in ~/.lkvm/default over 9p (made if missing;\n"
	      "the host's / read-only at /host)"),
	  .field = CFG(kernel) },
	{ OPT("initrd", 'i', "FILE", set_initrd,
	      "Initial RAM disk; given more than once, the\n"
	      "files are concatenated in order (a cpio of\n"
	      "modules after the root's, as boot-utils does;\n"
	      "at most " STR(CONFIG_MAX_INITRDS) ")") },
	{ OPT("params", 'p', "ARGS", opt_set_string,
	      "Kernel command line, added after the default\n"
	      "console=ttyS0 (serial) or console=hvc0 (hv,\n"
	      "virtio) and earlycon=sbi (not when ARGS name an\n"
	      "earlycon, or with --disable-sbi-dbcn)"),
	  .field = CFG(params) },
	{ OPT("firmware", 'f', "FILE", opt_set_path,
	      "Boot a raw firmware image instead of a kernel:\n"
	      "loaded at the start of RAM (0x80000000) and\n"
	      "entered there with a0 = hart id, a1 = device\n"
	      "tree, whose bootargs are -p only; no initrd"),
	  .field = CFG(firmware) },
	{ OPT("flash", 'F', "FILE", opt_set_refused,
	      "Not supported: no flash device"),
	  .why = "lkvm has no CFI flash device (kvmtool's is arm64-only and ignores -F on RISC-V)" },

	{ .help = "Boot test options:" },
	{ OPT("no-reboot", 0, NULL, opt_set_true,
	      "A guest reboot ends lkvm with status 6 instead\n"
	      "of booting again (with panic=-1 in -p, a panic\n"
	      "the guest cannot report otherwise)"),
	  .field = CFG(no_reboot) },
	{ OPT("timeout", 0, "SECS", set_bounded,
	      "Stop the guest after SECS seconds, print the\n"
	      "console's last lines and exit with status 124\n"
	      "(as timeout(1)); counts across guest reboots\n"
	      "(0: no limit, the default)"),
	  .field = CFG(timeout_s), .data = &timeout_bound },
	{ OPT("console-log", 0, "FILE", opt_set_path,
	      "Write everything the guest writes to its\n"
	      "console (any --console) to FILE, created or\n"
	      "truncated; nothing is dropped from it, even\n"
	      "when stdout is stalled or closed"),
	  .field = CFG(console_log) },

	{ .help = "Networking options:" },
	{ OPT("network", 'n', "SPEC", run_set_network,
	      "A virtio-net NIC: mode=tap|user|none (default\n"
	      "tap; none: no NIC at all), guest_mac=MAC\n"
	      "(02:15:15:15:15:15, then :16), host_ip=IP\n"
	      "(192.168.33.1: the tap's address, or the\n"
	      "user-mode gateway where the host's own\n"
	      "services answer), guest_ip=IP (192.168.33.15,\n"
	      "user mode: given by DHCP, /24), trans=pci|mmio\n"
	      "(default: --virtio-transport).  tap:\n"
	      "tapif=NAME (an existing tap is used as it\n"
	      "is), script=PATH|none, downscript=PATH|none,\n"
	      "vhost=1 (the host kernel's vhost-net moves\n"
	      "the frames; needs /dev/vhost-net).\n"
	      "user (passt):\n"
	      "host_mac=MAC (02:01:01:01:01:01),\n"
	      "fwd=tcp|udp:[ADDR:]HOSTPORT:GUESTPORT (host\n"
	      "port to guest port; repeatable), vhost=0|1\n"
	      "(1: passt's vhost-user back-end moves the\n"
	      "frames in guest RAM itself, guest RAM a shared\n"
	      "memfd; 0: lkvm moves them over passt's socket;\n"
	      "default: vhost-user when passt offers it, no\n"
	      "--hugetlbfs and the host's shared memory gets\n"
	      "huge pages).  Without -n:\n"
	      "one user-mode NIC (no NIC, with a warning, if\n"
	      "passt is not installed)") },
	{ OPT("no-dhcp", 0, NULL, opt_set_true,
	      "No DHCP: a setup root's kernel gets no\n"
	      "ip=dhcp (as kvmtool) and the user-mode\n"
	      "network answers none: the guest sets its\n"
	      "address itself"),
	  .field = CFG(no_dhcp) },

	{ .help = "VFIO options:" },
	{ OPT("vfio-pci", 0, "BDF", opt_set_refused,
	      "Not supported: no VFIO device assignment"),
	  .why = "lkvm has no VFIO device assignment" },

	{ .help = "Debug options:" },
	{ OPT("debug", 0, NULL, set_debug, "Same as --loglevel debug") },
	{ OPT("debug-single-step", 0, NULL, opt_set_true,
	      "Single-step the vCPUs (needs KVM_GUESTDBG_\n"
	      "SINGLESTEP, which RISC-V KVM lacks: lkvm then\n"
	      "exits with status 1)"),
	  .field = CFG(single_step) },
	{ OPT("debug-ioport", 0, NULL, opt_set_true,
	      "Log port I/O to no device: RISC-V has no port\n"
	      "I/O, so there is never any"),
	  .field = CFG(debug_ioport) },
	{ OPT("debug-mmio", 0, NULL, opt_set_true,
	      "Log every guest MMIO access that no device\n"
	      "claims (default: the first one)"),
	  .field = CFG(debug_mmio) },
	{ OPT("debug-reboot-new-vm", 0, NULL, opt_set_true,
	      "Build a new KVM VM on every guest reboot, also\n"
	      "where KVM can reset the vCPUs and keep it (to\n"
	      "compare the two)"),
	  .field = CFG(reboot_new_vm) },
	{ OPT("debug-iodelay", 0, "MS", set_bounded,
	      "Delay every disk request by MS milliseconds\n"
	      "(0.." STR(CLI_IODELAY_MAX_MS) "; uses the thread pool engine)"),
	  .field = CFG(debug_iodelay_ms), .data = &iodelay_bound },
	{ OPT("gdb", 0, "SPEC", set_gdb,
	      "A GDB remote stub at tcp:PORT or QEMU's\n"
	      "tcp::PORT (127.0.0.1 only), tcp:HOST:PORT\n"
	      "(HOST numeric, 0.0.0.0: all) or unix:PATH;\n"
	      "gdb attaches any time and stops every vCPU.\n"
	      "No single-step (KVM RISC-V has none):\n"
	      "breakpoints, continue, Ctrl-C"),
	  .field = CFG(gdb) },
	{ OPT("gdb-wait", 0, NULL, opt_set_true,
	      "With --gdb: hold the vCPUs before their first\n"
	      "instruction until gdb continues (QEMU's -S)"),
	  .field = CFG(gdb_wait) },
	{ OPT("dump-on-panic", 0, "FILE", opt_set_path,
	      "When the run ends with a guest panic (status\n"
	      "6 or 7) or crash (4), write an ELF core of it\n"
	      "to FILE (as 'lkvm dump') before exiting"),
	  .field = CFG(dump_on_panic) },
	{ OPT("dump-dtb", 0, "FILE", opt_set_path,
	      "Write the generated device tree to FILE"),
	  .field = CFG(dump_dtb) },

	{ .help = "RISC-V options:" },
	{ OPT("cpu-type", 0, "TYPE", set_cpu_type,
	      "max (every extension KVM offers; the default)\n"
	      "or min[,EXT...]: rv64imafdc plus the listed\n"
	      "extensions; KVM 6.12 keeps some others on\n"
	      "(named at --loglevel debug)") },
	{ OPT("suspend-seconds", 0, "N", set_bounded,
	      "Seconds a guest's SBI system suspend lasts\n"
	      "before it resumes (0.." STR(CLI_TIMEOUT_MAX_S) ", default " STR(
		      CONFIG_SUSPEND_SECONDS) ").\n"
					      "An error (status 1) on a host KVM that does\n"
					      "not forward SBI SUSP (before Linux 6.14)"),
	  .field = CFG(suspend_seconds), .flag = CFG(set_suspend_seconds),
	  .data = &timeout_bound },
	{ OPT("irqchip", 0, "TYPE", set_choice,
	      "aia (KVM's in-kernel AIA: APLIC + IMSIC,\n"
	      "interrupts through irqfd), kernel-plic (KVM's\n"
	      "in-kernel PLIC, from rvkvm's kernel patches;\n"
	      "interrupts through irqfd), plic (a PLIC\n"
	      "emulated in lkvm) or auto: aia when the host\n"
	      "has it and --disable-ssaia is not given, else\n"
	      "kernel-plic when KVM offers it, else plic\n"
	      "(default: auto)"),
	  .field = CFG(irqchip), .data = irqchips },
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

#define NR_OPTS (sizeof(run_opts) / sizeof(run_opts[0]))

/* --- the argv walk ----------------------------------------------------- */

/* An operand: the kernel (run), or where the COMMAND starts (sandbox). */
static int set_operand(struct opt_parser *p, char **argv, int i)
{
	struct cli_run *r = p->ctx;
	const char *arg = argv[i];

	if (r->sandbox_cmd) {
		r->cfg->sandbox_argv = argv + i; /* the command */
		return OPT_ARGS_REST;
	}
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

static void run_defaults(struct vm_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->tty = -1;
	cfg->io_poll_us = -1;
	cfg->console = CONSOLE_SERIAL;
	cfg->loglevel = LOG_INFO;
}

/* lkvm sandbox [run options] [--] COMMAND [ARGS] */
static int sandbox_check(struct cli_run *r)
{
	if (r->cfg->sandbox_script)
		return cli_err(r,
			       "lkvm sandbox takes a COMMAND, not --sandbox");
	if (!r->cfg->sandbox_argv || !r->cfg->sandbox_argv[0])
		return cli_err(
			r,
			"no command given (lkvm sandbox [options] -- COMMAND [ARGS])");
	r->cfg->sandbox = true;
	return 0;
}

int cli_parse_run(int argc, char **argv, const struct cli_host *host,
		  struct vm_config *cfg, FILE *out, FILE *err)
{
	struct cli_run r = {
		.p = { .opts = run_opts,
		       .nr_opts = NR_OPTS,
		       .target = cfg,
		       .out = out,
		       .err = err,
		       .cmd = "run",
		       .operand = set_operand,
		       .dashdash = true },
		.cfg = cfg,
		.host = host,
		.sandbox_cmd = argc > 0 && !strcmp(argv[0], "sandbox"),
	};
	int ret;

	r.p.ctx = &r;
	run_defaults(cfg);
	ret = opt_parse(&r.p, argc - 1, argv + 1);
	if (!ret && r.sandbox_cmd)
		ret = sandbox_check(&r);
	return ret ? ret : run_finish(&r);
}

/* --- help -------------------------------------------------------------- */

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
	"'--' ends the options.  A repeated option overrides the earlier one,\n"
	"but for -d, -n, --9p, --fs and -i, which add one more each.\n";

static const char run_help_sbi_aliases[] =
	"kvmtool's names work too: --disable-sbi-legacy is v01, and\n"
	"--disable-sbi-susp hides SBI SUSP (absent from a 6.12 host anyway).\n"
	"--disable-EXT for an extension newer than Linux 6.12 (svade, svadu,\n"
	"svvptc, zabha, ziccrse, smnpm) is refused: lkvm does not know it.\n";

static const char run_help_tail[] =
	"\n"
	"Not supported, refused with one line saying what lkvm lacks (exit\n"
	"status 2): --vnc, --gtk, --sdl, -F/--flash, --vfio-pci,\n"
	"--virtio-legacy, --tty N for N > 0, and -n mq=N (N > 1) and fd=N.\n"
	"\n"
	"Seccomp: once set up, lkvm runs under a seccomp filter that allows only\n"
	"the system calls its threads need (--no-seccomp turns it off).  Any\n"
	"other system call ends lkvm at once with the line\n"
	"  lkvm: seccomp: forbidden system call NAME (number N)\n"
	"on stderr and exit status 5.\n"
	"\n"
	"Console keys: Ctrl-A x stops the VM, Ctrl-A Ctrl-A sends Ctrl-A.\n"
	"\n"
	"A guest reboot restarts the guest, with a \"lkvm: guest reboot\" line\n"
	"on stderr; with --no-reboot it ends lkvm (status 6).  A guest kernel\n"
	"panic ends lkvm (status 7) when the kernel has the pvpanic driver\n"
	"(CONFIG_PVPANIC_MMIO: lkvm's guests have a qemu,pvpanic-mmio device);\n"
	"without it, boot with panic=-1 and --no-reboot so that the panic's\n"
	"reboot ends lkvm with status 6 instead of booting again.\n"
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
	"  6  the guest asked for a reboot and --no-reboot was given\n"
	"  7  the guest kernel panicked (reported by its pvpanic device)\n"
	"124  --timeout expired; the console's last lines are on stderr\n"
	"lkvm sandbox and run --sandbox exit with the command's status\n"
	"instead, or 125 when the guest reported none (but 6, 7 and 124 when\n"
	"those ended the run).\n";

void cli_print_run_help(FILE *out)
{
	fputs(run_help_head, out);
	opt_help(out, run_opts, NR_OPTS, HELP_COL);
	help_ext_list(out, "ISA extensions (--disable-EXT):", isa_exts,
		      ISA_EXT_COUNT);
	help_ext_list(out, "SBI extensions (--disable-sbi-EXT):", sbi_exts,
		      SBI_EXT_COUNT);
	fputs(run_help_sbi_aliases, out);
	fputs(run_help_tail, out);
}
