// SPDX-License-Identifier: GPL-2.0
/* Disk glue: how many request queues each -d gets. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/log.h"
#include "lib/sizes.h"
#include "vmm/disks.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queues_rule),
		cmocka_unit_test(test_disks_up_queues),
	};

	return cmocka_run_group_tests_name("disks", tests, NULL, NULL);
}
