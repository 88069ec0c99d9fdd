// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <cmocka.h>

#include <libfdt.h>

#include "virtio/mmio.h"
#include "virtio/rng.h"
#include "lib/log.h"
#include "tests/unit/virtq_mock.h"
#include "slot_res.h"

#define RAM_SIZE (512 * 1024)
#define QMAX 64
#define NUM 8
#define FAKE_SLOT 2
#define FAKE_FEATURE 5 /* a device-type feature bit the fake offers */
#define FAKE_CONFIG_SIZE 6
#define MAX_EDGES 32

/* Recording fakes: the interrupt line and a small device. */
struct fake {
	struct vqm m;
	int edges[MAX_EDGES];
	unsigned int nr_edges;
	unsigned int notifies[3];
	unsigned int resets;
	uint8_t config[FAKE_CONFIG_SIZE];
	uint32_t cfg_write_off, cfg_write_len, cfg_write_val;
	struct virtq_chain chain;
	union {
		struct virtio_mmio vm;
		struct virtio_rng rng;
	};
	struct virtio_mmio *t; /* the transport under test */
	unsigned int busy_at;  /* chain number (1-based) fake_chain refuses */
	unsigned int chains_seen;
	unsigned int features_ok_calls;
	uint64_t features_seen;
	int features_ok_ret;
	uint8_t next_byte; /* the fake entropy source's counter */
	enum { SRC_OK, SRC_FAIL, SRC_ZERO, SRC_TOO_MUCH } source_mode;
};

static void fake_irq_set(void *opaque, int level)
{
	struct fake *f = opaque;

	assert_true(f->nr_edges < MAX_EDGES);
	f->edges[f->nr_edges++] = level;
}

static int fake_level(const struct fake *f)
{
	return f->nr_edges ? f->edges[f->nr_edges - 1] : 0;
}

/* Fill every writable byte with 0x5a; refuse chain number busy_at. */
static int fake_chain(void *opaque, const struct virtq_chain *chain,
		      uint32_t *len)
{
	static const uint8_t fill[64] = { [0 ... 63] = 0x5a };
	struct fake *f = opaque;
	struct virtq_writer w;

	if (++f->chains_seen == f->busy_at)
		return -EBUSY;
	virtq_writer_init(&w, chain);
	while (virtq_writer_write(&w, fill, sizeof(fill)))
		;
	*len = virtq_writer_written(&w);
	return 0;
}

static void fake_notify(void *opaque, unsigned int q)
{
	struct fake *f = opaque;

	f->notifies[q]++;
	virtio_mmio_process(&f->vm, q, &f->chain, fake_chain, f);
}

static int fake_features_ok(void *opaque, uint64_t features)
{
	struct fake *f = opaque;

	f->features_ok_calls++;
	f->features_seen = features;
	return f->features_ok_ret;
}

static void fake_reset(void *opaque)
{
	struct fake *f = opaque;

	f->resets++;
}

static void fake_config_read(void *opaque, uint32_t off, void *data,
			     unsigned int len)
{
	struct fake *f = opaque;

	assert_true(off + len <= FAKE_CONFIG_SIZE);
	memcpy(data, f->config + off, len);
}

static void fake_config_write(void *opaque, uint32_t off, const void *data,
			      unsigned int len)
{
	struct fake *f = opaque;

	f->cfg_write_off = off;
	f->cfg_write_len = len;
	f->cfg_write_val = mmio_data_get(data, len);
}

static const struct virtio_dev_ops fake_ops = {
	.notify = fake_notify,
	.reset = fake_reset,
	.features_ok = fake_features_ok,
	.config_read = fake_config_read,
	.config_write = fake_config_write,
};

static struct virtio_dev fake_dev(struct fake *f)
{
	return (struct virtio_dev){
		.name = "fake",
		.ops = &fake_ops,
		.opaque = f,
		.device_id = 42,
		.features = VIRTIO_BIT(FAKE_FEATURE),
		.num_queues = 2,
		.queue_num_max = QMAX,
		.config_size = FAKE_CONFIG_SIZE,
	};
}

static int setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	const struct irq_line irq = { .set = fake_irq_set, .opaque = f };
	struct virtio_dev dev = fake_dev(f);

	log_level = -1;
	if (!f)
		return -1;
	vqm_init(&f->m, RAM_SIZE, NUM);
	for (unsigned int i = 0; i < FAKE_CONFIG_SIZE; i++)
		f->config[i] = 0x11 * (i + 1);
	if (virtio_mmio_init(&f->vm, &SLOT_RES(FAKE_SLOT), &f->m.mem, &irq,
			     &dev))
		return -1;
	f->t = &f->vm;
	*state = f;
	return 0;
}

static ssize_t fake_source(void *opaque, void *buf, size_t len)
{
	struct fake *f = opaque;
	uint8_t *p = buf;

	if (f->source_mode == SRC_FAIL)
		return -EIO;
	if (f->source_mode == SRC_ZERO)
		return 0;
	for (size_t i = 0; i < len; i++)
		p[i] = f->next_byte++;
	/* a buggy source claiming more than it was asked for */
	return f->source_mode == SRC_TOO_MUCH ? 2 * len + 1000 : len;
}

