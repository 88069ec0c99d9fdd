// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <cmocka.h>

#include "virtio/mmio.h"
#include "virtio/net.h"
#include "lib/log.h"
#include "tests/unit/virtq_mock.h"
#include "slot_res.h"

#define RAM_SIZE (2 * 1024 * 1024)
#define NUM 64
#define HDR VIRTIO_NET_HDR_SIZE
#define UNTOUCHED 0xee

#define ACK VIRTIO_STATUS_ACKNOWLEDGE
#define DRV VIRTIO_STATUS_DRIVER
#define FOK VIRTIO_STATUS_FEATURES_OK
#define DOK VIRTIO_STATUS_DRIVER_OK
#define V1 VIRTIO_BIT(VIRTIO_F_VERSION_1)
#define EVENT_IDX VIRTIO_BIT(VIRTIO_F_EVENT_IDX)
#define INDIRECT VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC)
#define F(n) VIRTIO_BIT(VIRTIO_NET_F_##n)
#define BASIC (V1 | F(MAC) | F(STATUS))
#define RXQ VIRTIO_NET_RXQ
#define TXQ VIRTIO_NET_TXQ

static const uint8_t test_mac[6] = { 0x02, 0x15, 0x15, 0x15, 0x15, 0x15 };

/*
 * Two queues in one guest RAM: rx owns the RAM and hands out every buffer;
 * tx's rings live in rx's heap (tx never allocates).
 */
struct fix {
	struct vqm rx, tx;
	struct virtio_net net;
	int level;
	unsigned int edges;
	/* the recording backend */
	uint8_t *sent;
	size_t sent_len;
	unsigned int tx_calls, rx_ready_calls, offload_calls;
	int tx_ret;
	uint64_t offloads;
	/* a ring backend (vhost-net) */
	unsigned int starts, stops, kicks[2], dmas;
	uint64_t start_features;
	int start_ret;
	bool dma_on;
	const uint8_t *pending; /* delivered from rx_ready when set */
	size_t pending_len;
	int pending_ret;
};

/* --- the backend --------------------------------------------------------- */

static int be_tx(void *opaque, const void *buf, size_t len)
{
	struct fix *f = opaque;

	assert_true(len >= HDR && len <= VIRTIO_NET_FRAME_MAX);
	f->tx_calls++;
	memcpy(f->sent, buf, len);
	f->sent_len = len;
	return f->tx_ret;
}

static void be_rx_ready(void *opaque)
{
	struct fix *f = opaque;

	f->rx_ready_calls++;
	if (f->pending) {
		/* runs with the transport lock held: the _locked variant */
		f->pending_ret = virtio_net_receive_locked(&f->net, f->pending,
							   f->pending_len);
		if (f->pending_ret != -EAGAIN)
			f->pending = NULL;
	}
}

static int be_set_offloads(void *opaque, uint64_t features)
{
	struct fix *f = opaque;

	f->offload_calls++;
	f->offloads = features;
	return 0;
}

static const struct virtio_net_backend_ops be_ops = {
	.tx = be_tx,
	.rx_ready = be_rx_ready,
	.set_offloads = be_set_offloads,
};

static const struct virtio_net_backend_ops be_ops_tx_only = {
	.tx = be_tx,
};

static int be_start(void *opaque, uint64_t features)
{
	struct fix *f = opaque;

	f->starts++;
	f->start_features = features;
	return f->start_ret;
}

static void be_stop(void *opaque)
{
	((struct fix *)opaque)->stops++;
}

static void be_kick(void *opaque, unsigned int q)
{
	assert_true(q < 2);
	((struct fix *)opaque)->kicks[q]++;
}

static void be_dma(void *opaque, bool on)
{
	struct fix *f = opaque;

	f->dmas++;
	f->dma_on = on;
}

/* vhost-net: the rings served elsewhere, offloads into the tap. */
static const struct virtio_net_backend_ops be_ops_rings = {
	.set_offloads = be_set_offloads,
	.start = be_start,
	.stop = be_stop,
	.kick = be_kick,
	.dma = be_dma,
};

/* --- fixtures ------------------------------------------------------------ */

static void fix_irq_set(void *opaque, int level)
{
	struct fix *f = opaque;

	f->level = level;
	f->edges++;
}

static int fix_setup_no(void **state, const struct virtio_net_backend_ops *ops,
			bool offloads, uint64_t no_features)
{
	struct fix *f = calloc(1, sizeof(*f));
	const struct irq_line irq = { .set = fix_irq_set, .opaque = f };
	struct virtio_net_backend be = { .ops = ops,
					 .offloads = offloads,
					 .no_features = no_features };

	log_level = -1;
	if (!f)
		return -1;
	f->sent = malloc(VIRTIO_NET_FRAME_MAX);
	if (!f->sent)
		return -1;
	vqm_init(&f->rx, RAM_SIZE, NUM);
	/* tx's rings in rx's heap; tx's heap at the end of RAM: unused */
	vqm_init_in(&f->tx, &f->rx, NUM, 4096, 4096,
		    f->rx.mem.base + f->rx.mem.size);
	be.opaque = f;
	memcpy(be.mac, test_mac, sizeof(test_mac));
	if (virtio_net_init(&f->net, &SLOT_RES(2), &f->rx.mem, &irq, &be))
		return -1;
	*state = f;
	return 0;
}

static int fix_setup(void **state, const struct virtio_net_backend_ops *ops,
		     bool offloads)
{
	return fix_setup_no(state, ops, offloads, 0);
}

/* A kernel without MRG_RXBUF: the device must not offer it. */
static int setup_rings(void **state)
{
	return fix_setup_no(state, &be_ops_rings, true, F(MRG_RXBUF));
}

static int setup(void **state)
{
	return fix_setup(state, &be_ops, false);
}

static int setup_offloads(void **state)
{
	return fix_setup(state, &be_ops, true);
}

static int setup_tx_only(void **state)
{
	return fix_setup(state, &be_ops_tx_only, false);
}

static int teardown(void **state)
{
	struct fix *f = *state;

	virtio_net_destroy(&f->net);
	vqm_free(&f->rx);
	free(f->sent);
	free(f);
	return 0;
}

/* --- the driver's side --------------------------------------------------- */

static uint32_t rd_n(struct fix *f, uint64_t off, unsigned int len)
{
	return vqm_mmio_rd_n(&f->net.vm, off, len);
}

static uint32_t rd(struct fix *f, uint64_t off)
{
	return vqm_mmio_rd(&f->net.vm, off);
}

