// SPDX-License-Identifier: GPL-2.0
/*
 * The vhost layer's request order (vmm/host/vhost.c) against a recording
 * fake transport, and the kernel transport's request numbers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/vhost.h>

#include "vmm/host/vhost.h"
#include "vmm/host/vhost_kernel.h"

#define MAX_LOG 64
#define BACKEND_FEATURES 0x1230000001ULL

struct rec {
	enum vhost_req req;
	unsigned int index;
	int64_t val;
	uint64_t u64;
	struct vhost_ring_addr addr;
	struct vhost_mem mem;
};

struct fake {
	struct rec log[MAX_LOG];
	unsigned int n;
	int fail_at; /* the n-th request (from 1) fails; 0: none */
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
		*(uint64_t *)arg = BACKEND_FEATURES | (1ULL << VHOST_F_LOG_ALL);
		break;
	case VHOST_REQ_SET_FEATURES:
	case VHOST_REQ_VSOCK_SET_CID:
		r->u64 = *(uint64_t *)arg;
		break;
	case VHOST_REQ_VSOCK_RUNNING:
		r->val = *(int *)arg;
		break;
	case VHOST_REQ_SET_MEM_TABLE:
		r->mem = *(struct vhost_mem *)arg;
		break;
	case VHOST_REQ_SET_VRING_ADDR:
		r->addr = *(struct vhost_ring_addr *)arg;
		r->index = r->addr.index;
		break;
	case VHOST_REQ_SET_OWNER:
		assert_null(arg);
		break;
	default:
		r->index = ((struct vhost_ring_val *)arg)->index;
		r->val = ((struct vhost_ring_val *)arg)->val;
		if (req == VHOST_REQ_GET_VRING_BASE)
			((struct vhost_ring_val *)arg)->val = 7;
		break;
	}
	return (int)f->n == f->fail_at ? f->fail_err : 0;
}

static const struct vhost_mem mem = { 0x80000000, 0x8000000, 0x7f0000000000 };

static void open_ok(struct vhost *v, struct fake *f)
{
	const struct vhost_transport t = { fake_req, f };

	assert_int_equal(vhost_open(v, &t, &mem), 0);
}

static struct vhost_ring ring(unsigned int i)
{
	return (struct vhost_ring){
		.num = 256,
		.base = 3,
		.desc = 0x1000 * (i + 1),
		.avail = 0x1000 * (i + 1) + 0x100,
		.used = 0x1000 * (i + 1) + 0x200,
		.call_fd = 10 + i,
		.kick_fd = 20 + i,
	};
}

static void test_open_order(void **state)
{
	struct fake f = { 0 };
	struct vhost v;

	open_ok(&v, &f);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.log[0].req, VHOST_REQ_SET_OWNER);
	assert_int_equal(f.log[1].req, VHOST_REQ_GET_FEATURES);
	assert_int_equal(f.log[2].req, VHOST_REQ_SET_MEM_TABLE);
	assert_int_equal(f.log[2].mem.gpa, mem.gpa);
	assert_int_equal(f.log[2].mem.size, mem.size);
	assert_int_equal(f.log[2].mem.hva, mem.hva);
	assert_int_equal(v.features,
			 BACKEND_FEATURES | (1ULL << VHOST_F_LOG_ALL));
	assert_false(v.broken);
}

static void test_ring_order(void **state)
{
	static const enum vhost_req want[] = {
		VHOST_REQ_SET_VRING_NUM,  VHOST_REQ_SET_VRING_BASE,
		VHOST_REQ_SET_VRING_ADDR, VHOST_REQ_SET_VRING_CALL,
		VHOST_REQ_SET_VRING_KICK,
	};
	struct fake f = { 0 };
	struct vhost v;
	struct vhost_ring r = ring(1);

	open_ok(&v, &f);
	f.n = 0;
	assert_int_equal(vhost_ring_start(&v, 1, &r), 0);
	assert_int_equal(f.n, 5);
	for (unsigned int i = 0; i < 5; i++) {
		assert_int_equal(f.log[i].req, want[i]);
		assert_int_equal(f.log[i].index, 1);
	}
	assert_int_equal(f.log[0].val, 256);
	assert_int_equal(f.log[1].val, 3);
	assert_int_equal(f.log[2].addr.desc, r.desc);
	assert_int_equal(f.log[2].addr.avail, r.avail);
	assert_int_equal(f.log[2].addr.used, r.used);
	assert_int_equal(f.log[3].val, 11);
	assert_int_equal(f.log[4].val, 21);
	assert_int_equal(v.started, 1u << 1);
	assert_int_equal(vhost_ring_start(&v, VHOST_MAX_RINGS, &r), -EINVAL);
}

