// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <cmocka.h>

#include "virtio/console.h"
#include "lib/log.h"
#include "tests/unit/virtq_mock.h"
#include "slot_res.h"

#define RAM_SIZE (1024 * 1024)
#define NUM 8
#define OUT_MAX (1024 * 1024)

/*
 * Two driver-side queues over one fake guest RAM: rx is the mock that owns
 * the RAM and allocates every buffer; tx shares the RAM, its rings come
 * from rx's heap and its own heap (indirect tables) from the upper half.
 */
struct cfx {
	struct vqm rx, tx;
	struct virtio_console con;
	uint8_t out[OUT_MAX];
	size_t out_len;
	unsigned int out_calls;
	size_t out_max_piece;
	size_t out_room; /* the output takes this much more, then refuses */
	unsigned int nr_edges;
	int level; /* after the last edge */
	unsigned int wakes;
	unsigned int rearms; /* the core asked for another pass */
};

/*
 * Called under the transport lock, possibly on the input thread: no
 * cmocka assertions here (they only work on the test's own thread).
 */
static void cfx_irq_set(void *opaque, int level)
{
	struct cfx *f = opaque;

	f->nr_edges++;
	f->level = level;
}

static int cfx_level(const struct cfx *f)
{
	return f->level;
}

static size_t cfx_out_write(void *opaque, const uint8_t *buf, size_t len)
{
	struct cfx *f = opaque;

	assert_true(len > 0 && len <= VIRTIO_CONSOLE_TX_PIECE);
	f->out_calls++;
	if (len > f->out_max_piece)
		f->out_max_piece = len;
	if (len > f->out_room)
		len = f->out_room; /* backed up: takes a part */
	assert_true(f->out_len + len <= OUT_MAX);
	memcpy(f->out + f->out_len, buf, len);
	f->out_len += len;
	f->out_room -= len;
	return len;
}

static void cfx_wake(void *opaque)
{
	struct cfx *f = opaque;

	f->wakes++;
}

static int setup(void **state)
{
	struct cfx *f = calloc(1, sizeof(*f));
	const struct irq_line irq = { .set = cfx_irq_set, .opaque = f };
	const struct char_out out = { .write = cfx_out_write, .opaque = f };

	log_level = -1;
	if (!f)
		return -1;
	f->out_room = SIZE_MAX;
	vqm_init(&f->rx, RAM_SIZE, NUM);
	/* the tx mock: rings in rx's RAM, fresh driver indices */
	vqm_init_in(&f->tx, &f->rx, NUM, 16, 4, VQM_RAM_BASE + RAM_SIZE / 2);
	if (virtio_console_init(&f->con, &SLOT_RES(1), &f->rx.mem, &irq, &out))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct cfx *f = *state;

	virtio_console_destroy(&f->con);
	vqm_free(&f->rx);
	free(f);
	return 0;
}

/* --- the driver's side ---------------------------------------------------- */

static uint32_t rd_n(struct cfx *f, uint64_t off, unsigned int len)
{
	return vqm_mmio_rd_n(&f->con.vm, off, len);
}

static void wr_n(struct cfx *f, uint64_t off, uint32_t v, unsigned int len)
{
	vqm_mmio_wr_n(&f->con.vm, off, v, len);
}

static uint32_t rd(struct cfx *f, uint64_t off)
{
	return vqm_mmio_rd(&f->con.vm, off);
}

static void wr(struct cfx *f, uint64_t off, uint32_t v)
{
	vqm_mmio_wr(&f->con.vm, off, v);
}

#define ACK VIRTIO_STATUS_ACKNOWLEDGE
#define DRV VIRTIO_STATUS_DRIVER
#define FOK VIRTIO_STATUS_FEATURES_OK
#define DOK VIRTIO_STATUS_DRIVER_OK
#define NEEDS_RESET VIRTIO_STATUS_DEVICE_NEEDS_RESET
#define EMERG VIRTIO_BIT(VIRTIO_CONSOLE_F_EMERG_WRITE)
#define V1 VIRTIO_BIT(VIRTIO_F_VERSION_1)
#define EVIDX VIRTIO_BIT(VIRTIO_F_EVENT_IDX)
#define INDIRECT VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC)
#define CFG(off) (VIRTIO_MMIO_CONFIG + (off))
#define RXQ VIRTIO_CONSOLE_RX_QUEUE
#define TXQ VIRTIO_CONSOLE_TX_QUEUE

/* §3.1.1 up to FEATURES_OK and both queues ready, without DRIVER_OK. */
static void driver_setup(struct cfx *f, uint64_t features)
{
	struct virtio_mmio *vm = &f->con.vm;

	assert_int_equal(vqm_mmio_negotiate(vm, features), ACK | DRV | FOK);
	assert_int_equal(vqm_mmio_queue(vm, RXQ, &f->rx), 1);
	assert_int_equal(vqm_mmio_queue(vm, TXQ, &f->tx), 1);
}

