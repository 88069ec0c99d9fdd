// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"

int log_level = LOG_WARN;

static int log_fd = -1;
static bool log_sock;
static atomic_bool log_stalled;
static atomic_ulong log_lost;

static const char *const level_prefix[] = {
	[LOG_ERR] = "error: ",
	[LOG_WARN] = "warning: ",
	[LOG_INFO] = "",
	[LOG_DEBUG] = "debug: ",
};

void log_set_output(int fd, bool sock)
{
	log_fd = fd;
	log_sock = sock;
	atomic_store(&log_stalled, false);
}

unsigned long log_dropped(void)
{
	return atomic_load(&log_lost);
}

/* Bytes written, 0 when stderr would block, -1 on another error. */
static ssize_t log_try(const char *s, size_t len)
{
	ssize_t n;

	do {
		if (log_sock)
			n = send(log_fd, s, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		else
			n = write(log_fd, s, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
	return n;
}

/*
 * Non-blocking: wait up to LOG_STALL_MS for room, unless stderr was
 * already found stalled; then drop the line.
 */
static void log_write_nb(const char *s, size_t len)
{
	bool may_wait = !atomic_load(&log_stalled);
	struct pollfd p = { .fd = log_fd, .events = POLLOUT };

	while (len) {
		ssize_t n = log_try(s, len);

		if (n < 0)
			return;
		if (n > 0) {
			s += n;
			len -= n;
			continue;
		}
		if (!may_wait || poll(&p, 1, LOG_STALL_MS) <= 0) {
			atomic_store(&log_stalled, true);
			atomic_fetch_add(&log_lost, 1);
			return;
		}
		may_wait = false;
	}
	atomic_store(&log_stalled, false);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	char line[512], out[540];
	int n, saved_errno = errno;
	va_list ap;

	if ((int)level > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	n = snprintf(out, sizeof(out), "lkvm: %s%s\n", level_prefix[level],
		     line);
	if (n >= (int)sizeof(out))
		n = sizeof(out) - 1;
	/* One write per line so concurrent threads do not interleave. */
	if (log_fd < 0)
		fputs(out, stderr);
	else
		log_write_nb(out, n);
	/* Callers print strerror(errno), then return -errno. */
	errno = saved_errno;
}
