// SPDX-License-Identifier: GPL-2.0
/*
 * Disk glue.  The image file back-end (open, lock, read/write/flush) is
 * virtio/blk_file.c; this file only pairs each -d with a device and a slot.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vmm/machine/disks.h"
#include "lib/log.h"

_Static_assert(CONFIG_MAX_DISK_QUEUES == VIRTIO_MMIO_MAX_QUEUES,
	       "queues=N is checked against the transport's limit");

unsigned int disks_queues(const struct disk_config *dc, unsigned int nr_cpus)
{
	unsigned int n = dc->queues ? dc->queues : nr_cpus;

	if (n > VIRTIO_MMIO_MAX_QUEUES)
		n = VIRTIO_MMIO_MAX_QUEUES;
	return n ? n : 1;
}

/* What disk_init() and disk_destroy() work on: disk d->nr of d. */
struct disk_attach {
	struct disks *d;
	const struct disk_config *dc;
	unsigned int nq; /* request queues */
};

/* Disk i's engine, device and image file, closed. */
static void disk_close(struct disks *d, unsigned int i)
{
	virtio_blk_aio_destroy(&d->aio[i]);
	virtio_blk_destroy(&d->blk[i]);
	virtio_blk_file_close(&d->file[i]);
}

static void disk_destroy(void *opaque)
{
	const struct disk_attach *a = opaque;

	disk_close(a->d, a->d->nr);
}

/* The disk's I/O engine; --debug-iodelay: the pool's workers sleep first. */
static int disk_engine_up(struct virtio_blk_aio *aio,
			  const struct virtio_blk *blk,
			  const struct vm_config *cfg)
{
	if (cfg->debug_iodelay_ms)
		return virtio_blk_pool_init(aio, &blk->disk, DISKS_AIO_THREADS,
					    cfg->debug_iodelay_ms);
	return virtio_blk_aio_init(aio, &blk->disk, DISKS_AIO_THREADS,
				   VIRTIO_BLK_URING_ENTRIES);
}

/* When the disks busy-poll, for --debug. */
static const char *disk_poll_when(const struct disks *d)
{
	if (!d->poll_ns)
		return "";
	return d->poll_always ?
		       " after every notification" :
		       " while the guest keeps more than one request out";
}

/* The image file, its virtio-blk device on slot, its I/O engine. */
static int disk_init(void *opaque, struct board_slot *slot)
{
	const struct disk_attach *a = opaque;
	const struct disk_config *dc = a->dc;
	struct disks *d = a->d;
	struct virtio_blk_file *f = &d->file[d->nr];
	struct virtio_blk *blk = &d->blk[d->nr];
	const char *base = strrchr(dc->path, '/');
	struct virtio_blk_disk disk;
	int ret;

	ret = dc->raw ? virtio_blk_file_open_raw(f, dc->path, dc->ro,
						 dc->direct) :
			virtio_blk_file_open(f, dc->path, dc->ro, dc->direct);
	if (ret)
		return ret;
	virtio_blk_file_disk(f, base ? base + 1 : dc->path, &disk);
	ret = virtio_blk_init_mq(blk, &slot->res, &slot->board->vm->mem,
				 &slot->line, &disk, a->nq);
	if (ret) {
		pr_err("%s: cannot set up virtio-blk: %s", dc->path,
		       strerror(-ret));
		virtio_blk_file_close(f);
		return ret;
	}
	ret = disk_engine_up(&d->aio[d->nr], blk, slot->board->vm->cfg);
	if (ret) {
		pr_err("%s: cannot start the I/O engine: %s", dc->path,
		       strerror(-ret));
		disk_close(d, d->nr);
		return ret;
	}
	return 0;
}

static int disk_up(struct disks *d, const struct disk_config *dc,
		   unsigned int nq, struct board *b)
{
	struct disk_attach a = { .d = d, .dc = dc, .nq = nq };
	const struct board_virtio_dev dev = {
		.init = disk_init,
		.transport = &d->blk[d->nr].vm,
		.destroy = disk_destroy,
		.opaque = &a,
	};
	int ret = board_virtio_attach(b, dc->path, VIRTIO_TRANSPORT_DEFAULT,
				      &dev);

	if (ret)
		return ret;
	virtio_blk_set_aio(&d->blk[d->nr], &d->aio[d->nr]);
	d->path[d->nr] = dc->path;
	pr_debug(
		"%s: virtio-blk I/O engine: %s, depth %u, %u queue%s, readv/writev on guest buffers%s%s, busy polling up to %llu us%s",
		dc->path, d->aio[d->nr].name, VIRTIO_BLK_DEPTH, nq,
		nq == 1 ? "" : "s", dc->direct ? " (O_DIRECT)" : "",
		d->blk[d->nr].disk.in_memory ?
			" (in memory: a lone request inline)" :
			"",
		(unsigned long long)d->poll_ns / 1000, disk_poll_when(d));
	pr_debug(
		"%s: virtio-blk notifications served %s", dc->path,
		d->route ?
			"in the vCPU's exit at depth 1, else on the I/O thread" :
			"on the I/O thread");
	d->nr++;
	return 0;
}

