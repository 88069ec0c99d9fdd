// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the gdb stub's input path (lib/gdb_proto.c, lib/gdb_stub.c): the
 * input is a byte stream from a gdb client, framed by gdb_rx; each packet
 * goes to a session over a small fake target (4 vCPUs, 4 KiB of memory).
 * Replies must fit the packet size and frame; the fake memory is only
 * touched through the ops, which check their bounds.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/gdb_stub.h"

#define CHECK(cond)                       \
	do {                              \
		if (!(cond))              \
			__builtin_trap(); \
	} while (0)

#define MEM_SIZE 4096

static uint8_t mem[MEM_SIZE];
static uint64_t regs[4][32];

static int reg_get(void *o, unsigned int cpu, unsigned int reg, uint64_t *v)
{
	CHECK(cpu < 4);
	*v = reg < 32 ? regs[cpu][reg] : reg;
	return reg < 32 || reg >= GDB_REG_CSR(0) ? 0 : -ENOENT;
}

static int reg_set(void *o, unsigned int cpu, unsigned int reg, uint64_t v)
{
	CHECK(cpu < 4 && reg < 32);
	regs[cpu][reg] = v;
	return 0;
}

static int span(uint64_t addr, size_t len)
{
	CHECK(len <= GDB_PACKET_MAX);
	if (addr >= MEM_SIZE)
		return -EFAULT;
	return len < MEM_SIZE - addr ? (int)len : (int)(MEM_SIZE - addr);
}

static int mem_read(void *o, unsigned int cpu, bool phys, uint64_t addr,
		    uint8_t *buf, size_t len)
{
	int n = span(addr, len);

	CHECK(cpu < 4);
	if (n > 0)
		memcpy(buf, mem + addr, n);
	return n;
}

static int mem_write(void *o, unsigned int cpu, bool phys, uint64_t addr,
		     const uint8_t *buf, size_t len)
{
	int n = span(addr, len);

	CHECK(cpu < 4);
	if (n > 0)
		memcpy(mem + addr, buf, n);
	return n;
}

static const struct gdb_target_ops ops = { reg_get, reg_set, mem_read,
					   mem_write };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gdb_session s;
	static struct gdb_rx rx;
	static uint8_t frame[GDB_FRAME_MAX];

	gdb_rx_init(&rx);
	gdb_session_init(&s, &ops, NULL, 4);
	for (size_t i = 0; i < size; i++) {
		if (gdb_rx_byte(&rx, data[i]) != GDB_RX_PACKET)
			continue;
		gdb_session_packet(&s, rx.buf, rx.len);
		CHECK(s.out_len <= GDB_PACKET_MAX);
		CHECK(gdb_frame((const uint8_t *)s.out, s.out_len, frame,
				sizeof(frame)) > 0);
		CHECK(s.g_cpu < 4 && s.nr_bps <= GDB_MAX_BPS);
	}
	return 0;
}
