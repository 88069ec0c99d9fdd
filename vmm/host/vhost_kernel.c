// SPDX-License-Identifier: GPL-2.0
/* vhost requests as ioctls on /dev/vhost-*; see vhost_kernel.h. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <linux/vhost.h>

#include "vmm/host/vhost_kernel.h"

static const unsigned long ioctl_nrs[VHOST_REQ_NR] = {
	[VHOST_REQ_SET_OWNER] = VHOST_SET_OWNER,
	[VHOST_REQ_GET_FEATURES] = VHOST_GET_FEATURES,
	[VHOST_REQ_SET_FEATURES] = VHOST_SET_FEATURES,
	[VHOST_REQ_SET_MEM_TABLE] = VHOST_SET_MEM_TABLE,
	[VHOST_REQ_SET_VRING_NUM] = VHOST_SET_VRING_NUM,
	[VHOST_REQ_SET_VRING_BASE] = VHOST_SET_VRING_BASE,
	[VHOST_REQ_GET_VRING_BASE] = VHOST_GET_VRING_BASE,
	[VHOST_REQ_SET_VRING_ADDR] = VHOST_SET_VRING_ADDR,
	[VHOST_REQ_SET_VRING_CALL] = VHOST_SET_VRING_CALL,
	[VHOST_REQ_SET_VRING_KICK] = VHOST_SET_VRING_KICK,
	[VHOST_REQ_SET_VRING_ERR] = VHOST_SET_VRING_ERR,
	[VHOST_REQ_VSOCK_SET_CID] = VHOST_VSOCK_SET_GUEST_CID,
	[VHOST_REQ_VSOCK_RUNNING] = VHOST_VSOCK_SET_RUNNING,
	[VHOST_REQ_NET_SET_BACKEND] = VHOST_NET_SET_BACKEND,
};

unsigned long vhost_kernel_ioctl_nr(enum vhost_req req)
{
	return (unsigned int)req < VHOST_REQ_NR ? ioctl_nrs[req] : 0;
}

static int kioctl(int fd, unsigned long nr, void *arg)
{
	return ioctl(fd, nr, arg) < 0 ? -errno : 0;
}

/* struct vhost_memory ends in a flexible array: one region after it. */
static int kernel_mem_table(int fd, const struct vhost_mem *m)
{
	_Alignas(struct vhost_memory)
		uint8_t buf[sizeof(struct vhost_memory) +
			    sizeof(struct vhost_memory_region)] = { 0 };
	struct vhost_memory *t = (struct vhost_memory *)buf;

	t->nregions = 1;
	t->regions[0] = (struct vhost_memory_region){
		.guest_phys_addr = m->gpa,
		.memory_size = m->size,
		.userspace_addr = m->hva,
	};
	return kioctl(fd, VHOST_SET_MEM_TABLE, t);
}

/* The ring requests that carry (index, number) or (index, fd). */
static int kernel_ring_val(int fd, enum vhost_req req,
			   struct vhost_ring_val *rv)
{
	struct vhost_vring_state st = { .index = rv->index, .num = rv->val };
	struct vhost_vring_file f = { .index = rv->index, .fd = rv->val };
	int ret;

	switch (req) {
	case VHOST_REQ_SET_VRING_CALL:
	case VHOST_REQ_SET_VRING_KICK:
	case VHOST_REQ_SET_VRING_ERR:
	case VHOST_REQ_NET_SET_BACKEND:
		return kioctl(fd, ioctl_nrs[req], &f);
	default:
		ret = kioctl(fd, ioctl_nrs[req], &st);
		rv->val = st.num;
		return ret;
	}
}

static int kernel_ring_addr(int fd, const struct vhost_ring_addr *a)
{
	struct vhost_vring_addr k = {
		.index = a->index,
		.desc_user_addr = a->desc,
		.avail_user_addr = a->avail,
		.used_user_addr = a->used,
	};

	return kioctl(fd, VHOST_SET_VRING_ADDR, &k);
}

static int kernel_req(void *opaque, enum vhost_req req, void *arg)
{
	int fd = *(int *)opaque;

	switch (req) {
	case VHOST_REQ_SET_OWNER:
		return kioctl(fd, VHOST_SET_OWNER, NULL);
	case VHOST_REQ_SET_MEM_TABLE:
		return kernel_mem_table(fd, arg);
	case VHOST_REQ_SET_VRING_NUM:
	case VHOST_REQ_SET_VRING_BASE:
	case VHOST_REQ_GET_VRING_BASE:
	case VHOST_REQ_SET_VRING_CALL:
	case VHOST_REQ_SET_VRING_KICK:
	case VHOST_REQ_SET_VRING_ERR:
	case VHOST_REQ_NET_SET_BACKEND:
		return kernel_ring_val(fd, req, arg);
	case VHOST_REQ_SET_VRING_ADDR:
		return kernel_ring_addr(fd, arg);
	case VHOST_REQ_GET_FEATURES:
	case VHOST_REQ_SET_FEATURES:
	case VHOST_REQ_VSOCK_SET_CID:
	case VHOST_REQ_VSOCK_RUNNING:
		return kioctl(fd, ioctl_nrs[req], arg);
	default:
		return -EINVAL;
	}
}

struct vhost_transport vhost_kernel_transport(int *fd)
{
	return (struct vhost_transport){ .req = kernel_req, .opaque = fd };
}
