// SPDX-License-Identifier: GPL-2.0
/* A disk qemu-storage-daemon serves over vhost-user; see qsdisk.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"
#include "vmm/kvm/vm.h"
#include "vmm/machine/qsdisk.h"

/* How long the daemon may take to open the image and answer. */
#define QSDISK_START_MS 30000

static int qsdisk_dev_init(void *opaque, struct board_slot *slot)
{
	struct qsdisk *d = opaque;
	const struct virtio_backend be = vhostdev_user_backend(&d->u);
	int ret = virtio_blk_user_init(
		&d->dev, &slot->res, &slot->board->vm->mem, &slot->line,
		d->config, sizeof(d->config), d->u.vh.features, &be);

	if (ret) {
		pr_err("-d %s: cannot create the device: %s", d->cfg->path,
		       strerror(-ret));
		return ret;
	}
	vhostdev_attach(&d->u.vd, slot);
	return 0;
}

static void qsdisk_dev_destroy(void *opaque)
{
	struct qsdisk *d = opaque;

	virtio_blk_user_destroy(&d->dev);
}

static void qsdisk_words(void *opaque, char *buf, size_t size)
{
	const struct qsdisk *d = opaque;

	qsd_last_words(&d->q, buf, size);
}

/* The daemon's configuration space, checked. */
static int qsdisk_config(struct qsdisk *d)
{
	uint64_t cap;
	const char *why;
	int ret = vhost_user_get_config(&d->u.vu, d->config, sizeof(d->config));

	if (ret) {
		pr_err("-d %s: %s GET_CONFIG failed: %s", d->cfg->path,
		       QSD_NAME, d->u.vu.why ? d->u.vu.why : strerror(-ret));
		return ret;
	}
	ret = virtio_blk_user_check(d->config, sizeof(d->config),
				    d->u.vh.features, &cap, &why);
	if (ret)
		pr_err("-d %s: %s sent %s", d->cfg->path, QSD_NAME, why);
	return ret;
}

/* The daemon, its first answers and its configuration. */
static int qsdisk_open(struct qsdisk *d, const struct vm *vm)
{
	const struct disk_config *dc = d->cfg;
	const struct vhost_mem m = { vm->mem.base, vm->mem.size,
				     (uintptr_t)vm->mem.host };
	char what[CONFIG_PATH_MAX + 8];
	int ret = qsd_start(&d->q, dc, qsd_format(dc));

	if (ret == -ENOENT)
		pr_err("-d %s: %s is not installed (not on PATH; it is in Debian's qemu-utils package)",
		       dc->path, d->q.path);
	if (ret)
		return ret;
	d->u.sock = d->q.sock;
	d->u.vu.wanted = 1ULL << VHOST_USER_PROTOCOL_F_CONFIG;
	snprintf(what, sizeof(what), "-d %s", dc->path);
	ret = vhostdev_user_open(&d->u, what, &m, vm->ram_fd, QSDISK_START_MS);
	return ret ?: qsdisk_config(d);
}

int qsdisk_up(struct qsdisk *d, const struct disk_config *dc, struct board *b)
{
	const struct board_virtio_dev dev = {
		.init = qsdisk_dev_init,
		.destroy = qsdisk_dev_destroy,
		.opaque = d,
		.transport = &d->dev.b.vm,
	};
	int ret;

	memset(d, 0, sizeof(*d));
	d->cfg = dc;
	d->q = (struct qsd){ .sock = -1, .log_fd = -1 };
	d->u = (struct vhostdev_user){ .dev = &d->dev.b,
				       .daemon = QSD_NAME,
				       .pid = &d->q.pid,
				       .sock = -1,
				       .last_words = qsdisk_words,
				       .lw_opaque = d };
	snprintf(d->u.label, sizeof(d->u.label), "virtio-blk %.60s", dc->path);
	ret = vhostdev_init(&d->u.vd, &d->dev.b.vm, VIRTIO_BLK_USER_QUEUES,
			    "virtio-blk");
	if (ret)
		pr_err("-d %s: eventfd: %s", dc->path, strerror(-ret));
	ret = ret ?: qsdisk_open(d, b->vm);
	ret = ret   ?:
		      board_virtio_attach(b, dc->path, VIRTIO_TRANSPORT_DEFAULT,
					  &dev);
	if (ret) {
		qsd_stop(&d->q);
		vhostdev_close(&d->u.vd);
		return ret;
	}
	pr_debug("-d %s: %s served by %s (pid %d), %llu sectors%s%s", dc->path,
		 qsd_format(dc), QSD_NAME, (int)d->q.pid,
		 (unsigned long long)d->dev.capacity,
		 dc->snapshot ? ", writes to a throw-away overlay" : "",
		 dc->ro ? ", read-only" : "");
	return 0;
}

int qsdisk_watch(struct qsdisk *d, struct iothread *io)
{
	return vhostdev_user_watch(&d->u, io);
}

void qsdisk_down(struct qsdisk *d)
{
	virtio_blk_user_destroy(&d->dev);
	qsd_stop(&d->q);
	vhostdev_close(&d->u.vd);
}
