// SPDX-License-Identifier: GPL-2.0
/*
 * The run options that add devices: -d (a disk image, a root directory or
 * a setup root), --9p (a share), --fs (a virtio-fs directory) and -n (a
 * NIC, vmm/cmd/netopt.h).  Their
 * settings lists go through the option engine's key tables (lib/opt.h).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include "vmm/cmd/netopt.h"
#include "vmm/cmd/run_cli.h"
#include "vmm/cmd/run_parse.h"
#include "vmm/sandbox/sandbox.h"

/* -d's settings after the IMAGE: ,ro ,direct ,raw ,snapshot ,format=F ,queues=N */
/* A bare setting: the bool at offset k->kind of the disk_config. */
static int disk_flag(void *target, const struct opt_key *k, const char *v,
		     size_t n)
{
	*(bool *)((char *)target + k->kind) = true;
	return 0;
}

static int disk_queues(void *target, const struct opt_key *k, const char *v,
		       size_t n)
{
	struct disk_config *d = target;
	char num[16];
	uint64_t q;

	if (n >= sizeof(num))
		return -EINVAL;
	memcpy(num, v, n);
	num[n] = '\0';
	if (opt_parse_u64(num, &q) || q < 1 || q > CONFIG_MAX_DISK_QUEUES)
		return -EINVAL;
	d->queues = q;
	return 0;
}

/*
 * The image formats format= takes: raw (lkvm's own, as ,raw), and those
 * qemu-storage-daemon serves that the e2e suite tests.
 */
static const char *const disk_formats[] = { "raw",  "qcow2", "qed",
					    "vmdk", "vdi",   "vhdx" };

static int disk_format(void *target, const struct opt_key *k, const char *v,
		       size_t n)
{
	struct disk_config *d = target;

	for (size_t i = 0; i < sizeof(disk_formats) / sizeof(*disk_formats);
	     i++) {
		if (strlen(disk_formats[i]) != n ||
		    memcmp(disk_formats[i], v, n))
			continue;
		memcpy(d->format, v, n);
		d->format[n] = '\0';
		d->raw |= !strcmp(d->format, "raw");
		return 0;
	}
	return -EINVAL;
}

static const struct opt_key disk_keys[] = {
	{ "ro", false, disk_flag, offsetof(struct disk_config, ro) },
	{ "direct", false, disk_flag, offsetof(struct disk_config, direct) },
	{ "raw", false, disk_flag, offsetof(struct disk_config, raw) },
	{ "snapshot", false, disk_flag,
	  offsetof(struct disk_config, snapshot) },
	{ "queues", true, disk_queues, 0 },
	{ "format", true, disk_format, 0 },
};

/* "queues=N" and "format=F" can be bad values: N or F is named. */
#define QUEUES_LEN (sizeof("queues=") - 1)
#define FORMAT_LEN (sizeof("format=") - 1)

/* Settings that contradict each other, after the parse. */
static int check_disk_opts(struct cli_run *r, const struct disk_config *d,
			   const char *arg)
{
	if (d->raw && d->format[0] && strcmp(d->format, "raw"))
		return cli_err(r, "--disk '%s': ,raw contradicts format=%s",
			       arg, d->format);
	if (config_disk_qsd(d) && d->queues)
		return cli_err(
			r,
			"--disk '%s': queues=N is for the disks lkvm serves itself (qemu-storage-daemon serves this one with one queue)",
			arg);
	return 0;
}

/* The settings of -d arg (after its first comma, at opts), into d. */
static int set_disk_opts(struct cli_run *r, struct disk_config *d,
			 const char *opts, const char *arg)
{
	const char *bad = opts + strlen(opts);
	size_t n = 0;
	int ret = 0;

	ret = opt_keys_parse(opts, disk_keys,
			     sizeof(disk_keys) / sizeof(disk_keys[0]), d, &bad,
			     &n);
	/* An empty setting is unknown, the last one too ("IMAGE,ro,"). */
	if (!ret && (!*opts || opts[strlen(opts) - 1] == ','))
		ret = -ENOENT;
	if (ret == -EINVAL && !strncmp(bad, "format=", FORMAT_LEN))
		return cli_err(
			r,
			"unknown --disk format=%.*s in '%s' (expected raw, qcow2, qed, vmdk, vdi or vhdx)",
			(int)(n - FORMAT_LEN), bad + FORMAT_LEN, arg);
	if (ret == -EINVAL)
		return cli_err(
			r,
			"invalid --disk queues=%.*s in '%s' (expected 1..%d)",
			(int)(n - QUEUES_LEN), bad + QUEUES_LEN, arg,
			CONFIG_MAX_DISK_QUEUES);
	if (ret)
		return cli_err(
			r,
			"unknown --disk option '%.*s' in '%s' (expected ro, direct, raw, snapshot, format=F or queues=N)",
			(int)n, bad, arg);
	return check_disk_opts(r, d, arg);
}

