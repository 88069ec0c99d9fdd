// SPDX-License-Identifier: GPL-2.0
/* virtio-blk device core; see blk.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "virtio/blk.h"
#include "lib/log.h"

/* One request being decoded: the chain's cursors and the header. */
struct blk_req {
	const struct virtio_blk_disk *disk;
	struct virtq_reader r; /* positioned after the header */
	struct virtq_writer w; /* data goes here; the status byte is last */
	uint8_t *bounce;
	bool writethrough;
	uint32_t type;
	uint64_t sector;
	uint64_t data_len; /* IN/GET_ID: writable - 1; others: readable */
};

/* A DISCARD / WRITE_ZEROES segment, decoded. */
struct blk_dwz_seg {
	uint64_t sector;
	uint32_t num;
	uint32_t flags;
};

void virtio_blk_disk_set_id(struct virtio_blk_disk *disk, const char *s)
{
	memset(disk->id, 0, sizeof(disk->id));
	if (s)
		memcpy(disk->id, s, strnlen(s, sizeof(disk->id)));
}

/* The bytes the guest sees: whole sectors only. */
static uint64_t blk_disk_bytes(const struct virtio_blk_disk *disk)
{
	return disk->size & ~(uint64_t)(VIRTIO_BLK_SECTOR - 1);
}

/* Is [sector * 512, + len) inside the disk?  Overflow-safe. */
static bool blk_range_ok(const struct virtio_blk_disk *disk, uint64_t sector,
			 uint64_t len)
{
	uint64_t bytes = blk_disk_bytes(disk);

	if (sector > bytes / VIRTIO_BLK_SECTOR)
		return false;
	return len <= bytes - sector * VIRTIO_BLK_SECTOR;
}

static uint8_t blk_flush_disk(const struct virtio_blk_disk *disk)
{
	int ret;

	if (!disk->ops->flush)
		return VIRTIO_BLK_S_OK;
	ret = disk->ops->flush(disk->opaque);
	if (ret < 0) {
		pr_once(LOG_WARN, "virtio-blk: disk flush failed (%d)", ret);
		return VIRTIO_BLK_S_IOERR;
	}
	return VIRTIO_BLK_S_OK;
}

/* After a successful write: make it stable when in write-through mode. */
static uint8_t blk_written(const struct blk_req *rq)
{
	return rq->writethrough ? blk_flush_disk(rq->disk) : VIRTIO_BLK_S_OK;
}

static bool blk_refuse_ro(const struct blk_req *rq)
{
	if (!rq->disk->read_only)
		return false;
	pr_guest_once("virtio-blk: write request to a read-only disk");
	return true;
}

/* IN/OUT: whole sectors inside the disk. */
static bool blk_rw_ok(const struct blk_req *rq)
{
	if (rq->data_len % VIRTIO_BLK_SECTOR) {
		pr_guest_once("virtio-blk: data length not a multiple of 512");
		return false;
	}
	if (!blk_range_ok(rq->disk, rq->sector, rq->data_len)) {
		pr_guest_once("virtio-blk: request beyond the end of the disk");
		return false;
	}
	return true;
}

static size_t blk_chunk(uint64_t left)
{
	return left < VIRTIO_BLK_BOUNCE_SIZE ? left : VIRTIO_BLK_BOUNCE_SIZE;
}

static uint8_t blk_in(struct blk_req *rq)
{
	const struct virtio_blk_disk *d = rq->disk;
	uint64_t off = rq->sector * VIRTIO_BLK_SECTOR;
	ssize_t ret;
	size_t n;

	if (!blk_rw_ok(rq))
		return VIRTIO_BLK_S_IOERR;
	for (uint64_t done = 0; done < rq->data_len; done += n) {
		n = blk_chunk(rq->data_len - done);
		ret = d->ops->read(d->opaque, rq->bounce, n, off + done);
		if (ret != (ssize_t)n) {
			pr_once(LOG_WARN, "virtio-blk: disk read failed (%zd)",
				ret);
			return VIRTIO_BLK_S_IOERR;
		}
		virtq_writer_write(&rq->w, rq->bounce, n);
	}
	return VIRTIO_BLK_S_OK;
}

