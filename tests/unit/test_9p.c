// SPDX-License-Identifier: GPL-2.0
/*
 * The 9P2000.L wire decoder and the confined server (virtio/p9_wire.c,
 * virtio/p9_fs.c) against a temporary directory: base/outside.txt next to
 * the share base/share, which holds escape attempts: an absolute symlink
 * to base, a relative one to "..", and one into /proc/self/fd.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "virtio/p9_fs.h"
#include "virtio/p9_wire.h"

struct msg {
	uint8_t b[8192];
	uint32_t n;
};

static uint8_t resp[65536];
static uint32_t rlen;
static char base[256], share[300];

static void m_put(struct msg *m, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		m->b[m->n++] = i < 8 ? v >> (8 * i) : 0;
}

static void m_str(struct msg *m, const char *s)
{
	m_put(m, strlen(s), 2);
	memcpy(m->b + m->n, s, strlen(s));
	m->n += strlen(s);
}

static void m_start(struct msg *m, uint8_t type)
{
	m->n = 0;
	m_put(m, 0, 4);
	m_put(m, type, 1);
	m_put(m, 0x1234, 2);
}

static uint32_t m_end(struct msg *m)
{
	for (int i = 0; i < 4; i++)
		m->b[i] = m->n >> (8 * i);
	return m->n;
}

static uint64_t r_get(uint32_t off, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)resp[off + i] << (8 * i);
	return v;
}

/* Send m; the reply type.  An Rlerror's errno is r_get(7, 4). */
static uint8_t rpc(struct p9_server *s, struct msg *m)
{
	rlen = p9_server_handle(s, m->b, m_end(m), resp, sizeof(resp));
	assert_true(rlen >= 7);
	assert_int_equal(r_get(0, 4), rlen);
	assert_int_equal(r_get(5, 2), 0x1234);
	return resp[4];
}

static int rpc_err(struct p9_server *s, struct msg *m)
{
	uint8_t t = rpc(s, m);

	return t == P9_RLERROR ? (int)r_get(7, 4) : 0;
}

