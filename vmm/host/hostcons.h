/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hostcons: the host side of the guest console: the Ctrl-A escape filter on host
 * input, and the input queue that the SBI console (hv) reads from.
 * Ctrl-A x stops the VM; Ctrl-A Ctrl-A sends one Ctrl-A; Ctrl-A followed by
 * anything else sends both bytes.
 */
#ifndef RVKVM_HOSTCONS_H
#define RVKVM_HOSTCONS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HOSTCONS_ESCAPE 0x01 /* Ctrl-A */
#define HOSTCONS_QUEUE_SIZE 4096

struct hostcons {
	pthread_mutex_t lock;
	uint8_t queue[HOSTCONS_QUEUE_SIZE];
	size_t head, count; /* ring buffer of pending input */
	bool escape;	    /* the last host byte was Ctrl-A */
};

void hostcons_init(struct hostcons *c);
void hostcons_destroy(struct hostcons *c);

/*
 * Run host input through the escape filter.  Writes at most 2 * len bytes
 * to out and returns how many; sets *stop on Ctrl-A x (bytes after it are
 * dropped).
 */
size_t hostcons_filter(struct hostcons *c, const uint8_t *in, size_t len,
		       uint8_t *out, bool *stop);

/* The input queue: push returns how many bytes fitted. */
size_t hostcons_push(struct hostcons *c, const uint8_t *buf, size_t len);
size_t hostcons_pop(struct hostcons *c, uint8_t *buf, size_t len);

/* Write all of buf to fd, retrying short writes and EINTR. */
int hostcons_write_all(int fd, const uint8_t *buf, size_t len);

#endif
