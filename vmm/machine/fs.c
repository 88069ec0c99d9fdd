// SPDX-License-Identifier: GPL-2.0
/* --fs: virtio-fs served by virtiofsd over vhost-user; see fs.h. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "vmm/kvm/vm.h"
#include "vmm/machine/fs.h"

/* Transport features the core always offers: virtiofsd must have them. */
#define FS_NEEDED                                                          \
	(VIRTIO_BIT(VIRTIO_F_VERSION_1) | VIRTIO_BIT(VIRTIO_F_EVENT_IDX) | \
	 VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC))
/* How long virtiofsd may take to answer its first requests (start-up). */
#define FS_START_MS 30000

/* One line per failure, until a start succeeds; none once it is gone. */
static void fs_fail(struct fs_dev *d, const char *when, int err)
{
	if (d->logged || d->gone)
		return;
	d->logged = true;
	pr_err("virtio-fs %s: virtiofsd %s failed at %s: %s; the device needs a reset",
	       d->cfg->tag, vhost_req_name(d->vh.failed), when,
	       d->vu.why ? d->vu.why : strerror(-err));
}

/*
 * DRIVER_OK (the device's lock held): features first (virtiofsd wants
 * them before a ring is enabled), the rings, then each ring enabled
 * unless bus mastering is off (fs_dma enables them later).
 */
static int fs_start(void *opaque, uint64_t features)
{
	struct fs_dev *d = opaque;
	int ret = vhostdev_user_start(&d->vd, &d->vh, features,
				      d->dev.vm.core.dma_off);

	if (ret == -EINVAL && !d->vh.broken)
		return ret; /* the guest's fault, said */
	if (ret)
		fs_fail(d, "DRIVER_OK", ret);
	else
		d->logged = false;
	return ret;
}

/* PCI bus mastering off or on again (lock held): rings disabled or on. */
static void fs_dma(void *opaque, bool on)
{
	struct fs_dev *d = opaque;
	int ret = vhostdev_user_dma(&d->vd, &d->vh, on);

	if (ret)
		fs_fail(d, on ? "bus mastering on" : "bus mastering off", ret);
}

/* Device reset (lock held): take the rings back. */
static void fs_stop(void *opaque)
{
	struct fs_dev *d = opaque;
	int ret = vhost_stop(&d->vh, VHOST_REQ_NR, NULL);

	if (ret)
		fs_fail(d, "reset", ret);
}

/* A notification that took the MMIO exit: pass it to virtiofsd. */
static void fs_kick(void *opaque, unsigned int q)
{
	struct fs_dev *d = opaque;

	vhostdev_kick(&d->vd, q);
}

static int fs_dev_init(void *opaque, struct board_slot *slot)
{
	struct fs_dev *d = opaque;
	const struct virtio_fs_backend be = {
		.start = fs_start,
		.stop = fs_stop,
		.kick = fs_kick,
		.dma = fs_dma,
		.opaque = d,
	};
	int ret = virtio_fs_init(&d->dev, &slot->res, &slot->board->vm->mem,
				 &slot->line, d->cfg->tag, &be);

	if (ret) {
		pr_err("virtio-fs %s: cannot create the device: %s",
		       d->cfg->tag, strerror(-ret));
		return ret;
	}
	vhostdev_attach(&d->vd, slot);
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
	const struct vhost_transport t = vhost_user_transport(&d->vu);
	char why[64];
	int ret;

	vhost_user_init(&d->vu, d->d.sock, vm->ram_fd, 0);
	d->vu.timeout_ms = FS_START_MS;
	ret = vhost_open(&d->vh, &t, &m);
	d->vu.timeout_ms = VHOST_USER_TIMEOUT_MS;
	if (ret == -ECONNRESET) {
		virtiofsd_reap(&d->d, why, sizeof(why));
		pr_err("--fs %s: virtiofsd %s at start-up (see its message above)",
		       d->cfg->path, why);
	} else if (ret) {
		pr_err("--fs %s: virtiofsd %s failed: %s", d->cfg->path,
		       vhost_req_name(d->vh.failed),
		       d->vu.why ? d->vu.why : strerror(-ret));
	} else if ((d->vh.features & FS_NEEDED) != FS_NEEDED) {
		pr_err("--fs %s: virtiofsd lacks VERSION_1, EVENT_IDX or INDIRECT_DESC (features %#llx)",
		       d->cfg->path, (unsigned long long)d->vh.features);
		ret = -EOPNOTSUPP;
	}
	return ret;
}

static void fs_close(struct fs_dev *d)
{
	virtiofsd_stop(&d->d);
	vhostdev_close(&d->vd);
}

static int fs_open(struct fs_dev *d, const struct fs_config *cfg,
		   struct board *b)
{
	const struct board_virtio_dev dev = {
		.init = fs_dev_init,
		.destroy = fs_dev_destroy,
		.opaque = d,
		.transport = &d->dev.vm,
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
	ret = vhostdev_init(&d->vd, &d->dev.vm, VIRTIO_FS_QUEUES, "virtio-fs");
	if (ret)
		pr_err("--fs %s: eventfd: %s", cfg->path, strerror(-ret));
	ret = ret ?: virtiofsd_start(&d->d, cfg);
	if (ret == -ENOENT)
		pr_err("--fs: virtiofsd is not installed (not on PATH, nor %s)",
		       VIRTIOFSD_LIBEXEC);
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

/*
 * On the I/O thread: virtiofsd's socket is readable outside a request
 * (requests are made with the device's lock held, which this takes), so
 * it closed (died) or sent what nobody asked for.  One line; the device
 * is broken for good, the guest goes on.
 */
static void fs_sock(void *opaque)
{
	struct fs_dev *d = opaque;
	struct pollfd p = { .fd = d->d.sock, .events = POLLIN };
	char why[64], b;

	virtio_mmio_lock(&d->dev.vm);
	if (d->gone || poll(&p, 1, 0) <= 0) {
		virtio_mmio_unlock(&d->dev.vm);
		return;
	}
	d->gone = true;
	d->vu.dead = true;
	iothread_watch(d->io, d->d.sock, false);
	if (recv(d->d.sock, &b, 1, MSG_PEEK | MSG_DONTWAIT) > 0)
		strcpy(why, "sent a message nobody asked for");
	else
		virtiofsd_reap(&d->d, why, sizeof(why));
	if (!d->logged)
		pr_err("virtio-fs %s: virtiofsd %s; the device is broken, the guest keeps running",
		       d->cfg->tag, why);
	d->logged = true;
	/*
	 * A daemon that misbehaves but lives still maps guest RAM and holds
	 * the rings' eventfds: stop it (reaped at exit), and its calls.
	 */
	if (d->d.pid > 0)
		kill(d->d.pid, SIGKILL);
	vhostdev_unwatch(&d->vd);
	virtio_core_fail_locked(&d->dev.vm.core);
	virtio_mmio_unlock(&d->dev.vm);
}

int fs_watch(struct fs *f, struct iothread *io)
{
	int ret = 0;

	for (unsigned int i = 0; !ret && i < f->nr; i++) {
		struct fs_dev *d = &f->devs[i];

		d->io = io;
		ret = vhostdev_watch(&d->vd, io);
		ret = ret ?: iothread_add(io, d->d.sock, fs_sock, d);
	}
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
