// SPDX-License-Identifier: GPL-2.0
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "virtio/blk.h"
#include "virtio/mmio.h"
#include "lib/log.h"
#include "tests/unit/virtq_mock.h"
#include "slot_res.h"

#define RAM_SIZE (4 * 1024 * 1024)
#define NUM 64
#define SECTOR 512
#define DISK_SECTORS 300
#define BUF_SIZE (64 * 1024)
#define DISK_TAIL 100 /* a trailing partial sector, never visible */
#define DISK_SIZE (DISK_SECTORS * SECTOR + DISK_TAIL)
#define UNTOUCHED 0xee
#define MINUTE (60ULL * 1000000000)

#define ACK VIRTIO_STATUS_ACKNOWLEDGE
#define DRV VIRTIO_STATUS_DRIVER
#define FOK VIRTIO_STATUS_FEATURES_OK
#define DOK VIRTIO_STATUS_DRIVER_OK
#define V1 VIRTIO_BIT(VIRTIO_F_VERSION_1)
#define INDIRECT VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC)
#define F_FLUSH VIRTIO_BIT(VIRTIO_BLK_F_FLUSH)
#define F_MQ VIRTIO_BIT(VIRTIO_BLK_F_MQ)

enum mdisk_fail {
	FAIL_NONE,
	FAIL_READ,
	FAIL_SHORT_READ,
	FAIL_WRITE,
	FAIL_SHORT_WRITE,
	FAIL_FLUSH,
	FAIL_DISCARD,
	FAIL_WZ,
};

/* The in-memory disk: records calls, checks the device's promises. */
struct mdisk {
	uint8_t *data;
	uint64_t size;
	/* atomic: an engine's workers call in from several threads */
	_Atomic unsigned int reads, writes, flushes, discards, wzs;
	_Atomic unsigned int writes_since_flush, writes_done;
	_Atomic unsigned int done_at_flush; /* writes_done when flush ran */
	unsigned int delay_us;		    /* each write takes this long */
	uint64_t off, len; /* of the last discard / write-zeroes */
	enum mdisk_fail fail;
};

struct fix {
	struct vqm m;
	struct mdisk d;
	uint8_t *snap; /* disk contents at setup */
	struct virtio_blk blk;
	int level;
	unsigned int edges;
	char dir[64]; /* for the file backend tests */
};

/* --- the in-memory disk -------------------------------------------------- */

static size_t mdisk_check(const struct mdisk *d, const struct iovec *iov,
			  int iovcnt, uint64_t off)
{
	size_t len = 0;

	assert_true(iovcnt > 0 && iovcnt <= VIRTQ_CHAIN_MAX_SEGS);
	for (int i = 0; i < iovcnt; i++) {
		assert_true(iov[i].iov_len > 0);
		len += iov[i].iov_len;
	}
	assert_int_equal(off % SECTOR, 0);
	assert_int_equal(len % SECTOR, 0);
	assert_true(len > 0 && len <= VIRTIO_BLK_REQ_MAX);
	assert_true(off <= d->size && len <= d->size - off);
	return len;
}

static ssize_t mdisk_readv(void *opaque, const struct iovec *iov, int iovcnt,
			   uint64_t off)
{
	struct mdisk *d = opaque;
	size_t len = mdisk_check(d, iov, iovcnt, off);

	d->reads++;
	if (d->fail == FAIL_READ)
		return -EIO;
	for (int i = 0; i < iovcnt; off += iov[i++].iov_len)
		memcpy(iov[i].iov_base, d->data + off, iov[i].iov_len);
	return d->fail == FAIL_SHORT_READ ? (ssize_t)len - 1 : (ssize_t)len;
}

static ssize_t mdisk_writev(void *opaque, const struct iovec *iov, int iovcnt,
			    uint64_t off)
{
	struct mdisk *d = opaque;
	size_t len = mdisk_check(d, iov, iovcnt, off);

	d->writes++;
	d->writes_since_flush++;
	if (d->fail == FAIL_WRITE)
		return -ENOSPC;
	for (int i = 0; i < iovcnt; off += iov[i++].iov_len)
		memcpy(d->data + off, iov[i].iov_base, iov[i].iov_len);
	if (d->delay_us)
		usleep(d->delay_us);
	d->writes_done++;
	return d->fail == FAIL_SHORT_WRITE ? 0 : (ssize_t)len;
}

static int mdisk_flush(void *opaque)
{
	struct mdisk *d = opaque;

	d->flushes++;
	d->writes_since_flush = 0;
	d->done_at_flush = d->writes_done;
	return d->fail == FAIL_FLUSH ? -EIO : 0;
}

static int mdisk_discard(void *opaque, uint64_t off, uint64_t len)
{
	struct mdisk *d = opaque;

	assert_true(off <= d->size && len <= d->size - off && len > 0);
	d->discards++;
	d->off = off;
	d->len = len;
	return d->fail == FAIL_DISCARD ? -EIO : 0;
}

static int mdisk_write_zeroes(void *opaque, uint64_t off, uint64_t len)
{
	struct mdisk *d = opaque;

	assert_true(off <= d->size && len <= d->size - off && len > 0);
	d->wzs++;
	d->off = off;
	d->len = len;
	if (d->fail == FAIL_WZ)
		return -EIO;
	memset(d->data + off, 0, len);
	return 0;
}

static const struct virtio_blk_disk_ops mdisk_ops = {
	.readv = mdisk_readv,
	.writev = mdisk_writev,
	.flush = mdisk_flush,
	.discard = mdisk_discard,
	.write_zeroes = mdisk_write_zeroes,
};

static const struct virtio_blk_disk_ops mdisk_ops_basic = {
	.readv = mdisk_readv,
	.writev = mdisk_writev,
	.flush = mdisk_flush,
};

/* --- fixtures ------------------------------------------------------------ */

static void fix_irq_set(void *opaque, int level)
{
	struct fix *f = opaque;

	f->level = level;
	f->edges++;
}

static int fix_setup_nq(void **state, bool ro,
			const struct virtio_blk_disk_ops *ops, unsigned int nq)
{
	struct fix *f = calloc(1, sizeof(*f));
	const struct irq_line irq = { .set = fix_irq_set, .opaque = f };
	struct virtio_blk_disk disk = { .ops = ops, .read_only = ro };

	log_level = -1;
	if (!f)
		return -1;
	vqm_init(&f->m, RAM_SIZE, NUM);
	f->d.size = DISK_SIZE;
	f->d.data = malloc(DISK_SIZE);
	f->snap = malloc(DISK_SIZE);
	if (!f->d.data || !f->snap)
		return -1;
	for (unsigned int i = 0; i < DISK_SIZE; i++)
		f->d.data[i] = i * 7 + 3 + i / SECTOR;
	memcpy(f->snap, f->d.data, DISK_SIZE);
	disk.opaque = &f->d;
	disk.size = DISK_SIZE;
	virtio_blk_disk_set_id(&disk, "rvkvm-test-disk");
	if (virtio_blk_init_mq(&f->blk, &SLOT_RES(1), &f->m.mem, &irq, &disk,
			       nq))
		return -1;
	*state = f;
	return 0;
}

static int fix_setup(void **state, bool ro,
		     const struct virtio_blk_disk_ops *ops)
{
	return fix_setup_nq(state, ro, ops, 1);
}

static int setup_mq(void **state)
{
	return fix_setup_nq(state, false, &mdisk_ops, 3);
}

static int setup(void **state)
{
	return fix_setup(state, false, &mdisk_ops);
}

static int setup_ro(void **state)
{
	return fix_setup(state, true, &mdisk_ops);
}

static int setup_basic(void **state)
{
	return fix_setup(state, false, &mdisk_ops_basic);
}

static int teardown(void **state)
{
	struct fix *f = *state;

	virtio_blk_destroy(&f->blk);
	vqm_free(&f->m);
	free(f->d.data);
	free(f->snap);
	free(f);
	return 0;
}

/* --- the driver's side --------------------------------------------------- */

static uint32_t rd_n(struct fix *f, uint64_t off, unsigned int len)
{
	return vqm_mmio_rd_n(&f->blk.vm, off, len);
}

static uint32_t rd(struct fix *f, uint64_t off)
{
	return vqm_mmio_rd(&f->blk.vm, off);
}

static void wr(struct fix *f, uint64_t off, uint32_t v)
{
	vqm_mmio_wr(&f->blk.vm, off, v);
}

static uint32_t cfg32(struct fix *f, uint32_t off)
{
	return rd(f, VIRTIO_MMIO_CONFIG + off);
}

/* §3.1.1 and queue 0 on the mock's rings. */
static void driver_up(struct fix *f, uint64_t features)
{
	struct virtio_mmio *vm = &f->blk.vm;

	assert_int_equal(vqm_mmio_negotiate(vm, features), ACK | DRV | FOK);
	assert_int_equal(vqm_mmio_queue(vm, 0, &f->m), 1);
	assert_int_equal(vqm_mmio_driver_ok(vm), ACK | DRV | FOK | DOK);
}

static uint8_t *P(struct fix *f, struct vqm_buf b)
{
	return vqm_ptr(&f->m, b.gpa, b.len ? b.len : 1);
}

/* A readable buffer holding len bytes of p. */
static struct vqm_buf ro_buf(struct fix *f, const void *p, uint32_t len)
{
	struct vqm_buf b = vqm_buf_new(&f->m, len, false, 0);

	memcpy(P(f, b), p, len);
	return b;
}

static struct vqm_buf hdr_buf(struct fix *f, uint32_t type, uint64_t sector)
{
	uint8_t h[VIRTIO_BLK_REQ_HDR_SIZE];

	mmio_data_put(h, 4, type);
	mmio_data_put(h + 4, 4, 0);
	mmio_data_put(h + 8, 8, sector);
	return ro_buf(f, h, sizeof(h));
}

static struct vqm_buf seg_buf(struct fix *f, uint64_t sector, uint32_t num,
			      uint32_t flags)
{
	uint8_t s[VIRTIO_BLK_DWZ_SEG_SIZE];

	mmio_data_put(s, 8, sector);
	mmio_data_put(s + 8, 4, num);
	mmio_data_put(s + 12, 4, flags);
	return ro_buf(f, s, sizeof(s));
}

static struct vqm_buf wbuf(struct fix *f, uint32_t len)
{
	return vqm_buf_new(&f->m, len, true, UNTOUCHED);
}

/* Add a chain, notify, take its used entry; returns the used length. */
static uint32_t run(struct fix *f, const struct vqm_buf *bufs, unsigned int n)
{
	uint16_t head = vqm_add(&f->m, bufs, n);
	uint32_t id = 0, len = 0;

	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(id, head);
	assert_false(vqm_get_used(&f->m, &id, &len));
	return len;
}

/*
 * header, data buffers, a 1-byte status buffer; returns the status byte
 * and the used length in *len.
 */
static uint8_t req(struct fix *f, uint32_t type, uint64_t sector,
		   const struct vqm_buf *data, unsigned int nd, uint32_t *len)
{
	struct vqm_buf b[12];

	assert_true(nd + 2 <= 12);
	b[0] = hdr_buf(f, type, sector);
	for (unsigned int i = 0; i < nd; i++)
		b[1 + i] = data[i];
	b[nd + 1] = wbuf(f, 1);
	*len = run(f, b, nd + 2);
	return *P(f, b[nd + 1]);
}

/* A request without data; checks used len 1. */
static uint8_t req0(struct fix *f, uint32_t type, uint64_t sector)
{
	uint32_t len;
	uint8_t st = req(f, type, sector, NULL, 0, &len);

	assert_int_equal(len, 1);
	return st;
}

static uint8_t req_dwz(struct fix *f, uint32_t type, uint64_t sector,
		       uint32_t num, uint32_t flags)
{
	struct vqm_buf s = seg_buf(f, sector, num, flags);
	uint32_t len;
	uint8_t st = req(f, type, 0, &s, 1, &len);

	assert_int_equal(len, 1);
	return st;
}

static void assert_disk_unchanged(struct fix *f)
{
	assert_memory_equal(f->d.data, f->snap, DISK_SIZE);
}

/* --- identity and configuration ------------------------------------------ */

static void test_identity(void **state)
{
	struct fix *f = *state;

	assert_int_equal(rd(f, VIRTIO_MMIO_DEVICE_ID), 2);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_NUM_MAX), 256);
	assert_int_equal(rd(f, VIRTIO_MMIO_DEVICE_FEATURES),
			 (1u << 1) | (1u << 2) | (1u << 6) | (1u << 9) |
				 (1u << 12) | (1u << 13) | (1u << 14) |
				 (1u << 28) | (1u << 29));
	wr(f, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 1);
	assert_int_equal(rd(f, VIRTIO_MMIO_DEVICE_FEATURES), 1);
	assert_int_equal(f->blk.vm.res.base, 0x10002000);
	assert_int_equal(f->blk.vm.res.irq, 2);
}

