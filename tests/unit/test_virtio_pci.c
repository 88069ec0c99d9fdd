// SPDX-License-Identifier: GPL-2.0
/*
 * virtio-pci modern: identity, the capability list, the common
 * configuration driven like Linux's virtio_pci_modern driver, the notify
 * address, ISR read-to-clear with a level INTx line, the PCI configuration
 * access capability, hostile sizes and offsets, and the shared virtio core
 * reaching the same state through virtio-pci and virtio-mmio; MSI-X:
 * the capability, table and PBA, vectors per queue and config, function
 * and vector masks with pending bits; Bus Master Enable: while it is
 * clear nothing is popped, completed or signalled (MSI-X messages stay
 * pending), and setting it again processes what was notified.  The device
 * behind it is virtio-rng; its rings come from the driver-side mock.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "lib/log.h"
#include "tests/unit/slot_res.h"
#include "tests/unit/virtq_mock.h"
#include "virtio/pci.h"
#include "virtio/rng.h"

#define NUM 16
#define RAM_SIZE (1 << 20)
#define V1 VIRTIO_BIT(VIRTIO_F_VERSION_1)

struct fx {
	struct vqm m;
	struct virtio_rng rng;	/* on PCI */
	struct virtio_rng rng2; /* on MMIO, for the comparison */
	struct virtio_pci vp;
	int level;
	uint8_t next;
	unsigned int msgs;
	uint64_t msg_addr;
	uint32_t msg_data;
	unsigned int hooked; /* MSI-X hook calls */
};

static void msi_send(void *opaque, uint64_t addr, uint32_t data)
{
	struct fx *x = opaque;

	x->msgs++;
	x->msg_addr = addr;
	x->msg_data = data;
}

static void irq_set(void *opaque, int level)
{
	((struct fx *)opaque)->level = level;
}

static ssize_t source(void *opaque, void *buf, size_t len)
{
	struct fx *x = opaque;
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = x->next++;
	return len;
}

static void bme(struct fx *x, bool on)
{
	x->vp.func.ops->bus_master(&x->vp, on);
}

static int setup_nobme(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));
	const struct irq_line irq = { irq_set, x };
	const struct dev_res none = { 0 };

	log_level = -1;
	vqm_init(&x->m, RAM_SIZE, NUM);
	assert_int_equal(
		virtio_rng_init(&x->rng, &none, &x->m.mem, &irq, source, x), 0);
	assert_int_equal(virtio_rng_init(&x->rng2, &SLOT_RES(0), &x->m.mem,
					 NULL, source, x),
			 0);
	assert_int_equal(virtio_pci_init(&x->vp, &x->rng.vm.core, NULL), 0);
	*state = x;
	return 0;
}

/* As the bridge does when the driver sets bus mastering (Linux probe). */
static int setup(void **state)
{
	setup_nobme(state);
	bme(*state, true);
	return 0;
}

static int setup_msix(void **state)
{
	struct fx *x;
	struct virtio_pci_msi_sink sink = { msi_send, NULL };

	setup_nobme(state);
	x = *state;
	sink.opaque = x;
	assert_int_equal(virtio_pci_init(&x->vp, &x->rng.vm.core, &sink), 0);
	bme(x, true);
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;

	virtio_rng_destroy(&x->rng);
	virtio_rng_destroy(&x->rng2);
	vqm_free(&x->m);
	free(x);
	return 0;
}

static uint64_t bar_rd(struct fx *x, uint64_t off, unsigned int len)
{
	uint8_t d[8];

	x->vp.func.ops->bar_read(&x->vp, VIRTIO_PCI_BAR, off, d, len);
	return mmio_data_get(d, len);
}

static void bar_wr(struct fx *x, uint64_t off, unsigned int len, uint64_t v)
{
	uint8_t d[8];

	mmio_data_put(d, len, v);
	x->vp.func.ops->bar_write(&x->vp, VIRTIO_PCI_BAR, off, d, len);
}

static uint32_t cfg_rd(struct fx *x, uint32_t off, unsigned int len)
{
	return x->vp.func.ops->cfg_read(&x->vp, off, len);
}

