// SPDX-License-Identifier: GPL-2.0
/* The vhost request order, over any transport; see vhost.h. */
#include <errno.h>
#include <stddef.h>

#include "vmm/host/vhost.h"

static const char *const req_names[VHOST_REQ_NR] = {
	[VHOST_REQ_SET_OWNER] = "SET_OWNER",
	[VHOST_REQ_GET_FEATURES] = "GET_FEATURES",
	[VHOST_REQ_SET_FEATURES] = "SET_FEATURES",
	[VHOST_REQ_SET_MEM_TABLE] = "SET_MEM_TABLE",
	[VHOST_REQ_SET_VRING_NUM] = "SET_VRING_NUM",
	[VHOST_REQ_SET_VRING_BASE] = "SET_VRING_BASE",
	[VHOST_REQ_GET_VRING_BASE] = "GET_VRING_BASE",
	[VHOST_REQ_SET_VRING_ADDR] = "SET_VRING_ADDR",
	[VHOST_REQ_SET_VRING_CALL] = "SET_VRING_CALL",
	[VHOST_REQ_SET_VRING_KICK] = "SET_VRING_KICK",
	[VHOST_REQ_SET_VRING_ERR] = "SET_VRING_ERR",
	[VHOST_REQ_VSOCK_SET_CID] = "VSOCK_SET_GUEST_CID",
	[VHOST_REQ_VSOCK_RUNNING] = "VSOCK_SET_RUNNING",
	[VHOST_REQ_NET_SET_BACKEND] = "NET_SET_BACKEND",
	[VHOST_REQ_SET_VRING_ENABLE] = "SET_VRING_ENABLE",
};

const char *vhost_req_name(enum vhost_req req)
{
	return (unsigned int)req < VHOST_REQ_NR ? req_names[req] : "?";
}

/* One request; the first failure breaks the vhost. */
static int vhost_req(struct vhost *v, enum vhost_req req, void *arg)
{
	int ret;

	if (v->broken)
		return -EIO;
	ret = v->t.req(v->t.opaque, req, arg);
	if (ret) {
		v->broken = true;
		v->failed = req;
	}
	return ret;
}

int vhost_open(struct vhost *v, const struct vhost_transport *t,
	       const struct vhost_mem *mem)
{
	int ret;

	*v = (struct vhost){ .t = *t };
	ret = vhost_req(v, VHOST_REQ_SET_OWNER, NULL);
	ret = ret ?: vhost_req(v, VHOST_REQ_GET_FEATURES, &v->features);
	return ret ?: vhost_req(v, VHOST_REQ_SET_MEM_TABLE, (void *)mem);
}

int vhost_dev_req(struct vhost *v, enum vhost_req req, void *arg)
{
	return vhost_req(v, req, arg);
}

static int ring_val(struct vhost *v, enum vhost_req req, unsigned int i,
		    int64_t val)
{
	struct vhost_ring_val rv = { .index = i, .val = val };

	return vhost_req(v, req, &rv);
}

int vhost_ring_start(struct vhost *v, unsigned int i,
		     const struct vhost_ring *r)
{
	struct vhost_ring_addr a = {
		.index = i,
		.desc = r->desc,
		.avail = r->avail,
		.used = r->used,
	};
	int ret;

	if (i >= VHOST_MAX_RINGS)
		return -EINVAL;
	ret = ring_val(v, VHOST_REQ_SET_VRING_NUM, i, r->num);
	ret = ret ?: ring_val(v, VHOST_REQ_SET_VRING_BASE, i, r->base);
	ret = ret ?: vhost_req(v, VHOST_REQ_SET_VRING_ADDR, &a);
	ret = ret ?: ring_val(v, VHOST_REQ_SET_VRING_CALL, i, r->call_fd);
	ret = ret ?: ring_val(v, VHOST_REQ_SET_VRING_KICK, i, r->kick_fd);
	if (!ret)
		v->started |= 1u << i;
	return ret;
}

int vhost_ring_enable(struct vhost *v, unsigned int i, bool on)
{
	if (i >= VHOST_MAX_RINGS || !(v->started & (1u << i)))
		return -EINVAL;
	return ring_val(v, VHOST_REQ_SET_VRING_ENABLE, i, on);
}

int vhost_set_features(struct vhost *v, uint64_t features)
{
	uint64_t f = features & v->features & ~(1ULL << VHOST_F_LOG_ALL);

	return vhost_req(v, VHOST_REQ_SET_FEATURES, &f);
}

/* A request made even on a broken vhost; keeps the first error. */
static void stop_req(struct vhost *v, enum vhost_req req, void *arg, int *first)
{
	int ret = v->t.req(v->t.opaque, req, arg);

	if (ret && !*first) {
		*first = ret;
		v->failed = req;
	}
}

int vhost_stop(struct vhost *v, enum vhost_req dev_req, void *arg)
{
	int first = 0;

	if (dev_req < VHOST_REQ_NR)
		stop_req(v, dev_req, arg, &first);
	for (unsigned int i = 0; i < VHOST_MAX_RINGS; i++) {
		struct vhost_ring_val rv = { .index = i };

		if (v->started & (1u << i))
			stop_req(v, VHOST_REQ_GET_VRING_BASE, &rv, &first);
	}
	v->started = 0;
	v->broken = false;
	return first;
}

int vhost_stop_ring_req(struct vhost *v, enum vhost_req req, int64_t val)
{
	int first = 0;

	for (unsigned int i = 0; i < VHOST_MAX_RINGS; i++) {
		struct vhost_ring_val rv = { .index = i, .val = val };

		if (v->started & (1u << i))
			stop_req(v, req, &rv, &first);
	}
	return first;
}
