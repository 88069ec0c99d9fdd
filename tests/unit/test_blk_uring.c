// SPDX-License-Identifier: GPL-2.0
/*
 * virtio-blk's asynchronous engines at their interface (submit, eventfd,
 * reap), against real files: the io_uring engine, and the choice of the
 * thread pool when io_uring cannot be set up.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "virtio/blk.h"
#include "lib/log.h"

#define FILE_SIZE (1024 * 1024)

struct fix {
	char dir[64], path[96];
	struct virtio_blk_file bf;
	struct virtio_blk_disk disk;
	struct virtio_blk_aio a;
	bool up;
};

static uint8_t pattern(uint64_t off)
{
	return off % 251;
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	uint8_t *buf = malloc(FILE_SIZE);
	int fd;

	log_level = -1;
	if (!f || !buf)
		return -1;
	strcpy(f->dir, "/tmp/rvkvm-uring-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/img", f->dir);
	for (size_t i = 0; i < FILE_SIZE; i++)
		buf[i] = pattern(i);
	fd = open(f->path, O_CREAT | O_WRONLY, 0600);
	if (fd < 0 || write(fd, buf, FILE_SIZE) != FILE_SIZE)
		return -1;
	close(fd);
	free(buf);
	if (virtio_blk_file_open(&f->bf, f->path, false, false))
		return -1;
	virtio_blk_file_disk(&f->bf, "t", &f->disk);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	if (f->up)
		virtio_blk_aio_destroy(&f->a);
	virtio_blk_file_close(&f->bf);
	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* The io_uring engine, or the test is skipped where the kernel has none. */
static void uring_up(struct fix *f)
{
	int ret = virtio_blk_uring_init(&f->a, &f->disk,
					VIRTIO_BLK_URING_ENTRIES);

	if (ret == -ENOSYS || ret == -EPERM)
		skip();
	assert_int_equal(ret, 0);
	f->up = true;
	assert_non_null(strstr(f->a.name, "io_uring"));
}

/* Hand over what was submitted (the owner does so after each pass). */
static void commit(struct fix *f)
{
	if (f->a.ops->commit)
		f->a.ops->commit(&f->a);
}

static void submit(struct fix *f, struct virtio_blk_io *io)
{
	f->a.ops->submit(&f->a, io);
	commit(f);
}

/* Wait (up to 5 s) until the n calls in ios have all been reaped. */
static void reap_n(struct fix *f, struct virtio_blk_io **got, unsigned int n)
{
	unsigned int have = 0;

	for (int t = 0; t < 500 && have < n; t++) {
		struct pollfd pfd = { .fd = f->a.efd, .events = POLLIN };
		struct virtio_blk_io *io;
		uint64_t v;

		/* As the owner does: reap after a commit, then on efd. */
		for (io = f->a.ops->reap(&f->a); io; io = io->next) {
			assert_true(have < n);
			got[have++] = io;
		}
		if (have < n && poll(&pfd, 1, 10) > 0)
			assert_int_equal(read(f->a.efd, &v, sizeof(v)),
					 sizeof(v));
	}
	assert_int_equal(have, n);
}

static struct virtio_blk_io *reap_one(struct fix *f)
{
	struct virtio_blk_io *io;

	reap_n(f, &io, 1);
	return io;
}

static void rw_io(struct virtio_blk_io *io, bool write, uint64_t off, void *buf,
		  const size_t *lens, int n)
{
	memset(io, 0, sizeof(*io));
	io->op = write ? VIRTIO_BLK_OP_WRITE : VIRTIO_BLK_OP_READ;
	io->off = off;
	io->iovcnt = n;
	for (int i = 0; i < n; i++) {
		io->iov[i] =
			(struct iovec){ .iov_base = buf, .iov_len = lens[i] };
		io->len += lens[i];
		buf = (uint8_t *)buf + lens[i] + 3; /* gaps: separate buffers */
	}
}

static void file_bytes(struct fix *f, uint64_t off, void *buf, size_t len)
{
	int fd = open(f->path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, len, off), len);
	close(fd);
}

