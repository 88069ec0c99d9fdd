// SPDX-License-Identifier: GPL-2.0
/*
 * The seccomp filter: the one list of system calls lkvm may make once the
 * machine is set up (the files, KVM fds, taps, eventfds, io_uring rings and
 * the I/O, console and disk threads all exist; only the vCPU threads are
 * still to start).  Loaded with TSYNC, so it covers the threads already
 * running too.  Anything else traps (SECCOMP_RET_TRAP): the SIGSYS handler
 * writes "lkvm: seccomp: forbidden system call NAME (number N)" to stderr,
 * restores the terminal and _exit()s with LKVM_EXIT_SECCOMP (5).  TRAP
 * rather than KILL_PROCESS: a kill leaves no message, only a signal status.
 *
 * To allow a new system call, add one line to allowed[] under the group
 * of the thread or feature that needs it (or a new group with a comment
 * saying which), with an argument check when one is practical.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/kvm.h>
#include <linux/vhost.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/filter.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "vmm/exit_codes.h"
#include "lib/log.h"
#include "vmm/host/seccomp.h"
#include "vmm/host/term.h"

/* What is checked besides the system call number. */
enum sc_check {
	SC_ANY,	    /* any arguments */
	SC_THREAD,  /* clone: threads only (CLONE_THREAD), no fork */
	SC_NO_EXEC, /* mmap, mprotect: never PROT_EXEC */
	SC_IOCTL,   /* ioctl: only the requests in ioctls[] */
	SC_ENOSYS,  /* fails with ENOSYS, so glibc falls back */
	SC_UNIX,    /* socket: AF_UNIX only */
};

struct sc_rule {
	const char *name;
	enum sc_check check;
};

