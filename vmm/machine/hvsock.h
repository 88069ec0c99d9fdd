/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --vsock CID,socket=PATH: virtio-vsock served by lkvm itself
 * (virtio/vsock_hybrid.c) over unix stream sockets, with no root and no
 * host vsock module.  lkvm listens on PATH: a host process connects and
 * writes "CONNECT <port>\n" to reach the guest's port (answer "OK
 * <hostport>\n", then a byte stream); a guest connecting to CID 2 port P
 * is connected to the socket PATH_P (a RST when nothing listens there).
 *
 * A stale socket file at PATH (nothing listens on it) is replaced; one a
 * process listens on, or a file that is not a socket, is one line and
 * exit status 1.  PATH is removed at exit.  Every connection socket is
 * non-blocking in an epoll set of its own (edge-triggered), which the
 * I/O thread watches as one descriptor; a poller ends host peers and
 * guests that do not answer in time.
 */
#ifndef RVKVM_HVSOCK_H
#define RVKVM_HVSOCK_H

#include <stdbool.h>

#include "vmm/board/board.h"
#include "vmm/config.h"
#include "vmm/host/iothread.h"
#include "virtio/vsock_hybrid.h"

struct hvsock {
	struct vsock_hy hy;
	bool live;
	const char *path;
	int listen_fd;
	int epfd;
};

/* cfg's --vsock CID,socket=PATH device, if any: 0, or -errno said. */
int hvsock_up(struct hvsock *s, const struct vm_config *cfg, struct board *b);
/* Its sockets and timeouts on io (before it starts). */
int hvsock_watch(struct hvsock *s, struct iothread *io);
void hvsock_down(struct hvsock *s);

#endif
