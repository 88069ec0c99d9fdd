// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the server side of the control socket (vmm/ctl/ctl.c) with what a
 * connecting client can send: the real server (ctl_server_start: its
 * thread, accept, SO_PEERCRED check, recv with MSG_TRUNC, request decode,
 * the handler, response encode, send) on a socket under a private HOME,
 * with a stub handler.  Each input is one connection carrying one
 * message; the reply (or the close without one) is checked against what
 * the protocol says: a message that does not decode, or is longer than
 * CTL_MSG_MAX, gets no reply and no handler call; one that decodes gets
 * exactly one handler call with the decoded request and, when the stub's
 * response encodes, exactly that response.
 *
 * Input:  [sel: u8] [message: the rest, sent as one SOCK_SEQPACKET message]
 *   sel bits 0-1  status: 0, EINVAL, EBUSY, the message's first byte
 *   sel bits 2-3  text: none, "PID running", CTL_TEXT_MAX and more (the
 *                 truncation), a control byte (does not encode: no reply)
 *
 * The server, its thread and socket are set up once per process (HOME is
 * a mkdtemp directory, removed at exit); ctl.c is not changed.  A seam
 * ctl_serve_fd() (ctl_serve exported) would let this run on one thread
 * over a socketpair, without the accept and the thread hop.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "vmm/ctl/ctl.h"
#include "vmm/ctl/ctl_proto.h"
#include "lib/log.h"

#define CHECK(cond)                       \
	do {                              \
		if (!(cond))              \
			__builtin_trap(); \
	} while (0)

static struct ctl_server fuzz_srv;
static char fuzz_home[64], fuzz_path[sizeof(fuzz_srv.path)];
/* Set before each connection, read by the server thread after accept. */
static uint8_t fuzz_sel, fuzz_first;
static unsigned int fuzz_calls;
static struct ctl_request fuzz_seen;

/* CTL_TEXT_MAX printable bytes and a few more (set up once). */
static char fuzz_long[CTL_TEXT_MAX + 16];

/* The stub's response to req (on the server thread, and for checking). */
static void fuzz_answer(const struct ctl_request *req,
			struct ctl_response *resp)
{
	static const uint32_t status[] = { 0, EINVAL, EBUSY };

	resp->status = (fuzz_sel & 3) < 3 ? status[fuzz_sel & 3] : fuzz_first;
	switch ((fuzz_sel >> 2) & 3) {
	case 1:
		ctl_printf(resp, "%d %s", 4242,
			   req->type == CTL_PAUSE ? "paused" : "running");
		break;
	case 2:
		ctl_printf(resp, "mib %lld\n", (long long)req->mib);
		ctl_printf(resp, "%s", fuzz_long);
		ctl_printf(resp, "past the end");
		break;
	case 3:
		ctl_printf(resp, "bell\a");
		break;
	}
}

static void fuzz_handler(void *opaque, const struct ctl_request *req,
			 struct ctl_response *resp)
{
	CHECK(opaque == &fuzz_srv);
	CHECK(req->type >= CTL_STATE && req->type < CTL_TYPE_END);
	CHECK(resp->type == req->type && !resp->status && !resp->len);
	__atomic_add_fetch(&fuzz_calls, 1, __ATOMIC_SEQ_CST);
	fuzz_seen = *req;
	fuzz_answer(req, resp);
}

static void fuzz_cleanup(void)
{
	ctl_server_stop(&fuzz_srv);
	unlink(fuzz_path);
	snprintf(fuzz_path, sizeof(fuzz_path), "%s/%s", fuzz_home, CTL_DIR);
	rmdir(fuzz_path);
	rmdir(fuzz_home);
}

static void fuzz_server_up(void)
{
	char dir[sizeof(fuzz_path)];

	for (size_t i = 0; i < sizeof(fuzz_long) - 1; i++)
		fuzz_long[i] = i % 64 == 63 ? '\n' : 'a' + i % 26;
	snprintf(fuzz_home, sizeof(fuzz_home), "/tmp/fuzz-ctl-XXXXXX");
	CHECK(mkdtemp(fuzz_home));
	CHECK(!setenv("HOME", fuzz_home, 1));
	CHECK(ctl_server_start(&fuzz_srv, "fuzz", fuzz_handler, &fuzz_srv) ==
	      0);
	CHECK(!ctl_dir(dir, sizeof(dir), false));
	CHECK(!ctl_sock_path(fuzz_path, sizeof(fuzz_path), dir, "fuzz"));
	atexit(fuzz_cleanup);
}

static int fuzz_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 20 }; /* a hang is a failure */
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	CHECK(fd >= 0);
	memcpy(sa.sun_path, fuzz_path, strlen(fuzz_path));
	CHECK(!connect(fd, (struct sockaddr *)&sa, sizeof(sa)));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* What the server must send back for msg: its length, 0 for nothing. */
static int fuzz_expect(const uint8_t *msg, size_t len, uint8_t *out,
		       struct ctl_request *req)
{
	static struct ctl_response resp;

	if (len > CTL_MSG_MAX || ctl_decode_request(msg, len, req))
		return 0;
	memset(&resp, 0, sizeof(resp));
	resp.type = req->type;
	fuzz_answer(req, &resp);
	return ctl_encode_response(&resp, out, CTL_MSG_MAX);
}

/*
 * libFuzzer's -timeout alarm (SIGALRM, every timeout / 2 + 1 s) may land
 * on this thread while it waits: a wait cut short by it is not an
 * answer.
 */
static ssize_t fuzz_send(int fd, const void *buf, size_t len)
{
	ssize_t n;

	do
		n = send(fd, buf, len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n;
}

static ssize_t fuzz_recv(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = recv(fd, buf, len, 0);
	while (n < 0 && errno == EINTR);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t want[CTL_MSG_MAX], got[CTL_MSG_MAX + 1];
	struct ctl_request req;
	unsigned int calls;
	ssize_t n;
	int fd, w;

	log_level = -1;
	if (size < 1)
		return 0;
	if (!fuzz_path[0])
		fuzz_server_up();
	fuzz_sel = data[0];
	fuzz_first = size > 1 ? data[1] : 0;
	w = fuzz_expect(data + 1, size - 1, want, &req);
	calls = __atomic_load_n(&fuzz_calls, __ATOMIC_SEQ_CST);

	fd = fuzz_connect();
	n = fuzz_send(fd, data + 1, size - 1);
	CHECK(n == (ssize_t)(size - 1));
	n = fuzz_recv(fd, got, sizeof(got));
	if (w > 0) {
		CHECK(n == w && !memcmp(got, want, w));
		n = fuzz_recv(fd, got, sizeof(got));
	}
	CHECK(n == 0); /* closed: the server is done with this client */
	close(fd);

	/* A decoded request reaches the handler once, as decoded. */
	if (size - 1 <= CTL_MSG_MAX &&
	    !ctl_decode_request(data + 1, size - 1, &req)) {
		CHECK(__atomic_load_n(&fuzz_calls, __ATOMIC_SEQ_CST) ==
		      calls + 1);
		CHECK(fuzz_seen.type == req.type && fuzz_seen.mib == req.mib);
	} else {
		CHECK(__atomic_load_n(&fuzz_calls, __ATOMIC_SEQ_CST) == calls);
		CHECK(w == 0);
	}
	return 0;
}
