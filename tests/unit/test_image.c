// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gzip_helper.h"
#include <zlib.h>

#include "vmm/board/image.h"
#include "lib/sizes.h"

#define RAM_64M (64 * SZ_1M)

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

/* An Image of len bytes laid out like Linux's head.S writes it. */
static uint8_t *make_image(size_t len, uint64_t text_offset,
			   uint64_t image_size)
{
	uint8_t *p = malloc(len);

	assert_non_null(p);
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + 3);
	if (len < IMAGE_HEADER_SIZE)
		return p;
	put_le32(p, 0x0000a001); /* code0 */
	put_le32(p + 4, 0);	 /* code1 */
	put_le64(p + 8, text_offset);
	put_le64(p + 16, image_size);
	put_le64(p + 24, 0);   /* flags: little endian */
	put_le32(p + 32, 0x2); /* version 0.2 */
	put_le32(p + 36, 0);
	put_le64(p + 40, 0);
	memcpy(p + 48, "RISCV\0\0\0", 8);
	memcpy(p + 56, "RSC\x05", 4);
	put_le32(p + 60, 0);
	return p;
}

static void test_valid_header(void **state)
{
	uint8_t *img = make_image(4096, SZ_2M, SZ_1M);
	struct image_info info;
	struct image_why why = { "untouched" };

	(void)state;
	assert_int_equal(image_parse(img, 4096, RAM_64M, &info, &why), 0);
	assert_ptr_equal(info.data, img);
	assert_int_equal(info.len, 4096);
	assert_int_equal(info.text_offset, SZ_2M);
	assert_int_equal(info.image_size, SZ_1M);
	assert_int_equal(info.flags, 0);
	assert_int_equal(info.version, 0x2);
	assert_string_equal(why.msg, "untouched");
	free(img);
}

static void test_header_only(void **state)
{
	uint8_t *img = make_image(64, SZ_2M, 64);
	struct image_info info;

	(void)state;
	assert_int_equal(image_parse(img, 64, RAM_64M, &info, NULL), 0);
	assert_int_equal(info.image_size, 64);
	free(img);
}

/* The checks from a file's first bytes and its size (the start-up probe). */
static void test_parse_head(void **state)
{
	uint8_t *img = make_image(64, SZ_2M, SZ_1M);
	struct image_info info;
	struct image_why why;

	(void)state;
	assert_int_equal(image_parse_head(img, 64, SZ_1M, RAM_64M, &info, &why),
			 0);
	assert_int_equal(info.len, SZ_1M);
	/* The file is larger than its image_size says. */
	assert_int_equal(
		image_parse_head(img, 64, SZ_1M + 1, RAM_64M, &info, &why),
		-EINVAL);
	assert_non_null(strstr(why.msg, "smaller than the Image itself"));
	/* A file shorter than a header, whatever the buffer holds. */
	assert_int_equal(image_parse_head(img, 64, 40, RAM_64M, &info, &why),
			 -EINVAL);
	assert_string_equal(
		why.msg, "truncated: 40 bytes, a RISC-V Image header needs 64");
	/* Too big for the guest: as the load would say. */
	assert_int_equal(image_parse_head(img, 64, SZ_1M, SZ_2M, &info, &why),
			 -EFBIG);
	free(img);
}

static void test_truncated(void **state)
{
	uint8_t *img = make_image(64, SZ_2M, SZ_1M);
	struct image_info info;
	struct image_why why;

	(void)state;
	assert_int_equal(image_parse(img, 63, RAM_64M, &info, &why), -EINVAL);
	assert_string_equal(
		why.msg, "truncated: 63 bytes, a RISC-V Image header needs 64");
	assert_int_equal(image_parse(img, 0, RAM_64M, &info, &why), -EINVAL);
	assert_int_equal(image_parse(NULL, 0, RAM_64M, &info, NULL), -EINVAL);
	free(img);
}

