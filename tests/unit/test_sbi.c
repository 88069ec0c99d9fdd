// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/guest_mem.h"
#include "lib/log.h"
#include "vmm/kvm/sbi.h"

#define RAM_BASE 0x80000000UL
#define RAM_SIZE 8192UL /* > SBI_DBCN_WRITE_MAX */
#define RAM_END (RAM_BASE + RAM_SIZE)
#define FILL 0xaa

/* Recording console: output log plus a scripted input queue. */
struct fake_console {
	uint8_t out[RAM_SIZE + 16];
	size_t out_len;
	unsigned int writes, reads;
	const uint8_t *in;
	size_t in_len, in_pos;
	size_t read_extra; /* lie: claim this many more bytes than asked */
	size_t room;	   /* a partial write takes at most this much */
	bool partial;	   /* the last write allowed a short count */
};

static uint8_t ram[RAM_SIZE];
static const struct guest_mem mem = {
	.base = RAM_BASE,
	.size = RAM_SIZE,
	.host = ram,
};
static struct fake_console fc;

static size_t fake_write(void *opaque, const uint8_t *buf, size_t len,
			 bool partial)
{
	struct fake_console *f = opaque;

	assert_true(len > 0);
	assert_true(f->out_len + len <= sizeof(f->out));
	if (partial && len > f->room)
		len = f->room; /* backed up: a partial write */
	memcpy(f->out + f->out_len, buf, len);
	f->out_len += len;
	f->writes++;
	f->partial = partial;
	return len;
}

static size_t fake_read(void *opaque, uint8_t *buf, size_t len)
{
	struct fake_console *f = opaque;
	size_t n = f->in_len - f->in_pos;

	assert_true(len > 0);
	f->reads++;
	if (n > len)
		n = len;
	if (n) {
		memcpy(buf, f->in + f->in_pos, n);
		f->in_pos += n;
	}
	return n + f->read_extra;
}

static const struct sbi_console console = {
	.write = fake_write,
	.read = fake_read,
	.opaque = &fc,
};
static const struct sbi_ctx ctx = { .mem = &mem, .console = &console };

static int setup(void **state)
{
	(void)state;
	memset(&fc, 0, sizeof(fc));
	fc.room = SIZE_MAX;
	memset(ram, FILL, sizeof(ram));
	return 0;
}

static void set_input(const char *s)
{
	fc.in = (const uint8_t *)s;
	fc.in_len = strlen(s);
	fc.in_pos = 0;
}

/* A call with ret[] preset to junk, to see that every path sets it. */
static struct sbi_call call_make(unsigned long ext, unsigned long fid,
				 unsigned long a0, unsigned long a1,
				 unsigned long a2)
{
	struct sbi_call c = {
		.ext = ext,
		.fid = fid,
		.args = { a0, a1, a2, 0x33, 0x44, 0x55 },
		.ret = { 0x1234, 0x5678 },
	};
	return c;
}

static struct sbi_call do_call(const struct sbi_ctx *cx, unsigned long ext,
			       unsigned long fid, unsigned long a0,
			       unsigned long a1, unsigned long a2)
{
	struct sbi_call c = call_make(ext, fid, a0, a1, a2);

	sbi_handle(cx, &c);
	return c;
}

static struct sbi_call dbcn(unsigned long fid, unsigned long len,
			    unsigned long lo, unsigned long hi)
{
	return do_call(&ctx, SBI_EXT_DBCN, fid, len, lo, hi);
}

static void assert_ram_untouched(void)
{
	for (size_t i = 0; i < RAM_SIZE; i++)
		assert_int_equal(ram[i], FILL);
}

/* --- legacy console ------------------------------------------------- */

static void test_putchar(void **state)
{
	struct sbi_call c;

	(void)state;
	c = do_call(&ctx, SBI_EXT_0_1_CONSOLE_PUTCHAR, 7, 'A', 0xa1, 0);
	assert_int_equal(c.ret[0], 0);
	assert_int_equal(c.ret[1], 0xa1); /* a1 preserved */
	/* Only the low byte of a0 is the character. */
	c = do_call(&ctx, SBI_EXT_0_1_CONSOLE_PUTCHAR, 0, 0xffffff42UL, 0, 0);
	assert_int_equal(c.ret[0], 0);
	assert_int_equal(fc.out_len, 2);
	assert_memory_equal(fc.out, "AB", 2);
	assert_int_equal(fc.reads, 0);
}