static void driver_ok(struct cfx *f)
{
	assert_int_equal(vqm_mmio_driver_ok(&f->con.vm), ACK | DRV | FOK | DOK);
}

static void driver_up(struct cfx *f, uint64_t features)
{
	driver_setup(f, features);
	driver_ok(f);
}

/* A device-readable buffer holding s. */
static struct vqm_buf ro_buf(struct cfx *f, const char *s)
{
	struct vqm_buf b = vqm_buf_new(&f->rx, strlen(s), false, 0);

	memcpy(vqm_ptr(&f->rx, b.gpa, b.len), s, b.len);
	return b;
}

static struct vqm_buf wr_buf(struct cfx *f, uint32_t len)
{
	return vqm_buf_new(&f->rx, len, true, 0xee);
}

static void assert_out(const struct cfx *f, const char *s)
{
	assert_int_equal(f->out_len, strlen(s));
	assert_memory_equal(f->out, s, f->out_len);
}

static void assert_used(struct vqm *m, uint32_t head, uint32_t len)
{
	uint32_t id, l;

	assert_true(vqm_get_used(m, &id, &l));
	assert_int_equal(id, head);
	assert_int_equal(l, len);
}

static void assert_guest(struct cfx *f, const struct vqm_buf *b, const char *s)
{
	size_t n = strlen(s);
	const uint8_t *p = vqm_ptr(&f->rx, b->gpa, b->len);

	assert_true(n <= b->len);
	assert_memory_equal(p, s, n);
	for (size_t i = n; i < b->len; i++)
		assert_int_equal(p[i], 0xee); /* untouched */
}

static void assert_needs_reset(struct cfx *f)
{
	assert_true(rd(f, VIRTIO_MMIO_STATUS) & NEEDS_RESET);
	assert_true(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS) &
		    VIRTIO_MMIO_INT_CONFIG);
	assert_int_equal(cfx_level(f), 1);
}

static void driver_rings_reset(struct cfx *f);

/* --- identity and configuration space ------------------------------------- */

static void test_identity(void **state)
{
	struct cfx *f = *state;

	assert_int_equal(rd(f, VIRTIO_MMIO_DEVICE_ID), 3);
	assert_int_equal(rd(f, VIRTIO_MMIO_DEVICE_FEATURES),
			 (1u << 2) | (1u << 28) | (1u << 29));
	wr(f, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 1);
	assert_int_equal(rd(f, VIRTIO_MMIO_DEVICE_FEATURES), 1);
	for (uint32_t q = 0; q < 2; q++) {
		wr(f, VIRTIO_MMIO_QUEUE_SEL, q);
		assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_NUM_MAX), 256);
	}
	wr(f, VIRTIO_MMIO_QUEUE_SEL, 2);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_NUM_MAX), 0);
	assert_int_equal(f->con.vm.res.base, 0x10002000);
	assert_int_equal(f->con.vm.res.irq, 2);
}

static void test_config_values(void **state)
{
	struct cfx *f = *state;

	assert_int_equal(rd_n(f, CFG(VIRTIO_CONSOLE_CFG_COLS), 2), 0);
	assert_int_equal(rd_n(f, CFG(VIRTIO_CONSOLE_CFG_ROWS), 2), 0);
	assert_int_equal(rd_n(f, CFG(0), 4), 0);
	assert_int_equal(rd(f, CFG(VIRTIO_CONSOLE_CFG_MAX_NR_PORTS)), 1);
	assert_int_equal(rd_n(f, CFG(4), 1), 1);
	assert_int_equal(rd_n(f, CFG(5), 1), 0);
	assert_int_equal(rd_n(f, CFG(4), 2), 1);
	assert_int_equal(rd(f, CFG(VIRTIO_CONSOLE_CFG_EMERG_WR)), 0);
	/* past the 12 bytes */
	assert_int_equal(rd_n(f, CFG(10), 4), 0);
	assert_int_equal(rd_n(f, CFG(12), 1), 0);
	/* read-only fields stay put */
	wr(f, CFG(VIRTIO_CONSOLE_CFG_MAX_NR_PORTS), 7);
	wr_n(f, CFG(VIRTIO_CONSOLE_CFG_COLS), 80, 2);
	assert_int_equal(rd(f, CFG(VIRTIO_CONSOLE_CFG_MAX_NR_PORTS)), 1);
	assert_int_equal(rd_n(f, CFG(VIRTIO_CONSOLE_CFG_COLS), 2), 0);
	assert_int_equal(f->out_len, 0);
}

