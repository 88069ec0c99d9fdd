// SPDX-License-Identifier: GPL-2.0
/* A GDB remote stub's session; see gdb_stub.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/gdb_stub.h"

/* The S-mode CSRs KVM's ONE_REG offers (6.12), by CSR number. */
static const struct {
	const char *name;
	unsigned int csr;
} csrs[] = {
	{ "sstatus", 0x100 },	 { "sie", 0x104 },     { "stvec", 0x105 },
	{ "scounteren", 0x106 }, { "senvcfg", 0x10a }, { "sscratch", 0x140 },
	{ "sepc", 0x141 },	 { "scause", 0x142 },  { "stval", 0x143 },
	{ "sip", 0x144 },	 { "satp", 0x180 },
};
#define NR_CSRS (sizeof(csrs) / sizeof(csrs[0]))

static const char *const xnames[32] = {
	"zero", "ra", "sp", "gp", "tp",	 "t0",	"t1", "t2", "fp", "s1", "a0",
	"a1",	"a2", "a3", "a4", "a5",	 "a6",	"a7", "s2", "s3", "s4", "s5",
	"s6",	"s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};

static const uint8_t ebreak[4] = { 0x73, 0x00, 0x10, 0x00 };
static const uint8_t c_ebreak[2] = { 0x02, 0x90 };

static size_t xml_add(char *buf, size_t size, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t xml_add(char *buf, size_t size, size_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (at >= size)
		return at;
	va_start(ap, fmt);
	n = vsnprintf(buf + at, size - at, fmt, ap);
	va_end(ap);
	return n < 0 ? at : at + n;
}

/* Built once from the tables above: the GPRs, pc and the CSRs. */
const char *gdb_target_xml(void)
{
	static char xml[3072];
	size_t n = 0;

	if (xml[0])
		return xml;
	n = xml_add(xml, sizeof(xml), n,
		    "<?xml version=\"1.0\"?>\n"
		    "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
		    "<target version=\"1.0\">\n"
		    "<architecture>riscv:rv64</architecture>\n"
		    "<feature name=\"org.gnu.gdb.riscv.cpu\">\n");
	for (unsigned int i = 0; i < 32; i++)
		n = xml_add(
			xml, sizeof(xml), n,
			"<reg name=\"%s\" bitsize=\"64\" regnum=\"%u\" type=\"%s\"/>\n",
			xnames[i], i,
			i == 1 || i == 2 || i == 8 ? "code_ptr" : "int");
	n = xml_add(
		xml, sizeof(xml), n,
		"<reg name=\"pc\" bitsize=\"64\" regnum=\"%u\" type=\"code_ptr\"/>\n"
		"</feature>\n<feature name=\"org.gnu.gdb.riscv.csr\">\n",
		GDB_REGNO_PC);
	for (unsigned int i = 0; i < NR_CSRS; i++)
		n = xml_add(
			xml, sizeof(xml), n,
			"<reg name=\"%s\" bitsize=\"64\" regnum=\"%u\" group=\"system\"/>\n",
			csrs[i].name, GDB_REGNO_CSR0 + csrs[i].csr);
	xml_add(xml, sizeof(xml), n, "</feature>\n</target>\n");
	return xml;
}

void gdb_session_init(struct gdb_session *s, const struct gdb_target_ops *ops,
		      void *opaque, unsigned int nr_cpus)
{
	memset(s, 0, sizeof(*s));
	s->ops = ops;
	s->opaque = opaque;
	s->nr_cpus = nr_cpus;
	s->stop_sig = GDB_SIGTRAP;
}

static void out_str(struct gdb_session *s, const char *str)
{
	size_t n = strlen(str);

	if (n > sizeof(s->out))
		n = sizeof(s->out);
	memcpy(s->out, str, n);
	s->out_len = n;
}

static void out_err(struct gdb_session *s, int err)
{
	s->out_len = snprintf(s->out, sizeof(s->out), "E%02x", err & 0xff);
}

static void out_hex(struct gdb_session *s, const void *data, size_t n)
{
	if (2 * n > sizeof(s->out))
		n = sizeof(s->out) / 2;
	gdb_hex_encode(data, n, s->out);
	s->out_len = 2 * n;
}

/* gdb's register number to the target's; -1 if we have none. */
static int reg_of(unsigned int regno)
{
	if (regno >= 1 && regno < 32)
		return regno;
	if (regno == GDB_REGNO_PC)
		return GDB_REG_PC;
	for (unsigned int i = 0; i < NR_CSRS; i++)
		if (regno == GDB_REGNO_CSR0 + csrs[i].csr)
			return GDB_REG_CSR(csrs[i].csr);
	return -1;
}

static int reg_read(struct gdb_session *s, unsigned int regno, uint64_t *v)
{
	int reg = regno ? reg_of(regno) : -1;

	*v = 0;
	if (!regno)
		return 0; /* x0 */
	if (reg < 0)
		return -ENOENT;
	return s->ops->reg_get(s->opaque, s->g_cpu, reg, v);
}

static void put_le64(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = v >> (8 * i);
}

static uint64_t get_le64(const uint8_t *b)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

/* g: x0..x31 and pc. */
static void read_regs(struct gdb_session *s)
{
	uint8_t b[33 * 8];
	uint64_t v;

	for (unsigned int i = 0; i <= GDB_REGNO_PC; i++) {
		if (reg_read(s, i, &v)) {
			out_err(s, EIO);
			return;
		}
		put_le64(b + 8 * i, v);
	}
	out_hex(s, b, sizeof(b));
}

/* G: as many whole registers of x0..pc as given; x0 is not written. */
static void write_regs(struct gdb_session *s, const struct gdb_cmd *c)
{
	size_t n = c->data_len / 8;

	if (c->data_len % 8 || n > GDB_REGNO_PC + 1) {
		out_err(s, EINVAL);
		return;
	}
	for (unsigned int i = 1; i < n; i++)
		if (s->ops->reg_set(s->opaque, s->g_cpu, reg_of(i),
				    get_le64(c->data + 8 * i))) {
			out_err(s, EIO);
			return;
		}
	out_str(s, "OK");
}

static void read_reg(struct gdb_session *s, unsigned int regno)
{
	uint8_t b[8];
	uint64_t v;
	int ret = reg_read(s, regno, &v);

	if (ret) {
		out_err(s, -ret);
		return;
	}
	put_le64(b, v);
	out_hex(s, b, sizeof(b));
}

static void write_reg(struct gdb_session *s, unsigned int regno, uint64_t v)
{
	int reg = reg_of(regno);

	if (!regno) {
		out_str(s, "OK");
		return;
	}
	if (reg < 0 || s->ops->reg_set(s->opaque, s->g_cpu, reg, v))
		out_err(s, reg < 0 ? ENOENT : EIO);
	else
		out_str(s, "OK");
}

static void read_mem(struct gdb_session *s, uint64_t addr, uint64_t len)
{
	int n;

	if (len > sizeof(s->out) / 2)
		len = sizeof(s->out) / 2;
	if (!len) {
		out_str(s, "");
		return;
	}
	n = s->ops->mem_read(s->opaque, s->g_cpu, s->phys, addr, s->scratch,
			     len);
	if (n <= 0)
		out_err(s, n < 0 ? -n : EFAULT);
	else
		out_hex(s, s->scratch, n);
}

static void write_mem(struct gdb_session *s, const struct gdb_cmd *c)
{
	int n = c->data_len ? s->ops->mem_write(s->opaque, s->g_cpu, s->phys,
						c->addr, c->data, c->data_len) :
			      0;

	if (n < 0 || (size_t)n != c->data_len)
		out_err(s, n < 0 ? -n : EFAULT);
	else
		out_str(s, "OK");
}

static struct gdb_bp *bp_find(struct gdb_session *s, uint64_t addr)
{
	for (unsigned int i = 0; i < GDB_MAX_BPS; i++)
		if (s->bps[i].used && s->bps[i].addr == addr)
			return &s->bps[i];
	return NULL;
}

static int bp_insert(struct gdb_session *s, uint64_t addr, unsigned int kind)
{
	const uint8_t *insn = kind == 2 ? c_ebreak : ebreak;
	struct gdb_bp *bp = NULL;
	uint8_t saved[4];

	if (kind != 2 && kind != 4)
		return -EINVAL;
	if (bp_find(s, addr))
		return 0; /* inserted already */
	for (unsigned int i = 0; i < GDB_MAX_BPS && !bp; i++)
		if (!s->bps[i].used)
			bp = &s->bps[i];
	if (!bp)
		return -ENOSPC;
	if (s->ops->mem_read(s->opaque, s->g_cpu, s->phys, addr, saved, kind) !=
		    (int)kind ||
	    s->ops->mem_write(s->opaque, s->g_cpu, s->phys, addr, insn, kind) !=
		    (int)kind)
		return -EFAULT;
	*bp = (struct gdb_bp){ .addr = addr, .kind = kind, .used = true };
	memcpy(bp->saved, saved, kind);
	s->nr_bps++;
	return 0;
}

static int bp_remove_one(struct gdb_session *s, struct gdb_bp *bp)
{
	int n = s->ops->mem_write(s->opaque, s->g_cpu, s->phys, bp->addr,
				  bp->saved, bp->kind);

	bp->used = false;
	s->nr_bps--;
	return n == (int)bp->kind ? 0 : -EFAULT;
}

void gdb_session_remove_bps(struct gdb_session *s)
{
	for (unsigned int i = 0; i < GDB_MAX_BPS; i++)
		if (s->bps[i].used)
			bp_remove_one(s, &s->bps[i]);
}

static void breakpoint(struct gdb_session *s, const struct gdb_cmd *c,
		       bool insert)
{
	struct gdb_bp *bp;
	int ret = 0;

	if (c->bp_type != 0) { /* hardware breakpoints, watchpoints */
		out_str(s, "");
		return;
	}
	if (insert)
		ret = bp_insert(s, c->addr, c->len);
	else if ((bp = bp_find(s, c->addr)))
		ret = bp_remove_one(s, bp);
	if (ret)
		out_err(s, -ret);
	else
		out_str(s, "OK");
}

/* A thread id names a vCPU: 1..nr_cpus. */
static bool thread_ok(const struct gdb_session *s, int64_t t)
{
	return t >= 1 && t <= (int64_t)s->nr_cpus;
}

static void set_thread(struct gdb_session *s, const struct gdb_cmd *c)
{
	if (c->thread > 0 && !thread_ok(s, c->thread)) {
		out_err(s, ESRCH);
		return;
	}
	if (c->op == 'g' && c->thread > 0)
		s->g_cpu = c->thread - 1;
	out_str(s, "OK"); /* Hc: every vCPU resumes together anyway */
}

static void thread_list(struct gdb_session *s)
{
	size_t n = 0;

	s->out[n++] = 'm';
	for (unsigned int i = 0; i < s->nr_cpus && n + 12 < sizeof(s->out); i++)
		n += snprintf(s->out + n, sizeof(s->out) - n, "%s%x",
			      i ? "," : "", i + 1);
	s->out_len = n;
}

static void thread_extra(struct gdb_session *s, int64_t t)
{
	char text[32];
	int n;

	if (!thread_ok(s, t)) {
		out_err(s, ESRCH);
		return;
	}
	n = snprintf(text, sizeof(text), "vCPU %u", (unsigned int)(t - 1));
	out_hex(s, text, n);
}

static void xfer_features(struct gdb_session *s, const struct gdb_cmd *c)
{
	const char *xml = gdb_target_xml();
	size_t total = strlen(xml), len = c->len;

	if (strcmp(c->annex, "target.xml")) {
		out_err(s, ENOENT);
		return;
	}
	if (c->addr >= total) {
		out_str(s, "l");
		return;
	}
	if (len > sizeof(s->out) - 1)
		len = sizeof(s->out) - 1;
	if (len > total - c->addr)
		len = total - c->addr;
	s->out[0] = c->addr + len < total ? 'm' : 'l';
	memcpy(s->out + 1, xml + c->addr, len);
	s->out_len = 1 + len;
}

static const char monitor_help[] =
	"lkvm gdb stub monitor commands:\n"
	"  phys on|off  addresses of memory accesses and breakpoints are\n"
	"               guest physical (on) or virtual through the vCPU's\n"
	"               satp (off, the default)\n"
	"  phys         show which\n"
	"Not available: single-step (KVM RISC-V has none), watchpoints.\n";

static void monitor(struct gdb_session *s, const struct gdb_cmd *c)
{
	char cmd[32], text[64];
	const char *say = text;
	size_t n =
		c->data_len < sizeof(cmd) - 1 ? c->data_len : sizeof(cmd) - 1;

	memcpy(cmd, c->data, n);
	cmd[n] = '\0';
	if (!strcmp(cmd, "phys on") || !strcmp(cmd, "phys off"))
		s->phys = !strcmp(cmd, "phys on");
	if (!strcmp(cmd, "help"))
		say = monitor_help;
	else if (!strncmp(cmd, "phys", 4) &&
		 (!cmd[4] || !strcmp(cmd + 4, " on") ||
		  !strcmp(cmd + 4, " off")))
		snprintf(text, sizeof(text), "addresses are %s\n",
			 s->phys ? "physical" : "virtual");
	else
		snprintf(text, sizeof(text),
			 "unknown monitor command (try: monitor help)\n");
	out_hex(s, say, strlen(say));
}

void gdb_session_stopped(struct gdb_session *s, unsigned int cpu, int sig)
{
	s->stop_cpu = cpu < s->nr_cpus ? cpu : 0;
	s->stop_sig = sig;
	s->g_cpu = s->stop_cpu;
	s->out_len = snprintf(s->out, sizeof(s->out), "T%02xthread:%x;",
			      sig & 0xff, s->stop_cpu + 1);
}

/* c addr / C sig;addr: resume at addr. */
static enum gdb_action resume(struct gdb_session *s, const struct gdb_cmd *c)
{
	if (c->has_addr &&
	    s->ops->reg_set(s->opaque, s->g_cpu, GDB_REG_PC, c->addr)) {
		out_err(s, EIO);
		return GDB_ACT_REPLY;
	}
	return GDB_ACT_RESUME;
}

static enum gdb_action query(struct gdb_session *s, const struct gdb_cmd *c)
{
	switch (c->type) {
	case GDB_CMD_SUPPORTED:
		s->out_len = snprintf(s->out, sizeof(s->out),
				      "PacketSize=%x;qXfer:features:read+;"
				      "QStartNoAckMode+",
				      GDB_PACKET_MAX);
		break;
	case GDB_CMD_XFER_FEATURES:
		xfer_features(s, c);
		break;
	case GDB_CMD_THREAD_FIRST:
		thread_list(s);
		break;
	case GDB_CMD_THREAD_NEXT:
		out_str(s, "l");
		break;
	case GDB_CMD_CURRENT_THREAD:
		s->out_len = snprintf(s->out, sizeof(s->out), "QC%x",
				      s->stop_cpu + 1);
		break;
	case GDB_CMD_THREAD_EXTRA:
		thread_extra(s, c->thread);
		break;
	case GDB_CMD_ATTACHED:
		out_str(s, "1");
		break;
	case GDB_CMD_MONITOR:
		monitor(s, c);
		break;
	default:
		out_str(s, "");
	}
	return GDB_ACT_REPLY;
}

static enum gdb_action dispatch(struct gdb_session *s, const struct gdb_cmd *c)
{
	switch (c->type) {
	case GDB_CMD_HALT_REASON:
		gdb_session_stopped(s, s->stop_cpu, s->stop_sig);
		break;
	case GDB_CMD_READ_REGS:
		read_regs(s);
		break;
	case GDB_CMD_WRITE_REGS:
		write_regs(s, c);
		break;
	case GDB_CMD_READ_REG:
		read_reg(s, c->regno);
		break;
	case GDB_CMD_WRITE_REG:
		write_reg(s, c->regno, c->value);
		break;
	case GDB_CMD_READ_MEM:
		read_mem(s, c->addr, c->len);
		break;
	case GDB_CMD_WRITE_MEM:
		write_mem(s, c);
		break;
	case GDB_CMD_CONTINUE:
		return resume(s, c);
	case GDB_CMD_STEP: /* KVM RISC-V cannot single-step */
		out_err(s, EOPNOTSUPP);
		break;
	case GDB_CMD_VCONT_QUERY:
		out_str(s, "vCont;c;C");
		break;
	case GDB_CMD_SET_THREAD:
		set_thread(s, c);
		break;
	case GDB_CMD_THREAD_ALIVE:
		if (thread_ok(s, c->thread))
			out_str(s, "OK");
		else
			out_err(s, ESRCH);
		break;
	case GDB_CMD_INSERT_BP:
	case GDB_CMD_REMOVE_BP:
		breakpoint(s, c, c->type == GDB_CMD_INSERT_BP);
		break;
	case GDB_CMD_DETACH:
		gdb_session_remove_bps(s);
		out_str(s, "OK");
		return GDB_ACT_DETACH;
	case GDB_CMD_KILL:
		gdb_session_remove_bps(s);
		return GDB_ACT_KILL;
	case GDB_CMD_NO_ACK:
		s->no_ack = true;
		out_str(s, "OK");
		break;
	default:
		return query(s, c);
	}
	return GDB_ACT_REPLY;
}

enum gdb_action gdb_session_packet(struct gdb_session *s, const uint8_t *pkt,
				   size_t len)
{
	struct gdb_cmd c;

	s->out_len = 0;
	if (gdb_parse(pkt, len, &c, s->scratch)) {
		out_err(s, EINVAL);
		return GDB_ACT_REPLY;
	}
	return dispatch(s, &c);
}
