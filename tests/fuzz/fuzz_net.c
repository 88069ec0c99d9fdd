// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the virtio-net device behind its virtio-mmio transport: a hostile
 * driver's rx and tx rings and chains over a fake guest RAM (64 KiB at
 * guest address 0, heap-allocated so ASan sees any access outside it),
 * interleaved with frames of fuzz-chosen sizes and headers arriving from
 * the backend.
 *
 * Input:  [cfg: 4 bytes] [ops_len: u16] [ops: ops_len bytes] [RAM image]
 *   cfg[0]  bit 0 MRG_RXBUF, bit 1 EVENT_IDX, bit 2 INDIRECT_DESC,
 *           bit 3 offload backend and every offload negotiated,
 *           bit 4 every third backend tx fails, bit 5 backend without
 *           rx_ready / set_offloads, bit 6 rx_ready retries a held frame
 *   cfg[1]  rx queue size 1 << (cfg[1] % 9)
 *   cfg[2]  tx queue size 1 << (cfg[2] % 9)
 *   cfg[3]  frame content seed
 * Rings: rx at 0, tx at 0x2000 (descriptors, avail right after them, used
 * at the next 4-byte boundary); the RAM image fills them.  Ops (first
 * byte % 8):
 *   0  notify tx          1  notify rx
 *   2  publish [head: u16] on rx    3  ... on tx
 *   4  guest poke [u16 offset] [u8 len] [bytes]
 *   5  receive [u16 len] [u8 flags] [u8 gso_type]: a frame of
 *      len bytes when len < 0x8000, else around VIRTIO_NET_FRAME_MAX
 *   6  interrupt ack and a config read [u8 offset]
 *   7  device reset, driver set-up again
 * Checked: the backend only sees frames in [12, FRAME_MAX]; receive
 * returns one of its documented codes and 0 publishes used entries; a
 * broken queue means NEEDS_RESET; the line follows InterruptStatus; the
 * config space never changes.  The devices live for the whole process,
 * reset by each input's driver set-up (see fuzz_init_net).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "virtio/mmio.h"
#include "virtio/net.h"
#include "lib/log.h"
#include "tests/fuzz/fuzz_virtio_util.h"
#include "tests/unit/slot_res.h"

#define TX_RINGS 0x2000

struct fuzz_ctx {
	struct guest_mem mem;
	struct virtio_net *net; /* one of fuzz_devs[], reset for each input */
	struct fuzz_ring rings[2]; /* VIRTIO_NET_RXQ, VIRTIO_NET_TXQ */
	uint64_t features;
	bool tx_fail, retry;
	unsigned int tx_calls;
	uint8_t seed;
	uint8_t *frame;	 /* VIRTIO_NET_FRAME_MAX + 16 bytes */
	size_t held_len; /* a frame that got -EAGAIN, 0 if none */
	struct fuzz_in in;
};

static const uint8_t fuzz_mac[6] = { 0x02, 0x15, 0x15, 0x15, 0x15, 0x15 };

/* --- the backend --------------------------------------------------------- */

static int fuzz_check_rx_ret(int ret)
{
	CHECK(ret == 0 || ret == -EAGAIN || ret == -ENETDOWN ||
	      ret == -EMSGSIZE || ret == -EPROTO || ret == -EIO);
	return ret;
}

static int fuzz_tx(void *opaque, const void *buf, size_t len)
{
	struct fuzz_ctx *c = opaque;
	const volatile uint8_t *b = buf;

	CHECK(len >= VIRTIO_NET_HDR_SIZE && len <= VIRTIO_NET_FRAME_MAX);
	(void)b[0];
	(void)b[len - 1];
	return c->tx_fail && ++c->tx_calls % 3 == 0 ? -ENOBUFS : 0;
}

static void fuzz_rx_ready(void *opaque)
{
	struct fuzz_ctx *c = opaque;
	int ret;

	if (!c->retry || !c->held_len)
		return;
	ret = fuzz_check_rx_ret(
		virtio_net_receive_locked(c->net, c->frame, c->held_len));
	if (ret != -EAGAIN)
		c->held_len = 0;
}

static int fuzz_set_offloads(void *opaque, uint64_t features)
{
	struct fuzz_ctx *c = opaque;

	CHECK(!(features & ~c->features));
	return 0;
}

static const struct virtio_net_backend_ops fuzz_ops = {
	.tx = fuzz_tx,
	.rx_ready = fuzz_rx_ready,
	.set_offloads = fuzz_set_offloads,
};

