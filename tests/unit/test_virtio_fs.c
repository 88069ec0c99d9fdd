// SPDX-License-Identifier: GPL-2.0
/*
 * virtio-fs (virtio/fs.c) on virtio-mmio with a recording back-end:
 * identity, the configuration space (tag, num_request_queues), features,
 * the hand-over of both queues at DRIVER_OK and back at reset,
 * notifications, the back-end's interrupts and failures, bus mastering.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <linux/fuse.h>

#include "virtio/fs.h"
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
#define TAG36 "abcdefghijklmnopqrstuvwxyz0123456789"

struct fix {
	struct vqm q[2];
	struct virtio_fs fs;
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
	f->rings_ready_at_start = f->fs.b.vm.core.queues[0].ready &&
				  f->fs.b.vm.core.queues[1].ready;
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

static int fix_init(struct fix *f, const char *tag)
{
	const struct irq_line irq = { irq_set, &f->level };
	const struct virtio_backend be = {
		.start = be_start,
		.stop = be_stop,
		.kick = be_kick,
		.dma = be_dma,
		.opaque = f,
	};

	return virtio_fs_init(&f->fs, &SLOT_RES(0), &f->q[0].mem, &irq, tag,
			      &be);
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));

	vqm_init(&f->q[0], RAM_SIZE, NUM);
	vqm_init_in(&f->q[1], &f->q[0], NUM, 16, 4, VQM_RAM_BASE + 0x40000);
	assert_int_equal(fix_init(f, "hostshare"), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	virtio_fs_destroy(&f->fs);
	vqm_free(&f->q[0]);
	free(f);
	return 0;
}

static void driver_up(struct fix *f, uint64_t features)
{
	assert_int_equal(vqm_mmio_negotiate(&f->fs.b.vm, features),
			 ACK | DRV | FOK);
	for (unsigned int q = 0; q < 2; q++)
		assert_int_equal(vqm_mmio_queue(&f->fs.b.vm, q, &f->q[q]), 1);
	vqm_mmio_driver_ok(&f->fs.b.vm);
}

static void test_identity(void **state)
{
	struct fix *f = *state;
	struct virtio_mmio *vm = &f->fs.b.vm;

	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_DEVICE_ID), 26);
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_SEL, 1);
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_QUEUE_NUM_MAX),
			 VIRTIO_FS_QUEUE_SIZE);
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_SEL, 2);
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_QUEUE_NUM_MAX), 0);
}

static void read_config(struct virtio_mmio *vm, uint8_t *b, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		b[i] = vqm_mmio_rd_n(vm, VIRTIO_MMIO_CONFIG + i, 1);
}

static void test_config(void **state)
{
	struct fix *f = *state;
	struct virtio_mmio *vm = &f->fs.b.vm;
	uint8_t want[VIRTIO_FS_CONFIG_SIZE] = "hostshare";
	uint8_t b[VIRTIO_FS_CONFIG_SIZE];

	want[36] = 1; /* num_request_queues */
	read_config(vm, b, sizeof(b));
	assert_memory_equal(b, want, sizeof(want));
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_CONFIG + 36), 1);
	/* Past the 40 bytes: 0; the device checks on its own too. */
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_CONFIG + 40), 0);
	memset(b, 0xaa, 4);
	f->fs.b.vm.core.dev.ops->config_read(&f->fs, 38, b, 4);
	assert_memory_equal(b, "\0\0\0\0", 4);
	f->fs.b.vm.core.dev.ops->config_read(&f->fs, 0xfffffffe, b, 4);
	assert_memory_equal(b, "\0\0\0\0", 4);
	/* Writes are ignored. */
	vqm_mmio_wr(vm, VIRTIO_MMIO_CONFIG, 0x41414141);
	assert_int_equal(vqm_mmio_rd_n(vm, VIRTIO_MMIO_CONFIG, 1), 'h');
	/* A tag of 36 bytes fills the field, without a NUL. */
	virtio_fs_destroy(&f->fs);
	assert_int_equal(fix_init(f, TAG36), 0);
	read_config(vm, b, sizeof(b));
	assert_memory_equal(b, TAG36, 36);
	assert_int_equal(b[36], 1);
}

