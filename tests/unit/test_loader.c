// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "gzip_helper.h"
#include <zlib.h>

#include "vmm/board/loader.h"

#define RAM_BASE 0x80000000ULL /* the virt board's */
#define RAM_64M (64 * SZ_1M)
#define FDT_64K 0x10000ULL
#define KSIZE 0x1234567ULL /* ends at 0x81434567, reserved to 0x81600000 */

static struct loader_request req_64m(uint64_t initrd_size)
{
	return (struct loader_request){
		.ram_base = RAM_BASE,
		.ram_size = RAM_64M,
		.text_offset = SZ_2M,
		.image_size = KSIZE,
		.initrd_size = initrd_size,
		.fdt_max = FDT_64K,
	};
}

/* What every successful placement must satisfy. */
static void check_invariants(const struct loader_request *req,
			     const struct loader_placement *pl)
{
	assert_int_equal(pl->kernel_addr, req->ram_base + req->text_offset);
	assert_int_equal(pl->kernel_addr % SZ_2M, 0);
	assert_int_equal(pl->kernel_end, pl->kernel_addr + req->image_size);
	assert_int_equal(pl->kernel_reserved_end % SZ_2M, 0);
	assert_true(pl->kernel_reserved_end >= pl->kernel_end);
	assert_true(pl->kernel_reserved_end - pl->kernel_end < SZ_2M);
	assert_true(pl->kernel_end <= req->ram_base + req->ram_size);
	assert_true(pl->lowmem_end - req->ram_base <= SZ_256M);
	assert_int_equal(pl->fdt_addr % SZ_4K, 0);
	assert_int_equal(pl->fdt_max, req->fdt_max);
	assert_true(pl->fdt_addr >= pl->kernel_reserved_end);
	if (req->initrd_size) {
		assert_int_equal(pl->initrd_start % SZ_4K, 0);
		assert_int_equal(pl->initrd_end - pl->initrd_start,
				 req->initrd_size);
		assert_true(pl->initrd_end <= pl->lowmem_end);
		assert_true(pl->lowmem_end - pl->initrd_end < SZ_4K);
		assert_true(pl->fdt_addr + pl->fdt_max <= pl->initrd_start);
	} else {
		assert_int_equal(pl->initrd_start, 0);
		assert_int_equal(pl->initrd_end, 0);
		assert_true(pl->fdt_addr + pl->fdt_max <= pl->lowmem_end);
	}
}

static void test_place_64m(void **state)
{
	struct loader_request req = req_64m(0x100123);
	struct loader_placement pl;
	struct image_why why;

	(void)state;
	assert_int_equal(loader_place(&req, &pl, &why), 0);
	assert_int_equal(pl.kernel_addr, 0x80200000);
	assert_int_equal(pl.kernel_end, 0x81434567);
	assert_int_equal(pl.kernel_reserved_end, 0x81600000);
	assert_int_equal(pl.lowmem_end, 0x84000000);
	assert_int_equal(pl.initrd_start, 0x83eff000);
	assert_int_equal(pl.initrd_end, 0x83fff123);
	assert_int_equal(pl.fdt_addr, 0x83eef000);
	assert_int_equal(pl.fdt_max, FDT_64K);
	check_invariants(&req, &pl);
}

static void test_place_1g_lowmem_capped(void **state)
{
	struct loader_request req = req_64m(200 * SZ_1M);
	struct loader_placement pl;
	struct image_why why;

	(void)state;
	req.ram_size = SZ_1G;
	assert_int_equal(loader_place(&req, &pl, &why), 0);
	assert_int_equal(pl.lowmem_end, 0x90000000);
	assert_int_equal(pl.initrd_end, 0x90000000);
	assert_int_equal(pl.initrd_start, 0x90000000 - 200 * SZ_1M);
	assert_int_equal(pl.fdt_addr, 0x90000000 - 200 * SZ_1M - FDT_64K);
	check_invariants(&req, &pl);

	/* 250 MiB does not fit below 256 MiB with a 20 MiB kernel. */
	req.initrd_size = 250 * SZ_1M;
	assert_int_equal(loader_place(&req, &pl, &why), -ENOSPC);
	assert_string_equal(
		why.msg,
		"initrd of 262144000 bytes does not fit in the first 256 MiB of RAM: at most 245301248 bytes available after the kernel (reserved to 0x81600000) and the 65536-byte FDT");
}

