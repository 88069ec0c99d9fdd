/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network glue: each -n NIC (or the default user-mode NIC) is a
 * virtio-net device in the next board slot with a backend behind it: a
 * tap (mode=tap) or a passt process (mode=user, vmm/usernet.h).  Frames
 * move on the I/O thread, or, with vhost=1, in the host kernel: as
 * --vsock (vsock.h), the rings go to /dev/vhost-net at DRIVER_OK with the
 * tap as their back-end (vhost_net.h), come back at every reset, the
 * kernel's call eventfds are relayed on the I/O thread into the device's
 * interrupt, and a failure is one line and DEVICE_NEEDS_RESET.
 */
#ifndef RVKVM_NICS_H
#define RVKVM_NICS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/board/board.h"
#include "vmm/host/iothread.h"
#include "vmm/host/tap_linux.h"
#include "vmm/host/usernet.h"
#include "vmm/host/vhost_net.h"
#include "vmm/host/vhost_user.h"
#include "vmm/machine/vhostdev.h"
#include "virtio/net.h"

struct nic {
	struct iothread *io;
	struct vm *vm;
	enum nic_mode mode; /* NIC_MODE_TAP or NIC_MODE_USER */
	struct tap tap;
	struct usernet user;
	struct virtio_net net;
	uint8_t *frame;	  /* tap: a frame the guest had no room for */
	size_t frame_len; /* 0: none held */
	int wake_fd;	  /* rx buffers posted: eventfd */
	atomic_bool down; /* user: passt is gone, the link is down */
	/*
	 * vhost=1: the rings are served by the kernel's vhost-net on the tap
	 * (mode=tap) or by passt's vhost-user back-end (mode=user).
	 */
	bool vhost;
	struct vhostdev vd; /* call eventfds relayed on the I/O thread */
	int vhost_fd;	    /* tap: /dev/vhost-net */
	struct vhost_net vn;
	int err_fd;
	struct vhost_user vu; /* user: passt's socket (user.fd) */
	struct vhost vh;
	bool gone;   /* user: passt is gone, the link down for good */
	bool logged; /* a vhost failure said since the last good start */
};

struct nics {
	struct nic nic[CONFIG_MAX_NICS]; /* in order */
	unsigned int nr;		 /* set up so far */
};

/*
 * Every NIC of cfg; 0, or -errno after one line saying why.  The default
 * NIC (no -n) is left out, with a warning, when passt is not installed;
 * an explicit mode=user then fails.  -EINTR (nothing printed) when
 * cancel_fd (the signalfd) became readable while waiting for passt.
 */
int nics_up(struct nics *n, const struct vm_config *cfg, struct board *b,
	    struct iothread *io, int cancel_fd);
/* Put every NIC's backend fd and wake-up fd on the I/O thread. */
int nics_watch(struct nics *n);
/* Stop every NIC: close taps, kill and reap passt. */
void nics_down(struct nics *n);

#endif
