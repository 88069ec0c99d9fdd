// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "virtio/balloon.h"
#include "tests/unit/slot_res.h"
#include "tests/unit/virtq_mock.h"

#define RAM_SIZE (1u << 20)
#define NUM 16
#define ACK VIRTIO_STATUS_ACKNOWLEDGE
#define DRV VIRTIO_STATUS_DRIVER
#define FOK VIRTIO_STATUS_FEATURES_OK
#define DOK VIRTIO_STATUS_DRIVER_OK
#define STATS_F VIRTIO_BIT(VIRTIO_BALLOON_F_STATS_VQ)
#define V1 VIRTIO_BIT(VIRTIO_F_VERSION_1)
#define RAM_PFN(i) ((uint32_t)((VQM_RAM_BASE >> 12) + (i)))

struct fix {
	struct vqm q[3]; /* inflate, deflate, stats: one RAM (q[0]'s) */
	struct virtio_balloon b;
	int level;
	unsigned int discards;
	void *last;
	int discard_ret;
};

static void irq_set(void *opaque, int level)
{
	*(int *)opaque = level;
}

static int discard(void *opaque, void *host, size_t len)
{
	struct fix *f = opaque;

	assert_int_equal(len, 4096);
	f->discards++;
	f->last = host;
	return f->discard_ret;
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	struct irq_line irq = { irq_set, NULL };

	vqm_init(&f->q[0], RAM_SIZE, NUM);
	vqm_init_in(&f->q[1], &f->q[0], NUM, 16, 4, VQM_RAM_BASE + 0x40000);
	vqm_init_in(&f->q[2], &f->q[0], NUM, 16, 4, VQM_RAM_BASE + 0x60000);
	irq.opaque = &f->level;
	assert_int_equal(virtio_balloon_init(&f->b, &SLOT_RES(0), &f->q[0].mem,
					     &irq, discard, f),
			 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	virtio_balloon_destroy(&f->b);
	vqm_free(&f->q[0]);
	free(f);
	return 0;
}

static void driver_up(struct fix *f, uint64_t features, unsigned int nq)
{
	assert_int_equal(vqm_mmio_negotiate(&f->b.vm, features),
			 ACK | DRV | FOK);
	for (unsigned int q = 0; q < nq; q++)
		assert_int_equal(vqm_mmio_queue(&f->b.vm, q, &f->q[q]), 1);
	assert_int_equal(vqm_mmio_driver_ok(&f->b.vm), ACK | DRV | FOK | DOK);
}

/* A readable buffer of n frame numbers on queue q, then a notification. */
static uint16_t send_pfns(struct fix *f, unsigned int q, const uint32_t *pfns,
			  unsigned int n)
{
	struct vqm_buf b = vqm_buf_new(&f->q[q], n * 4, false, 0);
	uint16_t head;

	for (unsigned int i = 0; i < n; i++) {
		uint32_t le = htole32(pfns[i]);

		memcpy(vqm_ptr(&f->q[q], b.gpa + 4 * i, 4), &le, 4);
	}
	head = vqm_add(&f->q[q], &b, 1);
	vqm_mmio_wr(&f->b.vm, VIRTIO_MMIO_QUEUE_NOTIFY, q);
	return head;
}

static void test_device_description(void **state)
{
	struct fix *f = *state;

	assert_int_equal(vqm_mmio_rd(&f->b.vm, VIRTIO_MMIO_DEVICE_ID), 5);
	vqm_mmio_wr(&f->b.vm, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 0);
	assert_true(vqm_mmio_rd(&f->b.vm, VIRTIO_MMIO_DEVICE_FEATURES) &
		    STATS_F);
	vqm_mmio_wr(&f->b.vm, VIRTIO_MMIO_QUEUE_SEL, 2);
	assert_int_equal(vqm_mmio_rd(&f->b.vm, VIRTIO_MMIO_QUEUE_NUM_MAX),
			 VIRTIO_BALLOON_QUEUE_SIZE);
}

static void test_inflate_gives_back_ram_pages_only(void **state)
{
	struct fix *f = *state;
	const uint32_t pfns[] = {
		RAM_PFN(3),		      /* RAM */
		RAM_PFN(RAM_SIZE / 4096 - 1), /* the last page of RAM */
		RAM_PFN(RAM_SIZE / 4096),     /* one past RAM */
		0x10,			      /* below RAM */
		0xffffffff,		      /* far above */
	};
	struct virtio_balloon_info info;
	uint32_t id, len;
	uint16_t head;

	driver_up(f, V1, 2);
	head = send_pfns(f, 0, pfns, 5);
	assert_int_equal(f->discards, 2);
	assert_ptr_equal(f->last, f->q[0].mem.host + RAM_SIZE - 4096);
	assert_true(vqm_get_used(&f->q[0], &id, &len));
	assert_int_equal(id, head);
	assert_int_equal(len, 0);
	virtio_balloon_get_info(&f->b, &info);
	assert_int_equal(info.inflated, 2);
	assert_int_equal(info.discarded, 2);
	assert_int_equal(f->level, 1);
}

static void test_discard_failure_is_counted_not_fatal(void **state)
{
	struct fix *f = *state;
	const uint32_t pfns[] = { RAM_PFN(5), RAM_PFN(6) };
	struct virtio_balloon_info info;
	uint32_t id, len;

	f->discard_ret = -EINVAL;
	driver_up(f, V1, 2);
	send_pfns(f, 0, pfns, 2);
	assert_true(vqm_get_used(&f->q[0], &id, &len));
	virtio_balloon_get_info(&f->b, &info);
	assert_int_equal(info.inflated, 2);
	assert_int_equal(info.discarded, 0);
}

static void test_deflate_counts_without_discard(void **state)
{
	struct fix *f = *state;
	const uint32_t pfns[] = { RAM_PFN(7), RAM_PFN(8), 0x1 };
	struct virtio_balloon_info info;
	uint32_t id, len;

	driver_up(f, V1, 2);
	send_pfns(f, 1, pfns, 3);
	assert_int_equal(f->discards, 0);
	assert_true(vqm_get_used(&f->q[1], &id, &len));
	virtio_balloon_get_info(&f->b, &info);
	assert_int_equal(info.deflated, 2);
}

static void test_partial_frame_number_ignored(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b = vqm_buf_new(&f->q[0], 6, false, 0);
	uint32_t pfn = htole32(RAM_PFN(9)), id, len;

	memcpy(vqm_ptr(&f->q[0], b.gpa, 4), &pfn, 4);
	driver_up(f, V1, 2);
	vqm_add(&f->q[0], &b, 1);
	vqm_mmio_wr(&f->b.vm, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->discards, 1);
	assert_true(vqm_get_used(&f->q[0], &id, &len));
}

static void test_target_and_actual_in_config(void **state)
{
	struct fix *f = *state;
	uint32_t gen;
	struct virtio_balloon_info info;

	driver_up(f, V1, 2);
	gen = vqm_mmio_rd(&f->b.vm, VIRTIO_MMIO_CONFIG_GENERATION);
	virtio_balloon_set_target(&f->b, 4096);
	assert_int_equal(vqm_mmio_rd(&f->b.vm, VIRTIO_MMIO_CONFIG), 4096);
	assert_int_not_equal(
		vqm_mmio_rd(&f->b.vm, VIRTIO_MMIO_CONFIG_GENERATION), gen);
	assert_int_equal(vqm_mmio_rd(&f->b.vm, VIRTIO_MMIO_INTERRUPT_STATUS),
			 VIRTIO_MMIO_INT_CONFIG);
	assert_int_equal(f->level, 1);
	/* The driver reports what it holds; num_pages is not its to write. */
	vqm_mmio_wr(&f->b.vm, VIRTIO_MMIO_CONFIG + 4, 1000);
	vqm_mmio_wr(&f->b.vm, VIRTIO_MMIO_CONFIG, 7);
	vqm_mmio_wr_n(&f->b.vm, VIRTIO_MMIO_CONFIG + 5, 0x12, 1);
	assert_int_equal(vqm_mmio_rd(&f->b.vm, VIRTIO_MMIO_CONFIG), 4096);
	virtio_balloon_get_info(&f->b, &info);
	assert_int_equal(info.num_pages, 4096);
	assert_int_equal(info.actual, 1000 - 0x300 + 0x1200);
	assert_int_equal(vqm_mmio_rd_n(&f->b.vm, VIRTIO_MMIO_CONFIG + 1, 2),
			 4096 >> 8);
}

static void test_target_before_driver_ok_no_interrupt(void **state)
{
	struct fix *f = *state;

	virtio_balloon_set_target(&f->b, 256);
	assert_int_equal(f->level, 0);
	assert_int_equal(vqm_mmio_rd(&f->b.vm, VIRTIO_MMIO_CONFIG), 256);
}

/* A statistics buffer: (tag, value) pairs, 10 bytes each. */
static uint16_t send_stats(struct fix *f, const uint16_t *tags,
			   const uint64_t *vals, unsigned int n)
{
	struct vqm_buf b = vqm_buf_new(&f->q[2], n * 10, false, 0);
	uint16_t head;

	for (unsigned int i = 0; i < n; i++) {
		uint16_t t = htole16(tags[i]);
		uint64_t v = htole64(vals[i]);

		memcpy(vqm_ptr(&f->q[2], b.gpa + 10 * i, 2), &t, 2);
		memcpy(vqm_ptr(&f->q[2], b.gpa + 10 * i + 2, 8), &v, 8);
	}
	head = vqm_add(&f->q[2], &b, 1);
	vqm_mmio_wr(&f->b.vm, VIRTIO_MMIO_QUEUE_NOTIFY, 2);
	return head;
}

static void test_stats_held_then_returned(void **state)
{
	struct fix *f = *state;
	const uint16_t tags[] = { VIRTIO_BALLOON_S_MEMTOT,
				  VIRTIO_BALLOON_S_MEMFREE, 200 };
	const uint64_t vals[] = { 1ULL << 30, 12345, 9 };
	struct virtio_balloon_info info;
	uint32_t id, len;
	uint16_t head;

	driver_up(f, V1 | STATS_F, 3);
	assert_int_equal(virtio_balloon_stats_refresh(&f->b), -EAGAIN);
	head = send_stats(f, tags, vals, 3);
	virtio_balloon_get_info(&f->b, &info);
	assert_true(info.stats_vq);
	assert_int_equal(info.stats_gen, 1);
	assert_int_equal(info.stats[VIRTIO_BALLOON_S_MEMTOT], 1ULL << 30);
	assert_int_equal(info.stats[VIRTIO_BALLOON_S_MEMFREE], 12345);
	assert_int_equal(info.stats_valid,
			 (1u << VIRTIO_BALLOON_S_MEMTOT) |
				 (1u << VIRTIO_BALLOON_S_MEMFREE));
	/* Held until the host wants fresh values. */
	assert_false(vqm_get_used(&f->q[2], &id, &len));
	assert_int_equal(virtio_balloon_stats_refresh(&f->b), 0);
	assert_true(vqm_get_used(&f->q[2], &id, &len));
	assert_int_equal(id, head);
	assert_int_equal(virtio_balloon_stats_refresh(&f->b), -EAGAIN);
	/* The driver answers with a new buffer. */
	send_stats(f, tags, vals, 1);
	virtio_balloon_get_info(&f->b, &info);
	assert_int_equal(info.stats_gen, 2);
}

static void test_stats_second_buffer_returns_first(void **state)
{
	struct fix *f = *state;
	const uint16_t tags[] = { VIRTIO_BALLOON_S_AVAIL };
	const uint64_t vals[] = { 5 };
	uint32_t id, len;
	uint16_t first;

	driver_up(f, V1 | STATS_F, 3);
	first = send_stats(f, tags, vals, 1);
	send_stats(f, tags, vals, 1);
	assert_true(vqm_get_used(&f->q[2], &id, &len));
	assert_int_equal(id, first);
	assert_false(vqm_get_used(&f->q[2], &id, &len));
}

static void test_stats_need_the_feature(void **state)
{
	struct fix *f = *state;
	struct virtio_balloon_info info;

	driver_up(f, V1, 2);
	assert_int_equal(virtio_balloon_stats_refresh(&f->b), -ENODEV);
	virtio_balloon_get_info(&f->b, &info);
	assert_false(info.stats_vq);
}

static void test_reset_drops_held_stats(void **state)
{
	struct fix *f = *state;
	const uint16_t tags[] = { VIRTIO_BALLOON_S_AVAIL };
	const uint64_t vals[] = { 5 };

	driver_up(f, V1 | STATS_F, 3);
	send_stats(f, tags, vals, 1);
	vqm_mmio_wr(&f->b.vm, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(virtio_balloon_stats_refresh(&f->b), -ENODEV);
}

static void test_init_needs_discard(void **state)
{
	struct virtio_balloon b;
	struct fix *f = *state;

	assert_int_equal(virtio_balloon_init(&b, &SLOT_RES(1), &f->q[0].mem,
					     NULL, NULL, NULL),
			 -EINVAL);
}

/*
 * The production discard on guest RAM in a memfd mapped shared (--fs):
 * the pages leave the file; MADV_DONTNEED alone would keep them there.
 */
static void test_madvise_shared_ram_leaves_file(void **state)
{
	const size_t len = 16 * 4096;
	bool shared = true;
	struct stat st;
	uint8_t *p;
	int fd = memfd_create("rvkvm-balloon-test", MFD_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, len), 0);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	memset(p, 0x5a, len);
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(st.st_blocks >= (blkcnt_t)(len / 512));
	assert_int_equal(virtio_balloon_madvise(&shared, p + 4096, 8 * 4096),
			 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(st.st_blocks <= (blkcnt_t)(8 * 4096 / 512));
	assert_int_equal(p[4096], 0); /* a hole reads as zeroes */
	assert_int_equal(p[0], 0x5a);
	munmap(p, len);
	close(fd);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_device_description),
		T(test_inflate_gives_back_ram_pages_only),
		T(test_discard_failure_is_counted_not_fatal),
		T(test_deflate_counts_without_discard),
		T(test_partial_frame_number_ignored),
		T(test_target_and_actual_in_config),
		T(test_target_before_driver_ok_no_interrupt),
		T(test_stats_held_then_returned),
		T(test_stats_second_buffer_returns_first),
		T(test_stats_need_the_feature),
		T(test_reset_drops_held_stats),
		T(test_init_needs_discard),
		cmocka_unit_test(test_madvise_shared_ram_leaves_file),
	};

	return cmocka_run_group_tests_name("virtio_balloon", tests, NULL, NULL);
}