static void test_place_initrd_exact_fit(void **state)
{
	struct loader_request req = req_64m(43974656);
	struct loader_placement pl;
	struct image_why why;

	(void)state;
	assert_int_equal(loader_place(&req, &pl, &why), 0);
	assert_int_equal(pl.initrd_start, 0x81610000);
	assert_int_equal(pl.initrd_end, 0x84000000);
	assert_int_equal(pl.fdt_addr, 0x81600000);
	assert_int_equal(pl.fdt_addr, pl.kernel_reserved_end);
	check_invariants(&req, &pl);

	/* Not a page multiple: the start is aligned down, still fits. */
	req.initrd_size = 43974656 - 100;
	assert_int_equal(loader_place(&req, &pl, &why), 0);
	assert_int_equal(pl.initrd_start, 0x81610000);
	assert_int_equal(pl.initrd_end, 0x84000000 - 100);
	assert_int_equal(pl.fdt_addr, 0x81600000);
	check_invariants(&req, &pl);
}

static void test_place_initrd_one_byte_too_big(void **state)
{
	struct loader_request req = req_64m(43974657);
	struct loader_placement pl;
	struct image_why why;

	(void)state;
	assert_int_equal(loader_place(&req, &pl, &why), -ENOSPC);
	assert_string_equal(
		why.msg,
		"initrd of 43974657 bytes does not fit in the first 64 MiB of RAM: at most 43974656 bytes available after the kernel (reserved to 0x81600000) and the 65536-byte FDT");
	req.initrd_size = UINT64_MAX;
	assert_int_equal(loader_place(&req, &pl, &why), -ENOSPC);
}

static void test_place_no_initrd(void **state)
{
	struct loader_request req = req_64m(0);
	struct loader_placement pl;
	struct image_why why;

	(void)state;
	assert_int_equal(loader_place(&req, &pl, &why), 0);
	assert_int_equal(pl.initrd_start, 0);
	assert_int_equal(pl.initrd_end, 0);
	assert_int_equal(pl.fdt_addr, 0x84000000 - FDT_64K);
	check_invariants(&req, &pl);
}

static void test_place_fdt_alignment(void **state)
{
	struct loader_request req = req_64m(0x100123);
	struct loader_placement pl;
	struct image_why why;

	(void)state;
	/* An odd FDT size still starts on a page, clear of the initrd page. */
	req.fdt_max = 0x1801;
	assert_int_equal(loader_place(&req, &pl, &why), 0);
	assert_int_equal(pl.initrd_start, 0x83eff000);
	assert_int_equal(pl.fdt_addr, 0x83efd000);
	check_invariants(&req, &pl);

	/* The largest FDT the kernel maps early: 2 MiB. */
	req.fdt_max = SZ_2M;
	assert_int_equal(loader_place(&req, &pl, &why), 0);
	assert_int_equal(pl.fdt_addr, 0x83cff000);
	check_invariants(&req, &pl);

	req.fdt_max = SZ_2M + 1;
	assert_int_equal(loader_place(&req, &pl, &why), -EINVAL);
	assert_string_equal(why.msg,
			    "FDT size 2097153 is not between 1 byte and 2 MiB");
	req.fdt_max = 0;
	assert_int_equal(loader_place(&req, &pl, &why), -EINVAL);
}

