// SPDX-License-Identifier: GPL-2.0
/* virtio-blk file and block-device backend; see blk.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "virtio/blk.h"
#include "lib/log.h"

#define BLK_FILE_IOV_MAX VIRTQ_CHAIN_MAX_SEGS
/* What the format probe reads: one block, at least any sector size. */
#define BLK_FILE_PROBE 4096

/*
 * preadv/pwritev over iov until len bytes moved, end of file (reads) or an
 * error; short transfers continue where they stopped.  Returns the bytes
 * moved or -errno.
 */
static ssize_t blk_file_rw(int fd, bool write, const struct iovec *iov,
			   int iovcnt, uint64_t offset)
{
	struct iovec v[BLK_FILE_IOV_MAX];
	size_t done = 0;
	int i = 0;
	ssize_t n;

	if (iovcnt > BLK_FILE_IOV_MAX)
		return -EINVAL;
	memcpy(v, iov, iovcnt * sizeof(*iov));
	while (i < iovcnt) {
		n = write ? pwritev(fd, v + i, iovcnt - i, offset + done) :
			    preadv(fd, v + i, iovcnt - i, offset + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return write ? -EIO : (ssize_t)done; /* image shrank */
		done += n;
		for (; i < iovcnt && (size_t)n >= v[i].iov_len; i++)
			n -= v[i].iov_len;
		if (i < iovcnt) {
			v[i].iov_base = (uint8_t *)v[i].iov_base + n;
			v[i].iov_len -= n;
		}
	}
	return done;
}

/* O_DIRECT needs 512-aligned buffer addresses and lengths. */
static bool blk_file_aligned(const struct iovec *iov, int iovcnt)
{
	for (int i = 0; i < iovcnt; i++)
		if (((uintptr_t)iov[i].iov_base | iov[i].iov_len) %
		    VIRTIO_BLK_SECTOR)
			return false;
	return true;
}

static size_t blk_file_iov_len(const struct iovec *iov, int iovcnt)
{
	size_t len = 0;

	for (int i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	return len;
}

/* O_DIRECT with unaligned guest buffers: through an aligned bounce. */
static ssize_t blk_file_bounce(struct virtio_blk_file *f, bool write,
			       const struct iovec *iov, int iovcnt,
			       uint64_t offset)
{
	size_t len = blk_file_iov_len(iov, iovcnt), pos = 0;
	struct iovec b = { .iov_len = len };
	ssize_t n;

	b.iov_base =
		aligned_alloc(VIRTIO_BLK_BOUNCE_ALIGN,
			      (len + VIRTIO_BLK_BOUNCE_ALIGN - 1) &
				      ~(size_t)(VIRTIO_BLK_BOUNCE_ALIGN - 1));
	if (!b.iov_base)
		return -ENOMEM;
	for (int i = 0; write && i < iovcnt; pos += iov[i++].iov_len)
		memcpy((uint8_t *)b.iov_base + pos, iov[i].iov_base,
		       iov[i].iov_len);
	n = blk_file_rw(f->fd, write, &b, 1, offset);
	for (int i = 0; !write && n > 0 && i < iovcnt; pos += iov[i++].iov_len)
		memcpy(iov[i].iov_base, (uint8_t *)b.iov_base + pos,
		       iov[i].iov_len);
	free(b.iov_base);
	return n;
}

static ssize_t blk_file_io(struct virtio_blk_file *f, bool write,
			   const struct iovec *iov, int iovcnt, uint64_t offset)
{
	if (f->direct && !blk_file_aligned(iov, iovcnt))
		return blk_file_bounce(f, write, iov, iovcnt, offset);
	return blk_file_rw(f->fd, write, iov, iovcnt, offset);
}

static ssize_t blk_file_readv(void *opaque, const struct iovec *iov, int iovcnt,
			      uint64_t offset)
{
	return blk_file_io(opaque, false, iov, iovcnt, offset);
}

static ssize_t blk_file_writev(void *opaque, const struct iovec *iov,
			       int iovcnt, uint64_t offset)
{
	return blk_file_io(opaque, true, iov, iovcnt, offset);
}

/*
 * Test only: LKVM_TEST_SKIP_FLUSH=1 completes every flush without syncing
 * the image, on both I/O engines, so that tests/e2e/lkvm-durable.sh can be
 * seen to fail when the flush is missing.  Never set it otherwise.
 */
static bool blk_file_skip_flush(void)
{
	const char *s = getenv("LKVM_TEST_SKIP_FLUSH");

	return s && !strcmp(s, "1");
}

static int blk_file_flush(void *opaque)
{
	struct virtio_blk_file *f = opaque;

	if (blk_file_skip_flush())
		return 0;
	return fdatasync(f->fd) ? -errno : 0;
}

static bool blk_file_unsupported(int err)
{
	return err == EOPNOTSUPP || err == ENOSYS;
}

static int blk_file_fallocate(struct virtio_blk_file *f, int mode,
			      uint64_t offset, uint64_t len)
{
	int ret;

	do {
		ret = fallocate(f->fd, mode, offset, len);
	} while (ret && errno == EINTR);
	return ret ? -errno : 0;
}

static int blk_file_discard(void *opaque, uint64_t offset, uint64_t len)
{
	struct virtio_blk_file *f = opaque;
	int ret;

	if (f->no_punch_hole)
		return 0;
	ret = blk_file_fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				 offset, len);
	if (ret && blk_file_unsupported(-ret)) {
		pr_debug("virtio-blk: no hole punching: discard is a no-op");
		f->no_punch_hole = true;
		return 0;
	}
	return ret;
}

static int blk_file_write_zeroes(void *opaque, uint64_t offset, uint64_t len)
{
	struct virtio_blk_file *f = opaque;
	ssize_t ret;
	size_t n;

	if (!f->no_zero_range) {
		ret = blk_file_fallocate(
			f, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, offset,
			len);
		if (!ret || !blk_file_unsupported(-ret))
			return ret;
		pr_debug("virtio-blk: no ZERO_RANGE: writing zeroes");
		f->no_zero_range = true;
	}
	for (uint64_t done = 0; done < len; done += n) {
		struct iovec z = { .iov_base = f->zeroes };

		n = len - done < VIRTIO_BLK_ZEROES ? len - done :
						     VIRTIO_BLK_ZEROES;
		z.iov_len = n;
		ret = blk_file_rw(f->fd, true, &z, 1, offset + done);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Reads, writes and flushes are plain calls on fd, unless they bounce. */
static int blk_file_fd(void *opaque, const struct virtio_blk_io *io)
{
	struct virtio_blk_file *f = opaque;

	switch (io->op) {
	case VIRTIO_BLK_OP_READ:
	case VIRTIO_BLK_OP_WRITE:
		if (f->direct && !blk_file_aligned(io->iov, io->iovcnt))
			return -1;
		return f->fd;
	case VIRTIO_BLK_OP_FLUSH:
		return blk_file_skip_flush() ? -1 : f->fd;
	default:
		return -1;
	}
}

const struct virtio_blk_disk_ops virtio_blk_file_ops = {
	.readv = blk_file_readv,
	.writev = blk_file_writev,
	.flush = blk_file_flush,
	.discard = blk_file_discard,
	.write_zeroes = blk_file_write_zeroes,
	.fd = blk_file_fd,
};

static int blk_file_err(const char *path, const char *what, int err)
{
	pr_err("%s: %s disk image: %s", path, what, strerror(-err));
	return err;
}

/* Shared lock for readers, exclusive for a writer; -EBUSY on conflict. */
static int blk_file_lock(struct virtio_blk_file *f, const char *path)
{
	struct flock fl = {
		.l_type = f->read_only ? F_RDLCK : F_WRLCK,
		.l_whence = SEEK_SET,
	};

	if (!fcntl(f->fd, F_OFD_SETLK, &fl))
		return 0;
	if (errno == EAGAIN || errno == EACCES) {
		pr_err("%s: disk image is in use by another process or disk",
		       path);
		return -EBUSY;
	}
	return blk_file_err(path, "cannot lock", -errno);
}

/* A file whose pages live in memory only: tmpfs, ramfs, hugetlbfs. */
static bool blk_file_in_memory(int fd)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs))
		return false;
	return sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC ||
	       sfs.f_type == HUGETLBFS_MAGIC;
}