static void test_wrong_magic(void **state)
{
	uint8_t *img = make_image(4096, SZ_2M, SZ_1M);
	struct image_info info;
	struct image_why why;

	(void)state;
	img[59] = 0x06; /* "RSC\x06" */
	assert_int_equal(image_parse(img, 4096, RAM_64M, &info, &why), -EINVAL);
	assert_string_equal(why.msg, "not a RISC-V Image (bad magic)");

	/* The deprecated magic alone is not enough. */
	memset(img + 56, 0, 4);
	assert_int_equal(image_parse(img, 4096, RAM_64M, &info, &why), -EINVAL);
	free(img);
}

static void test_magic_hints(void **state)
{
	uint8_t buf[128] = { 0 };
	struct image_info info;
	struct image_why why;

	(void)state;
	memcpy(buf,
	       "\x7f"
	       "ELF",
	       4);
	assert_int_equal(image_parse(buf, sizeof(buf), RAM_64M, &info, &why),
			 -EINVAL);
	assert_string_equal(
		why.msg,
		"not a RISC-V Image (bad magic): an ELF file (vmlinux?); use arch/riscv/boot/Image");
	memcpy(buf,
	       "\xfd"
	       "7zXZ\0",
	       6);
	assert_int_equal(image_parse(buf, sizeof(buf), RAM_64M, &info, &why),
			 -EINVAL);
	assert_string_equal(
		why.msg,
		"not a RISC-V Image (bad magic): xz-compressed; only gzip is supported");
	memcpy(buf, "\x28\xb5\x2f\xfd", 4);
	assert_int_equal(image_parse(buf, sizeof(buf), RAM_64M, &info, &why),
			 -EINVAL);
	assert_non_null(strstr(why.msg, "zstd"));
}

static void test_big_endian_flag(void **state)
{
	uint8_t *img = make_image(4096, SZ_2M, SZ_1M);
	struct image_info info;
	struct image_why why;

	(void)state;
	put_le64(img + 24, 1);
	assert_int_equal(image_parse(img, 4096, RAM_64M, &info, &why), -EINVAL);
	assert_string_equal(
		why.msg,
		"big-endian kernel (header flags 0x1) is not supported");
	/* Other flag bits are not ours to judge. */
	put_le64(img + 24, 2);
	assert_int_equal(image_parse(img, 4096, RAM_64M, &info, &why), 0);
	free(img);
}

static void test_image_size_zero(void **state)
{
	uint8_t *img = make_image(4096, SZ_2M, 0);
	struct image_info info;
	struct image_why why;

	(void)state;
	assert_int_equal(image_parse(img, 4096, RAM_64M, &info, &why), -EINVAL);
	assert_string_equal(why.msg, "image_size is 0 in the header");
	free(img);
}

static void test_image_size_below_file(void **state)
{
	uint8_t *img = make_image(4096, SZ_2M, 4095);
	struct image_info info;
	struct image_why why;

	(void)state;
	assert_int_equal(image_parse(img, 4096, RAM_64M, &info, &why), -EINVAL);
	assert_string_equal(
		why.msg,
		"image_size 4095 is smaller than the Image itself (4096 bytes)");
	put_le64(img + 16, 4096);
	assert_int_equal(image_parse(img, 4096, RAM_64M, &info, &why), 0);
	free(img);
}

static void test_image_size_vs_ram(void **state)
{
	uint8_t *img = make_image(4096, SZ_2M, RAM_64M - SZ_2M);
	struct image_info info;
	struct image_why why;

	(void)state;
	/* Exactly up to the end of RAM is accepted here. */
	assert_int_equal(image_parse(img, 4096, RAM_64M, &info, &why), 0);

	put_le64(img + 16, RAM_64M - SZ_2M + 1);
	assert_int_equal(image_parse(img, 4096, RAM_64M, &info, &why), -EFBIG);
	assert_string_equal(
		why.msg,
		"kernel image_size 65011713 at RAM + 0x200000 exceeds guest RAM of 67108864 bytes");

	put_le64(img + 16, UINT64_MAX);
	assert_int_equal(image_parse(img, 4096, RAM_64M, &info, &why), -EFBIG);
	put_le64(img + 16, UINT64_MAX - SZ_2M + 2); /* would wrap */
	assert_int_equal(image_parse(img, 4096, RAM_64M, &info, &why), -EFBIG);

	/* RAM smaller than the text offset. */
	put_le64(img + 16, SZ_1M);
	assert_int_equal(image_parse(img, 4096, SZ_1M, &info, &why), -EFBIG);
	free(img);
}

