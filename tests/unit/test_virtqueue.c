// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <cmocka.h>

#include "virtio/virtqueue.h"
#include "lib/log.h"
#include "tests/unit/virtq_mock.h"

#define RAM_SIZE (256 * 1024)
#define NUM 8

struct fix {
	struct vqm m;
	struct virtqueue vq;
	struct virtq_chain c;
};

static int setup_num(void **state, uint32_t num, uint32_t num_max,
		     bool event_idx)
{
	struct fix *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	vqm_init(&f->m, RAM_SIZE, num);
	vqm_attach(&f->m, &f->vq, num_max);
	f->vq.indirect = true;
	f->vq.event_idx = event_idx;
	*state = f;
	return 0;
}

static int setup(void **state)
{
	log_level = -1;
	return setup_num(state, NUM, 256, false);
}

static int setup_event(void **state)
{
	log_level = -1;
	return setup_num(state, NUM, 256, true);
}

static int setup_big(void **state)
{
	log_level = -1;
	return setup_num(state, 512, 512, false);
}

static int teardown(void **state)
{
	struct fix *f = *state;

	vqm_free(&f->m);
	free(f);
	return 0;
}

static void activate(struct fix *f)
{
	assert_int_equal(virtq_activate(&f->vq), 0);
	assert_true(f->vq.ready);
}

/* The queue must now be broken: pop and push fail from here on. */
static void assert_broken(struct fix *f)
{
	assert_int_equal(virtq_pop(&f->vq, &f->c), -EIO);
	assert_true(f->vq.broken);
	assert_int_equal(virtq_pop(&f->vq, &f->c), -EIO);
	assert_int_equal(virtq_push(&f->vq, 0, 0), -EIO);
	assert_int_equal(vqm_used_idx(&f->m), 0);
}

/* --- activation ------------------------------------------------------- */

static void test_activate_ok(void **state)
{
	struct fix *f = *state;

	activate(f);
	assert_int_equal(f->vq.last_avail_idx, 0);
	assert_int_equal(f->vq.used_idx, 0);
	assert_false(f->vq.broken);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 0);
}

static void test_activate_bad_num(void **state)
{
	static const uint32_t bad[] = { 0, 3, 6, 257, 512, 65536, 0x80000000 };
	struct fix *f = *state;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f->vq.num = bad[i];
		assert_int_equal(virtq_activate(&f->vq), -EINVAL);
		assert_false(f->vq.ready);
	}
	f->vq.num = 1;
	activate(f);
	f->vq.num = 256;
	activate(f);
}

static void test_activate_misaligned(void **state)
{
	struct fix *f = *state;

	f->vq.desc_gpa = f->m.desc + 8;
	assert_int_equal(virtq_activate(&f->vq), -EINVAL);
	f->vq.desc_gpa = f->m.desc;
	f->vq.avail_gpa = f->m.avail + 1;
	assert_int_equal(virtq_activate(&f->vq), -EINVAL);
	f->vq.avail_gpa = f->m.avail;
	f->vq.used_gpa = f->m.used + 2;
	assert_int_equal(virtq_activate(&f->vq), -EINVAL);
	assert_false(f->vq.ready);
	f->vq.used_gpa = f->m.used;
	activate(f);
}

static void test_activate_outside_ram(void **state)
{
	struct fix *f = *state;
	uint64_t end = VQM_RAM_BASE + RAM_SIZE;

	f->vq.desc_gpa = VQM_RAM_BASE - 16;
	assert_int_equal(virtq_activate(&f->vq), -EINVAL);
	f->vq.desc_gpa = end - 16 * NUM + 16;
	assert_int_equal(virtq_activate(&f->vq), -EINVAL);
	f->vq.desc_gpa = UINT64_MAX & ~15ULL;
	assert_int_equal(virtq_activate(&f->vq), -EINVAL);
	f->vq.desc_gpa = end - 16 * NUM; /* exactly fits */
	activate(f);

	/* used_event (the last 2 bytes) past the end of RAM */
	f->vq.avail_gpa = end - virtq_avail_bytes(NUM) + 2;
	assert_int_equal(virtq_activate(&f->vq), -EINVAL);
	f->vq.avail_gpa = end - virtq_avail_bytes(NUM);
	activate(f);

	/* avail_event past the end of RAM */
	f->vq.used_gpa = vqm_align(end - virtq_used_bytes(NUM) + 1, 4);
	assert_int_equal(virtq_activate(&f->vq), -EINVAL);
	f->vq.used_gpa = 0;
	assert_int_equal(virtq_activate(&f->vq), -EINVAL);
	assert_false(f->vq.ready);
}

static void test_not_ready(void **state)
{
	struct fix *f = *state;

	assert_int_equal(virtq_pop(&f->vq, &f->c), 0);
	assert_int_equal(virtq_push(&f->vq, 0, 0), -EIO);
	assert_false(virtq_need_notify(&f->vq));
}

/* --- chains ------------------------------------------------------------ */

