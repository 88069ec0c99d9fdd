// SPDX-License-Identifier: GPL-2.0
/*
 * 8250/16550A UART, modelled from the 16550A datasheet.  See uart8250.h for
 * the modelling choices and the locking rules.
 *
 * Interrupt sources, highest priority first, and what clears them:
 *   line status (OE)        reading LSR
 *   data available/timeout  reading RBR until the FIFO is empty
 *   THR empty               reading IIR while it is the source, writing THR
 *   modem status (deltas)   reading MSR
 * The THRE source is a latch (thr_ipending): set each time THR becomes empty
 * (after every THR write, as transmission is immediate) and when ETBEI goes
 * from 0 to 1, since THR is always empty.
 */
#include <errno.h>
#include <stdio.h>

#include <libfdt.h>

#include "devices/uart8250.h"
#include "lib/dev_fdt.h"
#include "lib/log.h"

#define UART8250_CLOCK_HZ 3686400

static unsigned int uart_rx_capacity(const struct uart8250 *u)
{
	return (u->fcr & UART8250_FCR_FE) ? UART8250_FIFO_SIZE : 1;
}

static unsigned int uart_rx_trigger(const struct uart8250 *u)
{
	static const unsigned int level[4] = { 1, 4, 8, 14 };

	return level[(u->fcr & UART8250_FCR_TRIG_MASK) >> 6];
}

static bool uart_loopback(const struct uart8250 *u)
{
	return u->mcr & UART8250_MCR_LOOP;
}

static void uart_rx_clear(struct uart8250 *u)
{
	u->rx_head = 0;
	u->rx_count = 0;
}

/*
 * Queue a byte from the line.  When the receiver is full the byte is lost
 * and OE set; with the FIFO enabled it is dropped, in 16450 mode it
 * overwrites the unread RBR.
 */
static void uart_rx_push(struct uart8250 *u, uint8_t byte)
{
	unsigned int tail;

	if (u->rx_count >= uart_rx_capacity(u)) {
		u->overrun = true;
		if (!(u->fcr & UART8250_FCR_FE))
			u->rx_fifo[u->rx_head] = byte;
		return;
	}
	tail = (u->rx_head + u->rx_count) % UART8250_FIFO_SIZE;
	u->rx_fifo[tail] = byte;
	u->rx_count++;
}

static uint8_t uart_rx_pop(struct uart8250 *u)
{
	uint8_t byte;

	if (!u->rx_count)
		return 0;
	byte = u->rx_fifo[u->rx_head];
	u->rx_head = (u->rx_head + 1) % UART8250_FIFO_SIZE;
	u->rx_count--;
	return byte;
}

/* Current interrupt identification, IIR bits 3:0. */
static uint8_t uart_iir_id(const struct uart8250 *u)
{
	if ((u->ier & UART8250_IER_ELSI) && u->overrun)
		return UART8250_IIR_RLSI;
	if ((u->ier & UART8250_IER_ERBFI) && u->rx_count) {
		if ((u->fcr & UART8250_FCR_FE) &&
		    u->rx_count < uart_rx_trigger(u))
			return UART8250_IIR_CTI;
		return UART8250_IIR_RDI;
	}
	if ((u->ier & UART8250_IER_ETBEI) && u->thr_ipending)
		return UART8250_IIR_THRI;
	if ((u->ier & UART8250_IER_EDSSI) && u->msr_delta)
		return UART8250_IIR_MSI;
	return UART8250_IIR_NO_INT;
}

/* Called with the lock held after every state change. */
static void uart_update_irq(struct uart8250 *u)
{
	int level = uart_iir_id(u) != UART8250_IIR_NO_INT;

	if (level == u->irq_level)
		return;
	u->irq_level = level;
	irq_line_set(&u->irq, level);
}

