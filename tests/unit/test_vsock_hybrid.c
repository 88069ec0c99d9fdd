// SPDX-License-Identifier: GPL-2.0
/*
 * The user-space ("hybrid") virtio-vsock device (virtio/vsock_hybrid.c) on
 * virtio-mmio, with a driver that builds packets as a guest does and a
 * fake host side (streams with scripted input, output taken or refused):
 * both directions of connection set-up, data and credit, shutdown and
 * reset, and what a hostile guest or host peer gets.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define FAKE_CHECK(c) assert_true(c)
#include "virtio/vsock_hybrid.h"
#include "tests/unit/slot_res.h"
#include "tests/unit/vsock_hy_fake.h"
#include "tests/unit/virtq_mock.h"

#define RAM_SIZE (8u << 20)
#define NUM 16
#define V1 VIRTIO_BIT(VIRTIO_F_VERSION_1)
#define CID 7
#define RXBUF (VSOCK_HDR_SIZE + 4096)

struct fix {
	struct fake_host host; /* first: the ops' opaque */
	struct vqm q[3];
	struct vsock_hy hy;
	int level;
	int connect_ret[4]; /* per port 0..3: a handle or -errno */
	uint64_t rx_gpa[NUM];
};

static void irq_set(void *opaque, int level)
{
	*(int *)opaque = level;
}

static int fix_connect(struct fake_host *fh, uint32_t port)
{
	struct fix *f = (struct fix *)fh;

	return port < 4 ? f->connect_ret[port] : -ECONNREFUSED;
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	const struct irq_line irq = { irq_set, &f->level };

	vqm_init(&f->q[0], RAM_SIZE, NUM);
	vqm_init_in(&f->q[1], &f->q[0], NUM, 16, 4, VQM_RAM_BASE + 0x200000);
	vqm_init_in(&f->q[2], &f->q[0], NUM, 16, 4, VQM_RAM_BASE + 0x400000);
	for (unsigned int i = 0; i < 4; i++)
		f->connect_ret[i] = -ECONNREFUSED;
	f->host.connect = fix_connect;
	f->host.record = true;
	assert_int_equal(vsock_hy_init(&f->hy, &SLOT_RES(0), &f->q[0].mem, &irq,
				       CID, &fake_host_ops, &f->host),
			 0);
	assert_int_equal(vqm_mmio_negotiate(&f->hy.dev.vm, V1), 11);
	for (unsigned int q = 0; q < 3; q++)
		assert_int_equal(vqm_mmio_queue(&f->hy.dev.vm, q, &f->q[q]), 1);
	assert_int_equal(vqm_mmio_driver_ok(&f->hy.dev.vm), 15);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	vsock_hy_destroy(&f->hy);
	assert_int_equal(fake_finish(&f->host), 0); /* every handle closed */
	vqm_free(&f->q[0]);
	free(f);
	return 0;
}

/* The guest gives n receive buffers (up to NUM in all). */
static void rx_give(struct fix *f, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct vqm_buf b = vqm_buf_new(&f->q[0], RXBUF, true, 0);
		uint16_t head = vqm_add(&f->q[0], &b, 1);

		f->rx_gpa[head] = b.gpa;
	}
	vqm_mmio_wr(&f->hy.dev.vm, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
}

/* The next packet the device gave the guest; false when none. */
static bool rx_get(struct fix *f, struct vsock_hdr *h, void *payload)
{
	uint32_t id, len;
	const uint8_t *p;

	if (!vqm_get_used(&f->q[0], &id, &len))
		return false;
	assert_true(len >= VSOCK_HDR_SIZE);
	p = vqm_ptr(&f->q[0], f->rx_gpa[id], len);
	vsock_hdr_decode(h, p);
	assert_int_equal(h->len, len - VSOCK_HDR_SIZE);
	assert_int_equal(h->src_cid, VSOCK_HOST_CID);
	assert_int_equal(h->dst_cid, CID);
	assert_int_equal(h->type, VSOCK_TYPE_STREAM);
	if (payload)
		memcpy(payload, p + VSOCK_HDR_SIZE, h->len);
	return true;
}

