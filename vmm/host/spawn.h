/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Starting a helper daemon (passt, virtiofsd): posix_spawn with one fd
 * handed over as fd 3, optionally another as its stdout, an empty signal
 * mask, the signals lkvm handles back at their defaults, and a process
 * group of its own (a Ctrl-C on lkvm's terminal does not reach it; lkvm
 * stops it).
 */
#ifndef RVKVM_SPAWN_H
#define RVKVM_SPAWN_H

#include <sys/types.h>

#define HOST_SPAWN_FD 3

/*
 * Spawn path with argv, fd3 as its fd 3, out as its stdout (-1: lkvm's).
 * 0 and *pid, or -errno.
 */
int host_spawn(pid_t *pid, const char *path, char *const argv[], int fd3,
	       int out);

#endif
