// SPDX-License-Identifier: GPL-2.0
/* Starting a helper daemon; see spawn.h. */
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include "vmm/host/spawn.h"

int host_spawn(pid_t *pid, const char *path, char *const argv[], int fd3,
	       int out)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, deflt;
	int ret;

	sigemptyset(&none);
	sigemptyset(&deflt);
	sigaddset(&deflt, SIGPIPE);
	sigaddset(&deflt, SIGTERM);
	sigaddset(&deflt, SIGINT);
	sigaddset(&deflt, SIGHUP);
	sigaddset(&deflt, SIGCHLD);
	ret = posix_spawn_file_actions_init(&fa);
	if (ret)
		return -ret;
	ret = posix_spawnattr_init(&attr);
	if (ret) {
		posix_spawn_file_actions_destroy(&fa);
		return -ret;
	}
	ret = posix_spawn_file_actions_adddup2(&fa, fd3, HOST_SPAWN_FD);
	if (!ret && out >= 0)
		ret = posix_spawn_file_actions_adddup2(&fa, out, STDOUT_FILENO);
	ret = ret ?: posix_spawnattr_setsigmask(&attr, &none);
	ret = ret ?: posix_spawnattr_setsigdefault(&attr, &deflt);
	ret = ret ?: posix_spawnattr_setpgroup(&attr, 0);
	ret = ret   ?:
		      posix_spawnattr_setflags(&attr,
					       POSIX_SPAWN_SETSIGMASK |
						       POSIX_SPAWN_SETSIGDEF |
						       POSIX_SPAWN_SETPGROUP);
	ret = ret ?: posix_spawn(pid, path, &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return -ret;
}