/* A guest packet with every field given (buf_alloc 64 KiB). */
static void tx_raw(struct fix *f, const struct vsock_hdr *h, const void *data,
		   uint32_t data_len)
{
	struct vqm_buf b =
		vqm_buf_new(&f->q[1], VSOCK_HDR_SIZE + data_len, false, 0);
	uint8_t *p = vqm_ptr(&f->q[1], b.gpa, b.len);

	vsock_hdr_encode(h, p);
	if (data_len)
		memcpy(p + VSOCK_HDR_SIZE, data, data_len);
	vqm_add(&f->q[1], &b, 1);
	vqm_mmio_wr(&f->hy.dev.vm, VIRTIO_MMIO_QUEUE_NOTIFY, 1);
}

/* A stream packet from the guest's gport to host port hport. */
static struct vsock_hdr ghdr(uint16_t op, uint32_t gport, uint32_t hport)
{
	return (struct vsock_hdr){ .src_cid = CID,
				   .dst_cid = VSOCK_HOST_CID,
				   .src_port = gport,
				   .dst_port = hport,
				   .type = VSOCK_TYPE_STREAM,
				   .op = op,
				   .buf_alloc = 65536 };
}

static void tx(struct fix *f, uint16_t op, uint32_t gport, uint32_t hport,
	       uint32_t flags, const void *data, uint32_t len)
{
	struct vsock_hdr h = ghdr(op, gport, hport);

	h.flags = flags;
	h.len = len;
	tx_raw(f, &h, data, len);
}

static void host_says(struct fix *f, int h, const char *s)
{
	fake_input(&f->host, h, s, strlen(s));
}

static void expect_pkt(struct fix *f, uint16_t op, uint32_t gport,
		       uint32_t hport)
{
	struct vsock_hdr h;

	assert_true(rx_get(f, &h, NULL));
	assert_int_equal(h.op, op);
	assert_int_equal(h.dst_port, gport);
	assert_int_equal(h.src_port, hport);
}

/* A host peer on handle 5 connects to guest port 1234, the guest takes it. */
static void host_connects(struct fix *f)
{
	struct vsock_hdr h;

	fake_open(&f->host, 5);
	host_says(f, 5, "CONNECT 1234\n");
	assert_int_equal(vsock_hy_host_accept(&f->hy, 5), 0);
	rx_give(f, 4);
	assert_true(rx_get(f, &h, NULL));
	assert_int_equal(h.op, VSOCK_OP_REQUEST);
	assert_int_equal(h.dst_port, 1234);
	assert_int_equal(h.src_port, VSOCK_HY_HOST_PORT_BASE);
	assert_int_equal(h.buf_alloc, VSOCK_HY_BUF_ALLOC);
	tx(f, VSOCK_OP_RESPONSE, 1234, VSOCK_HY_HOST_PORT_BASE, 0, NULL, 0);
	assert_int_equal(f->host.s[5].out_len, 14);
	assert_memory_equal(f->host.s[5].out, "OK 1073741824\n", 14);
}

static void test_host_to_guest(void **state)
{
	struct fix *f = *state;
	const uint32_t hp = VSOCK_HY_HOST_PORT_BASE;
	struct vsock_hdr h;
	char buf[4096];

	host_connects(f);
	/* Host bytes to the guest, then the host's end of stream. */
	host_says(f, 5, "hello guest");
	f->host.s[5].eof = true;
	vsock_hy_host_ready(&f->hy, 5);
	assert_true(rx_get(f, &h, buf));
	assert_int_equal(h.op, VSOCK_OP_RW);
	assert_int_equal(h.len, 11);
	assert_memory_equal(buf, "hello guest", 11);
	expect_pkt(f, VSOCK_OP_SHUTDOWN, 1234, hp);
	/* Guest bytes to the host. */
	tx(f, VSOCK_OP_RW, 1234, hp, 0, "hi host", 7);
	assert_int_equal(f->host.s[5].out_len, 14 + 7);
	assert_memory_equal(f->host.s[5].out + 14, "hi host", 7);
	/* The guest closes: lkvm's RST ends it, the host socket closed. */
	tx(f, VSOCK_OP_SHUTDOWN, 1234, hp, 3, NULL, 0);
	rx_give(f, 2);
	expect_pkt(f, VSOCK_OP_RST, 1234, hp);
	assert_false(f->host.s[5].open);
	assert_int_equal(vsock_hy_nr_conns(&f->hy), 0);
}

