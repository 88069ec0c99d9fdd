// SPDX-License-Identifier: GPL-2.0
/*
 * The virtio-9p device (virtio/9p.c) behind virtio-mmio, driven by the
 * driver mock: identity, feature and mount tag, a Tversion/Tattach/Twalk/
 * Tlopen/Tread round trip through chains whose request and reply are split
 * over several buffers (as Linux's zero-copy reads are), and chains with
 * no room for a reply; the worker thread: a server call that blocks does
 * not block the notifying thread or the registers, requests complete in
 * order, and a reset or destroy waits for the request being served.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/log.h"
#include "tests/unit/virtq_mock.h"
#include "virtio/9p.h"
#include "slot_res.h"

#define RAM_SIZE (1024 * 1024)
#define NUM 16
#define ACK VIRTIO_STATUS_ACKNOWLEDGE
#define DRV VIRTIO_STATUS_DRIVER
#define FOK VIRTIO_STATUS_FEATURES_OK
#define DOK VIRTIO_STATUS_DRIVER_OK

struct fx {
	struct vqm q;
	struct virtio_9p p9;
	char dir[64];
	/* the gate the wrapped server waits at (see gated_serve) */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool gate_closed;
	unsigned int entered; /* server calls begun */
	pthread_t server_thread;
};

static struct fx *gate_fx; /* the server has no opaque of its own */

/* p9_server_handle(), after waiting while the test holds the gate shut. */
static uint32_t gated_serve(struct p9_server *s, const uint8_t *req,
			    uint32_t len, uint8_t *resp, uint32_t cap)
{
	struct fx *f = gate_fx;

	pthread_mutex_lock(&f->lock);
	f->entered++;
	f->server_thread = pthread_self();
	pthread_cond_broadcast(&f->cond);
	while (f->gate_closed)
		pthread_cond_wait(&f->cond, &f->lock);
	pthread_mutex_unlock(&f->lock);
	return p9_server_handle(s, req, len, resp, cap);
}

static void gate(struct fx *f, bool closed)
{
	pthread_mutex_lock(&f->lock);
	f->gate_closed = closed;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

/* Wait (5 s at most) until the server has begun n calls. */
static void wait_entered(struct fx *f, unsigned int n)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += 5;
	pthread_mutex_lock(&f->lock);
	while (f->entered < n &&
	       pthread_cond_timedwait(&f->cond, &f->lock, &t) == 0)
		;
	pthread_mutex_unlock(&f->lock);
	assert_int_equal(f->entered, n);
}