static uint8_t blk_out(struct blk_req *rq)
{
	const struct virtio_blk_disk *d = rq->disk;
	uint64_t off = rq->sector * VIRTIO_BLK_SECTOR;
	ssize_t ret;
	size_t n;

	if (blk_refuse_ro(rq) || !blk_rw_ok(rq))
		return VIRTIO_BLK_S_IOERR;
	for (uint64_t done = 0; done < rq->data_len; done += n) {
		n = blk_chunk(rq->data_len - done);
		if (virtq_reader_read(&rq->r, rq->bounce, n) != n)
			return VIRTIO_BLK_S_IOERR; /* cannot happen */
		ret = d->ops->write(d->opaque, rq->bounce, n, off + done);
		if (ret != (ssize_t)n) {
			pr_once(LOG_WARN, "virtio-blk: disk write failed (%zd)",
				ret);
			return VIRTIO_BLK_S_IOERR;
		}
	}
	return blk_written(rq);
}

static uint8_t blk_get_id(struct blk_req *rq)
{
	size_t n = rq->data_len < VIRTIO_BLK_ID_BYTES ? rq->data_len :
							VIRTIO_BLK_ID_BYTES;

	virtq_writer_write(&rq->w, rq->disk->id, n);
	return VIRTIO_BLK_S_OK;
}

/* Read and check the segments; returns the status and fills segs. */
static uint8_t blk_dwz_parse(struct blk_req *rq, bool discard,
			     struct blk_dwz_seg *segs, unsigned int *nr)
{
	uint32_t max = discard ? VIRTIO_BLK_MAX_DISCARD_SECTORS :
				 VIRTIO_BLK_MAX_WZ_SECTORS;
	uint8_t raw[VIRTIO_BLK_DWZ_SEG_SIZE];
	struct blk_dwz_seg *s;

	if (!rq->data_len || rq->data_len % VIRTIO_BLK_DWZ_SEG_SIZE ||
	    rq->data_len > VIRTIO_BLK_MAX_DWZ_SEG * VIRTIO_BLK_DWZ_SEG_SIZE) {
		pr_guest_once("virtio-blk: bad discard/write-zeroes segments");
		return VIRTIO_BLK_S_IOERR;
	}
	*nr = rq->data_len / VIRTIO_BLK_DWZ_SEG_SIZE;
	for (s = segs; s < segs + *nr; s++) {
		virtq_reader_read(&rq->r, raw, sizeof(raw));
		s->sector = mmio_data_get(raw, 8);
		s->num = mmio_data_get(raw + 8, 4);
		s->flags = mmio_data_get(raw + 12, 4);
		if ((s->flags & ~VIRTIO_BLK_DWZ_F_UNMAP) ||
		    (discard && s->flags)) {
			pr_guest_once("virtio-blk: unsupported segment flags");
			return VIRTIO_BLK_S_UNSUPP;
		}
		if (s->num > max ||
		    !blk_range_ok(rq->disk, s->sector,
				  (uint64_t)s->num * VIRTIO_BLK_SECTOR)) {
			pr_guest_once(
				"virtio-blk: bad discard/write-zeroes range");
			return VIRTIO_BLK_S_IOERR;
		}
	}
	return VIRTIO_BLK_S_OK;
}

static uint8_t blk_dwz(struct blk_req *rq)
{
	const struct virtio_blk_disk *d = rq->disk;
	bool discard = rq->type == VIRTIO_BLK_T_DISCARD;
	int (*op)(void *, uint64_t, uint64_t) =
		discard ? d->ops->discard : d->ops->write_zeroes;
	struct blk_dwz_seg segs[VIRTIO_BLK_MAX_DWZ_SEG];
	unsigned int nr;
	uint8_t status;
	int ret;

	if (!op) {
		pr_guest_once("virtio-blk: discard/write-zeroes not offered");
		return VIRTIO_BLK_S_UNSUPP;
	}
	if (blk_refuse_ro(rq))
		return VIRTIO_BLK_S_IOERR;
	status = blk_dwz_parse(rq, discard, segs, &nr);
	for (unsigned int i = 0; status == VIRTIO_BLK_S_OK && i < nr; i++) {
		if (!segs[i].num)
			continue;
		ret = op(d->opaque, segs[i].sector * VIRTIO_BLK_SECTOR,
			 (uint64_t)segs[i].num * VIRTIO_BLK_SECTOR);
		if (ret < 0) {
			pr_once(LOG_WARN, "virtio-blk: disk %s failed (%d)",
				discard ? "discard" : "write-zeroes", ret);
			status = VIRTIO_BLK_S_IOERR;
		}
	}
	return status == VIRTIO_BLK_S_OK ? blk_written(rq) : status;
}