static void wr(struct fix *f, uint64_t off, uint32_t v)
{
	vqm_mmio_wr(&f->net.vm, off, v);
}

static void queue_up(struct fix *f, unsigned int q, const struct vqm *m)
{
	assert_int_equal(vqm_mmio_queue(&f->net.vm, q, m), 1);
}

/* §3.1.1 up to FEATURES_OK; returns the status read back. */
static uint32_t driver_features(struct fix *f, uint64_t features)
{
	return vqm_mmio_negotiate(&f->net.vm, features);
}

/* Reset, negotiate, both queues on the mock's rings, DRIVER_OK. */
static void driver_up(struct fix *f, uint64_t features)
{
	assert_int_equal(driver_features(f, features), ACK | DRV | FOK);
	queue_up(f, RXQ, &f->rx);
	queue_up(f, TXQ, &f->tx);
	assert_int_equal(vqm_mmio_driver_ok(&f->net.vm), ACK | DRV | FOK | DOK);
}

static uint8_t *P(struct fix *f, struct vqm_buf b)
{
	return vqm_ptr(&f->rx, b.gpa, b.len ? b.len : 1);
}

static struct vqm_buf ro_buf(struct fix *f, const void *p, uint32_t len)
{
	struct vqm_buf b = vqm_buf_new(&f->rx, len, false, 0);

	memcpy(P(f, b), p, len);
	return b;
}

static struct vqm_buf wbuf(struct fix *f, uint32_t len)
{
	return vqm_buf_new(&f->rx, len, true, UNTOUCHED);
}

/* A frame: header (flags, gso, num_buffers garbage) and a pattern. */
static uint8_t *frame_new(size_t len, uint8_t flags, uint8_t gso, int seed)
{
	uint8_t *p = malloc(len);

	assert_non_null(p);
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + seed + (i >> 8));
	if (len >= HDR) {
		p[VIRTIO_NET_HDR_FLAGS] = flags;
		p[VIRTIO_NET_HDR_GSO_TYPE] = gso;
		mmio_data_put(p + VIRTIO_NET_HDR_NUM_BUFFERS, 2, 0xbeef);
	}
	return p;
}

static uint16_t num_buffers(const uint8_t *hdr)
{
	return mmio_data_get(hdr + VIRTIO_NET_HDR_NUM_BUFFERS, 2);
}

/* Add one tx chain, notify, check it came back with used len 0. */
static void tx_run(struct fix *f, const struct vqm_buf *bufs, unsigned int n)
{
	uint16_t head = vqm_add(&f->tx, bufs, n);
	uint32_t id, len;

	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_true(vqm_get_used(&f->tx, &id, &len));
	assert_int_equal(id, head);
	assert_int_equal(len, 0);
	assert_false(vqm_get_used(&f->tx, &id, &len));
}

/* Add a one-buffer rx chain of len writable bytes. */
static struct vqm_buf rx_add(struct fix *f, uint32_t len, uint16_t *head)
{
	struct vqm_buf b = wbuf(f, len);
	uint16_t h = vqm_add(&f->rx, &b, 1);

	if (head)
		*head = h;
	return b;
}

/* --- identity, configuration, features ----------------------------------- */

static void test_identity(void **state)
{
	struct fix *f = *state;

	assert_int_equal(rd(f, VIRTIO_MMIO_MAGIC_VALUE), VIRTIO_MMIO_MAGIC);
	assert_int_equal(rd(f, VIRTIO_MMIO_DEVICE_ID), 1);
	for (unsigned int q = 0; q < 2; q++) {
		wr(f, VIRTIO_MMIO_QUEUE_SEL, q);
		assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_NUM_MAX), 256);
	}
	wr(f, VIRTIO_MMIO_QUEUE_SEL, 2); /* no control queue */
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_NUM_MAX), 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_DEVICE_FEATURES),
			 (1u << 5) | (1u << 15) | (1u << 16) | (1u << 28) |
				 (1u << 29));
	wr(f, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 1);
	assert_int_equal(rd(f, VIRTIO_MMIO_DEVICE_FEATURES), 1);
	assert_int_equal(f->net.vm.res.base, 0x10003000);
	assert_int_equal(f->net.vm.res.irq, 3);
}

static void test_config_space(void **state)
{
	struct fix *f = *state;

	for (unsigned int i = 0; i < 6; i++)
		assert_int_equal(rd_n(f, VIRTIO_MMIO_CONFIG + i, 1),
				 test_mac[i]);
	assert_int_equal(rd(f, VIRTIO_MMIO_CONFIG), 0x15151502);
	assert_int_equal(rd_n(f, VIRTIO_MMIO_CONFIG + 4, 2), 0x1515);
	assert_int_equal(rd_n(f, VIRTIO_MMIO_CONFIG + 6, 2),
			 VIRTIO_NET_S_LINK_UP);
	assert_int_equal(rd_n(f, VIRTIO_MMIO_CONFIG + 8, 2), 1);
	assert_int_equal(rd(f, VIRTIO_MMIO_CONFIG + 4), 0x00011515);
	assert_int_equal(rd_n(f, VIRTIO_MMIO_CONFIG + 9, 1), 0);
	/* past the end (10 bytes): zeros */
	assert_int_equal(rd_n(f, VIRTIO_MMIO_CONFIG + 10, 2), 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_CONFIG + 8), 0);
	/* read-only */
	wr(f, VIRTIO_MMIO_CONFIG, 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_CONFIG), 0x15151502);
	/* the same after the driver is up */
	driver_up(f, BASIC);
	assert_int_equal(rd_n(f, VIRTIO_MMIO_CONFIG + 6, 2), 1);
}

/*
 * The backend reports the link down (passt died) and up again: the status
 * follows, the configuration generation moves, and a running driver gets
 * a configuration change interrupt; before DRIVER_OK only the status.
 */