static const struct sc_rule allowed[] = {
	/*
	 * Guest I/O and output, every thread: vCPU threads (MMIO to the
	 * UART, SBI console), the I/O thread (tap, eventfds, virtio-net,
	 * -rng, -console), the console thread (stdin, stdout), the disk
	 * workers (preadv/pwritev on the image), log lines (stderr).
	 */
	{ "read", SC_ANY },
	{ "write", SC_ANY },
	{ "readv", SC_ANY },
	{ "writev", SC_ANY },
	{ "pread64", SC_ANY },
	{ "pwrite64", SC_ANY },
	{ "preadv", SC_ANY },
	{ "pwritev", SC_ANY },
	{ "preadv2", SC_ANY },
	{ "pwritev2", SC_ANY },
	{ "lseek", SC_ANY },
	{ "close", SC_ANY },
	{ "fcntl", SC_ANY },
	{ "fstat", SC_ANY },
	{ "newfstatat", SC_ANY },
	{ "statx", SC_ANY },
	/* stderr that is a socket: outfd.c sends with MSG_DONTWAIT. */
	{ "sendto", SC_ANY },
	/* Disk requests: flush, discard, write zeroes; io_uring. */
	{ "fsync", SC_ANY },
	{ "fdatasync", SC_ANY },
	{ "fallocate", SC_ANY },
	{ "io_uring_enter", SC_ANY },
	/* Event loops: I/O thread, console thread, main thread. */
	{ "ppoll", SC_ANY },
	{ "epoll_pwait", SC_ANY },
	{ "epoll_pwait2", SC_ANY }, /* the I/O thread's ns timeouts */
	{ "epoll_ctl", SC_ANY },
	/*
	 * A guest reboot redoes the per-boot steps: a new KVM VM (/dev/kvm
	 * opened again), the kernel, initrd or firmware read again.
	 */
	{ "openat", SC_ANY },
	/* Memory: malloc, thread stacks, kvm_run maps; never executable. */
	{ "mmap", SC_NO_EXEC },
	{ "mprotect", SC_NO_EXEC },
	{ "munmap", SC_ANY },
	{ "madvise", SC_ANY },
	{ "mremap", SC_ANY },
	{ "brk", SC_ANY },
	/*
	 * Threads: the vCPU threads start after the filter (glibc tries
	 * clone3 first, whose flags seccomp cannot see: ENOSYS makes it
	 * use clone); locks, kicks (SIGUSR1 with tgkill), signal masks.
	 */
	{ "clone", SC_THREAD },
	{ "clone3", SC_ENOSYS },
	{ "set_robust_list", SC_ANY },
	{ "rseq", SC_ANY },
	{ "futex", SC_ANY },
	{ "gettid", SC_ANY },
	{ "getpid", SC_ANY },
	{ "tgkill", SC_ANY },
	{ "sched_yield", SC_ANY },
	{ "sched_getaffinity", SC_ANY },
	{ "rt_sigprocmask", SC_ANY },
	{ "rt_sigaction", SC_ANY },
	{ "rt_sigreturn", SC_ANY },
	{ "sigaltstack", SC_ANY },
	{ "restart_syscall", SC_ANY },
	{ "exit", SC_ANY },
	{ "exit_group", SC_ANY },
	/* Time: console and output deadlines, --debug-iodelay sleeps. */
	{ "clock_gettime", SC_ANY },
	{ "clock_getres", SC_ANY },
	{ "gettimeofday", SC_ANY },
	{ "nanosleep", SC_ANY },
	{ "clock_nanosleep", SC_ANY },
	/* Entropy: virtio-rng, the Zkr seed CSR, the FDT's rng-seed. */
	{ "getrandom", SC_ANY },
	/* --debug statistics at exit. */
	{ "getrusage", SC_ANY },
	/*
	 * virtio-9p (a worker thread per share): the confined 9P2000.L
	 * server resolves every path with openat2 beneath a share's root,
	 * checks each object's file system (fstatfs) and works on names
	 * with the *at() calls of their directory's descriptor; fchmodat2
	 * (falling back to fchmodat) for Tsetattr's mode.
	 */
	{ "openat2", SC_ANY },
	{ "getdents64", SC_ANY },
	{ "mkdirat", SC_ANY },
	{ "symlinkat", SC_ANY },
	{ "mknodat", SC_ANY },
	{ "linkat", SC_ANY },
	{ "unlinkat", SC_ANY },
	{ "renameat2", SC_ANY },
	{ "readlinkat", SC_ANY },
	{ "fchownat", SC_ANY },
	{ "utimensat", SC_ANY },
	{ "fchmodat", SC_ANY },
	{ "fchmodat2", SC_ANY },
	{ "fstatfs", SC_ANY },
	{ "ftruncate", SC_ANY },
	/* lkvm sandbox: the status read after the guest stopped. */
	{ "faccessat", SC_ANY },
	/*
	 * The control thread (ctl.c): one connection at a time on the
	 * control socket, the peer's uid checked (SO_PEERCRED, euid),
	 * send and receive timeouts; the socket is unlinked at exit.
	 */
	{ "accept4", SC_ANY },
	{ "getsockopt", SC_ANY },
	{ "setsockopt", SC_ANY },
	{ "geteuid", SC_ANY },
	{ "recvfrom", SC_ANY },
	/* lkvm dump: the core file's descriptor comes with SCM_RIGHTS. */
	{ "recvmsg", SC_ANY },
	/*
	 * User-mode networking (usernet.c): frames to and from passt over
	 * its socket; when passt dies or lkvm exits, passt is killed and
	 * reaped (it was spawned before the filter).
	 */
	{ "sendmsg", SC_ANY },
	{ "kill", SC_ANY },
	{ "wait4", SC_ANY },
	/* KVM (vCPU threads, I/O thread, reboots) and the terminal. */
	{ "ioctl", SC_IOCTL },
};

/*
 * --vsock CID,socket=PATH only (vmm/machine/hvsock.c): a guest connecting
 * to host port P makes the I/O thread connect a new unix socket to
 * PATH_P; the guest's shutdown shuts the socket's write side.
 */