static uint8_t blk_dispatch(struct blk_req *rq)
{
	switch (rq->type) {
	case VIRTIO_BLK_T_IN:
		return blk_in(rq);
	case VIRTIO_BLK_T_OUT:
		return blk_out(rq);
	case VIRTIO_BLK_T_FLUSH:
		return blk_flush_disk(rq->disk);
	case VIRTIO_BLK_T_GET_ID:
		return blk_get_id(rq);
	case VIRTIO_BLK_T_DISCARD:
	case VIRTIO_BLK_T_WRITE_ZEROES:
		return blk_dwz(rq);
	}
	pr_guest_once("virtio-blk: unsupported request type %u", rq->type);
	return VIRTIO_BLK_S_UNSUPP;
}

/* The last device-writable byte of a chain with writable_len > 0. */
static uint8_t *blk_status_byte(const struct virtq_chain *c)
{
	const struct virtq_seg *last = &c->segs[c->nr_segs - 1];

	return last->addr + last->len - 1;
}

struct virtio_blk_result virtio_blk_handle(const struct virtio_blk_disk *disk,
					   const struct virtq_chain *chain,
					   uint8_t *bounce, bool writethrough)
{
	struct blk_req rq = { .disk = disk,
			      .bounce = bounce,
			      .writethrough = writethrough };
	struct virtio_blk_result res = { .status = VIRTIO_BLK_S_IOERR };
	uint8_t hdr[VIRTIO_BLK_REQ_HDR_SIZE];
	uint64_t written;

	if (!chain->writable_len) {
		pr_guest_once("virtio-blk: request without a status byte");
		return (struct virtio_blk_result){ .status = -1 };
	}
	virtq_reader_init(&rq.r, chain);
	virtq_writer_init(&rq.w, chain);
	if (virtq_reader_read(&rq.r, hdr, sizeof(hdr)) == sizeof(hdr)) {
		rq.type = mmio_data_get(hdr, 4);
		rq.sector = mmio_data_get(hdr + 8, 8);
		if (rq.type == VIRTIO_BLK_T_IN ||
		    rq.type == VIRTIO_BLK_T_GET_ID)
			rq.data_len = chain->writable_len - 1;
		else
			rq.data_len = virtq_reader_remaining(&rq.r);
		res.status = blk_dispatch(&rq);
	} else {
		pr_guest_once("virtio-blk: request header too short");
	}
	*blk_status_byte(chain) = res.status;
	written = (uint64_t)virtq_writer_written(&rq.w) + 1;
	res.used_len = written > UINT32_MAX ? UINT32_MAX : written;
	return res;
}

/* --- the device ---------------------------------------------------------- */

static int blk_request(void *opaque, const struct virtq_chain *chain,
		       uint32_t *len)
{
	struct virtio_blk *blk = opaque;
	struct virtio_blk_result res;

	res = virtio_blk_handle(&blk->disk, chain, blk->bounce,
				blk->writethrough);
	*len = res.used_len;
	return 0;
}

static void blk_notify(void *opaque, unsigned int q)
{
	struct virtio_blk *blk = opaque;

	virtio_mmio_process(&blk->vm, q, &blk->chain, blk_request, blk);
}

/* Without FLUSH the guest expects every write to be stable at once. */
static int blk_features_ok(void *opaque, uint64_t features)
{
	struct virtio_blk *blk = opaque;

	blk->writethrough = !(features & VIRTIO_BIT(VIRTIO_BLK_F_FLUSH));
	return 0;
}

static void blk_config_read(void *opaque, uint32_t offset, void *data,
			    unsigned int len)
{
	struct virtio_blk *blk = opaque;

	memcpy(data, blk->config + offset, len);
}