static void test_place_kernel_too_big(void **state)
{
	struct loader_request req = req_64m(0);
	struct loader_placement pl;
	struct image_why why;

	(void)state;
	req.image_size = 62 * SZ_1M + 1;
	assert_int_equal(loader_place(&req, &pl, &why), -EFBIG);
	assert_string_equal(
		why.msg,
		"kernel image_size 65011713 at RAM + 0x200000 exceeds RAM of 67108864 bytes");
	req.image_size = UINT64_MAX;
	assert_int_equal(loader_place(&req, &pl, &why), -EFBIG);

	/* Fits RAM exactly but leaves no room for the FDT. */
	req.image_size = 62 * SZ_1M;
	assert_int_equal(loader_place(&req, &pl, &why), -ENOSPC);
	assert_string_equal(
		why.msg,
		"kernel (image_size 65011712, reserved to 0x84000000) leaves no room for the 65536-byte FDT in the first 64 MiB of RAM");

	/* 1 GiB: the kernel fits RAM but ends beyond lowmem. */
	req.ram_size = SZ_1G;
	req.image_size = 300 * SZ_1M;
	assert_int_equal(loader_place(&req, &pl, &why), -ENOSPC);
	assert_non_null(strstr(why.msg, "in the first 256 MiB of RAM"));

	/* The last 2 MiB block below the end of lowmem is enough. */
	req.ram_size = RAM_64M;
	req.image_size = 60 * SZ_1M;
	assert_int_equal(loader_place(&req, &pl, &why), 0);
	assert_int_equal(pl.kernel_reserved_end, 0x83e00000);
	assert_int_equal(pl.fdt_addr, 0x83ff0000);
	check_invariants(&req, &pl);
	req.initrd_size = SZ_2M - FDT_64K;
	assert_int_equal(loader_place(&req, &pl, &why), 0);
	assert_int_equal(pl.fdt_addr, 0x83e00000);
	check_invariants(&req, &pl);
}

static void test_place_bad_request(void **state)
{
	struct loader_request req;
	struct loader_placement pl;
	struct image_why why;

	(void)state;
	req = req_64m(0);
	req.ram_base += SZ_1M;
	assert_int_equal(loader_place(&req, &pl, &why), -EINVAL);
	assert_string_equal(why.msg,
			    "RAM base 0x80100000 is not 2 MiB aligned");

	req = req_64m(0);
	req.ram_size = 0;
	assert_int_equal(loader_place(&req, &pl, &why), -EINVAL);
	req.ram_size = RAM_64M + 1;
	assert_int_equal(loader_place(&req, &pl, &why), -EINVAL);
	req.ram_size = CONFIG_RAM_MAX + SZ_4K;
	assert_int_equal(loader_place(&req, &pl, &why), -EINVAL);

	req = req_64m(0);
	req.ram_base = LOADER_PA_LIMIT - SZ_2M * 16;
	assert_int_equal(loader_place(&req, &pl, &why), -EINVAL);
	req.ram_base = UINT64_MAX & ~(SZ_2M - 1);
	assert_int_equal(loader_place(&req, &pl, &why), -EINVAL);

	req = req_64m(0);
	req.text_offset = SZ_2M + SZ_4K;
	assert_int_equal(loader_place(&req, &pl, &why), -EINVAL);
	req.text_offset = SZ_2M;
	req.image_size = 0;
	assert_int_equal(loader_place(&req, &pl, &why), -EINVAL);
}

static void test_place_unaligned_ram_size(void **state)
{
	struct loader_request req = req_64m(SZ_1M);
	struct loader_placement pl;
	struct image_why why;

	(void)state;
	req.ram_size = 32 * SZ_1M + SZ_4K;
	assert_int_equal(loader_place(&req, &pl, &why), 0);
	assert_int_equal(pl.lowmem_end, 0x82001000);
	assert_int_equal(pl.initrd_end, 0x82001000);
	check_invariants(&req, &pl);
	req.initrd_size = 30 * SZ_1M;
	assert_int_equal(loader_place(&req, &pl, &why), -ENOSPC);
	assert_non_null(strstr(why.msg, "in the first 32772 KiB of RAM"));
}

/* A fresh directory under /tmp for the file tests. */
static int setup_dir(void **state)
{
	char *dir = strdup("/tmp/test_loader.XXXXXX");

	if (!dir || !mkdtemp(dir)) {
		free(dir);
		return -1;
	}
	*state = dir;
	return 0;
}

static int teardown_dir(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", (char *)*state);
	free(*state);
	return system(cmd) ? -1 : 0;
}