static void setup_tree(void)
{
	char p[400], target[300];
	FILE *f;

	strcpy(base, "/tmp/rvkvm-test-9p-XXXXXX");
	assert_non_null(mkdtemp(base));
	snprintf(share, sizeof(share), "%s/share", base);
	assert_int_equal(mkdir(share, 0755), 0);
	snprintf(p, sizeof(p), "%s/outside.txt", base);
	f = fopen(p, "w");
	fputs("secret", f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/hello.txt", share);
	f = fopen(p, "w");
	fputs("hello 9p", f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/sub", share);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/abs", share);
	assert_int_equal(symlink(base, p), 0);
	snprintf(p, sizeof(p), "%s/rel", share);
	assert_int_equal(symlink("..", p), 0);
	snprintf(p, sizeof(p), "%s/sub/up", share);
	assert_int_equal(symlink("../..", p), 0);
	snprintf(p, sizeof(p), "%s/fd", share);
	assert_int_equal(symlink("/proc/self/fd", p), 0);
	snprintf(p, sizeof(p), "%s/absfile", share);
	snprintf(target, sizeof(target), "%s/outside.txt", base);
	assert_int_equal(symlink(target, p), 0);
}

static void rm_tree(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	assert_int_equal(system(cmd), 0);
}

static void t_version(struct p9_server *s, uint32_t msize)
{
	struct msg m;

	m_start(&m, P9_TVERSION);
	m_put(&m, msize, 4);
	m_str(&m, "9P2000.L");
	assert_int_equal(rpc(s, &m), P9_TVERSION + 1);
}

static void t_attach(struct p9_server *s, uint32_t fid)
{
	struct msg m;

	m_start(&m, P9_TATTACH);
	m_put(&m, fid, 4);
	m_put(&m, P9_NOFID, 4);
	m_str(&m, "root");
	m_str(&m, "");
	m_put(&m, 0, 4);
	assert_int_equal(rpc(s, &m), P9_TATTACH + 1);
}

/* Walk fid to newfid by the names (NULL-terminated); errno or 0. */
static int t_walk(struct p9_server *s, uint32_t fid, uint32_t newfid,
		  const char *const *names)
{
	struct msg m;
	unsigned int n = 0;
	int err;

	while (names[n])
		n++;
	m_start(&m, P9_TWALK);
	m_put(&m, fid, 4);
	m_put(&m, newfid, 4);
	m_put(&m, n, 2);
	for (unsigned int i = 0; i < n; i++)
		m_str(&m, names[i]);
	err = rpc_err(s, &m);
	if (!err && r_get(7, 2) != n)
		return -1; /* partial walk */
	return err;
}

static int t_lopen(struct p9_server *s, uint32_t fid, uint32_t flags)
{
	struct msg m;

	m_start(&m, P9_TLOPEN);
	m_put(&m, fid, 4);
	m_put(&m, flags, 4);
	return rpc_err(s, &m);
}

static int t_clunk(struct p9_server *s, uint32_t fid)
{
	struct msg m;

	m_start(&m, P9_TCLUNK);
	m_put(&m, fid, 4);
	return rpc_err(s, &m);
}

static void server_up(struct p9_server *s)
{
	setup_tree();
	assert_int_equal(p9_server_init(s, share), 0);
	t_version(s, 65536);
	t_attach(s, 1);
}

static void server_down(struct p9_server *s)
{
	p9_server_destroy(s);
	rm_tree();
}

/* --- the decoder --------------------------------------------------------- */

static void test_decode_bounds(void **state)
{
	struct p9_req r;
	struct msg m;

	(void)state;
	assert_int_equal(p9_decode((const uint8_t *)"\x07\0\0", 3, &r),
			 -EBADMSG);
	assert_int_equal(r.tag, P9_NOTAG);
	m_start(&m, P9_TCLUNK);
	m_put(&m, 5, 4);
	m_end(&m);
	assert_int_equal(p9_decode(m.b, m.n, &r), 0);
	assert_int_equal(r.fid, 5);
	/* size beyond the bytes given, below the header, trailing bytes */
	assert_int_equal(p9_decode(m.b, m.n - 1, &r), -EBADMSG);
	assert_int_equal(r.tag, 0x1234);
	m.b[0] = 6;
	assert_int_equal(p9_decode(m.b, m.n, &r), -EBADMSG);
	m_start(&m, P9_TCLUNK);
	m_put(&m, 5, 4);
	m_put(&m, 0, 1);
	m_end(&m);
	assert_int_equal(p9_decode(m.b, m.n, &r), -EBADMSG);
	/* unknown type */
	m_start(&m, 99);
	m_end(&m);
	assert_int_equal(p9_decode(m.b, m.n, &r), -EOPNOTSUPP);
}

static void test_decode_strings(void **state)
{
	struct p9_req r;
	struct msg m;

	(void)state;
	/* string length past the end */
	m_start(&m, P9_TVERSION);
	m_put(&m, 8192, 4);
	m_put(&m, 200, 2);
	m_end(&m);
	assert_int_equal(p9_decode(m.b, m.n, &r), -EBADMSG);
	/* NUL inside a name */
	m_start(&m, P9_TWALK);
	m_put(&m, 1, 4);
	m_put(&m, 2, 4);
	m_put(&m, 1, 2);
	m_put(&m, 3, 2);
	m_put(&m, 'a', 1);
	m_put(&m, 0, 1);
	m_put(&m, 'b', 1);
	m_end(&m);
	assert_int_equal(p9_decode(m.b, m.n, &r), -EBADMSG);
	/* more than 16 walk names */
	m_start(&m, P9_TWALK);
	m_put(&m, 1, 4);
	m_put(&m, 2, 4);
	m_put(&m, 17, 2);
	for (int i = 0; i < 17; i++)
		m_str(&m, "x");
	m_end(&m);
	assert_int_equal(p9_decode(m.b, m.n, &r), -EBADMSG);
	/* Twrite count beyond the message */
	m_start(&m, P9_TWRITE);
	m_put(&m, 1, 4);
	m_put(&m, 0, 8);
	m_put(&m, 100, 4);
	m_put(&m, 0, 8);
	m_end(&m);
	assert_int_equal(p9_decode(m.b, m.n, &r), -EBADMSG);
}

/* --- the server ---------------------------------------------------------- */

static void test_version_msize(void **state)
{
	struct p9_server s;
	struct msg m;

	(void)state;
	setup_tree();
	assert_int_equal(p9_server_init(&s, share), 0);
	t_version(&s, 16u << 20);
	assert_int_equal(r_get(7, 4), P9_MSIZE_MAX);
	t_version(&s, 8192);
	assert_int_equal(r_get(7, 4), 8192);
	m_start(&m, P9_TVERSION);
	m_put(&m, 8192, 4);
	m_str(&m, "9P2000.u");
	assert_int_equal(rpc(&s, &m), P9_TVERSION + 1);
	assert_memory_equal(resp + 13, "unknown", 7);
	m_start(&m, P9_TVERSION);
	m_put(&m, 100, 4);
	m_str(&m, "9P2000.L");
	assert_int_equal(rpc_err(&s, &m), EINVAL);
	/* a malformed message is EBADMSG, an unknown one EOPNOTSUPP */
	m_start(&m, P9_TCLUNK);
	assert_int_equal(rpc_err(&s, &m), EBADMSG);
	m_start(&m, 99);
	assert_int_equal(rpc_err(&s, &m), EOPNOTSUPP);
	/* no room for a reply */
	m_start(&m, P9_TCLUNK);
	m_put(&m, 1, 4);
	assert_int_equal(p9_server_handle(&s, m.b, m_end(&m), resp, 10), 0);
	server_down(&s);
}

static void test_read_write_readdir(void **state)
{
	static const char *const hello[] = { "hello.txt", NULL };
	static const char *const none[] = { NULL };
	struct p9_server s;
	struct msg m;
	char p[400], buf[64] = "";
	FILE *f;

	(void)state;
	server_up(&s);
	assert_int_equal(t_walk(&s, 1, 2, hello), 0);
	assert_int_equal(t_lopen(&s, 2, O_RDWR), 0);
	m_start(&m, P9_TREAD);
	m_put(&m, 2, 4);
	m_put(&m, 0, 8);
	m_put(&m, 100000, 4); /* clamped to what fits */
	assert_int_equal(rpc(&s, &m), P9_TREAD + 1);
	assert_int_equal(r_get(7, 4), 8);
	assert_memory_equal(resp + 11, "hello 9p", 8);
	m_start(&m, P9_TWRITE);
	m_put(&m, 2, 4);
	m_put(&m, 6, 8);
	m_put(&m, 5, 4);
	memcpy(m.b + m.n, "world", 5);
	m.n += 5;
	assert_int_equal(rpc(&s, &m), P9_TWRITE + 1);
	assert_int_equal(r_get(7, 4), 5);
	m_start(&m, P9_TFSYNC);
	m_put(&m, 2, 4);
	m_put(&m, 0, 4);
	assert_int_equal(rpc_err(&s, &m), 0);
	snprintf(p, sizeof(p), "%s/hello.txt", share);
	f = fopen(p, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "hello world");
	/* getattr: size */
	m_start(&m, P9_TGETATTR);
	m_put(&m, 2, 4);
	m_put(&m, P9_GETATTR_BASIC, 8);
	assert_int_equal(rpc(&s, &m), P9_TGETATTR + 1);
	assert_int_equal(r_get(7 + 8 + 13 + 4 + 4 + 4 + 8 + 8, 8), 11);
	assert_int_equal(t_clunk(&s, 2), 0);
	assert_int_equal(t_clunk(&s, 2), EBADF);
	/* readdir of the root lists hello.txt */
	assert_int_equal(t_walk(&s, 1, 3, none), 0);
	assert_int_equal(t_lopen(&s, 3, O_RDONLY | O_DIRECTORY), 0);
	m_start(&m, P9_TREADDIR);
	m_put(&m, 3, 4);
	m_put(&m, 0, 8);
	m_put(&m, 4096, 4);
	assert_int_equal(rpc(&s, &m), P9_TREADDIR + 1);
	assert_true(r_get(7, 4) > 0);
	assert_non_null(memmem(resp + 11, r_get(7, 4), "hello.txt", 9));
	/* reading a fid that is not open */
	m_start(&m, P9_TREAD);
	m_put(&m, 1, 4);
	m_put(&m, 0, 8);
	m_put(&m, 10, 4);
	assert_int_equal(rpc_err(&s, &m), EBADF);
	server_down(&s);
}

/* Tsetattr of what valid names among mode, uid, gid and size (no times). */
static int t_setattr_size(struct p9_server *s, uint32_t fid, uint32_t valid,
			  uint32_t mode, uint32_t uid, uint32_t gid,
			  uint64_t size)
{
	struct msg m;

	m_start(&m, P9_TSETATTR);
	m_put(&m, fid, 4);
	m_put(&m, valid, 4);
	m_put(&m, mode, 4);
	m_put(&m, uid, 4);
	m_put(&m, gid, 4);
	m_put(&m, size, 8);
	m_put(&m, 0, 32);
	return rpc_err(s, &m);
}

static int t_setattr(struct p9_server *s, uint32_t fid, uint32_t valid,
		     uint32_t mode, uint32_t uid, uint32_t gid)
{
	return t_setattr_size(s, fid, valid, mode, uid, gid, 0);
}

static void test_create_rename_unlink(void **state)
{
	static const char *const none[] = { NULL };
	struct p9_server s;
	struct msg m;
	char p[400];
	struct stat st;

	(void)state;
	server_up(&s);
	assert_int_equal(t_walk(&s, 1, 2, none), 0);
	m_start(&m, P9_TLCREATE);
	m_put(&m, 2, 4);
	m_str(&m, "new.txt");
	m_put(&m, O_RDWR, 4);
	m_put(&m, 0640, 4);
	m_put(&m, 0, 4);
	assert_int_equal(rpc(&s, &m), P9_TLCREATE + 1);
	m_start(&m, P9_TMKDIR);
	m_put(&m, 1, 4);
	m_str(&m, "dir");
	m_put(&m, 0755, 4);
	m_put(&m, 0, 4);
	assert_int_equal(rpc(&s, &m), P9_TMKDIR + 1);
	assert_int_equal(resp[7], P9_QTDIR);
	/* rename new.txt into dir; fid 2 follows it */
	m_start(&m, P9_TRENAMEAT);
	m_put(&m, 1, 4);
	m_str(&m, "new.txt");
	m_put(&m, 1, 4);
	m_str(&m, "moved.txt");
	assert_int_equal(rpc_err(&s, &m), 0);
	snprintf(p, sizeof(p), "%s/moved.txt", share);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(t_setattr_size(&s, 2,
					P9_SETATTR_MODE | P9_SETATTR_SIZE, 0600,
					0, 0, 42),
			 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_size, 42);
	/* times as given (touch -d), on the file, not through a link */
	m_start(&m, P9_TSETATTR);
	m_put(&m, 2, 4);
	m_put(&m,
	      P9_SETATTR_ATIME | P9_SETATTR_MTIME | P9_SETATTR_ATIME_SET |
		      P9_SETATTR_MTIME_SET,
	      4);
	m_put(&m, 0, 12);
	m_put(&m, 0, 8);
	m_put(&m, 1000000, 8);
	m_put(&m, 5, 8);
	m_put(&m, 2000000, 8);
	m_put(&m, 7, 8);
	assert_int_equal(rpc_err(&s, &m), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_atim.tv_sec, 1000000);
	assert_int_equal(st.st_mtim.tv_sec, 2000000);
	assert_int_equal(st.st_mtim.tv_nsec, 7);
	/* symlink + readlink */
	m_start(&m, P9_TSYMLINK);
	m_put(&m, 1, 4);
	m_str(&m, "link");
	m_str(&m, "/etc/passwd");
	m_put(&m, 0, 4);
	assert_int_equal(rpc(&s, &m), P9_TSYMLINK + 1);
	assert_int_equal(resp[7], P9_QTSYMLINK);
	assert_int_equal(
		t_walk(&s, 1, 4, (const char *const[]){ "link", NULL }), 0);
	m_start(&m, P9_TREADLINK);
	m_put(&m, 4, 4);
	assert_int_equal(rpc(&s, &m), P9_TREADLINK + 1);
	assert_int_equal(r_get(7, 2), 11);
	assert_memory_equal(resp + 9, "/etc/passwd", 11);
	/* the server never follows it: opening the link fails */
	assert_int_equal(t_lopen(&s, 4, O_RDONLY), ELOOP);
	/* unlink file and directory */
	m_start(&m, P9_TUNLINKAT);
	m_put(&m, 1, 4);
	m_str(&m, "moved.txt");
	m_put(&m, 0, 4);
	assert_int_equal(rpc_err(&s, &m), 0);
	m_start(&m, P9_TUNLINKAT);
	m_put(&m, 1, 4);
	m_str(&m, "dir");
	m_put(&m, AT_REMOVEDIR, 4);
	assert_int_equal(rpc_err(&s, &m), 0);
	assert_int_equal(stat(p, &st), -1);
	m_start(&m, P9_TSTATFS);
	m_put(&m, 1, 4);
	assert_int_equal(rpc(&s, &m), P9_TSTATFS + 1);
	m_start(&m, P9_TXATTRWALK);
	m_put(&m, 1, 4);
	m_put(&m, 9, 4);
	m_str(&m, "security.selinux");
	assert_int_equal(rpc_err(&s, &m), EOPNOTSUPP);
	server_down(&s);
}

/* --- confinement --------------------------------------------------------- */

static void test_dotdot_stays_inside(void **state)
{
	static const char *const up[] = { "..", "..", NULL };
	static const char *const out[] = { "..", "outside.txt", NULL };
	static const char *const sub_up[] = { "sub", "..", "..", "hello.txt",
					      NULL };
	struct p9_server s;
	struct msg m;
	uint64_t root_qid;

	(void)state;
	server_up(&s);
	m_start(&m, P9_TGETATTR);
	m_put(&m, 1, 4);
	m_put(&m, P9_GETATTR_BASIC, 8);
	assert_int_equal(rpc(&s, &m), P9_TGETATTR + 1);
	root_qid = r_get(15 + 5, 8);
	/* ".." at the root stays at the root */
	assert_int_equal(t_walk(&s, 1, 2, up), 0);
	m_start(&m, P9_TGETATTR);
	m_put(&m, 2, 4);
	m_put(&m, P9_GETATTR_BASIC, 8);
	assert_int_equal(rpc(&s, &m), P9_TGETATTR + 1);
	assert_int_equal(r_get(15 + 5, 8), root_qid);
	assert_int_equal(t_walk(&s, 1, 3, out), -1); /* partial: no fid */
	assert_int_equal(t_clunk(&s, 3), EBADF);
	assert_int_equal(t_walk(&s, 1, 3, sub_up), 0);
	/* names with '/' or "." / ".." where one name is wanted */
	assert_int_equal(
		t_walk(&s, 1, 4,
		       (const char *const[]){ "../outside.txt", NULL }),
		EINVAL);
	m_start(&m, P9_TLCREATE);
	m_put(&m, 2, 4);
	m_str(&m, "..");
	m_put(&m, O_RDWR, 4);
	m_put(&m, 0644, 4);
	m_put(&m, 0, 4);
	assert_int_equal(rpc_err(&s, &m), EINVAL);
	m_start(&m, P9_TRENAMEAT);
	m_put(&m, 1, 4);
	m_str(&m, "hello.txt");
	m_put(&m, 1, 4);
	m_str(&m, "../stolen.txt");
	assert_int_equal(rpc_err(&s, &m), EINVAL);
	m_start(&m, P9_TUNLINKAT);
	m_put(&m, 1, 4);
	m_str(&m, "..");
	m_put(&m, AT_REMOVEDIR, 4);
	assert_int_equal(rpc_err(&s, &m), EINVAL);
	server_down(&s);
}

/* Walking through a symlink is refused, wherever it points. */
static void test_symlinks_not_followed(void **state)
{
	static const char *const links[][3] = {
		{ "abs", "outside.txt", NULL }, /* absolute, to base */
		{ "rel", "outside.txt", NULL }, /* relative "..": escapes */
		{ "sub", "up", NULL },		/* ok: the link itself */
		{ "fd", "3", NULL },		/* /proc/self/fd */
	};
	struct p9_server s;
	struct msg m;

	(void)state;
	server_up(&s);
	assert_int_not_equal(t_walk(&s, 1, 2, links[0]), 0);
	assert_int_not_equal(t_walk(&s, 1, 2, links[1]), 0);
	assert_int_equal(t_walk(&s, 1, 2, links[2]), 0);
	assert_int_equal(
		t_walk(&s, 2, 3, (const char *const[]){ "outside.txt", NULL }),
		ELOOP);
	assert_int_not_equal(t_walk(&s, 1, 4, links[3]), 0);
	/* an absolute link to a file: the fid is the link, opening fails */
	assert_int_equal(
		t_walk(&s, 1, 5, (const char *const[]){ "absfile", NULL }), 0);
	assert_int_equal(t_lopen(&s, 5, O_RDONLY), ELOOP);
	/* truncating through it fails too */
	assert_int_equal(t_setattr_size(&s, 5, P9_SETATTR_SIZE, 0, 0, 0, 0),
			 ELOOP);
	/* creating in a "directory" that is a link to outside fails */
	assert_int_equal(t_walk(&s, 1, 6, (const char *const[]){ "abs", NULL }),
			 0);
	m_start(&m, P9_TLCREATE);
	m_put(&m, 6, 4);
	m_str(&m, "planted.txt");
	m_put(&m, O_RDWR, 4);
	m_put(&m, 0644, 4);
	m_put(&m, 0, 4);
	assert_int_not_equal(rpc_err(&s, &m), 0);
	m_start(&m, P9_TMKDIR);
	m_put(&m, 6, 4);
	m_str(&m, "planted");
	m_put(&m, 0755, 4);
	m_put(&m, 0, 4);
	assert_int_not_equal(rpc_err(&s, &m), 0);
	{
		char p[400];
		struct stat st;

		snprintf(p, sizeof(p), "%s/planted.txt", base);
		assert_int_equal(stat(p, &st), -1);
		snprintf(p, sizeof(p), "%s/planted", base);
		assert_int_equal(stat(p, &st), -1);
	}
	server_down(&s);
}

static void test_fid_bounds(void **state)
{
	static const char *const none[] = { NULL };
	struct p9_server s;
	unsigned int i;

	(void)state;
	server_up(&s);
	for (i = 2; i < P9_MAX_FIDS + 1; i++)
		assert_int_equal(t_walk(&s, 1, i, none), 0);
	assert_int_equal(t_walk(&s, 1, i, none), EBADF); /* table full */
	assert_int_equal(t_walk(&s, 1, 2, none), EBADF); /* in use */
	assert_int_equal(t_clunk(&s, 7), 0);
	assert_int_equal(t_walk(&s, 1, i, none), 0);
	p9_server_reset(&s);
	assert_int_equal(t_clunk(&s, 1), EBADF);
	server_down(&s);
}

/* A read-only share answers changes with EROFS, reads work. */
static void test_read_only(void **state)
{
	static const char *const hello[] = { "hello.txt", NULL };
	struct p9_server s;
	struct msg m;
	char p[400];
	struct stat st;

	(void)state;
	server_up(&s);
	s.ro = true;
	assert_int_equal(t_walk(&s, 1, 2, hello), 0);
	assert_int_equal(t_lopen(&s, 2, O_RDWR), EROFS);
	assert_int_equal(t_lopen(&s, 2, O_RDONLY | 01000), EROFS); /* TRUNC */
	assert_int_equal(t_lopen(&s, 2, O_RDONLY), 0);
	m_start(&m, P9_TREAD);
	m_put(&m, 2, 4);
	m_put(&m, 0, 8);
	m_put(&m, 5, 4);
	assert_int_equal(rpc(&s, &m), P9_TREAD + 1);
	m_start(&m, P9_TWRITE);
	m_put(&m, 2, 4);
	m_put(&m, 0, 8);
	m_put(&m, 1, 4);
	m_put(&m, 'x', 1);
	assert_int_equal(rpc_err(&s, &m), EROFS);
	m_start(&m, P9_TUNLINKAT);
	m_put(&m, 1, 4);
	m_str(&m, "hello.txt");
	m_put(&m, 0, 4);
	assert_int_equal(rpc_err(&s, &m), EROFS);
	m_start(&m, P9_TMKDIR);
	m_put(&m, 1, 4);
	m_str(&m, "d");
	m_put(&m, 0755, 4);
	m_put(&m, 0, 4);
	assert_int_equal(rpc_err(&s, &m), EROFS);
	snprintf(p, sizeof(p), "%s/hello.txt", share);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 8);
	server_down(&s);
}

