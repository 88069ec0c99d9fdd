// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel/initrd/FDT placement and loading (see loader.h for the layout and
 * the reasons behind each alignment).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmm/board/loader.h"

/* Initial buffer for files whose size stat() does not tell. */
#define LOADER_READ_CHUNK (64 * 1024)

static uint64_t loader_align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

static uint64_t loader_align_down(uint64_t x, uint64_t a)
{
	return x & ~(a - 1);
}

static int loader_check_ram(const struct loader_request *req,
			    struct image_why *why)
{
	if (req->ram_base % LOADER_KERNEL_ALIGN) {
		image_why_set(why, "RAM base %#" PRIx64 " is not 2 MiB aligned",
			      req->ram_base);
		return -EINVAL;
	}
	if (!req->ram_size || req->ram_size % SZ_4K ||
	    req->ram_size > CONFIG_RAM_MAX) {
		image_why_set(
			why,
			"RAM size %" PRIu64
			" is not a multiple of 4 KiB between 4 KiB and %llu GiB",
			req->ram_size, CONFIG_RAM_MAX / SZ_1G);
		return -EINVAL;
	}
	if (req->ram_base > LOADER_PA_LIMIT - req->ram_size) {
		image_why_set(
			why,
			"RAM at %#" PRIx64 " + %" PRIu64
			" bytes ends beyond the 56-bit physical address space",
			req->ram_base, req->ram_size);
		return -EINVAL;
	}
	if (!req->fdt_max || req->fdt_max > LOADER_FDT_SIZE_MAX) {
		image_why_set(why,
			      "FDT size %" PRIu64
			      " is not between 1 byte and 2 MiB",
			      req->fdt_max);
		return -EINVAL;
	}
	return 0;
}

static int loader_check_kernel(const struct loader_request *req,
			       struct image_why *why)
{
	uint64_t off = req->text_offset, size = req->image_size;

	if (off % LOADER_KERNEL_ALIGN) {
		image_why_set(why,
			      "text_offset %#" PRIx64
			      " is not a multiple of 2 MiB",
			      off);
		return -EINVAL;
	}
	if (!size) {
		image_why_set(why, "kernel image_size is 0");
		return -EINVAL;
	}
	if (off > req->ram_size || size > req->ram_size - off) {
		image_why_set(why,
			      "kernel image_size %" PRIu64 " at RAM + %#" PRIx64
			      " exceeds RAM of %" PRIu64 " bytes",
			      size, off, req->ram_size);
		return -EFBIG;
	}
	return 0;
}

/* "256 MiB", or "6148 KiB" for sizes that are not whole MiB. */
static void loader_fmt_size(char *buf, size_t n, uint64_t bytes)
{
	if (bytes % SZ_1M)
		snprintf(buf, n, "%" PRIu64 " KiB", bytes / 1024);
	else
		snprintf(buf, n, "%" PRIu64 " MiB", bytes / (uint64_t)SZ_1M);
}

/* Lowmem must hold the FDT above the kernel's reserved end. */
static int loader_check_fdt_room(const struct loader_request *req,
				 const struct loader_placement *out,
				 struct image_why *why)
{
	uint64_t room = loader_align_up(req->fdt_max, LOADER_FDT_ALIGN);
	char lowmem[32];

	if (out->kernel_reserved_end + room <= out->lowmem_end)
		return 0;
	loader_fmt_size(lowmem, sizeof(lowmem),
			out->lowmem_end - req->ram_base);
	image_why_set(why,
		      "kernel (image_size %" PRIu64 ", reserved to %#" PRIx64
		      ") leaves no room for the %" PRIu64
		      "-byte FDT in the first %s of RAM",
		      req->image_size, out->kernel_reserved_end, req->fdt_max,
		      lowmem);
	return -ENOSPC;
}

/* The initrd ends at the end of lowmem, its start aligned down. */
static int loader_place_initrd(const struct loader_request *req,
			       struct loader_placement *out,
			       struct image_why *why)
{
	uint64_t room = loader_align_up(req->fdt_max, LOADER_FDT_ALIGN);
	uint64_t avail = out->lowmem_end - out->kernel_reserved_end - room;
	char lowmem[32];

