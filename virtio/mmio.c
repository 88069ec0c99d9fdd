// SPDX-License-Identifier: GPL-2.0
/*
 * virtio-mmio transport, version 2.  See mmio.h for the behaviour and the
 * locking rules.  Functions named *_locked expect vm->lock held.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libfdt.h>

#include "virtio/mmio.h"
#include "lib/dev_fdt.h"
#include "lib/log.h"

#define VIRTIO_MMIO_DRIVER_BITS                                \
	(VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER |    \
	 VIRTIO_STATUS_FEATURES_OK | VIRTIO_STATUS_DRIVER_OK | \
	 VIRTIO_STATUS_FAILED)

static uint64_t vmmio_offered(const struct virtio_mmio *vm)
{
	return vm->dev.features | VIRTIO_BIT(VIRTIO_F_VERSION_1) |
	       VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC) |
	       VIRTIO_BIT(VIRTIO_F_EVENT_IDX);
}

static void vmmio_update_irq_locked(struct virtio_mmio *vm)
{
	int level = vm->isr != 0;

	if (level != vm->irq_level) {
		vm->irq_level = level;
		irq_line_set(&vm->irq, level);
	}
}

/* §2.1.2: enter the error state and tell the driver (config change). */
static void vmmio_needs_reset_locked(struct virtio_mmio *vm)
{
	if (vm->status & VIRTIO_STATUS_DEVICE_NEEDS_RESET)
		return;
	vm->status |= VIRTIO_STATUS_DEVICE_NEEDS_RESET;
	vm->isr |= VIRTIO_MMIO_INT_CONFIG;
	vmmio_update_irq_locked(vm);
}

static void vmmio_check_broken_locked(struct virtio_mmio *vm)
{
	for (unsigned int q = 0; q < vm->dev.num_queues; q++)
		if (vm->queues[q].broken)
			vmmio_needs_reset_locked(vm);
}

static void vmmio_reset_locked(struct virtio_mmio *vm)
{
	vm->status = 0;
	vm->isr = 0;
	vm->device_features_sel = 0;
	vm->driver_features_sel = 0;
	vm->queue_sel = 0;
	vm->driver_features = 0;
	vm->features = 0;
	vm->kick_pending = 0;
	for (unsigned int q = 0; q < vm->dev.num_queues; q++)
		virtq_reset(&vm->queues[q]);
	if (vm->dev.ops->reset)
		vm->dev.ops->reset(vm->dev.opaque);
	vmmio_update_irq_locked(vm);
}

/* May the device process its queues now? */
static bool vmmio_live(const struct virtio_mmio *vm)
{
	return (vm->status & VIRTIO_STATUS_DRIVER_OK) &&
	       !(vm->status &
		 (VIRTIO_STATUS_DEVICE_NEEDS_RESET | VIRTIO_STATUS_FAILED));
}

bool virtio_mmio_queue_live(const struct virtio_mmio *vm, unsigned int q)
{
	return q < vm->dev.num_queues && vm->queues[q].ready && vmmio_live(vm);
}

static void vmmio_kick_locked(struct virtio_mmio *vm, uint32_t q)
{
	if (q >= vm->dev.num_queues) {
		pr_guest_once("virtio-mmio: notify of queue %u", q);
		return;
	}
	if (virtio_mmio_queue_live(vm, q)) {
		vm->dev.ops->notify(vm->dev.opaque, q);
		vmmio_check_broken_locked(vm);
	} else if (vm->queues[q].ready &&
		   !(vm->status & VIRTIO_STATUS_DRIVER_OK)) {
		vm->kick_pending |= 1u << q;
	}
}

void virtio_mmio_kick(struct virtio_mmio *vm, unsigned int q)
{
	pthread_mutex_lock(&vm->lock);
	vmmio_kick_locked(vm, q);
	pthread_mutex_unlock(&vm->lock);
}

void virtio_mmio_lock(struct virtio_mmio *vm)
{
	pthread_mutex_lock(&vm->lock);
}