/* Wait (5 s at most) for the worker to publish used index n. */
static void wait_used_idx(struct fx *f, uint16_t n)
{
	for (int i = 0; i < 5000 && vqm_used_idx(&f->q) != n; i++)
		usleep(1000);
	assert_int_equal(vqm_used_idx(&f->q), n);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	const struct irq_line irq = { 0 };
	char path[128];
	FILE *file;

	assert_non_null(f);
	strcpy(f->dir, "/tmp/rvkvm-test-9pv-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(path, sizeof(path), "%s/data", f->dir);
	file = fopen(path, "w");
	fputs("0123456789abcdef", file);
	fclose(file);
	vqm_init(&f->q, RAM_SIZE, NUM);
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	gate_fx = f;
	assert_int_equal(virtio_9p_init(&f->p9, &SLOT_RES(0), &f->q.mem, &irq,
					f->dir, "hostshare"),
			 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char path[128];

	virtio_9p_destroy(&f->p9);
	vqm_free(&f->q);
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->cond);
	snprintf(path, sizeof(path), "%s/data", f->dir);
	unlink(path);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void driver_up(struct fx *f)
{
	struct virtio_mmio *vm = &f->p9.vm;

	assert_int_equal(
		vqm_mmio_negotiate(vm, VIRTIO_BIT(VIRTIO_F_VERSION_1) |
					       VIRTIO_BIT(VIRTIO_9P_MOUNT_TAG)),
		ACK | DRV | FOK);
	assert_int_equal(vqm_mmio_queue(vm, 0, &f->q), 1);
	assert_int_equal(vqm_mmio_driver_ok(vm), ACK | DRV | FOK | DOK);
}

static void test_identity_and_tag(void **state)
{
	struct fx *f = *state;
	struct virtio_mmio *vm = &f->p9.vm;
	char tag[16] = "";

	assert_int_equal(vqm_mmio_rd(vm, VIRTIO_MMIO_DEVICE_ID), VIRTIO_ID_9P);
	vqm_mmio_wr(vm, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 0);
	assert_true(vqm_mmio_rd(vm, VIRTIO_MMIO_DEVICE_FEATURES) &
		    (1u << VIRTIO_9P_MOUNT_TAG));
	assert_int_equal(vqm_mmio_rd_n(vm, VIRTIO_MMIO_CONFIG, 2), 9);
	for (int i = 0; i < 9; i++)
		tag[i] = vqm_mmio_rd_n(vm, VIRTIO_MMIO_CONFIG + 2 + i, 1);
	assert_string_equal(tag, "hostshare");
	/* past the tag: zeros, no overrun */
	assert_int_equal(vqm_mmio_rd_n(vm, VIRTIO_MMIO_CONFIG + 11, 1), 0);
}

static void test_bad_init(void **state)
{
	struct fx *f = *state;
	struct virtio_9p p;
	const struct irq_line irq = { 0 };

	assert_int_equal(
		virtio_9p_init(&p, &SLOT_RES(1), &f->q.mem, &irq, f->dir, ""),
		-EINVAL);
	assert_int_equal(virtio_9p_init(&p, &SLOT_RES(1), &f->q.mem, &irq,
					"/nonexistent-rvkvm", "t"),
			 -ENOENT);
}

/* A request split over two readable buffers; reply over two writable. */
static uint32_t rpc(struct fx *f, const uint8_t *req, uint32_t len,
		    uint32_t first_wr, uint32_t second_wr, uint8_t *reply)
{
	struct vqm_buf b[4];
	uint32_t id, used = 0, cut = len / 2;
	unsigned int n = 0;

	b[n] = vqm_buf_new(&f->q, cut, false, 0);
	memcpy(vqm_ptr(&f->q, b[n].gpa, cut), req, cut);
	n++;
	b[n] = vqm_buf_new(&f->q, len - cut, false, 0);
	memcpy(vqm_ptr(&f->q, b[n].gpa, len - cut), req + cut, len - cut);
	n++;
	if (first_wr)
		b[n++] = vqm_buf_new(&f->q, first_wr, true, 0xee);
	if (second_wr)
		b[n++] = vqm_buf_new(&f->q, second_wr, true, 0xee);
	vqm_add(&f->q, b, n);
	virtio_mmio_kick(&f->p9.vm, 0);
	wait_used_idx(f, f->q.last_used + 1);
	assert_true(vqm_get_used(&f->q, &id, &used));
	if (used > 0)
		memcpy(reply,
		       vqm_ptr(&f->q, b[2].gpa,
			       used < first_wr ? used : first_wr),
		       used < first_wr ? used : first_wr);
	if (used > first_wr)
		memcpy(reply + first_wr,
		       vqm_ptr(&f->q, b[3].gpa, used - first_wr),
		       used - first_wr);
	return used;
}

static const uint8_t tversion[] = { 21,	 0,   0,   0,	100, 1,	  0,
				    0,	 32,  0,   0,	8,   0,	  '9',
				    'P', '2', '0', '0', '0', '.', 'L' };
static const uint8_t tattach[] = { 23, 0, 0, 0,	   0,	 0,    0,    0,
				   0,  0, 0, 0xff, 0xff, 0xff, 0xff, 0,
				   0,  0, 0, 0,	   0,	 0,    0 };

static void test_round_trip(void **state)
{
	struct fx *f = *state;
	uint8_t reply[256], req[64];
	uint8_t twalk[] = { 0, 0, 0, 0, 110, 2, 0, 0,	0,   0,	  0,  1,
			    0, 0, 0, 1, 0,   4, 0, 'd', 'a', 't', 'a' };
	uint8_t tlopen[] = { 15, 0, 0, 0, 12, 3, 0, 1, 0, 0, 0, 0, 0, 0, 0 };
	uint8_t tread[] = { 23, 0, 0, 0, 116, 4, 0, 1,	 0, 0, 0, 4,
			    0,	0, 0, 0, 0,   0, 0, 100, 0, 0, 0 };

	driver_up(f);
	assert_int_equal(rpc(f, tversion, sizeof(tversion), 64, 0, reply), 21);
	assert_int_equal(reply[4], 101);
	memcpy(req, tattach, sizeof(tattach));
	req[4] = 104;
	assert_int_equal(rpc(f, req, sizeof(tattach), 64, 0, reply), 20);
	assert_int_equal(reply[4], 105);
	twalk[0] = sizeof(twalk);
	assert_int_equal(rpc(f, twalk, sizeof(twalk), 64, 0, reply), 22);
	assert_int_equal(reply[4], 111);
	assert_int_equal(rpc(f, tlopen, sizeof(tlopen), 64, 0, reply), 24);
	assert_int_equal(reply[4], 13);
	/* Rread: its 11-byte header in the first buffer, data in the next */
	assert_int_equal(rpc(f, tread, sizeof(tread), 11, 100, reply), 23);
	assert_int_equal(reply[4], 117);
	assert_int_equal(reply[7], 12);
	assert_memory_equal(reply + 11, "456789abcdef", 12);
}

static void test_no_room_for_reply(void **state)
{
	struct fx *f = *state;
	uint8_t reply[64];

	driver_up(f);
	/* nothing writable: returned with length 0, the device carries on */
	assert_int_equal(rpc(f, tversion, sizeof(tversion), 0, 0, reply), 0);
	assert_int_equal(rpc(f, tversion, sizeof(tversion), 5, 0, reply), 0);
	assert_int_equal(rpc(f, tversion, sizeof(tversion), 64, 0, reply), 21);
	/* garbage: an Rlerror EBADMSG */
	assert_int_equal(rpc(f, (const uint8_t *)"\x07\0\0\0\x99\x01\0", 7, 64,
			     0, reply),
			 11);
	assert_int_equal(reply[4], P9_RLERROR);
	assert_int_equal(reply[7], EOPNOTSUPP);
}

/* A Tversion chain with room for the reply; its writable buffer. */
static struct vqm_buf add_tversion(struct fx *f)
{
	struct vqm_buf b[2] = { vqm_buf_new(&f->q, sizeof(tversion), false, 0),
				vqm_buf_new(&f->q, 64, true, 0xee) };

	memcpy(vqm_ptr(&f->q, b[0].gpa, b[0].len), tversion, sizeof(tversion));
	vqm_add(&f->q, b, 2);
	return b[1];
}

/*
 * The server blocks (a slow host file system): the notification returns
 * at once, more notifications and register accesses go on, nothing is
 * completed; once it returns, the requests complete in order, served on
 * the worker, not on the notifying thread.
 */
static void test_worker_blocked_server(void **state)
{
	struct fx *f = *state;
	uint32_t id, len;

	driver_up(f);
	f->p9.serve = gated_serve;
	gate(f, true);
	add_tversion(f);
	virtio_mmio_kick(&f->p9.vm, 0);
	wait_entered(f, 1);
	assert_false(pthread_equal(f->server_thread, pthread_self()));
	add_tversion(f);
	virtio_mmio_kick(&f->p9.vm, 0); /* returns: the worker is busy */
	assert_int_equal(vqm_mmio_rd(&f->p9.vm, VIRTIO_MMIO_STATUS),
			 ACK | DRV | FOK | DOK);
	usleep(10000);
	assert_int_equal(f->entered, 1);
	assert_int_equal(vqm_used_idx(&f->q), 0);
	gate(f, false);
	wait_used_idx(f, 2);
	assert_int_equal(f->entered, 2);
	for (uint32_t head = 0; head < 4; head += 2) {
		assert_true(vqm_get_used(&f->q, &id, &len));
		assert_int_equal(id, head);
		assert_int_equal(len, 21);
	}
}

struct resetter {
	struct fx *f;
	bool done;
};

static void *do_reset(void *arg)
{
	struct resetter *r = arg;

	vqm_mmio_wr(&r->f->p9.vm, VIRTIO_MMIO_STATUS, 0);
	__atomic_store_n(&r->done, true, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * A reset while a request is served waits for it (the server is the
 * worker's), drops its reply with the rings, and the device works again.
 */
static void test_worker_reset_waits(void **state)
{
	struct fx *f = *state;
	struct resetter r = { f, false };
	struct vqm_buf reply;
	pthread_t t;
	uint32_t id, len;

	driver_up(f);
	f->p9.serve = gated_serve;
	gate(f, true);
	reply = add_tversion(f);
	virtio_mmio_kick(&f->p9.vm, 0);
	wait_entered(f, 1);
	assert_int_equal(pthread_create(&t, NULL, do_reset, &r), 0);
	/* the reset has begun (status 0) and waits for the worker */
	for (int i = 0; i < 5000 && vqm_mmio_rd(&f->p9.vm, VIRTIO_MMIO_STATUS);
	     i++)
		usleep(1000);
	assert_int_equal(vqm_mmio_rd(&f->p9.vm, VIRTIO_MMIO_STATUS), 0);
	usleep(10000);
	assert_false(__atomic_load_n(&r.done, __ATOMIC_SEQ_CST));
	gate(f, false);
	pthread_join(t, NULL);
	assert_true(r.done);
	assert_int_equal(vqm_used_idx(&f->q), 0); /* dropped with the rings */
	/* the reply went into the buffer before the reset completed */
	assert_int_equal(*(uint8_t *)vqm_ptr(&f->q, reply.gpa, 1), 21);
	vqm_free(&f->q);
	vqm_init(&f->q, RAM_SIZE, NUM);
	driver_up(f);
	add_tversion(f);
	virtio_mmio_kick(&f->p9.vm, 0);
	wait_used_idx(f, 1);
	assert_true(vqm_get_used(&f->q, &id, &len));
	assert_int_equal(len, 21);
}

static void *open_gate_later(void *arg)
{
	usleep(20000);
	gate(arg, false);
	return NULL;
}

/* Destroy with a request being served: the worker finishes it, joined. */
static void test_worker_destroy_busy(void **state)
{
	struct fx *f = *state;
	pthread_t t;

	driver_up(f);
	f->p9.serve = gated_serve;
	gate(f, true);
	add_tversion(f);
	add_tversion(f);
	virtio_mmio_kick(&f->p9.vm, 0);
	wait_entered(f, 1);
	assert_int_equal(pthread_create(&t, NULL, open_gate_later, f), 0);
	virtio_9p_stop(&f->p9);
	pthread_join(t, NULL);
	assert_int_equal(f->entered, 1); /* quit after the request served */
	assert_int_equal(vqm_used_idx(&f->q), 1);
	assert_false(f->p9.started);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_identity_and_tag, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_init, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_trip, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_room_for_reply, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_worker_blocked_server,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_worker_reset_waits, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_worker_destroy_busy, setup,
						teardown),
	};

	log_level = LOG_ERR;
	return cmocka_run_group_tests_name("9p_virtio", tests, NULL, NULL);
}
