// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the virtio-console device through its transport: a hostile driver
 * whose rings (placement, size, contents) live in a 64 KiB fake guest RAM
 * at guest address 0 (heap-allocated, so ASan sees any access outside it)
 * that starts as a copy of the input's tail, interleaved with transmit
 * notifications, host input deliveries from the "input thread" and
 * emergency writes.
 *
 * Input:  [ops_len: u16] [ops: ops_len bytes] [RAM image]
 * Ops (first byte % 8):
 *   0  driver setup [features: u8] [per queue: num: u8, desc, avail,
 *      used: u16 each]: reset, negotiate, both queues, DRIVER_OK
 *   1  transmit [room: u8]: the output takes room * 8 bytes more (255:
 *      any amount); odd room: QueueNotify 1, even: the output resumes
 *   2  host input [len: u8]: offer len bytes of a counter stream
 *   3  emergency write [char: u8] [size sel: u8]
 *   4  guest poke [u16 offset] [u8 len] [bytes]
 *   5  register write [reg: u8, * 4] [value: u32] / receiveq notification
 *   6  config space read [offset: u8 % 16] [size sel: u8]
 *   7  system reset
 * After every op the device's and transport's invariants are checked.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "virtio/console.h"
#include "lib/log.h"
#include "tests/fuzz/fuzz_virtio_util.h"
#include "tests/unit/slot_res.h"

struct fuzz_ctx {
	struct guest_mem mem;
	struct virtio_console con;
	int level;
	uint64_t out_bytes;
	uint8_t last_out;
	uint8_t rx_counter; /* the host input stream's next byte */
	unsigned int wakes;
	size_t room; /* the output's room, unless unlimited */
	bool unlimited;
	struct fuzz_in in;
};

/* Takes at most c->room bytes (a backed-up output), all when unlimited. */
static size_t fuzz_out(void *opaque, const uint8_t *buf, size_t len)
{
	struct fuzz_ctx *c = opaque;

	CHECK(buf && len > 0 && len <= VIRTIO_CONSOLE_TX_PIECE);
	if (!c->unlimited && len > c->room)
		len = c->room;
	if (!c->unlimited)
		c->room -= len;
	c->out_bytes += len;
	if (len)
		c->last_out = buf[len - 1];
	return len;
}

static void fuzz_wake(void *opaque)
{
	struct fuzz_ctx *c = opaque;

	c->wakes++;
}

static unsigned int fuzz_size(struct fuzz_ctx *c)
{
	static const unsigned int sizes[] = { 1, 2, 4 };

	return sizes[fuzz_u8(&c->in) % 3];
}

static uint32_t fuzz_read(struct fuzz_ctx *c, uint64_t off, unsigned int len)
{
	return vqm_mmio_rd_n(&c->con.vm, off, len);
}

static void fuzz_write(struct fuzz_ctx *c, uint64_t off, uint32_t v,
		       unsigned int len)
{
	vqm_mmio_wr_n(&c->con.vm, off, v, len);
}

static bool fuzz_live(const struct fuzz_ctx *c)
{
	uint32_t s = c->con.vm.core.status;

	return (s & VIRTIO_STATUS_DRIVER_OK) &&
	       !(s & (VIRTIO_STATUS_DEVICE_NEEDS_RESET | VIRTIO_STATUS_FAILED));
}

static void fuzz_queue(struct fuzz_ctx *c, uint32_t q)
{
	uint8_t n = fuzz_u8(&c->in);
	/* mostly powers of two up to 256, sometimes anything */
	uint32_t num = n & 0x80 ? n : 1u << (n % 9);
	uint16_t desc = fuzz_u16(&c->in);
	uint16_t avail = fuzz_u16(&c->in);
	uint16_t used = fuzz_u16(&c->in);

	fuzz_mmio_queue(&c->con.vm, q, num, desc, avail, used);
}

static void fuzz_setup(struct fuzz_ctx *c)
{
	uint64_t features = fuzz_transport_features(fuzz_u8(&c->in)) |
			    VIRTIO_BIT(VIRTIO_CONSOLE_F_EMERG_WRITE);

	fuzz_mmio_negotiate(&c->con.vm, features);
	CHECK(c->con.vm.core.status == 0xb);
	fuzz_queue(c, VIRTIO_CONSOLE_RX_QUEUE);
	fuzz_queue(c, VIRTIO_CONSOLE_TX_QUEUE);
	fuzz_write(c, VIRTIO_MMIO_STATUS, 0xf, 4);
}

static void fuzz_rx(struct fuzz_ctx *c)
{
	uint8_t buf[256];
	size_t len = fuzz_u8(&c->in), got;
	uint16_t used_before =
		c->con.vm.core.queues[VIRTIO_CONSOLE_RX_QUEUE].used_idx;
	bool live = fuzz_live(c);

	for (size_t i = 0; i < len; i++)
		buf[i] = c->rx_counter + i;
	got = virtio_console_receive(&c->con, buf, len);
	CHECK(got <= len);
	if (!live || !len)
		CHECK(got == 0);
	if (!live)
		CHECK(c->con.vm.core.queues[VIRTIO_CONSOLE_RX_QUEUE].used_idx ==
		      used_before);
	c->rx_counter += got; /* the rest is offered again */
}

