/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A GDB remote stub's session for an rv64 machine, the pure part: it
 * answers the parsed packets (gdb_proto.h) of one gdb connection through
 * a target's register and memory operations, keeps the software
 * breakpoints (ebreak / c.ebreak written over the guest's code, the
 * original bytes kept), offers the target description (target.xml) and
 * the vCPUs as threads 1..N.  What it cannot do it says: no single-step
 * (vCont? offers c and C only, s/S/vCont;s are errors), no watchpoints
 * (Z1..Z4 are unsupported).  The caller owns the socket and the vCPUs:
 * gdb_session_packet() tells it to reply, resume, detach or kill.
 */
#ifndef RVKVM_GDB_STUB_H
#define RVKVM_GDB_STUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/gdb_proto.h"

#define GDB_MAX_BPS 64
#define GDB_SIGINT 2
#define GDB_SIGTRAP 5

/* Register numbers of the target ops: pc, x1..x31, or a CSR. */
#define GDB_REG_PC 0
#define GDB_REG_CSR(csr) (0x1000u | (csr))
/* gdb's numbers (target.xml): x0..x31, pc, then CSRs at 65 + csr. */
#define GDB_REGNO_PC 32
#define GDB_REGNO_CSR0 65

struct gdb_target_ops {
	/* reg: GDB_REG_PC, 1..31 for x1..x31, GDB_REG_CSR(n): 0 or -errno */
	int (*reg_get)(void *opaque, unsigned int cpu, unsigned int reg,
		       uint64_t *val);
	int (*reg_set)(void *opaque, unsigned int cpu, unsigned int reg,
		       uint64_t val);
	/* Bytes done from the start (may be short), or -errno if none. */
	int (*mem_read)(void *opaque, unsigned int cpu, bool phys,
			uint64_t addr, uint8_t *buf, size_t len);
	int (*mem_write)(void *opaque, unsigned int cpu, bool phys,
			 uint64_t addr, const uint8_t *buf, size_t len);
};

struct gdb_bp {
	uint64_t addr;
	unsigned int kind; /* 2: c.ebreak, 4: ebreak */
	uint8_t saved[4];
	bool used;
};

enum gdb_action {
	GDB_ACT_REPLY,	/* send s->out (and stay stopped) */
	GDB_ACT_RESUME, /* resume every vCPU; no reply until they stop */
	GDB_ACT_DETACH, /* send s->out, remove nothing more, resume, close */
	GDB_ACT_KILL,	/* end the machine; no reply */
};

struct gdb_session {
	const struct gdb_target_ops *ops;
	void *opaque;
	unsigned int nr_cpus;
	unsigned int g_cpu;    /* Hg: registers and memory */
	unsigned int stop_cpu; /* the last stop's thread */
	int stop_sig;
	bool phys;   /* monitor phys on: addresses are physical */
	bool no_ack; /* QStartNoAckMode */
	struct gdb_bp bps[GDB_MAX_BPS];
	unsigned int nr_bps;
	size_t out_len;
	char out[GDB_PACKET_MAX];
	uint8_t scratch[GDB_PACKET_MAX];
};

void gdb_session_init(struct gdb_session *s, const struct gdb_target_ops *ops,
		      void *opaque, unsigned int nr_cpus);

/* Answer one packet (as received, unescaped): what the caller does. */
enum gdb_action gdb_session_packet(struct gdb_session *s, const uint8_t *pkt,
				   size_t len);

/* The stop reply for cpu and sig into s->out (and remember it). */
void gdb_session_stopped(struct gdb_session *s, unsigned int cpu, int sig);

/* Put the guest's bytes back under every breakpoint (detach, kill). */
void gdb_session_remove_bps(struct gdb_session *s);

/* The target description, NUL-terminated. */
const char *gdb_target_xml(void);

#endif