/* Scattered guest buffers out to the file and back. */
static void test_round_trip(void **state)
{
	struct fix *f = *state;
	static const size_t lens[3] = { 100, 1500, 448 };
	uint8_t out[2100], in[2100], back[2048];
	struct virtio_blk_io io;

	uring_up(f);
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = i * 7 + 1;
	rw_io(&io, true, 8192, out, lens, 3);
	submit(f, &io);
	assert_ptr_equal(reap_one(f), &io);
	assert_int_equal(io.res, 0);
	file_bytes(f, 8192, back, 2048);
	assert_memory_equal(back, out, 100);
	assert_memory_equal(back + 100, out + 103, 1500);
	assert_memory_equal(back + 1600, out + 1606, 448);
	memset(in, 0, sizeof(in));
	rw_io(&io, false, 8192, in, lens, 3);
	submit(f, &io);
	assert_ptr_equal(reap_one(f), &io);
	assert_int_equal(io.res, 0);
	assert_memory_equal(in + 103, out + 103, 1500);
	assert_memory_equal(in + 1606, out + 1606, 448);
}

/* VIRTIO_BLK_DEPTH reads at once, each finished with its own data. */
static void test_depth(void **state)
{
	struct fix *f = *state;
	static struct virtio_blk_io ios[VIRTIO_BLK_DEPTH];
	struct virtio_blk_io *got[VIRTIO_BLK_DEPTH];
	static uint8_t bufs[VIRTIO_BLK_DEPTH][4096];
	const size_t len = 4096;

	uring_up(f);
	for (int i = 0; i < VIRTIO_BLK_DEPTH; i++) {
		rw_io(&ios[i], false, (uint64_t)i * 12288, bufs[i], &len, 1);
		f->a.ops->submit(&f->a, &ios[i]);
	}
	/* One pass: nothing reaches the kernel before the commit. */
	struct pollfd pfd = { .fd = f->a.efd, .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 50), 0);
	commit(f);
	reap_n(f, got, VIRTIO_BLK_DEPTH);
	for (int i = 0; i < VIRTIO_BLK_DEPTH; i++) {
		assert_int_equal(ios[i].res, 0);
		for (int j = 0; j < 4096; j += 511)
			assert_int_equal(bufs[i][j], pattern(i * 12288 + j));
	}
}

/* Writes, then a flush (and write-through writes with their fsync). */
static void test_flush(void **state)
{
	struct fix *f = *state;
	static uint8_t buf[3][4096 + 3];
	struct virtio_blk_io ios[3], fl = { .op = VIRTIO_BLK_OP_FLUSH };
	struct virtio_blk_io *got[3];
	const size_t len = 4096;
	uint8_t back[4096];

	uring_up(f);
	for (int i = 0; i < 3; i++) {
		memset(buf[i], 0x60 + i, sizeof(buf[i]));
		rw_io(&ios[i], true, 65536 * (i + 1), buf[i], &len, 1);
		ios[i].flush_after = i == 2;
		submit(f, &ios[i]);
	}
	reap_n(f, got, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ios[i].res, 0);
		assert_false(ios[i].flush_failed);
	}
	submit(f, &fl);
	assert_ptr_equal(reap_one(f), &fl);
	assert_int_equal(fl.res, 0);
	assert_false(fl.flush_failed);
	file_bytes(f, 65536 * 3, back, sizeof(back));
	assert_int_equal(back[0], 0x62);
	assert_int_equal(back[4095], 0x62);
}

/* A read across the end of the file: the short part is an error. */
static void test_short_read_at_eof(void **state)
{
	struct fix *f = *state;
	static uint8_t buf[8192];
	const size_t len = 8192;
	struct virtio_blk_io io;

	uring_up(f);
	rw_io(&io, false, FILE_SIZE - 4096, buf, &len, 1);
	submit(f, &io);
	assert_ptr_equal(reap_one(f), &io);
	assert_int_equal(io.res, -EIO);
	/* what was there was read before the end came */
	assert_int_equal(buf[0], pattern(FILE_SIZE - 4096));
	assert_int_equal(buf[4095], pattern(FILE_SIZE - 1));
}

/* A disk whose "file" is a pipe: reads come short, fsync fails. */
struct pipe_disk {
	int fds[2];
};

static ssize_t pipe_readv(void *o, const struct iovec *iov, int n, uint64_t off)
{
	return -EIO; /* never called: the engine reads the fd itself */
}

static int pipe_flush(void *o)
{
	return -EIO;
}

static int pipe_fd(void *o, const struct virtio_blk_io *io)
{
	return ((struct pipe_disk *)o)->fds[0];
}

static const struct virtio_blk_disk_ops pipe_ops = {
	.readv = pipe_readv,
	.flush = pipe_flush,
	.fd = pipe_fd,
};

static void *pipe_feed(void *arg)
{
	struct pipe_disk *p = arg;
	uint8_t b[300];

	memset(b, 0x77, sizeof(b));
	usleep(20000);
	if (write(p->fds[1], b, 212) != 212)
		return arg;
	return NULL;
}