/* A FIFO (or device) in the share: refused, never opened (it would block). */
static void test_fifo_not_opened(void **state)
{
	struct p9_server s;
	struct msg m;
	char p[400];

	(void)state;
	server_up(&s);
	snprintf(p, sizeof(p), "%s/fifo", share);
	assert_int_equal(mkfifo(p, 0644), 0);
	alarm(10); /* the old server blocked here for good */
	assert_int_equal(
		t_walk(&s, 1, 2, (const char *const[]){ "fifo", NULL }), 0);
	assert_int_equal(t_lopen(&s, 2, O_RDONLY), EPERM);
	assert_int_equal(t_lopen(&s, 2, O_WRONLY), EPERM);
	/* truncating it opens it O_WRONLY */
	assert_int_equal(t_setattr_size(&s, 2, P9_SETATTR_SIZE, 0, 0, 0, 0),
			 EPERM);
	m_start(&m, P9_TLCREATE); /* an existing FIFO is not created again */
	m_put(&m, 1, 4);
	m_str(&m, "fifo");
	m_put(&m, O_RDONLY, 4);
	m_put(&m, 0644, 4);
	m_put(&m, 0, 4);
	assert_int_equal(rpc_err(&s, &m), EPERM);
	alarm(0);
	/* regular files still open, and without O_NONBLOCK */
	assert_int_equal(
		t_walk(&s, 1, 3, (const char *const[]){ "hello.txt", NULL }),
		0);
	assert_int_equal(t_lopen(&s, 3, O_RDONLY), 0);
	server_down(&s);
}