static void test_link_state(void **state)
{
	struct fix *f = *state;
	uint32_t gen = rd(f, VIRTIO_MMIO_CONFIG_GENERATION);

	virtio_net_set_link(&f->net, false);
	assert_int_equal(rd_n(f, VIRTIO_MMIO_CONFIG + 6, 2), 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 0);
	assert_int_not_equal(rd(f, VIRTIO_MMIO_CONFIG_GENERATION), gen);
	virtio_net_set_link(&f->net, true);
	driver_up(f, BASIC);
	assert_int_equal(rd_n(f, VIRTIO_MMIO_CONFIG + 6, 2),
			 VIRTIO_NET_S_LINK_UP);
	gen = rd(f, VIRTIO_MMIO_CONFIG_GENERATION);
	virtio_net_set_link(&f->net, false);
	assert_int_equal(rd_n(f, VIRTIO_MMIO_CONFIG + 6, 2), 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS),
			 VIRTIO_MMIO_INT_CONFIG);
	assert_int_equal(f->level, 1);
	assert_int_not_equal(rd(f, VIRTIO_MMIO_CONFIG_GENERATION), gen);
	wr(f, VIRTIO_MMIO_INTERRUPT_ACK, VIRTIO_MMIO_INT_CONFIG);
	assert_int_equal(f->level, 0);
	/* A device reset keeps the link as the backend last said. */
	wr(f, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(rd_n(f, VIRTIO_MMIO_CONFIG + 6, 2), 0);
}

static void test_offloads_not_offered(void **state)
{
	struct fix *f = *state;

	/* a backend without offloads: the guest cannot have them */
	assert_int_equal(driver_features(f, BASIC | F(CSUM)), ACK | DRV);
	assert_int_equal(driver_features(f, BASIC | F(GUEST_TSO4)), ACK | DRV);
	assert_int_equal(f->offload_calls, 0); /* refused: never asked */
	/* set_offloads still tells the backend the (offload-free) features */
	assert_int_equal(driver_features(f, BASIC | F(MRG_RXBUF)),
			 ACK | DRV | FOK);
	assert_int_equal(f->offload_calls, 1);
	assert_int_equal(f->offloads, BASIC | F(MRG_RXBUF));
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_int_equal(f->offload_calls, 1);
	/* nothing to undo on reset */
	wr(f, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(f->offload_calls, 1);
}

static void test_offloads_negotiated(void **state)
{
	struct fix *f = *state;
	const uint64_t want = BASIC | F(MRG_RXBUF) | F(CSUM) | F(GUEST_CSUM) |
			      F(GUEST_TSO4) | F(HOST_TSO4);
	uint8_t *fr = frame_new(100, 0, 0, 1);

	assert_int_equal(rd(f, VIRTIO_MMIO_DEVICE_FEATURES),
			 (1u << 0) | (1u << 1) | (1u << 5) | (1u << 7) |
				 (1u << 8) | (1u << 9) | (1u << 11) |
				 (1u << 12) | (1u << 13) | (1u << 15) |
				 (1u << 16) | (1u << 28) | (1u << 29));
	assert_int_equal(driver_features(f, want | F(GUEST_UFO)), ACK | DRV);
	assert_int_equal(f->offload_calls, 0);
	/* applied at FEATURES_OK, before any packet */
	assert_int_equal(driver_features(f, want), ACK | DRV | FOK);
	assert_int_equal(f->offload_calls, 1);
	assert_int_equal(f->offloads, want);
	/* FEATURES_OK written again (already set): not applied twice */
	wr(f, VIRTIO_MMIO_STATUS, ACK | DRV | FOK);
	assert_int_equal(f->offload_calls, 1);
	queue_up(f, RXQ, &f->rx);
	queue_up(f, TXQ, &f->tx);
	assert_int_equal(vqm_mmio_driver_ok(&f->net.vm), ACK | DRV | FOK | DOK);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, RXQ);
	assert_int_equal(f->offload_calls, 1);
	assert_int_equal(f->rx_ready_calls, 1);
	/* once per negotiation */
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_int_equal(virtio_net_receive(&f->net, fr, 100), -EAGAIN);
	assert_int_equal(f->offload_calls, 1);
	/* a reset clears them in the backend */
	wr(f, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(f->offload_calls, 2);
	assert_int_equal(f->offloads, 0);
	/* renegotiated without */
	memset(f->rx.mem.host, 0, 4096 * 2); /* fresh rings */
	f->rx.avail_idx = f->rx.last_used = f->rx.next_desc = 0;
	driver_up(f, BASIC | F(CSUM));
	assert_int_equal(f->offload_calls, 3);
	assert_int_equal(virtio_net_receive(&f->net, fr, 100), -EAGAIN);
	assert_int_equal(f->offload_calls, 3);
	assert_int_equal(f->offloads, BASIC | F(CSUM));
	wr(f, VIRTIO_MMIO_STATUS, 0); /* no GUEST_* bits: nothing to undo */
	assert_int_equal(f->offload_calls, 3);
	free(fr);
}

static void test_init_errors(void **state)
{
	static const struct virtio_net_backend_ops no_tx = { 0 };
	struct guest_mem mem = { .base = VQM_RAM_BASE, .size = 4096 };
	struct virtio_net_backend be = { .ops = &be_ops_tx_only };
	struct virtio_net net;

	(void)state;
	mem.host = calloc(1, 4096);
	assert_non_null(mem.host);
	assert_int_equal(virtio_net_init(&net, &SLOT_RES(0), &mem, NULL, NULL),
			 -EINVAL);
	be.offloads = true; /* offloads need set_offloads */
	assert_int_equal(virtio_net_init(&net, &SLOT_RES(0), &mem, NULL, &be),
			 -EINVAL);
	be.offloads = false;
	be.ops = &no_tx;
	assert_int_equal(virtio_net_init(&net, &SLOT_RES(0), &mem, NULL, &be),
			 -EINVAL);
	be.ops = NULL;
	assert_int_equal(virtio_net_init(&net, &SLOT_RES(0), &mem, NULL, &be),
			 -EINVAL);
	be.ops = &be_ops_tx_only;
	assert_int_equal(virtio_net_init(&net, NULL, &mem, NULL, &be), -EINVAL);
	assert_int_equal(virtio_net_init(&net, &SLOT_RES(0), &mem, NULL, &be),
			 0);
	virtio_net_destroy(&net);
	free(mem.host);
}

/* --- transmit ------------------------------------------------------------ */

static void test_tx_single(void **state)
{
	struct fix *f = *state;
	uint8_t *fr = frame_new(HDR + 60, 0, 0, 3);
	struct vqm_buf b;

	driver_up(f, BASIC);
	b = ro_buf(f, fr, HDR + 60);
	tx_run(f, &b, 1);
	assert_int_equal(f->tx_calls, 1);
	assert_int_equal(f->sent_len, HDR + 60);
	/* passed through unchanged, header included */
	assert_memory_equal(f->sent, fr, HDR + 60);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 1);
	assert_int_equal(f->level, 1);
	assert_int_equal(f->net.stats.tx_packets, 1);
	assert_int_equal(f->net.stats.tx_bytes, 60);
	assert_int_equal(f->net.stats.tx_dropped, 0);
	/* the smallest packet: a bare header */
	b = ro_buf(f, fr, HDR);
	tx_run(f, &b, 1);
	assert_int_equal(f->tx_calls, 2);
	assert_int_equal(f->sent_len, HDR);
	free(fr);
}

