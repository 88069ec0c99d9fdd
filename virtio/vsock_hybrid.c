// SPDX-License-Identifier: GPL-2.0
/* virtio-vsock served in user space ("hybrid"); see vsock_hybrid.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "virtio/vsock_hybrid.h"

#define RXQ 0
#define TXQ 1

void vsock_hdr_decode(struct vsock_hdr *h, const uint8_t *b)
{
	h->src_cid = mmio_data_get(b, 8);
	h->dst_cid = mmio_data_get(b + 8, 8);
	h->src_port = mmio_data_get(b + 16, 4);
	h->dst_port = mmio_data_get(b + 20, 4);
	h->len = mmio_data_get(b + 24, 4);
	h->type = mmio_data_get(b + 28, 2);
	h->op = mmio_data_get(b + 30, 2);
	h->flags = mmio_data_get(b + 32, 4);
	h->buf_alloc = mmio_data_get(b + 36, 4);
	h->fwd_cnt = mmio_data_get(b + 40, 4);
}

void vsock_hdr_encode(const struct vsock_hdr *h, uint8_t *b)
{
	mmio_data_put(b, 8, h->src_cid);
	mmio_data_put(b + 8, 8, h->dst_cid);
	mmio_data_put(b + 16, 4, h->src_port);
	mmio_data_put(b + 20, 4, h->dst_port);
	mmio_data_put(b + 24, 4, h->len);
	mmio_data_put(b + 28, 2, h->type);
	mmio_data_put(b + 30, 2, h->op);
	mmio_data_put(b + 32, 4, h->flags);
	mmio_data_put(b + 36, 4, h->buf_alloc);
	mmio_data_put(b + 40, 4, h->fwd_cnt);
}

/* --- connections ---------------------------------------------------------- */

static struct vsock_hy_conn *hy_conn_new(struct vsock_hy *hy, int h,
					 enum vsock_hy_state state)
{
	for (unsigned int i = 0; i < VSOCK_HY_MAX_CONNS; i++) {
		struct vsock_hy_conn *c = &hy->conns[i];

		if (c->state != VSOCK_HY_FREE)
			continue;
		*c = (struct vsock_hy_conn){ .state = state,
					     .h = h,
					     .host_readable = true };
		hy->stats.conns++;
		return c;
	}
	return NULL;
}

/* The connection of a guest packet (not one still reading its line). */
static struct vsock_hy_conn *hy_conn_find(struct vsock_hy *hy, uint32_t gport,
					  uint32_t hport)
{
	for (unsigned int i = 0; i < VSOCK_HY_MAX_CONNS; i++) {
		struct vsock_hy_conn *c = &hy->conns[i];

		if (c->state > VSOCK_HY_LINE && c->gport == gport &&
		    c->hport == hport)
			return c;
	}
	return NULL;
}

static struct vsock_hy_conn *hy_conn_by_handle(struct vsock_hy *hy, int h)
{
	for (unsigned int i = 0; i < VSOCK_HY_MAX_CONNS; i++)
		if (hy->conns[i].state != VSOCK_HY_FREE &&
		    hy->conns[i].state != VSOCK_HY_CLOSING &&
		    hy->conns[i].h == h)
			return &hy->conns[i];
	return NULL;
}

static void hy_conn_close_host(struct vsock_hy *hy, struct vsock_hy_conn *c)
{
	if (c->h >= 0)
		hy->ops.close(hy->opaque, c->h);
	c->h = -1;
}

/* Forget c at once (the guest knows, or never knew, of it). */
static void hy_conn_free(struct vsock_hy *hy, struct vsock_hy_conn *c)
{
	hy_conn_close_host(hy, c);
	free(c->buf);
	*c = (struct vsock_hy_conn){ .state = VSOCK_HY_FREE, .h = -1 };
}

/* Close the host side and tell the guest with a RST (sent by the rx pass). */
static void hy_conn_reset(struct vsock_hy *hy, struct vsock_hy_conn *c)
{
	if (c->state == VSOCK_HY_LINE) {
		hy_conn_free(hy, c);
		return;
	}
	hy_conn_close_host(hy, c);
	free(c->buf);
	c->buf = NULL;
	c->buf_len = 0;
	c->pend = 0;
	c->state = VSOCK_HY_CLOSING;
}

