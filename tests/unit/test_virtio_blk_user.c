// SPDX-License-Identifier: GPL-2.0
/*
 * virtio-blk served by a vhost-user back-end (virtio/blk_user.c) on
 * virtio-mmio with a recording back-end: the check of the daemon's
 * configuration space and features (an untrusted peer), what the guest
 * sees of them (identity, the configuration, the feature bits passed
 * on), and the queue handed over at DRIVER_OK and back at reset.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "virtio/blk.h"
#include "virtio/blk_user.h"
#include "tests/unit/slot_res.h"
#include "tests/unit/virtq_mock.h"

#define RAM_SIZE (1u << 20)
#define NUM 16
#define ACK VIRTIO_STATUS_ACKNOWLEDGE
#define DRV VIRTIO_STATUS_DRIVER
#define FOK VIRTIO_STATUS_FEATURES_OK
#define V1 VIRTIO_BIT(VIRTIO_F_VERSION_1)
#define NEEDED VIRTIO_BACKED_NEEDED
#define F(n) VIRTIO_BIT(n)
/* What qemu-storage-daemon offers for a writable qcow2 export. */
#define QSD_FEATURES                                                          \
	(NEEDED | F(30) /* PROTOCOL_FEATURES */ | F(1) | F(2) | F(6) | F(9) | \
	 F(10) | F(11) /* CONFIG_WCE */ | F(12) /* MQ */ | F(13) | F(14))

struct fix {
	struct vqm q;
	struct virtio_blk_user d;
	uint8_t cfg[VIRTIO_BLK_USER_CONFIG_SIZE];
	int level;
	unsigned int starts, stops, kicks;
	uint64_t start_features;
};

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, v);
	put32(p + 4, v >> 32);
}

static void irq_set(void *opaque, int level)
{
	*(int *)opaque = level;
}

static int be_start(void *opaque, uint64_t features)
{
	struct fix *f = opaque;

	f->starts++;
	f->start_features = features;
	return 0;
}

static void be_stop(void *opaque)
{
	((struct fix *)opaque)->stops++;
}

static void be_kick(void *opaque, unsigned int q)
{
	((struct fix *)opaque)->kicks++;
}

static int fix_init(struct fix *f, uint64_t features)
{
	const struct irq_line irq = { irq_set, &f->level };
	const struct virtio_backend be = {
		.start = be_start,
		.stop = be_stop,
		.kick = be_kick,
		.opaque = f,
	};

	return virtio_blk_user_init(&f->d, &SLOT_RES(0), &f->q.mem, &irq,
				    f->cfg, sizeof(f->cfg), features, &be);
}

/* A configuration as the daemon sends it: 1 GiB, 4 KiB blocks. */
static void good_config(uint8_t *cfg)
{
	memset(cfg, 0, VIRTIO_BLK_USER_CONFIG_SIZE);
	put64(cfg + VIRTIO_BLK_CFG_CAPACITY, 2097152);
	put32(cfg + VIRTIO_BLK_CFG_SIZE_MAX, 65536);
	put32(cfg + VIRTIO_BLK_CFG_SEG_MAX, 126);
	put32(cfg + VIRTIO_BLK_CFG_BLK_SIZE, 4096);
	cfg[VIRTIO_BLK_CFG_NUM_QUEUES] = 1;
	put32(cfg + VIRTIO_BLK_CFG_MAX_DISCARD_SECTORS, 32768);
	put32(cfg + VIRTIO_BLK_CFG_MAX_DISCARD_SEG, 1);
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));

	vqm_init(&f->q, RAM_SIZE, NUM);
	good_config(f->cfg);
	assert_int_equal(fix_init(f, QSD_FEATURES), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	virtio_blk_user_destroy(&f->d);
	vqm_free(&f->q);
	free(f);
	return 0;
}

