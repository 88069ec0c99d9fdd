/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A vhost-user back-end (a daemon such as virtiofsd) as a struct
 * vhost_transport (vhost.h): each request is one message on a connected
 * unix stream socket, in the host's byte order:
 *
 *   header   request u32, flags u32, size u32 (of the payload after it)
 *   payload  u64 | vring state (index u32, num u32) | vring address
 *            (index u32, flags u32, desc u64, used u64, avail u64,
 *            log u64) | memory table (count u32, padding u32, then per
 *            region: guest address u64, size u64, user address u64,
 *            mmap offset u64)
 *
 * Flags: version 1 in bits 0-1, VHOST_USER_FLAG_REPLY in a back-end's
 * reply, VHOST_USER_FLAG_NEED_REPLY in a request that asks for an ack
 * (a u64, 0 for success) once REPLY_ACK was negotiated.  File
 * descriptors ride along as SCM_RIGHTS: one per region of SET_MEM_TABLE
 * (the memory lkvm shares: guest RAM in a memfd), one with
 * SET_VRING_CALL/KICK/ERR unless the u64's VHOST_USER_VRING_NOFD bit
 * says there is none (fd -1).
 *
 * GET_FEATURES is followed, when the back-end offers
 * VHOST_USER_F_PROTOCOL_FEATURES, by GET_PROTOCOL_FEATURES and
 * SET_PROTOCOL_FEATURES (REPLY_ACK, and CONFIG for a device that asks
 * for it, if offered); SET_FEATURES then
 * carries that bit too, and SET_VRING_ENABLE goes to the back-end (else
 * it is a no-op: the ring runs from its kick).
 *
 * The back-end is not trusted: a reply must have the request's code, the
 * reply flag and exactly the expected size, carry no descriptor, and
 * come within timeout_ms; anything else (and a closed socket) fails the
 * request with -errno and leaves the connection dead (every later
 * request: -EIO), since the stream can no longer be followed.  Nothing
 * here logs: u->why says what went wrong, for the caller's one line.
 * Never raises SIGPIPE (MSG_NOSIGNAL).
 */
#ifndef RVKVM_VHOST_USER_H
#define RVKVM_VHOST_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/host/vhost.h"

/* Message codes (front-end to back-end). */
enum {
	VHOST_USER_GET_FEATURES = 1,
	VHOST_USER_SET_FEATURES = 2,
	VHOST_USER_SET_OWNER = 3,
	VHOST_USER_SET_MEM_TABLE = 5,
	VHOST_USER_SET_VRING_NUM = 8,
	VHOST_USER_SET_VRING_ADDR = 9,
	VHOST_USER_SET_VRING_BASE = 10,
	VHOST_USER_GET_VRING_BASE = 11,
	VHOST_USER_SET_VRING_KICK = 12,
	VHOST_USER_SET_VRING_CALL = 13,
	VHOST_USER_SET_VRING_ERR = 14,
	VHOST_USER_GET_PROTOCOL_FEATURES = 15,
	VHOST_USER_SET_PROTOCOL_FEATURES = 16,
	VHOST_USER_SET_VRING_ENABLE = 18,
	VHOST_USER_GET_CONFIG = 24,
};

#define VHOST_USER_VERSION 0x1u
#define VHOST_USER_VERSION_MASK 0x3u
#define VHOST_USER_FLAG_REPLY 0x4u
#define VHOST_USER_FLAG_NEED_REPLY 0x8u
#define VHOST_USER_VRING_NOFD 0x100u
#define VHOST_USER_VRING_IDX_MASK 0xffu
#define VHOST_USER_HDR_SIZE 12
#define VHOST_USER_MAX_REGIONS 8
#define VHOST_USER_REGION_SIZE 32
#define VHOST_USER_MEM_HDR_SIZE 8
/*
 * The largest payload the message encoders make: a full memory table.
 * GET_CONFIG's request can be longer (vhost_user_get_config() sizes its
 * own).
 */