/* Room left in the guest's buffer for bytes from the host. */
static uint32_t hy_peer_credit(const struct vsock_hy_conn *c)
{
	uint32_t in_flight = c->tx_cnt - c->peer_fwd_cnt;

	return in_flight > c->peer_buf_alloc ? 0 :
					       c->peer_buf_alloc - in_flight;
}

/* A RST for a packet of no connection: queued, if there is room. */
static void hy_rst_queue(struct vsock_hy *hy, const struct vsock_hdr *h)
{
	if (h->op == VSOCK_OP_RST)
		return;
	if (hy->nr_rst == VSOCK_HY_RST_MAX) {
		hy->stats.dropped++;
		return;
	}
	hy->rst[hy->nr_rst].hport = h->dst_port;
	hy->rst[hy->nr_rst].gport = h->src_port;
	hy->nr_rst++;
}

/* --- guest to host -------------------------------------------------------- */

static void hy_credit_check(struct vsock_hy_conn *c)
{
	/* What the guest takes to be used of the buffer it was told of. */
	uint32_t seen_used = c->rx_cnt - c->fwd_told;

	if (c->fwd_cnt != c->fwd_told &&
	    seen_used > VSOCK_HY_BUF_ALLOC - VSOCK_HY_PKT_MAX)
		c->pend |= VSOCK_HY_PEND_CREDIT;
}

/* The guest sent everything it will and all of it reached the host. */
static void hy_conn_drained(struct vsock_hy *hy, struct vsock_hy_conn *c)
{
	if (c->buf_len || !(c->guest_shut & VSOCK_SHUTDOWN_SEND))
		return;
	if (c->guest_shut == (VSOCK_SHUTDOWN_SEND | VSOCK_SHUTDOWN_RCV)) {
		/* The guest closed its socket: the last word is our RST. */
		hy_conn_reset(hy, c);
		return;
	}
	if (!c->shut_wr_done)
		hy->ops.shutdown_wr(hy->opaque, c->h);
	c->shut_wr_done = true;
}

/* Send what waits in c->buf to the host; false when the host is gone. */
static bool hy_flush(struct vsock_hy *hy, struct vsock_hy_conn *c)
{
	while (c->buf_len) {
		uint32_t n = VSOCK_HY_BUF_ALLOC - c->buf_head;
		long s;

		if (n > c->buf_len)
			n = c->buf_len;
		s = hy->ops.send(hy->opaque, c->h, c->buf + c->buf_head, n);
		if (s == -EAGAIN)
			break;
		if (s <= 0 || (uint32_t)s > n)
			return false;
		c->buf_head = (c->buf_head + s) % VSOCK_HY_BUF_ALLOC;
		c->buf_len -= s;
		c->fwd_cnt += s;
	}
	hy_credit_check(c);
	return true;
}

/* Keep p[0, n) for the host after what already waits; false: no memory. */
static bool hy_buffer(struct vsock_hy_conn *c, const uint8_t *p, uint32_t n)
{
	uint32_t tail, first;

	if (!n)
		return true;
	if (!c->buf) {
		c->buf = malloc(VSOCK_HY_BUF_ALLOC);
		if (!c->buf)
			return false;
		c->buf_head = 0;
	}
	tail = (c->buf_head + c->buf_len) % VSOCK_HY_BUF_ALLOC;
	first = VSOCK_HY_BUF_ALLOC - tail;
	if (first > n)
		first = n;
	memcpy(c->buf + tail, p, first);
	memcpy(c->buf, p + first, n - first);
	c->buf_len += n;
	return true;
}

/* An RW packet's len bytes at r (checked against the chain) for c. */
static void hy_guest_rw(struct vsock_hy *hy, struct vsock_hy_conn *c,
			struct virtq_reader *r, uint32_t len)
{
	uint32_t off = 0;
	long s;

