/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio-9p (device ID 9 in virtio 1.2 §5; the layout is that of Linux's
 * uapi virtio_9p.h): one request queue, feature VIRTIO_9P_MOUNT_TAG (bit 0) and a
 * configuration space of tag_len[le16] then the tag's bytes (no NUL), the
 * name the guest mounts (mount -t 9p -o trans=virtio TAG DIR).
 *
 * Each chain is one 9P request (its device-readable bytes, at most
 * P9_MSIZE_MAX of them) and room for the reply (its device-writable
 * buffers); virtio/p9_fs.c serves it from the shared directory, and the
 * chain is returned with the reply's length.  A chain longer than the
 * limit or without room for an 11-byte Rlerror is returned with what was
 * written (logged once).
 *
 * Threads: requests are served in order on the device's own worker
 * thread (one per share, started by virtio_9p_init()), never on the
 * thread that delivers the notification: a slow host file system then
 * delays only this share, not the I/O thread's disks, NICs and console.
 * notify() only wakes the worker; the worker pops a chain under the
 * transport lock, serves it without the lock (the server is the worker's
 * alone, the chain's buffers stay valid in guest RAM), then pushes it and
 * interrupts the driver under the lock.  A device reset (status 0, or a
 * guest reboot) waits for the request being served, which is then
 * dropped with the rings, before it resets the server; virtio_9p_stop()
 * (and destroy) lets the worker finish that request and joins it.
 *
 * The transport is embedded: see virtio/rng.h.
 */
#ifndef RVKVM_VIRTIO_9P_H
#define RVKVM_VIRTIO_9P_H

#include <pthread.h>
#include <stdbool.h>

#include "virtio/mmio.h"
#include "virtio/p9_fs.h"

#define VIRTIO_ID_9P 9
#define VIRTIO_9P_MOUNT_TAG 0
#define VIRTIO_9P_QUEUE_SIZE 128
#define VIRTIO_9P_TAG_MAX 64 /* our limit; the guest reads tag_len */

struct virtio_9p {
	struct virtio_mmio vm;
	struct p9_server srv;
	uint16_t tag_len;
	char tag[VIRTIO_9P_TAG_MAX];
	uint8_t *req, *resp;	  /* P9_MSIZE_MAX each, the worker's */
	struct virtq_chain chain; /* the worker's request */
	/* The server's entry point (p9_server_handle; tests may wrap it). */
	uint32_t (*serve)(struct p9_server *s, const uint8_t *req, uint32_t len,
			  uint8_t *resp, uint32_t cap);

	/* The worker; the flags under the transport lock. */
	pthread_t worker;
	pthread_cond_t wake; /* kicked or quit set */
	pthread_cond_t idle; /* busy cleared */
	bool started;	     /* worker running, to be joined */
	bool quit;	     /* stop after the request being served */
	bool kicked;	     /* the queue was notified: look at it */
	bool busy;	     /* serving a chain without the lock */
};

/*
 * Share dir under tag (1..VIRTIO_9P_TAG_MAX bytes): 0, -EINVAL for a bad
 * tag, or -errno from opening dir.
 */
int virtio_9p_init(struct virtio_9p *p, const struct dev_res *res,
		   const struct guest_mem *mem, const struct irq_line *irq,
		   const char *dir, const char *tag);
/* Stop and join the worker (it finishes its request); idempotent. */
void virtio_9p_stop(struct virtio_9p *p);
/* virtio_9p_stop(), then free everything. */
void virtio_9p_destroy(struct virtio_9p *p);

#endif
