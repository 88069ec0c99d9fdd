// SPDX-License-Identifier: GPL-2.0
/* The GDB remote protocol's framing and commands; see gdb_proto.h. */
#include <errno.h>
#include <string.h>

#include "lib/gdb_proto.h"

enum { RX_IDLE, RX_DATA, RX_CSUM1, RX_CSUM2 };

void gdb_rx_init(struct gdb_rx *rx)
{
	memset(rx, 0, sizeof(*rx));
}

static int hex_val(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static enum gdb_rx_event rx_idle(struct gdb_rx *rx, uint8_t c)
{
	if (c == 0x03)
		return GDB_RX_INTERRUPT;
	if (c == '-')
		return GDB_RX_NAK;
	if (c == '$') {
		rx->state = RX_DATA;
		rx->len = 0;
		rx->sum = 0;
		rx->overflow = rx->escape = false;
	}
	return GDB_RX_NONE; /* '+' and noise between packets */
}

static void rx_data(struct gdb_rx *rx, uint8_t c)
{
	rx->sum += c;
	if (c == '#' && !rx->escape) {
		rx->sum -= c;
		rx->state = RX_CSUM1;
		return;
	}
	if (c == '}' && !rx->escape) {
		rx->escape = true;
		return;
	}
	if (rx->escape)
		c ^= 0x20;
	rx->escape = false;
	if (rx->len < sizeof(rx->buf))
		rx->buf[rx->len++] = c;
	else
		rx->overflow = true;
}

enum gdb_rx_event gdb_rx_byte(struct gdb_rx *rx, uint8_t c)
{
	int v;

	switch (rx->state) {
	case RX_DATA:
		if (c == '$') { /* a new start: the old packet was cut off */
			rx->state = RX_IDLE;
			return rx_idle(rx, c);
		}
		rx_data(rx, c);
		return GDB_RX_NONE;
	case RX_CSUM1:
	case RX_CSUM2:
		v = hex_val(c);
		if (v < 0) {
			rx->state = RX_IDLE;
			return GDB_RX_BAD;
		}
		if (rx->state == RX_CSUM1) {
			rx->csum = v << 4;
			rx->state = RX_CSUM2;
			return GDB_RX_NONE;
		}
		rx->state = RX_IDLE;
		if ((rx->csum | v) != rx->sum || rx->overflow)
			return GDB_RX_BAD;
		return GDB_RX_PACKET;
	default:
		return rx_idle(rx, c);
	}
}

size_t gdb_frame(const uint8_t *payload, size_t len, uint8_t *out, size_t size)
{
	static const char digits[] = "0123456789abcdef";
	uint8_t sum = 0;
	size_t n = 0;

	if (size < 4)
		return 0;
	out[n++] = '$';
	for (size_t i = 0; i < len; i++) {
		uint8_t c = payload[i];
		bool esc = c == '$' || c == '#' || c == '}' || c == '*';

		if (n + esc + 1 + 3 > size)
			return 0;
		if (esc) {
			out[n++] = '}';
			sum += '}';
			c ^= 0x20;
		}
		out[n++] = c;
		sum += c;
	}
	out[n++] = '#';
	out[n++] = digits[sum >> 4];
	out[n++] = digits[sum & 0xf];
	return n;
}

void gdb_hex_encode(const uint8_t *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 0xf];
	}
}

int gdb_hex_decode(const char *in, size_t digits, uint8_t *out)
{
	if (digits % 2)
		return -EINVAL;
	for (size_t i = 0; i < digits / 2; i++) {
		int hi = hex_val(in[2 * i]), lo = hex_val(in[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = hi << 4 | lo;
	}
	return 0;
}

/* --- commands ------------------------------------------------------ */

struct cur {
	const char *p, *end;
};

static bool cur_eat(struct cur *c, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n))
		return false;
	c->p += n;
	return true;
}

static bool cur_done(const struct cur *c)
{
	return c->p == c->end;
}

/* A hex number of 1..16 digits. */
static int cur_hex(struct cur *c, uint64_t *v)
{
	int n = 0, d;

	*v = 0;
	while (c->p < c->end && (d = hex_val(*c->p)) >= 0) {
		if (++n > 16)
			return -EINVAL;
		*v = *v << 4 | d;
		c->p++;
	}
	return n ? 0 : -EINVAL;
}

/* A thread id: -1, or hex (no multiprocess "p" form). */
static int cur_thread(struct cur *c, int64_t *t)
{
	uint64_t v;

	if (cur_eat(c, "-1")) {
		*t = -1;
		return 0;
	}
	if (cur_hex(c, &v) || v > INT32_MAX)
		return -EINVAL;
	*t = (int64_t)v;
	return 0;
}

