/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control socket of a running guest, where kvmtool keeps its own:
 * $HOME/.lkvm/NAME.sock, a SOCK_SEQPACKET UNIX socket of mode 0600 in a
 * directory of mode 0700.  'lkvm run' serves it on a thread of its own
 * (ctl_server_*), one request per connection (ctl_proto.h), only to
 * clients of its own user (SO_PEERCRED); the commands connect to it
 * (ctl_request) or to every instance (ctl_enumerate), which removes the
 * sockets of lkvm processes that died without removing theirs (connect
 * fails with ECONNREFUSED).  The server keeps a spare descriptor, so a
 * guest that used up the process's descriptors cannot lock its owner
 * out: the spare is closed to accept the client and opened again.
 */
#ifndef RVKVM_CTL_H
#define RVKVM_CTL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/un.h>

#include "vmm/ctl/ctl_proto.h"

#define CTL_DIR ".lkvm"
#define CTL_SUFFIX ".sock"
/* Out of descriptors and no spare: the server's pause between tries. */
#define CTL_BACKOFF_MS 100

/* Handle one request: fill resp->status and resp->text. */
typedef void ctl_handler_fn(void *opaque, const struct ctl_request *req,
			    struct ctl_response *resp);

struct ctl_server {
	int lfd;      /* listening socket; -1: none */
	int quit_fd;  /* eventfd: ends the thread */
	int spare_fd; /* /dev/null, closed to accept when out of fds */
	pthread_t thread;
	bool started;
	ctl_handler_fn *handler;
	void *opaque;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	uint8_t buf[CTL_MSG_MAX];
	struct ctl_response resp;
};

/*
 * The directory ($HOME/.lkvm, created 0700, or made 0700 if it is ours)
 * into buf: 0, or -errno having said why (-ENOENT: HOME is not set).
 * With create false a missing directory is -ENOENT, silently.
 */
int ctl_dir(char *buf, size_t size, bool create);

/* DIR/NAME.sock into buf: 0, or -EINVAL (bad name) / -ENAMETOOLONG. */
int ctl_sock_path(char *buf, size_t size, const char *dir, const char *name);

/*
 * Create the socket of guest name and start serving it: 0, or -errno
 * having said why (-EADDRINUSE: a live lkvm has that name; -ENOENT: HOME
 * is not set, a warning).
 */
int ctl_server_start(struct ctl_server *s, const char *name,
		     ctl_handler_fn *handler, void *opaque);
/* Stop the thread, close and remove the socket (safe if not started). */
void ctl_server_stop(struct ctl_server *s);

/*
 * One request to guest name; *resp has the answer.  0, -ENOENT (no such
 * guest), -ECONNREFUSED (its lkvm is dead; the stale socket is removed),
 * -EACCES, -EPROTO or another -errno.
 */
int ctl_request(const char *name, const struct ctl_request *req,
		struct ctl_response *resp);

/*
 * Call fn for every guest with a live socket, in name order; stale
 * sockets are removed (one line on stderr each).  Returns 0 (also when
 * there is no directory yet) or the first non-zero fn result or -errno.
 */
int ctl_enumerate(int (*fn)(const char *name, void *opaque), void *opaque);

#endif
