// SPDX-License-Identifier: GPL-2.0
/*
 * The GDB remote protocol (lib/gdb_proto.c: framing, escapes, checksums,
 * hex, command parsing) and the stub's session (lib/gdb_stub.c) against
 * a fake rv64 target: registers, memory, breakpoints, threads, the
 * target description, no single-step.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/gdb_stub.h"

#define NCPU 2
#define MEM_BASE 0x1000
#define MEM_SIZE 0x100

struct fake {
	uint64_t regs[NCPU][32]; /* [0] pc, [i] xi */
	uint64_t satp[NCPU];
	uint8_t mem[MEM_SIZE];
	bool last_phys;
};

static struct fake fake;
static struct gdb_session sess;

static int fake_reg_get(void *o, unsigned int cpu, unsigned int reg,
			uint64_t *v)
{
	struct fake *f = o;

	assert_true(cpu < NCPU);
	if (reg < 32)
		*v = f->regs[cpu][reg];
	else if (reg == GDB_REG_CSR(0x180))
		*v = f->satp[cpu];
	else if (reg >= GDB_REG_CSR(0))
		*v = reg;
	else
		return -ENOENT;
	return 0;
}

static int fake_reg_set(void *o, unsigned int cpu, unsigned int reg, uint64_t v)
{
	struct fake *f = o;

	assert_true(cpu < NCPU && reg < 32);
	f->regs[cpu][reg] = v;
	return 0;
}

/* Memory at MEM_BASE (virtual: MEM_BASE + 0x10000); short at the end. */
static int fake_access(struct fake *f, bool phys, uint64_t addr, size_t len,
		       size_t *off)
{
	uint64_t base = phys ? MEM_BASE : MEM_BASE + 0x10000;

	f->last_phys = phys;
	if (addr < base || addr >= base + MEM_SIZE)
		return -EFAULT;
	*off = addr - base;
	return len < MEM_SIZE - *off ? (int)len : (int)(MEM_SIZE - *off);
}

static int fake_read(void *o, unsigned int cpu, bool phys, uint64_t addr,
		     uint8_t *buf, size_t len)
{
	size_t off;
	int n = fake_access(o, phys, addr, len, &off);

	if (n > 0)
		memcpy(buf, fake.mem + off, n);
	return n;
}

static int fake_write(void *o, unsigned int cpu, bool phys, uint64_t addr,
		      const uint8_t *buf, size_t len)
{
	size_t off;
	int n = fake_access(o, phys, addr, len, &off);

	if (n > 0)
		memcpy(fake.mem + off, buf, n);
	return n;
}

static const struct gdb_target_ops ops = {
	fake_reg_get,
	fake_reg_set,
	fake_read,
	fake_write,
};

static int setup(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof(fake));
	for (int c = 0; c < NCPU; c++)
		for (int i = 0; i < 32; i++)
			fake.regs[c][i] = 0x100 * c + i;
	for (int i = 0; i < MEM_SIZE; i++)
		fake.mem[i] = i;
	gdb_session_init(&sess, &ops, &fake, NCPU);
	return 0;
}

/* Send a packet (as text); the reply as a NUL-terminated string. */
static const char *ask(const char *pkt, enum gdb_action want)
{
	static char reply[GDB_PACKET_MAX + 1];

	assert_int_equal(
		gdb_session_packet(&sess, (const uint8_t *)pkt, strlen(pkt)),
		want);
	memcpy(reply, sess.out, sess.out_len);
	reply[sess.out_len] = '\0';
	return reply;
}

#define ASK(p, r) assert_string_equal(ask(p, GDB_ACT_REPLY), r)

/* --- framing ------------------------------------------------------- */

static enum gdb_rx_event feed(struct gdb_rx *rx, const char *s)
{
	enum gdb_rx_event ev = GDB_RX_NONE;

	for (; *s; s++) {
		ev = gdb_rx_byte(rx, (uint8_t)*s);
		if (ev != GDB_RX_NONE && s[1])
			fail_msg("event before the end at '%s'", s);
	}
	return ev;
}

static void test_rx_packets(void **state)
{
	struct gdb_rx rx;

	(void)state;
	gdb_rx_init(&rx);
	assert_int_equal(feed(&rx, "+$g#67"), GDB_RX_PACKET);
	assert_int_equal(rx.len, 1);
	assert_int_equal(rx.buf[0], 'g');
	assert_int_equal(feed(&rx, "$g#68"), GDB_RX_BAD);
	assert_int_equal(feed(&rx, "$g#6x"), GDB_RX_BAD);
	assert_int_equal(feed(&rx, "\x03"), GDB_RX_INTERRUPT);
	assert_int_equal(feed(&rx, "-"), GDB_RX_NAK);
	/* "}]" is an escaped "}" (0x5d ^ 0x20) */
	assert_int_equal(feed(&rx, "$X0,1:}]#f9"), GDB_RX_PACKET);
	assert_int_equal(rx.len, 6);
	assert_int_equal(rx.buf[5], '}');
	/* a '$' inside a packet starts a new one */
	assert_int_equal(feed(&rx, "$abc$g#67"), GDB_RX_PACKET);
	assert_int_equal(rx.len, 1);
}

