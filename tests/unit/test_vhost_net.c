// SPDX-License-Identifier: GPL-2.0
/*
 * vhost-net's request order (vmm/host/vhost_net.c) against a recording
 * fake transport: set-up, the hand-over with the tap as the rings'
 * back-end, the device reset (a guest reboot), PCI bus mastering off and
 * on, and a failing back-end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/vhost.h>

#include "vmm/host/vhost_kernel.h"
#include "vmm/host/vhost_net.h"

#define MAX_LOG 64
#define TAP_FD 33
#define ERR_FD 44
#define MRG (1ULL << VHOST_NET_F_MRG_RXBUF)
#define PLATFORM (1ULL << VHOST_NET_F_ACCESS_PLATFORM)
/* What the kernel's vhost-net says it has (with LOG_ALL). */
#define KERNEL_FEATURES                                                  \
	(VHOST_NET_NEEDED | MRG | PLATFORM | (1ULL << VHOST_F_LOG_ALL) | \
	 (1ULL << 27))

struct rec {
	enum vhost_req req;
	unsigned int index;
	int64_t val;
	uint64_t u64;
};

struct fake {
	struct rec log[MAX_LOG];
	unsigned int n;
	uint64_t features; /* GET_FEATURES */
	int fail_at;	   /* the n-th request (from 1) fails; 0: none */
	int fail_err;
};

static int fake_req(void *opaque, enum vhost_req req, void *arg)
{
	struct fake *f = opaque;
	struct rec *r = &f->log[f->n++];

	assert_true(f->n <= MAX_LOG);
	memset(r, 0, sizeof(*r));
	r->req = req;
	switch (req) {
	case VHOST_REQ_GET_FEATURES:
		*(uint64_t *)arg = f->features;
		break;
	case VHOST_REQ_SET_FEATURES:
		r->u64 = *(uint64_t *)arg;
		break;
	case VHOST_REQ_SET_OWNER:
	case VHOST_REQ_SET_MEM_TABLE:
		break;
	case VHOST_REQ_SET_VRING_ADDR:
		r->index = ((struct vhost_ring_addr *)arg)->index;
		break;
	default:
		r->index = ((struct vhost_ring_val *)arg)->index;
		r->val = ((struct vhost_ring_val *)arg)->val;
		break;
	}
	return (int)f->n == f->fail_at ? f->fail_err : 0;
}

static const struct vhost_mem mem = { 0x80000000, 0x8000000, 0x7f0000000000 };

static void open_ok(struct vhost_net *n, struct fake *f)
{
	const struct vhost_transport t = { fake_req, f };

	if (!f->features)
		f->features = KERNEL_FEATURES;
	assert_int_equal(vhost_net_open(n, &t, &mem, TAP_FD, ERR_FD), 0);
}

static void rings(struct vhost_ring r[VHOST_NET_RINGS])
{
	for (unsigned int i = 0; i < VHOST_NET_RINGS; i++)
		r[i] = (struct vhost_ring){
			.num = 256,
			.base = (uint16_t)(5 + i),
			.desc = 0x1000 * (i + 1),
			.avail = 0x1000 * (i + 1) + 0x100,
			.used = 0x1000 * (i + 1) + 0x200,
			.call_fd = 10 + i,
			.kick_fd = 20 + i,
		};
}

/* The log from at on holds (req, index, val) for each of want. */
struct want {
	enum vhost_req req;
	unsigned int index;
	int64_t val;
};

static void expect(const struct fake *f, unsigned int at, const struct want *w,
		   unsigned int nw)
{
	assert_int_equal(f->n, at + nw);
	for (unsigned int i = 0; i < nw; i++) {
		assert_int_equal(f->log[at + i].req, w[i].req);
		assert_int_equal(f->log[at + i].index, w[i].index);
		if (w[i].req != VHOST_REQ_SET_VRING_ADDR &&
		    w[i].req != VHOST_REQ_SET_FEATURES)
			assert_int_equal(f->log[at + i].val, w[i].val);
	}
}

static void test_open_order(void **state)
{
	static const struct want w[] = {
		{ VHOST_REQ_SET_OWNER, 0, 0 },
		{ VHOST_REQ_GET_FEATURES, 0, 0 },
		{ VHOST_REQ_SET_MEM_TABLE, 0, 0 },
		{ VHOST_REQ_SET_VRING_ERR, 0, ERR_FD },
		{ VHOST_REQ_SET_VRING_ERR, 1, ERR_FD },
	};
	struct fake f = { 0 };
	struct vhost_net n;

	(void)state;
	open_ok(&n, &f);
	expect(&f, 0, w, 5);
	assert_int_equal(n.tap_fd, TAP_FD);
	assert_false(n.attached);
}

