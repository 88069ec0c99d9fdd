/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RISC-V Linux kernel Image files: header validation and gzip inflation.
 * Pure host-side input checking; nothing here touches KVM or guest RAM.
 *
 * The header (Linux Documentation/arch/riscv/boot-image-header.rst) is 64
 * little-endian bytes at the start of the Image:
 *   0 code0 u32, 4 code1 u32, 8 text_offset u64, 16 image_size u64,
 *   24 flags u64, 32 version u32, 36 res1 u32, 40 res2 u64,
 *   48 magic u64 "RISCV\0\0\0" (deprecated), 56 magic2 u32 "RSC\x05",
 *   60 res3 u32.
 */
#ifndef RVKVM_IMAGE_H
#define RVKVM_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IMAGE_HEADER_SIZE 64
#define IMAGE_MAGIC2 0x05435352U /* "RSC\x05" read little-endian */
#define IMAGE_FLAG_BE 0x1ULL	 /* flags bit 0: big-endian kernel */

/*
 * RV64 kernels must start on a 2 MiB (PMD) boundary; RAM starts on one, so
 * text_offset must be a multiple of this.  Linux RV64 uses exactly 2 MiB.
 */
#define IMAGE_TEXT_ALIGN 0x200000ULL
/* Sanity cap on text_offset: anything larger is a corrupt header. */
#define IMAGE_TEXT_OFFSET_MAX 0x4000000ULL /* 64 MiB */

/*
 * A one-line, human-readable reason for a failure.  Functions that fail
 * fill msg; the caller prints it after the name of the file concerned.
 */
struct image_why {
	char msg[256];
};

/* The parsed header of a valid Image, and where its bytes are. */
struct image_info {
	const uint8_t *data;  /* the Image bytes (file or inflated buffer) */
	size_t len;	      /* bytes of data: the file part of the Image */
	uint64_t text_offset; /* load offset from the start of RAM */
	uint64_t image_size;  /* bytes the kernel occupies, incl. BSS */
	uint64_t flags;
	uint32_t version; /* major << 16 | minor */
};

/* Format a reason into why (which may be NULL). */
void image_why_set(struct image_why *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* True when buf starts with the gzip magic 1f 8b. */
bool image_is_gzip(const void *buf, size_t len);

/*
 * Validate an uncompressed Image of len bytes for a guest with ram_size
 * bytes of RAM.  Returns 0 and fills info (info->data = buf), or:
 *   -EINVAL  truncated, bad magic, big-endian, image_size 0 or smaller
 *            than the file, text_offset not a non-zero multiple of 2 MiB
 *            below 64 MiB;
 *   -EFBIG   text_offset + image_size does not fit in ram_size.
 */
int image_parse(const void *buf, size_t len, uint64_t ram_size,
		struct image_info *info, struct image_why *why);

/*
 * The same checks from the first head_len bytes of an Image of len bytes
 * (its header is all they read): a file checked without reading it all.
 */
int image_parse_head(const void *head, size_t head_len, size_t len,
		     uint64_t ram_size, struct image_info *info,
		     struct image_why *why);

/*
 * Inflate a gzip file into out, writing at most out_max bytes; *out_len
 * gets the inflated size.  Returns 0, -EFBIG when the data inflates to
 * more than out_max bytes, -EINVAL for a corrupt or truncated stream,
 * -ENOMEM when zlib cannot allocate its state.  Bytes after the end of
 * the first gzip member are ignored.
 */
int image_gunzip(const void *in, size_t in_len, void *out, size_t out_max,
		 size_t *out_len, struct image_why *why);

/*
 * Turn the bytes of a kernel file into a validated Image: a gzip file is
 * inflated into out (at most out_max bytes; out may be NULL when out_max
 * is 0), anything else is parsed in place.  Errors as image_gunzip() and
 * image_parse().
 */
int image_load(const void *file, size_t file_len, void *out, size_t out_max,
	       uint64_t ram_size, struct image_info *info,
	       struct image_why *why);

#endif
