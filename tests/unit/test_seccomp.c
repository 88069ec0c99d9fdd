// SPDX-License-Identifier: GPL-2.0
/*
 * The seccomp allow-list builds into a riscv64 filter (every name known
 * to libseccomp for riscv64, every argument check accepted), and the
 * SIGSYS handler's line.  Loading the filter is the e2e case lkvm-opts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <seccomp.h>

#include "vmm/host/seccomp.h"

static void test_filter_builds_for_riscv64(void **state)
{
	static struct vm_config cfg;

	(void)state;
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
		cmocka_unit_test(test_core_calls_allowed),
		cmocka_unit_test(test_dangerous_calls_not_allowed),
		cmocka_unit_test(test_kill_line),
	};

	return cmocka_run_group_tests_name("seccomp", tests, NULL, NULL);
}
