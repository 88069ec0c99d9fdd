/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-mode networking: a passt process (Debian's passt, run unprivileged
 * as a separate process) owns the guest-facing TCP/IP stack; lkvm moves
 * Ethernet frames to and from it over a socket pair, 4-byte big-endian
 * length-prefixed (passt's qemu mode, "--fd").  passt answers the guest's
 * DHCP and ARP, forwards its TCP/UDP/ICMP through ordinary host sockets,
 * maps the gateway address to the host's loopback (the host's own
 * services) and forwards the configured host ports into the guest.
 *
 * Start-up: passt is found on PATH, spawned with an empty signal mask and
 * its standard output on a pipe; it writes its PID there (--pid) once its
 * set-up (ports bound, sandbox entered) is done, so a passt that fails at
 * start-up is seen at once.  Nothing has to wait for that: frames the
 * guest sends meanwhile wait in the socket pair, which exists before
 * passt runs; the caller watches ready_fd and late_fd (the deadline) and
 * asks usernet_started(), or waits in usernet_wait_started().  As root passt is told to run as 65534:65534
 * (nobody), since it would look up "nobody" by name otherwise.
 * With vhost=1 (nic->vhost) passt is started the same way with
 * --vhost-user: the socket then carries vhost-user requests (the caller
 * runs them, vhost_user.h) and passt moves the frames in guest RAM
 * itself; usernet_send() and usernet_fill() are not used.
 */
#ifndef RVKVM_USERNET_H
#define RVKVM_USERNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vmm/config.h"
#include "lib/lpframe.h"

/* passt's command line, at most this many words. */
#define USERNET_ARGV_MAX (28 + 2 * CONFIG_MAX_FWDS)
#define USERNET_ARG_LEN 64
/* Ethernet frames passt and lkvm exchange: a header .. 64 KiB. */
#define USERNET_MIN_FRAME 14
#define USERNET_MAX_FRAME 65535
/* The socket fd passt gets (--fd). */
#define USERNET_PASST_FD 3

struct usernet_argv {
	char *argv[USERNET_ARGV_MAX + 1];
	char store[USERNET_ARGV_MAX][USERNET_ARG_LEN];
	unsigned int argc;
};

struct usernet {
	int fd;		/* our end of the socket pair, non-blocking */
	pid_t pid;	/* passt; 0 once reaped */
	int ready_fd;	/* start-up: passt's stdout, its PID once ready */
	int late_fd;	/* start-up: a timerfd, expired when passt is late */
	bool started;	/* passt said it is ready */
	bool congested; /* a wait for room timed out: drop, do not wait */
	struct lpframe_rx rx;
	uint8_t *rest; /* the unsent tail of a partly sent frame */
	size_t rest_len;
	char passt[CONFIG_PATH_MAX];
};

/*
 * passt's argv for nic (as root: run_as_root) into a; 0 or -E2BIG.
 * Pure, for unit tests.
 */
int usernet_build_argv(struct usernet_argv *a, const char *passt,
		       const struct nic_config *nic, bool no_dhcp,
		       bool run_as_root);

/* passt on PATH (or PATH's default) into path: 0 or -ENOENT. */
int usernet_find_passt(char *path, size_t size);

/*
 * Whether the passt program at path has a vhost-user back-end (its
 * --help names --vhost-user; the file is read, not run): 1 yes, 0 no,
 * -errno when it cannot be read.
 */
int usernet_passt_vhost_user(const char *passt);

/*
 * Find and start passt for nic (not waiting for it: see above).  0;
 * -ENOENT when passt is not installed (nothing printed); other -errno
 * after one line.
 */
int usernet_open(struct usernet *u, const struct nic_config *nic, bool no_dhcp,
		 size_t headroom);

/*
 * Whether passt is ready (never blocks; call when ready_fd or late_fd is
 * readable): 1 yes, 0 not yet; -EIO (it died) or -ETIMEDOUT (late) after
 * one line.
 */
int usernet_started(struct usernet *u);

/*
 * Wait until passt is ready: 0, or usernet_started()'s errors; -EINTR,
 * nothing printed, when cancel_fd (a signalfd, or -1) became readable
 * meanwhile.
 */
int usernet_wait_started(struct usernet *u, int cancel_fd);

/*
 * Send one Ethernet frame.  0 (sent, or the tail queued to go first with
 * the next frame), -EAGAIN (no room: dropped), -EPIPE (passt is gone).
 */
int usernet_send(struct usernet *u, const void *pkt, size_t len);

/*
 * Read what passt sent into u->rx: > 0 bytes, -EAGAIN nothing now,
 * -EPIPE passt closed the socket (exited), other -errno.
 */
ssize_t usernet_fill(struct usernet *u);

/* passt is gone: reap it if it has exited; a short reason into why. */
void usernet_reap(struct usernet *u, char *why, size_t size);

/* Close the socket, kill passt if it still runs and reap it. */
void usernet_close(struct usernet *u);

#endif
