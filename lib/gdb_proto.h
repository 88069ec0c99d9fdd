/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The GDB remote serial protocol, the pure part: packet framing
 * ($payload#cs, '}' escapes, the 0x03 interrupt byte, '+'/'-' acks),
 * hex, and the parse of one packet into a command.  Input comes from the
 * network: every length is bounded by GDB_PACKET_MAX, a packet that does
 * not fit is dropped whole, and numbers that overflow are errors.
 */
#ifndef RVKVM_GDB_PROTO_H
#define RVKVM_GDB_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest payload (unescaped) we take and send: PacketSize. */
#define GDB_PACKET_MAX 4096
/* A framed packet: '$', payload escaped (x2 at worst), '#', 2 digits. */
#define GDB_FRAME_MAX (2 * GDB_PACKET_MAX + 4)

enum gdb_rx_event {
	GDB_RX_NONE,	  /* nothing complete yet */
	GDB_RX_PACKET,	  /* rx->buf[0..len) holds a packet: ack it */
	GDB_RX_BAD,	  /* bad checksum or too long: send '-' */
	GDB_RX_INTERRUPT, /* 0x03 between packets */
	GDB_RX_NAK,	  /* '-': the peer wants the last packet again */
};

struct gdb_rx {
	int state;
	bool overflow, escape;
	uint8_t sum, csum;
	size_t len;
	uint8_t buf[GDB_PACKET_MAX];
};

void gdb_rx_init(struct gdb_rx *rx);
/* Take one byte of the stream. */
enum gdb_rx_event gdb_rx_byte(struct gdb_rx *rx, uint8_t c);

/* Frame payload into out: its length, or 0 if it does not fit. */
size_t gdb_frame(const uint8_t *payload, size_t len, uint8_t *out, size_t size);

/* Hex: n bytes of in into 2n digits (no NUL). */
void gdb_hex_encode(const uint8_t *in, size_t n, char *out);
/* 2n digits into n bytes: 0 or -EINVAL. */
int gdb_hex_decode(const char *in, size_t digits, uint8_t *out);

enum gdb_cmd_type {
	GDB_CMD_UNKNOWN,	/* answered with an empty packet */
	GDB_CMD_HALT_REASON,	/* ? */
	GDB_CMD_READ_REGS,	/* g */
	GDB_CMD_WRITE_REGS,	/* G data */
	GDB_CMD_READ_REG,	/* p regno */
	GDB_CMD_WRITE_REG,	/* P regno=value */
	GDB_CMD_READ_MEM,	/* m addr,len */
	GDB_CMD_WRITE_MEM,	/* M addr,len:hex or X addr,len:binary */
	GDB_CMD_CONTINUE,	/* c [addr], C sig[;addr], vCont;c / ;C */
	GDB_CMD_STEP,		/* s, S, or a vCont with a step action */
	GDB_CMD_VCONT_QUERY,	/* vCont? */
	GDB_CMD_SET_THREAD,	/* H op thread */
	GDB_CMD_THREAD_ALIVE,	/* T thread */
	GDB_CMD_SUPPORTED,	/* qSupported */
	GDB_CMD_XFER_FEATURES,	/* qXfer:features:read:annex:offset,len */
	GDB_CMD_THREAD_FIRST,	/* qfThreadInfo */
	GDB_CMD_THREAD_NEXT,	/* qsThreadInfo */
	GDB_CMD_CURRENT_THREAD, /* qC */
	GDB_CMD_THREAD_EXTRA,	/* qThreadExtraInfo,thread */
	GDB_CMD_ATTACHED,	/* qAttached */
	GDB_CMD_MONITOR,	/* qRcmd,hex */
	GDB_CMD_INSERT_BP,	/* Z type,addr,kind */
	GDB_CMD_REMOVE_BP,	/* z type,addr,kind */
	GDB_CMD_DETACH,		/* D */
	GDB_CMD_KILL,		/* k, vKill */
	GDB_CMD_NO_ACK,		/* QStartNoAckMode */
};

/* Thread ids: -1 all, 0 any, else an id (a hart + 1). */
struct gdb_cmd {
	enum gdb_cmd_type type;
	uint64_t addr, len;   /* memory, breakpoints, qXfer offset/len */
	uint64_t value;	      /* P */
	unsigned int regno;   /* p, P */
	unsigned int bp_type; /* Z, z: 0 software breakpoint */
	int64_t thread;	      /* H, T, qThreadExtraInfo */
	char op;	      /* H: 'g' or 'c' */
	bool has_addr;	      /* c addr */
	const uint8_t *data;  /* M, X, G, qRcmd: decoded bytes */
	size_t data_len;
	char annex[32]; /* qXfer */
};

/*
 * Parse one packet.  scratch (GDB_PACKET_MAX bytes) holds decoded data.
 * 0 (cmd->type GDB_CMD_UNKNOWN for what we do not know) or -EINVAL for
 * a malformed command we know.
 */
int gdb_parse(const uint8_t *pkt, size_t len, struct gdb_cmd *cmd,
	      uint8_t *scratch);

#endif