static void test_emergency_write(void **state)
{
	struct cfx *f = *state;

	/* before any status bit (§5.3.4 allows it) */
	wr(f, CFG(VIRTIO_CONSOLE_CFG_EMERG_WR), 'A');
	wr_n(f, CFG(VIRTIO_CONSOLE_CFG_EMERG_WR), 'B', 1);
	wr_n(f, CFG(VIRTIO_CONSOLE_CFG_EMERG_WR), 0x4400 | 'C', 2);
	wr(f, CFG(VIRTIO_CONSOLE_CFG_EMERG_WR), 0x12345600 | 'D');
	/* not at emerg_wr itself: ignored */
	wr_n(f, CFG(9), 'x', 1);
	wr_n(f, CFG(10), 'x', 2);
	wr_n(f, CFG(11), 'x', 1);
	wr(f, CFG(4), 'x');
	wr(f, CFG(12), 'x');
	assert_out(f, "ABCD");
	assert_int_equal(f->out_calls, 4);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), 0);
	assert_int_equal(f->nr_edges, 0);

	/* a NUL is a character too; and it works while running */
	driver_up(f, V1 | EMERG);
	wr(f, CFG(VIRTIO_CONSOLE_CFG_EMERG_WR), 0);
	wr(f, CFG(VIRTIO_CONSOLE_CFG_EMERG_WR), '\n');
	assert_int_equal(f->out_len, 6);
	assert_memory_equal(f->out, "ABCD\0\n", 6);
	assert_int_equal(rd(f, CFG(VIRTIO_CONSOLE_CFG_EMERG_WR)), 0);
	assert_int_equal(f->nr_edges, 0);
}

/* --- transmit ------------------------------------------------------------- */

static void test_tx_single(void **state)
{
	struct cfx *f = *state;
	struct vqm_buf b = ro_buf(f, "hello, world\n");
	uint16_t h;

	driver_up(f, V1);
	h = vqm_add(&f->tx, &b, 1);
	assert_int_equal(f->out_len, 0);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_out(f, "hello, world\n");
	assert_int_equal(f->out_calls, 1);
	assert_used(&f->tx, h, 0);
	assert_false(vqm_get_used(&f->tx, &(uint32_t){ 0 }, &(uint32_t){ 0 }));
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS),
			 VIRTIO_MMIO_INT_VRING);
	assert_int_equal(f->nr_edges, 1);
	assert_int_equal(cfx_level(f), 1);
	wr(f, VIRTIO_MMIO_INTERRUPT_ACK, VIRTIO_MMIO_INT_VRING);
	assert_int_equal(cfx_level(f), 0);
	/* the rx queue saw nothing */
	assert_int_equal(vqm_used_idx(&f->rx), 0);

	/* an empty notification: no output, no interrupt */
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_int_equal(f->out_calls, 1);
	assert_int_equal(f->nr_edges, 2);
}

static void test_tx_multi(void **state)
{
	struct cfx *f = *state;
	struct vqm_buf c1[3] = { ro_buf(f, "ab"), ro_buf(f, "cde"),
				 ro_buf(f, "f") };
	struct vqm_buf c2[2] = { ro_buf(f, "gh"), ro_buf(f, "ij") };
	/* a writable part in a transmit chain is left alone */
	struct vqm_buf c3[2] = { ro_buf(f, "k"), wr_buf(f, 4) };
	struct vqm_buf empty = vqm_buf_new(&f->rx, 0, false, 0);
	uint16_t h1, h2, h3, h4;

	driver_up(f, V1 | INDIRECT | EVIDX);
	vqm_set_used_event(&f->tx, 3); /* one interrupt, at the 4th */
	h1 = vqm_add(&f->tx, c1, 3);
	h2 = vqm_add_indirect(&f->tx, c2, 2);
	h3 = vqm_add(&f->tx, c3, 2);
	h4 = vqm_add(&f->tx, &empty, 1);
	virtio_mmio_kick(&f->con.vm, TXQ);
	assert_out(f, "abcdefghijk");
	assert_int_equal(f->out_calls, 3); /* one per non-empty chain */
	assert_used(&f->tx, h1, 0);
	assert_used(&f->tx, h2, 0);
	assert_used(&f->tx, h3, 0);
	assert_used(&f->tx, h4, 0);
	assert_guest(f, &c3[1], "");
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 1);
	assert_int_equal(f->nr_edges, 1);
	assert_int_equal(vqm_avail_event(&f->tx), 4);
}

