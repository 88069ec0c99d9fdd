// SPDX-License-Identifier: GPL-2.0
/* Starting and stopping virtiofsd; see virtiofsd.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/host/spawn.h"
#include "vmm/host/virtiofsd.h"

extern char **environ;

#define DEFAULT_PATH \
	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static bool executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

int virtiofsd_find(char *path, size_t size)
{
	const char *dirs = getenv("PATH");

	if (!dirs || !*dirs)
		dirs = DEFAULT_PATH;
	for (const char *p = dirs; *p;) {
		size_t n = strcspn(p, ":");
		int len = snprintf(path, size, "%.*s/virtiofsd", (int)n, p);

		/* Only absolute entries: not one relative to the cwd. */
		if (p[0] == '/' && len > 0 && (size_t)len < size &&
		    executable(path))
			return 0;
		p += n + (p[n] == ':');
	}
	if (snprintf(path, size, "%s", VIRTIOFSD_LIBEXEC) < (int)size &&
	    executable(path))
		return 0;
	path[0] = '\0';
	return -ENOENT;
}

unsigned int virtiofsd_build_argv(char *argv[VIRTIOFSD_ARGV_MAX],
				  char dir_arg[VIRTIOFSD_DIR_ARG_MAX],
				  const char *bin, const struct fs_config *fs,
				  bool root)
{
	unsigned int n = 0;

	snprintf(dir_arg, VIRTIOFSD_DIR_ARG_MAX, "--shared-dir=%s", fs->path);
	argv[n++] = (char *)bin;
	argv[n++] = "--fd=3";
	argv[n++] = dir_arg;
	/* Namespaces need privileges an ordinary user lacks. */
	argv[n++] = root ? "--sandbox=namespace" : "--sandbox=none";
	argv[n++] = "--log-level=error";
	if (fs->ro)
		argv[n++] = "--readonly";
	argv[n] = NULL;
	return n;
}

/*
 * A listener on an autobound abstract address, and lkvm's connection to
 * it; backlog 0 keeps any later connection out of the daemon's accept.
 */
static int listen_and_connect(int *listener, int *conn)
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
	*listener = l;
	*conn = c;
	return 0;
fail_l:
	ret = -errno;
	close(l);
	return ret;
}

int virtiofsd_start(struct virtiofsd *d, const struct fs_config *fs)
{
	char *argv[VIRTIOFSD_ARGV_MAX];
	int l = -1, ret;

	*d = (struct virtiofsd){ .sock = -1 };
	if (virtiofsd_find(d->path, sizeof(d->path)))
		return -ENOENT;
	virtiofsd_build_argv(argv, d->dir_arg, d->path, fs, geteuid() == 0);
	if (geteuid())
		pr_once(LOG_WARN,
			"--fs: virtiofsd runs without a sandbox (lkvm is not root): a guest that took it over would have your rights, not only the shared directory");
	ret = listen_and_connect(&l, &d->sock);
	/* dup2 onto itself would keep close-on-exec: never be fd 3. */
	if (!ret && l == VIRTIOFSD_FD) {
		l = fcntl(VIRTIOFSD_FD, F_DUPFD_CLOEXEC, VIRTIOFSD_FD + 1);
		close(VIRTIOFSD_FD);
		ret = l < 0 ? -EMFILE : 0;
	}
	if (!ret) {
		ret = host_spawn(&d->pid, d->path, argv, l, -1);
		close(l);
	}
	if (ret) {
		pr_err("--fs %s: cannot start %s: %s", fs->path, d->path,
		       strerror(-ret));
		virtiofsd_stop(d);
	}
	return ret;
}

void virtiofsd_reap(struct virtiofsd *d, char *why, size_t size)
{
	int status;
	pid_t r = 0;

	snprintf(why, size, "closed its socket");
	/* A dying process closes its sockets before it can be waited for. */
	for (int i = 0; d->pid > 0 && i < 10 && r <= 0; i++) {
		if (i)
			usleep(10000);
		do
			r = waitpid(d->pid, &status, WNOHANG);
		while (r < 0 && errno == EINTR);
	}
	if (r != d->pid || r <= 0)
		return;
	d->pid = 0;
	if (WIFEXITED(status))
		snprintf(why, size, "exited with status %d",
			 WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(why, size, "was killed by signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
}

void virtiofsd_stop(struct virtiofsd *d)
{
	if (d->sock >= 0)
		close(d->sock);
	d->sock = -1;
	if (d->pid > 0) {
		kill(d->pid, SIGKILL);
		while (waitpid(d->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	d->pid = 0;
}