static void test_config_space(void **state)
{
	struct fix *f = *state;

	/* capacity: 300 whole sectors, the 100-byte tail is not visible */
	assert_int_equal(cfg32(f, 0), DISK_SECTORS);
	assert_int_equal(cfg32(f, 4), 0);
	assert_int_equal(cfg32(f, 8), 65536); /* size_max */
	assert_int_equal(cfg32(f, 12), 254);  /* seg_max */
	assert_int_equal(cfg32(f, 16), 0);    /* geometry */
	assert_int_equal(cfg32(f, 20), 512);  /* blk_size */
	assert_int_equal(cfg32(f, 24), 0);    /* topology */
	assert_int_equal(cfg32(f, 28), 0);
	assert_int_equal(cfg32(f, 32), 1u << 16); /* num_queues 1 */
	assert_int_equal(cfg32(f, 36), 1u << 22); /* max_discard_sectors */
	assert_int_equal(cfg32(f, 40), 1);	  /* max_discard_seg */
	assert_int_equal(cfg32(f, 44), 8);	  /* discard_sector_alignment */
	assert_int_equal(cfg32(f, 48), 1u << 16); /* max_write_zeroes_sectors */
	assert_int_equal(cfg32(f, 52), 1);	  /* max_write_zeroes_seg */
	assert_int_equal(cfg32(f, 56), 0);	  /* may_unmap, unused1 */
	assert_int_equal(cfg32(f, 60), 0);	  /* past the end */
	/* byte and half-word access to the same fields */
	assert_int_equal(rd_n(f, VIRTIO_MMIO_CONFIG + 0, 1),
			 DISK_SECTORS & 0xff);
	assert_int_equal(rd_n(f, VIRTIO_MMIO_CONFIG + 1, 1), DISK_SECTORS >> 8);
	assert_int_equal(rd_n(f, VIRTIO_MMIO_CONFIG + 20, 2), 512);
	assert_int_equal(rd_n(f, VIRTIO_MMIO_CONFIG + 59, 1), 0);
	/* the config space is read-only */
	wr(f, VIRTIO_MMIO_CONFIG + 0, 1);
	assert_int_equal(cfg32(f, 0), DISK_SECTORS);
}

static void test_config_ro_and_basic(void **state)
{
	struct fix *f = *state;
	uint32_t features = rd(f, VIRTIO_MMIO_DEVICE_FEATURES);

	if (f->blk.disk.read_only) {
		assert_int_equal(features & (1u << VIRTIO_BLK_F_RO),
				 1u << VIRTIO_BLK_F_RO);
		return;
	}
	/* without discard / write-zeroes ops: no features, fields zero */
	assert_int_equal(features, (1u << 1) | (1u << 2) | (1u << 6) |
					   (1u << 9) | (1u << 12) | (1u << 28) |
					   (1u << 29));
	for (uint32_t off = 36; off < 60; off += 4)
		assert_int_equal(cfg32(f, off), 0);
	driver_up(f, V1 | F_FLUSH);
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_DISCARD, 0, 1, 0),
			 VIRTIO_BLK_S_UNSUPP);
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_WRITE_ZEROES, 0, 1, 0),
			 VIRTIO_BLK_S_UNSUPP);
	assert_disk_unchanged(f);
}

/* --- reads and writes ---------------------------------------------------- */

static void test_out_in_round_trip(void **state)
{
	struct fix *f = *state;
	uint8_t pat[2 * SECTOR];
	struct vqm_buf data, in;
	uint32_t len;

	for (unsigned int i = 0; i < sizeof(pat); i++)
		pat[i] = 0xa0 ^ i ^ (i >> 8);
	driver_up(f, V1 | F_FLUSH);
	data = ro_buf(f, pat, sizeof(pat));
	assert_int_equal(req(f, VIRTIO_BLK_T_OUT, 3, &data, 1, &len),
			 VIRTIO_BLK_S_OK);
	assert_int_equal(len, 1);
	assert_int_equal(f->d.writes, 1);
	assert_int_equal(f->d.flushes, 0); /* FLUSH negotiated: write-back */
	/* exactly sectors 3 and 4 changed */
	assert_memory_equal(f->d.data + 3 * SECTOR, pat, sizeof(pat));
	assert_memory_equal(f->d.data, f->snap, 3 * SECTOR);
	assert_memory_equal(f->d.data + 5 * SECTOR, f->snap + 5 * SECTOR,
			    DISK_SIZE - 5 * SECTOR);

	in = wbuf(f, sizeof(pat));
	assert_int_equal(req(f, VIRTIO_BLK_T_IN, 3, &in, 1, &len),
			 VIRTIO_BLK_S_OK);
	assert_int_equal(len, sizeof(pat) + 1);
	assert_memory_equal(P(f, in), pat, sizeof(pat));
	/* an untouched sector reads back the original bytes */
	in = wbuf(f, SECTOR);
	assert_int_equal(req(f, VIRTIO_BLK_T_IN, 7, &in, 1, &len),
			 VIRTIO_BLK_S_OK);
	assert_memory_equal(P(f, in), f->snap + 7 * SECTOR, SECTOR);
	assert_int_equal(rd(f, VIRTIO_MMIO_INTERRUPT_STATUS), 1);
	assert_int_equal(f->level, 1);
}

/* Header, data and status split across odd segment boundaries. */
static void test_multi_segment(void **state)
{
	struct fix *f = *state;
	uint8_t h[VIRTIO_BLK_REQ_HDR_SIZE], pat[3 * SECTOR];
	struct vqm_buf b[6];
	uint8_t *p;

	for (unsigned int i = 0; i < sizeof(pat); i++)
		pat[i] = i * 13 + 1;
	driver_up(f, V1 | F_FLUSH);
	mmio_data_put(h, 4, VIRTIO_BLK_T_OUT);
	mmio_data_put(h + 4, 4, 0);
	mmio_data_put(h + 8, 8, 10);
	b[0] = ro_buf(f, h, 5);
	b[1] = ro_buf(f, h + 5, 11);
	b[2] = ro_buf(f, pat, 100);
	b[3] = ro_buf(f, pat + 100, 1000);
	b[4] = ro_buf(f, pat + 1100, sizeof(pat) - 1100);
	b[5] = wbuf(f, 1);
	assert_int_equal(run(f, b, 6), 1);
	assert_int_equal(*P(f, b[5]), VIRTIO_BLK_S_OK);
	assert_memory_equal(f->d.data + 10 * SECTOR, pat, sizeof(pat));

	/* IN: data and status share the last writable buffer */
	mmio_data_put(h, 4, VIRTIO_BLK_T_IN);
	b[0] = ro_buf(f, h, sizeof(h));
	b[1] = wbuf(f, 7);
	b[2] = wbuf(f, 3 * SECTOR - 7 + 1);
	assert_int_equal(run(f, b, 3), 3 * SECTOR + 1);
	assert_memory_equal(P(f, b[1]), pat, 7);
	p = P(f, b[2]);
	assert_memory_equal(p, pat + 7, 3 * SECTOR - 7);
	assert_int_equal(p[3 * SECTOR - 7], VIRTIO_BLK_S_OK);
}

/* Many segments through an indirect table. */
static void test_large_indirect(void **state)
{
	struct fix *f = *state;
	const uint32_t total = 160 * SECTOR, nseg = 40;
	struct vqm_buf b[42];
	uint32_t id, len, off = 0;

	driver_up(f, V1 | F_FLUSH | INDIRECT);
	b[0] = hdr_buf(f, VIRTIO_BLK_T_IN, 100);
	for (uint32_t i = 0; i < nseg; i++)
		b[1 + i] = wbuf(f, total / nseg);
	b[nseg + 1] = wbuf(f, 1);
	vqm_add_indirect(&f->m, b, nseg + 2);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(len, total + 1);
	assert_int_equal(*P(f, b[nseg + 1]), VIRTIO_BLK_S_OK);
	for (uint32_t i = 0; i < nseg; off += b[1 + i].len, i++)
		assert_memory_equal(P(f, b[1 + i]),
				    f->snap + 100 * SECTOR + off, b[1 + i].len);
	assert_int_equal(f->d.reads, 1); /* one readv over the 40 buffers */
}