static void test_chain_out_in(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b[4] = {
		vqm_buf_new(&f->m, 5, false, 0),
		vqm_buf_new(&f->m, 7, false, 0),
		vqm_buf_new(&f->m, 4, true, 0xee),
		vqm_buf_new(&f->m, 6, true, 0xee),
	};
	uint8_t in[12], out[10], expect[10];
	struct virtq_reader r;
	struct virtq_writer w;
	uint32_t id, len;
	uint16_t head;

	for (unsigned int i = 0; i < 12; i++)
		in[i] = 0x10 + i;
	memcpy(vqm_ptr(&f->m, b[0].gpa, 5), in, 5);
	memcpy(vqm_ptr(&f->m, b[1].gpa, 7), in + 5, 7);
	memset(in, 0, sizeof(in));
	activate(f);
	head = vqm_add(&f->m, b, 4);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(f->c.head, head);
	assert_int_equal(f->c.nr_segs, 4);
	assert_int_equal(f->c.nr_readable, 2);
	assert_int_equal(f->c.readable_len, 12);
	assert_int_equal(f->c.writable_len, 10);
	assert_false(f->c.segs[1].writable);
	assert_true(f->c.segs[2].writable);

	virtq_reader_init(&r, &f->c);
	assert_int_equal(virtq_reader_read(&r, in, 3), 3);
	assert_int_equal(virtq_reader_remaining(&r), 9);
	assert_int_equal(virtq_reader_read(&r, in + 3, 100), 9);
	assert_int_equal(virtq_reader_remaining(&r), 0);
	assert_int_equal(virtq_reader_read(&r, in, 1), 0);
	for (unsigned int i = 0; i < 12; i++)
		assert_int_equal(in[i], 0x10 + i);

	for (unsigned int i = 0; i < 10; i++)
		out[i] = expect[i] = 0xa0 + i;
	virtq_writer_init(&w, &f->c);
	assert_int_equal(virtq_writer_remaining(&w), 10);
	assert_int_equal(virtq_writer_write(&w, out, 5), 5);
	assert_int_equal(virtq_writer_write(&w, out + 5, 50), 5);
	assert_int_equal(virtq_writer_write(&w, out, 1), 0);
	assert_int_equal(virtq_writer_written(&w), 10);
	assert_memory_equal(vqm_ptr(&f->m, b[2].gpa, 4), expect, 4);
	assert_memory_equal(vqm_ptr(&f->m, b[3].gpa, 6), expect + 4, 6);
	/* readable buffers untouched by the writer */
	assert_int_equal(*(uint8_t *)vqm_ptr(&f->m, b[0].gpa, 1), 0x10);

	assert_int_equal(virtq_push(&f->vq, f->c.head, 10), 0);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(id, head);
	assert_int_equal(len, 10);
	assert_false(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(virtq_pop(&f->vq, &f->c), 0);
}

static void test_several_chains_in_order(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->m, 8, true, 0);
	uint16_t heads[3];
	uint32_t id, len;

	activate(f);
	for (unsigned int i = 0; i < 3; i++)
		heads[i] = vqm_add(&f->m, &b, 1);
	for (unsigned int i = 0; i < 3; i++) {
		assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
		assert_int_equal(f->c.head, heads[i]);
	}
	assert_int_equal(virtq_pop(&f->vq, &f->c), 0);
	/* completions may come back in any order */
	assert_int_equal(virtq_push(&f->vq, heads[2], 2), 0);
	assert_int_equal(virtq_push(&f->vq, heads[0], 0), 0);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(id, heads[2]);
	assert_int_equal(len, 2);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(id, heads[0]);
	assert_int_equal(virtq_push(&f->vq, NUM, 0), -EINVAL);
}

static void test_zero_length_buffers(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b[4] = {
		{ .gpa = 0, .len = 0, .write = false }, /* not in RAM */
		vqm_buf_new(&f->m, 3, false, 1),
		{ .gpa = UINT64_MAX, .len = 0, .write = true },
		vqm_buf_new(&f->m, 2, true, 0),
	};
	struct virtq_writer w;

	activate(f);
	vqm_add(&f->m, b, 4);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(f->c.nr_segs, 2);
	assert_int_equal(f->c.nr_readable, 1);
	assert_int_equal(f->c.readable_len, 3);
	assert_int_equal(f->c.writable_len, 2);
	virtq_writer_init(&w, &f->c);
	assert_int_equal(virtq_writer_write(&w, "xyz", 3), 2);
	assert_memory_equal(vqm_ptr(&f->m, b[3].gpa, 2), "xy", 2);

	/* a chain of only empty buffers is fine too */
	vqm_add(&f->m, b, 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(f->c.nr_segs, 0);
	assert_false(f->vq.broken);
}

static void test_full_ring(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->m, 1, true, 0);

	activate(f);
	for (unsigned int i = 0; i < NUM; i++)
		vqm_add(&f->m, &b, 1);
	for (unsigned int i = 0; i < NUM; i++)
		assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 0);
	assert_false(f->vq.broken);
}

/* --- indirect ---------------------------------------------------------- */

static void test_indirect(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b[3] = {
		vqm_buf_new(&f->m, 4, false, 0x11),
		vqm_buf_new(&f->m, 8, true, 0),
		vqm_buf_new(&f->m, 8, true, 0),
	};
	struct virtq_reader r;
	uint8_t in[4];
	uint16_t head;

	activate(f);
	head = vqm_add_indirect(&f->m, b, 3);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(f->c.head, head);
	assert_int_equal(f->c.nr_segs, 3);
	assert_int_equal(f->c.nr_readable, 1);
	assert_int_equal(f->c.writable_len, 16);
	virtq_reader_init(&r, &f->c);
	assert_int_equal(virtq_reader_read(&r, in, 4), 4);
	assert_memory_equal(in, "\x11\x11\x11\x11", 4);
	assert_int_equal(virtq_push(&f->vq, head, 16), 0);
}

/* Direct descriptors followed by an indirect one (§2.7.5.3.2). */
static void test_direct_then_indirect(void **state)
{
	struct fix *f = *state;
	struct vqm_buf d = vqm_buf_new(&f->m, 2, false, 0);
	struct vqm_buf t = vqm_buf_new(&f->m, 6, true, 0);
	uint64_t table = vqm_table(&f->m, &t, 1);

	activate(f);
	vqm_set_desc(&f->m, 3, d.gpa, 2, VIRTQ_DESC_F_NEXT, 5);
	/* WRITE on the indirect descriptor itself is ignored */
	vqm_set_desc(&f->m, 5, table, 16,
		     VIRTQ_DESC_F_INDIRECT | VIRTQ_DESC_F_WRITE, 0);
	vqm_publish(&f->m, 3);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(f->c.nr_segs, 2);
	assert_int_equal(f->c.readable_len, 2);
	assert_int_equal(f->c.writable_len, 6);
}