static void test_guest_to_host(void **state)
{
	struct fix *f = *state;
	struct vsock_hdr h;

	f->connect_ret[2] = 9;
	rx_give(f, 8);
	tx(f, VSOCK_OP_REQUEST, 5555, 2, 0, NULL, 0);
	assert_int_equal(f->host.connect_port, 2);
	assert_true(rx_get(f, &h, NULL));
	assert_int_equal(h.op, VSOCK_OP_RESPONSE);
	assert_int_equal(h.dst_port, 5555);
	assert_int_equal(h.src_port, 2);
	tx(f, VSOCK_OP_RW, 5555, 2, 0, "data", 4);
	assert_int_equal(f->host.s[9].out_len, 4);
	/* The guest half-closes: the host socket's write side is shut. */
	tx(f, VSOCK_OP_SHUTDOWN, 5555, 2, VSOCK_SHUTDOWN_SEND, NULL, 0);
	assert_true(f->host.s[9].shut_wr);
	assert_true(f->host.s[9].open);
	/* ... and gets the host's reply. */
	host_says(f, 9, "reply");
	vsock_hy_host_ready(&f->hy, 9);
	assert_true(rx_get(f, &h, NULL));
	assert_int_equal(h.op, VSOCK_OP_RW);
	/* Its RST closes the host socket; no answer to a RST. */
	tx(f, VSOCK_OP_RST, 5555, 2, 0, NULL, 0);
	assert_false(f->host.s[9].open);
	assert_false(rx_get(f, &h, NULL));
}

/* Nothing listens on PATH_3: the guest's REQUEST gets a RST. */
static void test_refused(void **state)
{
	struct fix *f = *state;
	struct vsock_hdr h;

	rx_give(f, 2);
	tx(f, VSOCK_OP_REQUEST, 4000, 3, 0, NULL, 0);
	assert_int_equal(f->host.connects, 1);
	expect_pkt(f, VSOCK_OP_RST, 4000, 3);
	assert_false(rx_get(f, &h, NULL));
	assert_int_equal(vsock_hy_nr_conns(&f->hy), 0);
}

/* The host socket takes nothing: guest bytes wait, credit holds them. */
static void test_slow_host_credit(void **state)
{
	struct fix *f = *state;
	static uint8_t chunk[4096];
	struct vsock_hdr h;
	unsigned int sent = 0;

	f->connect_ret[1] = 11;
	rx_give(f, 8);
	tx(f, VSOCK_OP_REQUEST, 77, 1, 0, NULL, 0);
	expect_pkt(f, VSOCK_OP_RESPONSE, 77, 1);
	f->host.s[11].room = 0;
	for (unsigned int i = 0; i < VSOCK_HY_BUF_ALLOC / sizeof(chunk); i++) {
		memset(chunk, i, sizeof(chunk));
		tx(f, VSOCK_OP_RW, 77, 1, 0, chunk, sizeof(chunk));
		sent += sizeof(chunk);
	}
	assert_int_equal(f->hy.conns[0].buf_len, VSOCK_HY_BUF_ALLOC);
	assert_false(rx_get(f, &h, NULL)); /* no credit update: nothing moved */
	/* The host reads: the bytes go in order, and the guest hears so. */
	f->host.s[11].room = SIZE_MAX;
	vsock_hy_host_ready(&f->hy, 11);
	assert_int_equal(f->host.s[11].out_len, sent);
	for (unsigned int i = 0; i < sent; i += sizeof(chunk))
		assert_int_equal(f->host.s[11].out[i],
				 (uint8_t)(i / sizeof(chunk)));
	assert_true(rx_get(f, &h, NULL));
	assert_int_equal(h.op, VSOCK_OP_CREDIT_UPDATE);
	assert_int_equal(h.fwd_cnt, sent);
	tx(f, VSOCK_OP_RST, 77, 1, 0, NULL, 0);
}