static void cfg_wr(struct fx *x, uint32_t off, unsigned int len, uint32_t v)
{
	x->vp.func.ops->cfg_write(&x->vp, off, len, v);
}

static void test_identity(void **state)
{
	struct fx *x = *state;
	const struct pci_func *f = &x->vp.func;

	assert_int_equal(f->vendor, 0x1af4);
	assert_int_equal(f->device, 0x1044);
	assert_int_equal(f->subsys_vendor, 0x1af4);
	assert_int_equal(f->subsys, 4);
	assert_int_equal(f->revision, 1);
	assert_true(f->intx);
	assert_int_equal(f->bar_size[0], VIRTIO_PCI_BAR_SIZE);
	assert_true(f->bar64[0]);
	assert_true(pci_func_ok(f));
}

/* Linux's virtio_pci_find_capability: walk, match cfg_type and BAR. */
static void test_capabilities(void **state)
{
	struct fx *x = *state;
	unsigned int pos = x->vp.func.cap_ptr, ttl = 48, seen = 0;

	while (pos && ttl--) {
		unsigned int type = cfg_rd(x, pos + 3, 1);
		uint32_t off = cfg_rd(x, pos + 8, 4),
			 len = cfg_rd(x, pos + 12, 4);

		assert_int_equal(cfg_rd(x, pos, 1), PCI_CAP_ID_VNDR);
		seen |= 1u << type;
		if (type == VIRTIO_PCI_CAP_COMMON_CFG) {
			assert_int_equal(off, VIRTIO_PCI_COMMON_OFF);
			assert_true(len >= VIRTIO_PCI_COMMON_LEN);
		} else if (type == VIRTIO_PCI_CAP_NOTIFY_CFG) {
			assert_int_equal(cfg_rd(x, pos + 2, 1), 20);
			assert_int_equal(off, VIRTIO_PCI_NOTIFY_OFF);
			assert_int_equal(cfg_rd(x, pos + 16, 4), 0);
			assert_true(len >= 2);
		} else if (type == VIRTIO_PCI_CAP_ISR_CFG) {
			assert_int_equal(off, VIRTIO_PCI_ISR_OFF);
		}
		if (type != VIRTIO_PCI_CAP_PCI_CFG) {
			assert_int_equal(cfg_rd(x, pos + 4, 1), 0);
			assert_true(off + len <= VIRTIO_PCI_BAR_SIZE);
		}
		pos = cfg_rd(x, pos + 1, 1);
	}
	assert_int_equal(pos, 0);
	/* rng has no device configuration: no DEVICE_CFG capability */
	assert_int_equal(seen, 1u << 1 | 1u << 2 | 1u << 3 | 1u << 5);
	/* capabilities are read-only (but for the access window) */
	cfg_wr(x, VIRTIO_PCI_CAP_COMMON + 8, 4, 0x1234);
	assert_int_equal(cfg_rd(x, VIRTIO_PCI_CAP_COMMON + 8, 4), 0);
}

static void pci_features(struct fx *x, uint64_t f)
{
	bar_wr(x, VIRTIO_PCI_GFSELECT, 4, 0);
	bar_wr(x, VIRTIO_PCI_GF, 4, (uint32_t)f);
	bar_wr(x, VIRTIO_PCI_GFSELECT, 4, 1);
	bar_wr(x, VIRTIO_PCI_GF, 4, f >> 32);
}

