/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Virtio queue notifications without a trip through the vCPU thread: an
 * eventfd per queue of each virtio slot, handled on the I/O thread, where
 * it kicks that queue only.  The lifecycle registers each with KVM as an
 * ioeventfd that matches the queue index: on a virtio-mmio slot's
 * QueueNotify (4-byte writes), on a virtio-pci function's notify address
 * (2-byte writes) wherever the guest has put its BAR, which the board
 * follows while the VM lives (board->bind).  A write of any other value
 * (a queue the device does not have) is not matched and takes the MMIO
 * exit path, where the transport ignores it.  A device may route a
 * queue to that path on purpose (virtio_route): its eventfd is then
 * unbound, and bound again when the device routes it back; the
 * notifications land in the same notify() either way.
 */
#ifndef RVKVM_KICKS_H
#define RVKVM_KICKS_H

#include <stdint.h>

#include "vmm/board/board.h"
#include "vmm/host/iothread.h"

/*
 * An eventfd per queue of each slot, watched by io (before it starts),
 * but for the queues in the slot's backend_kicks (a vhost reads those).
 */
int kicks_watch(struct board *b, struct iothread *io);

/* Bind (or unbind) fd: see board_bind_fn. */
typedef board_bind_fn kicks_bind_fn;
/*
 * A new KVM VM: call fn for each eventfd made by kicks_watch() whose
 * address is known, and let the board call it when a PCI BAR moves.
 */
void kicks_bind(struct board *b, kicks_bind_fn *fn, void *opaque);
/* The KVM VM is gone, with its ioeventfds: forget fn. */
void kicks_unbind(struct board *b);

/* Close the eventfds (the I/O thread has stopped). */
void kicks_close(struct board *b);

#endif
