// SPDX-License-Identifier: GPL-2.0
/*
 * vsock-peer: the two ends of an AF_VSOCK stream for the e2e tests, run
 * in the emulated host and in the guest.
 *
 *   vsock-peer listen PORT N   accept N connections (0: until killed) on
 *                              any CID, echo each one's bytes back until
 *                              its EOF; prints "vsock-peer: listening on
 *                              PORT" once it listens
 *   vsock-peer send CID PORT MSG   connect (retrying for 30 s while the
 *                              other end is not there yet), send MSG,
 *                              half-close, read the echo; prints
 *                              "vsock-peer: echo ok: MSG" and exits 0
 *                              when it matches, else says why, exits 1
 *   vsock-peer sendn CID PORT SIZE   the same with SIZE bytes of a
 *                              pattern, written while the echo is read
 *   vsock-peer refused CID PORT   one connect, which must fail with
 *                              ECONNRESET or ECONNREFUSED
 *
 * lkvm's unix-socket vsock (--vsock CID,socket=PATH), on the host:
 *   vsock-peer ulisten PATH N  accept N connections on the unix socket
 *                              PATH, echo each as listen does
 *   vsock-peer uconnect PATH PORT SIZE   connect to PATH (retrying for
 *                              30 s until lkvm answers OK), write
 *                              "CONNECT PORT", read "OK <n>", then SIZE
 *                              pattern bytes, checking their echo
 *   vsock-peer uline PATH TEXT   connect to PATH, write the line TEXT
 *                              (a refused "CONNECT PORT", or a bad one):
 *                              lkvm must close the connection without a
 *                              word; TEXT "-": close at once, write nothing
 *
 * make bench (tests/bench/host-vsock.sh):
 *   vsock-peer blisten PORT N  the bench server on a vsock port: accept N
 *                              connections; one that begins with 'S' is
 *                              a sink (read to EOF, answer the byte count
 *                              after the 'S' as a line), one that begins
 *                              with 'P' is echoed, the 'P' too
 *   vsock-peer ublisten PATH N   the same on the unix socket PATH (lkvm's
 *                              --vsock CID,socket=: a guest's port P is
 *                              PATH_P)
 *   vsock-peer bench CID PORT SIZE N   in the guest: SIZE bytes to the
 *                              sink, timed from the first write to the
 *                              server's count, then N 1-byte round trips;
 *                              prints "BENCH c1-vsock-g2h-MiB/s X MiB/s"
 *                              and "BENCH c1-vsock-rtt-us Y us" (the mean),
 *                              or a "... failed" line for either
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/vm_sockets.h>

#define MSG_MAX 4096

static struct sockaddr_vm addr_of(unsigned int cid, unsigned int port)
{
	struct sockaddr_vm a;

	memset(&a, 0, sizeof(a));
	a.svm_family = AF_VSOCK;
	a.svm_cid = cid;
	a.svm_port = port;
	return a;
}

static int echo_one(int c)
{
	char buf[MSG_MAX];
	ssize_t n;

	while ((n = read(c, buf, sizeof(buf))) > 0)
		if (write(c, buf, n) != n)
			return -1;
	return n < 0 ? -1 : 0;
}

/*
 * Bind s to a (named name), listen, then accept count connections (0:
 * until killed), each given to handle; "listening on NAME" once it
 * listens.
 */
static int serve(int s, const struct sockaddr *a, socklen_t len,
		 const char *name, unsigned long count, int (*handle)(int))
{
	if (s < 0 || bind(s, a, len) || listen(s, 4)) {
		perror("vsock-peer: listen");
		return 1;
	}
	printf("vsock-peer: listening on %s\n", name);
	fflush(stdout);
	for (unsigned long i = 0; !count || i < count; i++) {
		int c = accept(s, NULL, NULL);

		if (c < 0) {
			perror("vsock-peer: accept");
			return 1;
		}
		if (handle(c))
			perror("vsock-peer: echo");
		close(c);
	}
	close(s);
	printf("vsock-peer: served %lu\n", count);
	return 0;
}

