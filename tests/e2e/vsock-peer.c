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
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

static int do_listen(unsigned int port, unsigned long count)
{
	struct sockaddr_vm a = addr_of(VMADDR_CID_ANY, port);
	int s = socket(AF_VSOCK, SOCK_STREAM, 0);

	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(s, 4)) {
		perror("vsock-peer: listen");
		return 1;
	}
	printf("vsock-peer: listening on %u\n", port);
	fflush(stdout);
	for (unsigned long i = 0; !count || i < count; i++) {
		int c = accept(s, NULL, NULL);

		if (c < 0) {
			perror("vsock-peer: accept");
			return 1;
		}
		if (echo_one(c))
			perror("vsock-peer: echo");
		close(c);
	}
	close(s);
	return 0;
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

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "listen"))
		return do_listen(strtoul(argv[2], NULL, 0),
				 strtoul(argv[3], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "send"))
		return do_send(strtoul(argv[2], NULL, 0),
			       strtoul(argv[3], NULL, 0), argv[4]);
	fprintf(stderr,
		"usage: vsock-peer listen PORT N | send CID PORT MSG\n");
	return 2;
}
