// SPDX-License-Identifier: GPL-2.0
/*
 * The vhost-user transport (vmm/host/vhost_user.c) against a fake
 * back-end on the other end of a socketpair: the exact bytes of every
 * message, the descriptors that ride along, the protocol-feature and
 * REPLY_ACK handshake, and replies that are wrong (size, request, flags,
 * a descriptor, a ring base of another ring), late, or never come
 * because the back-end closed the socket.  The replies are queued in the
 * socket before each request, so no thread is needed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <dirent.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "vmm/host/vhost_user.h"

#define F_PROTO (1ULL << VHOST_USER_F_PROTOCOL_FEATURES)
#define F_V1 (1ULL << 32)
#define P_ACK (1ULL << VHOST_USER_PROTOCOL_F_REPLY_ACK)
#define MEM_OFF 0x2000
#define MAX_FDS 4

struct fake {
	int sv[2]; /* [0] lkvm's end, [1] the back-end's */
	int memfd, callfd, kickfd;
	struct vhost_user u;
	struct vhost_transport t;
	struct vhost v;
};

static const struct vhost_mem mem = { 0x80000000, 0x100000, 0x7f1234560000 };

static struct fake *fake_new(void)
{
	struct fake *f = test_calloc(1, sizeof(*f));

	assert_int_equal(
		socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, f->sv), 0);
	f->memfd = memfd_create("guest-ram", MFD_CLOEXEC);
	f->callfd = eventfd(0, EFD_CLOEXEC);
	f->kickfd = eventfd(0, EFD_CLOEXEC);
	assert_true(f->memfd >= 0 && f->callfd >= 0 && f->kickfd >= 0);
	vhost_user_init(&f->u, f->sv[0], f->memfd, MEM_OFF);
	f->u.timeout_ms = 300;
	f->t = vhost_user_transport(&f->u);
	return f;
}

static int setup(void **state)
{
	*state = fake_new();
	return 0;
}

static int teardown(void **state)
{
	struct fake *f = *state;

	for (int i = 0; i < 2; i++)
		if (f->sv[i] >= 0)
			close(f->sv[i]);
	close(f->memfd);
	close(f->callfd);
	close(f->kickfd);
	test_free(f);
	return 0;
}

/* The back-end's side: queue bytes (and optionally one fd). */
static void be_send(struct fake *f, const void *buf, size_t len, int fd)
{
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c;
	struct iovec iov = { (void *)buf, len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *h;

		memset(&c, 0, sizeof(c));
		m.msg_control = c.b;
		m.msg_controllen = sizeof(c.b);
		h = CMSG_FIRSTHDR(&m);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(h), &fd, sizeof(fd));
	}
	assert_int_equal(sendmsg(f->sv[1], &m, 0), (ssize_t)len);
}

static void reply_hdr(uint8_t *b, uint32_t code, uint32_t flags, uint32_t size)
{
	memcpy(b, &code, 4);
	memcpy(b + 4, &flags, 4);
	memcpy(b + 8, &size, 4);
}

static void reply_u64(struct fake *f, uint32_t code, uint64_t val)
{
	uint8_t b[20];

	reply_hdr(b, code, VHOST_USER_VERSION | VHOST_USER_FLAG_REPLY, 8);
	memcpy(b + 12, &val, 8);
	be_send(f, b, sizeof(b), -1);
}

static void reply_state(struct fake *f, uint32_t index, uint32_t num)
{
	uint8_t b[20];

	reply_hdr(b, VHOST_USER_GET_VRING_BASE,
		  VHOST_USER_VERSION | VHOST_USER_FLAG_REPLY, 8);
	memcpy(b + 12, &index, 4);
	memcpy(b + 16, &num, 4);
	be_send(f, b, sizeof(b), -1);
}