static int blk_file_size(struct virtio_blk_file *f, const char *path)
{
	struct stat st;

	if (fstat(f->fd, &st))
		return blk_file_err(path, "cannot stat", -errno);
	if (S_ISREG(st.st_mode)) {
		f->size = st.st_size;
		f->in_memory = blk_file_in_memory(f->fd);
		return 0;
	}
	if (!S_ISBLK(st.st_mode)) {
		pr_err("%s: not a regular file or block device", path);
		return -EINVAL;
	}
	f->is_blkdev = true;
	if (ioctl(f->fd, BLKGETSIZE64, &f->size))
		return blk_file_err(path, "cannot get the size", -errno);
	return 0;
}

/* Open flags; a writable block device is claimed with O_EXCL. */
static int blk_file_flags(const char *path, bool read_only, bool direct)
{
	int flags = O_CLOEXEC | O_NONBLOCK | (read_only ? O_RDONLY : O_RDWR);
	struct stat st;

	if (direct)
		flags |= O_DIRECT;
	if (!read_only && !stat(path, &st) && S_ISBLK(st.st_mode))
		flags |= O_EXCL;
	return flags;
}

/*
 * Image formats whose header lkvm knows but does not serve: given as a
 * raw disk, the guest would see the header and its writes would corrupt
 * the image.
 */
