/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --vsock CID: a virtio-vsock device (virtio/vsock.c) whose rx and tx
 * rings the host kernel serves (/dev/vhost-vsock, through the vhost
 * layer, vmm/host/vhost.c).  At creation: the vhost's owner, memory
 * table (lkvm's mapping of guest RAM), the guest's CID and an error
 * eventfd; at DRIVER_OK each ring (its kick eventfd is the queue's KVM
 * ioeventfd, which the I/O thread then leaves alone), the features and
 * SET_RUNNING; at every reset (status 0, a guest reboot) SET_RUNNING 0
 * and the rings taken back, so the next DRIVER_OK starts afresh.
 *
 * Interrupts: the kernel signals a call eventfd per ring, relayed on the
 * I/O thread into the device's interrupt (interrupt status and line, or
 * the queue's MSI-X vector), which works on every transport and
 * interrupt controller.  A vhost request that fails, or a ring error the
 * kernel reports, is one line in the log and DEVICE_NEEDS_RESET.
 */
#ifndef RVKVM_VSOCK_H
#define RVKVM_VSOCK_H

#include <stdbool.h>

#include "vmm/board/board.h"
#include "vmm/host/iothread.h"
#include "vmm/host/vhost.h"
#include "vmm/machine/vhostdev.h"
#include "virtio/vsock.h"

#define VSOCK_DEV_PATH "/dev/vhost-vsock"

struct vsock {
	struct virtio_vsock dev;
	bool live;
	int fd; /* /dev/vhost-vsock */
	struct vhost vh;
	struct vhostdev vd; /* call eventfds, kicks */
	int err_fd;
	bool logged; /* a failure said since the last good start */
};

/* cfg's --vsock device, if any; 0, or -errno after one line. */
int vsock_up(struct vsock *s, const struct vm_config *cfg, struct board *b);
/* Its call and error eventfds on io (before it starts). */
int vsock_watch(struct vsock *s, struct iothread *io);
void vsock_down(struct vsock *s);

#endif