static int setup_rng(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	const struct irq_line irq = { .set = fake_irq_set, .opaque = f };

	log_level = -1;
	if (!f)
		return -1;
	vqm_init(&f->m, RAM_SIZE, NUM);
	if (virtio_rng_init(&f->rng, &SLOT_RES(0), &f->m.mem, &irq, fake_source,
			    f))
		return -1;
	f->t = &f->rng.vm;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fake *f = *state;

	virtio_mmio_destroy(f->t);
	vqm_free(&f->m);
	free(f);
	return 0;
}

/* --- the driver's side of the registers ------------------------------- */

static uint32_t rd_n(struct fake *f, uint64_t off, unsigned int len)
{
	return vqm_mmio_rd_n(f->t, off, len);
}

static void wr_n(struct fake *f, uint64_t off, uint32_t v, unsigned int len)
{
	vqm_mmio_wr_n(f->t, off, v, len);
}

static uint32_t rd(struct fake *f, uint64_t off)
{
	return vqm_mmio_rd(f->t, off);
}

static void wr(struct fake *f, uint64_t off, uint32_t v)
{
	vqm_mmio_wr(f->t, off, v);
}

static void wr_features(struct fake *f, uint64_t features)
{
	vqm_mmio_features(f->t, features);
}

#define ACK VIRTIO_STATUS_ACKNOWLEDGE
#define DRV VIRTIO_STATUS_DRIVER
#define FOK VIRTIO_STATUS_FEATURES_OK
#define DOK VIRTIO_STATUS_DRIVER_OK
#define NEEDS_RESET VIRTIO_STATUS_DEVICE_NEEDS_RESET
#define V1 VIRTIO_BIT(VIRTIO_F_VERSION_1)
#define EVIDX VIRTIO_BIT(VIRTIO_F_EVENT_IDX)
#define INDIRECT VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC)

/* §3.1.1 steps 1-6; returns the status read back. */
static uint32_t driver_negotiate(struct fake *f, uint64_t features)
{
	return vqm_mmio_negotiate(f->t, features);
}

static void driver_queue(struct fake *f, uint32_t q, uint32_t num,
			 uint64_t desc, uint64_t avail, uint64_t used)
{
	wr(f, VIRTIO_MMIO_QUEUE_SEL, q);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_READY), 0);
	vqm_mmio_rings(f->t, num, desc, avail, used);
}

/* Queue 0 on the mock's rings, then DRIVER_OK. */
static void driver_up(struct fake *f, uint64_t features)
{
	assert_int_equal(driver_negotiate(f, features), ACK | DRV | FOK);
	driver_queue(f, 0, NUM, f->m.desc, f->m.avail, f->m.used);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_READY), 1);
	assert_int_equal(vqm_mmio_driver_ok(f->t), ACK | DRV | FOK | DOK);
}

static void add_writable(struct fake *f, uint32_t len)
{
	struct vqm_buf b = vqm_buf_new(&f->m, len, true, 0);

	vqm_add(&f->m, &b, 1);
}

/* --- identity, features, status ---------------------------------------- */

static void test_identity(void **state)
{
	struct fake *f = *state;

	assert_int_equal(rd(f, VIRTIO_MMIO_MAGIC_VALUE), 0x74726976);
	assert_int_equal(rd(f, VIRTIO_MMIO_VERSION), 2);
	assert_int_equal(rd(f, VIRTIO_MMIO_DEVICE_ID), 42);
	assert_int_equal(rd(f, VIRTIO_MMIO_VENDOR_ID), VIRTIO_MMIO_VENDOR);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_CONFIG_GENERATION), 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_SHM_LEN_LOW), 0xffffffff);
	assert_int_equal(rd(f, VIRTIO_MMIO_SHM_LEN_HIGH), 0xffffffff);
	assert_int_equal(f->vm.res.base, 0x10003000);
	assert_int_equal(f->vm.res.irq, 3);
}

static void test_device_features(void **state)
{
	struct fake *f = *state;

	assert_int_equal(rd(f, VIRTIO_MMIO_DEVICE_FEATURES),
			 (1u << 28) | (1u << 29) | (1u << FAKE_FEATURE));
	wr(f, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 1);
	assert_int_equal(rd(f, VIRTIO_MMIO_DEVICE_FEATURES), 1);
	wr(f, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 2);
	assert_int_equal(rd(f, VIRTIO_MMIO_DEVICE_FEATURES), 0);
}

static void test_features_ok_needs_version_1(void **state)
{
	struct fake *f = *state;

	assert_int_equal(driver_negotiate(f, EVIDX), ACK | DRV);
	assert_int_equal(driver_negotiate(f, 0), ACK | DRV);
	assert_int_equal(driver_negotiate(f, V1 | EVIDX | INDIRECT),
			 ACK | DRV | FOK);
	assert_int_equal(f->vm.core.features, V1 | EVIDX | INDIRECT);
}

