// SPDX-License-Identifier: GPL-2.0
/*
 * Disk glue: how many request queues each -d gets; image formats lkvm
 * refuses to serve as raw.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/log.h"
#include "lib/sizes.h"
#include "vmm/machine/disks.h"
#include "virtio/blk.h"

static void test_queues_rule(void **state)
{
	struct disk_config dc = { 0 };

	(void)state;
	/* default: one per vCPU, at most the transport's 8, at least 1 */
	assert_int_equal(disks_queues(&dc, 1), 1);
	assert_int_equal(disks_queues(&dc, 3), 3);
	assert_int_equal(disks_queues(&dc, 8), 8);
	assert_int_equal(disks_queues(&dc, 32), VIRTIO_MMIO_MAX_QUEUES);
	assert_int_equal(disks_queues(&dc, 0), 1);
	/* queues=N wins */
	dc.queues = 2;
	assert_int_equal(disks_queues(&dc, 1), 2);
	assert_int_equal(disks_queues(&dc, 32), 2);
}

static void hart_set(void *opaque, int level)
{
	*(int *)opaque = level;
}

/* Two disks on a 3-vCPU board: the default and queues=1. */
static void test_disks_up_queues(void **state)
{
	static struct vm_config cfg = { .nr_cpus = 3, .ram_size = SZ_256M };
	static struct vm vm;
	static struct board board;
	static struct disks disks;
	int level[3] = { 0 };
	struct irq_line harts[3] = { { hart_set, &level[0] },
				     { hart_set, &level[1] },
				     { hart_set, &level[2] } };
	struct board_irqchip chip = { .kind = IRQCHIP_KIND_PLIC,
				      .harts = harts };
	char path[] = "/tmp/rvkvm-test-disks-XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	log_level = -1;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 64 * 1024), 0);
	close(fd);
	cfg.nr_disks = 2;
	strcpy(cfg.disks[0].path, path);
	strcpy(cfg.disks[1].path, path);
	cfg.disks[1].ro = cfg.disks[0].ro = true; /* shared locks: both open */
	cfg.disks[1].queues = 1;
	assert_int_equal(vm_init(&vm, &cfg, board_ram_base()), 0);
	assert_int_equal(board_up(&board, &vm, &chip, NULL), 0);
	assert_int_equal(disks_up(&disks, &cfg, &board), 0);
	assert_int_equal(disks.nr, 2);
	assert_int_equal(disks.blk[0].vm.core.dev.num_queues, 3);
	assert_int_equal(disks.blk[0].config[VIRTIO_BLK_CFG_NUM_QUEUES], 3);
	assert_int_equal(disks.blk[1].vm.core.dev.num_queues, 1);
	assert_int_equal(disks.blk[1].config[VIRTIO_BLK_CFG_NUM_QUEUES], 1);
	disks_down(&disks);
	board_down(&board);
	close(vm.stop_fd);
	unlink(path);
}

static void test_format_magic(void **state)
{
	static const uint8_t qcow2[] = { 'Q', 'F', 'I', 0xfb, 0, 0, 0, 3 };
	static const uint8_t zeroes[512];

	(void)state;
	assert_string_equal(virtio_blk_file_format(qcow2, sizeof(qcow2)),
			    "qcow");
	assert_string_equal(virtio_blk_file_format("QED\0xxxx", 8), "QED");
	assert_string_equal(virtio_blk_file_format("KDMV\1\0\0\0", 8), "VMDK");
	assert_string_equal(virtio_blk_file_format("vhdxfile", 8), "VHDX");
	/* raw: zeroes, an MBR-less ext4 start, a short or cut magic */
	assert_null(virtio_blk_file_format(zeroes, sizeof(zeroes)));
	assert_null(virtio_blk_file_format(qcow2, 3));
	assert_null(virtio_blk_file_format("vhdxfil", 7));
	assert_null(virtio_blk_file_format("QFI\xfa", 4));
	assert_null(virtio_blk_file_format("", 0));
}

/* A temporary file of 64 KiB that starts with head (len bytes). */
static void image_make(char *path, const void *head, size_t len)
{
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 64 * 1024), 0);
	assert_int_equal(pwrite(fd, head, len, 0), (ssize_t)len);
	close(fd);
}