void virtio_mmio_unlock(struct virtio_mmio *vm)
{
	pthread_mutex_unlock(&vm->lock);
}

struct virtqueue *virtio_mmio_queue(struct virtio_mmio *vm, unsigned int q)
{
	return q < vm->dev.num_queues ? &vm->queues[q] : NULL;
}

void virtio_mmio_signal_used(struct virtio_mmio *vm, unsigned int q)
{
	if (q >= vm->dev.num_queues)
		return;
	vmmio_check_broken_locked(vm);
	if (!virtio_mmio_queue_live(vm, q) ||
	    !virtq_need_notify(&vm->queues[q]))
		return;
	vm->isr |= VIRTIO_MMIO_INT_VRING;
	vmmio_update_irq_locked(vm);
}

int virtio_mmio_process(struct virtio_mmio *vm, unsigned int q,
			struct virtq_chain *chain, virtio_chain_fn *fn,
			void *opaque)
{
	struct virtqueue *vq = virtio_mmio_queue(vm, q);
	int pushed = 0, ret;
	uint32_t len;

	if (!virtio_mmio_queue_live(vm, q))
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
		virtio_mmio_signal_used(vm, q);
	return ret < 0 ? ret : pushed;
}

/* --- status ---------------------------------------------------------- */

/* §3.1.1 step 5: may FEATURES_OK be set?  Asks the device last. */
static bool vmmio_features_ok(const struct virtio_mmio *vm)
{
	uint64_t f = vm->driver_features;

	if ((f & ~vmmio_offered(vm)) || !(f & VIRTIO_BIT(VIRTIO_F_VERSION_1)))
		return false;
	return !vm->dev.ops->features_ok ||
	       !vm->dev.ops->features_ok(vm->dev.opaque, f);
}

static void vmmio_accept_features_locked(struct virtio_mmio *vm)
{
	vm->features = vm->driver_features;
	for (unsigned int q = 0; q < vm->dev.num_queues; q++) {
		vm->queues[q].event_idx =
			vm->features & VIRTIO_BIT(VIRTIO_F_EVENT_IDX);
		vm->queues[q].indirect =
			vm->features & VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC);
	}
}

/* Requested new bits: accept those whose predecessor is (or gets) set. */
static uint32_t vmmio_status_add(struct virtio_mmio *vm, uint32_t cur,
				 uint32_t set)
{
	uint32_t next =
		cur |
		(set & (VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_FAILED));

	if ((set & VIRTIO_STATUS_DRIVER) && (next & VIRTIO_STATUS_ACKNOWLEDGE))
		next |= VIRTIO_STATUS_DRIVER;
	if ((set & VIRTIO_STATUS_FEATURES_OK) &&
	    (next & VIRTIO_STATUS_DRIVER)) {
		if (vmmio_features_ok(vm))
			next |= VIRTIO_STATUS_FEATURES_OK;
		else
			pr_guest_once("virtio-mmio: features %#llx refused",
				      (unsigned long long)vm->driver_features);
	}
	if ((set & VIRTIO_STATUS_DRIVER_OK) &&
	    (next & VIRTIO_STATUS_FEATURES_OK))
		next |= VIRTIO_STATUS_DRIVER_OK;
	return next;
}

static void vmmio_status_write_locked(struct virtio_mmio *vm, uint32_t val)
{
	uint32_t cur = vm->status, set, next;

	if (!val) {
		vmmio_reset_locked(vm);
		return;
	}
	if (cur & VIRTIO_MMIO_DRIVER_BITS & ~val) {
		pr_guest_once("virtio-mmio: status %#x clears bits of %#x", val,
			      cur);
		return;
	}
	set = val & VIRTIO_MMIO_DRIVER_BITS & ~cur;
	next = vmmio_status_add(vm, cur, set);
	if (set & ~next)
		pr_guest_once("virtio-mmio: status %#x out of order", val);
	vm->status = next;
	if ((next & ~cur) & VIRTIO_STATUS_FEATURES_OK)
		vmmio_accept_features_locked(vm);
	/* Notifications before DRIVER_OK were held back: process them. */
	if ((next & ~cur) & VIRTIO_STATUS_DRIVER_OK)
		for (unsigned int q = 0; q < vm->dev.num_queues; q++)
			if (vm->kick_pending & (1u << q))
				vmmio_kick_locked(vm, q);
	if (next & VIRTIO_STATUS_DRIVER_OK)
		vm->kick_pending = 0;
}