/* Read exactly len bytes the back-end got; fds into fds (closed by caller). */
static unsigned int be_recv(struct fake *f, uint8_t *buf, size_t len, int *fds)
{
	unsigned int nfds = 0;
	size_t off = 0;

	while (off < len) {
		union {
			char b[CMSG_SPACE(sizeof(int) * MAX_FDS)];
			struct cmsghdr align;
		} c;
		struct iovec iov = { buf + off, len - off };
		struct msghdr m = { .msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = c.b,
				    .msg_controllen = sizeof(c.b) };
		ssize_t n = recvmsg(f->sv[1], &m, MSG_DONTWAIT);

		assert_true(n > 0);
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h;
		     h = CMSG_NXTHDR(&m, h)) {
			size_t k = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < k; i++) {
				assert_true(nfds < MAX_FDS);
				memcpy(&fds[nfds++],
				       CMSG_DATA(h) + i * sizeof(int),
				       sizeof(int));
			}
		}
		off += n;
	}
	return nfds;
}

/* The back-end got exactly want (and nfds descriptors, same files as fds). */
static void expect(struct fake *f, const uint8_t *want, size_t len,
		   const int *same, unsigned int nsame)
{
	uint8_t got[VHOST_USER_HDR_SIZE + VHOST_USER_PAYLOAD_MAX];
	int fds[MAX_FDS];
	unsigned int n;

	assert_true(len <= sizeof(got));
	n = be_recv(f, got, len, fds);
	assert_memory_equal(got, want, len);
	assert_int_equal(n, nsame);
	for (unsigned int i = 0; i < n; i++) {
		struct stat a, b;

		assert_int_equal(fstat(fds[i], &a), 0);
		assert_int_equal(fstat(same[i], &b), 0);
		assert_int_equal(a.st_ino, b.st_ino);
		assert_int_equal(a.st_dev, b.st_dev);
		close(fds[i]);
	}
}

