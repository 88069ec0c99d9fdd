/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtiofsd (Debian's, a separate process) serves a --fs directory as a
 * vhost-user back-end.  lkvm finds it on PATH or where Debian installs it
 * (/usr/libexec/virtiofsd), creates a listening unix socket bound to an
 * autobound abstract address (no file), connects to it itself before the
 * daemon exists (backlog 0: the only connection the daemon can accept is
 * lkvm's), and spawns virtiofsd with the listener as --fd=3, an empty
 * signal mask and its own process group.  The daemon's messages go to
 * lkvm's stderr (errors only).  As root its sandbox is a namespace
 * (pivot_root into the directory), else none (an unprivileged user
 * cannot make one; lkvm warns once: a guest that takes virtiofsd over
 * then has lkvm's user's rights, not only the directory).
 *
 * The connected socket is all lkvm keeps: virtiofsd's death shows there
 * as end of file, and its exit status is read without waiting.
 */
#ifndef RVKVM_VIRTIOFSD_H
#define RVKVM_VIRTIOFSD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "vmm/config.h"

#define VIRTIOFSD_LIBEXEC "/usr/libexec/virtiofsd"
#define VIRTIOFSD_ARGV_MAX 12
/* "--shared-dir=" and a --fs DIR */
#define VIRTIOFSD_DIR_ARG_MAX (CONFIG_PATH_MAX + 16)

struct virtiofsd {
	pid_t pid; /* 0 once reaped */
	int sock;  /* connected to the daemon, close-on-exec */
	char path[CONFIG_PATH_MAX];
	char dir_arg[VIRTIOFSD_DIR_ARG_MAX];
};

/* virtiofsd on PATH (or PATH's default), else VIRTIOFSD_LIBEXEC. */
int virtiofsd_find(char *path, size_t size);

/*
 * Its argv for fs (as root: root) into argv, the --shared-dir=DIR word in
 * dir_arg (one word: a DIR starting with '-' is no option); returns argc.
 * Pure.
 */
unsigned int virtiofsd_build_argv(char *argv[VIRTIOFSD_ARGV_MAX],
				  char dir_arg[VIRTIOFSD_DIR_ARG_MAX],
				  const char *bin, const struct fs_config *fs,
				  bool root);

/*
 * Find and start virtiofsd for fs.  0 (d->sock connected); -ENOENT when
 * it is not installed (nothing printed); other -errno after one line.
 */
int virtiofsd_start(struct virtiofsd *d, const struct fs_config *fs);

/* Close the socket, kill virtiofsd if it still runs and reap it. */
void virtiofsd_stop(struct virtiofsd *d);

#endif