/* Device 2, one queue of 256, the capacity as the daemon said. */
static void test_identity(void **state)
{
	struct fix *f = *state;
	struct virtio_mmio *vm = &f->d.b.vm;

	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_DEVICE_ID), 2);
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_SEL, 0);
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_QUEUE_NUM_MAX),
			 VIRTIO_BLK_USER_QUEUE_SIZE);
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_SEL, 1);
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_QUEUE_NUM_MAX), 0);
	assert_int_equal(f->d.capacity, 2097152);
}

/* The guest reads the daemon's bytes; nothing past them; no writes. */
static void test_config(void **state)
{
	struct fix *f = *state;
	struct virtio_mmio *vm = &f->d.b.vm;

	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_CONFIG), 2097152);
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_CONFIG + 4), 0);
	assert_int_equal(
		vqm_mmio_rd(vm, VIRTIO_MMIO_CONFIG + VIRTIO_BLK_CFG_BLK_SIZE),
		4096);
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_CONFIG + 56), 0);
	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_CONFIG + 60), 0);
	vqm_mmio_wr(vm, VIRTIO_MMIO_CONFIG + VIRTIO_BLK_CFG_WRITEBACK, 1);
	assert_int_equal(
		vqm_mmio_rd_n(vm, VIRTIO_MMIO_CONFIG + VIRTIO_BLK_CFG_WRITEBACK,
			      1),
		0);
}

/* Only the blk bits lkvm knows pass: no MQ, no CONFIG_WCE, no bit 30. */
static void test_features(void **state)
{
	struct fix *f = *state;
	struct virtio_mmio *vm = &f->d.b.vm;
	uint32_t lo;

	vqm_mmio_wr(vm, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 0);
	lo = vqm_mmio_rd(vm, VIRTIO_MMIO_DEVICE_FEATURES);
	assert_int_equal(lo & 0xffffff,
			 F(1) | F(2) | F(6) | F(9) | F(10) | F(13) | F(14));
	assert_int_equal(lo & (F(30) | F(11) | F(12)), 0);
	/* A read-only export says RO, and the guest sees it. */
	virtio_blk_user_destroy(&f->d);
	assert_int_equal(fix_init(f, NEEDED | F(5)), 0);
	vqm_mmio_wr(vm, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 0);
	assert_int_equal(
		vqm_mmio_rd(vm, VIRTIO_MMIO_DEVICE_FEATURES) & 0xffffff, F(5));
}

static void expect_refused(uint8_t *cfg, uint32_t len, uint64_t features,
			   const char *why)
{
	uint64_t cap = 77;
	const char *got;

	assert_int_equal(virtio_blk_user_check(cfg, len, features, &cap, &got),
			 -EPROTO);
	assert_string_equal(got, why);
	assert_int_equal(cap, 77);
}