/* addr,len */
static int cur_addr_len(struct cur *c, struct gdb_cmd *cmd)
{
	if (cur_hex(c, &cmd->addr) || !cur_eat(c, ",") || cur_hex(c, &cmd->len))
		return -EINVAL;
	return 0;
}

static int parse_mem_write(struct cur *c, struct gdb_cmd *cmd, bool binary,
			   uint8_t *scratch)
{
	size_t n;

	if (cur_addr_len(c, cmd) || cmd->len > GDB_PACKET_MAX ||
	    !cur_eat(c, ":"))
		return -EINVAL;
	n = c->end - c->p;
	cmd->type = GDB_CMD_WRITE_MEM;
	cmd->data = scratch;
	if (binary) { /* already unescaped by the framing */
		if (n != cmd->len)
			return -EINVAL;
		memcpy(scratch, c->p, n);
	} else if (n != 2 * cmd->len || gdb_hex_decode(c->p, n, scratch)) {
		return -EINVAL;
	}
	cmd->data_len = cmd->len;
	return 0;
}

/* Z/z type,addr,kind (conditions after ';' are not supported). */
static int parse_bp(struct cur *c, struct gdb_cmd *cmd, bool insert)
{
	uint64_t type;

	cmd->type = insert ? GDB_CMD_INSERT_BP : GDB_CMD_REMOVE_BP;
	if (cur_hex(c, &type) || type > 4 || !cur_eat(c, ",") ||
	    cur_addr_len(c, cmd) || !cur_done(c))
		return -EINVAL;
	cmd->bp_type = type;
	return 0;
}

/* c [addr] / s [addr] / C sig[;addr] / S sig[;addr] */
static int parse_resume(struct cur *c, struct gdb_cmd *cmd, char op)
{
	uint64_t sig;

	cmd->type = op == 'c' || op == 'C' ? GDB_CMD_CONTINUE : GDB_CMD_STEP;
	if ((op == 'C' || op == 'S') && (cur_hex(c, &sig) || sig > 255 ||
					 (!cur_done(c) && !cur_eat(c, ";"))))
		return -EINVAL;
	if (cur_done(c))
		return 0;
	cmd->has_addr = true;
	return cur_hex(c, &cmd->addr) || !cur_done(c) ? -EINVAL : 0;
}

/* vCont;ACTION[:thread][;ACTION[:thread]]...: any step makes it STEP. */
static int parse_vcont(struct cur *c, struct gdb_cmd *cmd)
{
	cmd->type = GDB_CMD_CONTINUE;
	while (!cur_done(c)) {
		uint64_t sig;
		char a;

		if (!cur_eat(c, ";") || cur_done(c))
			return -EINVAL;
		a = *c->p++;
		if (a == 's' || a == 'S' || a == 'r' || a == 't')
			cmd->type = GDB_CMD_STEP;
		else if (a != 'c' && a != 'C')
			return -EINVAL;
		if ((a == 'C' || a == 'S') && (cur_hex(c, &sig) || sig > 255))
			return -EINVAL;
		if (a == 'r') { /* r start,end: a range step */
			if (cur_hex(c, &sig) || !cur_eat(c, ",") ||
			    cur_hex(c, &sig))
				return -EINVAL;
		}
		if (cur_eat(c, ":") && cur_thread(c, &cmd->thread))
			return -EINVAL;
	}
	return 0;
}

/* qXfer:features:read:ANNEX:offset,len */
static int parse_xfer(struct cur *c, struct gdb_cmd *cmd)
{
	const char *colon = memchr(c->p, ':', c->end - c->p);
	size_t n;

	cmd->type = GDB_CMD_XFER_FEATURES;
	if (!colon)
		return -EINVAL;
	n = colon - c->p;
	if (n >= sizeof(cmd->annex))
		return -EINVAL;
	memcpy(cmd->annex, c->p, n);
	cmd->annex[n] = '\0';
	c->p = colon + 1;
	return cur_addr_len(c, cmd) || !cur_done(c) ? -EINVAL : 0;
}

static int parse_hex_data(struct cur *c, struct gdb_cmd *cmd, uint8_t *scratch)
{
	size_t n = c->end - c->p;

	if (n / 2 > GDB_PACKET_MAX || gdb_hex_decode(c->p, n, scratch))
		return -EINVAL;
	cmd->data = scratch;
	cmd->data_len = n / 2;
	return 0;
}

