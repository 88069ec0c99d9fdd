// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <pthread.h>
#include <sched.h>
#include <cmocka.h>

#include <libfdt.h>

#include "devices/uart8250.h"

/* Where a board would put the UART: source 10 of the irqchip, phandle 1. */
static const struct dev_res uart_res = {
	.base = 0x10000000,
	.size = 0x100,
	.irq = 10,
	.irq_parent = 1,
	.irq_cells = 1,
};

#define MAX_EDGES 64
#define MAX_TX 256

/* Recording fakes for the two outputs. */
struct fake {
	int edges[MAX_EDGES];
	unsigned int nr_edges;
	uint8_t tx[MAX_TX];
	size_t nr_tx;
	unsigned int nr_tx_calls;
	struct uart8250 u;
};

static void fake_irq_set(void *opaque, int level)
{
	struct fake *f = opaque;

	assert_true(f->nr_edges < MAX_EDGES);
	f->edges[f->nr_edges++] = level;
}

static size_t fake_write(void *opaque, const uint8_t *buf, size_t len)
{
	struct fake *f = opaque;

	assert_true(f->nr_tx + len <= MAX_TX);
	memcpy(f->tx + f->nr_tx, buf, len);
	f->nr_tx += len;
	f->nr_tx_calls++;
	return len;
}

static int setup(void **state)
{
	struct fake *f = test_calloc(1, sizeof(*f));
	const struct irq_line irq = { .set = fake_irq_set, .opaque = f };
	const struct char_out out = { .write = fake_write, .opaque = f };

	if (!f || uart8250_init(&f->u, &uart_res, &irq, &out))
		return -1;
	/* A driver listens (see test_rx_waits_for_a_driver). */
	f->u.rx_armed = true;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fake *f = *state;

	uart8250_destroy(&f->u);
	test_free(f);
	return 0;
}

static uint8_t rd(struct fake *f, uint64_t off)
{
	uint8_t v = 0xee;

	uart8250_mmio_ops.read(&f->u, off, &v, 1);
	return v;
}

static void wr(struct fake *f, uint64_t off, uint8_t v)
{
	uart8250_mmio_ops.write(&f->u, off, &v, 1);
}

static size_t rx_str(struct fake *f, const char *s)
{
	return uart8250_receive(&f->u, (const uint8_t *)s, strlen(s));
}

/* The interrupt line as last set (0 before any edge). */
static int line(const struct fake *f)
{
	return f->nr_edges ? f->edges[f->nr_edges - 1] : 0;
}

static void check_power_on(struct fake *f)
{
	assert_int_equal(rd(f, UART8250_IER), 0x00);
	assert_int_equal(rd(f, UART8250_IIR), 0x01);
	assert_int_equal(rd(f, UART8250_LCR), 0x00);
	assert_int_equal(rd(f, UART8250_MCR), 0x00);
	assert_int_equal(rd(f, UART8250_LSR), 0x60);
	assert_int_equal(rd(f, UART8250_MSR), 0xb0);
	assert_int_equal(rd(f, UART8250_SCR), 0x00);
	assert_int_equal(rd(f, UART8250_RBR), 0x00);
}

static void test_power_on_values(void **state)
{
	struct fake *f = *state;

	check_power_on(f);
	assert_int_equal(uart8250_rx_space(&f->u), 1); /* armed by setup() */
	assert_int_equal(f->nr_edges, 0);
	assert_int_equal(f->nr_tx, 0);
	assert_string_equal(uart8250_mmio_ops.name, "uart8250");
	assert_int_equal(uart8250_mmio_ops.sizes, MMIO_SIZE(1));
}

