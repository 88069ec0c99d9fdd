// SPDX-License-Identifier: GPL-2.0
/*
 * virtio-vsock (virtio/vsock.c) on virtio-mmio with a recording back-end:
 * identity, configuration space, features, the hand-over at DRIVER_OK and
 * back at reset, notifications, the back-end's interrupts and failures.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "virtio/vsock.h"
#include "tests/unit/slot_res.h"
#include "tests/unit/virtq_mock.h"

#define RAM_SIZE (1u << 20)
#define NUM 16
#define ACK VIRTIO_STATUS_ACKNOWLEDGE
#define DRV VIRTIO_STATUS_DRIVER
#define FOK VIRTIO_STATUS_FEATURES_OK
#define DOK VIRTIO_STATUS_DRIVER_OK
#define NEEDS_RESET VIRTIO_STATUS_DEVICE_NEEDS_RESET
#define V1 VIRTIO_BIT(VIRTIO_F_VERSION_1)
#define SEQ VIRTIO_BIT(VIRTIO_VSOCK_F_SEQPACKET)
#define CID 0xfedcba98ULL

struct fix {
	struct vqm q[3];
	struct virtio_vsock vs;
	int level;
	unsigned int starts, stops, kicks[3], dmas;
	bool dma_on;
	uint64_t start_features;
	int start_ret;
	bool rings_ready_at_start;
};

static void irq_set(void *opaque, int level)
{
	*(int *)opaque = level;
}

static int be_start(void *opaque, uint64_t features)
{
	struct fix *f = opaque;

	f->starts++;
	f->start_features = features;
	f->rings_ready_at_start =
		f->vs.vm.core.queues[0].ready && f->vs.vm.core.queues[1].ready;
	return f->start_ret;
}

static void be_stop(void *opaque)
{
	((struct fix *)opaque)->stops++;
}

static void be_kick(void *opaque, unsigned int q)
{
	((struct fix *)opaque)->kicks[q]++;
}

static void be_dma(void *opaque, bool on)
{
	struct fix *f = opaque;

	f->dmas++;
	f->dma_on = on;
}

static int fix_init(struct fix *f, uint64_t cid, uint64_t host_features)
{
	const struct irq_line irq = { irq_set, &f->level };
	const struct virtio_vsock_backend be = {
		.start = be_start,
		.stop = be_stop,
		.kick = be_kick,
		.dma = be_dma,
		.opaque = f,
	};

	return virtio_vsock_init(&f->vs, &SLOT_RES(0), &f->q[0].mem, &irq, cid,
				 host_features, &be);
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));

	vqm_init(&f->q[0], RAM_SIZE, NUM);
	vqm_init_in(&f->q[1], &f->q[0], NUM, 16, 4, VQM_RAM_BASE + 0x40000);
	vqm_init_in(&f->q[2], &f->q[0], NUM, 16, 4, VQM_RAM_BASE + 0x60000);
	assert_int_equal(fix_init(f, CID, ~0ULL), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	virtio_vsock_destroy(&f->vs);
	vqm_free(&f->q[0]);
	free(f);
	return 0;
}

static void driver_up(struct fix *f, uint64_t features)
{
	assert_int_equal(vqm_mmio_negotiate(&f->vs.vm, features),
			 ACK | DRV | FOK);
	for (unsigned int q = 0; q < 3; q++)
		assert_int_equal(vqm_mmio_queue(&f->vs.vm, q, &f->q[q]), 1);
	vqm_mmio_driver_ok(&f->vs.vm);
}

static void test_identity(void **state)
{
	struct fix *f = *state;
	struct virtio_mmio *vm = &f->vs.vm;

	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_DEVICE_ID), 19);
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_SEL, 2);
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_QUEUE_NUM_MAX),
			 VIRTIO_VSOCK_QUEUE_SIZE);
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_SEL, 3);
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_QUEUE_NUM_MAX), 0);
}

static void test_config_cid(void **state)
{
	struct fix *f = *state;
	struct virtio_mmio *vm = &f->vs.vm;
	uint8_t b[4] = { 0 };

	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_CONFIG), 0xfedcba98);
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_CONFIG + 4), 0);
	assert_int_equal(vqm_mmio_rd_n(vm, VIRTIO_MMIO_CONFIG + 1, 1), 0xba);
	assert_int_equal(vqm_mmio_rd_n(vm, VIRTIO_MMIO_CONFIG + 2, 2), 0xfedc);
	/* Past the 8 bytes: the transport refuses, reads give 0. */
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_CONFIG + 8), 0);
	/* The device checks on its own too (a front-end's bug). */
	memset(b, 0xaa, sizeof(b));
	f->vs.vm.core.dev.ops->config_read(&f->vs, 6, b, 4);
	assert_memory_equal(b, "\0\0\0\0", 4);
	f->vs.vm.core.dev.ops->config_read(&f->vs, 0xfffffffe, b, 4);
	assert_memory_equal(b, "\0\0\0\0", 4);
	/* Writes are ignored. */
	vqm_mmio_wr(vm, VIRTIO_MMIO_CONFIG, 7);
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_CONFIG), 0xfedcba98);
}