	if (c->guest_shut & VSOCK_SHUTDOWN_SEND) {
		pr_guest_once("virtio-vsock: data after the guest's shutdown");
		hy_conn_reset(hy, c);
		return;
	}
	if ((uint64_t)c->buf_len + len > VSOCK_HY_BUF_ALLOC) {
		pr_guest_once("virtio-vsock: the guest sent beyond its credit");
		hy_conn_reset(hy, c);
		return;
	}
	virtq_reader_read(r, hy->bounce, len);
	c->rx_cnt += len;
	if (!c->buf_len && len) {
		s = hy->ops.send(hy->opaque, c->h, hy->bounce, len);
		if (s != -EAGAIN && (s <= 0 || (uint32_t)s > len)) {
			hy_conn_reset(hy, c);
			return;
		}
		off = s > 0 ? s : 0;
		c->fwd_cnt += off;
	}
	if (!hy_buffer(c, hy->bounce + off, len - off)) {
		pr_once(LOG_WARN,
			"virtio-vsock: out of memory for a connection");
		hy_conn_reset(hy, c);
		return;
	}
	hy_credit_check(c);
}

/* A guest REQUEST to host port h->dst_port. */
static void hy_guest_connect(struct vsock_hy *hy, const struct vsock_hdr *h)
{
	struct vsock_hy_conn *c = hy_conn_new(hy, -1, VSOCK_HY_EST);
	int fd;

	if (!c) {
		pr_once(LOG_WARN,
			"virtio-vsock: %u connections open, refusing more",
			VSOCK_HY_MAX_CONNS);
		hy_rst_queue(hy, h);
		return;
	}
	fd = hy->ops.connect(hy->opaque, h->dst_port);
	if (fd < 0) {
		hy_conn_free(hy, c);
		hy_rst_queue(hy, h);
		return;
	}
	c->h = fd;
	c->gport = h->src_port;
	c->hport = h->dst_port;
	c->peer_buf_alloc = h->buf_alloc;
	c->peer_fwd_cnt = h->fwd_cnt;
	c->pend = VSOCK_HY_PEND_RESPONSE;
}

/* "OK <hostport>\n" to the host peer: the guest accepted. */
static void hy_guest_response(struct vsock_hy *hy, struct vsock_hy_conn *c)
{
	char ok[24];
	int n = snprintf(ok, sizeof(ok), "OK %u\n", c->hport);

	c->state = VSOCK_HY_EST;
	if (hy->ops.send(hy->opaque, c->h, ok, n) != n)
		hy_conn_reset(hy, c);
}

static void hy_guest_shutdown(struct vsock_hy *hy, struct vsock_hy_conn *c,
			      uint32_t flags)
{
	if (flags & ~(uint32_t)(VSOCK_SHUTDOWN_RCV | VSOCK_SHUTDOWN_SEND))
		pr_guest_once("virtio-vsock: shutdown flags %#x", flags);
	c->guest_shut |= flags & (VSOCK_SHUTDOWN_RCV | VSOCK_SHUTDOWN_SEND);
	hy_conn_drained(hy, c);
}

/* A packet for connection c, in state EST or REQUEST. */
static void hy_guest_conn_pkt(struct vsock_hy *hy, struct vsock_hy_conn *c,
			      const struct vsock_hdr *h, struct virtq_reader *r)
{
	bool est = c->state == VSOCK_HY_EST;

	c->peer_buf_alloc = h->buf_alloc;
	c->peer_fwd_cnt = h->fwd_cnt;
	switch (h->op) {
	case VSOCK_OP_RST:
		hy_conn_free(hy, c);
		return;
	case VSOCK_OP_RESPONSE:
		if (!est && !(c->pend & VSOCK_HY_PEND_REQUEST))
			return hy_guest_response(hy, c);
		break;
	case VSOCK_OP_RW:
		if (est)
			return hy_guest_rw(hy, c, r, h->len);
		break;
	case VSOCK_OP_SHUTDOWN:
		if (est)
			return hy_guest_shutdown(hy, c, h->flags);
		break;
	case VSOCK_OP_CREDIT_REQUEST:
		if (est)
			c->pend |= VSOCK_HY_PEND_CREDIT;
		return;
	case VSOCK_OP_CREDIT_UPDATE:
		return; /* the credit is taken from every header */
	}
	pr_guest_once("virtio-vsock: op %u does not fit the connection's state",
		      h->op);
	hy_conn_reset(hy, c);
}

