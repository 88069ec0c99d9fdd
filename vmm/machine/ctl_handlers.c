// SPDX-License-Identifier: GPL-2.0
/* Control requests against the running machine; see ctl_handlers.h. */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vmm/machine/ctl_handlers.h"
#include "vmm/machine/dump.h"
#include "lib/log.h"
#include "vmm/machine/machine.h"

#define PAUSE_TIMEOUT_MS 5000
#define STATS_TIMEOUT_MS 2000
#define PAGES_PER_MIB (1u << (20 - VIRTIO_BALLOON_PFN_SHIFT))

static void ctl_fail(struct ctl_response *resp, int err, const char *why)
{
	resp->status = err;
	if (why)
		ctl_printf(resp, "%s", why);
}

static void ctl_pause(struct machine *m, struct ctl_response *resp)
{
	int ret = kvm_cpus_pause(&m->vm, PAUSE_TIMEOUT_MS);

	if (ret)
		ctl_fail(resp, -ret, "the vCPUs did not stop");
	else
		pr_info("guest paused by 'lkvm pause'");
}

static void ctl_resume(struct machine *m)
{
	if (kvm_cpus_paused(&m->vm))
		pr_info("guest resumed by 'lkvm resume'");
	kvm_cpus_resume(&m->vm);
}

/* Registers, as each vCPU read them when it paused. */
static void ctl_debug(struct machine *m, struct ctl_response *resp)
{
	bool was_paused = kvm_cpus_paused(&m->vm);
	int ret = kvm_cpus_pause(&m->vm, PAUSE_TIMEOUT_MS);

	if (ret) {
		ctl_fail(resp, -ret, "the vCPUs did not stop");
		return;
	}
	for (unsigned int i = 0; i < m->vm.cfg->nr_cpus; i++)
		ctl_printf(resp, "%s", m->vm.vcpus[i].regs);
	if (!was_paused)
		kvm_cpus_resume(&m->vm);
}

/* lkvm dump: an ELF core into the client's file, the vCPUs held. */
static void ctl_dump(struct machine *m, int fd, struct ctl_response *resp)
{
	bool was_paused = kvm_cpus_paused(&m->vm);
	int ret;

	if (fd < 0) {
		ctl_fail(resp, EBADF, "no file came with the request");
		return;
	}
	ret = kvm_cpus_pause(&m->vm, PAUSE_TIMEOUT_MS);
	if (ret) {
		ctl_fail(resp, -ret, "the vCPUs did not stop");
		close(fd);
		return;
	}
	ret = dump_write(&m->vm, fd);
	if (!was_paused)
		kvm_cpus_resume(&m->vm);
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	close(fd);
	if (ret)
		ctl_fail(resp, -ret, "cannot write the core (see lkvm's log)");
}

static struct virtio_balloon *ctl_balloon(struct machine *m,
					  struct ctl_response *resp)
{
	if (m->board.balloon_live)
		return &m->board.balloon;
	ctl_fail(resp, ENODEV, "no balloon (run the guest with --balloon)");
	return NULL;
}

static void ctl_balloon_set(struct machine *m, int64_t mib,
			    struct ctl_response *resp)
{
	struct virtio_balloon *b = ctl_balloon(m, resp);
	struct virtio_balloon_info info;
	int64_t pages, max = m->vm.cfg->ram_size >> VIRTIO_BALLOON_PFN_SHIFT;

	if (!b)
		return;
	virtio_balloon_get_info(b, &info);
	/* The request's mib is any int64: no overflow before the check. */
	if (mib > max / PAGES_PER_MIB || mib < -(max / PAGES_PER_MIB)) {
		ctl_fail(resp, ERANGE, "");
		ctl_printf(resp,
			   "the balloon cannot change by %lld MiB of %llu MiB",
			   (long long)mib,
			   (unsigned long long)(m->vm.cfg->ram_size >> 20));
		return;
	}
	pages = (int64_t)info.num_pages + mib * PAGES_PER_MIB;
	if (pages < 0 || pages >= max) {
		ctl_fail(resp, ERANGE, "");
		ctl_printf(resp, "the balloon would hold %lld MiB of %llu MiB",
			   (long long)(pages / PAGES_PER_MIB),
			   (unsigned long long)(m->vm.cfg->ram_size >> 20));
		return;
	}
	virtio_balloon_set_target(b, pages);
	pr_info("balloon target %lld MiB", (long long)pages / PAGES_PER_MIB);
}

