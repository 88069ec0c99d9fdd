// SPDX-License-Identifier: GPL-2.0
/*
 * The GSI routing bookkeeping (vmm/kvm/gsi_routes.c) against a fake KVM
 * that keeps the last table pushed and the irqfds bound: the line entries
 * kept in every table, one GSI per eventfd above them, a message changed
 * in place with its irqfd kept, clears, failures undone, the bound on
 * routes, and a stop that forgets without asking KVM.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vmm/kvm/gsi_routes.h"

#define LINES 97 /* KVM's AIA default: nr_sources + 1 */
#define MAX_FDS 128

struct fake {
	uint32_t nr_lines;
	struct gsi_msi_route msi[GSI_ROUTES_MSI_MAX];
	unsigned int n_msi, sets, irqfd_calls;
	int bound_gsi[MAX_FDS];	  /* fd's bound GSI, -1: none */
	int fail_set, fail_irqfd; /* the next such call fails */
};

static int fake_set(void *opaque, uint32_t nr_lines,
		    const struct gsi_msi_route *msi, unsigned int n_msi)
{
	struct fake *f = opaque;

	assert_true(n_msi <= GSI_ROUTES_MSI_MAX);
	f->sets++;
	if (f->fail_set) {
		f->fail_set = 0;
		return -ENOMEM;
	}
	/* KVM's rule: GSIs unique, under KVM_MAX_IRQ_ROUTES. */
	for (unsigned int i = 0; i < n_msi; i++) {
		assert_true(msi[i].gsi >= nr_lines);
		assert_true(msi[i].gsi < GSI_ROUTES_KVM_MAX);
		for (unsigned int j = 0; j < i; j++)
			assert_int_not_equal(msi[i].gsi, msi[j].gsi);
	}
	f->nr_lines = nr_lines;
	memcpy(f->msi, msi, n_msi * sizeof(*msi));
	f->n_msi = n_msi;
	return 0;
}

static int fake_irqfd(void *opaque, int fd, uint32_t gsi, bool on)
{
	struct fake *f = opaque;

	assert_true(fd >= 0 && fd < MAX_FDS);
	f->irqfd_calls++;
	if (f->fail_irqfd) {
		f->fail_irqfd = 0;
		return -EINVAL;
	}
	if (on) {
		assert_int_equal(f->bound_gsi[fd], -1);
		f->bound_gsi[fd] = gsi;
	} else {
		assert_int_equal(f->bound_gsi[fd], (int)gsi);
		f->bound_gsi[fd] = -1;
	}
	return 0;
}

static const struct gsi_route_ops fake_ops = {
	.set = fake_set,
	.irqfd = fake_irqfd,
};

static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	for (unsigned int i = 0; i < MAX_FDS; i++)
		f->bound_gsi[i] = -1;
}

/* The route of gsi in the fake's table, or NULL. */
static const struct gsi_msi_route *route(const struct fake *f, uint32_t gsi)
{
	for (unsigned int i = 0; i < f->n_msi; i++)
		if (f->msi[i].gsi == gsi)
			return &f->msi[i];
	return NULL;
}

static void start(struct gsi_routes *r, struct fake *f)
{
	fake_init(f);
	gsi_routes_init(r);
	assert_int_equal(gsi_routes_start(r, &fake_ops, f, LINES), 0);
	assert_true(gsi_routes_live(r));
}

static void test_set_keeps_lines(void **state)
{
	struct gsi_routes r;
	struct fake f;
	uint32_t g1, g2;

	(void)state;
	start(&r, &f);
	assert_int_equal(gsi_routes_set(&r, 10, 0x28000000, 5, &g1), 0);
	assert_int_equal(f.nr_lines, LINES);
	assert_true(g1 >= LINES);
	assert_int_equal(f.bound_gsi[10], (int)g1);
	assert_int_equal(route(&f, g1)->addr, 0x28000000);
	assert_int_equal(route(&f, g1)->data, 5);
	assert_int_equal(gsi_routes_set(&r, 11, 0x28001000, 7, &g2), 0);
	assert_int_not_equal(g1, g2);
	assert_int_equal(f.n_msi, 2);
	assert_int_equal(f.nr_lines, LINES);
	assert_int_equal(f.bound_gsi[11], (int)g2);
	gsi_routes_destroy(&r);
}

static void test_update_in_place(void **state)
{
	struct gsi_routes r;
	struct fake f;
	uint32_t g, g2;
	unsigned int sets, calls;

	(void)state;
	start(&r, &f);
	assert_int_equal(gsi_routes_set(&r, 10, 0x28000000, 5, &g), 0);
	sets = f.sets;
	calls = f.irqfd_calls;
	/* The same message: nothing asked of KVM. */
	assert_int_equal(gsi_routes_set(&r, 10, 0x28000000, 5, &g2), 0);
	assert_int_equal(g2, g);
	assert_int_equal(f.sets, sets);
	/* A new one (the guest moved the vector): same GSI, same irqfd. */
	assert_int_equal(gsi_routes_set(&r, 10, 0x28001000, 9, &g2), 0);
	assert_int_equal(g2, g);
	assert_int_equal(f.sets, sets + 1);
	assert_int_equal(f.irqfd_calls, calls);
	assert_int_equal(route(&f, g)->addr, 0x28001000);
	assert_int_equal(route(&f, g)->data, 9);
	/* Any 64-bit address and data the guest writes pass as they are. */
	assert_int_equal(gsi_routes_set(&r, 10, ~0ULL, ~0U, &g2), 0);
	assert_int_equal(route(&f, g)->addr, ~0ULL);
	gsi_routes_destroy(&r);
}