/* A guest that ignores the credit is reset; lkvm holds no more. */
static void test_credit_violation(void **state)
{
	struct fix *f = *state;
	static uint8_t chunk[VSOCK_HY_PKT_MAX];

	f->connect_ret[1] = 11;
	rx_give(f, 8);
	tx(f, VSOCK_OP_REQUEST, 77, 1, 0, NULL, 0);
	expect_pkt(f, VSOCK_OP_RESPONSE, 77, 1);
	f->host.s[11].room = 0;
	tx(f, VSOCK_OP_RW, 77, 1, 0, chunk, sizeof(chunk));
	tx(f, VSOCK_OP_RW, 77, 1, 0, chunk, sizeof(chunk));
	assert_true(f->host.s[11].open);
	tx(f, VSOCK_OP_RW, 77, 1, 0, chunk, 1);
	assert_false(f->host.s[11].open);
	expect_pkt(f, VSOCK_OP_RST, 77, 1);
	assert_int_equal(vsock_hy_nr_conns(&f->hy), 0);
}

/* Bytes go to the guest only within its credit. */
static void test_guest_credit_respected(void **state)
{
	struct fix *f = *state;
	struct vsock_hdr h = ghdr(VSOCK_OP_REQUEST, 8, 1), got;

	f->connect_ret[1] = 12;
	h.buf_alloc = 100;
	rx_give(f, 8);
	tx_raw(f, &h, NULL, 0);
	expect_pkt(f, VSOCK_OP_RESPONSE, 8, 1);
	memset(f->host.s[12].in, 'x', 300);
	f->host.s[12].in_len = 300;
	vsock_hy_host_ready(&f->hy, 12);
	assert_true(rx_get(f, &got, NULL));
	assert_int_equal(got.len, 100);
	assert_false(rx_get(f, &got, NULL));
	/* The guest read 60 of them. */
	h.op = VSOCK_OP_CREDIT_UPDATE;
	h.fwd_cnt = 60;
	tx_raw(f, &h, NULL, 0);
	assert_true(rx_get(f, &got, NULL));
	assert_int_equal(got.len, 60);
	/* A credit request is answered. */
	h.op = VSOCK_OP_CREDIT_REQUEST;
	tx_raw(f, &h, NULL, 0);
	assert_true(rx_get(f, &got, NULL));
	assert_int_equal(got.op, VSOCK_OP_CREDIT_UPDATE);
	/* A fwd_cnt beyond what was sent gives no credit at all. */
	h.op = VSOCK_OP_CREDIT_UPDATE;
	h.fwd_cnt = 1000;
	tx_raw(f, &h, NULL, 0);
	assert_false(rx_get(f, &got, NULL));
	h.op = VSOCK_OP_RST;
	tx_raw(f, &h, NULL, 0);
}

/* Bad host lines close the host socket and reach no guest. */
static void test_bad_lines(void **state)
{
	struct fix *f = *state;
	static const char *const bad[] = {
		"CONNECT\n",
		"CONNECT x\n",
		"connect 5\n",
		"CONNECT 5 \n",
		"CONNECT 4294967296\n",
		"CONNECT -1\n",
		"CONNECT  5\n",
		"CONNECT 99999999999\n",
		"CONNECT 123456789012345678901234567890\n",
	};
	struct vsock_hdr h;

	rx_give(f, 4);
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		fake_open(&f->host, 20 + i);
		host_says(f, 20 + i, bad[i]);
		vsock_hy_host_accept(&f->hy, 20 + i);
		assert_false(f->host.s[20 + i].open);
	}
	/* A peer that closes before its line ends. */
	fake_open(&f->host, 40);
	host_says(f, 40, "CONN");
	vsock_hy_host_accept(&f->hy, 40);
	assert_true(f->host.s[40].open);
	f->host.s[40].eof = true;
	vsock_hy_host_ready(&f->hy, 40);
	assert_false(f->host.s[40].open);
	/* One that never ends it: closed after the timeout. */
	fake_open(&f->host, 41);
	host_says(f, 41, "CONNECT 12");
	vsock_hy_host_accept(&f->hy, 41);
	assert_int_equal(vsock_hy_tick(&f->hy), VSOCK_HY_TIMEOUT_MS);
	f->host.now += VSOCK_HY_TIMEOUT_MS;
	assert_int_equal(vsock_hy_tick(&f->hy), -1);
	assert_false(f->host.s[41].open);
	assert_false(rx_get(f, &h, NULL));
	/* The line's largest port is fine. */
	fake_open(&f->host, 42);
	host_says(f, 42, "CONNECT 4294967295\n");
	vsock_hy_host_accept(&f->hy, 42);
	expect_pkt(f, VSOCK_OP_REQUEST, 4294967295u, VSOCK_HY_HOST_PORT_BASE);
	/* The guest refuses it: the host socket is closed. */
	tx(f, VSOCK_OP_RST, 4294967295u, VSOCK_HY_HOST_PORT_BASE, 0, NULL, 0);
	assert_false(f->host.s[42].open);
}