/* What Linux's vp_modern probe and setup_vq do, in order. */
static void pci_driver_up(struct fx *x)
{
	uint8_t s = VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER;

	bar_wr(x, VIRTIO_PCI_STATUS, 1, 0);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_STATUS, 1), 0);
	bar_wr(x, VIRTIO_PCI_STATUS, 1, VIRTIO_STATUS_ACKNOWLEDGE);
	bar_wr(x, VIRTIO_PCI_STATUS, 1, s);
	bar_wr(x, VIRTIO_PCI_DFSELECT, 4, 1);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_DF, 4), 1); /* VERSION_1 */
	pci_features(x, V1);
	bar_wr(x, VIRTIO_PCI_STATUS, 1, s | VIRTIO_STATUS_FEATURES_OK);
	assert_true(bar_rd(x, VIRTIO_PCI_STATUS, 1) &
		    VIRTIO_STATUS_FEATURES_OK);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_NUM_QUEUES, 2), 1);
	bar_wr(x, VIRTIO_PCI_Q_SELECT, 2, 0);
	assert_true(bar_rd(x, VIRTIO_PCI_Q_SIZE, 2) >= NUM);
	bar_wr(x, VIRTIO_PCI_Q_SIZE, 2, NUM);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_Q_NOFF, 2), 0);
	bar_wr(x, VIRTIO_PCI_Q_DESC, 4, (uint32_t)x->m.desc);
	bar_wr(x, VIRTIO_PCI_Q_DESC + 4, 4, x->m.desc >> 32);
	bar_wr(x, VIRTIO_PCI_Q_AVAIL, 8, x->m.avail); /* one 8-byte write */
	bar_wr(x, VIRTIO_PCI_Q_USED, 4, (uint32_t)x->m.used);
	bar_wr(x, VIRTIO_PCI_Q_USED + 4, 4, x->m.used >> 32);
	bar_wr(x, VIRTIO_PCI_Q_ENABLE, 2, 1);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_Q_ENABLE, 2), 1);
	bar_wr(x, VIRTIO_PCI_STATUS, 1,
	       s | VIRTIO_STATUS_FEATURES_OK | VIRTIO_STATUS_DRIVER_OK);
}

static void test_request_and_isr(void **state)
{
	struct fx *x = *state;
	struct vqm_buf b;
	uint32_t id, len;

	pci_driver_up(x);
	assert_int_equal(x->rng.vm.core.status, 0xf);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_Q_DESC, 8), x->m.desc);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_Q_AVAIL + 4, 4),
			 x->m.avail >> 32);
	b = vqm_buf_new(&x->m, 32, true, 0);
	vqm_add(&x->m, &b, 1);
	bar_wr(x, VIRTIO_PCI_NOTIFY_OFF, 2, 0);
	assert_true(vqm_get_used(&x->m, &id, &len));
	assert_int_equal(len, 32);
	assert_int_equal(x->level, 1);
	/* ISR: read returns and clears; the line falls */
	assert_int_equal(bar_rd(x, VIRTIO_PCI_ISR_OFF, 1), VIRTIO_INT_VRING);
	assert_int_equal(x->level, 0);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_ISR_OFF, 1), 0);
	/* queue writes are refused while enabled */
	bar_wr(x, VIRTIO_PCI_Q_SIZE, 2, 4);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_Q_SIZE, 2), NUM);
	/* no vectors assigned (or no MSI-X) */
	assert_int_equal(bar_rd(x, VIRTIO_PCI_MSIX_CONFIG, 2), 0xffff);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_Q_MSIX, 2), 0xffff);
	bar_wr(x, VIRTIO_PCI_MSIX_CONFIG, 2, 9);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_MSIX_CONFIG, 2), 0xffff);
	/* device reset through the status byte */
	bar_wr(x, VIRTIO_PCI_STATUS, 1, 0);
	assert_int_equal(x->rng.vm.core.status, 0);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_Q_ENABLE, 2), 0);
}

