// SPDX-License-Identifier: GPL-2.0
/* vhost requests as vhost-user messages on a unix socket; see vhost_user.h. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "vmm/host/vhost_user.h"

#define MSG_MAX (VHOST_USER_HDR_SIZE + VHOST_USER_PAYLOAD_MAX)
#define STATE_SIZE 8
#define ADDR_SIZE 40
/* Room for the descriptors a lying back-end may attach to a reply. */
#define CMSG_FDS 16

union cmsg_buf {
	char buf[CMSG_SPACE(sizeof(int) * CMSG_FDS)];
	struct cmsghdr align;
};

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The header; returns the whole message's length. */
static size_t put_hdr(uint8_t *buf, uint32_t code, uint32_t flags,
		      uint32_t size)
{
	put32(buf, code);
	put32(buf + 4, VHOST_USER_VERSION | flags);
	put32(buf + 8, size);
	return VHOST_USER_HDR_SIZE + size;
}

size_t vhost_user_msg_u64(uint8_t *buf, uint32_t code, uint32_t flags,
			  uint64_t val)
{
	put64(buf + VHOST_USER_HDR_SIZE, val);
	return put_hdr(buf, code, flags, sizeof(val));
}

size_t vhost_user_msg_state(uint8_t *buf, uint32_t code, uint32_t flags,
			    uint32_t index, uint32_t num)
{
	put32(buf + VHOST_USER_HDR_SIZE, index);
	put32(buf + VHOST_USER_HDR_SIZE + 4, num);
	return put_hdr(buf, code, flags, STATE_SIZE);
}

size_t vhost_user_msg_addr(uint8_t *buf, uint32_t flags,
			   const struct vhost_ring_addr *a)
{
	uint8_t *p = buf + VHOST_USER_HDR_SIZE;

	put32(p, a->index);
	put32(p + 4, 0); /* no dirty logging */
	put64(p + 8, a->desc);
	put64(p + 16, a->used);
	put64(p + 24, a->avail);
	put64(p + 32, 0);
	return put_hdr(buf, VHOST_USER_SET_VRING_ADDR, flags, ADDR_SIZE);
}

int vhost_user_msg_mem(uint8_t *buf, uint32_t flags,
		       const struct vhost_user_region *r, unsigned int n)
{
	uint8_t *p = buf + VHOST_USER_HDR_SIZE;

	if (n > VHOST_USER_MAX_REGIONS)
		return -EINVAL;
	put32(p, n);
	put32(p + 4, 0);
	p += VHOST_USER_MEM_HDR_SIZE;
	for (unsigned int i = 0; i < n; i++, p += VHOST_USER_REGION_SIZE) {
		put64(p, r[i].gpa);
		put64(p + 8, r[i].size);
		put64(p + 16, r[i].hva);
		put64(p + 24, r[i].offset);
	}
	return put_hdr(buf, VHOST_USER_SET_MEM_TABLE, flags,
		       VHOST_USER_MEM_HDR_SIZE + n * VHOST_USER_REGION_SIZE);
}

void vhost_user_init(struct vhost_user *u, int sock, int mem_fd,
		     uint64_t mem_off)
{
	*u = (struct vhost_user){
		.sock = sock,
		.timeout_ms = VHOST_USER_TIMEOUT_MS,
		.mem_fd = mem_fd,
		.mem_off = mem_off,
		.wanted = VHOST_USER_PROTOCOL_WANTED,
	};
}

/* The connection is lost: this and every later request fail. */
static int fail(struct vhost_user *u, int err, const char *why)
{
	if (!u->dead)
		u->why = why;
	u->dead = true;
	return err;
}

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Until the socket is ready for ev (or has an error to report). */
static int wait_sock(struct vhost_user *u, short ev, int64_t deadline)
{
	struct pollfd p = { .fd = u->sock, .events = ev };
	int64_t left;
	int n;

	for (;;) {
		left = deadline - now_ms();
		n = poll(&p, 1, left > 0 ? (int)left : 0);
		if (n > 0 && (p.revents & POLLNVAL))
			return fail(u, -EBADF, "the socket is not open");
		if (n > 0)
			return 0;
		if (n == 0)
			return fail(u, -ETIMEDOUT,
				    "the back-end did not answer in time");
		if (errno != EINTR)
			return fail(u, -errno, "poll on the socket failed");
	}
}

