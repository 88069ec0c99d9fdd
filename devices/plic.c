// SPDX-License-Identifier: GPL-2.0
/*
 * RISC-V PLIC: gateways (level or edge), the core's priority/enable/
 * threshold logic, claim/complete, and the register decoder.  Every entry
 * point takes the mutex, changes state, then re-drives the outputs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libfdt.h>

#include "devices/plic.h"
#include "lib/dev_fdt.h"
#include "lib/log.h"

/* The hart interrupt the PLIC drives: supervisor external (mcause 9). */
#define PLIC_IRQ_S_EXT 9

#define PLIC_PENDING_END (PLIC_PENDING_BASE + 4 * PLIC_WORDS)

static bool plic_test(const uint32_t *map, unsigned int src)
{
	return map[src / 32] & (1u << (src % 32));
}

static void plic_assign(uint32_t *map, unsigned int src, bool val)
{
	if (val)
		map[src / 32] |= 1u << (src % 32);
	else
		map[src / 32] &= ~(1u << (src % 32));
}

static bool plic_src_valid(unsigned int src)
{
	return src >= 1 && src <= PLIC_MAX_SOURCES;
}

/* The claimable source with the highest priority (ties: lowest id), or 0. */
static unsigned int plic_best(const struct plic *p, unsigned int ctx)
{
	const struct plic_context *c = &p->ctx[ctx];
	unsigned int best = 0, best_prio = c->threshold;

	for (unsigned int w = 0; w < PLIC_WORDS; w++) {
		uint32_t m = p->pending[w] & c->enable[w];

		while (m) {
			unsigned int src = w * 32 + __builtin_ctz(m);

			m &= m - 1;
			if (p->priority[src] > best_prio) {
				best = src;
				best_prio = p->priority[src];
			}
		}
	}
	return best;
}

static void plic_update(struct plic *p)
{
	for (unsigned int i = 0; i < p->nr_contexts; i++) {
		struct plic_context *c = &p->ctx[i];
		int level = plic_best(p, i) != 0;

		if (level != c->level) {
			__atomic_store_n(&c->level, level, __ATOMIC_RELAXED);
			irq_line_set(&c->output, level);
		}
	}
}

