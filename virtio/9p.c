// SPDX-License-Identifier: GPL-2.0
/* virtio-9p device core; see 9p.h. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "virtio/9p.h"

/* On the worker, without the lock: serve one chain; the used length. */
static uint32_t p9_request(struct virtio_9p *p, const struct virtq_chain *chain)
{
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
	out = p->serve(&p->srv, p->req, in, p->resp, cap);
	if (!out)
		pr_guest_once("virtio-9p: no room for a reply");
	return virtq_writer_write(&w, p->resp, out);
}

/*
 * Lock held: serve the available chains one by one, letting go of the
 * lock while each is served.  Stops when the queue is empty or not live
 * (reset, bus mastering off: a later notification goes on) or on quit.
 */
static void p9_drain(struct virtio_9p *p)
{
	struct virtio_core *c = &p->vm.core;
	struct virtqueue *vq = virtio_core_queue(c, 0);
	uint32_t len;
	int ret = 0;

	while (!p->quit && virtio_core_queue_live(c, 0) &&
	       (ret = virtq_pop(vq, &p->chain)) > 0) {
		p->busy = true;
		pthread_mutex_unlock(&c->lock);
		len = p9_request(p, &p->chain);
		pthread_mutex_lock(&c->lock);
		p->busy = false;
		pthread_cond_broadcast(&p->idle);
		/* After a reset meanwhile the queue is not ready: dropped. */
		virtq_push(vq, p->chain.head, len);
		virtio_core_signal_used(c, 0);
	}
	if (ret < 0)
		virtio_core_signal_used(c, 0); /* broken: NEEDS_RESET */
}

static void *p9_worker(void *arg)
{
	struct virtio_9p *p = arg;
	struct virtio_core *c = &p->vm.core;

	pthread_mutex_lock(&c->lock);
	while (!p->quit) {
		if (!p->kicked) {
			pthread_cond_wait(&p->wake, &c->lock);
			continue;
		}
		p->kicked = false;
		p9_drain(p);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* Lock held, on the notifying thread: hand the queue to the worker. */
static void p9_notify(void *opaque, unsigned int q)
{
	struct virtio_9p *p = opaque;

	p->kicked = true;
	pthread_cond_signal(&p->wake);
}

/*
 * Lock held (a driver reset or a guest reboot; the rings are reset
 * already): wait for the request being served, then reset the server,
 * which the worker is not using now.
 */
static void p9_reset(void *opaque)
{
	struct virtio_9p *p = opaque;

	p->kicked = false;
	while (p->busy)
		pthread_cond_wait(&p->idle, &p->vm.core.lock);
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

/* Start the worker with every signal blocked (signals are not its job). */
static int p9_start(struct virtio_9p *p)
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&p->worker, NULL, p9_worker, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return -ret;
	p->started = true;
	pthread_setname_np(p->worker, "lkvm-9p");
	return 0;
}

void virtio_9p_stop(struct virtio_9p *p)
{
	if (!p->started)
		return;
	virtio_mmio_lock(&p->vm);
	p->quit = true;
	pthread_cond_signal(&p->wake);
	virtio_mmio_unlock(&p->vm);
	pthread_join(p->worker, NULL);
	p->started = false;
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
	p->serve = p9_server_handle;
	p->req = malloc(P9_MSIZE_MAX);
	p->resp = malloc(P9_MSIZE_MAX);
	ret = p->req && p->resp ?
		      virtio_mmio_init(&p->vm, res, mem, irq, &dev) :
		      -ENOMEM;
	if (ret) {
		p9_free(p);
		return ret;
	}
	pthread_cond_init(&p->wake, NULL);
	pthread_cond_init(&p->idle, NULL);
	ret = p9_start(p);
	if (ret)
		virtio_9p_destroy(p);
	return ret;
}

void virtio_9p_destroy(struct virtio_9p *p)
{
	virtio_9p_stop(p);
	pthread_cond_destroy(&p->wake);
	pthread_cond_destroy(&p->idle);
	virtio_mmio_destroy(&p->vm);
	p9_free(p);
}