static void test_getchar_input(void **state)
{
	struct sbi_call c;

	(void)state;
	set_input("x\xff");
	c = do_call(&ctx, SBI_EXT_0_1_CONSOLE_GETCHAR, 0, 0, 0xbeef, 0);
	assert_int_equal(c.ret[0], 'x');
	assert_int_equal(c.ret[1], 0xbeef);
	/* Byte 0xff is 255, not -1. */
	c = do_call(&ctx, SBI_EXT_0_1_CONSOLE_GETCHAR, 0, 0, 0, 0);
	assert_int_equal(c.ret[0], 255);
	c = do_call(&ctx, SBI_EXT_0_1_CONSOLE_GETCHAR, 0, 0, 0, 0);
	assert_int_equal(c.ret[0], -1);
	assert_int_equal(fc.reads, 3);
	assert_int_equal(fc.out_len, 0);
}

static void test_getchar_no_input(void **state)
{
	struct sbi_call c;

	(void)state;
	c = do_call(&ctx, SBI_EXT_0_1_CONSOLE_GETCHAR, 0, 0, 0x77, 0);
	assert_int_equal(c.ret[0], -1);
	assert_int_equal(c.ret[1], 0x77);
	assert_int_equal(fc.reads, 1);
}

static void test_no_console(void **state)
{
	const struct sbi_console empty = { 0 };
	const struct sbi_ctx none = { .mem = &mem, .console = NULL };
	const struct sbi_ctx nocb = { .mem = &mem, .console = &empty };
	struct sbi_call c;

	(void)state;
	c = do_call(&none, SBI_EXT_0_1_CONSOLE_PUTCHAR, 0, 'A', 0, 0);
	assert_int_equal(c.ret[0], 0);
	c = do_call(&none, SBI_EXT_0_1_CONSOLE_GETCHAR, 0, 0, 0, 0);
	assert_int_equal(c.ret[0], -1);
	c = do_call(&nocb, SBI_EXT_0_1_CONSOLE_GETCHAR, 0, 0, 0, 0);
	assert_int_equal(c.ret[0], -1);
	c = do_call(&nocb, SBI_EXT_DBCN, SBI_EXT_DBCN_CONSOLE_WRITE, 4,
		    RAM_BASE, 0);
	assert_int_equal(c.ret[0], SBI_SUCCESS);
	assert_int_equal(c.ret[1], 4);
	c = do_call(&nocb, SBI_EXT_DBCN, SBI_EXT_DBCN_CONSOLE_READ, 4, RAM_BASE,
		    0);
	assert_int_equal(c.ret[0], SBI_SUCCESS);
	assert_int_equal(c.ret[1], 0);
	assert_ram_untouched();
}

/* --- DBCN console_write ------------------------------------------------ */

static void test_dbcn_write(void **state)
{
	struct sbi_call c;

	(void)state;
	memcpy(ram + 0x100, "hello", 5);
	c = dbcn(SBI_EXT_DBCN_CONSOLE_WRITE, 5, RAM_BASE + 0x100, 0);
	assert_int_equal(c.ret[0], SBI_SUCCESS);
	assert_int_equal(c.ret[1], 5);
	assert_int_equal(fc.out_len, 5);
	assert_memory_equal(fc.out, "hello", 5);
	assert_int_equal(fc.writes, 1);
}

/*
 * A console that is backed up takes part of a console_write, or none:
 * the guest learns the count (SBI v2.0 §12.1 allows partial writes).
 * Single bytes (write_byte, legacy putchar) cannot be refused.
 */
