// SPDX-License-Identifier: GPL-2.0
/*
 * The host side of lkvm sandbox (vmm/sandbox.c) against a hostile guest:
 * the root is a 9p share the guest writes, so nothing the host does in
 * it after the guest ran may follow a link out of it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "vmm/sandbox/sandbox.h"

static char tmp[PATH_MAX], root[PATH_MAX], outside[PATH_MAX];

static void path_of(char *buf, const char *a, const char *b)
{
	snprintf(buf, PATH_MAX, "%s/%s", a, b);
}

static void put(const char *dir, const char *name, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	path_of(p, dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static bool exists(const char *dir, const char *name)
{
	char p[PATH_MAX];
	struct stat st;

	path_of(p, dir, name);
	return !lstat(p, &st);
}

static int setup(void **state)
{
	char p[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "/tmp/test_sandbox.XXXXXX");
	assert_non_null(mkdtemp(tmp));
	path_of(root, tmp, "root");
	path_of(outside, tmp, "outside");
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(mkdir(outside, 0755), 0);
	path_of(p, root, "virt");
	assert_int_equal(mkdir(p, 0755), 0);
	path_of(p, root, "etc");
	assert_int_equal(mkdir(p, 0755), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) ? -1 : 0;
}

static void cfg_init(struct vm_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->shares[0].path, sizeof(cfg->shares[0].path), "%s", root);
	snprintf(cfg->shares[0].tag, sizeof(cfg->shares[0].tag), "%s",
		 SANDBOX_ROOT_TAG);
	cfg->nr_shares = 1;
	cfg->pid = 4242;
	cfg->sandbox = true;
}

/* The guest's status comes back; the run directory goes. */
static void test_status(void **state)
{
	struct vm_config cfg;
	char dir[PATH_MAX];

	cfg_init(&cfg);
	path_of(dir, root, "virt/sandbox-4242");
	assert_int_equal(mkdir(dir, 0755), 0);
	put(dir, "status", "7\n");
	put(dir, "cmd.sh", "true\n");
	put(dir, "started", "");
	assert_int_equal(sandbox_finish_run(&cfg), 7);
	assert_false(exists(root, "virt/sandbox-4242"));
}

/* The run directory made a link to a host directory: nothing there goes. */
static void test_run_dir_link(void **state)
{
	struct vm_config cfg;
	char dir[PATH_MAX];

	cfg_init(&cfg);
	put(outside, "status", "3\n");
	put(outside, "cmd.sh", "precious\n");
	put(outside, "started", "precious\n");
	path_of(dir, root, "virt/sandbox-4242");
	assert_int_equal(symlink(outside, dir), 0);
	assert_int_equal(sandbox_finish_run(&cfg), SANDBOX_EXIT_NO_STATUS);
	assert_true(exists(outside, "status"));
	assert_true(exists(outside, "cmd.sh"));
	assert_true(exists(outside, "started"));
}

/* /virt itself a link to a host directory. */
static void test_virt_link(void **state)
{
	struct vm_config cfg;
	char p[PATH_MAX], sub[PATH_MAX];

	cfg_init(&cfg);
	path_of(sub, outside, "sandbox-4242");
	assert_int_equal(mkdir(sub, 0755), 0);
	put(sub, "status", "0\n");
	put(sub, "cmd.sh", "precious\n");
	path_of(p, root, "virt");
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(symlink(outside, p), 0);
	assert_int_equal(sandbox_finish_run(&cfg), SANDBOX_EXIT_NO_STATUS);
	assert_true(exists(sub, "cmd.sh"));
	assert_true(exists(sub, "status"));
}

/* status a FIFO (the host would block forever) or a link to a host file. */
static void test_status_not_file(void **state)
{
	struct vm_config cfg;
	char dir[PATH_MAX], p[PATH_MAX], target[PATH_MAX];

	cfg_init(&cfg);
	path_of(dir, root, "virt/sandbox-4242");
	assert_int_equal(mkdir(dir, 0755), 0);
	path_of(p, dir, "status");
	assert_int_equal(mkfifo(p, 0644), 0);
	alarm(10);
	assert_int_equal(sandbox_finish_run(&cfg), SANDBOX_EXIT_NO_STATUS);
	alarm(0);

	put(outside, "number", "9\n");
	assert_int_equal(mkdir(dir, 0755), 0);
	path_of(target, outside, "number");
	assert_int_equal(symlink(target, p), 0);
	assert_int_equal(sandbox_finish_run(&cfg), SANDBOX_EXIT_NO_STATUS);
	assert_true(exists(outside, "number"));
}

/* etc a link to a host directory: its resolv.conf stays. */
static void test_resolv_conf_link(void **state)
{
	struct vm_config cfg;
	char p[PATH_MAX];

	cfg_init(&cfg);
	cfg.sandbox = false;
	cfg.custom_rootfs = true;
	snprintf(cfg.rootfs_name, sizeof(cfg.rootfs_name), "x");
	/* An init already there: sandbox_prepare copies none. */
	put(root, "virt/init", "#!/bin/sh\n");
	path_of(p, root, "virt/init");
	assert_int_equal(chmod(p, 0755), 0);
	put(outside, "resolv.conf", "precious\n");
	path_of(p, root, "etc");
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(symlink(outside, p), 0);
	sandbox_prepare(&cfg, "/proc/self/exe");
	path_of(p, outside, "resolv.conf");
	{
		char buf[32] = "";
		FILE *f = fopen(p, "r");

		assert_non_null(f);
		assert_non_null(fgets(buf, sizeof(buf), f));
		fclose(f);
		assert_string_equal(buf, "precious\n");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_dir_link, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_virt_link, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_status_not_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_resolv_conf_link, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
