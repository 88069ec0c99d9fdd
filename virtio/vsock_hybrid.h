/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio-vsock served in user space, "hybrid" style: the device's rx and
 * tx queues carry the virtio-vsock packet protocol (virtio 1.2 §5.10,
 * stream sockets only) and each connection is relayed to a host stream
 * socket that lkvm's glue (vmm/machine/hvsock.c) opens, reached through
 * injected host ops, so this core is a pure state machine.
 *
 * Host to guest: the glue accepts a connection on its listening socket
 * and hands it over (vsock_hy_host_accept()); the host peer writes
 * "CONNECT <port>\n" (port decimal, at most VSOCK_HY_LINE_MAX bytes with
 * the newline), the device sends the guest a REQUEST from host port
 * >= VSOCK_HY_HOST_PORT_BASE to that guest port; the guest's RESPONSE
 * makes lkvm answer "OK <hostport>\n", and bytes flow both ways.  The
 * guest's RST, or no answer within VSOCK_HY_TIMEOUT_MS, closes the host
 * peer's socket.  A bad line, or none within that time, closes it too.
 *
 * Guest to host: a REQUEST to CID 2 port P makes ops.connect(P) (the
 * glue connects to the socket PATH_P): RESPONSE, or RST when it fails.
 *
 * Flow control: lkvm offers each connection VSOCK_HY_BUF_ALLOC bytes of
 * buffer (buf_alloc) and counts what reached the host socket (fwd_cnt);
 * guest bytes the host socket does not take at once wait in that buffer,
 * and a guest that sends more than its credit gets a RST.  Host bytes are
 * read only when the guest has credit and a popped receive buffer, as much
 * as both allow, and copied into it at once: nothing is held for the
 * guest.  So a connection
 * holds at most VSOCK_HY_BUF_ALLOC bytes, and there are at most
 * VSOCK_HY_MAX_CONNS (host peers still writing their line included).
 *
 * Every guest packet is checked: header complete (VSOCK_HDR_SIZE bytes in
 * the readable part), src_cid the guest's (else dropped), dst_cid the
 * host's, type STREAM, op known, len 0 except for RW, RW len within the
 * chain and VSOCK_HY_PKT_MAX, and it must fit the connection's state;
 * anything else gets a RST (a RST never does).  Each cause is logged once.
 * A guest that stops giving receive buffers only delays its own packets:
 * at most VSOCK_HY_RST_MAX RSTs for unknown connections wait, after which
 * the transmit queue waits too.
 *
 * Locking: the device's transport lock (virtio_mmio_lock()); the host ops
 * are called with it held and must not block.  Host events enter through
 * the vsock_hy_host_*() and vsock_hy_tick() calls, which take it.
 */
#ifndef RVKVM_VIRTIO_VSOCK_HYBRID_H
#define RVKVM_VIRTIO_VSOCK_HYBRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "virtio/vsock.h"

/* struct virtio_vsock_hdr (§5.10.6), little-endian, 44 bytes. */
#define VSOCK_HDR_SIZE 44
#define VSOCK_TYPE_STREAM 1
#define VSOCK_OP_REQUEST 1
#define VSOCK_OP_RESPONSE 2
#define VSOCK_OP_RST 3
#define VSOCK_OP_SHUTDOWN 4
#define VSOCK_OP_RW 5
#define VSOCK_OP_CREDIT_UPDATE 6
#define VSOCK_OP_CREDIT_REQUEST 7
#define VSOCK_SHUTDOWN_RCV 1
#define VSOCK_SHUTDOWN_SEND 2
#define VSOCK_HOST_CID 2

#define VSOCK_HY_MAX_CONNS 64
#define VSOCK_HY_BUF_ALLOC (128 * 1024)
#define VSOCK_HY_PKT_MAX (64 * 1024)
#define VSOCK_HY_LINE_MAX 32
#define VSOCK_HY_RST_MAX 32
#define VSOCK_HY_TIMEOUT_MS 2000
#define VSOCK_HY_HOST_PORT_BASE 0x40000000u
/* Chains one pass takes from a queue before it lets other work run. */
#define VSOCK_HY_BUDGET 256

struct vsock_hdr {
	uint64_t src_cid, dst_cid;
	uint32_t src_port, dst_port, len;
	uint16_t type, op;
	uint32_t flags, buf_alloc, fwd_cnt;
};

void vsock_hdr_decode(struct vsock_hdr *h, const uint8_t *b);
void vsock_hdr_encode(const struct vsock_hdr *h, uint8_t *b);