static void test_features_ok_refuses_unoffered(void **state)
{
	struct fake *f = *state;

	assert_int_equal(driver_negotiate(f, V1 | VIRTIO_BIT(0)), ACK | DRV);
	assert_int_equal(driver_negotiate(f, V1 | VIRTIO_BIT(33)), ACK | DRV);
	assert_int_equal(f->vm.core.features, 0);
	assert_int_equal(driver_negotiate(f, V1 | VIRTIO_BIT(FAKE_FEATURE)),
			 ACK | DRV | FOK);
	assert_int_equal(f->vm.core.features, V1 | VIRTIO_BIT(FAKE_FEATURE));
	/* retrying FEATURES_OK later succeeds once the features are fixed */
	assert_int_equal(driver_negotiate(f, EVIDX), ACK | DRV);
	wr_features(f, V1);
	wr(f, VIRTIO_MMIO_STATUS, ACK | DRV | FOK);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), ACK | DRV | FOK);
}

static void test_features_frozen_after_features_ok(void **state)
{
	struct fake *f = *state;

	assert_int_equal(driver_negotiate(f, V1), ACK | DRV | FOK);
	wr_features(f, V1 | EVIDX);
	assert_int_equal(f->vm.core.driver_features, V1);
	assert_int_equal(f->vm.core.features, V1);
	/* selector values other than 0 and 1 select nothing */
	wr(f, VIRTIO_MMIO_STATUS, 0);
	wr(f, VIRTIO_MMIO_DRIVER_FEATURES_SEL, 2);
	wr(f, VIRTIO_MMIO_DRIVER_FEATURES, 0xffffffff);
	assert_int_equal(f->vm.core.driver_features, 0);
}

static void test_status_order(void **state)
{
	struct fake *f = *state;

	wr(f, VIRTIO_MMIO_STATUS, DRV);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), 0);
	wr(f, VIRTIO_MMIO_STATUS, ACK);
	wr(f, VIRTIO_MMIO_STATUS, ACK | DOK);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), ACK);
	wr_features(f, V1);
	wr(f, VIRTIO_MMIO_STATUS, ACK | FOK);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), ACK);
	/* several steps in one write are fine when in order */
	wr(f, VIRTIO_MMIO_STATUS, ACK | DRV | FOK);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), ACK | DRV | FOK);
	/* clearing bits is refused, even together with a valid new bit */
	wr(f, VIRTIO_MMIO_STATUS, ACK);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), ACK | DRV | FOK);
	wr(f, VIRTIO_MMIO_STATUS, DRV | FOK | DOK);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), ACK | DRV | FOK);
	/* the driver cannot set NEEDS_RESET */
	wr(f, VIRTIO_MMIO_STATUS, ACK | DRV | FOK | NEEDS_RESET);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), ACK | DRV | FOK);
	wr(f, VIRTIO_MMIO_STATUS, ACK | DRV | FOK | VIRTIO_STATUS_FAILED);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS),
			 ACK | DRV | FOK | VIRTIO_STATUS_FAILED);
	assert_int_equal(f->resets, 0);
}

static void test_reset_by_writing_zero(void **state)
{
	struct fake *f = *state;
	unsigned int resets;

	driver_up(f, V1 | EVIDX);
	resets = f->resets;
	add_writable(f, 4);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 1);
	assert_int_equal(fake_level(f), 1);
	wr(f, VIRTIO_MMIO_QUEUE_SEL, 1);

	wr(f, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(f->resets, resets + 1);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 0);
	assert_int_equal(fake_level(f), 0);
	assert_int_equal(f->vm.core.queue_sel, 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_READY), 0);
	assert_false(f->vm.core.queues[0].ready);
	assert_false(f->vm.core.queues[0].event_idx);
	assert_int_equal(f->vm.core.queues[0].num, QMAX);
	assert_int_equal(f->vm.core.queues[0].desc_gpa, 0);
	assert_int_equal(f->vm.core.features, 0);
	assert_int_equal(f->vm.core.driver_features, 0);
	/* a notification now does nothing */
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->notifies[0], 1);
}

static void test_system_reset(void **state)
{
	struct fake *f = *state;

	driver_up(f, V1);
	virtio_mmio_ops.reset(f->t);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), 0);
	assert_false(f->vm.core.queues[0].ready);
	assert_int_equal(f->resets, 2); /* driver_up's reset, this one */
}

/* --- queues --------------------------------------------------------------- */

