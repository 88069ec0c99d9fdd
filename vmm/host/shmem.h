/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest RAM another process can map: a memfd of the RAM's size, sealed
 * against growing and shrinking (a vhost-user daemon maps it from the fd
 * SET_MEM_TABLE passes; neither side can then cut pages from under the
 * other), close-on-exec.  Holes punched in it (a reboot's zeroing) stay
 * allowed.  Used only when a vhost-user device is configured; guest RAM
 * is private anonymous memory otherwise.
 */
#ifndef RVKVM_SHMEM_H
#define RVKVM_SHMEM_H

#include <stdint.h>

/* The memfd, or -errno. */
int shmem_ram_fd(uint64_t size);

#endif