static uint32_t features_hi_lo(struct virtio_mmio *vm, unsigned int sel)
{
	vqm_mmio_wr(vm, VIRTIO_MMIO_DEVICE_FEATURES_SEL, sel);
	return vqm_mmio_rd(vm, VIRTIO_MMIO_DEVICE_FEATURES);
}

static void test_features(void **state)
{
	struct fix *f = *state;

	/* SEQPACKET from the back-end; nothing else of its bits. */
	assert_int_equal(features_hi_lo(&f->vs.vm, 0) & 0xffffff, SEQ);
	virtio_vsock_destroy(&f->vs);
	assert_int_equal(fix_init(f, CID, 0), 0);
	assert_int_equal(features_hi_lo(&f->vs.vm, 0) & 0xffffff, 0);
	assert_int_equal(features_hi_lo(&f->vs.vm, 1), 1); /* VERSION_1 */
}

static void test_bad_init(void **state)
{
	struct fix *f = *state;
	const struct irq_line irq = { irq_set, &f->level };
	const struct virtio_vsock_backend none = { 0 };
	struct virtio_vsock vs;

	assert_false(virtio_vsock_cid_ok(0));
	assert_false(virtio_vsock_cid_ok(2));
	assert_true(virtio_vsock_cid_ok(3));
	assert_true(virtio_vsock_cid_ok(0xfffffffe));
	assert_false(virtio_vsock_cid_ok(0xffffffff));
	assert_int_equal(fix_init(&(struct fix){ 0 }, 2, 0), -EINVAL);
	assert_int_equal(virtio_vsock_init(&vs, &SLOT_RES(0), &f->q[0].mem,
					   &irq, 3, 0, &none),
			 -EINVAL);
}

/* DRIVER_OK hands the rings over, with the driver's features. */
static void test_start_stop(void **state)
{
	struct fix *f = *state;

	driver_up(f, V1 | SEQ);
	assert_int_equal(f->starts, 1);
	assert_true(f->rings_ready_at_start);
	assert_int_equal(f->start_features, V1 | SEQ);
	assert_int_equal(vqm_mmio_rd(&f->vs.vm, VIRTIO_MMIO_STATUS),
			 ACK | DRV | FOK | DOK);
	assert_int_equal(f->stops, 0);
	/* Reset by the driver, then up again (a guest reboot). */
	vqm_mmio_wr(&f->vs.vm, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(f->stops, 1);
	vqm_mmio_wr(&f->vs.vm, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(f->stops, 1); /* nothing to give back */
	driver_up(f, V1);
	assert_int_equal(f->starts, 2);
	assert_int_equal(f->start_features, V1);
}

static void test_kicks(void **state)
{
	struct fix *f = *state;

	vqm_mmio_negotiate(&f->vs.vm, V1);
	for (unsigned int q = 0; q < 3; q++)
		vqm_mmio_queue(&f->vs.vm, q, &f->q[q]);
	/* Before DRIVER_OK: held, then passed on once the back-end has it. */
	vqm_mmio_wr(&f->vs.vm, VIRTIO_MMIO_QUEUE_NOTIFY, 1);
	assert_int_equal(f->kicks[1], 0);
	vqm_mmio_driver_ok(&f->vs.vm);
	assert_int_equal(f->kicks[1], 1);
	vqm_mmio_wr(&f->vs.vm, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->kicks[0], 1);
	/* The event queue is the device's: no kick reaches the back-end. */
	vqm_mmio_wr(&f->vs.vm, VIRTIO_MMIO_QUEUE_NOTIFY, 2);
	assert_int_equal(f->kicks[2], 0);
}

/* The back-end's call: interrupt status and the line. */
static void test_backend_interrupt(void **state)
{
	struct fix *f = *state;
	struct virtio_mmio *vm = &f->vs.vm;

	virtio_mmio_lock(vm);
	virtio_core_backend_used_locked(&vm->core, 0); /* not up: nothing */
	virtio_mmio_unlock(vm);
	assert_int_equal(f->level, 0);
	driver_up(f, V1);
	virtio_mmio_lock(vm);
	virtio_core_backend_used_locked(&vm->core, 1);
	virtio_core_backend_used_locked(&vm->core, 9); /* no such queue */
	virtio_mmio_unlock(vm);
	assert_int_equal(f->level, 1);
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_INTERRUPT_STATUS),
			 VIRTIO_MMIO_INT_VRING);
	vqm_mmio_wr(vm, VIRTIO_MMIO_INTERRUPT_ACK, VIRTIO_MMIO_INT_VRING);
	assert_int_equal(f->level, 0);
}

