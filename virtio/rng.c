// SPDX-License-Identifier: GPL-2.0
/* virtio-rng device core; see rng.h. */
#include <errno.h>
#include <sys/random.h>

#include "virtio/rng.h"
#include "lib/log.h"

#define RNG_BOUNCE 256

/* Fill the chain's writable buffers; returns the bytes written. */
static uint32_t rng_fill_chain(struct virtio_rng *rng,
			       const struct virtq_chain *chain)
{
	uint8_t buf[RNG_BOUNCE];
	struct virtq_writer w;
	uint64_t want;
	ssize_t got;

	virtq_writer_init(&w, chain);
	if (!virtq_writer_remaining(&w))
		pr_guest_once("virtio-rng: request without writable buffer");
	while ((want = virtq_writer_remaining(&w)) > 0 &&
	       virtq_writer_written(&w) < VIRTIO_RNG_CHAIN_MAX) {
		if (want > sizeof(buf))
			want = sizeof(buf);
		if (want > VIRTIO_RNG_CHAIN_MAX - virtq_writer_written(&w))
			want = VIRTIO_RNG_CHAIN_MAX - virtq_writer_written(&w);
		got = rng->source(rng->source_opaque, buf, want);
		if (got <= 0) {
			pr_once(LOG_WARN,
				"virtio-rng: entropy source failed (%zd)", got);
			break;
		}
		if ((uint64_t)got > want)
			got = want;
		virtq_writer_write(&w, buf, got);
	}
	return virtq_writer_written(&w);
}

static int rng_request(void *opaque, const struct virtq_chain *chain,
		       uint32_t *len)
{
	*len = rng_fill_chain(opaque, chain);
	return 0;
}

static void rng_notify(void *opaque, unsigned int q)
{
	struct virtio_rng *rng = opaque;

	virtio_mmio_process(&rng->vm, q, &rng->chain, rng_request, rng);
}

ssize_t virtio_rng_getrandom(void *opaque, void *buf, size_t len)
{
	ssize_t ret;

	(void)opaque;
	ret = getrandom(buf, len, GRND_NONBLOCK);
	return ret < 0 ? -errno : ret;
}

static const struct virtio_dev_ops rng_dev_ops = {
	.notify = rng_notify,
};

int virtio_rng_init(struct virtio_rng *rng, const struct dev_res *res,
		    const struct guest_mem *mem, const struct irq_line *irq,
		    virtio_rng_source_fn source, void *source_opaque)
{
	const struct virtio_dev dev = {
		.name = "virtio-rng",
		.ops = &rng_dev_ops,
		.opaque = rng,
		.device_id = VIRTIO_ID_RNG,
		.num_queues = 1,
		.queue_num_max = VIRTIO_RNG_QUEUE_SIZE,
	};

	if (!source)
		return -EINVAL;
	rng->source = source;
	rng->source_opaque = source_opaque;
	return virtio_mmio_init(&rng->vm, res, mem, irq, &dev);
}

void virtio_rng_destroy(struct virtio_rng *rng)
{
	virtio_mmio_destroy(&rng->vm);
}
