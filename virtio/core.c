// SPDX-License-Identifier: GPL-2.0
/*
 * The virtio device state machine shared by the transports.  See core.h
 * for the behaviour and the locking rules.  Functions named *_locked (and
 * the static helpers) expect c->lock held.
 */
#include <errno.h>
#include <string.h>

#include "lib/log.h"
#include "virtio/core.h"

#define VIRTIO_CORE_DRIVER_BITS                                \
	(VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER |    \
	 VIRTIO_STATUS_FEATURES_OK | VIRTIO_STATUS_DRIVER_OK | \
	 VIRTIO_STATUS_FAILED)

static uint64_t core_offered(const struct virtio_core *c)
{
	uint64_t ring = VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC) |
			VIRTIO_BIT(VIRTIO_F_EVENT_IDX);

	return c->dev.features | VIRTIO_BIT(VIRTIO_F_VERSION_1) |
	       (ring & ~c->dev.withheld);
}

static void core_update_irq(struct virtio_core *c)
{
	int level = c->isr != 0;

	if (level != c->irq_level) {
		c->irq_level = level;
		irq_line_set(&c->irq, level);
	}
}

/* Interrupt the driver: by message if the front-end takes it, else ISR. */
static void core_interrupt(struct virtio_core *c, uint32_t bit, unsigned int q)
{
	if (c->msi.signal && c->msi.signal(c->msi.opaque, q))
		return;
	c->isr |= bit;
	core_update_irq(c);
}

/* §2.1.2: enter the error state and tell the driver (config change). */
static void core_needs_reset(struct virtio_core *c)
{
	if (c->status & VIRTIO_STATUS_DEVICE_NEEDS_RESET)
		return;
	c->status |= VIRTIO_STATUS_DEVICE_NEEDS_RESET;
	core_interrupt(c, VIRTIO_INT_CONFIG, VIRTIO_MSI_CONFIG);
}

void virtio_core_fail_locked(struct virtio_core *c)
{
	core_needs_reset(c);
}

void virtio_core_backend_used_locked(struct virtio_core *c, unsigned int q)
{
	if (q < c->dev.num_queues && c->queues[q].ready &&
	    (c->status & VIRTIO_STATUS_DRIVER_OK))
		core_interrupt(c, VIRTIO_INT_VRING, q);
}

static void core_check_broken(struct virtio_core *c)
{
	for (unsigned int q = 0; q < c->dev.num_queues; q++)
		if (c->queues[q].broken)
			core_needs_reset(c);
}

void virtio_core_reset_locked(struct virtio_core *c)
{
	c->status = 0;
	c->isr = 0;
	c->device_features_sel = 0;
	c->driver_features_sel = 0;
	c->queue_sel = 0;
	c->driver_features = 0;
	c->features = 0;
	c->kick_pending = 0;
	c->again = 0;
	for (unsigned int q = 0; q < c->dev.num_queues; q++)
		virtq_reset(&c->queues[q]); /* keeps the DMA hold */
	if (c->dev.ops->reset)
		c->dev.ops->reset(c->dev.opaque);
	core_update_irq(c);
}

/* May the device process its queues now? */
static bool core_live(const struct virtio_core *c)
{
	return (c->status & VIRTIO_STATUS_DRIVER_OK) && !c->dma_off &&
	       !(c->status &
		 (VIRTIO_STATUS_DEVICE_NEEDS_RESET | VIRTIO_STATUS_FAILED));
}

bool virtio_core_queue_live(const struct virtio_core *c, unsigned int q)
{
	return q < c->dev.num_queues && c->queues[q].ready && core_live(c);
}

void virtio_core_kick_locked(struct virtio_core *c, uint32_t q)
{
	if (q >= c->dev.num_queues) {
		pr_guest_once("virtio: notify of queue %u", q);
		return;
	}
	if (virtio_core_queue_live(c, q)) {
		c->dev.ops->notify(c->dev.opaque, q);
		core_check_broken(c);
	} else if (c->queues[q].ready &&
		   !(c->status & VIRTIO_STATUS_DRIVER_OK)) {
		c->kick_pending |= 1u << q;
	}
}

