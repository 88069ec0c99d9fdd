// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/host/spawn.h"
#include "vmm/host/usernet.h"

extern char **environ;

/* How long passt may take to start (an emulated host is slow). */
#define USERNET_START_MS 30000
/* How long a send waits for room before the link counts as congested. */
#define USERNET_SEND_WAIT_MS 20
/* Socket buffers we ask for (as root beyond net.core.[rw]mem_max). */
#define USERNET_SOCKBUF (4 << 20)
#define USERNET_DEFAULT_PATH \
	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static int argv_add(struct usernet_argv *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int argv_add(struct usernet_argv *a, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (a->argc == USERNET_ARGV_MAX)
		return -E2BIG;
	va_start(ap, fmt);
	n = vsnprintf(a->store[a->argc], USERNET_ARG_LEN, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= USERNET_ARG_LEN)
		return -E2BIG;
	a->argv[a->argc] = a->store[a->argc];
	a->argv[++a->argc] = NULL;
	return 0;
}

static int argv_add_fwd(struct usernet_argv *a, const struct nic_fwd *f)
{
	int ret = argv_add(a, "%s", f->udp ? "-u" : "-t");

	if (ret)
		return ret;
	return argv_add(a, "%s%s%u:%u", f->addr, f->addr[0] ? "/" : "",
			f->host_port, f->guest_port);
}

int usernet_build_argv(struct usernet_argv *a, const char *passt,
		       const struct nic_config *nic, bool no_dhcp,
		       bool run_as_root)
{
	const uint8_t *m = nic->host_mac;
	int ret;

	a->argc = 0;
	a->argv[0] = NULL;
	/*
	 * Foreground, quiet, IPv4 only (as kvmtool's user-mode network); the
	 * addresses come from the options, never from the host's interfaces
	 * ("-i lo": passt needs an interface, and one without a default
	 * route would make it ignore -a and -g); the gateway is also the
	 * address that reaches the host's loopback.
	 */
	ret = argv_add(a, "%s", passt);
	ret = ret ?: argv_add(a, "-f");
	ret = ret ?: argv_add(a, "-q");
	ret = ret ?: argv_add(a, "-4");
	ret = ret ?: argv_add(a, "-i");
	ret = ret ?: argv_add(a, "lo");
	ret = ret ?: argv_add(a, "--fd");
	ret = ret ?: argv_add(a, "%d", USERNET_PASST_FD);
	/*
	 * vhost=1: the socket carries vhost-user requests, not frames; no
	 * passt-repair socket (it would be made next to a socket path,
	 * which --fd has none of).
	 */
	if (nic->vhost) {
		ret = ret ?: argv_add(a, "--vhost-user");
		ret = ret ?: argv_add(a, "--repair-path");
		ret = ret ?: argv_add(a, "none");
	}
	ret = ret ?: argv_add(a, "--pid");
	ret = ret ?: argv_add(a, "/proc/self/fd/1");
	if (run_as_root) {
		ret = ret ?: argv_add(a, "--runas");
		ret = ret ?: argv_add(a, "65534:65534");
	}
	ret = ret ?: argv_add(a, "-a");
	ret = ret ?: argv_add(a, "%s", nic->guest_ip);
	ret = ret ?: argv_add(a, "-n");
	ret = ret ?: argv_add(a, "24");
	ret = ret ?: argv_add(a, "-g");
	ret = ret ?: argv_add(a, "%s", nic->host_ip);
	ret = ret ?: argv_add(a, "--map-host-loopback");
	ret = ret ?: argv_add(a, "%s", nic->host_ip);
	ret = ret ?: argv_add(a, "-M");
	ret = ret   ?:
		      argv_add(a, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1],
			       m[2], m[3], m[4], m[5]);
	if (no_dhcp)
		ret = ret ?: argv_add(a, "--no-dhcp");
	for (unsigned int i = 0; !ret && i < nic->nr_fwd; i++)
		ret = argv_add_fwd(a, &nic->fwd[i]);
	return ret;
}

static bool usernet_executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

int usernet_find_passt(char *path, size_t size)
{
	const char *dirs = getenv("PATH");

	if (!dirs || !*dirs)
		dirs = USERNET_DEFAULT_PATH;
	for (const char *p = dirs; *p;) {
		size_t n = strcspn(p, ":");
		int len = snprintf(path, size, "%.*s%spasst", (int)n, p,
				   n ? "/" : "");

		if (len > 0 && (size_t)len < size && usernet_executable(path))
			return 0;
		p += n + (p[n] == ':');
	}
	path[0] = '\0';
	return -ENOENT;
}

/*
 * Its --help names --vhost-user when passt has the option (Debian's
 * passt from 2025 on): looking for that text in the program file costs a
 * read of it from the page cache, where running passt --help would cost
 * a fork and an exec on every boot.  A passt that is a script or a
 * wrapper reads as one without it (socket mode, which always works).
 */
