/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RISC-V PLIC (platform-level interrupt controller), modelled in user space
 * for hosts without an in-kernel irqchip.  Sources 1..PLIC_MAX_SOURCES,
 * priorities 0..7, one S-mode context per hart (context i = hart i).
 *
 * Inputs: plic_set_irq() from device backends (any thread) and MMIO from
 * vCPU threads through plic_mmio_ops (opaque = struct plic *).
 * Outputs: one struct irq_line per context, driven to 1 while the context
 * has a claimable interrupt (pending, enabled, priority > threshold) and to
 * 0 otherwise.  set() is called only when that level changes, and it is
 * called with the PLIC's mutex held: it must not call back into the PLIC.
 * Holding the lock keeps the order of set() calls equal to the order of the
 * state changes that caused them.
 */
#ifndef RVKVM_PLIC_H
#define RVKVM_PLIC_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/device.h"

#define PLIC_MAX_CONTEXTS 32
#define PLIC_MAX_SOURCES 1023
/* The register file's span: contexts up to 15871 (the spec's maximum). */
#define PLIC_SIZE 0x04000000ULL
#define PLIC_MAX_PRIORITY 7
/* Bitmap words covering source ids 0..PLIC_MAX_SOURCES. */
#define PLIC_WORDS ((PLIC_MAX_SOURCES + 1 + 31) / 32)

/* Register map, offsets inside the PLIC window. */
#define PLIC_PRIORITY_BASE 0x0
#define PLIC_PENDING_BASE 0x1000
#define PLIC_ENABLE_BASE 0x2000
#define PLIC_ENABLE_STRIDE 0x80
#define PLIC_CONTEXT_BASE 0x200000
#define PLIC_CONTEXT_STRIDE 0x1000
#define PLIC_CONTEXT_THRESHOLD 0x0
#define PLIC_CONTEXT_CLAIM 0x4

struct plic_context {
	uint32_t enable[PLIC_WORDS];
	uint32_t threshold;
	int level; /* last level driven on 'output' (atomic stores) */
	struct irq_line output;
};

/*
 * Per-source state is kept as bitmaps indexed by source id; bit 0 (the
 * nonexistent source 0) is always clear.  Invariants, under 'lock':
 *   pending & claimed == 0; held is a subset of claimed;
 *   for level-triggered sources, pending == line & ~claimed.
 */
struct plic {
	pthread_mutex_t lock;
	struct dev_res res;	  /* immutable after init */
	unsigned int nr_contexts; /* immutable after init */
	uint8_t priority[PLIC_WORDS * 32];
	uint32_t pending[PLIC_WORDS]; /* IP bits seen by the guest */
	uint32_t claimed[PLIC_WORDS]; /* in service */
	uint32_t held[PLIC_WORDS];    /* edge seen during service */
	uint32_t line[PLIC_WORDS];    /* input levels from devices */
	uint32_t edge[PLIC_WORDS];    /* edge-triggered (host config) */
	struct plic_context ctx[PLIC_MAX_CONTEXTS];
};

/*
 * outputs[i] drives hart i's supervisor external interrupt.  res gives the
 * window (for the device tree; the bus maps it), the PLIC's own phandle and,
 * as irq_parent, the phandle of hart 0's interrupt controller: hart i's is
 * irq_parent + i.  Returns 0, or -EINVAL for no res, 0 or more than
 * PLIC_MAX_CONTEXTS contexts or no outputs, or the -errno of
 * pthread_mutex_init().  Outputs start (and are assumed to be) deasserted.
 */
int plic_init(struct plic *p, const struct dev_res *res,
	      unsigned int nr_contexts, const struct irq_line *outputs);
void plic_destroy(struct plic *p);

/*
 * Drives context ctx's output high again if it should be high, whatever
 * the PLIC drove last: KVM clears a hart's external interrupt when it
 * resets the vCPU (SBI HSM hart_start) without telling user space, so
 * the vCPU's thread calls this at its exits.  Cheap while the output is
 * low (no lock taken).
 */
void plic_resync(struct plic *p, unsigned int ctx);

/* Sets the input level of source 'src' (1..PLIC_MAX_SOURCES). */
void plic_set_irq(struct plic *p, unsigned int src, int level);

/*
 * Makes 'src' edge-triggered (true) or level-triggered (false, the default).
 * This is wiring, not guest state: it survives reset.
 */
void plic_set_edge(struct plic *p, unsigned int src, bool edge);

extern const struct mmio_ops plic_mmio_ops;

#endif