/* A kernel without what lkvm's transport always offers is refused. */
static void test_open_needs_features(void **state)
{
	struct fake f = { .features = VHOST_NET_NEEDED &
				      ~(1ULL << VHOST_NET_F_EVENT_IDX) };
	const struct vhost_transport t = { fake_req, &f };
	struct vhost_net n;

	(void)state;
	assert_int_equal(vhost_net_open(&n, &t, &mem, TAP_FD, ERR_FD),
			 -EOPNOTSUPP);
	/* A failing request is -errno, naming it. */
	f = (struct fake){ .fail_at = 4, .fail_err = -EBADF };
	assert_int_equal(vhost_net_open(&n, &t, &mem, TAP_FD, ERR_FD), -EBADF);
	assert_int_equal(n.vh.failed, VHOST_REQ_SET_VRING_ERR);
}

static void test_offer_and_header(void **state)
{
	struct fake f = { 0 };
	struct vhost_net n;

	(void)state;
	open_ok(&n, &f);
	assert_int_equal(vhost_net_offer(&n, MRG | 0x21), MRG | 0x21);
	f = (struct fake){ .features = VHOST_NET_NEEDED };
	open_ok(&n, &f);
	assert_int_equal(vhost_net_offer(&n, MRG | 0x21), 0x21);
	assert_int_equal(vhost_net_hdr_len(1ULL << VHOST_NET_F_VERSION_1), 12);
	assert_int_equal(vhost_net_hdr_len(MRG), 12);
	assert_int_equal(vhost_net_hdr_len(0x21), 10);
}

/* DRIVER_OK: both rings, the features, then the tap on each ring. */
static void test_start_order(void **state)
{
	static const struct want w[] = {
		{ VHOST_REQ_SET_VRING_NUM, 0, 256 },
		{ VHOST_REQ_SET_VRING_BASE, 0, 5 },
		{ VHOST_REQ_SET_VRING_ADDR, 0, 0 },
		{ VHOST_REQ_SET_VRING_CALL, 0, 10 },
		{ VHOST_REQ_SET_VRING_KICK, 0, 20 },
		{ VHOST_REQ_SET_VRING_NUM, 1, 256 },
		{ VHOST_REQ_SET_VRING_BASE, 1, 6 },
		{ VHOST_REQ_SET_VRING_ADDR, 1, 0 },
		{ VHOST_REQ_SET_VRING_CALL, 1, 11 },
		{ VHOST_REQ_SET_VRING_KICK, 1, 21 },
		{ VHOST_REQ_SET_FEATURES, 0, 0 },
		{ VHOST_REQ_NET_SET_BACKEND, 0, TAP_FD },
		{ VHOST_REQ_NET_SET_BACKEND, 1, TAP_FD },
	};
	struct vhost_ring r[VHOST_NET_RINGS];
	struct fake f = { 0 };
	struct vhost_net n;
	/* The guest's: device bits (MAC, CSUM) the kernel does not know. */
	uint64_t guest = VHOST_NET_NEEDED | MRG | PLATFORM | 0x21;

	(void)state;
	open_ok(&n, &f);
	rings(r);
	f.n = 0;
	assert_int_equal(vhost_net_start(&n, r, guest, false), 0);
	expect(&f, 0, w, 13);
	/* ACCESS_PLATFORM and what the kernel lacks never reach it. */
	assert_int_equal(f.log[10].u64, VHOST_NET_NEEDED | MRG);
	assert_true(n.attached);
	assert_int_equal(n.vh.started, 3);
}

/* The reset (status 0, a guest reboot): tap off, rings back; again. */
static void test_stop_and_reboot(void **state)
{
	static const struct want w[] = {
		{ VHOST_REQ_NET_SET_BACKEND, 0, -1 },
		{ VHOST_REQ_NET_SET_BACKEND, 1, -1 },
		{ VHOST_REQ_GET_VRING_BASE, 0, 0 },
		{ VHOST_REQ_GET_VRING_BASE, 1, 0 },
	};
	struct vhost_ring r[VHOST_NET_RINGS];
	struct fake f = { 0 };
	struct vhost_net n;

	(void)state;
	open_ok(&n, &f);
	rings(r);
	for (int boot = 0; boot < 5; boot++) {
		assert_int_equal(
			vhost_net_start(&n, r, VHOST_NET_NEEDED, false), 0);
		f.n = 0;
		assert_int_equal(vhost_net_stop(&n), 0);
		expect(&f, 0, w, 4);
		assert_false(n.attached);
		assert_int_equal(n.vh.started, 0);
	}
	/* A reset with nothing handed over asks nothing. */
	f.n = 0;
	assert_int_equal(vhost_net_stop(&n), 0);
	assert_int_equal(f.n, 0);
}

