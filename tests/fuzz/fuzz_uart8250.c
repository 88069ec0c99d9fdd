// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the 8250 register interface with an op stream:
 *   op % 16 in 0..5   read   [offset]
 *   op % 16 in 6..11  write  [offset] [value]
 *   op % 16 in 12..13 host receive [len % 24] [bytes...]
 *   op % 16 == 14     access of 2, 4 or 8 bytes (refused by the device)
 *   op % 16 == 15     reset
 * Offsets below 0xe0 are folded onto the 8 registers; the rest hit the
 * unused part of the window.  After every op the invariants are checked.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "devices/uart8250.h"
#include "lib/sizes.h"
#include "lib/log.h"

#define CHECK(cond)                       \
	do {                              \
		if (!(cond))              \
			__builtin_trap(); \
	} while (0)

struct fuzz_ctx {
	struct uart8250 u;
	int level; /* as seen through irq.set() */
	size_t tx; /* bytes written to char_out */
	const uint8_t *p, *end;
};

static void fuzz_irq_set(void *opaque, int level)
{
	struct fuzz_ctx *c = opaque;

	CHECK(level == 0 || level == 1);
	CHECK(level != c->level); /* edges only */
	c->level = level;
}

static size_t fuzz_write(void *opaque, const uint8_t *buf, size_t len)
{
	struct fuzz_ctx *c = opaque;

	CHECK(buf && len == 1);
	c->tx += len;
	/* a full sink: the UART must not care */
	return c->tx & 1;
}

static uint8_t fuzz_next(struct fuzz_ctx *c)
{
	return c->p < c->end ? *c->p++ : 0;
}

static uint64_t fuzz_offset(struct fuzz_ctx *c)
{
	uint8_t b = fuzz_next(c);

	return b < 0xe0 ? (b & 7) : b;
}

static bool fuzz_dlab(const struct fuzz_ctx *c)
{
	return c->u.lcr & UART8250_LCR_DLAB;
}

static void fuzz_check_read(struct fuzz_ctx *c, uint64_t off, uint8_t v,
			    int level, unsigned int count)
{
	if (off >= UART8250_NR_REGS) {
		CHECK(v == 0);
	} else if (off == UART8250_IIR) {
		/* IIR bit 0 is the inverse of the line's level. */
		CHECK((v & 1) == !level);
		CHECK((v & 0x30) == 0);
		CHECK((v & 0xc0) == 0 || (v & 0xc0) == 0xc0);
	} else if (off == UART8250_LSR) {
		CHECK((v & 0x60) == 0x60);
		CHECK((v & 0x9c) == 0);
		CHECK(!!(v & UART8250_LSR_DR) == (count > 0));
	} else if (off == UART8250_RBR && !fuzz_dlab(c)) {
		CHECK(c->u.rx_count == (count ? count - 1 : 0));
	}
}

static void fuzz_read(struct fuzz_ctx *c)
{
	uint64_t off = fuzz_offset(c);
	unsigned int count = c->u.rx_count;
	int level = c->level;
	uint8_t v = 0xaa;

	uart8250_mmio_ops.read(&c->u, off, &v, 1);
	fuzz_check_read(c, off, v, level, count);
}

static void fuzz_write_op(struct fuzz_ctx *c)
{
	uint64_t off = fuzz_offset(c);
	uint8_t v = fuzz_next(c);
	bool thr = off == UART8250_THR && !fuzz_dlab(c);
	bool loop = c->u.mcr & UART8250_MCR_LOOP;
	size_t tx = c->tx;

	uart8250_mmio_ops.write(&c->u, off, &v, 1);
	CHECK(c->tx == tx + (thr && !loop));
}

static void fuzz_receive(struct fuzz_ctx *c)
{
	size_t len = fuzz_next(c) % 24, avail = c->end - c->p;
	size_t space = uart8250_rx_space(&c->u), n;
	unsigned int count = c->u.rx_count;

	if (len > avail)
		len = avail;
	n = uart8250_receive(&c->u, c->p, len);
	c->p += len;
	CHECK(n == (len < space ? len : space));
	CHECK(c->u.rx_count == count + n);
}

static void fuzz_wide(struct fuzz_ctx *c)
{
	static const unsigned int sizes[] = { 2, 4, 8 };
	unsigned int len = sizes[fuzz_next(c) % 3];
	uint64_t off = fuzz_next(c) % (0x100ULL - len + 1);
	uint8_t buf[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	size_t tx = c->tx;
	int level = c->level;

	if (fuzz_next(c) & 1) {
		uart8250_mmio_ops.read(&c->u, off, buf, len);
		for (unsigned int i = 0; i < len; i++)
			CHECK(buf[i] == 0);
	} else {
		uart8250_mmio_ops.write(&c->u, off, buf, len);
	}
	CHECK(c->tx == tx && c->level == level);
}

static void fuzz_invariants(const struct fuzz_ctx *c)
{
	const struct uart8250 *u = &c->u;

	CHECK(u->rx_count <= UART8250_FIFO_SIZE);
	CHECK(u->rx_head < UART8250_FIFO_SIZE);
	if (!(u->fcr & UART8250_FCR_FE))
		CHECK(u->rx_count <= 1);
	CHECK(u->irq_level == c->level);
	CHECK((u->ier & ~UART8250_IER_MASK) == 0);
	CHECK((u->mcr & ~UART8250_MCR_MASK) == 0);
}

static void fuzz_op(struct fuzz_ctx *c)
{
	uint8_t op = fuzz_next(c) % 16;

	if (op < 6)
		fuzz_read(c);
	else if (op < 12)
		fuzz_write_op(c);
	else if (op < 14)
		fuzz_receive(c);
	else if (op == 14)
		fuzz_wide(c);
	else
		uart8250_mmio_ops.reset(&c->u);
	fuzz_invariants(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_ctx *c = calloc(1, sizeof(*c));
	struct irq_line irq = { .set = fuzz_irq_set };
	struct char_out out = { .write = fuzz_write };
	const struct dev_res res = { .base = 0x10000000, .size = 0x100 };
	uint8_t iir;
	int level;

	log_level = -1;
	CHECK(c);
	irq.opaque = c;
	out.opaque = c;
	CHECK(uart8250_init(&c->u, &res, &irq, &out) == 0);
	c->p = data;
	c->end = data + size;
	while (c->p < c->end)
		fuzz_op(c);

	level = c->level;
	uart8250_mmio_ops.read(&c->u, UART8250_IIR, &iir, 1);
	CHECK((iir & 1) == !level);
	fuzz_invariants(c);
	uart8250_mmio_ops.reset(&c->u);
	CHECK(c->level == 0);
	uart8250_destroy(&c->u);
	free(c);
	return 0;
}