static void test_dlab(void **state)
{
	struct fake *f = *state;

	wr(f, UART8250_IER, 0x05);
	wr(f, UART8250_LCR, 0x83);
	assert_int_equal(rd(f, UART8250_DLL), 0x00);
	wr(f, UART8250_DLL, 0x0c);
	wr(f, UART8250_DLM, 0x01);
	assert_int_equal(rd(f, UART8250_DLL), 0x0c);
	assert_int_equal(rd(f, UART8250_DLM), 0x01);
	assert_int_equal(rd(f, UART8250_LCR), 0x83);
	/* IIR, LSR still visible with DLAB set. */
	assert_int_equal(rd(f, UART8250_IIR), 0x01);
	assert_int_equal(rd(f, UART8250_LSR), 0x60);
	wr(f, UART8250_LCR, 0x03);
	assert_int_equal(rd(f, UART8250_IER), 0x05);
	assert_int_equal(f->nr_tx, 0);
	/* Received data is not consumed by a DLL read. */
	assert_int_equal(rx_str(f, "A"), 1);
	wr(f, UART8250_LCR, 0x83);
	assert_int_equal(rd(f, UART8250_DLL), 0x0c);
	wr(f, UART8250_LCR, 0x03);
	assert_int_equal(rd(f, UART8250_RBR), 'A');
	assert_int_equal(f->nr_tx, 0);
}

static void test_scr(void **state)
{
	struct fake *f = *state;

	wr(f, UART8250_SCR, 0xa5);
	assert_int_equal(rd(f, UART8250_SCR), 0xa5);
	wr(f, UART8250_LCR, 0x80);
	assert_int_equal(rd(f, UART8250_SCR), 0xa5);
	wr(f, UART8250_SCR, 0x5a);
	assert_int_equal(rd(f, UART8250_SCR), 0x5a);
}

static void test_tx(void **state)
{
	struct fake *f = *state;

	wr(f, UART8250_THR, 'h');
	wr(f, UART8250_THR, 'i');
	wr(f, UART8250_THR, 0x00);
	assert_int_equal(f->nr_tx, 3);
	assert_int_equal(f->nr_tx_calls, 3);
	assert_memory_equal(f->tx, "hi\0", 3);
	assert_int_equal(rd(f, UART8250_LSR), 0x60);
	assert_int_equal(f->nr_edges, 0);
}

static void test_rx_fifo(void **state)
{
	struct fake *f = *state;
	const char *in = "0123456789abcdefghij";

	wr(f, UART8250_FCR, UART8250_FCR_FE);
	assert_int_equal(uart8250_rx_space(&f->u), 16);
	assert_int_equal(rx_str(f, in), 16);
	assert_int_equal(uart8250_rx_space(&f->u), 0);
	assert_int_equal(rx_str(f, in + 16), 0);
	/* Full, but nothing was lost: no overrun. */
	assert_int_equal(rd(f, UART8250_LSR), 0x61);
	for (int i = 0; i < 15; i++)
		assert_int_equal(rd(f, UART8250_RBR), in[i]);
	assert_int_equal(uart8250_rx_space(&f->u), 15);
	assert_int_equal(rx_str(f, in + 16), 4);
	assert_int_equal(rd(f, UART8250_RBR), 'f');
	for (int i = 16; i < 20; i++)
		assert_int_equal(rd(f, UART8250_RBR), in[i]);
	assert_int_equal(rd(f, UART8250_LSR), 0x60);
	assert_int_equal(uart8250_receive(&f->u, NULL, 0), 0);
	assert_int_equal(f->nr_edges, 0); /* ERBFI off */
}

static void test_rx_no_fifo(void **state)
{
	struct fake *f = *state;

	assert_int_equal(rx_str(f, "xy"), 1);
	assert_int_equal(uart8250_rx_space(&f->u), 0);
	assert_int_equal(rx_str(f, "y"), 0);
	assert_int_equal(rd(f, UART8250_LSR), 0x61);
	assert_int_equal(rd(f, UART8250_RBR), 'x');
	assert_int_equal(rd(f, UART8250_LSR), 0x60);
	assert_int_equal(rx_str(f, "y"), 1);
	assert_int_equal(rd(f, UART8250_RBR), 'y');
}