/* Do op and len fit, with payload bytes after the header? */
static bool hy_guest_len_ok(const struct vsock_hdr *h, uint64_t payload)
{
	if (h->op < VSOCK_OP_REQUEST || h->op > VSOCK_OP_CREDIT_REQUEST) {
		pr_guest_once("virtio-vsock: op %u", h->op);
		return false;
	}
	if ((h->op == VSOCK_OP_RW && h->len > VSOCK_HY_PKT_MAX) ||
	    (h->op != VSOCK_OP_RW && h->len) || h->len > payload) {
		pr_guest_once(
			"virtio-vsock: op %u with len %u, %llu bytes after the header",
			h->op, h->len, (unsigned long long)payload);
		return false;
	}
	return true;
}

static void hy_guest_pkt(struct vsock_hy *hy, const struct vsock_hdr *h,
			 struct virtq_reader *r)
{
	struct vsock_hy_conn *c;

	if (h->src_cid != hy->dev.guest_cid) {
		pr_guest_once("virtio-vsock: packet from CID %llu",
			      (unsigned long long)h->src_cid);
		hy->stats.dropped++;
		return;
	}
	if (h->dst_cid != VSOCK_HOST_CID || h->type != VSOCK_TYPE_STREAM) {
		pr_guest_once("virtio-vsock: packet to CID %llu, type %u",
			      (unsigned long long)h->dst_cid, h->type);
		hy_rst_queue(hy, h);
		return;
	}
	c = hy_conn_find(hy, h->src_port, h->dst_port);
	if (c && c->state == VSOCK_HY_CLOSING) {
		if (h->op == VSOCK_OP_RST)
			hy_conn_free(hy, c); /* no RST for a RST */
		return;
	}
	if (!hy_guest_len_ok(h, virtq_reader_remaining(r))) {
		if (c)
			hy_conn_reset(hy, c);
		else
			hy_rst_queue(hy, h);
	} else if (!c && h->op == VSOCK_OP_REQUEST) {
		hy_guest_connect(hy, h);
	} else if (!c) {
		hy_rst_queue(hy, h);
	} else if (h->op == VSOCK_OP_REQUEST) {
		pr_guest_once("virtio-vsock: REQUEST for an open connection");
		hy_conn_reset(hy, c);
	} else {
		hy_guest_conn_pkt(hy, c, h, r);
	}
}

static int hy_tx_chain(void *opaque, const struct virtq_chain *chain,
		       uint32_t *len)
{
	struct vsock_hy *hy = opaque;
	uint8_t b[VSOCK_HDR_SIZE];
	struct virtq_reader r;
	struct vsock_hdr h;

	if (!hy->tx_budget || hy->nr_rst == VSOCK_HY_RST_MAX) {
		hy->tx_waits = hy->nr_rst == VSOCK_HY_RST_MAX;
		return -EAGAIN;
	}
	hy->tx_budget--;
	*len = 0;
	virtq_reader_init(&r, chain);
	if (virtq_reader_read(&r, b, sizeof(b)) < sizeof(b)) {
		pr_guest_once(
			"virtio-vsock: transmit buffer shorter than a header");
		hy->stats.dropped++;
		return 0;
	}
	vsock_hdr_decode(&h, b);
	hy_guest_pkt(hy, &h, &r);
	return 0;
}

/* --- host to guest -------------------------------------------------------- */

static void hy_hdr_for(const struct vsock_hy *hy, const struct vsock_hy_conn *c,
		       struct vsock_hdr *h, uint16_t op)
{
	*h = (struct vsock_hdr){
		.src_cid = VSOCK_HOST_CID,
		.dst_cid = hy->dev.guest_cid,
		.src_port = c->hport,
		.dst_port = c->gport,
		.type = VSOCK_TYPE_STREAM,
		.op = op,
		.buf_alloc = VSOCK_HY_BUF_ALLOC,
		.fwd_cnt = c->fwd_cnt,
	};
}