static mode_t share_mode(const char *name)
{
	char p[400];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", share, name);
	assert_int_equal(lstat(p, &st), 0);
	return st.st_mode & 07777;
}

/* No mode a guest sets keeps set-user-ID or set-group-ID; sticky stays. */
static void test_no_set_id_bits(void **state)
{
	static const char *const none[] = { NULL };
	struct p9_server s;
	struct msg m;

	(void)state;
	server_up(&s);
	assert_int_equal(t_walk(&s, 1, 2, none), 0);
	m_start(&m, P9_TLCREATE);
	m_put(&m, 2, 4);
	m_str(&m, "suid");
	m_put(&m, O_RDWR, 4);
	m_put(&m, 04755, 4);
	m_put(&m, 0, 4);
	assert_int_equal(rpc(&s, &m), P9_TLCREATE + 1);
	assert_int_equal(share_mode("suid"), 0755);
	m_start(&m, P9_TMKDIR);
	m_put(&m, 1, 4);
	m_str(&m, "sgid-dir");
	m_put(&m, 03775, 4);
	m_put(&m, 0, 4);
	assert_int_equal(rpc(&s, &m), P9_TMKDIR + 1);
	assert_int_equal(share_mode("sgid-dir") & 07000, 01000);
	m_start(&m, P9_TMKNOD);
	m_put(&m, 1, 4);
	m_str(&m, "node");
	m_put(&m, S_IFREG | 06755, 4);
	m_put(&m, 0, 12);
	assert_int_equal(rpc(&s, &m), P9_TMKNOD + 1);
	assert_int_equal(share_mode("node"), 0755);
	assert_int_equal(t_setattr(&s, 2, P9_SETATTR_MODE, 06755, 0, 0), 0);
	assert_int_equal(share_mode("suid"), 0755);
	assert_int_equal(t_setattr(&s, 2, P9_SETATTR_MODE, 01700, 0, 0), 0);
	assert_int_equal(share_mode("suid"), 01700);
	server_down(&s);
}