static void test_lsr_overrun(void **state)
{
	struct fake *f = *state;

	wr(f, UART8250_FCR, UART8250_FCR_FE);
	wr(f, UART8250_MCR, UART8250_MCR_LOOP);
	for (int i = 0; i < 17; i++)
		wr(f, UART8250_THR, 'a' + i);
	assert_int_equal(rd(f, UART8250_LSR), 0x63);
	assert_int_equal(rd(f, UART8250_LSR), 0x61); /* OE read-clears */
	for (int i = 0; i < 16; i++)
		assert_int_equal(rd(f, UART8250_RBR), 'a' + i);
	assert_int_equal(rd(f, UART8250_LSR), 0x60);
	assert_int_equal(f->nr_tx, 0);
	/* 16450 mode: the new byte overwrites the unread one. */
	wr(f, UART8250_FCR, 0);
	wr(f, UART8250_THR, '1');
	wr(f, UART8250_THR, '2');
	assert_int_equal(rd(f, UART8250_LSR), 0x63);
	assert_int_equal(rd(f, UART8250_RBR), '2');
	assert_int_equal(rd(f, UART8250_LSR), 0x60);
}

static void test_iir_priority(void **state)
{
	struct fake *f = *state;

	wr(f, UART8250_FCR, UART8250_FCR_FE);
	wr(f, UART8250_MCR, UART8250_MCR_LOOP);
	for (int i = 0; i < 17; i++)
		wr(f, UART8250_THR, i);
	wr(f, UART8250_MCR, UART8250_MCR_LOOP | UART8250_MCR_RTS);
	assert_int_equal(f->nr_edges, 0);
	wr(f, UART8250_IER, 0x0f);
	assert_int_equal(f->nr_edges, 1);
	assert_int_equal(line(f), 1);

	assert_int_equal(rd(f, UART8250_IIR), 0xc6);
	assert_int_equal(rd(f, UART8250_IIR), 0xc6);
	assert_int_equal(rd(f, UART8250_LSR), 0x63);
	assert_int_equal(rd(f, UART8250_IIR), 0xc4);
	for (int i = 0; i < 16; i++)
		assert_int_equal(rd(f, UART8250_RBR), i);
	assert_int_equal(rd(f, UART8250_IIR), 0xc2); /* clears THRE */
	assert_int_equal(rd(f, UART8250_IIR), 0xc0);
	/* DCTS|DDSR|DDCD on entering loopback, then CTS rose. */
	assert_int_equal(f->nr_edges, 1);
	assert_int_equal(rd(f, UART8250_MSR), 0x1b);
	assert_int_equal(f->nr_edges, 2);
	assert_int_equal(line(f), 0);
	assert_int_equal(rd(f, UART8250_IIR), 0xc1);
}

static void test_thre_interrupt(void **state)
{
	struct fake *f = *state;

	wr(f, UART8250_IER, UART8250_IER_ETBEI);
	assert_int_equal(f->nr_edges, 1);
	assert_int_equal(line(f), 1);
	assert_int_equal(rd(f, UART8250_IIR), 0x02);
	assert_int_equal(f->nr_edges, 2);
	assert_int_equal(line(f), 0);
	assert_int_equal(rd(f, UART8250_IIR), 0x01);
	/* Rewriting ETBEI = 1 is not a rising edge. */
	wr(f, UART8250_IER, UART8250_IER_ETBEI);
	assert_int_equal(rd(f, UART8250_IIR), 0x01);
	/* Toggling it is (Linux's TX-enable probe relies on this). */
	wr(f, UART8250_IER, 0);
	wr(f, UART8250_IER, UART8250_IER_ETBEI);
	assert_int_equal(f->nr_edges, 3);
	assert_int_equal(line(f), 1);
	/* A THR write empties at once and re-raises: no extra edge. */
	wr(f, UART8250_THR, 'z');
	assert_int_equal(f->nr_edges, 3);
	assert_int_equal(rd(f, UART8250_IIR), 0x02);
	assert_int_equal(line(f), 0);
	wr(f, UART8250_THR, 'z');
	assert_int_equal(f->nr_edges, 5);
	assert_int_equal(line(f), 1);
	/* Masking drops the line. */
	wr(f, UART8250_IER, 0);
	assert_int_equal(f->nr_edges, 6);
	assert_int_equal(line(f), 0);
	assert_int_equal(rd(f, UART8250_IIR), 0x01);
	assert_int_equal(f->nr_tx, 2);
}