static void test_dbcn_write_backed_up(void **state)
{
	struct sbi_call c;

	(void)state;
	memcpy(ram + 0x100, "hello", 5);
	fc.room = 2;
	c = dbcn(SBI_EXT_DBCN_CONSOLE_WRITE, 5, RAM_BASE + 0x100, 0);
	assert_int_equal(c.ret[0], SBI_SUCCESS);
	assert_int_equal(c.ret[1], 2);
	assert_true(fc.partial);
	fc.room = 0;
	c = dbcn(SBI_EXT_DBCN_CONSOLE_WRITE, 3, RAM_BASE + 0x102, 0);
	assert_int_equal(c.ret[0], SBI_SUCCESS);
	assert_int_equal(c.ret[1], 0);
	c = dbcn(SBI_EXT_DBCN_CONSOLE_WRITE_BYTE, '!', 0, 0);
	assert_int_equal(c.ret[0], SBI_SUCCESS);
	assert_false(fc.partial);
	c = do_call(&ctx, SBI_EXT_0_1_CONSOLE_PUTCHAR, 0, '?', 0, 0);
	assert_false(fc.partial);
	assert_int_equal(fc.out_len, 4);
	assert_memory_equal(fc.out, "he!?", 4);
}

static void test_dbcn_write_all_ram(void **state)
{
	struct sbi_call c;

	(void)state;
	ram[0] = 'a';
	ram[RAM_SIZE - 1] = 'z';
	/* All of RAM is a valid range; one call writes a bounded part. */
	c = dbcn(SBI_EXT_DBCN_CONSOLE_WRITE, RAM_SIZE, RAM_BASE, 0);
	assert_int_equal(c.ret[0], SBI_SUCCESS);
	assert_int_equal(c.ret[1], SBI_DBCN_WRITE_MAX);
	assert_int_equal(fc.out_len, SBI_DBCN_WRITE_MAX);
	assert_memory_equal(fc.out, ram, SBI_DBCN_WRITE_MAX);
	/* The last byte of RAM alone. */
	c = dbcn(SBI_EXT_DBCN_CONSOLE_WRITE, 1, RAM_END - 1, 0);
	assert_int_equal(c.ret[0], SBI_SUCCESS);
	assert_int_equal(c.ret[1], 1);
	assert_int_equal(fc.out[SBI_DBCN_WRITE_MAX], 'z');
}

static void assert_write_refused(unsigned long len, unsigned long lo,
				 unsigned long hi)
{
	struct sbi_call c = dbcn(SBI_EXT_DBCN_CONSOLE_WRITE, len, lo, hi);

	assert_int_equal(c.ret[0], SBI_ERR_INVALID_PARAM);
	assert_int_equal(c.ret[1], 0);
	assert_int_equal(fc.writes, 0);
}

static void test_dbcn_write_past_end(void **state)
{
	(void)state;
	assert_write_refused(2, RAM_END - 1, 0);
	assert_write_refused(RAM_SIZE + 1, RAM_BASE, 0);
	assert_write_refused(1, RAM_END, 0);
}

static void test_dbcn_write_before_ram(void **state)
{
	(void)state;
	assert_write_refused(2, RAM_BASE - 1, 0);
	assert_write_refused(1, RAM_BASE - 1, 0);
	assert_write_refused(16, 0, 0);
}

static void test_dbcn_write_wraps(void **state)
{
	(void)state;
	/* RAM_BASE + 0x10 + len wraps to just inside RAM. */
	assert_write_refused(ULONG_MAX - 0xf, RAM_BASE + 0x10, 0);
	assert_write_refused(ULONG_MAX, RAM_BASE, 0);
	assert_write_refused(2, ULONG_MAX, 0);
	assert_write_refused(RAM_BASE + 0x20, ULONG_MAX - 0xf, 0);
}