/* Owner changes grant nothing, whoever runs the server (root here in CI). */
static void test_owner_changes(void **state)
{
	static const char *const hello[] = { "hello.txt", NULL };
	struct p9_server s;
	char p[400];
	struct stat st;
	uid_t other_gid = getegid() == 27 ? 28 : 27;

	(void)state;
	server_up(&s);
	snprintf(p, sizeof(p), "%s/hello.txt", share);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(t_walk(&s, 1, 2, hello), 0);
	assert_int_equal(t_setattr(&s, 2, P9_SETATTR_UID, 0, st.st_uid + 1, 0),
			 EPERM);
	assert_int_equal(t_setattr(&s, 2, P9_SETATTR_GID, 0, 0, other_gid),
			 EPERM);
	assert_int_equal(t_setattr(&s, 2, P9_SETATTR_UID | P9_SETATTR_GID, 0,
				   st.st_uid, getegid()),
			 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_gid, getegid());
	assert_int_equal(st.st_uid, geteuid());
	server_down(&s);
}

/* A share of / does not serve /proc or /sys; a share of /proc does. */
static void test_pseudo_fs_refused(void **state)
{
	static const char *const environ_[] = { "proc", "self", "environ",
						NULL };
	static const char *const sys[] = { "sys", "kernel", NULL };
	static const char *const meminfo[] = { "meminfo", NULL };
	struct p9_server s;

	(void)state;
	assert_int_equal(p9_server_init(&s, "/"), 0);
	s.ro = true;
	t_version(&s, 65536);
	t_attach(&s, 1);
	assert_int_equal(t_walk(&s, 1, 2, environ_), EACCES);
	assert_int_equal(t_walk(&s, 1, 2, sys), EACCES);
	assert_int_equal(t_walk(&s, 1, 2, (const char *const[]){ "etc", NULL }),
			 0);
	p9_server_destroy(&s);
	assert_int_equal(p9_server_init(&s, "/proc"), 0);
	t_version(&s, 65536);
	t_attach(&s, 1);
	assert_int_equal(t_walk(&s, 1, 2, meminfo), 0);
	assert_int_equal(t_lopen(&s, 2, O_RDONLY), 0);
	p9_server_destroy(&s);
}