static void fuzz_emerg(struct fuzz_ctx *c)
{
	uint8_t ch = fuzz_u8(&c->in);
	uint64_t before = c->out_bytes;

	bool room = c->unlimited || c->room;

	fuzz_write(c, VIRTIO_MMIO_CONFIG + VIRTIO_CONSOLE_CFG_EMERG_WR,
		   0xabcd00 | ch, fuzz_size(c));
	if (room)
		CHECK(c->out_bytes == before + 1 && c->last_out == ch);
	else
		CHECK(c->out_bytes == before); /* dropped */
}

/*
 * Transmit [room: u8]: the output takes room * 8 more bytes (255: any
 * amount); odd room: a notification, even: the output resumes the queue.
 */
static void fuzz_tx(struct fuzz_ctx *c)
{
	uint8_t room = fuzz_u8(&c->in);

	c->unlimited = room == 255;
	c->room = room * 8u;
	if (room & 1)
		fuzz_write(c, VIRTIO_MMIO_QUEUE_NOTIFY, VIRTIO_CONSOLE_TX_QUEUE,
			   4);
	else
		virtio_console_tx_resume(&c->con);
}

static void fuzz_reg(struct fuzz_ctx *c)
{
	uint8_t reg = fuzz_u8(&c->in);
	uint32_t v = fuzz_u32(&c->in);

	if (reg == VIRTIO_MMIO_QUEUE_NOTIFY / 4)
		v &= 3; /* mostly queues that exist */
	fuzz_write(c, reg * 4, v, 4);
}

static void fuzz_config(struct fuzz_ctx *c)
{
	uint32_t off = fuzz_u8(&c->in) % 16;
	unsigned int len = fuzz_size(c);
	uint32_t v = fuzz_read(c, VIRTIO_MMIO_CONFIG + off, len);
	uint8_t expect[16] = { [VIRTIO_CONSOLE_CFG_MAX_NR_PORTS] = 1 };

	if (off + len > VIRTIO_CONSOLE_CONFIG_SIZE)
		CHECK(v == 0);
	else
		CHECK(v == mmio_data_get(expect + off, len));
}

static void fuzz_invariants(const struct fuzz_ctx *c)
{
	const struct virtio_mmio *vm = &c->con.vm;

	CHECK(vm->core.irq_level == c->level);
	CHECK(c->level == (vm->core.isr != 0));
	CHECK(!(vm->core.isr & ~3u));
	for (unsigned int q = 0; q < VIRTIO_CONSOLE_NUM_QUEUES; q++) {
		const struct virtqueue *vq = &vm->core.queues[q];

		if (vq->ready)
			CHECK(vq->num && vq->num <= VIRTIO_CONSOLE_QUEUE_SIZE &&
			      !(vq->num & (vq->num - 1)));
		if (vq->broken)
			CHECK(vm->core.status &
			      VIRTIO_STATUS_DEVICE_NEEDS_RESET);
	}
}

static void fuzz_op(struct fuzz_ctx *c)
{
	uint8_t op = fuzz_u8(&c->in) % 8;
	uint64_t out_before = c->out_bytes;

	switch (op) {
	case 0:
		fuzz_setup(c);
		break;
	case 1:
		fuzz_tx(c);
		break;
	case 2:
		fuzz_rx(c);
		break;
	case 3:
		fuzz_emerg(c);
		break;
	case 4:
		fuzz_poke(&c->mem, &c->in);
		break;
	case 5:
		fuzz_reg(c);
		break;
	case 6:
		fuzz_config(c);
		break;
	default:
		virtio_mmio_ops.reset(&c->con.vm);
		CHECK(c->con.vm.core.status == 0 && c->level == 0);
		break;
	}
	/* only transmit notifications and emergency writes produce output */
	if (op != 1 && op != 3 && op != 5 && op != 0)
		CHECK(c->out_bytes == out_before);
	fuzz_invariants(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_ctx *c;
	struct irq_line irq = { .set = fuzz_irq_edge };
	struct char_out out = { .write = fuzz_out };

	log_level = -1;
	if (size < 2)
		return 0;
	c = calloc(1, sizeof(*c));
	CHECK(c);
	fuzz_ram_alloc(&c->mem);
	irq.opaque = &c->level;
	out.opaque = c;
	c->unlimited = true;
	CHECK(virtio_console_init(&c->con, &SLOT_RES(0), &c->mem, &irq, &out) ==
	      0);
	virtio_console_set_rx_wake(&c->con, fuzz_wake, c);
	fuzz_split_input(data, size, 2, &c->mem, &c->in);

	while (c->in.p < c->in.end)
		fuzz_op(c);

	virtio_mmio_ops.reset(&c->con.vm);
	CHECK(c->level == 0);
	CHECK(virtio_console_receive(&c->con, "x", 1) == 0);
	virtio_console_destroy(&c->con);
	fuzz_ram_free(&c->mem);
	free(c);
	return 0;
}
