// SPDX-License-Identifier: GPL-2.0
/*
 * virtio-blk's asynchronous engine: worker threads take backend calls
 * from a FIFO, run them with virtio_blk_exec() and put them on a done
 * list, then wake the owner's I/O thread through an eventfd.  See blk.h.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "virtio/blk.h"
#include "lib/log.h"

#define AIO_MAX_THREADS \
	(sizeof(((struct virtio_blk_aio *)0)->threads) / sizeof(pthread_t))

/* The next queued call, or NULL when told to quit. */
static struct virtio_blk_io *aio_next(struct virtio_blk_aio *a)
{
	struct virtio_blk_io *io;

	pthread_mutex_lock(&a->lock);
	while (!a->queue && !a->quit)
		pthread_cond_wait(&a->work, &a->lock);
	io = a->quit ? NULL : a->queue;
	if (io) {
		a->queue = io->next;
		if (!a->queue)
			a->queue_tail = &a->queue;
	}
	pthread_mutex_unlock(&a->lock);
	return io;
}

static void *aio_worker(void *arg)
{
	struct virtio_blk_aio *a = arg;
	struct virtio_blk_io *io;
	uint64_t one = 1;

	while ((io = aio_next(a))) {
		virtio_blk_exec(a->disk, io);
		pthread_mutex_lock(&a->lock);
		io->next = a->done;
		a->done = io;
		pthread_mutex_unlock(&a->lock);
		if (write(a->efd, &one, sizeof(one)) < 0)
			pr_once(LOG_WARN, "virtio-blk: eventfd: %s",
				strerror(errno));
	}
	return NULL;
}

static int aio_start(struct virtio_blk_aio *a, unsigned int n)
{
	sigset_t all, old;
	int ret = 0;

	/* Workers take no signals: the VMM's handlers run elsewhere. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (a->nr_threads = 0; a->nr_threads < n; a->nr_threads++) {
		ret = pthread_create(&a->threads[a->nr_threads], NULL,
				     aio_worker, a);
		if (ret)
			break;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -ret;
}

int virtio_blk_aio_init(struct virtio_blk_aio *a,
			const struct virtio_blk_disk *disk,
			unsigned int nr_threads)
{
	int ret;

	memset(a, 0, sizeof(*a));
	a->disk = disk;
	a->queue_tail = &a->queue;
	a->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (a->efd < 0)
		return -errno;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->work, NULL);
	if (nr_threads < 1)
		nr_threads = 1;
	if (nr_threads > AIO_MAX_THREADS)
		nr_threads = AIO_MAX_THREADS;
	ret = aio_start(a, nr_threads);
	if (ret)
		virtio_blk_aio_destroy(a);
	return ret;
}

void virtio_blk_aio_destroy(struct virtio_blk_aio *a)
{
	pthread_mutex_lock(&a->lock);
	a->quit = true;
	pthread_cond_broadcast(&a->work);
	pthread_mutex_unlock(&a->lock);
	for (unsigned int i = 0; i < a->nr_threads; i++)
		pthread_join(a->threads[i], NULL);
	a->nr_threads = 0;
	pthread_cond_destroy(&a->work);
	pthread_mutex_destroy(&a->lock);
	if (a->efd >= 0)
		close(a->efd);
	a->efd = -1;
}