static const struct sc_rule allowed_hvsock[] = {
	{ "socket", SC_UNIX },
	{ "connect", SC_ANY },
	{ "shutdown", SC_ANY },
};

/* An ioctl request and when the filter lets it through. */
enum sc_io_need {
	IO_ANY,	  /* always */
	IO_GDB,	  /* with --gdb */
	IO_VSOCK, /* with --vsock */
	IO_VHOST, /* with --vsock or an -n ...,vhost=1 */
	IO_VNET,  /* with an -n ...,vhost=1 */
};

struct sc_ioctl {
	unsigned long req;
	enum sc_io_need need;
};

/*
 * ioctl requests.  Opening the tap (TUNSETIFF, TUNSETVNETHDRSZ, SIOC*),
 * BLKGETSIZE64 and the first boot's set-up happen before the filter.
 */
static const struct sc_ioctl ioctls[] = {
	/* vCPU threads: run, SBI/CSR registers, PLIC interrupt lines. */
	{ KVM_RUN, IO_ANY },
	{ KVM_GET_ONE_REG, IO_ANY },
	{ KVM_SET_ONE_REG, IO_ANY },
	{ KVM_INTERRUPT, IO_ANY },
	/* The gdb stub: guest ebreaks exit to lkvm while it is attached. */
	{ KVM_SET_GUEST_DEBUG, IO_GDB },
	/* I/O thread and vCPU threads: AIA lines and MSIs, ioeventfds. */
	{ KVM_IRQ_LINE, IO_ANY },
	{ KVM_IRQFD, IO_ANY },
	{ KVM_IOEVENTFD, IO_ANY },
	{ KVM_SIGNAL_MSI, IO_ANY },
	/* The UART's transmit register batched, per boot (lifecycle.c). */
	{ KVM_REGISTER_COALESCED_MMIO, IO_ANY },
	{ KVM_UNREGISTER_COALESCED_MMIO, IO_ANY },
	/* The AIA: a vhost ring's MSI-X route changed (gsi_routes.c). */
	{ KVM_SET_GSI_ROUTING, IO_ANY },
	/* A guest reboot builds a new KVM VM (kvm_vm.c, kvm_aia.c). */
	{ KVM_GET_API_VERSION, IO_ANY },
	{ KVM_CHECK_EXTENSION, IO_ANY },
	{ KVM_GET_VCPU_MMAP_SIZE, IO_ANY },
	{ KVM_CREATE_VM, IO_ANY },
	{ KVM_CREATE_VCPU, IO_ANY },
	{ KVM_SET_USER_MEMORY_REGION, IO_ANY },
	{ KVM_CREATE_DEVICE, IO_ANY },
	{ KVM_SET_DEVICE_ATTR, IO_ANY },
	{ KVM_GET_DEVICE_ATTR, IO_ANY },
	{ KVM_HAS_DEVICE_ATTR, IO_ANY },
	{ KVM_ENABLE_CAP, IO_ANY },
	/* A reboot that keeps the VM resets the vCPUs (lifecycle.c). */
	{ KVM_SET_MP_STATE, IO_ANY },
	/* virtio-net: the guest's receive offloads mirrored into the tap. */
	{ TUNSETOFFLOAD, IO_ANY },
	/*
	 * --vsock, -n vhost=1: the guest's DRIVER_OK hands the rings to
	 * vhost-vsock or vhost-net, its reset takes them back
	 * (vmm/host/vhost.c; the rest at set-up).
	 */
	{ VHOST_SET_VRING_NUM, IO_VHOST },
	{ VHOST_SET_VRING_BASE, IO_VHOST },
	{ VHOST_SET_VRING_ADDR, IO_VHOST },
	{ VHOST_SET_VRING_CALL, IO_VHOST },
	{ VHOST_SET_VRING_KICK, IO_VHOST },
	{ VHOST_GET_VRING_BASE, IO_VHOST },
	{ VHOST_SET_FEATURES, IO_VHOST },
	{ VHOST_VSOCK_SET_RUNNING, IO_VSOCK },
	/* vhost-net: the tap attached and detached, its header size. */
	{ VHOST_NET_SET_BACKEND, IO_VNET },
	{ TUNSETVNETHDRSZ, IO_VNET },
	/* The terminal: raw mode is restored at exit (term.c). */
	{ TCGETS, IO_ANY },
	{ TCSETS, IO_ANY },
	{ TCFLSH, IO_ANY },
};