static void test_queue_registers(void **state)
{
	struct fake *f = *state;
	struct virtqueue *vq = &f->vm.core.queues[1];
	uint64_t desc = VQM_RAM_BASE + 0x10000;

	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_NUM_MAX), QMAX);
	wr(f, VIRTIO_MMIO_QUEUE_SEL, 1);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_NUM_MAX), QMAX);
	wr(f, VIRTIO_MMIO_QUEUE_SEL, 2);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_NUM_MAX), 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_READY), 0);
	wr(f, VIRTIO_MMIO_QUEUE_READY, 1); /* no such queue: ignored */
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), 0);

	assert_int_equal(driver_negotiate(f, V1), ACK | DRV | FOK);
	driver_queue(f, 1, 16, desc, desc + 0x1000, desc + 0x2000);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_READY), 1);
	assert_true(vq->ready);
	assert_int_equal(vq->num, 16);
	assert_int_equal(vq->desc_gpa, desc);
	assert_int_equal(vq->avail_gpa, desc + 0x1000);
	assert_int_equal(vq->used_gpa, desc + 0x2000);
	assert_false(f->vm.core.queues[0].ready);

	/* written while ready: ignored */
	wr(f, VIRTIO_MMIO_QUEUE_NUM, 32);
	wr(f, VIRTIO_MMIO_QUEUE_DESC_HIGH, 1);
	assert_int_equal(vq->num, 16);
	assert_int_equal(vq->desc_gpa, desc);

	wr(f, VIRTIO_MMIO_QUEUE_READY, 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_READY), 0);
	assert_false(vq->ready);
	wr(f, VIRTIO_MMIO_QUEUE_DESC_HIGH, 1);
	assert_int_equal(vq->desc_gpa, desc | 1ULL << 32);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), ACK | DRV | FOK);
}

static void assert_needs_reset(struct fake *f)
{
	assert_true(rd(f, VIRTIO_MMIO_STATUS) & NEEDS_RESET);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS),
			 VIRTIO_MMIO_INT_CONFIG);
	assert_int_equal(fake_level(f), 1);
}

static void test_queue_ready_bad_num(void **state)
{
	struct fake *f = *state;

	assert_int_equal(driver_negotiate(f, V1), ACK | DRV | FOK);
	driver_queue(f, 0, 12, f->m.desc, f->m.avail, f->m.used);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_READY), 0);
	assert_needs_reset(f);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS),
			 ACK | DRV | FOK | NEEDS_RESET);
	wr(f, VIRTIO_MMIO_INTERRUPT_ACK, VIRTIO_MMIO_INT_CONFIG);
	assert_int_equal(fake_level(f), 0);
	assert_int_equal(f->nr_edges, 2);
	/* the driver's status writes keep the device's NEEDS_RESET */
	wr(f, VIRTIO_MMIO_STATUS, ACK | DRV | FOK | DOK);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS),
			 ACK | DRV | FOK | DOK | NEEDS_RESET);
	wr(f, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), 0);
}

static void test_queue_ready_ring_outside_ram(void **state)
{
	struct fake *f = *state;

	assert_int_equal(driver_negotiate(f, V1), ACK | DRV | FOK);
	driver_queue(f, 0, NUM, VQM_RAM_BASE + RAM_SIZE, f->m.avail, f->m.used);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_READY), 0);
	assert_needs_reset(f);
}

static void test_queue_ready_misaligned(void **state)
{
	struct fake *f = *state;

	assert_int_equal(driver_negotiate(f, V1), ACK | DRV | FOK);
	driver_queue(f, 0, NUM, f->m.desc, f->m.avail, f->m.used + 2);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_READY), 0);
	assert_needs_reset(f);
}

static void test_queue_ready_before_features_ok(void **state)
{
	struct fake *f = *state;

	wr(f, VIRTIO_MMIO_STATUS, ACK);
	wr(f, VIRTIO_MMIO_STATUS, ACK | DRV);
	driver_queue(f, 0, NUM, f->m.desc, f->m.avail, f->m.used);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_READY), 0);
	assert_needs_reset(f);
}

/* --- notifications and interrupts ---------------------------------------- */

static void test_notify_and_interrupt(void **state)
{
	struct fake *f = *state;
	uint32_t id, len;

	driver_up(f, V1);
	add_writable(f, 100);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->notifies[0], 1);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(id, 0);
	assert_int_equal(len, 100);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS),
			 VIRTIO_MMIO_INT_VRING);
	assert_int_equal(f->nr_edges, 1);
	assert_int_equal(f->edges[0], 1);
	/* acking another bit changes nothing */
	wr(f, VIRTIO_MMIO_INTERRUPT_ACK, VIRTIO_MMIO_INT_CONFIG);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 1);
	assert_int_equal(f->nr_edges, 1);
	wr(f, VIRTIO_MMIO_INTERRUPT_ACK, VIRTIO_MMIO_INT_VRING);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 0);
	assert_int_equal(f->nr_edges, 2);
	assert_int_equal(f->edges[1], 0);

	/* suppressed by the driver: no interrupt */
	vqm_set_avail_flags(&f->m, VIRTQ_AVAIL_F_NO_INTERRUPT);
	add_writable(f, 1);
	virtio_mmio_kick(f->t, 0);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 0);
	assert_int_equal(f->nr_edges, 2);
}

static void test_event_idx_interrupts(void **state)
{
	struct fake *f = *state;

	driver_up(f, V1 | EVIDX);
	assert_true(f->vm.core.queues[0].event_idx);
	vqm_set_used_event(&f->m, 1);
	add_writable(f, 1);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(vqm_used_idx(&f->m), 1);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 0);
	add_writable(f, 1);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(vqm_used_idx(&f->m), 2);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 1);
	assert_int_equal(vqm_avail_event(&f->m), 2);
}