/* The control packet c owes the guest first, or 0. */
static uint16_t hy_ctrl_op(const struct vsock_hy_conn *c, uint32_t *flags)
{
	*flags = 0;
	if (c->state == VSOCK_HY_CLOSING)
		return VSOCK_OP_RST;
	if (c->pend & VSOCK_HY_PEND_REQUEST)
		return VSOCK_OP_REQUEST;
	if (c->pend & VSOCK_HY_PEND_RESPONSE)
		return VSOCK_OP_RESPONSE;
	if (c->pend & VSOCK_HY_PEND_SHUTDOWN) {
		*flags = VSOCK_SHUTDOWN_SEND;
		return VSOCK_OP_SHUTDOWN;
	}
	if (c->pend & VSOCK_HY_PEND_CREDIT)
		return VSOCK_OP_CREDIT_UPDATE;
	return 0;
}

static bool hy_wants_data(const struct vsock_hy_conn *c)
{
	return c->state == VSOCK_HY_EST && c->host_readable && !c->host_eof &&
	       !(c->guest_shut & VSOCK_SHUTDOWN_RCV) &&
	       !(c->pend & VSOCK_HY_PEND_RESPONSE) && hy_peer_credit(c);
}

/* The next connection with something for the guest, round robin. */
static struct vsock_hy_conn *hy_next_work(struct vsock_hy *hy)
{
	uint32_t flags;

	for (unsigned int n = 0; n < VSOCK_HY_MAX_CONNS; n++) {
		unsigned int i = (hy->rr + n) % VSOCK_HY_MAX_CONNS;
		struct vsock_hy_conn *c = &hy->conns[i];

		if (c->state <= VSOCK_HY_LINE)
			continue;
		if (hy_ctrl_op(c, &flags) || hy_wants_data(c)) {
			hy->rr = (i + 1) % VSOCK_HY_MAX_CONNS;
			return c;
		}
	}
	return NULL;
}

/* Header (and payload) into the chain's writable part; the used length. */
static uint32_t hy_put(struct vsock_hy *hy, const struct vsock_hdr *h,
		       const void *payload)
{
	uint8_t b[VSOCK_HDR_SIZE];
	struct virtq_writer w;

	vsock_hdr_encode(h, b);
	virtq_writer_init(&w, &hy->chain);
	virtq_writer_write(&w, b, sizeof(b));
	if (h->len)
		virtq_writer_write(&w, payload, h->len);
	return virtq_writer_written(&w);
}

static uint32_t hy_put_ctrl(struct vsock_hy *hy, struct vsock_hy_conn *c)
{
	struct vsock_hdr h;
	uint32_t flags;
	uint16_t op = hy_ctrl_op(c, &flags);

	hy_hdr_for(hy, c, &h, op);
	h.flags = flags;
	c->fwd_told = c->fwd_cnt;
	c->pend &= ~VSOCK_HY_PEND_CREDIT;
	if (op == VSOCK_OP_RST) {
		hy->stats.rsts_sent++;
		h.buf_alloc = h.fwd_cnt = 0;
		hy_conn_free(hy, c);
	} else if (op == VSOCK_OP_REQUEST) {
		c->pend &= ~VSOCK_HY_PEND_REQUEST;
	} else if (op == VSOCK_OP_RESPONSE) {
		c->pend &= ~VSOCK_HY_PEND_RESPONSE;
	} else if (op == VSOCK_OP_SHUTDOWN) {
		c->pend &= ~VSOCK_HY_PEND_SHUTDOWN;
	}
	return hy_put(hy, &h, NULL);
}

/*
 * Host bytes for c into the chain (room bytes after the header): the used
 * length; *gave_back when the chain is to be given back (nothing to read).
 */