static int send_all(struct vhost_user *u, const uint8_t *buf, size_t len,
		    const int *fds, unsigned int nfds, int64_t deadline)
{
	union cmsg_buf c;
	size_t off = 0;
	ssize_t n;
	int ret;

	while (off < len) {
		struct iovec iov = { (void *)(buf + off), len - off };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

		if (nfds) {
			struct cmsghdr *h;

			memset(&c, 0, sizeof(c));
			m.msg_control = c.buf;
			m.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
			h = CMSG_FIRSTHDR(&m);
			h->cmsg_level = SOL_SOCKET;
			h->cmsg_type = SCM_RIGHTS;
			h->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
			memcpy(CMSG_DATA(h), fds, sizeof(int) * nfds);
		}
		ret = wait_sock(u, POLLOUT, deadline);
		if (ret)
			return ret;
		n = sendmsg(u->sock, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return fail(u, -errno,
				    "sending to the back-end failed");
		off += n;
		nfds = 0; /* they went with the first bytes */
	}
	return 0;
}

/* Close what descriptors a reply carried: true if it had any. */
static bool drop_fds(struct msghdr *m)
{
	bool any = m->msg_flags & MSG_CTRUNC;

	for (struct cmsghdr *h = CMSG_FIRSTHDR(m); h; h = CMSG_NXTHDR(m, h)) {
		size_t n;
		int fd;

		if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
			continue;
		n = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof(fd));
			close(fd);
			any = true;
		}
	}
	return any;
}

static int recv_all(struct vhost_user *u, uint8_t *buf, size_t len,
		    int64_t deadline)
{
	size_t off = 0;
	ssize_t n;
	int ret;

	while (off < len) {
		union cmsg_buf c;
		struct iovec iov = { buf + off, len - off };
		struct msghdr m = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = c.buf,
			.msg_controllen = sizeof(c.buf),
		};

		ret = wait_sock(u, POLLIN, deadline);
		if (ret)
			return ret;
		n = recvmsg(u->sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return fail(u, -errno,
				    "reading from the back-end failed");
		if (drop_fds(&m))
			return fail(u, -EPROTO,
				    "a reply carried a file descriptor");
		if (n == 0)
			return fail(u, -ECONNRESET,
				    "the back-end closed the connection");
		off += n;
	}
	return 0;
}

/* A reply to code of exactly size bytes into payload. */
static int recv_reply(struct vhost_user *u, uint32_t code, uint8_t *payload,
		      uint32_t size, int64_t deadline)
{
	uint8_t hdr[VHOST_USER_HDR_SIZE];
	uint32_t flags;
	int ret = recv_all(u, hdr, sizeof(hdr), deadline);

	if (ret)
		return ret;
	flags = get32(hdr + 4);
	if (get32(hdr) != code)
		return fail(u, -EPROTO, "a reply to another request");
	if ((flags & VHOST_USER_VERSION_MASK) != VHOST_USER_VERSION)
		return fail(u, -EPROTO, "a reply of another protocol version");
	if (!(flags & VHOST_USER_FLAG_REPLY))
		return fail(u, -EPROTO, "a reply without the reply flag");
	if (get32(hdr + 8) != size)
		return fail(u, -EPROTO, "a reply of the wrong size");
	return recv_all(u, payload, size, deadline);
}

/*
 * One request (msg, len bytes, with fds) and its reply of reply_size
 * bytes into reply (0: none).  A request without a reply of its own asks
 * for an ack when REPLY_ACK was negotiated.
 */