static void test_dbcn_write_base_hi(void **state)
{
	/* RAM at 4 GiB, where "lo | hi << 32" would wrongly land. */
	const struct guest_mem high = {
		.base = 0x100000000ULL,
		.size = RAM_SIZE,
		.host = ram,
	};
	const struct sbi_ctx hctx = { .mem = &high, .console = &console };
	struct sbi_call c;

	(void)state;
	/* base_addr_hi holds the bits above XLEN: 2^64 and up is no RAM. */
	assert_write_refused(4, RAM_BASE, 1);
	assert_write_refused(4, RAM_BASE, 1UL << 31);
	assert_write_refused(4, RAM_BASE, ULONG_MAX);
	c = do_call(&hctx, SBI_EXT_DBCN, SBI_EXT_DBCN_CONSOLE_WRITE, 4, 0, 1);
	assert_int_equal(c.ret[0], SBI_ERR_INVALID_PARAM);
	assert_int_equal(c.ret[1], 0);
	assert_int_equal(fc.writes, 0);
	memcpy(ram, "high", 4);
	c = do_call(&hctx, SBI_EXT_DBCN, SBI_EXT_DBCN_CONSOLE_WRITE, 4,
		    0x100000000UL, 0);
	assert_int_equal(c.ret[0], SBI_SUCCESS);
	assert_int_equal(c.ret[1], 4);
	assert_memory_equal(fc.out, "high", 4);
}

static void test_dbcn_zero_bytes(void **state)
{
	struct sbi_call c;

	(void)state;
	c = dbcn(SBI_EXT_DBCN_CONSOLE_WRITE, 0, RAM_BASE, 0);
	assert_int_equal(c.ret[0], SBI_SUCCESS);
	assert_int_equal(c.ret[1], 0);
	/* No byte is named, so any address will do. */
	c = dbcn(SBI_EXT_DBCN_CONSOLE_WRITE, 0, 0, 5);
	assert_int_equal(c.ret[0], SBI_SUCCESS);
	assert_int_equal(c.ret[1], 0);
	set_input("abc");
	c = dbcn(SBI_EXT_DBCN_CONSOLE_READ, 0, ULONG_MAX, ULONG_MAX);
	assert_int_equal(c.ret[0], SBI_SUCCESS);
	assert_int_equal(c.ret[1], 0);
	assert_int_equal(fc.writes, 0);
	assert_int_equal(fc.reads, 0);
	assert_int_equal(fc.in_pos, 0);
}

static void test_dbcn_no_mem(void **state)
{
	const struct sbi_ctx nomem = { .mem = NULL, .console = &console };
	struct sbi_call c;

	(void)state;
	c = do_call(&nomem, SBI_EXT_DBCN, SBI_EXT_DBCN_CONSOLE_WRITE, 1,
		    RAM_BASE, 0);
	assert_int_equal(c.ret[0], SBI_ERR_INVALID_PARAM);
	assert_int_equal(fc.writes, 0);
}

/* --- DBCN console_read ------------------------------------------------- */

static void test_dbcn_read(void **state)
{
	struct sbi_call c;

	(void)state;
	set_input("abc");
	c = dbcn(SBI_EXT_DBCN_CONSOLE_READ, 8, RAM_BASE + 0x10, 0);
	assert_int_equal(c.ret[0], SBI_SUCCESS);
	assert_int_equal(c.ret[1], 3);
	assert_memory_equal(ram + 0x10, "abc", 3);
	assert_int_equal(ram[0x0f], FILL);
	assert_int_equal(ram[0x13], FILL);
	assert_int_equal(fc.in_pos, 3);
}

static void test_dbcn_read_partial(void **state)
{
	struct sbi_call c;

	(void)state;
	set_input("abcdef");
	c = dbcn(SBI_EXT_DBCN_CONSOLE_READ, 4, RAM_END - 4, 0);
	assert_int_equal(c.ret[0], SBI_SUCCESS);
	assert_int_equal(c.ret[1], 4);
	assert_memory_equal(ram + RAM_SIZE - 4, "abcd", 4);
	c = dbcn(SBI_EXT_DBCN_CONSOLE_READ, 4, RAM_BASE, 0);
	assert_int_equal(c.ret[1], 2);
	assert_memory_equal(ram, "ef", 2);
}