static void test_indirect_not_negotiated(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->m, 4, true, 0);

	f->vq.indirect = false;
	activate(f);
	vqm_add_indirect(&f->m, &b, 1);
	assert_broken(f);
}

static void indirect_len_case(struct fix *f, uint32_t len)
{
	uint64_t table = vqm_alloc(&f->m, 16 * (NUM + 2), 16);

	for (unsigned int i = 0; i < NUM + 2; i++)
		vqm_desc_at(&f->m, table, i, table, 1, 0, 0);
	vqm_attach(&f->m, &f->vq, 256);
	f->vq.indirect = true;
	f->m.avail_idx = 0;
	f->m.next_desc = 0;
	activate(f);
	vqm_set_desc(&f->m, 0, table, len, VIRTQ_DESC_F_INDIRECT, 0);
	vqm_publish(&f->m, 0);
}

static void test_indirect_bad_length(void **state)
{
	static const uint32_t bad[] = {
		0, 8, 15, 17, 16 * NUM + 8, 16 * (NUM + 1), 0xfffffff0
	};
	struct fix *f = *state;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		indirect_len_case(f, bad[i]);
		assert_int_equal(virtq_pop(&f->vq, &f->c), -EIO);
		assert_true(f->vq.broken);
	}
	indirect_len_case(f, 16 * NUM); /* the largest accepted */
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(f->c.nr_segs, 1);
}

static void test_indirect_nested(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->m, 4, true, 0);
	uint64_t inner = vqm_table(&f->m, &b, 1);
	uint64_t outer = vqm_alloc(&f->m, 16, 16);

	vqm_desc_at(&f->m, outer, 0, inner, 16, VIRTQ_DESC_F_INDIRECT, 0);
	activate(f);
	vqm_set_desc(&f->m, 0, outer, 16, VIRTQ_DESC_F_INDIRECT, 0);
	vqm_publish(&f->m, 0);
	assert_broken(f);
}

static void test_indirect_outside_ram(void **state)
{
	struct fix *f = *state;

	activate(f);
	vqm_set_desc(&f->m, 0, VQM_RAM_BASE + RAM_SIZE - 16, 32,
		     VIRTQ_DESC_F_INDIRECT, 0);
	vqm_publish(&f->m, 0);
	assert_broken(f);
}

static void test_indirect_with_next(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->m, 4, true, 0);

	activate(f);
	vqm_set_desc(&f->m, 0, vqm_table(&f->m, &b, 1), 16,
		     VIRTQ_DESC_F_INDIRECT | VIRTQ_DESC_F_NEXT, 1);
	vqm_publish(&f->m, 0);
	assert_broken(f);
}

static void test_indirect_next_out_of_range(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->m, 4, true, 0);
	uint64_t table = vqm_alloc(&f->m, 48, 16);

	/* a table of 2: next = 2 is outside it, though < num */
	vqm_desc_at(&f->m, table, 0, b.gpa, 4,
		    VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT, 2);
	/* ... and a valid descriptor just after the table's end */
	vqm_desc_at(&f->m, table, 2, b.gpa, 4, VIRTQ_DESC_F_WRITE, 0);
	activate(f);
	vqm_set_desc(&f->m, 0, table, 32, VIRTQ_DESC_F_INDIRECT, 0);
	vqm_publish(&f->m, 0);
	assert_broken(f);
}

static void test_indirect_loop(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->m, 4, true, 0);
	uint64_t table = vqm_alloc(&f->m, 32, 16);

	vqm_desc_at(&f->m, table, 0, b.gpa, 4,
		    VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT, 1);
	vqm_desc_at(&f->m, table, 1, b.gpa, 4,
		    VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT, 0);
	activate(f);
	vqm_set_desc(&f->m, 0, table, 32, VIRTQ_DESC_F_INDIRECT, 0);
	vqm_publish(&f->m, 0);
	assert_broken(f);
}

/* Direct + indirect buffers together longer than the queue. */
static void test_chain_longer_than_queue(void **state)
{
	struct fix *f = *state;
	struct vqm_buf t[NUM], d = vqm_buf_new(&f->m, 1, false, 0);
	uint64_t table;

	for (unsigned int i = 0; i < NUM; i++)
		t[i] = vqm_buf_new(&f->m, 1, true, 0);
	table = vqm_table(&f->m, t, NUM);
	activate(f);
	vqm_set_desc(&f->m, 0, d.gpa, 1, VIRTQ_DESC_F_NEXT, 1);
	vqm_set_desc(&f->m, 1, table, 16 * NUM, VIRTQ_DESC_F_INDIRECT, 0);
	vqm_publish(&f->m, 0);
	assert_broken(f);
}

/* --- malformed direct chains ------------------------------------------ */

static void test_head_out_of_range(void **state)
{
	struct fix *f = *state;

	activate(f);
	vqm_publish(&f->m, NUM);
	assert_broken(f);
}

static void test_next_out_of_range(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->m, 4, true, 0);

	activate(f);
	vqm_set_desc(&f->m, 0, b.gpa, 4, VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT,
		     NUM);
	vqm_publish(&f->m, 0);
	assert_broken(f);
}

static void test_descriptor_loop(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->m, 4, true, 0);

	activate(f);
	vqm_set_desc(&f->m, 0, b.gpa, 4, VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT,
		     1);
	vqm_set_desc(&f->m, 1, b.gpa, 4, VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT,
		     0);
	vqm_publish(&f->m, 0);
	assert_broken(f);
}

static void test_self_loop_of_empty_buffers(void **state)
{
	struct fix *f = *state;

	activate(f);
	vqm_set_desc(&f->m, 2, 0, 0, VIRTQ_DESC_F_NEXT, 2);
	vqm_publish(&f->m, 2);
	assert_broken(f);
}