static void test_several_chains_one_notify(void **state)
{
	struct fix *f = *state;
	struct vqm_buf a[3], b[2];
	uint32_t id, len;
	uint16_t ha, hb;

	driver_up(f, V1 | F_FLUSH);
	a[0] = hdr_buf(f, VIRTIO_BLK_T_IN, 1);
	a[1] = wbuf(f, SECTOR);
	a[2] = wbuf(f, 1);
	b[0] = hdr_buf(f, VIRTIO_BLK_T_FLUSH, 0);
	b[1] = wbuf(f, 1);
	ha = vqm_add(&f->m, a, 3);
	hb = vqm_add(&f->m, b, 2);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(id, ha);
	assert_int_equal(len, SECTOR + 1);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(id, hb);
	assert_int_equal(len, 1);
	assert_false(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(f->edges, 1);
	assert_int_equal(f->d.flushes, 1);
}

static void test_zero_length_io(void **state)
{
	struct fix *f = *state;

	driver_up(f, V1 | F_FLUSH);
	assert_int_equal(req0(f, VIRTIO_BLK_T_IN, 5), VIRTIO_BLK_S_OK);
	assert_int_equal(req0(f, VIRTIO_BLK_T_OUT, DISK_SECTORS),
			 VIRTIO_BLK_S_OK);
	assert_int_equal(req0(f, VIRTIO_BLK_T_IN, DISK_SECTORS + 1),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(f->d.reads + f->d.writes, 0);
}

/* --- bounds -------------------------------------------------------------- */

static void test_end_of_disk(void **state)
{
	struct fix *f = *state;
	struct vqm_buf in1 = wbuf(f, SECTOR), in2 = wbuf(f, 2 * SECTOR);
	struct vqm_buf out1 = vqm_buf_new(&f->m, SECTOR, false, 0x55);
	uint32_t len;

	driver_up(f, V1 | F_FLUSH);
	/* the last sector: OK */
	assert_int_equal(
		req(f, VIRTIO_BLK_T_IN, DISK_SECTORS - 1, &in1, 1, &len),
		VIRTIO_BLK_S_OK);
	assert_memory_equal(P(f, in1), f->snap + (DISK_SECTORS - 1) * SECTOR,
			    SECTOR);
	assert_int_equal(
		req(f, VIRTIO_BLK_T_OUT, DISK_SECTORS - 1, &out1, 1, &len),
		VIRTIO_BLK_S_OK);
	assert_int_equal(f->d.data[(DISK_SECTORS - 1) * SECTOR], 0x55);
	memcpy(f->snap, f->d.data, DISK_SIZE);
	f->d.reads = f->d.writes = 0;

	/* one sector past the end: IOERR, nothing transferred */
	assert_int_equal(
		req(f, VIRTIO_BLK_T_IN, DISK_SECTORS - 1, &in2, 1, &len),
		VIRTIO_BLK_S_IOERR);
	assert_int_equal(len, 1);
	assert_int_equal(P(f, in2)[0], UNTOUCHED);
	/* the partial tail sector is not part of the disk */
	assert_int_equal(req(f, VIRTIO_BLK_T_IN, DISK_SECTORS, &in1, 1, &len),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(req(f, VIRTIO_BLK_T_OUT, DISK_SECTORS, &out1, 1, &len),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(
		req(f, VIRTIO_BLK_T_OUT, DISK_SECTORS + 100, &out1, 1, &len),
		VIRTIO_BLK_S_IOERR);
	assert_int_equal(f->d.reads + f->d.writes, 0);
	assert_disk_unchanged(f);
}

static void test_sector_overflow(void **state)
{
	struct fix *f = *state;
	struct vqm_buf in = wbuf(f, 2 * SECTOR);
	struct vqm_buf out = vqm_buf_new(&f->m, SECTOR, false, 0x77);
	const uint64_t wrap = UINT64_MAX / SECTOR + 1; /* * 512 wraps to 0 */
	uint32_t len;

	driver_up(f, V1 | F_FLUSH);
	assert_int_equal(req(f, VIRTIO_BLK_T_IN, wrap, &in, 1, &len),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(
		req(f, VIRTIO_BLK_T_IN, UINT64_MAX / SECTOR, &in, 1, &len),
		VIRTIO_BLK_S_IOERR);
	assert_int_equal(req(f, VIRTIO_BLK_T_IN, UINT64_MAX, &in, 1, &len),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(req(f, VIRTIO_BLK_T_OUT, wrap, &out, 1, &len),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(req(f, VIRTIO_BLK_T_OUT, 1ULL << 55, &out, 1, &len),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_DISCARD, wrap, 1, 0),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(
		req_dwz(f, VIRTIO_BLK_T_WRITE_ZEROES, UINT64_MAX, 1, 0),
		VIRTIO_BLK_S_IOERR);
	assert_int_equal(P(f, in)[0], UNTOUCHED);
	assert_int_equal(f->d.reads + f->d.writes + f->d.discards + f->d.wzs,
			 0);
	assert_disk_unchanged(f);
}

static void test_partial_sector_length(void **state)
{
	struct fix *f = *state;
	struct vqm_buf in = wbuf(f, SECTOR + 1);
	struct vqm_buf out = vqm_buf_new(&f->m, 100, false, 0x77);
	uint32_t len;

	driver_up(f, V1 | F_FLUSH);
	assert_int_equal(req(f, VIRTIO_BLK_T_IN, 0, &in, 1, &len),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(len, 1);
	assert_int_equal(P(f, in)[0], UNTOUCHED);
	assert_int_equal(req(f, VIRTIO_BLK_T_OUT, 0, &out, 1, &len),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(f->d.reads + f->d.writes, 0);
	assert_disk_unchanged(f);
}

/* --- flush, get id, discard, write zeroes -------------------------------- */

static void test_flush(void **state)
{
	struct fix *f = *state;

	driver_up(f, V1 | F_FLUSH);
	assert_int_equal(req0(f, VIRTIO_BLK_T_FLUSH, 0), VIRTIO_BLK_S_OK);
	assert_int_equal(f->d.flushes, 1);
	/* the sector field is ignored for a flush */
	assert_int_equal(req0(f, VIRTIO_BLK_T_FLUSH, UINT64_MAX),
			 VIRTIO_BLK_S_OK);
	assert_int_equal(f->d.flushes, 2);
	f->d.fail = FAIL_FLUSH;
	assert_int_equal(req0(f, VIRTIO_BLK_T_FLUSH, 0), VIRTIO_BLK_S_IOERR);
	assert_int_equal(f->d.flushes, 3);
}

/* A failed flush is remembered: later flushes fail until a reset. */
static void test_flush_error_latched(void **state)
{
	struct fix *f = *state;

	driver_up(f, V1 | F_FLUSH);
	f->d.fail = FAIL_FLUSH;
	assert_int_equal(req0(f, VIRTIO_BLK_T_FLUSH, 0), VIRTIO_BLK_S_IOERR);
	f->d.fail = FAIL_NONE;
	assert_int_equal(req0(f, VIRTIO_BLK_T_FLUSH, 0), VIRTIO_BLK_S_IOERR);
	assert_int_equal(f->d.flushes, 1); /* not even tried again */
	wr(f, VIRTIO_MMIO_STATUS, 0);
	vqm_free(&f->m);
	vqm_init(&f->m, RAM_SIZE, NUM);
	driver_up(f, V1 | F_FLUSH);
	assert_int_equal(req0(f, VIRTIO_BLK_T_FLUSH, 0), VIRTIO_BLK_S_OK);
	assert_int_equal(f->d.flushes, 2);
}

/* More data than size_max * seg_max: IOERR, the backend never called. */
static void test_size_cap(void **state)
{
	struct fix *f = *state;
	const uint32_t seg = 1536 * 1024; /* 11 of them: 16.5 MiB > 15.9 */
	struct vqm_buf d = wbuf(f, seg), b[13];
	uint32_t len;

	assert_true(11ULL * seg > VIRTIO_BLK_REQ_MAX);
	driver_up(f, V1 | F_FLUSH);
	b[0] = hdr_buf(f, VIRTIO_BLK_T_IN, 0);
	for (int i = 1; i <= 11; i++)
		b[i] = d; /* the same guest memory eleven times */
	b[12] = wbuf(f, 1);
	len = run(f, b, 13);
	assert_int_equal(*P(f, b[12]), VIRTIO_BLK_S_IOERR);
	assert_int_equal(len, 1);
	assert_int_equal(f->d.reads, 0);
}

static unsigned int rearms;

static void count_rearm(void *opaque)
{
	(void)opaque;
	rearms++;
}

/* One pass takes at most the budget, asks to come back, loses nothing. */
static void test_budget(void **state)
{
	struct fix *f = *state;
	const unsigned int n = VIRTIO_BLK_BUDGET_CHAINS + 8;
	uint32_t id, len, got = 0;

	rearms = 0;
	f->blk.rearm = count_rearm;
	driver_up(f, V1 | F_FLUSH | INDIRECT);
	for (unsigned int i = 0; i < n; i++) {
		struct vqm_buf b[3] = { hdr_buf(f, VIRTIO_BLK_T_IN, i),
					wbuf(f, SECTOR), wbuf(f, 1) };

		vqm_add_indirect(&f->m, b, 3); /* one descriptor each */
	}
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	while (vqm_get_used(&f->m, &id, &len))
		got++;
	assert_int_equal(got, VIRTIO_BLK_BUDGET_CHAINS);
	assert_int_equal(rearms, 1);
	virtio_blk_poll(&f->blk); /* what the rearm leads to */
	while (vqm_get_used(&f->m, &id, &len))
		got++;
	assert_int_equal(got, n);
	assert_int_equal(f->d.reads, n);
}

/* A read of sector 0 added to the ring, without a notification. */
static uint16_t add_read(struct fix *f)
{
	struct vqm_buf b[3] = { hdr_buf(f, VIRTIO_BLK_T_IN, 0), wbuf(f, SECTOR),
				wbuf(f, 1) };

	return vqm_add(&f->m, b, 3);
}

/*
 * Busy polling: after a notification the device takes new chains without
 * one, keeps avail_event behind meanwhile (the driver stays quiet), and
 * at the end publishes it and looks once more.
 */
static void test_busy_poll(void **state)
{
	struct fix *f = *state;
	struct virtqueue *vq = &f->blk.vm.core.queues[0];
	uint32_t id, len;
	uint16_t head;

	driver_up(f, V1 | F_FLUSH | VIRTIO_BIT(VIRTIO_F_EVENT_IDX));
	/* Off (the default): nothing is taken without a notification. */
	add_read(f);
	assert_int_equal(virtio_blk_busy_poll(&f->blk), -1);
	assert_false(vqm_get_used(&f->m, &id, &len));
	virtio_blk_set_poll(&f->blk, MINUTE, false);
	f->blk.poll_ns = MINUTE; /* as if grown: no window ends by itself */
	add_read(f); /* two chains in one pass: a guest with several out */
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(vqm_avail_event(&f->m), 2);
	/* Within the window: chains are taken without notifications. */
	for (unsigned int i = 0; i < 3; i++) {
		head = add_read(f);
		assert_int_equal(virtio_blk_busy_poll(&f->blk), 0);
		assert_true(vqm_get_used(&f->m, &id, &len));
		assert_int_equal(id, head);
		assert_int_equal(len, SECTOR + 1);
		assert_true(vq->polling);
	}
	/* avail_event stayed behind: the driver saw no need to notify. */
	assert_int_equal(vqm_avail_event(&f->m), 2);
	assert_int_equal(vq->last_avail_idx, 5);
	assert_int_equal(virtio_blk_busy_poll(&f->blk),
			 0); /* idle, still polling */
	/*
	 * The window ends: avail_event published, the last look made.  Two
	 * chains in one look (more than one out): go on.
	 */
	f->blk.poll_ns = 1;
	add_read(f);
	add_read(f);
	assert_int_equal(virtio_blk_busy_poll(&f->blk), 0);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_true(vqm_get_used(&f->m, &id, &len));
	usleep(1000);
	assert_int_equal(virtio_blk_busy_poll(&f->blk), -1);
	assert_false(vq->polling);
	assert_int_equal(vqm_avail_event(&f->m), 7);
	assert_int_equal(virtio_blk_busy_poll(&f->blk), -1);
	assert_int_equal(f->d.reads, 7);
	/* A reset ends polling. */
	f->blk.poll_ns = MINUTE;
	add_read(f);
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(virtio_blk_busy_poll(&f->blk), 0);
	assert_true(vq->polling);
	wr(f, VIRTIO_MMIO_STATUS, 0);
	assert_false(vq->polling);
	assert_false(f->blk.polling);
	assert_int_equal(virtio_blk_busy_poll(&f->blk), -1);
}

/* Without EVENT_IDX the driver notifies anyway: no window opens. */
static void test_busy_poll_needs_event_idx(void **state)
{
	struct fix *f = *state;
	uint32_t id, len;

	driver_up(f, V1 | F_FLUSH);
	virtio_blk_set_poll(&f->blk, MINUTE, false);
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(virtio_blk_busy_poll(&f->blk), -1);
	assert_false(f->blk.vm.core.queues[0].polling);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Asked for (--io-poll), the window starts at the minimum, doubles when
 * the driver notifies soon after a window ended empty, up to the maximum,
 * and halves when it notifies later than that.
 */
static void test_busy_poll_adapts(void **state)
{
	struct fix *f = *state;
	/* "soon" is within max: 16 ms, slack for a loaded test machine */
	const uint64_t max = 1024 * VIRTIO_BLK_POLL_MIN_NS;
	uint32_t id, len;

	driver_up(f, V1 | F_FLUSH | VIRTIO_BIT(VIRTIO_F_EVENT_IDX));
	virtio_blk_set_poll(&f->blk, max, true);
	assert_int_equal(f->blk.poll_ns, VIRTIO_BLK_POLL_MIN_NS);
	for (unsigned int i = 1; i <= 5; i++) {
		f->blk.poll_stopped = now_ns(); /* a window just ended */
		add_read(f);
		add_read(f);
		wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
		assert_true(vqm_get_used(&f->m, &id, &len));
		assert_int_equal(f->blk.poll_ns, VIRTIO_BLK_POLL_MIN_NS << i);
		assert_int_equal(f->blk.poll_stopped, 0);
	}
	/* Not beyond the maximum. */
	f->blk.poll_ns = max;
	f->blk.poll_stopped = now_ns();
	add_read(f);
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->blk.poll_ns, max);
	f->blk.poll_stopped = now_ns() - 2 * max; /* a long pause */
	add_read(f);
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->blk.poll_ns, max / 2);
	/* Never below the minimum. */
	f->blk.poll_ns = VIRTIO_BLK_POLL_MIN_NS;
	f->blk.poll_stopped = now_ns() - 2 * max;
	add_read(f);
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->blk.poll_ns, VIRTIO_BLK_POLL_MIN_NS);
	/* Each notification opened a window: it ends empty, and is noted. */
	while (virtio_blk_busy_poll(&f->blk) >= 0)
		;
	assert_true(f->blk.poll_stopped != 0);
	assert_false(f->blk.vm.core.queues[0].polling);
	assert_int_equal(f->d.reads, 16);
}

/*
 * By default a guest that shows depth opens an episode: its notifications
 * open windows, even with one request, that adapt as --io-poll's do (the
 * first the minimum, doubled after a notification soon after a window
 * ended, halved after a long pause); past the episode, a lone request's
 * notification opens none.
 */
static void test_busy_poll_deep_windows_adapt(void **state)
{
	struct fix *f = *state;
	const uint64_t max = 1024 * VIRTIO_BLK_POLL_MIN_NS;
	uint32_t id, len;

	driver_up(f, V1 | F_FLUSH | VIRTIO_BIT(VIRTIO_F_EVENT_IDX));
	virtio_blk_set_poll(&f->blk, max, false);
	assert_int_equal(f->blk.poll_ns, VIRTIO_BLK_POLL_MIN_NS);
	add_read(f);
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(f->blk.poll_ns, VIRTIO_BLK_POLL_MIN_NS);
	assert_true(f->blk.poll_until != 0);
	assert_true(f->blk.deep_until > now_ns());
	assert_true(f->blk.deep_until <= now_ns() + VIRTIO_BLK_POLL_EPISODE_NS);
	f->blk.deep_until = now_ns() + 10000000000ULL; /* the test's pace */
	f->blk.poll_stopped = now_ns();		       /* a window just ended */
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->blk.poll_ns, 2 * VIRTIO_BLK_POLL_MIN_NS);
	assert_int_equal(f->blk.poll_stopped, 0);
	f->blk.poll_stopped = now_ns() - 2 * max; /* a long pause */
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->blk.poll_ns, VIRTIO_BLK_POLL_MIN_NS);
	while (virtio_blk_busy_poll(&f->blk) >= 0)
		;
	assert_false(f->blk.vm.core.queues[0].polling);
	/* The episode over: a lone request's notification opens no window. */
	f->blk.deep_until = now_ns() - 1;
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->blk.poll_until, 0);
	assert_int_equal(f->d.reads, 5);
}

/*
 * In an episode each new request extends the window even alone (polled,
 * a deep guest's requests come one per pass); past it, a lone request no
 * longer does; a reset ends it.
 */
static void test_busy_poll_deep_episode(void **state)
{
	struct fix *f = *state;
	uint64_t until;

	driver_up(f, V1 | F_FLUSH | VIRTIO_BIT(VIRTIO_F_EVENT_IDX));
	/* 50 ms windows: the next call comes within one on slow boards. */
	virtio_blk_set_poll(&f->blk, 50000000, false);
	f->blk.poll_ns = 50000000;
	add_read(f);
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_true(f->blk.poll_until != 0);
	f->blk.deep_until = now_ns() + 10000000000ULL; /* the test's pace */
	for (unsigned int i = 0; i < 3; i++) {
		until = f->blk.poll_until;
		usleep(1000);
		add_read(f);
		assert_int_equal(virtio_blk_busy_poll(&f->blk), 0);
		assert_true(f->blk.poll_until > until);
		assert_true(f->blk.vm.core.queues[0].polling);
	}
	assert_int_equal(f->d.reads, 5);
	f->blk.deep_until = now_ns() - 1;
	until = f->blk.poll_until;
	usleep(1000);
	add_read(f);
	virtio_blk_busy_poll(&f->blk);
	/* Not moved later (0 if a slow board let the window end first). */
	assert_true(f->blk.poll_until <= until);
	assert_int_equal(f->d.reads, 6);
	f->blk.deep_until = now_ns() + 10000000000ULL;
	wr(f, VIRTIO_MMIO_STATUS, 0);
	assert_int_equal(f->blk.deep_until, 0);
}

/*
 * A guest that waits for each request before it sends the next (one
 * chain per notification, nothing in flight) gets no window (the thread
 * would spin through all its think time), until it shows two chains out;
 * with polling asked for (--io-poll), every notification opens one.
 */
static void test_busy_poll_not_for_one_at_a_time(void **state)
{
	struct fix *f = *state;
	uint32_t id, len;

	driver_up(f, V1 | F_FLUSH | VIRTIO_BIT(VIRTIO_F_EVENT_IDX));
	/*
	 * Windows of 25 to 50 ms, not the 16 us they start at: the test's
	 * next call must come within one on slow boards and emulated riscv64.
	 */
	virtio_blk_set_poll(&f->blk, 50000000, false);
	f->blk.poll_ns = 50000000;
	for (unsigned int i = 0; i < 3; i++) {
		add_read(f);
		wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
		assert_true(vqm_get_used(&f->m, &id, &len));
		assert_int_equal(virtio_blk_busy_poll(&f->blk), -1);
		assert_false(f->blk.vm.core.queues[0].polling);
		assert_int_equal(vqm_avail_event(&f->m), i + 1);
	}
	/*
	 * Two out at once: a window (a lone chain in it extends it: the
	 * episode); a window with nothing new ends it.
	 */
	add_read(f);
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(virtio_blk_busy_poll(&f->blk), 0);
	assert_true(f->blk.vm.core.queues[0].polling);
	add_read(f);
	assert_int_equal(virtio_blk_busy_poll(&f->blk), 0);
	usleep(60000);
	assert_int_equal(virtio_blk_busy_poll(&f->blk), -1);
	assert_false(f->blk.vm.core.queues[0].polling);
	/* Asked for: one chain per notification opens a window. */
	virtio_blk_set_poll(&f->blk, 50000000, true);
	f->blk.poll_ns = 50000000;
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(virtio_blk_busy_poll(&f->blk), 0);
	assert_true(f->blk.vm.core.queues[0].polling);
	assert_int_equal(f->d.reads, 7);
}

/* The route hook's calls: queue and where (true: the eventfd). */
struct routes {
	unsigned int n;
	unsigned int q[16];
	bool eventfd[16];
};

static bool record_route(void *opaque, unsigned int q, bool eventfd)
{
	struct routes *r = opaque;

	assert_true(r->n < 16);
	r->q[r->n] = q;
	r->eventfd[r->n++] = eventfd;
	return true;
}

/*
 * Notifications by depth: a queue with one request out at a time is
 * routed to the vCPU's exit after its first notification; one that shows
 * two out goes to the eventfd for the episode, and back once it is over.
 * On the vCPU, a trial on the eventfd comes when due and lasts
 * VIRTIO_BLK_ROUTE_TRIAL_NOTIFIES notifications without depth, the next
 * twice as far off; depth brings the gap back to the first.  Not
 * asked for, or without a hook, nothing moves.
 */
static void test_route_by_depth(void **state)
{
	struct fix *f = *state;
	struct routes r = { 0 };
	const struct virtio_route hook = { record_route, &r };
	struct virtio_blk_route *q0 = &f->blk.routes[0];
	unsigned int reads = 0;
	uint32_t id, len;

	driver_up(f, V1 | F_FLUSH);
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0); /* not asked for */
	virtio_blk_set_route(&f->blk, true);
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0); /* no hook */
	reads += 2;
	assert_int_equal(r.n, 0);
	assert_false(q0->vcpu);
	virtio_core_set_route(&f->blk.vm.core, &hook);
	for (unsigned int i = 0; i < 3; i++, reads++) {
		add_read(f);
		wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	}
	assert_int_equal(r.n, 1);
	assert_int_equal(r.q[0], 0);
	assert_false(r.eventfd[0]);
	assert_true(q0->vcpu);
	assert_int_equal(f->blk.vcpu_taken, 2); /* after the move */
	/* two out: the eventfd, kept for the episode's lone requests */
	add_read(f);
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	reads += 2;
	assert_int_equal(r.n, 2);
	assert_true(r.eventfd[1]);
	assert_int_equal(f->blk.vcpu_taken, 4);
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	reads++;
	assert_int_equal(r.n, 2);
	q0->until = now_ns() - 1; /* the episode is over */
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	reads++;
	assert_int_equal(r.n, 3);
	assert_false(r.eventfd[2]);
	/* a trial when due: the eventfd for so many lone notifications */
	q0->trial_at = now_ns() - 1;
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	reads++;
	assert_int_equal(r.n, 4);
	assert_true(r.eventfd[3]);
	for (unsigned int i = 0; i < VIRTIO_BLK_ROUTE_TRIAL_NOTIFIES; i++) {
		assert_int_equal(r.n, 4);
		add_read(f);
		wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
		reads++;
	}
	assert_int_equal(r.n, 5);
	assert_false(r.eventfd[4]);
	/* the next one is twice as far off */
	assert_int_equal(q0->trial_gap, 2 * VIRTIO_BLK_ROUTE_TRIAL_NS);
	assert_true(q0->trial_at > now_ns() + VIRTIO_BLK_ROUTE_TRIAL_NS);
	/* a trial that finds depth stays on the eventfd */
	q0->trial_at = now_ns() - 1;
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	add_read(f);
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	reads += 3;
	for (unsigned int i = 0; i < VIRTIO_BLK_ROUTE_TRIAL_NOTIFIES; i++) {
		add_read(f);
		wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
		reads++;
	}
	assert_int_equal(r.n, 6);
	assert_true(r.eventfd[5]);
	assert_int_equal(f->blk.reroutes, 6);
	assert_int_equal(q0->trial_gap, VIRTIO_BLK_ROUTE_TRIAL_NS);
	/* back on the vCPU; the gap stops growing at its longest */
	q0->until = now_ns() - 1;
	q0->trial_gap = VIRTIO_BLK_ROUTE_TRIAL_MAX_NS;
	for (unsigned int i = 0; i < 2 + VIRTIO_BLK_ROUTE_TRIAL_NOTIFIES;
	     i++, reads++) {
		if (i == 1)
			q0->trial_at = now_ns() - 1;
		add_read(f);
		wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	}
	assert_int_equal(r.n, 9);
	assert_false(r.eventfd[6]);
	assert_true(r.eventfd[7]);
	assert_false(r.eventfd[8]);
	assert_int_equal(q0->trial_gap, VIRTIO_BLK_ROUTE_TRIAL_MAX_NS);
	while (vqm_get_used(&f->m, &id, &len))
		;
	assert_int_equal(f->d.reads, reads);
	assert_int_equal(q0->inflight, 0);
	/*
	 * A reset leaves routes and episodes alone: two out, a reset, one
	 * out is still the episode (no move a guest could repeat at will).
	 */
	add_read(f);
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(r.n, 10);
	assert_true(r.eventfd[9]);
	wr(f, VIRTIO_MMIO_STATUS, 0);
	driver_up(f, V1 | F_FLUSH);
	add_read(f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(r.n, 10);
	assert_false(q0->vcpu);
	assert_true(q0->until > now_ns());
	virtio_core_set_route(&f->blk.vm.core, NULL);
}

/* --- with the worker-thread engine ------------------------------------- */

struct poller {
	struct fix *f;
	struct virtio_blk_aio aio;
	pthread_t thread;
	_Atomic bool stop;
};

/* The I/O thread's part: poll the engine's eventfd. */
static void *poller_run(void *arg)
{
	struct poller *p = arg;

	while (!p->stop) {
		struct pollfd pfd = { .fd = p->aio.efd, .events = POLLIN };

		if (poll(&pfd, 1, 10) > 0)
			virtio_blk_poll(&p->f->blk);
	}
	return NULL;
}

/* The engine: io_uring with ring entries if possible, else the pool. */
static void poller_start_ring(struct poller *p, struct fix *f,
			      unsigned int ring)
{
	p->f = f;
	p->stop = false;
	assert_int_equal(virtio_blk_aio_init(&p->aio, &f->blk.disk, 4, ring),
			 0);
	virtio_blk_set_aio(&f->blk, &p->aio);
	assert_int_equal(pthread_create(&p->thread, NULL, poller_run, p), 0);
}

static void poller_start(struct poller *p, struct fix *f)
{
	poller_start_ring(p, f, 0);
}

static void poller_stop(struct poller *p)
{
	p->stop = true;
	pthread_join(p->thread, NULL);
	virtio_blk_aio_destroy(&p->aio);
	virtio_blk_set_aio(&p->f->blk, NULL);
}

/* Wait (up to 5 s) for n used entries on m's ring; how many came. */
static unsigned int wait_used_on(struct fix *f, struct vqm *m, unsigned int n)
{
	uint32_t id, len;
	unsigned int got = 0;

	for (int t = 0; t < 5000 && got < n; t++) {
		virtio_mmio_lock(&f->blk.vm);
		while (got < n && vqm_get_used(m, &id, &len))
			got++;
		virtio_mmio_unlock(&f->blk.vm);
		if (got < n)
			usleep(1000);
	}
	return got;
}

static unsigned int wait_used(struct fix *f, unsigned int n)
{
	return wait_used_on(f, &f->m, n);
}

/*
 * Busy polling with a request in flight: no spinning, a sleep for what is
 * left of the window (the completion wakes the thread); none in flight:
 * spinning again.
 */
static void test_busy_poll_sleeps_in_flight(void **state)
{
	struct fix *f = *state;
	struct poller p;
	struct vqm_buf b[3];
	int64_t ns;

	driver_up(f, V1 | F_FLUSH | VIRTIO_BIT(VIRTIO_F_EVENT_IDX));
	virtio_blk_set_poll(&f->blk, 2000000000, false); /* 2 s */
	f->blk.poll_ns = 2000000000;
	f->d.delay_us = 300000;
	b[0] = hdr_buf(f, VIRTIO_BLK_T_OUT, 0);
	b[1] = vqm_buf_new(&f->m, SECTOR, false, 0x5a);
	b[2] = wbuf(f, 1);
	vqm_add(&f->m, b, 3);
	add_read(f); /* two out: a window opens */
	poller_start(&p, f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	ns = virtio_blk_busy_poll(&f->blk);
	/* they are in flight: sleep for the window's rest, to the ns */
	assert_true(ns > 1000000000 && ns <= 2000000000);
	assert_int_equal(wait_used(f, 2), 2);
	assert_int_equal(virtio_blk_busy_poll(&f->blk), 0);
	assert_true(f->blk.vm.core.queues[0].polling);
	poller_stop(&p);
	assert_int_equal(*P(f, b[2]), VIRTIO_BLK_S_OK);
}

/* Writes in flight, then a flush: it runs only after all of them. */
static void test_aio_flush_after_writes(void **state)
{
	struct fix *f = *state;
	struct poller p;
	struct vqm_buf st[4];

	driver_up(f, V1 | F_FLUSH);
	f->d.delay_us = 20000;
	for (int i = 0; i < 3; i++) {
		struct vqm_buf b[3] = {
			hdr_buf(f, VIRTIO_BLK_T_OUT, 8 * i),
			vqm_buf_new(&f->m, 4 * SECTOR, false, 0x40 + i),
			st[i] = wbuf(f, 1),
		};

		vqm_add(&f->m, b, 3);
	}
	st[3] = wbuf(f, 1);
	vqm_add(&f->m,
		(struct vqm_buf[]){ hdr_buf(f, VIRTIO_BLK_T_FLUSH, 0), st[3] },
		2);
	poller_start(&p, f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(wait_used(f, 4), 4);
	poller_stop(&p);
	assert_int_equal(f->d.flushes, 1);
	assert_int_equal(f->d.done_at_flush, 3);
	for (int i = 0; i < 4; i++)
		assert_int_equal(*P(f, st[i]), VIRTIO_BLK_S_OK);
	assert_int_equal(f->d.data[16 * SECTOR], 0x42);
}

/* A reset with requests in flight waits for them and drops their results. */
static void test_aio_reset_drains(void **state)
{
	struct fix *f = *state;
	struct poller p;

	driver_up(f, V1 | F_FLUSH);
	f->d.delay_us = 20000;
	for (int i = 0; i < 8; i++) {
		struct vqm_buf b[3] = {
			hdr_buf(f, VIRTIO_BLK_T_OUT, i),
			vqm_buf_new(&f->m, SECTOR, false, 0x50),
			wbuf(f, 1),
		};

		vqm_add(&f->m, b, 3);
	}
	poller_start(&p, f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	wr(f, VIRTIO_MMIO_STATUS, 0);
	/* the reset returned: nothing is left running */
	assert_int_equal(f->blk.inflight, 0);
	assert_int_equal(f->d.writes_done, f->d.writes);
	assert_int_equal(vqm_used_idx(&f->m), 0);
	poller_stop(&p);
}

/* --- multiqueue ----------------------------------------------------------- */

/* §3.1.1 with queue 0 on f->m and queue 1 on m1 (in f->m's RAM). */
static void driver_up_mq(struct fix *f, struct vqm *m1)
{
	struct virtio_mmio *vm = &f->blk.vm;

	vqm_init_in(m1, &f->m, NUM, 16, 4, 0);
	assert_int_equal(vqm_mmio_negotiate(vm, V1 | F_FLUSH | F_MQ),
			 ACK | DRV | FOK);
	assert_int_equal(vqm_mmio_queue(vm, 0, &f->m), 1);
	assert_int_equal(vqm_mmio_queue(vm, 1, m1), 1);
	assert_int_equal(vqm_mmio_driver_ok(vm), ACK | DRV | FOK | DOK);
}

/* An OUT of one sector of 'fill' at sector on m's ring; its status. */
static struct vqm_buf add_write(struct fix *f, struct vqm *m, uint64_t sector,
				uint8_t fill)
{
	struct vqm_buf b[3] = {
		hdr_buf(f, VIRTIO_BLK_T_OUT, sector),
		vqm_buf_new(&f->m, SECTOR, false, fill),
		wbuf(f, 1),
	};

	vqm_add(m, b, 3);
	return b[2];
}

static void test_mq_config(void **state)
{
	struct fix *f = *state;

	assert_int_equal(rd(f, VIRTIO_MMIO_DEVICE_FEATURES) &
				 (1u << VIRTIO_BLK_F_MQ),
			 1u << VIRTIO_BLK_F_MQ);
	assert_int_equal(rd_n(f, VIRTIO_MMIO_CONFIG + 34, 2), 3);
	assert_int_equal(rd_n(f, VIRTIO_MMIO_CONFIG + 32, 1),
			 0); /* writeback */
	/* queues 0..2 exist, 3 does not */
	wr(f, VIRTIO_MMIO_QUEUE_SEL, 2);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_NUM_MAX), 256);
	wr(f, VIRTIO_MMIO_QUEUE_SEL, 3);
	assert_int_equal(rd(f, VIRTIO_MMIO_QUEUE_NUM_MAX), 0);
}

/* Each notify takes its own queue's chains; the reply goes to that queue. */
static void test_mq_queue_routing(void **state)
{
	struct fix *f = *state;
	struct vqm m1;
	struct vqm_buf st;
	uint32_t id, len;

	driver_up_mq(f, &m1);
	st = add_write(f, &m1, 5, 0x5a);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0); /* the wrong queue: nothing */
	assert_int_equal(f->d.writes, 0);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 3); /* no such queue: nothing */
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 2); /* never set up: nothing */
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0xffff);
	assert_int_equal(f->d.writes, 0);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 1);
	assert_int_equal(f->d.writes, 1);
	assert_true(vqm_get_used(&m1, &id, &len));
	assert_int_equal(len, 1);
	assert_false(vqm_get_used(&f->m, &id, &len));
	assert_int_equal(*P(f, st), VIRTIO_BLK_S_OK);
	assert_int_equal(f->d.data[5 * SECTOR], 0x5a);
	/* queue 0 still works on its own */
	st = add_write(f, &f->m, 6, 0x6b);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_true(vqm_get_used(&f->m, &id, &len));
	assert_false(vqm_get_used(&m1, &id, &len));
	assert_int_equal(*P(f, st), VIRTIO_BLK_S_OK);
	/* each queue counted its own request (--debug prints them) */
	assert_int_equal(f->blk.requests[0], 1);
	assert_int_equal(f->blk.requests[1], 1);
}