/* The guest never answers a REQUEST: a RST, and the host socket closed. */
static void test_request_timeout(void **state)
{
	struct fix *f = *state;

	fake_open(&f->host, 6);
	host_says(f, 6, "CONNECT 80\n");
	vsock_hy_host_accept(&f->hy, 6);
	rx_give(f, 2);
	expect_pkt(f, VSOCK_OP_REQUEST, 80, VSOCK_HY_HOST_PORT_BASE);
	f->host.now += VSOCK_HY_TIMEOUT_MS - 1;
	assert_int_equal(vsock_hy_tick(&f->hy), 1);
	f->host.now++;
	vsock_hy_tick(&f->hy);
	assert_false(f->host.s[6].open);
	expect_pkt(f, VSOCK_OP_RST, 80, VSOCK_HY_HOST_PORT_BASE);
}

/* The guest sends h (no payload) and gets a RST for it. */
static void rst_for(struct fix *f, const struct vsock_hdr *h)
{
	tx_raw(f, h, NULL, 0);
	expect_pkt(f, VSOCK_OP_RST, h->src_port, h->dst_port);
}

/* Malformed guest packets: dropped or RST, lkvm goes on. */
static void test_bad_packets(void **state)
{
	struct fix *f = *state;
	struct vsock_hdr h = ghdr(VSOCK_OP_RW, 1, 2), got;
	struct vqm_buf b;

	rx_give(f, 16);
	/* Data for no connection. */
	tx_raw(f, &h, "x", 0);
	expect_pkt(f, VSOCK_OP_RST, 1, 2);
	/* Another source CID: dropped without a word. */
	h.src_cid = CID + 1;
	h.op = VSOCK_OP_REQUEST;
	tx_raw(f, &h, NULL, 0);
	assert_false(rx_get(f, &got, NULL));
	/*
	 * Another destination, a datagram type, an unknown op, a len beyond
	 * the buffer (and on a REQUEST): RST.
	 */
	for (unsigned int i = 0; i < 4; i++) {
		h = ghdr(VSOCK_OP_REQUEST, 1, 2);
		h.dst_cid = i == 0 ? 3 : VSOCK_HOST_CID;
		h.type = i == 1 ? 2 : VSOCK_TYPE_STREAM;
		h.op = i == 2 ? 99 : VSOCK_OP_REQUEST;
		h.len = i == 3 ? 5 : 0;
		rst_for(f, &h);
	}
	assert_int_equal(f->host.connects, 0);
	/* A buffer shorter than a header: dropped. */
	b = vqm_buf_new(&f->q[1], 10, false, 0xff);
	vqm_add(&f->q[1], &b, 1);
	vqm_mmio_wr(&f->hy.dev.vm, VIRTIO_MMIO_QUEUE_NOTIFY, 1);
	assert_false(rx_get(f, &got, NULL));
	/* No RST answers a RST. */
	h.len = 0;
	h.op = VSOCK_OP_RST;
	tx_raw(f, &h, NULL, 0);
	assert_false(rx_get(f, &got, NULL));
	/* And the device still works. */
	f->connect_ret[2] = 3;
	h.op = VSOCK_OP_REQUEST;
	h.dst_port = 2;
	tx_raw(f, &h, NULL, 0);
	expect_pkt(f, VSOCK_OP_RESPONSE, 1, 2);
	assert_int_equal(virtio_core_queue_live(&f->hy.dev.vm.core, 1), true);
	h.op = VSOCK_OP_RST;
	tx_raw(f, &h, NULL, 0);
}

