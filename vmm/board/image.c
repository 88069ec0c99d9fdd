// SPDX-License-Identifier: GPL-2.0
/*
 * RISC-V Linux Image validation and gzip inflation (see image.h).
 * Every field of the header is untrusted input: it is range-checked here
 * before the loader uses it for any address arithmetic.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ZLIB_CONST
#include <zlib.h>

#include "vmm/board/image.h"

#define HDR_TEXT_OFFSET 8
#define HDR_IMAGE_SIZE 16
#define HDR_FLAGS 24
#define HDR_VERSION 32
#define HDR_MAGIC2 56

/* zlib counts bytes in uInt: feed it at most this much at a time. */
#define GZ_CHUNK ((size_t)1 << 30)

void image_why_set(struct image_why *why, const char *fmt, ...)
{
	va_list ap;

	if (!why)
		return;
	va_start(ap, fmt);
	vsnprintf(why->msg, sizeof(why->msg), fmt, ap);
	va_end(ap);
}

static uint32_t image_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t image_le64(const uint8_t *p)
{
	return (uint64_t)image_le32(p) | (uint64_t)image_le32(p + 4) << 32;
}

bool image_is_gzip(const void *buf, size_t len)
{
	const uint8_t *p = buf;

	return len >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

struct image_format {
	size_t off;
	size_t len;
	const char *magic;
	const char *hint;
};

/* Files people pass by mistake, to turn "bad magic" into advice. */
static const struct image_format image_formats[] = {
	{ 0, 4,
	  "\x7f"
	  "ELF",
	  "an ELF file (vmlinux?); use arch/riscv/boot/Image" },
	{ 4, 4, "zimg", "an EFI zboot image; use the plain Image or Image.gz" },
	{ 0, 6,
	  "\xfd"
	  "7zXZ\0",
	  "xz-compressed; only gzip is supported" },
	{ 0, 4, "\x28\xb5\x2f\xfd", "zstd-compressed; only gzip is supported" },
	{ 0, 3, "BZh", "bzip2-compressed; only gzip is supported" },
	{ 0, 4, "\x02\x21\x4c\x18", "lz4-compressed; only gzip is supported" },
	{ 0, 4, "\x04\x22\x4d\x18", "lz4-compressed; only gzip is supported" },
	{ 0, 4, "\x89LZO", "lzo-compressed; only gzip is supported" },
};

static const char *image_format_hint(const uint8_t *p, size_t len)
{
	const struct image_format *f;
	size_t i;

	for (i = 0; i < sizeof(image_formats) / sizeof(image_formats[0]); i++) {
		f = &image_formats[i];
		if (len >= f->off + f->len &&
		    !memcmp(p + f->off, f->magic, f->len))
			return f->hint;
	}
	return NULL;
}

static int image_bad_magic(const uint8_t *p, size_t len, struct image_why *why)
{
	const char *hint = image_format_hint(p, len);

	if (hint)
		image_why_set(why, "not a RISC-V Image (bad magic): %s", hint);
	else
		image_why_set(why, "not a RISC-V Image (bad magic)");
	return -EINVAL;
}

/*
 * text_offset must put the kernel on a 2 MiB boundary (RV64 Linux BUG()s
 * otherwise), must not be 0 (only M-mode kernels, which cannot run in a
 * KVM guest, use 0) and must be below a sanity cap.
 */
static int image_check_text_offset(uint64_t off, struct image_why *why)
{
	if (off == 0) {
		image_why_set(
			why,
			"text_offset is 0: an M-mode kernel, which cannot run as a KVM guest");
		return -EINVAL;
	}
	if (off % IMAGE_TEXT_ALIGN) {
		image_why_set(
			why,
			"text_offset %#" PRIx64
			" is not a multiple of 2 MiB (RV64 kernels must start on a 2 MiB boundary)",
			off);
		return -EINVAL;
	}
	if (off >= IMAGE_TEXT_OFFSET_MAX) {
		image_why_set(why,
			      "text_offset %#" PRIx64
			      " is not below the 64 MiB sanity limit",
			      off);
		return -EINVAL;
	}
	return 0;
}

static int image_check_size(const struct image_info *info, size_t len,
			    uint64_t ram_size, struct image_why *why)
{
	uint64_t off = info->text_offset, size = info->image_size;

	if (size == 0) {
		image_why_set(why, "image_size is 0 in the header");
		return -EINVAL;
	}
	if (size < len) {
		image_why_set(why,
			      "image_size %" PRIu64
			      " is smaller than the Image itself (%zu bytes)",
			      size, len);
		return -EINVAL;
	}
	if (off > ram_size || size > ram_size - off) {
		image_why_set(why,
			      "kernel image_size %" PRIu64 " at RAM + %#" PRIx64
			      " exceeds guest RAM of %" PRIu64 " bytes",
			      size, off, ram_size);
		return -EFBIG;
	}
	return 0;
}

int image_parse_head(const void *head, size_t head_len, size_t len,
		     uint64_t ram_size, struct image_info *info,
		     struct image_why *why)
{
	const uint8_t *p = head;
	int ret;

	if (head_len > len)
		head_len = len;
	if (head_len < IMAGE_HEADER_SIZE) {
		image_why_set(
			why,
			"truncated: %zu bytes, a RISC-V Image header needs %d",
			len, IMAGE_HEADER_SIZE);
		return -EINVAL;
	}
	if (image_le32(p + HDR_MAGIC2) != IMAGE_MAGIC2)
		return image_bad_magic(p, head_len, why);

	memset(info, 0, sizeof(*info));
	info->data = p;
	info->len = len;
	info->text_offset = image_le64(p + HDR_TEXT_OFFSET);
	info->image_size = image_le64(p + HDR_IMAGE_SIZE);
	info->flags = image_le64(p + HDR_FLAGS);
	info->version = image_le32(p + HDR_VERSION);

	if (info->flags & IMAGE_FLAG_BE) {
		image_why_set(why,
			      "big-endian kernel (header flags %#" PRIx64
			      ") is not supported",
			      info->flags);
		return -EINVAL;
	}
	ret = image_check_text_offset(info->text_offset, why);
	if (ret)
		return ret;
	return image_check_size(info, len, ram_size, why);
}

int image_parse(const void *buf, size_t len, uint64_t ram_size,
		struct image_info *info, struct image_why *why)
{
	return image_parse_head(buf, len, len, ram_size, info, why);
}

static int image_gz_error(int zret, const z_stream *zs, struct image_why *why)
{
	if (zret == Z_MEM_ERROR) {
		image_why_set(why, "out of memory inflating gzip data");
		return -ENOMEM;
	}
	if (zret == Z_BUF_ERROR) {
		image_why_set(why, "corrupt gzip data (truncated stream)");
		return -EINVAL;
	}
	image_why_set(why, "corrupt gzip data (%s)",
		      zs->msg ? zs->msg : "invalid stream");
	return -EINVAL;
}

/* Cursors over buffers that may be larger than one zlib chunk. */
struct image_src {
	const uint8_t *p;
	size_t left;
};

struct image_dst {
	uint8_t *p;
	size_t left;
};

static void image_gz_feed(z_stream *zs, struct image_src *in)
{
	size_t n = in->left < GZ_CHUNK ? in->left : GZ_CHUNK;

	zs->next_in = in->p;
	zs->avail_in = (uInt)n;
	in->p += n;
	in->left -= n;
}

static void image_gz_room(z_stream *zs, struct image_dst *out)
{
	size_t n = out->left < GZ_CHUNK ? out->left : GZ_CHUNK;

	zs->next_out = out->p;
	zs->avail_out = (uInt)n;
	out->p += n;
	out->left -= n;
}

/*
 * Run inflate until the end of the stream.  Once out is full, one more
 * byte of room (probe) tells "exactly fits" apart from "too big".
 */
static int image_gz_run(z_stream *zs, struct image_src *in,
			struct image_dst *out, size_t out_max, size_t *out_len,
			struct image_why *why)
{
	uint8_t probe;
	bool probing = false;
	int zret;

	for (;;) {
		if (zs->avail_in == 0 && in->left)
			image_gz_feed(zs, in);
		if (zs->avail_out == 0 && out->left) {
			image_gz_room(zs, out);
		} else if (zs->avail_out == 0) {
			zs->next_out = &probe;
			zs->avail_out = 1;
			probing = true;
		}
		zret = inflate(zs, Z_NO_FLUSH);
		if (probing && zs->avail_out == 0) {
			image_why_set(
				why,
				"gzip data inflates to more than the limit of %zu bytes (guest RAM available for the kernel)",
				out_max);
			return -EFBIG;
		}
		if (zret == Z_STREAM_END) {
			*out_len = out_max - out->left -
				   (probing ? 0 : zs->avail_out);
			return 0;
		}
		if (zret != Z_OK)
			return image_gz_error(zret, zs, why);
	}
}

int image_gunzip(const void *in, size_t in_len, void *out, size_t out_max,
		 size_t *out_len, struct image_why *why)
{
	struct image_src src = { in, in_len };
	struct image_dst dst = { out, out_max };
	z_stream zs;
	int zret, ret;

	*out_len = 0;
	memset(&zs, 0, sizeof(zs));
	zret = inflateInit2(&zs, 16 + MAX_WBITS);
	if (zret != Z_OK)
		return image_gz_error(zret, &zs, why);
	ret = image_gz_run(&zs, &src, &dst, out_max, out_len, why);
	inflateEnd(&zs);
	return ret;
}

int image_load(const void *file, size_t file_len, void *out, size_t out_max,
	       uint64_t ram_size, struct image_info *info,
	       struct image_why *why)
{
	struct image_why inner;
	size_t len;
	int ret;

	if (!image_is_gzip(file, file_len))
		return image_parse(file, file_len, ram_size, info, why);

	ret = image_gunzip(file, file_len, out, out_max, &len, why);
	if (ret)
		return ret;
	ret = image_parse(out, len, ram_size, info, &inner);
	if (ret)
		image_why_set(why, "gzip data inflated to %zu bytes: %s", len,
			      inner.msg);
	return ret;
}