static void check_trigger(struct fake *f, uint8_t fcr, unsigned int level)
{
	static const uint8_t buf[UART8250_FIFO_SIZE];

	wr(f, UART8250_FCR, fcr | UART8250_FCR_RFR);
	assert_int_equal(rd(f, UART8250_IIR), 0xc1);
	assert_int_equal(uart8250_receive(&f->u, buf, level - 1), level - 1);
	/* Below the trigger level: the (immediate) timeout indication. */
	assert_int_equal(rd(f, UART8250_IIR), level > 1 ? 0xcc : 0xc1);
	assert_int_equal(uart8250_receive(&f->u, buf, 1), 1);
	assert_int_equal(rd(f, UART8250_IIR), 0xc4);
	assert_int_equal(line(f), 1);
	rd(f, UART8250_RBR);
	assert_int_equal(rd(f, UART8250_IIR), level > 1 ? 0xcc : 0xc1);
}

static void test_fcr(void **state)
{
	struct fake *f = *state;

	wr(f, UART8250_IER, UART8250_IER_ERBFI);
	check_trigger(f, 0x01, 1);
	check_trigger(f, 0x41, 4);
	check_trigger(f, 0x81, 8);
	check_trigger(f, 0xc1, 14);
	/* Clear RX FIFO: data and interrupt gone, trigger kept. */
	wr(f, UART8250_FCR, 0xc1 | UART8250_FCR_RFR | UART8250_FCR_TFR);
	assert_int_equal(line(f), 0);
	assert_int_equal(rd(f, UART8250_LSR), 0x60);
	assert_int_equal(rx_str(f, "abc"), 3);
	assert_int_equal(rd(f, UART8250_IIR), 0xcc);
	/* Clearing TX only keeps RX. */
	wr(f, UART8250_FCR, 0xc1 | UART8250_FCR_TFR);
	assert_int_equal(rd(f, UART8250_LSR), 0x61);
	/* FE off: FIFO emptied, IIR bits 7:6 clear, 1-byte receiver. */
	wr(f, UART8250_FCR, 0xc0);
	assert_int_equal(rd(f, UART8250_LSR), 0x60);
	assert_int_equal(rd(f, UART8250_IIR), 0x01);
	assert_int_equal(uart8250_rx_space(&f->u), 1);
	assert_int_equal(rx_str(f, "d"), 1);
	assert_int_equal(rd(f, UART8250_IIR), 0x04);
	/*
	 * FE on again keeps the byte the receiver holds (Linux enables
	 * the interrupt, then the FIFO, when it opens the port); trigger
	 * back to 1 from this write.
	 */
	wr(f, UART8250_FCR, UART8250_FCR_FE);
	assert_int_equal(rd(f, UART8250_LSR), 0x61);
	assert_int_equal(rd(f, UART8250_IIR), 0xc4);
	assert_int_equal(rd(f, UART8250_RBR), 'd');
	assert_int_equal(line(f), 0);
	assert_int_equal(rx_str(f, "e"), 1);
	assert_int_equal(rd(f, UART8250_IIR), 0xc4);
}

