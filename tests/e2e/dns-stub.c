// SPDX-License-Identifier: GPL-2.0
/*
 * dns-stub: a DNS server for the e2e tests, in the emulated host (busybox
 * has none).  Listens on UDP 127.0.0.1:53 and answers every A query with
 * 192.0.2.53 (a documentation address, never a destination), other query
 * types with no answer; prints each query's name.  Runs until killed.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

/* The query name at q (labels) as dotted text into out; its end or NULL. */
static const unsigned char *
qname(const unsigned char *q, const unsigned char *end, char *out, size_t size)
{
	size_t n = 0;

	while (q < end && *q) {
		unsigned int len = *q++;

		if (len > 63 || q + len > end || n + len + 2 > size)
			return NULL;
		if (n)
			out[n++] = '.';
		memcpy(out + n, q, len);
		n += len;
		q += len;
	}
	out[n] = '\0';
	return q < end ? q + 1 : NULL;
}

int main(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(53) };
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a))) {
		perror("dns-stub: bind 127.0.0.1:53");
		return 1;
	}
	printf("dns-stub: listening\n");
	fflush(stdout);
	for (;;) {
		unsigned char m[512 + 16];
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n =
			recvfrom(s, m, 512, 0, (struct sockaddr *)&from, &fl);
		const unsigned char *qe;
		char name[256];
		int a_query;

		if (n < 12 + 5)
			continue;
		qe = qname(m + 12, m + n, name, sizeof(name));
		if (!qe || qe + 4 > m + n)
			continue;
		a_query = qe[0] == 0 && qe[1] == 1;
		printf("dns-stub: query %s type %u\n", name,
		       qe[0] << 8 | qe[1]);
		fflush(stdout);
		n = qe + 4 - m;		     /* header and question only */
		m[2] = 0x80 | (m[2] & 0x01); /* QR, RD copied */
		m[3] = 0x80;		     /* RA, NOERROR */
		m[6] = 0;
		m[7] = a_query;	     /* ANCOUNT */
		memset(m + 8, 0, 4); /* NSCOUNT, ARCOUNT */
		if (a_query) {
			static const unsigned char ans[] = {
				0xc0, 0x0c, 0, 1, 0,   1, 0, 0,
				0,    60,   0, 4, 192, 0, 2, 53,
			};
			memcpy(m + n, ans, sizeof(ans));
			n += sizeof(ans);
		}
		sendto(s, m, (size_t)n, 0, (struct sockaddr *)&from, fl);
	}
}