/* On the I/O thread: the engine finished calls (or a budget ran out). */
static void disks_handle(void *opaque)
{
	virtio_blk_poll(opaque);
}

static int64_t disks_busy_poll(void *opaque)
{
	return virtio_blk_busy_poll(opaque);
}

int disks_watch(struct disks *d, struct iothread *io)
{
	int ret = 0;

	for (unsigned int i = 0; !ret && i < d->nr_qsd; i++)
		ret = qsdisk_watch(&d->qsd[i], io);
	for (unsigned int i = 0; !ret && i < d->nr; i++) {
		ret = iothread_add(io, d->aio[i].efd, disks_handle, &d->blk[i]);
		if (!ret)
			virtio_blk_set_route(&d->blk[i], d->route);
		if (!ret && d->poll_ns) {
			virtio_blk_set_poll(&d->blk[i], d->poll_ns,
					    d->poll_always);
			ret = iothread_add_poller(io, disks_busy_poll,
						  &d->blk[i]);
		}
	}
	return ret;
}

/*
 * The host CPUs lkvm's threads may run on: its affinity (taskset, a
 * cpuset), else the online ones.
 */
static long disks_host_cpus(void)
{
	cpu_set_t set;

	if (!sched_getaffinity(0, sizeof(set), &set))
		return CPU_COUNT(&set);
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/*
 * --io-poll, or by default (spare: the I/O thread has a host CPU the
 * vCPUs do not need): polling pays only then.
 */
static uint64_t disks_poll_ns(const struct vm_config *cfg, bool spare)
{
	if (cfg->io_poll_us >= 0)
		return (uint64_t)cfg->io_poll_us * 1000;
	return spare ? CONFIG_IO_POLL_US * 1000ULL : 0;
}

/*
 * --io-notify, or by default: a vCPU serving its own lone request saves
 * the I/O thread's wake-up, which costs most where that thread has no
 * host CPU of its own and must take a vCPU's turn.
 */
static bool disks_route(const struct vm_config *cfg, bool spare)
{
	if (cfg->io_notify != IO_NOTIFY_AUTO)
		return cfg->io_notify == IO_NOTIFY_VCPU;
	return !spare;
}

int disks_up(struct disks *d, const struct vm_config *cfg, struct board *b)
{
	bool spare = disks_host_cpus() > (long)cfg->nr_cpus;
	int ret = 0;

	d->nr = 0;
	d->nr_qsd = 0;
	d->poll_ns = disks_poll_ns(cfg, spare);
	d->poll_always = cfg->io_poll_us >= 0;
	d->route = disks_route(cfg, spare);
	for (unsigned int i = 0; !ret && i < cfg->nr_disks; i++) {
		const struct disk_config *dc = &cfg->disks[i];

		if (!config_disk_qsd(dc)) {
			ret = disk_up(d, dc, disks_queues(dc, cfg->nr_cpus), b);
			continue;
		}
		ret = qsdisk_up(&d->qsd[d->nr_qsd], dc, b);
		d->nr_qsd += !ret;
	}
	return ret;
}

/* --debug: how the guest spread its requests over the queues. */
static void disk_report(const struct virtio_blk *blk, const char *path)
{
	char buf[256];
	int len = 0;

	for (unsigned int q = 0; q < blk->vm.core.dev.num_queues; q++)
		len += snprintf(buf + len, sizeof(buf) - len, " %llu",
				(unsigned long long)blk->requests[q]);
	pr_debug("%s: virtio-blk requests per queue:%s", path, buf);
	pr_debug("%s: virtio-blk requests taken while busy polling: %llu", path,
		 (unsigned long long)blk->polled);
	if (blk->route)
		pr_debug(
			"%s: virtio-blk requests taken in vCPU exits: %llu, notification route changes: %llu",
			path, (unsigned long long)blk->vcpu_taken,
			(unsigned long long)blk->reroutes);
}

void disks_down(struct disks *d)
{
	while (d->nr_qsd)
		qsdisk_down(&d->qsd[--d->nr_qsd]);
	while (d->nr) {
		d->nr--;
		disk_report(&d->blk[d->nr], d->path[d->nr]);
		disk_close(d, d->nr);
	}
}