static const struct virtio_net_backend_ops fuzz_ops_tx_only = {
	.tx = fuzz_tx,
};

/* --- the driver ---------------------------------------------------------- */

static uint32_t fuzz_reg_read(struct fuzz_ctx *c, uint64_t off,
			      unsigned int len)
{
	return vqm_mmio_rd_n(&c->net->vm, off, len);
}

static void fuzz_reg_write(struct fuzz_ctx *c, uint64_t off, uint32_t v)
{
	vqm_mmio_wr_n(&c->net->vm, off, v, 4);
}

static void fuzz_driver_up(struct fuzz_ctx *c)
{
	fuzz_mmio_driver_up(&c->net->vm, c->features, c->rings, 2);
	c->held_len = 0;
}

/*
 * frame[i] = i * 13 + seed (mod 256), for i < len: a copy out of one table
 * of j * 13, since i * 13 + seed = (i + seed * 197) * 13 (197 * 13 = 1 mod
 * 256).  The byte loop it replaces, instrumented, was most of the time of
 * an input with a 64 KiB frame.
 */
static void fuzz_frame_fill(uint8_t *frame, size_t len, uint8_t seed)
{
	static uint8_t *pattern; /* VIRTIO_NET_FRAME_MAX + 16 + 256 bytes */

	if (!pattern) {
		pattern = malloc(VIRTIO_NET_FRAME_MAX + 16 + 256);
		CHECK(pattern);
		for (size_t j = 0; j < VIRTIO_NET_FRAME_MAX + 16 + 256; j++)
			pattern[j] = (uint8_t)(j * 13);
	}
	CHECK(len <= VIRTIO_NET_FRAME_MAX + 16);
	memcpy(frame, pattern + (uint8_t)(seed * 197), len);
}

static void fuzz_receive(struct fuzz_ctx *c)
{
	size_t len = fuzz_u16(&c->in);
	uint8_t flags = fuzz_u8(&c->in), gso = fuzz_u8(&c->in);
	const struct virtqueue *vq = &c->net->vm.core.queues[VIRTIO_NET_RXQ];
	uint16_t used_before = vq->used_idx;
	int ret;

	/* mostly small frames, sometimes past the maximum */
	if (len & 0x8000)
		len = VIRTIO_NET_FRAME_MAX - 8 + (len & 0xf);
	fuzz_frame_fill(c->frame, len, c->seed);
	if (len >= 2) {
		c->frame[VIRTIO_NET_HDR_FLAGS] = flags;
		c->frame[VIRTIO_NET_HDR_GSO_TYPE] = gso;
	}
	ret = fuzz_check_rx_ret(virtio_net_receive(c->net, c->frame, len));
	if (ret == 0)
		CHECK(vq->used_idx != used_before);
	else if (ret != -EIO)
		CHECK(vq->used_idx == used_before);
	c->held_len = ret == -EAGAIN ? len : 0;
}

static void fuzz_config(struct fuzz_ctx *c)
{
	uint32_t off = fuzz_u8(&c->in) % 12;

	fuzz_reg_write(c, VIRTIO_MMIO_INTERRUPT_ACK, 3);
	if (off < 6)
		CHECK(fuzz_reg_read(c, VIRTIO_MMIO_CONFIG + off, 1) ==
		      fuzz_mac[off]);
	else if (off < 10)
		CHECK(fuzz_reg_read(c, VIRTIO_MMIO_CONFIG + off, 1) ==
		      (off == 6 || off == 8));
	else
		CHECK(fuzz_reg_read(c, VIRTIO_MMIO_CONFIG + off, 1) == 0);
}

static void fuzz_invariants(const struct fuzz_ctx *c)
{
	const struct virtio_mmio *vm = &c->net->vm;

	for (unsigned int q = 0; q < 2; q++)
		if (vm->core.queues[q].broken)
			CHECK(vm->core.status &
			      VIRTIO_STATUS_DEVICE_NEEDS_RESET);
	CHECK((vm->core.isr != 0) == vm->core.irq_level);
}