/* The same driver steps through both front-ends: the same core state. */
static void test_same_core_both_transports(void **state)
{
	struct fx *x = *state;
	struct virtio_mmio *vm = &x->rng2.vm;
	struct virtio_core *a = &x->rng.vm.core, *b = &vm->core;

	pci_driver_up(x);
	assert_int_equal(vqm_mmio_negotiate(vm, V1) & 0xf, 0xb);
	assert_int_equal(vqm_mmio_queue(vm, 0, &x->m), 1);
	assert_int_equal(vqm_mmio_driver_ok(vm), 0xf);
	assert_int_equal(a->status, b->status);
	assert_int_equal(a->features, b->features);
	assert_int_equal(a->queues[0].num, b->queues[0].num);
	assert_int_equal(a->queues[0].desc_gpa, b->queues[0].desc_gpa);
	assert_int_equal(a->queues[0].avail_gpa, b->queues[0].avail_gpa);
	assert_int_equal(a->queues[0].used_gpa, b->queues[0].used_gpa);
	assert_int_equal(a->queues[0].ready, b->queues[0].ready);
	/* a refused feature set is refused by both */
	bar_wr(x, VIRTIO_PCI_STATUS, 1, 0);
	bar_wr(x, VIRTIO_PCI_STATUS, 1, 3);
	pci_features(x, 0);
	bar_wr(x, VIRTIO_PCI_STATUS, 1, 0xb);
	assert_int_equal(vqm_mmio_negotiate(vm, 0), 3);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_STATUS, 1), 3);
}

static void test_pci_cfg_access(void **state)
{
	struct fx *x = *state;
	uint32_t cap = VIRTIO_PCI_CAP_PCICFG;

	cfg_wr(x, cap + 4, 1, VIRTIO_PCI_BAR);
	cfg_wr(x, cap + 8, 4, VIRTIO_PCI_STATUS);
	cfg_wr(x, cap + 12, 4, 1);
	cfg_wr(x, cap + 16, 4, VIRTIO_STATUS_ACKNOWLEDGE);
	assert_int_equal(x->rng.vm.core.status, VIRTIO_STATUS_ACKNOWLEDGE);
	assert_int_equal(cfg_rd(x, cap + 16, 1), VIRTIO_STATUS_ACKNOWLEDGE);
	cfg_wr(x, cap + 8, 4, VIRTIO_PCI_DFSELECT);
	cfg_wr(x, cap + 12, 4, 4);
	cfg_wr(x, cap + 16, 4, 1);
	cfg_wr(x, cap + 8, 4, VIRTIO_PCI_DF);
	assert_int_equal(cfg_rd(x, cap + 16, 4), 1);
	/* bad windows: length 3, misaligned, other BAR, beyond the BAR */
	cfg_wr(x, cap + 12, 4, 3);
	assert_int_equal(cfg_rd(x, cap + 16, 4), 0);
	cfg_wr(x, cap + 12, 4, 4);
	cfg_wr(x, cap + 8, 4, 2);
	assert_int_equal(cfg_rd(x, cap + 16, 4), 0);
	cfg_wr(x, cap + 8, 4, 0xfffffffc);
	assert_int_equal(cfg_rd(x, cap + 16, 4), 0);
	cfg_wr(x, cap + 8, 4, VIRTIO_PCI_DF);
	cfg_wr(x, cap + 4, 1, 5);
	assert_int_equal(cfg_rd(x, cap + 16, 4), 0);
}

/* Wrong sizes and offsets: ignored, reads give 0, nothing breaks. */
static void test_hostile_accesses(void **state)
{
	struct fx *x = *state;
	uint8_t d[8] = { 0xaa };

	pci_driver_up(x);
	for (uint64_t off = 0; off < VIRTIO_PCI_BAR_SIZE; off += 0x7f)
		for (unsigned int len = 1; len <= 8; len *= 2)
			(void)bar_rd(x, off, len);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_DF, 2), 0);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_STATUS, 2), 0);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_Q_SIZE + 1, 1), 0);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_Q_DESC + 4, 8), 0);
	bar_wr(x, VIRTIO_PCI_STATUS - 1, 2, 0); /* across two fields */
	assert_int_equal(x->rng.vm.core.status, 0xf);
	bar_wr(x, VIRTIO_PCI_NUM_QUEUES, 2, 9);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_NUM_QUEUES, 2), 1);
	bar_wr(x, VIRTIO_PCI_NOTIFY_OFF, 2, 7); /* no such queue */
	bar_wr(x, VIRTIO_PCI_NOTIFY_OFF, 1, 0);
	bar_wr(x, VIRTIO_PCI_DEVICE_OFF, 4, 0); /* rng: no config */
	bar_wr(x, VIRTIO_PCI_Q_SELECT, 2, 0xffff);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_Q_SIZE, 2), 0);
	bar_wr(x, VIRTIO_PCI_Q_DESC, 4, 0x1000);      /* no such queue */
	x->vp.func.ops->bar_read(&x->vp, 1, 0, d, 4); /* no BAR 1 */
	assert_int_equal(d[0], 0);
	assert_int_equal(x->rng.vm.core.status, 0xf);
}