static void test_dbcn_read_none(void **state)
{
	struct sbi_call c;

	(void)state;
	c = dbcn(SBI_EXT_DBCN_CONSOLE_READ, 16, RAM_BASE, 0);
	assert_int_equal(c.ret[0], SBI_SUCCESS);
	assert_int_equal(c.ret[1], 0);
	assert_int_equal(fc.reads, 1);
	assert_ram_untouched();
}

static void test_dbcn_read_bad_buffer(void **state)
{
	static const unsigned long bad[][3] = {
		{ 2, RAM_END - 1, 0 },
		{ 2, RAM_BASE - 1, 0 },
		{ ULONG_MAX, RAM_BASE + 1, 0 },
		{ 4, RAM_BASE, 1 },
		{ 1, RAM_END, 0 },
	};
	struct sbi_call c;

	(void)state;
	set_input("0123456789");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c = dbcn(SBI_EXT_DBCN_CONSOLE_READ, bad[i][0], bad[i][1],
			 bad[i][2]);
		assert_int_equal(c.ret[0], SBI_ERR_INVALID_PARAM);
		assert_int_equal(c.ret[1], 0);
	}
	assert_ram_untouched();
	/* The input was not consumed either. */
	assert_int_equal(fc.reads, 0);
	assert_int_equal(fc.in_pos, 0);
}

static void test_dbcn_read_backend_overclaims(void **state)
{
	struct sbi_call c;

	(void)state;
	set_input("ab");
	fc.read_extra = 100;
	c = dbcn(SBI_EXT_DBCN_CONSOLE_READ, 4, RAM_BASE, 0);
	assert_int_equal(c.ret[0], SBI_SUCCESS);
	assert_int_equal(c.ret[1], 4); /* clamped to num_bytes */
}

/* --- DBCN console_write_byte and unknown FIDs -------------------------- */

static void test_dbcn_write_byte(void **state)
{
	struct sbi_call c;

	(void)state;
	c = dbcn(SBI_EXT_DBCN_CONSOLE_WRITE_BYTE, 0x1234, 0x9, 0x9);
	assert_int_equal(c.ret[0], SBI_SUCCESS);
	assert_int_equal(c.ret[1], 0);
	assert_int_equal(fc.out_len, 1);
	assert_int_equal(fc.out[0], 0x34);
}

static void test_dbcn_unknown_fid(void **state)
{
	static const unsigned long fids[] = { 3, 0x100, 1UL << 32, ULONG_MAX };
	struct sbi_call c;

	(void)state;
	for (size_t i = 0; i < sizeof(fids) / sizeof(fids[0]); i++) {
		c = dbcn(fids[i], 4, RAM_BASE, 0);
		assert_int_equal(c.ret[0], SBI_ERR_NOT_SUPPORTED);
		assert_int_equal(c.ret[1], 0);
	}
	assert_int_equal(fc.writes, 0);
	assert_int_equal(fc.reads, 0);
	assert_ram_untouched();
}

/* --- everything else: NOT_SUPPORTED, and sbi_handle() returns ---------- */

static void assert_not_supported(unsigned long ext, unsigned long fid)
{
	struct sbi_call c = call_make(ext, fid, 'X', RAM_BASE, 0);

	sbi_handle(&ctx, &c); /* returns: the vCPU goes on */
	assert_int_equal(c.ret[0], SBI_ERR_NOT_SUPPORTED);
	assert_int_equal(c.ret[1], 0);
	assert_int_equal(fc.writes, 0);
	assert_int_equal(fc.reads, 0);
}

static void test_experimental(void **state)
{
	(void)state;
	assert_not_supported(SBI_EXT_EXPERIMENTAL_START, 0);
	assert_not_supported(SBI_EXT_EXPERIMENTAL_START + 0x1234, 5);
	assert_not_supported(SBI_EXT_EXPERIMENTAL_END, ULONG_MAX);
}

static void test_vendor(void **state)
{
	(void)state;
	assert_not_supported(SBI_EXT_VENDOR_START, 0);
	assert_not_supported(SBI_EXT_VENDOR_END, 1);
}

