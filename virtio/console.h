/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio-console (virtio 1.2 §5.3), a single port without MULTIPORT:
 * device ID 3, queue 0 receiveq (host to guest), queue 1 transmitq (guest
 * to host), VIRTIO_CONSOLE_QUEUE_SIZE entries each.
 *
 * Offers only VIRTIO_CONSOLE_F_EMERG_WRITE.  The configuration space is
 * the 12-byte struct virtio_console_config: cols and rows read as 0 (no
 * F_SIZE), max_nr_ports reads as 1, emerg_wr reads as 0.  A 1, 2 or 4-byte
 * write at emerg_wr (offset 8) outputs its low byte, at any time, even
 * before the driver has set any status bit (§5.3.4: usable without
 * negotiation); every other config write is logged once and ignored.
 *
 * Transmit: on a notification of queue 1 the available chains'
 * device-readable bytes go to the char output, in order, at most
 * VIRTIO_CONSOLE_TX_PIECE bytes per write() call; device-writable
 * buffers of a transmit chain are ignored.  One pass outputs at most
 * VIRTIO_CONSOLE_TX_BUDGET bytes (a chain's length is the guest's choice,
 * and the output may be dropping: a pass must not hold the I/O thread
 * and the lock for as long as the guest likes); when the budget is spent
 * with bytes left the device stops where it got to, as under
 * back-pressure, and asks the core for another pass later
 * (virtio_core_rearm_locked(): the I/O thread serves its other devices
 * first).  Nothing is reordered: the next pass goes on inside the same
 * chain.  Each chain is returned with
 * used len 0 (the device wrote nothing) once all its bytes were taken.
 * Back-pressure: when the output takes fewer bytes than offered (it is
 * full), the chain stays in the ring, the device remembers how many of
 * its bytes went out, and processing stops; virtio_console_tx_resume()
 * (the output has room again) goes on from there.  So a stalled output
 * holds the guest's buffers, never a host thread: the guest's driver
 * runs out of transmit buffers and its writers wait.  For how long is
 * the output's choice: it may take the bytes and drop them instead (the
 * VMM's console does after a short while, see vmm/cons.c).  An emergency
 * write the output cannot take is dropped (logged once).
 *
 * Receive: virtio_console_receive() is the host side's input path.  The
 * device buffers nothing: bytes it cannot place are left with the caller,
 * who offers them again later (after the rx_wake hook, see below).
 *
 * Reset drops the transport state and the count of a partly output
 * chain: no other work is in flight (receive holds no bytes).
 *
 * The transport is embedded: register virtio_mmio_ops with opaque &con->vm
 * at con->vm.res.base / con->vm.res.size.
 */
#ifndef RVKVM_VIRTIO_CONSOLE_H
#define RVKVM_VIRTIO_CONSOLE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/device.h"
#include "virtio/mmio.h"

#ifndef VIRTIO_ID_CONSOLE
#define VIRTIO_ID_CONSOLE 3
#endif

/* Feature bits (§5.3.3). */
#define VIRTIO_CONSOLE_F_SIZE 0
#define VIRTIO_CONSOLE_F_MULTIPORT 1
#define VIRTIO_CONSOLE_F_EMERG_WRITE 2

/* Queues (§5.3.2), port 0 only. */
#define VIRTIO_CONSOLE_RX_QUEUE 0
#define VIRTIO_CONSOLE_TX_QUEUE 1
#define VIRTIO_CONSOLE_NUM_QUEUES 2

/* Configuration space offsets (§5.3.4, struct virtio_console_config). */
#define VIRTIO_CONSOLE_CFG_COLS 0	  /* le16 */
#define VIRTIO_CONSOLE_CFG_ROWS 2	  /* le16 */
#define VIRTIO_CONSOLE_CFG_MAX_NR_PORTS 4 /* le32 */
#define VIRTIO_CONSOLE_CFG_EMERG_WR 8	  /* le32, write-only */
#define VIRTIO_CONSOLE_CONFIG_SIZE 12

#define VIRTIO_CONSOLE_QUEUE_SIZE 256
/* The largest piece handed to the char output in one call. */
#define VIRTIO_CONSOLE_TX_PIECE 4096
/* The most bytes one transmit pass outputs. */
#define VIRTIO_CONSOLE_TX_BUDGET (64 * 1024)

struct virtio_console {
	struct virtio_mmio vm;
	struct char_out out;
	void (*rx_wake)(void *opaque); /* optional, see set_rx_wake */
	void *rx_wake_opaque;
	uint8_t config[VIRTIO_CONSOLE_CONFIG_SIZE]; /* little-endian, fixed */
	uint8_t bounce[VIRTIO_CONSOLE_TX_PIECE];    /* used under vm.lock */
	struct virtq_chain chain; /* scratch, used under vm.lock */
	uint64_t tx_done;	  /* bytes of the head transmit chain output */
	uint64_t tx_pass;	  /* bytes output in this pass */
	bool tx_more;		  /* the pass's budget ran out */
};

/*
 * out is copied; out->write receives the guest's output (transmitq and
 * emergency writes), called with the transport lock held, and returns
 * the bytes it took (see struct char_out).  -EINVAL for a
 * missing res or a missing out->write, or -errno.
 */
int virtio_console_init(struct virtio_console *con, const struct dev_res *res,
			const struct guest_mem *mem, const struct irq_line *irq,
			const struct char_out *out);
void virtio_console_destroy(struct virtio_console *con);

/*
 * Optional: wake(opaque) is called whenever the driver notifies the
 * receiveq, i.e. may have posted new receive buffers: the moment to offer
 * held-back input again.  It runs with the transport lock held (on a vCPU
 * or I/O thread) and must not call back into this device; writing an
 * eventfd is the intended use.  Safe to call at any time.
 */
void virtio_console_set_rx_wake(struct virtio_console *con,
				void (*wake)(void *opaque), void *opaque);

/*
 * The output has room again: go on transmitting the chains it refused
 * (and any posted since).  Takes the transport lock: call it without
 * holding it, e.g. from the thread that drains the output.
 */
void virtio_console_tx_resume(struct virtio_console *con);

/*
 * Host input for the guest: copy up to len bytes of buf, in order, into
 * the writable buffers of available receiveq chains (one chain after the
 * other, each returned with used len = bytes placed in it), then signal
 * the driver.  Returns the number of bytes accepted, a prefix of buf: 0
 * when the driver is not running (no DRIVER_OK, NEEDS_RESET, FAILED) or has
 * no receive buffers.  Takes at most VIRTIO_CONSOLE_QUEUE_SIZE chains per
 * call.  Thread safe: takes the transport lock, so call it without
 * holding it (e.g. from the console input thread).
 */
size_t virtio_console_receive(struct virtio_console *con, const void *buf,
			      size_t len);

#endif
