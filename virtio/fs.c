// SPDX-License-Identifier: GPL-2.0
/* virtio-fs device model; see fs.h. */
#include <errno.h>
#include <string.h>

#include "lib/log.h"
#include "virtio/fs.h"

static void fs_notify(void *opaque, unsigned int q)
{
	struct virtio_fs *fs = opaque;

	if (q < VIRTIO_FS_QUEUES && fs->started)
		fs->be.kick(fs->be.opaque, q);
}

static int fs_features_ok(void *opaque, uint64_t features)
{
	struct virtio_fs *fs = opaque;

	fs->features = features;
	return 0;
}

static int fs_driver_ok(void *opaque)
{
	struct virtio_fs *fs = opaque;
	int ret = fs->be.start(fs->be.opaque, fs->features);

	/* A failed start may have handed over some rings: stop at reset. */
	fs->started = true;
	return ret;
}

static void fs_dma(void *opaque, bool on)
{
	struct virtio_fs *fs = opaque;

	if (fs->started && fs->be.dma)
		fs->be.dma(fs->be.opaque, on);
}

static void fs_reset(void *opaque)
{
	struct virtio_fs *fs = opaque;

	if (fs->started)
		fs->be.stop(fs->be.opaque);
	fs->started = false;
	fs->features = 0;
}

static void fs_config_read(void *opaque, uint32_t offset, void *data,
			   unsigned int len)
{
	const struct virtio_fs *fs = opaque;
	uint8_t cfg[VIRTIO_FS_CONFIG_SIZE];

	memcpy(cfg, fs->tag, VIRTIO_FS_TAG_LEN);
	/* num_request_queues, le32 */
	cfg[VIRTIO_FS_TAG_LEN] = VIRTIO_FS_QUEUES - 1;
	memset(cfg + VIRTIO_FS_TAG_LEN + 1, 0, 3);
	if (offset > sizeof(cfg) || len > sizeof(cfg) - offset) {
		pr_guest_once("virtio-fs: config read %u+%u", offset, len);
		memset(data, 0, len);
		return;
	}
	memcpy(data, cfg + offset, len);
}

static const struct virtio_dev_ops fs_dev_ops = {
	.notify = fs_notify,
	.reset = fs_reset,
	.features_ok = fs_features_ok,
	.config_read = fs_config_read,
	.driver_ok = fs_driver_ok,
	.dma = fs_dma,
};

bool virtio_fs_tag_ok(const char *tag)
{
	size_t n = tag ? strlen(tag) : 0;

	return n >= 1 && n <= VIRTIO_FS_TAG_LEN;
}

int virtio_fs_init(struct virtio_fs *fs, const struct dev_res *res,
		   const struct guest_mem *mem, const struct irq_line *irq,
		   const char *tag, const struct virtio_fs_backend *be)
{
	const struct virtio_dev dev = {
		.name = "virtio-fs",
		.ops = &fs_dev_ops,
		.opaque = fs,
		.device_id = VIRTIO_ID_FS,
		.features = 0,
		.num_queues = VIRTIO_FS_QUEUES,
		.queue_num_max = VIRTIO_FS_QUEUE_SIZE,
		.config_size = VIRTIO_FS_CONFIG_SIZE,
	};

	if (!virtio_fs_tag_ok(tag) || !be || !be->start || !be->stop ||
	    !be->kick)
		return -EINVAL;
	memset(fs, 0, sizeof(*fs));
	/* NUL-padded; no NUL when the tag fills the field. */
	memcpy(fs->tag, tag, strlen(tag));
	fs->be = *be;
	return virtio_mmio_init(&fs->vm, res, mem, irq, &dev);
}

void virtio_fs_destroy(struct virtio_fs *fs)
{
	virtio_mmio_destroy(&fs->vm);
}