static void test_text_offset(void **state)
{
	uint8_t *img = make_image(4096, SZ_2M + SZ_4K, SZ_1M);
	struct image_info info;
	struct image_why why;

	(void)state;
	assert_int_equal(image_parse(img, 4096, RAM_64M, &info, &why), -EINVAL);
	assert_string_equal(
		why.msg,
		"text_offset 0x201000 is not a multiple of 2 MiB (RV64 kernels must start on a 2 MiB boundary)");

	put_le64(img + 8, 1);
	assert_int_equal(image_parse(img, 4096, RAM_64M, &info, &why), -EINVAL);

	put_le64(img + 8, 0);
	assert_int_equal(image_parse(img, 4096, RAM_64M, &info, &why), -EINVAL);
	assert_non_null(strstr(why.msg, "M-mode"));

	put_le64(img + 8, 64 * SZ_1M);
	assert_int_equal(image_parse(img, 4096, SZ_1G, &info, &why), -EINVAL);
	assert_string_equal(
		why.msg,
		"text_offset 0x4000000 is not below the 64 MiB sanity limit");

	put_le64(img + 8, 62 * SZ_1M);
	assert_int_equal(image_parse(img, 4096, SZ_1G, &info, &why), 0);
	assert_int_equal(info.text_offset, 62 * SZ_1M);

	put_le64(img + 8, UINT64_MAX & ~(SZ_2M - 1));
	assert_int_equal(image_parse(img, 4096, SZ_1G, &info, &why), -EINVAL);
	free(img);
}

static void test_is_gzip(void **state)
{
	(void)state;
	assert_true(image_is_gzip("\x1f\x8b", 2));
	assert_false(image_is_gzip("\x1f\x8b", 1));
	assert_false(image_is_gzip("\x1f\x8c", 2));
	assert_false(image_is_gzip(NULL, 0));
}

static void test_gzip_valid(void **state)
{
	size_t len = 100000, gz_len;
	uint8_t *img = make_image(len, SZ_2M, SZ_1M);
	uint8_t *gz = gzip(img, len, &gz_len);
	uint8_t *out = malloc(SZ_1M);
	struct image_info info;
	struct image_why why;

	(void)state;
	assert_true(image_is_gzip(gz, gz_len));
	assert_int_equal(
		image_load(gz, gz_len, out, SZ_1M, RAM_64M, &info, &why), 0);
	assert_ptr_equal(info.data, out);
	assert_int_equal(info.len, len);
	assert_int_equal(info.text_offset, SZ_2M);
	assert_int_equal(info.image_size, SZ_1M);
	assert_memory_equal(out, img, len);

	/* A plain Image goes through image_load() untouched. */
	assert_int_equal(image_load(img, len, NULL, 0, RAM_64M, &info, &why),
			 0);
	assert_ptr_equal(info.data, img);
	free(out);
	free(gz);
	free(img);
}

static void test_gzip_exact_limit(void **state)
{
	size_t len = 8192, gz_len, out_len = 0;
	uint8_t *img = make_image(len, SZ_2M, SZ_1M);
	uint8_t *gz = gzip(img, len, &gz_len);
	uint8_t *out = malloc(len);
	struct image_info info;
	struct image_why why;

	(void)state;
	assert_int_equal(image_gunzip(gz, gz_len, out, len, &out_len, &why), 0);
	assert_int_equal(out_len, len);
	assert_memory_equal(out, img, len);
	assert_int_equal(image_load(gz, gz_len, out, len, RAM_64M, &info, &why),
			 0);
	free(out);
	free(gz);
	free(img);
}

