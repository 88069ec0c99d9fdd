// SPDX-License-Identifier: GPL-2.0
/*
 * Non-blocking writes to stdout/stderr without touching the shell's file.
 *
 * O_NONBLOCK is a flag of the open file description, which lkvm shares
 * with its parent shell and with every other process given the same
 * terminal or pipe.  Setting it on fd 1 would leave the user's terminal
 * non-blocking if lkvm died without restoring it (SIGKILL), and would
 * change the file under any sibling writing to it meanwhile.  So:
 *
 *  - a pipe, FIFO or terminal (or any character device) is opened anew
 *    through /proc/self/fd/N with O_NONBLOCK: a new description of the
 *    same pipe or tty, private to lkvm; the shell's stays blocking, and
 *    nothing needs restoring, whatever way lkvm ends;
 *  - a socket cannot be reopened that way: writes use
 *    send(MSG_DONTWAIT), a per-call non-blocking write;
 *  - a regular file or block device never stalls a writer for long, and
 *    opening it anew would lose the shared offset and O_APPEND of
 *    "lkvm >log 2>&1": it is written as it is;
 *  - only when the reopen fails (no /proc, no permission, a FIFO with no
 *    reader) is O_NONBLOCK set on the shared description, and the old
 *    flags are restored by outfd_close() on every orderly exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "vmm/host/outfd.h"

/* /dev/ptmx, which every pty master is opened through. */
#define PTMX_MAJOR 5
#define PTMX_MINOR 2

static bool outfd_reopen(struct outfd *o, int fd)
{
	char path[32];
	int nfd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	nfd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (nfd < 0)
		return false;
	o->fd = nfd;
	o->kind = OUTFD_REOPENED;
	return true;
}

static void outfd_share(struct outfd *o, int fd)
{
	int fl = fcntl(fd, F_GETFL);

	o->fd = fd;
	o->kind = OUTFD_SHARED;
	o->saved_flags = fl;
	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

void outfd_open(struct outfd *o, int fd)
{
	struct stat st;

	*o = (struct outfd){
		.fd = fd, .shared = fd, .kind = OUTFD_FILE, .saved_flags = -1
	};
	if (fstat(fd, &st) < 0 || S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))
		return;
	if (S_ISSOCK(st.st_mode)) {
		o->kind = OUTFD_SOCKET;
		return;
	}
	/* A pty master (--tty): reopening it would make a new pty. */
	if (S_ISCHR(st.st_mode) && major(st.st_rdev) == PTMX_MAJOR &&
	    minor(st.st_rdev) == PTMX_MINOR) {
		outfd_share(o, fd);
		return;
	}
	if (!outfd_reopen(o, fd))
		outfd_share(o, fd);
}

ssize_t outfd_write(struct outfd *o, const uint8_t *buf, size_t len)
{
	ssize_t n;

	do {
		if (o->kind == OUTFD_SOCKET)
			n = send(o->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		else
			n = write(o->fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n >= 0)
		return n;
	return errno == EWOULDBLOCK ? -EAGAIN : -errno;
}

ssize_t outfd_sink_write(void *opaque, const uint8_t *buf, size_t len)
{
	return outfd_write(opaque, buf, len);
}

void outfd_close(struct outfd *o)
{
	if (o->kind == OUTFD_REOPENED && o->fd >= 0)
		close(o->fd);
	if (o->kind == OUTFD_SHARED && o->saved_flags >= 0)
		fcntl(o->shared, F_SETFL, o->saved_flags);
	o->fd = o->shared;
	o->kind = OUTFD_FILE;
}

const char *outfd_kind_name(enum outfd_kind kind)
{
	static const char *const names[] = {
		[OUTFD_FILE] = "file, written as is",
		[OUTFD_REOPENED] = "reopened non-blocking",
		[OUTFD_SOCKET] = "socket, MSG_DONTWAIT",
		[OUTFD_SHARED] = "O_NONBLOCK set, restored at exit",
	};

	return kind <= OUTFD_SHARED ? names[kind] : "?";
}