static void test_rx_overflow(void **state)
{
	static char big[GDB_PACKET_MAX + 16];
	struct gdb_rx rx;
	unsigned int sum = 0;

	(void)state;
	gdb_rx_init(&rx);
	big[0] = '$';
	for (int i = 1; i <= GDB_PACKET_MAX + 1; i++) {
		big[i] = 'a';
		sum += 'a';
	}
	snprintf(big + GDB_PACKET_MAX + 2, 4, "#%02x", sum & 0xff);
	assert_int_equal(feed(&rx, big), GDB_RX_BAD);
	assert_int_equal(feed(&rx, "$g#67"), GDB_RX_PACKET);
}

static void test_frame_roundtrip(void **state)
{
	const uint8_t payload[] = { 'a', '$', '#', '}', '*', 0, 0xff };
	uint8_t out[64];
	struct gdb_rx rx;
	size_t n = gdb_frame(payload, sizeof(payload), out, sizeof(out));
	enum gdb_rx_event ev = GDB_RX_NONE;

	(void)state;
	assert_true(n > sizeof(payload) + 4);
	gdb_rx_init(&rx);
	for (size_t i = 0; i < n; i++)
		ev = gdb_rx_byte(&rx, out[i]);
	assert_int_equal(ev, GDB_RX_PACKET);
	assert_int_equal(rx.len, sizeof(payload));
	assert_memory_equal(rx.buf, payload, sizeof(payload));
	assert_int_equal(gdb_frame(payload, sizeof(payload), out, 8), 0);
	assert_int_equal(gdb_frame((const uint8_t *)"OK", 2, out, sizeof(out)),
			 6);
	assert_memory_equal(out, "$OK#9a", 6);
}

static void test_hex(void **state)
{
	uint8_t b[4];
	char h[8];

	(void)state;
	assert_int_equal(gdb_hex_decode("0aFf", 4, b), 0);
	assert_int_equal(b[0], 0x0a);
	assert_int_equal(b[1], 0xff);
	assert_int_equal(gdb_hex_decode("0g", 2, b), -EINVAL);
	assert_int_equal(gdb_hex_decode("abc", 3, b), -EINVAL);
	gdb_hex_encode(b, 2, h);
	assert_memory_equal(h, "0aff", 4);
}