#define NR_ALLOWED (sizeof(allowed) / sizeof(allowed[0]))
#define NR_IOCTLS (sizeof(ioctls) / sizeof(ioctls[0]))
#define NR_HVSOCK (sizeof(allowed_hvsock) / sizeof(allowed_hvsock[0]))

/* System call names by number, resolved before the filter is loaded. */
#define SC_NAMES_MAX 1024
static const char *sc_names[SC_NAMES_MAX];

const char *seccomp_allowed_name(size_t i)
{
	return i < NR_ALLOWED ? allowed[i].name : NULL;
}

const char *seccomp_hvsock_name(size_t i)
{
	return i < NR_HVSOCK ? allowed_hvsock[i].name : NULL;
}

static size_t fmt_str(char *buf, size_t size, size_t at, const char *s)
{
	while (*s && at + 1 < size)
		buf[at++] = *s++;
	return at;
}

static size_t fmt_long(char *buf, size_t size, size_t at, long v)
{
	char digits[24];
	unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;
	int n = 0;

	if (v < 0 && at + 1 < size)
		buf[at++] = '-';
	do {
		digits[n++] = '0' + u % 10;
		u /= 10;
	} while (u);
	while (n && at + 1 < size)
		buf[at++] = digits[--n];
	return at;
}

size_t seccomp_format_kill(char *buf, size_t size, const char *name, long nr)
{
	size_t at = 0;

	if (!size)
		return 0;
	at = fmt_str(buf, size, at, "lkvm: seccomp: forbidden system call ");
	at = fmt_str(buf, size, at, name ? name : "?");
	at = fmt_str(buf, size, at, " (number ");
	at = fmt_long(buf, size, at, nr);
	at = fmt_str(buf, size, at, ")\n");
	buf[at] = '\0';
	return at;
}

static void seccomp_sigsys(int sig, siginfo_t *si, void *ucontext)
{
	char line[128];
	long nr = si->si_syscall;
	size_t n = seccomp_format_kill(
		line, sizeof(line),
		nr >= 0 && nr < SC_NAMES_MAX ? sc_names[nr] : NULL, nr);

	(void)sig;
	(void)ucontext;
	term_restore();
	if (write(STDERR_FILENO, line, n) < 0)
		n = 0;
	_exit(LKVM_EXIT_SECCOMP);
}

/* --vsock CID on /dev/vhost-vsock (not the unix-socket back-end)? */
static bool cfg_vhost_vsock(const struct vm_config *cfg)
{
	return cfg->vsock_cid && !cfg->vsock_socket[0];
}

/* An -n ...,vhost=1 NIC (a tap served by vhost-net)? */
static bool cfg_vhost_net(const struct vm_config *cfg)
{
	for (unsigned int i = 0; i < cfg->nr_nics; i++)
		if (cfg->nics[i].vhost && cfg->nics[i].mode == NIC_MODE_TAP)
			return true;
	return false;
}

static bool ioctl_needed(const struct vm_config *cfg, const struct sc_ioctl *io)
{
	switch (io->need) {
	case IO_GDB:
		return cfg->gdb != NULL;
	case IO_VSOCK:
		return cfg_vhost_vsock(cfg);
	case IO_VHOST:
		return cfg_vhost_vsock(cfg) || cfg_vhost_net(cfg);
	case IO_VNET:
		return cfg_vhost_net(cfg);
	default:
		return true;
	}
}