static char *write_file(const char *dir, const char *name, const void *data,
			size_t len)
{
	char *path = malloc(strlen(dir) + strlen(name) + 2);
	FILE *f;

	assert_non_null(path);
	sprintf(path, "%s/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void test_read_file_limit(void **state)
{
	uint8_t data[1000];
	char *path;
	void *buf;
	size_t len;
	struct image_why why;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i ^ 0x5a);
	path = write_file(*state, "k", data, sizeof(data));

	assert_int_equal(loader_read_file(path, 1000, &buf, &len, &why), 0);
	assert_int_equal(len, 1000);
	assert_memory_equal(buf, data, 1000);
	free(buf);

	assert_int_equal(loader_read_file(path, 999, &buf, &len, &why), -EFBIG);
	assert_null(buf);
	assert_int_equal(len, 0);
	assert_string_equal(
		why.msg,
		"file of 1000 bytes is larger than the limit of 999 bytes");
	free(path);
}

static void test_read_file_errors(void **state)
{
	char missing[256];
	char *path;
	void *buf;
	size_t len;
	struct image_why why;

	snprintf(missing, sizeof(missing), "%s/missing", (char *)*state);
	assert_int_equal(loader_read_file(missing, 100, &buf, &len, &why),
			 -ENOENT);
	assert_null(buf);
	assert_string_equal(why.msg, "cannot open: No such file or directory");

	assert_int_equal(loader_read_file(*state, 100, &buf, &len, &why),
			 -EISDIR);
	assert_string_equal(why.msg, "is a directory");

	path = write_file(*state, "empty", "", 0);
	assert_int_equal(loader_read_file(path, 100, &buf, &len, &why), 0);
	assert_non_null(buf);
	assert_int_equal(len, 0);
	free(buf);
	assert_int_equal(loader_read_file(path, 0, &buf, &len, &why), 0);
	free(buf);
	free(path);
}

/* Read a pipe that a child fills with len bytes of pattern, then closes. */
static int read_pipe(size_t len, size_t max, void **buf, size_t *got,
		     struct image_why *why)
{
	int fds[2], ret, status;
	char path[64];
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		uint8_t chunk[4096];
		size_t done = 0;

		close(fds[0]);
		while (done < len) {
			size_t n = len - done < sizeof(chunk) ? len - done :
								sizeof(chunk);

			for (size_t i = 0; i < n; i++)
				chunk[i] = (uint8_t)(done + i);
			if (write(fds[1], chunk, n) != (ssize_t)n)
				_exit(0); /* reader gave up: fine */
			done += n;
		}
		_exit(0);
	}
	close(fds[1]);
	snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
	ret = loader_read_file(path, max, buf, got, why);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return ret;
}

static void test_read_file_pipe(void **state)
{
	size_t len = 300000, got;
	uint8_t *p;
	void *buf;
	struct image_why why;

	(void)state;
	/* Larger than the first 64 KiB chunk: the buffer has to grow. */
	assert_int_equal(read_pipe(len, len, &buf, &got, &why), 0);
	assert_int_equal(got, len);
	p = buf;
	for (size_t i = 0; i < len; i++)
		if (p[i] != (uint8_t)i)
			fail_msg("byte %zu is %u", i, p[i]);
	free(buf);

	assert_int_equal(read_pipe(len, len - 1, &buf, &got, &why), -EFBIG);
	assert_null(buf);
	assert_string_equal(why.msg, "larger than the limit of 299999 bytes");

	assert_int_equal(read_pipe(10, 0, &buf, &got, &why), -EFBIG);
	assert_int_equal(read_pipe(0, 0, &buf, &got, &why), 0);
	assert_int_equal(got, 0);
	free(buf);
}

/* ---- loader_load: files into a small fake guest RAM ---- */

#define GUEST_RAM (16 * SZ_1M)

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint8_t *make_image(size_t len, uint64_t image_size)
{
	uint8_t *p = malloc(len);

	assert_non_null(p);
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 13 + 1);
	memset(p, 0, IMAGE_HEADER_SIZE);
	put_le64(p + 8, SZ_2M);
	put_le64(p + 16, image_size);
	p[32] = 2;
	memcpy(p + 48, "RISCV\0\0\0", 8);
	memcpy(p + 56, "RSC\x05", 4);
	return p;
}

static bool all_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