static void test_loopback(void **state)
{
	struct fake *f = *state;

	wr(f, UART8250_FCR, UART8250_FCR_FE);
	wr(f, UART8250_MCR, UART8250_MCR_LOOP);
	assert_int_equal(rd(f, UART8250_MCR), 0x10);
	assert_int_equal(rd(f, UART8250_MSR), 0x0b);
	assert_int_equal(rd(f, UART8250_MSR), 0x00);
	wr(f, UART8250_MCR, 0x1f);
	assert_int_equal(rd(f, UART8250_MSR), 0xfb); /* no TERI on rise */
	assert_int_equal(rd(f, UART8250_MSR), 0xf0);
	wr(f, UART8250_MCR, 0x1b); /* RI falls */
	assert_int_equal(rd(f, UART8250_MSR), 0xb4);
	wr(f, UART8250_MCR, 0x19); /* CTS falls */
	assert_int_equal(rd(f, UART8250_MSR), 0xa1);
	wr(f, UART8250_MCR, 0x12);
	assert_int_equal(rd(f, UART8250_MSR), 0x1b);
	/* Linux's probe: LOOP|OUT2|RTS reads back DCD|CTS. */
	wr(f, UART8250_MCR, 0x1a);
	assert_int_equal(rd(f, UART8250_MSR) & 0xf0, 0x90);

	wr(f, UART8250_THR, 'L');
	wr(f, UART8250_THR, 'B');
	assert_int_equal(f->nr_tx, 0);
	assert_int_equal(rd(f, UART8250_LSR), 0x61);
	/* The receiver is disconnected from the host side. */
	assert_int_equal(uart8250_rx_space(&f->u), 0);
	assert_int_equal(rx_str(f, "h"), 0);
	assert_int_equal(rd(f, UART8250_RBR), 'L');
	assert_int_equal(rd(f, UART8250_RBR), 'B');
	assert_int_equal(rd(f, UART8250_LSR), 0x60);

	/* Leaving loopback: lines back to 0xb0 (DSR changed), TX flows. */
	wr(f, UART8250_MCR, 0x0a);
	assert_int_equal(rd(f, UART8250_MSR), 0xb2);
	assert_int_equal(rd(f, UART8250_MCR), 0x0a);
	assert_int_equal(uart8250_rx_space(&f->u), 16);
	wr(f, UART8250_THR, 'T');
	assert_int_equal(f->nr_tx, 1);
	assert_int_equal(f->tx[0], 'T');
	assert_int_equal(rd(f, UART8250_LSR), 0x60);
	assert_int_equal(f->nr_edges, 0); /* IER = 0 throughout */
}

static void test_msr_interrupt(void **state)
{
	struct fake *f = *state;

	wr(f, UART8250_IER, UART8250_IER_EDSSI);
	assert_int_equal(f->nr_edges, 0); /* no deltas outside loop */
	wr(f, UART8250_MCR, UART8250_MCR_LOOP | 0x0b); /* DSR/CTS/DCD */
	assert_int_equal(f->nr_edges, 0); /* same lines as before */
	wr(f, UART8250_MCR, UART8250_MCR_LOOP | 0x0f); /* RI rises */
	assert_int_equal(f->nr_edges, 0);
	wr(f, UART8250_MCR, UART8250_MCR_LOOP | 0x0b); /* RI falls */
	assert_int_equal(f->nr_edges, 1);
	assert_int_equal(rd(f, UART8250_IIR), 0x00);
	assert_int_equal(line(f), 1); /* IIR read keeps it */
	assert_int_equal(rd(f, UART8250_MSR), 0xb4);
	assert_int_equal(f->nr_edges, 2);
	assert_int_equal(line(f), 0);
}

static void test_edges_only(void **state)
{
	struct fake *f = *state;

	wr(f, UART8250_FCR, UART8250_FCR_FE);
	wr(f, UART8250_IER, UART8250_IER_ERBFI);
	assert_int_equal(f->nr_edges, 0);
	assert_int_equal(rx_str(f, "a"), 1);
	assert_int_equal(rx_str(f, "b"), 1);
	assert_int_equal(rx_str(f, "cd"), 2);
	wr(f, UART8250_IER, UART8250_IER_ERBFI | UART8250_IER_ELSI);
	assert_int_equal(f->nr_edges, 1);
	for (int i = 0; i < 3; i++)
		rd(f, UART8250_RBR);
	rd(f, UART8250_IIR);
	rd(f, UART8250_LSR);
	assert_int_equal(f->nr_edges, 1);
	assert_int_equal(rd(f, UART8250_RBR), 'd');
	assert_int_equal(f->nr_edges, 2);
	assert_int_equal(rd(f, UART8250_RBR), 0); /* empty */
	assert_int_equal(f->nr_edges, 2);
	assert_int_equal(rx_str(f, "e"), 1);
	assert_int_equal(f->nr_edges, 3);
	for (unsigned int i = 0; i < f->nr_edges; i++)
		assert_int_equal(f->edges[i], !(i & 1));
}

