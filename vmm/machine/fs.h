/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --fs DIR,TAG[,ro]: a virtio-fs device (virtio/fs.c) per directory,
 * whose two rings (hiprio, requests) virtiofsd serves over vhost-user
 * (vmm/host/vhost_user.c through the vhost layer, vmm/host/vhost.c).
 * virtiofsd is started at creation (vmm/host/virtiofsd.c); then the
 * vhost's owner, features and memory table (guest RAM's memfd, which
 * lkvm allocates shared when a --fs is given); at DRIVER_OK the
 * features, each ring (its kick eventfd is the queue's KVM ioeventfd,
 * which the I/O thread then leaves alone) and, with PCI bus mastering
 * on, each ring enabled; bus mastering off disables the rings until it
 * is on again; at every reset (status 0, a guest reboot) the rings are
 * taken back (GET_VRING_BASE), so the next DRIVER_OK starts afresh.
 *
 * Interrupts: virtiofsd signals a call eventfd per ring, relayed on the
 * I/O thread into the device's interrupt, as vsock's.  virtiofsd's death
 * (end of file on its socket, seen by the I/O thread) or a vhost-user
 * request that fails is one line in the log; the device is then broken
 * (DEVICE_NEEDS_RESET, and every later start fails) while lkvm and the
 * guest go on (vmm/machine/vhostdev.h's struct vhostdev_user, shared with
 * the disks qemu-storage-daemon serves).
 */
#ifndef RVKVM_FS_H
#define RVKVM_FS_H

#include <stdbool.h>

#include "vmm/board/board.h"
#include "vmm/host/iothread.h"
#include "vmm/host/virtiofsd.h"
#include "vmm/machine/vhostdev.h"
#include "virtio/fs.h"

struct fs_dev {
	struct virtio_fs dev;
	const struct fs_config *cfg;
	struct virtiofsd d;
	struct vhostdev_user u; /* the rings, virtiofsd's death */
};

struct fs {
	struct fs_dev devs[CONFIG_MAX_FS];
	unsigned int nr;
};

/* cfg's --fs devices; 0, or -errno after one line (-ENOENT: no virtiofsd). */
int fs_up(struct fs *f, const struct vm_config *cfg, struct board *b);
/* Their call eventfds and sockets on io (before it starts). */
int fs_watch(struct fs *f, struct iothread *io);
void fs_down(struct fs *f);

#endif