/* One more 9p share: dir (not empty), tag (1..CONFIG_TAG_MAX bytes). */
int run_add_share(struct cli_run *r, const char *dir, size_t dlen,
		  const char *tag)
{
	struct share_config *sh = &r->cfg->shares[r->cfg->nr_shares];

	if (r->cfg->nr_shares == CONFIG_MAX_SHARES)
		return cli_err(r, "too many 9p shares (at most %d)",
			       CONFIG_MAX_SHARES);
	if (!dlen || dlen >= CONFIG_PATH_MAX)
		return cli_err(r, "invalid 9p directory '%.*s'", (int)dlen,
			       dir);
	if (!tag[0] || strlen(tag) > CONFIG_TAG_MAX)
		return cli_err(r, "invalid 9p tag '%s' (1..%d bytes)", tag,
			       CONFIG_TAG_MAX);
	for (unsigned int i = 0; i < r->cfg->nr_shares; i++)
		if (!strcmp(r->cfg->shares[i].tag, tag))
			return cli_err(r, "9p tag '%s' is used twice", tag);
	memcpy(sh->path, dir, dlen);
	sh->path[dlen] = '\0';
	strcpy(sh->tag, tag);
	r->cfg->nr_shares++;
	return 0;
}

/* A setup root's view of the host: / as hostfs, read-only. */
int run_add_host_share(struct cli_run *r)
{
	int ret = run_add_share(r, "/", 1, SANDBOX_HOST_TAG);

	if (!ret)
		r->cfg->shares[r->cfg->nr_shares - 1].ro = true;
	return ret;
}

/* --9p dir[,tag] (kvmtool's; default tag kvm_9p) */
int run_set_9p(struct opt_parser *p, const struct opt *o, const char *arg)
{
	struct cli_run *r = p->ctx;
	const char *comma = strchr(arg, ',');

	return run_add_share(r, arg,
			     comma ? (size_t)(comma - arg) : strlen(arg),
			     comma ? comma + 1 : "kvm_9p");
}

/* A virtio-fs tag: 1..CONFIG_FS_TAG_MAX bytes, none a control or a space. */
static bool fs_tag_ok(const char *tag, size_t n)
{
	if (!n || n > CONFIG_FS_TAG_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)tag[i] <= ' ' || tag[i] == 0x7f)
			return false;
	return true;
}

/* --fs DIR,TAG[,ro]: a directory virtiofsd serves as virtio-fs TAG. */
int run_set_fs(struct opt_parser *p, const struct opt *o, const char *arg)
{
	struct cli_run *r = p->ctx;
	struct fs_config *fs = &r->cfg->fs[r->cfg->nr_fs];
	const char *c1 = strchr(arg, ','), *tag, *c2;
	size_t dlen, tlen;

	if (r->cfg->nr_fs == CONFIG_MAX_FS)
		return cli_err(r, "too many --fs directories (at most %d)",
			       CONFIG_MAX_FS);
	if (!c1)
		return cli_err(r, "--fs '%s': expected DIR,TAG[,ro]", arg);
	dlen = (size_t)(c1 - arg);
	tag = c1 + 1;
	c2 = strchr(tag, ',');
	tlen = c2 ? (size_t)(c2 - tag) : strlen(tag);
	if (!dlen || dlen >= CONFIG_PATH_MAX)
		return cli_err(r, "invalid --fs directory '%.*s'", (int)dlen,
			       arg);
	if (!fs_tag_ok(tag, tlen))
		return cli_err(
			r, "invalid --fs tag '%.*s' (1..%d bytes, no spaces)",
			(int)tlen, tag, CONFIG_FS_TAG_MAX);
	if (c2 && strcmp(c2 + 1, "ro"))
		return cli_err(r,
			       "unknown --fs option '%s' in '%s' (expected ro)",
			       c2 + 1, arg);
	for (unsigned int i = 0; i < r->cfg->nr_fs; i++)
		if (strlen(r->cfg->fs[i].tag) == tlen &&
		    !memcmp(r->cfg->fs[i].tag, tag, tlen))
			return cli_err(r, "--fs tag '%.*s' is used twice",
				       (int)tlen, tag);
	memset(fs, 0, sizeof(*fs));
	memcpy(fs->path, arg, dlen);
	memcpy(fs->tag, tag, tlen);
	fs->ro = c2 != NULL;
	r->cfg->nr_fs++;
	return 0;
}