/* A chain using every descriptor of the table once is fine. */
static void test_chain_of_num_descriptors(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b[NUM];

	for (unsigned int i = 0; i < NUM; i++)
		b[i] = vqm_buf_new(&f->m, 1, i >= NUM / 2, 0);
	activate(f);
	vqm_add(&f->m, b, NUM);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(f->c.nr_segs, NUM);
	assert_int_equal(f->c.nr_readable, NUM / 2);
}

static void test_too_many_segments(void **state)
{
	struct fix *f = *state;
	static struct vqm_buf b[VIRTQ_CHAIN_MAX_SEGS + 1];

	for (unsigned int i = 0; i <= VIRTQ_CHAIN_MAX_SEGS; i++)
		b[i] = vqm_buf_new(&f->m, 1, true, 0);
	activate(f);
	vqm_add(&f->m, b, VIRTQ_CHAIN_MAX_SEGS); /* the most accepted */
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(f->c.nr_segs, VIRTQ_CHAIN_MAX_SEGS);
	vqm_add(&f->m, b, VIRTQ_CHAIN_MAX_SEGS + 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), -EIO);
	assert_true(f->vq.broken);
}

static void test_buffer_outside_ram(void **state)
{
	static const struct {
		uint64_t gpa;
		uint32_t len;
	} bad[] = {
		{ VQM_RAM_BASE - 1, 2 },
		{ VQM_RAM_BASE + RAM_SIZE - 4, 5 },
		{ VQM_RAM_BASE + RAM_SIZE, 1 },
		{ UINT64_MAX - 1, 4 },
		{ 0, 0xffffffff },
	};
	struct fix *f = *state;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		vqm_attach(&f->m, &f->vq, 256);
		activate(f);
		vqm_set_avail_idx(&f->m, 0);
		vqm_set_desc(&f->m, 0, bad[i].gpa, bad[i].len, 0, 0);
		vqm_publish(&f->m, 0);
		assert_int_equal(virtq_pop(&f->vq, &f->c), -EIO);
		assert_true(f->vq.broken);
	}
	/* the last byte of RAM is fine */
	vqm_attach(&f->m, &f->vq, 256);
	activate(f);
	vqm_set_avail_idx(&f->m, 0);
	vqm_set_desc(&f->m, 0, VQM_RAM_BASE + RAM_SIZE - 1, 1, 0, 0);
	vqm_publish(&f->m, 0);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
}

static void test_readable_after_writable(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b[2] = {
		vqm_buf_new(&f->m, 4, true, 0),
		vqm_buf_new(&f->m, 4, false, 0),
	};

	activate(f);
	vqm_add(&f->m, b, 2);
	assert_broken(f);
}

static void test_empty_readable_after_writable(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b[2] = {
		vqm_buf_new(&f->m, 4, true, 0),
		{ .gpa = 0, .len = 0, .write = false },
	};

	activate(f);
	vqm_add(&f->m, b, 2);
	assert_broken(f);
}

static void test_avail_jump(void **state)
{
	struct fix *f = *state;

	activate(f);
	vqm_set_avail_idx(&f->m, NUM + 1);
	assert_broken(f);
}

static void test_avail_jump_backwards(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->m, 1, true, 0);

	activate(f);
	vqm_add(&f->m, &b, 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	vqm_set_avail_idx(&f->m, 0); /* 1 -> 0: 65535 entries "ahead" */
	assert_broken(f);
}

static void test_reset_recovers(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->m, 1, true, 0);

	activate(f);
	vqm_publish(&f->m, NUM + 3);
	assert_int_equal(virtq_pop(&f->vq, &f->c), -EIO);
	virtq_reset(&f->vq);
	assert_false(f->vq.broken);
	assert_false(f->vq.ready);
	assert_int_equal(f->vq.num, 256);
	vqm_attach(&f->m, &f->vq, 256);
	activate(f);
	vqm_set_avail_idx(&f->m, 0);
	f->m.next_desc = 0;
	vqm_add(&f->m, &b, 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
}

/* --- index wrap-around -------------------------------------------------- */

static void test_wraparound(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->m, 4, true, 0);
	uint16_t heads[3];
	uint32_t id, len, total = 0;

	activate(f);
	vqm_start_at(&f->m, &f->vq, 65530);
	/* 8 rounds of 3 chains cross 65535 -> 0 and the ring's end */
	for (unsigned int round = 0; round < 8; round++) {
		for (unsigned int i = 0; i < 3; i++)
			heads[i] = vqm_add(&f->m, &b, 1);
		for (unsigned int i = 0; i < 3; i++) {
			assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
			assert_int_equal(f->c.head, heads[i]);
			assert_int_equal(virtq_push(&f->vq, f->c.head, i), 0);
		}
		assert_int_equal(virtq_pop(&f->vq, &f->c), 0);
		for (unsigned int i = 0; i < 3; i++) {
			assert_true(vqm_get_used(&f->m, &id, &len));
			assert_int_equal(id, heads[i]);
			assert_int_equal(len, i);
			total++;
		}
		assert_false(vqm_get_used(&f->m, &id, &len));
	}
	assert_int_equal(total, 24);
	assert_int_equal(f->vq.used_idx, (uint16_t)(65530 + 24));
	assert_int_equal(vqm_used_idx(&f->m), 18);
	assert_false(f->vq.broken);
}

static void test_wraparound_full_ring(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->m, 1, true, 0);

	activate(f);
	vqm_start_at(&f->m, &f->vq, 65533);
	for (unsigned int i = 0; i < NUM; i++)
		vqm_add(&f->m, &b, 1);
	assert_int_equal(f->m.avail_idx, 5); /* 65533 + 8 */
	for (unsigned int i = 0; i < NUM; i++)
		assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 0);
	/* one more than the ring holds, across the wrap */
	vqm_set_avail_idx(&f->m, (uint16_t)(5 + NUM + 1));
	assert_int_equal(virtq_pop(&f->vq, &f->c), -EIO);
}

/* --- notification suppression ------------------------------------------ */