/* A flush on queue 0 waits for the writes in flight on queue 1. */
static void test_mq_flush_across_queues(void **state)
{
	struct fix *f = *state;
	struct poller p;
	struct vqm m1;
	struct vqm_buf st[4];

	driver_up_mq(f, &m1);
	f->d.delay_us = 20000;
	for (int i = 0; i < 3; i++)
		st[i] = add_write(f, &m1, 8 * i, 0x40 + i);
	st[3] = wbuf(f, 1);
	vqm_add(&f->m,
		(struct vqm_buf[]){ hdr_buf(f, VIRTIO_BLK_T_FLUSH, 0), st[3] },
		2);
	poller_start(&p, f);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 1);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(wait_used_on(f, &m1, 3), 3);
	assert_int_equal(wait_used(f, 1), 1);
	poller_stop(&p);
	assert_int_equal(f->d.flushes, 1);
	assert_int_equal(f->d.done_at_flush, 3);
	for (int i = 0; i < 4; i++)
		assert_int_equal(*P(f, st[i]), VIRTIO_BLK_S_OK);
}

/* Wait (up to 10 s) for the backend to have finished n writes. */
static void wait_writes_done(struct fix *f, unsigned int n)
{
	for (int t = 0; t < 10000 && f->d.writes_done < n; t++)
		usleep(1000);
	assert_int_equal(f->d.writes_done, n);
}

