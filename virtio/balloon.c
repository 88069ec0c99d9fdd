// SPDX-License-Identifier: GPL-2.0
/* virtio-balloon device core; see balloon.h. */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/log.h"
#include "virtio/balloon.h"

#define PFN_BATCH 256
#define STAT_SIZE 10 /* u16 tag, u64 value, packed */

/* One frame: checked against guest RAM, then given back if inflating. */
static void balloon_frame(struct virtio_balloon *b, uint32_t pfn, bool inflate)
{
	uint64_t gpa = (uint64_t)pfn << VIRTIO_BALLOON_PFN_SHIFT;
	void *host = guest_mem_ptr(b->mem, gpa, VIRTIO_BALLOON_PAGE);
	int ret;

	if (!host) {
		pr_guest_once("virtio-balloon: frame %#x is not guest RAM",
			      pfn);
		return;
	}
	if (!inflate) {
		b->info.deflated++;
		return;
	}
	b->info.inflated++;
	ret = b->discard(b->discard_opaque, host, VIRTIO_BALLOON_PAGE);
	if (ret)
		pr_once(LOG_WARN, "virtio-balloon: cannot give pages back: %s",
			strerror(-ret));
	else
		b->info.discarded++;
}

struct balloon_req {
	struct virtio_balloon *b;
	bool inflate;
};

/* A chain of little-endian u32 frame numbers (a partial one ignored). */
static int balloon_pfns(void *opaque, const struct virtq_chain *chain,
			uint32_t *len)
{
	struct balloon_req *req = opaque;
	uint32_t pfns[PFN_BATCH];
	struct virtq_reader r;
	size_t n;

	virtq_reader_init(&r, chain);
	while ((n = virtq_reader_read(&r, pfns, sizeof(pfns)) / 4) > 0)
		for (size_t i = 0; i < n; i++)
			balloon_frame(req->b, le32toh(pfns[i]), req->inflate);
	*len = 0;
	return 0;
}

/* Read a statistics buffer into info. */
static void balloon_read_stats(struct virtio_balloon *b,
			       const struct virtq_chain *chain)
{
	struct virtq_reader r;
	uint8_t e[STAT_SIZE];

	virtq_reader_init(&r, chain);
	for (unsigned int i = 0;
	     i < VIRTIO_BALLOON_STATS_MAX &&
	     virtq_reader_read(&r, e, sizeof(e)) == sizeof(e);
	     i++) {
		uint16_t tag;
		uint64_t val;

		memcpy(&tag, e, 2);
		memcpy(&val, e + 2, 8);
		tag = le16toh(tag);
		if (tag >= VIRTIO_BALLOON_S_NR)
			continue;
		b->info.stats[tag] = le64toh(val);
		b->info.stats_valid |= 1u << tag;
	}
	b->info.stats_gen++;
}

/* Return the held statistics buffer (lock held). */
static void balloon_stats_return(struct virtio_balloon *b)
{
	struct virtqueue *vq =
		virtio_mmio_queue(&b->vm, VIRTIO_BALLOON_Q_STATS);

	if (!b->stats_held)
		return;
	b->stats_held = false;
	if (!virtq_push(vq, b->stats_head, 0))
		virtio_mmio_signal_used(&b->vm, VIRTIO_BALLOON_Q_STATS);
}

static void balloon_stats_notify(struct virtio_balloon *b)
{
	struct virtqueue *vq =
		virtio_mmio_queue(&b->vm, VIRTIO_BALLOON_Q_STATS);

	while (virtq_pop(vq, &b->chain) == 1) {
		if (b->stats_held) {
			pr_guest_once(
				"virtio-balloon: a second statistics buffer");
			balloon_stats_return(b);
		}
		balloon_read_stats(b, &b->chain);
		b->stats_head = b->chain.head;
		b->stats_held = true;
	}
}

static void balloon_notify(void *opaque, unsigned int q)
{
	struct virtio_balloon *b = opaque;
	struct balloon_req req = { b, q == VIRTIO_BALLOON_Q_INFLATE };

	if (q == VIRTIO_BALLOON_Q_STATS)
		balloon_stats_notify(b);
	else
		virtio_mmio_process(&b->vm, q, &b->chain, balloon_pfns, &req);
}

