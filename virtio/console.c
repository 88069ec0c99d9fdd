// SPDX-License-Identifier: GPL-2.0
/* virtio-console device core, single port; see console.h. */
#include <errno.h>
#include <string.h>

#include "virtio/console.h"
#include "lib/log.h"

/* Offer bytes to the char output; returns how many it took. */
static size_t vcon_output(struct virtio_console *con, const uint8_t *buf,
			  size_t len)
{
	size_t n;

	if (!len)
		return 0;
	n = con->out.write(con->out.opaque, buf, len);
	return n < len ? n : len;
}

/*
 * Copy a transmit chain's readable bytes to the output, piece by piece,
 * at most the pass's budget.  When the output takes only part of a piece
 * (back-pressure) or the budget is spent, the chain stays in the ring
 * with tx_done recording how far it got; the bytes before are stepped
 * over, not copied again, the next time.
 */
static int vcon_tx_chain(void *opaque, const struct virtq_chain *chain,
			 uint32_t *len)
{
	struct virtio_console *con = opaque;
	struct virtq_reader r;
	size_t n, took, room;

	virtq_reader_init(&r, chain);
	if (virtq_reader_skip(&r, con->tx_done) < con->tx_done)
		con->tx_done = 0; /* the guest shortened the chain meanwhile */
	while (virtq_reader_remaining(&r)) {
		room = VIRTIO_CONSOLE_TX_BUDGET - con->tx_pass;
		if (!room) {
			con->tx_more = true;
			return -EAGAIN;
		}
		n = virtq_reader_read(&r, con->bounce,
				      room < sizeof(con->bounce) ?
					      room :
					      sizeof(con->bounce));
		if (!n)
			break;
		took = vcon_output(con, con->bounce, n);
		con->tx_done += took;
		con->tx_pass += took;
		if (took < n)
			return -EAGAIN;
	}
	con->tx_done = 0;
	*len = 0;
	return 0;
}

/* One pass over the transmit queue; another later if the budget ran out. */
static void vcon_tx(struct virtio_console *con)
{
	con->tx_pass = 0;
	con->tx_more = false;
	virtio_mmio_process(&con->vm, VIRTIO_CONSOLE_TX_QUEUE, &con->chain,
			    vcon_tx_chain, con);
	if (con->tx_more)
		virtio_core_rearm_locked(&con->vm.core,
					 VIRTIO_CONSOLE_TX_QUEUE);
}

static void vcon_notify(void *opaque, unsigned int q)
{
	struct virtio_console *con = opaque;

	if (q == VIRTIO_CONSOLE_TX_QUEUE)
		vcon_tx(con);
	else if (con->rx_wake)
		con->rx_wake(con->rx_wake_opaque);
}

/* Lock held.  Place buf into receive chains; returns the bytes placed. */
static size_t vcon_rx_locked(struct virtio_console *con, const uint8_t *buf,
			     size_t len)
{
	struct virtqueue *vq =
		virtio_mmio_queue(&con->vm, VIRTIO_CONSOLE_RX_QUEUE);
	struct virtq_writer w;
	unsigned int chains = 0;
	size_t done = 0;
	int ret = 0;

	while (done < len && chains < VIRTIO_CONSOLE_QUEUE_SIZE &&
	       (ret = virtq_pop(vq, &con->chain)) > 0) {
		virtq_writer_init(&w, &con->chain);
		if (!virtq_writer_remaining(&w))
			pr_guest_once("virtio-console: receive buffer "
				      "without writable part");
		virtq_writer_write(&w, buf + done, len - done);
		if (virtq_push(vq, con->chain.head, virtq_writer_written(&w)))
			break;
		done += virtq_writer_written(&w);
		chains++;
	}
	if (chains || ret < 0)
		virtio_mmio_signal_used(&con->vm, VIRTIO_CONSOLE_RX_QUEUE);
	return done;
}

size_t virtio_console_receive(struct virtio_console *con, const void *buf,
			      size_t len)
{
	size_t done = 0;

	if (!len)
		return 0;
	virtio_mmio_lock(&con->vm);
	if (virtio_mmio_queue_live(&con->vm, VIRTIO_CONSOLE_RX_QUEUE))
		done = vcon_rx_locked(con, buf, len);
	virtio_mmio_unlock(&con->vm);
	return done;
}

void virtio_console_set_rx_wake(struct virtio_console *con,
				void (*wake)(void *opaque), void *opaque)
{
	virtio_mmio_lock(&con->vm);
	con->rx_wake = wake;
	con->rx_wake_opaque = opaque;
	virtio_mmio_unlock(&con->vm);
}

void virtio_console_tx_resume(struct virtio_console *con)
{
	virtio_mmio_kick(&con->vm, VIRTIO_CONSOLE_TX_QUEUE);
}

/* Device reset: the partly output chain is gone with the rings. */
static void vcon_reset(void *opaque)
{
	struct virtio_console *con = opaque;

	con->tx_done = 0;
	con->tx_pass = 0;
	con->tx_more = false;
}

static void vcon_config_read(void *opaque, uint32_t offset, void *data,
			     unsigned int len)
{
	struct virtio_console *con = opaque;

	memcpy(data, con->config + offset, len);
}

static void vcon_config_write(void *opaque, uint32_t offset, const void *data,
			      unsigned int len)
{
	struct virtio_console *con = opaque;
	uint8_t c;

	if (offset != VIRTIO_CONSOLE_CFG_EMERG_WR) {
		pr_guest_once("virtio-console: %u-byte config write at %u", len,
			      offset);
		return;
	}
	c = mmio_data_get(data, len);
	if (!vcon_output(con, &c, 1))
		pr_once(LOG_WARN, "virtio-console: emergency write dropped: "
				  "the console output is backed up");
}

static const struct virtio_dev_ops vcon_dev_ops = {
	.notify = vcon_notify,
	.reset = vcon_reset,
	.config_read = vcon_config_read,
	.config_write = vcon_config_write,
};

int virtio_console_init(struct virtio_console *con, const struct dev_res *res,
			const struct guest_mem *mem, const struct irq_line *irq,
			const struct char_out *out)
{
	const struct virtio_dev dev = {
		.name = "virtio-console",
		.ops = &vcon_dev_ops,
		.opaque = con,
		.device_id = VIRTIO_ID_CONSOLE,
		.features = VIRTIO_BIT(VIRTIO_CONSOLE_F_EMERG_WRITE),
		.num_queues = VIRTIO_CONSOLE_NUM_QUEUES,
		.queue_num_max = VIRTIO_CONSOLE_QUEUE_SIZE,
		.config_size = VIRTIO_CONSOLE_CONFIG_SIZE,
	};

	if (!out || !out->write)
		return -EINVAL;
	con->out = *out;
	con->rx_wake = NULL;
	con->rx_wake_opaque = NULL;
	con->tx_done = 0;
	con->tx_pass = 0;
	con->tx_more = false;
	memset(con->config, 0, sizeof(con->config));
	mmio_data_put(con->config + VIRTIO_CONSOLE_CFG_MAX_NR_PORTS, 4, 1);
	return virtio_mmio_init(&con->vm, res, mem, irq, &dev);
}

void virtio_console_destroy(struct virtio_console *con)
{
	virtio_mmio_destroy(&con->vm);
}
