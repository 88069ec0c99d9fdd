// SPDX-License-Identifier: GPL-2.0
/*
 * The seccomp allow-list builds into a riscv64 filter (every name known
 * to libseccomp for riscv64, every argument check accepted), and the
 * SIGSYS handler's line, and the line for a host kernel without seccomp
 * filters.  Loading the filter is the e2e case lkvm-opts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <seccomp.h>
#include <linux/kvm.h>
#include <linux/if_tun.h>
#include <linux/vhost.h>
#include <linux/audit.h>
#include <sched.h>
#include <sys/mman.h>

#include "lib/log.h"
#include "vmm/host/seccomp.h"
#include "bpf_run.h"

/*
 * The most BPF instructions a hot ioctl may take through the filter: 19
 * to 34 with the binary tree, 94 to 106 when the filter walked the list.
 */
#define SECCOMP_HOT_MAX 40

static void test_filter_builds_for_riscv64(void **state)
{
	static struct vm_config cfg;

	(void)state;
	assert_int_equal(seccomp_setup(&cfg, false, true), 0);
}

/*
 * The gdb stub's and vhost's ioctls pass only for a run that asked for
 * them; the filter builds with them too.
 */
static void test_ioctls_by_feature(void **state)
{
	static struct vm_config cfg;

	(void)state;
	assert_true(seccomp_ioctl_allowed(&cfg, KVM_RUN));
	assert_false(seccomp_ioctl_allowed(&cfg, KVM_SET_GUEST_DEBUG));
	assert_false(seccomp_ioctl_allowed(&cfg, VHOST_SET_VRING_KICK));
	assert_false(seccomp_ioctl_allowed(&cfg, VHOST_VSOCK_SET_RUNNING));
	assert_false(seccomp_ioctl_allowed(&cfg, VHOST_SET_OWNER));
	cfg.gdb = "tcp:1234";
	assert_true(seccomp_ioctl_allowed(&cfg, KVM_SET_GUEST_DEBUG));
	assert_false(seccomp_ioctl_allowed(&cfg, VHOST_SET_VRING_KICK));
	cfg.vsock_cid = 3;
	assert_true(seccomp_ioctl_allowed(&cfg, VHOST_SET_VRING_KICK));
	assert_true(seccomp_ioctl_allowed(&cfg, VHOST_VSOCK_SET_RUNNING));
	/* set-up only, before the filter: never allowed after it */
	assert_false(seccomp_ioctl_allowed(&cfg, VHOST_SET_OWNER));
	assert_false(seccomp_ioctl_allowed(&cfg, VHOST_SET_MEM_TABLE));
	assert_false(seccomp_ioctl_allowed(&cfg, VHOST_NET_SET_BACKEND));
	assert_int_equal(seccomp_setup(&cfg, false, true), 0);
	/* --vsock CID,socket=PATH: lkvm serves it, no vhost ioctl. */
	strcpy(cfg.vsock_socket, "/tmp/v.sock");
	assert_false(seccomp_ioctl_allowed(&cfg, VHOST_SET_VRING_KICK));
	assert_false(seccomp_ioctl_allowed(&cfg, VHOST_VSOCK_SET_RUNNING));
	assert_int_equal(seccomp_setup(&cfg, false, true), 0);
	assert_int_equal(seccomp_setup(&cfg, false, false), 0);
}

/* -n ...,vhost=1: vhost's ring requests and the tap's back-end. */
static void test_ioctls_vhost_net(void **state)
{
	static struct vm_config cfg;

	(void)state;
	cfg.nr_nics = 2;
	cfg.nics[0].mode = NIC_MODE_USER;
	cfg.nics[1].mode = NIC_MODE_TAP;
	assert_false(seccomp_ioctl_allowed(&cfg, VHOST_SET_VRING_KICK));
	assert_false(seccomp_ioctl_allowed(&cfg, VHOST_NET_SET_BACKEND));
	assert_false(seccomp_ioctl_allowed(&cfg, TUNSETVNETHDRSZ));
	cfg.nics[1].vhost = true;
	assert_true(seccomp_ioctl_allowed(&cfg, VHOST_SET_VRING_KICK));
	assert_true(seccomp_ioctl_allowed(&cfg, VHOST_GET_VRING_BASE));
	assert_true(seccomp_ioctl_allowed(&cfg, VHOST_SET_FEATURES));
	assert_true(seccomp_ioctl_allowed(&cfg, VHOST_NET_SET_BACKEND));
	assert_true(seccomp_ioctl_allowed(&cfg, TUNSETVNETHDRSZ));
	assert_false(seccomp_ioctl_allowed(&cfg, VHOST_VSOCK_SET_RUNNING));
	assert_false(seccomp_ioctl_allowed(&cfg, VHOST_SET_OWNER));
	assert_int_equal(seccomp_setup(&cfg, false, true), 0);
}

