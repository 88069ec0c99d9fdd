// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the user-space ("hybrid") virtio-vsock device: a hostile driver
 * whose rings and packets live in a 64 KiB fake guest RAM at guest address
 * 0 (a copy of the input's tail), interleaved with events from hostile
 * host peers: connections accepted, bytes and end of stream from them,
 * sockets that stop taking bytes or break, and time passing.
 *
 * Input:  [ops_len: u16] [ops: ops_len bytes] [RAM image]
 * Ops (first byte % 10):
 *   0  driver setup [features: u8] [ring size sels: u8 x 3]: rx ring at
 *      0x0000, tx at 0x2000, event at 0x4000, DRIVER_OK
 *   1  publish an rx chain [head: u16], notify queue 0
 *   2  publish a tx chain [head: u16], notify queue 1
 *   3  a guest packet [slot: u8] [op: u8] [sel: u8] [src_port: u8]
 *      [dst_port: u8] [len: u16] [flags: u8] [buf_alloc: u32]
 *      [fwd_cnt: u32]: its header written at 0x8000 + slot % 32 * 0x100
 *      (sel: bit 0 another src_cid, bit 1 another dst_cid, bit 2 type
 *      2), then tx head slot % 32 published and notified
 *   4  a host peer connects [h: u8]
 *   5  host bytes [h: u8] [kind: u8] [n: u8]: "CONNECT <n>\n", a counter
 *      stream of n bytes, or end of stream
 *   6  host socket state [h: u8] [room: u8] [gone: u8], then ready
 *   7  time passes [ms: u16], tick
 *   8  guest poke [u16 offset] [u8 len] [bytes]
 *   9  device reset, or a register write [reg: u8] [value: u32]
 * Checked after every op: each handle the device holds is open, each
 * open one is held (none leaks, none is closed twice), no connection
 * holds more than VSOCK_HY_BUF_ALLOC bytes, every host op gets an open
 * handle and a length it can take.  At the end every handle is closed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "virtio/vsock_hybrid.h"
#include "lib/log.h"
#include "tests/fuzz/fuzz_virtio_util.h"
#define FAKE_CHECK CHECK
#include "tests/unit/slot_res.h"
#include "tests/unit/vsock_hy_fake.h"

#define NH FAKE_NH
#define GUEST_CID 3

struct fuzz_ctx {
	struct fake_host host; /* first: the ops' opaque */
	struct guest_mem mem;
	struct vsock_hy hy;
	int level;
	uint8_t next[NH]; /* each host peer's counter stream */
	struct fuzz_ring rings[3];
	struct fuzz_in in;
};

/* Ports that are 0 mod 3 have no listener; others get a free handle. */
static int fuzz_connect(struct fake_host *fh, uint32_t port)
{
	if (port % 3 == 0)
		return -ECONNREFUSED;
	for (int h = NH / 2; h < NH; h++)
		if (!fh->s[h].open)
			return h;
	return -EMFILE;
}

static void fuzz_invariants(struct fuzz_ctx *c)
{
	unsigned int held = 0, open = 0;

	for (unsigned int i = 0; i < VSOCK_HY_MAX_CONNS; i++) {
		const struct vsock_hy_conn *k = &c->hy.conns[i];

		CHECK(k->buf_len <= VSOCK_HY_BUF_ALLOC);
		if (k->state == VSOCK_HY_FREE || k->h < 0)
			continue;
		CHECK(k->h < NH && c->host.s[k->h].open);
		held++;
	}
	for (unsigned int h = 0; h < NH; h++)
		open += c->host.s[h].open;
	CHECK(held == open);
	CHECK(c->hy.nr_rst <= VSOCK_HY_RST_MAX);
}

static void fuzz_setup(struct fuzz_ctx *c)
{
	uint64_t features = fuzz_transport_features(fuzz_u8(&c->in));

	for (unsigned int q = 0; q < 3; q++)
		fuzz_ring_at(&c->rings[q], 0x2000 * q, fuzz_u8(&c->in) % 8);
	fuzz_mmio_driver_up(&c->hy.dev.vm, features, c->rings, 3);
}

static void fuzz_publish_q(struct fuzz_ctx *c, unsigned int q)
{
	if (c->rings[q].num)
		fuzz_publish(&c->mem, &c->rings[q], &c->in);
	else
		fuzz_u16(&c->in);
	vqm_mmio_wr_n(&c->hy.dev.vm, VIRTIO_MMIO_QUEUE_NOTIFY, q, 4);
}

static void fuzz_packet(struct fuzz_ctx *c)
{
	uint8_t slot = fuzz_u8(&c->in) % 32, op = fuzz_u8(&c->in);
	uint8_t sel = fuzz_u8(&c->in);
	struct vsock_hdr h = {
		.src_cid = sel & 1 ? 2 : GUEST_CID,
		.dst_cid = sel & 2 ? GUEST_CID : VSOCK_HOST_CID,
		.type = sel & 4 ? 2 : VSOCK_TYPE_STREAM,
		.op = op % 9,
	};
	uint8_t *p = (uint8_t *)c->mem.host + 0x8000 + slot * 0x100;

	h.src_port = fuzz_u8(&c->in);
	h.dst_port = fuzz_u8(&c->in);
	if (h.dst_port >= 0xf0)
		h.dst_port = VSOCK_HY_HOST_PORT_BASE + (h.dst_port & 0xf);
	h.len = fuzz_u16(&c->in);
	h.flags = fuzz_u8(&c->in);
	h.buf_alloc = fuzz_u32(&c->in);
	h.fwd_cnt = fuzz_u32(&c->in);
	vsock_hdr_encode(&h, p);
	if (c->rings[1].num) {
		uint8_t *a = (uint8_t *)c->mem.host + c->rings[1].avail;
		uint16_t idx = mmio_data_get(a + 2, 2);

		mmio_data_put(a + 4 + 2 * (idx % c->rings[1].num), 2,
			      slot % c->rings[1].num);
		mmio_data_put(a + 2, 2, (uint16_t)(idx + 1));
	}
	vqm_mmio_wr_n(&c->hy.dev.vm, VIRTIO_MMIO_QUEUE_NOTIFY, 1, 4);
}

static void fuzz_accept(struct fuzz_ctx *c)
{
	int h = fuzz_u8(&c->in) % (NH / 2);

	if (c->host.s[h].open)
		return;
	fake_open(&c->host, h);
	vsock_hy_host_accept(&c->hy, h);
}

static void fuzz_host_bytes(struct fuzz_ctx *c)
{
	int h = fuzz_u8(&c->in) % NH;
	uint8_t kind = fuzz_u8(&c->in), n = fuzz_u8(&c->in);
	struct fake_stream *s = &c->host.s[h];
	uint8_t buf[256];
	int len = n;

	if (!s->open)
		return;
	if (s->in_off == s->in_len)
		s->in_off = s->in_len = 0;
	if (kind % 3 == 0)
		len = snprintf((char *)buf, sizeof(buf), "CONNECT %u\n", n);
	else
		for (int i = 0; i < len; i++)
			buf[i] = c->next[h]++;
	if (kind % 3 == 2)
		s->eof = true;
	else
		fake_input(&c->host, h, buf, len);
	vsock_hy_host_ready(&c->hy, h);
}

static void fuzz_host_state(struct fuzz_ctx *c)
{
	int h = fuzz_u8(&c->in) % NH;
	uint8_t room = fuzz_u8(&c->in), gone = fuzz_u8(&c->in);

	if (!c->host.s[h].open)
		return;
	c->host.s[h].room = room == 255 ? SIZE_MAX : room * 64u;
	c->host.s[h].gone = gone == 0xee;
	vsock_hy_host_ready(&c->hy, h);
}

static void fuzz_tick(struct fuzz_ctx *c)
{
	int64_t next;

	c->host.now += fuzz_u16(&c->in);
	next = vsock_hy_tick(&c->hy);
	CHECK(next >= -1 && next <= VSOCK_HY_TIMEOUT_MS);
}

static void fuzz_reg(struct fuzz_ctx *c)
{
	uint8_t reg = fuzz_u8(&c->in);
	uint32_t v = fuzz_u32(&c->in);

	if (reg & 0x80) {
		vqm_mmio_wr_n(&c->hy.dev.vm, VIRTIO_MMIO_STATUS, 0, 4);
		CHECK(vsock_hy_nr_conns(&c->hy) == 0);
		return;
	}
	if (reg == VIRTIO_MMIO_QUEUE_NOTIFY / 4)
		v &= 3;
	vqm_mmio_wr_n(&c->hy.dev.vm, reg * 4u, v, 4);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_ctx c;
	const struct irq_line irq = { fuzz_irq_edge, &c.level };

	log_level = -1;
	if (size < 2)
		return 0;
	memset(&c, 0, sizeof(c));
	c.host.connect = fuzz_connect;
	fuzz_ram_alloc(&c.mem);
	fuzz_split_input(data, size, 2, &c.mem, &c.in);
	CHECK(!vsock_hy_init(&c.hy, &SLOT_RES(0), &c.mem, &irq, GUEST_CID,
			     &fake_host_ops, &c.host));
	while (c.in.p < c.in.end) {
		switch (fuzz_u8(&c.in) % 10) {
		case 0:
			fuzz_setup(&c);
			break;
		case 1:
			fuzz_publish_q(&c, 0);
			break;
		case 2:
			fuzz_publish_q(&c, 1);
			break;
		case 3:
			fuzz_packet(&c);
			break;
		case 4:
			fuzz_accept(&c);
			break;
		case 5:
			fuzz_host_bytes(&c);
			break;
		case 6:
			fuzz_host_state(&c);
			break;
		case 7:
			fuzz_tick(&c);
			break;
		case 8:
			fuzz_poke(&c.mem, &c.in);
			break;
		default:
			fuzz_reg(&c);
		}
		fuzz_invariants(&c);
	}
	vsock_hy_destroy(&c.hy);
	CHECK(fake_finish(&c.host) == 0);
	fuzz_ram_free(&c.mem);
	return 0;
}
