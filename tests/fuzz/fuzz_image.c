// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the kernel file path: the input is a kernel file, fed raw (gzip
 * inputs inflate into a 1 MiB buffer) and again gzip-compressed, then the
 * parsed header goes through placement.  Placement is also fed raw header
 * fields that image_parse() would have refused.  Any broken invariant
 * aborts.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "vmm/board/image.h"
#include "vmm/board/loader.h"
#include "lib/log.h"

#define FUZZ_OUT_MAX SZ_1M

static uint8_t fuzz_out[FUZZ_OUT_MAX];

static const uint64_t fuzz_ram_sizes[] = {
	SZ_4K,	 3 * SZ_1M, 8 * SZ_1M,	    64 * SZ_1M, 64 * SZ_1M + SZ_4K,
	SZ_256M, SZ_1G,	    CONFIG_RAM_MAX, 0,		CONFIG_RAM_MAX + SZ_4K,
};

struct fuzz_params {
	uint64_t ram_size;
	uint64_t initrd_size;
	uint64_t fdt_max;
};

static uint64_t fuzz_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* Placement parameters from the input's last bytes. */
static struct fuzz_params fuzz_params(const uint8_t *data, size_t size)
{
	size_t nr = sizeof(fuzz_ram_sizes) / sizeof(fuzz_ram_sizes[0]);
	struct fuzz_params p = { 64 * SZ_1M, 0, 0x10000 };
	const uint8_t *t;

	if (size < 8)
		return p;
	t = data + size - 8;
	p.ram_size = fuzz_ram_sizes[t[0] % nr];
	p.initrd_size = fuzz_le(t + 1, 4) << (t[5] % 24);
	p.fdt_max = fuzz_le(t + 6, 2) << (t[5] % 6);
	return p;
}

static bool fuzz_in(uint64_t lo, uint64_t x, uint64_t hi)
{
	return lo <= x && x <= hi;
}

static void fuzz_check(const struct loader_request *r,
		       const struct loader_placement *pl)
{
	uint64_t ram_end = r->ram_base + r->ram_size;
	bool ok = pl->kernel_addr == r->ram_base + r->text_offset &&
		  pl->kernel_addr % SZ_2M == 0 &&
		  pl->kernel_end == pl->kernel_addr + r->image_size &&
		  pl->kernel_end <= ram_end &&
		  pl->kernel_reserved_end % SZ_2M == 0 &&
		  fuzz_in(pl->kernel_end, pl->kernel_reserved_end,
			  pl->kernel_end + SZ_2M - 1) &&
		  pl->lowmem_end <= ram_end &&
		  pl->lowmem_end - r->ram_base <= SZ_256M &&
		  pl->fdt_addr % SZ_4K == 0 && pl->fdt_max == r->fdt_max &&
		  pl->fdt_addr >= pl->kernel_reserved_end;

	if (r->initrd_size)
		ok = ok && pl->initrd_start % SZ_4K == 0 &&
		     pl->initrd_end - pl->initrd_start == r->initrd_size &&
		     pl->initrd_end <= pl->lowmem_end &&
		     pl->fdt_addr + pl->fdt_max <= pl->initrd_start;
	else
		ok = ok && !pl->initrd_start && !pl->initrd_end &&
		     pl->fdt_addr + pl->fdt_max <= pl->lowmem_end;
	if (!ok)
		abort();
}

static void fuzz_place(const struct loader_request *req)
{
	struct loader_placement pl;
	struct image_why why;

	why.msg[0] = 0;
	if (loader_place(req, &pl, &why)) {
		if (!why.msg[0])
			abort();
		return;
	}
	fuzz_check(req, &pl);
}

static void fuzz_load(const uint8_t *file, size_t len,
		      const struct fuzz_params *p)
{
	struct image_info info;
	struct image_why why;
	struct loader_request req = {
		.ram_base = 0x80000000ULL,
		.ram_size = p->ram_size,
		.initrd_size = p->initrd_size,
		.fdt_max = p->fdt_max,
	};

	why.msg[0] = 0;
	if (image_load(file, len, fuzz_out, FUZZ_OUT_MAX, p->ram_size, &info,
		       &why)) {
		if (!why.msg[0])
			abort();
		return;
	}
	if ((info.data != file && info.data != fuzz_out) ||
	    info.image_size < info.len ||
	    info.text_offset + info.image_size > p->ram_size)
		abort();
	req.text_offset = info.text_offset;
	req.image_size = info.image_size;
	fuzz_place(&req);
}

/* Compress the input, inflate it back and check it round-trips. */
static void fuzz_gzip(const uint8_t *data, size_t size,
		      const struct fuzz_params *p)
{
	z_stream zs = { 0 };
	size_t gz_len, out_len;
	uint8_t *gz;
	int ret;

	if (deflateInit2(&zs, 1, Z_DEFLATED, 16 + MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	gz_len = deflateBound(&zs, size) + 32;
	gz = malloc(gz_len);
	if (!gz)
		abort();
	zs.next_in = (Bytef *)data;
	zs.avail_in = (uInt)size;
	zs.next_out = gz;
	zs.avail_out = (uInt)gz_len;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
		abort();
	gz_len = zs.total_out;
	deflateEnd(&zs);

	ret = image_gunzip(gz, gz_len, fuzz_out, FUZZ_OUT_MAX, &out_len, NULL);
	if (size > FUZZ_OUT_MAX ?
		    ret != -EFBIG :
		    ret || out_len != size || memcmp(fuzz_out, data, size))
		abort();
	fuzz_load(gz, gz_len, p);
	free(gz);
}

/* Header fields straight into placement, unvalidated. */
static void fuzz_raw_fields(const uint8_t *data, size_t size,
			    const struct fuzz_params *p)
{
	struct loader_request req = {
		.ram_base = 0x80000000ULL,
		.ram_size = p->ram_size,
		.initrd_size = p->initrd_size,
		.fdt_max = p->fdt_max,
	};

	if (size < 32)
		return;
	req.text_offset = fuzz_le(data + 8, 8);
	req.image_size = fuzz_le(data + 16, 8);
	fuzz_place(&req);
	req.ram_base = fuzz_le(data + 24, 8);
	fuzz_place(&req);
	req.text_offset &= 0x3e00000;
	req.image_size &= 0xfffffff;
	req.ram_base = 0x80000000ULL;
	fuzz_place(&req);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_params p = fuzz_params(data, size);

	log_level = -1;
	fuzz_load(data, size, &p);
	fuzz_gzip(data, size, &p);
	fuzz_raw_fields(data, size, &p);
	return 0;
}
