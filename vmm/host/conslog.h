/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest console as it was: every byte the guest wrote to any of its
 * consoles, in order, appended to the --console-log file (when given)
 * and kept in a small ring for the last lines (--timeout prints them).
 * Unlike stdout, which may be stalled and then loses output (cons.c),
 * the file gets every byte: it is a regular file, written on the thread
 * that produced the output.  Any thread may write.
 */
#ifndef RVKVM_CONSLOG_H
#define RVKVM_CONSLOG_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most of the console's end that the tail keeps. */
#define CONSLOG_TAIL_SIZE 4096

struct conslog {
	pthread_mutex_t lock;
	int fd;	     /* the --console-log file; -1: none */
	bool failed; /* a write to it failed (reported once) */
	char tail[CONSLOG_TAIL_SIZE];
	uint64_t total; /* bytes written so far (tail[total % size] next) */
};

/*
 * Create or truncate path (NULL: no file, the tail only).  0, or -errno
 * having said why in one line.
 */
int conslog_open(struct conslog *l, const char *path);
void conslog_write(struct conslog *l, const void *buf, size_t len);
/*
 * The console's last max_lines lines (at most CONSLOG_TAIL_SIZE bytes of
 * it; an unfinished last line counts), carriage returns removed, into out
 * as a NUL-terminated string.  Returns its length.
 */
size_t conslog_tail(struct conslog *l, unsigned int max_lines, char *out,
		    size_t size);
/* Close the file; the tail stays readable. */
void conslog_close(struct conslog *l);

#endif