/* A short read is resubmitted for the rest: a pipe hands 300, then 212. */
static void test_short_read_resubmitted(void **state)
{
	struct fix *f = *state;
	struct pipe_disk p;
	struct virtio_blk_disk d = { .ops = &pipe_ops,
				     .opaque = &p,
				     .size = 1 << 20,
				     .read_only = true };
	static const size_t lens[2] = { 256, 256 };
	static uint8_t buf[600], first[300];
	struct virtio_blk_io io;
	pthread_t t;

	assert_int_equal(pipe(p.fds), 0);
	memset(first, 0x55, sizeof(first));
	assert_int_equal(write(p.fds[1], first, 300), 300);
	f->disk = d;
	uring_up(f);
	rw_io(&io, false, 0, buf, lens, 2);
	io.off = (uint64_t)-1; /* a pipe has no offset: "current position" */
	assert_int_equal(pthread_create(&t, NULL, pipe_feed, &p), 0);
	submit(f, &io);
	assert_ptr_equal(reap_one(f), &io);
	pthread_join(t, NULL);
	assert_int_equal(io.res, 0);
	assert_int_equal(io.moved, 512);
	assert_int_equal(buf[0], 0x55);
	assert_int_equal(buf[255], 0x55);
	assert_int_equal(buf[259 + 43], 0x55); /* byte 299 */
	assert_int_equal(buf[259 + 44], 0x77); /* byte 300 */
	assert_int_equal(buf[259 + 255], 0x77);
	close(p.fds[0]);
	close(p.fds[1]);
}

/* fsync on a pipe fails: the flush says so, for blk.c to latch. */
static void test_flush_fails(void **state)
{
	struct fix *f = *state;
	struct pipe_disk p;
	struct virtio_blk_disk d = { .ops = &pipe_ops,
				     .opaque = &p,
				     .size = 1 << 20,
				     .read_only = true };
	struct virtio_blk_io fl = { .op = VIRTIO_BLK_OP_FLUSH };

	assert_int_equal(pipe(p.fds), 0);
	f->disk = d;
	uring_up(f);
	submit(f, &fl);
	assert_ptr_equal(reap_one(f), &fl);
	assert_int_equal(fl.res, -EINVAL);
	assert_true(fl.flush_failed);
	close(p.fds[0]);
	close(p.fds[1]);
}

/* Discard and write-zeroes run through the backend, reported the same. */
static void test_backend_ops(void **state)
{
	struct fix *f = *state;
	struct virtio_blk_io io = { .op = VIRTIO_BLK_OP_WRITE_ZEROES,
				    .off = 4096,
				    .len = 4096 };
	uint8_t back[4096], zero[4096] = { 0 };

	uring_up(f);
	submit(f, &io);
	assert_ptr_equal(reap_one(f), &io);
	assert_int_equal(io.res, 0);
	file_bytes(f, 4096, back, sizeof(back));
	assert_memory_equal(back, zero, sizeof(zero));
}

/* Destroy with calls in flight waits for them (ASan sees no late write). */
static void test_destroy_in_flight(void **state)
{
	struct fix *f = *state;
	static struct virtio_blk_io ios[8];
	uint8_t *buf = malloc(8 * 65536);
	const size_t len = 65536;

	assert_non_null(buf);
	uring_up(f);
	for (int i = 0; i < 8; i++) {
		rw_io(&ios[i], false, i * len, buf + i * len, &len, 1);
		submit(f, &ios[i]);
	}
	virtio_blk_aio_destroy(&f->a);
	f->up = false;
	free(buf);
}

/* The choice: io_uring where it can be set up, else the thread pool. */
static void test_choice(void **state)
{
	struct fix *f = *state;
	const size_t len = 512;
	uint8_t buf[512];
	struct virtio_blk_io io;
	int ret;

	ret = virtio_blk_uring_init(&f->a, &f->disk, VIRTIO_BLK_URING_ENTRIES);
	if (!ret)
		virtio_blk_aio_destroy(&f->a);
	assert_int_equal(virtio_blk_aio_init(&f->a, &f->disk, 2,
					     VIRTIO_BLK_URING_ENTRIES),
			 0);
	assert_non_null(strstr(f->a.name, ret ? "thread pool" : "io_uring"));
	virtio_blk_aio_destroy(&f->a);
	/* io_uring_queue_init refuses 0 entries: the pool takes over */
	assert_int_equal(virtio_blk_aio_init(&f->a, &f->disk, 2, 0), 0);
	f->up = true;
	assert_non_null(strstr(f->a.name, "thread pool, 2 threads"));
	assert_non_null(strstr(f->a.name, "(io_uring: Invalid argument)"));
	rw_io(&io, false, 1024, buf, &len, 1);
	submit(f, &io);
	assert_ptr_equal(reap_one(f), &io);
	assert_int_equal(io.res, 0);
	assert_int_equal(buf[511], pattern(1024 + 511));
}

