// SPDX-License-Identifier: GPL-2.0
/* GSI routes for MSI irqfds, kept with KVM's line entries; see gsi_routes.h. */
#include <errno.h>
#include <string.h>

#include "vmm/kvm/gsi_routes.h"

static void slots_free(struct gsi_routes *r)
{
	for (unsigned int i = 0; i < GSI_ROUTES_MSI_MAX; i++)
		r->slot[i] = (struct gsi_routes_slot){ .fd = -1 };
}

void gsi_routes_init(struct gsi_routes *r)
{
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	slots_free(r);
}

void gsi_routes_destroy(struct gsi_routes *r)
{
	pthread_mutex_destroy(&r->lock);
}

int gsi_routes_start(struct gsi_routes *r, const struct gsi_route_ops *ops,
		     void *opaque, uint32_t nr_lines)
{
	if (!ops || nr_lines > GSI_ROUTES_KVM_MAX - GSI_ROUTES_MSI_MAX)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	slots_free(r);
	r->ops = ops;
	r->opaque = opaque;
	r->nr_lines = nr_lines;
	pthread_mutex_unlock(&r->lock);
	return 0;
}

void gsi_routes_stop(struct gsi_routes *r)
{
	pthread_mutex_lock(&r->lock);
	r->ops = NULL;
	slots_free(r);
	pthread_mutex_unlock(&r->lock);
}

bool gsi_routes_live(struct gsi_routes *r)
{
	bool live;

	pthread_mutex_lock(&r->lock);
	live = r->ops;
	pthread_mutex_unlock(&r->lock);
	return live;
}

/* Lock held: the whole table, the line entries first. */
static int routes_push(struct gsi_routes *r)
{
	struct gsi_msi_route msi[GSI_ROUTES_MSI_MAX];
	unsigned int n = 0;

	for (unsigned int i = 0; i < GSI_ROUTES_MSI_MAX; i++)
		if (r->slot[i].fd >= 0)
			msi[n++] = (struct gsi_msi_route){
				.gsi = r->nr_lines + i,
				.addr = r->slot[i].addr,
				.data = r->slot[i].data,
			};
	r->pushes++;
	return r->ops->set(r->opaque, r->nr_lines, msi, n);
}

/* Lock held: fd's slot, or -1. */
static int slot_of(const struct gsi_routes *r, int fd)
{
	for (int i = 0; i < GSI_ROUTES_MSI_MAX; i++)
		if (r->slot[i].fd == fd)
			return i;
	return -1;
}

/* Lock held: a route for a new fd, then its irqfd; undone on failure. */
static int routes_add(struct gsi_routes *r, int fd, uint64_t addr,
		      uint32_t data, uint32_t *gsi)
{
	int i = slot_of(r, -1);
	int ret;

	if (i < 0)
		return -ENOSPC;
	r->slot[i] = (struct gsi_routes_slot){ fd, addr, data };
	*gsi = r->nr_lines + i;
	ret = routes_push(r);
	ret = ret ?: r->ops->irqfd(r->opaque, fd, *gsi, true);
	if (ret) {
		r->slot[i].fd = -1;
		(void)routes_push(r);
	}
	return ret;
}

int gsi_routes_set(struct gsi_routes *r, int fd, uint64_t addr, uint32_t data,
		   uint32_t *gsi)
{
	struct gsi_routes_slot old;
	int i, ret = 0;

	if (fd < 0)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	i = r->ops ? slot_of(r, fd) : -1;
	if (!r->ops) {
		ret = -ENODEV;
	} else if (i < 0) {
		ret = routes_add(r, fd, addr, data, gsi);
	} else if (r->slot[i].addr != addr || r->slot[i].data != data) {
		old = r->slot[i];
		r->slot[i].addr = addr;
		r->slot[i].data = data;
		ret = routes_push(r);
		if (ret)
			r->slot[i] = old;
	}
	if (i >= 0)
		*gsi = r->nr_lines + i;
	pthread_mutex_unlock(&r->lock);
	return ret;
}

int gsi_routes_clear(struct gsi_routes *r, int fd)
{
	int i, ret = 0, ret2;

	pthread_mutex_lock(&r->lock);
	i = r->ops && fd >= 0 ? slot_of(r, fd) : -1;
	if (i >= 0) {
		ret = r->ops->irqfd(r->opaque, fd, r->nr_lines + i, false);
		r->slot[i].fd = -1;
		ret2 = routes_push(r);
		ret = ret ?: ret2;
	}
	pthread_mutex_unlock(&r->lock);
	return ret;
}