	if (req->initrd_size > avail) {
		loader_fmt_size(lowmem, sizeof(lowmem),
				out->lowmem_end - req->ram_base);
		image_why_set(
			why,
			"initrd of %" PRIu64
			" bytes does not fit in the first %s of RAM: at most %" PRIu64
			" bytes available after the kernel (reserved to %#" PRIx64
			") and the %" PRIu64 "-byte FDT",
			req->initrd_size, lowmem, avail,
			out->kernel_reserved_end, req->fdt_max);
		return -ENOSPC;
	}
	out->initrd_start = loader_align_down(
		out->lowmem_end - req->initrd_size, LOADER_INITRD_ALIGN);
	out->initrd_end = out->initrd_start + req->initrd_size;
	return 0;
}

int loader_place(const struct loader_request *req, struct loader_placement *out,
		 struct image_why *why)
{
	uint64_t lowmem, top;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = loader_check_ram(req, why);
	if (!ret)
		ret = loader_check_kernel(req, why);
	if (ret)
		return ret;

	lowmem = req->ram_size < LOADER_LOWMEM_SIZE ? req->ram_size :
						      LOADER_LOWMEM_SIZE;
	out->lowmem_end = req->ram_base + lowmem;
	out->kernel_addr = req->ram_base + req->text_offset;
	out->kernel_end = out->kernel_addr + req->image_size;
	out->kernel_reserved_end =
		loader_align_up(out->kernel_end, LOADER_KERNEL_ALIGN);
	ret = loader_check_fdt_room(req, out, why);
	if (!ret && req->initrd_size)
		ret = loader_place_initrd(req, out, why);
	if (ret)
		return ret;
	top = req->initrd_size ? out->initrd_start : out->lowmem_end;
	out->fdt_addr = loader_align_down(top - req->fdt_max, LOADER_FDT_ALIGN);
	out->fdt_max = req->fdt_max;
	return 0;
}

/* Grow *buf to hold up to max + 1 bytes, doubling. */
static int loader_grow(uint8_t **buf, size_t *cap, size_t max)
{
	size_t want = *cap > max / 2 ? max + 1 : *cap * 2;
	uint8_t *p = realloc(*buf, want);

	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = want;
	return 0;
}

/*
 * Read fd to EOF, keeping at most max bytes.  The buffer always has one
 * byte more than max allows, so reading max + 1 bytes proves the file is
 * too big and reading 0 bytes proves EOF.
 */
static int loader_read_fd(int fd, size_t max, size_t hint, uint8_t **bufp,
			  size_t *lenp, struct image_why *why)
{
	size_t cap = (hint < max ? hint : max) + 1, len = 0;
	uint8_t *buf = malloc(cap);
	ssize_t n;
	int ret = 0;

	while (buf) {
		if (len == cap && len > max) {
			image_why_set(why, "larger than the limit of %zu bytes",
				      max);
			ret = -EFBIG;
			break;
		}
		if (len == cap && loader_grow(&buf, &cap, max))
			break;
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			image_why_set(why, "read failed: %s", strerror(errno));
			break;
		}
		if (n == 0) {
			*bufp = buf;
			*lenp = len;
			return 0;
		}
		len += (size_t)n;
	}
	if (!ret) {
		image_why_set(why, "out of memory reading %zu bytes", cap);
		ret = -ENOMEM;
	}
	free(buf);
	return ret;
}

static int loader_open(const char *path, size_t max, struct stat *st,
		       struct image_why *why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0) {
		ret = -errno;
		image_why_set(why, "cannot open: %s", strerror(errno));
		return ret;
	}
	if (fstat(fd, st)) {
		ret = -errno;
		image_why_set(why, "cannot stat: %s", strerror(errno));
	} else if (S_ISDIR(st->st_mode)) {
		ret = -EISDIR;
		image_why_set(why, "is a directory");
	} else if (S_ISREG(st->st_mode) && (uint64_t)st->st_size > max) {
		ret = -EFBIG;
		image_why_set(
			why,
			"file of %lld bytes is larger than the limit of %zu bytes",
			(long long)st->st_size, max);
	} else {
		return fd;
	}
	close(fd);
	return ret;
}

int loader_read_file(const char *path, size_t max, void **buf, size_t *len,
		     struct image_why *why)
{
	struct stat st;
	size_t hint;
	uint8_t *p = NULL;
	int fd, ret;

	*buf = NULL;
	*len = 0;
	if (max > SIZE_MAX / 2)
		max = SIZE_MAX / 2;
	fd = loader_open(path, max, &st, why);
	if (fd < 0)
		return fd;
	hint = S_ISREG(st.st_mode) ? (size_t)st.st_size : LOADER_READ_CHUNK;
	ret = loader_read_fd(fd, max, hint, &p, len, why);
	close(fd);
	if (!ret)
		*buf = p;
	return ret;
}