static void balloon_reset(void *opaque)
{
	struct virtio_balloon *b = opaque;

	b->stats_held = false;
	b->info.actual = 0;
	b->info.stats_vq = false;
}

static int balloon_features_ok(void *opaque, uint64_t features)
{
	struct virtio_balloon *b = opaque;

	b->info.stats_vq = features & VIRTIO_BIT(VIRTIO_BALLOON_F_STATS_VQ);
	return 0;
}

static void balloon_config_read(void *opaque, uint32_t offset, void *data,
				unsigned int len)
{
	struct virtio_balloon *b = opaque;
	uint32_t cfg[2] = { htole32(b->info.num_pages),
			    htole32(b->info.actual) };

	memcpy(data, (uint8_t *)cfg + offset, len);
}

static void balloon_config_write(void *opaque, uint32_t offset,
				 const void *data, unsigned int len)
{
	struct virtio_balloon *b = opaque;
	uint32_t actual = htole32(b->info.actual);

	if (offset < 4) {
		pr_guest_once("virtio-balloon: write to num_pages");
		return;
	}
	memcpy((uint8_t *)&actual + (offset - 4), data, len);
	b->info.actual = le32toh(actual);
}

static const struct virtio_dev_ops balloon_dev_ops = {
	.notify = balloon_notify,
	.reset = balloon_reset,
	.features_ok = balloon_features_ok,
	.config_read = balloon_config_read,
	.config_write = balloon_config_write,
};

int virtio_balloon_init(struct virtio_balloon *b, const struct dev_res *res,
			const struct guest_mem *mem, const struct irq_line *irq,
			virtio_balloon_discard_fn discard, void *opaque)
{
	const struct virtio_dev dev = {
		.name = "virtio-balloon",
		.ops = &balloon_dev_ops,
		.opaque = b,
		.device_id = VIRTIO_ID_BALLOON,
		.features = VIRTIO_BIT(VIRTIO_BALLOON_F_STATS_VQ),
		.num_queues = 3,
		.queue_num_max = VIRTIO_BALLOON_QUEUE_SIZE,
		.config_size = VIRTIO_BALLOON_CONFIG_SIZE,
	};

	if (!discard || !mem)
		return -EINVAL;
	memset(&b->info, 0, sizeof(b->info));
	b->mem = mem;
	b->discard = discard;
	b->discard_opaque = opaque;
	b->stats_held = false;
	return virtio_mmio_init(&b->vm, res, mem, irq, &dev);
}

void virtio_balloon_destroy(struct virtio_balloon *b)
{
	virtio_mmio_destroy(&b->vm);
}

void virtio_balloon_set_target(struct virtio_balloon *b, uint32_t pages)
{
	virtio_mmio_lock(&b->vm);
	b->info.num_pages = pages;
	virtio_core_config_changed_locked(&b->vm.core);
	virtio_mmio_unlock(&b->vm);
}

void virtio_balloon_get_info(struct virtio_balloon *b,
			     struct virtio_balloon_info *out)
{
	virtio_mmio_lock(&b->vm);
	*out = b->info;
	virtio_mmio_unlock(&b->vm);
}

int virtio_balloon_stats_refresh(struct virtio_balloon *b)
{
	int ret = 0;

	virtio_mmio_lock(&b->vm);
	if (!b->info.stats_vq ||
	    !virtio_mmio_queue_live(&b->vm, VIRTIO_BALLOON_Q_STATS))
		ret = -ENODEV;
	else if (!b->stats_held)
		ret = -EAGAIN;
	else
		balloon_stats_return(b);
	virtio_mmio_unlock(&b->vm);
	return ret;
}

int virtio_balloon_madvise(void *opaque, void *host, size_t len)
{
	const bool *shared = opaque;

	/*
	 * Guest RAM in a file (a memfd or on hugetlbfs, mapped shared):
	 * dropping lkvm's page tables would leave the pages in the file.
	 */
	if (shared && *shared)
		return madvise(host, len, MADV_REMOVE) < 0 ? -errno : 0;
	return madvise(host, len, MADV_DONTNEED) < 0 ? -errno : 0;
}