static void check_loaded(const struct guest_mem *mem,
			 const struct loader_placement *pl, const uint8_t *img,
			 size_t img_len, const uint8_t *rd, size_t rd_len)
{
	assert_int_equal(pl->kernel_addr, 0x80200000);
	assert_int_equal(pl->kernel_end, 0x80300000);
	assert_int_equal(pl->lowmem_end, 0x81000000);
	assert_int_equal(pl->initrd_start, 0x80fff000);
	assert_int_equal(pl->initrd_end, 0x80fff000 + rd_len);
	assert_int_equal(pl->fdt_addr, 0x80fef000);
	assert_memory_equal(mem->host + SZ_2M, img, img_len);
	assert_memory_equal(mem->host + (pl->initrd_start - mem->base), rd,
			    rd_len);
	assert_true(all_zero(mem->host, SZ_2M));
	assert_true(all_zero(mem->host + SZ_2M + img_len, SZ_1M - img_len));
}

static void test_load(void **state)
{
	size_t img_len = 8192, gz_len;
	uint8_t *img = make_image(img_len, SZ_1M), *gz;
	uint8_t rd[3000];
	struct guest_mem mem = { RAM_BASE, GUEST_RAM, NULL };
	const char *rd_files[3] = { NULL };
	struct loader_files files = { .initrds = rd_files, .fdt_max = FDT_64K };
	struct loader_placement pl;
	struct image_why why;

	memset(rd, 0xa5, sizeof(rd));
	files.kernel = write_file(*state, "Image", img, img_len);
	rd_files[0] = write_file(*state, "initrd", rd, sizeof(rd));
	files.nr_initrds = 1;

	mem.host = calloc(1, GUEST_RAM);
	assert_int_equal(loader_load(&mem, &files, &pl, &why), 0);
	check_loaded(&mem, &pl, img, img_len, rd, sizeof(rd));
	free(mem.host);

	/* The same Image gzip-compressed lands in the same place. */
	gz = gzip(img, img_len, &gz_len);
	free((char *)files.kernel);
	files.kernel = write_file(*state, "Image.gz", gz, gz_len);
	mem.host = calloc(1, GUEST_RAM);
	assert_int_equal(loader_load(&mem, &files, &pl, &why), 0);
	check_loaded(&mem, &pl, img, img_len, rd, sizeof(rd));
	free(mem.host);

	/* Without an initrd the FDT goes to the top of lowmem. */
	free((char *)rd_files[0]);
	files.nr_initrds = 0;
	mem.host = calloc(1, GUEST_RAM);
	assert_int_equal(loader_load(&mem, &files, &pl, &why), 0);
	assert_int_equal(pl.initrd_start, 0);
	assert_int_equal(pl.fdt_addr, 0x81000000 - FDT_64K);
	assert_memory_equal(mem.host + SZ_2M, img, img_len);
	free(mem.host);

	free((char *)files.kernel);
	free(gz);
	free(img);
}

/*
 * Several initrds: concatenated in order, each from a 4-byte boundary with
 * zeros between; together they must fit in lowmem.
 */
static void test_load_initrds(void **state)
{
	uint8_t *img = make_image(8192, SZ_1M), want[16], *at;
	const char *rd_files[3] = { NULL };
	struct loader_files files = { .initrds = rd_files, .fdt_max = FDT_64K };
	struct guest_mem mem = { RAM_BASE, GUEST_RAM, NULL };
	struct loader_placement pl;
	struct image_why why;
	char expect[512];

	files.kernel = write_file(*state, "Image", img, 8192);
	rd_files[0] = write_file(*state, "a", "12345", 5);
	rd_files[1] = write_file(*state, "b", "abcd", 4);
	rd_files[2] = write_file(*state, "c", "Z", 1);
	files.nr_initrds = 3;
	mem.host = calloc(1, GUEST_RAM);
	assert_int_equal(loader_load(&mem, &files, &pl, &why), 0);
	memcpy(want, "12345\0\0\0abcdZ", 13);
	assert_int_equal(pl.initrd_end - pl.initrd_start, 13);
	at = mem.host + (pl.initrd_start - mem.base);
	assert_memory_equal(at, want, 13);

	/* The second one finds the room the first one left. */
	free((char *)rd_files[2]);
	rd_files[2] = "/dev/zero";
	assert_int_equal(loader_load(&mem, &files, &pl, &why), -EFBIG);
	assert_string_equal(
		why.msg,
		"initrd /dev/zero: the initrds together are larger than the limit of 16777216 bytes");

	/* A missing one is named. */
	rd_files[2] = "/nonexistent/modules.cpio";
	assert_int_equal(loader_load(&mem, &files, &pl, &why), -ENOENT);
	snprintf(expect, sizeof(expect),
		 "initrd %s: cannot open: No such file or directory",
		 rd_files[2]);
	assert_string_equal(why.msg, expect);

	free(mem.host);
	free((char *)rd_files[0]);
	free((char *)rd_files[1]);
	free((char *)files.kernel);
	free(img);
}

