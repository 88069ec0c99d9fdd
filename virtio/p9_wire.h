/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The 9P2000.L wire format: a pure, bounded decoder for the requests a
 * client sends and the little-endian writer for the replies.  Nothing here
 * touches a file system; virtio/p9_fs.c executes what this decodes.
 *
 * A message is size[4] type[1] tag[2] followed by the type's fields.
 * p9_decode() takes the bytes one request arrived in and checks, before
 * anything else reads them: size >= 7 and size <= the bytes given (bytes
 * past size are ignored), every field inside size, strings no longer than
 * P9_STR_MAX with no NUL byte in them, at most P9_MAXWELEM walk names,
 * Twrite data inside the message, and no bytes left over after the last
 * field.  A message that breaks any of these is -EBADMSG (its tag is
 * still decoded when the header is complete, for the error reply); an
 * unknown type is -EOPNOTSUPP.  Strings and data point into the caller's
 * buffer (not NUL-terminated: use the lengths).
 */
#ifndef RVKVM_P9_WIRE_H
#define RVKVM_P9_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#define P9_HDR_SIZE 7
#define P9_MAXWELEM 16
#define P9_STR_MAX 4096 /* PATH_MAX: names, targets, version strings */
#define P9_NOTAG 0xffff
#define P9_NOFID 0xffffffffu

/* Message types (9P2000 and the .L additions). */
enum p9_type {
	P9_TLERROR = 6,
	P9_RLERROR = 7,
	P9_TSTATFS = 8,
	P9_TLOPEN = 12,
	P9_TLCREATE = 14,
	P9_TSYMLINK = 16,
	P9_TMKNOD = 18,
	P9_TRENAME = 20,
	P9_TREADLINK = 22,
	P9_TGETATTR = 24,
	P9_TSETATTR = 26,
	P9_TXATTRWALK = 30,
	P9_TXATTRCREATE = 32,
	P9_TREADDIR = 40,
	P9_TFSYNC = 50,
	P9_TLOCK = 52,
	P9_TGETLOCK = 54,
	P9_TLINK = 70,
	P9_TMKDIR = 72,
	P9_TRENAMEAT = 74,
	P9_TUNLINKAT = 76,
	P9_TVERSION = 100,
	P9_TAUTH = 102,
	P9_TATTACH = 104,
	P9_TFLUSH = 108,
	P9_TWALK = 110,
	P9_TREAD = 116,
	P9_TWRITE = 118,
	P9_TCLUNK = 120,
	P9_TREMOVE = 122,
};

/* qid types */
#define P9_QTDIR 0x80
#define P9_QTSYMLINK 0x02
#define P9_QTFILE 0x00

/* Tgetattr/Rgetattr valid: mode .. blocks (the "basic" set). */
#define P9_GETATTR_BASIC 0x7ffULL

/* Tsetattr valid bits. */
#define P9_SETATTR_MODE 0x1u
#define P9_SETATTR_UID 0x2u
#define P9_SETATTR_GID 0x4u
#define P9_SETATTR_SIZE 0x8u
#define P9_SETATTR_ATIME 0x10u
#define P9_SETATTR_MTIME 0x20u
#define P9_SETATTR_CTIME 0x40u
#define P9_SETATTR_ATIME_SET 0x80u
#define P9_SETATTR_MTIME_SET 0x100u

struct p9_str {
	const char *s; /* not NUL-terminated, no NUL inside */
	uint16_t len;
};

struct p9_qid {
	uint8_t type;
	uint32_t version;
	uint64_t path;
};

/* One decoded request: fields by name; which are set depends on type. */
struct p9_req {
	uint8_t type;
	uint16_t tag;
	uint32_t fid, newfid, dfid; /* dfid: directory, 2nd fid */
	uint32_t msize, flags, mode, gid, uid, valid, count, datasync;
	uint64_t offset, size, mask;
	uint64_t atime_sec, atime_nsec, mtime_sec, mtime_nsec;
	uint16_t oldtag, nwname;
	struct p9_str name, name2; /* name; 2nd name or target */
	struct p9_str wnames[P9_MAXWELEM];
	const uint8_t *data; /* Twrite: count bytes */
	/* Tlock/Tgetlock */
	uint8_t lock_type;
	uint64_t lock_start, lock_length;
	uint32_t lock_proc;
	struct p9_str client_id;
};

/*
 * Decode one request from buf[0, len).  0, -EBADMSG (malformed; req->tag
 * and req->type hold what the header said, P9_NOTAG without a header) or
 * -EOPNOTSUPP (well-formed header, unknown type).
 */
int p9_decode(const uint8_t *buf, uint32_t len, struct p9_req *req);

/* A bounded reply writer: an overflow sets 'over' and writes nothing. */
struct p9_out {
	uint8_t *buf;
	uint32_t cap, len;
	bool over;
};

void p9_out_init(struct p9_out *o, uint8_t *buf, uint32_t cap);
/* Start a reply: size (patched by p9_out_finish), type, tag. */
void p9_out_hdr(struct p9_out *o, uint8_t type, uint16_t tag);
void p9_put_u8(struct p9_out *o, uint8_t v);
void p9_put_u16(struct p9_out *o, uint16_t v);
void p9_put_u32(struct p9_out *o, uint32_t v);
void p9_put_u64(struct p9_out *o, uint64_t v);
void p9_put_str(struct p9_out *o, const char *s, uint16_t len);
void p9_put_qid(struct p9_out *o, const struct p9_qid *q);
void p9_put_bytes(struct p9_out *o, const void *p, uint32_t len);
/* Write the size field; the reply length, or 0 after an overflow. */
uint32_t p9_out_finish(struct p9_out *o);

/* An Rlerror for tag with a positive errno; its length (11). */
uint32_t p9_put_lerror(uint8_t *buf, uint32_t cap, uint16_t tag, int err);

#endif
