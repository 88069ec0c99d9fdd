// SPDX-License-Identifier: GPL-2.0
/* lkvm setup and the host side of lkvm sandbox; see sandbox.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/sandbox/sandbox.h"

static const char *const root_dirs[] = {
	"dev", "etc", "home", "host",	 "proc", "root",
	"sys", "tmp", "var",  "var/lib", "virt", "virt/home",
};

static const char *const root_links[] = {
	"bin", "lib", "lib64", "sbin", "usr", "etc/ld.so.conf",
};

bool sandbox_name_ok(const char *name)
{
	return name[0] && name[0] != '-' && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..") && strlen(name) < 256;
}

int sandbox_root_path(const char *name, char *buf, size_t size)
{
	const char *home = getenv("HOME");
	int n;

	if (!home || !home[0])
		return -ENOENT;
	n = snprintf(buf, size, "%s/.lkvm/%s", home, name);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* root + "/" + rel into buf (PATH_MAX). */
static int root_join(char *buf, const char *root, const char *rel)
{
	int n = snprintf(buf, PATH_MAX, "%s/%s", root, rel);

	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

/*
 * The guest writes its root (a 9p share): a directory in it may be a link
 * anywhere on the host by now.  rel, a directory below the root dir, as
 * an O_PATH descriptor reached without following any link; or -errno.
 */
static int dir_at(int dfd, const char *rel)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, dfd, rel, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

static int dir_beneath(const char *root, const char *rel)
{
	int rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC), fd;

	if (rfd < 0)
		return -errno;
	fd = dir_at(rfd, rel);
	close(rfd);
	return fd;
}

/* Copy from into a new file name in dfd (not replacing one); 0 or -errno. */
static int copy_new_at(const char *from, int dfd, const char *to, mode_t mode)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, ret = 0;
	char buf[65536];
	ssize_t n;

	if (in < 0)
		return -errno;
	out = openat(dfd, to,
		     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		     mode);
	if (out < 0) {
		ret = -errno;
		close(in);
		return ret;
	}
	while (!ret && (n = read(in, buf, sizeof(buf))) != 0)
		if (n < 0 || write(out, buf, n) != n)
			ret = n < 0 ? -errno : -EIO;
	if (!ret && fsync(out))
		ret = -errno;
	close(in);
	close(out);
	if (ret)
		unlinkat(dfd, to, 0);
	return ret;
}

static int write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	ssize_t len = strlen(text);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != len || fsync(fd))
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}

/* The directories, links and passwd of a new root (its init apart). */
static int setup_tree(const char *root)
{
	char path[PATH_MAX], target[PATH_MAX];
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < sizeof(root_dirs) / sizeof(*root_dirs); i++)
		ret = root_join(path, root, root_dirs[i]) ?:
			      (mkdir(path, 0755) && errno != EEXIST ? -errno :
								      0);
	for (i = 0; !ret && i < sizeof(root_links) / sizeof(*root_links); i++) {
		snprintf(target, sizeof(target), "/host/%s", root_links[i]);
		ret = root_join(path, root, root_links[i]) ?:
			      (symlink(target, path) && errno != EEXIST ?
				       -errno :
				       0);
	}
	if (!ret)
		ret = root_join(path, root, "etc/passwd") ?:
							    write_file(path,
								       "root:x:0:0:root:/root:/bin/sh\n",
								       0644);
	return ret;
}

/* lkvm as the root's /virt/init, unless it has one. */
static int setup_init(const char *root, const char *self)
{
	const char *base = strrchr(SANDBOX_INIT, '/') + 1;
	int dfd = dir_beneath(root, "virt"), ret;

	if (dfd < 0)
		return dfd;
	ret = !faccessat(dfd, base, X_OK, AT_SYMLINK_NOFOLLOW) ?
		      0 :
		      copy_new_at(self, dfd, base, 0755);
	close(dfd);
	return ret;
}

static int setup_at(const char *name, const char *root, const char *self)
{
	char dir[PATH_MAX];
	int ret;

	snprintf(dir, sizeof(dir), "%s", root);
	*strrchr(dir, '/') = '\0';
	if (mkdir(dir, 0755) && errno != EEXIST)
		ret = -errno;
	else if (mkdir(root, 0755))
		ret = -errno;
	else
		ret = setup_tree(root) ?: setup_init(root, self);
	if (ret)
		pr_err("cannot make the guest root '%s' in %s: %s", name, root,
		       strerror(-ret));
	return ret;
}

int sandbox_setup(const char *name, FILE *out)
{
	char root[PATH_MAX];
	int ret = sandbox_root_path(name, root, sizeof(root));

	if (ret) {
		pr_err("no place for ~/.lkvm/%s: %s", name,
		       ret == -ENOENT ? "HOME is not set" : strerror(-ret));
		return ret;
	}
	ret = setup_at(name, root, "/proc/self/exe");
	if (!ret && out)
		fprintf(out,
			"A new guest root '%s' is in %s.\n"
			"Boot it with: lkvm run -k IMAGE -d %s\n"
			"or run a command in it: lkvm sandbox -k IMAGE -d %s -- COMMAND\n",
			name, root, name, name);
	return ret;
}

/* --- sandbox runs -------------------------------------------------------- */