static void test_names_exist_on_riscv64(void **state)
{
	const char *name;
	size_t i;

	(void)state;
	for (i = 0; (name = seccomp_allowed_name(i)); i++)
		if (seccomp_syscall_resolve_name_arch(SCMP_ARCH_RISCV64, name) <
		    0)
			fail_msg("%s is no riscv64 system call", name);
	assert_true(i > 40);
	assert_null(seccomp_allowed_name(i + 1));
	for (i = 0; (name = seccomp_hvsock_name(i)); i++)
		if (seccomp_syscall_resolve_name_arch(SCMP_ARCH_RISCV64, name) <
		    0)
			fail_msg("%s is no riscv64 system call", name);
	assert_int_equal(i, 3);
}

/* What the guest-facing threads need most must be there. */
static void test_core_calls_allowed(void **state)
{
	static const char *const need[] = { "ioctl", "read",  "write",
					    "ppoll", "futex", "exit_group",
					    "clone" };

	(void)state;
	for (size_t n = 0; n < sizeof(need) / sizeof(*need); n++) {
		bool found = false;
		const char *name;

		for (size_t i = 0; (name = seccomp_allowed_name(i)); i++)
			found |= !strcmp(name, need[n]);
		if (!found)
			fail_msg("%s is not allowed", need[n]);
	}
}

/* Things lkvm never does once set up stay forbidden. */
static void test_dangerous_calls_not_allowed(void **state)
{
	static const char *const never[] = {
		"execve",  "execveat", "personality", "ptrace", "socket",
		"connect", "mount",    "unshare",     "setns"
	};
	const char *name;

	(void)state;
	for (size_t n = 0; n < sizeof(never) / sizeof(*never); n++)
		for (size_t i = 0; (name = seccomp_allowed_name(i)); i++)
			if (!strcmp(name, never[n]))
				fail_msg("%s is allowed", name);
}

/* The riscv64 filter for cfg, run on one call. */
static struct bpf_result filter_run(const struct vm_config *cfg,
				    const char *name, uint64_t a0, uint64_t a1,
				    uint64_t a2)
{
	struct seccomp_data d = { .arch = AUDIT_ARCH_RISCV64,
				  .args = { a0, a1, a2 } };
	struct sock_filter *prog;
	ssize_t n = seccomp_export(cfg, true, &prog);
	struct bpf_result r;

	assert_true(n > 0);
	d.nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_RISCV64, name);
	assert_true(d.nr >= 0);
	r = bpf_run(prog, (size_t)n, &d);
	free(prog);
	assert_true(r.ok);
	return r;
}

static bool allows(const struct vm_config *cfg, const char *name, uint64_t a0,
		   uint64_t a1, uint64_t a2)
{
	return filter_run(cfg, name, a0, a1, a2).ret == SECCOMP_RET_ALLOW;
}

/* The loaded program decides as the allow-list says. */
static void test_filter_decides(void **state)
{
	static struct vm_config cfg;
	struct seccomp_data d = { .arch = AUDIT_ARCH_X86_64, .nr = 0 };
	struct sock_filter *prog;
	ssize_t n;

	(void)state;
	assert_true(allows(&cfg, "read", 0, 0, 0));
	assert_true(allows(&cfg, "ioctl", 3, KVM_SIGNAL_MSI, 0));
	assert_true(allows(&cfg, "ioctl", 3, KVM_RUN, 0));
	/* The request is 32 bits: what glibc leaves above it is ignored. */
	assert_true(allows(&cfg, "ioctl", 3, KVM_RUN | 0xdead00000000ULL, 0));
	assert_false(allows(&cfg, "ioctl", 3, KVM_SET_GUEST_DEBUG, 0));
	assert_false(allows(&cfg, "ioctl", 3, 0x5412 /* TIOCSTI */, 0));
	assert_false(allows(&cfg, "personality", 0, 0, 0));
	assert_true(allows(&cfg, "clone", CLONE_VM | CLONE_THREAD, 0, 0));
	assert_false(allows(&cfg, "clone", CLONE_VM, 0, 0));
	assert_true(allows(&cfg, "mmap", 0, 4096, PROT_READ | PROT_WRITE));
	assert_false(allows(&cfg, "mmap", 0, 4096, PROT_READ | PROT_EXEC));
	assert_false(allows(&cfg, "mprotect", 0, 4096, PROT_EXEC));
	assert_int_equal(filter_run(&cfg, "personality", 0, 0, 0).ret,
			 SECCOMP_RET_TRAP);
	/* Another architecture's calls never pass. */
	n = seccomp_export(&cfg, true, &prog);
	assert_true(n > 0);
	assert_true(bpf_run(prog, (size_t)n, &d).ok);
	assert_int_not_equal(bpf_run(prog, (size_t)n, &d).ret,
			     SECCOMP_RET_ALLOW);
	free(prog);
}

