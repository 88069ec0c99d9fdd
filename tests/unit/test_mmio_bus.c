// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/log.h"
#include "vmm/kvm/mmio_bus.h"

struct fake_dev {
	uint64_t last_offset;
	uint64_t last_value;
	unsigned int last_len;
	int reads, writes, resets;
};

static void fake_read(void *opaque, uint64_t offset, void *data,
		      unsigned int len)
{
	struct fake_dev *d = opaque;

	d->reads++;
	d->last_offset = offset;
	d->last_len = len;
	mmio_data_put(data, len, 0x1122334455667788ULL);
}

static void fake_write(void *opaque, uint64_t offset, const void *data,
		       unsigned int len)
{
	struct fake_dev *d = opaque;

	d->writes++;
	d->last_offset = offset;
	d->last_len = len;
	d->last_value = mmio_data_get(data, len);
}

static void fake_reset(void *opaque)
{
	((struct fake_dev *)opaque)->resets++;
}

static const struct mmio_ops fake_ops = {
	.name = "fake",
	.sizes = MMIO_SIZE(1) | MMIO_SIZE(4),
	.read = fake_read,
	.write = fake_write,
	.reset = fake_reset,
};

static void test_offsets_and_sizes(void **state)
{
	struct mmio_bus bus = { 0 };
	struct fake_dev d = { 0 };
	uint8_t data[16] = { 0x78, 0x56, 0x34, 0x12 };

	(void)state;
	assert_int_equal(mmio_bus_add(&bus, 0x1000, 0x100, &fake_ops, &d), 0);
	assert_true(mmio_bus_access(&bus, 0x1010, data, 4, true));
	assert_int_equal(d.last_offset, 0x10);
	assert_int_equal(d.last_value, 0x12345678);
	assert_true(mmio_bus_access(&bus, 0x10ff, data, 1, false));
	assert_int_equal(d.last_offset, 0xff);
	assert_int_equal(data[0], 0x88);
	/* Undeclared size, straddling the end, outside: refused, reads 0. */
	memset(data, 0xaa, sizeof(data));
	assert_false(mmio_bus_access(&bus, 0x1000, data, 2, false));
	assert_int_equal(data[0] | data[1], 0);
	assert_false(mmio_bus_access(&bus, 0x10fe, data, 4, true));
	assert_false(mmio_bus_access(&bus, 0x1100, data, 1, false));
	assert_false(mmio_bus_access(&bus, 0xfff, data, 1, false));
	assert_false(mmio_bus_access(&bus, 0x1000, data, 16, false));
	assert_false(mmio_bus_access(&bus, 0x1000, data, 0, false));
	assert_int_equal(d.writes, 1);
	assert_int_equal(d.reads, 1);
}

static void test_add_rejects(void **state)
{
	struct mmio_bus bus = { 0 };
	struct fake_dev d = { 0 };

	(void)state;
	assert_int_equal(mmio_bus_add(&bus, 0x1000, 0, &fake_ops, &d), -EINVAL);
	assert_int_equal(mmio_bus_add(&bus, UINT64_MAX - 1, 4, &fake_ops, &d),
			 -EINVAL);
	assert_int_equal(mmio_bus_add(&bus, 0x1000, 0x100, &fake_ops, &d), 0);
	assert_int_equal(mmio_bus_add(&bus, 0x10ff, 0x10, &fake_ops, &d),
			 -EEXIST);
	assert_int_equal(mmio_bus_add(&bus, 0xf00, 0x101, &fake_ops, &d),
			 -EEXIST);
	assert_int_equal(mmio_bus_add(&bus, 0x1100, 0x10, &fake_ops, &d), 0);
	for (unsigned int i = 2; i < MMIO_BUS_MAX_REGIONS; i++)
		assert_int_equal(
			mmio_bus_add(&bus, 0x10000 * i, 0x10, &fake_ops, &d),
			0);
	assert_int_equal(mmio_bus_add(&bus, 0x10000000, 0x10, &fake_ops, &d),
			 -ENOSPC);
}

static void test_reset_all(void **state)
{
	struct mmio_bus bus = { 0 };
	struct fake_dev a = { 0 }, b = { 0 };

	(void)state;
	mmio_bus_add(&bus, 0x1000, 0x10, &fake_ops, &a);
	mmio_bus_add(&bus, 0x2000, 0x10, &fake_ops, &b);
	mmio_bus_reset(&bus);
	assert_int_equal(a.resets, 1);
	assert_int_equal(b.resets, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets_and_sizes),
		cmocka_unit_test(test_add_rejects),
		cmocka_unit_test(test_reset_all),
	};

	log_level = -1;
	return cmocka_run_group_tests_name("mmio_bus", tests, NULL, NULL);
}
