// SPDX-License-Identifier: GPL-2.0
/*
 * virtio-mmio transport, version 2: the register decoder in front of the
 * shared virtio core (virtio/core.c).  See mmio.h for the behaviour.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libfdt.h>

#include "lib/dev_fdt.h"
#include "lib/log.h"
#include "virtio/mmio.h"

/* Writes to QueueNum and the ring address registers. */
static void vmmio_queue_write_locked(struct virtio_core *c, uint64_t off,
				     uint32_t val)
{
	struct virtqueue *vq = virtio_core_queue_writable(c);
	bool high = off & 4;

	if (!vq)
		return;
	switch (off & ~4ULL) {
	case VIRTIO_MMIO_QUEUE_NUM:
		vq->num = val;
		break;
	case VIRTIO_MMIO_QUEUE_DESC_LOW:
		virtio_core_set_half(&vq->desc_gpa, high, val);
		break;
	case VIRTIO_MMIO_QUEUE_DRIVER_LOW:
		virtio_core_set_half(&vq->avail_gpa, high, val);
		break;
	case VIRTIO_MMIO_QUEUE_DEVICE_LOW:
		virtio_core_set_half(&vq->used_gpa, high, val);
		break;
	}
}

/* --- registers ------------------------------------------------------- */

static uint32_t vmmio_reg_read_locked(struct virtio_core *c, uint64_t off)
{
	struct virtqueue *vq = virtio_core_sel_queue(c);

	switch (off) {
	case VIRTIO_MMIO_MAGIC_VALUE:
		return VIRTIO_MMIO_MAGIC;
	case VIRTIO_MMIO_VERSION:
		return VIRTIO_MMIO_VERSION_2;
	case VIRTIO_MMIO_DEVICE_ID:
		return c->dev.device_id;
	case VIRTIO_MMIO_VENDOR_ID:
		return VIRTIO_MMIO_VENDOR;
	case VIRTIO_MMIO_DEVICE_FEATURES:
		return virtio_core_device_features(c);
	case VIRTIO_MMIO_QUEUE_NUM_MAX:
		return vq ? vq->num_max : 0;
	case VIRTIO_MMIO_QUEUE_READY:
		return vq ? vq->ready : 0;
	case VIRTIO_MMIO_INTERRUPT_STATUS:
		return c->isr;
	case VIRTIO_MMIO_STATUS:
		return c->status;
	case VIRTIO_MMIO_CONFIG_GENERATION:
		return c->config_generation;
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

static void vmmio_reg_write_locked(struct virtio_core *c, uint64_t off,
				   uint32_t val)
{
	switch (off) {
	case VIRTIO_MMIO_DEVICE_FEATURES_SEL:
		c->device_features_sel = val;
		return;
	case VIRTIO_MMIO_DRIVER_FEATURES:
		virtio_core_driver_features_write(c, val);
		return;
	case VIRTIO_MMIO_DRIVER_FEATURES_SEL:
		c->driver_features_sel = val;
		return;
	case VIRTIO_MMIO_QUEUE_SEL:
		c->queue_sel = val;
		return;
	case VIRTIO_MMIO_QUEUE_NUM:
	case VIRTIO_MMIO_QUEUE_DESC_LOW:
	case VIRTIO_MMIO_QUEUE_DESC_HIGH:
	case VIRTIO_MMIO_QUEUE_DRIVER_LOW:
	case VIRTIO_MMIO_QUEUE_DRIVER_HIGH:
	case VIRTIO_MMIO_QUEUE_DEVICE_LOW:
	case VIRTIO_MMIO_QUEUE_DEVICE_HIGH:
		vmmio_queue_write_locked(c, off, val);
		return;
	case VIRTIO_MMIO_QUEUE_READY:
		virtio_core_queue_enable_locked(c, val);
		return;
	case VIRTIO_MMIO_QUEUE_NOTIFY:
		virtio_core_kick_locked(c, val);
		return;
	case VIRTIO_MMIO_INTERRUPT_ACK:
		virtio_core_isr_ack_locked(c, val);
		return;
	case VIRTIO_MMIO_STATUS:
		virtio_core_status_write_locked(c, val);
		return;
	case VIRTIO_MMIO_SHM_SEL:
		return;
	}
	pr_guest_once("virtio-mmio: write of register %#llx",
		      (unsigned long long)off);
}

/* --- bus callbacks --------------------------------------------------- */

enum vmmio_access { VMMIO_BAD, VMMIO_REG, VMMIO_CONFIG };

static enum vmmio_access vmmio_classify(const struct virtio_core *c,
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
	    off - VIRTIO_MMIO_CONFIG <= c->dev.config_size &&
	    len <= c->dev.config_size - (off - VIRTIO_MMIO_CONFIG))
		return VMMIO_CONFIG;
	pr_guest_once("virtio-mmio: %u-byte config access at %#llx", len,
		      (unsigned long long)off);
	return VMMIO_BAD;
}

static void vmmio_read(void *opaque, uint64_t off, void *data, unsigned int len)
{
	struct virtio_mmio *vm = opaque;
	struct virtio_core *c = &vm->core;
	enum vmmio_access a;

	if (!len || len > 8)
		return;
	memset(data, 0, len);
	a = vmmio_classify(c, off, len);
	if (a == VMMIO_BAD)
		return;
	virtio_core_lock(c);
	if (a == VMMIO_REG)
		mmio_data_put(data, 4, vmmio_reg_read_locked(c, off));
	else if (c->dev.ops->config_read)
		c->dev.ops->config_read(c->dev.opaque, off - VIRTIO_MMIO_CONFIG,
					data, len);
	virtio_core_unlock(c);
}

static void vmmio_write(void *opaque, uint64_t off, const void *data,
			unsigned int len)
{
	struct virtio_mmio *vm = opaque;
	struct virtio_core *c = &vm->core;
	enum vmmio_access a;

	if (!len || len > 8)
		return;
	a = vmmio_classify(c, off, len);
	if (a == VMMIO_BAD)
		return;
	virtio_core_lock(c);
	if (a == VMMIO_REG)
		vmmio_reg_write_locked(c, off, mmio_data_get(data, 4));
	else if (c->dev.ops->config_write)
		c->dev.ops->config_write(c->dev.opaque,
					 off - VIRTIO_MMIO_CONFIG, data, len);
	else
		pr_guest_once("virtio-mmio: write to read-only config");
	virtio_core_unlock(c);
}

static void vmmio_reset(void *opaque)
{
	struct virtio_mmio *vm = opaque;

	virtio_core_lock(&vm->core);
	virtio_core_reset_locked(&vm->core);
	virtio_core_unlock(&vm->core);
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

int virtio_mmio_init(struct virtio_mmio *vm, const struct dev_res *res,
		     const struct guest_mem *mem, const struct irq_line *irq,
		     const struct virtio_dev *dev)
{
	int ret;

	if (!res || (res->size && res->size < VIRTIO_MMIO_WINDOW))
		return -EINVAL;
	ret = virtio_core_init(&vm->core, mem, irq, dev);
	if (ret)
		return ret;
	vm->res = *res;
	return 0;
}

void virtio_mmio_destroy(struct virtio_mmio *vm)
{
	virtio_core_destroy(&vm->core);
}

const struct mmio_ops virtio_mmio_ops = {
	.name = "virtio-mmio",
	.sizes = MMIO_SIZE(1) | MMIO_SIZE(2) | MMIO_SIZE(4),
	.read = vmmio_read,
	.write = vmmio_write,
	.reset = vmmio_reset,
	.fdt = vmmio_fdt,
};