static uint32_t hy_put_data(struct vsock_hy *hy, struct vsock_hy_conn *c,
			    uint64_t room, bool *gave_back)
{
	uint32_t credit = hy_peer_credit(c);
	struct vsock_hdr h;
	long n;

	if (room > credit)
		room = credit;
	if (room > VSOCK_HY_PKT_MAX)
		room = VSOCK_HY_PKT_MAX;
	if (!room) {
		pr_guest_once(
			"virtio-vsock: receive buffer with no room for data");
		return 0; /* returned unused */
	}
	n = hy->ops.recv(hy->opaque, c->h, hy->bounce, room);
	if (n == -EAGAIN) {
		c->host_readable = false;
		*gave_back = true;
		return 0;
	}
	if (n == 0) {
		c->host_eof = true;
		c->pend |= VSOCK_HY_PEND_SHUTDOWN;
		return hy_put_ctrl(hy, c);
	}
	if (n < 0 || (uint64_t)n > room) {
		hy_conn_reset(hy, c);
		return hy_put_ctrl(hy, c);
	}
	hy_hdr_for(hy, c, &h, VSOCK_OP_RW);
	h.len = n;
	c->tx_cnt += n;
	c->fwd_told = c->fwd_cnt;
	c->pend &= ~VSOCK_HY_PEND_CREDIT;
	return hy_put(hy, &h, hy->bounce);
}

/* One packet into the popped chain: the used length, or 0 to unpop. */
static uint32_t hy_rx_one(struct vsock_hy *hy, bool *gave_back)
{
	uint64_t room = hy->chain.writable_len;
	struct vsock_hy_conn *c;
	uint32_t flags;

	*gave_back = false;
	if (room < VSOCK_HDR_SIZE) {
		pr_guest_once(
			"virtio-vsock: receive buffer shorter than a header");
		return 0;
	}
	if (hy->nr_rst) {
		struct vsock_hy_conn tmp = { .hport = hy->rst[0].hport,
					     .gport = hy->rst[0].gport };
		struct vsock_hdr h;

		hy_hdr_for(hy, &tmp, &h, VSOCK_OP_RST);
		h.buf_alloc = 0;
		memmove(hy->rst, hy->rst + 1,
			--hy->nr_rst * sizeof(hy->rst[0]));
		hy->stats.rsts_sent++;
		return hy_put(hy, &h, NULL);
	}
	c = hy_next_work(hy);
	if (c && hy_ctrl_op(c, &flags))
		return hy_put_ctrl(hy, c);
	if (c)
		return hy_put_data(hy, c, room - VSOCK_HDR_SIZE, gave_back);
	*gave_back = true;
	return 0;
}

static bool hy_rx_more(struct vsock_hy *hy)
{
	for (unsigned int i = 0; i < VSOCK_HY_MAX_CONNS; i++) {
		struct vsock_hy_conn *c = &hy->conns[i];
		uint32_t flags;

		if (c->state > VSOCK_HY_LINE &&
		    (hy_ctrl_op(c, &flags) || hy_wants_data(c)))
			return true;
	}
	return hy->nr_rst;
}

/* Lock held: fill receive buffers with what the guest is owed. */
static void hy_rx_pass(struct vsock_hy *hy)
{
	struct virtqueue *vq = virtio_mmio_queue(&hy->dev.vm, RXQ);
	unsigned int pushed = 0, budget = VSOCK_HY_BUDGET;
	bool gave_back = false;
	int ret = 0;

	if (!hy->running || !virtio_mmio_queue_live(&hy->dev.vm, RXQ))
		return;
	while (budget && hy_rx_more(hy) &&
	       (ret = virtq_pop(vq, &hy->chain)) > 0) {
		uint32_t used = hy_rx_one(hy, &gave_back);

		if (gave_back) {
			virtq_unpop(vq, 1);
			continue;
		}
		if (virtq_push(vq, hy->chain.head, used))
			break;
		pushed++;
		budget--;
	}
	if (!budget && hy_rx_more(hy))
		virtio_core_rearm_locked(&hy->dev.vm.core, RXQ);
	if (pushed || ret < 0)
		virtio_mmio_signal_used(&hy->dev.vm, RXQ);
	if (hy->tx_waits && hy->nr_rst < VSOCK_HY_RST_MAX) {
		hy->tx_waits = false;
		virtio_core_rearm_locked(&hy->dev.vm.core, TXQ);
	}
}

