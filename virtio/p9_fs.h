/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A 9P2000.L file server confined to one host directory, transport-free:
 * p9_server_handle() takes one request's bytes and writes one reply.
 * virtio/9p.c carries the messages over a virtqueue; the unit tests and
 * the fuzz target call it directly.
 *
 * Confinement: the share is an O_PATH descriptor of its root; every path
 * the server opens is relative to it and resolved with openat2() and
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS, with
 * O_NOFOLLOW on the last component.  Names from the guest are single
 * components (1..255 bytes, no '/', not "." or ".."; Twalk alone takes
 * ".." as "up, but never above the root").  Operations on a name in a
 * directory (create, mkdir, symlink, link, mknod, rename, unlink) use
 * the *at() calls on a descriptor of that directory, so they too act
 * only inside the share.  Symbolic links are objects: the server reads
 * them (Treadlink) but never follows one, and an absolute link, a link
 * with "..", or one into /proc/self/fd resolves in the guest, not here.
 *
 * Bounds: msize is what Tversion asked for, at most P9_MSIZE_MAX (and at
 * least P9_MSIZE_MIN); Tread/Treaddir answer at most msize - 11 bytes and
 * never more than the reply buffer holds; at most P9_MAX_FIDS fids; a
 * path is at most P9_PATH_MAX bytes.  Every failure is an Rlerror with
 * the host errno (Linux errno values, as 9P2000.L wants); a malformed
 * message is EBADMSG, an unknown type EOPNOTSUPP.  Extended attributes
 * are not supported (EOPNOTSUPP); POSIX locks always succeed (the
 * share's files are not locked on the host).  Device nodes cannot be
 * created (EPERM).  A read-only server (ro) answers every request that
 * would change the share (create, write, open for writing or truncation,
 * setattr, link, rename, remove) with EROFS.  The server acts with the
 * host process's own credentials: the uid and gid a client asks for on
 * create are ignored.
 *
 * Nothing the guest does grants a privilege on the host: modes it sets
 * (create, mkdir, mknod, setattr) lose the set-user-ID and set-group-ID
 * bits (the sticky bit stays); Tsetattr may not change a file's owner
 * (EPERM unless the uid is the owner's already, root or not) and may set
 * its group only to the VMM's own (EPERM for any other group the VMM's
 * user belongs to).  Objects on kernel pseudo file systems (procfs,
 * sysfs, debugfs, tracefs, securityfs, cgroup, bpf, devpts, ...) are
 * refused with EACCES wherever they are met, unless the share's root is
 * on one.  Descriptors held by open fids are budgeted across all servers
 * of the process (p9_set_fd_budget()): past it Tlopen and Tlcreate get
 * EMFILE, and the rest of the VMM keeps the descriptors it needs.
 */
#ifndef RVKVM_P9_FS_H
#define RVKVM_P9_FS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "virtio/p9_wire.h"

#define P9_MSIZE_MAX (512u * 1024)
#define P9_MSIZE_MIN 4096u
#define P9_MAX_FIDS 4096u
#define P9_PATH_MAX 4096u
#define P9_NAME_MAX 255u
#define P9_VERSION "9P2000.L"

struct p9_fid {
	uint32_t fid;
	bool used;
	char *path; /* relative to the root: "." or "a/b" */
	int fd;	    /* after Tlopen/Tlcreate, else -1 */
};

struct p9_server {
	int root_fd; /* O_PATH | O_DIRECTORY */
	uint32_t msize;
	unsigned int nr_fids;	    /* slots in use or used: [0, nr_fids) */
	struct p9_fid *fids;	    /* P9_MAX_FIDS */
	uint64_t requests[256];	    /* by message type, for --debug */
	bool ro;		    /* refuse every change with EROFS */
	unsigned long root_fs_type; /* statfs f_type of the root */
	gid_t gid;		    /* the VMM's own group (at init) */
};

/*
 * At most max descriptors held open by fids of all servers together
 * (default P9_MAX_FIDS); set before any server runs.
 */
void p9_set_fd_budget(unsigned int max);

/* Serve dir (opened here): 0 or -errno (-ENOTDIR, -ENOENT, ...). */
int p9_server_init(struct p9_server *s, const char *dir);
void p9_server_destroy(struct p9_server *s);
/* Forget every fid (a device reset or Tversion). */
void p9_server_reset(struct p9_server *s);

/*
 * Execute the request in req[0, len) and write the reply into
 * resp[0, cap): its length, or 0 when cap cannot hold even an Rlerror
 * (11 bytes).
 */
uint32_t p9_server_handle(struct p9_server *s, const uint8_t *req, uint32_t len,
			  uint8_t *resp, uint32_t cap);

#endif
