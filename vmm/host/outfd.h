/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outfd: a way to write to one of lkvm's standard output fds (stdout,
 * stderr) without ever blocking and without changing the file the user's
 * shell shares with lkvm.  See outfd.c for how each kind of file is
 * handled.
 */
#ifndef RVKVM_OUTFD_H
#define RVKVM_OUTFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum outfd_kind {
	OUTFD_FILE,	/* regular file or block device: writes do not stall */
	OUTFD_REOPENED, /* pipe or terminal opened anew, O_NONBLOCK */
	OUTFD_SOCKET,	/* send(MSG_DONTWAIT) on the shared socket */
	OUTFD_SHARED,	/* fallback: O_NONBLOCK set on the shared file */
};

struct outfd {
	int fd;	    /* what to write to and poll */
	int shared; /* the fd it was made from */
	enum outfd_kind kind;
	int saved_flags; /* OUTFD_SHARED: restored by outfd_close() */
};

/* Make o for fd; never fails (falls back to OUTFD_SHARED). */
void outfd_open(struct outfd *o, int fd);

/* Bytes written, -EAGAIN when it would block, or -errno. */
ssize_t outfd_write(struct outfd *o, const uint8_t *buf, size_t len);

/* An outbuf_sink write() on a struct outfd. */
ssize_t outfd_sink_write(void *opaque, const uint8_t *buf, size_t len);

/* Close what outfd_open() opened, restore what it changed. */
void outfd_close(struct outfd *o);

const char *outfd_kind_name(enum outfd_kind kind);

#endif