static void test_notify_before_driver_ok(void **state)
{
	struct fake *f = *state;

	assert_int_equal(driver_negotiate(f, V1), ACK | DRV | FOK);
	driver_queue(f, 0, NUM, f->m.desc, f->m.avail, f->m.used);
	add_writable(f, 8);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->notifies[0], 0);
	assert_int_equal(vqm_used_idx(&f->m), 0);
	wr(f, VIRTIO_MMIO_STATUS, ACK | DRV | FOK | DOK);
	assert_int_equal(f->notifies[0], 1);
	assert_int_equal(f->notifies[1], 0); /* not ready */
	assert_int_equal(vqm_used_idx(&f->m), 1);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 1);
}

static void test_notify_bad_index(void **state)
{
	struct fake *f = *state;

	driver_up(f, V1);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 2);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0xffffffff);
	virtio_mmio_kick(f->t, 7);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 1); /* exists, not ready */
	assert_int_equal(f->notifies[0] + f->notifies[1] + f->notifies[2], 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), ACK | DRV | FOK | DOK);
}

static void test_broken_queue_needs_reset(void **state)
{
	struct fake *f = *state;

	driver_up(f, V1);
	vqm_publish(&f->m, NUM); /* head out of range */
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->notifies[0], 1);
	assert_needs_reset(f);
	/* nothing more is processed until a reset */
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->notifies[0], 1);
	wr(f, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(fake_level(f), 0);
	vqm_set_avail_idx(&f->m, 0);
	driver_up(f, V1);
	add_writable(f, 4);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(vqm_used_idx(&f->m), 1);
}

/* --- the device interface: features_ok, liveness, the request loop ------- */

static void test_features_ok_hook(void **state)
{
	struct fake *f = *state;
	const uint64_t want = V1 | EVIDX | VIRTIO_BIT(FAKE_FEATURE);

	/* the transport refuses first: the device is not asked */
	assert_int_equal(driver_negotiate(f, V1 | VIRTIO_BIT(0)), ACK | DRV);
	assert_int_equal(driver_negotiate(f, EVIDX), ACK | DRV);
	assert_int_equal(f->features_ok_calls, 0);
	/* the device refuses: FEATURES_OK stays clear, nothing accepted */
	f->features_ok_ret = -EINVAL;
	assert_int_equal(driver_negotiate(f, want), ACK | DRV);
	assert_int_equal(f->features_ok_calls, 1);
	assert_int_equal(f->features_seen, want);
	assert_int_equal(f->vm.core.features, 0);
	assert_false(f->vm.core.queues[0].event_idx);
	driver_queue(f, 0, NUM, f->m.desc, f->m.avail, f->m.used);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_READY), 0);
	/* accepted after a reset: asked once, not again while set */
	f->features_ok_ret = 0;
	assert_int_equal(driver_negotiate(f, want), ACK | DRV | FOK);
	assert_int_equal(f->features_ok_calls, 2);
	assert_int_equal(f->vm.core.features, want);
	wr(f, VIRTIO_MMIO_STATUS, ACK | DRV | FOK);
	assert_int_equal(f->features_ok_calls, 2);
	/* FEATURES_OK out of order (before DRIVER): not asked */
	wr(f, VIRTIO_MMIO_STATUS, 0);
	wr(f, VIRTIO_MMIO_STATUS, ACK | FOK);
	assert_int_equal(f->features_ok_calls, 2);
}

static void test_queue_live(void **state)
{
	struct fake *f = *state;

	assert_false(virtio_mmio_queue_live(f->t, 0));
	assert_int_equal(driver_negotiate(f, V1), ACK | DRV | FOK);
	driver_queue(f, 0, NUM, f->m.desc, f->m.avail, f->m.used);
	assert_false(virtio_mmio_queue_live(f->t, 0)); /* no DRIVER_OK */
	assert_int_equal(vqm_mmio_driver_ok(f->t), ACK | DRV | FOK | DOK);
	assert_true(virtio_mmio_queue_live(f->t, 0));
	assert_false(virtio_mmio_queue_live(f->t, 1)); /* not ready */
	assert_false(virtio_mmio_queue_live(f->t, 2)); /* no such queue */
	assert_false(virtio_mmio_queue_live(f->t, 0xffffffff));
	wr(f, VIRTIO_MMIO_STATUS, ACK | DRV | FOK | DOK | VIRTIO_STATUS_FAILED);
	assert_false(virtio_mmio_queue_live(f->t, 0));
	/* a broken queue: NEEDS_RESET */
	wr(f, VIRTIO_MMIO_STATUS, 0);
	vqm_set_avail_idx(&f->m, 0);
	driver_up(f, V1);
	assert_true(virtio_mmio_queue_live(f->t, 0));
	vqm_publish(&f->m, NUM);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_false(virtio_mmio_queue_live(f->t, 0));
}

