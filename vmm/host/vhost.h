/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vhost layer: the order of requests that hands a virtio device's
 * rings to a back-end in another context (the host kernel's vhost today,
 * a vhost-user daemon later), apart from how each request travels.  A
 * struct vhost_transport carries one request at a time (vhost_kernel.c:
 * an ioctl on /dev/vhost-*); this file only sequences them, so it is
 * tested against a recording fake.
 *
 * Order (the back-end's rules: an owner first, memory before ring
 * addresses, kick last, features before the device runs):
 *   vhost_open():        SET_OWNER, GET_FEATURES, SET_MEM_TABLE
 *   vhost_ring_start():  SET_VRING_NUM, SET_VRING_BASE, SET_VRING_ADDR,
 *                        SET_VRING_CALL, SET_VRING_KICK    (per ring)
 *   vhost_set_features() SET_FEATURES (masked to what the back-end has)
 *   vhost_ring_stop():   GET_VRING_BASE                    (per ring)
 * A device type adds its own requests between them (vsock: SET_GUEST_CID
 * after vhost_open(), SET_RUNNING after the features, SET_RUNNING 0
 * before the rings stop; net: SET_BACKEND per ring after the features,
 * SET_BACKEND -1 per ring before they stop, vhost_stop_ring_req()).  A vhost-user back-end wants the features
 * before the rings and each ring enabled after its kick:
 *   vhost_set_features(), vhost_ring_start(), vhost_ring_enable()
 * (vhost_user.c negotiates the protocol features itself, right after
 * GET_FEATURES, and makes SET_VRING_ENABLE a no-op when the back-end has
 * none).
 *
 * The first failure makes the vhost broken: later calls return -EIO
 * without a request, until vhost_ring_stop() of every ring (the device
 * reset) clears it.  Nothing here logs: callers say what failed once.
 * Ring addresses are host virtual addresses of lkvm's mapping of guest
 * RAM (the kernel and a vhost-user daemon address it through them).
 */
#ifndef RVKVM_VHOST_H
#define RVKVM_VHOST_H

#include <stdbool.h>
#include <stdint.h>

#define VHOST_MAX_RINGS 8

/* Feature bits of the vhost protocol itself. */
#define VHOST_F_LOG_ALL 26

enum vhost_req {
	VHOST_REQ_SET_OWNER,	  /* arg NULL */
	VHOST_REQ_GET_FEATURES,	  /* uint64_t *, filled */
	VHOST_REQ_SET_FEATURES,	  /* const uint64_t * */
	VHOST_REQ_SET_MEM_TABLE,  /* const struct vhost_mem * */
	VHOST_REQ_SET_VRING_NUM,  /* struct vhost_ring_val * */
	VHOST_REQ_SET_VRING_BASE, /* struct vhost_ring_val * */
	VHOST_REQ_GET_VRING_BASE, /* struct vhost_ring_val *, val filled */
	VHOST_REQ_SET_VRING_ADDR, /* const struct vhost_ring_addr * */
	VHOST_REQ_SET_VRING_CALL, /* struct vhost_ring_val *, val an fd */
	VHOST_REQ_SET_VRING_KICK, /* struct vhost_ring_val *, val an fd */
	VHOST_REQ_SET_VRING_ERR,  /* struct vhost_ring_val *, val an fd */
	VHOST_REQ_VSOCK_SET_CID,  /* const uint64_t * */
	VHOST_REQ_VSOCK_RUNNING,  /* const int * (1 or 0) */
	/* struct vhost_ring_val *, val the tap's fd (-1: detach) */
	VHOST_REQ_NET_SET_BACKEND,
	/*
	 * struct vhost_ring_val *, val 1 or 0: vhost-user only (a ring of
	 * a back-end that negotiated protocol features starts disabled);
	 * the kernel transport refuses it.
	 */
	VHOST_REQ_SET_VRING_ENABLE,
	VHOST_REQ_NR,
};

/* One region of guest RAM: guest physical and lkvm's host address. */
struct vhost_mem {
	uint64_t gpa;
	uint64_t size;
	uint64_t hva;
};

struct vhost_ring_val {
	unsigned int index;
	int64_t val; /* a count, an index, or an fd (-1: unbind) */
};

struct vhost_ring_addr {
	unsigned int index;
	uint64_t desc, avail, used; /* host virtual addresses */
};

/* Carries one request: 0, or -errno. */
struct vhost_transport {
	int (*req)(void *opaque, enum vhost_req req, void *arg);
	void *opaque;
};

/* A ring as the driver set it up, for vhost_ring_start(). */
struct vhost_ring {
	uint32_t num;
	uint16_t base; /* the next available entry to process */
	uint64_t desc, avail, used;
	int call_fd; /* the back-end signals used buffers */
	int kick_fd; /* the driver's notifications (a KVM ioeventfd) */
};

struct vhost {
	struct vhost_transport t;
	uint64_t features; /* the back-end's, from GET_FEATURES */
	uint32_t started;  /* rings handed over */
	bool broken;
	enum vhost_req failed; /* the request that failed last */
};

/* Name of a request, for messages. */
const char *vhost_req_name(enum vhost_req req);

/* SET_OWNER, GET_FEATURES, SET_MEM_TABLE: 0 or -errno. */
int vhost_open(struct vhost *v, const struct vhost_transport *t,
	       const struct vhost_mem *mem);
/* One request of the device type (e.g. VSOCK_SET_CID). */
int vhost_dev_req(struct vhost *v, enum vhost_req req, void *arg);
/* Ring i (< VHOST_MAX_RINGS) to the back-end: 0 or -errno. */
int vhost_ring_start(struct vhost *v, unsigned int i,
		     const struct vhost_ring *r);
/* SET_VRING_ENABLE on (1) or off (0) for ring i (started): 0 or -errno. */
int vhost_ring_enable(struct vhost *v, unsigned int i, bool on);
/* The negotiated features, masked to the back-end's (and LOG_ALL off). */
int vhost_set_features(struct vhost *v, uint64_t features);
/*
 * The device reset: the device type's stop request first (dev_req, with
 * arg; VHOST_REQ_NR for none), then every started ring taken back
 * (GET_VRING_BASE), even after a failure; clears broken.  Returns the
 * first error.
 */
int vhost_stop(struct vhost *v, enum vhost_req dev_req, void *arg);
/*
 * Before vhost_stop(): a ring request of the device type (req, e.g.
 * NET_SET_BACKEND) with val for every started ring, made even on a
 * broken vhost.  Returns the first error (v->failed names it).
 */
int vhost_stop_ring_req(struct vhost *v, enum vhost_req req, int64_t val);

#endif