/* Modem input lines, MSR bits 7:4. */
static uint8_t uart_msr_lines(const struct uart8250 *u)
{
	uint8_t mcr = u->mcr, lines = 0;

	if (!uart_loopback(u))
		return UART8250_MSR_CTS | UART8250_MSR_DSR | UART8250_MSR_DCD;
	if (mcr & UART8250_MCR_RTS)
		lines |= UART8250_MSR_CTS;
	if (mcr & UART8250_MCR_DTR)
		lines |= UART8250_MSR_DSR;
	if (mcr & UART8250_MCR_OUT1)
		lines |= UART8250_MSR_RI;
	if (mcr & UART8250_MCR_OUT2)
		lines |= UART8250_MSR_DCD;
	return lines;
}

/* Delta bits for a change of the input lines; TERI only on RI falling. */
static uint8_t uart_msr_deltas(uint8_t old, uint8_t now)
{
	uint8_t changed = old ^ now, delta = 0;

	if (changed & UART8250_MSR_CTS)
		delta |= UART8250_MSR_DCTS;
	if (changed & UART8250_MSR_DSR)
		delta |= UART8250_MSR_DDSR;
	if ((old & UART8250_MSR_RI) && !(now & UART8250_MSR_RI))
		delta |= UART8250_MSR_TERI;
	if (changed & UART8250_MSR_DCD)
		delta |= UART8250_MSR_DDCD;
	return delta;
}

static void uart_write_mcr(struct uart8250 *u, uint8_t val)
{
	uint8_t old = uart_msr_lines(u);

	u->mcr = val & UART8250_MCR_MASK;
	u->msr_delta |= uart_msr_deltas(old, uart_msr_lines(u));
}

static void uart_write_ier(struct uart8250 *u, uint8_t val)
{
	uint8_t old = u->ier;

	u->ier = val & UART8250_IER_MASK;
	u->rx_armed = u->ier & UART8250_IER_ERBFI;
	if (!(u->ier & UART8250_IER_ETBEI))
		u->thr_ipending = false;
	else if (!(old & UART8250_IER_ETBEI))
		u->thr_ipending = true; /* THR is always empty */
}

/*
 * FCR: the other bits are only programmed when FE is written as 1.
 * Turning FE off empties both FIFOs (16550D: "resetting FCR0 will clear
 * all bytes in both FIFOs"); turning it on keeps the byte the receiver
 * holds.  Linux enables the received-data interrupt just before it
 * enables the FIFO when it opens the port: a byte taken in between must
 * not be lost.
 */
static void uart_write_fcr(struct uart8250 *u, uint8_t val)
{
	if ((u->fcr & UART8250_FCR_FE) && !(val & UART8250_FCR_FE))
		uart_rx_clear(u);
	if (!(val & UART8250_FCR_FE)) {
		u->fcr = 0;
		return;
	}
	if (val & UART8250_FCR_RFR)
		uart_rx_clear(u);
	/* TFR: the transmit FIFO is always empty. */
	u->fcr = val &
		 (UART8250_FCR_FE | UART8250_FCR_DMA | UART8250_FCR_TRIG_MASK);
}

/* A THR write; returns true when 'val' must go out to char_out. */
static bool uart_write_thr(struct uart8250 *u, uint8_t val)
{
	bool tx = !uart_loopback(u);

	if (!tx)
		uart_rx_push(u, val);
	/* Sent at once: THR empty again, which re-raises THRE. */
	u->thr_ipending = u->ier & UART8250_IER_ETBEI;
	return tx;
}

static uint8_t uart_read_iir(struct uart8250 *u)
{
	uint8_t id = uart_iir_id(u);

	if (id == UART8250_IIR_THRI)
		u->thr_ipending = false;
	if (u->fcr & UART8250_FCR_FE)
		id |= UART8250_IIR_FIFO;
	return id;
}