/* Large chains reach the output in pieces of at most 4 KiB, in order. */
static void test_tx_pieces(void **state)
{
	struct cfx *f = *state;
	struct vqm_buf b[2] = { vqm_buf_new(&f->rx, 10000, false, 0),
				vqm_buf_new(&f->rx, 3000, false, 0) };
	uint8_t *p0 = vqm_ptr(&f->rx, b[0].gpa, b[0].len);
	uint8_t *p1 = vqm_ptr(&f->rx, b[1].gpa, b[1].len);

	for (unsigned int i = 0; i < 10000; i++)
		p0[i] = i * 7;
	for (unsigned int i = 0; i < 3000; i++)
		p1[i] = (10000 + i) * 7;
	driver_up(f, V1);
	vqm_add(&f->tx, b, 2);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_int_equal(f->out_len, 13000);
	assert_int_equal(f->out_calls, 4); /* 4096 + 4096 + 4096 + 712 */
	assert_int_equal(f->out_max_piece, VIRTIO_CONSOLE_TX_PIECE);
	for (unsigned int i = 0; i < 13000; i++)
		assert_int_equal(f->out[i], (uint8_t)(i * 7));
	assert_used(&f->tx, 0, 0);
}

static void test_tx_before_driver_ok(void **state)
{
	struct cfx *f = *state;
	struct vqm_buf b = ro_buf(f, "early");

	driver_setup(f, V1);
	vqm_add(&f->tx, &b, 1);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_int_equal(f->out_len, 0);
	assert_int_equal(vqm_used_idx(&f->tx), 0);
	driver_ok(f); /* the held-back notification runs now */
	assert_out(f, "early");
	assert_used(&f->tx, 0, 0);
}

/*
 * Back-pressure: an output that takes only part of a chain leaves the
 * chain in the ring (no used entry, no interrupt); resuming goes on from
 * the first byte not taken, and every byte comes out once, in order.
 */
static void test_tx_back_pressure(void **state)
{
	struct cfx *f = *state;
	struct vqm_buf a = ro_buf(f, "hello, ");
	struct vqm_buf b = ro_buf(f, "world");
	uint16_t ha, hb;

	driver_up(f, V1);
	ha = vqm_add(&f->tx, &a, 1);
	hb = vqm_add(&f->tx, &b, 1);
	f->out_room = 3;
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_out(f, "hel");
	assert_int_equal(vqm_used_idx(&f->tx), 0);
	assert_int_equal(f->nr_edges, 0);
	/* still full: a notification changes nothing */
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_out(f, "hel");
	assert_int_equal(vqm_used_idx(&f->tx), 0);
	/* room for the rest of the first chain and part of the second */
	f->out_room = 7;
	virtio_console_tx_resume(&f->con);
	assert_out(f, "hello, wor");
	assert_used(&f->tx, ha, 0);
	assert_int_equal(vqm_used_idx(&f->tx), 1);
	assert_int_equal(cfx_level(f), 1);
	wr(f, VIRTIO_MMIO_INTERRUPT_ACK, VIRTIO_MMIO_INT_VRING);
	f->out_room = SIZE_MAX;
	virtio_console_tx_resume(&f->con);
	assert_out(f, "hello, world");
	assert_used(&f->tx, hb, 0);
	assert_int_equal(cfx_level(f), 1);
	/* nothing left: resuming is harmless */
	virtio_console_tx_resume(&f->con);
	assert_out(f, "hello, world");
}

/* A large chain taken a little at a time comes out byte-exact. */
static void test_tx_back_pressure_pieces(void **state)
{
	struct cfx *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->rx, 10000, false, 0);
	uint8_t *p = vqm_ptr(&f->rx, b.gpa, b.len);
	unsigned int rounds = 0;

	for (unsigned int i = 0; i < 10000; i++)
		p[i] = i * 11;
	driver_up(f, V1);
	vqm_add(&f->tx, &b, 1);
	f->out_room = 0;
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	while (vqm_used_idx(&f->tx) == 0 && rounds++ < 100) {
		assert_int_equal(f->out_len, (rounds - 1) * 999);
		f->out_room = 999;
		virtio_console_tx_resume(&f->con);
	}
	assert_int_equal(rounds, 11); /* 10 x 999 + 10 */
	assert_int_equal(f->out_len, 10000);
	for (unsigned int i = 0; i < 10000; i++)
		assert_int_equal(f->out[i], (uint8_t)(i * 11));
}

/* A reset forgets how far a refused chain got. */
static void test_tx_back_pressure_reset(void **state)
{
	struct cfx *f = *state;
	struct vqm_buf a = ro_buf(f, "stale");
	struct vqm_buf b = ro_buf(f, "fresh");

	driver_up(f, V1);
	vqm_add(&f->tx, &a, 1);
	f->out_room = 2;
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_out(f, "st");
	wr(f, VIRTIO_MMIO_STATUS, 0);
	driver_rings_reset(f);
	driver_up(f, V1);
	f->out_room = SIZE_MAX;
	vqm_add(&f->tx, &b, 1);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_out(f, "stfresh");
	assert_used(&f->tx, 0, 0);
}

/* An emergency write the output refuses is dropped, nothing else. */
static void test_emergency_write_full(void **state)
{
	struct cfx *f = *state;

	f->out_room = 0;
	wr(f, CFG(VIRTIO_CONSOLE_CFG_EMERG_WR), 'A');
	assert_int_equal(f->out_len, 0);
	f->out_room = SIZE_MAX;
	wr(f, CFG(VIRTIO_CONSOLE_CFG_EMERG_WR), 'B');
	assert_out(f, "B");
}