/*
 * A notification finds every request slot busy, and the same pass's reap
 * frees them all (draining the engine's eventfd): the device must ask to
 * come back for the chains still in the rings, or they wait forever (the
 * driver already notified).
 */
static void test_slots_freed_in_pass(void **state)
{
	struct fix *f = *state;
	struct virtio_mmio *vm = &f->blk.vm;
	const unsigned int per_q = 40, n = 2 * per_q;
	struct virtio_blk_aio aio;
	struct pollfd pfd;
	struct vqm m1;
	unsigned int got = 0, taken;
	uint32_t id, len;

	assert_true(n > VIRTIO_BLK_DEPTH);
	/* m1's indirect tables in a stretch of f->m's heap */
	vqm_init_in(&m1, &f->m, NUM, 16, 4, vqm_alloc(&f->m, 16384, 16));
	assert_int_equal(vqm_mmio_negotiate(vm, V1 | F_FLUSH | F_MQ | INDIRECT),
			 ACK | DRV | FOK);
	assert_int_equal(vqm_mmio_queue(vm, 0, &f->m), 1);
	assert_int_equal(vqm_mmio_queue(vm, 1, &m1), 1);
	assert_int_equal(vqm_mmio_driver_ok(vm), ACK | DRV | FOK | DOK);
	f->d.delay_us = 20000;
	assert_int_equal(virtio_blk_aio_init(&aio, &f->blk.disk, 4, 0), 0);
	virtio_blk_set_aio(&f->blk, &aio);
	for (unsigned int i = 0; i < n; i++) {
		struct vqm_buf b[3] = {
			hdr_buf(f, VIRTIO_BLK_T_OUT, i),
			vqm_buf_new(&f->m, SECTOR, false, (uint8_t)i),
			wbuf(f, 1),
		};

		vqm_add_indirect(i < per_q ? &f->m : &m1, b, 3);
	}
	/* Both queues kicked: every slot taken (the budget may need a pass). */
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 1);
	for (int k = 0; k < 8 && f->blk.inflight < VIRTIO_BLK_DEPTH; k++)
		virtio_blk_poll(&f->blk);
	assert_int_equal(f->blk.inflight, VIRTIO_BLK_DEPTH);
	taken = (unsigned int)(f->blk.requests[0] + f->blk.requests[1]);
	assert_true(taken < n);
	/* All of them finish; the I/O thread has not looked yet. */
	wait_writes_done(f, taken);
	usleep(50000); /* the workers post their completions */
	virtio_mmio_lock(vm);
	while (vqm_get_used(&f->m, &id, &len) || vqm_get_used(&m1, &id, &len))
		got++;
	virtio_mmio_unlock(vm);
	/* A kick meanwhile: no free slot, and the pass reaps everything. */
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(f->blk.inflight, 0);
	pfd = (struct pollfd){ .fd = aio.efd, .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 0), 1); /* asked to come back */
	/* The I/O thread's loop finishes the rest. */
	for (int t = 0; t < 5000 && got < n; t++) {
		pfd = (struct pollfd){ .fd = aio.efd, .events = POLLIN };
		if (poll(&pfd, 1, 1) > 0)
			virtio_blk_poll(&f->blk);
		virtio_mmio_lock(vm);
		while (vqm_get_used(&f->m, &id, &len) ||
		       vqm_get_used(&m1, &id, &len))
			got++;
		virtio_mmio_unlock(vm);
	}
	assert_int_equal(got, n);
	assert_int_equal(f->d.writes_done, n);
	virtio_blk_aio_destroy(&aio);
	virtio_blk_set_aio(&f->blk, NULL);
}

/* A bad queue count is refused. */
static void test_mq_init_errors(void **state)
{
	struct virtio_blk *blk = calloc(1, sizeof(*blk));
	struct mdisk d = { .size = DISK_SIZE };
	struct virtio_blk_disk disk = { .ops = &mdisk_ops,
					.opaque = &d,
					.size = DISK_SIZE };
	struct guest_mem mem = { 0 };

	(void)state;
	log_level = -1;
	assert_non_null(blk);
	assert_int_equal(
		virtio_blk_init_mq(blk, &SLOT_RES(0), &mem, NULL, &disk, 0),
		-EINVAL);
	assert_int_equal(virtio_blk_init_mq(blk, &SLOT_RES(0), &mem, NULL,
					    &disk, VIRTIO_MMIO_MAX_QUEUES + 1),
			 -EINVAL);
	assert_int_equal(virtio_blk_init_mq(blk, &SLOT_RES(0), &mem, NULL,
					    &disk, VIRTIO_MMIO_MAX_QUEUES),
			 0);
	assert_int_equal(blk->vm.core.dev.num_queues, VIRTIO_MMIO_MAX_QUEUES);
	virtio_blk_destroy(blk);
	free(blk);
}

/* Without FLUSH negotiated every write is made stable before completion. */
static void test_writethrough(void **state)
{
	struct fix *f = *state;
	struct vqm_buf out = vqm_buf_new(&f->m, SECTOR, false, 0x42);
	uint32_t len;

	driver_up(f, V1);
	assert_int_equal(req(f, VIRTIO_BLK_T_OUT, 0, &out, 1, &len),
			 VIRTIO_BLK_S_OK);
	assert_int_equal(f->d.flushes, 1);
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_WRITE_ZEROES, 0, 1, 0),
			 VIRTIO_BLK_S_OK);
	assert_int_equal(f->d.flushes, 2);
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_DISCARD, 0, 1, 0),
			 VIRTIO_BLK_S_OK);
	assert_int_equal(f->d.flushes, 3);
	/* reads and failed writes do not flush */
	assert_int_equal(req(f, VIRTIO_BLK_T_OUT, DISK_SECTORS, &out, 1, &len),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(f->d.flushes, 3);
	/* a failing flush fails the write */
	f->d.fail = FAIL_FLUSH;
	assert_int_equal(req(f, VIRTIO_BLK_T_OUT, 0, &out, 1, &len),
			 VIRTIO_BLK_S_IOERR);
}

