// SPDX-License-Identifier: GPL-2.0
/* The control socket: server thread and client side; see ctl.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmm/ctl/ctl.h"
#include "lib/log.h"

/* A client that does not send its request within this is dropped. */
#define CTL_IO_TIMEOUT_S 5
/* The client waits this long for an answer (a pause may take a while). */
#define CTL_REPLY_TIMEOUT_S 30

int ctl_dir(char *buf, size_t size, bool create)
{
	const char *home = getenv("HOME");
	struct stat st;
	int n;

	if (!home || !*home) {
		if (create)
			pr_warn("HOME is not set: no control socket, 'lkvm list', stop, pause, ... cannot reach this guest");
		else
			pr_err("HOME is not set: no place for control sockets");
		return -ENOENT;
	}
	n = snprintf(buf, size, "%s/%s", home, CTL_DIR);
	if (n < 0 || (size_t)n >= size) {
		pr_err("HOME is too long for the control socket path");
		return -ENAMETOOLONG;
	}
	if (create && mkdir(buf, 0700) < 0 && errno != EEXIST) {
		pr_err("cannot create %s: %s", buf, strerror(errno));
		return -errno;
	}
	if (lstat(buf, &st) < 0)
		return create ? (pr_err("%s: %s", buf, strerror(errno)),
				 -errno) :
				-ENOENT;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		pr_err("%s is not a directory of this user", buf);
		return -EPERM;
	}
	if ((st.st_mode & 077) && create && chmod(buf, 0700) < 0) {
		pr_err("cannot make %s private: %s", buf, strerror(errno));
		return -errno;
	}
	return 0;
}

int ctl_sock_path(char *buf, size_t size, const char *dir, const char *name)
{
	int n;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return -EINVAL;
	n = snprintf(buf, size, "%s/%s%s", dir, name, CTL_SUFFIX);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int ctl_path_of(char *path, size_t size, const char *name, bool create)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int ret = ctl_dir(dir, sizeof(dir), create);

	if (ret)
		return ret;
	ret = ctl_sock_path(path, size, dir, name);
	if (ret == -EINVAL)
		pr_err("guest name '%s' cannot name a socket (no '/', '.' or '..')",
		       name);
	else if (ret)
		pr_err("guest name '%s' makes the socket path too long", name);
	return ret;
}

static int ctl_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	memcpy(sa.sun_path, path, strnlen(path, sizeof(sa.sun_path) - 1));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

/* --- server ------------------------------------------------------------ */

static bool ctl_peer_ok(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return false;
	if (cred.uid == geteuid())
		return true;
	pr_once(LOG_WARN, "control socket: refused a client of uid %u",
		(unsigned int)cred.uid);
	return false;
}

static void ctl_set_timeouts(int fd, int seconds)
{
	struct timeval tv = { .tv_sec = seconds };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/*
 * One message into s->buf, and the descriptor that came with it (or -1)
 * into *passed; any other descriptors are closed.
 */
static ssize_t ctl_recv(struct ctl_server *s, int fd, int *passed)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(4 * sizeof(int))];
	} ctrl;
	struct iovec iov = { s->buf, sizeof(s->buf) };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = ctrl.buf,
			      .msg_controllen = sizeof(ctrl.buf) };
	ssize_t n;

	/* A signal this thread does not block must not cost the request. */
	do
		n = recvmsg(fd, &msg, MSG_TRUNC | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	*passed = -1;
	if (n < 0)
		return n;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c;
	     c = CMSG_NXTHDR(&msg, c)) {
		size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < nfd; i++) {
			int got;

			memcpy(&got, CMSG_DATA(c) + i * sizeof(int),
			       sizeof(int));
			if (*passed < 0)
				*passed = got;
			else
				close(got);
		}
	}
	return n;
}