static void fuzz_op(struct fuzz_ctx *c)
{
	switch (fuzz_u8(&c->in) % 8) {
	case 0:
		fuzz_reg_write(c, VIRTIO_MMIO_QUEUE_NOTIFY, VIRTIO_NET_TXQ);
		break;
	case 1:
		fuzz_reg_write(c, VIRTIO_MMIO_QUEUE_NOTIFY, VIRTIO_NET_RXQ);
		break;
	case 2:
		fuzz_publish(&c->mem, &c->rings[VIRTIO_NET_RXQ], &c->in);
		break;
	case 3:
		fuzz_publish(&c->mem, &c->rings[VIRTIO_NET_TXQ], &c->in);
		break;
	case 4:
		fuzz_poke(&c->mem, &c->in);
		break;
	case 5:
		fuzz_receive(c);
		break;
	case 6:
		fuzz_config(c);
		break;
	default:
		fuzz_driver_up(c);
	}
	fuzz_invariants(c);
}

/* --- set-up -------------------------------------------------------------- */

static void fuzz_configure(struct fuzz_ctx *c, const uint8_t *cfg)
{
	c->features = VIRTIO_BIT(VIRTIO_F_VERSION_1) |
		      VIRTIO_BIT(VIRTIO_NET_F_MAC) |
		      VIRTIO_BIT(VIRTIO_NET_F_STATUS);
	if (cfg[0] & 1)
		c->features |= VIRTIO_BIT(VIRTIO_NET_F_MRG_RXBUF);
	if (cfg[0] & 2)
		c->features |= VIRTIO_BIT(VIRTIO_F_EVENT_IDX);
	if (cfg[0] & 4)
		c->features |= VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC);
	if ((cfg[0] & 8) && !(cfg[0] & 0x20))
		c->features |= VIRTIO_NET_OFFLOAD_FEATURES;
	c->tx_fail = cfg[0] & 0x10;
	c->retry = cfg[0] & 0x40;
	c->seed = cfg[3];
	fuzz_ring_at(&c->rings[VIRTIO_NET_RXQ], 0, cfg[1]);
	fuzz_ring_at(&c->rings[VIRTIO_NET_TXQ], TX_RINGS, cfg[2]);
}

/*
 * The device for this input's backend: one per (offloads, no rx_ready /
 * set_offloads) for the whole process, set up the first time and then
 * reset by each input's driver set-up (status 0), as a guest would.  A
 * fresh device per input (a 64 KiB tx buffer, page-faulted anew under
 * ASan each time) made the target run 2500 inputs/s.  The statistics,
 * which a reset keeps, start again at zero.
 */
static struct virtio_net fuzz_devs[3];
static bool fuzz_devs_up[3];

static void fuzz_init_net(struct fuzz_ctx *c, const uint8_t *cfg)
{
	struct virtio_net_backend be = {
		.ops = (cfg[0] & 0x20) ? &fuzz_ops_tx_only : &fuzz_ops,
		.opaque = c,
		.offloads = (cfg[0] & 8) && !(cfg[0] & 0x20),
	};
	const struct irq_line irq = { 0 };
	unsigned int key = (cfg[0] & 0x20) ? 2 : be.offloads;

	memcpy(be.mac, fuzz_mac, sizeof(fuzz_mac));
	c->net = &fuzz_devs[key];
	if (!fuzz_devs_up[key]) {
		CHECK(virtio_net_init(c->net, &SLOT_RES(0), &c->mem, &irq,
				      &be) == 0);
		fuzz_devs_up[key] = true;
	}
	CHECK(c->net->be.opaque == c && c->net->be.ops == be.ops);
	memset(&c->net->stats, 0, sizeof(c->net->stats));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_ctx ctx;
	static uint8_t *frame;
	struct fuzz_ctx *c = &ctx;

	log_level = -1;
	if (size < 6)
		return 0;
	if (!frame)
		frame = malloc(VIRTIO_NET_FRAME_MAX + 16);
	CHECK(frame);
	memset(c, 0, sizeof(*c));
	fuzz_ram_alloc(&c->mem);
	c->frame = frame;
	fuzz_configure(c, data);
	fuzz_init_net(c, data);
	fuzz_split_input(data, size, 6, &c->mem, &c->in);
	fuzz_driver_up(c);

	while (c->in.p < c->in.end)
		fuzz_op(c);
	fuzz_reg_write(c, VIRTIO_MMIO_QUEUE_NOTIFY, VIRTIO_NET_TXQ);
	fuzz_reg_write(c, VIRTIO_MMIO_QUEUE_NOTIFY, VIRTIO_NET_RXQ);
	fuzz_invariants(c);
	fuzz_ram_free(&c->mem);
	return 0;
}
