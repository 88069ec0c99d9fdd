/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The I/O thread: one epoll loop that runs a handler when one of its file
 * descriptors becomes readable (virtio queue notifications through
 * KVM ioeventfds), so device work happens off the vCPU threads.
 */
#ifndef RVKVM_IOTHREAD_H
#define RVKVM_IOTHREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* Kick eventfds (up to 8 slots x 8 queues), taps, disk engines. */
#define IOTHREAD_MAX_FDS 96

struct iothread_fd {
	int fd;
	void (*handler)(void *opaque);
	void *opaque;
	bool off;  /* taken out of the epoll set by iothread_watch() */
	bool edge; /* iothread_add_edge(): once per signal, never read */
};

/* Up to one busy poller per disk (vmm/disks.c). */
#define IOTHREAD_MAX_POLLERS 8

/*
 * Called on every turn of the loop; returns when it wants the next turn:
 * 0 at once (busy polling), N within N ns, -1 only when an fd is ready.
 */
typedef int64_t iothread_poll_fn(void *opaque);

struct iothread {
	int epfd;
	int quit_fd;
	pthread_t thread;
	bool started;
	struct iothread_fd fds[IOTHREAD_MAX_FDS];
	unsigned int nr_fds;
	struct {
		iothread_poll_fn *fn;
		void *opaque;
	} pollers[IOTHREAD_MAX_POLLERS];
	unsigned int nr_pollers;
	bool no_pwait2; /* epoll_pwait2 said ENOSYS: ms timeouts */
};

int iothread_init(struct iothread *t);
/* Watch fd (before iothread_start); handler runs on the I/O thread. */
int iothread_add(struct iothread *t, int fd, void (*handler)(void *opaque),
		 void *opaque);
/*
 * The same for an eventfd whose count nobody needs: handler runs once
 * per write to it (edge-triggered), and the I/O thread never reads it,
 * a system call saved per notification.
 */
int iothread_add_edge(struct iothread *t, int fd, void (*handler)(void *opaque),
		      void *opaque);

/* Add a poller (before iothread_start); -ENOSPC when full. */
int iothread_add_poller(struct iothread *t, iothread_poll_fn *fn, void *opaque);
int iothread_start(struct iothread *t);
/*
 * Stop or resume watching fd (added before); safe from any thread.  A
 * stopped fd is out of the epoll set, so not even a hang-up wakes it.
 */
int iothread_watch(struct iothread *t, int fd, bool on);
/* Stop and join the thread (if it started), close the epoll and quit fds. */
void iothread_stop(struct iothread *t);

#endif