/* Open fids hold descriptors within the process-wide budget. */
static void test_fd_budget(void **state)
{
	static const char *const hello[] = { "hello.txt", NULL };
	struct p9_server s, t;

	(void)state;
	server_up(&s);
	assert_int_equal(p9_server_init(&t, share), 0);
	t_version(&t, 65536);
	t_attach(&t, 1);
	p9_set_fd_budget(3);
	for (uint32_t fid = 2; fid < 6; fid++) {
		assert_int_equal(t_walk(&s, 1, fid, hello), 0);
		assert_int_equal(t_walk(&t, 1, fid, hello), 0);
	}
	assert_int_equal(t_lopen(&s, 2, O_RDONLY), 0);
	assert_int_equal(t_lopen(&s, 3, O_RDONLY), 0);
	assert_int_equal(t_lopen(&t, 2, O_RDONLY), 0);
	assert_int_equal(t_lopen(&t, 3, O_RDONLY), EMFILE); /* both count */
	assert_int_equal(t_lopen(&s, 4, O_RDONLY), EMFILE);
	assert_int_equal(t_clunk(&s, 2), 0);
	assert_int_equal(t_lopen(&t, 3, O_RDONLY), 0);
	p9_server_destroy(&t); /* gives its two back */
	assert_int_equal(t_lopen(&s, 4, O_RDONLY), 0);
	assert_int_equal(t_lopen(&s, 5, O_RDONLY), 0);
	p9_set_fd_budget(P9_MAX_FIDS);
	server_down(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_bounds),
		cmocka_unit_test(test_decode_strings),
		cmocka_unit_test(test_version_msize),
		cmocka_unit_test(test_read_write_readdir),
		cmocka_unit_test(test_create_rename_unlink),
		cmocka_unit_test(test_dotdot_stays_inside),
		cmocka_unit_test(test_symlinks_not_followed),
		cmocka_unit_test(test_fid_bounds),
		cmocka_unit_test(test_read_only),
		cmocka_unit_test(test_fifo_not_opened),
		cmocka_unit_test(test_no_set_id_bits),
		cmocka_unit_test(test_owner_changes),
		cmocka_unit_test(test_pseudo_fs_refused),
		cmocka_unit_test(test_fd_budget),
	};

	return cmocka_run_group_tests_name("9p", tests, NULL, NULL);
}