static void test_unknown_ext(void **state)
{
	(void)state;
	assert_not_supported(0x12345678, 0);
	assert_not_supported(0x10, 0); /* BASE */
	assert_not_supported(SBI_EXT_FIRMWARE_START, 0);
	assert_not_supported(ULONG_MAX, ULONG_MAX);
	/* DBCN's EID with upper bits set is not DBCN. */
	assert_not_supported(SBI_EXT_DBCN | 1UL << 32, 0);
	assert_not_supported(SBI_EXT_DBCN - 1, 0);
}

static void test_unknown_legacy(void **state)
{
	struct sbi_call c;

	(void)state;
	/* Legacy set_timer and shutdown: KVM keeps them, but if they came... */
	c = do_call(&ctx, 0x00, 0, 1, 0x42, 0);
	assert_int_equal(c.ret[0], SBI_ERR_NOT_SUPPORTED);
	assert_int_equal(c.ret[1], 0x42); /* legacy: a1 preserved */
	c = do_call(&ctx, 0x08, 0, 0, 0x43, 0);
	assert_int_equal(c.ret[0], SBI_ERR_NOT_SUPPORTED);
	assert_int_equal(c.ret[1], 0x43);
	c = do_call(&ctx, SBI_EXT_0_1_LAST, 0, 0, 0x44, 0);
	assert_int_equal(c.ret[0], SBI_ERR_NOT_SUPPORTED);
	assert_int_equal(c.ret[1], 0x44);
	assert_int_equal(fc.writes + fc.reads, 0);
}

static void test_repeat_unsupported(void **state)
{
	(void)state;
	/* Logged once, answered every time. */
	for (int i = 0; i < 100; i++)
		assert_not_supported(SBI_EXT_VENDOR_START + i, i);
}

static void test_ext_name(void **state)
{
	(void)state;
	assert_string_equal(sbi_ext_name(0x01), "legacy console");
	assert_string_equal(sbi_ext_name(0x02), "legacy console");
	assert_string_equal(sbi_ext_name(0x00), "legacy");
	assert_string_equal(sbi_ext_name(0x0f), "legacy");
	assert_string_equal(sbi_ext_name(0x10), "BASE");
	assert_string_equal(sbi_ext_name(SBI_EXT_DBCN), "DBCN");
	assert_string_equal(sbi_ext_name(0x48534d), "HSM");
	assert_string_equal(sbi_ext_name(0x53525354), "SRST");
	assert_string_equal(sbi_ext_name(0x07ffffff), "unknown");
	assert_string_equal(sbi_ext_name(0x08000000), "experimental");
	assert_string_equal(sbi_ext_name(0x08ffffff), "experimental");
	assert_string_equal(sbi_ext_name(0x09000000), "vendor");
	assert_string_equal(sbi_ext_name(0x09ffffff), "vendor");
	assert_string_equal(sbi_ext_name(0x0a000000), "firmware");
	assert_string_equal(sbi_ext_name(0x0b000000), "unknown");
	assert_string_equal(sbi_ext_name(ULONG_MAX), "unknown");
}

#define T(f) cmocka_unit_test_setup(f, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_putchar),
		T(test_getchar_input),
		T(test_getchar_no_input),
		T(test_no_console),
		T(test_dbcn_write),
		T(test_dbcn_write_backed_up),
		T(test_dbcn_write_all_ram),
		T(test_dbcn_write_past_end),
		T(test_dbcn_write_before_ram),
		T(test_dbcn_write_wraps),
		T(test_dbcn_write_base_hi),
		T(test_dbcn_zero_bytes),
		T(test_dbcn_no_mem),
		T(test_dbcn_read),
		T(test_dbcn_read_partial),
		T(test_dbcn_read_none),
		T(test_dbcn_read_bad_buffer),
		T(test_dbcn_read_backend_overclaims),
		T(test_dbcn_write_byte),
		T(test_dbcn_unknown_fid),
		T(test_experimental),
		T(test_vendor),
		T(test_unknown_ext),
		T(test_unknown_legacy),
		T(test_repeat_unsupported),
		T(test_ext_name),
	};

	return cmocka_run_group_tests_name("sbi", tests, NULL, NULL);
}