/* --- receive -------------------------------------------------------------- */

static void test_rx_split_across_chains(void **state)
{
	struct cfx *f = *state;
	struct vqm_buf a = wr_buf(f, 4);
	struct vqm_buf b[2] = { wr_buf(f, 3), wr_buf(f, 5) };
	struct vqm_buf c = wr_buf(f, 16);
	uint16_t ha, hb, hc;

	driver_up(f, V1);
	ha = vqm_add(&f->rx, &a, 1);
	hb = vqm_add(&f->rx, b, 2);
	hc = vqm_add(&f->rx, &c, 1);
	assert_int_equal(virtio_console_receive(&f->con, "hello, world", 12),
			 12);
	assert_used(&f->rx, ha, 4);
	assert_used(&f->rx, hb, 8);
	assert_false(vqm_get_used(&f->rx, &(uint32_t){ 0 }, &(uint32_t){ 0 }));
	assert_guest(f, &a, "hell");
	assert_guest(f, &b[0], "o, ");
	assert_guest(f, &b[1], "world");
	assert_guest(f, &c, "");
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 1);
	assert_int_equal(cfx_level(f), 1);
	wr(f, VIRTIO_MMIO_INTERRUPT_ACK, 1);

	/* a short piece takes a chain of its own, len = bytes placed */
	assert_int_equal(virtio_console_receive(&f->con, "!", 1), 1);
	assert_used(&f->rx, hc, 1);
	assert_guest(f, &c, "!");
	assert_int_equal(cfx_level(f), 1);
	assert_int_equal(f->out_len, 0);
	assert_int_equal(vqm_used_idx(&f->tx), 0);
}

static void test_rx_partial_then_more(void **state)
{
	struct cfx *f = *state;
	struct vqm_buf a = wr_buf(f, 4);
	struct vqm_buf b = wr_buf(f, 8);
	const char *msg = "0123456789";

	driver_up(f, V1 | EVIDX);
	assert_int_equal(virtio_console_receive(&f->con, msg, 10), 0);
	assert_int_equal(f->nr_edges, 0);
	vqm_add(&f->rx, &a, 1);
	assert_int_equal(virtio_console_receive(&f->con, msg, 10), 4);
	assert_used(&f->rx, 0, 4);
	assert_guest(f, &a, "0123");
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 1);
	/* no buffers left: nothing taken, and the driver is asked to kick */
	assert_int_equal(virtio_console_receive(&f->con, msg + 4, 6), 0);
	assert_int_equal(vqm_avail_event(&f->rx), 1);
	assert_int_equal(vqm_used_idx(&f->rx), 1);
	vqm_add(&f->rx, &b, 1);
	assert_int_equal(virtio_console_receive(&f->con, msg + 4, 6), 6);
	assert_used(&f->rx, 1, 6);
	assert_guest(f, &b, "456789");
	assert_int_equal(virtio_console_receive(&f->con, msg, 0), 0);
}

static void test_rx_not_running(void **state)
{
	struct cfx *f = *state;
	struct vqm_buf a = wr_buf(f, 4);

	/* nothing set up at all */
	assert_int_equal(virtio_console_receive(&f->con, "abc", 3), 0);
	/* buffers posted, but no DRIVER_OK yet (§3.1.1) */
	driver_setup(f, V1);
	vqm_add(&f->rx, &a, 1);
	assert_int_equal(virtio_console_receive(&f->con, "abc", 3), 0);
	assert_int_equal(vqm_used_idx(&f->rx), 0);
	assert_guest(f, &a, "");
	driver_ok(f);
	assert_int_equal(virtio_console_receive(&f->con, "abc", 3), 3);
	assert_used(&f->rx, 0, 3);
	assert_guest(f, &a, "abc");
	/* the driver gave up */
	wr(f, VIRTIO_MMIO_STATUS, ACK | DRV | FOK | DOK | 128);
	vqm_add(&f->rx, &a, 1);
	assert_int_equal(virtio_console_receive(&f->con, "x", 1), 0);
	assert_int_equal(vqm_used_idx(&f->rx), 1);
}

static void test_rx_no_interrupt(void **state)
{
	struct cfx *f = *state;
	struct vqm_buf a = wr_buf(f, 4);
	struct vqm_buf ro = ro_buf(f, "zz");

	driver_up(f, V1);
	vqm_set_avail_flags(&f->rx, VIRTQ_AVAIL_F_NO_INTERRUPT);
	vqm_add(&f->rx, &a, 1);
	vqm_add(&f->rx, &ro, 1); /* no writable part: returned empty */
	assert_int_equal(virtio_console_receive(&f->con, "abcdef", 6), 4);
	assert_used(&f->rx, 0, 4);
	assert_int_equal(virtio_console_receive(&f->con, "ef", 2), 0);
	assert_used(&f->rx, 1, 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 0);
	assert_int_equal(f->nr_edges, 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), ACK | DRV | FOK | DOK);
}