static void test_reset(void **state)
{
	struct fake *f = *state;

	wr(f, UART8250_LCR, 0x80);
	wr(f, UART8250_DLL, 0x12);
	wr(f, UART8250_DLM, 0x34);
	wr(f, UART8250_LCR, 0x1b);
	wr(f, UART8250_FCR, 0xc1);
	wr(f, UART8250_IER, 0x0f);
	wr(f, UART8250_SCR, 0x77);
	wr(f, UART8250_MCR, 0x1f);
	wr(f, UART8250_THR, 'r');
	assert_int_equal(line(f), 1);
	assert_int_equal(f->nr_edges, 1);
	uart8250_mmio_ops.reset(&f->u);
	assert_int_equal(f->nr_edges, 2);
	assert_int_equal(line(f), 0);
	uart8250_mmio_ops.reset(&f->u);
	assert_int_equal(f->nr_edges, 2);
	check_power_on(f);
	/* Reset disarms the receiver until a driver listens again. */
	assert_int_equal(uart8250_rx_space(&f->u), 0);
	wr(f, UART8250_LCR, 0x80);
	assert_int_equal(rd(f, UART8250_DLL), 0);
	assert_int_equal(rd(f, UART8250_DLM), 0);
	assert_int_equal(f->nr_edges, 2);
	assert_int_equal(f->nr_tx, 0);
}

static void count_thri(void *opaque)
{
	(*(unsigned int *)opaque)++;
}

/*
 * The board batches THR writes until the guest first enables the
 * THR-empty interrupt: told once per reset, when ETBEI is first set (not
 * for the other interrupts, not again while it stays or comes back).
 */
static void test_thri_first(void **state)
{
	struct fake *f = *state;
	unsigned int calls = 0;

	uart8250_on_thri(&f->u, count_thri, &calls);
	wr(f, UART8250_IER, UART8250_IER_ERBFI);
	wr(f, UART8250_THR, 'a');
	assert_int_equal(calls, 0);
	wr(f, UART8250_IER, UART8250_IER_ERBFI | UART8250_IER_ETBEI);
	assert_int_equal(calls, 1);
	wr(f, UART8250_IER, 0);
	wr(f, UART8250_IER, UART8250_IER_ETBEI);
	assert_int_equal(calls, 1);
	uart8250_mmio_ops.reset(&f->u);
	wr(f, UART8250_THR, 'b');
	assert_int_equal(calls, 1);
	wr(f, UART8250_IER, UART8250_IER_ETBEI);
	assert_int_equal(calls, 2);
	assert_int_equal(f->nr_tx, 2);
}