/* serve() on vsock port (any CID), each connection given to handle. */
static int do_listen(unsigned int port, unsigned long count, int (*handle)(int))
{
	struct sockaddr_vm a = addr_of(VMADDR_CID_ANY, port);
	char name[16];

	snprintf(name, sizeof(name), "%u", port);
	return serve(socket(AF_VSOCK, SOCK_STREAM, 0), (struct sockaddr *)&a,
		     sizeof(a), name, count, handle);
}

/* A connected socket, retrying while the peer is not listening yet. */
static int connect_retry(unsigned int cid, unsigned int port)
{
	struct sockaddr_vm a = addr_of(cid, port);

	for (int i = 0; i < 300; i++) {
		int s = socket(AF_VSOCK, SOCK_STREAM, 0);

		if (s < 0) {
			perror("vsock-peer: socket");
			return -1;
		}
		if (!connect(s, (struct sockaddr *)&a, sizeof(a)))
			return s;
		if (i == 0 || i == 299)
			fprintf(stderr, "vsock-peer: connect %u:%u: %s\n", cid,
				port, strerror(errno));
		close(s);
		nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
	}
	return -1;
}

static int do_send(unsigned int cid, unsigned int port, const char *msg)
{
	char buf[MSG_MAX];
	size_t len = strlen(msg), got = 0;
	int s = connect_retry(cid, port);
	ssize_t n;

	if (s < 0)
		return 1;
	if (len > sizeof(buf) || write(s, msg, len) != (ssize_t)len ||
	    shutdown(s, SHUT_WR)) {
		perror("vsock-peer: send");
		return 1;
	}
	while (got < sizeof(buf) &&
	       (n = read(s, buf + got, sizeof(buf) - got)) > 0)
		got += n;
	close(s);
	if (got != len || memcmp(buf, msg, len)) {
		fprintf(stderr, "vsock-peer: echo of %zu bytes, sent %zu\n",
			got, len);
		return 1;
	}
	printf("vsock-peer: echo ok: %s\n", msg);
	return 0;
}

/* Byte i of the test pattern: no short period, so a lost or repeated
 * piece shows. */
static uint8_t pattern(size_t i)
{
	return (uint8_t)((i * 2654435761u) >> 13);
}

/*
 * Write size pattern bytes to s (a child process) and half-close while
 * reading the echo: 0 when all of it came back intact.
 */
static int echo_check(int s, size_t size)
{
	uint8_t buf[MSG_MAX];
	size_t got = 0, bad = 0;
	pid_t pid = fork();
	int status;
	ssize_t n;

	if (pid == 0) {
		for (size_t off = 0; off < size; off += n) {
			size_t len = size - off < sizeof(buf) ? size - off :
								sizeof(buf);

			for (size_t i = 0; i < len; i++)
				buf[i] = pattern(off + i);
			n = write(s, buf, len);
			if (n <= 0)
				_exit(1);
		}
		_exit(shutdown(s, SHUT_WR) ? 1 : 0);
	}
	while ((n = read(s, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			bad += buf[i] != pattern(got + i);
		got += n;
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status) {
		fprintf(stderr, "vsock-peer: the writer failed\n");
		return 1;
	}
	if (n < 0 || got != size || bad) {
		fprintf(stderr,
			"vsock-peer: echo of %zu bytes (%zu wrong), sent %zu: %s\n",
			got, bad, size, n < 0 ? strerror(errno) : "end");
		return 1;
	}
	return 0;
}

static int do_sendn(unsigned int cid, unsigned int port, size_t size)
{
	int s = connect_retry(cid, port);

	if (s < 0 || echo_check(s, size))
		return 1;
	printf("vsock-peer: echo ok: %zu bytes\n", size);
	return 0;
}

static int do_refused(unsigned int cid, unsigned int port)
{
	struct sockaddr_vm a = addr_of(cid, port);
	int s = socket(AF_VSOCK, SOCK_STREAM, 0);

	if (s < 0 || !connect(s, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr, "vsock-peer: %u:%u: %s\n", cid, port,
			s < 0 ? strerror(errno) : "connected");
		return 1;
	}
	printf("vsock-peer: refused: %s\n", strerror(errno));
	return errno == ECONNRESET || errno == ECONNREFUSED ? 0 : 1;
}

static struct sockaddr_un unix_addr(const char *path)
{
	struct sockaddr_un a;

	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	return a;
}

/* serve() on the unix socket path, each connection given to handle. */
static int do_ulisten(const char *path, unsigned long count, int (*handle)(int))
{
	struct sockaddr_un a = unix_addr(path);

	unlink(path);
	return serve(socket(AF_UNIX, SOCK_STREAM, 0), (struct sockaddr *)&a,
		     sizeof(a), path, count, handle);
}

/*
 * Connected to PATH with the line req written: lkvm's line in line (read
 * byte by byte: what follows is the guest's), or "" at its end.
 */
static int unix_connect(const char *path, const char *req, char *line,
			size_t size)
{
	struct sockaddr_un a = unix_addr(path);
	int s = socket(AF_UNIX, SOCK_STREAM, 0), n = strlen(req);
	size_t len = 0;

	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr, "vsock-peer: connect %s: %s\n", path,
			strerror(errno));
		if (s >= 0)
			close(s);
		return -1;
	}
	if (write(s, req, n) != n) {
		close(s);
		return -1;
	}
	while (len + 1 < size && read(s, line + len, 1) == 1 &&
	       line[len++] != '\n')
		;
	line[len] = '\0';
	return s;
}

