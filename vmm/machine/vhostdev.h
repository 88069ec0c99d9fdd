/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The glue every vhost device shares (virtio-fs over vhost-user, -n
 * vhost=1 over vhost-net or over passt's vhost-user back-end): one call
 * eventfd per ring, whose interrupt path vhostdev_path() alone chooses
 * (see "Interrupt paths" below); each ring's
 * description for vhost_ring_start() taken from the driver's queue, its
 * kick the queue's KVM ioeventfd (the board slot's, which the I/O thread
 * then leaves to the back-end); a notification that took the MMIO exit
 * written to that eventfd; and the vhost-user start order (features,
 * rings, each ring enabled unless PCI bus mastering is off).
 *
 * Interrupt paths.  The back-end always signals the same call eventfd;
 * what reads it changes, per ring:
 *   irqfd  on virtio-pci with KVM's AIA, while MSI-X is on and the
 *          ring's vector is in the table, unmasked (function and entry)
 *          and bus mastering is on: the eventfd is a KVM irqfd on a GSI
 *          routed to the vector's message (vmm/kvm/gsi_routes.h), so
 *          KVM injects it without lkvm; a rewritten entry changes the
 *          route's message;
 *   relay  otherwise (virtio-mmio and INTx need the interrupt status set
 *          first, lkvm's PLIC and the in-kernel PLIC have no MSI routes, a
 *          masked vector's message must stay pending, NO_VECTOR has none):
 *          the I/O thread reads it and interrupts through the device
 *          (virtio_core_backend_used_locked());
 *   none   once the back-end is gone (vhostdev_unwatch()).
 * virtio-pci tells of every change of what decides (the table, a mask,
 * MSI-X enable, a queue's vector, bus mastering, a reset:
 * virtio_pci_msix_hook); leaving the irqfd for the relay signals the
 * eventfd once (a signal KVM took away with the irqfd is not lost; a
 * spurious interrupt is harmless).  A guest reboot that builds a new VM
 * loses every route with it (gsi_routes_stop()); the device reset then
 * puts each ring back on the relay.  With --debug: one line per device
 * at set-up naming its path, and one when a ring takes the irqfd while
 * none of the device's had it (once per boot, as a rule; at most
 * VHOSTDEV_SAY_MAX per device: the guest decides how often).
 *
 * The device model calls start/stop/kick/dma with its transport lock
 * held; the relay and the path changes take that lock.  Nothing here
 * logs a host failure: the caller says once what failed.
 */
#ifndef RVKVM_VHOSTDEV_H
#define RVKVM_VHOSTDEV_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/board/board.h"
#include "vmm/host/iothread.h"
#include "vmm/host/vhost.h"
#include "vmm/host/vhost_user.h"
#include "vmm/kvm/gsi_routes.h"
#include "virtio/backed.h"

struct vhostdev;

#define VHOSTDEV_SAY_MAX 8

enum vhostdev_path {
	VHOSTDEV_PATH_NONE,  /* nobody reads the call eventfd */
	VHOSTDEV_PATH_RELAY, /* the I/O thread */
	VHOSTDEV_PATH_IRQFD, /* KVM, on an MSI route */
};

/* What the I/O thread's handler of one call eventfd needs. */
struct vhostdev_call {
	struct vhostdev *d;
	unsigned int q;
};

struct vhostdev {
	struct virtio_mmio *vm;	 /* the device's transport */
	struct board_slot *slot; /* its kick eventfds; NULL until attached */
	struct iothread *io;	 /* NULL until watched */
	const char *name;	 /* "virtio-net", for the guest's messages */
	unsigned int nr_rings;
	int call_fd[VHOST_MAX_RINGS];
	struct vhostdev_call calls[VHOST_MAX_RINGS];
	struct gsi_routes *routes; /* KVM's AIA: MSI routes; else NULL */
	enum vhostdev_path path[VHOST_MAX_RINGS]; /* as set up now */
	bool gone; /* unwatched: the back-end is gone */
	/* --debug lines of a device taking the irqfd (bounded) */
	unsigned int said_irqfd;
	bool said_fail; /* a failed route said */
};

