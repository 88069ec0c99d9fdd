// SPDX-License-Identifier: GPL-2.0
/*
 * --tty: a new pty takes the place of lkvm's stdin and stdout, so the
 * console code (cons.c) reads and writes it unchanged.  The slave stays
 * open in lkvm: with no slave open, reads on the master fail with EIO
 * until someone attaches, and the console would see an end of input.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/host/pty.h"

static int pty_slave_raw(const char *name)
{
	struct termios t;
	int fd = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd; /* kept open for the life of lkvm (see above) */
}

int pty_console_open(void)
{
	char name[64];
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	int ret = master < 0 ? -errno : 0;

	if (!ret && (grantpt(master) || unlockpt(master) ||
		     ptsname_r(master, name, sizeof(name))))
		ret = -errno;
	if (!ret) {
		int slave = pty_slave_raw(name);

		ret = slave < 0 ? slave : 0;
	}
	if (!ret &&
	    (dup2(master, STDIN_FILENO) < 0 || dup2(master, STDOUT_FILENO) < 0))
		ret = -errno;
	if (master >= 0)
		close(master);
	if (ret) {
		pr_err("--tty: cannot set up a pty: %s", strerror(-ret));
		return ret;
	}
	pr_info("guest terminal 0 is on pty %s", name);
	return 0;
}
