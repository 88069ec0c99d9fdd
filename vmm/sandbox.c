// SPDX-License-Identifier: GPL-2.0
/* lkvm setup and the host side of lkvm sandbox; see sandbox.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "sandbox.h"

static const char *const root_dirs[] = {
	"dev", "etc", "home", "host",	 "proc", "root",
	"sys", "tmp", "var",  "var/lib", "virt", "virt/home",
};

static const char *const root_links[] = {
	"bin", "lib", "lib64", "sbin", "usr", "etc/ld.so.conf",
};

bool sandbox_name_ok(const char *name)
{
	return name[0] && !strchr(name, '/') && strcmp(name, ".") &&
	       strcmp(name, "..") && strlen(name) < 256;
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

/* Copy from into a new file to (not replacing one); 0 or -errno. */
static int copy_new(const char *from, const char *to, mode_t mode)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, ret = 0;
	char buf[65536];
	ssize_t n;

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
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
		unlink(to);
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
	char path[PATH_MAX];
	int ret = root_join(path, root, &SANDBOX_INIT[1]);

	if (ret || !access(path, X_OK))
		return ret;
	return copy_new(self, path, 0755);
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

static int run_dir(const struct vm_config *cfg, char *buf)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%s%ld", &SANDBOX_RUN_DIR[1], cfg->pid);
	return root_join(buf, root_share(cfg), rel);
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

static int write_cmd(const struct vm_config *cfg, const char *path)
{
	char prog[PATH_MAX + 8];
	FILE *f = fopen(path, "we");
	int ret = 0;

	if (!f)
		return -errno;
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
	char dir[PATH_MAX], cmd[PATH_MAX];
	int ret = run_dir(cfg, dir) ?: root_join(cmd, dir, "cmd.sh");

	if (ret)
		return ret;
	if (mkdir(dir, 0755))
		return -errno;
	ret = write_cmd(cfg, cmd);
	if (ret == -ENOENT)
		pr_err("sandbox script '%s' is not a file",
		       cfg->sandbox_script);
	return ret;
}

int sandbox_prepare(const struct vm_config *cfg, const char *self)
{
	const char *root = root_share(cfg);
	char path[PATH_MAX];
	struct stat st;
	int ret = 0;

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
	if (!root_join(path, root, "etc/resolv.conf"))
		unlink(path), copy_new("/etc/resolv.conf", path, 0644);
	if (!cfg->sandbox)
		return 0;
	ret = prepare_run(cfg);
	if (ret && ret != -ENOENT)
		pr_err("cannot write the sandbox command in %s: %s", root,
		       strerror(-ret));
	return ret;
}

static int read_status(const char *path)
{
	char buf[16] = "";
	char *end;
	FILE *f = fopen(path, "re");
	long v;

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	v = strtol(buf, &end, 10);
	return end != buf && *end == '\n' && v >= 0 && v <= 255 ? (int)v : -1;
}

int sandbox_finish_run(const struct vm_config *cfg)
{
	char dir[PATH_MAX], path[PATH_MAX];
	int status = -1;

	if (run_dir(cfg, dir))
		return SANDBOX_EXIT_NO_STATUS;
	if (!root_join(path, dir, "status")) {
		status = read_status(path);
		unlink(path);
	}
	if (!root_join(path, dir, "cmd.sh"))
		unlink(path);
	if (!root_join(path, dir, "started"))
		unlink(path);
	rmdir(dir);
	if (status < 0) {
		pr_err("sandbox: the guest reported no exit status");
		return SANDBOX_EXIT_NO_STATUS;
	}
	return status;
}