static void test_tx_multi_segment(void **state)
{
	struct fix *f = *state;
	const size_t len = HDR + 3000;
	uint8_t *fr = frame_new(len, 1, 0, 5);
	struct vqm_buf b[5];
	uint16_t head;
	uint32_t id, ulen;

	driver_up(f, BASIC | INDIRECT);
	/* header split in two, packet in three odd pieces */
	b[0] = ro_buf(f, fr, 5);
	b[1] = ro_buf(f, fr + 5, 7);
	b[2] = ro_buf(f, fr + 12, 1);
	b[3] = ro_buf(f, fr + 13, 2000);
	b[4] = ro_buf(f, fr + 2013, len - 2013);
	tx_run(f, b, 5);
	assert_int_equal(f->sent_len, len);
	assert_memory_equal(f->sent, fr, len);
	/* the same through an indirect table */
	memset(f->sent, 0, len);
	head = f->tx.next_desc;
	vqm_set_desc(&f->tx, head, vqm_table(&f->rx, b, 5), 5 * VIRTQ_DESC_SIZE,
		     VIRTQ_DESC_F_INDIRECT, 0);
	f->tx.next_desc++;
	vqm_publish(&f->tx, head);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_true(vqm_get_used(&f->tx, &id, &ulen));
	assert_int_equal(id, head);
	assert_int_equal(f->tx_calls, 2);
	assert_memory_equal(f->sent, fr, len);
	free(fr);
}

static void test_tx_bounds(void **state)
{
	struct fix *f = *state;
	const size_t max = VIRTIO_NET_FRAME_MAX;
	uint8_t *fr = frame_new(max + 1, 0, 0, 9);
	struct vqm_buf b[2];

	driver_up(f, BASIC);
	/* shorter than the header: dropped, chain returned */
	b[0] = ro_buf(f, fr, HDR - 1);
	tx_run(f, b, 1);
	assert_int_equal(f->tx_calls, 0);
	/* empty chain (only a writable buffer) */
	b[0] = wbuf(f, 100);
	tx_run(f, b, 1);
	assert_int_equal(f->tx_calls, 0);
	/* one byte too long, in two pieces */
	b[0] = ro_buf(f, fr, 40000);
	b[1] = ro_buf(f, fr + 40000, max + 1 - 40000);
	tx_run(f, b, 2);
	assert_int_equal(f->tx_calls, 0);
	assert_int_equal(f->net.stats.tx_dropped, 3);
	/* exactly the maximum goes through */
	b[1].len--;
	tx_run(f, b, 2);
	assert_int_equal(f->tx_calls, 1);
	assert_int_equal(f->sent_len, max);
	assert_memory_equal(f->sent, fr, max);
	assert_int_equal(f->net.stats.tx_packets, 1);
	assert_int_equal(f->net.stats.tx_bytes, max - HDR);
	free(fr);
}

static void test_tx_backend_error(void **state)
{
	struct fix *f = *state;
	uint8_t *fr = frame_new(HDR + 10, 0, 0, 2);
	struct vqm_buf b;

	driver_up(f, BASIC);
	b = ro_buf(f, fr, HDR + 10);
	f->tx_ret = -EAGAIN;
	tx_run(f, &b, 1); /* dropped, chain still returned */
	f->tx_ret = -EIO;
	tx_run(f, &b, 1);
	assert_int_equal(f->tx_calls, 2);
	assert_int_equal(f->net.stats.tx_dropped, 2);
	assert_int_equal(f->net.stats.tx_packets, 0);
	f->tx_ret = 0;
	tx_run(f, &b, 1);
	assert_int_equal(f->net.stats.tx_packets, 1);
	free(fr);
}

/* Several chains per notification: one interrupt; suppression honoured. */
static void test_tx_batch_interrupt(void **state)
{
	struct fix *f = *state;
	uint8_t *fr = frame_new(HDR + 20, 0, 0, 4);
	struct vqm_buf b;
	uint32_t id, len;

	driver_up(f, BASIC);
	for (int i = 0; i < 3; i++) {
		b = ro_buf(f, fr, HDR + 20);
		vqm_add(&f->tx, &b, 1);
	}
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_int_equal(f->tx_calls, 3);
	assert_int_equal(vqm_used_idx(&f->tx), 3);
	assert_int_equal(f->edges, 1);
	assert_int_equal(f->level, 1);
	wr(f, VIRTIO_MMIO_INTERRUPT_ACK, 1);
	assert_int_equal(f->level, 0);
	/* the driver asks for no interrupts */
	vqm_set_avail_flags(&f->tx, VIRTQ_AVAIL_F_NO_INTERRUPT);
	vqm_add(&f->tx, &b, 1);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_int_equal(f->tx_calls, 4);
	assert_int_equal(f->level, 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 0);
	for (int i = 0; i < 4; i++)
		assert_true(vqm_get_used(&f->tx, &id, &len));
	free(fr);
}

/* --- receive ------------------------------------------------------------- */

static void test_rx_single_buffer(void **state)
{
	struct fix *f = *state;
	const size_t len = HDR + 1000;
	uint8_t *fr = frame_new(len, 0, 0, 11);
	struct vqm_buf b;
	uint16_t head;
	uint32_t id, ulen;
	uint8_t *p;

	driver_up(f, BASIC);
	b = rx_add(f, 2048, &head);
	assert_int_equal(virtio_net_receive(&f->net, fr, len), 0);
	assert_true(vqm_get_used(&f->rx, &id, &ulen));
	assert_int_equal(id, head);
	assert_int_equal(ulen, len);
	p = P(f, b);
	assert_int_equal(num_buffers(p), 1); /* always 1 without MRG_RXBUF */
	assert_memory_equal(p, fr, VIRTIO_NET_HDR_NUM_BUFFERS);
	assert_memory_equal(p + HDR, fr + HDR, len - HDR);
	for (size_t i = len; i < 2048; i++)
		assert_int_equal(p[i], UNTOUCHED);
	assert_int_equal(f->level, 1);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 1);
	assert_int_equal(f->net.stats.rx_packets, 1);
	assert_int_equal(f->net.stats.rx_bytes, 1000);
	free(fr);
}

