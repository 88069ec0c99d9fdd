/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network glue: each -n mode=tap NIC is a tap device behind a virtio-net
 * device in the next board slot; frames move on the I/O thread.
 */
#ifndef RVKVM_NICS_H
#define RVKVM_NICS_H

#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "iothread.h"
#include "tap_linux.h"
#include "virtio/net.h"

struct nic {
	struct iothread *io;
	struct tap tap;
	struct virtio_net net;
	uint8_t *frame;	  /* a frame the guest had no room for */
	size_t frame_len; /* 0: none held */
	int wake_fd;	  /* rx buffers posted: eventfd */
};

struct nics {
	struct nic nic[CONFIG_MAX_NICS]; /* -n mode=tap, in order */
	unsigned int nr;		 /* set up so far */
};

/* Every tap NIC of cfg; 0, or -errno after one line saying why. */
int nics_up(struct nics *n, const struct vm_config *cfg, struct board *b,
	    struct iothread *io);
/* Put every NIC's tap and wake-up fd on the I/O thread (before start). */
int nics_watch(struct nics *n);
void nics_down(struct nics *n);

#endif
