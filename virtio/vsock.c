// SPDX-License-Identifier: GPL-2.0
/* virtio-vsock device model; see vsock.h. */
#include <errno.h>
#include <string.h>

#include "lib/log.h"
#include "virtio/vsock.h"

static void vsock_notify(void *opaque, unsigned int q)
{
	struct virtio_vsock *vs = opaque;

	if (q < VIRTIO_VSOCK_RINGS && vs->started)
		vs->be.kick(vs->be.opaque, q);
}

static int vsock_features_ok(void *opaque, uint64_t features)
{
	struct virtio_vsock *vs = opaque;

	vs->features = features;
	return 0;
}

static int vsock_driver_ok(void *opaque)
{
	struct virtio_vsock *vs = opaque;
	int ret = vs->be.start(vs->be.opaque, vs->features);

	/* A failed start may have handed over some rings: stop at reset. */
	vs->started = true;
	return ret;
}

static void vsock_dma(void *opaque, bool on)
{
	struct virtio_vsock *vs = opaque;

	if (vs->started && vs->be.dma)
		vs->be.dma(vs->be.opaque, on);
}

static void vsock_reset(void *opaque)
{
	struct virtio_vsock *vs = opaque;

	if (vs->started)
		vs->be.stop(vs->be.opaque);
	vs->started = false;
	vs->features = 0;
}

static void vsock_config_read(void *opaque, uint32_t offset, void *data,
			      unsigned int len)
{
	const struct virtio_vsock *vs = opaque;
	uint8_t cfg[VIRTIO_VSOCK_CONFIG_SIZE];

	for (unsigned int i = 0; i < sizeof(cfg); i++)
		cfg[i] = vs->guest_cid >> (8 * i);
	if (offset > sizeof(cfg) || len > sizeof(cfg) - offset) {
		pr_guest_once("virtio-vsock: config read %u+%u", offset, len);
		memset(data, 0, len);
		return;
	}
	memcpy(data, cfg + offset, len);
}

static const struct virtio_dev_ops vsock_dev_ops = {
	.notify = vsock_notify,
	.reset = vsock_reset,
	.features_ok = vsock_features_ok,
	.config_read = vsock_config_read,
	.driver_ok = vsock_driver_ok,
	.dma = vsock_dma,
};

int virtio_vsock_init(struct virtio_vsock *vs, const struct dev_res *res,
		      const struct guest_mem *mem, const struct irq_line *irq,
		      uint64_t guest_cid, uint64_t host_features,
		      const struct virtio_vsock_backend *be)
{
	const struct virtio_dev dev = {
		.name = "virtio-vsock",
		.ops = &vsock_dev_ops,
		.opaque = vs,
		.device_id = VIRTIO_ID_VSOCK,
		.features =
			host_features & VIRTIO_BIT(VIRTIO_VSOCK_F_SEQPACKET),
		.num_queues = VIRTIO_VSOCK_QUEUES,
		.queue_num_max = VIRTIO_VSOCK_QUEUE_SIZE,
		.config_size = VIRTIO_VSOCK_CONFIG_SIZE,
	};

	if (!virtio_vsock_cid_ok(guest_cid) || !be || !be->start || !be->stop ||
	    !be->kick)
		return -EINVAL;
	memset(vs, 0, sizeof(*vs));
	vs->guest_cid = guest_cid;
	vs->be = *be;
	return virtio_mmio_init(&vs->vm, res, mem, irq, &dev);
}

void virtio_vsock_destroy(struct virtio_vsock *vs)
{
	virtio_mmio_destroy(&vs->vm);
}
