// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the vhost-user transport (vmm/host/vhost_user.c) with what a
 * back-end may answer: the fuzz input is the byte stream the back-end
 * sends (queued in a fresh socketpair, then its side shut for writing, so
 * a short stream ends in EOF rather than the timeout), optionally with a
 * descriptor attached to its first byte, and one request chosen by the
 * first byte is made.
 *
 * Input:  [sel: u8] [replies: the rest, at most 4096 bytes]
 *   sel bits 0-2  0 GET_FEATURES (and the protocol handshake it starts),
 *                 1 GET_VRING_BASE, 2 SET_VRING_NUM acked, 3 SET_MEM_TABLE
 *                 acked, 4 a whole ring life over vhost.c, 5 GET_CONFIG
 *                 of 8 * index + 4 bytes, or for index 0 the largest,
 *                 VHOST_USER_CONFIG_MAX (CONFIG negotiated), 6-7 as 0-1
 *   sel bit 3     an eventfd rides with the first byte of the replies
 *   sel bits 4-6  the ring index
 * Checked against a reference reading of the replies: success exactly
 * when the reply (or replies) has the request's code, version 1, the
 * reply flag and the exact size (and for GET_VRING_BASE the ring asked
 * and a 16-bit base; for an ack the value 0, else -EREMOTEIO; for
 * GET_CONFIG the config header's offset 0 and size, or an empty reply:
 * -EREMOTEIO with the stream alive), the value
 * returned is the one sent; a descriptor in a reply always fails the
 * request; no descriptor leaks (the lowest free one is the same before
 * and after); a failed stream refuses the next request without sending.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "vmm/host/vhost_user.h"

#define CHECK(cond)                       \
	do {                              \
		if (!(cond))              \
			__builtin_trap(); \
	} while (0)

#define MAX_REPLY 4096

static int mem_fd = -1, ev_fd = -1;
/* A descriptor rides with the replies: every reply read is refused. */
static bool fd_sent;
static const struct vhost_mem mem = { 0x80000000, 0x100000, 0x7f0000000000 };

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The reference: a well-formed reply to code of size bytes at *off. */
static bool ref_reply(const uint8_t *p, size_t len, size_t *off, uint32_t code,
		      uint32_t size)
{
	const uint8_t *h = p + *off;
	uint32_t flags;

	if (fd_sent || len - *off < VHOST_USER_HDR_SIZE + (size_t)size)
		return false;
	flags = rd32(h + 4);
	if (rd32(h) != code || (flags & 3) != 1 || !(flags & 4) ||
	    rd32(h + 8) != size)
		return false;
	*off += VHOST_USER_HDR_SIZE + size;
	return true;
}

/* Queue the back-end's bytes (with ev_fd on the first if asked). */
static void queue_replies(int fd, const uint8_t *p, size_t len, bool with_fd)
{
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c;
	struct iovec iov = { (void *)p, len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (!len)
		return;
	if (with_fd) {
		struct cmsghdr *h;

		memset(&c, 0, sizeof(c));
		m.msg_control = c.b;
		m.msg_controllen = sizeof(c.b);
		h = CMSG_FIRSTHDR(&m);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(h), &ev_fd, sizeof(int));
	}
	CHECK(sendmsg(fd, &m, 0) == (ssize_t)len);
}

static void op_features(struct vhost_user *u, const uint8_t *p, size_t len)
{
	const struct vhost_transport t = vhost_user_transport(u);
	uint64_t feat = 0, proto;
	size_t off = 0;
	bool ok;
	int ret = t.req(t.opaque, VHOST_REQ_GET_FEATURES, &feat);

	ok = ref_reply(p, len, &off, VHOST_USER_GET_FEATURES, 8);
	if (ok && (rd64(p + 12) & (1ULL << VHOST_USER_F_PROTOCOL_FEATURES))) {
		ok = ref_reply(p, len, &off, VHOST_USER_GET_PROTOCOL_FEATURES,
			       8);
		proto = ok ? rd64(p + off - 8) : 0;
		if (ok)
			CHECK(u->protocol ==
			      (proto & VHOST_USER_PROTOCOL_WANTED));
	}
	CHECK(ok == !ret);
	if (!ret)
		CHECK(feat == rd64(p + 12));
}

static void op_base(struct vhost_user *u, const uint8_t *p, size_t len,
		    unsigned int index)
{
	const struct vhost_transport t = vhost_user_transport(u);
	struct vhost_ring_val rv = { .index = index, .val = -5 };
	size_t off = 0;
	bool ok;
	int ret = t.req(t.opaque, VHOST_REQ_GET_VRING_BASE, &rv);

	ok = ref_reply(p, len, &off, VHOST_USER_GET_VRING_BASE, 8) &&
	     rd32(p + 12) == index && rd32(p + 16) <= 0xffff;
	CHECK(ok == !ret);
	CHECK(ret ? rv.val == -5 : rv.val == rd32(p + 16));
}