static int do_uconnect(const char *path, unsigned int port, size_t size)
{
	char line[64], req[32];
	int s = -1;

	snprintf(req, sizeof(req), "CONNECT %u\n", port);
	for (int i = 0; i < 300 && s < 0; i++) {
		s = unix_connect(path, req, line, sizeof(line));
		if (s >= 0 && strncmp(line, "OK ", 3)) {
			close(s);
			s = -1;
		}
		if (s < 0)
			nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
	}
	if (s < 0) {
		fprintf(stderr, "vsock-peer: no OK from %s for port %u\n", path,
			port);
		return 1;
	}
	printf("vsock-peer: %s", line);
	if (echo_check(s, size))
		return 1;
	printf("vsock-peer: unix echo ok: %zu bytes\n", size);
	return 0;
}

static int do_uline(const char *path, const char *text)
{
	char line[64], req[256];
	int s;

	snprintf(req, sizeof(req), "%s\n", text);
	s = unix_connect(path, strcmp(text, "-") ? req : "", line,
			 strcmp(text, "-") ? sizeof(line) : 1);
	if (s < 0)
		return 1;
	close(s);
	if (line[0]) {
		fprintf(stderr, "vsock-peer: got '%s'\n", line);
		return 1;
	}
	printf("vsock-peer: closed without a reply: %s\n", text);
	return 0;
}

