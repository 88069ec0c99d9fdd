/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Disk glue: each -d image opened and locked, behind a virtio-blk device
 * in the next board slot.
 */
#ifndef RVKVM_DISKS_H
#define RVKVM_DISKS_H

#include "board.h"
#include "virtio/blk.h"

struct disks {
	struct virtio_blk blk[CONFIG_MAX_DISKS];	/* -d, in order */
	struct virtio_blk_file file[CONFIG_MAX_DISKS];
	unsigned int nr;				/* set up so far */
};

/* Every disk of cfg; 0, or -errno after one line naming the image. */
int disks_up(struct disks *d, const struct vm_config *cfg, struct board *b);
void disks_down(struct disks *d);

#endif
