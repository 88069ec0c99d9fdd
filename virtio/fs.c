// SPDX-License-Identifier: GPL-2.0
/* virtio-fs device model; see fs.h. */
#include <errno.h>
#include <linux/fuse.h>
#include <string.h>

#include "virtio/fs.h"

/*
 * Once virtiofsd is gone: every request gets FUSE's error reply,
 * ENOTCONN (what a FUSE file system whose daemon died answers), so the
 * guest's later file operations fail instead of waiting for ever; one
 * with no room for a reply (FORGET, BATCH_FORGET) is given back as it
 * is.  Requests the daemon had taken are its own, lost with it.  The
 * header is in the guest's byte order, as the whole FUSE protocol over
 * virtio-fs is: the unique id goes back as it came.
 */
static int fs_orphan(void *opaque, const struct virtq_chain *chain,
		     uint32_t *len)
{
	struct fuse_in_header in;
	struct fuse_out_header out = { .len = sizeof(out), .error = -ENOTCONN };
	struct virtq_reader r;
	struct virtq_writer w;

	(void)opaque;
	*len = 0;
	virtq_reader_init(&r, chain);
	if (virtq_reader_read(&r, &in, sizeof(in)) < sizeof(in) ||
	    chain->writable_len < sizeof(out))
		return 0;
	out.unique = in.unique;
	virtq_writer_init(&w, chain);
	*len = (uint32_t)virtq_writer_write(&w, &out, sizeof(out));
	return 0;
}

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
	int ret;

	if (!virtio_fs_tag_ok(tag))
		return -EINVAL;
	/* NUL-padded; no NUL when the tag fills the field. */
	memcpy(cfg, tag, strlen(tag));
	/* num_request_queues, le32 */
	cfg[VIRTIO_FS_TAG_LEN] = VIRTIO_FS_QUEUES - 1;
	ret = virtio_backed_init(&fs->b, res, mem, irq, &dev, cfg, be);
	fs->b.orphan = fs_orphan;
	return ret;
}

void virtio_fs_destroy(struct virtio_fs *fs)
{
	virtio_backed_destroy(&fs->b);
}
