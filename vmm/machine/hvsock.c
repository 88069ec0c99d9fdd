// SPDX-License-Identifier: GPL-2.0
/* --vsock CID,socket=PATH: the unix-socket vsock back-end; see hvsock.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/machine/hvsock.h"

/* Host peers accepted per wake-up of the I/O thread. */
#define HVSOCK_ACCEPT_BATCH 16

static int hvsock_addr(struct sockaddr_un *a, const char *path, uint32_t port,
		       bool with_port)
{
	int n;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	n = with_port ? snprintf(a->sun_path, sizeof(a->sun_path), "%s_%u",
				 path, port) :
			snprintf(a->sun_path, sizeof(a->sun_path), "%s", path);
	return n < 0 || (size_t)n >= sizeof(a->sun_path) ? -ENAMETOOLONG : 0;
}

/* Edge-triggered: the core tries until -EAGAIN, so no event is lost. */
static int hvsock_epoll_add(struct hvsock *s, int fd)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
		.data.fd = fd,
	};

	return epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

static int hvsock_connect(void *opaque, uint32_t port)
{
	struct hvsock *s = opaque;
	struct sockaddr_un a;
	int fd, ret = hvsock_addr(&a, s->path, port, true);

	if (ret)
		return ret;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A unix stream connects at once, or fails (EAGAIN: backlog full). */
	ret = connect(fd, (struct sockaddr *)&a, sizeof(a)) ? -errno : 0;
	ret = ret ?: hvsock_epoll_add(s, fd);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

static long hvsock_send(void *opaque, int h, const void *buf, size_t len)
{
	ssize_t n = send(h, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);

	return n < 0 ? (errno == EWOULDBLOCK ? -EAGAIN : -errno) : n;
}

static long hvsock_recv(void *opaque, int h, void *buf, size_t len)
{
	ssize_t n = recv(h, buf, len, MSG_DONTWAIT);

	return n < 0 ? (errno == EWOULDBLOCK ? -EAGAIN : -errno) : n;
}

static void hvsock_shutdown_wr(void *opaque, int h)
{
	shutdown(h, SHUT_WR);
}

static void hvsock_close(void *opaque, int h)
{
	close(h);
}

static uint64_t hvsock_now_ms(void *opaque)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const struct vsock_hy_host_ops hvsock_ops = {
	.connect = hvsock_connect,
	.send = hvsock_send,
	.recv = hvsock_recv,
	.shutdown_wr = hvsock_shutdown_wr,
	.close = hvsock_close,
	.now_ms = hvsock_now_ms,
};

/* Does a process listen on the socket at a? */
static bool hvsock_in_use(const struct sockaddr_un *a)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool used;

	if (fd < 0)
		return false;
	used = !connect(fd, (const struct sockaddr *)a, sizeof(*a)) ||
	       errno == EAGAIN;
	close(fd);
	return used;
}

/* PATH free, or a stale socket removed: 0, or -errno said. */
static int hvsock_clear(const struct sockaddr_un *a)
{
	struct stat st;

	if (lstat(a->sun_path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		pr_err("--vsock: %s exists and is not a socket", a->sun_path);
		return -EEXIST;
	}
	if (hvsock_in_use(a)) {
		pr_err("--vsock: a process listens on %s already (another lkvm?)",
		       a->sun_path);
		return -EADDRINUSE;
	}
	return unlink(a->sun_path) ? -errno : 0;
}

/*
 * The listening socket; s->listen_fd only once bound (hvsock_close_fds()
 * then removes PATH: a bind that failed made no file of ours there).
 */
static int hvsock_listen(struct hvsock *s)
{
	struct sockaddr_un a;
	int fd = -1, ret = hvsock_addr(&a, s->path, 0, false);

	ret = ret ?: hvsock_clear(&a);
	if (ret == -EEXIST || ret == -EADDRINUSE)
		return ret;
	if (!ret)
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    0);
	if (!ret && (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)))) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
	} else if (!ret) {
		s->listen_fd = fd;
		if (listen(fd, HVSOCK_ACCEPT_BATCH))
			ret = -errno;
	}
	if (ret)
		pr_err("--vsock: cannot listen on %s: %s", s->path,
		       strerror(-ret));
	return ret;
}