/*
 * Unlock; without a re-arm hook, first run the passes devices asked for
 * (virtio_core_rearm_locked()), letting other threads in between.
 */
static void core_unlock(struct virtio_core *c)
{
	while (c->again) {
		uint32_t again = c->again;

		c->again = 0;
		pthread_mutex_unlock(&c->lock);
		pthread_mutex_lock(&c->lock);
		for (unsigned int q = 0; q < c->dev.num_queues; q++) {
			if (!(again & (1u << q)) ||
			    !virtio_core_queue_live(c, q))
				continue;
			c->dev.ops->notify(c->dev.opaque, q);
			core_check_broken(c);
		}
	}
	pthread_mutex_unlock(&c->lock);
}

void virtio_core_kick(struct virtio_core *c, unsigned int q)
{
	pthread_mutex_lock(&c->lock);
	virtio_core_kick_locked(c, q);
	core_unlock(c);
}

void virtio_core_lock(struct virtio_core *c)
{
	pthread_mutex_lock(&c->lock);
}

void virtio_core_unlock(struct virtio_core *c)
{
	core_unlock(c);
}

void virtio_core_set_rearm(struct virtio_core *c, const struct virtio_rearm *r)
{
	pthread_mutex_lock(&c->lock);
	c->rearm = r && r->fn ? *r : (struct virtio_rearm){ 0 };
	core_unlock(c);
}

void virtio_core_set_route(struct virtio_core *c, const struct virtio_route *r)
{
	pthread_mutex_lock(&c->lock);
	c->route = r && r->fn ? *r : (struct virtio_route){ 0 };
	core_unlock(c);
}

bool virtio_core_route_locked(struct virtio_core *c, unsigned int q,
			      bool eventfd)
{
	if (q >= c->dev.num_queues || !c->route.fn)
		return false;
	return c->route.fn(c->route.opaque, q, eventfd);
}

void virtio_core_rearm_locked(struct virtio_core *c, unsigned int q)
{
	if (q >= c->dev.num_queues)
		return;
	if (c->rearm.fn)
		c->rearm.fn(c->rearm.opaque, q);
	else
		c->again |= 1u << q;
}

void virtio_core_set_dma_locked(struct virtio_core *c, bool on)
{
	uint32_t published = 0;

	if (c->dma_off == !on)
		return;
	c->dma_off = !on;
	if (c->dev.ops->dma)
		c->dev.ops->dma(c->dev.opaque, on);
	for (unsigned int q = 0; q < c->dev.num_queues; q++) {
		if (!on)
			virtq_hold(&c->queues[q]);
		else if (virtq_unhold(&c->queues[q]))
			published |= 1u << q;
	}
	if (!on)
		return;
	/* Held completions, then every live queue as if just notified. */
	for (unsigned int q = 0; q < c->dev.num_queues; q++) {
		if (!virtio_core_queue_live(c, q))
			continue;
		if (published & (1u << q))
			virtio_core_signal_used(c, q);
		virtio_core_rearm_locked(c, q);
	}
}

struct virtqueue *virtio_core_queue(struct virtio_core *c, unsigned int q)
{
	return q < c->dev.num_queues ? &c->queues[q] : NULL;
}

void virtio_core_signal_used(struct virtio_core *c, unsigned int q)
{
	if (q >= c->dev.num_queues)
		return;
	core_check_broken(c);
	if (!virtio_core_queue_live(c, q) || !virtq_need_notify(&c->queues[q]))
		return;
	core_interrupt(c, VIRTIO_INT_VRING, q);
}

int virtio_core_process(struct virtio_core *c, unsigned int q,
			struct virtq_chain *chain, virtio_chain_fn *fn,
			void *opaque)
{
	struct virtqueue *vq = virtio_core_queue(c, q);
	int pushed = 0, ret;
	uint32_t len;

	if (!virtio_core_queue_live(c, q))
		return 0;
	while ((ret = virtq_pop(vq, chain)) > 0) {
		len = 0;
		ret = fn(opaque, chain, &len);
		if (ret < 0) {
			virtq_unpop(vq, 1);
			break;
		}
		ret = virtq_push(vq, chain->head, len);
		if (ret < 0)
			break;
		pushed++;
	}
	if (pushed || ret < 0)
		virtio_core_signal_used(c, q);
	return ret < 0 ? ret : pushed;
}