/* nr_rings call eventfds for the device on vm: 0 or -errno. */
int vhostdev_init(struct vhostdev *d, struct virtio_mmio *vm,
		  unsigned int nr_rings, const char *name);
/* At the device's creation on slot: its rings' kicks go to the back-end. */
void vhostdev_attach(struct vhostdev *d, struct board_slot *slot);
/* Ring i as the driver set it up: 0, or -EINVAL (queue off; said once). */
int vhostdev_ring(const struct vhostdev *d, unsigned int i,
		  struct vhost_ring *r);
/* A notification of queue q that reached lkvm: to the back-end. */
void vhostdev_kick(const struct vhostdev *d, unsigned int q);
/*
 * DRIVER_OK over vhost-user: the features, every ring, then each ring
 * enabled unless dma_off.  0, -EINVAL (the guest's queue; said), or the
 * back-end's -errno (v->failed names the request).
 */
int vhostdev_user_start(const struct vhostdev *d, struct vhost *v,
			uint64_t features, bool dma_off);
/* Bus mastering off or on: every started ring disabled or enabled. */
int vhostdev_user_dma(struct vhostdev *d, struct vhost *v, bool on);
/* The call eventfds on io (before it starts): 0 or -errno. */
int vhostdev_watch(struct vhostdev *d, struct iothread *io);
/* Lock held.  The back-end is gone: nothing reads its calls any more. */
void vhostdev_unwatch(struct vhostdev *d);
/*
 * Lock held.  Every ring's interrupt path chosen again and set up
 * (virtio-pci's MSI-X hook calls it).
 */
void vhostdev_update(struct vhostdev *d);
/* Close the eventfds (safe on a zeroed or half-made one after init). */
void vhostdev_close(struct vhostdev *d);

/*
 * A device model of virtio/backed.h whose rings a vhost-user daemon
 * serves (virtio-fs by virtiofsd, virtio-blk by qemu-storage-daemon), and
 * the daemon's death.  The back-end ops: at DRIVER_OK the features, each
 * ring and, with PCI bus mastering on, each ring enabled; bus mastering
 * off disables the rings until it is on again; at every reset (status 0,
 * a guest reboot) the rings are taken back (GET_VRING_BASE), so the next
 * DRIVER_OK starts afresh.  A request that fails is one line ("LABEL:
 * DAEMON REQ failed at WHEN: why; the device needs a reset") until a
 * start succeeds.  The daemon's socket readable outside a request (seen
 * on the I/O thread: it died, or sent what nobody asked for) is one line,
 * the daemon killed if it still runs (reaped by its owner at exit), the
 * device broken for good (DEVICE_NEEDS_RESET, every later start fails),
 * or, for a model that can answer alone (virtio-blk: IOERR), the rings
 * and their notifications taken back (virtio_backed_adopt_locked()); lkvm
 * and the guest go on.
 */
struct vhostdev_user {
	struct virtio_backed *dev;
	struct vhostdev vd;
	struct vhost_user vu;
	struct vhost vh;
	struct iothread *io;
	char label[80];	    /* "virtio-fs TAG", for the log */
	const char *daemon; /* "virtiofsd" */
	int sock;	    /* connected to the daemon; not owned */
	pid_t *pid;	    /* the daemon's; 0 once reaped; not owned */
	/* The daemon's own last message, when it keeps them (NULL: none). */
	void (*last_words)(void *opaque, char *buf, size_t size);
	void *lw_opaque;
	bool gone;   /* the daemon died: the device stays broken */
	bool logged; /* a failure said since the last good start */
};

/*
 * The daemon's first answers on u->sock (owner, features, the memory
 * table: guest RAM m in ram_fd), within start_ms: 0, or -errno after one
 * line starting with what ("--fs DIR"); a daemon that closed the socket
 * is reaped and its exit named.
 */
int vhostdev_user_open(struct vhostdev_user *u, const char *what,
		       const struct vhost_mem *m, int ram_fd, int start_ms);
/* The ops of u->dev's back-end (virtio/backed.h). */
struct virtio_backend vhostdev_user_backend(struct vhostdev_user *u);
/* The call eventfds and the daemon's socket on io (before it starts). */
int vhostdev_user_watch(struct vhostdev_user *u, struct iothread *io);

#endif