static int exchange(struct vhost_user *u, uint8_t *msg, size_t len,
		    const int *fds, unsigned int nfds, uint8_t *reply,
		    uint32_t reply_size)
{
	int64_t deadline = now_ms() + u->timeout_ms;
	uint8_t ack[sizeof(uint64_t)];
	bool want_ack =
		!reply_size &&
		(u->protocol & (1ULL << VHOST_USER_PROTOCOL_F_REPLY_ACK));
	int ret;

	if (u->dead)
		return -EIO;
	if (want_ack)
		put32(msg + 4, get32(msg + 4) | VHOST_USER_FLAG_NEED_REPLY);
	ret = send_all(u, msg, len, fds, nfds, deadline);
	if (!ret && reply_size)
		ret = recv_reply(u, get32(msg), reply, reply_size, deadline);
	if (ret || !want_ack)
		return ret;
	ret = recv_reply(u, get32(msg), ack, sizeof(ack), deadline);
	if (!ret && get64(ack)) {
		u->why = "the back-end refused the request";
		ret = -EREMOTEIO;
	}
	return ret;
}

/* A request whose payload is one u64, without a reply of its own. */
static int send_u64(struct vhost_user *u, uint32_t code, uint64_t val,
		    const int *fds, unsigned int nfds)
{
	uint8_t msg[MSG_MAX];
	size_t len = vhost_user_msg_u64(msg, code, 0, val);

	return exchange(u, msg, len, fds, nfds, NULL, 0);
}

/* A request without payload, with a u64 reply. */
static int get_u64(struct vhost_user *u, uint32_t code, uint64_t *val)
{
	uint8_t msg[MSG_MAX], reply[sizeof(uint64_t)];
	size_t len = put_hdr(msg, code, 0, 0);
	int ret = exchange(u, msg, len, NULL, 0, reply, sizeof(reply));

	if (!ret)
		*val = get64(reply);
	return ret;
}

/* GET_FEATURES, and the protocol features when the back-end has them. */
static int user_features(struct vhost_user *u, uint64_t *features)
{
	uint64_t proto;
	int ret = get_u64(u, VHOST_USER_GET_FEATURES, features);

	if (ret)
		return ret;
	u->proto = *features & (1ULL << VHOST_USER_F_PROTOCOL_FEATURES);
	if (!u->proto)
		return 0;
	ret = get_u64(u, VHOST_USER_GET_PROTOCOL_FEATURES, &proto);
	proto &= u->wanted;
	ret = ret   ?:
		      send_u64(u, VHOST_USER_SET_PROTOCOL_FEATURES, proto, NULL,
			       0);
	if (!ret)
		u->protocol = proto;
	return ret;
}

static int user_set_features(struct vhost_user *u, uint64_t features)
{
	if (u->proto)
		features |= 1ULL << VHOST_USER_F_PROTOCOL_FEATURES;
	return send_u64(u, VHOST_USER_SET_FEATURES, features, NULL, 0);
}

static int user_plain(struct vhost_user *u, uint32_t code)
{
	uint8_t msg[MSG_MAX];
	size_t len = put_hdr(msg, code, 0, 0);

	return exchange(u, msg, len, NULL, 0, NULL, 0);
}

/* Guest RAM as one region of the memfd it lives in. */
static int user_mem(struct vhost_user *u, const struct vhost_mem *m)
{
	const struct vhost_user_region r = {
		.gpa = m->gpa,
		.size = m->size,
		.hva = m->hva,
		.offset = u->mem_off,
		.fd = u->mem_fd,
	};
	uint8_t msg[MSG_MAX];
	int len;

	if (u->mem_fd < 0) {
		u->why = "guest RAM is not shared memory";
		return -EBADF;
	}
	len = vhost_user_msg_mem(msg, 0, &r, 1);
	return exchange(u, msg, len, &r.fd, 1, NULL, 0);
}

