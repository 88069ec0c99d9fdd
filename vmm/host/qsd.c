// SPDX-License-Identifier: GPL-2.0
/* Starting and stopping qemu-storage-daemon; see qsd.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/host/qsd.h"
#include "vmm/host/spawn.h"

#define QSD_LISTEN_FD "3"
#define QSD_OVERLAY "/proc/self/fd/4"

const char *qsd_format(const struct disk_config *dc)
{
	if (!config_disk_qsd(dc))
		return NULL;
	if (dc->format[0])
		return dc->format;
	return config_disk_named_qcow2(dc) ? "qcow2" : "raw";
}

/*
 * The daemon's option syntax: a ',' in a value is written ',,'.  A
 * relative path gets "./" so that no prefix ("file:") means anything.
 */
static int put_path(char *buf, size_t size, const char *path)
{
	size_t n = 0;

	if (path[0] != '/') {
		if (size < 3)
			return -ENAMETOOLONG;
		memcpy(buf, "./", 2);
		n = 2;
	}
	for (; *path; path++) {
		if (n + 3 > size)
			return -ENAMETOOLONG;
		if (*path == ',')
			buf[n++] = ',';
		buf[n++] = *path;
	}
	buf[n] = '\0';
	return 0;
}

int qsd_build_argv(char *argv[QSD_ARGV_MAX], char blockdev[QSD_BLOCKDEV_MAX],
		   const char *bin, const struct disk_config *dc,
		   const char *format, bool overlay)
{
	char file[QSD_BLOCKDEV_MAX];
	bool ro = dc->ro;
	unsigned int n = 0;
	int len, ret = 0;

	if (overlay)
		strcpy(file, QSD_OVERLAY);
	else
		ret = put_path(file, sizeof(file), dc->path);
	len = snprintf(
		blockdev, QSD_BLOCKDEV_MAX,
		"driver=%s,node-name=disk,discard=unmap,read-only=%s,cache.direct=%s,file.driver=file,file.filename=%s",
		overlay ? "qcow2" : format, ro ? "on" : "off",
		dc->direct ? "on" : "off", file);
	if (ret || len < 0 || len >= QSD_BLOCKDEV_MAX)
		return -ENAMETOOLONG;
	argv[n++] = (char *)bin;
	argv[n++] = "--blockdev";
	argv[n++] = blockdev;
	argv[n++] = "--export";
	argv[n++] =
		ro ? "type=vhost-user-blk,id=disk,node-name=disk,addr.type=fd,addr.str=" QSD_LISTEN_FD
		     ",writable=off,num-queues=1" :
		     "type=vhost-user-blk,id=disk,node-name=disk,addr.type=fd,addr.str=" QSD_LISTEN_FD
		     ",writable=on,num-queues=1";
	argv[n] = NULL;
	return n;
}

/* The overlay's unnamed file: $TMPDIR, else /var/tmp, else /tmp. */
static int overlay_file(void)
{
	const char *dirs[] = { getenv("TMPDIR"), "/var/tmp", "/tmp" };
	int fd = -ENOENT;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (!dirs[i] || !dirs[i][0])
			continue;
		fd = open(dirs[i], O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (fd >= 0)
			return fd;
		fd = -errno;
	}
	return fd;
}