static void test_features(void **state)
{
	struct fix *f = *state;
	struct virtio_mmio *vm = &f->fs.b.vm;

	vqm_mmio_wr(vm, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 0);
	assert_int_equal(
		vqm_mmio_rd(vm, VIRTIO_MMIO_DEVICE_FEATURES) & 0xffffff, 0);
	vqm_mmio_wr(vm, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 1);
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_DEVICE_FEATURES), 1);
}

static void test_bad_init(void **state)
{
	struct fix *f = *state;
	const struct irq_line irq = { irq_set, &f->level };
	const struct virtio_backend none = { 0 };
	struct virtio_fs fs;

	assert_false(virtio_fs_tag_ok(NULL));
	assert_false(virtio_fs_tag_ok(""));
	assert_true(virtio_fs_tag_ok("a"));
	assert_true(virtio_fs_tag_ok(TAG36));
	assert_false(virtio_fs_tag_ok(TAG36 "x"));
	assert_int_equal(fix_init(&(struct fix){ 0 }, TAG36 "x"), -EINVAL);
	assert_int_equal(virtio_fs_init(&fs, &SLOT_RES(0), &f->q[0].mem, &irq,
					"t", &none),
			 -EINVAL);
}

/* DRIVER_OK hands both rings over, with the driver's features. */
static void test_start_stop(void **state)
{
	struct fix *f = *state;

	driver_up(f, V1);
	assert_int_equal(f->starts, 1);
	assert_true(f->rings_ready_at_start);
	assert_int_equal(f->start_features, V1);
	assert_int_equal(vqm_mmio_rd(&f->fs.b.vm, VIRTIO_MMIO_STATUS),
			 ACK | DRV | FOK | DOK);
	/* Reset by the driver, then up again (a guest reboot). */
	vqm_mmio_wr(&f->fs.b.vm, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(f->stops, 1);
	vqm_mmio_wr(&f->fs.b.vm, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(f->stops, 1);
	driver_up(f, V1);
	assert_int_equal(f->starts, 2);
}

static void test_kicks(void **state)
{
	struct fix *f = *state;

	vqm_mmio_negotiate(&f->fs.b.vm, V1);
	for (unsigned int q = 0; q < 2; q++)
		vqm_mmio_queue(&f->fs.b.vm, q, &f->q[q]);
	/* Before DRIVER_OK: held, then passed on once the back-end has it. */
	vqm_mmio_wr(&f->fs.b.vm, VIRTIO_MMIO_QUEUE_NOTIFY, 1);
	assert_int_equal(f->kicks[1], 0);
	vqm_mmio_driver_ok(&f->fs.b.vm);
	assert_int_equal(f->kicks[1], 1);
	vqm_mmio_wr(&f->fs.b.vm, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->kicks[0], 1);
	/* No such queue: nothing reaches the back-end. */
	vqm_mmio_wr(&f->fs.b.vm, VIRTIO_MMIO_QUEUE_NOTIFY, 2);
	assert_int_equal(f->kicks[2], 0);
}

static void test_backend_interrupt(void **state)
{
	struct fix *f = *state;
	struct virtio_mmio *vm = &f->fs.b.vm;

	driver_up(f, V1);
	virtio_mmio_lock(vm);
	virtio_core_backend_used_locked(&vm->core, 1);
	virtio_mmio_unlock(vm);
	assert_int_equal(f->level, 1);
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_INTERRUPT_STATUS),
			 VIRTIO_MMIO_INT_VRING);
}

/* A back-end that cannot start, or fails later: NEEDS_RESET. */
static void test_failures(void **state)
{
	struct fix *f = *state;
	struct virtio_mmio *vm = &f->fs.b.vm;

	f->start_ret = -EIO;
	driver_up(f, V1);
	assert_true(vqm_mmio_rd(vm, VIRTIO_MMIO_STATUS) & NEEDS_RESET);
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->kicks[0], 0);
	vqm_mmio_wr(vm, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(f->stops, 1);
	f->start_ret = 0;
	driver_up(f, V1);
	virtio_mmio_lock(vm);
	virtio_core_fail_locked(&vm->core);
	virtio_mmio_unlock(vm);
	assert_true(vqm_mmio_rd(vm, VIRTIO_MMIO_STATUS) & NEEDS_RESET);
}

static void set_dma(struct fix *f, bool on)
{
	virtio_mmio_lock(&f->fs.b.vm);
	virtio_core_set_dma_locked(&f->fs.b.vm.core, on);
	virtio_mmio_unlock(&f->fs.b.vm);
}