static void push_one(struct fix *f)
{
	struct vqm_buf b = vqm_buf_new(&f->m, 1, true, 0);

	vqm_add(&f->m, &b, 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(virtq_push(&f->vq, f->c.head, 1), 0);
}

static void test_no_interrupt_flag(void **state)
{
	struct fix *f = *state;

	activate(f);
	assert_false(virtq_need_notify(&f->vq)); /* nothing pushed */
	push_one(f);
	assert_true(virtq_need_notify(&f->vq));
	assert_false(virtq_need_notify(&f->vq)); /* already told */
	vqm_set_avail_flags(&f->m, VIRTQ_AVAIL_F_NO_INTERRUPT);
	push_one(f);
	assert_false(virtq_need_notify(&f->vq));
	vqm_set_avail_flags(&f->m, 0);
	push_one(f);
	assert_true(virtq_need_notify(&f->vq));
	/* used_event is ignored without EVENT_IDX */
	vqm_set_used_event(&f->m, 100);
	push_one(f);
	assert_true(virtq_need_notify(&f->vq));
}

static void test_event_idx_used_event(void **state)
{
	struct fix *f = *state;

	activate(f);
	vqm_set_used_event(&f->m, 0);
	push_one(f); /* fills used entry 0 */
	assert_true(virtq_need_notify(&f->vq));
	push_one(f); /* entry 1: not asked for */
	assert_false(virtq_need_notify(&f->vq));
	/* the flag is ignored with EVENT_IDX */
	vqm_set_avail_flags(&f->m, VIRTQ_AVAIL_F_NO_INTERRUPT);
	vqm_set_used_event(&f->m, 4);
	push_one(f); /* 2 */
	assert_false(virtq_need_notify(&f->vq));
	push_one(f); /* 3 */
	push_one(f); /* 4 */
	push_one(f); /* 5: a batch [3, 6) containing 4 */
	assert_true(virtq_need_notify(&f->vq));
	assert_false(virtq_need_notify(&f->vq));
	/* an event already passed does not fire again */
	push_one(f);
	assert_false(virtq_need_notify(&f->vq));
}

static void test_event_idx_wraparound(void **state)
{
	struct fix *f = *state;

	activate(f);
	vqm_start_at(&f->m, &f->vq, 65534);
	vqm_set_used_event(&f->m, 0);
	push_one(f); /* 65534 */
	assert_false(virtq_need_notify(&f->vq));
	push_one(f); /* 65535 */
	push_one(f); /* 0 */
	assert_true(virtq_need_notify(&f->vq));
	assert_int_equal(f->vq.used_idx, 1);
	vqm_set_used_event(&f->m, 65535); /* long past */
	push_one(f);
	assert_false(virtq_need_notify(&f->vq));
}

static void test_event_idx_avail_event(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->m, 1, true, 0);

	activate(f);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 0);
	assert_int_equal(vqm_avail_event(&f->m), 0);
	for (unsigned int i = 0; i < 3; i++)
		vqm_add(&f->m, &b, 1);
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(vqm_avail_event(&f->m), 0);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 0);
	assert_int_equal(vqm_avail_event(&f->m), 3);
}

static void test_no_avail_event_without_event_idx(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->m, 1, true, 0);

	activate(f);
	vqm_add(&f->m, &b, 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 0);
	assert_int_equal(vqm_avail_event(&f->m), 0);
}

/* --- pop-n, unpop, fill and flush ---------------------------------------- */

/* Add n one-buffer chains, each writable buffer of 'len' bytes. */
static void add_chains(struct fix *f, unsigned int n, uint32_t len,
		       uint16_t *heads)
{
	for (unsigned int i = 0; i < n; i++) {
		struct vqm_buf b = vqm_buf_new(&f->m, len, true, 0);
		uint16_t h = vqm_add(&f->m, &b, 1);

		if (heads)
			heads[i] = h;
	}
}

static void assert_used(struct fix *f, uint32_t want_id, uint32_t want_len)
{
	uint32_t id, len;

	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(id, want_id);
	assert_int_equal(len, want_len);
}

static void test_fill_flush_batch(void **state)
{
	struct fix *f = *state;
	uint16_t heads[3], h[3];
	uint32_t id, len;

	activate(f);
	add_chains(f, 3, 4, heads);
	for (unsigned int i = 0; i < 3; i++) {
		assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
		h[i] = f->c.head;
	}
	/* filled out of order of completion, nothing visible yet */
	assert_int_equal(virtq_fill(&f->vq, h[2], 30, 0), 0);
	assert_int_equal(virtq_fill(&f->vq, h[0], 10, 1), 0);
	assert_int_equal(virtq_fill(&f->vq, h[1], 20, 2), 0);
	assert_int_equal(f->vq.filled, 3);
	assert_int_equal(vqm_used_idx(&f->m), 0);
	assert_false(vqm_get_used(&f->m, &id, &len));
	/* an element may be rewritten before it is published */
	assert_int_equal(virtq_fill(&f->vq, h[0], 11, 1), 0);
	assert_int_equal(f->vq.filled, 3);
	/* two now, with one store, the third later */
	assert_int_equal(virtq_flush(&f->vq, 2), 0);
	assert_int_equal(vqm_used_idx(&f->m), 2);
	assert_int_equal(f->vq.used_idx, 2);
	assert_int_equal(f->vq.filled, 1);
	assert_used(f, heads[2], 30);
	assert_used(f, heads[0], 11);
	assert_false(vqm_get_used(&f->m, &id, &len));
	/* the remaining element moved to off 0 */
	assert_int_equal(virtq_fill(&f->vq, h[1], 21, 0), 0);
	assert_int_equal(virtq_flush(&f->vq, 1), 0);
	assert_used(f, heads[1], 21);
	assert_int_equal(virtq_flush(&f->vq, 0), 0);
	assert_int_equal(vqm_used_idx(&f->m), 3);
	assert_false(f->vq.broken);
}