/* Bus mastering off: the tap detached; on again: attached again. */
static void test_dma_off_on(void **state)
{
	static const struct want off[] = {
		{ VHOST_REQ_NET_SET_BACKEND, 0, -1 },
		{ VHOST_REQ_NET_SET_BACKEND, 1, -1 },
	};
	static const struct want on[] = {
		{ VHOST_REQ_NET_SET_BACKEND, 0, TAP_FD },
		{ VHOST_REQ_NET_SET_BACKEND, 1, TAP_FD },
	};
	struct vhost_ring r[VHOST_NET_RINGS];
	struct fake f = { 0 };
	struct vhost_net n;

	(void)state;
	open_ok(&n, &f);
	rings(r);
	assert_int_equal(vhost_net_start(&n, r, VHOST_NET_NEEDED, false), 0);
	f.n = 0;
	assert_int_equal(vhost_net_dma(&n, false), 0);
	expect(&f, 0, off, 2);
	assert_false(n.attached);
	assert_int_equal(vhost_net_dma(&n, false), 0); /* already off */
	assert_int_equal(f.n, 2);
	assert_int_equal(vhost_net_dma(&n, true), 0);
	expect(&f, 2, on, 2);
	assert_true(n.attached);
	assert_int_equal(vhost_net_stop(&n), 0);
	/* DRIVER_OK with bus mastering off: no tap until it is on. */
	f.n = 0;
	assert_int_equal(vhost_net_start(&n, r, VHOST_NET_NEEDED, true), 0);
	assert_int_equal(f.n, 11);
	assert_int_equal(f.log[10].req, VHOST_REQ_SET_FEATURES);
	assert_false(n.attached);
	assert_int_equal(vhost_net_dma(&n, true), 0);
	expect(&f, 11, on, 2);
}

/* A back-end that fails: broken until the reset, which still cleans up. */
static void test_failure(void **state)
{
	static const struct want w[] = {
		{ VHOST_REQ_NET_SET_BACKEND, 0, -1 },
		{ VHOST_REQ_NET_SET_BACKEND, 1, -1 },
		{ VHOST_REQ_GET_VRING_BASE, 0, 0 },
		{ VHOST_REQ_GET_VRING_BASE, 1, 0 },
	};
	struct vhost_ring r[VHOST_NET_RINGS];
	struct fake f = { 0 };
	struct vhost_net n;

	(void)state;
	open_ok(&n, &f);
	rings(r);
	f.n = 0;
	f.fail_at = 12; /* ring 0's SET_BACKEND */
	f.fail_err = -EBADFD;
	assert_int_equal(vhost_net_start(&n, r, VHOST_NET_NEEDED, false),
			 -EBADFD);
	assert_int_equal(f.n, 12);
	assert_true(n.vh.broken);
	assert_int_equal(n.vh.failed, VHOST_REQ_NET_SET_BACKEND);
	assert_string_equal(vhost_req_name(n.vh.failed), "NET_SET_BACKEND");
	assert_false(n.attached);
	/* Bus mastering on asks nothing of a broken vhost. */
	assert_int_equal(vhost_net_dma(&n, true), -EIO);
	assert_int_equal(f.n, 12);
	/* The reset asks all the same, and clears the failure. */
	f.n = 0;
	f.fail_at = 0;
	assert_int_equal(vhost_net_stop(&n), 0);
	expect(&f, 0, w, 4);
	assert_false(n.vh.broken);
	assert_int_equal(vhost_net_start(&n, r, VHOST_NET_NEEDED, false), 0);
	assert_true(n.attached);
	/* A stop whose detach fails still takes the rings back. */
	f.n = 0;
	f.fail_at = 1;
	f.fail_err = -ENODEV;
	assert_int_equal(vhost_net_stop(&n), -ENODEV);
	assert_int_equal(f.n, 4);
	assert_int_equal(n.vh.started, 0);
}

static void test_kernel_number(void **state)
{
	int fd = -1;
	const struct vhost_transport t = vhost_kernel_transport(&fd);
	struct vhost_ring_val rv = { .index = 0, .val = TAP_FD };

	(void)state;
	assert_int_equal(vhost_kernel_ioctl_nr(VHOST_REQ_NET_SET_BACKEND),
			 VHOST_NET_SET_BACKEND);
	/* On a file that is no vhost: -errno, no crash. */
	assert_int_equal(t.req(t.opaque, VHOST_REQ_NET_SET_BACKEND, &rv),
			 -EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_order),
		cmocka_unit_test(test_open_needs_features),
		cmocka_unit_test(test_offer_and_header),
		cmocka_unit_test(test_start_order),
		cmocka_unit_test(test_stop_and_reboot),
		cmocka_unit_test(test_dma_off_on),
		cmocka_unit_test(test_failure),
		cmocka_unit_test(test_kernel_number),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
