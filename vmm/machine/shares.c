// SPDX-License-Identifier: GPL-2.0
/* 9p share glue; see shares.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"
#include "vmm/machine/shares.h"

_Static_assert(CONFIG_TAG_MAX == VIRTIO_9P_TAG_MAX,
	       "--9p tags are checked against virtio-9p's limit");

static int share_up(struct shares *s, const struct share_config *sc,
		    struct board *b)
{
	struct virtio_9p *p = &s->dev[s->nr];
	struct board_slot *slot = board_virtio_slot(b, sc->path);
	int ret;

	if (!slot)
		return -ENOSPC;
	ret = virtio_9p_init(p, &slot->res, &b->vm->mem, &slot->line, sc->path,
			     sc->tag);
	if (ret) {
		pr_err("%s: cannot share over 9p: %s", sc->path,
		       strerror(-ret));
		return ret;
	}
	p->srv.ro = sc->ro;
	ret = board_virtio_add(slot, &p->vm);
	if (ret) {
		virtio_9p_destroy(p);
		return ret;
	}
	pr_debug("%s: virtio-9p, tag %s%s", sc->path, sc->tag,
		 sc->ro ? ", read-only" : "");
	s->nr++;
	return 0;
}

int shares_up(struct shares *s, const struct vm_config *cfg, struct board *b)
{
	int ret = 0;

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
		share_report(&s->dev[--s->nr]);
		virtio_9p_destroy(&s->dev[s->nr]);
	}
}