/* Without MRG_RXBUF a chain may still have several descriptors. */
static void test_rx_single_chain_segments(void **state)
{
	struct fix *f = *state;
	const size_t len = HDR + 1500;
	uint8_t *fr = frame_new(len, 0, 0, 12);
	struct vqm_buf b[2];
	uint32_t id, ulen;

	driver_up(f, BASIC);
	b[0] = wbuf(f, HDR);
	b[1] = wbuf(f, 1514);
	vqm_add(&f->rx, b, 2);
	assert_int_equal(virtio_net_receive(&f->net, fr, len), 0);
	assert_true(vqm_get_used(&f->rx, &id, &ulen));
	assert_int_equal(ulen, len);
	assert_int_equal(num_buffers(P(f, b[0])), 1);
	assert_memory_equal(P(f, b[1]), fr + HDR, 1500);
	assert_int_equal(P(f, b[1])[1500], UNTOUCHED);
	free(fr);
}

static void test_rx_chain_too_small(void **state)
{
	struct fix *f = *state;
	uint8_t *big = frame_new(HDR + 200, 0, 0, 13);
	uint8_t *fits = frame_new(HDR + 100, 0, 0, 14);
	struct vqm_buf b;
	uint16_t head;
	uint32_t id, ulen;

	driver_up(f, BASIC);
	b = rx_add(f, HDR + 150, &head);
	/* dropped; the chain stays with the device for the next frame */
	assert_int_equal(virtio_net_receive(&f->net, big, HDR + 200),
			 -EMSGSIZE);
	assert_int_equal(vqm_used_idx(&f->rx), 0);
	assert_int_equal(P(f, b)[0], UNTOUCHED);
	assert_int_equal(f->level, 0);
	assert_int_equal(f->net.stats.rx_dropped, 1);
	assert_int_equal(virtio_net_receive(&f->net, fits, HDR + 100), 0);
	assert_true(vqm_get_used(&f->rx, &id, &ulen));
	assert_int_equal(id, head);
	assert_int_equal(ulen, HDR + 100);
	assert_memory_equal(P(f, b) + HDR, fits + HDR, 100);
	free(big);
	free(fits);
}

static void test_rx_mergeable(void **state)
{
	struct fix *f = *state;
	const size_t len = 350;
	uint8_t *fr = frame_new(len, 0, 0, 15);
	struct vqm_buf b[5];
	uint16_t head[5];
	uint32_t id, ulen;
	uint8_t out[350];

	driver_up(f, BASIC | F(MRG_RXBUF));
	for (int i = 0; i < 5; i++)
		b[i] = rx_add(f, 100, &head[i]);
	assert_int_equal(virtio_net_receive(&f->net, fr, len), 0);
	/* four chains, published together, one interrupt */
	assert_int_equal(vqm_used_idx(&f->rx), 4);
	assert_int_equal(f->edges, 1);
	for (int i = 0; i < 4; i++) {
		assert_true(vqm_get_used(&f->rx, &id, &ulen));
		assert_int_equal(id, head[i]);
		assert_int_equal(ulen, i < 3 ? 100 : 50);
		memcpy(out + 100 * i, P(f, b[i]), ulen);
	}
	assert_int_equal(num_buffers(out), 4);
	assert_memory_equal(out, fr, VIRTIO_NET_HDR_NUM_BUFFERS);
	assert_memory_equal(out + HDR, fr + HDR, len - HDR);
	assert_int_equal(P(f, b[3])[50], UNTOUCHED);
	assert_int_equal(P(f, b[4])[0], UNTOUCHED);
	/* the fifth is still available: a small frame takes it alone */
	assert_int_equal(virtio_net_receive(&f->net, fr, 80), 0);
	assert_true(vqm_get_used(&f->rx, &id, &ulen));
	assert_int_equal(id, head[4]);
	assert_int_equal(ulen, 80);
	assert_int_equal(num_buffers(P(f, b[4])), 1);
	assert_memory_equal(P(f, b[4]) + HDR, fr + HDR, 80 - HDR);
	free(fr);
}

/* A full-size frame across many page-sized buffers. */
static void test_rx_mergeable_max(void **state)
{
	struct fix *f = *state;
	const size_t len = VIRTIO_NET_FRAME_MAX;
	const unsigned int n = (len + 4095) / 4096;
	uint8_t *fr = frame_new(len, 0, 0, 16);
	struct vqm_buf b[NUM];
	uint32_t id, ulen;
	size_t off = 0;

	driver_up(f, BASIC | F(MRG_RXBUF));
	for (unsigned int i = 0; i < n + 2; i++)
		b[i] = rx_add(f, 4096, NULL);
	assert_int_equal(virtio_net_receive(&f->net, fr, len), 0);
	assert_int_equal(num_buffers(P(f, b[0])), n);
	for (unsigned int i = 0; i < n; i++) {
		assert_true(vqm_get_used(&f->rx, &id, &ulen));
		assert_int_equal(ulen, i + 1 < n ? 4096 : len - 4096 * (n - 1));
		if (i == 0)
			assert_memory_equal(P(f, b[0]) + HDR, fr + HDR,
					    4096 - HDR);
		else
			assert_memory_equal(P(f, b[i]), fr + off, ulen);
		off += ulen;
	}
	assert_int_equal(off, len);
	assert_false(vqm_get_used(&f->rx, &id, &ulen));
	/* one byte more is refused before looking at the ring */
	assert_int_equal(virtio_net_receive(&f->net, fr, len + 1), -EMSGSIZE);
	assert_int_equal(virtio_net_receive(&f->net, fr, HDR - 1), -EMSGSIZE);
	assert_int_equal(virtio_net_receive(&f->net, fr, 0), -EMSGSIZE);
	assert_int_equal(vqm_used_idx(&f->rx), n);
	free(fr);
}

static void test_rx_no_buffers_retry(void **state)
{
	struct fix *f = *state;
	uint8_t *fr = frame_new(HDR + 64, 0, 0, 17);
	struct vqm_buf b;
	uint16_t head;
	uint32_t id, ulen;

	driver_up(f, BASIC);
	assert_int_equal(virtio_net_receive(&f->net, fr, HDR + 64), -EAGAIN);
	assert_int_equal(f->net.stats.rx_dropped, 0);
	assert_int_equal(f->level, 0);
	assert_int_equal(f->rx_ready_calls, 0);
	/* the guest adds a buffer and kicks: the backend hears of it */
	b = rx_add(f, 2048, &head);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, RXQ);
	assert_int_equal(f->rx_ready_calls, 1);
	assert_int_equal(vqm_used_idx(&f->rx), 0); /* kick alone: nothing */
	assert_int_equal(virtio_net_receive(&f->net, fr, HDR + 64), 0);
	assert_true(vqm_get_used(&f->rx, &id, &ulen));
	assert_int_equal(id, head);
	assert_int_equal(ulen, HDR + 64);
	assert_memory_equal(P(f, b) + HDR, fr + HDR, 64);
	free(fr);
}