static void test_rx_wake(void **state)
{
	struct cfx *f = *state;
	struct vqm_buf a = wr_buf(f, 4);

	virtio_console_set_rx_wake(&f->con, cfx_wake, f);
	driver_setup(f, V1);
	vqm_add(&f->rx, &a, 1);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, RXQ);
	assert_int_equal(f->wakes, 0); /* held back until DRIVER_OK */
	driver_ok(f);
	assert_int_equal(f->wakes, 1);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_int_equal(f->wakes, 1);
	virtio_mmio_kick(&f->con.vm, RXQ);
	assert_int_equal(f->wakes, 2);
	/* a notification does not consume receive buffers */
	assert_int_equal(vqm_used_idx(&f->rx), 0);
	assert_int_equal(f->nr_edges, 0);
	virtio_console_set_rx_wake(&f->con, NULL, NULL);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, RXQ);
	assert_int_equal(f->wakes, 2);
}

/* Every byte arrives once, in order, over many small chains. */
static void test_rx_stream(void **state)
{
	struct cfx *f = *state;
	struct vqm_buf b[NUM];
	uint8_t src[1000], dst[1000];
	size_t sent = 0, got = 0;
	uint32_t id, len;

	for (unsigned int i = 0; i < sizeof(src); i++)
		src[i] = i * 13 + 1;
	for (unsigned int i = 0; i < NUM; i++)
		b[i] = wr_buf(f, 7 + i);
	driver_up(f, V1 | EVIDX);
	for (unsigned int i = 0; i < NUM; i++)
		vqm_add(&f->rx, &b[i], 1);
	while (got < sizeof(src)) {
		sent += virtio_console_receive(&f->con, src + sent,
					       sizeof(src) - sent);
		while (vqm_get_used(&f->rx, &id, &len)) {
			assert_true(id < NUM && len <= b[id].len);
			memcpy(dst + got, vqm_ptr(&f->rx, b[id].gpa, len), len);
			got += len;
			vqm_add(&f->rx, &b[id], 1); /* repost */
		}
		assert_int_equal(got, sent);
	}
	assert_memory_equal(src, dst, sizeof(src));
}

/* --- reset and errors ----------------------------------------------------- */

/* The driver starts over on fresh rings after a reset. */
static void driver_rings_reset(struct cfx *f)
{
	struct vqm *m[2] = { &f->rx, &f->tx };

	for (unsigned int i = 0; i < 2; i++) {
		memset(vqm_ptr(m[i], m[i]->used, virtq_used_bytes(NUM)), 0,
		       virtq_used_bytes(NUM));
		vqm_set_avail_idx(m[i], 0);
		m[i]->last_used = 0;
		m[i]->next_desc = 0;
	}
}

static void test_reset(void **state)
{
	struct cfx *f = *state;
	struct vqm_buf a = wr_buf(f, 4);
	struct vqm_buf t = ro_buf(f, "late");

	driver_up(f, V1);
	vqm_add(&f->rx, &a, 1);
	assert_int_equal(virtio_console_receive(&f->con, "ab", 2), 2);
	assert_int_equal(cfx_level(f), 1);
	vqm_add(&f->rx, &a, 1); /* posted, then the device is reset */
	vqm_add(&f->tx, &t, 1);
	wr(f, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), 0);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 0);
	assert_int_equal(cfx_level(f), 0);
	assert_int_equal(virtio_console_receive(&f->con, "cd", 2), 0);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_int_equal(f->out_len, 0);
	assert_int_equal(vqm_used_idx(&f->rx), 1);
	assert_int_equal(vqm_used_idx(&f->tx), 0);

	driver_rings_reset(f);
	driver_up(f, V1);
	vqm_add(&f->rx, &a, 1);
	assert_int_equal(virtio_console_receive(&f->con, "cd", 2), 2);
	assert_used(&f->rx, 0, 2);
	assert_guest(f, &a, "cd");

	/* system reset from the bus */
	virtio_mmio_ops.reset(&f->con.vm);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), 0);
	assert_int_equal(cfx_level(f), 0);
	vqm_add(&f->rx, &a, 1);
	assert_int_equal(virtio_console_receive(&f->con, "ef", 2), 0);
	/* emergency writes do not care */
	wr(f, CFG(VIRTIO_CONSOLE_CFG_EMERG_WR), '!');
	assert_out(f, "!");
}

