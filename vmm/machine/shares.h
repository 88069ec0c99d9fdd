/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 9p share glue: each --9p (and the shares -d DIR and sandboxes add) gets a
 * virtio-9p device in the next virtio slot.  The server (virtio/p9_fs.c)
 * runs on the I/O thread, which processes the device's notifications.
 */
#ifndef RVKVM_SHARES_H
#define RVKVM_SHARES_H

#include "vmm/board/board.h"
#include "virtio/9p.h"

struct shares {
	struct virtio_9p dev[CONFIG_MAX_SHARES];
	unsigned int nr; /* set up so far */
};

/* Every share of cfg; 0, or -errno after one line naming the directory. */
int shares_up(struct shares *s, const struct vm_config *cfg, struct board *b);
void shares_down(struct shares *s);

#endif