/*
 * What the filter costs where a guest waits on one request at a time.
 * The I/O thread's calls per request (and the console's) must not look
 * at their arguments: the kernel's seccomp cache then lets them through
 * without running the filter.  The ioctls that signal the guest or run
 * a vCPU do run it, interpreted where the BPF JIT is off (Linux's
 * default on riscv64, Debian's kernel too): they must be reached in a
 * few instructions, not after a walk of the whole allow-list.
 */
static void test_filter_hot_path(void **state)
{
	static const char *const cached[] = {
		"read",		"write",	  "pread64", "preadv",
		"pwritev",	"readv",	  "writev",  "epoll_pwait",
		"epoll_pwait2", "io_uring_enter", "futex",   "clock_nanosleep",
	};
	static const struct {
		const char *what;
		unsigned long req;
	} hot[] = {
		{ "KVM_SIGNAL_MSI", KVM_SIGNAL_MSI },
		{ "KVM_IRQ_LINE", KVM_IRQ_LINE },
		{ "KVM_RUN", KVM_RUN },
	};
	static struct vm_config cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(cached) / sizeof(*cached); i++) {
		struct bpf_result r = filter_run(&cfg, cached[i], 1, 2, 3);

		assert_int_equal(r.ret, SECCOMP_RET_ALLOW);
		if (r.args_read)
			fail_msg("%s: the filter reads its arguments",
				 cached[i]);
	}
	for (size_t i = 0; i < sizeof(hot) / sizeof(*hot); i++) {
		struct bpf_result r =
			filter_run(&cfg, "ioctl", 3, hot[i].req, 0);

		assert_int_equal(r.ret, SECCOMP_RET_ALLOW);
		print_message("seccomp: ioctl %s: %u BPF instructions\n",
			      hot[i].what, r.run);
		if (r.run > SECCOMP_HOT_MAX)
			fail_msg("ioctl %s: %u BPF instructions (at most %u)",
				 hot[i].what, r.run, SECCOMP_HOT_MAX);
	}
}

/* seccomp_setup()'s result with the unsupported-kernel hook set to e. */
static int setup_unsupported(const char *e, char *msg, size_t size)
{
	char tmp[] = "/tmp/rvkvm-test-stderr-XXXXXX";
	int fd = mkstemp(tmp), saved = dup(2), level = log_level, ret;
	struct vm_config cfg = { 0 };
	ssize_t n;

	assert_true(fd >= 0 && saved >= 0);
	setenv(SECCOMP_TEST_UNSUPPORTED_ENV, e, 1);
	fflush(stderr);
	dup2(fd, 2);
	log_level = LOG_ERR;
	ret = seccomp_setup(&cfg, false, true);
	fflush(stderr);
	log_level = level;
	dup2(saved, 2);
	close(saved);
	unsetenv(SECCOMP_TEST_UNSUPPORTED_ENV);
	n = pread(fd, msg, size - 1, 0);
	msg[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(tmp);
	return ret;
}

/*
 * A host kernel without seccomp filters: one line that names the cause
 * and the cure, and a failure (closed, not open).
 */
static void test_kernel_without_filters(void **state)
{
	static const char *const answers[] = { "EINVAL", "EOPNOTSUPP" };
	char msg[512];

	(void)state;
	for (int i = 0; i < 2; i++) {
		assert_true(setup_unsupported(answers[i], msg, sizeof(msg)) <
			    0);
		assert_non_null(strstr(msg, "host kernel cannot filter"));
		assert_non_null(strstr(msg, "CONFIG_SECCOMP_FILTER"));
		assert_non_null(strstr(msg, "--no-seccomp"));
		assert_ptr_equal(strchr(msg, '\n'), msg + strlen(msg) - 1);
	}
}

static void test_kill_line(void **state)
{
	char buf[128];
	size_t n;

	(void)state;
	n = seccomp_format_kill(buf, sizeof(buf), "personality", 92);
	assert_int_equal(n, strlen(buf));
	assert_string_equal(
		buf,
		"lkvm: seccomp: forbidden system call personality (number 92)\n");
	seccomp_format_kill(buf, sizeof(buf), NULL, -5);
	assert_string_equal(
		buf, "lkvm: seccomp: forbidden system call ? (number -5)\n");
	/* Truncated, still terminated. */
	assert_int_equal(seccomp_format_kill(buf, 10, "x", 1), 9);
	assert_string_equal(buf, "lkvm: sec");
	assert_int_equal(seccomp_format_kill(buf, 0, "x", 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_builds_for_riscv64),
		cmocka_unit_test(test_names_exist_on_riscv64),
		cmocka_unit_test(test_ioctls_by_feature),
		cmocka_unit_test(test_ioctls_vhost_net),
		cmocka_unit_test(test_core_calls_allowed),
		cmocka_unit_test(test_dangerous_calls_not_allowed),
		cmocka_unit_test(test_kill_line),
		cmocka_unit_test(test_filter_decides),
		cmocka_unit_test(test_filter_hot_path),
		cmocka_unit_test(test_kernel_without_filters),
	};

	return cmocka_run_group_tests_name("seccomp", tests, NULL, NULL);
}