/* Every value the daemon sends that lkvm relies on, at its bounds. */
static void test_check(void **state)
{
	struct fix *f = *state;
	uint8_t *c = f->cfg;
	uint64_t cap;
	const char *why;

	assert_int_equal(virtio_blk_user_check(c, 60, QSD_FEATURES, &cap, &why),
			 0);
	assert_int_equal(cap, 2097152);
	expect_refused(c, 59, QSD_FEATURES,
		       "a configuration of the wrong size");
	expect_refused(c, 96, QSD_FEATURES,
		       "a configuration of the wrong size");
	expect_refused(c, 60, QSD_FEATURES & ~F(VIRTIO_F_EVENT_IDX),
		       "no VERSION_1, INDIRECT_DESC or EVENT_IDX");
	expect_refused(c, 60, QSD_FEATURES & ~V1,
		       "no VERSION_1, INDIRECT_DESC or EVENT_IDX");
	put64(c, VIRTIO_BLK_USER_MAX_SECTORS);
	expect_refused(c, 60, QSD_FEATURES, "a capacity out of range");
	put64(c, VIRTIO_BLK_USER_MAX_SECTORS - 1);
	assert_int_equal(virtio_blk_user_check(c, 60, NEEDED, &cap, &why), 0);
	put64(c, 0); /* an empty disk is a disk */
	assert_int_equal(virtio_blk_user_check(c, 60, NEEDED, &cap, &why), 0);
	for (uint32_t bs = 256; bs <= 131072; bs *= 2) {
		put32(c + VIRTIO_BLK_CFG_BLK_SIZE, bs);
		if (bs < 512 || bs > 65536)
			expect_refused(c, 60, QSD_FEATURES,
				       "a block size out of range");
		else
			assert_int_equal(virtio_blk_user_check(c, 60,
							       QSD_FEATURES,
							       &cap, &why),
					 0);
	}
	put32(c + VIRTIO_BLK_CFG_BLK_SIZE, 4097);
	expect_refused(c, 60, QSD_FEATURES, "a block size out of range");
	/* Without BLK_SIZE the field means nothing. */
	assert_int_equal(virtio_blk_user_check(c, 60, NEEDED, &cap, &why), 0);
	put32(c + VIRTIO_BLK_CFG_BLK_SIZE, 512);
	put32(c + VIRTIO_BLK_CFG_SEG_MAX, 0);
	expect_refused(c, 60, QSD_FEATURES, "a seg_max of 0");
	assert_int_equal(virtio_blk_user_check(c, 60, NEEDED, &cap, &why), 0);
	/* init checks again. */
	virtio_blk_user_destroy(&f->d);
	assert_int_equal(fix_init(f, QSD_FEATURES), -EPROTO);
	good_config(c);
	assert_int_equal(fix_init(f, QSD_FEATURES), 0);
}