#define VHOST_USER_PAYLOAD_MAX     \
	(VHOST_USER_MEM_HDR_SIZE + \
	 VHOST_USER_MAX_REGIONS * VHOST_USER_REGION_SIZE)

/* A virtio feature bit of vhost-user: the back-end has protocol features. */
#define VHOST_USER_F_PROTOCOL_FEATURES 30
/* Protocol feature bits. */
#define VHOST_USER_PROTOCOL_F_REPLY_ACK 3
#define VHOST_USER_PROTOCOL_F_CONFIG 9
/*
 * The protocol features lkvm uses when offered (u->wanted); a device
 * with a configuration space of the back-end's (vhost-user-blk) adds
 * CONFIG.
 */
#define VHOST_USER_PROTOCOL_WANTED (1ULL << VHOST_USER_PROTOCOL_F_REPLY_ACK)

/* GET_CONFIG: offset u32, size u32, flags u32, then size bytes. */
#define VHOST_USER_CONFIG_HDR_SIZE 12
#define VHOST_USER_CONFIG_MAX 256

#define VHOST_USER_TIMEOUT_MS 5000

/* One region of shared memory for SET_MEM_TABLE. */
struct vhost_user_region {
	uint64_t gpa, size, hva;
	uint64_t offset; /* where the region starts in fd */
	int fd;
};

struct vhost_user {
	int sock;	   /* connected unix stream socket; not owned */
	int timeout_ms;	   /* per request, for the whole exchange */
	int mem_fd;	   /* guest RAM, for SET_MEM_TABLE */
	uint64_t mem_off;  /* where guest RAM starts in mem_fd */
	bool proto;	   /* VHOST_USER_F_PROTOCOL_FEATURES offered */
	bool dead;	   /* a failure: the stream is lost */
	uint64_t wanted;   /* protocol features to take when offered */
	uint64_t protocol; /* negotiated protocol features */
	const char *why;   /* the first failure, for messages */
};

/* A connection on sock; guest RAM is mem_fd from mem_off. */
void vhost_user_init(struct vhost_user *u, int sock, int mem_fd,
		     uint64_t mem_off);

/* The transport for u (which must stay put). */
struct vhost_transport vhost_user_transport(struct vhost_user *u);

/*
 * Message encoders, exposed for tests: a whole message (header and
 * payload) into buf (at least VHOST_USER_HDR_SIZE +
 * VHOST_USER_PAYLOAD_MAX bytes); returns its length.
 */
size_t vhost_user_msg_u64(uint8_t *buf, uint32_t code, uint32_t flags,
			  uint64_t val);
size_t vhost_user_msg_state(uint8_t *buf, uint32_t code, uint32_t flags,
			    uint32_t index, uint32_t num);
size_t vhost_user_msg_addr(uint8_t *buf, uint32_t flags,
			   const struct vhost_ring_addr *a);
/* -EINVAL past VHOST_USER_MAX_REGIONS. */
int vhost_user_msg_mem(uint8_t *buf, uint32_t flags,
		       const struct vhost_user_region *r, unsigned int n);

/*
 * GET_CONFIG (the CONFIG protocol feature negotiated, else -EOPNOTSUPP):
 * the device's configuration space from offset 0, len bytes (1..
 * VHOST_USER_CONFIG_MAX) into cfg.  The reply must be the request's code
 * with the reply flag and either exactly the config header plus len
 * bytes, with offset 0 and size len in the header (0), or empty: the
 * back-end could not (-EREMOTEIO, the stream stays usable).  Anything
 * else is -EPROTO and the connection dead.
 */
int vhost_user_get_config(struct vhost_user *u, uint8_t *cfg, uint32_t len);
/*
 * The check of a GET_CONFIG reply's payload (psize bytes at p) for a
 * request of len bytes: 0 (cfg filled), -EREMOTEIO (empty), -EPROTO.
 * Pure, for the fuzz target.
 */
int vhost_user_config_reply(const uint8_t *p, uint32_t psize, uint8_t *cfg,
			    uint32_t len);

#endif