static void test_fill_flush_wraparound(void **state)
{
	struct fix *f = *state;
	uint16_t heads[NUM];

	activate(f);
	vqm_start_at(&f->m, &f->vq, 65533);
	add_chains(f, NUM, 1, heads);
	assert_int_equal(virtq_pop_n(&f->vq, &f->c, 0), 0);
	for (unsigned int i = 0; i < NUM; i++) {
		assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
		assert_int_equal(virtq_fill(&f->vq, f->c.head, i, i), 0);
	}
	/* a whole ring's worth, across 65535 -> 0 and the ring's end */
	assert_int_equal(virtq_fill(&f->vq, 0, 0, NUM), -EINVAL);
	assert_int_equal(virtq_flush(&f->vq, NUM), 0);
	assert_int_equal(vqm_used_idx(&f->m), (uint16_t)(65533 + NUM));
	for (unsigned int i = 0; i < NUM; i++)
		assert_used(f, heads[i], i);
}

static void test_fill_flush_hostile(void **state)
{
	struct fix *f = *state;

	activate(f);
	add_chains(f, 2, 4, NULL);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	/* nothing filled: nothing to flush */
	assert_int_equal(virtq_flush(&f->vq, 1), -EINVAL);
	assert_int_equal(virtq_flush(&f->vq, 0xffffffff), -EINVAL);
	/* no holes, head and offset in range */
	assert_int_equal(virtq_fill(&f->vq, f->c.head, 1, 1), -EINVAL);
	assert_int_equal(virtq_fill(&f->vq, NUM, 1, 0), -EINVAL);
	assert_int_equal(virtq_fill(&f->vq, f->c.head, 1, 0xffffffff), -EINVAL);
	assert_int_equal(f->vq.filled, 0);
	assert_int_equal(virtq_fill(&f->vq, f->c.head, 1, 0), 0);
	/* more than filled: nothing published */
	assert_int_equal(virtq_flush(&f->vq, 2), -EINVAL);
	assert_int_equal(vqm_used_idx(&f->m), 0);
	/* push would overwrite the filled element */
	assert_int_equal(virtq_push(&f->vq, f->c.head, 1), -EBUSY);
	assert_int_equal(virtq_flush(&f->vq, 1), 0);
	assert_int_equal(vqm_used_idx(&f->m), 1);
	assert_int_equal(virtq_flush(&f->vq, 1), -EINVAL);
	assert_int_equal(vqm_used_idx(&f->m), 1);
	/* push works again once everything is flushed */
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(virtq_push(&f->vq, f->c.head, 1), 0);
	assert_int_equal(vqm_used_idx(&f->m), 2);
	assert_false(f->vq.broken);
}

static void assert_same_chain(const struct virtq_chain *a,
			      const struct virtq_chain *b)
{
	assert_int_equal(a->head, b->head);
	assert_int_equal(a->nr_segs, b->nr_segs);
	assert_int_equal(a->nr_readable, b->nr_readable);
	assert_int_equal(a->readable_len, b->readable_len);
	assert_int_equal(a->writable_len, b->writable_len);
	assert_memory_equal(a->segs, b->segs, a->nr_segs * sizeof(a->segs[0]));
}

static void test_unpop_repop(void **state)
{
	struct fix *f = *state;
	static struct virtq_chain first[2];
	struct vqm_buf b[3] = {
		vqm_buf_new(&f->m, 5, false, 1),
		vqm_buf_new(&f->m, 6, true, 0),
		vqm_buf_new(&f->m, 7, true, 0),
	};

	activate(f);
	vqm_add(&f->m, b, 3);
	vqm_add_indirect(&f->m, b + 1, 2);
	assert_int_equal(virtq_pop_n(&f->vq, first, 2), 2);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 0);
	assert_int_equal(virtq_unpop(&f->vq, 2), 0);
	assert_int_equal(f->vq.last_avail_idx, 0);
	/* popped again: the same chains, in the same order */
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_same_chain(&f->c, &first[0]);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_same_chain(&f->c, &first[1]);
	/* give back only the last one */
	assert_int_equal(virtq_unpop(&f->vq, 1), 0);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_same_chain(&f->c, &first[1]);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 0);
	assert_int_equal(virtq_unpop(&f->vq, 0), 0);
	assert_false(f->vq.broken);
}

/* An unpopped chain is walked and checked again when popped again. */
static void test_unpop_rechecks(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->m, 4, true, 0);
	uint16_t head;

	activate(f);
	head = vqm_add(&f->m, &b, 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(virtq_unpop(&f->vq, 1), 0);
	vqm_set_desc(&f->m, head, b.gpa, 4,
		     VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT, head);
	assert_broken(f);
}

static void test_unpop_hostile(void **state)
{
	struct fix *f = *state;
	uint16_t heads[4];

	/* nothing popped */
	assert_int_equal(virtq_unpop(&f->vq, 1), -EIO); /* not ready */
	activate(f);
	assert_int_equal(virtq_unpop(&f->vq, 1), -EINVAL);
	add_chains(f, 4, 1, heads);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	/* more than popped */
	assert_int_equal(virtq_unpop(&f->vq, 2), -EINVAL);
	assert_int_equal(virtq_unpop(&f->vq, 0xffffffff), -EINVAL);
	assert_int_equal(f->vq.last_avail_idx, 1);
	/* a returned chain cannot be given back, nor those before it */
	assert_int_equal(virtq_push(&f->vq, f->c.head, 0), 0);
	assert_int_equal(virtq_unpop(&f->vq, 1), -EINVAL);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(virtq_fill(&f->vq, f->c.head, 0, 0), 0);
	assert_int_equal(virtq_unpop(&f->vq, 1), -EINVAL);
	/* popped after the fill: fine */
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(f->c.head, heads[3]);
	assert_int_equal(virtq_unpop(&f->vq, 2), -EINVAL);
	assert_int_equal(virtq_unpop(&f->vq, 1), 0);
	assert_int_equal(f->vq.last_avail_idx, 3);
	assert_false(f->vq.broken);
}

