/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qemu-storage-daemon (Debian's qemu-utils, a separate process) serves a
 * -d image in a format lkvm does not read itself (qcow2, ...) as a
 * vhost-user-blk back-end.  lkvm finds it on PATH, makes a listening unix
 * socket on an autobound abstract address (no file) and connects to it
 * before the daemon exists (backlog 0: lkvm's is the only connection it
 * can accept), and spawns it with the listener as fd 3 (its export's
 * addr.type=fd), an empty signal mask, its own process group, its
 * stderr in a memfd whose last line lkvm quotes when it fails, and tied
 * to lkvm (HOST_SPAWN_TIED: killed when lkvm dies, even by SIGKILL; the
 * daemon would otherwise outlive its client).  It has no
 * sandbox of its own; it gets no descriptor but the listener (and the
 * overlay below).
 *
 * The image is opened as qemu opens it (its backing chain as qemu
 * resolves it from the image's header), read-write unless ,ro; ,direct
 * is cache.direct=on.  ,snapshot: the guest's writes go to a qcow2
 * overlay over the image, which qemu opens read-only as the overlay's
 * backing file: the overlay is an unnamed file (O_TMPFILE in $TMPDIR,
 * else /var/tmp, else /tmp) that qemu-img formats through
 * /proc/self/fd/3 and the daemon gets as fd 4, so nothing is left on
 * disk whatever way lkvm or the daemon ends.
 */
#ifndef RVKVM_QSD_H
#define RVKVM_QSD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "vmm/config.h"

#define QSD_NAME "qemu-storage-daemon"
#define QSD_IMG_NAME "qemu-img"
#define QSD_ARGV_MAX 8
/* --blockdev's word: the path with each ',' doubled, and the options. */
#define QSD_BLOCKDEV_MAX (2 * CONFIG_PATH_MAX + 160)

struct qsd {
	pid_t pid;  /* 0 once reaped */
	int sock;   /* connected to the daemon, close-on-exec */
	int log_fd; /* its stderr (a memfd), or -1 */
	char path[CONFIG_PATH_MAX];
	char blockdev[QSD_BLOCKDEV_MAX];
};

/*
 * The image format the daemon opens dc's image in: NULL when it does not
 * serve dc (config_disk_qsd()), else format=, else qcow2 for a name
 * ending .qcow2, else raw (,snapshot of a raw image).  Never the image's
 * contents.  Pure.
 */
const char *qsd_format(const struct disk_config *dc);

/*
 * Its argv for dc in format into argv, the --blockdev word in blockdev
 * (-ENAMETOOLONG when it does not fit); returns argc.  overlay: the
 * snapshot overlay is the daemon's fd 4.  Pure.
 */
int qsd_build_argv(char *argv[QSD_ARGV_MAX], char blockdev[QSD_BLOCKDEV_MAX],
		   const char *bin, const struct disk_config *dc,
		   const char *format, bool overlay);

/*
 * Find and start the daemon for dc in format (with its overlay for
 * ,snapshot).  0 (q->sock connected); -ENOENT when qemu-storage-daemon
 * (or for ,snapshot qemu-img) is not installed (nothing printed; q->path
 * names which); other -errno after one line.
 */
int qsd_start(struct qsd *q, const struct disk_config *dc, const char *format);

/* The last line the daemon wrote on its stderr ("" for none). */
void qsd_last_words(const struct qsd *q, char *buf, size_t size);

/* Close the socket, kill the daemon if it still runs and reap it. */
void qsd_stop(struct qsd *q);

#endif