static const char *root_share(const struct vm_config *cfg)
{
	for (unsigned int i = 0; i < cfg->nr_shares; i++)
		if (!strcmp(cfg->shares[i].tag, SANDBOX_ROOT_TAG))
			return cfg->shares[i].path;
	return NULL;
}

/* The run directory's name, in the root's /virt. */
static void run_name(const struct vm_config *cfg, char *buf, size_t size)
{
	snprintf(buf, size, "%s%ld", strrchr(SANDBOX_RUN_DIR, '/') + 1,
		 cfg->pid);
}

/* Append word to the script, single-quoted ('"'"' for a quote). */
static void put_word(FILE *f, const char *w)
{
	fputc('\'', f);
	for (; *w; w++)
		if (*w == '\'')
			fputs("'\"'\"'", f);
		else
			fputc(*w, f);
	fputc('\'', f);
}

/* A host file as the guest sees it, under /host. */
static bool host_path(const char *p, char *buf)
{
	struct stat st;
	char real[PATH_MAX];

	if (stat(p, &st) || !S_ISREG(st.st_mode) || !realpath(p, real))
		return false;
	snprintf(buf, PATH_MAX + 8, "/host%s", real);
	return true;
}

static int write_cmd(const struct vm_config *cfg, int dfd)
{
	char prog[PATH_MAX + 8];
	int fd = openat(dfd, "cmd.sh",
			O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0644);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	int ret = 0;

	if (!f) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		return ret;
	}
	fputs("# lkvm sandbox: the command, run by the guest's /virt/init\n",
	      f);
	if (cfg->sandbox_script) {
		if (!host_path(cfg->sandbox_script, prog))
			ret = -ENOENT;
		fputs("/bin/sh ", f);
		put_word(f, prog);
	} else {
		for (char **a = cfg->sandbox_argv; *a; a++) {
			if (a != cfg->sandbox_argv)
				fputc(' ', f);
			put_word(f,
				 a == cfg->sandbox_argv && host_path(*a, prog) ?
					 prog :
					 *a);
		}
	}
	fputc('\n', f);
	if (fflush(f) || fsync(fileno(f)))
		ret = ret ?: -errno;
	fclose(f);
	return ret;
}

static int prepare_run(const struct vm_config *cfg)
{
	char name[64];
	int vfd = dir_beneath(root_share(cfg), "virt"), dfd, ret;

	if (vfd < 0)
		return vfd;
	run_name(cfg, name, sizeof(name));
	if (mkdirat(vfd, name, 0755)) {
		ret = -errno;
		close(vfd);
		return ret;
	}
	dfd = dir_at(vfd, name);
	close(vfd);
	if (dfd < 0)
		return dfd;
	ret = write_cmd(cfg, dfd);
	close(dfd);
	if (ret == -ENOENT)
		pr_err("sandbox script '%s' is not a file",
		       cfg->sandbox_script);
	return ret;
}

int sandbox_prepare(const struct vm_config *cfg, const char *self)
{
	const char *root = root_share(cfg);
	struct stat st;
	int ret = 0, fd;

	if (!cfg->custom_rootfs || !root)
		return 0;
	if (stat(root, &st) && !strcmp(cfg->rootfs_name, SANDBOX_DEFAULT_ROOT))
		ret = setup_at(cfg->rootfs_name, root, self);
	ret = ret ?: setup_init(root, self);
	if (ret) {
		pr_err("cannot put lkvm's guest init in %s: %s", root,
		       strerror(-ret));
		return ret;
	}
	fd = dir_beneath(root, "etc");
	if (fd >= 0) {
		unlinkat(fd, "resolv.conf", 0);
		copy_new_at("/etc/resolv.conf", fd, "resolv.conf", 0644);
		close(fd);
	}
	if (!cfg->sandbox)
		return 0;
	ret = prepare_run(cfg);
	if (ret && ret != -ENOENT)
		pr_err("cannot write the sandbox command in %s: %s", root,
		       strerror(-ret));
	return ret;
}

/* The guest wrote it: a regular file (no link, no FIFO), one number. */
static int read_status(int dfd)
{
	char buf[16] = "";
	char *end;
	int fd = openat(dfd, "status",
			O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	ssize_t n;
	long v;

	if (fd < 0)
		return -1;
	n = fstat(fd, &st) || !S_ISREG(st.st_mode) ?
		    -1 :
		    read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	v = strtol(buf, &end, 10);
	return end != buf && *end == '\n' && v >= 0 && v <= 255 ? (int)v : -1;
}

int sandbox_finish_run(const struct vm_config *cfg)
{
	char name[64];
	int status = -1, vfd, dfd;

	run_name(cfg, name, sizeof(name));
	/* Nothing through a link the guest made: names in these dirs only. */
	vfd = dir_beneath(root_share(cfg), "virt");
	dfd = vfd < 0 ? -1 : dir_at(vfd, name);
	if (dfd >= 0) {
		status = read_status(dfd);
		unlinkat(dfd, "status", 0);
		unlinkat(dfd, "cmd.sh", 0);
		unlinkat(dfd, "started", 0);
		close(dfd);
		unlinkat(vfd, name, AT_REMOVEDIR);
	}
	if (vfd >= 0)
		close(vfd);
	if (status < 0) {
		pr_err("sandbox: the guest reported no exit status");
		return SANDBOX_EXIT_NO_STATUS;
	}
	return status;
}