bool seccomp_ioctl_allowed(const struct vm_config *cfg, unsigned long req)
{
	for (size_t i = 0; i < NR_IOCTLS; i++)
		if (ioctls[i].req == req)
			return ioctl_needed(cfg, &ioctls[i]);
	return false;
}

static int rule_add(scmp_filter_ctx ctx, const struct vm_config *cfg,
		    const struct sc_rule *r)
{
	int nr = seccomp_syscall_resolve_name(r->name);
	int ret = 0;

	if (nr == __NR_SCMP_ERROR)
		return -ENOENT;
	switch (r->check) {
	case SC_ANY:
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
	case SC_THREAD:
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
					SCMP_A0(SCMP_CMP_MASKED_EQ,
						CLONE_THREAD, CLONE_THREAD));
	case SC_NO_EXEC:
		return seccomp_rule_add(
			ctx, SCMP_ACT_ALLOW, nr, 1,
			SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	case SC_ENOSYS:
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
	case SC_UNIX:
		return seccomp_rule_add(
			ctx, SCMP_ACT_ALLOW, nr, 1,
			SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffUL, AF_UNIX));
	case SC_IOCTL:
		for (size_t i = 0; i < NR_IOCTLS && !ret; i++)
			if (ioctl_needed(cfg, &ioctls[i]))
				ret = seccomp_rule_add(
					ctx, SCMP_ACT_ALLOW, nr, 1,
					SCMP_A1(SCMP_CMP_MASKED_EQ,
						0xffffffffUL,
						ioctls[i].req & 0xffffffffUL));
		return ret;
	}
	return -EINVAL;
}

/* The test hook's answer: 0, -EINVAL or -EOPNOTSUPP. */
static int unsupported_injected(void)
{
	const char *e = getenv(SECCOMP_TEST_UNSUPPORTED_ENV);

	if (e && !strcmp(e, "EINVAL"))
		return -EINVAL;
	if (e && !strcmp(e, "EOPNOTSUPP"))
		return -EOPNOTSUPP;
	return 0;
}

/*
 * What a kernel without seccomp filters (or without TSYNC, Linux 3.17)
 * answers: fail closed, and say what is missing and how to run anyway.
 */
static int seccomp_failed(const char *what, int ret)
{
	if (ret == -EINVAL || ret == -EOPNOTSUPP || ret == -ENOSYS)
		pr_err("seccomp: the host kernel cannot filter system calls (%s: %s): it lacks CONFIG_SECCOMP_FILTER; --no-seccomp runs lkvm without this sandbox",
		       what, strerror(-ret));
	else
		pr_err("seccomp: %s: %s", what, strerror(-ret));
	return ret;
}