/* SET_VRING_NUM, _BASE, _ENABLE: (index, a u32). */
static int user_state(struct vhost_user *u, uint32_t code,
		      const struct vhost_ring_val *rv)
{
	uint8_t msg[MSG_MAX];
	size_t len;

	if (rv->val < 0 || rv->val > UINT32_MAX) {
		u->why = "a ring value out of range";
		return -EINVAL;
	}
	len = vhost_user_msg_state(msg, code, 0, rv->index, rv->val);
	return exchange(u, msg, len, NULL, 0, NULL, 0);
}

/* GET_VRING_BASE stops the ring; its reply is where it stopped. */
static int user_get_base(struct vhost_user *u, struct vhost_ring_val *rv)
{
	uint8_t msg[MSG_MAX], reply[STATE_SIZE];
	size_t len = vhost_user_msg_state(msg, VHOST_USER_GET_VRING_BASE, 0,
					  rv->index, 0);
	int ret = exchange(u, msg, len, NULL, 0, reply, sizeof(reply));

	if (ret)
		return ret;
	if (get32(reply) != rv->index)
		return fail(u, -EPROTO, "a ring base of another ring");
	/* A split ring's index is 16 bits. */
	if (get32(reply + 4) > UINT16_MAX)
		return fail(u, -EPROTO, "a ring base out of range");
	rv->val = get32(reply + 4);
	return 0;
}

/* SET_VRING_CALL, _KICK, _ERR: the index and an fd, or the no-fd bit. */
static int user_vring_fd(struct vhost_user *u, uint32_t code,
			 const struct vhost_ring_val *rv)
{
	uint64_t v = rv->index;
	int fd = rv->val;

	if (rv->index > VHOST_USER_VRING_IDX_MASK || rv->val < -1 ||
	    rv->val > INT32_MAX) {
		u->why = "a ring index or descriptor out of range";
		return -EINVAL;
	}
	if (fd < 0)
		v |= VHOST_USER_VRING_NOFD;
	return send_u64(u, code, v, &fd, fd < 0 ? 0 : 1);
}

static int user_addr(struct vhost_user *u, const struct vhost_ring_addr *a)
{
	uint8_t msg[MSG_MAX];
	size_t len = vhost_user_msg_addr(msg, 0, a);

	return exchange(u, msg, len, NULL, 0, NULL, 0);
}

static const uint32_t codes[VHOST_REQ_NR] = {
	[VHOST_REQ_SET_VRING_NUM] = VHOST_USER_SET_VRING_NUM,
	[VHOST_REQ_SET_VRING_BASE] = VHOST_USER_SET_VRING_BASE,
	[VHOST_REQ_SET_VRING_ENABLE] = VHOST_USER_SET_VRING_ENABLE,
	[VHOST_REQ_SET_VRING_CALL] = VHOST_USER_SET_VRING_CALL,
	[VHOST_REQ_SET_VRING_KICK] = VHOST_USER_SET_VRING_KICK,
	[VHOST_REQ_SET_VRING_ERR] = VHOST_USER_SET_VRING_ERR,
};

static int user_req(void *opaque, enum vhost_req req, void *arg)
{
	struct vhost_user *u = opaque;

	switch (req) {
	case VHOST_REQ_SET_OWNER:
		return user_plain(u, VHOST_USER_SET_OWNER);
	case VHOST_REQ_GET_FEATURES:
		return user_features(u, arg);
	case VHOST_REQ_SET_FEATURES:
		return user_set_features(u, *(const uint64_t *)arg);
	case VHOST_REQ_SET_MEM_TABLE:
		return user_mem(u, arg);
	case VHOST_REQ_SET_VRING_ENABLE:
		/* Without protocol features the kick enabled it. */
		if (!u->proto)
			return 0;
		/* fall through */
	case VHOST_REQ_SET_VRING_NUM:
	case VHOST_REQ_SET_VRING_BASE:
		return user_state(u, codes[req], arg);
	case VHOST_REQ_GET_VRING_BASE:
		return user_get_base(u, arg);
	case VHOST_REQ_SET_VRING_ADDR:
		return user_addr(u, arg);
	case VHOST_REQ_SET_VRING_CALL:
	case VHOST_REQ_SET_VRING_KICK:
	case VHOST_REQ_SET_VRING_ERR:
		return user_vring_fd(u, codes[req], arg);
	default:
		return -EINVAL; /* vsock's: the kernel's only */
	}
}

