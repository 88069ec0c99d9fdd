// SPDX-License-Identifier: GPL-2.0
/* A confined 9P2000.L file server; see p9_fs.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "virtio/p9_fs.h"

#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452 /* Linux 6.6, the same number everywhere */
#endif

#define P9_RESOLVE \
	(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
#define P9_RHDR 11 /* header + count[4] of Rread/Rreaddir */
/* Permission bits and the sticky bit: never set-user-ID or set-group-ID. */
#define P9_MODE_BITS 01777

/* --- descriptors --------------------------------------------------------- */

/*
 * Descriptors held open by fids (after Tlopen/Tlcreate), counted across
 * every server of the process: the budget keeps a guest from taking the
 * descriptors the rest of the VMM needs.
 */
static atomic_uint p9_fds_open;
static unsigned int p9_fds_max = P9_MAX_FIDS;

void p9_set_fd_budget(unsigned int max)
{
	p9_fds_max = max;
}

static bool p9_fd_take(void)
{
	unsigned int n = atomic_load(&p9_fds_open);

	do {
		if (n >= p9_fds_max)
			return false;
	} while (!atomic_compare_exchange_weak(&p9_fds_open, &n, n + 1));
	return true;
}

static void p9_fd_give(void)
{
	atomic_fetch_sub(&p9_fds_open, 1);
}

/* --- fids ---------------------------------------------------------------- */

static struct p9_fid *fid_find(struct p9_server *s, uint32_t fid)
{
	for (unsigned int i = 0; i < s->nr_fids; i++)
		if (s->fids[i].used && s->fids[i].fid == fid)
			return &s->fids[i];
	return NULL;
}

static struct p9_fid *fid_new(struct p9_server *s, uint32_t fid)
{
	unsigned int i;

	if (fid == P9_NOFID || fid_find(s, fid))
		return NULL;
	for (i = 0; i < s->nr_fids && s->fids[i].used; i++)
		;
	if (i == P9_MAX_FIDS)
		return NULL;
	if (i == s->nr_fids)
		s->nr_fids++;
	s->fids[i] = (struct p9_fid){ .fid = fid, .used = true, .fd = -1 };
	return &s->fids[i];
}

static void fid_put(struct p9_server *s, struct p9_fid *f)
{
	if (f->fd >= 0) {
		close(f->fd);
		p9_fd_give();
	}
	free(f->path);
	*f = (struct p9_fid){ .fd = -1 };
	while (s->nr_fids && !s->fids[s->nr_fids - 1].used)
		s->nr_fids--;
}

void p9_server_reset(struct p9_server *s)
{
	for (unsigned int i = 0; i < s->nr_fids; i++)
		if (s->fids[i].used)
			fid_put(s, &s->fids[i]);
	s->nr_fids = 0;
}

int p9_server_init(struct p9_server *s, const char *dir)
{
	struct statfs sf;

	*s = (struct p9_server){ .msize = P9_MSIZE_MIN };
	s->root_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (s->root_fd < 0)
		return -errno;
	if (fstatfs(s->root_fd, &sf)) {
		int ret = -errno;

		close(s->root_fd);
		return ret;
	}
	s->root_fs_type = (unsigned long)sf.f_type;
	s->gid = getegid();
	s->fids = calloc(P9_MAX_FIDS, sizeof(*s->fids));
	if (!s->fids) {
		close(s->root_fd);
		return -ENOMEM;
	}
	return 0;
}

void p9_server_destroy(struct p9_server *s)
{
	if (!s->fids)
		return;
	p9_server_reset(s);
	free(s->fids);
	s->fids = NULL;
	close(s->root_fd);
}

/* --- file systems -------------------------------------------------------- */

/*
 * Kernel interfaces that look like files: a process's memory and
 * environment, the kernel log, tunables.  No share serves them unless
 * its root is on one (the user shared that file system by name).
 */
static bool p9_pseudo_fs(unsigned long type)
{
	static const unsigned long types[] = {
		PROC_SUPER_MAGIC,    SYSFS_MAGIC,
		DEBUGFS_MAGIC,	     TRACEFS_MAGIC,
		SECURITYFS_MAGIC,    SELINUX_MAGIC,
		SMACK_MAGIC,	     CGROUP_SUPER_MAGIC,
		CGROUP2_SUPER_MAGIC, BPF_FS_MAGIC,
		PSTOREFS_MAGIC,	     EFIVARFS_MAGIC,
		DEVPTS_SUPER_MAGIC,  NSFS_MAGIC,
		BINFMTFS_MAGIC,	     RDTGROUP_SUPER_MAGIC,
		ANON_INODE_FS_MAGIC, 0x62656570, /* configfs */
		0x65735543,			 /* fusectl */
		0x19800202,			 /* mqueue */
	};

	for (unsigned int i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (type == types[i])
			return true;
	return false;
}

/* 0 if fd's object may be served, else -EACCES or -errno. */
static int p9_fs_ok(const struct p9_server *s, int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf))
		return -errno;
	if ((unsigned long)sf.f_type == s->root_fs_type ||
	    !p9_pseudo_fs((unsigned long)sf.f_type))
		return 0;
	return -EACCES;
}

