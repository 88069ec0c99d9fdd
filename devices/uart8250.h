/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 8250/16550A UART device core.
 *
 * Eight byte-wide registers at offsets 0..7 (reg-shift 0) of a
 * LAYOUT_UART_SIZE window; the rest of the window reads as zero.
 * Transmission is immediate: every byte written to THR goes straight to the
 * char_out sink, so THRE and TEMT are always set; a sink that is full
 * drops the byte (the VMM's console counts and reports drops), so a
 * stalled host terminal never holds the vCPU.  Host input enters through
 * uart8250_receive(), which takes only what fits in the receiver (16 bytes
 * with the FIFO enabled, 1 without, none in loopback), so the caller keeps
 * the rest and no input is ever lost; the console thread can poll
 * uart8250_rx_space() to know when to retry.
 *
 * Modelling choices:
 *  - The character-timeout interrupt is immediate: with the FIFO enabled and
 *    fewer bytes waiting than the trigger level, IIR reports the timeout
 *    (0x0c) at once instead of after four character times.  At or above the
 *    trigger level it reports "data available" (0x04).
 *  - The interrupt output is not gated by MCR.OUT2 (that gate is a PC board
 *    detail, not part of the chip).
 *  - Outside loopback the modem inputs show a connected terminal:
 *    CTS, DSR and DCD asserted, RI not (MSR = 0xb0).
 *  - Overrun can only come from loopback, the one path where bytes arrive
 *    without asking for space first.
 *
 * Locking: one mutex serialises vCPU MMIO accesses, host receives and reset.
 * The irq_line is set with the mutex held (so edges reach it in order: its
 * callee must not call back into this UART); char_out.write is called after
 * the mutex is released.
 */
#ifndef RVKVM_UART8250_H
#define RVKVM_UART8250_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/device.h"

#define UART8250_FIFO_SIZE 16

/* Register offsets (reg-shift 0). */
#define UART8250_RBR 0 /* read, DLAB = 0 */
#define UART8250_THR 0 /* write, DLAB = 0 */
#define UART8250_DLL 0 /* DLAB = 1 */
#define UART8250_IER 1 /* DLAB = 0 */
#define UART8250_DLM 1 /* DLAB = 1 */
#define UART8250_IIR 2 /* read */
#define UART8250_FCR 2 /* write */
#define UART8250_LCR 3
#define UART8250_MCR 4
#define UART8250_LSR 5
#define UART8250_MSR 6
#define UART8250_SCR 7
#define UART8250_NR_REGS 8

#define UART8250_IER_ERBFI 0x01 /* received data available */
#define UART8250_IER_ETBEI 0x02 /* transmitter holding register empty */
#define UART8250_IER_ELSI 0x04	/* receiver line status */
#define UART8250_IER_EDSSI 0x08 /* modem status */
#define UART8250_IER_MASK 0x0f

#define UART8250_IIR_NO_INT 0x01
#define UART8250_IIR_MSI 0x00
#define UART8250_IIR_THRI 0x02
#define UART8250_IIR_RDI 0x04
#define UART8250_IIR_RLSI 0x06
#define UART8250_IIR_CTI 0x0c
#define UART8250_IIR_FIFO 0xc0

#define UART8250_FCR_FE 0x01
#define UART8250_FCR_RFR 0x02 /* clear RX FIFO, self-clearing */
#define UART8250_FCR_TFR 0x04 /* clear TX FIFO, self-clearing */
#define UART8250_FCR_DMA 0x08
#define UART8250_FCR_TRIG_MASK 0xc0

#define UART8250_LCR_DLAB 0x80

#define UART8250_MCR_DTR 0x01
#define UART8250_MCR_RTS 0x02
#define UART8250_MCR_OUT1 0x04
#define UART8250_MCR_OUT2 0x08
#define UART8250_MCR_LOOP 0x10
#define UART8250_MCR_MASK 0x1f

#define UART8250_LSR_DR 0x01
#define UART8250_LSR_OE 0x02
#define UART8250_LSR_THRE 0x20
#define UART8250_LSR_TEMT 0x40

#define UART8250_MSR_DCTS 0x01
#define UART8250_MSR_DDSR 0x02
#define UART8250_MSR_TERI 0x04
#define UART8250_MSR_DDCD 0x08
#define UART8250_MSR_DELTAS 0x0f
#define UART8250_MSR_CTS 0x10
#define UART8250_MSR_DSR 0x20
#define UART8250_MSR_RI 0x40
#define UART8250_MSR_DCD 0x80

/* Embeddable; all fields are private to uart8250.c (tests may peek). */
struct uart8250 {
	pthread_mutex_t lock;
	struct dev_res res; /* window and interrupt, for the device tree */
	struct irq_line irq;
	struct char_out out;
	int irq_level; /* last level given to irq.set() */

	uint8_t ier, fcr, lcr, mcr, scr, dll, dlm;
	uint8_t msr_delta; /* MSR bits 3:0; bits 7:4 are computed */
	bool overrun;	   /* LSR.OE, cleared by reading LSR */
	bool thr_ipending; /* THRE interrupt latched, see uart8250.c */
	bool rx_armed;	   /* IER.ERBFI is set: host input may arrive */

	uint8_t rx_fifo[UART8250_FIFO_SIZE];
	unsigned int rx_head;  /* index of the oldest byte */
	unsigned int rx_count; /* bytes waiting, <= UART8250_FIFO_SIZE */

	/* uart8250_on_thri(): called once per reset, without the lock. */
	void (*thri_first)(void *opaque);
	void *thri_opaque;
	bool thri_seen; /* IER.ETBEI was set since the last reset */
};

/*
 * Initialise to power-on state.  res (where the board put the UART, for
 * the device tree), irq and out are copied; irq and out may be NULL or have
 * a NULL callback.  The interrupt line is assumed deasserted and not
 * touched.  Returns 0, -EINVAL without res, or -errno.
 */
int uart8250_init(struct uart8250 *u, const struct dev_res *res,
		  const struct irq_line *irq, const struct char_out *out);
void uart8250_destroy(struct uart8250 *u);

/*
 * Host input: queue up to len bytes, as many as the receiver has room for.
 * Returns the number taken (0 .. len); the caller keeps the rest.
 */
size_t uart8250_receive(struct uart8250 *u, const uint8_t *buf, size_t len);

/* Bytes uart8250_receive() would take now (0 in loopback). */
size_t uart8250_rx_space(struct uart8250 *u);

/*
 * fn(opaque) is called, outside the UART's lock, the first time after a
 * reset that the guest enables the THR-empty interrupt: from then on it
 * expects that interrupt after each THR write, so a THR write must reach
 * the UART when it is made (the board batches them until then).
 */
void uart8250_on_thri(struct uart8250 *u, void (*fn)(void *opaque),
		      void *opaque);

/* Bus callbacks; opaque is the struct uart8250. */
extern const struct mmio_ops uart8250_mmio_ops;

#endif