struct loader_blobs {
	void *kernel;
	size_t kernel_len;
	void *initrd;
	size_t initrd_len;
	struct image_info info;
};

/*
 * Read and validate the kernel.  Image.gz is inflated straight into guest
 * RAM at the RAM base (the load address is only known once the header is
 * out), limited to the size of RAM; loader_copy() then moves it up.
 */
static int loader_get_kernel(const struct guest_mem *mem, const char *path,
			     struct loader_blobs *b, struct image_why *why)
{
	void *ram = guest_mem_ptr(mem, mem->base, mem->size);
	struct image_why inner;
	int ret;

	ret = loader_read_file(path, mem->size, &b->kernel, &b->kernel_len,
			       &inner);
	if (!ret)
		ret = image_load(b->kernel, b->kernel_len, ram,
				 ram ? mem->size : 0, mem->size, &b->info,
				 &inner);
	if (ret)
		image_why_set(why, "kernel %s: %s", path, inner.msg);
	return ret;
}

/*
 * A regular, uncompressed kernel file: open it and check its header (the
 * file's size and its first bytes are all the checks need) for ram_size
 * bytes of RAM.  0 with *fdp open and info filled; 1 when it is not such
 * a file (a pipe, Image.gz: the buffered load's); -errno with why set as
 * the load words it.
 */
static int loader_kernel_head(const char *path, uint64_t ram_size,
			      struct image_info *info, int *fdp,
			      struct image_why *why)
{
	uint8_t head[4096];
	struct image_why inner;
	struct stat st;
	ssize_t n;
	int fd, ret;

	/* A pipe (-k <(zcat ...)) can be read once only. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return 1;
	fd = loader_open(path,
			 ram_size < SIZE_MAX / 2 ? ram_size : SIZE_MAX / 2, &st,
			 &inner);
	if (fd < 0) {
		image_why_set(why, "kernel %s: %s", path, inner.msg);
		return fd;
	}
	n = S_ISREG(st.st_mode) ? pread(fd, head, sizeof(head), 0) : 0;
	ret = n < 0 ? -errno : 0;
	if (ret)
		image_why_set(&inner, "read failed: %s", strerror(-ret));
	else if (!S_ISREG(st.st_mode) || image_is_gzip(head, (size_t)n))
		ret = 1;
	else
		ret = image_parse_head(head, (size_t)n, (size_t)st.st_size,
				       ram_size, info, &inner);
	if (ret < 0)
		image_why_set(why, "kernel %s: %s", path, inner.msg);
	if (ret)
		close(fd);
	else
		*fdp = fd;
	return ret;
}

/* The kernel is read once, by the load. */
int loader_probe_kernel(const char *path, uint64_t ram_size,
			struct image_why *why)
{
	struct image_info info;
	int fd, ret = loader_kernel_head(path, ram_size, &info, &fd, why);

	if (!ret)
		close(fd);
	return ret > 0 ? 0 : ret;
}

/*
 * --firmware: a raw image, not parsed, run from the start of RAM (where
 * kvmtool puts firmware on arm64; it has no firmware loading on RISC-V).
 */
static int loader_get_firmware(const struct guest_mem *mem, const char *path,
			       struct loader_blobs *b, struct image_why *why)
{
	struct image_why inner;
	int ret;

	ret = loader_read_file(path, mem->size, &b->kernel, &b->kernel_len,
			       &inner);
	if (!ret && !b->kernel_len) {
		image_why_set(&inner, "file is empty");
		ret = -EINVAL;
	}
	if (ret) {
		image_why_set(why, "firmware %s: %s", path, inner.msg);
		return ret;
	}
	b->info = (struct image_info){
		.data = b->kernel,
		.len = b->kernel_len,
		.text_offset = 0,
		.image_size = b->kernel_len,
	};
	return 0;
}

/*
 * Append one initrd file to b->initrd, from a 4-byte boundary (the zeros
 * between are what Linux's initramfs unpacker skips between archives),
 * within max bytes in all.
 */
static int loader_add_initrd(const char *path, size_t max,
			     struct loader_blobs *b, struct image_why *why)
{
	size_t at = (b->initrd_len + 3) & ~(size_t)3, len;
	struct image_why inner;
	uint8_t *all;
	void *buf;
	int ret;