/* rx_ready may deliver the held frame itself (lock already held). */
static void test_rx_retry_from_rx_ready(void **state)
{
	struct fix *f = *state;
	uint8_t *fr = frame_new(300, 0, 0, 18);
	struct vqm_buf b[3];
	uint16_t head[3];
	uint32_t id, ulen;

	driver_up(f, BASIC | F(MRG_RXBUF) | EVENT_IDX);
	b[0] = rx_add(f, 128, &head[0]);
	b[1] = rx_add(f, 128, &head[1]);
	/* 256 bytes of room for 300: nothing consumed */
	assert_int_equal(virtio_net_receive(&f->net, fr, 300), -EAGAIN);
	assert_int_equal(vqm_used_idx(&f->rx), 0);
	assert_int_equal(P(f, b[0])[0], UNTOUCHED);
	/* EVENT_IDX: the device asked to be kicked at the next buffer */
	assert_int_equal(vqm_avail_event(&f->rx), 2);
	f->pending = fr;
	f->pending_len = 300;
	b[2] = rx_add(f, 128, &head[2]);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, RXQ);
	assert_int_equal(f->rx_ready_calls, 1);
	assert_int_equal(f->pending_ret, 0);
	assert_null(f->pending);
	assert_int_equal(vqm_used_idx(&f->rx), 3);
	for (int i = 0; i < 3; i++) {
		assert_true(vqm_get_used(&f->rx, &id, &ulen));
		assert_int_equal(id, head[i]);
		assert_int_equal(ulen, i < 2 ? 128 : 300 - 256);
	}
	assert_int_equal(num_buffers(P(f, b[0])), 3);
	assert_memory_equal(P(f, b[1]), fr + 128, 128);
	assert_memory_equal(P(f, b[2]), fr + 256, 300 - 256);
	assert_int_equal(f->level, 1);
	free(fr);
}

/* Larger than every buffer the ring can hold: dropped, not -EAGAIN. */
static void test_rx_larger_than_ring(void **state)
{
	struct fix *f = *state;
	uint8_t *fr = frame_new(500, 0, 0, 19);
	uint16_t head[4];
	uint32_t id, ulen;

	f->rx.num = 4;
	driver_up(f, BASIC | F(MRG_RXBUF));
	for (int i = 0; i < 4; i++)
		rx_add(f, 100, &head[i]);
	assert_int_equal(virtio_net_receive(&f->net, fr, 500), -EMSGSIZE);
	assert_int_equal(vqm_used_idx(&f->rx), 0);
	assert_int_equal(f->net.stats.rx_dropped, 1);
	/* 3 of the 4 buffers are enough for 300 bytes */
	assert_int_equal(virtio_net_receive(&f->net, fr, 300), 0);
	assert_int_equal(vqm_used_idx(&f->rx), 3);
	for (int i = 0; i < 3; i++) {
		assert_true(vqm_get_used(&f->rx, &id, &ulen));
		assert_int_equal(id, head[i]);
	}
	/* 1 left, 3 with the driver: try later */
	assert_int_equal(virtio_net_receive(&f->net, fr, 300), -EAGAIN);
	free(fr);
}

static void test_rx_not_running(void **state)
{
	struct fix *f = *state;
	uint8_t *fr = frame_new(100, 0, 0, 20);

	assert_int_equal(virtio_net_receive(&f->net, fr, 100), -ENETDOWN);
	assert_int_equal(driver_features(f, BASIC), ACK | DRV | FOK);
	queue_up(f, RXQ, &f->rx);
	rx_add(f, 2048, NULL);
	/* queue ready, but no DRIVER_OK yet */
	assert_int_equal(virtio_net_receive(&f->net, fr, 100), -ENETDOWN);
	assert_int_equal(vqm_used_idx(&f->rx), 0);
	wr(f, VIRTIO_MMIO_STATUS, ACK | DRV | FOK | DOK);
	assert_int_equal(virtio_net_receive(&f->net, fr, 100), 0);
	assert_int_equal(f->net.stats.rx_dropped, 2);
	/* the tx queue was never set up: a kick is ignored */
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_int_equal(f->tx_calls, 0);
	free(fr);
}

static int rx_hdr(struct fix *f, uint8_t flags, uint8_t gso, uint8_t *out)
{
	uint8_t *fr = frame_new(HDR + 40, flags, gso, 21);
	struct vqm_buf b = rx_add(f, 256, NULL);
	uint32_t id, ulen;
	int ret = virtio_net_receive(&f->net, fr, HDR + 40);

	if (!ret) {
		assert_true(vqm_get_used(&f->rx, &id, &ulen));
		memcpy(out, P(f, b), HDR);
	}
	free(fr);
	return ret;
}

static void test_rx_header_no_offloads(void **state)
{
	struct fix *f = *state;
	uint8_t h[HDR];

	driver_up(f, BASIC);
	assert_int_equal(rx_hdr(f, 0, 0, h), 0);
	/* DATA_VALID and unknown flags are cleared without GUEST_CSUM */
	assert_int_equal(rx_hdr(f, VIRTIO_NET_HDR_F_DATA_VALID | 0x40, 0, h),
			 0);
	assert_int_equal(h[VIRTIO_NET_HDR_FLAGS], 0);
	assert_int_equal(rx_hdr(f, VIRTIO_NET_HDR_F_NEEDS_CSUM, 0, h), -EPROTO);
	assert_int_equal(rx_hdr(f, 0, VIRTIO_NET_HDR_GSO_TCPV4, h), -EPROTO);
	assert_int_equal(rx_hdr(f, 0, VIRTIO_NET_HDR_GSO_ECN, h), -EPROTO);
	assert_int_equal(f->net.stats.rx_dropped, 3);
}

