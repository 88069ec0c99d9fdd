// SPDX-License-Identifier: GPL-2.0
/* The 9P2000.L wire format; see p9_wire.h. */
#include <errno.h>
#include <string.h>

#include "virtio/p9_wire.h"

/* A read cursor over one message; 'bad' sticks after the first overrun. */
struct p9_in {
	const uint8_t *buf;
	uint32_t len, off;
	bool bad;
};

static const uint8_t *p9_take(struct p9_in *in, uint32_t n)
{
	const uint8_t *p;

	if (in->bad || n > in->len - in->off) {
		in->bad = true;
		return NULL;
	}
	p = in->buf + in->off;
	in->off += n;
	return p;
}

static uint64_t p9_get_le(struct p9_in *in, unsigned int n)
{
	const uint8_t *p = p9_take(in, n);
	uint64_t v = 0;

	for (unsigned int i = 0; p && i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static uint8_t get8(struct p9_in *in)
{
	return p9_get_le(in, 1);
}

static uint16_t get16(struct p9_in *in)
{
	return p9_get_le(in, 2);
}

static uint32_t get32(struct p9_in *in)
{
	return p9_get_le(in, 4);
}

static uint64_t get64(struct p9_in *in)
{
	return p9_get_le(in, 8);
}

static struct p9_str getstr(struct p9_in *in)
{
	struct p9_str s = { "", 0 };
	uint16_t len = get16(in);
	const uint8_t *p;

	if (len > P9_STR_MAX) {
		in->bad = true;
		return s;
	}
	p = p9_take(in, len);
	if (!p || memchr(p, 0, len)) {
		in->bad = true;
		return s;
	}
	s.s = (const char *)p;
	s.len = len;
	return s;
}

static void decode_walk(struct p9_in *in, struct p9_req *r)
{
	r->fid = get32(in);
	r->newfid = get32(in);
	r->nwname = get16(in);
	if (r->nwname > P9_MAXWELEM) {
		in->bad = true;
		return;
	}
	for (unsigned int i = 0; i < r->nwname; i++)
		r->wnames[i] = getstr(in);
}

static void decode_setattr(struct p9_in *in, struct p9_req *r)
{
	r->fid = get32(in);
	r->valid = get32(in);
	r->mode = get32(in);
	r->uid = get32(in);
	r->gid = get32(in);
	r->size = get64(in);
	r->atime_sec = get64(in);
	r->atime_nsec = get64(in);
	r->mtime_sec = get64(in);
	r->mtime_nsec = get64(in);
}

static void decode_lock(struct p9_in *in, struct p9_req *r, bool flags)
{
	r->fid = get32(in);
	r->lock_type = get8(in);
	if (flags)
		r->flags = get32(in);
	r->lock_start = get64(in);
	r->lock_length = get64(in);
	r->lock_proc = get32(in);
	r->client_id = getstr(in);
}

static void decode_write(struct p9_in *in, struct p9_req *r)
{
	r->fid = get32(in);
	r->offset = get64(in);
	r->count = get32(in);
	r->data = p9_take(in, r->count);
}

/* Requests that create something: dfid name ... */
static bool decode_create(struct p9_in *in, struct p9_req *r)
{
	switch (r->type) {
	case P9_TLCREATE:
		r->fid = get32(in);
		r->name = getstr(in);
		r->flags = get32(in);
		r->mode = get32(in);
		r->gid = get32(in);
		return true;
	case P9_TSYMLINK:
		r->fid = get32(in);
		r->name = getstr(in);
		r->name2 = getstr(in);
		r->gid = get32(in);
		return true;
	case P9_TMKNOD:
		r->dfid = get32(in);
		r->name = getstr(in);
		r->mode = get32(in);
		r->uid = get32(in);   /* major */
		r->count = get32(in); /* minor */
		r->gid = get32(in);
		return true;
	case P9_TMKDIR:
		r->dfid = get32(in);
		r->name = getstr(in);
		r->mode = get32(in);
		r->gid = get32(in);
		return true;
	case P9_TLINK:
		r->dfid = get32(in);
		r->fid = get32(in);
		r->name = getstr(in);
		return true;
	}
	return false;
}

/* Renames, removals and the session requests. */
static bool decode_names(struct p9_in *in, struct p9_req *r)
{
	switch (r->type) {
	case P9_TRENAME:
		r->fid = get32(in);
		r->dfid = get32(in);
		r->name = getstr(in);
		return true;
	case P9_TRENAMEAT:
		r->fid = get32(in);
		r->name = getstr(in);
		r->dfid = get32(in);
		r->name2 = getstr(in);
		return true;
	case P9_TUNLINKAT:
		r->dfid = get32(in);
		r->name = getstr(in);
		r->flags = get32(in);
		return true;
	case P9_TXATTRWALK:
		r->fid = get32(in);
		r->newfid = get32(in);
		r->name = getstr(in);
		return true;
	case P9_TXATTRCREATE:
		r->fid = get32(in);
		r->name = getstr(in);
		r->size = get64(in);
		r->flags = get32(in);
		return true;
	case P9_TVERSION:
		r->msize = get32(in);
		r->name = getstr(in);
		return true;
	case P9_TAUTH:
	case P9_TATTACH:
		r->fid = get32(in);
		r->newfid = r->type == P9_TATTACH ? get32(in) : P9_NOFID;
		r->name = getstr(in);  /* uname */
		r->name2 = getstr(in); /* aname */
		r->uid = get32(in);    /* n_uname */
		return true;
	}
	return false;
}

/* Requests on one fid. */
static bool decode_fid_ops(struct p9_in *in, struct p9_req *r)
{
	switch (r->type) {
	case P9_TSTATFS:
	case P9_TREADLINK:
	case P9_TCLUNK:
	case P9_TREMOVE:
		r->fid = get32(in);
		return true;
	case P9_TLOPEN:
		r->fid = get32(in);
		r->flags = get32(in);
		return true;
	case P9_TGETATTR:
		r->fid = get32(in);
		r->mask = get64(in);
		return true;
	case P9_TREAD:
	case P9_TREADDIR:
		r->fid = get32(in);
		r->offset = get64(in);
		r->count = get32(in);
		return true;
	case P9_TFSYNC:
		r->fid = get32(in);
		r->datasync = get32(in);
		return true;
	}
	return false;
}

static bool decode_body(struct p9_in *in, struct p9_req *r)
{
	switch (r->type) {
	case P9_TWALK:
		decode_walk(in, r);
		return true;
	case P9_TSETATTR:
		decode_setattr(in, r);
		return true;
	case P9_TWRITE:
		decode_write(in, r);
		return true;
	case P9_TLOCK:
	case P9_TGETLOCK:
		decode_lock(in, r, r->type == P9_TLOCK);
		return true;
	case P9_TFLUSH:
		r->oldtag = get16(in);
		return true;
	}
	return decode_fid_ops(in, r) || decode_create(in, r) ||
	       decode_names(in, r);
}

int p9_decode(const uint8_t *buf, uint32_t len, struct p9_req *req)
{
	struct p9_in in = { .buf = buf, .len = len };
	uint32_t size;

	memset(req, 0, sizeof(*req));
	req->tag = P9_NOTAG;
	size = get32(&in);
	req->type = get8(&in);
	req->tag = get16(&in);
	if (in.bad) {
		req->tag = P9_NOTAG;
		return -EBADMSG;
	}
	if (size < P9_HDR_SIZE || size > len)
		return -EBADMSG;
	in.len = size;
	if (!decode_body(&in, req))
		return -EOPNOTSUPP;
	return in.bad || in.off != size ? -EBADMSG : 0;
}

/* --- replies ----------------------------------------------------------- */

void p9_out_init(struct p9_out *o, uint8_t *buf, uint32_t cap)
{
	*o = (struct p9_out){ .buf = buf, .cap = cap };
}

static uint8_t *p9_room(struct p9_out *o, uint32_t n)
{
	uint8_t *p;

	if (o->over || n > o->cap - o->len) {
		o->over = true;
		return NULL;
	}
	p = o->buf + o->len;
	o->len += n;
	return p;
}

static void put_le(struct p9_out *o, uint64_t v, unsigned int n)
{
	uint8_t *p = p9_room(o, n);

	for (unsigned int i = 0; p && i < n; i++)
		p[i] = v >> (8 * i);
}

void p9_put_u8(struct p9_out *o, uint8_t v)
{
	put_le(o, v, 1);
}

void p9_put_u16(struct p9_out *o, uint16_t v)
{
	put_le(o, v, 2);
}

void p9_put_u32(struct p9_out *o, uint32_t v)
{
	put_le(o, v, 4);
}

void p9_put_u64(struct p9_out *o, uint64_t v)
{
	put_le(o, v, 8);
}

void p9_put_bytes(struct p9_out *o, const void *p, uint32_t len)
{
	uint8_t *d = p9_room(o, len);

	if (d && len)
		memcpy(d, p, len);
}

void p9_put_str(struct p9_out *o, const char *s, uint16_t len)
{
	p9_put_u16(o, len);
	p9_put_bytes(o, s, len);
}

void p9_put_qid(struct p9_out *o, const struct p9_qid *q)
{
	p9_put_u8(o, q->type);
	p9_put_u32(o, q->version);
	p9_put_u64(o, q->path);
}

void p9_out_hdr(struct p9_out *o, uint8_t type, uint16_t tag)
{
	o->len = 0;
	o->over = false;
	p9_put_u32(o, 0);
	p9_put_u8(o, type);
	p9_put_u16(o, tag);
}

uint32_t p9_out_finish(struct p9_out *o)
{
	if (o->over || o->len < P9_HDR_SIZE)
		return 0;
	for (int i = 0; i < 4; i++)
		o->buf[i] = o->len >> (8 * i);
	return o->len;
}

uint32_t p9_put_lerror(uint8_t *buf, uint32_t cap, uint16_t tag, int err)
{
	struct p9_out o;

	p9_out_init(&o, buf, cap);
	p9_out_hdr(&o, P9_RLERROR, tag);
	p9_put_u32(&o, err);
	return p9_out_finish(&o);
}