	ret = at <= max ? loader_read_file(path, max - at, &buf, &len, &inner) :
			  -EFBIG;
	if (ret == -EFBIG && b->initrd_len)
		image_why_set(
			&inner,
			"the initrds together are larger than the limit of %zu bytes",
			max);
	if (!ret && !len) {
		free(buf);
		image_why_set(&inner, "file is empty");
		ret = -EINVAL;
	}
	if (ret) {
		image_why_set(why, "initrd %s: %s", path, inner.msg);
		return ret;
	}
	all = b->initrd_len ? realloc(b->initrd, at + len) : buf;
	if (!all) {
		free(buf);
		image_why_set(why, "initrd %s: out of memory", path);
		return -ENOMEM;
	}
	if (b->initrd_len) {
		memset(all + b->initrd_len, 0, at - b->initrd_len);
		memcpy(all + at, buf, len);
		free(buf);
	}
	b->initrd = all;
	b->initrd_len = at + len;
	return 0;
}

static int loader_get_initrds(const struct guest_mem *mem,
			      const struct loader_files *files,
			      struct loader_blobs *b, struct image_why *why)
{
	uint64_t lowmem =
		mem->size < LOADER_LOWMEM_SIZE ? mem->size : LOADER_LOWMEM_SIZE;
	int ret = 0;

	for (unsigned int i = 0; !ret && i < files->nr_initrds; i++)
		ret = loader_add_initrd(files->initrds[i], lowmem, b, why);
	return ret;
}

/*
 * Copy the Image to its load address.  memmove: an inflated Image already
 * lies in guest RAM at the RAM base and may overlap its destination; the
 * bytes it leaves below the load address are cleared.
 */
static int loader_copy(const struct guest_mem *mem,
		       const struct loader_placement *pl,
		       const struct loader_blobs *b, struct image_why *why)
{
	const struct image_info *info = &b->info;
	uint8_t *dst = guest_mem_ptr(mem, pl->kernel_addr, info->len);
	uint64_t stale;

	if (!dst) {
		image_why_set(why, "kernel outside guest RAM");
		return -EFAULT;
	}
	memmove(dst, info->data, info->len);
	if (info->data == mem->host) {
		stale = info->text_offset < info->len ? info->text_offset :
							info->len;
		memset(mem->host, 0, stale);
	}
	if (b->initrd_len && guest_mem_write(mem, pl->initrd_start, b->initrd,
					     b->initrd_len) < 0) {
		image_why_set(why, "initrd outside guest RAM");
		return -EFAULT;
	}
	return 0;
}

/* Read len bytes of fd from offset 0 into dst. */
static int loader_pread_all(int fd, uint8_t *dst, size_t len,
			    struct image_why *why)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, dst + done, len - done, (off_t)done);
		int err = errno;

		if (n < 0 && err == EINTR)
			continue;
		if (n < 0) {
			image_why_set(why, "read failed: %s", strerror(err));
			return -err;
		}
		if (n == 0) {
			image_why_set(why,
				      "shrank to %zu bytes while it was read",
				      done);
			return -EIO;
		}
		done += (size_t)n;
	}
	return 0;
}

/*
 * The sizes of the initrds, each from a 4-byte boundary, with the errors
 * loader_add_initrd() gives; 1 when one is not a regular file.
 */
static int loader_size_initrds(const struct guest_mem *mem,
			       const struct loader_files *files, size_t *sizes,
			       size_t *total, struct image_why *why)
{
	uint64_t lowmem =
		mem->size < LOADER_LOWMEM_SIZE ? mem->size : LOADER_LOWMEM_SIZE;
	struct image_why inner;
	struct stat st;

	*total = 0;
	if (files->nr_initrds > CONFIG_MAX_INITRDS)
		return 1;
	for (unsigned int i = 0; i < files->nr_initrds; i++) {
		const char *path = files->initrds[i];
		size_t at = (*total + 3) & ~(size_t)3;
		int fd = -EFBIG;

		if (!stat(path, &st) && !S_ISREG(st.st_mode))
			return 1;
		if (at <= lowmem)
			fd = loader_open(path, lowmem - at, &st, &inner);
		if (fd == -EFBIG && *total)
			image_why_set(
				&inner,
				"the initrds together are larger than the limit of %zu bytes",
				(size_t)lowmem);
		if (fd >= 0 && !S_ISREG(st.st_mode)) {
			close(fd);
			return 1;
		}
		if (fd >= 0)
			close(fd);
		if (fd >= 0 && !st.st_size) {
			image_why_set(&inner, "file is empty");
			fd = -EINVAL;
		}
		if (fd < 0) {
			image_why_set(why, "initrd %s: %s", path, inner.msg);
			return fd;
		}
		sizes[i] = (size_t)st.st_size;
		*total = at + sizes[i];
	}
	return 0;
}