/*
 * --firmware: the file as it is (no Image header needed) at the RAM base,
 * which is also the entry point; the FDT after it; no initrd.
 */
static void test_load_firmware(void **state)
{
	uint8_t fw[5000];
	struct guest_mem mem = { RAM_BASE, GUEST_RAM, NULL };
	const char *rd_files[3] = { NULL };
	struct loader_files files = { .initrds = rd_files, .fdt_max = FDT_64K };
	struct loader_placement pl;
	struct image_why why;

	for (size_t i = 0; i < sizeof(fw); i++)
		fw[i] = (uint8_t)(i * 7 + 1);
	files.firmware = write_file(*state, "fw.bin", fw, sizeof(fw));
	mem.host = calloc(1, GUEST_RAM);
	assert_int_equal(loader_load(&mem, &files, &pl, &why), 0);
	assert_int_equal(pl.kernel_addr, RAM_BASE);
	assert_int_equal(pl.kernel_end, RAM_BASE + sizeof(fw));
	assert_int_equal(pl.initrd_start, 0);
	assert_true(pl.fdt_addr >= RAM_BASE + SZ_2M);
	assert_memory_equal(mem.host, fw, sizeof(fw));
	free((char *)files.firmware);

	/* An empty firmware is named. */
	files.firmware = write_file(*state, "empty.bin", "", 0);
	assert_int_equal(loader_load(&mem, &files, &pl, &why), -EINVAL);
	assert_non_null(strstr(why.msg, "firmware "));
	assert_non_null(strstr(why.msg, ": file is empty"));
	free((char *)files.firmware);

	/* A firmware larger than RAM is refused before it is read. */
	files.firmware = "/dev/zero";
	assert_int_equal(loader_load(&mem, &files, &pl, &why), -EFBIG);
	assert_non_null(strstr(why.msg, "firmware /dev/zero: larger than"));
	free(mem.host);
}

static void test_load_errors(void **state)
{
	uint8_t *img = make_image(8192, SZ_1M), *big, *gz;
	struct guest_mem mem = { RAM_BASE, GUEST_RAM, NULL };
	const char *rd_files[3] = { NULL };
	struct loader_files files = { .initrds = rd_files, .fdt_max = FDT_64K };
	struct loader_placement pl;
	struct image_why why;
	char expect[512];
	size_t gz_len;

	mem.host = calloc(1, GUEST_RAM);
	files.kernel = write_file(*state, "Image", img, 8192);
	rd_files[0] = write_file(*state, "empty", "", 0);
	files.nr_initrds = 1;
	assert_int_equal(loader_load(&mem, &files, &pl, &why), -EINVAL);
	snprintf(expect, sizeof(expect), "initrd %s: file is empty",
		 rd_files[0]);
	assert_string_equal(why.msg, expect);
	free((char *)rd_files[0]);

	/* An initrd bigger than lowmem is refused before it is read. */
	rd_files[0] = "/dev/zero";
	assert_int_equal(loader_load(&mem, &files, &pl, &why), -EFBIG);
	assert_string_equal(
		why.msg,
		"initrd /dev/zero: larger than the limit of 16777216 bytes");
	files.nr_initrds = 0;

	free((char *)files.kernel);
	files.kernel = write_file(*state, "nothing", "", 0);
	assert_int_equal(loader_load(&mem, &files, &pl, &why), -EINVAL);
	snprintf(
		expect, sizeof(expect),
		"kernel %s: truncated: 0 bytes, a RISC-V Image header needs 64",
		files.kernel);
	assert_string_equal(why.msg, expect);
	free((char *)files.kernel);

	/* Image.gz that inflates to more than guest RAM. */
	big = make_image(GUEST_RAM + 1, GUEST_RAM + SZ_1M);
	gz = gzip(big, GUEST_RAM + 1, &gz_len);
	files.kernel = write_file(*state, "big.gz", gz, gz_len);
	assert_int_equal(loader_load(&mem, &files, &pl, &why), -EFBIG);
	snprintf(
		expect, sizeof(expect),
		"kernel %s: gzip data inflates to more than the limit of 16777216 bytes (guest RAM available for the kernel)",
		files.kernel);
	assert_string_equal(why.msg, expect);
	free((char *)files.kernel);

	files.kernel = "/nonexistent/Image";
	assert_int_equal(loader_load(&mem, &files, &pl, &why), -ENOENT);
	assert_string_equal(
		why.msg,
		"kernel /nonexistent/Image: cannot open: No such file or directory");

	free(gz);
	free(big);
	free(img);
	free(mem.host);
}