static int ctx_build(scmp_filter_ctx ctx, const struct vm_config *cfg,
		     bool arch_riscv64)
{
	int ret = 0;

	if (arch_riscv64) {
		ret = seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE);
		ret = ret ?: seccomp_arch_add(ctx, SCMP_ARCH_RISCV64);
		if (ret) {
			pr_err("seccomp: cannot select riscv64: %s",
			       strerror(-ret));
			return ret;
		}
	}
	ret = unsupported_injected() ?:
		      seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (ret)
		return seccomp_failed("cannot ask for TSYNC", ret);
	/*
	 * The calls with argument checks run the filter on every call (the
	 * others pass through the kernel's seccomp cache), interpreted where
	 * the BPF JIT is off, Linux's default on riscv64: a binary search for
	 * the call number, not a walk of the whole list (libseccomp 2.5 and
	 * newer; an older one builds the list, slower but as strict).
	 */
	ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (ret)
		pr_debug("seccomp: no binary tree (libseccomp: %s)",
			 strerror(-ret));
	for (size_t i = 0; i < NR_ALLOWED + NR_HVSOCK; i++) {
		const struct sc_rule *r =
			i < NR_ALLOWED ? &allowed[i] :
					 &allowed_hvsock[i - NR_ALLOWED];

		if (i >= NR_ALLOWED && !cfg->vsock_socket[0])
			break;
		ret = rule_add(ctx, cfg, r);
		if (ret) {
			pr_err("seccomp: cannot allow %s: %s", r->name,
			       strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static void names_resolve(void)
{
	for (int nr = 0; nr < SC_NAMES_MAX; nr++)
		if (!sc_names[nr])
			sc_names[nr] = seccomp_syscall_resolve_num_arch(
				SCMP_ARCH_NATIVE, nr);
}

static int sigsys_install(void)
{
	struct sigaction sa = {
		.sa_sigaction = seccomp_sigsys,
		.sa_flags = SA_SIGINFO,
	};

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) < 0) {
		pr_err("seccomp: cannot install the SIGSYS handler: %s",
		       strerror(errno));
		return -errno;
	}
	return 0;
}

/* A new filter context for cfg, or NULL after one line. */
static scmp_filter_ctx ctx_new(const struct vm_config *cfg, bool arch_riscv64,
			       int *ret)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);

	if (!ctx) {
		pr_err("seccomp: cannot create a filter");
		*ret = -ENOMEM;
		return NULL;
	}
	*ret = ctx_build(ctx, cfg, arch_riscv64);
	if (*ret) {
		seccomp_release(ctx);
		return NULL;
	}
	return ctx;
}

int seccomp_setup(const struct vm_config *cfg, bool load, bool arch_riscv64)
{
	int ret;
	scmp_filter_ctx ctx = ctx_new(cfg, arch_riscv64, &ret);

	if (!ctx)
		return ret;
	if (load) {
		names_resolve();
		ret = sigsys_install();
		if (!ret) {
			ret = seccomp_load(ctx);
			if (ret)
				seccomp_failed("cannot load the filter", ret);
		}
	}
	seccomp_release(ctx);
	return ret;
}

ssize_t seccomp_export(const struct vm_config *cfg, bool arch_riscv64,
		       struct sock_filter **prog)
{
	int ret, fd = -1;
	scmp_filter_ctx ctx = ctx_new(cfg, arch_riscv64, &ret);
	off_t size = -1;

	*prog = NULL;
	if (!ctx)
		return ret;
	fd = memfd_create("lkvm-seccomp", MFD_CLOEXEC);
	ret = fd < 0 ? -errno : seccomp_export_bpf(ctx, fd);
	if (!ret) {
		size = lseek(fd, 0, SEEK_END);
		*prog = size > 0 ? malloc((size_t)size) : NULL;
		if (!*prog || pread(fd, *prog, (size_t)size, 0) != size)
			ret = -EIO;
	}
	if (fd >= 0)
		close(fd);
	seccomp_release(ctx);
	if (ret) {
		free(*prog);
		*prog = NULL;
		return ret;
	}
	return size / (off_t)sizeof(struct sock_filter);
}

/* A tap downscript runs a program as lkvm exits: no filter allows that. */
static const char *downscript(const struct vm_config *cfg)
{
	for (unsigned int i = 0; i < cfg->nr_nics; i++)
		if (cfg->nics[i].mode == NIC_MODE_TAP &&
		    strcmp(cfg->nics[i].downscript, "none"))
			return cfg->nics[i].downscript;
	return NULL;
}

int seccomp_install(const struct vm_config *cfg)
{
	const char *script = downscript(cfg);
	int ret;

	if (script) {
		pr_warn("seccomp: off: -n downscript=%s must run a program when lkvm exits",
			script);
		return 0;
	}
	ret = seccomp_setup(cfg, true, false);
	if (ret)
		return ret;
	pr_debug("seccomp: filter loaded, %zu system calls allowed",
		 NR_ALLOWED);
	if (getenv(SECCOMP_TEST_ENV))
		syscall(SYS_personality, 0xffffffffUL);
	return 0;
}