static void test_get_id(void **state)
{
	struct fix *f = *state;
	static const char want[20] = "rvkvm-test-disk";
	struct vqm_buf id = wbuf(f, 20), small = wbuf(f, 8), big = wbuf(f, 30);
	uint32_t len;

	driver_up(f, V1 | F_FLUSH);
	assert_int_equal(req(f, VIRTIO_BLK_T_GET_ID, 0, &id, 1, &len),
			 VIRTIO_BLK_S_OK);
	assert_int_equal(len, 21);
	assert_memory_equal(P(f, id), want, 20); /* NUL-padded */
	assert_int_equal(req(f, VIRTIO_BLK_T_GET_ID, 0, &small, 1, &len),
			 VIRTIO_BLK_S_OK);
	assert_int_equal(len, 9);
	assert_memory_equal(P(f, small), want, 8);
	assert_int_equal(req(f, VIRTIO_BLK_T_GET_ID, 0, &big, 1, &len),
			 VIRTIO_BLK_S_OK);
	assert_int_equal(len, 21);
	assert_memory_equal(P(f, big), want, 20);
	assert_int_equal(P(f, big)[20], UNTOUCHED);
	assert_int_equal(P(f, big)[29], UNTOUCHED);
	assert_int_equal(f->d.reads, 0);
}

static void test_disk_set_id(void **state)
{
	struct virtio_blk_disk d;

	(void)state;
	log_level = -1;
	memset(&d, 0x55, sizeof(d));
	virtio_blk_disk_set_id(&d, NULL);
	for (unsigned int i = 0; i < 20; i++)
		assert_int_equal(d.id[i], 0);
	virtio_blk_disk_set_id(&d, "0123456789abcdefghijKLMN");
	assert_memory_equal(d.id, "0123456789abcdefghij", 20);
	virtio_blk_disk_set_id(&d, "ab");
	assert_memory_equal(d.id, "ab\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 20);
}

static void test_discard(void **state)
{
	struct fix *f = *state;

	driver_up(f, V1 | F_FLUSH);
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_DISCARD, 8, 16, 0),
			 VIRTIO_BLK_S_OK);
	assert_int_equal(f->d.discards, 1);
	assert_int_equal(f->d.off, 8 * SECTOR);
	assert_int_equal(f->d.len, 16 * SECTOR);
	/* up to the last sector */
	assert_int_equal(
		req_dwz(f, VIRTIO_BLK_T_DISCARD, DISK_SECTORS - 4, 4, 0),
		VIRTIO_BLK_S_OK);
	assert_int_equal(f->d.discards, 2);
	/* zero sectors: OK, nothing to do */
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_DISCARD, 3, 0, 0),
			 VIRTIO_BLK_S_OK);
	/* unmap (or any other flag) on a discard: UNSUPP */
	assert_int_equal(
		req_dwz(f, VIRTIO_BLK_T_DISCARD, 8, 1, VIRTIO_BLK_DWZ_F_UNMAP),
		VIRTIO_BLK_S_UNSUPP);
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_DISCARD, 8, 1, 2),
			 VIRTIO_BLK_S_UNSUPP);
	/* past the end, too long */
	assert_int_equal(
		req_dwz(f, VIRTIO_BLK_T_DISCARD, DISK_SECTORS - 4, 5, 0),
		VIRTIO_BLK_S_IOERR);
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_DISCARD, 0,
				 VIRTIO_BLK_MAX_DISCARD_SECTORS + 1, 0),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(f->d.discards, 2);
	f->d.fail = FAIL_DISCARD;
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_DISCARD, 0, 1, 0),
			 VIRTIO_BLK_S_IOERR);
	assert_disk_unchanged(f);
}

static void test_write_zeroes(void **state)
{
	struct fix *f = *state;
	static const uint8_t zero[4 * SECTOR];

	driver_up(f, V1 | F_FLUSH);
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_WRITE_ZEROES, 20, 4, 0),
			 VIRTIO_BLK_S_OK);
	assert_int_equal(f->d.wzs, 1);
	assert_int_equal(f->d.off, 20 * SECTOR);
	assert_int_equal(f->d.len, 4 * SECTOR);
	assert_memory_equal(f->d.data + 20 * SECTOR, zero, sizeof(zero));
	assert_memory_equal(f->d.data, f->snap, 20 * SECTOR);
	assert_memory_equal(f->d.data + 24 * SECTOR, f->snap + 24 * SECTOR,
			    DISK_SIZE - 24 * SECTOR);
	/* unmap is allowed on write zeroes, other flags are not */
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_WRITE_ZEROES, 30, 1,
				 VIRTIO_BLK_DWZ_F_UNMAP),
			 VIRTIO_BLK_S_OK);
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_WRITE_ZEROES, 30, 1, 1u << 31),
			 VIRTIO_BLK_S_UNSUPP);
	assert_int_equal(
		req_dwz(f, VIRTIO_BLK_T_WRITE_ZEROES, DISK_SECTORS, 1, 0),
		VIRTIO_BLK_S_IOERR);
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_WRITE_ZEROES, 0,
				 VIRTIO_BLK_MAX_WZ_SECTORS + 1, 0),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(f->d.wzs, 2);
	f->d.fail = FAIL_WZ;
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_WRITE_ZEROES, 0, 1, 0),
			 VIRTIO_BLK_S_IOERR);
}

/* Exactly one whole segment per request. */
static void test_dwz_segment_count(void **state)
{
	struct fix *f = *state;
	struct vqm_buf s[2];
	uint32_t len;
	uint8_t part[10] = { 0 };

	driver_up(f, V1 | F_FLUSH);
	s[0] = seg_buf(f, 0, 1, 0);
	s[1] = seg_buf(f, 2, 1, 0);
	assert_int_equal(req(f, VIRTIO_BLK_T_DISCARD, 0, s, 2, &len),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(req(f, VIRTIO_BLK_T_WRITE_ZEROES, 0, s, 2, &len),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(req0(f, VIRTIO_BLK_T_DISCARD, 0), VIRTIO_BLK_S_IOERR);
	s[0] = ro_buf(f, part, sizeof(part));
	assert_int_equal(req(f, VIRTIO_BLK_T_WRITE_ZEROES, 0, s, 1, &len),
			 VIRTIO_BLK_S_IOERR);
	/* a segment split over two buffers is fine */
	s[0] = ro_buf(f, part, 6);
	s[1] = ro_buf(f, part, 10);
	assert_int_equal(req(f, VIRTIO_BLK_T_WRITE_ZEROES, 0, s, 2, &len),
			 VIRTIO_BLK_S_OK); /* 0 sectors */
	assert_int_equal(f->d.discards + f->d.wzs, 0);
	assert_disk_unchanged(f);
}

/* --- read-only disks, bad requests --------------------------------------- */

static void test_read_only(void **state)
{
	struct fix *f = *state;
	struct vqm_buf out = vqm_buf_new(&f->m, SECTOR, false, 0x11);
	struct vqm_buf in = wbuf(f, SECTOR);
	uint32_t len;

	driver_up(f, V1 | F_FLUSH | VIRTIO_BIT(VIRTIO_BLK_F_RO));
	assert_int_equal(req(f, VIRTIO_BLK_T_OUT, 0, &out, 1, &len),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_DISCARD, 0, 1, 0),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_WRITE_ZEROES, 0, 1, 0),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(f->d.writes + f->d.discards + f->d.wzs, 0);
	assert_disk_unchanged(f);
	/* reads, flushes and GET_ID still work */
	assert_int_equal(req(f, VIRTIO_BLK_T_IN, 0, &in, 1, &len),
			 VIRTIO_BLK_S_OK);
	assert_memory_equal(P(f, in), f->snap, SECTOR);
	assert_int_equal(req0(f, VIRTIO_BLK_T_FLUSH, 0), VIRTIO_BLK_S_OK);
}

static void test_unknown_type(void **state)
{
	struct fix *f = *state;
	static const uint32_t types[] = { 2,  3,  5,	      10,	 14,
					  15, 16, 0x80000000, UINT32_MAX };
	struct vqm_buf data = wbuf(f, SECTOR);
	uint32_t len;

	driver_up(f, V1 | F_FLUSH);
	for (unsigned int i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		assert_int_equal(req0(f, types[i], 0), VIRTIO_BLK_S_UNSUPP);
	assert_int_equal(req(f, 10, 0, &data, 1, &len), VIRTIO_BLK_S_UNSUPP);
	assert_int_equal(len, 1);
	assert_int_equal(P(f, data)[0], UNTOUCHED);
	assert_int_equal(f->d.reads + f->d.writes + f->d.flushes, 0);
}

static void test_short_header(void **state)
{
	struct fix *f = *state;
	uint8_t h[VIRTIO_BLK_REQ_HDR_SIZE] = { VIRTIO_BLK_T_IN };
	struct vqm_buf b[3];

	driver_up(f, V1 | F_FLUSH);
	/* 15 readable bytes, then a sector and a status byte */
	b[0] = ro_buf(f, h, 15);
	b[1] = wbuf(f, SECTOR);
	b[2] = wbuf(f, 1);
	assert_int_equal(run(f, b, 3), 1);
	assert_int_equal(*P(f, b[2]), VIRTIO_BLK_S_IOERR);
	assert_int_equal(P(f, b[1])[0], UNTOUCHED);
	/* the header may not continue into the writable part */
	b[0] = ro_buf(f, h, 8);
	b[1] = wbuf(f, 9);
	assert_int_equal(run(f, b, 2), 1);
	assert_int_equal(P(f, b[1])[8], VIRTIO_BLK_S_IOERR);
	assert_int_equal(P(f, b[1])[0], UNTOUCHED);
	/* a status byte only */
	b[0] = wbuf(f, 1);
	assert_int_equal(run(f, b, 1), 1);
	assert_int_equal(*P(f, b[0]), VIRTIO_BLK_S_IOERR);
	assert_int_equal(f->d.reads, 0);
}

static void test_no_status_byte(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b[2];

	driver_up(f, V1 | F_FLUSH);
	/* an OUT with data but nothing writable: not performed */
	b[0] = hdr_buf(f, VIRTIO_BLK_T_OUT, 0);
	b[1] = vqm_buf_new(&f->m, SECTOR, false, 0x99);
	assert_int_equal(run(f, b, 2), 0);
	b[0] = hdr_buf(f, VIRTIO_BLK_T_FLUSH, 0);
	assert_int_equal(run(f, b, 1), 0);
	b[0] = vqm_buf_new(&f->m, 3, false, 0);
	assert_int_equal(run(f, b, 1), 0);
	assert_int_equal(f->d.writes + f->d.flushes, 0);
	assert_disk_unchanged(f);
	assert_int_equal(rd(f, VIRTIO_MMIO_STATUS), ACK | DRV | FOK | DOK);
}

/* Extra writable bytes: the status goes to the very last one. */
static void test_status_is_last_byte(void **state)
{
	struct fix *f = *state;
	struct vqm_buf out = vqm_buf_new(&f->m, SECTOR, false, 0x31);
	struct vqm_buf b[3];

	driver_up(f, V1 | F_FLUSH);
	b[0] = hdr_buf(f, VIRTIO_BLK_T_OUT, 2);
	b[1] = out;
	b[2] = wbuf(f, 4);
	assert_int_equal(run(f, b, 3), 1);
	assert_memory_equal(P(f, b[2]), "\xee\xee\xee\x00", 4);
	assert_int_equal(f->d.data[2 * SECTOR], 0x31);
}

static void test_backend_errors(void **state)
{
	struct fix *f = *state;
	struct vqm_buf in = wbuf(f, SECTOR);
	struct vqm_buf out = vqm_buf_new(&f->m, SECTOR, false, 0x31);
	uint32_t len;

	driver_up(f, V1 | F_FLUSH);
	f->d.fail = FAIL_READ;
	assert_int_equal(req(f, VIRTIO_BLK_T_IN, 0, &in, 1, &len),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(len, 1);
	f->d.fail = FAIL_SHORT_READ;
	assert_int_equal(req(f, VIRTIO_BLK_T_IN, 0, &in, 1, &len),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(len, 1); /* the data counts as not written */
	f->d.fail = FAIL_WRITE;
	assert_int_equal(req(f, VIRTIO_BLK_T_OUT, 0, &out, 1, &len),
			 VIRTIO_BLK_S_IOERR);
	f->d.fail = FAIL_SHORT_WRITE;
	assert_int_equal(req(f, VIRTIO_BLK_T_OUT, 0, &out, 1, &len),
			 VIRTIO_BLK_S_IOERR);
	/* the device keeps working afterwards */
	f->d.fail = FAIL_NONE;
	assert_int_equal(req(f, VIRTIO_BLK_T_IN, 1, &in, 1, &len),
			 VIRTIO_BLK_S_OK);
	assert_memory_equal(P(f, in), f->snap + SECTOR, SECTOR);
}

/* A malformed chain breaks the queue: nothing done, NEEDS_RESET. */
static void test_broken_queue(void **state)
{
	struct fix *f = *state;
	struct vqm_buf b[3];

	driver_up(f, V1 | F_FLUSH);
	b[0] = hdr_buf(f, VIRTIO_BLK_T_OUT, 0);
	b[1] = wbuf(f, 1);
	b[2] = vqm_buf_new(&f->m, SECTOR, false, 0x99); /* readable last */
	vqm_add(&f->m, b, 3);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(vqm_used_idx(&f->m), 0);
	assert_true(rd(f, VIRTIO_MMIO_STATUS) &
		    VIRTIO_STATUS_DEVICE_NEEDS_RESET);
	assert_int_equal(f->d.writes, 0);
	assert_disk_unchanged(f);
}

static void test_init_errors(void **state)
{
	struct virtio_blk *blk = calloc(1, sizeof(*blk));
	struct guest_mem mem = { 0 };
	struct virtio_blk_disk_ops no_write = { .readv = mdisk_readv };
	struct virtio_blk_disk disk = { .ops = &mdisk_ops, .size = 4096 };

	(void)state;
	log_level = -1;
	assert_non_null(blk);
	assert_int_equal(virtio_blk_init(blk, &SLOT_RES(0), &mem, NULL, NULL),
			 -EINVAL);
	disk.ops = NULL;
	assert_int_equal(virtio_blk_init(blk, &SLOT_RES(0), &mem, NULL, &disk),
			 -EINVAL);
	disk.ops = &no_write;
	assert_int_equal(virtio_blk_init(blk, &SLOT_RES(0), &mem, NULL, &disk),
			 -EINVAL);
	disk.read_only = true; /* fine without write when read-only */
	assert_int_equal(virtio_blk_init(blk, &SLOT_RES(0), &mem, NULL, &disk),
			 0);
	virtio_blk_destroy(blk);
	/* a bad slot: nothing leaks (ASan checks) */
	assert_int_equal(virtio_blk_init(blk, NULL, &mem, NULL, &disk),
			 -EINVAL);
	/* a disk smaller than a sector has capacity 0 */
	disk.size = 511;
	assert_int_equal(virtio_blk_init(blk, &SLOT_RES(0), &mem, NULL, &disk),
			 0);
	assert_int_equal(blk->config[0], 0);
	virtio_blk_destroy(blk);
	free(blk);
}

/* --- the file backend ---------------------------------------------------- */

static int setup_dir(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));

	log_level = -1;
	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/rvkvm-blk-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	*state = f;
	return 0;
}

static int teardown_dir(void **state)
{
	struct fix *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd))
		return -1;
	free(f);
	return 0;
}