/* --- paths --------------------------------------------------------------- */

/* path (relative to the root), confined; flags get O_NOFOLLOW. */
static int p9_open(struct p9_server *s, const char *path, int flags,
		   mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
		.mode = (flags & O_CREAT) ? mode & P9_MODE_BITS : 0,
		.resolve = P9_RESOLVE,
	};
	long fd = syscall(SYS_openat2, s->root_fd, path, &how, sizeof(how));
	int ret;

	if (fd < 0)
		return -errno;
	ret = p9_fs_ok(s, (int)fd);
	if (ret) {
		close((int)fd);
		return ret;
	}
	return (int)fd;
}

static int p9_opath(struct p9_server *s, const struct p9_fid *f)
{
	return p9_open(s, f->path, O_PATH, 0);
}

/* Data is read and written in regular files and directories only. */
static bool p9_data_mode(mode_t mode)
{
	return S_ISREG(mode) || S_ISDIR(mode);
}

/*
 * fd (opened O_NONBLOCK) if it is a regular file or a directory, without
 * O_NONBLOCK unless flags asked for it; else closed and -EPERM.  A FIFO
 * would block the server for good, a device node is the host's.
 */
static int p9_data_fd(const struct p9_server *s, int fd, int flags)
{
	struct stat st;
	int fl;

	if (fd < 0)
		return fd;
	if (p9_fs_ok(s, fd) || fstat(fd, &st) || !p9_data_mode(st.st_mode) ||
	    (!(flags & O_NONBLOCK) &&
	     ((fl = fcntl(fd, F_GETFL)) < 0 ||
	      fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0))) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

static int p9_stat_path(struct p9_server *s, const char *path, struct stat *st);

/* path opened for I/O: p9_open, but no FIFO, socket or device node. */
static int p9_open_data(struct p9_server *s, const char *path, int flags)
{
	struct stat st;
	int ret = p9_stat_path(s, path, &st);

	if (ret)
		return ret;
	if (!p9_data_mode(st.st_mode))
		return S_ISLNK(st.st_mode) ? -ELOOP : -EPERM;
	return p9_data_fd(s, p9_open(s, path, flags | O_NONBLOCK, 0), flags);
}

/* A single component into buf: 0, -EINVAL or -ENAMETOOLONG. */
static int p9_name(const struct p9_str *n, char *buf)
{
	if (!n->len || memchr(n->s, '/', n->len))
		return -EINVAL;
	if (n->len > P9_NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(buf, n->s, n->len);
	buf[n->len] = '\0';
	if (!strcmp(buf, ".") || !strcmp(buf, ".."))
		return -EINVAL;
	return 0;
}

/* dir + "/" + name into a new string (dir "." gives name). */
static char *p9_join(const char *dir, const char *name)
{
	char *p;

	if (strlen(dir) + strlen(name) + 2 > P9_PATH_MAX)
		return NULL;
	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return NULL;
	if (!strcmp(dir, "."))
		memmove(p, p + 2, strlen(p + 2) + 1);
	return p;
}

static void p9_qid_of(const struct stat *st, struct p9_qid *q)
{
	q->type = S_ISDIR(st->st_mode) ? P9_QTDIR :
		  S_ISLNK(st->st_mode) ? P9_QTSYMLINK :
					 P9_QTFILE;
	q->version = 0;
	/* The share may span mounts: keep their inode numbers apart. */
	q->path = st->st_ino ^ ((uint64_t)st->st_dev << 40);
}

static int p9_stat_path(struct p9_server *s, const char *path, struct stat *st)
{
	int fd = p9_open(s, path, O_PATH, 0);
	int ret;

	if (fd < 0)
		return fd;
	ret = fstat(fd, st) ? -errno : 0;
	close(fd);
	return ret;
}

/* --- session ------------------------------------------------------------- */

typedef int p9_op_fn(struct p9_server *s, const struct p9_req *r,
		     struct p9_out *o);

static int op_version(struct p9_server *s, const struct p9_req *r,
		      struct p9_out *o)
{
	bool ok = r->name.len >= strlen(P9_VERSION) &&
		  !memcmp(r->name.s, P9_VERSION, strlen(P9_VERSION));
	uint32_t msize = r->msize;

	if (msize < P9_MSIZE_MIN)
		return -EINVAL;
	p9_server_reset(s);
	s->msize = msize > P9_MSIZE_MAX ? P9_MSIZE_MAX : msize;
	p9_put_u32(o, s->msize);
	if (ok)
		p9_put_str(o, P9_VERSION, strlen(P9_VERSION));
	else
		p9_put_str(o, "unknown", 7);
	return 0;
}

static int op_attach(struct p9_server *s, const struct p9_req *r,
		     struct p9_out *o)
{
	struct p9_fid *f;
	struct stat st;
	struct p9_qid q;
	int ret = p9_stat_path(s, ".", &st);

	if (ret)
		return ret;
	f = fid_new(s, r->fid);
	if (!f)
		return -EBADF;
	f->path = strdup(".");
	if (!f->path) {
		fid_put(s, f);
		return -ENOMEM;
	}
	p9_qid_of(&st, &q);
	p9_put_qid(o, &q);
	return 0;
}

static int op_flush(struct p9_server *s, const struct p9_req *r,
		    struct p9_out *o)
{
	return 0; /* requests complete in order: nothing is in flight */
}

static int op_clunk(struct p9_server *s, const struct p9_req *r,
		    struct p9_out *o)
{
	struct p9_fid *f = fid_find(s, r->fid);

	if (!f)
		return -EBADF;
	fid_put(s, f);
	return 0;
}

static int op_unsupported(struct p9_server *s, const struct p9_req *r,
			  struct p9_out *o)
{
	return -EOPNOTSUPP;
}

/* --- walk ---------------------------------------------------------------- */

/* One step from *path by name (".." stops at the root); 0 or -errno. */
static int walk_step(struct p9_server *s, char **path, const struct p9_str *n,
		     struct p9_qid *q)
{
	char name[P9_NAME_MAX + 1], *next, *slash;
	struct stat st;
	int ret;

	if (n->len == 2 && !memcmp(n->s, "..", 2)) {
		slash = strrchr(*path, '/');
		next = strdup(slash ? *path : ".");
		if (next && slash)
			next[slash - *path] = '\0';
	} else {
		ret = p9_name(n, name);
		if (ret)
			return ret;
		next = p9_join(*path, name);
	}
	if (!next)
		return -ENAMETOOLONG;
	ret = p9_stat_path(s, next, &st);
	if (ret) {
		free(next);
		return ret;
	}
	p9_qid_of(&st, q);
	free(*path);
	*path = next;
	return 0;
}

static int walk_commit(struct p9_server *s, const struct p9_req *r,
		       struct p9_fid *from, char *path)
{
	struct p9_fid *to = from;

	if (r->newfid != r->fid)
		to = fid_new(s, r->newfid);
	if (!to || to->fd >= 0) {
		free(path);
		return to ? -EBUSY : -EBADF; /* an open fid does not move */
	}
	free(to->path);
	to->path = path;
	return 0;
}

static int op_walk(struct p9_server *s, const struct p9_req *r,
		   struct p9_out *o)
{
	struct p9_fid *f = fid_find(s, r->fid);
	struct p9_qid q[P9_MAXWELEM];
	unsigned int i;
	char *path;
	int ret = 0;

	if (!f)
		return -EBADF;
	if (r->newfid != r->fid && fid_find(s, r->newfid))
		return -EBADF;
	path = strdup(f->path);
	if (!path)
		return -ENOMEM;
	for (i = 0; i < r->nwname && !ret; i++)
		ret = walk_step(s, &path, &r->wnames[i], &q[i]);
	if (ret)
		i--;
	if (ret && !i) {
		free(path);
		return ret;
	}
	p9_put_u16(o, i);
	for (unsigned int k = 0; k < i; k++)
		p9_put_qid(o, &q[k]);
	if (!ret)
		ret = walk_commit(s, r, f, path);
	else
		free(path); /* a partial walk creates no fid */
	return i == r->nwname ? ret : 0;
}

/* --- attributes ---------------------------------------------------------- */

static void put_time(struct p9_out *o, const struct timespec *t)
{
	p9_put_u64(o, t->tv_sec);
	p9_put_u64(o, t->tv_nsec);
}

static int fid_stat(struct p9_server *s, const struct p9_fid *f,
		    struct stat *st)
{
	if (f->fd >= 0)
		return fstat(f->fd, st) ? -errno : 0;
	return p9_stat_path(s, f->path, st);
}

static int op_getattr(struct p9_server *s, const struct p9_req *r,
		      struct p9_out *o)
{
	struct p9_fid *f = fid_find(s, r->fid);
	struct stat st;
	struct p9_qid q;
	int ret;

	if (!f)
		return -EBADF;
	ret = fid_stat(s, f, &st);
	if (ret)
		return ret;
	p9_qid_of(&st, &q);
	p9_put_u64(o, P9_GETATTR_BASIC);
	p9_put_qid(o, &q);
	p9_put_u32(o, st.st_mode);
	p9_put_u32(o, st.st_uid);
	p9_put_u32(o, st.st_gid);
	p9_put_u64(o, st.st_nlink);
	p9_put_u64(o, st.st_rdev);
	p9_put_u64(o, st.st_size);
	p9_put_u64(o, st.st_blksize);
	p9_put_u64(o, st.st_blocks);
	put_time(o, &st.st_atim);
	put_time(o, &st.st_mtim);
	put_time(o, &st.st_ctim);
	for (int i = 0; i < 4; i++) /* btime, gen, data_version */
		p9_put_u64(o, 0);
	return 0;
}

static int setattr_mode(int pfd, uint32_t mode)
{
	char proc[64];
	struct stat st;

	if (!syscall(__NR_fchmodat2, pfd, "", mode & P9_MODE_BITS,
		     AT_EMPTY_PATH))
		return 0;
	if (errno != ENOSYS)
		return -errno;
	/* chmod would follow a symlink: links keep their mode anyway. */
	if (fstat(pfd, &st))
		return -errno;
	if (S_ISLNK(st.st_mode))
		return -EOPNOTSUPP;
	/* Before Linux 6.6: through the descriptor's /proc link. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	return chmod(proc, mode & P9_MODE_BITS) ? -errno : 0;
}

static int setattr_size(struct p9_server *s, const struct p9_fid *f,
			uint64_t size)
{
	int fd, ret;

	if (size > INT64_MAX)
		return -EFBIG;
	fd = p9_open_data(s, f->path, O_WRONLY);
	if (fd < 0)
		return fd;
	ret = ftruncate(fd, size) ? -errno : 0;
	close(fd);
	return ret;
}

static void setattr_time(struct timespec *t, uint32_t valid, uint32_t now,
			 uint32_t set, uint64_t sec, uint64_t nsec)
{
	t->tv_nsec = UTIME_OMIT;
	if (valid & set) {
		t->tv_sec = sec;
		t->tv_nsec = nsec < 1000000000 ? (long)nsec : 0;
	} else if (valid & now) {
		t->tv_nsec = UTIME_NOW;
	}
}

/*
 * Ownership changes grant nothing: the owner stays the owner (even when
 * lkvm runs as root), and the group becomes lkvm's own or stays as it
 * is, never another group lkvm's user happens to be in.
 */
static int setattr_owner(const struct p9_server *s, int pfd,
			 const struct p9_req *r)
{
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	struct stat st;

	if (fstat(pfd, &st))
		return -errno;
	if ((r->valid & P9_SETATTR_UID) && r->uid != st.st_uid)
		return -EPERM;
	if (r->valid & P9_SETATTR_GID) {
		if (r->gid != st.st_gid && r->gid != s->gid)
			return -EPERM;
		gid = r->gid;
	}
	if (gid == (gid_t)-1 || gid == st.st_gid)
		return 0;
	return fchownat(pfd, "", uid, gid,
			AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) ?
		       -errno :
		       0;
}

static int setattr_fd(const struct p9_server *s, int pfd,
		      const struct p9_req *r)
{
	struct timespec ts[2];
	int ret = (r->valid & P9_SETATTR_MODE) ? setattr_mode(pfd, r->mode) : 0;

	if (ret)
		return ret;
	if (r->valid & (P9_SETATTR_UID | P9_SETATTR_GID)) {
		ret = setattr_owner(s, pfd, r);
		if (ret)
			return ret;
	}
	setattr_time(&ts[0], r->valid, P9_SETATTR_ATIME, P9_SETATTR_ATIME_SET,
		     r->atime_sec, r->atime_nsec);
	setattr_time(&ts[1], r->valid, P9_SETATTR_MTIME, P9_SETATTR_MTIME_SET,
		     r->mtime_sec, r->mtime_nsec);
	if ((ts[0].tv_nsec != UTIME_OMIT || ts[1].tv_nsec != UTIME_OMIT) &&
	    utimensat(pfd, "", ts, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
		return -errno;
	return 0;
}

static int op_setattr(struct p9_server *s, const struct p9_req *r,
		      struct p9_out *o)
{
	struct p9_fid *f = fid_find(s, r->fid);
	int pfd, ret;

	if (!f)
		return -EBADF;
	if (r->valid & P9_SETATTR_SIZE) {
		ret = f->fd >= 0 && !ftruncate(f->fd, r->size) ?
			      0 :
			      setattr_size(s, f, r->size);
		if (ret)
			return ret;
	}
	pfd = p9_opath(s, f);
	if (pfd < 0)
		return pfd;
	ret = setattr_fd(s, pfd, r);
	close(pfd);
	return ret;
}

static int op_statfs(struct p9_server *s, const struct p9_req *r,
		     struct p9_out *o)
{
	struct p9_fid *f = fid_find(s, r->fid);
	struct statfs sf;
	uint64_t fsid;

	if (!f)
		return -EBADF;
	if (fstatfs(s->root_fd, &sf))
		return -errno;
	memcpy(&fsid, &sf.f_fsid, sizeof(fsid));
	p9_put_u32(o, sf.f_type);
	p9_put_u32(o, sf.f_bsize);
	p9_put_u64(o, sf.f_blocks);
	p9_put_u64(o, sf.f_bfree);
	p9_put_u64(o, sf.f_bavail);
	p9_put_u64(o, sf.f_files);
	p9_put_u64(o, sf.f_ffree);
	p9_put_u64(o, fsid);
	p9_put_u32(o, sf.f_namelen);
	return 0;
}

static int op_readlink(struct p9_server *s, const struct p9_req *r,
		       struct p9_out *o)
{
	struct p9_fid *f = fid_find(s, r->fid);
	char buf[P9_STR_MAX];
	ssize_t n;
	int pfd;

	if (!f)
		return -EBADF;
	pfd = p9_opath(s, f);
	if (pfd < 0)
		return pfd;
	n = readlinkat(pfd, "", buf, sizeof(buf));
	if (n < 0)
		n = -errno;
	close(pfd);
	if (n < 0)
		return n;
	if (n == sizeof(buf))
		return -ENAMETOOLONG;
	p9_put_str(o, buf, n);
	return 0;
}

/* --- open, read, write --------------------------------------------------- */

/* 9P2000.L open flags (Linux's generic values) to the host's. */
static int p9_oflags(uint32_t fl)
{
	static const struct {
		uint32_t p9;
		int host;
	} map[] = {
		{ 000001000, O_TRUNC },	    { 000002000, O_APPEND },
		{ 000004000, O_NONBLOCK },  { 000010000, O_DSYNC },
		{ 000200000, O_DIRECTORY }, { 004000000, O_SYNC },
		{ 000000200, O_EXCL },
	};
	int flags = fl & 3;

	if (flags == 3)
		flags = O_RDONLY;
	for (unsigned int i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if ((fl & map[i].p9) == map[i].p9)
			flags |= map[i].host;
	return flags;
}

/* fd (or -errno) becomes f's; its descriptor budget was taken. */
static int reply_open(struct p9_fid *f, int fd, struct p9_out *o)
{
	struct stat st;
	struct p9_qid q;

	if (fd >= 0 && fstat(fd, &st)) {
		int ret = -errno;

		close(fd);
		fd = ret;
	}
	if (fd < 0) {
		p9_fd_give();
		return fd;
	}
	f->fd = fd;
	p9_qid_of(&st, &q);
	p9_put_qid(o, &q);
	p9_put_u32(o, 0); /* iounit: msize - 24 */
	return 0;
}

static int op_lopen(struct p9_server *s, const struct p9_req *r,
		    struct p9_out *o)
{
	struct p9_fid *f = fid_find(s, r->fid);
	int fd;

	if (!f)
		return -EBADF;
	if (f->fd >= 0)
		return -EBUSY;
	if (!p9_fd_take())
		return -EMFILE;
	fd = p9_open_data(s, f->path, p9_oflags(r->flags) & ~O_EXCL);
	return reply_open(f, fd, o);
}

/* A directory fid's descriptor and a checked name in it. */
static int dir_and_name(struct p9_server *s, uint32_t fid,
			const struct p9_str *n, char *name)
{
	struct p9_fid *d = fid_find(s, fid);
	int ret;

	if (!d)
		return -EBADF;
	ret = p9_name(n, name);
	if (ret)
		return ret;
	return p9_open(s, d->path, O_PATH | O_DIRECTORY, 0);
}

static int op_lcreate(struct p9_server *s, const struct p9_req *r,
		      struct p9_out *o)
{
	struct p9_fid *f = fid_find(s, r->fid);
	char name[P9_NAME_MAX + 1], *path;
	struct stat st;
	int dfd, fd, flags;

	if (f && f->fd >= 0)
		return -EBUSY;
	dfd = dir_and_name(s, r->fid, &r->name, name);
	if (dfd < 0)
		return dfd;
	path = p9_join(f->path, name);
	if (!path || !p9_fd_take()) {
		close(dfd);
		free(path);
		return path ? -EMFILE : -ENAMETOOLONG;
	}
	flags = (p9_oflags(r->flags) & ~O_DIRECTORY) | O_CREAT | O_NOFOLLOW |
		O_CLOEXEC;
	/* An existing name: a regular file only (no FIFO, no device). */
	if (!fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
	    !S_ISREG(st.st_mode)) {
		fd = S_ISDIR(st.st_mode) ? -EISDIR :
		     S_ISLNK(st.st_mode) ? -ELOOP :
					   -EPERM;
	} else {
		fd = openat(dfd, name, flags | O_NONBLOCK,
			    r->mode & P9_MODE_BITS);
		fd = fd < 0 ? -errno : p9_data_fd(s, fd, flags);
	}
	close(dfd);
	if (fd >= 0) {
		free(f->path);
		f->path = path;
	} else {
		free(path);
	}
	return reply_open(f, fd, o);
}

static int op_read(struct p9_server *s, const struct p9_req *r,
		   struct p9_out *o)
{
	struct p9_fid *f = fid_find(s, r->fid);
	uint32_t max = o->cap - P9_RHDR, count = r->count;
	ssize_t n;

	if (!f || f->fd < 0)
		return -EBADF;
	if (max > s->msize - P9_RHDR)
		max = s->msize - P9_RHDR;
	if (count > max)
		count = max;
	if (r->offset > INT64_MAX)
		return -EINVAL;
	n = pread(f->fd, o->buf + P9_RHDR, count, r->offset);
	if (n < 0)
		return -errno;
	p9_put_u32(o, n);
	o->len += n;
	return 0;
}

static int op_write(struct p9_server *s, const struct p9_req *r,
		    struct p9_out *o)
{
	struct p9_fid *f = fid_find(s, r->fid);
	ssize_t n;

	if (!f || f->fd < 0)
		return -EBADF;
	if (r->offset > INT64_MAX)
		return -EINVAL;
	n = pwrite(f->fd, r->data, r->count, r->offset);
	if (n < 0)
		return -errno;
	p9_put_u32(o, n);
	return 0;
}

static int op_fsync(struct p9_server *s, const struct p9_req *r,
		    struct p9_out *o)
{
	struct p9_fid *f = fid_find(s, r->fid);
	int ret;

	if (!f || f->fd < 0)
		return -EBADF;
	ret = r->datasync ? fdatasync(f->fd) : fsync(f->fd);
	return ret ? -errno : 0;
}

/* --- directories --------------------------------------------------------- */

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	uint16_t d_reclen;
	uint8_t d_type;
	char d_name[];
};

/* Convert one getdents64 record; false when it does not fit. */
static bool readdir_entry(struct p9_out *o, const struct linux_dirent64 *d,
			  uint32_t end)
{
	size_t nlen = strnlen(d->d_name, d->d_reclen - 19);
	struct p9_qid q = {
		.type = d->d_type == DT_DIR ? P9_QTDIR :
			d->d_type == DT_LNK ? P9_QTSYMLINK :
					      P9_QTFILE,
		.path = d->d_ino,
	};

	if (nlen > P9_NAME_MAX || o->len + 24 + nlen > end)
		return false;
	p9_put_qid(o, &q);
	p9_put_u64(o, d->d_off);
	p9_put_u8(o, d->d_type);
	p9_put_str(o, d->d_name, nlen);
	return true;
}

static int readdir_fill(struct p9_out *o, int fd, uint32_t count)
{
	uint32_t start = o->len, end = o->len + count;
	char *buf = malloc(count);
	long n, off = 0;

	if (!buf)
		return -ENOMEM;
	n = syscall(SYS_getdents64, fd, buf, count);
	if (n < 0) {
		free(buf);
		return -errno;
	}
	while (off + 19 < n) {
		const struct linux_dirent64 *d = (const void *)(buf + off);

		if (d->d_reclen < 20 || off + d->d_reclen > n ||
		    !readdir_entry(o, d, end))
			break;
		off += d->d_reclen;
	}
	free(buf);
	return o->len - start;
}

static int op_readdir(struct p9_server *s, const struct p9_req *r,
		      struct p9_out *o)
{
	struct p9_fid *f = fid_find(s, r->fid);
	uint32_t count = r->count, max = o->cap - P9_RHDR;
	int n;

	if (!f || f->fd < 0)
		return -EBADF;
	if (max > s->msize - P9_RHDR)
		max = s->msize - P9_RHDR;
	if (count > max)
		count = max;
	if (r->offset > INT64_MAX)
		return -EINVAL;
	if (lseek(f->fd, (off_t)r->offset, SEEK_SET) < 0)
		return -errno;
	p9_put_u32(o, 0);
	n = readdir_fill(o, f->fd, count);
	if (n < 0)
		return n;
	for (int i = 0; i < 4; i++)
		o->buf[P9_HDR_SIZE + i] = (uint32_t)n >> (8 * i);
	return 0;
}

/* Reply with the qid of name in dfd. */
static int reply_qid_at(int dfd, const char *name, struct p9_out *o)
{
	struct stat st;
	struct p9_qid q;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	p9_qid_of(&st, &q);
	p9_put_qid(o, &q);
	return 0;
}

static int op_mkdir(struct p9_server *s, const struct p9_req *r,
		    struct p9_out *o)
{
	char name[P9_NAME_MAX + 1];
	int dfd = dir_and_name(s, r->dfid, &r->name, name);
	int ret;

	if (dfd < 0)
		return dfd;
	ret = mkdirat(dfd, name, r->mode & P9_MODE_BITS) ?
		      -errno :
		      reply_qid_at(dfd, name, o);
	close(dfd);
	return ret;
}

static int op_symlink(struct p9_server *s, const struct p9_req *r,
		      struct p9_out *o)
{
	char name[P9_NAME_MAX + 1], target[P9_STR_MAX + 1];
	int dfd = dir_and_name(s, r->fid, &r->name, name);
	int ret;

	if (dfd < 0)
		return dfd;
	memcpy(target, r->name2.s, r->name2.len);
	target[r->name2.len] = '\0';
	ret = !r->name2.len || symlinkat(target, dfd, name) ?
		      (r->name2.len ? -errno : -ENOENT) :
		      reply_qid_at(dfd, name, o);
	close(dfd);
	return ret;
}

static int op_mknod(struct p9_server *s, const struct p9_req *r,
		    struct p9_out *o)
{
	char name[P9_NAME_MAX + 1];
	mode_t type = r->mode & S_IFMT;
	int dfd, ret;

	if (type != S_IFIFO && type != S_IFSOCK && type != S_IFREG)
		return -EPERM; /* no host device nodes */
	dfd = dir_and_name(s, r->dfid, &r->name, name);
	if (dfd < 0)
		return dfd;
	ret = mknodat(dfd, name, type | (r->mode & P9_MODE_BITS), 0) ?
		      -errno :
		      reply_qid_at(dfd, name, o);
	close(dfd);
	return ret;
}

static int op_link(struct p9_server *s, const struct p9_req *r,
		   struct p9_out *o)
{
	struct p9_fid *f = fid_find(s, r->fid);
	char name[P9_NAME_MAX + 1];
	int dfd, pfd, ret;

	if (!f)
		return -EBADF;
	dfd = dir_and_name(s, r->dfid, &r->name, name);
	if (dfd < 0)
		return dfd;
	pfd = p9_opath(s, f);
	ret = pfd < 0					? pfd :
	      linkat(pfd, "", dfd, name, AT_EMPTY_PATH) ? -errno :
							  0;
	if (pfd >= 0)
		close(pfd);
	close(dfd);
	return ret;
}

static int op_unlinkat(struct p9_server *s, const struct p9_req *r,
		       struct p9_out *o)
{
	char name[P9_NAME_MAX + 1];
	int dfd = dir_and_name(s, r->dfid, &r->name, name);
	int ret;

	if (dfd < 0)
		return dfd;
	ret = unlinkat(dfd, name, r->flags & AT_REMOVEDIR) ? -errno : 0;
	close(dfd);
	return ret;
}

static int op_remove(struct p9_server *s, const struct p9_req *r,
		     struct p9_out *o)
{
	struct p9_fid *f = fid_find(s, r->fid);
	char *slash, *dir;
	struct stat st;
	int dfd, ret;

	if (!f)
		return -EBADF;
	ret = strcmp(f->path, ".") ? p9_stat_path(s, f->path, &st) : -EBUSY;
	slash = strrchr(f->path, '/');
	dir = slash ? strndup(f->path, slash - f->path) : strdup(".");
	dfd = ret || !dir ? -ENOMEM : p9_open(s, dir, O_PATH | O_DIRECTORY, 0);
	if (!ret)
		ret = dfd < 0 ? dfd :
		      unlinkat(dfd, slash ? slash + 1 : f->path,
			       S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) ?
				-errno :
				0;
	if (dfd >= 0)
		close(dfd);
	free(dir);
	fid_put(s, f); /* clunked whatever the outcome */
	return ret;
}

/* --- renames ------------------------------------------------------------- */

/* Fids at or below old now name the same objects under new. */
static void rename_fids(struct p9_server *s, const char *old, const char *new)
{
	size_t olen = strlen(old);

	for (unsigned int i = 0; i < s->nr_fids; i++) {
		struct p9_fid *f = &s->fids[i];
		char *p;

		if (!f->used || strncmp(f->path, old, olen) ||
		    (f->path[olen] && f->path[olen] != '/'))
			continue;
		if (asprintf(&p, "%s%s", new, f->path + olen) < 0)
			continue;
		if (strlen(p) >= P9_PATH_MAX) {
			free(p);
			continue;
		}
		free(f->path);
		f->path = p;
	}
}

static int do_rename(struct p9_server *s, uint32_t ofid,
		     const struct p9_str *oname, uint32_t nfid,
		     const struct p9_str *nname)
{
	char on[P9_NAME_MAX + 1], nn[P9_NAME_MAX + 1], *op = NULL, *np = NULL;
	int odfd = dir_and_name(s, ofid, oname, on), ndfd = -1, ret;

	if (odfd < 0)
		return odfd;
	ndfd = dir_and_name(s, nfid, nname, nn);
	ret = ndfd < 0 ? ndfd : renameat(odfd, on, ndfd, nn) ? -errno : 0;
	if (!ret) {
		op = p9_join(fid_find(s, ofid)->path, on);
		np = p9_join(fid_find(s, nfid)->path, nn);
	}
	if (op && np)
		rename_fids(s, op, np);
	free(op);
	free(np);
	if (ndfd >= 0)
		close(ndfd);
	close(odfd);
	return ret;
}

static int op_renameat(struct p9_server *s, const struct p9_req *r,
		       struct p9_out *o)
{
	return do_rename(s, r->fid, &r->name, r->dfid, &r->name2);
}

/* Trename: fid names the object; its parent is found by name. */
static int op_rename(struct p9_server *s, const struct p9_req *r,
		     struct p9_out *o)
{
	struct p9_fid *f = fid_find(s, r->fid), *parent;
	char *slash;
	struct p9_str base;
	uint32_t tmp = P9_NOFID;
	int ret;

	if (!f || !strcmp(f->path, "."))
		return f ? -EBUSY : -EBADF;
	slash = strrchr(f->path, '/');
	base.s = slash ? slash + 1 : f->path;
	base.len = strlen(base.s);
	/* A temporary fid for the parent, with a number no client uses. */
	for (uint32_t n = P9_NOFID - 1; tmp == P9_NOFID; n--)
		if (!fid_find(s, n))
			tmp = n;
	parent = fid_new(s, tmp);
	if (!parent)
		return -ENFILE;
	parent->path = slash ? strndup(f->path, slash - f->path) : strdup(".");
	ret = parent->path ? do_rename(s, tmp, &base, r->dfid, &r->name) :
			     -ENOMEM;
	fid_put(s, parent);
	return ret;
}

/* --- locks --------------------------------------------------------------- */

static int op_lock(struct p9_server *s, const struct p9_req *r,
		   struct p9_out *o)
{
	if (!fid_find(s, r->fid))
		return -EBADF;
	p9_put_u8(o, 0); /* P9_LOCK_SUCCESS */
	return 0;
}

static int op_getlock(struct p9_server *s, const struct p9_req *r,
		      struct p9_out *o)
{
	if (!fid_find(s, r->fid))
		return -EBADF;
	p9_put_u8(o, 2); /* P9_LOCK_TYPE_UNLCK: nothing holds it */
	p9_put_u64(o, r->lock_start);
	p9_put_u64(o, r->lock_length);
	p9_put_u32(o, r->lock_proc);
	p9_put_str(o, r->client_id.s, r->client_id.len);
	return 0;
}

/* --- dispatch ------------------------------------------------------------ */

static const struct p9_op {
	uint8_t type;
	p9_op_fn *fn;
} p9_ops[] = {
	{ P9_TVERSION, op_version },
	{ P9_TATTACH, op_attach },
	{ P9_TAUTH, op_unsupported },
	{ P9_TFLUSH, op_flush },
	{ P9_TWALK, op_walk },
	{ P9_TCLUNK, op_clunk },
	{ P9_TGETATTR, op_getattr },
	{ P9_TSETATTR, op_setattr },
	{ P9_TSTATFS, op_statfs },
	{ P9_TREADLINK, op_readlink },
	{ P9_TLOPEN, op_lopen },
	{ P9_TLCREATE, op_lcreate },
	{ P9_TREAD, op_read },
	{ P9_TWRITE, op_write },
	{ P9_TFSYNC, op_fsync },
	{ P9_TREADDIR, op_readdir },
	{ P9_TMKDIR, op_mkdir },
	{ P9_TSYMLINK, op_symlink },
	{ P9_TMKNOD, op_mknod },
	{ P9_TLINK, op_link },
	{ P9_TUNLINKAT, op_unlinkat },
	{ P9_TREMOVE, op_remove },
	{ P9_TRENAMEAT, op_renameat },
	{ P9_TRENAME, op_rename },
	{ P9_TLOCK, op_lock },
	{ P9_TGETLOCK, op_getlock },
	{ P9_TXATTRWALK, op_unsupported },
	{ P9_TXATTRCREATE, op_unsupported },
};

static p9_op_fn *p9_op_find(uint8_t type)
{
	for (unsigned int i = 0; i < sizeof(p9_ops) / sizeof(p9_ops[0]); i++)
		if (p9_ops[i].type == type)
			return p9_ops[i].fn;
	return NULL;
}

/* Would r change the share? */
static bool p9_modifies(const struct p9_req *r)
{
	switch (r->type) {
	case P9_TLOPEN:
		return (r->flags & 3) || (r->flags & 000001000); /* TRUNC */
	case P9_TLCREATE:
	case P9_TSYMLINK:
	case P9_TMKNOD:
	case P9_TRENAME:
	case P9_TSETATTR:
	case P9_TXATTRCREATE:
	case P9_TLINK:
	case P9_TMKDIR:
	case P9_TRENAMEAT:
	case P9_TUNLINKAT:
	case P9_TWRITE:
	case P9_TREMOVE:
		return true;
	}
	return false;
}

uint32_t p9_server_handle(struct p9_server *s, const uint8_t *req, uint32_t len,
			  uint8_t *resp, uint32_t cap)
{
	struct p9_req r;
	struct p9_out o;
	p9_op_fn *fn;
	int ret;
	uint32_t n;

	if (cap > P9_MSIZE_MAX)
		cap = P9_MSIZE_MAX;
	if (cap < P9_RHDR)
		return 0;
	ret = p9_decode(req, len, &r);
	s->requests[r.type]++;
	fn = ret ? NULL : p9_op_find(r.type);
	if (!ret && !fn)
		ret = -EOPNOTSUPP;
	if (!ret && s->ro && p9_modifies(&r))
		ret = -EROFS;
	if (!ret) {
		p9_out_init(&o, resp, cap);
		p9_out_hdr(&o, r.type + 1, r.tag);
		ret = fn(s, &r, &o);
		n = ret ? 0 : p9_out_finish(&o);
		if (!ret && n)
			return n;
		if (!ret)
			ret = -ENOBUFS; /* the reply did not fit */
	}
	return p9_put_lerror(resp, cap, r.tag, -ret);
}
