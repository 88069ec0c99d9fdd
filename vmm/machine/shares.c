// SPDX-License-Identifier: GPL-2.0
/* 9p share glue; see shares.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "lib/log.h"
#include "vmm/machine/shares.h"

_Static_assert(CONFIG_TAG_MAX == VIRTIO_9P_TAG_MAX,
	       "--9p tags are checked against virtio-9p's limit");

/* What share_init() and share_destroy() work on. */
struct share_attach {
	struct virtio_9p *p;
	const struct share_config *sc;
};

static int share_init(void *opaque, struct board_slot *slot)
{
	const struct share_attach *a = opaque;
	const struct share_config *sc = a->sc;
	int ret = virtio_9p_init(a->p, &slot->res, &slot->board->vm->mem,
				 &slot->line, sc->path, sc->tag);

	if (ret) {
		pr_err("%s: cannot share over 9p: %s", sc->path,
		       strerror(-ret));
		return ret;
	}
	a->p->srv.ro = sc->ro;
	return 0;
}

static void share_destroy(void *opaque)
{
	const struct share_attach *a = opaque;

	virtio_9p_destroy(a->p);
}

static int share_up(struct shares *s, const struct share_config *sc,
		    struct board *b)
{
	struct share_attach a = { .p = &s->dev[s->nr], .sc = sc };
	const struct board_virtio_dev dev = {
		.init = share_init,
		.transport = &a.p->vm,
		.destroy = share_destroy,
		.opaque = &a,
	};
	int ret = board_virtio_attach(b, sc->path, VIRTIO_TRANSPORT_DEFAULT,
				      &dev);

	if (ret)
		return ret;
	pr_debug("%s: virtio-9p, tag %s%s", sc->path, sc->tag,
		 sc->ro ? ", read-only" : "");
	s->nr++;
	return 0;
}

/*
 * Descriptors kept for the rest of the VMM (vCPUs, eventfds, disks,
 * sockets, control connections) whatever the guest opens on its shares.
 */
#define SHARES_FD_RESERVE 512u

/*
 * Open 9p fids hold host descriptors: the soft limit goes up to the hard
 * one, and the shares together may hold what lies above the reserve.
 */
static void shares_fd_budget(void)
{
	struct rlimit rl;
	rlim_t max;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur < rl.rlim_max && rl.rlim_max != RLIM_INFINITY) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	max = rl.rlim_cur > SHARES_FD_RESERVE ?
		      rl.rlim_cur - SHARES_FD_RESERVE :
		      0;
	p9_set_fd_budget(max > UINT_MAX ? UINT_MAX : (unsigned int)max);
	pr_debug("9p: at most %llu open files on the shares together",
		 (unsigned long long)max);
}

int shares_up(struct shares *s, const struct vm_config *cfg, struct board *b)
{
	int ret = 0;

	shares_fd_budget();
	s->nr = 0;
	for (unsigned int i = 0; !ret && i < cfg->nr_shares; i++)
		ret = share_up(s, &cfg->shares[i], b);
	return ret;
}

/* --debug: the 9P requests the guest sent, by type number. */
static void share_report(const struct virtio_9p *p)
{
	char buf[512];
	int len = 0;

	for (unsigned int t = 0; t < 256 && len < (int)sizeof(buf) - 24; t++)
		if (p->srv.requests[t])
			len += snprintf(buf + len, sizeof(buf) - len,
					" %u:%llu", t,
					(unsigned long long)p->srv.requests[t]);
	pr_debug("virtio-9p %.*s: requests by type:%s", (int)p->tag_len, p->tag,
		 len ? buf : " none");
}

void shares_down(struct shares *s)
{
	while (s->nr) {
		/* The worker first: it counts the requests it serves. */
		virtio_9p_stop(&s->dev[--s->nr]);
		share_report(&s->dev[s->nr]);
		virtio_9p_destroy(&s->dev[s->nr]);
	}
}
