// SPDX-License-Identifier: GPL-2.0
/* pvpanic: the events a guest writes reach the sink; nothing else does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <libfdt.h>

#include "devices/pvpanic.h"

static unsigned int events[8], nr_events;

static void record(void *opaque, unsigned int ev)
{
	assert_ptr_equal(opaque, events);
	if (nr_events < 8)
		events[nr_events++] = ev;
}

static void setup(struct pvpanic *p)
{
	const struct dev_res res = { .base = 0x10100000, .size = 2 };
	const struct pvpanic_sink sink = { record, events };

	nr_events = 0;
	pvpanic_init(p, &res, &sink);
}

static void wr(struct pvpanic *p, uint64_t off, uint8_t v)
{
	pvpanic_mmio_ops.write(p, off, &v, 1);
}

static uint8_t rd(struct pvpanic *p, uint64_t off)
{
	uint8_t v = 0xee;

	pvpanic_mmio_ops.read(p, off, &v, 1);
	return v;
}

static void test_events(void **state)
{
	struct pvpanic p;

	(void)state;
	setup(&p);
	/* The guest reads what it may report: panicked, crash loaded. */
	assert_int_equal(rd(&p, 0), PVPANIC_PANICKED | PVPANIC_CRASH_LOADED);
	assert_int_equal(rd(&p, 1), 0);
	assert_int_equal(pvpanic_mmio_ops.sizes, MMIO_SIZE(1));
	wr(&p, 0, PVPANIC_PANICKED);
	wr(&p, 0, PVPANIC_CRASH_LOADED);
	assert_int_equal(nr_events, 2);
	assert_int_equal(events[0], PVPANIC_PANICKED);
	assert_int_equal(events[1], PVPANIC_CRASH_LOADED);
}

/* Unknown bits (a newer guest's "shutdown", 0x4) and other offsets. */
static void test_ignored(void **state)
{
	struct pvpanic p;

	(void)state;
	setup(&p);
	wr(&p, 0, 0);
	wr(&p, 0, 0x4);
	wr(&p, 0, 0xfc);
	wr(&p, 1, PVPANIC_PANICKED);
	assert_int_equal(nr_events, 0);
	wr(&p, 0, 0xff);
	assert_int_equal(nr_events, 1);
	assert_int_equal(events[0], PVPANIC_PANICKED | PVPANIC_CRASH_LOADED);
	/* No sink: nothing happens. */
	p.sink.event = NULL;
	wr(&p, 0, PVPANIC_PANICKED);
	assert_int_equal(nr_events, 1);
}

static void test_fdt_node(void **state)
{
	static uint8_t buf[4096];
	struct pvpanic p;
	const void *reg;
	int node, len;

	(void)state;
	setup(&p);
	assert_int_equal(fdt_create(buf, sizeof(buf)), 0);
	assert_int_equal(fdt_finish_reservemap(buf), 0);
	assert_int_equal(fdt_begin_node(buf, ""), 0);
	assert_int_equal(pvpanic_mmio_ops.fdt(&p, buf), 0);
	assert_int_equal(fdt_end_node(buf), 0);
	assert_int_equal(fdt_finish(buf), 0);
	node = fdt_path_offset(buf, "/pvpanic@10100000");
	assert_true(node >= 0);
	assert_int_equal(
		fdt_node_check_compatible(buf, node, "qemu,pvpanic-mmio"), 0);
	reg = fdt_getprop(buf, node, "reg", &len);
	assert_int_equal(len, 16);
	assert_int_equal(fdt64_ld(reg), 0x10100000);
	assert_int_equal(fdt64_ld((const fdt64_t *)((const uint8_t *)reg + 8)),
			 2);
	assert_null(fdt_getprop(buf, node, "interrupts", &len));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_ignored),
		cmocka_unit_test(test_fdt_node),
	};

	return cmocka_run_group_tests_name("pvpanic", tests, NULL, NULL);
}
