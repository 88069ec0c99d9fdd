// SPDX-License-Identifier: GPL-2.0
/*
 * Starting qemu-storage-daemon (vmm/host/qsd.c): the format chosen
 * (never from the contents), its argv (escaping, read-only, O_DIRECT,
 * the snapshot overlay), and starts against fakes on PATH (shell
 * scripts): the listener as fd 3, the overlay qemu-img made as fd 4 and
 * unnamed, the daemon's stderr kept and its last line quoted, a daemon
 * or qemu-img that is missing or fails.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmm/host/qsd.h"
#include "vmm/host/spawn.h"

static char dir[] = "/tmp/rvkvm-qsd-XXXXXX";
static char tmp[] = "/tmp/rvkvm-qsd-tmp-XXXXXX";

static const char *const export_rw =
	"type=vhost-user-blk,id=disk,node-name=disk,addr.type=fd,addr.str=3,writable=on,num-queues=1";

static void test_argv(void **state)
{
	struct disk_config dc = { .path = "/img/a,b.qcow2" };
	char *argv[QSD_ARGV_MAX];
	char bd[QSD_BLOCKDEV_MAX];

	assert_int_equal(qsd_build_argv(argv, bd, "/q", &dc, "qcow2", false),
			 5);
	assert_string_equal(argv[0], "/q");
	assert_string_equal(argv[1], "--blockdev");
	assert_string_equal(
		argv[2],
		"driver=qcow2,node-name=disk,discard=unmap,read-only=off,cache.direct=off,file.driver=file,file.filename=/img/a,,b.qcow2");
	assert_string_equal(argv[3], "--export");
	assert_string_equal(argv[4], export_rw);
	assert_null(argv[5]);
	/* Relative: "./" first, so that "file:" is a name. */
	strcpy(dc.path, "file:x");
	dc.ro = dc.direct = true;
	qsd_build_argv(argv, bd, "/q", &dc, "vmdk", false);
	assert_string_equal(
		argv[2],
		"driver=vmdk,node-name=disk,discard=unmap,read-only=on,cache.direct=on,file.driver=file,file.filename=./file:x");
	assert_non_null(strstr(argv[4], ",writable=off,"));
	/* The snapshot: a qcow2 overlay as fd 4, whatever the format. */
	dc.ro = dc.direct = false;
	qsd_build_argv(argv, bd, "/q", &dc, "raw", true);
	assert_string_equal(
		argv[2],
		"driver=qcow2,node-name=disk,discard=unmap,read-only=off,cache.direct=off,file.driver=file,file.filename=/proc/self/fd/4");
	assert_string_equal(argv[4], export_rw);
	/* The longest path, all commas: twice as long, and it fits. */
	memset(dc.path, ',', CONFIG_PATH_MAX - 1);
	dc.path[CONFIG_PATH_MAX - 1] = '\0';
	assert_int_equal(qsd_build_argv(argv, bd, "/q", &dc, "qcow2", false),
			 5);
	assert_int_equal(strlen(strstr(argv[2], "filename=./")),
			 strlen("filename=./") + 2 * (CONFIG_PATH_MAX - 1));
}

static void test_format(void **state)
{
	struct disk_config dc = { .path = "x.qcow2" };

	assert_string_equal(qsd_format(&dc), "qcow2");
	dc.raw = true;
	assert_null(qsd_format(&dc));
	dc.snapshot = true;
	assert_string_equal(qsd_format(&dc), "raw");
	dc = (struct disk_config){ .path = "x.img", .format = "vdi" };
	assert_string_equal(qsd_format(&dc), "vdi");
	strcpy(dc.format, "raw");
	assert_null(qsd_format(&dc));
	dc.snapshot = true;
	assert_string_equal(qsd_format(&dc), "raw");
	dc = (struct disk_config){ .path = "qcow2" };
	assert_null(qsd_format(&dc));
	dc = (struct disk_config){ .path = "/x.qcow2/" };
	assert_null(qsd_format(&dc));
}

static void fake(const char *name, const char *body)
{
	char path[96];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
}