/* A chain the handler refuses is given back and handled next time. */
static void test_process_gives_back(void **state)
{
	struct fake *f = *state;
	uint32_t id, len;

	driver_up(f, V1);
	for (unsigned int i = 0; i < 3; i++)
		add_writable(f, 10 + i);
	f->busy_at = 2;
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(vqm_used_idx(&f->m), 1);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(id, 0);
	assert_int_equal(len, 10);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 1);
	assert_int_equal(f->vm.core.queues[0].last_avail_idx, 1);
	/* the next notification takes the refused chain first */
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(vqm_used_idx(&f->m), 3);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(id, 1);
	assert_int_equal(len, 11);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(id, 2);
	assert_int_equal(len, 12);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), ACK | DRV | FOK | DOK);
}

static void test_process_returns(void **state)
{
	struct fake *f = *state;

	/* not live: nothing popped */
	assert_int_equal(virtio_mmio_process(f->t, 0, &f->chain, fake_chain, f),
			 0);
	assert_int_equal(driver_negotiate(f, V1), ACK | DRV | FOK);
	driver_queue(f, 0, NUM, f->m.desc, f->m.avail, f->m.used);
	add_writable(f, 4);
	virtio_mmio_lock(f->t);
	assert_int_equal(virtio_mmio_process(f->t, 0, &f->chain, fake_chain, f),
			 0);
	virtio_mmio_unlock(f->t);
	assert_int_equal(f->chains_seen, 0);
	assert_int_equal(vqm_mmio_driver_ok(f->t), ACK | DRV | FOK | DOK);
	add_writable(f, 4);
	virtio_mmio_lock(f->t);
	assert_int_equal(virtio_mmio_process(f->t, 0, &f->chain, fake_chain, f),
			 2);
	assert_int_equal(virtio_mmio_process(f->t, 0, &f->chain, fake_chain, f),
			 0);
	f->busy_at = 3;
	add_writable(f, 4);
	assert_int_equal(virtio_mmio_process(f->t, 0, &f->chain, fake_chain, f),
			 -EBUSY);
	/* a broken queue: -EIO, and NEEDS_RESET */
	vqm_publish(&f->m, NUM);
	assert_int_equal(virtio_mmio_process(f->t, 0, &f->chain, fake_chain, f),
			 -EIO);
	virtio_mmio_unlock(f->t);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS) & NEEDS_RESET, NEEDS_RESET);
}

/* --- config space and access checks -------------------------------------- */

static void test_config_space(void **state)
{
	struct fake *f = *state;

	assert_int_equal(rd_n(f, 0x100, 1), 0x11);
	assert_int_equal(rd_n(f, 0x105, 1), 0x66);
	assert_int_equal(rd_n(f, 0x101, 2), 0x3322);
	assert_int_equal(rd_n(f, 0x104, 2), 0x6655);
	assert_int_equal(rd_n(f, 0x100, 4), 0x44332211);
	assert_int_equal(rd_n(f, 0x102, 4), 0x66554433);
	/* past config_size */
	assert_int_equal(rd_n(f, 0x103, 4), 0);
	assert_int_equal(rd_n(f, 0x105, 2), 0);
	assert_int_equal(rd_n(f, 0x106, 1), 0);
	assert_int_equal(rd_n(f, 0xffc, 4), 0);
	assert_int_equal(rd_n(f, 0x100, 8), 0);
	assert_int_equal(rd_n(f, 0x100, 3), 0);

	wr_n(f, 0x101, 0xab, 1);
	assert_int_equal(f->cfg_write_off, 1);
	assert_int_equal(f->cfg_write_len, 1);
	assert_int_equal(f->cfg_write_val, 0xab);
	wr_n(f, 0x102, 0x12345678, 4);
	assert_int_equal(f->cfg_write_off, 2);
	assert_int_equal(f->cfg_write_val, 0x12345678);
	wr_n(f, 0x104, 0x12345678, 4); /* past the end: ignored */
	assert_int_equal(f->cfg_write_off, 2);
}

static void test_bad_register_access(void **state)
{
	struct fake *f = *state;

	assert_int_equal(rd_n(f, VIRTIO_MMIO_MAGIC_VALUE, 2), 0);
	assert_int_equal(rd_n(f, VIRTIO_MMIO_MAGIC_VALUE, 1), 0);
	assert_int_equal(rd_n(f, VIRTIO_MMIO_MAGIC_VALUE, 8), 0);
	assert_int_equal(rd_n(f, 0x001, 4), 0);
	assert_int_equal(rd_n(f, 0x0f0, 4), 0);
	assert_int_equal(rd_n(f, VIRTIO_MMIO_QUEUE_NOTIFY, 4), 0);
	assert_int_equal(rd_n(f, 0x0fe, 2), 0);

	wr_n(f, VIRTIO_MMIO_STATUS, ACK, 1);
	wr_n(f, VIRTIO_MMIO_STATUS, ACK, 2);
	wr_n(f, VIRTIO_MMIO_STATUS + 1, ACK, 4);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), 0);
	wr(f, VIRTIO_MMIO_MAGIC_VALUE, 0);
	wr(f, 0x0f8, 1);
	assert_int_equal(rd(f, VIRTIO_MMIO_MAGIC_VALUE), 0x74726976);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), 0);
	assert_int_equal(f->nr_edges, 0);
}