static void test_features_masked(void **state)
{
	struct fake f = { 0 };
	struct vhost v;

	open_ok(&v, &f);
	f.n = 0;
	/* What the back-end lacks and dirty logging never reach it. */
	assert_int_equal(vhost_set_features(&v, ~0ULL), 0);
	assert_int_equal(f.log[0].req, VHOST_REQ_SET_FEATURES);
	assert_int_equal(f.log[0].u64, BACKEND_FEATURES);
}

/* A full device life: start, reset, start again (a guest reboot). */
static void test_stop_and_restart(void **state)
{
	struct fake f = { 0 };
	struct vhost v;
	struct vhost_ring r0 = ring(0), r1 = ring(1);
	int zero = 0;

	open_ok(&v, &f);
	assert_int_equal(vhost_ring_start(&v, 0, &r0), 0);
	assert_int_equal(vhost_ring_start(&v, 1, &r1), 0);
	f.n = 0;
	assert_int_equal(vhost_stop(&v, VHOST_REQ_VSOCK_RUNNING, &zero), 0);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.log[0].req, VHOST_REQ_VSOCK_RUNNING);
	assert_int_equal(f.log[0].val, 0);
	assert_int_equal(f.log[1].req, VHOST_REQ_GET_VRING_BASE);
	assert_int_equal(f.log[1].index, 0);
	assert_int_equal(f.log[2].req, VHOST_REQ_GET_VRING_BASE);
	assert_int_equal(f.log[2].index, 1);
	assert_int_equal(v.started, 0);
	/* Nothing started: only the device's request. */
	f.n = 0;
	assert_int_equal(vhost_stop(&v, VHOST_REQ_NR, NULL), 0);
	assert_int_equal(f.n, 0);
	r0.base = 0;
	assert_int_equal(vhost_ring_start(&v, 0, &r0), 0);
	assert_int_equal(f.log[1].req, VHOST_REQ_SET_VRING_BASE);
	assert_int_equal(f.log[1].val, 0);
}

/* The first failure stops the sequence; later requests are refused. */
static void test_failure_breaks(void **state)
{
	struct fake f = { 0 };
	struct vhost v;
	struct vhost_ring r0 = ring(0);
	int one = 1, zero = 0;

	open_ok(&v, &f);
	f.n = 0;
	f.fail_at = 3; /* SET_VRING_ADDR */
	f.fail_err = -EFAULT;
	assert_int_equal(vhost_ring_start(&v, 0, &r0), -EFAULT);
	assert_int_equal(f.n, 3);
	assert_true(v.broken);
	assert_int_equal(v.failed, VHOST_REQ_SET_VRING_ADDR);
	assert_string_equal(vhost_req_name(v.failed), "SET_VRING_ADDR");
	assert_int_equal(v.started, 0);
	assert_int_equal(vhost_set_features(&v, 1), -EIO);
	assert_int_equal(vhost_dev_req(&v, VHOST_REQ_VSOCK_RUNNING, &one),
			 -EIO);
	assert_int_equal(f.n, 3);
	/* The reset still asks, and clears the failure. */
	f.fail_at = 0;
	assert_int_equal(vhost_stop(&v, VHOST_REQ_VSOCK_RUNNING, &zero), 0);
	assert_int_equal(f.n, 4);
	assert_false(v.broken);
	assert_int_equal(vhost_ring_start(&v, 0, &r0), 0);
	assert_int_equal(v.started, 1);
}

static void test_stop_reports_first_error(void **state)
{
	struct fake f = { 0 };
	struct vhost v;
	struct vhost_ring r0 = ring(0), r1 = ring(1);
	int zero = 0;

	open_ok(&v, &f);
	assert_int_equal(vhost_ring_start(&v, 0, &r0), 0);
	assert_int_equal(vhost_ring_start(&v, 1, &r1), 0);
	f.n = 0;
	f.fail_at = 2; /* ring 0's GET_VRING_BASE */
	f.fail_err = -ENODEV;
	assert_int_equal(vhost_stop(&v, VHOST_REQ_VSOCK_RUNNING, &zero),
			 -ENODEV);
	assert_int_equal(f.n, 3); /* ring 1 asked all the same */
	assert_int_equal(v.failed, VHOST_REQ_GET_VRING_BASE);
	assert_false(v.broken);
}

