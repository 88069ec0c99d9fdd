// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "vmm/host/iothread.h"
#include "lib/log.h"

int iothread_init(struct iothread *t)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

	memset(t, 0, sizeof(*t));
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	t->quit_fd = eventfd(0, EFD_CLOEXEC);
	if (t->epfd < 0 || t->quit_fd < 0 ||
	    epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->quit_fd, &ev) < 0) {
		int ret = -errno;

		if (t->epfd >= 0)
			close(t->epfd);
		if (t->quit_fd >= 0)
			close(t->quit_fd);
		return ret;
	}
	return 0;
}

static uint32_t iothread_events(const struct iothread_fd *f)
{
	return EPOLLIN | (f->edge ? EPOLLET : 0);
}

static int iothread_add_fd(struct iothread *t, int fd, bool edge,
			   void (*handler)(void *opaque), void *opaque)
{
	struct iothread_fd *f;
	struct epoll_event ev;

	if (t->nr_fds == IOTHREAD_MAX_FDS)
		return -ENOSPC;
	f = &t->fds[t->nr_fds];
	*f = (struct iothread_fd){
		.fd = fd, .handler = handler, .opaque = opaque, .edge = edge
	};
	ev = (struct epoll_event){ .events = iothread_events(f),
				   .data.ptr = f };
	if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	t->nr_fds++;
	return 0;
}

int iothread_add(struct iothread *t, int fd, void (*handler)(void *opaque),
		 void *opaque)
{
	return iothread_add_fd(t, fd, false, handler, opaque);
}

int iothread_add_edge(struct iothread *t, int fd, void (*handler)(void *opaque),
		      void *opaque)
{
	return iothread_add_fd(t, fd, true, handler, opaque);
}

int iothread_add_poller(struct iothread *t, iothread_poll_fn *fn, void *opaque)
{
	if (t->nr_pollers == IOTHREAD_MAX_POLLERS)
		return -ENOSPC;
	t->pollers[t->nr_pollers].fn = fn;
	t->pollers[t->nr_pollers].opaque = opaque;
	t->nr_pollers++;
	return 0;
}

/* Run the pollers: the soonest next turn one of them wants, in ns. */
static int64_t iothread_poll(struct iothread *t)
{
	int64_t timeout = -1;

	for (unsigned int i = 0; i < t->nr_pollers; i++) {
		int64_t ns = t->pollers[i].fn(t->pollers[i].opaque);

		if (ns >= 0 && (timeout < 0 || ns < timeout))
			timeout = ns;
	}
	return timeout;
}

/*
 * epoll_wait with a timeout in ns (-1: none): epoll_pwait2, or on a kernel
 * older than 5.11 epoll_wait with the timeout rounded up to a ms.
 */
static int iothread_wait(struct iothread *t, struct epoll_event *evs, int max,
			 int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000,
			       .tv_nsec = ns % 1000000000 };
	int n;

	if (!t->no_pwait2) {
		n = epoll_pwait2(t->epfd, evs, max, ns < 0 ? NULL : &ts, NULL);
		if (n >= 0 || errno != ENOSYS)
			return n;
		t->no_pwait2 = true;
	}
	return epoll_wait(t->epfd, evs, max,
			  ns < 0 ? -1 : (int)((ns + 999999) / 1000000));
}

static void *iothread_run(void *arg)
{
	struct iothread *t = arg;
	struct epoll_event evs[IOTHREAD_MAX_FDS + 1];
	int64_t timeout = -1;

	for (;;) {
		int n = iothread_wait(t, evs, IOTHREAD_MAX_FDS + 1, timeout);

		if (n < 0 && errno != EINTR) {
			pr_err("I/O thread: epoll_wait: %s", strerror(errno));
			return NULL;
		}
		for (int i = 0; i < n; i++) {
			struct iothread_fd *f = evs[i].data.ptr;

			if (!f)
				return NULL; /* quit */
			f->handler(f->opaque);
		}
		timeout = iothread_poll(t);
	}
}

int iothread_start(struct iothread *t)
{
	int ret = pthread_create(&t->thread, NULL, iothread_run, t);

	t->started = !ret;
	if (t->started)
		pthread_setname_np(t->thread, "lkvm-io");
	return -ret;
}

void iothread_stop(struct iothread *t)
{
	uint64_t one = 1;

	if (t->started && write(t->quit_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(t->thread, NULL);
	t->started = false;
	close(t->quit_fd);
	close(t->epfd);
}

int iothread_watch(struct iothread *t, int fd, bool on)
{
	for (unsigned int i = 0; i < t->nr_fds; i++) {
		struct iothread_fd *f = &t->fds[i];
		struct epoll_event ev = { .events = iothread_events(f),
					  .data.ptr = f };

		if (f->fd != fd)
			continue;
		if (f->off == !on)
			return 0;
		if (epoll_ctl(t->epfd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, fd,
			      &ev) < 0)
			return -errno;
		f->off = !on;
		return 0;
	}
	return -ENOENT;
}