/* path = dir/name, a file of size bytes with byte i = i % 251. */
static void make_file(struct fix *f, const char *name, size_t size, char *path,
		      size_t path_len)
{
	uint8_t *buf = malloc(size ? size : 1);
	int fd;

	assert_non_null(buf);
	for (size_t i = 0; i < size; i++)
		buf[i] = i % 251;
	snprintf(path, path_len, "%s/%s", f->dir, name);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, size), size);
	close(fd);
	free(buf);
}

static void *aligned_buf(size_t len, int fill)
{
	void *p = aligned_alloc(VIRTIO_BLK_BOUNCE_ALIGN,
				vqm_align(len, VIRTIO_BLK_BOUNCE_ALIGN));

	assert_non_null(p);
	memset(p, fill, len);
	return p;
}

/* One-buffer calls of a backend's readv/writev. */
static ssize_t op_read(const struct virtio_blk_disk_ops *ops, void *o,
		       void *buf, size_t len, uint64_t off)
{
	struct iovec v = { .iov_base = buf, .iov_len = len };

	return ops->readv(o, &v, 1, off);
}

static ssize_t op_write(const struct virtio_blk_disk_ops *ops, void *o,
			const void *buf, size_t len, uint64_t off)
{
	struct iovec v = { .iov_base = (void *)buf, .iov_len = len };

	return ops->writev(o, &v, 1, off);
}

static void test_file_read_write(void **state)
{
	struct fix *f = *state;
	const struct virtio_blk_disk_ops *ops = &virtio_blk_file_ops;
	struct virtio_blk_file bf;
	struct virtio_blk_disk disk;
	uint8_t *buf = aligned_buf(2 * SECTOR, 0x5c), *back;
	char path[128];
	int fd;

	make_file(f, "img", 8 * SECTOR + 100, path, sizeof(path));
	assert_int_equal(virtio_blk_file_open(&bf, path, false, false), 0);
	assert_int_equal(bf.size, 8 * SECTOR + 100);
	assert_false(bf.is_blkdev);
	virtio_blk_file_disk(&bf, "serial-1", &disk);
	assert_ptr_equal(disk.ops, ops);
	assert_ptr_equal(disk.opaque, &bf);
	assert_int_equal(disk.size, 8 * SECTOR + 100);
	assert_false(disk.read_only);
	assert_memory_equal(disk.id, "serial-1\0\0\0\0\0\0\0\0\0\0\0\0", 20);

	assert_int_equal(op_write(ops, &bf, buf, 2 * SECTOR, 3 * SECTOR),
			 2 * SECTOR);
	assert_int_equal(ops->flush(&bf), 0);
	back = aligned_buf(8 * SECTOR + 100, 0);
	fd = open(path, O_RDONLY);
	assert_int_equal(read(fd, back, 8 * SECTOR + 100), 8 * SECTOR + 100);
	close(fd);
	for (size_t i = 0; i < 8 * SECTOR + 100; i++)
		assert_int_equal(back[i], i >= 3 * SECTOR && i < 5 * SECTOR ?
						  0x5c :
						  i % 251);
	memset(buf, 0, 2 * SECTOR);
	assert_int_equal(op_read(ops, &bf, buf, 2 * SECTOR, 7 * SECTOR),
			 SECTOR + 100); /* short at end of file */
	assert_memory_equal(buf, back + 7 * SECTOR, SECTOR + 100);
	virtio_blk_file_close(&bf);
	assert_int_equal(bf.fd, -1);
	free(buf);
	free(back);
}

static void test_file_lock(void **state)
{
	struct fix *f = *state;
	struct virtio_blk_file a, b, c;
	char path[128];

	make_file(f, "img", 4 * SECTOR, path, sizeof(path));
	assert_int_equal(virtio_blk_file_open(&a, path, false, false), 0);
	assert_int_equal(virtio_blk_file_open(&b, path, false, false), -EBUSY);
	assert_int_equal(virtio_blk_file_open(&b, path, true, false), -EBUSY);
	virtio_blk_file_close(&a);
	/* readers share; a writer is refused while one reads */
	assert_int_equal(virtio_blk_file_open(&a, path, true, false), 0);
	assert_int_equal(virtio_blk_file_open(&b, path, true, false), 0);
	assert_int_equal(virtio_blk_file_open(&c, path, false, false), -EBUSY);
	virtio_blk_file_close(&a);
	virtio_blk_file_close(&b);
	assert_int_equal(virtio_blk_file_open(&c, path, false, false), 0);
	virtio_blk_file_close(&c);
}

static void test_file_read_only(void **state)
{
	struct fix *f = *state;
	struct virtio_blk_file bf;
	struct virtio_blk_disk disk;
	uint8_t *buf = aligned_buf(SECTOR, 0);
	char path[128];

	make_file(f, "img", 4 * SECTOR, path, sizeof(path));
	chmod(path, 0400);
	assert_int_equal(virtio_blk_file_open(&bf, path, true, false), 0);
	virtio_blk_file_disk(&bf, NULL, &disk);
	assert_true(disk.read_only);
	assert_null(bf.zeroes);
	assert_int_equal(
		op_read(&virtio_blk_file_ops, &bf, buf, SECTOR, SECTOR),
		SECTOR);
	assert_int_equal(buf[0], SECTOR % 251);
	/* the descriptor itself refuses writes */
	assert_int_equal(op_write(&virtio_blk_file_ops, &bf, buf, SECTOR, 0),
			 -EBADF);
	virtio_blk_file_close(&bf);
	free(buf);
}

static void test_file_zeroes_and_discard(void **state)
{
	struct fix *f = *state;
	const struct virtio_blk_disk_ops *ops = &virtio_blk_file_ops;
	struct virtio_blk_file bf;
	uint8_t *buf = aligned_buf(16 * SECTOR, 0xff);
	static const uint8_t zero[8 * SECTOR];
	char path[128];

	make_file(f, "img", 64 * SECTOR, path, sizeof(path));
	assert_int_equal(virtio_blk_file_open(&bf, path, false, false), 0);
	assert_int_equal(ops->write_zeroes(&bf, SECTOR, 8 * SECTOR), 0);
	/* the fallback path writes zeroes */
	bf.no_zero_range = true;
	assert_int_equal(ops->write_zeroes(&bf, 20 * SECTOR, 8 * SECTOR), 0);
	assert_int_equal(op_read(ops, &bf, buf, 10 * SECTOR, 0), 10 * SECTOR);
	assert_int_equal(buf[0], 0);
	assert_int_equal(buf[SECTOR - 1], (SECTOR - 1) % 251);
	assert_memory_equal(buf + SECTOR, zero, 8 * SECTOR);
	assert_int_equal(buf[9 * SECTOR], (9 * SECTOR) % 251);
	assert_int_equal(op_read(ops, &bf, buf, 10 * SECTOR, 19 * SECTOR),
			 10 * SECTOR);
	assert_int_equal(buf[0], (19 * SECTOR) % 251);
	assert_memory_equal(buf + SECTOR, zero, 8 * SECTOR);
	assert_int_equal(buf[9 * SECTOR], (28 * SECTOR) % 251);

	assert_int_equal(ops->discard(&bf, 40 * SECTOR, 8 * SECTOR), 0);
	assert_int_equal(op_read(ops, &bf, buf, 8 * SECTOR, 40 * SECTOR),
			 8 * SECTOR);
	if (!bf.no_punch_hole) /* a punched hole reads back as zeroes */
		assert_memory_equal(buf, zero, 8 * SECTOR);
	bf.no_punch_hole = true; /* then discard is a successful no-op */
	assert_int_equal(ops->discard(&bf, 0, SECTOR), 0);
	assert_int_equal(op_read(ops, &bf, buf, SECTOR, 0), SECTOR);
	assert_int_equal(buf[1], 1);
	assert_int_equal(bf.size, 64 * SECTOR); /* KEEP_SIZE */
	virtio_blk_file_close(&bf);
	free(buf);
}

static void test_file_direct(void **state)
{
	struct fix *f = *state;
	const struct virtio_blk_disk_ops *ops = &virtio_blk_file_ops;
	struct virtio_blk_file bf;
	uint8_t *buf = aligned_buf(BUF_SIZE, 0x3c);
	char path[128];
	int ret;

	make_file(f, "img", 256 * SECTOR, path, sizeof(path));
	ret = virtio_blk_file_open(&bf, path, false, true);
	if (ret == -EINVAL) { /* the file system has no O_DIRECT */
		free(buf);
		skip();
	}
	assert_int_equal(ret, 0);
	assert_true(bf.direct);
	assert_true(fcntl(bf.fd, F_GETFL) & O_DIRECT);
	assert_false(fcntl(bf.fd, F_GETFL) & O_NONBLOCK);
	/* what the device hands over: aligned buffer, 4 KiB multiples */
	assert_int_equal(op_write(ops, &bf, buf, 8 * SECTOR, 8 * SECTOR),
			 8 * SECTOR);
	memset(buf, 0, BUF_SIZE);
	assert_int_equal(op_read(ops, &bf, buf, BUF_SIZE, 0), BUF_SIZE);
	assert_int_equal(buf[8 * SECTOR], 0x3c);
	assert_int_equal(buf[16 * SECTOR], (16 * SECTOR) % 251);
	assert_int_equal(ops->write_zeroes(&bf, 0, SECTOR * 8), 0);
	bf.no_zero_range = true; /* the fallback uses an aligned buffer */
	assert_int_equal(ops->write_zeroes(&bf, 8 * SECTOR, SECTOR * 8), 0);
	assert_int_equal(op_read(ops, &bf, buf, 16 * SECTOR, 0), 16 * SECTOR);
	for (unsigned int i = 0; i < 16 * SECTOR; i++)
		assert_int_equal(buf[i], 0);
	virtio_blk_file_close(&bf);
	free(buf);
}