/* Unpopping across the 16-bit wrap of the avail index. */
static void test_unpop_wraparound(void **state)
{
	struct fix *f = *state;
	uint16_t heads[4];

	activate(f);
	vqm_start_at(&f->m, &f->vq, 65534);
	add_chains(f, 4, 1, heads);
	assert_int_equal(virtq_pop_n(&f->vq, &f->c, 1), 1);
	assert_int_equal(virtq_pop_n(&f->vq, &f->c, 1), 1);
	assert_int_equal(virtq_pop_n(&f->vq, &f->c, 1), 1);
	assert_int_equal(f->vq.last_avail_idx, 1);
	assert_int_equal(virtq_unpop(&f->vq, 3), 0);
	assert_int_equal(f->vq.last_avail_idx, 65534);
	for (unsigned int i = 0; i < 4; i++) {
		assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
		assert_int_equal(f->c.head, heads[i]);
	}
	assert_int_equal(virtq_pop(&f->vq, &f->c), 0);
}

static void test_pop_n_bounds(void **state)
{
	struct fix *f = *state;
	static struct virtq_chain cs[NUM];
	uint16_t heads[NUM];

	assert_int_equal(virtq_pop_n(&f->vq, cs, NUM), 0); /* not ready */
	activate(f);
	assert_int_equal(virtq_pop_n(&f->vq, cs, NUM), 0); /* empty */
	add_chains(f, 5, 2, heads);
	assert_int_equal(virtq_pop_n(&f->vq, cs, 0), 0);
	assert_int_equal(virtq_pop_n(&f->vq, cs, 3), 3);
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(cs[i].head, heads[i]);
	assert_int_equal(virtq_pop_n(&f->vq, cs, NUM), 2);
	assert_int_equal(cs[0].head, heads[3]);
	assert_int_equal(cs[1].head, heads[4]);
	assert_int_equal(virtq_unpop(&f->vq, 5), 0);
	/* never more than num, whatever n says (cs holds only NUM) */
	f->m.next_desc = 0;
	add_chains(f, NUM - 5, 2, NULL);
	assert_int_equal(virtq_pop_n(&f->vq, cs, 1000), NUM);
	assert_int_equal(virtq_pop_n(&f->vq, cs, 1000), 0);
	assert_false(f->vq.broken);
}

static void test_pop_n_broken(void **state)
{
	struct fix *f = *state;
	static struct virtq_chain cs[4];

	activate(f);
	add_chains(f, 1, 2, NULL);
	vqm_publish(&f->m, NUM + 1); /* second chain: bad head */
	add_chains(f, 1, 2, NULL);
	assert_int_equal(virtq_pop_n(&f->vq, cs, 4), -EIO);
	assert_true(f->vq.broken);
	assert_int_equal(virtq_pop_n(&f->vq, cs, 4), -EIO);
	assert_int_equal(virtq_pop_n(&f->vq, cs, 0), -EIO);
	assert_int_equal(virtq_unpop(&f->vq, 1), -EIO);
	assert_int_equal(virtq_fill(&f->vq, 0, 0, 0), -EIO);
	assert_int_equal(virtq_flush(&f->vq, 0), -EIO);
	assert_int_equal(vqm_used_idx(&f->m), 0);
}

static void test_reset_clears_fill_and_unpop(void **state)
{
	struct fix *f = *state;

	activate(f);
	add_chains(f, 2, 1, NULL);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(virtq_fill(&f->vq, f->c.head, 0, 0), 0);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	virtq_reset(&f->vq);
	assert_int_equal(virtq_fill(&f->vq, 0, 0, 0), -EIO);
	assert_int_equal(virtq_flush(&f->vq, 0), -EIO);
	vqm_attach(&f->m, &f->vq, 256);
	activate(f);
	assert_int_equal(virtq_flush(&f->vq, 1), -EINVAL);
	assert_int_equal(virtq_unpop(&f->vq, 1), -EINVAL);
	assert_int_equal(vqm_used_idx(&f->m), 0);
}

/* used_event inside, before and after a batch published by one flush. */
static void test_event_idx_batched_flush(void **state)
{
	struct fix *f = *state;

	activate(f);
	add_chains(f, NUM, 1, NULL);
	vqm_set_used_event(&f->m, 2);
	for (unsigned int i = 0; i < 4; i++) {
		assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
		assert_int_equal(virtq_fill(&f->vq, f->c.head, 1, i), 0);
	}
	/* filled but not published: nothing to tell */
	assert_false(virtq_need_notify(&f->vq));
	assert_int_equal(virtq_flush(&f->vq, 4), 0); /* [0, 4) holds 2 */
	assert_true(virtq_need_notify(&f->vq));
	assert_int_equal(f->vq.signalled_used, 4);
	for (unsigned int i = 0; i < 2; i++) {
		assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
		assert_int_equal(virtq_fill(&f->vq, f->c.head, 1, i), 0);
	}
	assert_int_equal(virtq_flush(&f->vq, 2), 0); /* [4, 6): 2 passed */
	assert_false(virtq_need_notify(&f->vq));
	vqm_set_used_event(&f->m, 7);
	for (unsigned int i = 0; i < 2; i++) {
		assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
		assert_int_equal(virtq_fill(&f->vq, f->c.head, 1, i), 0);
	}
	assert_int_equal(virtq_flush(&f->vq, 1), 0); /* [6, 7) */
	assert_false(virtq_need_notify(&f->vq));
	assert_int_equal(virtq_flush(&f->vq, 1), 0); /* [7, 8) */
	assert_true(virtq_need_notify(&f->vq));
}

