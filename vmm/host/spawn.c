// SPDX-License-Identifier: GPL-2.0
/* Starting a helper daemon; see spawn.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmm/host/spawn.h"

extern char **environ;

#define DEFAULT_PATH \
	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/*
 * The descriptors the child gets (fds, then out and err), each first
 * duplicated above the numbers they go to, so that no dup2 of the child
 * overwrites another source: dup[] to close after the spawn.
 */
static int spawn_sources(int *dup, const int *fds, unsigned int n, int out,
			 int err)
{
	for (unsigned int i = 0; i < n + 2; i++) {
		int fd = i < n ? fds[i] : i == n ? out : err;

		dup[i] = fd < 0 ? -1 :
				  fcntl(fd, F_DUPFD_CLOEXEC,
					HOST_SPAWN_FD + HOST_SPAWN_MAX_FDS);
		if (fd >= 0 && dup[i] < 0)
			return -errno;
	}
	return 0;
}

static int spawn_actions(posix_spawn_file_actions_t *fa, const int *dup,
			 unsigned int n)
{
	int ret = 0;

	for (unsigned int i = 0; !ret && i < n; i++)
		ret = posix_spawn_file_actions_adddup2(fa, dup[i],
						       HOST_SPAWN_FD + i);
	if (!ret && dup[n] >= 0)
		ret = posix_spawn_file_actions_adddup2(fa, dup[n],
						       STDOUT_FILENO);
	if (!ret && dup[n + 1] >= 0)
		ret = posix_spawn_file_actions_adddup2(fa, dup[n + 1],
						       STDERR_FILENO);
	return ret;
}

static int spawn_attr(posix_spawnattr_t *attr)
{
	sigset_t none, deflt;
	int ret;

	sigemptyset(&none);
	sigemptyset(&deflt);
	sigaddset(&deflt, SIGPIPE);
	sigaddset(&deflt, SIGTERM);
	sigaddset(&deflt, SIGINT);
	sigaddset(&deflt, SIGHUP);
	sigaddset(&deflt, SIGCHLD);
	ret = posix_spawnattr_setsigmask(attr, &none);
	ret = ret ?: posix_spawnattr_setsigdefault(attr, &deflt);
	ret = ret ?: posix_spawnattr_setpgroup(attr, 0);
	return ret   ?:
		       posix_spawnattr_setflags(attr,
						POSIX_SPAWN_SETSIGMASK |
							POSIX_SPAWN_SETSIGDEF |
							POSIX_SPAWN_SETPGROUP);
}

int host_spawn_fds(pid_t *pid, const char *path, char *const argv[],
		   const int *fds, unsigned int n, int out, int err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int dup[HOST_SPAWN_MAX_FDS + 2], ret;

	if (n > HOST_SPAWN_MAX_FDS)
		return -EINVAL;
	memset(dup, -1, sizeof(dup));
	ret = spawn_sources(dup, fds, n, out, err);
	if (!ret && (ret = posix_spawn_file_actions_init(&fa)) != 0)
		ret = -ret;
	if (!ret && (ret = posix_spawnattr_init(&attr)) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		ret = -ret;
	}
	if (!ret) {
		ret = spawn_actions(&fa, dup, n);
		ret = ret ?: spawn_attr(&attr);
		ret = -(ret   ?:
				posix_spawn(pid, path, &fa, &attr, argv,
					    environ));
		posix_spawnattr_destroy(&attr);
		posix_spawn_file_actions_destroy(&fa);
	}
	for (unsigned int i = 0; i < n + 2; i++)
		if (dup[i] >= 0)
			close(dup[i]);
	return ret;
}

int host_spawn(pid_t *pid, const char *path, char *const argv[], int fd3,
	       int out)
{
	return host_spawn_fds(pid, path, argv, &fd3, 1, out, -1);
}

static bool executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

int host_find_exec(const char *name, const char *fallback, char *path,
		   size_t size)
{
	const char *dirs = getenv("PATH");

	if (!dirs || !*dirs)
		dirs = DEFAULT_PATH;
	for (const char *p = dirs; *p;) {
		size_t n = strcspn(p, ":");
		int len = snprintf(path, size, "%.*s/%s", (int)n, p, name);

		/* Only absolute entries: not one relative to the cwd. */
		if (p[0] == '/' && len > 0 && (size_t)len < size &&
		    executable(path))
			return 0;
		p += n + (p[n] == ':');
	}
	if (fallback && snprintf(path, size, "%s", fallback) < (int)size &&
	    executable(path))
		return 0;
	path[0] = '\0';
	return -ENOENT;
}

/* Never fd HOST_SPAWN_FD: dup2 onto itself would keep close-on-exec. */
static int not_fd3(int l)
{
	int n;

	if (l != HOST_SPAWN_FD)
		return l;
	n = fcntl(l, F_DUPFD_CLOEXEC, HOST_SPAWN_FD + HOST_SPAWN_MAX_FDS);
	close(l);
	return n < 0 ? -EMFILE : n;
}

int host_listen_connect(int *listener, int *conn)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof(sa_family_t);
	int l, c, ret;

	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (bind(l, (struct sockaddr *)&sa, len) || listen(l, 0))
		goto fail_l;
	len = sizeof(sa);
	if (getsockname(l, (struct sockaddr *)&sa, &len))
		goto fail_l;
	c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c < 0)
		goto fail_l;
	/* Queued at once, or someone else got in first. */
	if (connect(c, (struct sockaddr *)&sa, len)) {
		ret = -errno;
		close(c);
		close(l);
		return ret;
	}
	l = not_fd3(l);
	if (l < 0) {
		close(c);
		return l;
	}
	*listener = l;
	*conn = c;
	return 0;
fail_l:
	ret = -errno;
	close(l);
	return ret;
}

void host_reap(pid_t *pid, char *why, size_t size)
{
	int status;
	pid_t r = 0;

	snprintf(why, size, "closed its socket");
	/* A dying process closes its sockets before it can be waited for. */
	for (int i = 0; *pid > 0 && i < 10 && r <= 0; i++) {
		if (i)
			usleep(10000);
		do
			r = waitpid(*pid, &status, WNOHANG);
		while (r < 0 && errno == EINTR);
	}
	if (r != *pid || r <= 0)
		return;
	*pid = 0;
	if (WIFEXITED(status))
		snprintf(why, size, "exited with status %d",
			 WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(why, size, "was killed by signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
}

void host_kill_reap(pid_t *pid)
{
	if (*pid > 0) {
		kill(*pid, SIGKILL);
		while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	*pid = 0;
}