static int hvsock_dev_init(void *opaque, struct board_slot *slot)
{
	struct hvsock *s = opaque;
	int ret =
		vsock_hy_init(&s->hy, &slot->res, &slot->board->vm->mem,
			      &slot->line, s->hy.dev.guest_cid, &hvsock_ops, s);

	if (ret)
		pr_err("vsock: cannot create the device: %s", strerror(-ret));
	return ret;
}

static void hvsock_dev_destroy(void *opaque)
{
	struct hvsock *s = opaque;

	vsock_hy_destroy(&s->hy);
}

static void hvsock_close_fds(struct hvsock *s)
{
	if (s->listen_fd >= 0) {
		close(s->listen_fd);
		unlink(s->path);
	}
	if (s->epfd >= 0)
		close(s->epfd);
	s->listen_fd = s->epfd = -1;
}

/* The epoll set and the listening socket in it: 0, or -errno said. */
static int hvsock_open(struct hvsock *s)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ret;

	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0) {
		pr_err("vsock: epoll: %s", strerror(errno));
		return -errno;
	}
	ret = hvsock_listen(s);
	if (ret)
		return ret;
	ev.data.fd = s->listen_fd;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->listen_fd, &ev)) {
		pr_err("vsock: epoll: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

int hvsock_up(struct hvsock *s, const struct vm_config *cfg, struct board *b)
{
	const struct board_virtio_dev dev = { hvsock_dev_init,
					      hvsock_dev_destroy, s,
					      &s->hy.dev.vm };
	int ret;

	*s = (struct hvsock){ .listen_fd = -1, .epfd = -1 };
	if (!cfg->vsock_cid || !cfg->vsock_socket[0])
		return 0;
	s->path = cfg->vsock_socket;
	s->hy.dev.guest_cid = cfg->vsock_cid;
	ret = hvsock_open(s);
	ret = ret   ?:
		      board_virtio_attach(b, "vsock", VIRTIO_TRANSPORT_DEFAULT,
					  &dev);
	s->live = !ret;
	if (ret)
		hvsock_close_fds(s);
	else
		pr_debug(
			"vsock: guest CID %llu, host side on the unix socket %s",
			(unsigned long long)cfg->vsock_cid, s->path);
	return ret;
}

static void hvsock_accept(struct hvsock *s)
{
	for (unsigned int i = 0; i < HVSOCK_ACCEPT_BATCH; i++) {
		int fd = accept4(s->listen_fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != ECONNABORTED)
				pr_once(LOG_WARN, "vsock: accept on %s: %s",
					s->path, strerror(errno));
			return;
		}
		if (hvsock_epoll_add(s, fd)) {
			pr_once(LOG_WARN, "vsock: epoll: %s", strerror(errno));
			close(fd);
			continue;
		}
		vsock_hy_host_accept(&s->hy, fd);
	}
}

/* On the I/O thread: the listening socket or a connection is ready. */
static void hvsock_events(void *opaque)
{
	struct hvsock *s = opaque;
	struct epoll_event ev[32];
	int n = epoll_wait(s->epfd, ev, 32, 0);

	for (int i = 0; i < n; i++) {
		if (ev[i].data.fd == s->listen_fd)
			hvsock_accept(s);
		else
			vsock_hy_host_ready(&s->hy, ev[i].data.fd);
	}
}

/* Every turn of the I/O thread: end what waited too long. */
static int64_t hvsock_poll(void *opaque)
{
	struct hvsock *s = opaque;
	int64_t ms = vsock_hy_tick(&s->hy);

	return ms < 0 ? -1 : ms * 1000000;
}

int hvsock_watch(struct hvsock *s, struct iothread *io)
{
	int ret;

	if (!s->live)
		return 0;
	ret = iothread_add(io, s->epfd, hvsock_events, s);
	return ret ?: iothread_add_poller(io, hvsock_poll, s);
}

void hvsock_down(struct hvsock *s)
{
	if (!s->live)
		return;
	pr_debug(
		"vsock: %llu connections, %llu resets sent, %llu guest packets dropped",
		(unsigned long long)s->hy.stats.conns,
		(unsigned long long)s->hy.stats.rsts_sent,
		(unsigned long long)s->hy.stats.dropped);
	vsock_hy_destroy(&s->hy);
	hvsock_close_fds(s);
	s->live = false;
}