/* Without EVENT_IDX a batch is one notification unless suppressed. */
static void test_flush_no_interrupt_flag(void **state)
{
	struct fix *f = *state;

	activate(f);
	add_chains(f, 4, 1, NULL);
	for (unsigned int i = 0; i < 2; i++) {
		assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
		assert_int_equal(virtq_fill(&f->vq, f->c.head, 1, i), 0);
	}
	assert_false(virtq_need_notify(&f->vq));
	assert_int_equal(virtq_flush(&f->vq, 2), 0);
	assert_true(virtq_need_notify(&f->vq));
	assert_false(virtq_need_notify(&f->vq));
	vqm_set_avail_flags(&f->m, VIRTQ_AVAIL_F_NO_INTERRUPT);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(virtq_fill(&f->vq, f->c.head, 1, 0), 0);
	assert_int_equal(virtq_flush(&f->vq, 1), 0);
	assert_false(virtq_need_notify(&f->vq));
}

/*
 * A device that empties the ring, gives everything back and waits for
 * more buffers must still get the driver's next notification: unpop
 * leaves avail_event where the empty pop put it.
 */
static void test_event_idx_unpop_keeps_avail_event(void **state)
{
	struct fix *f = *state;
	uint16_t ev, old;

	activate(f);
	add_chains(f, 2, 1, NULL);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 0);
	assert_int_equal(vqm_avail_event(&f->m), 2);
	assert_int_equal(virtq_unpop(&f->vq, 2), 0);
	assert_int_equal(vqm_avail_event(&f->m), 2);
	/* the driver adds one: vring_need_event(avail_event, new, old) */
	old = f->m.avail_idx;
	add_chains(f, 1, 1, NULL);
	ev = vqm_avail_event(&f->m);
	assert_true((uint16_t)(f->m.avail_idx - ev - 1) <
		    (uint16_t)(f->m.avail_idx - old));
	assert_int_equal(virtq_pop_n(&f->vq, &f->c, 1), 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 0);
	assert_int_equal(vqm_avail_event(&f->m), 3);
}

/*
 * Held (bus mastering off): nothing popped, no ring access; chains in
 * flight come back into a host copy and are published, in order, with
 * their lengths, when the hold ends.
 */
static void test_hold(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->m, 8, true, 0);
	uint16_t heads[4];
	uint32_t id, len;

	activate(f);
	for (unsigned int i = 0; i < 2; i++)
		heads[i] = vqm_add(&f->m, &b, 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(virtq_push(&f->vq, heads[0], 1), 0);
	virtq_hold(&f->vq);
	heads[2] = vqm_add(&f->m, &b, 1);
	heads[3] = vqm_add(&f->m, &b, 1);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 0);
	/* the chain in flight completes: kept, not written */
	assert_int_equal(virtq_push(&f->vq, heads[1], 5), 0);
	assert_int_equal(vqm_used_idx(&f->m), 1);
	assert_false(virtq_need_notify(&f->vq));
	assert_int_equal(virtq_unhold(&f->vq), 1);
	assert_int_equal(vqm_used_idx(&f->m), 2);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(id, heads[0]);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(id, heads[1]);
	assert_int_equal(len, 5);
	assert_true(virtq_need_notify(&f->vq));
	/* what was made available meanwhile pops now */
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(f->c.head, heads[2]);
	assert_int_equal(virtq_pop(&f->vq, &f->c), 1);
	assert_int_equal(f->c.head, heads[3]);
	/* a reset keeps the hold and drops what it kept */
	virtq_hold(&f->vq);
	assert_int_equal(virtq_push(&f->vq, heads[2], 0), 0);
	virtq_reset(&f->vq);
	assert_true(f->vq.held);
	assert_null(f->vq.held_used);
	assert_int_equal(virtq_unhold(&f->vq), 0);
	assert_int_equal(vqm_used_idx(&f->m), 2);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
#define TE(fn) cmocka_unit_test_setup_teardown(fn, setup_event, teardown)
#define TB(fn) cmocka_unit_test_setup_teardown(fn, setup_big, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_activate_ok),
		T(test_activate_bad_num),
		T(test_activate_misaligned),
		T(test_activate_outside_ram),
		T(test_not_ready),
		T(test_chain_out_in),
		T(test_several_chains_in_order),
		T(test_zero_length_buffers),
		T(test_full_ring),
		T(test_indirect),
		T(test_direct_then_indirect),
		T(test_indirect_not_negotiated),
		T(test_indirect_bad_length),
		T(test_indirect_nested),
		T(test_indirect_outside_ram),
		T(test_indirect_with_next),
		T(test_indirect_next_out_of_range),
		T(test_indirect_loop),
		T(test_chain_longer_than_queue),
		T(test_head_out_of_range),
		T(test_next_out_of_range),
		T(test_descriptor_loop),
		T(test_self_loop_of_empty_buffers),
		T(test_chain_of_num_descriptors),
		TB(test_too_many_segments),
		T(test_buffer_outside_ram),
		T(test_readable_after_writable),
		T(test_empty_readable_after_writable),
		T(test_avail_jump),
		T(test_avail_jump_backwards),
		T(test_reset_recovers),
		T(test_wraparound),
		T(test_wraparound_full_ring),
		T(test_no_interrupt_flag),
		TE(test_event_idx_used_event),
		TE(test_event_idx_wraparound),
		TE(test_event_idx_avail_event),
		T(test_no_avail_event_without_event_idx),
		T(test_fill_flush_batch),
		T(test_fill_flush_wraparound),
		T(test_fill_flush_hostile),
		T(test_unpop_repop),
		T(test_unpop_rechecks),
		T(test_unpop_hostile),
		T(test_unpop_wraparound),
		T(test_pop_n_bounds),
		T(test_pop_n_broken),
		T(test_reset_clears_fill_and_unpop),
		TE(test_event_idx_batched_flush),
		T(test_flush_no_interrupt_flag),
		TE(test_event_idx_unpop_keeps_avail_event),
		T(test_hold),
	};

	return cmocka_run_group_tests_name("virtqueue", tests, NULL, NULL);
}