static uint64_t blk_features(const struct virtio_blk_disk *disk)
{
	uint64_t f = VIRTIO_BIT(VIRTIO_BLK_F_SEG_MAX) |
		     VIRTIO_BIT(VIRTIO_BLK_F_BLK_SIZE) |
		     VIRTIO_BIT(VIRTIO_BLK_F_FLUSH);

	if (disk->read_only)
		f |= VIRTIO_BIT(VIRTIO_BLK_F_RO);
	if (disk->ops->discard)
		f |= VIRTIO_BIT(VIRTIO_BLK_F_DISCARD);
	if (disk->ops->write_zeroes)
		f |= VIRTIO_BIT(VIRTIO_BLK_F_WRITE_ZEROES);
	return f;
}

static void blk_config_put(struct virtio_blk *blk, uint32_t off,
			   unsigned int len, uint64_t v)
{
	mmio_data_put(blk->config + off, len, v);
}

static void blk_config_init(struct virtio_blk *blk)
{
	const struct virtio_blk_disk *d = &blk->disk;

	memset(blk->config, 0, sizeof(blk->config));
	blk_config_put(blk, VIRTIO_BLK_CFG_CAPACITY, 8,
		       d->size / VIRTIO_BLK_SECTOR);
	blk_config_put(blk, VIRTIO_BLK_CFG_SEG_MAX, 4, VIRTIO_BLK_SEG_MAX);
	blk_config_put(blk, VIRTIO_BLK_CFG_BLK_SIZE, 4, VIRTIO_BLK_BLK_SIZE);
	if (d->ops->discard) {
		blk_config_put(blk, VIRTIO_BLK_CFG_MAX_DISCARD_SECTORS, 4,
			       VIRTIO_BLK_MAX_DISCARD_SECTORS);
		blk_config_put(blk, VIRTIO_BLK_CFG_MAX_DISCARD_SEG, 4,
			       VIRTIO_BLK_MAX_DWZ_SEG);
		blk_config_put(blk, VIRTIO_BLK_CFG_DISCARD_ALIGN, 4,
			       VIRTIO_BLK_DISCARD_ALIGN);
	}
	if (d->ops->write_zeroes) {
		blk_config_put(blk, VIRTIO_BLK_CFG_MAX_WZ_SECTORS, 4,
			       VIRTIO_BLK_MAX_WZ_SECTORS);
		blk_config_put(blk, VIRTIO_BLK_CFG_MAX_WZ_SEG, 4,
			       VIRTIO_BLK_MAX_DWZ_SEG);
	}
}

static const struct virtio_dev_ops blk_dev_ops = {
	.notify = blk_notify,
	.features_ok = blk_features_ok,
	.config_read = blk_config_read,
};

static bool blk_disk_ok(const struct virtio_blk_disk *disk)
{
	return disk && disk->ops && disk->ops->read &&
	       (disk->read_only || disk->ops->write);
}

int virtio_blk_init(struct virtio_blk *blk, const struct dev_res *res,
		    const struct guest_mem *mem, const struct irq_line *irq,
		    const struct virtio_blk_disk *disk)
{
	struct virtio_dev dev = {
		.name = "virtio-blk",
		.ops = &blk_dev_ops,
		.opaque = blk,
		.device_id = VIRTIO_ID_BLOCK,
		.num_queues = 1,
		.queue_num_max = VIRTIO_BLK_QUEUE_SIZE,
		.config_size = VIRTIO_BLK_CONFIG_SIZE,
	};
	int ret;

	if (!blk_disk_ok(disk))
		return -EINVAL;
	blk->disk = *disk;
	blk->writethrough = true;	/* until FEATURES_OK says otherwise */
	dev.features = blk_features(disk);
	blk_config_init(blk);
	blk->bounce =
		aligned_alloc(VIRTIO_BLK_BOUNCE_ALIGN, VIRTIO_BLK_BOUNCE_SIZE);
	if (!blk->bounce)
		return -ENOMEM;
	ret = virtio_mmio_init(&blk->vm, res, mem, irq, &dev);
	if (ret) {
		free(blk->bounce);
		blk->bounce = NULL;
	}
	return ret;
}

void virtio_blk_destroy(struct virtio_blk *blk)
{
	virtio_mmio_destroy(&blk->vm);
	free(blk->bounce);
	blk->bounce = NULL;
}