/*
 * -d DIR: the directory is the guest's root over 9p; -d NAME with a
 * ~/.lkvm/NAME made by 'lkvm setup': that root plus the host's / as
 * hostfs, and lkvm's guest init.  1 when arg was one of these, 0 when it
 * is an image, or -EINVAL.
 */
static int set_rootfs_dir(struct cli_run *r, const char *arg)
{
	char home[CONFIG_PATH_MAX];
	struct stat st;
	bool custom = false;
	int ret;

	if (stat(arg, &st) || !S_ISDIR(st.st_mode)) {
		custom = sandbox_name_ok(arg) &&
			 !sandbox_root_path(arg, home, sizeof(home)) &&
			 !stat(home, &st) && S_ISDIR(st.st_mode);
		if (!custom)
			return 0;
	}
	if (r->cfg->rootfs_9p)
		return cli_err(r,
			       "only one root directory (-d DIR) is allowed");
	ret = custom ? run_add_share(r, home, strlen(home), SANDBOX_ROOT_TAG) :
		       run_add_share(r, arg, strlen(arg), SANDBOX_ROOT_TAG);
	if (!ret && custom)
		ret = run_add_host_share(r);
	if (ret)
		return ret;
	r->cfg->rootfs_9p = true;
	r->cfg->custom_rootfs = custom;
	if (custom)
		strcpy(r->cfg->rootfs_name, arg);
	return 1;
}

/* -d path[,ro][,direct][,raw][,snapshot][,format=F][,queues=N] */
int run_set_disk(struct opt_parser *p, const struct opt *o, const char *arg)
{
	struct cli_run *r = p->ctx;
	struct disk_config *d;
	const char *opt = strchr(arg, ',');
	size_t len = opt ? (size_t)(opt - arg) : strlen(arg);
	int ret = set_rootfs_dir(r, arg);

	if (ret)
		return ret < 0 ? ret : 0;
	if (r->cfg->nr_disks == CONFIG_MAX_DISKS)
		return cli_err(r, "too many disks (at most %d)",
			       CONFIG_MAX_DISKS);
	if (!len || len >= CONFIG_PATH_MAX)
		return cli_err(r, "invalid --disk '%s'", arg);
	d = &r->cfg->disks[r->cfg->nr_disks];
	*d = (struct disk_config){ 0 };
	memcpy(d->path, arg, len);
	if (opt && set_disk_opts(r, d, opt + 1, arg))
		return -EINVAL;
	r->cfg->nr_disks++;
	return 0;
}

/* -n SPEC: kvmtool's settings (vmm/netopt.h); mode=none adds no NIC. */
int run_set_network(struct opt_parser *p, const struct opt *o, const char *arg)
{
	struct cli_run *r = p->ctx;
	unsigned int i = r->cfg->nr_nics;
	struct nic_config nic;
	const char *bad, *why;
	size_t n;

	if (netopt_parse(&nic, i, arg, &bad, &n)) {
		why = netopt_unsupported(bad, n);
		if (why)
			return cli_err(
				r,
				"--network %.*s in '%s' is not supported: %s",
				(int)n, bad, arg, why);
		return cli_err(r, "invalid --network setting '%.*s' in '%s'",
			       (int)n, bad, arg);
	}
	if (nic.mode == NIC_MODE_NONE) {
		r->cfg->no_net = true;
		return 0;
	}
	if (i == CONFIG_MAX_NICS)
		return cli_err(r, "too many networks (at most %d)",
			       CONFIG_MAX_NICS);
	r->cfg->nics[r->cfg->nr_nics++] = nic;
	return 0;
}