static void hy_tx_pass(struct vsock_hy *hy)
{
	int ret;

	hy->tx_budget = VSOCK_HY_BUDGET;
	ret = virtio_mmio_process(&hy->dev.vm, TXQ, &hy->chain, hy_tx_chain,
				  hy);
	if (ret == -EAGAIN && !hy->tx_waits)
		virtio_core_rearm_locked(&hy->dev.vm.core, TXQ);
	hy_rx_pass(hy);
}

/* --- the back-end of virtio/vsock.c --------------------------------------- */

static void hy_close_all(struct vsock_hy *hy)
{
	for (unsigned int i = 0; i < VSOCK_HY_MAX_CONNS; i++)
		if (hy->conns[i].state != VSOCK_HY_FREE)
			hy_conn_free(hy, &hy->conns[i]);
	hy->nr_rst = 0;
	hy->tx_waits = false;
}

/* DRIVER_OK: the rings are the device's own, nothing to hand over. */
static int hy_start(void *opaque, uint64_t features)
{
	((struct vsock_hy *)opaque)->running = true;
	return 0;
}

/* Device reset: every connection is gone with the guest's sockets. */
static void hy_stop(void *opaque)
{
	struct vsock_hy *hy = opaque;

	hy->running = false;
	hy_close_all(hy);
}

static void hy_kick(void *opaque, unsigned int q)
{
	struct vsock_hy *hy = opaque;

	if (!hy->running)
		return;
	if (q == TXQ)
		hy_tx_pass(hy);
	else
		hy_rx_pass(hy);
}

/* --- host events ---------------------------------------------------------- */

/* "CONNECT <port>": the port, or -1. */
static int64_t hy_parse_line(const char *s, unsigned int len)
{
	static const char verb[] = "CONNECT ";
	uint64_t port = 0;
	unsigned int i = sizeof(verb) - 1;

	if (len <= i || len > i + 10 || memcmp(s, verb, i))
		return -1;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		port = port * 10 + (s[i] - '0');
	}
	return port > UINT32_MAX ? -1 : (int64_t)port;
}

/* A host port for a connection to guest port gport, unused with it. */
static uint32_t hy_host_port(struct vsock_hy *hy, uint32_t gport)
{
	for (;;) {
		uint32_t p = hy->next_hport++;

		if (hy->next_hport < VSOCK_HY_HOST_PORT_BASE)
			hy->next_hport = VSOCK_HY_HOST_PORT_BASE;
		if (p >= VSOCK_HY_HOST_PORT_BASE && !hy_conn_find(hy, gport, p))
			return p;
	}
}

/* Read the CONNECT line byte by byte (the bytes after it are the guest's). */
static void hy_host_line(struct vsock_hy *hy, struct vsock_hy_conn *c)
{
	int64_t port;
	char ch;
	long n;

	for (;;) {
		n = hy->ops.recv(hy->opaque, c->h, &ch, 1);
		if (n == -EAGAIN)
			return;
		if (n != 1 || c->line_len == sizeof(c->line) - 1)
			break;
		if (ch == '\n')
			goto parse;
		c->line[c->line_len++] = ch;
	}
	if (n == 1)
		pr_once(LOG_WARN,
			"vsock: a host peer's CONNECT line is too long");
	hy_conn_free(hy, c);
	return;
parse:
	port = hy_parse_line(c->line, c->line_len);
	if (port < 0) {
		pr_once(LOG_WARN,
			"vsock: a host peer sent no 'CONNECT <port>' line");
		hy_conn_free(hy, c);
		return;
	}
	c->gport = port;
	c->hport = hy_host_port(hy, c->gport);
	c->state = VSOCK_HY_REQUEST;
	c->pend = VSOCK_HY_PEND_REQUEST;
	c->deadline = hy->ops.now_ms(hy->opaque) + VSOCK_HY_TIMEOUT_MS;
}

