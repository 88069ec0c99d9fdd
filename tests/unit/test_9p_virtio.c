// SPDX-License-Identifier: GPL-2.0
/*
 * The virtio-9p device (virtio/9p.c) behind virtio-mmio, driven by the
 * driver mock: identity, feature and mount tag, a Tversion/Tattach/Twalk/
 * Tlopen/Tread round trip through chains whose request and reply are split
 * over several buffers (as Linux's zero-copy reads are), and chains with
 * no room for a reply.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/log.h"
#include "tests/unit/virtq_mock.h"
#include "virtio/9p.h"
#include "slot_res.h"

#define RAM_SIZE (1024 * 1024)
#define NUM 16
#define ACK VIRTIO_STATUS_ACKNOWLEDGE
#define DRV VIRTIO_STATUS_DRIVER
#define FOK VIRTIO_STATUS_FEATURES_OK
#define DOK VIRTIO_STATUS_DRIVER_OK

struct fx {
	struct vqm q;
	struct virtio_9p p9;
	char dir[64];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	const struct irq_line irq = { 0 };
	char path[128];
	FILE *file;

	assert_non_null(f);
	strcpy(f->dir, "/tmp/rvkvm-test-9pv-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(path, sizeof(path), "%s/data", f->dir);
	file = fopen(path, "w");
	fputs("0123456789abcdef", file);
	fclose(file);
	vqm_init(&f->q, RAM_SIZE, NUM);
	assert_int_equal(virtio_9p_init(&f->p9, &SLOT_RES(0), &f->q.mem, &irq,
					f->dir, "hostshare"),
			 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char path[128];

	virtio_9p_destroy(&f->p9);
	vqm_free(&f->q);
	snprintf(path, sizeof(path), "%s/data", f->dir);
	unlink(path);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void driver_up(struct fx *f)
{
	struct virtio_mmio *vm = &f->p9.vm;

	assert_int_equal(
		vqm_mmio_negotiate(vm, VIRTIO_BIT(VIRTIO_F_VERSION_1) |
					       VIRTIO_BIT(VIRTIO_9P_MOUNT_TAG)),
		ACK | DRV | FOK);
	assert_int_equal(vqm_mmio_queue(vm, 0, &f->q), 1);
	assert_int_equal(vqm_mmio_driver_ok(vm), ACK | DRV | FOK | DOK);
}

static void test_identity_and_tag(void **state)
{
	struct fx *f = *state;
	struct virtio_mmio *vm = &f->p9.vm;
	char tag[16] = "";

	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_DEVICE_ID), VIRTIO_ID_9P);
	vqm_mmio_wr(vm, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 0);
	assert_true(vqm_mmio_rd(vm, VIRTIO_MMIO_DEVICE_FEATURES) &
		    (1u << VIRTIO_9P_MOUNT_TAG));
	assert_int_equal(vqm_mmio_rd_n(vm, VIRTIO_MMIO_CONFIG, 2), 9);
	for (int i = 0; i < 9; i++)
		tag[i] = vqm_mmio_rd_n(vm, VIRTIO_MMIO_CONFIG + 2 + i, 1);
	assert_string_equal(tag, "hostshare");
	/* past the tag: zeros, no overrun */
	assert_int_equal(vqm_mmio_rd_n(vm, VIRTIO_MMIO_CONFIG + 11, 1), 0);
}

static void test_bad_init(void **state)
{
	struct fx *f = *state;
	struct virtio_9p p;
	const struct irq_line irq = { 0 };

	assert_int_equal(
		virtio_9p_init(&p, &SLOT_RES(1), &f->q.mem, &irq, f->dir, ""),
		-EINVAL);
	assert_int_equal(virtio_9p_init(&p, &SLOT_RES(1), &f->q.mem, &irq,
					"/nonexistent-rvkvm", "t"),
			 -ENOENT);
}