/* The bench server's side of one connection: a sink or an echo. */
static int bench_one(int c)
{
	static char buf[65536];
	char kind, line[32];
	unsigned long long got = 0;
	ssize_t n;
	int len;

	if (read(c, &kind, 1) != 1)
		return -1;
	if (kind == 'P')
		return write(c, &kind, 1) == 1 ? echo_one(c) : -1;
	if (kind != 'S')
		return -1;
	while ((n = read(c, buf, sizeof(buf))) > 0)
		got += n;
	if (n < 0)
		return -1;
	len = snprintf(line, sizeof(line), "%llu\n", got);
	return write(c, line, len) == len ? 0 : -1;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* size bytes to the sink: its rate in MiB/s, or -1. */
static double bench_push(unsigned int cid, unsigned int port, size_t size)
{
	static char buf[65536];
	char line[32];
	size_t len = 0;
	int s = connect_retry(cid, port);
	double t0;
	ssize_t n;

	if (s < 0)
		return -1;
	memset(buf, 0x5a, sizeof(buf));
	t0 = now_s();
	if (write(s, "S", 1) != 1)
		goto fail;
	for (size_t off = 0; off < size; off += n) {
		n = write(s, buf,
			  size - off < sizeof(buf) ? size - off : sizeof(buf));
		if (n <= 0)
			goto fail;
	}
	if (shutdown(s, SHUT_WR))
		goto fail;
	while (len + 1 < sizeof(line) &&
	       (n = read(s, line + len, sizeof(line) - 1 - len)) > 0)
		len += n;
	line[len] = '\0';
	close(s);
	if (strtoull(line, NULL, 10) != size) {
		fprintf(stderr, "vsock-peer: the sink got '%s' bytes of %zu\n",
			line, size);
		return -1;
	}
	return size / 1048576.0 / (now_s() - t0);
fail:
	perror("vsock-peer: push");
	close(s);
	return -1;
}

/* count 1-byte round trips: the mean in microseconds, or -1. */
static double bench_rtt(unsigned int cid, unsigned int port,
			unsigned long count)
{
	int s = connect_retry(cid, port);
	char b = 'P';
	double t0;

	if (s < 0)
		return -1;
	if (write(s, &b, 1) != 1 || read(s, &b, 1) != 1 || b != 'P')
		goto fail;
	t0 = now_s();
	for (unsigned long i = 0; i < count; i++) {
		b = (char)i;
		if (write(s, &b, 1) != 1 || read(s, &b, 1) != 1 || b != (char)i)
			goto fail;
	}
	close(s);
	return (now_s() - t0) * 1e6 / count;
fail:
	perror("vsock-peer: round trip");
	close(s);
	return -1;
}

static int do_bench(unsigned int cid, unsigned int port, size_t size,
		    unsigned long count)
{
	double mibs = bench_push(cid, port, size);
	double us = count ? bench_rtt(cid, port, count) : -1;

	if (mibs > 0)
		printf("BENCH c1-vsock-g2h-MiB/s %.2f MiB/s\n", mibs);
	else
		printf("BENCH c1-vsock-g2h-MiB/s failed\n");
	if (us > 0)
		printf("BENCH c1-vsock-rtt-us %.1f us\n", us);
	else
		printf("BENCH c1-vsock-rtt-us failed\n");
	return mibs > 0 && us > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "listen"))
		return do_listen(strtoul(argv[2], NULL, 0),
				 strtoul(argv[3], NULL, 0), echo_one);
	if (argc == 5 && !strcmp(argv[1], "send"))
		return do_send(strtoul(argv[2], NULL, 0),
			       strtoul(argv[3], NULL, 0), argv[4]);
	if (argc == 5 && !strcmp(argv[1], "sendn"))
		return do_sendn(strtoul(argv[2], NULL, 0),
				strtoul(argv[3], NULL, 0),
				strtoul(argv[4], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "refused"))
		return do_refused(strtoul(argv[2], NULL, 0),
				  strtoul(argv[3], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "ulisten"))
		return do_ulisten(argv[2], strtoul(argv[3], NULL, 0), echo_one);
	if (argc == 5 && !strcmp(argv[1], "uconnect"))
		return do_uconnect(argv[2], strtoul(argv[3], NULL, 0),
				   strtoul(argv[4], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "uline"))
		return do_uline(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "blisten"))
		return do_listen(strtoul(argv[2], NULL, 0),
				 strtoul(argv[3], NULL, 0), bench_one);
	if (argc == 4 && !strcmp(argv[1], "ublisten"))
		return do_ulisten(argv[2], strtoul(argv[3], NULL, 0),
				  bench_one);
	if (argc == 6 && !strcmp(argv[1], "bench"))
		return do_bench(
			strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0),
			strtoul(argv[4], NULL, 0), strtoul(argv[5], NULL, 0));
	fprintf(stderr,
		"usage: vsock-peer listen PORT N | send CID PORT MSG | sendn CID PORT SIZE\n"
		"       | refused CID PORT | ulisten PATH N | uconnect PATH PORT SIZE\n"
		"       | uline PATH TEXT | blisten PORT N | ublisten PATH N\n"
		"       | bench CID PORT SIZE N\n");
	return 2;
}
