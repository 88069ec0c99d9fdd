// SPDX-License-Identifier: GPL-2.0
/*
 * Kick eventfds: one per queue of each virtio-mmio slot, bound to
 * QueueNotify with the queue index, each kicking its own queue only.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/log.h"
#include "lib/sizes.h"
#include "vmm/board/board.h"
#include "vmm/machine/ioeventfds.h"

#define FAKE_QUEUES 3

struct bound {
	uint64_t addr;
	uint32_t q;
	int fd;
};

struct fixture {
	struct vm_config cfg;
	struct vm vm;
	struct board board;
	struct irq_line harts[1];
	int hart_level;
	struct virtio_mmio fake; /* FAKE_QUEUES queues, in slot 1 */
	unsigned int notified[FAKE_QUEUES];
	struct iothread io;
	struct bound bound[16];
	unsigned int nr_bound;
};

static void hart_set(void *opaque, int level)
{
	*(int *)opaque = level;
}

static void fake_notify(void *opaque, unsigned int q)
{
	struct fixture *fx = opaque;

	assert_true(q < FAKE_QUEUES);
	fx->notified[q]++;
}

static const struct virtio_dev_ops fake_ops = { .notify = fake_notify };

static void record(void *opaque, uint64_t addr, unsigned int len, uint32_t q,
		   int fd, bool assign)
{
	struct fixture *fx = opaque;

	assert_int_equal(len, 4); /* virtio-mmio's QueueNotify */
	assert_true(assign);
	assert_true(fx->nr_bound < 16);
	fx->bound[fx->nr_bound++] = (struct bound){ addr, q, fd };
}

static struct fixture *fixture_new(void)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct board_irqchip chip = { .kind = IRQCHIP_KIND_PLIC };
	struct virtio_dev dev = { .name = "fake",
				  .ops = &fake_ops,
				  .device_id = 42,
				  .num_queues = FAKE_QUEUES,
				  .queue_num_max = 16 };
	struct board_slot *slot;

	assert_non_null(fx);
	log_level = -1;
	chip.harts = fx->harts;
	fx->harts[0] = (struct irq_line){ hart_set, &fx->hart_level };
	fx->cfg = (struct vm_config){ .nr_cpus = 1, .ram_size = SZ_256M };
	assert_int_equal(vm_init(&fx->vm, &fx->cfg, board_ram_base()), 0);
	assert_int_equal(board_up(&fx->board, &fx->vm, &chip, NULL), 0);
	assert_int_equal(board_rng_up(&fx->board), 0); /* slot 0, 1 queue */
	slot = board_virtio_slot(&fx->board, "fake");
	assert_non_null(slot);
	dev.opaque = fx;
	assert_int_equal(virtio_mmio_init(&fx->fake, &slot->res, &fx->vm.mem,
					  &slot->line, &dev),
			 0);
	assert_int_equal(board_virtio_add(slot, &fx->fake), 0);
	assert_int_equal(iothread_init(&fx->io), 0);
	return fx;
}

static void fixture_free(struct fixture *fx)
{
	iothread_stop(&fx->io);
	kicks_close(&fx->board);
	board_down(&fx->board);
	virtio_mmio_destroy(&fx->fake);
	close(fx->vm.stop_fd);
	free(fx);
}

/* What the I/O thread does when fd is readable. */
static void io_ready(struct fixture *fx, int fd)
{
	for (unsigned int i = 0; i < fx->io.nr_fds; i++)
		if (fx->io.fds[i].fd == fd) {
			fx->io.fds[i].handler(fx->io.fds[i].opaque);
			return;
		}
	fail_msg("fd %d is not watched", fd);
}

static void signal_fd(int fd)
{
	uint64_t one = 1;

	assert_int_equal(write(fd, &one, sizeof(one)), sizeof(one));
}

/* One binding per queue: QueueNotify of its slot, datamatch = index. */
static void test_one_fd_per_queue(void **state)
{
	struct fixture *fx = fixture_new();
	uint64_t rng = fx->board.virtio[0].res.base;
	uint64_t fake = fx->board.virtio[1].res.base;

	(void)state;
	assert_int_equal(kicks_watch(&fx->board, &fx->io), 0);
	assert_int_equal(fx->io.nr_fds, 1 + FAKE_QUEUES);
	kicks_bind(&fx->board, record, fx);
	assert_int_equal(fx->nr_bound, 1 + FAKE_QUEUES);
	assert_int_equal(fx->bound[0].addr, rng + VIRTIO_MMIO_QUEUE_NOTIFY);
	assert_int_equal(fx->bound[0].q, 0);
	for (unsigned int q = 0; q < FAKE_QUEUES; q++) {
		const struct bound *b = &fx->bound[1 + q];

		assert_int_equal(b->addr, fake + VIRTIO_MMIO_QUEUE_NOTIFY);
		assert_int_equal(b->q, q);
		for (unsigned int j = 0; j < 1 + q; j++)
			assert_int_not_equal(b->fd, fx->bound[j].fd);
	}
	fixture_free(fx);
}

/* Queue 1's eventfd kicks queue 1 and nothing else. */
static void test_kick_reaches_its_queue(void **state)
{
	struct fixture *fx = fixture_new();

	(void)state;
	assert_int_equal(kicks_watch(&fx->board, &fx->io), 0);
	kicks_bind(&fx->board, record, fx);
	/* the driver is up and its queues ready (the transport's fields) */
	fx->fake.core.status =
		VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER |
		VIRTIO_STATUS_FEATURES_OK | VIRTIO_STATUS_DRIVER_OK;
	for (unsigned int q = 0; q < FAKE_QUEUES; q++)
		fx->fake.core.queues[q].ready = true;
	signal_fd(fx->bound[1 + 1].fd);
	io_ready(fx, fx->bound[1 + 1].fd);
	assert_int_equal(fx->notified[0], 0);
	assert_int_equal(fx->notified[1], 1);
	assert_int_equal(fx->notified[2], 0);
	signal_fd(fx->bound[1 + 2].fd);
	io_ready(fx, fx->bound[1 + 2].fd);
	assert_int_equal(fx->notified[2], 1);
	fixture_free(fx);
}