/* A request acked under REPLY_ACK. */
static void op_acked(struct vhost_user *u, const uint8_t *p, size_t len,
		     enum vhost_req req, uint32_t code, unsigned int index)
{
	const struct vhost_transport t = vhost_user_transport(u);
	struct vhost_ring_val rv = { .index = index, .val = 256 };
	size_t off = 0;
	bool ok;
	int ret;

	u->protocol = 1ULL << VHOST_USER_PROTOCOL_F_REPLY_ACK;
	ret = t.req(t.opaque, req,
		    req == VHOST_REQ_SET_MEM_TABLE ? (void *)&mem : &rv);
	ok = ref_reply(p, len, &off, code, 8);
	if (ok && rd64(p + 12))
		CHECK(ret == -EREMOTEIO && !u->dead);
	else
		CHECK(ok == !ret);
}

/* GET_CONFIG of len bytes: the reference reading of its reply. */
static void op_config(struct vhost_user *u, const uint8_t *p, size_t len,
		      uint32_t want)
{
	uint8_t cfg[VHOST_USER_CONFIG_MAX];
	size_t off = 0;
	uint32_t psize = 0;
	bool ok, empty = false;
	int ret;

	memset(cfg, 0x5a, sizeof(cfg));
	u->protocol = 1ULL << VHOST_USER_PROTOCOL_F_CONFIG;
	ret = vhost_user_get_config(u, cfg, want);
	if (!fd_sent && len >= VHOST_USER_HDR_SIZE)
		psize = rd32(p + 8);
	if (psize == 0)
		empty = ref_reply(p, len, &off, VHOST_USER_GET_CONFIG, 0);
	ok = !empty &&
	     ref_reply(p, len, &off, VHOST_USER_GET_CONFIG,
		       VHOST_USER_CONFIG_HDR_SIZE + want) &&
	     rd32(p + 12) == 0 && rd32(p + 16) == want;
	if (empty) {
		CHECK(ret == -EREMOTEIO && !u->dead);
		return;
	}
	CHECK(ok == !ret);
	if (ok)
		CHECK(!memcmp(cfg, p + 24, want));
	else
		CHECK(u->dead);
}

/* A ring's life over vhost.c: no model, only no crash and no leak. */
static void op_life(struct vhost_user *u, unsigned int index)
{
	const struct vhost_transport t = vhost_user_transport(u);
	const struct vhost_ring r = { 256,    0,     0x1000, 0x2000,
				      0x3000, ev_fd, ev_fd };
	struct vhost v;
	int ret = vhost_open(&v, &t, &mem);

	ret = ret ?: vhost_set_features(&v, ~0ULL);
	ret = ret ?: vhost_ring_start(&v, index, &r);
	ret = ret ?: vhost_ring_enable(&v, index, true);
	CHECK(ret <= 0);
	CHECK(vhost_stop(&v, VHOST_REQ_NR, NULL) <= 0);
}

static void run_op(struct vhost_user *u, unsigned int op, unsigned int index,
		   const uint8_t *p, size_t len)
{
	switch (op) {
	case 0:
		op_features(u, p, len);
		break;
	case 1:
		op_base(u, p, len, index);
		break;
	case 2:
		op_acked(u, p, len, VHOST_REQ_SET_VRING_NUM,
			 VHOST_USER_SET_VRING_NUM, index);
		break;
	case 3:
		op_acked(u, p, len, VHOST_REQ_SET_MEM_TABLE,
			 VHOST_USER_SET_MEM_TABLE, index);
		break;
	case 4:
		op_life(u, index);
		break;
	default:
		op_config(u, p, len,
			  index ? 8 * index + 4 : VHOST_USER_CONFIG_MAX);
		break;
	}
}

static int lowest_free_fd(void)
{
	int fd = dup(mem_fd);

	CHECK(fd >= 0);
	close(fd);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vhost_user u;
	unsigned int op, index;
	bool with_fd;
	int sv[2], low;
	uint64_t feat;

	if (mem_fd < 0) {
		mem_fd = memfd_create("fuzz-ram", MFD_CLOEXEC);
		ev_fd = eventfd(0, EFD_CLOEXEC);
		CHECK(mem_fd >= 0 && ev_fd >= 0);
	}
	if (size < 1 || size > MAX_REPLY + 1)
		return 0;
	op = data[0] & 7;
	op = op > 5 ? op - 6 : op;
	with_fd = data[0] & 8;
	index = (data[0] >> 4) & 7;
	data++;
	size--;
	fd_sent = with_fd && size;
	low = lowest_free_fd();
	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	queue_replies(sv[1], data, size, with_fd);
	CHECK(shutdown(sv[1], SHUT_WR) == 0);
	vhost_user_init(&u, sv[0], mem_fd, 0);
	u.timeout_ms = 2000;
	run_op(&u, op, index, data, size);
	if (fd_sent && op != 4)
		CHECK(u.dead);
	if (u.dead) {
		const struct vhost_transport t = vhost_user_transport(&u);

		CHECK(t.req(t.opaque, VHOST_REQ_GET_FEATURES, &feat) == -EIO);
	}
	close(sv[0]);
	close(sv[1]);
	CHECK(lowest_free_fd() == low);
	return 0;
}