static void msix_entry(struct fx *x, unsigned int v, uint64_t addr,
		       uint32_t data, bool masked)
{
	uint64_t e = VIRTIO_PCI_MSIX_TABLE + 16 * v;

	bar_wr(x, e, 8, addr);
	bar_wr(x, e + 8, 4, data);
	bar_wr(x, e + 12, 4, masked);
}

static void rng_request(struct fx *x)
{
	struct vqm_buf b = vqm_buf_new(&x->m, 16, true, 0);

	vqm_add(&x->m, &b, 1);
	bar_wr(x, VIRTIO_PCI_NOTIFY_OFF, 2, 0);
}

static void test_msix_capability(void **state)
{
	struct fx *x = *state;
	unsigned int pos = x->vp.func.cap_ptr, ttl = 48;

	while (pos && ttl-- && cfg_rd(x, pos, 1) != PCI_CAP_ID_MSIX)
		pos = cfg_rd(x, pos + 1, 1);
	assert_int_equal(pos, VIRTIO_PCI_CAP_MSIX);
	assert_int_equal(cfg_rd(x, pos + 2, 2), 1); /* 2 vectors: N - 1 */
	assert_int_equal(cfg_rd(x, pos + 4, 4), VIRTIO_PCI_MSIX_TABLE);
	assert_int_equal(cfg_rd(x, pos + 8, 4), VIRTIO_PCI_MSIX_PBA);
	/* only enable and function mask are writable */
	cfg_wr(x, pos, 4, 0xffffffff);
	assert_int_equal(cfg_rd(x, pos, 4), 0xc0010000 | PCI_CAP_ID_MSIX);
	cfg_wr(x, pos + 3, 1, 0);
	assert_int_equal(cfg_rd(x, pos + 2, 2), 1);
	/* entries start masked, PBA clear */
	assert_int_equal(bar_rd(x, VIRTIO_PCI_MSIX_TABLE + 12, 4), 1);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_MSIX_PBA, 8), 0);
	/* no third entry; PBA read-only */
	assert_int_equal(bar_rd(x, VIRTIO_PCI_MSIX_TABLE + 32, 4), 0);
	bar_wr(x, VIRTIO_PCI_MSIX_PBA, 4, 3);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_MSIX_PBA, 4), 0);
	/* a vector beyond the table reads back NO_VECTOR */
	bar_wr(x, VIRTIO_PCI_MSIX_CONFIG, 2, 2);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_MSIX_CONFIG, 2), 0xffff);
	bar_wr(x, VIRTIO_PCI_MSIX_CONFIG, 2, 0);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_MSIX_CONFIG, 2), 0);
}