#define USERNET_VU_HELP "--vhost-user"
#define USERNET_PROBE_MAX (64 << 20)

int usernet_passt_vhost_user(const char *passt)
{
	int fd = open(passt, O_RDONLY | O_CLOEXEC), ret = 0;
	struct stat st;
	void *p;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size ||
	    st.st_size > USERNET_PROBE_MAX) {
		close(fd);
		return -EINVAL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		ret = -errno;
	close(fd);
	if (ret)
		return ret;
	ret = memmem(p, (size_t)st.st_size, USERNET_VU_HELP,
		     strlen(USERNET_VU_HELP)) != NULL;
	munmap(p, (size_t)st.st_size);
	return ret;
}

static void usernet_status_text(int status, char *buf, size_t size)
{
	if (WIFEXITED(status))
		snprintf(buf, size, "exited with status %d",
			 WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "killed by signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, size, "stopped");
}

/* passt at start-up: gone (reaped, one line), -EIO. */
static int usernet_died(struct usernet *u)
{
	char why[64];

	usernet_reap(u, why, sizeof(why));
	pr_err("user-mode network: passt %s at start-up (see its message above)",
	       why);
	return -EIO;
}

static void usernet_ready_close(struct usernet *u)
{
	if (u->ready_fd >= 0)
		close(u->ready_fd);
	if (u->late_fd >= 0)
		close(u->late_fd);
	u->ready_fd = -1;
	u->late_fd = -1;
}

int usernet_started(struct usernet *u)
{
	uint64_t late;
	char buf[32];
	ssize_t n;

	if (u->started)
		return 1;
	do
		n = read(u->ready_fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		u->started = true;
		return 1;
	}
	if (n == 0 || errno != EAGAIN)
		return usernet_died(u);
	if (read(u->late_fd, &late, sizeof(late)) != sizeof(late))
		return 0;
	pr_err("user-mode network: passt did not start within %d s",
	       USERNET_START_MS / 1000);
	return -ETIMEDOUT;
}

int usernet_wait_started(struct usernet *u, int cancel_fd)
{
	struct pollfd pfd[3] = {
		{ .fd = u->ready_fd, .events = POLLIN },
		{ .fd = u->late_fd, .events = POLLIN },
		{ .fd = cancel_fd, .events = POLLIN },
	};
	int n;

	while (!u->started) {
		do
			n = poll(pfd, cancel_fd >= 0 ? 3 : 2, -1);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
		if (pfd[2].revents && !pfd[0].revents)
			return -EINTR; /* a stop request: the caller reads it */
		n = usernet_started(u);
		if (n < 0)
			return n;
	}
	return 0;
}

static void usernet_bufs(int fd)
{
	int v = USERNET_SOCKBUF;

	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
}

/*
 * The socket pair and the pipe, then passt; our ends, and the start-up
 * deadline (a timerfd), stay in u.
 */
static int usernet_start(struct usernet *u, const struct usernet_argv *a)
{
	const struct itimerspec late = { .it_value.tv_sec =
						 USERNET_START_MS / 1000 };
	int sv[2], pfd[2], ret;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	if (pipe2(pfd, O_CLOEXEC)) {
		ret = -errno;
		close(sv[0]);
		close(sv[1]);
		return ret;
	}
	/* dup2 onto itself would keep close-on-exec: never be fd 3. */
	if (sv[1] == USERNET_PASST_FD) {
		sv[1] = fcntl(USERNET_PASST_FD, F_DUPFD_CLOEXEC, 4);
		close(USERNET_PASST_FD);
	}
	usernet_bufs(sv[0]);
	ret = sv[1] < 0 ? -EMFILE :
			  host_spawn(&u->pid, u->passt, a->argv, sv[1], pfd[1]);
	if (sv[1] >= 0)
		close(sv[1]);
	close(pfd[1]);
	if (ret) {
		close(sv[0]);
		close(pfd[0]);
		return ret;
	}
	u->fd = sv[0];
	u->ready_fd = pfd[0];
	u->late_fd =
		timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (u->late_fd < 0 || timerfd_settime(u->late_fd, 0, &late, NULL) ||
	    fcntl(u->ready_fd, F_SETFL, O_NONBLOCK) ||
	    fcntl(u->fd, F_SETFL, O_NONBLOCK))
		return -errno;
	return 0;
}

int usernet_open(struct usernet *u, const struct nic_config *nic, bool no_dhcp,
		 size_t headroom)
{
	struct usernet_argv a;
	int ret;

	*u = (struct usernet){ .fd = -1, .ready_fd = -1, .late_fd = -1 };
	if (usernet_find_passt(u->passt, sizeof(u->passt)))
		return -ENOENT;
	ret = usernet_build_argv(&a, u->passt, nic, no_dhcp, geteuid() == 0);
	/* vhost=1: no frames through lkvm, nothing to buffer. */
	if (!nic->vhost) {
		ret = ret   ?:
			      lpframe_rx_init(&u->rx, headroom,
					      USERNET_MIN_FRAME,
					      USERNET_MAX_FRAME);
		u->rest = ret ? NULL :
				malloc(LPFRAME_LEN_SIZE + USERNET_MAX_FRAME);
		if (!ret && !u->rest)
			ret = -ENOMEM;
	}
	if (ret) {
		pr_err("user-mode network: cannot set up: %s", strerror(-ret));
		usernet_close(u);
		return ret;
	}
	ret = usernet_start(u, &a);
	if (ret) {
		pr_err("user-mode network: cannot start %s: %s", u->passt,
		       strerror(-ret));
		usernet_close(u);
	}
	return ret;
}

/* Room to write (waits a little unless congested). */
static bool usernet_wait_room(struct usernet *u)
{
	struct pollfd pfd = { .fd = u->fd, .events = POLLOUT };

	if (u->congested)
		return false;
	if (poll(&pfd, 1, USERNET_SEND_WAIT_MS) > 0 && (pfd.revents & POLLOUT))
		return true;
	u->congested = true;
	return false;
}

static int usernet_send_err(int err)
{
	if (err == EPIPE || err == ECONNRESET || err == ENOTCONN)
		return -EPIPE;
	return err == EAGAIN || err == EWOULDBLOCK || err == EINTR ? -EAGAIN :
								     -err;
}

/* Send the queued tail of the last frame: 0 when it is all gone. */
static int usernet_flush_rest(struct usernet *u)
{
	while (u->rest_len) {
		ssize_t n = send(u->fd, u->rest, u->rest_len,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n > 0) {
			memmove(u->rest, u->rest + n, u->rest_len - (size_t)n);
			u->rest_len -= (size_t)n;
			u->congested = false;
			continue;
		}
		n = usernet_send_err(n < 0 ? errno : EAGAIN);
		if (n != -EAGAIN || !usernet_wait_room(u))
			return (int)n;
	}
	return 0;
}

int usernet_send(struct usernet *u, const void *pkt, size_t len)
{
	uint8_t hdr[LPFRAME_LEN_SIZE];
	struct iovec iov[2] = { { hdr, sizeof(hdr) }, { (void *)pkt, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	size_t total = sizeof(hdr) + len;
	ssize_t n;
	int ret = usernet_flush_rest(u);

	if (ret)
		return ret;
	if (len < USERNET_MIN_FRAME || len > USERNET_MAX_FRAME)
		return -EMSGSIZE;
	lpframe_put_len(hdr, (uint32_t)len);
	for (;;) {
		n = sendmsg(u->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n >= 0)
			break;
		ret = usernet_send_err(errno);
		if (ret != -EAGAIN || !usernet_wait_room(u))
			return ret;
	}
	u->congested = false;
	if ((size_t)n == total)
		return 0;
	/* A part went: the rest must follow before anything else. */
	memcpy(u->rest, hdr, sizeof(hdr));
	memcpy(u->rest + sizeof(hdr), pkt, len);
	memmove(u->rest, u->rest + n, total - (size_t)n);
	u->rest_len = total - (size_t)n;
	ret = usernet_flush_rest(u);
	return ret == -EAGAIN ? 0 : ret;
}

ssize_t usernet_fill(struct usernet *u)
{
	size_t room;
	uint8_t *p = lpframe_rx_space(&u->rx, &room);
	ssize_t n;

	if (!room)
		return -ENOBUFS;
	do
		n = recv(u->fd, p, room, MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		lpframe_rx_added(&u->rx, (size_t)n);
		return n;
	}
	if (n == 0)
		return -EPIPE;
	return usernet_send_err(errno);
}

void usernet_reap(struct usernet *u, char *why, size_t size)
{
	int status;

	snprintf(why, size, "closed its socket");
	/* It closes the socket as it exits: give it a moment. */
	for (int i = 0; u->pid > 0 && i < 50; i++) {
		pid_t r = waitpid(u->pid, &status, WNOHANG);

		if (r == u->pid) {
			usernet_status_text(status, why, size);
			u->pid = 0;
			return;
		}
		if (r < 0 && errno != EINTR)
			return;
		usleep(2000);
	}
}

void usernet_close(struct usernet *u)
{
	usernet_ready_close(u);
	if (u->fd >= 0)
		close(u->fd);
	u->fd = -1;
	if (u->pid > 0) {
		kill(u->pid, SIGKILL);
		while (waitpid(u->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	u->pid = 0;
	lpframe_rx_free(&u->rx);
	free(u->rest);
	u->rest = NULL;
	u->rest_len = 0;
}