/* A request split over two readable buffers; reply over two writable. */
static uint32_t rpc(struct fx *f, const uint8_t *req, uint32_t len,
		    uint32_t first_wr, uint32_t second_wr, uint8_t *reply)
{
	struct vqm_buf b[4];
	uint32_t id, used = 0, cut = len / 2;
	unsigned int n = 0;

	b[n] = vqm_buf_new(&f->q, cut, false, 0);
	memcpy(vqm_ptr(&f->q, b[n].gpa, cut), req, cut);
	n++;
	b[n] = vqm_buf_new(&f->q, len - cut, false, 0);
	memcpy(vqm_ptr(&f->q, b[n].gpa, len - cut), req + cut, len - cut);
	n++;
	if (first_wr)
		b[n++] = vqm_buf_new(&f->q, first_wr, true, 0xee);
	if (second_wr)
		b[n++] = vqm_buf_new(&f->q, second_wr, true, 0xee);
	vqm_add(&f->q, b, n);
	virtio_mmio_kick(&f->p9.vm, 0);
	assert_true(vqm_get_used(&f->q, &id, &used));
	if (used > 0)
		memcpy(reply,
		       vqm_ptr(&f->q, b[2].gpa,
			       used < first_wr ? used : first_wr),
		       used < first_wr ? used : first_wr);
	if (used > first_wr)
		memcpy(reply + first_wr,
		       vqm_ptr(&f->q, b[3].gpa, used - first_wr),
		       used - first_wr);
	return used;
}

static const uint8_t tversion[] = { 21,	 0,   0,   0,	100, 1,	  0,
				    0,	 32,  0,   0,	8,   0,	  '9',
				    'P', '2', '0', '0', '0', '.', 'L' };
static const uint8_t tattach[] = { 23, 0, 0, 0,	   0,	 0,    0,    0,
				   0,  0, 0, 0xff, 0xff, 0xff, 0xff, 0,
				   0,  0, 0, 0,	   0,	 0,    0 };

static void test_round_trip(void **state)
{
	struct fx *f = *state;
	uint8_t reply[256], req[64];
	uint8_t twalk[] = { 0, 0, 0, 0, 110, 2, 0, 0,	0,   0,	  0,  1,
			    0, 0, 0, 1, 0,   4, 0, 'd', 'a', 't', 'a' };
	uint8_t tlopen[] = { 15, 0, 0, 0, 12, 3, 0, 1, 0, 0, 0, 0, 0, 0, 0 };
	uint8_t tread[] = { 23, 0, 0, 0, 116, 4, 0, 1,	 0, 0, 0, 4,
			    0,	0, 0, 0, 0,   0, 0, 100, 0, 0, 0 };

	driver_up(f);
	assert_int_equal(rpc(f, tversion, sizeof(tversion), 64, 0, reply), 21);
	assert_int_equal(reply[4], 101);
	memcpy(req, tattach, sizeof(tattach));
	req[4] = 104;
	assert_int_equal(rpc(f, req, sizeof(tattach), 64, 0, reply), 20);
	assert_int_equal(reply[4], 105);
	twalk[0] = sizeof(twalk);
	assert_int_equal(rpc(f, twalk, sizeof(twalk), 64, 0, reply), 22);
	assert_int_equal(reply[4], 111);
	assert_int_equal(rpc(f, tlopen, sizeof(tlopen), 64, 0, reply), 24);
	assert_int_equal(reply[4], 13);
	/* Rread: its 11-byte header in the first buffer, data in the next */
	assert_int_equal(rpc(f, tread, sizeof(tread), 11, 100, reply), 23);
	assert_int_equal(reply[4], 117);
	assert_int_equal(reply[7], 12);
	assert_memory_equal(reply + 11, "456789abcdef", 12);
}

static void test_no_room_for_reply(void **state)
{
	struct fx *f = *state;
	uint8_t reply[64];

	driver_up(f);
	/* nothing writable: returned with length 0, the device carries on */
	assert_int_equal(rpc(f, tversion, sizeof(tversion), 0, 0, reply), 0);
	assert_int_equal(rpc(f, tversion, sizeof(tversion), 5, 0, reply), 0);
	assert_int_equal(rpc(f, tversion, sizeof(tversion), 64, 0, reply), 21);
	/* garbage: an Rlerror EBADMSG */
	assert_int_equal(rpc(f, (const uint8_t *)"\x07\0\0\0\x99\x01\0", 7, 64,
			     0, reply),
			 11);
	assert_int_equal(reply[4], P9_RLERROR);
	assert_int_equal(reply[7], EOPNOTSUPP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_identity_and_tag, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_init, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_trip, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_room_for_reply, setup,
						teardown),
	};

	log_level = LOG_ERR;
	return cmocka_run_group_tests_name("9p_virtio", tests, NULL, NULL);
}