void plic_resync(struct plic *p, unsigned int ctx)
{
	if (ctx >= p->nr_contexts ||
	    !__atomic_load_n(&p->ctx[ctx].level, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&p->lock);
	if (p->ctx[ctx].level)
		irq_line_set(&p->ctx[ctx].output, 1);
	pthread_mutex_unlock(&p->lock);
}

/* Gateway: a new input level from the device. */
static void plic_gateway_input(struct plic *p, unsigned int src, bool high)
{
	bool rising = high && !plic_test(p->line, src);

	plic_assign(p->line, src, high);
	if (!plic_test(p->edge, src))
		plic_assign(p->pending, src,
			    high && !plic_test(p->claimed, src));
	else if (rising && plic_test(p->claimed, src))
		plic_assign(p->held, src, true);
	else if (rising)
		plic_assign(p->pending, src, true);
}

/* Gateway: the core finished servicing 'src'. */
static void plic_gateway_complete(struct plic *p, unsigned int src)
{
	bool again;

	if (plic_test(p->edge, src))
		again = plic_test(p->held, src);
	else
		again = plic_test(p->line, src);
	plic_assign(p->claimed, src, false);
	plic_assign(p->held, src, false);
	plic_assign(p->pending, src, again);
}

static uint32_t plic_claim(struct plic *p, unsigned int ctx)
{
	unsigned int src = plic_best(p, ctx);

	if (src) {
		plic_assign(p->pending, src, false);
		plic_assign(p->claimed, src, true);
		plic_update(p);
	}
	return src;
}

static void plic_complete(struct plic *p, unsigned int ctx, uint32_t src)
{
	if (!plic_src_valid(src)) {
		pr_guest_once("plic: completion of nonexistent source %u", src);
		return;
	}
	/* The spec ignores completions of sources not enabled here. */
	if (!plic_test(p->ctx[ctx].enable, src) || !plic_test(p->claimed, src))
		return;
	plic_gateway_complete(p, src);
	plic_update(p);
}

/*
 * Decodes a register inside a per-context array starting at 'base'.
 * Returns the context and the offset within its block, or -1.
 */
static int plic_ctx_decode(const struct plic *p, uint64_t off, uint64_t base,
			   uint64_t stride, uint64_t *reg)
{
	uint64_t ctx;

	if (off < base)
		return -1;
	ctx = (off - base) / stride;
	if (ctx >= p->nr_contexts)
		return -1;
	*reg = (off - base) % stride;
	return (int)ctx;
}

static uint32_t plic_reg_read(struct plic *p, uint64_t off)
{
	uint64_t reg;
	int ctx;

	if (off < PLIC_PENDING_BASE)
		return p->priority[off / 4];
	if (off < PLIC_PENDING_END)
		return p->pending[(off - PLIC_PENDING_BASE) / 4];
	ctx = plic_ctx_decode(p, off, PLIC_ENABLE_BASE, PLIC_ENABLE_STRIDE,
			      &reg);
	if (ctx >= 0)
		return p->ctx[ctx].enable[reg / 4];
	ctx = plic_ctx_decode(p, off, PLIC_CONTEXT_BASE, PLIC_CONTEXT_STRIDE,
			      &reg);
	if (ctx >= 0 && reg == PLIC_CONTEXT_THRESHOLD)
		return p->ctx[ctx].threshold;
	if (ctx >= 0 && reg == PLIC_CONTEXT_CLAIM)
		return plic_claim(p, ctx);
	pr_guest_once("plic: read of unimplemented offset 0x%llx",
		      (unsigned long long)off);
	return 0;
}

static void plic_reg_write(struct plic *p, uint64_t off, uint32_t val)
{
	uint64_t reg;
	int ctx;

	if (off < PLIC_PENDING_BASE) {
		if (off) /* source 0's priority is hardwired to 0 */
			p->priority[off / 4] = val & PLIC_MAX_PRIORITY;
		return;
	}
	if (off < PLIC_PENDING_END) {
		pr_guest_once("plic: write to read-only pending bits");
		return;
	}
	ctx = plic_ctx_decode(p, off, PLIC_ENABLE_BASE, PLIC_ENABLE_STRIDE,
			      &reg);
	if (ctx >= 0) {
		p->ctx[ctx].enable[reg / 4] = reg ? val : val & ~1u;
		return;
	}
	ctx = plic_ctx_decode(p, off, PLIC_CONTEXT_BASE, PLIC_CONTEXT_STRIDE,
			      &reg);
	if (ctx >= 0 && reg == PLIC_CONTEXT_THRESHOLD)
		p->ctx[ctx].threshold = val & PLIC_MAX_PRIORITY;
	else if (ctx >= 0 && reg == PLIC_CONTEXT_CLAIM)
		plic_complete(p, ctx, val);
	else
		pr_guest_once("plic: write to unimplemented offset 0x%llx",
			      (unsigned long long)off);
}

static bool plic_access_ok(uint64_t offset, unsigned int len)
{
	if (len == 4 && !(offset & 3) && offset < PLIC_SIZE)
		return true;
	pr_guest_once("plic: %u-byte access at 0x%llx ignored", len,
		      (unsigned long long)offset);
	return false;
}

static void plic_mmio_read(void *opaque, uint64_t offset, void *data,
			   unsigned int len)
{
	struct plic *p = opaque;
	uint32_t val = 0;

	if (plic_access_ok(offset, len)) {
		pthread_mutex_lock(&p->lock);
		val = plic_reg_read(p, offset);
		pthread_mutex_unlock(&p->lock);
	}
	mmio_data_put(data, len, val);
}

static void plic_mmio_write(void *opaque, uint64_t offset, const void *data,
			    unsigned int len)
{
	struct plic *p = opaque;

	if (!plic_access_ok(offset, len))
		return;
	pthread_mutex_lock(&p->lock);
	plic_reg_write(p, offset, mmio_data_get(data, 4));
	plic_update(p);
	pthread_mutex_unlock(&p->lock);
}

/* Guest state is cleared; input levels and the trigger wiring remain. */
static void plic_reset(void *opaque)
{
	struct plic *p = opaque;

	pthread_mutex_lock(&p->lock);
	memset(p->priority, 0, sizeof(p->priority));
	memset(p->claimed, 0, sizeof(p->claimed));
	memset(p->held, 0, sizeof(p->held));
	for (unsigned int w = 0; w < PLIC_WORDS; w++)
		p->pending[w] = p->line[w] & ~p->edge[w];
	for (unsigned int i = 0; i < p->nr_contexts; i++) {
		memset(p->ctx[i].enable, 0, sizeof(p->ctx[i].enable));
		p->ctx[i].threshold = 0;
	}
	plic_update(p); /* nothing is enabled: all outputs drop */
	pthread_mutex_unlock(&p->lock);
}

static int plic_fdt(void *opaque, void *fdt)
{
	static const char compat[] = "sifive,plic-1.0.0\0riscv,plic0";
	const struct plic *p = opaque;
	fdt32_t ext[2 * PLIC_MAX_CONTEXTS];
	int ext_len = 2 * sizeof(ext[0]) * p->nr_contexts;
	int err;

	for (unsigned int i = 0; i < p->nr_contexts; i++) {
		ext[2 * i] = cpu_to_fdt32(p->res.irq_parent + i);
		ext[2 * i + 1] = cpu_to_fdt32(PLIC_IRQ_S_EXT);
	}
	err = dev_fdt_begin(fdt, "interrupt-controller", compat, sizeof(compat),
			    &p->res);
	err = err ?: fdt_property(fdt, "interrupts-extended", ext, ext_len);
	err = err ?: fdt_property_u32(fdt, "riscv,ndev", PLIC_MAX_SOURCES);
	err = err ?: fdt_property_u32(fdt, "#interrupt-cells", 1);
	err = err ?: fdt_property_u32(fdt, "#address-cells", 0);
	err = err ?: fdt_property(fdt, "interrupt-controller", NULL, 0);
	err = err ?: fdt_property_u32(fdt, "phandle", p->res.phandle);
	return err ?: fdt_end_node(fdt);
}

int plic_init(struct plic *p, const struct dev_res *res,
	      unsigned int nr_contexts, const struct irq_line *outputs)
{
	int err;

	if (!res || !nr_contexts || nr_contexts > PLIC_MAX_CONTEXTS || !outputs)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	err = pthread_mutex_init(&p->lock, NULL);
	if (err)
		return -err;
	p->res = *res;
	p->nr_contexts = nr_contexts;
	for (unsigned int i = 0; i < nr_contexts; i++)
		p->ctx[i].output = outputs[i];
	return 0;
}

void plic_destroy(struct plic *p)
{
	pthread_mutex_destroy(&p->lock);
}

void plic_set_irq(struct plic *p, unsigned int src, int level)
{
	if (!plic_src_valid(src)) {
		pr_once(LOG_ERR, "plic: set_irq on nonexistent source %u", src);
		return;
	}
	pthread_mutex_lock(&p->lock);
	if (plic_test(p->line, src) != !!level) {
		plic_gateway_input(p, src, level);
		plic_update(p);
	}
	pthread_mutex_unlock(&p->lock);
}

void plic_set_edge(struct plic *p, unsigned int src, bool edge)
{
	if (!plic_src_valid(src)) {
		pr_once(LOG_ERR, "plic: set_edge on nonexistent source %u",
			src);
		return;
	}
	pthread_mutex_lock(&p->lock);
	plic_assign(p->edge, src, edge);
	plic_assign(p->held, src, false);
	if (!edge)
		plic_assign(p->pending, src,
			    plic_test(p->line, src) &&
				    !plic_test(p->claimed, src));
	plic_update(p);
	pthread_mutex_unlock(&p->lock);
}

const struct mmio_ops plic_mmio_ops = {
	.name = "plic",
	.sizes = MMIO_SIZE(4),
	.read = plic_mmio_read,
	.write = plic_mmio_write,
	.reset = plic_reset,
	.fdt = plic_fdt,
};
