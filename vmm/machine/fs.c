// SPDX-License-Identifier: GPL-2.0
/* --fs: virtio-fs served by virtiofsd over vhost-user; see fs.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/kvm/vm.h"
#include "vmm/machine/fs.h"

/* How long virtiofsd may take to answer its first requests (start-up). */
#define FS_START_MS 30000

static int fs_dev_init(void *opaque, struct board_slot *slot)
{
	struct fs_dev *d = opaque;
	const struct virtio_backend be = vhostdev_user_backend(&d->u);
	int ret = virtio_fs_init(&d->dev, &slot->res, &slot->board->vm->mem,
				 &slot->line, d->cfg->tag, &be);

	if (ret) {
		pr_err("virtio-fs %s: cannot create the device: %s",
		       d->cfg->tag, strerror(-ret));
		return ret;
	}
	vhostdev_attach(&d->u.vd, slot);
	return 0;
}

static void fs_dev_destroy(void *opaque)
{
	struct fs_dev *d = opaque;

	virtio_fs_destroy(&d->dev);
}

/* virtiofsd's first answers: owner, features, memory table. */
static int fs_vhost_open(struct fs_dev *d, const struct vm *vm)
{
	const struct vhost_mem m = { vm->mem.base, vm->mem.size,
				     (uintptr_t)vm->mem.host };
	char what[CONFIG_PATH_MAX + 8];
	int ret;

	snprintf(what, sizeof(what), "--fs %s", d->cfg->path);
	ret = vhostdev_user_open(&d->u, what, &m, vm->ram_fd, FS_START_MS);
	if (!ret &&
	    (d->u.vh.features & VIRTIO_BACKED_NEEDED) != VIRTIO_BACKED_NEEDED) {
		pr_err("--fs %s: virtiofsd lacks VERSION_1, EVENT_IDX or INDIRECT_DESC (features %#llx)",
		       d->cfg->path, (unsigned long long)d->u.vh.features);
		ret = -EOPNOTSUPP;
	}
	return ret;
}

static void fs_close(struct fs_dev *d)
{
	virtiofsd_stop(&d->d);
	vhostdev_close(&d->u.vd);
}

static int fs_open(struct fs_dev *d, const struct fs_config *cfg,
		   struct board *b)
{
	const struct board_virtio_dev dev = {
		.init = fs_dev_init,
		.destroy = fs_dev_destroy,
		.opaque = d,
		.transport = &d->dev.b.vm,
	};
	struct stat st;
	int ret;

	d->cfg = cfg;
	d->d.sock = -1;
	if (stat(cfg->path, &st)) {
		ret = -errno;
		pr_err("--fs %s: %s", cfg->path, strerror(-ret));
		return ret;
	}
	if (!S_ISDIR(st.st_mode)) {
		pr_err("--fs %s: not a directory", cfg->path);
		return -ENOTDIR;
	}
	d->u = (struct vhostdev_user){ .dev = &d->dev.b,
				       .daemon = "virtiofsd",
				       .pid = &d->d.pid,
				       .sock = -1 };
	snprintf(d->u.label, sizeof(d->u.label), "virtio-fs %s", cfg->tag);
	ret = vhostdev_init(&d->u.vd, &d->dev.b.vm, VIRTIO_FS_QUEUES,
			    "virtio-fs");
	if (ret)
		pr_err("--fs %s: eventfd: %s", cfg->path, strerror(-ret));
	ret = ret ?: virtiofsd_start(&d->d, cfg);
	if (ret == -ENOENT)
		pr_err("--fs: virtiofsd is not installed (not on PATH, nor %s)",
		       VIRTIOFSD_LIBEXEC);
	d->u.sock = d->d.sock;
	ret = ret ?: fs_vhost_open(d, b->vm);
	ret = ret   ?:
		      board_virtio_attach(b, "fs", VIRTIO_TRANSPORT_DEFAULT,
					  &dev);
	if (ret)
		fs_close(d);
	return ret;
}

int fs_up(struct fs *f, const struct vm_config *cfg, struct board *b)
{
	int ret = 0;

	memset(f, 0, sizeof(*f));
	for (unsigned int i = 0; !ret && i < cfg->nr_fs; i++) {
		ret = fs_open(&f->devs[i], &cfg->fs[i], b);
		if (!ret) {
			f->nr++;
			pr_debug(
				"virtio-fs %s: %s served by virtiofsd (pid %d)",
				cfg->fs[i].tag, cfg->fs[i].path,
				(int)f->devs[i].d.pid);
		}
	}
	if (ret)
		fs_down(f);
	return ret;
}

int fs_watch(struct fs *f, struct iothread *io)
{
	int ret = 0;

	for (unsigned int i = 0; !ret && i < f->nr; i++)
		ret = vhostdev_user_watch(&f->devs[i].u, io);
	return ret;
}

void fs_down(struct fs *f)
{
	for (unsigned int i = 0; i < f->nr; i++) {
		virtio_fs_destroy(&f->devs[i].dev);
		fs_close(&f->devs[i]);
	}
	f->nr = 0;
}