static void test_parse_errors(void **state)
{
	static uint8_t scratch[GDB_PACKET_MAX];
	struct gdb_cmd c;
	const char *bad[] = {
		"m",
		"m1",
		"m1,",
		"mx,1",
		"m1,2x",
		"m11111111111111111,1",
		"M1,2:0",
		"M1,1:zz",
		"X1,2:a",
		"p",
		"P1=12",
		"Z0,1",
		"Z9,1,4",
		"Hx1",
		"H",
		"Tz",
		"vCont;x",
		"vCont;",
		"C",
		"c1x",
		"qXfer:features:read:target.xml:0",
		"M0,8000000000000001:00",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (gdb_parse((const uint8_t *)bad[i], strlen(bad[i]), &c,
			      scratch) != -EINVAL)
			fail_msg("'%s' parsed", bad[i]);
	assert_int_equal(gdb_parse((const uint8_t *)"qfoo", 4, &c, scratch), 0);
	assert_int_equal(c.type, GDB_CMD_UNKNOWN);
	assert_int_equal(
		gdb_parse((const uint8_t *)"vCont;c:2;C05", 13, &c, scratch),
		0);
	assert_int_equal(c.type, GDB_CMD_CONTINUE);
	assert_int_equal(
		gdb_parse((const uint8_t *)"vCont;s:1;c", 11, &c, scratch), 0);
	assert_int_equal(c.type, GDB_CMD_STEP);
}

/* --- session ------------------------------------------------------- */

static void test_registers(void **state)
{
	const char *g;
	char want[17];

	(void)state;
	ASK("Hg2", "OK");
	g = ask("g", GDB_ACT_REPLY);
	assert_int_equal(strlen(g), 33 * 16);
	assert_memory_equal(g, "0000000000000000", 16);		  /* x0 */
	assert_memory_equal(g + 16, "0101000000000000", 16);	  /* ra */
	assert_memory_equal(g + 32 * 16, "0001000000000000", 16); /* pc */
	ASK("p20", "0001000000000000");
	ASK("P20=1000000000000080", "OK");
	assert_int_equal(fake.regs[1][0], 0x8000000000000010ULL);
	ASK("P0=1111111111111111", "OK"); /* x0 ignored */
	/* satp (0x180) is regnum 65 + 0x180 = 0x1c1 */
	fake.satp[1] = 0x8000000000012345ULL;
	ASK("p1c1", "4523010000000080");
	snprintf(want, sizeof(want), "%02x%02x000000000000",
		 GDB_REG_CSR(0x100) & 0xff, GDB_REG_CSR(0x100) >> 8);
	ASK("p141", want);
	ASK("p999", "E02");
	ASK("Hg9", "E03");
	ASK("Hg0", "OK");
	ASK("G0000000000000000aa00000000000000", "OK");
	assert_int_equal(fake.regs[1][1], 0xaa);
	ASK("G00", "E16");
}

static void test_memory(void **state)
{
	(void)state;
	ASK("m11000,4", "00010203");
	ASK("m110fe,4", "feff"); /* short at the end */
	ASK("m0,4", "E0e");
	ASK("M11002,2:aabb", "OK");
	assert_int_equal(fake.mem[2], 0xaa);
	ASK("X11004,0:", "OK");
	ASK("X11004,2:\x01\x02", "OK");
	assert_int_equal(fake.mem[5], 2);
	ASK("qRcmd,7068797320"
	    "6f6e", /* "phys on" */
	    "61646472657373657320617265207068797369636"
	    "16c0a");
	ASK("m1000,2", "0001");
	assert_true(fake.last_phys);
	ASK("qRcmd,7068797320"
	    "6f6666", /* "phys off" */
	    "6164647265737365732061726520766972747561"
	    "6c0a");
}

static void test_breakpoints(void **state)
{
	(void)state;
	ASK("Z0,11010,4", "OK");
	assert_memory_equal(fake.mem + 0x10, "\x73\x00\x10\x00", 4);
	ASK("Z0,11010,4", "OK"); /* twice: one */
	assert_int_equal(sess.nr_bps, 1);
	ASK("Z0,11020,2", "OK");
	assert_memory_equal(fake.mem + 0x20, "\x02\x90", 2);
	ASK("z0,11010,4", "OK");
	assert_memory_equal(fake.mem + 0x10, "\x10\x11\x12\x13", 4);
	ASK("Z0,11030,3", "E16");
	ASK("Z0,0,4", "E0e");
	ASK("Z1,11030,4", ""); /* hardware: not offered */
	assert_string_equal(ask("D", GDB_ACT_DETACH), "OK");
	assert_memory_equal(fake.mem + 0x20, "\x20\x21", 2);
	assert_int_equal(sess.nr_bps, 0);
}

static void test_breakpoints_full(void **state)
{
	char pkt[32];

	(void)state;
	for (int i = 0; i < GDB_MAX_BPS; i++) {
		snprintf(pkt, sizeof(pkt), "Z0,%x,2", 0x11000 + 2 * i);
		ASK(pkt, "OK");
	}
	ASK("Z0,110f0,2", "E1c");
	assert_int_equal(ask("k", GDB_ACT_KILL)[0], '\0');
	assert_int_equal(fake.mem[0], 0);
	assert_int_equal(fake.mem[0x7f], 0x7f);
}

static void test_resume_no_step(void **state)
{
	(void)state;
	ASK("vCont?", "vCont;c;C");
	ask("c", GDB_ACT_RESUME);
	ask("vCont;c", GDB_ACT_RESUME);
	ask("C05;1234", GDB_ACT_RESUME);
	assert_int_equal(fake.regs[0][0], 0x1234);
	ASK("s", "E5f");
	ASK("vCont;s:1", "E5f");
}

static void test_threads(void **state)
{
	(void)state;
	ASK("qfThreadInfo", "m1,2");
	ASK("qsThreadInfo", "l");
	ASK("T2", "OK");
	ASK("T3", "E03");
	ASK("qAttached", "1");
	ASK("qThreadExtraInfo,2", "764350552031"); /* "vCPU 1" */
	gdb_session_stopped(&sess, 1, GDB_SIGTRAP);
	ASK("?", "T05thread:2;");
	ASK("qC", "QC2");
	ASK("vMustReplyEmpty", "");
}

static void test_features(void **state)
{
	const char *xml = gdb_target_xml();
	char pkt[64], got[4096] = "";
	size_t off = 0;

	(void)state;
	assert_non_null(strstr(xml, "<architecture>riscv:rv64</architecture>"));
	assert_non_null(
		strstr(xml, "name=\"satp\" bitsize=\"64\" regnum=\"449\""));
	assert_non_null(
		strstr(ask("qSupported:xmlRegisters=i386", GDB_ACT_REPLY),
		       "qXfer:features:read+"));
	for (;;) {
		const char *r;

		snprintf(pkt, sizeof(pkt),
			 "qXfer:features:read:target.xml:%zx,100", off);
		r = ask(pkt, GDB_ACT_REPLY);
		assert_true(r[0] == 'm' || r[0] == 'l');
		strcat(got, r + 1);
		off += strlen(r + 1);
		if (r[0] == 'l')
			break;
	}
	assert_string_equal(got, xml);
	ASK("qXfer:features:read:other.xml:0,10", "E02");
	ASK("QStartNoAckMode", "OK");
	assert_true(sess.no_ack);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rx_packets),
		cmocka_unit_test(test_rx_overflow),
		cmocka_unit_test(test_frame_roundtrip),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test_setup(test_registers, setup),
		cmocka_unit_test_setup(test_memory, setup),
		cmocka_unit_test_setup(test_breakpoints, setup),
		cmocka_unit_test_setup(test_breakpoints_full, setup),
		cmocka_unit_test_setup(test_resume_no_step, setup),
		cmocka_unit_test_setup(test_threads, setup),
		cmocka_unit_test_setup(test_features, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