/* Linux's order: enable MSI-X, program entries, assign vectors, go. */
static void test_msix_vectors_and_masks(void **state)
{
	struct fx *x = *state;
	uint32_t cap = VIRTIO_PCI_CAP_MSIX;

	cfg_wr(x, cap + 2, 2, PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
	msix_entry(x, 0, 0x28000000, 1, false);
	msix_entry(x, 1, 0x28001000, 2, false);
	cfg_wr(x, cap + 2, 2, PCI_MSIX_FLAGS_ENABLE);
	pci_driver_up(x);
	bar_wr(x, VIRTIO_PCI_MSIX_CONFIG, 2, 0);
	bar_wr(x, VIRTIO_PCI_Q_SELECT, 2, 0);
	bar_wr(x, VIRTIO_PCI_Q_MSIX, 2, 1);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_Q_MSIX, 2), 1);
	rng_request(x);
	assert_int_equal(x->msgs, 1);
	assert_int_equal(x->msg_addr, 0x28001000);
	assert_int_equal(x->msg_data, 2);
	assert_int_equal(x->level, 0); /* no INTx, no ISR */
	assert_int_equal(bar_rd(x, VIRTIO_PCI_ISR_OFF, 1), 0);

	/* a masked vector keeps its message pending until unmasked */
	bar_wr(x, VIRTIO_PCI_MSIX_TABLE + 16 + 12, 4, 1);
	rng_request(x);
	assert_int_equal(x->msgs, 1);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_MSIX_PBA, 4), 2);
	bar_wr(x, VIRTIO_PCI_MSIX_TABLE + 16 + 12, 4, 0);
	assert_int_equal(x->msgs, 2);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_MSIX_PBA, 4), 0);

	/* the function mask too */
	cfg_wr(x, cap + 3, 1, 0xc0);
	rng_request(x);
	assert_int_equal(x->msgs, 2);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_MSIX_PBA, 4), 2);
	cfg_wr(x, cap + 3, 1, 0x80);
	assert_int_equal(x->msgs, 3);

	/* NO_VECTOR: no interrupt at all while MSI-X is on */
	bar_wr(x, VIRTIO_PCI_Q_MSIX, 2, VIRTIO_PCI_NO_VECTOR);
	rng_request(x);
	assert_int_equal(x->msgs, 3);
	assert_int_equal(x->level, 0);

	/* MSI-X off: back to INTx and the ISR */
	cfg_wr(x, cap + 3, 1, 0);
	rng_request(x);
	assert_int_equal(x->msgs, 3);
	assert_int_equal(x->level, 1);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_ISR_OFF, 1), VIRTIO_INT_VRING);

	/* reset: vectors unassigned, entries masked, MSI-X off */
	x->vp.func.ops->reset(&x->vp);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_MSIX_CONFIG, 2), 0xffff);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_MSIX_TABLE + 12, 4), 1);
	assert_int_equal(cfg_rd(x, cap + 2, 2), 1);
}

/* A broken queue's config change goes to the config vector. */
static void test_msix_config_vector(void **state)
{
	struct fx *x = *state;

	cfg_wr(x, VIRTIO_PCI_CAP_MSIX + 2, 2, PCI_MSIX_FLAGS_ENABLE);
	msix_entry(x, 0, 0x28000000, 7, false);
	bar_wr(x, VIRTIO_PCI_MSIX_CONFIG, 2, 0);
	bar_wr(x, VIRTIO_PCI_STATUS, 1, 3);
	bar_wr(x, VIRTIO_PCI_Q_ENABLE, 2, 1); /* before FEATURES_OK */
	assert_true(x->rng.vm.core.status & VIRTIO_STATUS_DEVICE_NEEDS_RESET);
	assert_int_equal(x->msgs, 1);
	assert_int_equal(x->msg_data, 7);
}

/*
 * Bus Master Enable clear while the queue is live: a notified request is
 * not popped, nothing is written or signalled; set again, it is served.
 */
static void test_bus_master_gate(void **state)
{
	struct fx *x = *state;
	uint32_t id, len;

	pci_driver_up(x);
	rng_request(x);
	assert_true(vqm_get_used(&x->m, &id, &len));
	assert_int_equal(x->level, 1);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_ISR_OFF, 1), VIRTIO_INT_VRING);

	bme(x, false);
	x->next = 0x40;
	for (int i = 0; i < 3; i++)
		rng_request(x);
	assert_int_equal(x->rng.vm.core.queues[0].last_avail_idx, 1);
	assert_int_equal(vqm_used_idx(&x->m), 1);
	assert_int_equal(x->level, 0);
	assert_int_equal(x->next, 0x40); /* the source was not asked */

	bme(x, true);
	assert_int_equal(x->rng.vm.core.queues[0].last_avail_idx, 4);
	assert_int_equal(vqm_used_idx(&x->m), 4);
	assert_int_equal(x->level, 1);
	for (int i = 0; i < 3; i++) {
		assert_true(vqm_get_used(&x->m, &id, &len));
		assert_int_equal(len, 16);
	}
}