/* --- queues ---------------------------------------------------------- */

static struct virtqueue *vmmio_sel_queue(struct virtio_mmio *vm)
{
	return virtio_mmio_queue(vm, vm->queue_sel);
}

/* The selected queue if its registers may be written, else NULL. */
static struct virtqueue *vmmio_queue_writable(struct virtio_mmio *vm)
{
	struct virtqueue *vq = vmmio_sel_queue(vm);

	if (!vq) {
		pr_guest_once("virtio-mmio: queue %u does not exist",
			      vm->queue_sel);
		return NULL;
	}
	if (vq->ready) {
		pr_guest_once("virtio-mmio: queue %u written while ready",
			      vm->queue_sel);
		return NULL;
	}
	return vq;
}

static void vmmio_set_half(uint64_t *reg, bool high, uint32_t val)
{
	if (high)
		*reg = (*reg & 0xffffffffULL) | (uint64_t)val << 32;
	else
		*reg = (*reg & ~0xffffffffULL) | val;
}

static void vmmio_queue_ready_locked(struct virtio_mmio *vm, uint32_t val)
{
	struct virtqueue *vq = vmmio_sel_queue(vm);

	if (!vq) {
		pr_guest_once("virtio-mmio: queue %u does not exist",
			      vm->queue_sel);
		return;
	}
	if (!val) {
		vq->ready = false;
		return;
	}
	if (vq->ready)
		return;
	if (!(vm->status & VIRTIO_STATUS_FEATURES_OK)) {
		pr_guest_once("virtio-mmio: queue enabled before FEATURES_OK");
		vmmio_needs_reset_locked(vm);
		return;
	}
	if (virtq_activate(vq))
		vmmio_needs_reset_locked(vm);
}

/* Writes to QueueNum and the ring address registers. */
static void vmmio_queue_write_locked(struct virtio_mmio *vm, uint64_t off,
				     uint32_t val)
{
	struct virtqueue *vq = vmmio_queue_writable(vm);
	bool high = off & 4;

	if (!vq)
		return;
	switch (off & ~4ULL) {
	case VIRTIO_MMIO_QUEUE_NUM:
		vq->num = val;
		break;
	case VIRTIO_MMIO_QUEUE_DESC_LOW:
		vmmio_set_half(&vq->desc_gpa, high, val);
		break;
	case VIRTIO_MMIO_QUEUE_DRIVER_LOW:
		vmmio_set_half(&vq->avail_gpa, high, val);
		break;
	case VIRTIO_MMIO_QUEUE_DEVICE_LOW:
		vmmio_set_half(&vq->used_gpa, high, val);
		break;
	}
}

/* --- registers ------------------------------------------------------- */

static uint32_t vmmio_reg_read_locked(struct virtio_mmio *vm, uint64_t off)
{
	struct virtqueue *vq = vmmio_sel_queue(vm);

	switch (off) {
	case VIRTIO_MMIO_MAGIC_VALUE:
		return VIRTIO_MMIO_MAGIC;
	case VIRTIO_MMIO_VERSION:
		return VIRTIO_MMIO_VERSION_2;
	case VIRTIO_MMIO_DEVICE_ID:
		return vm->dev.device_id;
	case VIRTIO_MMIO_VENDOR_ID:
		return VIRTIO_MMIO_VENDOR;
	case VIRTIO_MMIO_DEVICE_FEATURES:
		if (vm->device_features_sel > 1)
			return 0;
		return vmmio_offered(vm) >> (32 * vm->device_features_sel);
	case VIRTIO_MMIO_QUEUE_NUM_MAX:
		return vq ? vq->num_max : 0;
	case VIRTIO_MMIO_QUEUE_READY:
		return vq ? vq->ready : 0;
	case VIRTIO_MMIO_INTERRUPT_STATUS:
		return vm->isr;
	case VIRTIO_MMIO_STATUS:
		return vm->status;
	case VIRTIO_MMIO_CONFIG_GENERATION:
		return vm->config_generation;
	case VIRTIO_MMIO_SHM_LEN_LOW:
	case VIRTIO_MMIO_SHM_LEN_HIGH:
	case VIRTIO_MMIO_SHM_BASE_LOW:
	case VIRTIO_MMIO_SHM_BASE_HIGH:
		return 0xffffffff; /* no shared memory regions (-1) */
	}
	pr_guest_once("virtio-mmio: read of register %#llx",
		      (unsigned long long)off);
	return 0;
}