/* RSTs wait for receive buffers; past VSOCK_HY_RST_MAX the tx queue waits. */
static void test_rsts_wait_for_buffers(void **state)
{
	struct fix *f = *state;
	struct vsock_hdr got;
	unsigned int n = 0;

	for (unsigned int i = 0; i < NUM - 1; i++)
		tx(f, VSOCK_OP_RW, 100 + i, 9, 0, NULL, 0);
	assert_int_equal(f->hy.nr_rst, NUM - 1);
	rx_give(f, NUM);
	while (rx_get(f, &got, NULL)) {
		assert_int_equal(got.op, VSOCK_OP_RST);
		assert_int_equal(got.dst_port, 100 + n);
		n++;
	}
	assert_int_equal(n, NUM - 1);
}

/* No more than VSOCK_HY_MAX_CONNS connections; a device reset closes all. */
static void test_conn_cap_and_reset(void **state)
{
	struct fix *f = *state;
	struct vsock_hdr got;

	for (int i = 0; i < FAKE_NH; i++) {
		fake_open(&f->host, i);
		int ret = vsock_hy_host_accept(&f->hy, i);

		assert_int_equal(ret, i < VSOCK_HY_MAX_CONNS ? 0 : -ENOSPC);
		assert_int_equal(f->host.s[i].open, i < VSOCK_HY_MAX_CONNS);
	}
	assert_int_equal(vsock_hy_nr_conns(&f->hy), VSOCK_HY_MAX_CONNS);
	vqm_mmio_wr(&f->hy.dev.vm, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(vsock_hy_nr_conns(&f->hy), 0);
	for (int i = 0; i < FAKE_NH; i++)
		assert_false(f->host.s[i].open);
	/* No driver: a host peer is closed at once. */
	fake_open(&f->host, 0);
	assert_int_equal(vsock_hy_host_accept(&f->hy, 0), -EAGAIN);
	assert_false(f->host.s[0].open);
	assert_false(rx_get(f, &got, NULL));
}

/* The host peer goes away while guest bytes wait: RST for the guest. */
static void test_host_gone(void **state)
{
	struct fix *f = *state;

	host_connects(f);
	f->host.s[5].gone = true;
	tx(f, VSOCK_OP_RW, 1234, VSOCK_HY_HOST_PORT_BASE, 0, "abc", 3);
	assert_false(f->host.s[5].open);
	expect_pkt(f, VSOCK_OP_RST, 1234, VSOCK_HY_HOST_PORT_BASE);
}

/* A second REQUEST on an open connection resets it. */
static void test_duplicate_request(void **state)
{
	struct fix *f = *state;

	f->connect_ret[1] = 13;
	rx_give(f, 4);
	tx(f, VSOCK_OP_REQUEST, 50, 1, 0, NULL, 0);
	expect_pkt(f, VSOCK_OP_RESPONSE, 50, 1);
	tx(f, VSOCK_OP_REQUEST, 50, 1, 0, NULL, 0);
	assert_false(f->host.s[13].open);
	expect_pkt(f, VSOCK_OP_RST, 50, 1);
	assert_int_equal(f->host.connects, 1);
}

static void test_hdr_roundtrip(void **state)
{
	const struct vsock_hdr h = { 0x1122334455667788ULL,
				     0x99aabbccddeeff00ULL,
				     1,
				     2,
				     3,
				     4,
				     5,
				     6,
				     7,
				     8 };
	struct vsock_hdr g;
	uint8_t b[VSOCK_HDR_SIZE];

	(void)state;
	vsock_hdr_encode(&h, b);
	assert_int_equal(b[0], 0x88);
	assert_int_equal(b[30], 5); /* op, le16 at 30 */
	vsock_hdr_decode(&g, b);
	assert_memory_equal(&g, &h, sizeof(g));
}

/* A test on a device whose driver is up, with a fresh fake host. */
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hdr_roundtrip),
		T(test_host_to_guest),
		T(test_guest_to_host),
		T(test_refused),
		T(test_slow_host_credit),
		T(test_credit_violation),
		T(test_guest_credit_respected),
		T(test_bad_lines),
		T(test_request_timeout),
		T(test_bad_packets),
		T(test_rsts_wait_for_buffers),
		T(test_conn_cap_and_reset),
		T(test_host_gone),
		T(test_duplicate_request),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