/* What virtio_blk_file_open() of path says on stderr, into buf. */
static void open_message(const char *path, char *buf, size_t size)
{
	char tmp[] = "/tmp/rvkvm-test-stderr-XXXXXX";
	int fd = mkstemp(tmp), saved = dup(2), level = log_level;
	struct virtio_blk_file f;
	ssize_t n;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	log_level = LOG_ERR;
	assert_int_equal(virtio_blk_file_open(&f, path, true, false),
			 -EMEDIUMTYPE);
	fflush(stderr);
	log_level = level;
	dup2(saved, 2);
	close(saved);
	n = pread(fd, buf, size - 1, 0);
	assert_true(n > 0);
	buf[n] = '\0';
	close(fd);
	unlink(tmp);
}

/*
 * The refusal does not teach the backing-file trick: a guest can write a
 * qcow2 header naming a host file into its raw disk, and a bare
 * "qemu-img convert" would copy that file into the image.
 */
static void test_format_refusal_wording(void **state)
{
	static const uint8_t qcow2[] = { 'Q', 'F', 'I', 0xfb, 0, 0, 0, 3 };
	char path[] = "/tmp/rvkvm-test-qcow-XXXXXX";
	char msg[1024];

	(void)state;
	image_make(path, qcow2, sizeof(qcow2));
	open_message(path, msg, sizeof(msg));
	assert_non_null(strstr(msg, path));
	assert_non_null(strstr(msg, "its guest may have written that header"));
	assert_non_null(strstr(msg, "',raw'"));
	assert_non_null(strstr(msg, "'qemu-img info'"));
	assert_null(strstr(msg, "convert -O raw"));
	assert_ptr_equal(strchr(msg, '\n'), msg + strlen(msg) - 1); /* a line */
	unlink(path);
}

/* A qcow2 image given as -d is refused, read-only or not, and untouched. */
static void test_format_refused(void **state)
{
	static const uint8_t qcow2[] = { 'Q', 'F', 'I', 0xfb, 0, 0, 0, 3 };
	char path[] = "/tmp/rvkvm-test-qcow-XXXXXX";
	struct virtio_blk_file f;
	uint8_t back[sizeof(qcow2)];
	struct stat st;
	int fd;

	(void)state;
	log_level = -1;
	image_make(path, qcow2, sizeof(qcow2));
	assert_int_equal(virtio_blk_file_open(&f, path, false, false),
			 -EMEDIUMTYPE);
	assert_int_equal(f.fd, -1);
	assert_int_equal(virtio_blk_file_open(&f, path, true, false),
			 -EMEDIUMTYPE);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, back, sizeof(back), 0), sizeof(back));
	assert_memory_equal(back, qcow2, sizeof(qcow2));
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 64 * 1024);
	close(fd);
	/* ,raw: the same bytes served as they are. */
	assert_int_equal(virtio_blk_file_open_raw(&f, path, true, false), 0);
	assert_int_equal(f.size, 64 * 1024);
	virtio_blk_file_close(&f);
	/* The refusal dropped the lock: a raw image there opens. */
	fd = open(path, O_WRONLY);
	assert_int_equal(pwrite(fd, "\0\0\0\0", 4, 0), 4);
	close(fd);
	assert_int_equal(virtio_blk_file_open(&f, path, false, false), 0);
	virtio_blk_file_close(&f);
	unlink(path);
}

/* A raw image smaller than the probe's block, and an empty one, open. */
static void test_format_small_raw(void **state)
{
	char path[] = "/tmp/rvkvm-test-raw-XXXXXX";
	struct virtio_blk_file f;
	int fd;

	(void)state;
	log_level = -1;
	image_make(path, "QFI", 3);
	fd = open(path, O_WRONLY);
	assert_int_equal(ftruncate(fd, 3), 0);
	close(fd);
	assert_int_equal(virtio_blk_file_open(&f, path, false, false), 0);
	virtio_blk_file_close(&f);
	fd = open(path, O_WRONLY);
	assert_int_equal(ftruncate(fd, 0), 0);
	close(fd);
	assert_int_equal(virtio_blk_file_open(&f, path, true, false), 0);
	virtio_blk_file_close(&f);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queues_rule),
		cmocka_unit_test(test_disks_up_queues),
		cmocka_unit_test(test_format_magic),
		cmocka_unit_test(test_format_refused),
		cmocka_unit_test(test_format_refusal_wording),
		cmocka_unit_test(test_format_small_raw),
	};

	return cmocka_run_group_tests_name("disks", tests, NULL, NULL);
}
