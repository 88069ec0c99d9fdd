// SPDX-License-Identifier: GPL-2.0
/* virtio-9p device core; see 9p.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "virtio/9p.h"

static int p9_request(void *opaque, const struct virtq_chain *chain,
		      uint32_t *len)
{
	struct virtio_9p *p = opaque;
	struct virtq_reader r;
	struct virtq_writer w;
	uint32_t in, out, cap;

	virtq_reader_init(&r, chain);
	virtq_writer_init(&w, chain);
	if (virtq_reader_remaining(&r) > P9_MSIZE_MAX)
		pr_guest_once("virtio-9p: request longer than %u bytes",
			      P9_MSIZE_MAX);
	in = virtq_reader_read(&r, p->req, P9_MSIZE_MAX);
	cap = virtq_writer_remaining(&w) > P9_MSIZE_MAX ?
		      P9_MSIZE_MAX :
		      (uint32_t)virtq_writer_remaining(&w);
	out = p9_server_handle(&p->srv, p->req, in, p->resp, cap);
	if (!out)
		pr_guest_once("virtio-9p: no room for a reply");
	*len = virtq_writer_write(&w, p->resp, out);
	return 0;
}

static void p9_notify(void *opaque, unsigned int q)
{
	struct virtio_9p *p = opaque;

	virtio_mmio_process(&p->vm, q, &p->chain, p9_request, p);
}

static void p9_reset(void *opaque)
{
	struct virtio_9p *p = opaque;

	p9_server_reset(&p->srv);
}

static void p9_config_read(void *opaque, uint32_t offset, void *data,
			   unsigned int len)
{
	struct virtio_9p *p = opaque;
	uint8_t cfg[2 + VIRTIO_9P_TAG_MAX] = { p->tag_len, p->tag_len >> 8 };

	memcpy(cfg + 2, p->tag, p->tag_len);
	if (offset <= sizeof(cfg) && len <= sizeof(cfg) - offset)
		memcpy(data, cfg + offset, len);
	else
		memset(data, 0, len);
}

static const struct virtio_dev_ops p9_dev_ops = {
	.notify = p9_notify,
	.reset = p9_reset,
	.config_read = p9_config_read,
};

static void p9_free(struct virtio_9p *p)
{
	p9_server_destroy(&p->srv);
	free(p->req);
	free(p->resp);
	p->req = p->resp = NULL;
}

int virtio_9p_init(struct virtio_9p *p, const struct dev_res *res,
		   const struct guest_mem *mem, const struct irq_line *irq,
		   const char *dir, const char *tag)
{
	size_t tlen = tag ? strlen(tag) : 0;
	const struct virtio_dev dev = {
		.name = "virtio-9p",
		.ops = &p9_dev_ops,
		.opaque = p,
		.device_id = VIRTIO_ID_9P,
		.features = VIRTIO_BIT(VIRTIO_9P_MOUNT_TAG),
		.num_queues = 1,
		.queue_num_max = VIRTIO_9P_QUEUE_SIZE,
		.config_size = 2 + tlen,
	};
	int ret;

	if (!tlen || tlen > VIRTIO_9P_TAG_MAX)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->tag_len = tlen;
	memcpy(p->tag, tag, tlen);
	ret = p9_server_init(&p->srv, dir);
	if (ret)
		return ret;
	p->req = malloc(P9_MSIZE_MAX);
	p->resp = malloc(P9_MSIZE_MAX);
	ret = p->req && p->resp ?
		      virtio_mmio_init(&p->vm, res, mem, irq, &dev) :
		      -ENOMEM;
	if (ret)
		p9_free(p);
	return ret;
}

void virtio_9p_destroy(struct virtio_9p *p)
{
	virtio_mmio_destroy(&p->vm);
	p9_free(p);
}