/* How many of the I/O thread's fds epoll reports now. */
static int io_pending(struct fixture *fx)
{
	struct epoll_event ev[8];

	return epoll_wait(fx->io.epfd, ev, 8, 0);
}

/*
 * A kick eventfd is edge-triggered: reported once per signal, never read
 * (its count is of no use), so no read per notification.
 */
static void test_kick_fd_edge(void **state)
{
	struct fixture *fx = fixture_new();
	uint64_t count;
	int fd;

	(void)state;
	assert_int_equal(kicks_watch(&fx->board, &fx->io), 0);
	kicks_bind(&fx->board, record, fx);
	fd = fx->bound[1 + 1].fd;
	assert_int_equal(io_pending(fx), 0);
	signal_fd(fd);
	assert_int_equal(io_pending(fx), 1);
	assert_int_equal(io_pending(fx), 0);
	signal_fd(fd);
	assert_int_equal(io_pending(fx), 1);
	io_ready(fx, fd);
	assert_int_equal(read(fd, &count, sizeof(count)), sizeof(count));
	assert_int_equal(count, 2);
	fixture_free(fx);
}

struct bind_log {
	uint32_t q;
	bool assign;
};

static struct bind_log route_log[16];
static unsigned int nr_route_log;

static void record_any(void *opaque, uint64_t addr, unsigned int len,
		       uint32_t q, int fd, bool assign)
{
	(void)opaque;
	(void)addr;
	(void)len;
	(void)fd;
	assert_true(nr_route_log < 16);
	route_log[nr_route_log++] = (struct bind_log){ q, assign };
}

/* What a device does: route queue q, the core's lock held. */
static bool route(struct fixture *fx, unsigned int q, bool eventfd)
{
	bool ret;

	virtio_core_lock(&fx->fake.core);
	ret = virtio_core_route_locked(&fx->fake.core, q, eventfd);
	virtio_core_unlock(&fx->fake.core);
	return ret;
}

/*
 * A device routes a queue to the vCPU's exit: its eventfd is unbound
 * (once), stays unbound at the next VM's binding, and is bound again
 * when routed back; the other queues are left alone.
 */
static void test_route_unbinds(void **state)
{
	struct fixture *fx = fixture_new();

	(void)state;
	nr_route_log = 0;
	assert_false(route(fx, 1, false)); /* no hook before kicks_watch */
	assert_int_equal(kicks_watch(&fx->board, &fx->io), 0);
	kicks_bind(&fx->board, record_any, fx);
	assert_int_equal(nr_route_log, 1 + FAKE_QUEUES);
	nr_route_log = 0;
	assert_true(route(fx, 1, false));
	assert_int_equal(nr_route_log, 1);
	assert_int_equal(route_log[0].q, 1);
	assert_false(route_log[0].assign);
	assert_true(route(fx, 1, false)); /* already there: no call */
	assert_true(route(fx, 0, true));
	assert_int_equal(nr_route_log, 1);
	assert_false(route(fx, FAKE_QUEUES, false)); /* no such queue */
	fx->board.virtio[1].backend_kicks = 1u << 2; /* a vhost reads it */
	assert_false(route(fx, 2, false));
	fx->board.virtio[1].backend_kicks = 0;
	assert_int_equal(nr_route_log, 1);
	/* a new VM (a reboot): queue 1 stays on the exit path */
	kicks_unbind(&fx->board);
	nr_route_log = 0;
	kicks_bind(&fx->board, record_any, fx);
	assert_int_equal(nr_route_log, FAKE_QUEUES); /* rng's, fake's 0, 2 */
	for (unsigned int i = 0; i < nr_route_log; i++) {
		assert_true(route_log[i].assign);
		assert_int_not_equal(route_log[i].q, 1);
	}
	nr_route_log = 0;
	assert_true(route(fx, 1, true));
	assert_int_equal(nr_route_log, 1);
	assert_int_equal(route_log[0].q, 1);
	assert_true(route_log[0].assign);
	/* between VMs: the state changes, nothing is bound */
	kicks_unbind(&fx->board);
	nr_route_log = 0;
	assert_true(route(fx, 2, false));
	assert_int_equal(nr_route_log, 0);
	assert_true(fx->board.virtio[1].kicks[2].vcpu);
	fixture_free(fx);
}

/* Close is idempotent and leaves no fd behind. */
static void test_close(void **state)
{
	struct fixture *fx = fixture_new();

	(void)state;
	assert_int_equal(kicks_watch(&fx->board, &fx->io), 0);
	kicks_close(&fx->board);
	assert_int_equal(fx->board.virtio[0].nr_kicks, 0);
	assert_int_equal(fx->board.virtio[1].nr_kicks, 0);
	kicks_close(&fx->board);
	fx->nr_bound = 0;
	kicks_bind(&fx->board, record, fx);
	assert_int_equal(fx->nr_bound, 0);
	fixture_free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_fd_per_queue),
		cmocka_unit_test(test_kick_reaches_its_queue),
		cmocka_unit_test(test_kick_fd_edge),
		cmocka_unit_test(test_route_unbinds),
		cmocka_unit_test(test_close),
	};

	return cmocka_run_group_tests_name("kicks", tests, NULL, NULL);
}
