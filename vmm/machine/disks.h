/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Disk glue: each -d image opened and locked, behind a virtio-blk device
 * in the next board slot (with queues=N request queues, or one per vCPU),
 * its requests run by its I/O engine (io_uring or worker threads); or,
 * for an image qemu-storage-daemon serves (a format other than raw asked
 * for, or ,snapshot: config_disk_qsd()), that daemon's vhost-user-blk
 * device (vmm/machine/qsdisk.h) in its slot, in -d order.
 */
#ifndef RVKVM_DISKS_H
#define RVKVM_DISKS_H

#include "vmm/board/board.h"
#include "vmm/host/iothread.h"
#include "vmm/machine/qsdisk.h"
#include "virtio/blk.h"

#define DISKS_AIO_THREADS 4

struct disks {
	struct virtio_blk blk[CONFIG_MAX_DISKS]; /* -d, in order */
	struct virtio_blk_file file[CONFIG_MAX_DISKS];
	struct virtio_blk_aio aio[CONFIG_MAX_DISKS]; /* their engines */
	const char *path[CONFIG_MAX_DISKS];	     /* for messages */
	unsigned int nr;			     /* set up so far */
	struct qsdisk qsd[CONFIG_MAX_DISKS]; /* served by qemu-storage-daemon */
	unsigned int nr_qsd;
	uint64_t poll_ns; /* each disk's longest polling window (0: none) */
	bool poll_always; /* --io-poll given: a window after every notification */
	bool route; /* notifications by depth (--io-notify vcpu, or auto) */
};

/* A disk's request queues: queues=N, else nr_cpus; within 1..8. */
unsigned int disks_queues(const struct disk_config *dc, unsigned int nr_cpus);
/* Every disk of cfg; 0, or -errno after one line naming the image. */
int disks_up(struct disks *d, const struct vm_config *cfg, struct board *b);
/* Watch each disk's engine on io (before it starts). */
int disks_watch(struct disks *d, struct iothread *io);
/* After the I/O thread has stopped; with --debug, requests per queue. */
void disks_down(struct disks *d);

#endif