static void test_rx_header_offloads(void **state)
{
	struct fix *f = *state;
	uint8_t h[HDR];

	driver_up(f, BASIC | F(GUEST_CSUM) | F(GUEST_TSO4));
	assert_int_equal(
		rx_hdr(f,
		       VIRTIO_NET_HDR_F_NEEDS_CSUM | VIRTIO_NET_HDR_F_RSC_INFO,
		       VIRTIO_NET_HDR_GSO_TCPV4, h),
		0);
	assert_int_equal(h[VIRTIO_NET_HDR_FLAGS], VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(h[VIRTIO_NET_HDR_GSO_TYPE], VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(rx_hdr(f, VIRTIO_NET_HDR_F_DATA_VALID, 0, h), 0);
	assert_int_equal(h[VIRTIO_NET_HDR_FLAGS], VIRTIO_NET_HDR_F_DATA_VALID);
	assert_int_equal(rx_hdr(f, 0, VIRTIO_NET_HDR_GSO_TCPV6, h), -EPROTO);
	assert_int_equal(rx_hdr(f, 0, VIRTIO_NET_HDR_GSO_UDP, h), -EPROTO);
	assert_int_equal(rx_hdr(f, 0, VIRTIO_NET_HDR_GSO_UDP_L4, h), -EPROTO);
	assert_int_equal(
		rx_hdr(f, 0, VIRTIO_NET_HDR_GSO_TCPV4 | VIRTIO_NET_HDR_GSO_ECN,
		       h),
		-EPROTO);
	assert_int_equal(f->offload_calls, 1);
}

static void test_rx_header_ecn(void **state)
{
	struct fix *f = *state;
	uint8_t h[HDR];

	driver_up(f, BASIC | F(GUEST_CSUM) | F(GUEST_TSO6) | F(GUEST_ECN));
	assert_int_equal(
		rx_hdr(f, 0, VIRTIO_NET_HDR_GSO_TCPV6 | VIRTIO_NET_HDR_GSO_ECN,
		       h),
		0);
	assert_int_equal(h[VIRTIO_NET_HDR_GSO_TYPE], 0x84);
	assert_int_equal(rx_hdr(f, 0, VIRTIO_NET_HDR_GSO_ECN, h), -EPROTO);
}

static void test_rx_interrupt_suppressed(void **state)
{
	struct fix *f = *state;
	uint8_t *fr = frame_new(100, 0, 0, 22);

	driver_up(f, BASIC);
	vqm_set_avail_flags(&f->rx, VIRTQ_AVAIL_F_NO_INTERRUPT);
	rx_add(f, 256, NULL);
	assert_int_equal(virtio_net_receive(&f->net, fr, 100), 0);
	assert_int_equal(vqm_used_idx(&f->rx), 1);
	assert_int_equal(f->level, 0);
	assert_int_equal(f->edges, 0);
	vqm_set_avail_flags(&f->rx, 0);
	rx_add(f, 256, NULL);
	assert_int_equal(virtio_net_receive(&f->net, fr, 100), 0);
	assert_int_equal(f->level, 1);
	free(fr);
}

/* A hostile rx ring: the device enters NEEDS_RESET, never crashes. */
static void test_rx_broken_ring(void **state)
{
	struct fix *f = *state;
	uint8_t *fr = frame_new(100, 0, 0, 23);

	driver_up(f, BASIC | F(MRG_RXBUF));
	vqm_publish(&f->rx, NUM + 5); /* head out of range */
	assert_int_equal(virtio_net_receive(&f->net, fr, 100), -EIO);
	assert_true(rd(f, VIRTIO_MMIO_STATUS) &
		    VIRTIO_STATUS_DEVICE_NEEDS_RESET);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS),
			 VIRTIO_MMIO_INT_CONFIG);
	assert_int_equal(virtio_net_receive(&f->net, fr, 100), -ENETDOWN);
	/* avail index far ahead */
	memset(f->rx.mem.host, 0, 8192);
	f->rx.avail_idx = f->rx.last_used = f->rx.next_desc = 0;
	driver_up(f, BASIC);
	vqm_set_avail_idx(&f->rx, NUM + 1);
	assert_int_equal(virtio_net_receive(&f->net, fr, 100), -EIO);
	assert_true(rd(f, VIRTIO_MMIO_STATUS) &
		    VIRTIO_STATUS_DEVICE_NEEDS_RESET);
	free(fr);
}

static void test_reset(void **state)
{
	struct fix *f = *state;
	uint8_t *fr = frame_new(HDR + 30, 0, 0, 24);
	struct vqm_buf b;
	uint32_t id, ulen;

	driver_up(f, BASIC | F(MRG_RXBUF));
	rx_add(f, 1024, NULL);
	b = ro_buf(f, fr, HDR + 30);
	tx_run(f, &b, 1);
	assert_int_equal(virtio_net_receive(&f->net, fr, HDR + 30), 0);
	assert_int_equal(f->level, 1);
	wr(f, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), 0);
	assert_int_equal(f->level, 0);
	assert_int_equal(virtio_net_receive(&f->net, fr, HDR + 30), -ENETDOWN);
	for (unsigned int q = 0; q < 2; q++) {
		wr(f, VIRTIO_MMIO_QUEUE_SEL, q);
		assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_READY), 0);
	}
	/* the bus reset (system reset) works the same */
	virtio_mmio_ops.reset(&f->net.vm);
	/* up again on fresh rings (tx's rings live in rx's heap) */
	memset(f->rx.mem.host, 0, 8192);
	memset(vqm_ptr(&f->rx, f->tx.desc, 1), 0,
	       f->tx.used + virtq_used_bytes(NUM) - f->tx.desc);
	f->rx.avail_idx = f->rx.last_used = f->rx.next_desc = 0;
	f->tx.avail_idx = f->tx.last_used = f->tx.next_desc = 0;
	driver_up(f, BASIC);
	rx_add(f, 1024, NULL);
	assert_int_equal(virtio_net_receive(&f->net, fr, HDR + 30), 0);
	assert_true(vqm_get_used(&f->rx, &id, &ulen));
	assert_int_equal(ulen, HDR + 30);
	b = ro_buf(f, fr, HDR + 30);
	tx_run(f, &b, 1);
	assert_int_equal(f->tx_calls, 2);
	assert_int_equal(f->net.stats.rx_packets, 2);
	free(fr);
}

/* No rx_ready/set_offloads: kicks on the rx queue are harmless. */
static void test_tx_only_backend(void **state)
{
	struct fix *f = *state;
	uint8_t *fr = frame_new(HDR + 30, 0, 0, 25);

	driver_up(f, BASIC);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, RXQ);
	rx_add(f, 1024, NULL);
	assert_int_equal(virtio_net_receive(&f->net, fr, HDR + 30), 0);
	wr(f, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(f->rx_ready_calls, 0);
	free(fr);
}

/* --- a ring backend (vhost-net) ------------------------------------------- */