/*
 * The host side.  Handles are the glue's (socket descriptors), >= 0.
 *  connect: a stream to host port P for the guest: a handle, or -errno.
 *  send: up to len bytes to h: the count taken (> 0), -EAGAIN when full,
 *        another -errno when the peer is gone.
 *  recv: up to len bytes from h: the count, 0 at end of stream, -EAGAIN
 *        when there is nothing now, another -errno when broken.
 *  shutdown_wr: no more bytes will be sent to h.
 *  close: h is done with (each handle given to the core is closed once).
 *  now_ms: a monotonic clock.
 */
struct vsock_hy_host_ops {
	int (*connect)(void *opaque, uint32_t port);
	long (*send)(void *opaque, int h, const void *buf, size_t len);
	long (*recv)(void *opaque, int h, void *buf, size_t len);
	void (*shutdown_wr)(void *opaque, int h);
	void (*close)(void *opaque, int h);
	uint64_t (*now_ms)(void *opaque);
};

enum vsock_hy_state {
	VSOCK_HY_FREE,
	VSOCK_HY_LINE,	  /* host peer writing its CONNECT line */
	VSOCK_HY_REQUEST, /* REQUEST for the guest, its answer awaited */
	VSOCK_HY_EST,	  /* established */
	VSOCK_HY_CLOSING, /* host side closed, a RST for the guest waits */
};

/* Control packets a connection owes the guest. */
#define VSOCK_HY_PEND_REQUEST 1
#define VSOCK_HY_PEND_RESPONSE 2
#define VSOCK_HY_PEND_SHUTDOWN 4
#define VSOCK_HY_PEND_CREDIT 8

struct vsock_hy_conn {
	enum vsock_hy_state state;
	int h;
	uint32_t gport, hport; /* the guest's port, lkvm's (host CID) port */
	unsigned int pend;
	uint64_t deadline;  /* LINE, REQUEST: ms */
	bool host_readable; /* not known to be drained */
	bool host_eof;
	uint32_t guest_shut; /* VSOCK_SHUTDOWN_* the guest sent */
	bool shut_wr_done;
	/* guest to host: counted bytes, and those waiting for the host */
	uint32_t rx_cnt, fwd_cnt, fwd_told;
	uint8_t *buf; /* VSOCK_HY_BUF_ALLOC, on first need */
	uint32_t buf_head, buf_len;
	/* host to guest, and the guest's credit */
	uint32_t tx_cnt, peer_buf_alloc, peer_fwd_cnt;
	char line[VSOCK_HY_LINE_MAX];
	unsigned int line_len;
};

struct vsock_hy_stats {
	uint64_t dropped, rsts_sent, conns; /* conns: opened, ever */
};

struct vsock_hy {
	struct virtio_vsock dev;
	struct vsock_hy_host_ops ops;
	void *opaque;
	bool running; /* DRIVER_OK, not reset since */
	struct vsock_hy_conn conns[VSOCK_HY_MAX_CONNS];
	unsigned int rr; /* next connection the receive pass serves */
	struct {
		uint32_t hport, gport;
	} rst[VSOCK_HY_RST_MAX]; /* RSTs for no connection */
	unsigned int nr_rst;
	bool tx_waits; /* the transmit pass stopped for room in rst[] */
	uint32_t next_hport;
	unsigned int tx_budget;
	struct vsock_hy_stats stats;
	uint8_t *bounce; /* VSOCK_HY_PKT_MAX */
	struct virtq_chain chain;
};

/*
 * A device for guest_cid whose connections go through ops (all
 * required).  0, -EINVAL, -ENOMEM.
 */
int vsock_hy_init(struct vsock_hy *hy, const struct dev_res *res,
		  const struct guest_mem *mem, const struct irq_line *irq,
		  uint64_t guest_cid, const struct vsock_hy_host_ops *ops,
		  void *opaque);
/* Closes every handle it still has. */
void vsock_hy_destroy(struct vsock_hy *hy);

/*
 * A host peer connected to the listening socket: h is the core's from
 * now on.  0, or -EAGAIN (no driver) / -ENOSPC (full): h closed.
 */
int vsock_hy_host_accept(struct vsock_hy *hy, int h);
/* h may be readable or writable (any event; trying is cheap). */
void vsock_hy_host_ready(struct vsock_hy *hy, int h);
/*
 * Expire what waited too long; returns the ms until the next deadline,
 * or -1 when nothing waits.
 */
int64_t vsock_hy_tick(struct vsock_hy *hy);
/* Connections in use (for tests); takes the lock. */
unsigned int vsock_hy_nr_conns(struct vsock_hy *hy);

#endif