/* A disk without a file descriptor always gets the pool. */
static void test_choice_no_fd(void **state)
{
	struct fix *f = *state;
	struct pipe_disk p = { { -1, -1 } };
	struct virtio_blk_disk d = { .ops = &pipe_ops, .opaque = &p };
	struct virtio_blk_disk_ops ops = pipe_ops;

	ops.fd = NULL;
	d.ops = &ops;
	assert_int_equal(virtio_blk_uring_init(&f->a, &d, 64), -EOPNOTSUPP);
	assert_int_equal(f->a.efd, -1);
	assert_int_equal(virtio_blk_aio_init(&f->a, &d, 1, 64), 0);
	assert_non_null(strstr(f->a.name, "thread pool"));
	virtio_blk_aio_destroy(&f->a);
}

/* A file on tmpfs is known to live in memory; the fixture's follows /tmp. */
static void test_in_memory_detected(void **state)
{
	struct fix *f = *state;
	char path[] = "/dev/shm/rvkvm-uring-XXXXXX";
	struct virtio_blk_file bf;
	struct virtio_blk_disk d;
	struct statfs sfs;
	int fd = mkstemp(path);

	if (fd < 0)
		skip(); /* no /dev/shm here */
	assert_int_equal(ftruncate(fd, 65536), 0);
	close(fd);
	assert_int_equal(virtio_blk_file_open(&bf, path, true, false), 0);
	virtio_blk_file_disk(&bf, "m", &d);
	assert_true(d.in_memory);
	virtio_blk_file_close(&bf);
	unlink(path);
	assert_int_equal(statfs(f->dir, &sfs), 0);
	assert_int_equal(f->disk.in_memory, sfs.f_type == TMPFS_MAGIC ||
						    sfs.f_type == RAMFS_MAGIC);
}

/*
 * On a disk in memory, a read alone on the ring that the owner lets run
 * inline is served inside submit (reaped before any commit); the next
 * one of the same pass goes to the ring.  Otherwise nothing finishes
 * before the commit.
 */
static void test_alone_in_memory(void **state)
{
	struct fix *f = *state;
	static uint8_t b0[4096], b1[4096], want[4096];
	struct virtio_blk_io io0, io1;
	const size_t len = 4096;

	f->disk.in_memory = true;
	uring_up(f);
	rw_io(&io0, false, 4096, b0, &len, 1);
	rw_io(&io1, false, 16384, b1, &len, 1);
	io0.inline_ok = io1.inline_ok = true;
	f->a.ops->submit(&f->a, &io0);
	/* Finished inside submit: no eventfd write, none to read. */
	struct pollfd pfd = { .fd = f->a.efd, .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_false(f->a.ops->signalled(&f->a));
	f->a.ops->submit(&f->a, &io1);
	assert_ptr_equal(f->a.ops->reap(&f->a), &io0);
	assert_int_equal(io0.res, 0);
	file_bytes(f, 4096, want, sizeof(want));
	assert_memory_equal(b0, want, sizeof(want));
	commit(f);
	/* The ring's completion: the kernel signals, signalled() says so. */
	assert_int_equal(poll(&pfd, 1, 5000), 1);
	assert_true(f->a.ops->signalled(&f->a));
	assert_ptr_equal(reap_one(f), &io1);
	assert_int_equal(io1.res, 0);
	file_bytes(f, 16384, want, sizeof(want));
	assert_memory_equal(b1, want, sizeof(want));

	/* Not when the owner busy-polls, nor for a disk on a device. */
	for (int i = 0; i < 2; i++) {
		f->disk.in_memory = i;
		rw_io(&io0, false, 4096, b0, &len, 1);
		io0.inline_ok = !i;
		f->a.ops->submit(&f->a, &io0);
		assert_null(f->a.ops->reap(&f->a));
		commit(f);
		assert_ptr_equal(reap_one(f), &io0);
	}
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_round_trip),
		T(test_depth),
		T(test_flush),
		T(test_short_read_at_eof),
		T(test_short_read_resubmitted),
		T(test_flush_fails),
		T(test_backend_ops),
		T(test_destroy_in_flight),
		T(test_choice),
		T(test_choice_no_fd),
		T(test_in_memory_detected),
		T(test_alone_in_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
