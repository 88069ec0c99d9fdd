// SPDX-License-Identifier: GPL-2.0
/*
 * The irqchip choice and the AIA and in-kernel PLIC configuration
 * sequences, on a fake KVM.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vmm/kvm/irqchip.h"
#include "vmm/isa.h"

static enum irqchip_kind pick(enum irqchip_choice choice, bool host_aia,
			      bool hide_ssaia, int *ret, const char **why)
{
	struct vm_config cfg = { .irqchip = choice };
	const struct irqchip_host host = { .aia = host_aia };
	enum irqchip_kind kind = IRQCHIP_KIND_PLIC;

	if (hide_ssaia)
		isa_ext_set(cfg.disable_isa, isa_ext_lookup("ssaia"));
	*why = NULL;
	*ret = irqchip_select(&cfg, &host, &kind, why);
	return kind;
}

/* The same with a host whose KVM has the in-kernel PLIC (and maybe AIA). */
static enum irqchip_kind pick_kplic(enum irqchip_choice choice, bool host_aia,
				    bool hide_ssaia, int *ret, const char **why)
{
	struct vm_config cfg = { .irqchip = choice };
	const struct irqchip_host host = { .aia = host_aia,
					   .kernel_plic = true };
	enum irqchip_kind kind = IRQCHIP_KIND_PLIC;

	if (hide_ssaia)
		isa_ext_set(cfg.disable_isa, isa_ext_lookup("ssaia"));
	*why = NULL;
	*ret = irqchip_select(&cfg, &host, &kind, why);
	return kind;
}

static void test_select_kernel_plic(void **state)
{
	const char *why;
	int ret;

	(void)state;
	/* auto: the AIA first, then KVM's PLIC, then ours. */
	assert_int_equal(pick_kplic(IRQCHIP_AUTO, true, false, &ret, &why),
			 IRQCHIP_KIND_AIA);
	assert_int_equal(pick_kplic(IRQCHIP_AUTO, false, false, &ret, &why),
			 IRQCHIP_KIND_KERNEL_PLIC);
	assert_int_equal(ret, 0);
	assert_int_equal(pick_kplic(IRQCHIP_AUTO, true, true, &ret, &why),
			 IRQCHIP_KIND_KERNEL_PLIC);
	assert_int_equal(pick_kplic(IRQCHIP_PLIC, false, false, &ret, &why),
			 IRQCHIP_KIND_PLIC);
	assert_int_equal(
		pick_kplic(IRQCHIP_KERNEL_PLIC, true, false, &ret, &why),
		IRQCHIP_KIND_KERNEL_PLIC);
	assert_int_equal(ret, 0);
	/* Asked for, not offered: one line naming it. */
	pick(IRQCHIP_KERNEL_PLIC, true, false, &ret, &why);
	assert_int_equal(ret, -ENODEV);
	assert_non_null(why);
	assert_non_null(strstr(why, "--irqchip kernel-plic"));
	assert_non_null(strstr(why, "no in-kernel PLIC"));
	assert_null(strchr(why, '\n'));
	assert_string_equal(irqchip_name(IRQCHIP_KIND_KERNEL_PLIC),
			    "kernel-plic");
	assert_true(irqchip_in_kernel(IRQCHIP_KIND_KERNEL_PLIC));
	assert_true(irqchip_in_kernel(IRQCHIP_KIND_AIA));
	assert_false(irqchip_in_kernel(IRQCHIP_KIND_PLIC));
}

static void test_select(void **state)
{
	const char *why;
	int ret;

	(void)state;
	assert_int_equal(pick(IRQCHIP_AUTO, true, false, &ret, &why),
			 IRQCHIP_KIND_AIA);
	assert_int_equal(ret, 0);
	assert_int_equal(pick(IRQCHIP_AUTO, false, false, &ret, &why),
			 IRQCHIP_KIND_PLIC);
	assert_int_equal(ret, 0);
	/* kvmtool: --disable-ssaia means the PLIC. */
	assert_int_equal(pick(IRQCHIP_AUTO, true, true, &ret, &why),
			 IRQCHIP_KIND_PLIC);
	assert_int_equal(pick(IRQCHIP_PLIC, true, false, &ret, &why),
			 IRQCHIP_KIND_PLIC);
	assert_int_equal(pick(IRQCHIP_AIA, true, false, &ret, &why),
			 IRQCHIP_KIND_AIA);
	assert_int_equal(ret, 0);
	pick(IRQCHIP_AIA, false, false, &ret, &why);
	assert_int_equal(ret, -ENODEV);
	assert_non_null(why);
	assert_non_null(strstr(why, "--irqchip aia"));
	assert_non_null(strstr(why, "no in-kernel AIA"));
	assert_string_equal(irqchip_name(IRQCHIP_KIND_AIA), "aia");
	assert_string_equal(irqchip_name(IRQCHIP_KIND_PLIC), "plic");
}

