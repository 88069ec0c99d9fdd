// SPDX-License-Identifier: GPL-2.0
/* Starting and stopping virtiofsd; see virtiofsd.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/host/spawn.h"
#include "vmm/host/virtiofsd.h"

int virtiofsd_find(char *path, size_t size)
{
	return host_find_exec("virtiofsd", VIRTIOFSD_LIBEXEC, path, size);
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
	ret = host_listen_connect(&l, &d->sock);
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

void virtiofsd_stop(struct virtiofsd *d)
{
	if (d->sock >= 0)
		close(d->sock);
	d->sock = -1;
	host_kill_reap(&d->pid);
}