int vhost_user_config_reply(const uint8_t *p, uint32_t psize, uint8_t *cfg,
			    uint32_t len)
{
	if (!psize)
		return -EREMOTEIO;
	if (psize != VHOST_USER_CONFIG_HDR_SIZE + len || get32(p) != 0 ||
	    get32(p + 4) != len)
		return -EPROTO;
	memcpy(cfg, p + VHOST_USER_CONFIG_HDR_SIZE, len);
	return 0;
}

/* The reply header of GET_CONFIG: its payload size, 0 or the full one. */
static int config_hdr(struct vhost_user *u, uint32_t len, uint32_t *psize,
		      int64_t deadline)
{
	uint8_t hdr[VHOST_USER_HDR_SIZE];
	int ret = recv_all(u, hdr, sizeof(hdr), deadline);

	if (ret)
		return ret;
	*psize = get32(hdr + 8);
	if (get32(hdr) != VHOST_USER_GET_CONFIG)
		return fail(u, -EPROTO, "a reply to another request");
	if ((get32(hdr + 4) & VHOST_USER_VERSION_MASK) != VHOST_USER_VERSION)
		return fail(u, -EPROTO, "a reply of another protocol version");
	if (!(get32(hdr + 4) & VHOST_USER_FLAG_REPLY))
		return fail(u, -EPROTO, "a reply without the reply flag");
	if (*psize && *psize != VHOST_USER_CONFIG_HDR_SIZE + len)
		return fail(u, -EPROTO, "a reply of the wrong size");
	return 0;
}

int vhost_user_get_config(struct vhost_user *u, uint8_t *cfg, uint32_t len)
{
	/* Up to 280 bytes: more than MSG_MAX, a memory table's 276. */
	uint8_t msg[VHOST_USER_HDR_SIZE + VHOST_USER_CONFIG_HDR_SIZE +
		    VHOST_USER_CONFIG_MAX],
		reply[VHOST_USER_CONFIG_HDR_SIZE + VHOST_USER_CONFIG_MAX];
	int64_t deadline = now_ms() + u->timeout_ms;
	uint32_t psize = 0,
		 size = VHOST_USER_HDR_SIZE + VHOST_USER_CONFIG_HDR_SIZE + len;
	int ret;

	if (u->dead)
		return -EIO;
	if (!len || len > VHOST_USER_CONFIG_MAX)
		return -EINVAL;
	if (!(u->protocol & (1ULL << VHOST_USER_PROTOCOL_F_CONFIG))) {
		u->why = "the back-end lacks the CONFIG protocol feature";
		return -EOPNOTSUPP;
	}
	memset(msg, 0, size);
	put32(msg + VHOST_USER_HDR_SIZE + 4, len);
	put_hdr(msg, VHOST_USER_GET_CONFIG, 0, size - VHOST_USER_HDR_SIZE);
	ret = send_all(u, msg, size, NULL, 0, deadline);
	ret = ret ?: config_hdr(u, len, &psize, deadline);
	ret = ret ?: recv_all(u, reply, psize, deadline);
	if (ret)
		return ret;
	ret = vhost_user_config_reply(reply, psize, cfg, len);
	if (ret == -EPROTO)
		return fail(u, ret,
			    "a configuration of another offset or size");
	if (ret)
		u->why = "the back-end could not read its configuration";
	return ret;
}

struct vhost_transport vhost_user_transport(struct vhost_user *u)
{
	return (struct vhost_transport){ .req = user_req, .opaque = u };
}