/* Power-on: no bus mastering until the driver sets it. */
static void test_bus_master_off_at_power_on(void **state)
{
	struct fx *x = *state;
	uint32_t id, len;

	pci_driver_up(x);
	assert_int_equal(x->rng.vm.core.status, 0xf);
	rng_request(x);
	assert_false(vqm_get_used(&x->m, &id, &len));
	bme(x, true);
	assert_true(vqm_get_used(&x->m, &id, &len));
	assert_int_equal(len, 16);
	/* a reset keeps the gate: the bridge reports BME, not the core */
	bme(x, false);
	bar_wr(x, VIRTIO_PCI_STATUS, 1, 0);
	assert_true(x->rng.vm.core.dma_off);
	assert_true(x->rng.vm.core.queues[0].held);
}

/* An MSI-X message is a memory write: pending while BME is clear. */
static void test_bus_master_msix(void **state)
{
	struct fx *x = *state;
	uint32_t id, len;

	cfg_wr(x, VIRTIO_PCI_CAP_MSIX + 2, 2, PCI_MSIX_FLAGS_ENABLE);
	msix_entry(x, 0, 0x28000000, 7, false);
	msix_entry(x, 1, 0x28001000, 8, false);
	pci_driver_up(x);
	bar_wr(x, VIRTIO_PCI_MSIX_CONFIG, 2, 0);
	bar_wr(x, VIRTIO_PCI_Q_SELECT, 2, 0);
	bar_wr(x, VIRTIO_PCI_Q_MSIX, 2, 1);
	bme(x, false);
	rng_request(x);
	virtio_core_lock(&x->rng.vm.core);
	virtio_core_config_changed_locked(&x->rng.vm.core);
	virtio_core_unlock(&x->rng.vm.core);
	assert_int_equal(x->msgs, 0);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_MSIX_PBA, 4), 1);
	assert_false(vqm_get_used(&x->m, &id, &len));
	bme(x, true);
	assert_true(vqm_get_used(&x->m, &id, &len));
	assert_int_equal(x->msgs, 2); /* the config's, then the queue's */
	assert_int_equal(x->msg_data, 8);
	assert_int_equal(bar_rd(x, VIRTIO_PCI_MSIX_PBA, 4), 0);
}

static void hook_count(void *opaque)
{
	((struct fx *)opaque)->hooked++;
}

static enum virtio_pci_qmsi qmsi(struct fx *x, unsigned int q, uint64_t *a,
				 uint32_t *d)
{
	enum virtio_pci_qmsi r;

	virtio_core_lock(&x->rng.vm.core);
	r = virtio_pci_queue_msi(&x->vp, q, a, d);
	virtio_core_unlock(&x->rng.vm.core);
	return r;
}

/*
 * Where a queue's interrupt may go straight to (a vhost irqfd's route),
 * and the hook told of every change that decides it.
 */