/* Read one request, answer it. */
static void ctl_serve(struct ctl_server *s, int fd)
{
	struct ctl_request req;
	ssize_t n;
	int ret, passed;

	ctl_set_timeouts(fd, CTL_IO_TIMEOUT_S);
	n = ctl_recv(s, fd, &passed);
	if (n <= 0) {
		if (passed >= 0)
			close(passed);
		return;
	}
	ret = (size_t)n > sizeof(s->buf) ? -EMSGSIZE :
					   ctl_decode_request(s->buf, n, &req);
	memset(&s->resp, 0, sizeof(s->resp));
	if (!ret && req.type == CTL_DUMP)
		req.fd = passed; /* the handler closes it */
	else if (passed >= 0)
		close(passed);
	if (ret) {
		pr_once(LOG_WARN, "control socket: bad request (%s)",
			strerror(-ret));
		return;
	}
	s->resp.type = req.type;
	s->handler(s->opaque, &req, &s->resp);
	ret = ctl_encode_response(&s->resp, s->buf, sizeof(s->buf));
	while (ret > 0 && send(fd, s->buf, ret, MSG_NOSIGNAL) < 0) {
		if (errno == EINTR)
			continue;
		pr_debug("control socket: send: %s", strerror(errno));
		break;
	}
}

static int ctl_spare(void)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/*
 * The next client, or -1.  With every descriptor taken (EMFILE, ENFILE)
 * the spare one makes room for it, so that "lkvm stop" still works; with
 * no spare left the thread waits a while rather than poll again at once.
 */
static int ctl_accept(struct ctl_server *s)
{
	int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd >= 0 || (errno != EMFILE && errno != ENFILE))
		return fd;
	pr_once(LOG_WARN, "control socket: out of file descriptors (%s)",
		strerror(errno));
	if (s->spare_fd < 0) {
		struct pollfd quit = { .fd = s->quit_fd, .events = POLLIN };

		poll(&quit, 1, CTL_BACKOFF_MS);
		return -1;
	}
	close(s->spare_fd);
	s->spare_fd = -1;
	return accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
}

static void *ctl_thread(void *arg)
{
	struct ctl_server *s = arg;
	struct pollfd pfd[2] = {
		{ .fd = s->quit_fd, .events = POLLIN },
		{ .fd = s->lfd, .events = POLLIN },
	};

	for (;;) {
		int fd;

		if (poll(pfd, 2, -1) < 0)
			continue;
		if (pfd[0].revents)
			return NULL;
		if (!(pfd[1].revents & POLLIN))
			continue;
		fd = ctl_accept(s);
		if (fd >= 0 && ctl_peer_ok(fd))
			ctl_serve(s, fd);
		if (fd >= 0)
			close(fd);
		if (s->spare_fd < 0)
			s->spare_fd = ctl_spare();
	}
}

/* A socket at path: -EADDRINUSE if a live lkvm answers, else removed. */
static int ctl_claim_path(const char *path, const char *name)
{
	int fd = ctl_connect(path);

	if (fd >= 0) {
		close(fd);
		pr_err("a guest named '%s' is already running (%s)", name,
		       path);
		return -EADDRINUSE;
	}
	if (fd == -ECONNREFUSED)
		unlink(path);
	return 0;
}

static int ctl_listen(struct ctl_server *s)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	s->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s->lfd < 0)
		return -errno;
	memcpy(sa.sun_path, s->path, strnlen(s->path, sizeof(sa.sun_path) - 1));
	/* The directory is 0700: nobody else can reach it meanwhile. */
	if (bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	if (chmod(s->path, 0600) < 0 || listen(s->lfd, 8) < 0) {
		int ret = -errno;

		unlink(s->path);
		return ret;
	}
	return 0;
}

int ctl_server_start(struct ctl_server *s, const char *name,
		     ctl_handler_fn *handler, void *opaque)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->lfd = -1;
	s->handler = handler;
	s->opaque = opaque;
	s->spare_fd = ctl_spare();
	s->quit_fd = eventfd(0, EFD_CLOEXEC);
	if (s->quit_fd < 0 || s->spare_fd < 0) {
		ret = -errno;
		pr_err("control socket: %s", strerror(-ret));
		if (s->quit_fd >= 0)
			close(s->quit_fd);
		if (s->spare_fd >= 0)
			close(s->spare_fd);
		return ret;
	}
	ret = ctl_path_of(s->path, sizeof(s->path), name, true);
	ret = ret ?: ctl_claim_path(s->path, name);
	if (ret)
		goto fail;
	ret = ctl_listen(s);
	if (ret) {
		pr_err("control socket %s: %s", s->path, strerror(-ret));
		goto fail;
	}
	ret = -pthread_create(&s->thread, NULL, ctl_thread, s);
	if (!ret) {
		s->started = true;
		pthread_setname_np(s->thread, "lkvm-ctl");
		return 0;
	}
	pr_err("cannot start the control thread: %s", strerror(-ret));
	unlink(s->path);