/* Fresh statistics from the guest, if it answers in time. */
static bool ctl_stats_wait(struct virtio_balloon *b,
			   struct virtio_balloon_info *info)
{
	uint32_t gen = info->stats_gen;
	const struct timespec tick = { .tv_nsec = 10 * 1000000 };

	if (virtio_balloon_stats_refresh(b))
		return false;
	for (int i = 0; i < STATS_TIMEOUT_MS / 10; i++) {
		nanosleep(&tick, NULL);
		virtio_balloon_get_info(b, info);
		if (info->stats_gen != gen)
			return true;
	}
	return false;
}

static const struct {
	const char *name;
	bool bytes;
} stat_names[VIRTIO_BALLOON_S_NR] = {
	[VIRTIO_BALLOON_S_SWAP_IN] = { "swap in", true },
	[VIRTIO_BALLOON_S_SWAP_OUT] = { "swap out", true },
	[VIRTIO_BALLOON_S_MAJFLT] = { "major faults", false },
	[VIRTIO_BALLOON_S_MINFLT] = { "minor faults", false },
	[VIRTIO_BALLOON_S_MEMFREE] = { "free memory", true },
	[VIRTIO_BALLOON_S_MEMTOT] = { "total memory", true },
	[VIRTIO_BALLOON_S_AVAIL] = { "available memory", true },
	[VIRTIO_BALLOON_S_CACHES] = { "disk caches", true },
	[VIRTIO_BALLOON_S_HTLB_PGALLOC] = { "hugetlb allocations", false },
	[VIRTIO_BALLOON_S_HTLB_PGFAIL] = { "hugetlb failures", false },
};

static void ctl_stat(struct machine *m, struct ctl_response *resp)
{
	struct virtio_balloon *b = ctl_balloon(m, resp);
	struct virtio_balloon_info info;
	bool fresh;

	if (!b)
		return;
	virtio_balloon_get_info(b, &info);
	fresh = ctl_stats_wait(b, &info);
	ctl_printf(resp,
		   "guest %s memory:\n  RAM: %llu MiB\n"
		   "  balloon target: %u MiB, held by the guest: %u MiB\n"
		   "  pages given back to the host: %llu (%llu MiB)\n",
		   m->vm.cfg->name,
		   (unsigned long long)(m->vm.cfg->ram_size >> 20),
		   info.num_pages / PAGES_PER_MIB, info.actual / PAGES_PER_MIB,
		   (unsigned long long)info.discarded,
		   (unsigned long long)(info.discarded / PAGES_PER_MIB));
	ctl_printf(resp, "guest statistics%s:\n",
		   fresh ? "" :
			   " (none, or not fresh: the guest did not answer)");
	for (unsigned int t = 0; t < VIRTIO_BALLOON_S_NR; t++)
		if (info.stats_valid >> t & 1)
			ctl_printf(resp, "  %s: %llu%s\n", stat_names[t].name,
				   (unsigned long long)(stat_names[t].bytes ?
								info.stats[t] >>
									10 :
								info.stats[t]),
				   stat_names[t].bytes ? " KiB" : "");
}

static void ctl_handle(void *opaque, const struct ctl_request *req,
		       struct ctl_response *resp)
{
	struct machine *m = opaque;

	switch (req->type) {
	case CTL_STATE:
		ctl_printf(resp, "%ld %s", (long)getpid(),
			   kvm_cpus_paused(&m->vm) ? "paused" : "running");
		break;
	case CTL_STOP:
		vm_request_stop(&m->vm, VM_STOP_SIGNAL,
				"stopped by 'lkvm stop'");
		break;
	case CTL_PAUSE:
		ctl_pause(m, resp);
		break;
	case CTL_RESUME:
		ctl_resume(m);
		break;
	case CTL_DEBUG:
		ctl_debug(m, resp);
		break;
	case CTL_STAT:
		ctl_stat(m, resp);
		break;
	case CTL_BALLOON:
		ctl_balloon_set(m, req->mib, resp);
		break;
	case CTL_DUMP:
		ctl_dump(m, req->fd, resp);
		break;
	default:
		resp->status = EINVAL;
	}
}

/* Without HOME the guest runs without a control socket (warned). */
int ctl_handlers_start(struct machine *m)
{
	int ret = ctl_server_start(&m->ctl, m->vm.cfg->name, ctl_handle, m);

	return ret == -ENOENT ? 0 : ret;
}

void ctl_handlers_stop(struct machine *m)
{
	ctl_server_stop(&m->ctl);
}
