// SPDX-License-Identifier: GPL-2.0
/* 9p share glue; see shares.h. */
#include <errno.h>
#include <string.h>

#include "lib/log.h"
#include "shares.h"

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
	ret = board_virtio_add(slot, &p->vm);
	if (ret) {
		virtio_9p_destroy(p);
		return ret;
	}
	pr_debug("%s: virtio-9p, tag %s", sc->path, sc->tag);
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

void shares_down(struct shares *s)
{
	while (s->nr)
		virtio_9p_destroy(&s->dev[--s->nr]);
}