static void unfake(const char *name)
{
	char path[96];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

/* What the fake wrote into dir/args. */
static void args_are(const char *want)
{
	char path[96], got[2048] = "";
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/args", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(got, 1, sizeof(got) - 1, f);
	got[n] = '\0';
	fclose(f);
	unlink(path);
	assert_string_equal(got, want);
}

/* The daemon ends: lkvm's socket sees end of file, then the reap. */
static void wait_exit(struct qsd *q, const char *want)
{
	struct pollfd p = { .fd = q->sock, .events = POLLIN };
	char why[64], b;

	assert_int_equal(poll(&p, 1, 10000), 1);
	assert_true(recv(q->sock, &b, 1, 0) <= 0);
	for (int i = 0; i < 100 && q->pid; i++) {
		host_reap(&q->pid, why, sizeof(why));
		usleep(10000);
	}
	assert_int_equal(q->pid, 0);
	assert_string_equal(why, want);
}

/* fd 3 the listener, its argv, its stderr kept: "the last words". */
static void test_start_and_exit(void **state)
{
	struct disk_config dc = { .path = "/srv/a.qcow2" };
	struct qsd q;
	char words[128], want[600];

	fake(QSD_NAME,
	     "[ -S /proc/self/fd/3 ] && echo sock >\"${0%/*}/args\"\n"
	     "echo \"$@\" >>\"${0%/*}/args\"\n"
	     "echo 'qemu-storage-daemon: first' >&2\n"
	     "printf 'qemu-storage-daemon: --blockdev %s: Image is not in qcow2 format\\n\\n' \"$2\" >&2\n"
	     "exit 1");
	assert_int_equal(qsd_start(&q, &dc, "qcow2"), 0);
	assert_true(q.pid > 0 && q.sock >= 0 && q.log_fd >= 0);
	wait_exit(&q, "exited with status 1");
	qsd_last_words(&q, words, sizeof(words));
	assert_string_equal(words, "Image is not in qcow2 format");
	qsd_stop(&q);
	assert_int_equal(q.sock, -1);
	assert_int_equal(q.log_fd, -1);
	snprintf(
		want, sizeof(want),
		"sock\n--blockdev driver=qcow2,node-name=disk,discard=unmap,read-only=off,cache.direct=off,file.driver=file,file.filename=/srv/a.qcow2 --export %s\n",
		export_rw);
	args_are(want);
}

/* A daemon that stays: stop() kills and reaps it. */
static void test_stop_kills(void **state)
{
	struct disk_config dc = { .path = "a.qcow2" };
	struct qsd q;
	char words[16];

	fake(QSD_NAME, "exec sleep 30");
	assert_int_equal(qsd_start(&q, &dc, "qcow2"), 0);
	qsd_last_words(&q, words, sizeof(words));
	assert_string_equal(words, "");
	qsd_stop(&q);
	assert_int_equal(q.pid, 0);
	assert_int_equal(q.sock, -1);
}

/* Not installed: -ENOENT and its name, nothing started. */
static void test_missing(void **state)
{
	struct disk_config dc = { .path = "a.qcow2" };
	struct qsd q;

	unfake(QSD_NAME);
	assert_int_equal(qsd_start(&q, &dc, "qcow2"), -ENOENT);
	assert_string_equal(q.path, QSD_NAME);
	assert_int_equal(q.pid, 0);
	/* ,snapshot needs qemu-img too. */
	fake(QSD_NAME, "exit 0");
	unfake(QSD_IMG_NAME);
	dc.snapshot = true;
	assert_int_equal(qsd_start(&q, &dc, "qcow2"), -ENOENT);
	assert_string_equal(q.path, QSD_IMG_NAME);
	assert_int_equal(q.pid, 0);
}

/*
 * ,snapshot: qemu-img makes the overlay through /proc/self/fd/3 over the
 * image's absolute path; the daemon reads it as fd 4; no file is left
 * in TMPDIR.
 */
static void test_snapshot(void **state)
{
	struct disk_config dc = { .path = "img.raw", .snapshot = true };
	char cwd[256], want[1024];
	struct qsd q;
	DIR *d;
	int n = 0;

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	fake("img.raw", "");
	fake(QSD_IMG_NAME, "echo \"$@\" >\"${0%/*}/args\"\n"
			   "printf OVERLAY >/proc/self/fd/3");
	fake(QSD_NAME,
	     "read -r o </proc/self/fd/4; echo \"got $o\" >>\"${0%/*}/args\"\n"
	     "echo \"$@\" >>\"${0%/*}/args\"");
	setenv("TMPDIR", tmp, 1);
	assert_int_equal(qsd_start(&q, &dc, "raw"), 0);
	wait_exit(&q, "exited with status 0");
	qsd_stop(&q);
	snprintf(
		want, sizeof(want),
		"create -q -f qcow2 -b %s/img.raw -F raw /proc/self/fd/3\n"
		"got OVERLAY\n"
		"--blockdev driver=qcow2,node-name=disk,discard=unmap,read-only=off,cache.direct=off,file.driver=file,file.filename=/proc/self/fd/4 --export %s\n",
		dir, export_rw);
	args_are(want);
	d = opendir(tmp);
	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	assert_int_equal(n, 2); /* . and .. */
	/* qemu-img failing: its last line, -EIO, no daemon. */
	fake(QSD_IMG_NAME,
	     "echo 'qemu-img: Could not open backing file' >&2; exit 1");
	assert_int_equal(qsd_start(&q, &dc, "raw"), -EIO);
	assert_int_equal(q.pid, 0);
	assert_int_equal(q.sock, -1);
	unfake("img.raw");
	unfake(QSD_IMG_NAME);
	unsetenv("TMPDIR");
	assert_int_equal(chdir(cwd), 0);
}

/*
 * A tied child is killed when the thread that started it ends (also when
 * the thread ends at once: the spawn waits for the child's execve).
 */
static void *spawn_sleep(void *arg)
{
	char *argv[] = { "sleep", "30", NULL };
	int fd = dup(0);

	assert_true(fd >= 0);
	assert_int_equal(host_spawn_fds(arg, "/bin/sleep", argv, &fd, 1, -1, -1,
					HOST_SPAWN_TIED),
			 0);
	close(fd);
	return NULL;
}

static void test_tied(void **state)
{
	pthread_t t;
	pid_t pid = 0;
	int status;

	assert_int_equal(pthread_create(&t, NULL, spawn_sleep, &pid), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	/* A path that cannot be run: its errno, no child left. */
	pid = 0;
	assert_int_equal(host_spawn_fds(&pid, "/nonexistent",
					(char *[]){ NULL }, NULL, 0, -1, -1,
					HOST_SPAWN_TIED),
			 -ENOENT);
	assert_int_equal(pid, 0);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
}

static int group_setup(void **state)
{
	char path[64];

	assert_non_null(mkdtemp(dir));
	assert_non_null(mkdtemp(tmp));
	snprintf(path, sizeof(path), "%s:/usr/bin:/bin", dir);
	setenv("PATH", path, 1);
	return 0;
}

static int group_teardown(void **state)
{
	unfake(QSD_NAME);
	unfake(QSD_IMG_NAME);
	rmdir(dir);
	rmdir(tmp);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_start_and_exit),
		cmocka_unit_test(test_stop_kills),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_tied),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