static void test_bus_master(void **state)
{
	struct fix *f = *state;

	set_dma(f, false);
	assert_int_equal(f->dmas, 0);
	set_dma(f, true);
	driver_up(f, V1);
	set_dma(f, false);
	assert_int_equal(f->dmas, 1);
	assert_false(f->dma_on);
	set_dma(f, true);
	assert_int_equal(f->dmas, 2);
	assert_true(f->dma_on);
	vqm_mmio_wr(&f->fs.b.vm, VIRTIO_MMIO_STATUS, 0);
	set_dma(f, false);
	assert_int_equal(f->dmas, 2);
}

static int adopt(struct fix *f)
{
	int ret;

	virtio_mmio_lock(&f->fs.b.vm);
	ret = virtio_backed_adopt_locked(&f->fs.b);
	virtio_mmio_unlock(&f->fs.b.vm);
	return ret;
}

/* A FUSE request on queue q: its header, then room for reply bytes. */
static uint16_t add_fuse(struct fix *f, unsigned int q, uint32_t opcode,
			 uint64_t unique, uint32_t reply, struct vqm_buf *out)
{
	struct vqm_buf b[2] = {
		vqm_buf_new(&f->q[q], sizeof(struct fuse_in_header), false, 0),
		vqm_buf_new(&f->q[q], reply, true, 0xee),
	};
	struct fuse_in_header *in = vqm_ptr(&f->q[q], b[0].gpa, sizeof(*in));

	in->len = sizeof(*in);
	in->opcode = opcode;
	in->unique = unique;
	*out = b[1];
	return vqm_add(&f->q[q], b, reply ? 2 : 1);
}

/*
 * virtiofsd gone: lkvm answers each request with FUSE's ENOTCONN reply
 * (its unique id back), a FORGET with nothing, a request too short for
 * a header with nothing; later notifications are answered the same way.
 */
static void test_orphan(void **state)
{
	struct fix *f = *state;
	struct fuse_out_header *out;
	struct vqm_buf r[4];
	uint16_t h[4];
	uint32_t id, len;

	driver_up(f, V1);
	h[0] = add_fuse(f, 1, FUSE_GETATTR, 0x1122334455667788ULL, 120, &r[0]);
	h[1] = add_fuse(f, 0, FUSE_FORGET, 7, 0, &r[1]);
	assert_int_equal(adopt(f), 0);
	assert_true(vqm_get_used(&f->q[1], &id, &len));
	assert_int_equal(id, h[0]);
	assert_int_equal(len, sizeof(*out));
	out = vqm_ptr(&f->q[1], r[0].gpa, sizeof(*out));
	assert_int_equal(out->len, sizeof(*out));
	assert_int_equal(out->error, -ENOTCONN);
	assert_true(out->unique == 0x1122334455667788ULL);
	assert_int_equal(*(uint8_t *)vqm_ptr(&f->q[1], r[0].gpa + 16, 1), 0xee);
	assert_true(vqm_get_used(&f->q[0], &id, &len));
	assert_int_equal(id, h[1]);
	assert_int_equal(len, 0);
	/* Later requests, on a notification. */
	h[2] = add_fuse(f, 1, FUSE_READ, 42, 16, &r[2]);
	vqm_mmio_wr(&f->fs.b.vm, VIRTIO_MMIO_QUEUE_NOTIFY, 1);
	assert_true(vqm_get_used(&f->q[1], &id, &len));
	assert_int_equal(id, h[2]);
	assert_int_equal(len, 16);
	out = vqm_ptr(&f->q[1], r[2].gpa, sizeof(*out));
	assert_true(out->unique == 42 && out->error == -ENOTCONN);
	/* Room for less than a reply: given back untouched. */
	h[3] = add_fuse(f, 1, FUSE_READ, 43, 8, &r[3]);
	vqm_mmio_wr(&f->fs.b.vm, VIRTIO_MMIO_QUEUE_NOTIFY, 1);
	assert_true(vqm_get_used(&f->q[1], &id, &len));
	assert_int_equal(id, h[3]);
	assert_int_equal(len, 0);
	assert_int_equal(f->kicks[1], 0); /* no back-end to kick */
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_identity),	   T(test_config),
		T(test_features),	   T(test_bad_init),
		T(test_start_stop),	   T(test_kicks),
		T(test_backend_interrupt), T(test_failures),
		T(test_bus_master),	   T(test_orphan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
