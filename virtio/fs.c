// SPDX-License-Identifier: GPL-2.0
/* virtio-fs device model; see fs.h. */
#include <errno.h>
#include <string.h>

#include "virtio/fs.h"

bool virtio_fs_tag_ok(const char *tag)
{
	size_t n = tag ? strlen(tag) : 0;

	return n >= 1 && n <= VIRTIO_FS_TAG_LEN;
}

int virtio_fs_init(struct virtio_fs *fs, const struct dev_res *res,
		   const struct guest_mem *mem, const struct irq_line *irq,
		   const char *tag, const struct virtio_backend *be)
{
	const struct virtio_dev dev = {
		.name = "virtio-fs",
		.device_id = VIRTIO_ID_FS,
		.features = 0,
		.num_queues = VIRTIO_FS_QUEUES,
		.queue_num_max = VIRTIO_FS_QUEUE_SIZE,
		.config_size = VIRTIO_FS_CONFIG_SIZE,
	};
	uint8_t cfg[VIRTIO_FS_CONFIG_SIZE] = { 0 };

	if (!virtio_fs_tag_ok(tag))
		return -EINVAL;
	/* NUL-padded; no NUL when the tag fills the field. */
	memcpy(cfg, tag, strlen(tag));
	/* num_request_queues, le32 */
	cfg[VIRTIO_FS_TAG_LEN] = VIRTIO_FS_QUEUES - 1;
	return virtio_backed_init(&fs->b, res, mem, irq, &dev, cfg, be);
}

void virtio_fs_destroy(struct virtio_fs *fs)
{
	virtio_backed_destroy(&fs->b);
}