/* The check before a sandbox's root is made: as loader_load words it. */
static void test_probe_kernel(void **state)
{
	size_t img_len = 8192, gz_len;
	uint8_t *img = make_image(img_len, SZ_1M), *gz;
	struct image_why why;
	char *path, *missing;

	path = write_file(*state, "Image", img, img_len);
	assert_int_equal(loader_probe_kernel(path, GUEST_RAM, &why), 0);
	/* Too big for the RAM: what loading it would say. */
	assert_int_equal(loader_probe_kernel(path, SZ_2M, &why), -EFBIG);
	assert_non_null(strstr(why.msg, path));
	free(path);
	gz = gzip(img, img_len, &gz_len);
	path = write_file(*state, "Image.gz", gz, gz_len);
	assert_int_equal(loader_probe_kernel(path, GUEST_RAM, &why), 0);
	free(path);
	/* Not an Image: bad magic; truncated header; missing file. */
	img[56] = 'X';
	path = write_file(*state, "junk", img, img_len);
	assert_int_equal(loader_probe_kernel(path, GUEST_RAM, &why), -EINVAL);
	assert_non_null(strstr(why.msg, "kernel "));
	assert_non_null(strstr(why.msg, path));
	free(path);
	path = write_file(*state, "short", img, 40);
	assert_int_equal(loader_probe_kernel(path, GUEST_RAM, &why), -EINVAL);
	free(path);
	missing = write_file(*state, "gone", img, 1);
	unlink(missing);
	assert_int_equal(loader_probe_kernel(missing, GUEST_RAM, &why),
			 -ENOENT);
	assert_non_null(strstr(why.msg, missing));
	/* A FIFO is not read (the load reads it once): nothing to say. */
	assert_int_equal(mkfifo(missing, 0600), 0);
	assert_int_equal(loader_probe_kernel(missing, GUEST_RAM, &why), 0);
	unlink(missing);
	free(missing);
	free(gz);
	free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_place_64m),
		cmocka_unit_test(test_place_1g_lowmem_capped),
		cmocka_unit_test(test_place_initrd_exact_fit),
		cmocka_unit_test(test_place_initrd_one_byte_too_big),
		cmocka_unit_test(test_place_no_initrd),
		cmocka_unit_test(test_place_fdt_alignment),
		cmocka_unit_test(test_place_kernel_too_big),
		cmocka_unit_test(test_place_bad_request),
		cmocka_unit_test(test_place_unaligned_ram_size),
		cmocka_unit_test_setup_teardown(test_read_file_limit, setup_dir,
						teardown_dir),
		cmocka_unit_test_setup_teardown(test_read_file_errors,
						setup_dir, teardown_dir),
		cmocka_unit_test(test_read_file_pipe),
		cmocka_unit_test_setup_teardown(test_load, setup_dir,
						teardown_dir),
		cmocka_unit_test_setup_teardown(test_load_initrds, setup_dir,
						teardown_dir),
		cmocka_unit_test_setup_teardown(test_load_firmware, setup_dir,
						teardown_dir),
		cmocka_unit_test_setup_teardown(test_probe_kernel, setup_dir,
						teardown_dir),
		cmocka_unit_test_setup_teardown(test_load_errors, setup_dir,
						teardown_dir),
	};

	return cmocka_run_group_tests_name("loader", tests, NULL, NULL);
}
