// SPDX-License-Identifier: GPL-2.0
/* A virtio device served by a back-end; see backed.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "virtio/backed.h"

/* Every waiting request of queue q answered by the model. */
static void backed_orphan_run(struct virtio_backed *d, unsigned int q)
{
	struct virtq_chain *chain = malloc(sizeof(*chain));

	if (!chain) {
		pr_once(LOG_WARN, "%s: no memory for a request",
			d->vm.core.dev.name);
		return;
	}
	virtio_core_process(&d->vm.core, q, chain, d->orphan, d);
	free(chain);
}

static void backed_notify(void *opaque, unsigned int q)
{
	struct virtio_backed *d = opaque;

	if (q >= d->vm.core.dev.num_queues)
		return;
	if (d->orphaned)
		backed_orphan_run(d, q);
	else if (d->started)
		d->be.kick(d->be.opaque, q);
}

int virtio_backed_adopt_locked(struct virtio_backed *d)
{
	struct virtio_core *c = &d->vm.core;
	int ret = d->orphan ? 0 : -EOPNOTSUPP;

	for (unsigned int q = 0; !ret && q < c->dev.num_queues; q++)
		if (c->queues[q].ready)
			ret = virtq_adopt(&c->queues[q]);
	if (ret) {
		virtio_core_fail_locked(c);
		return ret;
	}
	d->orphaned = true;
	d->started = false;
	for (unsigned int q = 0; q < c->dev.num_queues; q++)
		if (virtio_core_queue_live(c, q))
			backed_orphan_run(d, q);
	return 0;
}

static int backed_features_ok(void *opaque, uint64_t features)
{
	struct virtio_backed *d = opaque;

	d->features = features;
	return 0;
}

static int backed_driver_ok(void *opaque)
{
	struct virtio_backed *d = opaque;
	int ret;

	if (d->orphaned)
		return 0; /* the model answers: nothing to hand over */
	ret = d->be.start(d->be.opaque, d->features);

	/* A failed start may have handed over some rings: stop at reset. */
	d->started = true;
	return ret;
}

static void backed_dma(void *opaque, bool on)
{
	struct virtio_backed *d = opaque;

	if (d->started && d->be.dma)
		d->be.dma(d->be.opaque, on);
}

static void backed_reset(void *opaque)
{
	struct virtio_backed *d = opaque;

	if (d->started)
		d->be.stop(d->be.opaque);
	d->started = false;
	d->features = 0;
}

static void backed_config_read(void *opaque, uint32_t offset, void *data,
			       unsigned int len)
{
	const struct virtio_backed *d = opaque;
	uint32_t size = d->vm.core.dev.config_size;

	if (offset > size || len > size - offset) {
		pr_guest_once("%s: config read %u+%u", d->vm.core.dev.name,
			      offset, len);
		memset(data, 0, len);
		return;
	}
	memcpy(data, d->config + offset, len);
}

static const struct virtio_dev_ops backed_ops = {
	.notify = backed_notify,
	.reset = backed_reset,
	.features_ok = backed_features_ok,
	.config_read = backed_config_read,
	.driver_ok = backed_driver_ok,
	.dma = backed_dma,
};

int virtio_backed_init(struct virtio_backed *d, const struct dev_res *res,
		       const struct guest_mem *mem, const struct irq_line *irq,
		       const struct virtio_dev *dev, const void *config,
		       const struct virtio_backend *be)
{
	struct virtio_dev desc = *dev;

	if (!be || !be->start || !be->stop || !be->kick ||
	    dev->config_size > VIRTIO_BACKED_CONFIG_MAX ||
	    (dev->config_size && !config))
		return -EINVAL;
	memset(d, 0, sizeof(*d));
	if (dev->config_size)
		memcpy(d->config, config, dev->config_size);
	d->be = *be;
	desc.ops = &backed_ops;
	desc.opaque = d;
	return virtio_mmio_init(&d->vm, res, mem, irq, &desc);
}

void virtio_backed_destroy(struct virtio_backed *d)
{
	virtio_mmio_destroy(&d->vm);
}