/* --- status ---------------------------------------------------------- */

/* §3.1.1 step 5: may FEATURES_OK be set?  Asks the device last. */
static bool core_features_ok(const struct virtio_core *c)
{
	uint64_t f = c->driver_features;

	if ((f & ~core_offered(c)) || !(f & VIRTIO_BIT(VIRTIO_F_VERSION_1)))
		return false;
	return !c->dev.ops->features_ok ||
	       !c->dev.ops->features_ok(c->dev.opaque, f);
}

static void core_accept_features(struct virtio_core *c)
{
	c->features = c->driver_features;
	for (unsigned int q = 0; q < c->dev.num_queues; q++) {
		c->queues[q].event_idx =
			c->features & VIRTIO_BIT(VIRTIO_F_EVENT_IDX);
		c->queues[q].indirect =
			c->features & VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC);
	}
}

/* Requested new bits: accept those whose predecessor is (or gets) set. */
static uint32_t core_status_add(struct virtio_core *c, uint32_t cur,
				uint32_t set)
{
	uint32_t next =
		cur |
		(set & (VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_FAILED));

	if ((set & VIRTIO_STATUS_DRIVER) && (next & VIRTIO_STATUS_ACKNOWLEDGE))
		next |= VIRTIO_STATUS_DRIVER;
	if ((set & VIRTIO_STATUS_FEATURES_OK) &&
	    (next & VIRTIO_STATUS_DRIVER)) {
		if (core_features_ok(c))
			next |= VIRTIO_STATUS_FEATURES_OK;
		else
			pr_guest_once("virtio: features %#llx refused",
				      (unsigned long long)c->driver_features);
	}
	if ((set & VIRTIO_STATUS_DRIVER_OK) &&
	    (next & VIRTIO_STATUS_FEATURES_OK))
		next |= VIRTIO_STATUS_DRIVER_OK;
	return next;
}

void virtio_core_status_write_locked(struct virtio_core *c, uint32_t val)
{
	uint32_t cur = c->status, set, next;

	if (!val) {
		virtio_core_reset_locked(c);
		return;
	}
	if (cur & VIRTIO_CORE_DRIVER_BITS & ~val) {
		pr_guest_once("virtio: status %#x clears bits of %#x", val,
			      cur);
		return;
	}
	set = val & VIRTIO_CORE_DRIVER_BITS & ~cur;
	next = core_status_add(c, cur, set);
	if (set & ~next)
		pr_guest_once("virtio: status %#x out of order", val);
	c->status = next;
	if ((next & ~cur) & VIRTIO_STATUS_FEATURES_OK)
		core_accept_features(c);
	if (((next & ~cur) & VIRTIO_STATUS_DRIVER_OK) &&
	    c->dev.ops->driver_ok && c->dev.ops->driver_ok(c->dev.opaque))
		core_needs_reset(c);
	/* Notifications before DRIVER_OK were held back: process them. */
	if ((next & ~cur) & VIRTIO_STATUS_DRIVER_OK)
		for (unsigned int q = 0; q < c->dev.num_queues; q++)
			if (c->kick_pending & (1u << q))
				virtio_core_kick_locked(c, q);
	if (next & VIRTIO_STATUS_DRIVER_OK)
		c->kick_pending = 0;
}

/* --- features -------------------------------------------------------- */

uint32_t virtio_core_device_features(const struct virtio_core *c)
{
	if (c->device_features_sel > 1)
		return 0;
	return core_offered(c) >> (32 * c->device_features_sel);
}

uint32_t virtio_core_driver_features(const struct virtio_core *c)
{
	if (c->driver_features_sel > 1)
		return 0;
	return c->driver_features >> (32 * c->driver_features_sel);
}