static const struct {
	const char *name;
	const char *magic;
	size_t len;
} blk_file_formats[] = {
	{ "qcow", "QFI\xfb", 4 }, /* qcow and qcow2 */
	{ "QED", "QED\0", 4 },
	{ "VMDK", "KDMV", 4 },
	{ "VHDX", "vhdxfile", 8 },
};

/* Name of the image format whose magic starts buf, or NULL for raw. */
const char *virtio_blk_file_format(const void *buf, size_t len)
{
	for (size_t i = 0;
	     i < sizeof(blk_file_formats) / sizeof(blk_file_formats[0]); i++)
		if (len >= blk_file_formats[i].len &&
		    !memcmp(buf, blk_file_formats[i].magic,
			    blk_file_formats[i].len))
			return blk_file_formats[i].name;
	return NULL;
}

/*
 * Refuse an image in a format lkvm does not serve.  The first block is
 * read with an aligned buffer, as O_DIRECT asks; a read that fails here
 * is left for the guest's first request to meet.
 */
static int blk_file_probe(struct virtio_blk_file *f, const char *path)
{
	void *buf = aligned_alloc(VIRTIO_BLK_BOUNCE_ALIGN, BLK_FILE_PROBE);
	const char *format = NULL;
	ssize_t n;

	if (!buf)
		return blk_file_err(path, "cannot allocate", -ENOMEM);
	n = pread(f->fd, buf, BLK_FILE_PROBE, 0);
	if (n > 0)
		format = virtio_blk_file_format(buf, n);
	free(buf);
	if (!format)
		return 0;
	/*
	 * The header may be the guest's own, written into a raw disk, with a
	 * backing file of its choosing that a bare conversion would copy in.
	 */
	pr_err("%s: starts like a %s image, and lkvm reads no image format from a disk's contents: if it was a raw disk, its guest may have written that header (',raw' serves it as it is); if it is a %s image, look for a backing file with 'qemu-img info', then ',format=' with its format has qemu-storage-daemon serve it",
	       path, format, format);
	return -EMEDIUMTYPE;
}

/* Size, lock, blocking mode and the zero buffer of a freshly opened f. */
static int blk_file_setup(struct virtio_blk_file *f, const char *path)
{
	int ret, fl;

	ret = blk_file_size(f, path);
	if (!ret)
		ret = blk_file_lock(f, path);
	if (ret)
		return ret;
	fl = fcntl(f->fd, F_GETFL);
	if (fl < 0 || fcntl(f->fd, F_SETFL, fl & ~O_NONBLOCK))
		return blk_file_err(path, "cannot set flags", -errno);
	if (f->read_only)
		return 0;
	f->zeroes = aligned_alloc(VIRTIO_BLK_BOUNCE_ALIGN, VIRTIO_BLK_ZEROES);
	if (!f->zeroes)
		return blk_file_err(path, "cannot allocate", -ENOMEM);
	memset(f->zeroes, 0, VIRTIO_BLK_ZEROES);
	return 0;
}

static int blk_file_open(struct virtio_blk_file *f, const char *path,
			 bool read_only, bool direct, bool any_format)
{
	int ret;

	memset(f, 0, sizeof(*f));
	f->read_only = read_only;
	f->direct = direct;
	/* O_NONBLOCK: a FIFO given by mistake must not hang the open. */
	f->fd = open(path, blk_file_flags(path, read_only, direct));
	if (f->fd < 0)
		return blk_file_err(
			path, direct ? "cannot open (O_DIRECT)" : "cannot open",
			-errno);
	ret = blk_file_setup(f, path);
	if (!ret && !any_format)
		ret = blk_file_probe(f, path);
	if (ret)
		virtio_blk_file_close(f);
	return ret;
}

int virtio_blk_file_open(struct virtio_blk_file *f, const char *path,
			 bool read_only, bool direct)
{
	return blk_file_open(f, path, read_only, direct, false);
}

int virtio_blk_file_open_raw(struct virtio_blk_file *f, const char *path,
			     bool read_only, bool direct)
{
	return blk_file_open(f, path, read_only, direct, true);
}

void virtio_blk_file_close(struct virtio_blk_file *f)
{
	if (f->fd >= 0)
		close(f->fd); /* drops the OFD lock */
	f->fd = -1;
	free(f->zeroes);
	f->zeroes = NULL;
}

void virtio_blk_file_disk(struct virtio_blk_file *f, const char *id,
			  struct virtio_blk_disk *disk)
{
	memset(disk, 0, sizeof(*disk));
	disk->ops = &virtio_blk_file_ops;
	disk->opaque = f;
	disk->size = f->size;
	disk->read_only = f->read_only;
	disk->in_memory = f->in_memory;
	virtio_blk_disk_set_id(disk, id);
}