static void test_fdt(void **state)
{
	struct fake *f = *state;
	const fdt32_t reg[4] = {
		0,
		cpu_to_fdt32(0x10003000),
		0,
		cpu_to_fdt32(0x1000),
	};
	char buf[1024];
	const void *prop;
	int node, len;

	assert_int_equal(fdt_create(buf, sizeof(buf)), 0);
	assert_int_equal(fdt_finish_reservemap(buf), 0);
	assert_int_equal(fdt_begin_node(buf, ""), 0);
	assert_int_equal(virtio_mmio_ops.fdt(f->t, buf), 0);
	assert_int_equal(fdt_end_node(buf), 0);
	assert_int_equal(fdt_finish(buf), 0);

	node = fdt_path_offset(buf, "/virtio_mmio@10003000");
	assert_true(node >= 0);
	prop = fdt_getprop(buf, node, "compatible", &len);
	assert_non_null(prop);
	assert_int_equal(len, sizeof("virtio,mmio"));
	assert_string_equal(prop, "virtio,mmio");
	prop = fdt_getprop(buf, node, "reg", &len);
	assert_int_equal(len, sizeof(reg));
	assert_memory_equal(prop, reg, sizeof(reg));
	prop = fdt_getprop(buf, node, "interrupts", &len);
	assert_int_equal(len, 4);
	assert_int_equal(fdt32_to_cpu(*(const fdt32_t *)prop), 3);
	prop = fdt_getprop(buf, node, "interrupt-parent", &len);
	assert_int_equal(len, 4);
	assert_int_equal(fdt32_to_cpu(*(const fdt32_t *)prop),
			 TEST_PHANDLE_IRQCHIP);
	prop = fdt_getprop(buf, node, "dma-coherent", &len);
	assert_non_null(prop);
	assert_int_equal(len, 0);

	/* too small a buffer: a libfdt error, no overflow */
	assert_int_equal(fdt_create(buf, 80), 0);
	assert_int_equal(fdt_finish_reservemap(buf), 0);
	assert_int_equal(virtio_mmio_ops.fdt(f->t, buf), -FDT_ERR_NOSPACE);
}

static void test_init_errors(void **state)
{
	struct fake *f = *state;
	struct virtio_mmio *vm = calloc(1, sizeof(*vm));
	struct virtio_dev dev = fake_dev(f);

	assert_non_null(vm);
	assert_int_equal(virtio_mmio_init(vm, NULL, &f->m.mem, NULL, &dev),
			 -EINVAL);
	{
		struct dev_res small = SLOT_RES(0);

		small.size = VIRTIO_MMIO_WINDOW - 1;
		assert_int_equal(
			virtio_mmio_init(vm, &small, &f->m.mem, NULL, &dev),
			-EINVAL);
	}
	dev.num_queues = 0;
	assert_int_equal(
		virtio_mmio_init(vm, &SLOT_RES(0), &f->m.mem, NULL, &dev),
		-EINVAL);
	dev.num_queues = VIRTIO_MMIO_MAX_QUEUES + 1;
	assert_int_equal(
		virtio_mmio_init(vm, &SLOT_RES(0), &f->m.mem, NULL, &dev),
		-EINVAL);
	dev = fake_dev(f);
	dev.queue_num_max = 48;
	assert_int_equal(
		virtio_mmio_init(vm, &SLOT_RES(0), &f->m.mem, NULL, &dev),
		-EINVAL);
	dev = fake_dev(f);
	dev.config_size = 0xf01;
	assert_int_equal(
		virtio_mmio_init(vm, &SLOT_RES(0), &f->m.mem, NULL, &dev),
		-EINVAL);
	dev = fake_dev(f);
	dev.config_size = 0xf00;
	assert_int_equal(
		virtio_mmio_init(vm, &SLOT_RES(7), &f->m.mem, NULL, &dev), 0);
	assert_int_equal(vm->res.base, 0x10008000);
	assert_int_equal(vm->res.irq, 8);
	virtio_mmio_destroy(vm);
	free(vm);
}

/* --- virtio-rng end to end ----------------------------------------------- */

