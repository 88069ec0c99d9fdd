// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the control protocol's decoders (vmm/ctl_proto.c) with whatever a
 * client or a server could send: the input is one message, decoded as a
 * request, as a response and as a CTL_STATE text.  Whatever decodes must
 * encode back to the same bytes (requests) or to a message that decodes
 * to the same response; the text of a decoded response is NUL-terminated
 * at its length and printable.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/ctl/ctl_proto.h"

#define CHECK(cond)                       \
	do {                              \
		if (!(cond))              \
			__builtin_trap(); \
	} while (0)

static void fuzz_request(const uint8_t *data, size_t size)
{
	static uint8_t out[CTL_MSG_MAX];
	struct ctl_request req;
	int n;

	if (ctl_decode_request(data, size, &req))
		return;
	CHECK(req.type >= CTL_STATE && req.type < CTL_TYPE_END);
	n = ctl_encode_request(&req, out, sizeof(out));
	CHECK(n > 0 && (size_t)n == size && !memcmp(out, data, size));
}

static void fuzz_response(const uint8_t *data, size_t size)
{
	static struct ctl_response resp, again;
	static uint8_t out[CTL_MSG_MAX];
	int n;

	if (ctl_decode_response(data, size, &resp)) {
		CHECK(resp.len == 0 && resp.text[0] == '\0');
		return;
	}
	CHECK(resp.len <= CTL_TEXT_MAX && resp.text[resp.len] == '\0');
	CHECK(strlen(resp.text) == resp.len);
	n = ctl_encode_response(&resp, out, sizeof(out));
	CHECK(n > 0 && (size_t)n == size);
	CHECK(!ctl_decode_response(out, n, &again));
	CHECK(again.len == resp.len && again.status == resp.status &&
	      !memcmp(again.text, resp.text, resp.len));
}

static void fuzz_state(const uint8_t *data, size_t size)
{
	char text[256];
	bool paused;
	long pid;

	if (size >= sizeof(text))
		size = sizeof(text) - 1;
	memcpy(text, data, size);
	text[size] = '\0';
	if (!ctl_parse_state(text, &pid, &paused))
		CHECK(pid > 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	if (size > CTL_MSG_MAX + 16)
		return 0;
	/* An exact-size heap copy: ASan sees any read past the message. */
	copy = malloc(size ? size : 1);
	CHECK(copy);
	memcpy(copy, data, size);
	fuzz_request(copy, size);
	fuzz_response(copy, size);
	fuzz_state(copy, size);
	free(copy);
	return 0;
}
