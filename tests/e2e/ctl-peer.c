// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for lkvm-ctl.sh, run in the emulated host:
 *   ctl-peer as UID CMD [ARGS...]   run CMD with uid and gid UID
 *   ctl-peer ask PATH               send a state request to the control
 *                                   socket PATH as the current user
 * "ask" prints one line and exits 0 when lkvm would not talk to us
 * ("refused at connect: ..." or "refused by lkvm"), 1 when it answered,
 * 2 on a usage error.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "vmm/ctl/ctl_proto.h"

static int ask(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ctl_request req = { .type = CTL_STATE };
	static uint8_t buf[CTL_MSG_MAX];
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	int n = ctl_encode_request(&req, buf, sizeof(buf));
	ssize_t got;

	if (fd < 0 || n < 0 || strlen(path) >= sizeof(sa.sun_path))
		return 2;
	memcpy(sa.sun_path, path, strlen(path));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		printf("refused at connect: %s\n", strerror(errno));
		return 0;
	}
	if (send(fd, buf, n, 0) != n) {
		printf("refused by lkvm (send: %s)\n", strerror(errno));
		return 0;
	}
	got = recv(fd, buf, sizeof(buf), 0);
	if (got <= 0) {
		printf("refused by lkvm\n");
		return 0;
	}
	printf("answered (%zd bytes)\n", got);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "ask"))
		return ask(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "as")) {
		unsigned int id = strtoul(argv[2], NULL, 10);

		if (setgroups(0, NULL) || setgid(id) || setuid(id)) {
			perror("ctl-peer: setuid");
			return 2;
		}
		execvp(argv[3], argv + 3);
		perror("ctl-peer: exec");
		return 2;
	}
	fprintf(stderr, "usage: ctl-peer as UID CMD... | ask PATH\n");
	return 2;
}