void virtio_core_set_half(uint64_t *reg, bool high, uint32_t val)
{
	if (high)
		*reg = (*reg & 0xffffffffULL) | (uint64_t)val << 32;
	else
		*reg = (*reg & ~0xffffffffULL) | val;
}

void virtio_core_driver_features_write(struct virtio_core *c, uint32_t val)
{
	if (c->status & VIRTIO_STATUS_FEATURES_OK)
		pr_guest_once("virtio: features after FEATURES_OK");
	else if (c->driver_features_sel <= 1)
		virtio_core_set_half(&c->driver_features,
				     c->driver_features_sel, val);
}

/* --- queues ---------------------------------------------------------- */

struct virtqueue *virtio_core_sel_queue(struct virtio_core *c)
{
	return virtio_core_queue(c, c->queue_sel);
}

struct virtqueue *virtio_core_queue_writable(struct virtio_core *c)
{
	struct virtqueue *vq = virtio_core_sel_queue(c);

	if (!vq) {
		pr_guest_once("virtio: queue %u does not exist", c->queue_sel);
		return NULL;
	}
	if (vq->ready) {
		pr_guest_once("virtio: queue %u written while ready",
			      c->queue_sel);
		return NULL;
	}
	return vq;
}

void virtio_core_queue_enable_locked(struct virtio_core *c, uint32_t val)
{
	struct virtqueue *vq = virtio_core_sel_queue(c);

	if (!vq) {
		pr_guest_once("virtio: queue %u does not exist", c->queue_sel);
		return;
	}
	if (!val) {
		vq->ready = false;
		return;
	}
	if (vq->ready)
		return;
	if (!(c->status & VIRTIO_STATUS_FEATURES_OK)) {
		pr_guest_once("virtio: queue enabled before FEATURES_OK");
		core_needs_reset(c);
		return;
	}
	if (virtq_activate(vq))
		core_needs_reset(c);
}

/* --- interrupt status ------------------------------------------------ */

void virtio_core_isr_ack_locked(struct virtio_core *c, uint32_t bits)
{
	c->isr &= ~bits;
	core_update_irq(c);
}

void virtio_core_config_changed_locked(struct virtio_core *c)
{
	c->config_generation++;
	if (c->status & VIRTIO_STATUS_DRIVER_OK)
		core_interrupt(c, VIRTIO_INT_CONFIG, VIRTIO_MSI_CONFIG);
}

uint32_t virtio_core_isr_take_locked(struct virtio_core *c)
{
	uint32_t isr = c->isr;

	c->isr = 0;
	core_update_irq(c);
	return isr;
}

/* --- set-up ---------------------------------------------------------- */

bool virtio_core_dev_ok(const struct virtio_dev *dev)
{
	uint32_t n = dev->queue_num_max;

	return dev->ops && dev->ops->notify && dev->device_id &&
	       dev->num_queues >= 1 &&
	       dev->num_queues <= VIRTIO_CORE_MAX_QUEUES && n &&
	       n <= VIRTQ_MAX_SIZE && !(n & (n - 1)) &&
	       dev->config_size <= VIRTIO_CORE_CONFIG_MAX;
}

int virtio_core_init(struct virtio_core *c, const struct guest_mem *mem,
		     const struct irq_line *irq, const struct virtio_dev *dev)
{
	int ret;

	if (!mem || !dev || !virtio_core_dev_ok(dev))
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	ret = pthread_mutex_init(&c->lock, NULL);
	if (ret)
		return -ret;
	if (irq)
		c->irq = *irq;
	c->dev = *dev;
	for (unsigned int q = 0; q < dev->num_queues; q++)
		virtq_init(&c->queues[q], mem, dev->queue_num_max);
	return 0;
}

void virtio_core_destroy(struct virtio_core *c)
{
	for (unsigned int q = 0; q < c->dev.num_queues; q++)
		virtq_reset(&c->queues[q]); /* frees held elements */
	pthread_mutex_destroy(&c->lock);
}
