/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A -d image in a format lkvm does not serve itself (format=qcow2, a name
 * ending .qcow2, ...) or with ,snapshot: qemu-storage-daemon
 * (vmm/host/qsd.c) serves it as a vhost-user-blk back-end; lkvm shows the
 * guest a virtio-blk device (virtio/blk_user.c) whose one request queue
 * the daemon serves, with the daemon's configuration space (capacity,
 * block size, ...), read once with GET_CONFIG (the CONFIG protocol
 * feature; a daemon without it is refused) and checked.  Rings, call
 * relays, reset and the daemon's death are vmm/machine/vhostdev.h's
 * struct vhostdev_user, as for virtio-fs; the daemon's death is one line
 * quoting its last message, then lkvm takes the ring back and fails
 * every request the daemon had not taken with IOERR (blk_user.h; those
 * it had taken never complete), and lkvm and the guest go on.
 */
#ifndef RVKVM_QSDISK_H
#define RVKVM_QSDISK_H

#include "vmm/board/board.h"
#include "vmm/host/iothread.h"
#include "vmm/host/qsd.h"
#include "vmm/machine/vhostdev.h"
#include "virtio/blk_user.h"

struct qsdisk {
	struct virtio_blk_user dev;
	const struct disk_config *cfg;
	struct qsd q;
	struct vhostdev_user u;
	uint8_t config[VIRTIO_BLK_USER_CONFIG_SIZE]; /* the daemon's */
};

/*
 * dc's daemon and device on the next slot of b: 0, or -errno after one
 * line (-ENOENT: qemu-storage-daemon or qemu-img not installed).
 */
int qsdisk_up(struct qsdisk *d, const struct disk_config *dc, struct board *b);
/* The call eventfd and the daemon's socket on io (before it starts). */
int qsdisk_watch(struct qsdisk *d, struct iothread *io);
/* The device, the daemon (killed and reaped) and the eventfds. */
void qsdisk_down(struct qsdisk *d);

#endif
