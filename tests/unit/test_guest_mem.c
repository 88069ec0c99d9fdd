// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/guest_mem.h"

static uint8_t ram[4096];
static const struct guest_mem mem = {
	.base = 0x80000000ULL,
	.size = sizeof(ram),
	.host = ram,
};

static void test_first_and_last_byte(void **state)
{
	(void)state;
	assert_ptr_equal(guest_mem_ptr(&mem, 0x80000000ULL, 1), ram);
	assert_ptr_equal(guest_mem_ptr(&mem, 0x80000fffULL, 1), ram + 4095);
	assert_ptr_equal(guest_mem_ptr(&mem, 0x80000000ULL, 4096), ram);
}

static void test_outside(void **state)
{
	(void)state;
	assert_null(guest_mem_ptr(&mem, 0x7fffffffULL, 1));
	assert_null(guest_mem_ptr(&mem, 0x80001000ULL, 1));
	assert_null(guest_mem_ptr(&mem, 0x7fffffffULL, 2));
	assert_null(guest_mem_ptr(&mem, 0x80000fffULL, 2));
	assert_null(guest_mem_ptr(&mem, 0x80000000ULL, 4097));
	assert_null(guest_mem_ptr(&mem, 0, 1));
}

static void test_overflow(void **state)
{
	(void)state;
	assert_null(guest_mem_ptr(&mem, 0x80000001ULL, UINT64_MAX));
	assert_null(guest_mem_ptr(&mem, UINT64_MAX, 2));
	assert_null(guest_mem_ptr(&mem, 0x80000800ULL, UINT64_MAX - 0x10));
}

static void test_zero_length_is_one_byte(void **state)
{
	(void)state;
	assert_non_null(guest_mem_ptr(&mem, 0x80000fffULL, 0));
	assert_null(guest_mem_ptr(&mem, 0x80001000ULL, 0));
}

static void test_copy(void **state)
{
	uint8_t buf[4] = { 1, 2, 3, 4 }, out[4];

	(void)state;
	assert_int_equal(guest_mem_write(&mem, 0x80000ffcULL, buf, 4), 0);
	assert_int_equal(guest_mem_read(&mem, 0x80000ffcULL, out, 4), 0);
	assert_memory_equal(buf, out, 4);
	assert_int_equal(guest_mem_write(&mem, 0x80000ffdULL, buf, 4), -EFAULT);
	assert_int_equal(guest_mem_read(&mem, 0x80000ffdULL, out, 4), -EFAULT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_and_last_byte),
		cmocka_unit_test(test_outside),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_zero_length_is_one_byte),
		cmocka_unit_test(test_copy),
	};

	return cmocka_run_group_tests_name("guest_mem", tests, NULL, NULL);
}