static void test_hart_bits(void **state)
{
	static const unsigned int want[][2] = {
		{ 1, 0 }, { 2, 1 }, { 3, 2 }, { 4, 2 },
		{ 5, 3 }, { 8, 3 }, { 9, 4 }, { 32, 5 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(aia_hart_bits(want[i][0]), want[i][1]);
}

/* A fake AIA device: records every call, fails call number fail_at. */
struct call {
	char op; /* 'g' or 's' */
	uint32_t group;
	uint64_t attr, val;
};

struct fake_aia {
	struct call calls[128];
	unsigned int n;
	int fail_at; /* -1: never */
	uint64_t mode, ids;
};

static int fake_get(void *opaque, uint32_t group, uint64_t attr, uint64_t *v)
{
	struct fake_aia *f = opaque;

	assert_true(f->n < 128);
	f->calls[f->n] = (struct call){ 'g', group, attr, 0 };
	if ((int)f->n++ == f->fail_at)
		return -EIO;
	*v = group == 0 && attr == 0 ? f->mode : f->ids;
	return 0;
}

static int fake_set(void *opaque, uint32_t group, uint64_t attr, uint64_t v)
{
	struct fake_aia *f = opaque;

	assert_true(f->n < 128);
	f->calls[f->n] = (struct call){ 's', group, attr, v };
	return (int)f->n++ == f->fail_at ? -EIO : 0;
}

static const struct aia_attr_ops fake_ops = { fake_get, fake_set };

static const struct aia_params params3 = {
	.nr_harts = 3,
	.aplic_base = 0x0d000000,
	.imsic_base = 0x28000000,
	.nr_sources = 64,
	.aplic_phandle = 1,
	.imsic_phandle = 64,
	.cpu_intc_phandle = 2,
};

static void assert_call(const struct call *c, char op, uint32_t group,
			uint64_t attr, uint64_t val)
{
	assert_int_equal(c->op, op);
	assert_int_equal(c->group, group);
	assert_int_equal(c->attr, attr);
	if (op == 's')
		assert_int_equal(c->val, val);
}

static void test_configure_sequence(void **state)
{
	struct fake_aia f = { .fail_at = -1, .mode = 2, .ids = 255 };
	struct aia_state st;
	const char *why = NULL;

	(void)state;
	assert_int_equal(aia_configure(&fake_ops, &f, &params3, &st, &why), 0);
	assert_int_equal(f.n, 9);
	assert_call(&f.calls[0], 'g', 0, 0, 0);		 /* mode */
	assert_call(&f.calls[1], 'g', 0, 1, 0);		 /* ids */
	assert_call(&f.calls[2], 's', 0, 2, 64);	 /* sources */
	assert_call(&f.calls[3], 's', 0, 5, 2);		 /* hart bits */
	assert_call(&f.calls[4], 's', 1, 0, 0x0d000000); /* APLIC */
	assert_call(&f.calls[5], 's', 1, 1, 0x28000000); /* IMSIC 0 */
	assert_call(&f.calls[6], 's', 1, 2, 0x28001000);
	assert_call(&f.calls[7], 's', 1, 3, 0x28002000);
	assert_call(&f.calls[8], 's', 2, 0, 0); /* INIT, last */
	assert_int_equal(st.mode, 2);
	assert_int_equal(st.nr_ids, 255);
	assert_int_equal(st.nr_sources, 64);
	assert_int_equal(st.hart_bits, 2);
}

/* Fewer ids than wanted sources: sources are capped at the ids. */
static void test_configure_caps_sources(void **state)
{
	struct fake_aia f = { .fail_at = -1, .ids = 63 };
	struct aia_params p = params3;
	struct aia_state st;
	const char *why;

	(void)state;
	p.nr_sources = 1023;
	assert_int_equal(aia_configure(&fake_ops, &f, &p, &st, &why), 0);
	assert_int_equal(st.nr_sources, 63);
	assert_call(&f.calls[2], 's', 0, 2, 63);
}

/* Every step's failure stops the sequence before INIT and names it. */
static void test_configure_failures(void **state)
{
	(void)state;
	for (int k = 0; k < 9; k++) {
		struct fake_aia f = { .fail_at = k, .ids = 255 };
		struct aia_state st;
		const char *why = NULL;

		assert_int_equal(
			aia_configure(&fake_ops, &f, &params3, &st, &why),
			-EIO);
		assert_int_equal(f.n, k + 1);
		assert_non_null(why);
		assert_true(strlen(why) > 0);
	}
}

static void test_configure_bad_input(void **state)
{
	struct fake_aia f = { .fail_at = -1, .ids = 5000 };
	struct aia_params p = params3;
	struct aia_state st;
	const char *why;

	(void)state;
	/* KVM reporting an impossible id count is not trusted. */
	assert_int_equal(aia_configure(&fake_ops, &f, &p, &st, &why), -ERANGE);
	assert_non_null(strstr(why, "ids"));
	f = (struct fake_aia){ .fail_at = -1, .ids = 255 };
	p.nr_harts = 0;
	assert_int_equal(aia_configure(&fake_ops, &f, &p, &st, &why), -EINVAL);
	assert_int_equal(f.n, 0);
}

static void test_kplic_sequence(void **state)
{
	struct fake_aia f = { .fail_at = -1 };
	const char *why = NULL;

	(void)state;
	assert_int_equal(kplic_configure(&fake_ops, &f, 0x0c000000, 1023, &why),
			 0);
	assert_int_equal(f.n, 3);
	assert_call(&f.calls[0], 's', 0, 0, 1023);	 /* sources */
	assert_call(&f.calls[1], 's', 1, 0, 0x0c000000); /* base */
	assert_call(&f.calls[2], 's', 2, 0, 0);		 /* INIT, last */
}

static void test_kplic_failures(void **state)
{
	(void)state;
	for (int k = 0; k < 3; k++) {
		struct fake_aia f = { .fail_at = k };
		const char *why = NULL;

		assert_int_equal(
			kplic_configure(&fake_ops, &f, 0x0c000000, 64, &why),
			-EIO);
		assert_int_equal(f.n, k + 1);
		assert_non_null(why);
		assert_true(strlen(why) > 0);
	}
	for (int k = 0; k < 2; k++) {
		struct fake_aia f = { .fail_at = -1 };
		const char *why = NULL;

		assert_int_equal(kplic_configure(&fake_ops, &f, 0x0c000000,
						 k ? 1024 : 0, &why),
				 -EINVAL);
		assert_int_equal(f.n, 0);
		assert_non_null(why);
	}
}

/*
 * A reboot that keeps the VM: enables and pending bits cleared while the
 * sources are active, then each source inactive with a zero target, the
 * domain last; the first failure ends the sequence.
 */
static void test_aplic_reset(void **state)
{
	struct fake_aia f = { .fail_at = -1 };

	(void)state;
	assert_int_equal(aplic_reset(&fake_ops, &f, 20), 0);
	assert_int_equal(f.n, 2 + 2 * 20 + 1);
	assert_call(&f.calls[0], 's', 3, 0x1f00, 0xffffffff); /* clrie */
	assert_call(&f.calls[1], 's', 3, 0x1d00, 0xffffffff); /* clrip */
	for (unsigned int i = 1; i <= 20; i++) {
		assert_call(&f.calls[2 * i], 's', 3, 0x0004 + 4 * (i - 1), 0);
		assert_call(&f.calls[2 * i + 1], 's', 3, 0x3004 + 4 * (i - 1),
			    0);
	}
	assert_call(&f.calls[42], 's', 3, 0x0000, 0); /* domaincfg, last */

	/* Source 32 and up: a second word of enable and pending bits. */
	f = (struct fake_aia){ .fail_at = -1 };
	assert_int_equal(aplic_reset(&fake_ops, &f, 31), 0);
	assert_int_equal(f.n, 2 + 62 + 1);
	f = (struct fake_aia){ .fail_at = -1 };
	assert_int_equal(aplic_reset(&fake_ops, &f, 32), 0);
	assert_int_equal(f.n, 4 + 64 + 1);
	assert_call(&f.calls[2], 's', 3, 0x1f04, 0xffffffff);
	assert_call(&f.calls[3], 's', 3, 0x1d04, 0xffffffff);
	f = (struct fake_aia){ .fail_at = -1 };
	assert_int_equal(aplic_reset(&fake_ops, &f, 15), 0);
	assert_int_equal(f.n, 2 + 30 + 1);
	for (int k = 0; k < 33; k += 8) {
		f = (struct fake_aia){ .fail_at = k };
		assert_int_equal(aplic_reset(&fake_ops, &f, 15), -EIO);
		assert_int_equal(f.n, k + 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_select_kernel_plic),
		cmocka_unit_test(test_kplic_sequence),
		cmocka_unit_test(test_kplic_failures),
		cmocka_unit_test(test_aplic_reset),
		cmocka_unit_test(test_hart_bits),
		cmocka_unit_test(test_configure_sequence),
		cmocka_unit_test(test_configure_caps_sources),
		cmocka_unit_test(test_configure_failures),
		cmocka_unit_test(test_configure_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