static void test_clear_and_reuse(void **state)
{
	struct gsi_routes r;
	struct fake f;
	uint32_t g1, g2, g3;

	(void)state;
	start(&r, &f);
	assert_int_equal(gsi_routes_set(&r, 10, 0x1000, 1, &g1), 0);
	assert_int_equal(gsi_routes_set(&r, 11, 0x1000, 2, &g2), 0);
	assert_int_equal(gsi_routes_clear(&r, 10), 0);
	assert_int_equal(f.bound_gsi[10], -1);
	assert_null(route(&f, g1));
	assert_non_null(route(&f, g2));
	assert_int_equal(f.nr_lines, LINES);
	/* Clearing what has no route asks nothing. */
	f.sets = f.irqfd_calls = 0;
	assert_int_equal(gsi_routes_clear(&r, 10), 0);
	assert_int_equal(gsi_routes_clear(&r, -1), 0);
	assert_int_equal(f.sets + f.irqfd_calls, 0);
	/* The freed GSI is given again. */
	assert_int_equal(gsi_routes_set(&r, 12, 0x2000, 3, &g3), 0);
	assert_int_equal(g3, g1);
	gsi_routes_destroy(&r);
}

static void test_bounded(void **state)
{
	struct gsi_routes r;
	struct fake f;
	uint32_t g;

	(void)state;
	start(&r, &f);
	for (int fd = 0; fd < GSI_ROUTES_MSI_MAX; fd++)
		assert_int_equal(gsi_routes_set(&r, fd, 0x1000, fd, &g), 0);
	assert_int_equal(gsi_routes_set(&r, GSI_ROUTES_MSI_MAX, 0x1000, 0, &g),
			 -ENOSPC);
	assert_int_equal(f.n_msi, GSI_ROUTES_MSI_MAX);
	assert_int_equal(f.bound_gsi[GSI_ROUTES_MSI_MAX], -1);
	assert_int_equal(gsi_routes_set(&r, -3, 0x1000, 0, &g), -EINVAL);
	gsi_routes_destroy(&r);
	/* Lines that leave no room for the MSI GSIs under KVM's limit. */
	gsi_routes_init(&r);
	assert_int_equal(
		gsi_routes_start(&r, &fake_ops, &f,
				 GSI_ROUTES_KVM_MAX - GSI_ROUTES_MSI_MAX + 1),
		-EINVAL);
	assert_false(gsi_routes_live(&r));
	gsi_routes_destroy(&r);
}

static void test_failures_undone(void **state)
{
	struct gsi_routes r;
	struct fake f;
	uint32_t g;

	(void)state;
	start(&r, &f);
	/* The table refused: no route, no irqfd. */
	f.fail_set = 1;
	assert_int_equal(gsi_routes_set(&r, 10, 0x1000, 1, &g), -ENOMEM);
	assert_int_equal(f.bound_gsi[10], -1);
	assert_int_equal(f.n_msi, 0);
	/* The irqfd refused: the route taken out of the table again. */
	f.fail_irqfd = 1;
	assert_int_equal(gsi_routes_set(&r, 10, 0x1000, 1, &g), -EINVAL);
	assert_int_equal(f.bound_gsi[10], -1);
	assert_int_equal(f.n_msi, 0);
	/* A refused update keeps the old message. */
	assert_int_equal(gsi_routes_set(&r, 10, 0x1000, 1, &g), 0);
	f.fail_set = 1;
	assert_int_equal(gsi_routes_set(&r, 10, 0x2000, 2, &g), -ENOMEM);
	assert_int_equal(gsi_routes_set(&r, 10, 0x1000, 1, &g), 0);
	assert_int_equal(route(&f, g)->addr, 0x1000);
	/* A failed unbind still forgets the route. */
	f.fail_irqfd = 1;
	assert_int_equal(gsi_routes_clear(&r, 10), -EINVAL);
	assert_int_equal(f.n_msi, 0);
	f.bound_gsi[10] = -1; /* the fake kept it: KVM would have */
	assert_int_equal(gsi_routes_set(&r, 10, 0x1000, 1, &g), 0);
	gsi_routes_destroy(&r);
}

static void test_stop_forgets(void **state)
{
	struct gsi_routes r;
	struct fake f;
	uint32_t g;

	(void)state;
	start(&r, &f);
	assert_int_equal(gsi_routes_set(&r, 10, 0x1000, 1, &g), 0);
	gsi_routes_stop(&r);
	assert_false(gsi_routes_live(&r));
	f.sets = f.irqfd_calls = 0;
	/* The VM went with its irqfds: nothing asked of KVM. */
	assert_int_equal(gsi_routes_clear(&r, 10), 0);
	assert_int_equal(gsi_routes_set(&r, 10, 0x1000, 1, &g), -ENODEV);
	assert_int_equal(f.sets + f.irqfd_calls, 0);
	/* A new VM: a fresh default table, the same eventfd again. */
	start(&r, &f);
	assert_int_equal(gsi_routes_set(&r, 10, 0x1000, 1, &g), 0);
	assert_int_equal(f.bound_gsi[10], (int)g);
	assert_int_equal(f.n_msi, 1);
	gsi_routes_destroy(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_keeps_lines),
		cmocka_unit_test(test_update_in_place),
		cmocka_unit_test(test_clear_and_reuse),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_failures_undone),
		cmocka_unit_test(test_stop_forgets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