static void test_open_fails(void **state)
{
	struct fake f = { .fail_at = 1, .fail_err = -EBUSY };
	const struct vhost_transport t = { fake_req, &f };
	struct vhost v;

	assert_int_equal(vhost_open(&v, &t, &mem), -EBUSY);
	assert_int_equal(f.n, 1);
	assert_int_equal(v.failed, VHOST_REQ_SET_OWNER);
}

static void test_kernel_numbers(void **state)
{
	assert_int_equal(vhost_kernel_ioctl_nr(VHOST_REQ_SET_OWNER),
			 VHOST_SET_OWNER);
	assert_int_equal(vhost_kernel_ioctl_nr(VHOST_REQ_GET_VRING_BASE),
			 VHOST_GET_VRING_BASE);
	assert_int_equal(vhost_kernel_ioctl_nr(VHOST_REQ_SET_VRING_KICK),
			 VHOST_SET_VRING_KICK);
	assert_int_equal(vhost_kernel_ioctl_nr(VHOST_REQ_VSOCK_SET_CID),
			 VHOST_VSOCK_SET_GUEST_CID);
	assert_int_equal(vhost_kernel_ioctl_nr(VHOST_REQ_VSOCK_RUNNING),
			 VHOST_VSOCK_SET_RUNNING);
	assert_int_equal(vhost_kernel_ioctl_nr(VHOST_REQ_NR), 0);
	for (unsigned int r = 0; r < VHOST_REQ_NR; r++) {
		assert_string_not_equal(vhost_req_name(r), "?");
		if (r == VHOST_REQ_SET_VRING_ENABLE)
			assert_int_equal(vhost_kernel_ioctl_nr(r), 0);
		else
			assert_int_not_equal(vhost_kernel_ioctl_nr(r), 0);
	}
}

/* What the kernel has no ioctl for is refused before any syscall. */
static void test_kernel_refuses_enable(void **state)
{
	int fd = -1;
	const struct vhost_transport t = vhost_kernel_transport(&fd);
	struct vhost_ring_val rv = { .index = 0, .val = 1 };

	assert_int_equal(t.req(t.opaque, VHOST_REQ_SET_VRING_ENABLE, &rv),
			 -EINVAL);
}

/* vhost-user's order: features, ring start, enable (started rings only). */
static void test_ring_enable(void **state)
{
	struct fake f = { 0 };
	struct vhost v;
	struct vhost_ring r1 = ring(1);

	open_ok(&v, &f);
	assert_int_equal(vhost_ring_enable(&v, 1, true), -EINVAL);
	assert_int_equal(vhost_ring_enable(&v, VHOST_MAX_RINGS, true), -EINVAL);
	assert_int_equal(vhost_set_features(&v, 1), 0);
	assert_int_equal(vhost_ring_start(&v, 1, &r1), 0);
	f.n = 0;
	assert_int_equal(vhost_ring_enable(&v, 1, true), 0);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.log[0].req, VHOST_REQ_SET_VRING_ENABLE);
	assert_int_equal(f.log[0].index, 1);
	assert_int_equal(f.log[0].val, 1);
	assert_int_equal(vhost_ring_enable(&v, 1, false), 0);
	assert_int_equal(f.log[1].req, VHOST_REQ_SET_VRING_ENABLE);
	assert_int_equal(f.log[1].val, 0);
	assert_false(v.broken);
}

/* The kernel transport on a file that is no vhost: -errno, no crash. */
static void test_kernel_bad_fd(void **state)
{
	int fd = -1;
	const struct vhost_transport t = vhost_kernel_transport(&fd);
	struct vhost v;

	assert_int_equal(vhost_open(&v, &t, &mem), -EBADF);
	assert_int_equal(v.failed, VHOST_REQ_SET_OWNER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_order),
		cmocka_unit_test(test_ring_order),
		cmocka_unit_test(test_features_masked),
		cmocka_unit_test(test_stop_and_restart),
		cmocka_unit_test(test_failure_breaks),
		cmocka_unit_test(test_stop_reports_first_error),
		cmocka_unit_test(test_open_fails),
		cmocka_unit_test(test_kernel_numbers),
		cmocka_unit_test(test_kernel_bad_fd),
		cmocka_unit_test(test_kernel_refuses_enable),
		cmocka_unit_test(test_ring_enable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