fail:
	ctl_server_stop(s);
	return ret;
}

void ctl_server_stop(struct ctl_server *s)
{
	uint64_t one = 1;

	if (s->started && write(s->quit_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(s->thread, NULL);
	if (s->started)
		unlink(s->path);
	s->started = false;
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->quit_fd >= 0)
		close(s->quit_fd);
	if (s->spare_fd >= 0)
		close(s->spare_fd);
	s->lfd = s->quit_fd = s->spare_fd = -1;
}

/* --- client ------------------------------------------------------------ */

/* One message, with descriptor pass (>= 0) as SCM_RIGHTS. */
static ssize_t ctl_send(int fd, const void *buf, size_t len, int pass)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctrl;
	struct iovec iov = { (void *)buf, len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (pass >= 0) {
		memset(&ctrl, 0, sizeof(ctrl));
		msg.msg_control = ctrl.buf;
		msg.msg_controllen = sizeof(ctrl.buf);
		CMSG_FIRSTHDR(&msg)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&msg)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&msg)->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&msg)), &pass, sizeof(int));
	}
	return sendmsg(fd, &msg, MSG_NOSIGNAL);
}

static int ctl_exchange(int fd, const struct ctl_request *req,
			struct ctl_response *resp)
{
	static uint8_t buf[CTL_MSG_MAX];
	int n = ctl_encode_request(req, buf, sizeof(buf));
	ssize_t got;

	if (n < 0)
		return n;
	ctl_set_timeouts(fd, CTL_REPLY_TIMEOUT_S);
	if (ctl_send(fd, buf, n, req->type == CTL_DUMP ? req->fd : -1) != n)
		return -errno;
	got = recv(fd, buf, sizeof(buf), MSG_TRUNC);
	if (got < 0)
		return errno == EAGAIN ? -ETIMEDOUT : -errno;
	if (got == 0)
		return -ECONNRESET; /* refused or dropped */
	if ((size_t)got > sizeof(buf))
		return -EMSGSIZE;
	n = ctl_decode_response(buf, got, resp);
	if (!n && resp->type != req->type)
		n = -EPROTO;
	return n;
}

static int ctl_request_at(const char *path, const struct ctl_request *req,
			  struct ctl_response *resp)
{
	int fd = ctl_connect(path);
	int ret;

	if (fd == -ECONNREFUSED)
		unlink(path); /* a dead lkvm's */
	if (fd < 0)
		return fd;
	ret = ctl_exchange(fd, req, resp);
	close(fd);
	return ret;
}

int ctl_request(const char *name, const struct ctl_request *req,
		struct ctl_response *resp)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int ret = ctl_path_of(path, sizeof(path), name, false);

	return ret ?: ctl_request_at(path, req, resp);
}

/* NAME of an entry NAME.sock, or false. */
static bool ctl_entry_name(const char *entry, char *name, size_t size)
{
	size_t len = strlen(entry), slen = strlen(CTL_SUFFIX);

	if (len <= slen || strcmp(entry + len - slen, CTL_SUFFIX) ||
	    len - slen >= size)
		return false;
	memcpy(name, entry, len - slen);
	name[len - slen] = '\0';
	return true;
}

/* Is guest name alive?  A stale socket is removed (and said so). */
static bool ctl_alive(const char *dir, const char *name)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int fd;

	if (ctl_sock_path(path, sizeof(path), dir, name))
		return false;
	fd = ctl_connect(path);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	if (fd == -ECONNREFUSED && !unlink(path))
		fprintf(stderr,
			"lkvm: %s: removed the stale socket of a dead lkvm\n",
			name);
	return false;
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int ctl_enumerate(int (*fn)(const char *name, void *opaque), void *opaque)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char name[sizeof(dir)];
	struct dirent **list;
	int n, ret = ctl_dir(dir, sizeof(dir), false);

	if (ret)
		return ret == -ENOENT && getenv("HOME") ? 0 : ret;
	n = scandir(dir, &list, NULL, name_cmp);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		if (!ret &&
		    ctl_entry_name(list[i]->d_name, name, sizeof(name)) &&
		    ctl_alive(dir, name))
			ret = fn(name, opaque);
		free(list[i]);
	}
	free(list);
	return ret;
}
