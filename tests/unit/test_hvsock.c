// SPDX-License-Identifier: GPL-2.0
/*
 * --vsock CID,socket=PATH's glue: what it does with what is at PATH (a
 * stale socket replaced; a live one, or another file, refused and left
 * alone), and PATH removed at the end only when lkvm made it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/log.h"
#include "lib/sizes.h"
#include "vmm/machine/hvsock.h"

struct fixture {
	struct vm_config cfg;
	struct vm vm;
	struct board board;
	struct hvsock s;
	char dir[64];
};

static void hart_set(void *opaque, int level)
{
	*(int *)opaque = level;
}

static int setup(void **state)
{
	static int level;
	static struct irq_line hart = { hart_set, &level };
	const struct board_irqchip chip = { .kind = IRQCHIP_KIND_PLIC,
					    .harts = &hart };
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	log_level = -1;
	strcpy(f->dir, "/tmp/rvkvm-test-hvsock-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->cfg = (struct vm_config){ .nr_cpus = 1, .ram_size = SZ_256M };
	f->cfg.vsock_cid = 3;
	snprintf(f->cfg.vsock_socket, sizeof(f->cfg.vsock_socket), "%s/v",
		 f->dir);
	assert_int_equal(vm_init(&f->vm, &f->cfg, board_ram_base()), 0);
	assert_int_equal(board_up(&f->board, &f->vm, &chip, NULL), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	hvsock_down(&f->s);
	board_down(&f->board);
	close(f->vm.stop_fd);
	unlink(f->cfg.vsock_socket);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* A socket bound at path: listening, or closed at once (stale). */
static int bound(const char *path, bool listening)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	if (listening) {
		assert_int_equal(listen(fd, 1), 0);
		return fd;
	}
	close(fd);
	return -1;
}

static bool is_socket(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISSOCK(st.st_mode);
}

/* Nothing at PATH, then a stale socket: lkvm's own, removed at the end. */
static void test_listens_and_removes(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(hvsock_up(&f->s, &f->cfg, &f->board), 0);
	assert_true(is_socket(f->cfg.vsock_socket));
	hvsock_down(&f->s);
	assert_false(is_socket(f->cfg.vsock_socket));
	bound(f->cfg.vsock_socket, false);
	assert_int_equal(hvsock_up(&f->s, &f->cfg, &f->board), 0);
	assert_true(f->s.listen_fd >= 0);
	hvsock_down(&f->s);
	assert_int_equal(access(f->cfg.vsock_socket, F_OK), -1);
}

/* Another process listens there: refused, its socket left alone. */
static void test_in_use_left_alone(void **state)
{
	struct fixture *f = *state;
	int fd = bound(f->cfg.vsock_socket, true);

	assert_int_equal(hvsock_up(&f->s, &f->cfg, &f->board), -EADDRINUSE);
	assert_true(is_socket(f->cfg.vsock_socket));
	close(fd);
}

/* A file that is no socket: refused and kept. */
static void test_other_file_kept(void **state)
{
	struct fixture *f = *state;
	FILE *file = fopen(f->cfg.vsock_socket, "w");

	assert_non_null(file);
	fclose(file);
	assert_int_equal(hvsock_up(&f->s, &f->cfg, &f->board), -EEXIST);
	assert_int_equal(access(f->cfg.vsock_socket, F_OK), 0);
}

/* No directory: the bind fails, nothing of lkvm's to remove. */
static void test_no_directory(void **state)
{
	struct fixture *f = *state;

	strcat(f->cfg.vsock_socket, "/x/v");
	assert_int_equal(hvsock_up(&f->s, &f->cfg, &f->board), -ENOENT);
	assert_int_equal(f->s.listen_fd, -1);
	f->cfg.vsock_socket[strlen(f->cfg.vsock_socket) - 4] = '\0';
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_listens_and_removes),
		T(test_in_use_left_alone),
		T(test_other_file_kept),
		T(test_no_directory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