static uint8_t uart_read_lsr(struct uart8250 *u)
{
	uint8_t lsr = UART8250_LSR_THRE | UART8250_LSR_TEMT;

	if (u->rx_count)
		lsr |= UART8250_LSR_DR;
	if (u->overrun)
		lsr |= UART8250_LSR_OE;
	u->overrun = false;
	return lsr;
}

static uint8_t uart_read_msr(struct uart8250 *u)
{
	uint8_t msr = uart_msr_lines(u) | u->msr_delta;

	u->msr_delta = 0;
	return msr;
}

static uint8_t uart_read_reg(struct uart8250 *u, unsigned int reg)
{
	bool dlab = u->lcr & UART8250_LCR_DLAB;

	switch (reg) {
	case UART8250_RBR:
		return dlab ? u->dll : uart_rx_pop(u);
	case UART8250_IER:
		return dlab ? u->dlm : u->ier;
	case UART8250_IIR:
		return uart_read_iir(u);
	case UART8250_LCR:
		return u->lcr;
	case UART8250_MCR:
		return u->mcr;
	case UART8250_LSR:
		return uart_read_lsr(u);
	case UART8250_MSR:
		return uart_read_msr(u);
	default:
		return u->scr;
	}
}

/* Returns true when 'val' was written to THR and must be transmitted. */
static bool uart_write_reg(struct uart8250 *u, unsigned int reg, uint8_t val)
{
	bool dlab = u->lcr & UART8250_LCR_DLAB;

	switch (reg) {
	case UART8250_THR:
		if (!dlab)
			return uart_write_thr(u, val);
		u->dll = val;
		break;
	case UART8250_IER:
		if (dlab)
			u->dlm = val;
		else
			uart_write_ier(u, val);
		break;
	case UART8250_FCR:
		uart_write_fcr(u, val);
		break;
	case UART8250_LCR:
		u->lcr = val;
		break;
	case UART8250_MCR:
		uart_write_mcr(u, val);
		break;
	case UART8250_SCR:
		u->scr = val;
		break;
	default:
		/* LSR and MSR are read-only (writes are factory test). */
		break;
	}
	return false;
}

static bool uart_access_ok(uint64_t offset, unsigned int len)
{
	if (len != 1) {
		pr_guest_once("uart8250: %u-byte access at 0x%llx ignored", len,
			      (unsigned long long)offset);
		return false;
	}
	if (offset >= UART8250_NR_REGS) {
		pr_guest_once("uart8250: access at offset 0x%llx ignored",
			      (unsigned long long)offset);
		return false;
	}
	return true;
}

static void uart_mmio_read(void *opaque, uint64_t offset, void *data,
			   unsigned int len)
{
	struct uart8250 *u = opaque;
	uint8_t val;

	memset(data, 0, len);
	if (!uart_access_ok(offset, len))
		return;
	pthread_mutex_lock(&u->lock);
	val = uart_read_reg(u, offset);
	uart_update_irq(u);
	pthread_mutex_unlock(&u->lock);
	mmio_data_put(data, 1, val);
}

static void uart_mmio_write(void *opaque, uint64_t offset, const void *data,
			    unsigned int len)
{
	struct uart8250 *u = opaque;
	void (*thri_first)(void *opaque) = NULL;
	void *thri_opaque = NULL;
	uint8_t val;
	bool tx;

	if (!uart_access_ok(offset, len))
		return;
	val = mmio_data_get(data, 1);
	pthread_mutex_lock(&u->lock);
	tx = uart_write_reg(u, offset, val);
	uart_update_irq(u);
	if (!u->thri_seen && (u->ier & UART8250_IER_ETBEI)) {
		u->thri_seen = true;
		thri_first = u->thri_first;
		thri_opaque = u->thri_opaque;
	}
	pthread_mutex_unlock(&u->lock);
	if (thri_first)
		thri_first(thri_opaque);
	/* The sink takes or drops the byte: the UART holds none. */
	if (tx && u->out.write)
		(void)u->out.write(u->out.opaque, &val, 1);
}