static void test_queue_msi(void **state)
{
	struct fx *x = *state;
	const struct virtio_pci_msix_hook hook = { hook_count, x };
	uint64_t a = 0;
	uint32_t d = 0;
	unsigned int n;

	virtio_pci_set_msix_hook(&x->vp, &hook);
	assert_int_equal(qmsi(x, 0, &a, &d), VIRTIO_PCI_QMSI_OFF);
	n = x->hooked;
	msix_entry(x, 0, 0x28000000, 7, false);
	assert_true(x->hooked >= n + 3); /* address, data, control */
	n = x->hooked;
	cfg_wr(x, VIRTIO_PCI_CAP_MSIX + 2, 2, PCI_MSIX_FLAGS_ENABLE);
	assert_int_equal(x->hooked, n + 1);
	assert_int_equal(qmsi(x, 0, &a, &d), VIRTIO_PCI_QMSI_NO_VECTOR);
	bar_wr(x, VIRTIO_PCI_Q_SELECT, 2, 0);
	bar_wr(x, VIRTIO_PCI_Q_MSIX, 2, 0);
	assert_int_equal(x->hooked, n + 2);
	assert_int_equal(qmsi(x, 0, &a, &d), VIRTIO_PCI_QMSI_OK);
	assert_int_equal(a, 0x28000000);
	assert_int_equal(d, 7);
	/* No such queue, a vector beyond the table: none. */
	assert_int_equal(qmsi(x, 9, &a, &d), VIRTIO_PCI_QMSI_NO_VECTOR);
	assert_int_equal(qmsi(x, 0xffff, &a, &d), VIRTIO_PCI_QMSI_NO_VECTOR);
	bar_wr(x, VIRTIO_PCI_Q_MSIX, 2, 5);
	assert_int_equal(qmsi(x, 0, &a, &d), VIRTIO_PCI_QMSI_NO_VECTOR);
	bar_wr(x, VIRTIO_PCI_Q_MSIX, 2, 0);
	/* The entry masked, the function masked, no bus mastering. */
	bar_wr(x, VIRTIO_PCI_MSIX_TABLE + 12, 4, 1);
	assert_int_equal(qmsi(x, 0, &a, &d), VIRTIO_PCI_QMSI_MASKED);
	bar_wr(x, VIRTIO_PCI_MSIX_TABLE + 12, 4, 0);
	cfg_wr(x, VIRTIO_PCI_CAP_MSIX + 2, 2,
	       PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
	assert_int_equal(qmsi(x, 0, &a, &d), VIRTIO_PCI_QMSI_MASKED);
	cfg_wr(x, VIRTIO_PCI_CAP_MSIX + 2, 2, PCI_MSIX_FLAGS_ENABLE);
	n = x->hooked;
	bme(x, false);
	assert_int_equal(x->hooked, n + 1);
	assert_int_equal(qmsi(x, 0, &a, &d), VIRTIO_PCI_QMSI_MASKED);
	bme(x, true);
	assert_int_equal(qmsi(x, 0, &a, &d), VIRTIO_PCI_QMSI_OK);
	/* A rewritten message is the new one. */
	bar_wr(x, VIRTIO_PCI_MSIX_TABLE + 8, 4, 9);
	assert_int_equal(qmsi(x, 0, &a, &d), VIRTIO_PCI_QMSI_OK);
	assert_int_equal(d, 9);
	/* A function reset: MSI-X off, and the hook told. */
	n = x->hooked;
	x->vp.func.ops->reset(&x->vp);
	assert_int_equal(x->hooked, n + 1);
	assert_int_equal(qmsi(x, 0, &a, &d), VIRTIO_PCI_QMSI_OFF);
}

/* Without a message sink (no AIA): no MSI-X at all. */
static void test_queue_msi_none(void **state)
{
	struct fx *x = *state;
	uint64_t a;
	uint32_t d;

	assert_int_equal(qmsi(x, 0, &a, &d), VIRTIO_PCI_QMSI_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_capabilities, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_request_and_isr, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_same_core_both_transports,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_pci_cfg_access, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hostile_accesses, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hostile_accesses,
						setup_msix, teardown),
		cmocka_unit_test_setup_teardown(test_request_and_isr,
						setup_msix, teardown),
		cmocka_unit_test_setup_teardown(test_msix_capability,
						setup_msix, teardown),
		cmocka_unit_test_setup_teardown(test_msix_vectors_and_masks,
						setup_msix, teardown),
		cmocka_unit_test_setup_teardown(test_msix_config_vector,
						setup_msix, teardown),
		cmocka_unit_test_setup_teardown(test_bus_master_gate, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bus_master_gate,
						setup_msix, teardown),
		cmocka_unit_test_setup_teardown(test_bus_master_off_at_power_on,
						setup_nobme, teardown),
		cmocka_unit_test_setup_teardown(test_bus_master_msix,
						setup_msix, teardown),
		cmocka_unit_test_setup_teardown(test_queue_msi, setup_msix,
						teardown),
		cmocka_unit_test_setup_teardown(test_queue_msi_none, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