static void test_file_errors(void **state)
{
	struct fix *f = *state;
	struct virtio_blk_file bf;
	char path[128];

	snprintf(path, sizeof(path), "%s/missing", f->dir);
	assert_int_equal(virtio_blk_file_open(&bf, path, false, false),
			 -ENOENT);
	assert_int_equal(virtio_blk_file_open(&bf, f->dir, false, false),
			 -EISDIR);
	assert_int_equal(virtio_blk_file_open(&bf, f->dir, true, false),
			 -EINVAL);
	assert_int_equal(virtio_blk_file_open(&bf, "/dev/null", false, false),
			 -EINVAL);
	/* a FIFO neither hangs nor is accepted */
	snprintf(path, sizeof(path), "%s/fifo", f->dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(virtio_blk_file_open(&bf, path, true, false), -EINVAL);
	assert_int_equal(virtio_blk_file_open(&bf, path, false, false),
			 -EINVAL);
}

/* The file backend behind the device, end to end. */
static void test_file_end_to_end(void **state)
{
	struct fix *f = *state;
	const struct irq_line irq = { .set = fix_irq_set, .opaque = f };
	struct virtio_blk_file bf;
	struct virtio_blk_disk disk;
	struct vqm_buf out, in;
	uint8_t back[SECTOR];
	char path[128];
	uint32_t len;
	int fd;

	make_file(f, "img", 100 * SECTOR + 7, path, sizeof(path));
	assert_int_equal(virtio_blk_file_open(&bf, path, false, false), 0);
	virtio_blk_file_disk(&bf, "e2e", &disk);
	vqm_init(&f->m, RAM_SIZE, NUM);
	assert_int_equal(
		virtio_blk_init(&f->blk, &SLOT_RES(0), &f->m.mem, &irq, &disk),
		0);
	assert_int_equal(cfg32(f, 0), 100);
	driver_up(f, V1 | F_FLUSH);
	out = vqm_buf_new(&f->m, SECTOR, false, 0xab);
	assert_int_equal(req(f, VIRTIO_BLK_T_OUT, 99, &out, 1, &len),
			 VIRTIO_BLK_S_OK);
	assert_int_equal(req0(f, VIRTIO_BLK_T_FLUSH, 0), VIRTIO_BLK_S_OK);
	fd = open(path, O_RDONLY);
	assert_int_equal(pread(fd, back, SECTOR, 99 * SECTOR), SECTOR);
	close(fd);
	for (unsigned int i = 0; i < SECTOR; i++)
		assert_int_equal(back[i], 0xab);
	assert_int_equal(req_dwz(f, VIRTIO_BLK_T_WRITE_ZEROES, 99, 1, 0),
			 VIRTIO_BLK_S_OK);
	in = wbuf(f, 2 * SECTOR);
	assert_int_equal(req(f, VIRTIO_BLK_T_IN, 98, &in, 1, &len),
			 VIRTIO_BLK_S_OK);
	assert_int_equal(P(f, in)[0], (98 * SECTOR) % 251);
	assert_int_equal(P(f, in)[SECTOR], 0);
	/* the 7-byte tail stays invisible */
	assert_int_equal(req(f, VIRTIO_BLK_T_IN, 100, &in, 1, &len),
			 VIRTIO_BLK_S_IOERR);
	/* an image that shrank under us: short read, IOERR */
	assert_int_equal(truncate(path, 50 * SECTOR), 0);
	assert_int_equal(req(f, VIRTIO_BLK_T_IN, 60, &in, 1, &len),
			 VIRTIO_BLK_S_IOERR);
	virtio_blk_destroy(&f->blk);
	virtio_blk_file_close(&bf);
	vqm_free(&f->m);
}

/* The file backend, but FLUSH goes to a pipe when flush_to_pipe is set. */
static struct {
	struct virtio_blk_file *bf;
	int pipe[2];
	bool flush_to_pipe;
	_Atomic unsigned int flush_fds;
} ufile;

static int ufile_fd(void *opaque, const struct virtio_blk_io *io)
{
	if (io->op != VIRTIO_BLK_OP_FLUSH)
		return virtio_blk_file_ops.fd(opaque, io);
	ufile.flush_fds++;
	return ufile.flush_to_pipe ? ufile.pipe[0] : ufile.bf->fd;
}

/* Add a chain, notify, wait for its used entry (the only one). */
static uint8_t areq(struct fix *f, uint32_t type, uint64_t sector,
		    const struct vqm_buf *data)
{
	struct vqm_buf b[3] = { hdr_buf(f, type, sector) };
	unsigned int n = 1;

	if (data)
		b[n++] = *data;
	b[n] = wbuf(f, 1);
	vqm_add(&f->m, b, n + 1);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	assert_int_equal(wait_used(f, 1), 1);
	return *P(f, b[n]);
}

/* Writes then a flush on the io_uring engine: the flush completes last. */
static void uring_flush_order(struct fix *f)
{
	uint16_t flush_head;
	uint32_t id = 0, len = 0;
	unsigned int got = 0;

	for (int i = 0; i < 6; i++) {
		struct vqm_buf b[3] = {
			hdr_buf(f, VIRTIO_BLK_T_OUT, 128 * i),
			vqm_buf_new(&f->m, 64 * 1024, false, 0x30 + i),
			wbuf(f, 1),
		};

		vqm_add(&f->m, b, 3);
	}
	flush_head =
		vqm_add(&f->m,
			(struct vqm_buf[]){ hdr_buf(f, VIRTIO_BLK_T_FLUSH, 0),
					    wbuf(f, 1) },
			2);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	for (int t = 0; t < 5000 && got < 7; t++) {
		virtio_mmio_lock(&f->blk.vm);
		while (got < 7 && vqm_get_used(&f->m, &id, &len))
			if (++got < 7)
				assert_int_not_equal(id, flush_head);
		virtio_mmio_unlock(&f->blk.vm);
		if (got < 7)
			usleep(1000);
	}
	assert_int_equal(got, 7);
	assert_int_equal(id, flush_head);
}

/* A reset with reads in flight on io_uring waits for them, drops them. */
static void uring_reset_drains(struct fix *f)
{
	uint16_t start = vqm_used_idx(&f->m), after;

	for (int i = 0; i < 8; i++) {
		struct vqm_buf b[3] = {
			hdr_buf(f, VIRTIO_BLK_T_IN, 128 * i),
			wbuf(f, 64 * 1024),
			wbuf(f, 1),
		};

		vqm_add(&f->m, b, 3);
	}
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	wr(f, VIRTIO_MMIO_STATUS, 0);
	/* some may have finished first (page cache); none is left running */
	assert_int_equal(f->blk.inflight, 0);
	after = vqm_used_idx(&f->m);
	assert_true((uint16_t)(after - start) <= 8);
	usleep(50000);
	assert_int_equal(vqm_used_idx(&f->m), after);
}

/* The file disk on the io_uring engine, flush order and latching. */
static void test_file_uring(void **state)
{
	struct fix *f = *state;
	const struct irq_line irq = { .set = fix_irq_set, .opaque = f };
	struct virtio_blk_disk_ops ops = virtio_blk_file_ops;
	struct virtio_blk_file bf;
	struct virtio_blk_disk disk;
	struct vqm_buf out;
	struct poller p;
	uint8_t back[SECTOR];
	char path[128];
	int fd;

	make_file(f, "img", 1024 * SECTOR, path, sizeof(path));
	assert_int_equal(virtio_blk_file_open(&bf, path, false, false), 0);
	virtio_blk_file_disk(&bf, "uring", &disk);
	ops.fd = ufile_fd;
	disk.ops = &ops;
	ufile.bf = &bf;
	ufile.flush_to_pipe = false;
	assert_int_equal(pipe(ufile.pipe), 0);
	vqm_init(&f->m, RAM_SIZE, NUM);
	assert_int_equal(
		virtio_blk_init(&f->blk, &SLOT_RES(0), &f->m.mem, &irq, &disk),
		0);
	driver_up(f, V1 | F_FLUSH);
	poller_start_ring(&p, f, VIRTIO_BLK_URING_ENTRIES);
	/* The pool's name gives the reason io_uring failed: "(io_uring: ...)" */
	if (strncmp(p.aio.name, "io_uring", 8)) {
		poller_stop(&p);
		skip(); /* no io_uring in this kernel */
	}
	uring_flush_order(f);
	assert_int_equal(ufile.flush_fds, 1);
	fd = open(path, O_RDONLY);
	assert_int_equal(pread(fd, back, SECTOR, 5 * 128 * SECTOR), SECTOR);
	close(fd);
	assert_int_equal(back[0], 0x35);
	/* fsync on the pipe fails: latched, later flushes fail at once */
	ufile.flush_to_pipe = true;
	assert_int_equal(areq(f, VIRTIO_BLK_T_FLUSH, 0, NULL),
			 VIRTIO_BLK_S_IOERR);
	ufile.flush_to_pipe = false;
	assert_int_equal(areq(f, VIRTIO_BLK_T_FLUSH, 0, NULL),
			 VIRTIO_BLK_S_IOERR);
	assert_int_equal(ufile.flush_fds, 2);
	out = vqm_buf_new(&f->m, SECTOR, false, 0x99);
	assert_int_equal(areq(f, VIRTIO_BLK_T_OUT, 3, &out), VIRTIO_BLK_S_OK);
	/* a reset clears the latch */
	wr(f, VIRTIO_MMIO_STATUS, 0);
	vqm_free(&f->m); /* fresh rings, at the same guest addresses */
	vqm_init(&f->m, RAM_SIZE, NUM);
	driver_up(f, V1 | F_FLUSH);
	assert_int_equal(areq(f, VIRTIO_BLK_T_FLUSH, 0, NULL), VIRTIO_BLK_S_OK);
	assert_int_equal(ufile.flush_fds, 3);
	uring_reset_drains(f);
	poller_stop(&p);
	virtio_blk_destroy(&f->blk);
	virtio_blk_file_close(&bf);
	vqm_free(&f->m);
	close(ufile.pipe[0]);
	close(ufile.pipe[1]);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
#define TRO(fn) cmocka_unit_test_setup_teardown(fn, setup_ro, teardown)
#define TB(fn) cmocka_unit_test_setup_teardown(fn, setup_basic, teardown)
#define TF(fn) cmocka_unit_test_setup_teardown(fn, setup_dir, teardown_dir)
#define TMQ(fn) cmocka_unit_test_setup_teardown(fn, setup_mq, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_identity),
		T(test_config_space),
		TRO(test_config_ro_and_basic),
		TB(test_config_ro_and_basic),
		T(test_out_in_round_trip),
		T(test_multi_segment),
		T(test_large_indirect),
		T(test_several_chains_one_notify),
		T(test_zero_length_io),
		T(test_end_of_disk),
		T(test_sector_overflow),
		T(test_partial_sector_length),
		T(test_flush),
		T(test_writethrough),
		T(test_get_id),
		cmocka_unit_test(test_disk_set_id),
		T(test_discard),
		T(test_write_zeroes),
		T(test_dwz_segment_count),
		TRO(test_read_only),
		T(test_unknown_type),
		T(test_short_header),
		T(test_no_status_byte),
		T(test_status_is_last_byte),
		T(test_backend_errors),
		T(test_broken_queue),
		T(test_flush_error_latched),
		T(test_size_cap),
		T(test_budget),
		T(test_busy_poll),
		T(test_busy_poll_adapts),
		T(test_busy_poll_deep_windows_adapt),
		T(test_busy_poll_deep_episode),
		T(test_busy_poll_sleeps_in_flight),
		T(test_busy_poll_not_for_one_at_a_time),
		T(test_route_by_depth),
		TMQ(test_slots_freed_in_pass),
		T(test_busy_poll_needs_event_idx),
		T(test_aio_flush_after_writes),
		T(test_aio_reset_drains),
		cmocka_unit_test(test_init_errors),
		TMQ(test_mq_config),
		TMQ(test_mq_queue_routing),
		TMQ(test_mq_flush_across_queues),
		cmocka_unit_test(test_mq_init_errors),
		TF(test_file_read_write),
		TF(test_file_lock),
		TF(test_file_read_only),
		TF(test_file_zeroes_and_discard),
		TF(test_file_direct),
		TF(test_file_errors),
		TF(test_file_end_to_end),
		TF(test_file_uring),
	};

	return cmocka_run_group_tests_name("virtio_blk", tests, NULL, NULL);
}