static void vmmio_reg_write_locked(struct virtio_mmio *vm, uint64_t off,
				   uint32_t val)
{
	switch (off) {
	case VIRTIO_MMIO_DEVICE_FEATURES_SEL:
		vm->device_features_sel = val;
		return;
	case VIRTIO_MMIO_DRIVER_FEATURES:
		if (vm->status & VIRTIO_STATUS_FEATURES_OK)
			pr_guest_once("virtio-mmio: features after "
				      "FEATURES_OK");
		else if (vm->driver_features_sel <= 1)
			vmmio_set_half(&vm->driver_features,
				       vm->driver_features_sel, val);
		return;
	case VIRTIO_MMIO_DRIVER_FEATURES_SEL:
		vm->driver_features_sel = val;
		return;
	case VIRTIO_MMIO_QUEUE_SEL:
		vm->queue_sel = val;
		return;
	case VIRTIO_MMIO_QUEUE_NUM:
	case VIRTIO_MMIO_QUEUE_DESC_LOW:
	case VIRTIO_MMIO_QUEUE_DESC_HIGH:
	case VIRTIO_MMIO_QUEUE_DRIVER_LOW:
	case VIRTIO_MMIO_QUEUE_DRIVER_HIGH:
	case VIRTIO_MMIO_QUEUE_DEVICE_LOW:
	case VIRTIO_MMIO_QUEUE_DEVICE_HIGH:
		vmmio_queue_write_locked(vm, off, val);
		return;
	case VIRTIO_MMIO_QUEUE_READY:
		vmmio_queue_ready_locked(vm, val);
		return;
	case VIRTIO_MMIO_QUEUE_NOTIFY:
		vmmio_kick_locked(vm, val);
		return;
	case VIRTIO_MMIO_INTERRUPT_ACK:
		vm->isr &= ~val;
		vmmio_update_irq_locked(vm);
		return;
	case VIRTIO_MMIO_STATUS:
		vmmio_status_write_locked(vm, val);
		return;
	case VIRTIO_MMIO_SHM_SEL:
		return;
	}
	pr_guest_once("virtio-mmio: write of register %#llx",
		      (unsigned long long)off);
}

/* --- bus callbacks --------------------------------------------------- */

enum vmmio_access { VMMIO_BAD, VMMIO_REG, VMMIO_CONFIG };

static enum vmmio_access vmmio_classify(const struct virtio_mmio *vm,
					uint64_t off, unsigned int len)
{
	if (off < VIRTIO_MMIO_CONFIG) {
		if (len == 4 && !(off & 3))
			return VMMIO_REG;
		pr_guest_once("virtio-mmio: %u-byte access at %#llx", len,
			      (unsigned long long)off);
		return VMMIO_BAD;
	}
	if ((len == 1 || len == 2 || len == 4) &&
	    off - VIRTIO_MMIO_CONFIG <= vm->dev.config_size &&
	    len <= vm->dev.config_size - (off - VIRTIO_MMIO_CONFIG))
		return VMMIO_CONFIG;
	pr_guest_once("virtio-mmio: %u-byte config access at %#llx", len,
		      (unsigned long long)off);
	return VMMIO_BAD;
}