static void test_rng_end_to_end(void **state)
{
	struct fake *f = *state;
	struct vqm_buf d[2] = {
		vqm_buf_new(&f->m, 16, true, 0),
		vqm_buf_new(&f->m, 48, true, 0),
	};
	struct vqm_buf t[3] = {
		vqm_buf_new(&f->m, 10, true, 0),
		vqm_buf_new(&f->m, 30, true, 0),
		vqm_buf_new(&f->m, 60, true, 0),
	};
	uint8_t expect[164];
	uint16_t h0, h1;
	uint32_t id, len;

	for (unsigned int i = 0; i < sizeof(expect); i++)
		expect[i] = i;
	assert_int_equal(rd(f, VIRTIO_MMIO_DEVICE_ID), VIRTIO_ID_RNG);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_NUM_MAX),
			 VIRTIO_RNG_QUEUE_SIZE);
	assert_int_equal(rd(f, VIRTIO_MMIO_DEVICE_FEATURES),
			 (1u << 28) | (1u << 29));
	driver_up(f, V1 | EVIDX | INDIRECT);
	vqm_set_used_event(&f->m, 1); /* one interrupt, for both */
	h0 = vqm_add(&f->m, d, 2);
	h1 = vqm_add_indirect(&f->m, t, 3);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);

	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(id, h0);
	assert_int_equal(len, 64);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(id, h1);
	assert_int_equal(len, 100);
	assert_false(vqm_get_used(&f->m, &id, &len));
	assert_memory_equal(vqm_ptr(&f->m, d[0].gpa, 16), expect, 16);
	assert_memory_equal(vqm_ptr(&f->m, d[1].gpa, 48), expect + 16, 48);
	assert_memory_equal(vqm_ptr(&f->m, t[0].gpa, 10), expect + 64, 10);
	assert_memory_equal(vqm_ptr(&f->m, t[1].gpa, 30), expect + 74, 30);
	assert_memory_equal(vqm_ptr(&f->m, t[2].gpa, 60), expect + 104, 60);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 1);
	assert_int_equal(fake_level(f), 1);
	assert_int_equal(f->nr_edges, 1);
	wr(f, VIRTIO_MMIO_INTERRUPT_ACK, 1);
	assert_int_equal(fake_level(f), 0);
	assert_int_equal(vqm_avail_event(&f->m), 2);
}

static void test_rng_limits(void **state)
{
	struct fake *f = *state;
	struct vqm_buf big =
		vqm_buf_new(&f->m, VIRTIO_RNG_CHAIN_MAX + 1000, true, 0xee);
	struct vqm_buf ro = vqm_buf_new(&f->m, 8, false, 0xee);
	uint8_t *p = vqm_ptr(&f->m, big.gpa, big.len);
	uint32_t id, len;

	driver_up(f, V1);
	vqm_add(&f->m, &big, 1);
	vqm_add(&f->m, &ro, 1); /* nothing to write into */
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(len, VIRTIO_RNG_CHAIN_MAX);
	assert_int_equal(p[0], 0);
	assert_int_equal(p[VIRTIO_RNG_CHAIN_MAX - 1], 0xff);
	assert_int_equal(p[VIRTIO_RNG_CHAIN_MAX], 0xee);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(len, 0);

	f->source_mode = SRC_FAIL;
	vqm_add(&f->m, &big, 1);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(len, 0);

	f->source_mode = SRC_ZERO; /* no progress: must not spin */
	vqm_add(&f->m, &big, 1);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(len, 0);

	f->source_mode = SRC_TOO_MUCH;
	vqm_add(&f->m, &big, 1);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(len, VIRTIO_RNG_CHAIN_MAX);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS) & NEEDS_RESET, 0);
}

/* The device's first pop breaks the queue: nothing pushed, NEEDS_RESET. */
static void test_rng_broken_queue(void **state)
{
	struct fake *f = *state;
	struct vqm_buf b[2] = {
		vqm_buf_new(&f->m, 4, true, 0),
		vqm_buf_new(&f->m, 4, false, 0),
	};

	driver_up(f, V1);
	vqm_add(&f->m, b, 2); /* readable after writable */
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(vqm_used_idx(&f->m), 0);
	assert_needs_reset(f);
	assert_int_equal(f->next_byte, 0);
}

static void test_rng_getrandom(void **state)
{
	uint8_t a[32] = { 0 }, b[32] = { 0 };

	(void)state;
	assert_int_equal(virtio_rng_getrandom(NULL, a, sizeof(a)), 32);
	assert_int_equal(virtio_rng_getrandom(NULL, b, sizeof(b)), 32);
	assert_memory_not_equal(a, b, sizeof(a));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
#define TR(fn) cmocka_unit_test_setup_teardown(fn, setup_rng, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_identity),
		T(test_device_features),
		T(test_features_ok_needs_version_1),
		T(test_features_ok_refuses_unoffered),
		T(test_features_frozen_after_features_ok),
		T(test_status_order),
		T(test_reset_by_writing_zero),
		T(test_system_reset),
		T(test_queue_registers),
		T(test_queue_ready_bad_num),
		T(test_queue_ready_ring_outside_ram),
		T(test_queue_ready_misaligned),
		T(test_queue_ready_before_features_ok),
		T(test_notify_and_interrupt),
		T(test_event_idx_interrupts),
		T(test_notify_before_driver_ok),
		T(test_notify_bad_index),
		T(test_broken_queue_needs_reset),
		T(test_features_ok_hook),
		T(test_queue_live),
		T(test_process_gives_back),
		T(test_process_returns),
		T(test_config_space),
		T(test_bad_register_access),
		T(test_fdt),
		T(test_init_errors),
		TR(test_rng_end_to_end),
		TR(test_rng_limits),
		TR(test_rng_broken_queue),
		TR(test_rng_getrandom),
	};

	return cmocka_run_group_tests_name("virtio_mmio", tests, NULL, NULL);
}