int vsock_hy_host_accept(struct vsock_hy *hy, int h)
{
	struct vsock_hy_conn *c = NULL;
	int ret = 0;

	virtio_mmio_lock(&hy->dev.vm);
	if (!hy->running)
		ret = -EAGAIN;
	else if (!(c = hy_conn_new(hy, h, VSOCK_HY_LINE)))
		ret = -ENOSPC;
	if (ret) {
		if (ret == -ENOSPC)
			pr_once(LOG_WARN,
				"vsock: %u connections open, refusing more",
				VSOCK_HY_MAX_CONNS);
		hy->ops.close(hy->opaque, h);
	} else {
		c->deadline = hy->ops.now_ms(hy->opaque) + VSOCK_HY_TIMEOUT_MS;
		hy_host_line(hy, c);
		hy_rx_pass(hy);
	}
	virtio_mmio_unlock(&hy->dev.vm);
	return ret;
}

void vsock_hy_host_ready(struct vsock_hy *hy, int h)
{
	struct vsock_hy_conn *c;

	virtio_mmio_lock(&hy->dev.vm);
	c = hy_conn_by_handle(hy, h);
	if (c)
		c->host_readable = true;
	if (c && c->state == VSOCK_HY_LINE)
		hy_host_line(hy, c);
	else if (c && c->state == VSOCK_HY_EST && c->buf_len) {
		if (hy_flush(hy, c))
			hy_conn_drained(hy, c);
		else
			hy_conn_reset(hy, c);
	}
	if (c)
		hy_rx_pass(hy);
	virtio_mmio_unlock(&hy->dev.vm);
}

int64_t vsock_hy_tick(struct vsock_hy *hy)
{
	int64_t next = -1;
	bool expired = false;
	uint64_t now;

	virtio_mmio_lock(&hy->dev.vm);
	now = hy->ops.now_ms(hy->opaque);
	for (unsigned int i = 0; i < VSOCK_HY_MAX_CONNS; i++) {
		struct vsock_hy_conn *c = &hy->conns[i];

		if (c->state != VSOCK_HY_LINE && c->state != VSOCK_HY_REQUEST)
			continue;
		if (c->deadline <= now) {
			hy_conn_reset(hy, c);
			expired = true;
			continue;
		}
		if (next < 0 || (int64_t)(c->deadline - now) < next)
			next = c->deadline - now;
	}
	if (expired)
		hy_rx_pass(hy);
	virtio_mmio_unlock(&hy->dev.vm);
	return next;
}

unsigned int vsock_hy_nr_conns(struct vsock_hy *hy)
{
	unsigned int n = 0;

	virtio_mmio_lock(&hy->dev.vm);
	for (unsigned int i = 0; i < VSOCK_HY_MAX_CONNS; i++)
		n += hy->conns[i].state != VSOCK_HY_FREE;
	virtio_mmio_unlock(&hy->dev.vm);
	return n;
}

int vsock_hy_init(struct vsock_hy *hy, const struct dev_res *res,
		  const struct guest_mem *mem, const struct irq_line *irq,
		  uint64_t guest_cid, const struct vsock_hy_host_ops *ops,
		  void *opaque)
{
	const struct virtio_vsock_backend be = {
		.start = hy_start,
		.stop = hy_stop,
		.kick = hy_kick,
		.opaque = hy,
	};
	int ret;

	if (!ops || !ops->connect || !ops->send || !ops->recv ||
	    !ops->shutdown_wr || !ops->close || !ops->now_ms)
		return -EINVAL;
	memset(hy, 0, sizeof(*hy));
	for (unsigned int i = 0; i < VSOCK_HY_MAX_CONNS; i++)
		hy->conns[i].h = -1;
	hy->ops = *ops;
	hy->opaque = opaque;
	hy->next_hport = VSOCK_HY_HOST_PORT_BASE;
	hy->bounce = malloc(VSOCK_HY_PKT_MAX);
	if (!hy->bounce)
		return -ENOMEM;
	ret = virtio_vsock_init(&hy->dev, res, mem, irq, guest_cid, 0, &be);
	if (ret) {
		free(hy->bounce);
		hy->bounce = NULL;
	}
	return ret;
}

void vsock_hy_destroy(struct vsock_hy *hy)
{
	hy_close_all(hy);
	virtio_vsock_destroy(&hy->dev);
	free(hy->bounce);
	hy->bounce = NULL;
}