static void vmmio_read(void *opaque, uint64_t off, void *data, unsigned int len)
{
	struct virtio_mmio *vm = opaque;
	enum vmmio_access a;

	if (!len || len > 8)
		return;
	memset(data, 0, len);
	a = vmmio_classify(vm, off, len);
	if (a == VMMIO_BAD)
		return;
	pthread_mutex_lock(&vm->lock);
	if (a == VMMIO_REG)
		mmio_data_put(data, 4, vmmio_reg_read_locked(vm, off));
	else if (vm->dev.ops->config_read)
		vm->dev.ops->config_read(vm->dev.opaque,
					 off - VIRTIO_MMIO_CONFIG, data, len);
	pthread_mutex_unlock(&vm->lock);
}

static void vmmio_write(void *opaque, uint64_t off, const void *data,
			unsigned int len)
{
	struct virtio_mmio *vm = opaque;
	enum vmmio_access a;

	if (!len || len > 8)
		return;
	a = vmmio_classify(vm, off, len);
	if (a == VMMIO_BAD)
		return;
	pthread_mutex_lock(&vm->lock);
	if (a == VMMIO_REG)
		vmmio_reg_write_locked(vm, off, mmio_data_get(data, 4));
	else if (vm->dev.ops->config_write)
		vm->dev.ops->config_write(vm->dev.opaque,
					  off - VIRTIO_MMIO_CONFIG, data, len);
	else
		pr_guest_once("virtio-mmio: write to read-only config");
	pthread_mutex_unlock(&vm->lock);
}

static void vmmio_reset(void *opaque)
{
	struct virtio_mmio *vm = opaque;

	pthread_mutex_lock(&vm->lock);
	vmmio_reset_locked(vm);
	pthread_mutex_unlock(&vm->lock);
}

static int vmmio_fdt(void *opaque, void *fdt)
{
	static const char compat[] = "virtio,mmio";
	const struct virtio_mmio *vm = opaque;
	int err;

	err = dev_fdt_begin(fdt, "virtio_mmio", compat, sizeof(compat),
			    &vm->res);
	err = err ?: dev_fdt_irq(fdt, &vm->res);
	err = err ?: fdt_property(fdt, "dma-coherent", NULL, 0);
	return err ?: fdt_end_node(fdt);
}

static bool vmmio_dev_ok(const struct virtio_dev *dev)
{
	uint32_t n = dev->queue_num_max;

	return dev->ops && dev->ops->notify && dev->device_id &&
	       dev->num_queues >= 1 &&
	       dev->num_queues <= VIRTIO_MMIO_MAX_QUEUES && n &&
	       n <= VIRTQ_MAX_SIZE && !(n & (n - 1)) &&
	       dev->config_size <= VIRTIO_MMIO_CONFIG_MAX;
}

int virtio_mmio_init(struct virtio_mmio *vm, const struct dev_res *res,
		     const struct guest_mem *mem, const struct irq_line *irq,
		     const struct virtio_dev *dev)
{
	int ret;

	if (!res || res->size < VIRTIO_MMIO_WINDOW || !mem ||
	    !vmmio_dev_ok(dev))
		return -EINVAL;
	memset(vm, 0, sizeof(*vm));
	ret = pthread_mutex_init(&vm->lock, NULL);
	if (ret)
		return -ret;
	vm->res = *res;
	if (irq)
		vm->irq = *irq;
	vm->dev = *dev;
	for (unsigned int q = 0; q < dev->num_queues; q++)
		virtq_init(&vm->queues[q], mem, dev->queue_num_max);
	return 0;
}

void virtio_mmio_destroy(struct virtio_mmio *vm)
{
	pthread_mutex_destroy(&vm->lock);
}

const struct mmio_ops virtio_mmio_ops = {
	.name = "virtio-mmio",
	.sizes = MMIO_SIZE(1) | MMIO_SIZE(2) | MMIO_SIZE(4),
	.read = vmmio_read,
	.write = vmmio_write,
	.reset = vmmio_reset,
	.fdt = vmmio_fdt,
};