/* A back-end that cannot start: NEEDS_RESET, and a reset gives back. */
static void test_start_fails(void **state)
{
	struct fix *f = *state;
	struct virtio_mmio *vm = &f->vs.vm;

	f->start_ret = -EFAULT;
	driver_up(f, V1);
	assert_true(vqm_mmio_rd(vm, VIRTIO_MMIO_STATUS) & NEEDS_RESET);
	assert_true(vqm_mmio_rd(vm, VIRTIO_MMIO_INTERRUPT_STATUS) &
		    VIRTIO_MMIO_INT_CONFIG);
	/* Notifications no longer reach it. */
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->kicks[0], 0);
	vqm_mmio_wr(vm, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(f->stops, 1);
	f->start_ret = 0;
	driver_up(f, V1);
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_STATUS),
			 ACK | DRV | FOK | DOK);
}

/* A ring error reported later: the glue marks the device broken. */
static void test_fail_later(void **state)
{
	struct fix *f = *state;
	struct virtio_mmio *vm = &f->vs.vm;

	driver_up(f, V1);
	virtio_mmio_lock(vm);
	virtio_core_fail_locked(&vm->core);
	virtio_mmio_unlock(vm);
	assert_true(vqm_mmio_rd(vm, VIRTIO_MMIO_STATUS) & NEEDS_RESET);
	vqm_mmio_wr(vm, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(f->stops, 1);
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_STATUS), 0);
}

static void set_dma(struct fix *f, bool on)
{
	virtio_mmio_lock(&f->vs.vm);
	virtio_core_set_dma_locked(&f->vs.vm.core, on);
	virtio_mmio_unlock(&f->vs.vm);
}

/*
 * PCI bus mastering off and on again: the back-end that holds the rings
 * is told (it must stop touching guest memory); before DRIVER_OK, or
 * with no change, it is not.
 */
static void test_bus_master(void **state)
{
	struct fix *f = *state;

	set_dma(f, false); /* not started: lkvm's core holds, no back-end */
	assert_int_equal(f->dmas, 0);
	set_dma(f, true);
	driver_up(f, V1);
	set_dma(f, false);
	assert_int_equal(f->dmas, 1);
	assert_false(f->dma_on);
	set_dma(f, false);
	assert_int_equal(f->dmas, 1);
	set_dma(f, true);
	assert_int_equal(f->dmas, 2);
	assert_true(f->dma_on);
	/* After a reset the rings are lkvm's again: nothing to tell. */
	vqm_mmio_wr(&f->vs.vm, VIRTIO_MMIO_STATUS, 0);
	set_dma(f, false);
	assert_int_equal(f->dmas, 2);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_identity),	   T(test_config_cid),
		T(test_features),	   T(test_bad_init),
		T(test_start_stop),	   T(test_kicks),
		T(test_backend_interrupt), T(test_start_fails),
		T(test_fail_later),	   T(test_bus_master),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