static int parse_query(struct cur *c, struct gdb_cmd *cmd, uint8_t *scratch)
{
	if (cur_eat(c, "Supported")) {
		cmd->type = GDB_CMD_SUPPORTED;
	} else if (cur_eat(c, "Xfer:features:read:")) {
		return parse_xfer(c, cmd);
	} else if (cur_eat(c, "fThreadInfo")) {
		cmd->type = GDB_CMD_THREAD_FIRST;
	} else if (cur_eat(c, "sThreadInfo")) {
		cmd->type = GDB_CMD_THREAD_NEXT;
	} else if (cur_eat(c, "ThreadExtraInfo,")) {
		cmd->type = GDB_CMD_THREAD_EXTRA;
		return cur_thread(c, &cmd->thread) || !cur_done(c) ? -EINVAL :
								     0;
	} else if (cur_eat(c, "Attached")) {
		cmd->type = GDB_CMD_ATTACHED;
	} else if (cur_eat(c, "Rcmd,")) {
		cmd->type = GDB_CMD_MONITOR;
		return parse_hex_data(c, cmd, scratch);
	} else if (cur_eat(c, "C") && cur_done(c)) {
		cmd->type = GDB_CMD_CURRENT_THREAD;
	}
	return 0;
}

static int parse_reg(struct cur *c, struct gdb_cmd *cmd, bool write)
{
	uint64_t regno;
	uint8_t le[8];

	cmd->type = write ? GDB_CMD_WRITE_REG : GDB_CMD_READ_REG;
	if (cur_hex(c, &regno) || regno > 0xffff)
		return -EINVAL;
	cmd->regno = regno;
	if (!write)
		return cur_done(c) ? 0 : -EINVAL;
	if (!cur_eat(c, "=") || c->end - c->p != 16 ||
	    gdb_hex_decode(c->p, 16, le))
		return -EINVAL;
	cmd->value = 0;
	for (int i = 7; i >= 0; i--) /* target byte order: little-endian */
		cmd->value = cmd->value << 8 | le[i];
	return 0;
}

static int parse_v(struct cur *c, struct gdb_cmd *cmd)
{
	if (cur_eat(c, "Cont?")) {
		cmd->type = GDB_CMD_VCONT_QUERY;
		return 0;
	}
	if (cur_eat(c, "Cont"))
		return parse_vcont(c, cmd);
	if (cur_eat(c, "Kill"))
		cmd->type = GDB_CMD_KILL;
	return 0;
}

static int parse_thread_op(struct cur *c, struct gdb_cmd *cmd, char op)
{
	if (op == 'H') {
		cmd->type = GDB_CMD_SET_THREAD;
		if (cur_done(c))
			return -EINVAL;
		cmd->op = *c->p++;
		if (cmd->op != 'g' && cmd->op != 'c')
			return -EINVAL;
	} else {
		cmd->type = GDB_CMD_THREAD_ALIVE;
	}
	return cur_thread(c, &cmd->thread) || !cur_done(c) ? -EINVAL : 0;
}

int gdb_parse(const uint8_t *pkt, size_t len, struct gdb_cmd *cmd,
	      uint8_t *scratch)
{
	struct cur c = { (const char *)pkt + 1, (const char *)pkt + len };

	memset(cmd, 0, sizeof(*cmd));
	if (!len)
		return 0;
	switch (pkt[0]) {
	case '?':
		cmd->type = GDB_CMD_HALT_REASON;
		return 0;
	case 'g':
		cmd->type = GDB_CMD_READ_REGS;
		return 0;
	case 'G':
		cmd->type = GDB_CMD_WRITE_REGS;
		return parse_hex_data(&c, cmd, scratch);
	case 'p':
	case 'P':
		return parse_reg(&c, cmd, pkt[0] == 'P');
	case 'm':
		cmd->type = GDB_CMD_READ_MEM;
		return cur_addr_len(&c, cmd) || !cur_done(&c) ? -EINVAL : 0;
	case 'M':
	case 'X':
		return parse_mem_write(&c, cmd, pkt[0] == 'X', scratch);
	case 'c':
	case 'C':
	case 's':
	case 'S':
		return parse_resume(&c, cmd, pkt[0]);
	case 'H':
	case 'T':
		return parse_thread_op(&c, cmd, pkt[0]);
	case 'Z':
	case 'z':
		return parse_bp(&c, cmd, pkt[0] == 'Z');
	case 'D':
		cmd->type = GDB_CMD_DETACH;
		return 0;
	case 'k':
		cmd->type = GDB_CMD_KILL;
		return 0;
	case 'q':
		return parse_query(&c, cmd, scratch);
	case 'Q':
		if (cur_eat(&c, "StartNoAckMode") && cur_done(&c))
			cmd->type = GDB_CMD_NO_ACK;
		return 0;
	case 'v':
		return parse_v(&c, cmd);
	default:
		return 0;
	}
}
