/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device model interface.  A device core is a pure state machine: its
 * state lives in one struct passed as 'opaque', its inputs are MMIO accesses
 * at offsets inside its window, and its outputs go through injected edges
 * (struct irq_line, char backends).  Nothing here knows about KVM.
 */
#ifndef RVKVM_DEVICE_H
#define RVKVM_DEVICE_H

#include <stdint.h>
#include <string.h>

/* An interrupt output: level 1 asserts, 0 deasserts. */
struct irq_line {
	void (*set)(void *opaque, int level);
	void *opaque;
};

static inline void irq_line_set(const struct irq_line *line, int level)
{
	if (line->set)
		line->set(line->opaque, level);
}

/* Access sizes a device accepts, as a mask of byte counts. */
#define MMIO_SIZE(n) (1u << (n))
#define MMIO_SIZES_8_TO_64 \
	(MMIO_SIZE(1) | MMIO_SIZE(2) | MMIO_SIZE(4) | MMIO_SIZE(8))

/*
 * MMIO callbacks.  'offset' is relative to the device's window and the bus
 * has checked that [offset, offset + len) lies inside it and that len is one
 * of 'sizes'.  Data is little-endian, as in struct kvm_run's mmio.data.
 * fdt() adds the device's node to a libfdt tree under construction
 * (sequential-write mode) and returns 0 or a negative libfdt error.
 */
struct mmio_ops {
	const char *name;
	unsigned int sizes;
	void (*read)(void *opaque, uint64_t offset, void *data,
		     unsigned int len);
	void (*write)(void *opaque, uint64_t offset, const void *data,
		      unsigned int len);
	void (*reset)(void *opaque);
	int (*fdt)(void *opaque, void *fdt);
};

static inline uint64_t mmio_data_get(const void *data, unsigned int len)
{
	const uint8_t *p = data;
	uint64_t v = 0;

	for (unsigned int i = 0; i < len && i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static inline void mmio_data_put(void *data, unsigned int len, uint64_t v)
{
	uint8_t *p = data;

	for (unsigned int i = 0; i < len && i < 8; i++)
		p[i] = v >> (8 * i);
}

/*
 * Where the board put a device: its MMIO window and its interrupt, as the
 * device describes them in the device tree.  Device cores take these from
 * whoever creates them and never look addresses up themselves.
 */
struct dev_res {
	uint64_t base, size; /* guest physical MMIO window */
	uint32_t irq;	     /* source number at irq_parent; 0: none */
	uint32_t irq_parent; /* phandle of the interrupt controller */
	/*
	 * irq_parent's #interrupt-cells: 1 (PLIC: source) or 2 (APLIC:
	 * source, IRQ_TYPE_LEVEL_HIGH): device interrupts are level.
	 */
	uint32_t irq_cells;
	uint32_t phandle; /* the device's own phandle; 0: none */
};

/*
 * A byte sink, e.g. the UART's transmitter or virtio-console's transmitq.
 * write() returns the bytes it took, a prefix of buf; a sink that is full
 * takes fewer.  A device that can hold the rest (virtio-console: in the
 * guest's ring) offers it again later; one that cannot (a UART byte)
 * leaves it to the sink, which then takes everything, dropping and
 * counting what it has no room for.
 */
struct char_out {
	size_t (*write)(void *opaque, const uint8_t *buf, size_t len);
	void *opaque;
};

#endif
