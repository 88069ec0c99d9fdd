/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM's GSI routing table with the in-kernel AIA, and the irqfds bound to
 * its MSI routes: the bookkeeping, apart from the ioctls (struct
 * gsi_route_ops: KVM_SET_GSI_ROUTING and KVM_IRQFD in kvm_irqchip.c, a
 * recording fake in the unit tests).
 *
 * KVM_SET_GSI_ROUTING replaces the whole table, and KVM's AIA starts with
 * one line entry per APLIC source (GSI n to pin n, n < nr_lines), which
 * the irqfds of lkvm's virtio-mmio slots and KVM_IRQ_LINE use: every
 * table pushed here has those line entries first, then one MSI entry per
 * bound eventfd, on GSIs from nr_lines up.  An eventfd (a vhost call
 * eventfd) is the key: gsi_routes_set() gives it an MSI route and an
 * irqfd on it (or changes the message of the route it has: the irqfd
 * stays), gsi_routes_clear() takes both away.  At most GSI_ROUTES_MSI_MAX
 * eventfds: their number is lkvm's (rings of its vhost devices), only the
 * messages come from the guest.
 *
 * gsi_routes_start() at the AIA's creation, gsi_routes_stop() before the
 * VM goes (its irqfds go with it: nothing is asked of KVM); meanwhile set
 * returns -ENODEV and clear does nothing.  Thread-safe (one mutex).
 */
#ifndef RVKVM_GSI_ROUTES_H
#define RVKVM_GSI_ROUTES_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define GSI_ROUTES_MSI_MAX 64
/* KVM_MAX_IRQ_ROUTES: the table's size and every GSI's bound. */
#define GSI_ROUTES_KVM_MAX 4096

struct gsi_msi_route {
	uint32_t gsi;
	uint64_t addr;
	uint32_t data;
};

struct gsi_route_ops {
	/*
	 * Replace KVM's table: GSI n to the irqchip's pin n for n <
	 * nr_lines, then the n_msi routes.  0 or -errno.
	 */
	int (*set)(void *opaque, uint32_t nr_lines,
		   const struct gsi_msi_route *msi, unsigned int n_msi);
	/* Bind (on) or unbind eventfd fd and gsi.  0 or -errno. */
	int (*irqfd)(void *opaque, int fd, uint32_t gsi, bool on);
};

struct gsi_routes {
	pthread_mutex_t lock;
	const struct gsi_route_ops *ops; /* NULL: stopped */
	void *opaque;
	uint32_t nr_lines;
	struct gsi_routes_slot {
		int fd; /* -1: free */
		uint64_t addr;
		uint32_t data;
	} slot[GSI_ROUTES_MSI_MAX]; /* slot i is GSI nr_lines + i */
	unsigned int pushes;	    /* tables pushed (tests, --debug) */
};

void gsi_routes_init(struct gsi_routes *r);
void gsi_routes_destroy(struct gsi_routes *r);

/*
 * KVM made its default table (nr_lines line entries, nothing bound):
 * routes through ops from now on.  -EINVAL when nr_lines leaves no room
 * for the MSI GSIs below GSI_ROUTES_KVM_MAX.
 */
int gsi_routes_start(struct gsi_routes *r, const struct gsi_route_ops *ops,
		     void *opaque, uint32_t nr_lines);
/* The VM goes: forget every route and binding, ask nothing of KVM. */
void gsi_routes_stop(struct gsi_routes *r);
bool gsi_routes_live(struct gsi_routes *r);

/*
 * fd's interrupts are the message (addr, data): a route (a new GSI, or
 * fd's own with the message changed) in a pushed table, and an irqfd
 * bound on it when it is new.  0 and *gsi, or -ENODEV (stopped),
 * -ENOSPC (no free GSI) or KVM's -errno (nothing changed: the table
 * pushed again without the new route).
 */
int gsi_routes_set(struct gsi_routes *r, int fd, uint64_t addr, uint32_t data,
		   uint32_t *gsi);
/*
 * fd's irqfd unbound and its route gone (table pushed).  0 (also for an
 * fd with no route, or stopped routes), or KVM's -errno (the route is
 * forgotten all the same).
 */
int gsi_routes_clear(struct gsi_routes *r, int fd);

#endif