static void test_gzip_too_big(void **state)
{
	size_t len = 8192, gz_len, out_len = 1234;
	uint8_t *img = make_image(len, SZ_2M, SZ_1M);
	uint8_t *gz = gzip(img, len, &gz_len);
	uint8_t *out = malloc(len);
	struct image_info info;
	struct image_why why;

	(void)state;
	assert_int_equal(image_gunzip(gz, gz_len, out, len - 1, &out_len, &why),
			 -EFBIG);
	assert_int_equal(out_len, 0);
	assert_string_equal(
		why.msg,
		"gzip data inflates to more than the limit of 8191 bytes (guest RAM available for the kernel)");
	assert_int_equal(image_load(gz, gz_len, out, 100, RAM_64M, &info, &why),
			 -EFBIG);
	assert_int_equal(image_load(gz, gz_len, NULL, 0, RAM_64M, &info, &why),
			 -EFBIG);
	assert_non_null(strstr(why.msg, "limit of 0 bytes"));
	free(out);
	free(gz);
	free(img);
}

static void test_gzip_corrupt(void **state)
{
	size_t len = 8192, gz_len, out_len;
	uint8_t *img = make_image(len, SZ_2M, SZ_1M);
	uint8_t *gz = gzip(img, len, &gz_len);
	uint8_t *out = malloc(SZ_1M);
	struct image_why why;

	(void)state;
	/* Truncated stream: the trailer is missing. */
	assert_int_equal(
		image_gunzip(gz, gz_len - 8, out, SZ_1M, &out_len, &why),
		-EINVAL);
	assert_string_equal(why.msg, "corrupt gzip data (truncated stream)");
	/* Header only. */
	assert_int_equal(image_gunzip(gz, 10, out, SZ_1M, &out_len, &why),
			 -EINVAL);
	assert_int_equal(image_gunzip(gz, 2, out, SZ_1M, &out_len, &why),
			 -EINVAL);

	/* Bad CRC in the trailer. */
	gz[gz_len - 8] ^= 0x55;
	assert_int_equal(image_gunzip(gz, gz_len, out, SZ_1M, &out_len, &why),
			 -EINVAL);
	assert_string_equal(why.msg,
			    "corrupt gzip data (incorrect data check)");
	gz[gz_len - 8] ^= 0x55;

	/* Bad compression method in the header. */
	gz[2] = 7;
	assert_int_equal(image_gunzip(gz, gz_len, out, SZ_1M, &out_len, &why),
			 -EINVAL);
	assert_non_null(strstr(why.msg, "corrupt gzip data"));
	free(out);
	free(gz);
	free(img);
}

static void test_gzip_not_an_image(void **state)
{
	uint8_t text[200];
	size_t gz_len;
	uint8_t *gz, *out = malloc(SZ_1M);
	struct image_info info;
	struct image_why why;

	(void)state;
	memset(text, 'x', sizeof(text));
	gz = gzip(text, sizeof(text), &gz_len);
	assert_int_equal(
		image_load(gz, gz_len, out, SZ_1M, RAM_64M, &info, &why),
		-EINVAL);
	assert_string_equal(
		why.msg,
		"gzip data inflated to 200 bytes: not a RISC-V Image (bad magic)");
	free(gz);

	/* Empty gzip member. */
	gz = gzip(text, 0, &gz_len);
	assert_int_equal(image_load(gz, gz_len, NULL, 0, RAM_64M, &info, &why),
			 -EINVAL);
	assert_string_equal(
		why.msg,
		"gzip data inflated to 0 bytes: truncated: 0 bytes, a RISC-V Image header needs 64");
	free(gz);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_header),
		cmocka_unit_test(test_header_only),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_parse_head),
		cmocka_unit_test(test_wrong_magic),
		cmocka_unit_test(test_magic_hints),
		cmocka_unit_test(test_big_endian_flag),
		cmocka_unit_test(test_image_size_zero),
		cmocka_unit_test(test_image_size_below_file),
		cmocka_unit_test(test_image_size_vs_ram),
		cmocka_unit_test(test_text_offset),
		cmocka_unit_test(test_is_gzip),
		cmocka_unit_test(test_gzip_valid),
		cmocka_unit_test(test_gzip_exact_limit),
		cmocka_unit_test(test_gzip_too_big),
		cmocka_unit_test(test_gzip_corrupt),
		cmocka_unit_test(test_gzip_not_an_image),
	};

	return cmocka_run_group_tests_name("image", tests, NULL, NULL);
}