static void test_tx_broken_queue(void **state)
{
	struct cfx *f = *state;
	struct vqm_buf b[2] = { wr_buf(f, 4), ro_buf(f, "x") };
	struct vqm_buf a = wr_buf(f, 4);

	driver_up(f, V1);
	vqm_add(&f->tx, b, 2); /* readable after writable */
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_int_equal(f->out_len, 0);
	assert_int_equal(vqm_used_idx(&f->tx), 0);
	assert_needs_reset(f);
	/* the device stops, rx included */
	vqm_add(&f->rx, &a, 1);
	assert_int_equal(virtio_console_receive(&f->con, "ab", 2), 0);
	assert_int_equal(vqm_used_idx(&f->rx), 0);
	/* a reset recovers */
	driver_rings_reset(f);
	driver_up(f, V1);
	vqm_add(&f->rx, &a, 1);
	assert_int_equal(virtio_console_receive(&f->con, "ab", 2), 2);
	assert_used(&f->rx, 0, 2);
}

static void test_rx_broken_queue(void **state)
{
	struct cfx *f = *state;
	struct vqm_buf t = ro_buf(f, "tx");

	driver_up(f, V1);
	vqm_publish(&f->rx, NUM); /* head out of range */
	assert_int_equal(virtio_console_receive(&f->con, "ab", 2), 0);
	assert_needs_reset(f);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS),
			 VIRTIO_MMIO_INT_CONFIG);
	assert_int_equal(vqm_used_idx(&f->rx), 0);
	assert_int_equal(virtio_console_receive(&f->con, "ab", 2), 0);
	vqm_add(&f->tx, &t, 1);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_int_equal(f->out_len, 0);
}

/* avail->idx jumping past the ring: broken, nothing taken. */
static void test_rx_avail_overrun(void **state)
{
	struct cfx *f = *state;

	driver_up(f, V1);
	vqm_set_avail_idx(&f->rx, NUM + 1);
	assert_int_equal(virtio_console_receive(&f->con, "ab", 2), 0);
	assert_needs_reset(f);
}

static void test_init_errors(void **state)
{
	struct cfx *f = *state;
	struct virtio_console *con = calloc(1, sizeof(*con));
	struct char_out out = { .write = NULL };

	assert_non_null(con);
	assert_int_equal(
		virtio_console_init(con, &SLOT_RES(0), &f->rx.mem, NULL, NULL),
		-EINVAL);
	assert_int_equal(
		virtio_console_init(con, &SLOT_RES(0), &f->rx.mem, NULL, &out),
		-EINVAL);
	out.write = cfx_out_write;
	assert_int_equal(virtio_console_init(con, NULL, &f->rx.mem, NULL, &out),
			 -EINVAL);
	assert_int_equal(
		virtio_console_init(con, &SLOT_RES(0), NULL, NULL, &out),
		-EINVAL);
	assert_int_equal(
		virtio_console_init(con, &SLOT_RES(0), &f->rx.mem, NULL, &out),
		0);
	virtio_console_destroy(con);
	free(con);
}

/* --- the input thread against a driver on another thread ------------------ */

#define THR_BYTES 20000

struct thr {
	struct cfx *f;
	uint8_t src[THR_BYTES];
};

static void *thr_input(void *arg)
{
	struct thr *t = arg;
	size_t sent = 0;

	while (sent < THR_BYTES)
		sent += virtio_console_receive(&t->f->con, t->src + sent,
					       THR_BYTES - sent);
	return NULL;
}

static void test_rx_threaded(void **state)
{
	struct cfx *f = *state;
	struct thr *t = calloc(1, sizeof(*t));
	static uint8_t dst[THR_BYTES];
	struct vqm_buf b[NUM];
	size_t got = 0;
	uint32_t id, len;
	pthread_t th;

	assert_non_null(t);
	t->f = f;
	for (unsigned int i = 0; i < THR_BYTES; i++)
		t->src[i] = i * 31 + 5;
	for (unsigned int i = 0; i < NUM; i++)
		b[i] = wr_buf(f, 1 + 5 * i);
	driver_up(f, V1);
	for (unsigned int i = 0; i < NUM; i++)
		vqm_add(&f->rx, &b[i], 1);
	assert_int_equal(pthread_create(&th, NULL, thr_input, t), 0);
	while (got < THR_BYTES) {
		/* the driver also touches registers meanwhile */
		assert_int_equal(rd(f, VIRTIO_MMIO_STATUS),
				 ACK | DRV | FOK | DOK);
		wr(f, VIRTIO_MMIO_INTERRUPT_ACK,
		   rd(f, VIRTIO_MMIO_INTERRUPT_STATUS));
		while (vqm_get_used(&f->rx, &id, &len)) {
			assert_true(id < NUM && len <= b[id].len);
			assert_true(got + len <= THR_BYTES);
			memcpy(dst + got, vqm_ptr(&f->rx, b[id].gpa, len), len);
			got += len;
			vqm_add(&f->rx, &b[id], 1);
		}
	}
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_memory_equal(t->src, dst, THR_BYTES);
	free(t);
}

