/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Virtio queue notifications without a trip through the vCPU thread: an
 * eventfd per virtio-mmio slot, handled on the I/O thread.  The lifecycle
 * registers each with KVM as an ioeventfd on the slot's QueueNotify.
 */
#ifndef RVKVM_KICKS_H
#define RVKVM_KICKS_H

#include "board.h"
#include "iothread.h"

/* An eventfd per slot, watched by io (before it starts). */
int kicks_watch(struct board *b, struct iothread *io);
/* Close the eventfds (the I/O thread has stopped). */
void kicks_close(struct board *b);

#endif