/* Power-on values; DLL, DLM and SCR are undefined on the chip: zero here. */
static void uart_reset_locked(struct uart8250 *u)
{
	u->ier = 0;
	u->fcr = 0;
	u->lcr = 0;
	u->mcr = 0;
	u->scr = 0;
	u->dll = 0;
	u->dlm = 0;
	u->msr_delta = 0;
	u->overrun = false;
	u->thr_ipending = false;
	u->rx_armed = false;
	u->thri_seen = false;
	uart_rx_clear(u);
	uart_update_irq(u);
}

static void uart_mmio_reset(void *opaque)
{
	struct uart8250 *u = opaque;

	pthread_mutex_lock(&u->lock);
	uart_reset_locked(u);
	pthread_mutex_unlock(&u->lock);
}

static int uart_mmio_fdt(void *opaque, void *fdt)
{
	static const char compat[] = "ns16550a";
	const struct uart8250 *u = opaque;
	int err;

	err = dev_fdt_begin(fdt, "serial", compat, sizeof(compat), &u->res);
	err = err   ?:
		      fdt_property_u32(fdt, "clock-frequency",
				       UART8250_CLOCK_HZ);
	err = err ?: dev_fdt_irq(fdt, &u->res);
	return err ?: fdt_end_node(fdt);
}

int uart8250_init(struct uart8250 *u, const struct dev_res *res,
		  const struct irq_line *irq, const struct char_out *out)
{
	int ret;

	if (!res)
		return -EINVAL;
	memset(u, 0, sizeof(*u));
	ret = pthread_mutex_init(&u->lock, NULL);
	if (ret)
		return -ret;
	u->res = *res;
	if (irq)
		u->irq = *irq;
	if (out)
		u->out = *out;
	u->irq_level = 0;
	uart_reset_locked(u);
	return 0;
}

void uart8250_on_thri(struct uart8250 *u, void (*fn)(void *opaque),
		      void *opaque)
{
	pthread_mutex_lock(&u->lock);
	u->thri_first = fn;
	u->thri_opaque = opaque;
	pthread_mutex_unlock(&u->lock);
}

void uart8250_destroy(struct uart8250 *u)
{
	pthread_mutex_destroy(&u->lock);
}

/*
 * Host input waits while no guest driver listens, i.e. while the
 * received-data interrupt is disabled.  Linux clears the FIFOs and reads
 * RBR (twice) each time it opens the port, with the interrupt off since
 * the last close, so bytes offered meanwhile (piped input at start-up, or
 * while busybox init reopens the console) would be lost.  The console
 * driver also turns the interrupt off for a moment around each printk;
 * input then waits a few milliseconds.  The price: a driver that only
 * polls never gets host input.
 */
static size_t uart_rx_space_locked(const struct uart8250 *u)
{
	if (uart_loopback(u) || !u->rx_armed)
		return 0; /* the receiver is disconnected from the line */
	return uart_rx_capacity(u) - u->rx_count;
}

size_t uart8250_rx_space(struct uart8250 *u)
{
	size_t space;

	pthread_mutex_lock(&u->lock);
	space = uart_rx_space_locked(u);
	pthread_mutex_unlock(&u->lock);
	return space;
}

size_t uart8250_receive(struct uart8250 *u, const uint8_t *buf, size_t len)
{
	size_t n, i;

	pthread_mutex_lock(&u->lock);
	n = uart_rx_space_locked(u);
	if (n > len)
		n = len;
	for (i = 0; i < n; i++)
		uart_rx_push(u, buf[i]);
	uart_update_irq(u);
	pthread_mutex_unlock(&u->lock);
	return n;
}

const struct mmio_ops uart8250_mmio_ops = {
	.name = "uart8250",
	.sizes = MMIO_SIZE(1),
	.read = uart_mmio_read,
	.write = uart_mmio_write,
	.reset = uart_mmio_reset,
	.fdt = uart_mmio_fdt,
};