/* DRIVER_OK hands the queue over; notifications go to it; reset back. */
static void test_start_stop(void **state)
{
	struct fix *f = *state;
	struct virtio_mmio *vm = &f->d.b.vm;

	assert_int_equal(vqm_mmio_negotiate(vm, V1 | F(9)), ACK | DRV | FOK);
	assert_int_equal(vqm_mmio_queue(vm, 0, &f->q), 1);
	vqm_mmio_driver_ok(vm);
	assert_int_equal(f->starts, 1);
	assert_int_equal(f->start_features, V1 | F(9));
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->kicks, 1);
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_NOTIFY, 1); /* no such queue */
	assert_int_equal(f->kicks, 1);
	vqm_mmio_wr(vm, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(f->stops, 1);
	vqm_mmio_wr(vm, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(f->stops, 1);
}

/* A read request: header, 512 data bytes and the status, both filled. */
static uint16_t add_read(struct fix *f, struct vqm_buf *data,
			 struct vqm_buf *status)
{
	struct vqm_buf b[3] = { vqm_buf_new(&f->q, 16, false, 0),
				vqm_buf_new(&f->q, 512, true, 0xee),
				vqm_buf_new(&f->q, 1, true, 0xee) };

	*data = b[1];
	*status = b[2];
	return vqm_add(&f->q, b, 3);
}

static uint8_t byte_at(struct fix *f, const struct vqm_buf *b, uint32_t off)
{
	return *(uint8_t *)vqm_ptr(&f->q, b->gpa + off, 1);
}

/* The daemon completed head with len at used entry i. */
static void daemon_used(struct fix *f, uint16_t i, uint16_t head)
{
	uint8_t *e = vqm_ptr(&f->q, f->q.used + 4 + 8 * (i % NUM), 8);

	memset(e, 0, 8);
	e[0] = head;
	e[4] = 1;
	vqm_put16(&f->q, f->q.used + 2, i + 1);
}

/* The daemon's avail_event (EVENT_IDX), after the used ring's entries. */
static void daemon_avail_event(struct fix *f, uint16_t v)
{
	vqm_put16(&f->q, f->q.used + 4 + 8 * NUM, v);
}

static void driver_up(struct fix *f, uint64_t features)
{
	struct virtio_mmio *vm = &f->d.b.vm;

	assert_int_equal(vqm_mmio_negotiate(vm, features), ACK | DRV | FOK);
	assert_int_equal(vqm_mmio_queue(vm, 0, &f->q), 1);
	vqm_mmio_driver_ok(vm);
}

static int adopt(struct fix *f)
{
	int ret;

	virtio_mmio_lock(&f->d.b.vm);
	ret = virtio_backed_adopt_locked(&f->d.b);
	virtio_mmio_unlock(&f->d.b.vm);
	return ret;
}

/*
 * The daemon dies having popped r0 and r1 (avail_event 2) and completed
 * r0: lkvm takes the ring over there, fails r2 with IOERR (data zeroed),
 * leaves r1 (the daemon's, lost) alone, and fails every later request,
 * also after a reset, without starting a back-end again.
 */
static void test_orphan(void **state)
{
	struct fix *f = *state;
	struct virtio_mmio *vm = &f->d.b.vm;
	struct vqm_buf d[4], st[4];
	uint16_t h[4];
	uint32_t id, len;

	driver_up(f, V1 | F(VIRTIO_F_EVENT_IDX));
	for (int i = 0; i < 3; i++)
		h[i] = add_read(f, &d[i], &st[i]);
	daemon_used(f, 0, h[0]);
	daemon_avail_event(f, 2);
	vqm_set_used_event(&f->q, 1); /* the driver saw r0 done */
	assert_int_equal(adopt(f), 0);
	assert_int_equal(vqm_used_idx(&f->q), 2);
	assert_true(vqm_get_used(&f->q, &id, &len) && id == h[0]);
	assert_true(vqm_get_used(&f->q, &id, &len));
	assert_int_equal(id, h[2]);
	assert_int_equal(len, 513);
	assert_int_equal(byte_at(f, &st[2], 0), VIRTIO_BLK_S_IOERR);
	assert_int_equal(byte_at(f, &d[2], 0), 0);
	assert_int_equal(byte_at(f, &d[2], 511), 0);
	assert_int_equal(byte_at(f, &st[1], 0), 0xee);
	assert_int_equal(f->level, 1);
	assert_false(vqm_mmio_rd(vm, VIRTIO_MMIO_STATUS) &
		     VIRTIO_STATUS_DEVICE_NEEDS_RESET);
	/* A later request, notified: failed at once, no back-end kick. */
	h[3] = add_read(f, &d[3], &st[3]);
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_true(vqm_get_used(&f->q, &id, &len) && id == h[3]);
	assert_int_equal(byte_at(f, &st[3], 0), VIRTIO_BLK_S_IOERR);
	assert_int_equal(f->kicks, 0);
	/* A reset and a new driver: still failing, no start, no stop. */
	vqm_mmio_wr(vm, VIRTIO_MMIO_STATUS, 0);
	vqm_free(&f->q);
	vqm_init(&f->q, RAM_SIZE, NUM);
	driver_up(f, V1);
	assert_int_equal(f->starts, 1);
	assert_int_equal(f->stops, 0);
	h[0] = add_read(f, &d[0], &st[0]);
	vqm_mmio_wr(vm, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_true(vqm_get_used(&f->q, &id, &len) && id == h[0]);
	assert_int_equal(byte_at(f, &st[0], 0), VIRTIO_BLK_S_IOERR);
}

/* Without EVENT_IDX: from the daemon's used index (in order). */
static void test_orphan_no_event_idx(void **state)
{
	struct fix *f = *state;
	struct vqm_buf d[2], st[2];
	uint16_t h[2];
	uint32_t id, len;

	driver_up(f, V1);
	h[0] = add_read(f, &d[0], &st[0]);
	h[1] = add_read(f, &d[1], &st[1]);
	daemon_used(f, 0, h[0]);
	assert_int_equal(adopt(f), 0);
	assert_true(vqm_get_used(&f->q, &id, &len) && id == h[0]);
	assert_true(vqm_get_used(&f->q, &id, &len) && id == h[1]);
	assert_int_equal(byte_at(f, &st[1], 0), VIRTIO_BLK_S_IOERR);
}

/*
 * The daemon streamed: it completed r0 and r1 while its avail_event still
 * said 1 (set when it last turned notifications on), then died holding
 * r2.  Behind the used index, the avail_event is not where it stopped:
 * lkvm answers from the used index on, r2 and r3 (nothing twice); the
 * same for an avail_event beyond avail->idx.
 */
static void test_orphan_stale_avail_event(void **state)
{
	struct fix *f = *state;
	struct vqm_buf d[4], st[4];
	uint16_t h[4];
	uint32_t id, len;

	driver_up(f, V1 | F(VIRTIO_F_EVENT_IDX));
	for (int i = 0; i < 4; i++)
		h[i] = add_read(f, &d[i], &st[i]);
	daemon_used(f, 0, h[0]);
	daemon_used(f, 1, h[1]);
	daemon_avail_event(f, 1);
	assert_int_equal(adopt(f), 0);
	assert_int_equal(vqm_used_idx(&f->q), 4);
	assert_true(vqm_get_used(&f->q, &id, &len) && id == h[0]);
	assert_true(vqm_get_used(&f->q, &id, &len) && id == h[1]);
	assert_true(vqm_get_used(&f->q, &id, &len) && id == h[2]);
	assert_true(vqm_get_used(&f->q, &id, &len) && id == h[3]);
	assert_int_equal(byte_at(f, &st[2], 0), VIRTIO_BLK_S_IOERR);
	assert_int_equal(byte_at(f, &st[3], 0), VIRTIO_BLK_S_IOERR);
	assert_false(vqm_get_used(&f->q, &id, &len));
}

static void test_orphan_avail_event_beyond(void **state)
{
	struct fix *f = *state;
	struct vqm_buf d, st;
	uint32_t id, len;
	uint16_t h;

	driver_up(f, V1 | F(VIRTIO_F_EVENT_IDX));
	h = add_read(f, &d, &st);
	daemon_avail_event(f, 0x8000);
	assert_int_equal(adopt(f), 0);
	assert_true(vqm_get_used(&f->q, &id, &len) && id == h);
	assert_int_equal(byte_at(f, &st, 0), VIRTIO_BLK_S_IOERR);
}

/*
 * A daemon that left a used index no ring can have (more than the ring
 * beyond avail->idx), or a model with no answer of its own:
 * DEVICE_NEEDS_RESET, nothing more used.
 */
static void test_orphan_refused(void **state)
{
	struct fix *f = *state;
	struct virtio_mmio *vm = &f->d.b.vm;
	struct vqm_buf d, st;

	driver_up(f, V1 | F(VIRTIO_F_EVENT_IDX));
	add_read(f, &d, &st);
	vqm_put16(&f->q, f->q.used + 2, 0x8000);
	assert_int_equal(adopt(f), -EINVAL);
	assert_true(vqm_mmio_rd(vm, VIRTIO_MMIO_STATUS) &
		    VIRTIO_STATUS_DEVICE_NEEDS_RESET);
	assert_int_equal(vqm_used_idx(&f->q), 0x8000);
	vqm_mmio_wr(vm, VIRTIO_MMIO_STATUS, 0);
	f->d.b.orphan = NULL;
	vqm_free(&f->q);
	vqm_init(&f->q, RAM_SIZE, NUM);
	driver_up(f, V1);
	assert_int_equal(adopt(f), -EOPNOTSUPP);
	assert_true(vqm_mmio_rd(vm, VIRTIO_MMIO_STATUS) &
		    VIRTIO_STATUS_DEVICE_NEEDS_RESET);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_identity),
		T(test_config),
		T(test_features),
		T(test_check),
		T(test_start_stop),
		T(test_orphan),
		T(test_orphan_no_event_idx),
		T(test_orphan_stale_avail_event),
		T(test_orphan_avail_event_beyond),
		T(test_orphan_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