static void set_dma(struct fix *f, bool on)
{
	virtio_mmio_lock(&f->net.vm);
	virtio_core_set_dma_locked(&f->net.vm.core, on);
	virtio_mmio_unlock(&f->net.vm);
}

/* Handed over at DRIVER_OK, kicked, taken back at each reset. */
static void test_rings_backend(void **state)
{
	struct fix *f = *state;
	const uint64_t want = BASIC | F(CSUM) | F(GUEST_CSUM) | EVENT_IDX;
	uint8_t *fr = frame_new(HDR + 30, 0, 0, 26);
	struct vqm_buf b;
	uint32_t id, len;

	/* Offloads offered (the tap does them), MRG_RXBUF not. */
	assert_false(rd(f, VIRTIO_MMIO_DEVICE_FEATURES) & F(MRG_RXBUF));
	assert_true(rd(f, VIRTIO_MMIO_DEVICE_FEATURES) & F(CSUM));
	assert_int_equal(driver_features(f, BASIC | F(MRG_RXBUF)), ACK | DRV);
	wr(f, VIRTIO_MMIO_STATUS, 0); /* nothing started: nothing stopped */
	assert_int_equal(f->stops, 0);
	for (int boot = 1; boot <= 3; boot++) {
		driver_up(f, want);
		assert_int_equal(f->starts, boot);
		assert_int_equal(f->start_features, want);
		assert_int_equal(f->offloads, want); /* the tap's too */
		/* Notifications go to the back-end; lkvm leaves the rings. */
		b = ro_buf(f, fr, HDR + 30);
		vqm_add(&f->tx, &b, 1);
		wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
		wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, RXQ);
		assert_int_equal(f->kicks[TXQ], boot);
		assert_int_equal(f->kicks[RXQ], boot);
		assert_int_equal(f->tx_calls, 0);
		assert_false(vqm_get_used(&f->tx, &id, &len));
		/* The reset (a guest reboot): the rings taken back. */
		wr(f, VIRTIO_MMIO_STATUS, 0);
		assert_int_equal(f->stops, boot);
		wr(f, VIRTIO_MMIO_STATUS, 0);
		assert_int_equal(f->stops, boot);
		memset(f->rx.mem.host, 0, 8192);
		memset(vqm_ptr(&f->rx, f->tx.desc, 1), 0,
		       f->tx.used + virtq_used_bytes(NUM) - f->tx.desc);
		f->rx.avail_idx = f->rx.last_used = f->rx.next_desc = 0;
		f->tx.avail_idx = f->tx.last_used = f->tx.next_desc = 0;
	}
	/* The bus reset stops it too. */
	driver_up(f, want);
	virtio_mmio_ops.reset(&f->net.vm);
	assert_int_equal(f->stops, 4);
	free(fr);
}

/* Bus mastering off and on reaches a started back-end only. */
static void test_rings_backend_dma(void **state)
{
	struct fix *f = *state;

	set_dma(f, false);
	set_dma(f, true);
	assert_int_equal(f->dmas, 0);
	driver_up(f, BASIC);
	set_dma(f, false);
	assert_int_equal(f->dmas, 1);
	assert_false(f->dma_on);
	/* Held off by the core: notifications reach nobody meanwhile. */
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_int_equal(f->kicks[TXQ], 0);
	set_dma(f, true);
	assert_int_equal(f->dmas, 2);
	assert_true(f->dma_on);
}

/* A back-end that fails to start: DEVICE_NEEDS_RESET, stopped at reset. */
static void test_rings_backend_fails(void **state)
{
	struct fix *f = *state;

	f->start_ret = -EIO;
	assert_int_equal(driver_features(f, BASIC), ACK | DRV | FOK);
	queue_up(f, RXQ, &f->rx);
	queue_up(f, TXQ, &f->tx);
	assert_true(vqm_mmio_driver_ok(&f->net.vm) &
		    VIRTIO_STATUS_DEVICE_NEEDS_RESET);
	assert_int_equal(f->starts, 1);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_int_equal(f->kicks[TXQ], 0);
	wr(f, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(f->stops, 1);
}

/* A ring backend needs start, stop and kick together. */
static void test_rings_backend_init(void **state)
{
	static const struct virtio_net_backend_ops no_stop = {
		.start = be_start,
		.kick = be_kick,
		.tx = be_tx,
	};
	struct guest_mem mem = { .base = VQM_RAM_BASE, .size = 4096 };
	struct virtio_net_backend be = { .ops = &no_stop };
	struct virtio_net net;

	(void)state;
	mem.host = calloc(1, 4096);
	assert_non_null(mem.host);
	assert_int_equal(virtio_net_init(&net, &SLOT_RES(0), &mem, NULL, &be),
			 -EINVAL);
	be.ops = &be_ops_rings;
	be.offloads = true;
	assert_int_equal(virtio_net_init(&net, &SLOT_RES(0), &mem, NULL, &be),
			 0);
	virtio_net_destroy(&net);
	free(mem.host);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
#define TR(fn) cmocka_unit_test_setup_teardown(fn, setup_rings, teardown)
#define TO(fn) cmocka_unit_test_setup_teardown(fn, setup_offloads, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_identity),
		T(test_config_space),
		T(test_link_state),
		T(test_offloads_not_offered),
		TO(test_offloads_negotiated),
		cmocka_unit_test(test_init_errors),
		T(test_tx_single),
		T(test_tx_multi_segment),
		T(test_tx_bounds),
		T(test_tx_backend_error),
		T(test_tx_batch_interrupt),
		T(test_rx_single_buffer),
		T(test_rx_single_chain_segments),
		T(test_rx_chain_too_small),
		T(test_rx_mergeable),
		T(test_rx_mergeable_max),
		T(test_rx_no_buffers_retry),
		T(test_rx_retry_from_rx_ready),
		T(test_rx_larger_than_ring),
		T(test_rx_not_running),
		T(test_rx_header_no_offloads),
		TO(test_rx_header_offloads),
		TO(test_rx_header_ecn),
		T(test_rx_interrupt_suppressed),
		T(test_rx_broken_ring),
		T(test_reset),
		cmocka_unit_test_setup_teardown(test_tx_only_backend,
						setup_tx_only, teardown),
		TR(test_rings_backend),
		TR(test_rings_backend_dma),
		TR(test_rings_backend_fails),
		cmocka_unit_test(test_rings_backend_init),
	};

	return cmocka_run_group_tests_name("virtio_net", tests, NULL, NULL);
}
