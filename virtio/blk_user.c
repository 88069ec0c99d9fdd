// SPDX-License-Identifier: GPL-2.0
/* virtio-blk served by a vhost-user back-end; see blk_user.h. */
#include <errno.h>
#include <string.h>

#include "virtio/blk.h"
#include "virtio/blk_user.h"

static uint32_t le32_at(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64_at(const uint8_t *p)
{
	return le32_at(p) | (uint64_t)le32_at(p + 4) << 32;
}

int virtio_blk_user_check(const uint8_t *cfg, uint32_t len, uint64_t features,
			  uint64_t *capacity, const char **why)
{
	uint32_t bs;

	*why = NULL;
	if (len != VIRTIO_BLK_USER_CONFIG_SIZE)
		*why = "a configuration of the wrong size";
	else if ((features & VIRTIO_BACKED_NEEDED) != VIRTIO_BACKED_NEEDED)
		*why = "no VERSION_1, INDIRECT_DESC or EVENT_IDX";
	else if (le64_at(cfg + VIRTIO_BLK_CFG_CAPACITY) >=
		 VIRTIO_BLK_USER_MAX_SECTORS)
		*why = "a capacity out of range";
	if (*why)
		return -EPROTO;
	bs = le32_at(cfg + VIRTIO_BLK_CFG_BLK_SIZE);
	if ((features & VIRTIO_BIT(VIRTIO_BLK_F_BLK_SIZE)) &&
	    (bs < 512 || bs > 65536 || (bs & (bs - 1))))
		*why = "a block size out of range";
	else if ((features & VIRTIO_BIT(VIRTIO_BLK_F_SEG_MAX)) &&
		 !le32_at(cfg + VIRTIO_BLK_CFG_SEG_MAX))
		*why = "a seg_max of 0";
	if (*why)
		return -EPROTO;
	*capacity = le64_at(cfg + VIRTIO_BLK_CFG_CAPACITY);
	return 0;
}

/*
 * Orphan (the daemon is gone): every request fails, status IOERR in the
 * last writable byte (the status), what comes before it zeroed.
 */
static int blk_user_fail(void *opaque, const struct virtq_chain *chain,
			 uint32_t *len)
{
	static const uint8_t zero[512];
	const uint8_t ioerr = VIRTIO_BLK_S_IOERR;
	struct virtq_writer w;
	uint64_t left;

	virtq_writer_init(&w, chain);
	while ((left = virtq_writer_remaining(&w)) > 1)
		virtq_writer_write(&w, zero,
				   left - 1 < sizeof(zero) ? left - 1 :
							     sizeof(zero));
	virtq_writer_write(&w, &ioerr, left ? 1 : 0);
	*len = virtq_writer_written(&w);
	return 0;
}

int virtio_blk_user_init(struct virtio_blk_user *d, const struct dev_res *res,
			 const struct guest_mem *mem,
			 const struct irq_line *irq, const uint8_t *cfg,
			 uint32_t len, uint64_t features,
			 const struct virtio_backend *be)
{
	const struct virtio_dev dev = {
		.name = "virtio-blk",
		.device_id = VIRTIO_ID_BLOCK,
		.features = features & VIRTIO_BLK_USER_FEATURES,
		.num_queues = VIRTIO_BLK_USER_QUEUES,
		.queue_num_max = VIRTIO_BLK_USER_QUEUE_SIZE,
		.config_size = VIRTIO_BLK_USER_CONFIG_SIZE,
	};
	uint64_t capacity;
	const char *why;
	int ret = virtio_blk_user_check(cfg, len, features, &capacity, &why);

	if (ret)
		return ret;
	ret = virtio_backed_init(&d->b, res, mem, irq, &dev, cfg, be);
	d->b.orphan = blk_user_fail;
	d->capacity = capacity;
	return ret;
}

void virtio_blk_user_destroy(struct virtio_blk_user *d)
{
	virtio_backed_destroy(&d->b);
}