static void test_bad_access(void **state)
{
	struct fake *f = *state;
	uint8_t buf[8];

	wr(f, UART8250_SCR, 0x42);
	for (uint64_t off = 8; off < uart_res.size; off++) {
		wr(f, off, 0xff);
		assert_int_equal(rd(f, off), 0);
	}
	/* Wider accesses are refused even at valid offsets. */
	memset(buf, 0xff, sizeof(buf));
	uart8250_mmio_ops.write(&f->u, UART8250_THR, buf, 2);
	uart8250_mmio_ops.write(&f->u, UART8250_IER, buf, 4);
	uart8250_mmio_ops.write(&f->u, UART8250_SCR, buf, 8);
	uart8250_mmio_ops.read(&f->u, UART8250_SCR, buf, 8);
	for (int i = 0; i < 8; i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(f->nr_tx, 0);
	assert_int_equal(f->nr_edges, 0);
	assert_int_equal(rd(f, UART8250_SCR), 0x42);
	assert_int_equal(rd(f, UART8250_IER), 0);
	assert_int_equal(rd(f, UART8250_LCR), 0);
	assert_int_equal(rd(f, UART8250_MCR), 0);
	assert_int_equal(rd(f, UART8250_IIR), 0x01);
	/* LSR and MSR writes are ignored. */
	wr(f, UART8250_LSR, 0x1f);
	wr(f, UART8250_MSR, 0x0f);
	assert_int_equal(rd(f, UART8250_LSR), 0x60);
	assert_int_equal(rd(f, UART8250_MSR), 0xb0);
}

static void test_null_outputs(void **state)
{
	struct uart8250 u;
	uint8_t v = 'q';

	(void)state;
	assert_int_equal(uart8250_init(&u, &uart_res, NULL, NULL), 0);
	uart8250_mmio_ops.write(&u, UART8250_IER, &(uint8_t){ 0x0f }, 1);
	uart8250_mmio_ops.write(&u, UART8250_THR, &v, 1);
	assert_int_equal(uart8250_receive(&u, &v, 1), 1);
	uart8250_mmio_ops.read(&u, UART8250_IIR, &v, 1);
	assert_int_equal(v, 0x04);
	uart8250_destroy(&u);
}

/* Host input waits until a driver enabled the rx interrupt. */
static void test_rx_waits_for_a_driver(void **state)
{
	struct uart8250 u;
	uint8_t v = 'a';

	(void)state;
	assert_int_equal(uart8250_init(&u, &uart_res, NULL, NULL), 0);
	assert_int_equal(uart8250_rx_space(&u), 0);
	assert_int_equal(uart8250_receive(&u, &v, 1), 0);
	uart8250_mmio_ops.write(&u, UART8250_IER, &(uint8_t){ 0x01 }, 1);
	assert_int_equal(uart8250_rx_space(&u), 1);
	assert_int_equal(uart8250_receive(&u, &v, 1), 1);
	uart8250_mmio_ops.reset(&u);
	assert_int_equal(uart8250_receive(&u, &v, 1), 0);
	/* Linux's port start-up reads RBR before it enables interrupts. */
	uart8250_mmio_ops.read(&u, UART8250_RBR, &v, 1);
	assert_int_equal(uart8250_rx_space(&u), 0);
	uart8250_mmio_ops.write(&u, UART8250_IER, &(uint8_t){ 0x05 }, 1);
	assert_int_equal(uart8250_rx_space(&u), 1);
	/*
	 * A close (IER = 0) stops host input again, until the next open has
	 * cleared the FIFOs and enabled the interrupt; what the FIFO holds
	 * stays there.
	 */
	v = 'a';
	assert_int_equal(uart8250_receive(&u, &v, 1), 1);
	uart8250_mmio_ops.write(&u, UART8250_IER, &(uint8_t){ 0x00 }, 1);
	assert_int_equal(uart8250_rx_space(&u), 0);
	assert_int_equal(uart8250_receive(&u, &v, 1), 0);
	v = 0;
	uart8250_mmio_ops.read(&u, UART8250_RBR, &v, 1);
	assert_int_equal(v, 'a');
	uart8250_mmio_ops.write(&u, UART8250_IER, &(uint8_t){ 0x02 }, 1);
	assert_int_equal(uart8250_rx_space(&u), 0);
	uart8250_mmio_ops.write(&u, UART8250_IER, &(uint8_t){ 0x03 }, 1);
	assert_true(uart8250_rx_space(&u) > 0);
	uart8250_destroy(&u);
}

static void check_fdt_cell(const void *p, int idx, uint32_t want)
{
	assert_int_equal(fdt32_to_cpu(((const fdt32_t *)p)[idx]), want);
}

static void test_fdt(void **state)
{
	struct fake *f = *state;
	char blob[1024];
	const void *p;
	int node, len;

	assert_int_equal(fdt_create(blob, sizeof(blob)), 0);
	assert_int_equal(fdt_finish_reservemap(blob), 0);
	assert_int_equal(fdt_begin_node(blob, ""), 0);
	assert_int_equal(fdt_property_u32(blob, "#address-cells", 2), 0);
	assert_int_equal(fdt_property_u32(blob, "#size-cells", 2), 0);
	assert_int_equal(uart8250_mmio_ops.fdt(&f->u, blob), 0);
	assert_int_equal(fdt_end_node(blob), 0);
	assert_int_equal(fdt_finish(blob), 0);

	node = fdt_path_offset(blob, "/serial@10000000");
	assert_true(node >= 0);
	p = fdt_getprop(blob, node, "compatible", &len);
	assert_non_null(p);
	assert_int_equal(len, sizeof("ns16550a"));
	assert_string_equal(p, "ns16550a");
	p = fdt_getprop(blob, node, "reg", &len);
	assert_non_null(p);
	assert_int_equal(len, 16);
	check_fdt_cell(p, 0, 0);
	check_fdt_cell(p, 1, 0x10000000);
	check_fdt_cell(p, 2, 0);
	check_fdt_cell(p, 3, 0x100);
	p = fdt_getprop(blob, node, "clock-frequency", &len);
	assert_non_null(p);
	assert_int_equal(len, 4);
	check_fdt_cell(p, 0, 3686400);
	p = fdt_getprop(blob, node, "interrupts", &len);
	assert_non_null(p);
	assert_int_equal(len, 4);
	check_fdt_cell(p, 0, uart_res.irq);
	p = fdt_getprop(blob, node, "interrupt-parent", &len);
	assert_non_null(p);
	assert_int_equal(len, 4);
	check_fdt_cell(p, 0, uart_res.irq_parent);
}

static void test_fdt_no_space(void **state)
{
	struct fake *f = *state;
	char blob[160];

	assert_int_equal(fdt_create(blob, sizeof(blob)), 0);
	assert_int_equal(fdt_finish_reservemap(blob), 0);
	assert_int_equal(fdt_begin_node(blob, ""), 0);
	assert_int_equal(uart8250_mmio_ops.fdt(&f->u, blob), -FDT_ERR_NOSPACE);
}

#define THREAD_BYTES 20000

static void *rx_thread(void *opaque)
{
	struct fake *f = opaque;
	uint8_t buf[7];
	unsigned int sent = 0;

	while (sent < THREAD_BYTES) {
		size_t len = 0, n;

		while (len < sizeof(buf) && sent + len < THREAD_BYTES) {
			buf[len] = (uint8_t)(sent + len);
			len++;
		}
		n = uart8250_receive(&f->u, buf, len);
		sent += n;
		if (!n)
			sched_yield();
	}
	return NULL;
}

/* An I/O thread feeds bytes while a "vCPU" drains them: order kept. */
static void test_threads(void **state)
{
	struct fake *f = *state;
	unsigned int got = 0;
	pthread_t t;

	wr(f, UART8250_FCR, UART8250_FCR_FE);
	assert_int_equal(pthread_create(&t, NULL, rx_thread, f), 0);
	while (got < THREAD_BYTES) {
		if (!(rd(f, UART8250_LSR) & UART8250_LSR_DR)) {
			sched_yield();
			continue;
		}
		assert_int_equal(rd(f, UART8250_RBR), (uint8_t)got);
		got++;
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(rd(f, UART8250_LSR), 0x60);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_power_on_values),
		T(test_dlab),
		T(test_scr),
		T(test_tx),
		T(test_rx_fifo),
		T(test_rx_no_fifo),
		T(test_lsr_overrun),
		T(test_iir_priority),
		T(test_thre_interrupt),
		T(test_fcr),
		T(test_loopback),
		T(test_msr_interrupt),
		T(test_edges_only),
		T(test_thri_first),
		T(test_reset),
		T(test_bad_access),
		cmocka_unit_test(test_null_outputs),
		cmocka_unit_test(test_rx_waits_for_a_driver),
		T(test_fdt),
		T(test_fdt_no_space),
		T(test_threads),
	};

	return cmocka_run_group_tests_name("uart8250", tests, NULL, NULL);
}
