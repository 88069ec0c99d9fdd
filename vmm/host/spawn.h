/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Starting a helper daemon (passt, virtiofsd, qemu-storage-daemon):
 * found on PATH, posix_spawn with descriptors handed over from fd 3 on,
 * optionally others as its stdout and stderr, an empty signal mask, the
 * signals lkvm handles back at their defaults, and a process group of its
 * own (a Ctrl-C on lkvm's terminal does not reach it; lkvm stops it).
 * A vhost-user daemon gets a listening unix socket (host_listen_connect())
 * that lkvm has already connected to.
 */
#ifndef RVKVM_SPAWN_H
#define RVKVM_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

#define HOST_SPAWN_FD 3
#define HOST_SPAWN_MAX_FDS 2

/*
 * Spawn path with argv, fd3 as its fd 3, out as its stdout (-1: lkvm's).
 * 0 and *pid, or -errno.
 */
int host_spawn(pid_t *pid, const char *path, char *const argv[], int fd3,
	       int out);
/*
 * The same with fds[0..n) as its fds 3.. (n <= HOST_SPAWN_MAX_FDS; any
 * numbers, also among those they go to) and err as its stderr (-1:
 * lkvm's).  HOST_SPAWN_TIED in flags: the child is killed (SIGKILL) when
 * the thread that started it ends, lkvm killed included (a daemon that
 * would outlive its client: qemu-storage-daemon); made with fork() and
 * execve() (PR_SET_PDEATHSIG), waiting until the child has execve'd.
 */
#define HOST_SPAWN_TIED 1u
int host_spawn_fds(pid_t *pid, const char *path, char *const argv[],
		   const int *fds, unsigned int n, int out, int err,
		   unsigned int flags);

/*
 * name in an absolute directory of PATH (PATH's usual default when it is
 * unset), else fallback (NULL: none), as a regular executable file into
 * path: 0, or -ENOENT (path empty).
 */
int host_find_exec(const char *name, const char *fallback, char *path,
		   size_t size);

/*
 * A listener on an autobound abstract unix address (no file) and lkvm's
 * connection to it, both close-on-exec, the connection non-blocking;
 * backlog 0 keeps any later connection out of the daemon's accept.  The
 * listener is never fd HOST_SPAWN_FD (dup2 onto itself would keep
 * close-on-exec).  0 or -errno.
 */
int host_listen_connect(int *listener, int *conn);

/*
 * A daemon that closed its socket: reap it if it has exited (*pid 0
 * then), a short reason into why ("exited with status 1", ...).
 */
void host_reap(pid_t *pid, char *why, size_t size);
/* Kill (SIGKILL) and reap *pid if it runs; *pid 0 after. */
void host_kill_reap(pid_t *pid);

#endif
