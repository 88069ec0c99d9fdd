// SPDX-License-Identifier: GPL-2.0
/*
 * virtio-blk's fallback asynchronous engine: a pool of worker threads that
 * take backend calls from a FIFO, run them with virtio_blk_exec() and put
 * them on a done list, then wake the owner's I/O thread through an
 * eventfd.  blk_engine.c chooses between it and io_uring.  See blk.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "virtio/blk.h"
#include "lib/log.h"

#define POOL_MAX_THREADS 8

struct blk_pool {
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct virtio_blk_io *queue, **queue_tail, *done;
	bool quit;
	unsigned int nr_threads;
	unsigned int delay_ms; /* before each request (--debug-iodelay) */
	pthread_t threads[POOL_MAX_THREADS];
	struct virtio_blk_aio *aio;
};

/* The next queued call, or NULL when told to quit. */
static struct virtio_blk_io *pool_next(struct blk_pool *p)
{
	struct virtio_blk_io *io;

	pthread_mutex_lock(&p->lock);
	while (!p->queue && !p->quit)
		pthread_cond_wait(&p->work, &p->lock);
	io = p->quit ? NULL : p->queue;
	if (io) {
		p->queue = io->next;
		if (!p->queue)
			p->queue_tail = &p->queue;
	}
	pthread_mutex_unlock(&p->lock);
	return io;
}

static void *pool_worker(void *arg)
{
	struct blk_pool *p = arg;
	struct virtio_blk_io *io;
	uint64_t one = 1;

	while ((io = pool_next(p))) {
		if (p->delay_ms)
			usleep(p->delay_ms * 1000);
		virtio_blk_exec(p->aio->disk, io);
		pthread_mutex_lock(&p->lock);
		io->next = p->done;
		p->done = io;
		pthread_mutex_unlock(&p->lock);
		if (write(p->aio->efd, &one, sizeof(one)) < 0)
			pr_once(LOG_WARN, "virtio-blk: eventfd: %s",
				strerror(errno));
	}
	return NULL;
}

static void pool_submit(struct virtio_blk_aio *a, struct virtio_blk_io *io)
{
	struct blk_pool *p = a->priv;

	io->next = NULL;
	pthread_mutex_lock(&p->lock);
	*p->queue_tail = io;
	p->queue_tail = &io->next;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->lock);
}

static struct virtio_blk_io *pool_reap(struct virtio_blk_aio *a)
{
	struct blk_pool *p = a->priv;
	struct virtio_blk_io *io;

	pthread_mutex_lock(&p->lock);
	io = p->done;
	p->done = NULL;
	pthread_mutex_unlock(&p->lock);
	return io;
}

static void pool_destroy(struct virtio_blk_aio *a)
{
	struct blk_pool *p = a->priv;

	pthread_mutex_lock(&p->lock);
	p->quit = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (unsigned int i = 0; i < p->nr_threads; i++)
		pthread_join(p->threads[i], NULL);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

static const struct virtio_blk_aio_ops pool_ops = {
	.submit = pool_submit,
	.reap = pool_reap,
	.destroy = pool_destroy,
};

/* A failed init undoes itself (blk_engine.c is above the engines). */
static void pool_abandon(struct virtio_blk_aio *a)
{
	if (a->ops)
		pool_destroy(a);
	if (a->efd >= 0)
		close(a->efd);
	memset(a, 0, sizeof(*a));
	a->efd = -1;
}

static int pool_start(struct blk_pool *p, unsigned int n)
{
	sigset_t all, old;
	int ret = 0;

	/* Workers take no signals: the VMM's handlers run elsewhere. */
	sigfillset(&all);
	/* A seccomp trap must reach lkvm's SIGSYS handler (seccomp.c). */
	sigdelset(&all, SIGSYS);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (p->nr_threads = 0; p->nr_threads < n; p->nr_threads++) {
		ret = pthread_create(&p->threads[p->nr_threads], NULL,
				     pool_worker, p);
		if (ret)
			break;
		pthread_setname_np(p->threads[p->nr_threads], "lkvm-blk-pool");
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -ret;
}

int virtio_blk_pool_init(struct virtio_blk_aio *a,
			 const struct virtio_blk_disk *disk,
			 unsigned int nr_threads, unsigned int delay_ms)
{
	struct blk_pool *p;
	int ret;

	memset(a, 0, sizeof(*a));
	a->disk = disk;
	a->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p = calloc(1, sizeof(*p));
	if (a->efd < 0 || !p) {
		ret = a->efd < 0 ? -errno : -ENOMEM;
		free(p);
		pool_abandon(a);
		return ret;
	}
	p->aio = a;
	p->delay_ms = delay_ms;
	p->queue_tail = &p->queue;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	nr_threads = nr_threads < 1 ? 1 : nr_threads;
	nr_threads =
		nr_threads > POOL_MAX_THREADS ? POOL_MAX_THREADS : nr_threads;
	a->ops = &pool_ops;
	a->priv = p;
	ret = pool_start(p, nr_threads);
	snprintf(a->name, sizeof(a->name), "thread pool, %u threads%s",
		 nr_threads, delay_ms ? ", --debug-iodelay" : "");
	if (ret)
		pool_abandon(a);
	return ret;
}
