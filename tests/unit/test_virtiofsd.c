// SPDX-License-Identifier: GPL-2.0
/*
 * Starting virtiofsd (vmm/host/virtiofsd.c): its argv (root or not,
 * read-only or not), finding it on PATH, and a start against a fake
 * virtiofsd (a shell script on PATH) that records its arguments and what
 * it got as fd 3, then exits 7: lkvm's connected socket sees the end of
 * file, and the reap says "exited with status 7".
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmm/host/spawn.h"
#include "vmm/host/virtiofsd.h"

static void test_argv(void **state)
{
	struct fs_config fs = { .path = "/srv/share", .tag = "t" };
	char *argv[VIRTIOFSD_ARGV_MAX];
	char dir_arg[VIRTIOFSD_DIR_ARG_MAX];
	unsigned int n;

	n = virtiofsd_build_argv(argv, dir_arg, "/usr/libexec/virtiofsd", &fs,
				 true);
	assert_int_equal(n, 5);
	assert_string_equal(argv[0], "/usr/libexec/virtiofsd");
	assert_string_equal(argv[1], "--fd=3");
	assert_string_equal(argv[2], "--shared-dir=/srv/share");
	assert_string_equal(argv[3], "--sandbox=namespace");
	assert_string_equal(argv[4], "--log-level=error");
	assert_null(argv[5]);
	fs.ro = true;
	n = virtiofsd_build_argv(argv, dir_arg, "v", &fs, false);
	assert_int_equal(n, 6);
	assert_string_equal(argv[3], "--sandbox=none");
	assert_string_equal(argv[5], "--readonly");
	assert_null(argv[6]);
	/* A directory that looks like an option stays one word. */
	strcpy(fs.path, "--help");
	virtiofsd_build_argv(argv, dir_arg, "v", &fs, true);
	assert_string_equal(argv[2], "--shared-dir=--help");
}

static char dir[] = "/tmp/rvkvm-virtiofsd-XXXXXX";

static void fake(const char *body)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/virtiofsd", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
}

static void test_find(void **state)
{
	char path[128], want[64];

	snprintf(want, sizeof(want), "%s/virtiofsd", dir);
	setenv("PATH", dir, 1);
	assert_int_equal(virtiofsd_find(path, sizeof(path)), 0);
	assert_string_equal(path, want);
	setenv("PATH", "/nonexistent", 1);
	if (access(VIRTIOFSD_LIBEXEC, X_OK))
		assert_int_equal(virtiofsd_find(path, sizeof(path)), -ENOENT);
	else
		assert_string_equal(path, VIRTIOFSD_LIBEXEC);
}

static void test_start_and_exit(void **state)
{
	struct fs_config fs = { .path = "/srv/share", .tag = "t", .ro = true };
	struct virtiofsd d;
	struct pollfd p;
	char args[256] = "", want[256], why[64], log[96];
	FILE *f;
	char b;

	snprintf(log, sizeof(log), "%s/args", dir);
	/* The listener as fd 3 (a socket), its arguments, then status 7. */
	fake("[ -S /proc/self/fd/3 ] && echo sock >\"${0%/*}/args\"\n"
	     "echo \"$@\" >>\"${0%/*}/args\"\nexit 7");
	setenv("PATH", dir, 1);
	assert_int_equal(virtiofsd_start(&d, &fs), 0);
	assert_true(d.pid > 0);
	assert_true(d.sock >= 0);
	p = (struct pollfd){ .fd = d.sock, .events = POLLIN };
	assert_int_equal(poll(&p, 1, 10000), 1);
	assert_true(recv(d.sock, &b, 1, 0) <= 0);
	/* Until the exit is reaped: "closed its socket", then the status. */
	for (int i = 0; i < 100 && d.pid; i++) {
		host_reap(&d.pid, why, sizeof(why));
		usleep(10000);
	}
	assert_int_equal(d.pid, 0);
	assert_string_equal(why, "exited with status 7");
	virtiofsd_stop(&d);
	assert_int_equal(d.sock, -1);
	f = fopen(log, "r");
	assert_non_null(f);
	assert_int_equal(fread(args, 1, sizeof(args) - 1, f) > 0, 1);
	fclose(f);
	snprintf(want, sizeof(want),
		 "sock\n--fd=3 --shared-dir=/srv/share --sandbox=%s "
		 "--log-level=error --readonly\n",
		 geteuid() ? "none" : "namespace");
	assert_string_equal(args, want);
	unlink(log);
}

/* A virtiofsd that stays: stop() kills and reaps it. */
static void test_stop_kills(void **state)
{
	struct fs_config fs = { .path = "/", .tag = "t" };
	struct virtiofsd d;

	fake("exec sleep 30");
	setenv("PATH", dir, 1);
	assert_int_equal(virtiofsd_start(&d, &fs), 0);
	virtiofsd_stop(&d);
	assert_int_equal(d.pid, 0);
	assert_int_equal(d.sock, -1);
}

static int group_setup(void **state)
{
	assert_non_null(mkdtemp(dir));
	fake("exit 0");
	return 0;
}

static int group_teardown(void **state)
{
	char path[64];

	snprintf(path, sizeof(path), "%s/virtiofsd", dir);
	unlink(path);
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_start_and_exit),
		cmocka_unit_test(test_stop_kills),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