/* Nothing more was sent. */
static void expect_nothing(struct fake *f)
{
	uint8_t b;

	assert_int_equal(recv(f->sv[1], &b, 1, MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
}

static void expect_u64(struct fake *f, uint32_t code, uint32_t flags,
		       uint64_t val, const int *fd)
{
	uint8_t want[20];

	reply_hdr(want, code, VHOST_USER_VERSION | flags, 8);
	memcpy(want + 12, &val, 8);
	expect(f, want, sizeof(want), fd, fd ? 1 : 0);
}

static void expect_state(struct fake *f, uint32_t code, uint32_t flags,
			 uint32_t index, uint32_t num)
{
	uint8_t want[20];

	reply_hdr(want, code, VHOST_USER_VERSION | flags, 8);
	memcpy(want + 12, &index, 4);
	memcpy(want + 16, &num, 4);
	expect(f, want, sizeof(want), NULL, 0);
}

static void expect_hdr(struct fake *f, uint32_t code, uint32_t flags)
{
	uint8_t want[12];

	reply_hdr(want, code, VHOST_USER_VERSION | flags, 0);
	expect(f, want, sizeof(want), NULL, 0);
}

/* The bytes of the encoders, written out by hand (little-endian host). */
static void test_encoders(void **state)
{
	static const uint8_t u64[] = { 2,    0,	   0,	 0,    0x9,  0,	   0,
				       0,    8,	   0,	 0,    0,    0x88, 0x77,
				       0x66, 0x55, 0x44, 0x33, 0x22, 0x11 };
	static const uint8_t st[] = { 8, 0, 0, 0, 1, 0, 0,    0,    8, 0,
				      0, 0, 3, 0, 0, 0, 0x00, 0x01, 0, 0 };
	static const uint8_t addr[] = {
		9,    0,    0, 0, 1, 0, 0, 0, 40, 0, 0, 0, /* header */
		1,    0,    0, 0, 0, 0, 0, 0,		   /* index, flags */
		0x00, 0x10, 0, 0, 0, 0, 0, 0,		   /* desc */
		0x00, 0x30, 0, 0, 0, 0, 0, 0,		   /* used */
		0x00, 0x20, 0, 0, 0, 0, 0, 0,		   /* avail */
		0,    0,    0, 0, 0, 0, 0, 0,		   /* log */
	};
	const struct vhost_ring_addr a = { 1, 0x1000, 0x2000, 0x3000 };
	const struct vhost_user_region r[2] = {
		{ 0x80000000, 0x1000, 0x7f0000000000, 0x40, 5 },
		{ 0x90000000, 0x2000, 0x7f0000100000, 0, 6 },
	};
	uint8_t buf[VHOST_USER_HDR_SIZE + VHOST_USER_PAYLOAD_MAX];
	uint32_t v32;
	uint64_t v64;

	assert_int_equal(vhost_user_msg_u64(buf, 2, VHOST_USER_FLAG_NEED_REPLY,
					    0x1122334455667788ULL),
			 sizeof(u64));
	assert_memory_equal(buf, u64, sizeof(u64));
	assert_int_equal(vhost_user_msg_state(buf, 8, 0, 3, 256), sizeof(st));
	assert_memory_equal(buf, st, sizeof(st));
	assert_int_equal(vhost_user_msg_addr(buf, 0, &a), sizeof(addr));
	assert_memory_equal(buf, addr, sizeof(addr));
	assert_int_equal(vhost_user_msg_mem(buf, 0, r, 2), 12 + 8 + 64);
	memcpy(&v32, buf, 4);
	assert_int_equal(v32, VHOST_USER_SET_MEM_TABLE);
	memcpy(&v32, buf + 8, 4);
	assert_int_equal(v32, 8 + 64);
	memcpy(&v32, buf + 12, 4);
	assert_int_equal(v32, 2);
	memcpy(&v64, buf + 20 + 32 + 16, 8); /* region 1's user address */
	assert_int_equal(v64, 0x7f0000100000);
	memcpy(&v64, buf + 20 + 24, 8); /* region 0's mmap offset */
	assert_int_equal(v64, 0x40);
	assert_int_equal(vhost_user_msg_mem(buf, 0, r, 9), -EINVAL);
	assert_int_equal(vhost_user_msg_mem(buf, 0, r, 0), 12 + 8);
}

static void expect_mem_table(struct fake *f, uint32_t flags)
{
	uint8_t want[12 + 8 + 32] = { 0 };
	uint32_t v32;
	uint64_t v64;

	reply_hdr(want, VHOST_USER_SET_MEM_TABLE, VHOST_USER_VERSION | flags,
		  8 + 32);
	v32 = 1;
	memcpy(want + 12, &v32, 4);
	memcpy(want + 20, &mem.gpa, 8);
	memcpy(want + 28, &mem.size, 8);
	memcpy(want + 36, &mem.hva, 8);
	v64 = MEM_OFF;
	memcpy(want + 44, &v64, 8);
	expect(f, want, sizeof(want), &f->memfd, 1);
}

/* A back-end without protocol features: no handshake, no acks. */
static void test_open_plain(void **state)
{
	struct fake *f = *state;
	struct vhost_ring_val rv = { .index = 0, .val = 1 };

	reply_u64(f, VHOST_USER_GET_FEATURES, F_V1 | 3);
	assert_int_equal(vhost_open(&f->v, &f->t, &mem), 0);
	assert_int_equal(f->v.features, F_V1 | 3);
	assert_false(f->u.proto);
	expect_hdr(f, VHOST_USER_SET_OWNER, 0);
	expect_hdr(f, VHOST_USER_GET_FEATURES, 0);
	expect_mem_table(f, 0);
	expect_nothing(f);
	/* SET_FEATURES without the protocol bit; ENABLE sends nothing. */
	assert_int_equal(vhost_set_features(&f->v, F_V1 | F_PROTO), 0);
	expect_u64(f, VHOST_USER_SET_FEATURES, 0, F_V1, NULL);
	assert_int_equal(f->t.req(f->t.opaque, VHOST_REQ_SET_VRING_ENABLE, &rv),
			 0);
	expect_nothing(f);
}

static void open_proto(struct fake *f, uint64_t proto)
{
	reply_u64(f, VHOST_USER_GET_FEATURES, F_V1 | F_PROTO);
	reply_u64(f, VHOST_USER_GET_PROTOCOL_FEATURES, proto);
	if (proto & P_ACK)
		reply_u64(f, VHOST_USER_SET_MEM_TABLE, 0);
	/* SET_OWNER comes before the features: no ack asked for it. */
	assert_int_equal(vhost_open(&f->v, &f->t, &mem), 0);
	expect_hdr(f, VHOST_USER_SET_OWNER, 0);
	expect_hdr(f, VHOST_USER_GET_FEATURES, 0);
	expect_hdr(f, VHOST_USER_GET_PROTOCOL_FEATURES, 0);
	expect_u64(f, VHOST_USER_SET_PROTOCOL_FEATURES, 0, proto & P_ACK, NULL);
	expect_mem_table(f, proto & P_ACK ? VHOST_USER_FLAG_NEED_REPLY : 0);
	expect_nothing(f);
}

/* The whole life of a ring with REPLY_ACK: every message and its ack. */
static void test_ring_life_acked(void **state)
{
	struct fake *f = *state;
	const uint32_t nr = VHOST_USER_FLAG_NEED_REPLY;
	const struct vhost_ring r = { 128,    5,	 0x1000,   0x2000,
				      0x3000, f->callfd, f->kickfd };
	const uint32_t acked[] = {
		VHOST_USER_SET_FEATURES,     VHOST_USER_SET_VRING_NUM,
		VHOST_USER_SET_VRING_BASE,   VHOST_USER_SET_VRING_ADDR,
		VHOST_USER_SET_VRING_CALL,   VHOST_USER_SET_VRING_KICK,
		VHOST_USER_SET_VRING_ENABLE,
	};
	const struct vhost_ring_addr a = { 1, 0x1000, 0x2000, 0x3000 };
	uint8_t want[VHOST_USER_HDR_SIZE + VHOST_USER_PAYLOAD_MAX];

	/* CONFIG (9) and MQ (0) are offered, not taken. */
	open_proto(f, P_ACK | (1ULL << 9) | 1);
	assert_int_equal(f->u.protocol, P_ACK);
	for (unsigned int i = 0; i < sizeof(acked) / sizeof(acked[0]); i++)
		reply_u64(f, acked[i], 0);
	assert_int_equal(vhost_set_features(&f->v, F_V1), 0);
	assert_int_equal(vhost_ring_start(&f->v, 1, &r), 0);
	assert_int_equal(vhost_ring_enable(&f->v, 1, true), 0);
	expect_u64(f, VHOST_USER_SET_FEATURES, nr, F_V1 | F_PROTO, NULL);
	expect_state(f, VHOST_USER_SET_VRING_NUM, nr, 1, 128);
	expect_state(f, VHOST_USER_SET_VRING_BASE, nr, 1, 5);
	expect(f, want, vhost_user_msg_addr(want, nr, &a), NULL, 0);
	expect_u64(f, VHOST_USER_SET_VRING_CALL, nr, 1, &f->callfd);
	expect_u64(f, VHOST_USER_SET_VRING_KICK, nr, 1, &f->kickfd);
	expect_state(f, VHOST_USER_SET_VRING_ENABLE, nr, 1, 1);
	expect_nothing(f);
	/* The reset: GET_VRING_BASE has its own reply, no ack. */
	reply_state(f, 1, 77);
	assert_int_equal(vhost_stop(&f->v, VHOST_REQ_NR, NULL), 0);
	expect_state(f, VHOST_USER_GET_VRING_BASE, 0, 1, 0);
	expect_nothing(f);
	assert_false(f->v.broken);
}

/* Without REPLY_ACK offered: no need-reply flag, no acks read. */
static void test_proto_without_ack(void **state)
{
	struct fake *f = *state;
	struct vhost_ring_val rv = { .index = 2, .val = 1 };

	open_proto(f, 1ULL << 9);
	assert_int_equal(f->u.protocol, 0);
	assert_true(f->u.proto);
	assert_int_equal(f->t.req(f->t.opaque, VHOST_REQ_SET_VRING_ENABLE, &rv),
			 0);
	expect_state(f, VHOST_USER_SET_VRING_ENABLE, 0, 2, 1);
}

/* fd -1: the no-fd bit, nothing attached. */
static void test_no_fd(void **state)
{
	struct fake *f = *state;
	struct vhost_ring_val rv = { .index = 3, .val = -1 };

	assert_int_equal(f->t.req(f->t.opaque, VHOST_REQ_SET_VRING_CALL, &rv),
			 0);
	expect_u64(f, VHOST_USER_SET_VRING_CALL, 0, 3 | VHOST_USER_VRING_NOFD,
		   NULL);
	rv.index = 256;
	assert_int_equal(f->t.req(f->t.opaque, VHOST_REQ_SET_VRING_KICK, &rv),
			 -EINVAL);
	rv.index = 0;
	rv.val = 1LL << 40;
	assert_int_equal(f->t.req(f->t.opaque, VHOST_REQ_SET_VRING_NUM, &rv),
			 -EINVAL);
	expect_nothing(f);
}

/* What the transport does not carry, and RAM that is not shared. */
static void test_refused(void **state)
{
	struct fake *f = *state;
	uint64_t cid = 3;
	int one = 1;

	assert_int_equal(f->t.req(f->t.opaque, VHOST_REQ_VSOCK_SET_CID, &cid),
			 -EINVAL);
	assert_int_equal(f->t.req(f->t.opaque, VHOST_REQ_VSOCK_RUNNING, &one),
			 -EINVAL);
	f->u.mem_fd = -1;
	assert_int_equal(
		f->t.req(f->t.opaque, VHOST_REQ_SET_MEM_TABLE, (void *)&mem),
		-EBADF);
	expect_nothing(f);
}

/* A bad reply to GET_FEATURES: the error, dead, nothing sent after. */
static void bad_features_reply(struct fake *f, const uint8_t *b, size_t len,
			       int err)
{
	uint64_t feat = 0;

	if (len)
		be_send(f, b, len, -1);
	assert_int_equal(f->t.req(f->t.opaque, VHOST_REQ_GET_FEATURES, &feat),
			 err);
	assert_int_equal(feat, 0);
	assert_true(f->u.dead);
	assert_non_null(f->u.why);
	expect_hdr(f, VHOST_USER_GET_FEATURES, 0);
	assert_int_equal(f->t.req(f->t.opaque, VHOST_REQ_SET_OWNER, NULL),
			 -EIO);
	expect_nothing(f);
}

static void test_wrong_size(void **state)
{
	uint8_t b[16];

	reply_hdr(b, VHOST_USER_GET_FEATURES,
		  VHOST_USER_VERSION | VHOST_USER_FLAG_REPLY, 4);
	memset(b + 12, 0xff, 4);
	bad_features_reply(*state, b, sizeof(b), -EPROTO);
}

static void test_huge_size(void **state)
{
	uint8_t b[12];

	reply_hdr(b, VHOST_USER_GET_FEATURES,
		  VHOST_USER_VERSION | VHOST_USER_FLAG_REPLY, 0xffffffff);
	bad_features_reply(*state, b, sizeof(b), -EPROTO);
}

static void test_wrong_request(void **state)
{
	uint8_t b[20] = { 0 };

	reply_hdr(b, VHOST_USER_GET_PROTOCOL_FEATURES,
		  VHOST_USER_VERSION | VHOST_USER_FLAG_REPLY, 8);
	bad_features_reply(*state, b, sizeof(b), -EPROTO);
}

static void test_no_reply_flag(void **state)
{
	uint8_t b[20] = { 0 };

	reply_hdr(b, VHOST_USER_GET_FEATURES, VHOST_USER_VERSION, 8);
	bad_features_reply(*state, b, sizeof(b), -EPROTO);
}

static void test_wrong_version(void **state)
{
	uint8_t b[20] = { 0 };

	reply_hdr(b, VHOST_USER_GET_FEATURES, 2 | VHOST_USER_FLAG_REPLY, 8);
	bad_features_reply(*state, b, sizeof(b), -EPROTO);
}

/* Half a reply, then the back-end closes its side. */
static void test_closed_mid_reply(void **state)
{
	struct fake *f = *state;
	uint8_t b[16] = { 0 };

	reply_hdr(b, VHOST_USER_GET_FEATURES,
		  VHOST_USER_VERSION | VHOST_USER_FLAG_REPLY, 8);
	be_send(f, b, sizeof(b), -1);
	assert_int_equal(shutdown(f->sv[1], SHUT_WR), 0);
	bad_features_reply(f, NULL, 0, -ECONNRESET);
}

/* The back-end is gone before the request: no SIGPIPE, an error. */
static void test_closed_socket(void **state)
{
	struct fake *f = *state;
	uint64_t feat;
	int ret;

	close(f->sv[1]);
	f->sv[1] = -1;
	ret = f->t.req(f->t.opaque, VHOST_REQ_GET_FEATURES, &feat);
	assert_true(ret == -EPIPE || ret == -ECONNRESET);
	assert_true(f->u.dead);
	assert_int_equal(vhost_open(&f->v, &f->t, &mem), -EIO);
	assert_true(f->v.broken);
	/* The reset of a broken vhost with nothing started: no crash. */
	assert_int_equal(vhost_stop(&f->v, VHOST_REQ_NR, NULL), 0);
}

static void test_timeout(void **state)
{
	struct fake *f = *state;
	struct timespec t0, t1;
	uint64_t feat;
	long ms;

	f->u.timeout_ms = 100;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(f->t.req(f->t.opaque, VHOST_REQ_GET_FEATURES, &feat),
			 -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 +
	     (t1.tv_nsec - t0.tv_nsec) / 1000000;
	assert_true(ms >= 90 && ms < 2000);
	assert_true(f->u.dead);
	expect_hdr(f, VHOST_USER_GET_FEATURES, 0);
	/* A reply that comes late is never read: the connection is dead. */
	reply_u64(f, VHOST_USER_GET_FEATURES, 1);
	assert_int_equal(f->t.req(f->t.opaque, VHOST_REQ_GET_FEATURES, &feat),
			 -EIO);
}

static unsigned int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* A reply carrying a descriptor: refused, and the descriptor closed. */
static void test_reply_with_fd(void **state)
{
	struct fake *f = *state;
	uint8_t b[20] = { 0 };
	unsigned int before;
	uint64_t feat;
	int efd = eventfd(0, EFD_CLOEXEC);

	reply_hdr(b, VHOST_USER_GET_FEATURES,
		  VHOST_USER_VERSION | VHOST_USER_FLAG_REPLY, 8);
	be_send(f, b, sizeof(b), efd);
	close(efd);
	before = open_fds();
	assert_int_equal(f->t.req(f->t.opaque, VHOST_REQ_GET_FEATURES, &feat),
			 -EPROTO);
	assert_int_equal(open_fds(), before);
}

/* A nack: -EREMOTEIO and a broken vhost, but the stream is in step. */
static void test_nack(void **state)
{
	struct fake *f = *state;
	const struct vhost_ring r = { 128,    0,	 0x1000,   0x2000,
				      0x3000, f->callfd, f->kickfd };

	open_proto(f, P_ACK);
	reply_u64(f, VHOST_USER_SET_VRING_NUM, 1);
	assert_int_equal(vhost_ring_start(&f->v, 0, &r), -EREMOTEIO);
	assert_true(f->v.broken);
	assert_false(f->u.dead);
	assert_string_equal(f->u.why, "the back-end refused the request");
	expect_state(f, VHOST_USER_SET_VRING_NUM, VHOST_USER_FLAG_NEED_REPLY, 0,
		     128);
	expect_nothing(f);
}

/* GET_VRING_BASE's reply must name the ring asked, with a 16-bit base. */
static void test_bad_ring_base(void **state)
{
	struct fake *f = *state;
	struct vhost_ring_val rv = { .index = 1 };

	reply_state(f, 0, 5);
	assert_int_equal(f->t.req(f->t.opaque, VHOST_REQ_GET_VRING_BASE, &rv),
			 -EPROTO);
	teardown(state);
	setup(state);
	f = *state;
	reply_state(f, 1, 0x10000);
	assert_int_equal(f->t.req(f->t.opaque, VHOST_REQ_GET_VRING_BASE, &rv),
			 -EPROTO);
	teardown(state);
	setup(state);
	f = *state;
	reply_state(f, 1, 0xffff);
	assert_int_equal(f->t.req(f->t.opaque, VHOST_REQ_GET_VRING_BASE, &rv),
			 0);
	assert_int_equal(rv.val, 0xffff);
}

#define P_CONFIG (1ULL << VHOST_USER_PROTOCOL_F_CONFIG)

/* The back-end's GET_CONFIG reply: header, offset, size, then bytes. */
static void reply_config(struct fake *f, uint32_t psize, uint32_t offset,
			 uint32_t size, uint8_t fill)
{
	uint8_t b[VHOST_USER_HDR_SIZE + VHOST_USER_CONFIG_HDR_SIZE +
		  VHOST_USER_CONFIG_MAX + 16];

	memset(b, fill, sizeof(b));
	reply_hdr(b, VHOST_USER_GET_CONFIG,
		  VHOST_USER_VERSION | VHOST_USER_FLAG_REPLY, psize);
	memcpy(b + 12, &offset, 4);
	memcpy(b + 16, &size, 4);
	memset(b + 20, 0, 4);
	be_send(f, b, VHOST_USER_HDR_SIZE + (psize < 12 ? 12 : psize), -1);
}

/* CONFIG is negotiated only when the device wants it. */
static void test_config_negotiated(void **state)
{
	struct fake *f = *state;
	uint8_t cfg[60], want[12 + 12 + 60] = { 0 };
	uint32_t v;

	f->u.wanted |= P_CONFIG;
	reply_u64(f, VHOST_USER_GET_FEATURES, F_V1 | F_PROTO);
	reply_u64(f, VHOST_USER_GET_PROTOCOL_FEATURES, P_CONFIG | (1 << 5));
	assert_int_equal(vhost_open(&f->v, &f->t, &mem), 0);
	expect_hdr(f, VHOST_USER_SET_OWNER, 0);
	expect_hdr(f, VHOST_USER_GET_FEATURES, 0);
	expect_hdr(f, VHOST_USER_GET_PROTOCOL_FEATURES, 0);
	expect_u64(f, VHOST_USER_SET_PROTOCOL_FEATURES, 0, P_CONFIG, NULL);
	expect_mem_table(f, 0);
	/* The request: offset 0, size 60, flags 0, 60 zero bytes. */
	reply_config(f, 12 + 60, 0, 60, 0xab);
	assert_int_equal(vhost_user_get_config(&f->u, cfg, sizeof(cfg)), 0);
	reply_hdr(want, VHOST_USER_GET_CONFIG, VHOST_USER_VERSION, 12 + 60);
	v = 60;
	memcpy(want + 16, &v, 4);
	expect(f, want, sizeof(want), NULL, 0);
	for (size_t i = 0; i < sizeof(cfg); i++)
		assert_int_equal(cfg[i], 0xab);
	expect_nothing(f);
}

/* Without CONFIG (not offered, or not wanted): no request at all. */
static void test_config_not_negotiated(void **state)
{
	struct fake *f = *state;
	uint8_t cfg[60];

	open_proto(f, P_ACK | P_CONFIG); /* offered, not wanted */
	assert_int_equal(vhost_user_get_config(&f->u, cfg, sizeof(cfg)),
			 -EOPNOTSUPP);
	expect_nothing(f);
	assert_false(f->u.dead);
	assert_int_equal(vhost_user_get_config(&f->u, cfg, 0), -EINVAL);
	assert_int_equal(vhost_user_get_config(&f->u, cfg, 257), -EINVAL);
}

/*
 * The daemon's replies, each checked: an empty one is its refusal (the
 * stream goes on); another size, offset or size field, request or flag
 * loses the stream.
 */
static void test_config_replies(void **state)
{
	struct fake *f = *state;
	uint8_t cfg[60] = { 0 }, junk[12 + 12 + 60];

	f->u.protocol = P_CONFIG;
	reply_config(f, 0, 0, 0, 0);
	assert_int_equal(vhost_user_get_config(&f->u, cfg, sizeof(cfg)),
			 -EREMOTEIO);
	assert_false(f->u.dead);
	{
		int fds[MAX_FDS];

		assert_int_equal(be_recv(f, junk, sizeof(junk), fds), 0);
	}
	expect_nothing(f);
	reply_config(f, 12 + 60, 4, 60, 1); /* another offset */
	assert_int_equal(vhost_user_get_config(&f->u, cfg, sizeof(cfg)),
			 -EPROTO);
	assert_true(f->u.dead);
	assert_int_equal(cfg[0], 0); /* nothing copied */
	assert_int_equal(vhost_user_get_config(&f->u, cfg, sizeof(cfg)), -EIO);
}

/*
 * The largest configuration the API takes (VHOST_USER_CONFIG_MAX bytes):
 * the request is 12 + 12 + 256 bytes, more than any other lkvm sends.
 */
static void test_config_max(void **state)
{
	struct fake *f = *state;
	uint8_t cfg[VHOST_USER_CONFIG_MAX],
		req[12 + 12 + VHOST_USER_CONFIG_MAX];
	int fds[MAX_FDS];

	f->u.protocol = P_CONFIG;
	reply_config(f, 12 + VHOST_USER_CONFIG_MAX, 0, VHOST_USER_CONFIG_MAX,
		     0xcd);
	assert_int_equal(vhost_user_get_config(&f->u, cfg, sizeof(cfg)), 0);
	for (size_t i = 0; i < sizeof(cfg); i++)
		assert_int_equal(cfg[i], 0xcd);
	assert_int_equal(be_recv(f, req, sizeof(req), fds), 0);
	/* Payload size 268 (0x10c) and config size 256 (0x100), le32. */
	assert_int_equal(req[8], 0x0c);
	assert_int_equal(req[9], 0x01);
	assert_int_equal(req[16], 0x00);
	assert_int_equal(req[17], 0x01);
	expect_nothing(f);
}

static void config_lost(struct fake *f, uint32_t psize, uint32_t size,
			uint32_t code, uint32_t flags)
{
	uint8_t cfg[60];
	uint8_t b[12 + 12 + 64] = { 0 };

	f->u.protocol = P_CONFIG;
	reply_hdr(b, code, flags, psize);
	memcpy(b + 16, &size, 4);
	be_send(f, b, sizeof(b), -1);
	assert_true(vhost_user_get_config(&f->u, cfg, sizeof(cfg)) < 0);
	assert_true(f->u.dead);
}

static void test_config_short(void **state)
{
	config_lost(*state, 12 + 59, 59, VHOST_USER_GET_CONFIG,
		    VHOST_USER_VERSION | VHOST_USER_FLAG_REPLY);
}

static void test_config_long(void **state)
{
	config_lost(*state, 12 + 64, 64, VHOST_USER_GET_CONFIG,
		    VHOST_USER_VERSION | VHOST_USER_FLAG_REPLY);
}

static void test_config_size_field(void **state)
{
	config_lost(*state, 12 + 60, 56, VHOST_USER_GET_CONFIG,
		    VHOST_USER_VERSION | VHOST_USER_FLAG_REPLY);
}

static void test_config_other_request(void **state)
{
	config_lost(*state, 12 + 60, 60, VHOST_USER_GET_FEATURES,
		    VHOST_USER_VERSION | VHOST_USER_FLAG_REPLY);
}

static void test_config_no_reply_flag(void **state)
{
	config_lost(*state, 12 + 60, 60, VHOST_USER_GET_CONFIG,
		    VHOST_USER_VERSION);
}

/* The payload check alone. */
static void test_config_reply_check(void **state)
{
	uint8_t p[12 + 8] = { 0 }, cfg[8];
	uint32_t v = 8;

	memcpy(p + 4, &v, 4);
	memset(p + 12, 7, 8);
	assert_int_equal(vhost_user_config_reply(p, 20, cfg, 8), 0);
	assert_int_equal(cfg[7], 7);
	assert_int_equal(vhost_user_config_reply(p, 0, cfg, 8), -EREMOTEIO);
	assert_int_equal(vhost_user_config_reply(p, 19, cfg, 8), -EPROTO);
	assert_int_equal(vhost_user_config_reply(p, 20, cfg, 7), -EPROTO);
	p[0] = 1;
	assert_int_equal(vhost_user_config_reply(p, 20, cfg, 8), -EPROTO);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encoders),
		cmocka_unit_test(test_config_reply_check),
		T(test_config_negotiated),
		T(test_config_not_negotiated),
		T(test_config_replies),
		T(test_config_max),
		T(test_config_short),
		T(test_config_long),
		T(test_config_size_field),
		T(test_config_other_request),
		T(test_config_no_reply_flag),
		T(test_open_plain),
		T(test_ring_life_acked),
		T(test_proto_without_ack),
		T(test_no_fd),
		T(test_refused),
		T(test_wrong_size),
		T(test_huge_size),
		T(test_wrong_request),
		T(test_no_reply_flag),
		T(test_wrong_version),
		T(test_closed_mid_reply),
		T(test_closed_socket),
		T(test_timeout),
		T(test_reply_with_fd),
		T(test_nack),
		T(test_bad_ring_base),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