static void cfx_rearm(void *opaque, unsigned int q)
{
	struct cfx *f = opaque;

	if (q == TXQ)
		f->rearms++;
}

/*
 * A chain of 5 x 64 KiB (the same guest buffer five times, as a guest
 * may) and a short one after it, with the output taking everything.
 */
static uint32_t tx_huge(struct cfx *f, uint16_t *h1, uint16_t *h2)
{
	struct vqm_buf b = vqm_buf_new(&f->rx, 64 * 1024, false, 0);
	struct vqm_buf bufs[5] = { b, b, b, b, b };
	struct vqm_buf t = ro_buf(f, "tail");
	uint8_t *p = vqm_ptr(&f->rx, b.gpa, b.len);

	for (unsigned int i = 0; i < b.len; i++)
		p[i] = i * 13 + i / 251;
	driver_up(f, V1);
	*h1 = vqm_add(&f->tx, bufs, 5);
	*h2 = vqm_add(&f->tx, &t, 1);
	return 5 * b.len;
}

static void assert_tx_huge(struct cfx *f, uint32_t len, uint16_t h1,
			   uint16_t h2)
{
	assert_int_equal(f->out_len, len + 4);
	for (uint32_t i = 0; i < len; i++) {
		uint32_t j = i % (64 * 1024);

		if (f->out[i] != (uint8_t)(j * 13 + j / 251))
			fail_msg("byte %u", i);
	}
	assert_memory_equal(f->out + len, "tail", 4);
	assert_used(&f->tx, h1, 0);
	assert_used(&f->tx, h2, 0);
}

/*
 * One notification pass outputs at most VIRTIO_CONSOLE_TX_BUDGET bytes and
 * asks for another pass (the notifier's re-arm); the passes go on inside
 * the chain, in order, and the used entries come once all is out.
 */
static void test_tx_budget(void **state)
{
	struct cfx *f = *state;
	const struct virtio_rearm r = { cfx_rearm, f };
	uint16_t h1, h2;
	uint32_t len = tx_huge(f, &h1, &h2);
	size_t before;
	unsigned int passes = 1;

	virtio_core_set_rearm(&f->con.vm.core, &r);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_int_equal(f->out_len, VIRTIO_CONSOLE_TX_BUDGET);
	assert_int_equal(f->rearms, 1);
	assert_int_equal(vqm_used_idx(&f->tx), 0);
	/* the I/O thread delivers the re-armed notification, again and again */
	while (f->rearms == passes) {
		before = f->out_len;
		virtio_mmio_kick(&f->con.vm, TXQ);
		passes++;
		assert_true(f->out_len - before <= VIRTIO_CONSOLE_TX_BUDGET);
		assert_true(passes < 100);
	}
	assert_int_equal(passes, (len + 4 + VIRTIO_CONSOLE_TX_BUDGET - 1) /
					 VIRTIO_CONSOLE_TX_BUDGET);
	assert_tx_huge(f, len, h1, h2);
	/* nothing left: no more passes asked for */
	virtio_mmio_kick(&f->con.vm, TXQ);
	assert_int_equal(f->rearms, passes - 1);
}

/*
 * Without a re-arm hook the core runs the further passes itself, letting
 * go of the lock between them; back-pressure still stops them.
 */
static void test_tx_budget_no_hook(void **state)
{
	struct cfx *f = *state;
	uint16_t h1, h2;
	uint32_t len = tx_huge(f, &h1, &h2);

	f->out_room = 100000;
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, TXQ);
	assert_int_equal(f->out_len, 100000);
	assert_int_equal(vqm_used_idx(&f->tx), 0);
	f->out_room = SIZE_MAX;
	virtio_console_tx_resume(&f->con);
	assert_tx_huge(f, len, h1, h2);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_identity),
		T(test_config_values),
		T(test_emergency_write),
		T(test_tx_single),
		T(test_tx_multi),
		T(test_tx_pieces),
		T(test_tx_before_driver_ok),
		T(test_tx_back_pressure),
		T(test_tx_back_pressure_pieces),
		T(test_tx_back_pressure_reset),
		T(test_emergency_write_full),
		T(test_rx_split_across_chains),
		T(test_rx_partial_then_more),
		T(test_rx_not_running),
		T(test_rx_no_interrupt),
		T(test_rx_wake),
		T(test_rx_stream),
		T(test_reset),
		T(test_tx_broken_queue),
		T(test_rx_broken_queue),
		T(test_rx_avail_overrun),
		T(test_init_errors),
		T(test_rx_threaded),
		T(test_tx_budget),
		T(test_tx_budget_no_hook),
	};

	return cmocka_run_group_tests_name("virtio_console", tests, NULL, NULL);
}
