// SPDX-License-Identifier: GPL-2.0
/* Starting a helper daemon; see spawn.h. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmm/host/spawn.h"

extern char **environ;

/* The signals a child gets back at their defaults. */
static const int spawn_default_sigs[] = { SIGPIPE, SIGTERM, SIGINT, SIGHUP,
					  SIGCHLD };

/* Where the sources stand in dup[]: fds from 0, then stdout and stderr. */
#define DUP_OUT HOST_SPAWN_MAX_FDS
#define DUP_ERR (HOST_SPAWN_MAX_FDS + 1)
#define DUP_NR (HOST_SPAWN_MAX_FDS + 2)

#define DEFAULT_PATH \
	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/*
 * The descriptors the child gets (fds, then out and err), each first
 * duplicated above the numbers they go to, so that no dup2 of the child
 * overwrites another source: dup[DUP_NR] to close after the spawn.
 */
static int spawn_sources(int *dup, const int *fds, unsigned int n, int out,
			 int err)
{
	for (unsigned int i = 0; i < DUP_NR; i++) {
		int fd = i < n	      ? fds[i] :
			 i == DUP_OUT ? out :
			 i == DUP_ERR ? err :
					-1;

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
	if (!ret && dup[DUP_OUT] >= 0)
		ret = posix_spawn_file_actions_adddup2(fa, dup[DUP_OUT],
						       STDOUT_FILENO);
	if (!ret && dup[DUP_ERR] >= 0)
		ret = posix_spawn_file_actions_adddup2(fa, dup[DUP_ERR],
						       STDERR_FILENO);
	return ret;
}

static int spawn_attr(posix_spawnattr_t *attr)
{
	sigset_t none, deflt;
	int ret;

	sigemptyset(&none);
	sigemptyset(&deflt);
	for (size_t i = 0; i < sizeof(spawn_default_sigs) / sizeof(int); i++)
		sigaddset(&deflt, spawn_default_sigs[i]);
	ret = posix_spawnattr_setsigmask(attr, &none);
	ret = ret ?: posix_spawnattr_setsigdefault(attr, &deflt);
	ret = ret ?: posix_spawnattr_setpgroup(attr, 0);
	return ret   ?:
		       posix_spawnattr_setflags(attr,
						POSIX_SPAWN_SETSIGMASK |
							POSIX_SPAWN_SETSIGDEF |
							POSIX_SPAWN_SETPGROUP);
}

/*
 * The child of a tied spawn: only async-signal-safe calls (lkvm has
 * threads).  Dies with the parent thread, or at once if it is gone; on
 * a failure its errno goes to the parent on report (close-on-exec: an
 * execve that works closes it).
 */
static void tied_child(const char *path, char *const argv[], const int *dup,
		       pid_t parent, int report)
{
	sigset_t none;
	int err;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		goto fail;
	setpgid(0, 0);
	for (size_t i = 0; i < sizeof(spawn_default_sigs) / sizeof(int); i++)
		signal(spawn_default_sigs[i], SIG_DFL);
	for (unsigned int i = 0; i < DUP_NR; i++) {
		int to = i == DUP_OUT ? STDOUT_FILENO :
			 i == DUP_ERR ? STDERR_FILENO :
					HOST_SPAWN_FD + (int)i;

		if (dup[i] >= 0 && dup2(dup[i], to) < 0)
			goto fail;
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve(path, argv, environ);
fail:
	err = errno;
	if (write(report, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/*
 * Fork and wait until the child has execve'd (or failed: its errno), so
 * that the thread that started it cannot end before the child has armed
 * its death signal.
 */
static int spawn_tied(pid_t *pid, const char *path, char *const argv[],
		      const int *dup)
{
	pid_t parent = getpid(), p;
	sigset_t all, old;
	int report[2], err = 0;
	ssize_t n;

	if (pipe2(report, O_CLOEXEC))
		return -errno;
	/* No handler of lkvm's may run in the child before execve. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	p = fork();
	if (!p)
		tied_child(path, argv, dup, parent, report[1]);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(report[1]);
	if (p < 0) {
		err = errno;
		close(report[0]);
		return -err;
	}
	do
		n = read(report[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == sizeof(err)) {
		while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
			;
		return -(err ? err : EIO);
	}
	*pid = p;
	return 0;
}

int host_spawn_fds(pid_t *pid, const char *path, char *const argv[],
		   const int *fds, unsigned int n, int out, int err,
		   unsigned int flags)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int dup[DUP_NR], ret;

	if (n > HOST_SPAWN_MAX_FDS)
		return -EINVAL;
	memset(dup, -1, sizeof(dup));
	ret = spawn_sources(dup, fds, n, out, err);
	if (!ret && (flags & HOST_SPAWN_TIED)) {
		ret = spawn_tied(pid, path, argv, dup);
		goto close;
	}
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
close:
	for (unsigned int i = 0; i < DUP_NR; i++)
		if (dup[i] >= 0)
			close(dup[i]);
	return ret;
}

int host_spawn(pid_t *pid, const char *path, char *const argv[], int fd3,
	       int out)
{
	return host_spawn_fds(pid, path, argv, &fd3, 1, out, -1, 0);
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
