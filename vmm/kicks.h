/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Virtio queue notifications without a trip through the vCPU thread: an
 * eventfd per queue of each virtio-mmio slot, handled on the I/O thread,
 * where it kicks that queue only.  The lifecycle registers each with KVM
 * as an ioeventfd on the slot's QueueNotify that matches the queue index
 * (what a virtio-mmio driver writes there).  A write of any other value
 * (a queue the device does not have) is not matched and takes the MMIO
 * exit path, where the transport ignores it.
 */
#ifndef RVKVM_KICKS_H
#define RVKVM_KICKS_H

#include <stdint.h>

#include "board.h"
#include "iothread.h"

/* An eventfd per queue of each slot, watched by io (before it starts). */
int kicks_watch(struct board *b, struct iothread *io);

/* Bind fd to 4-byte writes of the value q at the guest address addr. */
typedef void kicks_bind_fn(void *opaque, uint64_t addr, uint32_t q, int fd);
/* Call fn for each eventfd made by kicks_watch(). */
void kicks_bind(const struct board *b, kicks_bind_fn *fn, void *opaque);

/* Close the eventfds (the I/O thread has stopped). */
void kicks_close(struct board *b);

#endif