/* Run qemu-img to make fd a qcow2 overlay over image in format. */
static int overlay_create(int fd, const char *img, const char *image,
			  const char *format, int log)
{
	char *argv[] = { (char *)img,
			 "create",
			 "-q",
			 "-f",
			 "qcow2",
			 "-b",
			 (char *)image,
			 "-F",
			 (char *)format,
			 "/proc/self/fd/3",
			 NULL };
	int status, ret;
	pid_t pid;

	ret = host_spawn_fds(&pid, img, argv, &fd, 1, log, log, 0);
	if (ret)
		return ret;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

/* ,snapshot: the overlay over dc's image, as an open unnamed file. */
static int qsd_overlay(struct qsd *q, const struct disk_config *dc,
		       const char *format, int *ovl)
{
	char img[CONFIG_PATH_MAX], why[160];
	char *image;
	int ret;

	if (host_find_exec(QSD_IMG_NAME, NULL, img, sizeof(img))) {
		strcpy(q->path, QSD_IMG_NAME);
		return -ENOENT;
	}
	image = realpath(dc->path, NULL);
	if (!image) {
		ret = -errno;
		pr_err("-d %s: %s", dc->path, strerror(-ret));
		return ret;
	}
	*ovl = overlay_file();
	ret = *ovl < 0 ? *ovl :
			 overlay_create(*ovl, img, image, format, q->log_fd);
	free(image);
	if (*ovl < 0)
		pr_err("-d %s,snapshot: cannot create the overlay's file: %s",
		       dc->path, strerror(-ret));
	else if (ret) {
		qsd_last_words(q, why, sizeof(why));
		pr_err("-d %s,snapshot: qemu-img could not make the overlay: %s",
		       dc->path, why[0] ? why : strerror(-ret));
	}
	return ret;
}

static int qsd_spawn(struct qsd *q, const struct disk_config *dc,
		     const char *format, int ovl)
{
	char *argv[QSD_ARGV_MAX];
	int fds[2] = { -1, ovl }, ret;

	ret = qsd_build_argv(argv, q->blockdev, q->path, dc, format, ovl >= 0);
	if (ret < 0) {
		pr_err("-d %s: the path is too long for %s", dc->path,
		       QSD_NAME);
		return ret;
	}
	ret = host_listen_connect(&fds[0], &q->sock);
	ret = ret   ?:
		      host_spawn_fds(&q->pid, q->path, argv, fds,
				     ovl >= 0 ? 2 : 1, -1, q->log_fd,
				     HOST_SPAWN_TIED);
	if (fds[0] >= 0)
		close(fds[0]);
	if (ret)
		pr_err("-d %s: cannot start %s: %s", dc->path, q->path,
		       strerror(-ret));
	return ret;
}

int qsd_start(struct qsd *q, const struct disk_config *dc, const char *format)
{
	int ovl = -1, ret;

	*q = (struct qsd){ .sock = -1, .log_fd = -1 };
	if (host_find_exec(QSD_NAME, NULL, q->path, sizeof(q->path))) {
		strcpy(q->path, QSD_NAME);
		return -ENOENT;
	}
	q->log_fd = memfd_create("qemu-storage-daemon-stderr", MFD_CLOEXEC);
	if (q->log_fd < 0) {
		ret = -errno;
		pr_err("-d %s: memfd: %s", dc->path, strerror(-ret));
		return ret;
	}
	ret = dc->snapshot ? qsd_overlay(q, dc, format, &ovl) : 0;
	ret = ret ?: qsd_spawn(q, dc, format, ovl);
	if (ovl >= 0)
		close(ovl);
	if (ret)
		qsd_stop(q);
	return ret;
}

void qsd_last_words(const struct qsd *q, char *buf, size_t size)
{
	char tail[512];
	off_t end = q->log_fd >= 0 ? lseek(q->log_fd, 0, SEEK_END) : -1;
	off_t from = end > (off_t)sizeof(tail) - 1 ?
			     end - (off_t)sizeof(tail) + 1 :
			     0;
	ssize_t n = end > 0 ? pread(q->log_fd, tail, end - from, from) : 0;
	char *line;

	buf[0] = '\0';
	if (n <= 0)
		return;
	tail[n] = '\0';
	while (n && (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
		tail[--n] = '\0';
	line = strrchr(tail, '\n');
	line = line ? line + 1 : tail;
	if (!strncmp(line, QSD_NAME ": ", sizeof(QSD_NAME ": ") - 1))
		line += sizeof(QSD_NAME ": ") - 1;
	/* "--blockdev SPEC: why": the spec is lkvm's own, the why is news. */
	if (!strncmp(line, "--blockdev ", 11) &&
	    !strncmp(line + 11, q->blockdev, strlen(q->blockdev)) &&
	    !strncmp(line + 11 + strlen(q->blockdev), ": ", 2))
		line += 11 + strlen(q->blockdev) + 2;
	for (char *p = line; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = '?';
	snprintf(buf, size, "%s", line);
}

void qsd_stop(struct qsd *q)
{
	if (q->sock >= 0)
		close(q->sock);
	q->sock = -1;
	host_kill_reap(&q->pid);
	if (q->log_fd >= 0)
		close(q->log_fd);
	q->log_fd = -1;
}
