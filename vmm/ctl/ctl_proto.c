// SPDX-License-Identifier: GPL-2.0
/* The control protocol's messages; see ctl_proto.h. */
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/ctl/ctl_proto.h"

static void put16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, 2);
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return le16toh(v);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static bool type_ok(uint16_t type)
{
	return type >= CTL_STATE && type < CTL_TYPE_END;
}

/* Printable ASCII, newline and tab: what a terminal may be shown. */
static bool text_ok(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];

		if ((c < 0x20 && c != '\n' && c != '\t') || c > 0x7e)
			return false;
	}
	return true;
}

int ctl_encode_request(const struct ctl_request *req, uint8_t *buf, size_t size)
{
	uint32_t len = req->type == CTL_BALLOON ? 8 : 0;
	uint64_t mib = htole64((uint64_t)req->mib);

	if (!type_ok(req->type))
		return -EINVAL;
	if (size < CTL_REQ_HDR + len)
		return -ENOSPC;
	put32(buf, CTL_MAGIC);
	put16(buf + 4, CTL_VERSION);
	put16(buf + 6, req->type);
	put32(buf + 8, len);
	if (len)
		memcpy(buf + CTL_REQ_HDR, &mib, 8);
	return CTL_REQ_HDR + len;
}

int ctl_decode_request(const uint8_t *buf, size_t len, struct ctl_request *req)
{
	uint32_t plen;
	uint64_t mib;

	memset(req, 0, sizeof(*req));
	if (len < CTL_REQ_HDR)
		return -EMSGSIZE;
	if (get32(buf) != CTL_MAGIC || get16(buf + 4) != CTL_VERSION)
		return -EPROTO;
	req->type = get16(buf + 6);
	plen = get32(buf + 8);
	if (plen != len - CTL_REQ_HDR)
		return -EMSGSIZE;
	if (!type_ok(req->type) || plen != (req->type == CTL_BALLOON ? 8 : 0))
		return -EINVAL;
	if (plen) {
		memcpy(&mib, buf + CTL_REQ_HDR, 8);
		req->mib = (int64_t)le64toh(mib);
	}
	return 0;
}

int ctl_encode_response(const struct ctl_response *resp, uint8_t *buf,
			size_t size)
{
	if (!type_ok(resp->type) || resp->len > CTL_TEXT_MAX ||
	    !text_ok(resp->text, resp->len))
		return -EINVAL;
	if (size < CTL_RESP_HDR + (size_t)resp->len)
		return -ENOSPC;
	put32(buf, CTL_MAGIC);
	put16(buf + 4, CTL_VERSION);
	put16(buf + 6, resp->type);
	put32(buf + 8, resp->status);
	put32(buf + 12, resp->len);
	memcpy(buf + CTL_RESP_HDR, resp->text, resp->len);
	return CTL_RESP_HDR + resp->len;
}

int ctl_decode_response(const uint8_t *buf, size_t len,
			struct ctl_response *resp)
{
	uint32_t tlen;

	resp->len = 0;
	resp->text[0] = '\0';
	if (len < CTL_RESP_HDR)
		return -EMSGSIZE;
	if (get32(buf) != CTL_MAGIC || get16(buf + 4) != CTL_VERSION)
		return -EPROTO;
	resp->type = get16(buf + 6);
	resp->status = get32(buf + 8);
	tlen = get32(buf + 12);
	if (tlen != len - CTL_RESP_HDR || tlen > CTL_TEXT_MAX)
		return -EMSGSIZE;
	if (!type_ok(resp->type) || resp->status > 4095 ||
	    !text_ok((const char *)buf + CTL_RESP_HDR, tlen))
		return -EINVAL;
	memcpy(resp->text, buf + CTL_RESP_HDR, tlen);
	resp->text[tlen] = '\0';
	resp->len = tlen;
	return 0;
}

void ctl_printf(struct ctl_response *resp, const char *fmt, ...)
{
	size_t room = CTL_TEXT_MAX - resp->len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(resp->text + resp->len, room + 1, fmt, ap);
	va_end(ap);
	if (n > 0)
		resp->len += (size_t)n > room ? room : (size_t)n;
}

int ctl_parse_state(const char *text, long *pid, bool *paused)
{
	char *end;

	if (*text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	*pid = strtol(text, &end, 10);
	if (errno || end == text || *pid <= 0 || *end != ' ')
		return -EINVAL;
	if (!strcmp(end + 1, "running"))
		*paused = false;
	else if (!strcmp(end + 1, "paused"))
		*paused = true;
	else
		return -EINVAL;
	return 0;
}
