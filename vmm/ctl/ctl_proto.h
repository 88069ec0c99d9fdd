/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control protocol between 'lkvm run' and the commands that operate a
 * running guest (lkvm list, stop, pause, resume, debug, stat, balloon).
 * It is lkvm's own (not kvmtool's): one request and one response per
 * connection, each one SOCK_SEQPACKET message, little-endian.
 *
 *   request:  magic u32, version u16, type u16, len u32, payload[len]
 *   response: magic u32, version u16, type u16, status u32, len u32,
 *             text[len]
 *
 * A request's payload is empty except for CTL_BALLOON (an s64: MiB to
 * inflate, negative to deflate).  CTL_DUMP's message carries the core
 * file's descriptor (SCM_RIGHTS), opened by the client (O_EXCL).  A response echoes the type; status is 0
 * or a positive errno; text is printable ASCII (plus newline and tab) for
 * the user, or for CTL_STATE "PID running|paused".  Decoders check every
 * field and length and never read past the message.
 */
#ifndef RVKVM_CTL_PROTO_H
#define RVKVM_CTL_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CTL_MAGIC 0x6c74636bu /* "kctl" */
#define CTL_VERSION 1
#define CTL_REQ_HDR 12
#define CTL_RESP_HDR 16
#define CTL_TEXT_MAX 49152 /* the registers of 32 vCPUs fit */
#define CTL_MSG_MAX (CTL_RESP_HDR + CTL_TEXT_MAX)

enum ctl_type {
	CTL_STATE = 1, /* pid and run state (lkvm list) */
	CTL_STOP,      /* end lkvm as if by a signal */
	CTL_PAUSE,
	CTL_RESUME,
	CTL_DEBUG,   /* vCPU registers */
	CTL_STAT,    /* memory and balloon statistics */
	CTL_BALLOON, /* payload: s64 MiB, > 0 inflate, < 0 deflate */
	CTL_DUMP,    /* an ELF core into the file passed with SCM_RIGHTS */
	CTL_TYPE_END,
};

struct ctl_request {
	uint16_t type; /* enum ctl_type */
	int64_t mib;   /* CTL_BALLOON only */
	int fd;	       /* CTL_DUMP only: not in the payload (SCM_RIGHTS) */
};

struct ctl_response {
	uint16_t type;
	uint32_t status; /* 0 or a positive errno */
	uint32_t len;
	char text[CTL_TEXT_MAX + 1]; /* NUL-terminated after decoding */
};

/* Encode into buf; the message length, or -ENOSPC / -EINVAL. */
int ctl_encode_request(const struct ctl_request *req, uint8_t *buf,
		       size_t size);
int ctl_encode_response(const struct ctl_response *resp, uint8_t *buf,
			size_t size);

/*
 * Decode a whole message of len bytes: 0, or -EPROTO (bad magic or
 * version), -EINVAL (unknown type, bad payload or text) or -EMSGSIZE
 * (lengths that disagree with len).
 */
int ctl_decode_request(const uint8_t *buf, size_t len, struct ctl_request *req);
int ctl_decode_response(const uint8_t *buf, size_t len,
			struct ctl_response *resp);

/* Append printf text to resp (truncated at CTL_TEXT_MAX). */
void ctl_printf(struct ctl_response *resp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* CTL_STATE text "PID running|paused": 0, or -EINVAL. */
int ctl_parse_state(const char *text, long *pid, bool *paused);

#endif
