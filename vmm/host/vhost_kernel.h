/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host kernel's vhost as a struct vhost_transport (vhost.h): each
 * request is one ioctl on an open /dev/vhost-* file.  The requests a
 * running device makes (ring start and stop, features, vsock's running
 * state) are in seccomp.c's allow-list.
 */
#ifndef RVKVM_VHOST_KERNEL_H
#define RVKVM_VHOST_KERNEL_H

#include "vmm/host/vhost.h"

/* The transport for *fd (an open /dev/vhost-* file; fd must stay put). */
struct vhost_transport vhost_kernel_transport(int *fd);

/* The ioctl request number of req, or 0 when it has none. */
unsigned long vhost_kernel_ioctl_nr(enum vhost_req req);

#endif