/*
 * Read the initrds of the sizes loader_size_initrds() found into guest
 * RAM from start; one that changed size since fails the load.
 */
static int loader_read_initrds(const struct guest_mem *mem,
			       const struct loader_files *files,
			       const size_t *sizes, uint64_t start,
			       struct image_why *why)
{
	struct image_why inner;
	size_t end = 0;
	struct stat st;
	int ret = 0;

	for (unsigned int i = 0; !ret && i < files->nr_initrds; i++) {
		const char *path = files->initrds[i];
		size_t at = (end + 3) & ~(size_t)3;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		uint8_t *dst =
			guest_mem_ptr(mem, start + end, at - end + sizes[i]);

		ret = fd < 0 || fstat(fd, &st) ? -errno : 0;
		if (ret)
			image_why_set(&inner, "cannot open: %s",
				      strerror(-ret));
		else if ((size_t)st.st_size != sizes[i] || !dst) {
			image_why_set(
				&inner,
				"changed size while it was loaded (%zu bytes, then %lld)",
				sizes[i], (long long)st.st_size);
			ret = -EIO;
		}
		if (!ret) {
			memset(dst, 0, at - end);
			ret = loader_pread_all(fd, dst + (at - end), sizes[i],
					       &inner);
		}
		if (fd >= 0)
			close(fd);
		if (ret)
			image_why_set(why, "initrd %s: %s", path, inner.msg);
		end = at + sizes[i];
	}
	return ret;
}

/*
 * A regular, uncompressed kernel and regular initrds are read once,
 * straight into guest RAM where they go: their sizes come from fstat and
 * the Image header, so they are placed before they are read (no buffer,
 * no copy of megabytes before the first guest instruction).  1: not so
 * here (Image.gz, a pipe): the caller reads them into buffers.
 */
static int loader_load_direct(const struct guest_mem *mem,
			      const struct loader_files *files,
			      struct loader_placement *out,
			      struct image_why *why)
{
	struct image_why inner;
	struct image_info info;
	struct loader_request req;
	size_t initrd_len, sizes[CONFIG_MAX_INITRDS];
	uint8_t *dst;
	int fd, ret;

	if (files->firmware)
		return 1;
	ret = loader_kernel_head(files->kernel, mem->size, &info, &fd, why);
	if (ret)
		return ret;
	ret = loader_size_initrds(mem, files, sizes, &initrd_len, why);
	if (!ret) {
		req = (struct loader_request){
			.ram_base = mem->base,
			.ram_size = mem->size,
			.text_offset = info.text_offset,
			.image_size = info.image_size,
			.initrd_size = initrd_len,
			.fdt_max = files->fdt_max,
		};
		ret = loader_place(&req, out, why);
	}
	if (!ret) {
		dst = guest_mem_ptr(mem, out->kernel_addr, info.len);
		ret = dst ? loader_pread_all(fd, dst, info.len, &inner) :
			    -EFAULT;
		if (ret)
			image_why_set(why, "kernel %s: %s", files->kernel,
				      dst ? inner.msg :
					    "kernel outside guest RAM");
	}
	close(fd);
	if (!ret && initrd_len)
		ret = loader_read_initrds(mem, files, sizes, out->initrd_start,
					  why);
	return ret;
}

int loader_load(const struct guest_mem *mem, const struct loader_files *files,
		struct loader_placement *out, struct image_why *why)
{
	struct loader_blobs b = { 0 };
	struct loader_request req;
	int ret = loader_load_direct(mem, files, out, why);

	if (ret <= 0)
		return ret;
	if (files->firmware)
		ret = loader_get_firmware(mem, files->firmware, &b, why);
	else
		ret = loader_get_kernel(mem, files->kernel, &b, why);
	if (!ret)
		ret = loader_get_initrds(mem, files, &b, why);
	if (!ret) {
		req = (struct loader_request){
			.ram_base = mem->base,
			.ram_size = mem->size,
			.text_offset = b.info.text_offset,
			.image_size = b.info.image_size,
			.initrd_size = b.initrd_len,
			.fdt_max = files->fdt_max,
		};
		ret = loader_place(&req, out, why);
	}
	if (!ret)
		ret = loader_copy(mem, out, &b, why);
	free(b.kernel);
	free(b.initrd);
	return ret;
}
