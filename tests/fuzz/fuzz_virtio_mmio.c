// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the virtio-mmio transport with a virtio-rng device behind it: a
 * stream of register accesses from a hostile driver, over a fake guest RAM
 * (64 KiB at guest address 0, heap-allocated so ASan sees any access
 * outside it) whose initial contents come from the input.
 *
 * Input:  [ops_len: u16] [ops: ops_len bytes] [RAM image]
 * Ops (first byte % 8):
 *   0-2  register write [reg: u8, * 4 -> 0x000..0x3fc] [value: u32]
 *   3    register read  [reg: u8]
 *   4    any access     [offset: u16 % 0x1000] [size sel] [rd/wr] [u32]
 *   5    guest poke     [u16 offset] [u8 len] [bytes]
 *   6    kick from an I/O thread's side [queue: u8]
 *   7    system reset
 * After every op the transport's invariants are checked.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "virtio/mmio.h"
#include "virtio/rng.h"
#include "lib/log.h"
#include "tests/fuzz/fuzz_virtio_util.h"
#include "tests/unit/slot_res.h"

struct fuzz_ctx {
	struct guest_mem mem;
	struct virtio_rng rng;
	int level;
	uint8_t counter;
	struct fuzz_in in;
};

static ssize_t fuzz_source(void *opaque, void *buf, size_t len)
{
	struct fuzz_ctx *c = opaque;
	uint8_t *p = buf;

	CHECK(len > 0 && len <= VIRTIO_RNG_CHAIN_MAX);
	if (c->counter == 0xff) {
		c->counter = 0;
		return -EIO;
	}
	for (size_t i = 0; i < len; i++)
		p[i] = c->counter++;
	return len;
}

static uint32_t fuzz_read(struct fuzz_ctx *c, uint64_t off, unsigned int len)
{
	return vqm_mmio_rd_n(&c->rng.vm, off, len);
}

static void fuzz_write(struct fuzz_ctx *c, uint64_t off, uint32_t v,
		       unsigned int len)
{
	vqm_mmio_wr_n(&c->rng.vm, off, v, len);
}

static void fuzz_check_read(struct fuzz_ctx *c, uint64_t off, uint32_t v)
{
	const struct virtio_mmio *vm = &c->rng.vm;

	switch (off) {
	case VIRTIO_MMIO_MAGIC_VALUE:
		CHECK(v == VIRTIO_MMIO_MAGIC);
		break;
	case VIRTIO_MMIO_VERSION:
		CHECK(v == 2);
		break;
	case VIRTIO_MMIO_DEVICE_ID:
		CHECK(v == VIRTIO_ID_RNG);
		break;
	case VIRTIO_MMIO_STATUS:
		CHECK(v == vm->core.status);
		break;
	case VIRTIO_MMIO_INTERRUPT_STATUS:
		CHECK(v == vm->core.isr && (v != 0) == c->level);
		break;
	}
	if (off >= VIRTIO_MMIO_CONFIG)
		CHECK(v == 0); /* rng has no config space */
}

/* Any offset, any of the sizes 1, 2, 3, 4, 8. */
static void fuzz_any(struct fuzz_ctx *c)
{
	static const unsigned int sizes[] = { 1, 2, 3, 4, 8 };
	uint64_t off = fuzz_u16(&c->in) % 0x1000;
	unsigned int len = sizes[fuzz_u8(&c->in) % 5];
	bool wr = fuzz_u8(&c->in) & 1;
	uint32_t v = fuzz_u32(&c->in);

	if (off + len > 0x1000)
		return; /* the bus would refuse it */
	if (wr)
		fuzz_write(c, off, v, len);
	else if (len != 4 || (off & 3))
		CHECK(fuzz_read(c, off, len) == 0);
	else
		fuzz_check_read(c, off, fuzz_read(c, off, len));
}

static void fuzz_invariants(const struct fuzz_ctx *c)
{
	const struct virtio_mmio *vm = &c->rng.vm;
	const struct virtqueue *vq = &vm->core.queues[0];
	uint64_t offered = VIRTIO_BIT(VIRTIO_F_VERSION_1) |
			   VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC) |
			   VIRTIO_BIT(VIRTIO_F_EVENT_IDX);

	CHECK(vm->core.irq_level == c->level);
	CHECK(c->level == (vm->core.isr != 0));
	CHECK(!(vm->core.isr & ~3u));
	CHECK(!(vm->core.status & ~0xcfu));
	if (vm->core.status & VIRTIO_STATUS_DRIVER)
		CHECK(vm->core.status & VIRTIO_STATUS_ACKNOWLEDGE);
	if (vm->core.status & VIRTIO_STATUS_DRIVER_OK)
		CHECK(vm->core.status & VIRTIO_STATUS_FEATURES_OK);
	if (vm->core.status & VIRTIO_STATUS_FEATURES_OK) {
		CHECK(vm->core.status & VIRTIO_STATUS_DRIVER);
		CHECK(!(vm->core.features & ~offered));
		CHECK(vm->core.features & VIRTIO_BIT(VIRTIO_F_VERSION_1));
	} else {
		CHECK(vm->core.features == 0);
	}
	if (vq->ready) {
		CHECK(vq->desc && vq->avail && vq->used);
		CHECK(vq->num && vq->num <= VIRTIO_RNG_QUEUE_SIZE);
		CHECK(vm->core.status & VIRTIO_STATUS_FEATURES_OK);
	}
	if (vq->broken)
		CHECK(vm->core.status & VIRTIO_STATUS_DEVICE_NEEDS_RESET);
}

static void fuzz_op(struct fuzz_ctx *c)
{
	uint8_t op = fuzz_u8(&c->in) % 8;
	uint64_t off;

	if (op < 3) {
		off = fuzz_u8(&c->in) * 4;
		fuzz_write(c, off, fuzz_u32(&c->in), 4);
	} else if (op == 3) {
		off = fuzz_u8(&c->in) * 4;
		fuzz_check_read(c, off, fuzz_read(c, off, 4));
	} else if (op == 4) {
		fuzz_any(c);
	} else if (op == 5) {
		fuzz_poke(&c->mem, &c->in);
	} else if (op == 6) {
		virtio_mmio_kick(&c->rng.vm, fuzz_u8(&c->in));
	} else {
		virtio_mmio_ops.reset(&c->rng.vm);
		CHECK(c->rng.vm.core.status == 0 && c->level == 0);
	}
	fuzz_invariants(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_ctx *c;
	struct irq_line irq = { .set = fuzz_irq_edge };

	log_level = -1;
	if (size < 2)
		return 0;
	c = calloc(1, sizeof(*c));
	CHECK(c);
	fuzz_ram_alloc(&c->mem);
	irq.opaque = &c->level;
	CHECK(virtio_rng_init(&c->rng, &SLOT_RES(0), &c->mem, &irq, fuzz_source,
			      c) == 0);
	fuzz_split_input(data, size, 2, &c->mem, &c->in);

	while (c->in.p < c->in.end)
		fuzz_op(c);

	virtio_mmio_ops.reset(&c->rng.vm);
	CHECK(c->level == 0);
	virtio_rng_destroy(&c->rng);
	fuzz_ram_free(&c->mem);
	free(c);
	return 0;
}
